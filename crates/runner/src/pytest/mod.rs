//! Python: pytest, run by the project's own interpreter with pith's plugin loaded.
//!
//! The plugin (`pith_plugin.py`, embedded in the binary) streams one JSON record per line to a
//! scratch file as tests start and finish, so a run that hangs or crashes still tells what
//! finished and what was running. The project is never edited: the plugin lives in pith's cache
//! and is loaded through `PYTHONPATH` under a module name made from its content's hash
//! (`-p pith_<hash>`), which no project file can shadow.
//!
//! The verdict weighs pytest's exit code (0 passed, 1 tests failed, 2 interrupted, 3 internal
//! error, 4 usage error, 5 no tests) and how many tests it selected against what the records
//! say: a coverage threshold or a session-finish hook that fails a run whose tests all passed,
//! or a run that stopped early with exit 0, is never green. pith passes pytest only what its
//! structured output needs, after the project's own `addopts`, so the project's options keep
//! their effect; ids go as paths, never as options.

pub(crate) mod faults;
pub(crate) mod records;

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use pith_model::{ExitMeaning, Failure, Frame, Phase, Run, Status, TestOutcome};

use crate::paths::{PathMap, CODE_CHARS};
use crate::process::{self, Captured, End};
use crate::verdict::{self, Ending, ExitCodes};
use crate::{text, Adapter, Context, RunnerError};

use records::{Outcome, RawFrame, Records, When};

/// The plugin's source, written to the cache under a name derived from its content.
const PLUGIN: &str = include_str!("pith_plugin.py");
/// Where the plugin writes its records.
const REPORT_ENV: &str = "PITH_REPORT";
/// The parametrized ids the plugin selects (see [`Selection`]).
const SELECT_ENV: &str = "PITH_SELECT";
/// The most read of one process's stack dump.
const STACKS_BYTES: u64 = 1 << 20;
/// Runs per request: when pytest rejects some requested ids, the rest are run again without
/// them (pytest refuses to run anything while one id matches nothing).
const MAX_ATTEMPTS: usize = 3;

/// Files that make a directory a Python project.
const PROJECT_FILES: &[&str] = &[
    "pytest.ini",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "tox.ini",
    "conftest.py",
];

/// Variables of the caller's shell that would change what pytest does or where the plugin
/// writes: pith's answer must not depend on them.
const SCRUBBED_ENV: &[&str] = &[
    "PYTEST_ADDOPTS",
    "PYTEST_XDIST_WORKER",
    "PYTEST_XDIST_WORKER_COUNT",
    "PYTEST_XDIST_TESTRUNUID",
    "PYTEST_CURRENT_TEST",
    "PYTEST_VERSION",
];

/// pytest in a Python workspace.
#[derive(Debug, Clone)]
pub struct Pytest {
    /// The virtualenv active in pith's environment (`$VIRTUAL_ENV`), which wins over any in the
    /// workspace.
    virtual_env: Option<PathBuf>,
    /// The project's directory: pytest runs there. The workspace root, or a package inside it.
    dir: Option<PathBuf>,
}

/// A Python project at `dir`, with the virtualenv active in pith's environment.
pub fn detect(dir: &Path) -> Option<Pytest> {
    is_python_project(dir).then(|| {
        Pytest::new(
            std::env::var_os("VIRTUAL_ENV")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
        )
        .in_dir(dir)
    })
}

/// [`detect`], requiring signs of pytest tests rather than of any Python package: pytest's own
/// configuration, a `conftest.py`, or test files in the directory or its `tests/`.
pub fn detect_strict(dir: &Path) -> Option<Pytest> {
    has_pytest_tests(dir).then(|| detect(dir)).flatten()
}

fn has_pytest_tests(dir: &Path) -> bool {
    let configured = |file: &str, section: &str| {
        std::fs::read_to_string(dir.join(file)).is_ok_and(|t| t.contains(section))
    };
    dir.join("pytest.ini").is_file()
        || dir.join("conftest.py").is_file()
        || configured("pyproject.toml", "[tool.pytest")
        || configured("setup.cfg", "[tool:pytest]")
        || configured("tox.ini", "[pytest]")
        || has_test_files(dir)
        || has_test_files(&dir.join("tests"))
}

fn is_python_project(root: &Path) -> bool {
    PROJECT_FILES.iter().any(|f| root.join(f).is_file())
        || has_test_files(root)
        || has_test_files(&root.join("tests"))
}

fn has_test_files(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let name = e.file_name();
        let name = name.to_string_lossy();
        name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py"))
    })
}

impl Pytest {
    /// An adapter that treats `virtual_env` as the active virtualenv (`None`: none is active).
    pub fn new(virtual_env: Option<PathBuf>) -> Self {
        Pytest {
            virtual_env,
            dir: None,
        }
    }

    /// Runs pytest in `dir` (default: the workspace root).
    pub fn in_dir(mut self, dir: &Path) -> Self {
        self.dir = Some(dir.to_path_buf());
        self
    }

    fn dir<'a>(&'a self, ctx: &'a Context<'_>) -> &'a Path {
        self.dir.as_deref().unwrap_or(ctx.root)
    }
}

