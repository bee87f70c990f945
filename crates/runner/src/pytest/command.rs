//! How pytest is started: the interpreter (the workspace's virtualenv first), the embedded
//! plugin, the argv and environment, and what is selected (parametrized ids go to the plugin).

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::paths::PathMap;
use crate::{RunnerError, TracePlan};

use super::Pytest;

/// The plugin's source, written to the cache under a name derived from its content.
pub(super) const PLUGIN: &str = include_str!("pith_plugin.py");

/// Where the plugin writes its records.
pub(super) const REPORT_ENV: &str = "PITH_REPORT";

/// The parametrized ids the plugin selects (see [`Selection`]).
pub(super) const SELECT_ENV: &str = "PITH_SELECT";

/// The files whose lines the plugin records per test (see [`trace_env`]); set only on a
/// tracing re-run. The plugin takes it out of the tests' environment.
pub(super) const TRACE_ENV: &str = "PITH_TRACE";

/// In-run tracing (see [`retrace_env`]): after the run, its first failing tests run again in
/// the same process, traced. Taken out of the tests' environment like [`TRACE_ENV`].
pub(super) const RETRACE_ENV: &str = "PITH_RETRACE";

/// Variables of the caller's shell that pytest and pytest-xdist set themselves in the processes
/// they start, describing that process (a worker's id, the test running): one inherited from a
/// caller that is itself inside a pytest run describes another process, and would make pith's
/// plugin take the main process for a worker. Plus pith's own tracing switches. The caller's
/// `PYTEST_ADDOPTS` is not among them: it is how the caller runs pytest (`-m "not slow"`,
/// `-p no:randomly`, `--reruns 2`, `-x`), and raw pytest reads it.
pub(super) const SCRUBBED_ENV: &[&str] = &[
    "PYTEST_XDIST_WORKER",
    "PYTEST_XDIST_WORKER_COUNT",
    "PYTEST_XDIST_TESTRUNUID",
    "PYTEST_CURRENT_TEST",
    "PYTEST_VERSION",
    // Only a tracing re-run sets it: a stray one in the caller's shell would slow every run.
    TRACE_ENV,
    RETRACE_ENV,
];

/// The interpreter that runs pytest.
#[derive(Debug, Clone)]
pub(crate) struct Interpreter {
    pub(crate) program: PathBuf,
    /// How answers and hints name it: workspace-relative when inside the workspace.
    pub(crate) display: String,
    /// A workspace virtualenv used while none is active: answers say so, and the child runs as
    /// if it were activated.
    pub(crate) workspace_venv: Option<PathBuf>,
}

pub(crate) enum Choice {
    Found(Interpreter),
    /// Nothing runs Python here; the hint says why.
    Missing(String),
}

