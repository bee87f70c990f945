//! C/C++: a CMake project's tests under CTest, GoogleTest ones read through gtest's JSON report.
//!
//! The project is configured and built out of tree, then `ctest -V` runs the tests with
//! `GTEST_OUTPUT=json:<scratch>/gtest/` in their environment: every gtest process writes its
//! JSON there (gtest numbers the files when a binary runs once per test, as
//! `gtest_discover_tests` makes it). CTest's own JUnit leaves failure messages empty, so it is
//! not used. Verbose mode streams each test's output as it runs: when a binary crashes (no
//! JSON) or pith kills the run at its deadline, the last `[ RUN ]` without an end names the
//! test; console failure texts stand in for a missing JSON. ctest's output is read line by line
//! as it comes, each JSON report up to [`JSON_BYTES`]: memory stays bounded whatever the tests
//! print.
//!
//! Evidence beyond the records: ctest's exit code (0 all passed, 8 some test failed), its own
//! totals (`1 tests failed out of 3`) against the tests read, each report's totals against its
//! cases, and gtest's closing summary: a gtest binary that exits 0 without it stopped before
//! the end (no report written), and is not green.
//!
//! Build directory: the project's own `build/` when it already is this project's CMake build
//! directory (its `CMakeCache.txt` names this source directory), else one in pith's cache keyed
//! by the project's path. Either way it persists between runs, so builds are incremental; pith
//! never creates anything inside the project.
//!
//! Test ids are gtest's `Suite.Test` (`Inst/Suite.Test/0`, `Suite/0.Test`); a CTest test that
//! is not a gtest one is named by its CTest name. Re-running: ids that are CTest tests (as
//! `gtest_discover_tests` registers them, found through `ctest --show-only=json-v1`) go to
//! `ctest -R '^(...)$'`; the others run inside the whole-binary CTest tests with
//! `GTEST_FILTER`.

mod command;
mod console;
mod detect;
pub(crate) mod json;
mod judge;
mod parse;

use std::path::{Path, PathBuf};
use std::time::Instant;

use pith_model::Run;

use crate::{process, verdict};
use crate::{Adapter, Context, RunnerError};

use command::{ctest_command, is_test_id, list_tests, select, BuildLock, Filters};
use console::CtestReader;
use judge::judge;
use parse::read_json_dir;

pub use detect::detect;
pub use parse::parse_json;

const CMAKE_HINT: &str =
    "cmake not found: install CMake (it brings ctest): sudo apt-get install cmake, or https://cmake.org/download";

/// CTest in a CMake project.
pub struct Ctest {
    dir: PathBuf,
}

impl Ctest {
    pub fn new(dir: &Path) -> Self {
        Ctest {
            dir: dir.to_path_buf(),
        }
    }
}

impl Adapter for Ctest {
    fn name(&self) -> &'static str {
        "ctest"
    }

    /// GoogleTest ids (`Suite.Test`, `Inst/Suite.Test/0`, `Suite/0.Test`).
    fn claims(&self, id: &str) -> bool {
        is_test_id(id)
    }

    fn run(&self, ctx: &Context<'_>, tests: &[String]) -> Result<Run, RunnerError> {
        let (Some(cmake), Some(ctest)) = (crate::on_path("cmake"), crate::on_path("ctest")) else {
            return Ok(verdict::runner_missing("ctest", CMAKE_HINT.to_owned()));
        };
        let start = Instant::now();
        let build = self.build_dir(ctx.cache);
        let Some(_lock) = BuildLock::acquire(ctx, &build)? else {
            let mut run = Run::new("ctest");
            let why = format!(
                "another pith run kept the build directory {} busy until the deadline",
                build.display()
            );
            verdict::stopped(&mut run, None, Some(why));
            return Ok(run);
        };
        let mut printed = pith_model::gain::Printed::default();
        if let Some(run) = self.configure_and_build(ctx, &cmake, &build, &mut printed)? {
            return Ok(Run {
                duration: start.elapsed(),
                printed,
                ..run
            });
        }
        let mut filters = Filters::default();
        if !tests.is_empty() {
            let sel = select(&list_tests(ctx, &ctest, &build)?, tests);
            if sel.ctest_names.is_empty() {
                return Ok(Run {
                    not_found: sel.not_found,
                    duration: start.elapsed(),
                    ..Run::new("ctest")
                });
            }
            filters = sel.filters();
        }
        let json_dir = ctx.scratch.join("gtest");
        std::fs::create_dir_all(&json_dir)
            .map_err(|e| RunnerError::io(format!("creating {}", json_dir.display()), e))?;
        let cmd = ctest_command(&ctest, &self.dir, &build, &json_dir, &filters);
        let mut reader = CtestReader::default();
        let cap = process::run_lines(cmd, ctx.deadline, ctx.cancel, &mut |l| {
            let line = String::from_utf8_lossy(l);
            printed.line(&line);
            reader.line(&line)
        })
        .map_err(|source| RunnerError::Spawn {
            program: ctest.display().to_string(),
            source,
        })?;
        let reports = read_json_dir(&json_dir);
        // Every requested id the run did not report is not found, whatever the selection said.
        let mut run = judge(ctx, &cap, reader.finish(), reports, tests);
        run.duration = start.elapsed();
        printed.append(cap.printed());
        run.printed = printed;
        Ok(run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_dir_is_the_projects_own_only_when_configured_for_it() {
        let ws = tempfile::tempdir().unwrap();
        let cache = tempfile::tempdir().unwrap();
        let c = Ctest::new(ws.path());
        let in_cache = c.build_dir(cache.path());
        assert!(in_cache.starts_with(cache.path().join("ctest")));
        assert_eq!(in_cache, c.build_dir(cache.path()), "stable across runs");
        std::fs::create_dir(ws.path().join("build")).unwrap();
        std::fs::write(
            ws.path().join("build/CMakeCache.txt"),
            "CMAKE_HOME_DIRECTORY:INTERNAL=/somewhere/else\n",
        )
        .unwrap();
        assert_eq!(
            c.build_dir(cache.path()),
            in_cache,
            "a copied build dir is not ours"
        );
        std::fs::write(
            ws.path().join("build/CMakeCache.txt"),
            format!("CMAKE_HOME_DIRECTORY:INTERNAL={}\n", ws.path().display()),
        )
        .unwrap();
        assert_eq!(c.build_dir(cache.path()), ws.path().join("build"));
    }
}