/// The interpreter that runs pytest.
#[derive(Debug, Clone)]
struct Interpreter {
    program: PathBuf,
    /// How answers and hints name it: workspace-relative when inside the workspace.
    display: String,
    /// A workspace virtualenv used while none is active: answers say so, and the child runs as
    /// if it were activated.
    workspace_venv: Option<PathBuf>,
}

enum Choice {
    Found(Interpreter),
    /// Nothing runs Python here; the hint says why.
    Missing(String),
}

impl Pytest {
    /// The project's own interpreter: the active virtualenv, else `.venv` or `venv` in the
    /// project's directory or the workspace root, else `python3` on PATH.
    fn interpreter(&self, root: &Path, paths: &PathMap) -> Choice {
        if let Some(venv) = &self.virtual_env {
            let program = venv.join("bin").join("python");
            if crate::is_executable(&program) {
                let display = paths
                    .relativize(&program.to_string_lossy(), None)
                    .unwrap_or_else(|| program.to_string_lossy().into_owned());
                return Choice::Found(Interpreter {
                    program,
                    display,
                    workspace_venv: None,
                });
            }
        }
        // The project's own directory first, then the workspace root it sits in.
        let mut bases = vec![root];
        if paths.root() != root {
            bases.push(paths.root());
        }
        for (base, dir) in bases.into_iter().flat_map(|b| [(b, ".venv"), (b, "venv")]) {
            let venv = base.join(dir);
            let program = venv.join("bin").join("python");
            let display = paths
                .relativize(&program.to_string_lossy(), None)
                .unwrap_or_else(|| format!("{dir}/bin/python"));
            if crate::is_executable(&program) {
                return Choice::Found(Interpreter {
                    program,
                    display,
                    workspace_venv: Some(venv),
                });
            }
            if program.symlink_metadata().is_ok() {
                // The venv is there but its interpreter is gone (e.g. the Python it was made
                // from was removed): running another one would test something else.
                return Choice::Missing(format!(
                    "{display} does not run: recreate the virtualenv: python3 -m venv --clear {}",
                    display.trim_end_matches("/bin/python")
                ));
            }
        }
        for name in ["python3", "python"] {
            if let Some(program) = crate::on_path(name) {
                return Choice::Found(Interpreter {
                    program,
                    display: name.to_owned(),
                    workspace_venv: None,
                });
            }
        }
        Choice::Missing(
            "no Python interpreter found: install Python 3, or create the project's virtualenv: python3 -m venv .venv"
                .to_owned(),
        )
    }
}

impl Adapter for Pytest {
    fn name(&self) -> &'static str {
        "pytest"
    }

    /// pytest node ids: `path.py::Class::test[param]`, or a path ending in `.py`.
    fn claims(&self, id: &str) -> bool {
        let file = faults::node_file(id);
        file.len() > 3 && file.ends_with(".py")
    }

    fn run(&self, ctx: &Context<'_>, tests: &[String]) -> Result<Run, RunnerError> {
        let dir = self.dir(ctx);
        let interp = match self.interpreter(dir, ctx.paths) {
            Choice::Found(i) => i,
            Choice::Missing(hint) => return Ok(runner_missing(hint, None)),
        };
        let plugin_dir = install_plugin(ctx.cache)?;
        // Ids are workspace-relative; pytest takes them relative to where it runs.
        let (mut ids, mut original) =
            to_dir_ids(tests, ctx.paths.relativize(&dir.to_string_lossy(), None));
        as_paths(&mut ids, &mut original);
        let mut not_found: Vec<String> = Vec::new();
        let mut elapsed = Duration::ZERO;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let report = ctx.scratch.join(format!("pytest-{attempt}.jsonl"));
            let _ = std::fs::remove_file(&report);
            let cmd = command(dir, &interp, &plugin_dir, &report, &ids);
            let captured = match process::run(cmd, ctx.deadline, ctx.cancel) {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    let hint = format!("{} could not be started: {e}", interp.display);
                    return Ok(runner_missing(hint, shown(&interp)));
                }
                Err(source) => {
                    return Err(RunnerError::Spawn {
                        program: interp.display.clone(),
                        source,
                    })
                }
            };
            elapsed += captured.elapsed;
            let read = std::fs::File::open(&report).and_then(records::read);
            let records = match read {
                Ok(r) => r,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Records::default(),
                Err(e) => return Err(RunnerError::io(format!("reading {}", report.display()), e)),
            };
            let stacks = read_stacks(&report);
            let mut run = judge(ctx, &interp, &records, &captured, stacks, &ids);
            if !run.not_found.is_empty() && attempt < MAX_ATTEMPTS && Instant::now() < ctx.deadline
            {
                let rest: Vec<String> = ids
                    .iter()
                    .filter(|id| !run.not_found.contains(id))
                    .cloned()
                    .collect();
                if !rest.is_empty() && rest.len() < ids.len() {
                    not_found.append(&mut run.not_found);
                    ids = rest;
                    continue;
                }
            }
            not_found.append(&mut run.not_found);
            run.not_found = not_found
                .into_iter()
                .map(|id| original.get(&id).cloned().unwrap_or(id))
                .collect();
            run.duration = elapsed;
            return Ok(run);
        }
    }
}