impl Pytest {
    /// The project's own interpreter: the active virtualenv, else `.venv` or `venv` in the
    /// project's directory or the workspace root, else `python3` on PATH.
    pub(crate) fn interpreter(&self, root: &Path, paths: &PathMap) -> Choice {
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

/// The plugin's module name, `pith_<hash of its source>`: a project's own `pith_plugin.py` (or
/// any module it has) cannot be imported in its place.
pub(super) fn plugin_module() -> String {
    format!("pith_{:016x}", crate::fnv1a(PLUGIN.bytes()))
}

/// Writes the plugin to `cache/pytest/<hash>/pith_<hash>.py` unless it is already there, and
/// returns its directory.
pub(super) fn install_plugin(cache: &Path) -> Result<PathBuf, RunnerError> {
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
pub(super) fn as_paths(ids: &mut [String], back: &mut HashMap<String, String>) {
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
pub(super) fn to_dir_ids(
    tests: &[String],
    rel_dir: Option<String>,
) -> (Vec<String>, HashMap<String, String>) {
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

/// pytest started as its `pytest` console script starts it, or as `python -m pytest` where the
/// project declares that ([`declares_module_run`]). The two differ in one thing: `-m` puts the
/// working directory first on `sys.path`, so a test importing the project's package finds it
/// there where the console script does not (an ImportError at collection by hand, a green
/// under pith: a false green). `-c` puts `''` there; [`CONSOLE`] takes it off again before
/// pytest is imported (`-P` would, from Python 3.11 only; `PYTHONSAFEPATH` would reach every
/// Python the tests start). `pytest.main()` is what the console script calls (its wrapper,
/// `console_main`, is deprecated for callers in pytest 9). Between the import and the call,
/// [`version_check`].
const CONSOLE: &str = "import sys\n\
if sys.path and sys.path[0] == '':\n    del sys.path[0]\n";
/// As [`CONSOLE`], the working directory kept first on `sys.path`, by its path as `-m` puts it
/// (a test that changes directory imports from where pytest started): `python -m pytest`.
const MODULE: &str = "import os, sys\n\
if sys.path and sys.path[0] == '':\n    sys.path[0] = os.getcwd()\n";

/// The pytest majors pith observes (docs/runners.md): the plugin's hooks and the options pith
/// passes (`-p`, `-q`, `--color=no`, ids after `--`) work alike from 7.0 (checked on 7.0.0 and
/// 9.2.0, the scenario rows' ends: the same records, tracing in the run included). Older
/// majors are not checked (the plugin reads `config.rootpath`, which came with 6.1, and
/// pytest's `runtestprotocol` to re-run traced tests), and a major newer than pith knows may
/// have moved a hook it uses.
pub(super) const PYTEST_MAJORS: std::ops::RangeInclusive<u32> = 7..=9;

/// The record the entry writes instead of running a pytest outside [`PYTEST_MAJORS`].
pub(super) const UNSUPPORTED: &str = "unsupported";

/// What runs in the interpreter pith starts anyway, after `import pytest` and before
/// `pytest.main()`: a pytest outside [`PYTEST_MAJORS`] is not run (no plugin loaded, no option
/// passed) and its version goes to the report as an [`UNSUPPORTED`] record, so the range costs
/// no second start of Python. A version that is not a number is taken for a current one.
fn version_check() -> String {
    format!(
        "try:\n    _pith_major = int(pytest.__version__.split('.')[0])\n\
except Exception:\n    _pith_major = None\n\
if _pith_major is not None and not {lo} <= _pith_major <= {hi}:\n    \
import json, os\n    \
with open(os.environ['{env}'], 'a') as _pith_out:\n        \
_pith_out.write(json.dumps({{'t': '{UNSUPPORTED}', 'pytest': pytest.__version__}}) + '\\n')\n    \
sys.exit(4)\n",
        lo = PYTEST_MAJORS.start(),
        hi = PYTEST_MAJORS.end(),
        env = REPORT_ENV,
    )
}

/// The `-c` program: [`CONSOLE`] or [`MODULE`], pytest imported, [`version_check`], then
/// `pytest.main()`.
fn entry(module: bool) -> String {
    let path = if module { MODULE } else { CONSOLE };
    format!(
        "{path}import pytest\n{}sys.exit(pytest.main())",
        version_check()
    )
}

/// The files where projects declare how their tests run (task runners, CI, tox and nox).
const DECLARING: &[&str] = &[
    "tox.ini",
    "noxfile.py",
    "Makefile",
    "makefile",
    "GNUmakefile",
    "justfile",
    "Taskfile.yml",
    "pyproject.toml",
    "setup.cfg",
    ".gitlab-ci.yml",
    ".travis.yml",
    "azure-pipelines.yml",
];

/// Whether the project runs its tests as `python -m pytest` (or `coverage run -m pytest`):
/// `-m pytest` in a file of [`DECLARING`] or a GitHub workflow, in the project's directory or
/// the workspace root. Such a project may rely on the working directory being importable.
fn declares_module_run(dir: &Path, root: &Path) -> bool {
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for base in [dir, root] {
        files.extend(DECLARING.iter().map(|f| base.join(f)));
        if let Ok(entries) = std::fs::read_dir(base.join(".github/workflows")) {
            files.extend(
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "yml" || x == "yaml")),
            );
        }
        if dir == root {
            break;
        }
    }
    files.iter().any(|f| {
        std::fs::read(f).is_ok_and(|text| {
            const NEEDLE: &[u8] = b"-m pytest";
            text.len() <= 1 << 20 && text.windows(NEEDLE.len()).any(|w| w == NEEDLE)
        })
    })
}

/// `<python> -c CONSOLE -p pith_<hash> -q --color=no -- ids...`
///
/// pytest puts the project's `addopts` and the caller's `PYTEST_ADDOPTS` before these, so the
/// project's own options (`-x`, `--maxfail`, `--strict-markers`, `-W error`, `-p` plugins,
/// coverage thresholds, reruns) keep their effect: none of these undoes one. `-q` and
/// `--color=no` only shape the text pith reads for tails; neither changes what a test does or
/// whether it passes. A module that does not import stops the run before any test, as it does
/// by hand ("Interrupted: 1 error during collection"): pith adds no
/// `--continue-on-collection-errors`. The environment is the caller's, less the variables
/// pytest sets in its own processes ([`SCRUBBED_ENV`]), plus where the plugin is and writes
/// (the plugin takes its directory off `PYTHONPATH` again before any test): colour, buffering
/// and the fault handler are left to the tests' world (the plugin sets what it needs inside
/// pytest's own process).
pub(super) fn command(
    dir: &Path,
    root: &Path,
    interp: &Interpreter,
    plugin_dir: &Path,
    report: &Path,
    ids: &[String],
) -> Command {
    let mut cmd = crate::base_command(&interp.program, dir);
    let entry = entry(declares_module_run(dir, root));
    cmd.args(["-c", &entry, "-p", &plugin_module()])
        .args(["-q", "--color=no"]);
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
pub(super) struct Selection {
    pub(super) args: Vec<String>,
    /// Requested parametrized ids.
    pub(super) params: Vec<String>,
    /// Functions requested whole, whose parametrizations all run.
    pub(super) whole: Vec<String>,
}

impl Selection {
    pub(super) fn of(ids: &[String]) -> Self {
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

    pub(super) fn env(&self) -> String {
        serde_json::json!({ "ids": self.params, "whole": self.whole }).to_string()
    }
}

/// The value of [`TRACE_ENV`]: `{"files": [absolute paths]}`.
pub(super) fn trace_env(files: &[String]) -> String {
    serde_json::json!({ "files": files }).to_string()
}

/// The value of [`RETRACE_ENV`]: `{"files": [absolute paths], "tests": most, "share": of the
/// loop's time the traced tests' first runs may have taken, "floor": seconds they may take
/// whatever the share}`.
pub(super) fn retrace_env(files: &[String]) -> String {
    let floor = TracePlan::FLOOR.as_secs_f64();
    let (tests, share) = (TracePlan::TESTS, TracePlan::SHARE);
    serde_json::json!({ "files": files, "tests": tests, "share": share, "floor": floor })
        .to_string()
}

pub(crate) fn prepend(dir: &Path, rest: Option<OsString>) -> OsString {
    let mut all = vec![dir.to_path_buf()];
    if let Some(rest) = rest {
        all.extend(std::env::split_paths(&rest).filter(|p| !p.as_os_str().is_empty()));
    }
    std::env::join_paths(all).unwrap_or_else(|_| dir.as_os_str().to_owned())
}

/// `a.py::T::t[1-2]` → `a.py::T::t`: the form pytest uses when it reports a missing test.
pub(super) fn without_params(id: &str) -> &str {
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
    fn parameters_come_off_for_matching() {
        assert_eq!(without_params("a.py::t[1-2]"), "a.py::t");
        assert_eq!(without_params("a.py::T::t[x::y]"), "a.py::T::t");
        assert_eq!(without_params("a.py::t"), "a.py::t");
        assert_eq!(without_params("a[1].py"), "a[1].py");
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
}
