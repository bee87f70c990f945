//! .NET: `dotnet test` writing TRX reports into the scratch directory, on whichever test
//! platform the workspace uses (VSTest, or Microsoft.Testing.Platform natively or through the
//! VSTest mode's bridge: see `project`), and TRX files handed to `pith test --report`.
//!
//! Test ids are the runner's own names: the fully qualified `Ns.Class.Method`, a parametrized
//! case with its display name verbatim (`Ns.Class.Method(i: 3)`, NUnit's
//! `Ns.Class.Method(False)`), a display name the author chose as it is.
//!
//! Stack frames from reports made elsewhere (`/_/src/...` deterministic paths, `C:\agent\...`)
//! are mapped back into the workspace by suffix (`stack`).
//!
//! A hanging test is named the way the platform itself names it, since pith's own kill at the
//! deadline leaves nothing behind (the TRX is written at the end, the blame Sequence file when
//! the test host ends): pith gives the platform a hang timeout within its own deadline
//! (`command::hang_timeout`), and the platform kills the hung test host and records the test,
//! VSTest in its blame Sequence file, MTP's HangDump extension in its console and `_hang.log`.
//! That run is TimedOut, with the hung tests `running` and failed with kind `timeout`. When
//! pith's deadline comes first, whatever records exist are still read. When none names a test,
//! the answer says so in its hint, with what would have named it: a longer `--timeout`, or on
//! MTP without the HangDump package (the platform has no other way), that package and the
//! projects that lack it. No "last test seen" is offered in its place: neither platform prints
//! a test as it starts, so the last one printed finished, and naming it would send the reader
//! to the wrong test.
//!
//! The platform's own account is evidence: `dotnet test`'s exit code (per platform, see
//! `exit_meaning`), and each TRX's `ResultSummary` outcome, `Counters` and error `RunInfo`s
//! against its results (`doc_doubt`); a disagreement is never green. TRX files are read as a
//! stream within a size limit.

pub(crate) mod blame;
mod command;
mod detect;
mod evidence;
mod judge;
mod message;
mod msbuild;
mod parse;
mod project;
mod stack;
pub(crate) mod trx;

use std::path::{Path, PathBuf};
use std::time::Instant;

use pith_model::Run;

use crate::process;
use crate::verdict;
use crate::{Adapter, Context, RunnerError};

use command::{find_dotnet, is_test_id};
use evidence::{Evidence, Files, Watch};
use judge::{install_hint, judge};
use parse::read_trx;

pub use blame::{parse_sequence, SequenceError};
pub use detect::detect;
pub use judge::{parse_trx, parse_trx_from};
pub use project::{Framework, Platform};

/// `dotnet test` in a directory with a solution or project file and at least one test project.
pub struct Dotnet {
    dir: PathBuf,
    layout: project::Layout,
}

impl Dotnet {
    /// The workspace in `dir` as `dotnet test` would see it (`None`: no solution or project
    /// file there).
    pub fn new(dir: &Path) -> Option<Dotnet> {
        Some(Dotnet {
            dir: dir.to_path_buf(),
            layout: project::read(dir)?,
        })
    }

    pub fn platform(&self) -> Platform {
        self.layout.platform
    }

    pub fn frameworks(&self) -> Vec<Framework> {
        self.layout.frameworks()
    }

    /// The test projects, relative to the directory.
    pub fn test_projects(&self) -> Vec<PathBuf> {
        self.layout
            .test_projects
            .iter()
            .map(|p| p.path.clone())
            .collect()
    }

    /// Runs the tests with `dotnet` at `program` (what [`Adapter::run`] does with the one it
    /// finds).
    pub fn run_with(
        &self,
        program: &Path,
        ctx: &Context<'_>,
        tests: &[String],
    ) -> Result<Run, RunnerError> {
        // An id is never an option, nor a filter that could be read as one: `-x` names no
        // test, and when nothing else was asked for, nothing runs.
        let (dashed, ids): (Vec<String>, Vec<String>) =
            tests.iter().cloned().partition(|t| t.starts_with('-'));
        if !tests.is_empty() && ids.is_empty() {
            return Ok(Run {
                not_found: dashed,
                ..Run::new("dotnet")
            });
        }
        let mut run = self.run_ids(program, ctx, &ids)?;
        run.not_found.extend(dashed);
        Ok(run)
    }

    fn run_ids(
        &self,
        program: &Path,
        ctx: &Context<'_>,
        tests: &[String],
    ) -> Result<Run, RunnerError> {
        let results = ctx.scratch.join("dotnet-trx");
        std::fs::create_dir_all(&results)
            .map_err(|e| RunnerError::io(format!("creating {}", results.display()), e))?;
        let remaining = ctx.deadline.saturating_duration_since(Instant::now());
        let cmd = self.command(program, &results, tests, remaining);
        let captured = match process::run(cmd, ctx.deadline, ctx.cancel) {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(self.missing()),
            Err(source) => {
                return Err(RunnerError::Spawn {
                    program: program.display().to_string(),
                    source,
                })
            }
        };
        let files = Files::under(&results);
        let (docs, unread) = read_trx(&files.trx)?;
        let mut evidence = Evidence::read(&files, &captured);
        evidence.unread = unread;
        let watch = Watch {
            layout: &self.layout,
            hang: self.hang(remaining),
        };
        let mut run = judge(ctx, &captured, &docs, &evidence, &watch, tests);
        run.printed = captured.printed();
        Ok(run)
    }

    /// One line telling how to get what this workspace needs.
    pub fn install_hint(&self) -> String {
        install_hint(&self.layout)
    }
}

impl Adapter for Dotnet {
    fn name(&self) -> &'static str {
        "dotnet"
    }

    /// `Ns.Class.Method`, with `(args)` for a parametrized case; at least a namespace or a
    /// parameter list, so a GoogleTest `Suite.Test` is not taken for one.
    fn claims(&self, id: &str) -> bool {
        is_test_id(id)
    }

    fn run(&self, ctx: &Context<'_>, tests: &[String]) -> Result<Run, RunnerError> {
        match find_dotnet() {
            Some(program) => self.run_with(&program, ctx, tests),
            None => Ok(self.missing()),
        }
    }
}

impl Dotnet {
    fn missing(&self) -> Run {
        verdict::runner_missing("dotnet", self.install_hint())
    }
}