/// The thread stacks each process dumped when pith stopped the run (`<report>.<pid>.stacks`).
fn read_stacks(report: &Path) -> String {
    let (Some(dir), Some(name)) = (report.parent(), report.file_name()) else {
        return String::new();
    };
    let prefix = format!("{}.", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return String::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .map(|n| n.to_string_lossy())
                .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".stacks"))
        })
        .collect();
    files.sort();
    let mut out = String::new();
    for f in files {
        // A dump is at most a hundred frames per thread; a bound all the same.
        let mut bytes = Vec::new();
        let read = std::fs::File::open(&f).and_then(|file| {
            std::io::Read::read_to_end(&mut std::io::Read::take(file, STACKS_BYTES), &mut bytes)
        });
        if read.is_ok() {
            let text = String::from_utf8_lossy(&bytes);
            if !text.trim().is_empty() {
                out.push_str(text.trim_end());
                out.push('\n');
            }
        }
    }
    out
}

fn shown(interp: &Interpreter) -> Option<String> {
    interp
        .workspace_venv
        .as_ref()
        .map(|_| interp.display.clone())
}

fn runner_missing(hint: String, interpreter: Option<String>) -> Run {
    Run {
        interpreter,
        ..verdict::runner_missing("pytest", hint)
    }
}

/// The plugin's module name, `pith_<hash of its source>`: a project's own `pith_plugin.py` (or
/// any module it has) cannot be imported in its place.
fn plugin_module() -> String {
    format!("pith_{:016x}", crate::fnv1a(PLUGIN.bytes()))
}

/// Writes the plugin to `cache/pytest/<hash>/pith_<hash>.py` unless it is already there, and
/// returns its directory.
fn install_plugin(cache: &Path) -> Result<PathBuf, RunnerError> {
    let file =
        crate::install_embedded(cache, "pytest", &format!("{}.py", plugin_module()), PLUGIN)?;
    Ok(file
        .parent()
        .map_or_else(|| cache.to_path_buf(), Path::to_path_buf))
}

/// pytest reads an argument that looks like an option as one even after `--` (`-x`, `--co`,
/// `--help`), and one that begins with `@` as a file of more arguments. An id is never an
/// option: such ids go as paths (`./-x`), which pytest can only look up, and map back to the
/// ids given.
fn as_paths(ids: &mut [String], back: &mut HashMap<String, String>) {
    for id in ids.iter_mut() {
        if id.starts_with('-') || id.starts_with('@') {
            let path = format!("./{id}");
            let given = back.remove(id.as_str()).unwrap_or_else(|| id.clone());
            back.insert(path.clone(), given);
            *id = path;
        }
    }
}

/// Workspace-relative ids as pytest in a package directory `rel_dir` takes them, with the way
/// back to the ids the caller gave.
fn to_dir_ids(tests: &[String], rel_dir: Option<String>) -> (Vec<String>, HashMap<String, String>) {
    let Some(prefix) = rel_dir.map(|d| format!("{d}/")) else {
        return (tests.to_vec(), HashMap::new());
    };
    let mut back = HashMap::new();
    let ids = tests
        .iter()
        .map(|t| match t.strip_prefix(&prefix) {
            Some(inner) => {
                back.insert(inner.to_owned(), t.clone());
                inner.to_owned()
            }
            None => t.clone(),
        })
        .collect();
    (ids, back)
}

/// `<python> -m pytest -p pith_<hash> --continue-on-collection-errors -q --color=no -- ids...`
///
/// pytest puts the project's `addopts` before these, so the project's own options (`-x`,
/// `--maxfail`, `--strict-markers`, `-W error`, `-p` plugins, coverage thresholds) keep their
/// effect: none of these undoes one. `--continue-on-collection-errors` lets the rest run when a
/// module does not import (the run is CollectionFailed either way), `-q` and `--color=no` only
/// shape the text pith reads for tails. The environment is the caller's, less the variables
/// that would change pytest's own arguments or reporting (`PYTEST_ADDOPTS`...), plus where the
/// plugin is and writes: colour, buffering and the fault handler are left to the tests' world
/// (the plugin sets what it needs inside pytest's own process).
fn command(
    dir: &Path,
    interp: &Interpreter,
    plugin_dir: &Path,
    report: &Path,
    ids: &[String],
) -> Command {
    let mut cmd = crate::base_command(&interp.program, dir);
    cmd.args(["-m", "pytest", "-p", &plugin_module()]).args([
        "--continue-on-collection-errors",
        "-q",
        "--color=no",
    ]);
    let selection = Selection::of(ids);
    if !selection.args.is_empty() {
        // Ids are positional, whatever they look like.
        cmd.arg("--").args(&selection.args);
    }
    for var in SCRUBBED_ENV {
        cmd.env_remove(var);
    }
    cmd.env(REPORT_ENV, report)
        .env(SELECT_ENV, selection.env())
        .env(
            "PYTHONPATH",
            prepend(plugin_dir, std::env::var_os("PYTHONPATH")),
        );
    if let Some(venv) = &interp.workspace_venv {
        // As if activated: the tests' own subprocesses find the venv's tools first.
        cmd.env("VIRTUAL_ENV", venv)
            .env("PATH", prepend(&venv.join("bin"), std::env::var_os("PATH")));
    }
    cmd
}

