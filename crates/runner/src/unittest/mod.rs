//! Python's standard `unittest`, run as the project runs it when it has no pytest: `python -m
//! unittest` (its discovery from `.`, `test*.py`, or the arguments the project declares), or
//! Django's `manage.py test`.
//!
//! pith's runner script (`pith_unittest.py`, embedded, written to pith's cache under a name
//! made from its hash) starts unittest's own `TestProgram` with a `TextTestResult` subclass
//! that also writes one JSON record per line to a scratch file: the person-readable output is
//! unittest's own, and a run that crashes or hangs still tells what finished and what was
//! running. Django runs through its `--testrunner` hook with a `DiscoverRunner` subclass of
//! the same script, with the options of the project's declared `manage.py test` line
//! (`--parallel`: Django's workers' results are replayed on pith's). The project is never
//! edited.
//!
//! The interpreter is the one pytest would use (the active virtualenv, the project's `.venv`
//! or `venv`, else `python3`). Ids are unittest's own names (`pkg.module.Class.test_method`,
//! a subtest's `pkg.module.Class.test_method (i=3)`), passed back as names: a subtest re-runs
//! its test, since unittest runs subtests only together.

mod command;
mod detect;
mod judge;
pub(crate) mod records;

use std::path::{Path, PathBuf};

use pith_model::Run;

use crate::process;
use crate::pytest::command::Choice;
use crate::pytest::judge::{read_stacks, shown};
use crate::pytest::Pytest;
use crate::{Adapter, Context, RunnerError};

pub use detect::{declares_django, declares_unittest, prefers_unittest, Declared};

/// How the project runs its unittest suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// `python -m unittest` as the project declares it (nothing declared: discovery).
    Plain(Declared),
    /// Django's `python manage.py test`, as the project declares it (`--parallel 4`).
    Django(Declared),
}

/// unittest in a Python project.
#[derive(Debug, Clone)]
pub struct Unittest {
    virtual_env: Option<PathBuf>,
    dir: PathBuf,
    mode: Mode,
}

impl Unittest {
    pub fn new(virtual_env: Option<PathBuf>, dir: &Path, mode: Mode) -> Self {
        Unittest {
            virtual_env,
            dir: dir.to_path_buf(),
            mode,
        }
    }

    pub fn mode(&self) -> &Mode {
        &self.mode
    }
}

impl Adapter for Unittest {
    fn name(&self) -> &'static str {
        "unittest"
    }

    /// unittest names: dotted identifiers, a subtest's parameters after a space.
    fn claims(&self, id: &str) -> bool {
        let name = id.split_once(" (").map_or(id, |(n, _)| n);
        !name.is_empty()
            && name.split('.').all(|part| {
                part.chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
                    && part.chars().all(|c| c.is_alphanumeric() || c == '_')
            })
    }

    /// A name whose first part is a module or package of the project's directory.
    fn owns(&self, id: &str) -> bool {
        let first = id.split(['.', ' ']).next().unwrap_or_default();
        self.claims(id)
            && (self.dir.join(format!("{first}.py")).is_file() || self.dir.join(first).is_dir())
    }

    /// A test module's dotted name runs every test in it; only modules named as discovery
    /// finds them (`test*.py`) inside the project's directory.
    fn ids_for_files(&self, project: Option<&str>, files: &[String]) -> Option<Vec<String>> {
        let prefix = project.map(|p| format!("{p}/")).unwrap_or_default();
        Some(
            files
                .iter()
                .filter_map(|f| {
                    let inner = f.strip_prefix(&prefix)?;
                    let stem = inner.strip_suffix(".py")?;
                    let name = stem.rsplit('/').next()?;
                    name.starts_with("test").then(|| stem.replace('/', "."))
                })
                .filter(|id| self.claims(id))
                .collect(),
        )
    }

    /// The modules discovery finds (see [`Adapter::ids_for_files`]).
    fn test_files(
        &self,
        _root: &Path,
        project: Option<&str>,
        files: &[String],
    ) -> Option<Vec<String>> {
        let prefix = project.map(|p| format!("{p}/")).unwrap_or_default();
        let discovered = |f: &&String| {
            let stem = f.strip_prefix(&prefix).and_then(|x| x.strip_suffix(".py"));
            stem.is_some_and(|s| s.rsplit('/').next().is_some_and(|n| n.starts_with("test")))
        };
        Some(files.iter().filter(discovered).cloned().collect())
    }

    fn progress(&self, scratch: &Path) -> Option<crate::Counter> {
        let scratch = scratch.to_path_buf();
        Some(Box::new(move || records::finished_in(&scratch)))
    }

    fn run(&self, ctx: &Context<'_>, tests: &[String]) -> Result<Run, RunnerError> {
        let pytest = Pytest::new(self.virtual_env.clone());
        let interp = match pytest.interpreter(&self.dir, ctx.paths) {
            Choice::Found(i) => i,
            Choice::Missing(hint) => return Ok(judge::runner_missing(hint, None)),
        };
        let script = command::install_script(ctx.cache)?;
        let report = ctx.scratch.join("unittest.jsonl");
        let _ = std::fs::remove_file(&report);
        let cmd = command::command(&self.dir, &self.mode, &interp, &script, &report, tests);
        let captured = match process::run(cmd, ctx.deadline, ctx.cancel) {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let hint = format!("{} could not be started: {e}", interp.display);
                return Ok(judge::runner_missing(hint, shown(&interp)));
            }
            Err(source) => {
                return Err(RunnerError::Spawn {
                    program: interp.display.clone(),
                    source,
                })
            }
        };
        let records = match std::fs::File::open(&report) {
            Ok(f) => records::read(f),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => records::Records::default(),
            Err(e) => return Err(RunnerError::io(format!("reading {}", report.display()), e)),
        };
        let stacks = read_stacks(&report);
        let mut run = judge::judge(ctx, &records, &captured, &stacks, tests);
        run.interpreter = shown(&interp);
        run.duration = captured.elapsed;
        run.printed = captured.printed();
        Ok(run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_dotted_names_only() {
        let u = Unittest::new(
            None,
            Path::new("/nowhere"),
            Mode::Plain(Declared::default()),
        );
        assert!(u.claims("tests.test_x.TestC.test_m"));
        assert!(u.claims("tests.test_x.TestC.test_m (i=3)"));
        assert!(u.claims("test_x"));
        assert!(!u.claims("tests/test_x.py::test_m"));
        assert!(!u.claims("tests.1x"));
        assert!(!u.claims(""));
        assert!(!u.claims("a..b"));
    }

    #[test]
    fn test_modules_are_their_dotted_names() {
        let u = Unittest::new(
            None,
            Path::new("/nowhere"),
            Mode::Plain(Declared::default()),
        );
        let files = [
            "py/tests/test_a.py",
            "py/tests/helpers.py",
            "py/setup.py",
            "other/test_b.py",
        ]
        .map(String::from);
        assert_eq!(
            u.ids_for_files(Some("py"), &files).unwrap(),
            ["tests.test_a"]
        );
    }
}
