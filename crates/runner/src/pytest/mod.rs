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
//!
//! Tracing ([`Adapter::trace`]): the failing tests run again, selected as any re-run is, with
//! the changed files' absolute paths in `PITH_TRACE`; the plugin records, per test, the lines
//! of those files it executed (`sys.monitoring` or `sys.settrace`, see the plugin) as "trace"
//! records of the same report. That re-run's verdict is not read. When the engine plans it
//! (`Context::trace`), the run traces itself instead: `PITH_RETRACE` makes the plugin run the
//! first failing tests again after the last test, in the same process (no second start of
//! Python, pytest and the collection), and the run carries their lines ([`Run::traced`]).
//!
//! Every run also tells which modules each test file loaded by a computed name ("loads"
//! records, [`Run::loads`]): the edges the import graph cannot see, kept by the store.

pub(crate) mod command;
mod detect;
pub(crate) mod faults;
pub(crate) mod judge;
pub(crate) mod records;
mod test_set;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pith_model::impact::{Loads, Traced};
use pith_model::Run;

use crate::process;
use crate::{Adapter, Context, PathMap, RunnerError};

use command::{
    as_paths, command, install_plugin, retrace_env, to_dir_ids, trace_env, Choice, RETRACE_ENV,
    TRACE_ENV,
};
use judge::{judge, read_stacks, runner_missing, shown, Ids};
use records::Records;

pub use detect::detect;
pub use detect::detect_strict;

/// Runs per request: when pytest rejects some requested ids, the rest are run again without
/// them (pytest refuses to run anything while one id matches nothing).
const MAX_ATTEMPTS: usize = 3;

/// pytest in a Python workspace.
#[derive(Debug, Clone)]
pub struct Pytest {
    /// The virtualenv active in pith's environment (`$VIRTUAL_ENV`), which wins over any in the
    /// workspace.
    virtual_env: Option<PathBuf>,
    /// The project's directory: pytest runs there. The workspace root, or a package inside it.
    dir: Option<PathBuf>,
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

    /// The active virtualenv it was given.
    pub fn virtual_env(&self) -> Option<&Path> {
        self.virtual_env.as_deref()
    }

    fn dir<'a>(&'a self, ctx: &'a Context<'_>) -> &'a Path {
        self.dir.as_deref().unwrap_or(ctx.root)
    }
}

impl Adapter for Pytest {
    fn name(&self) -> &'static str {
        "pytest"
    }

    /// pith's plugin records the changed files' lines as the tests run.
    fn traces_in_run(&self) -> bool {
        true
    }

    /// pytest node ids: `path.py::Class::test[param]`, or a path ending in `.py`.
    fn claims(&self, id: &str) -> bool {
        let file = faults::node_file(id);
        file.len() > 3 && file.ends_with(".py")
    }

    /// A test module's path is its own id: pytest runs every test in it. Only modules the
    /// project's `pytest` collects when run as the project runs it (its `python_files` and
    /// `testpaths`, see `test_set`; by default `test_*.py` and `*_test.py` anywhere): a
    /// helper under `tests/` would match no test, and the modules importing it are selected
    /// with it; a module outside `testpaths` is not the project's suite.
    fn ids_for_files(&self, project: Option<&str>, files: &[String]) -> Option<Vec<String>> {
        let Some(dir) = self.dir.as_deref() else {
            // No project directory to read a configuration in: pytest's default names.
            let named = |f: &&String| {
                let name = f.rsplit('/').next().unwrap_or(f);
                self.claims(f) && (name.starts_with("test_") || name.ends_with("_test.py"))
            };
            return Some(files.iter().filter(named).cloned().collect());
        };
        let set = test_set::TestSet::of(dir);
        // The workspace root: the project's directory less its relative path.
        let depth = project.map_or(0, |r| r.split('/').filter(|s| !s.is_empty()).count());
        let root = dir.ancestors().nth(depth).unwrap_or(dir);
        let module = |f: &&String| self.claims(f) && set.collects(&root.join(f.as_str()));
        Some(files.iter().filter(module).cloned().collect())
    }

    /// The modules [`Adapter::ids_for_files`] would run: a module's path is its id.
    fn test_files(
        &self,
        _root: &Path,
        project: Option<&str>,
        files: &[String],
    ) -> Option<Vec<String>> {
        self.ids_for_files(project, files)
    }

    fn progress(&self, scratch: &Path) -> Option<crate::Counter> {
        let scratch = scratch.to_path_buf();
        Some(Box::new(move || records::finished_in(&scratch)))
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
        let mut printed = pith_model::gain::Printed::default();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let report = ctx.scratch.join(format!("pytest-{attempt}.jsonl"));
            let _ = std::fs::remove_file(&report);
            let mut cmd = command(dir, ctx.root, &interp, &plugin_dir, &report, &ids);
            let traced_files = ctx.trace.map(|plan| given_files(ctx, &plan.files));
            if let Some(given) = traced_files.as_ref().filter(|g| !g.is_empty()) {
                let absolute: Vec<String> = given.keys().cloned().collect();
                cmd.env(RETRACE_ENV, retrace_env(&absolute));
            }
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
            printed.append(captured.printed());
            let read = std::fs::File::open(&report).and_then(records::read);
            let records = match read {
                Ok(r) => r,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Records::default(),
                Err(e) => return Err(RunnerError::io(format!("reading {}", report.display()), e)),
            };
            let stacks = read_stacks(&report);
            let mut run = judge(ctx, &interp, &records, &captured, stacks, &ids);
            let names = Ids {
                paths: ctx.paths,
                rootdir: records.rootdir.as_ref().map(PathBuf::from),
            };
            if let Some(given) = traced_files.as_ref().filter(|_| !records.traced.is_empty()) {
                run.traced = Some(traced_of(&records, &names, given));
            }
            run.loads = loads_of(ctx, &records, &run, tests);
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
            run.printed = printed;
            return Ok(run);
        }
    }

    fn can_trace(&self) -> bool {
        true
    }

    /// One run of `tests` with the plugin tracing `files`. Whatever keeps it from tracing (no
    /// interpreter, pytest gone, no trace records) is `None`: the static reach stands.
    fn trace(
        &self,
        ctx: &Context<'_>,
        tests: &[String],
        files: &[String],
    ) -> Result<Option<Traced>, RunnerError> {
        // No ids would run the whole suite under tracing.
        if tests.is_empty() || files.is_empty() {
            return Ok(None);
        }
        let dir = self.dir(ctx);
        let Choice::Found(interp) = self.interpreter(dir, ctx.paths) else {
            return Ok(None);
        };
        let plugin_dir = install_plugin(ctx.cache)?;
        let (mut ids, mut original) =
            to_dir_ids(tests, ctx.paths.relativize(&dir.to_string_lossy(), None));
        as_paths(&mut ids, &mut original);
        let given = given_files(ctx, files);
        let absolute: Vec<String> = given.keys().cloned().collect();
        let report = ctx.scratch.join("pytest-trace.jsonl");
        let _ = std::fs::remove_file(&report);
        let mut cmd = command(dir, ctx.root, &interp, &plugin_dir, &report, &ids);
        cmd.env(TRACE_ENV, trace_env(&absolute));
        if process::run(cmd, ctx.deadline, ctx.cancel).is_err() {
            return Ok(None);
        }
        let Ok(records) = std::fs::File::open(&report).and_then(records::read) else {
            return Ok(None);
        };
        if records.traced.is_empty() {
            return Ok(None);
        }
        let ids = Ids {
            paths: ctx.paths,
            rootdir: records.rootdir.as_ref().map(PathBuf::from),
        };
        Ok(Some(traced_of(&records, &ids, &given)))
    }
}