/// What pytest is asked to run. A parametrized id goes to pytest as its function (`t.py::f`) and
/// to the plugin, which keeps just the requested parametrizations and names missing ones:
/// pytest would report a missing `t.py::f[9]` as a missing `t.py::f`, which cannot tell it from
/// `t.py::f[1]` asked for alongside, and then run nothing at all.
struct Selection {
    args: Vec<String>,
    /// Requested parametrized ids.
    params: Vec<String>,
    /// Functions requested whole, whose parametrizations all run.
    whole: Vec<String>,
}

impl Selection {
    fn of(ids: &[String]) -> Self {
        let mut sel = Selection {
            args: Vec::new(),
            params: Vec::new(),
            whole: Vec::new(),
        };
        for id in ids {
            let base = without_params(id);
            if base == id {
                sel.whole.push(id.clone());
            } else {
                sel.params.push(id.clone());
            }
            if !sel.args.iter().any(|a| a == base) {
                sel.args.push(base.to_owned());
            }
        }
        sel
    }

    fn env(&self) -> String {
        serde_json::json!({ "ids": self.params, "whole": self.whole }).to_string()
    }
}

fn prepend(dir: &Path, rest: Option<OsString>) -> OsString {
    let mut all = vec![dir.to_path_buf()];
    if let Some(rest) = rest {
        all.extend(std::env::split_paths(&rest).filter(|p| !p.as_os_str().is_empty()));
    }
    std::env::join_paths(all).unwrap_or_else(|_| dir.as_os_str().to_owned())
}

/// Node ids as the workspace sees them: pytest writes them relative to its rootdir, which is
/// the workspace root unless the project's configuration lives elsewhere.
struct Ids<'a> {
    paths: &'a PathMap,
    rootdir: Option<PathBuf>,
}

impl Ids<'_> {
    fn workspace(&self, nodeid: &str) -> String {
        let Some(rootdir) = &self.rootdir else {
            return nodeid.to_owned();
        };
        let (file, rest) = match nodeid.find("::") {
            Some(i) => nodeid.split_at(i),
            None => (nodeid, ""),
        };
        if file.is_empty() {
            return nodeid.to_owned();
        }
        match self
            .paths
            .relativize(&rootdir.join(file).to_string_lossy(), None)
        {
            Some(rel) => format!("{rel}{rest}"),
            None => nodeid.to_owned(),
        }
    }
}

/// What a finished pytest process and its records say, as a [`Run`].
fn judge(
    ctx: &Context<'_>,
    interp: &Interpreter,
    records: &Records,
    captured: &Captured,
    stacks: String,
    ids: &[String],
) -> Run {
    let mut run = Run::new("pytest");
    run.interpreter = shown(interp);
    let stderr = captured.stderr_str();
    if !records.any
        && matches!(captured.end, End::Exited(_))
        && stderr.contains("No module named pytest")
    {
        let d = &interp.display;
        return runner_missing(
            format!("pytest is not installed for {d}: {d} -m pip install pytest"),
            run.interpreter,
        );
    }
    run.exit = verdict::exit(captured.end, exit_meaning);
    let idmap = Ids {
        paths: ctx.paths,
        rootdir: records.rootdir.as_ref().map(PathBuf::from),
    };
    tally(&mut run, ctx, records, &idmap);
    if records.lost > 0 {
        // The plugin could not write everything: what the records say is not the whole run.
        run.reason = Some(format!(
            "pith's pytest plugin lost {} record(s): {}",
            records.lost,
            records.lost_why.as_deref().unwrap_or("write failed")
        ));
    }
    run.selected = records
        .selected
        .map(|n| u32::try_from(n).unwrap_or(u32::MAX));
    let output = verdict::combined(&[&captured.stdout_str(), &stderr, &stacks]);
    let running: Vec<String> = records
        .running()
        .iter()
        .map(|id| idmap.workspace(id))
        .collect();
    let worker_crashes: Vec<String> = records
        .reports
        .iter()
        .filter(|r| r.when == When::Other && r.outcome == Outcome::Failed)
        .map(|r| idmap.workspace(&r.id))
        .collect();
    let normal_end = records.end.is_some();
    for id in &records.unmatched {
        if ids.contains(id) && !run.not_found.contains(id) {
            run.not_found.push(id.clone());
        }
    }

    let crashed = match Ending::of(captured.end) {
        Ending::Stopped => {
            verdict::stopped(&mut run, Some(running), output_tail(ctx, &output));
            false
        }
        Ending::Killed(signal) => {
            // The tail comes with every crash, below.
            verdict::crashed(&mut run, Some(running), None);
            let why = faults::fatal_error(&output)
                .map(str::to_owned)
                .unwrap_or_else(|| verdict::killed_by("pytest", &signal));
            crash_failures(&mut run, ctx, records, &idmap, &output, &why, Some(signal));
            true
        }
        Ending::Exited(code @ (0 | 1 | 5)) if normal_end => {
            if !worker_crashes.is_empty() {
                // pytest-xdist lost a worker: its test is reported failed, but it crashed.
                run.status = Some(Status::Crashed);
                run.running = union(running, worker_crashes);
                let why = faults::fatal_error(&output).unwrap_or("the test process died");
                crash_failures(&mut run, ctx, records, &idmap, &output, why, None);
                true
            } else {
                if code == 5 {
                    run.status = Some(Status::NoTestsRan);
                }
                false
            }
        }
        Ending::Exited(4) => {
            run.not_found = union(
                std::mem::take(&mut run.not_found),
                not_found(&output, ids, ctx.paths),
            );
            if run.not_found.is_empty() {
                // A usage error (bad option in the configuration, a conftest.py that does not
                // import): the tests were never collected.
                run.status = Some(Status::CollectionFailed);
                run.tail = output_tail(ctx, &output);
            } else {
                // pytest's usage error is the ids it could not find, and `notFound` says so
                // already: the exit explains nothing more, and kept it would read "exited 4
                // though no test failed" beside every stale id.
                run.exit = None;
            }
            false
        }
        Ending::Exited(2) if normal_end && run.collection_errors() > 0 => {
            run.tail = output_tail(ctx, &output);
            false
        }
        Ending::Exited(code) if normal_end && running.is_empty() && !(2..=4).contains(&code) => {
            // The session ended and nothing was cut short, but the exit is not pytest's word for
            // this outcome (a plugin's or a session-finish hook's own code): the exit, weighed
            // against the records, makes the verdict.
            false
        }
        Ending::Exited(code) => {
            // Interrupted (2), internal error (3), or a process that left without finishing its
            // session (a test called os._exit): whatever ran, the run did not end.
            run.status = Some(Status::Crashed);
            let why = if !running.is_empty() {
                format!("the test process exited with code {code} during the test")
            } else if code == 3 {
                "pytest hit an internal error".to_owned()
            } else {
                format!("pytest exited with code {code} before the run ended")
            };
            run.running = running;
            crash_failures(&mut run, ctx, records, &idmap, &output, &why, None);
            true
        }
    };
    if crashed {
        run.tail = output_tail(ctx, &output);
    }
    if run.tail.is_none() && run.not_found.is_empty() && run.doubt().is_some() {
        // The records say green and pytest does not (a coverage threshold's "FAIL Required test
        // coverage of 90% not reached", a `pytest.exit`): its own words say why, without the
        // coverage table or progress lines around them.
        run.tail = verdict::why_tail(ctx.paths, &output);
    }
    if run.tail.is_none() && !records.collect_errors.is_empty() {
        let texts: Vec<&str> = records
            .collect_errors
            .iter()
            .map(|c| c.text.as_str())
            .filter(|t| !t.trim().is_empty())
            .collect();
        run.tail = verdict::tail(ctx.paths, &project_entries(&texts.join("\n"), ctx.paths))
            .or_else(|| output_tail(ctx, &output));
    }
    run
}

/// What pytest's exit code means, as pytest documents its codes (`pytest.ExitCode`).
fn exit_meaning(code: i32) -> ExitMeaning {
    // 3 is an internal error; anything else is a plugin's or the project's own code.
    const CODES: &ExitCodes = &[
        (0, ExitMeaning::Passed),
        (1, ExitMeaning::Failed),
        (2, ExitMeaning::Interrupted),
        (4, ExitMeaning::UsageError),
        (5, ExitMeaning::NoTests),
    ];
    verdict::meaning(CODES, code)
}

fn union(mut a: Vec<String>, b: Vec<String>) -> Vec<String> {
    for x in b {
        if !a.contains(&x) {
            a.push(x);
        }
    }
    a
}