/// The traced files by the absolute name the plugin is given (and names them by), each with
/// its workspace-relative name.
fn given_files(ctx: &Context<'_>, files: &[String]) -> HashMap<String, String> {
    files
        .iter()
        .map(|f| (ctx.root.join(f).to_string_lossy().into_owned(), f.clone()))
        .collect()
}

/// The "trace" records as the answer names tests and files.
fn traced_of(records: &Records, ids: &Ids<'_>, given: &HashMap<String, String>) -> Traced {
    let mut traced = Traced {
        files: given.values().cloned().collect(),
        ..Traced::default()
    };
    for (file, lines) in &records.imported {
        if let Some(rel) = given.get(file) {
            traced
                .imported
                .entry(rel.clone())
                .or_default()
                .extend(lines);
        }
    }
    for (nodeid, lines) in &records.traced {
        let mine = traced.tests.entry(ids.workspace(nodeid)).or_default();
        for (file, got) in lines {
            if let Some(rel) = given.get(file) {
                mine.entry(rel.clone()).or_default().extend(got);
            }
        }
    }
    traced
}

/// The "loads" records as workspace-relative files (modules outside the workspace dropped),
/// each whole when its test file ran whole (all of the run, or asked for by its path) and none
/// of its tests failed.
fn loads_of(ctx: &Context<'_>, records: &Records, run: &Run, asked: &[String]) -> Vec<Loads> {
    let mut out = Vec::new();
    for (file, modules) in &records.loads {
        let Some(test) = ctx.paths.relativize(file, None) else {
            continue;
        };
        let mut modules: Vec<String> = modules
            .iter()
            .filter_map(|m| ctx.paths.relativize(m, None))
            .filter(|m| *m != test && PathMap::is_project(m))
            .collect();
        modules.sort();
        modules.dedup();
        if modules.is_empty() {
            continue;
        }
        let ran_whole = asked.is_empty() || asked.contains(&test);
        let failed = run
            .failures
            .iter()
            .any(|f| faults::node_file(&f.test) == test);
        out.push(Loads {
            whole: ran_whole && !failed,
            test,
            modules,
        });
    }
    out
}

/// The file part of a test id: `tests/test_x.py` of `tests/test_x.py::TestX::test_y[a]`.
pub(crate) fn id_file(id: &str) -> &str {
    id.split("::").next().unwrap_or(id)
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
}