/// Counts, failures and collection errors from the records.
fn tally(run: &mut Run, ctx: &Context<'_>, records: &Records, ids: &Ids<'_>) {
    #[derive(Default)]
    struct State {
        passed: bool,
        failed: bool,
        skipped: bool,
        /// Setup, call and teardown together, when the plugin measured them.
        time: Option<Duration>,
    }
    let mut order: Vec<String> = Vec::new();
    let mut states: HashMap<String, State> = HashMap::new();
    let mut seen: HashSet<(String, Phase)> = HashSet::new();
    for r in &records.reports {
        let id = ids.workspace(&r.id);
        let st = states.entry(id.clone()).or_insert_with(|| {
            order.push(id.clone());
            State::default()
        });
        if let Some(d) = r.dur {
            st.time = Some(st.time.unwrap_or_default().saturating_add(d));
        }
        match (r.when, r.outcome) {
            (when, Outcome::Failed) => {
                st.failed = true;
                let phase = match when {
                    When::Setup => Phase::Setup,
                    When::Teardown => Phase::Teardown,
                    When::Call | When::Other => Phase::Call,
                };
                if seen.insert((id.clone(), phase)) {
                    run.failures.push(failure(ctx, id, &r.detail, phase));
                }
            }
            (_, Outcome::Skipped) => st.skipped = true,
            (When::Call, Outcome::Passed) => st.passed = true,
            _ => {}
        }
    }
    for id in &order {
        let st = &states[id];
        if st.failed {
            run.failed += 1;
        } else if st.skipped {
            run.skipped += 1;
        } else if st.passed {
            run.passed += 1;
            run.outcomes.push(TestOutcome::passed(id.clone(), st.time));
        }
    }
    for c in &records.collect_errors {
        let mut f = failure(ctx, ids.workspace(&c.id), &c.detail, Phase::Collect);
        if f.test.is_empty() {
            f.test = f
                .top_project_frame()
                .map(|fr| fr.file.clone())
                .unwrap_or_else(|| "(collection)".to_owned());
        }
        if seen.insert((f.test.clone(), Phase::Collect)) {
            run.failures.push(f);
        }
    }
}

fn failure(ctx: &Context<'_>, test: String, d: &records::Detail, phase: Phase) -> Failure {
    let mut message = text::first_line(&ctx.paths.scrub(&d.msg));
    if message.is_empty() {
        message = d.kind.clone().unwrap_or_else(|| "failed".to_owned());
    }
    Failure {
        test,
        message,
        kind: d.kind.clone(),
        frames: frames(ctx.paths, &d.frames),
        phase,
        ..Failure::default()
    }
}

fn frames(paths: &PathMap, raw: &[RawFrame]) -> Vec<Frame> {
    raw.iter()
        .map(|f| {
            let mut frame = faults::frame_at(paths, &f.path, f.line);
            let code = f.code.trim();
            if !code.is_empty() && code.chars().count() <= CODE_CHARS {
                frame.code = Some(code.to_owned());
            }
            frame
        })
        .collect()
}

/// A crash takes the running tests with it: each becomes a failure located by the
/// faulthandler dump (or keeps the one pytest-xdist reported, given the dump's frames).
fn crash_failures(
    run: &mut Run,
    ctx: &Context<'_>,
    records: &Records,
    ids: &Ids<'_>,
    output: &str,
    why: &str,
    kind: Option<String>,
) {
    for test in run.running.clone() {
        let located = || faults::frames_for(output, faults::node_file(&test), ctx.paths);
        if let Some(f) = run.failures.iter_mut().find(|f| f.test == test) {
            if f.frames.is_empty() {
                f.frames = located().unwrap_or_default();
            }
            continue;
        }
        let phase = {
            let mine = records
                .reports
                .iter()
                .filter(|r| ids.workspace(&r.id) == test);
            let whens: Vec<When> = mine.map(|r| r.when).collect();
            if whens.contains(&When::Call) {
                Phase::Teardown
            } else if whens.contains(&When::Setup) {
                Phase::Call
            } else {
                Phase::Setup
            }
        };
        run.failures.push(Failure {
            test: test.clone(),
            message: text::first_line(why),
            kind: kind.clone(),
            frames: located().unwrap_or_default(),
            phase,
            ..Failure::default()
        });
        run.failed += 1;
    }
}

/// The end of what pytest printed (stdout, then stderr), faulthandler dumps cut to the frames
/// that locate the problem, paths relative.
fn output_tail(ctx: &Context<'_>, output: &str) -> Option<String> {
    verdict::tail(ctx.paths, &faults::compact(output, ctx.paths))
}

/// A pytest traceback in its short style (`path:12: in func` followed by indented source)
/// without the entries outside the project: importing a module passes through a dozen frames
/// of importlib and pytest's assertion rewriter before reaching the line at fault.
fn project_entries(text: &str, paths: &PathMap) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut skipping = false;
    for line in text.lines() {
        if skipping && line.starts_with(char::is_whitespace) {
            continue;
        }
        skipping = false;
        if let Some(file) = entry_file(line) {
            let project = if file.starts_with('/') {
                paths
                    .relativize(file, None)
                    .is_some_and(|rel| PathMap::is_project(&rel))
            } else {
                !file.starts_with('<') && PathMap::is_project(file)
            };
            if !project {
                skipping = true;
                continue;
            }
        }
        out.push(line);
    }
    out.join("\n")
}

/// The file of a short-style traceback entry header, `path:12: in func`.
fn entry_file(line: &str) -> Option<&str> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let (head, _) = line.split_once(": in ")?;
    let (file, lineno) = head.rsplit_once(':')?;
    (!file.is_empty() && !lineno.is_empty() && lineno.bytes().all(|b| b.is_ascii_digit()))
        .then_some(file)
}

/// Requested ids pytest said match nothing. pytest names a missing file as given and a missing
/// test by its absolute path without the parameter part; both map back to the requested id.
/// When none maps back, pytest's own words are returned.
fn not_found(output: &str, ids: &[String], paths: &PathMap) -> Vec<String> {
    let mut reported: Vec<String> = Vec::new();
    for line in output.lines() {
        let l = line.trim();
        let l = l.strip_prefix("ERROR:").map_or(l, str::trim_start);
        let arg = l
            .strip_prefix("file or directory not found: ")
            .or_else(|| l.strip_prefix("not found: "))
            .or_else(|| l.strip_prefix("found no collectors for "))
            .or_else(|| {
                l.strip_prefix("module or package not found: ")
                    .map(|r| r.trim_end_matches(" (missing __init__.py?)"))
            });
        if let Some(arg) = arg.map(str::trim).filter(|a| !a.is_empty()) {
            let arg = normal_id(&paths.scrub(arg));
            if !reported.contains(&arg) {
                reported.push(arg);
            }
        }
    }
    let normal: Vec<String> = ids.iter().map(|id| normal_id(id)).collect();
    // A parametrized id was given to pytest as its function: the function is missing.
    let missing = |id: &str| reported.iter().any(|r| r == id || r == without_params(id));
    let matched: Vec<String> = ids
        .iter()
        .zip(&normal)
        .filter(|(_, n)| missing(n))
        .map(|(id, _)| id.clone())
        .collect();
    if matched.is_empty() {
        reported
    } else {
        matched
    }
}

fn normal_id(id: &str) -> String {
    let mut s = id.trim();
    while let Some(rest) = s.strip_prefix("./") {
        s = rest;
    }
    s.to_owned()
}

/// `a.py::T::t[1-2]` → `a.py::T::t`: the form pytest uses when it reports a missing test.
fn without_params(id: &str) -> &str {
    let Some(sep) = id.find("::") else {
        return id;
    };
    match id[sep..].find('[') {
        Some(i) if id.ends_with(']') => &id[..sep + i],
        _ => id,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_node_ids_only() {
        let p = Pytest::new(None);
        assert!(p.claims("tests/test_x.py::TestC::test_m[1-2]"));
        assert!(p.claims("tests/test_x.py::test_w[a::b]"));
        assert!(p.claims("tests/test_x.py"));
        assert!(!p.claims("tests::it_works"));
        assert!(!p.claims("src/lib.rs::tests::x"));
        assert!(!p.claims(".py"));
        assert!(!p.claims(""));
    }

    #[test]
    fn parameters_come_off_for_matching() {
        assert_eq!(without_params("a.py::t[1-2]"), "a.py::t");
        assert_eq!(without_params("a.py::T::t[x::y]"), "a.py::T::t");
        assert_eq!(without_params("a.py::t"), "a.py::t");
        assert_eq!(without_params("a[1].py"), "a[1].py");
    }

    #[test]
    fn not_found_maps_back_to_requested_ids() {
        let paths = PathMap::new(Path::new("/ws"));
        let ids: Vec<String> = [
            "tests/t.py::gone[3]",
            "./tests/nope.py::x",
            "tests/t.py::ok",
            "tests/t.py::TestC::gone",
        ]
        .map(String::from)
        .to_vec();
        let out = "\nno tests ran in 0.01s\nERROR: not found: /ws/tests/t.py::gone\n(no match in any of [<Module t.py>])\n\nERROR: file or directory not found: ./tests/nope.py::x\n\nERROR: not found: /ws/tests/t.py::TestC::gone\n";
        assert_eq!(
            not_found(out, &ids, &paths),
            vec![
                "tests/t.py::gone[3]".to_string(),
                "./tests/nope.py::x".to_string(),
                "tests/t.py::TestC::gone".to_string(),
            ]
        );
        // The function is missing: so are its parametrizations.
        let both: Vec<String> = ["a.py::t", "a.py::t[9]"].map(String::from).to_vec();
        assert_eq!(
            not_found("ERROR: not found: /ws/a.py::t\n", &both, &paths),
            both
        );
        // Nothing requested matches: pytest's own words.
        assert_eq!(
            not_found("ERROR: file or directory not found: docs\n", &[], &paths),
            vec!["docs".to_string()]
        );
        assert!(not_found("all good\n", &ids, &paths).is_empty());
    }

    #[test]
    fn ids_that_look_like_options_go_as_paths() {
        let mut ids: Vec<String> = ["-x", "@args.txt", "t.py::a", "--co"]
            .map(String::from)
            .to_vec();
        let mut back = HashMap::from([("-x".to_string(), "pkg/-x".to_string())]);
        as_paths(&mut ids, &mut back);
        assert_eq!(ids, ["./-x", "./@args.txt", "t.py::a", "./--co"]);
        assert_eq!(back["./-x"], "pkg/-x");
        assert_eq!(back["./@args.txt"], "@args.txt");
        assert_eq!(back["./--co"], "--co");
        assert!(!back.contains_key("-x") && !back.contains_key("t.py::a"));
    }

    #[test]
    fn exit_codes_mean_what_pytest_documents() {
        assert_eq!(exit_meaning(0), ExitMeaning::Passed);
        assert_eq!(exit_meaning(1), ExitMeaning::Failed);
        assert_eq!(exit_meaning(2), ExitMeaning::Interrupted);
        assert_eq!(exit_meaning(3), ExitMeaning::Other);
        assert_eq!(exit_meaning(4), ExitMeaning::UsageError);
        assert_eq!(exit_meaning(5), ExitMeaning::NoTests);
        assert_eq!(exit_meaning(7), ExitMeaning::Other);
        assert_eq!(exit_meaning(-1), ExitMeaning::Other);
    }

    #[test]
    fn parametrized_ids_go_to_pytest_as_their_function() {
        let ids: Vec<String> = ["a.py::f[1]", "a.py::f[2]", "a.py::g", "a.py::T::m[x::y]"]
            .map(String::from)
            .to_vec();
        let sel = Selection::of(&ids);
        assert_eq!(sel.args, ["a.py::f", "a.py::g", "a.py::T::m"]);
        assert_eq!(sel.params, ["a.py::f[1]", "a.py::f[2]", "a.py::T::m[x::y]"]);
        assert_eq!(sel.whole, ["a.py::g"]);
        assert_eq!(
            sel.env(),
            r#"{"ids":["a.py::f[1]","a.py::f[2]","a.py::T::m[x::y]"],"whole":["a.py::g"]}"#
        );
    }

    #[test]
    fn collection_tracebacks_keep_the_project_entries() {
        let paths = PathMap::new(Path::new("/ws"));
        let text = "ImportError while importing test module '/ws/tests/t.py'.\nTraceback:\n/usr/lib/python3.11/importlib/__init__.py:126: in import_module\n    return _bootstrap._gcd_import(name[level:], package, level)\n           ^^^^^^^^^^\n<frozen importlib._bootstrap>:1204: in _gcd_import\n    ???\ntests/t.py:2: in <module>\n    import foo\n/ws/.venv/lib/python3.11/site-packages/foo.py:1: in <module>\n    raise X\nE   ModuleNotFoundError: No module named 'bar'";
        assert_eq!(
            project_entries(text, &paths),
            "ImportError while importing test module '/ws/tests/t.py'.\nTraceback:\ntests/t.py:2: in <module>\n    import foo\nE   ModuleNotFoundError: No module named 'bar'"
        );
        assert_eq!(entry_file("a.py:3: in f"), Some("a.py"));
        assert_eq!(entry_file("E   a.py:x: in f"), None);
        assert_eq!(entry_file("  a.py:3: in f"), None);
    }

    proptest::proptest! {
        #[test]
        fn text_parsers_never_panic(s in "(?s).{0,400}", id in "[a-z/]{0,8}(\\.py)?(::[a-z\\[\\]:-]{0,8}){0,3}") {
            let paths = PathMap::new(Path::new("/ws"));
            let _ = project_entries(&s, &paths);
            let _ = not_found(&s, std::slice::from_ref(&id), &paths);
            let _ = without_params(&id);
            let _ = Selection::of(std::slice::from_ref(&id)).env();
            let _ = Ids { paths: &paths, rootdir: Some("/ws/x".into()) }.workspace(&id);
        }
    }

    #[test]
    fn ids_follow_the_rootdir() {
        let paths = PathMap::new(Path::new("/ws"));
        let same = Ids {
            paths: &paths,
            rootdir: Some("/ws".into()),
        };
        assert_eq!(
            same.workspace("tests/t.py::T::t[a/b]"),
            "tests/t.py::T::t[a/b]"
        );
        let sub = Ids {
            paths: &paths,
            rootdir: Some("/ws/py".into()),
        };
        assert_eq!(sub.workspace("tests/t.py::t"), "py/tests/t.py::t");
        let above = Ids {
            paths: &paths,
            rootdir: Some("/".into()),
        };
        assert_eq!(above.workspace("ws/tests/t.py::t"), "tests/t.py::t");
        let outside = Ids {
            paths: &paths,
            rootdir: Some("/elsewhere".into()),
        };
        assert_eq!(outside.workspace("t.py::t"), "t.py::t");
        assert_eq!(outside.workspace(""), "");
    }

    #[test]
    fn plugin_is_written_once_under_its_hash() {
        let cache = tempfile::tempdir().unwrap();
        let dir = install_plugin(cache.path()).unwrap();
        let module = plugin_module();
        assert!(
            module.starts_with("pith_") && module.len() == 5 + 16,
            "{module}"
        );
        let file = dir.join(format!("{module}.py"));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), PLUGIN);
        assert!(dir.starts_with(cache.path().join("pytest")));
        let again = install_plugin(cache.path()).unwrap();
        assert_eq!(again, dir);
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no temp file left"
        );
    }

    #[test]
    fn detects_python_projects() {
        let d = tempfile::tempdir().unwrap();
        assert!(detect(d.path()).is_none());
        std::fs::create_dir(d.path().join("tests")).unwrap();
        std::fs::write(d.path().join("tests/helpers.py"), "").unwrap();
        assert!(detect(d.path()).is_none());
        std::fs::write(d.path().join("tests/check_test.py"), "").unwrap();
        assert!(detect(d.path()).is_some());
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("setup.cfg"), "").unwrap();
        assert!(detect(d.path()).is_some());
    }
}
