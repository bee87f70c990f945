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
use std::time::{Duration, Instant};

use pith_model::Run;

use crate::process;
use crate::verdict;
use crate::{Adapter, Context, RunnerError};

use evidence::{Evidence, Files, Watch, TRX_LIMIT};
use judge::judge;

pub use blame::{parse_sequence, SequenceError};
pub use detect::detect;
pub use parse::parse_trx;
pub use parse::parse_trx_from;
pub use project::{Framework, Platform};

const DOWNLOAD: &str = "https://dot.net/download";

/// Variables of the caller's shell removed from `dotnet test`'s environment, each because it
/// would falsify what pith reads: an exit code the platform is told to hide (exit codes are
/// evidence), or a test host that waits for a debugger to attach (a hang pith would answer as
/// a timeout). Every other variable is the caller's, as the tests would see it run by hand.
const SCRUBBED_ENV: &[&str] = &[
    "TESTINGPLATFORM_EXITCODE_IGNORE",
    "TESTINGPLATFORM_LAUNCH_ATTACH_DEBUGGER",
    "VSTEST_HOST_DEBUG",
    "VSTEST_RUNNER_DEBUG",
    "VSTEST_DATACOLLECTOR_DEBUG",
];

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

    /// The hang timeout this workspace's platform is given with `remaining` left before pith's
    /// deadline: none on MTP without the HangDump extension, which has no such option.
    fn hang(&self, remaining: Duration) -> Option<Duration> {
        let supported = match self.layout.platform {
            Platform::Vstest | Platform::None => true,
            Platform::Mtp { .. } => self.layout.hang_dump(),
        };
        command::hang_timeout(remaining).filter(|_| supported)
    }

    /// The full command for `dotnet` at `program`, reports into `results`, running `ids`
    /// (all tests when empty), with `remaining` left before pith's deadline.
    pub fn command(
        &self,
        program: &Path,
        results: &Path,
        ids: &[String],
        remaining: Duration,
    ) -> std::process::Command {
        let mut cmd = crate::base_command(program, &self.dir);
        for var in SCRUBBED_ENV {
            cmd.env_remove(var);
        }
        // What pith reads besides the TRX is console text: the crash and hang lines of VSTest
        // and MTP, and MSBuild's `error CS...` lines. The CLI, MSBuild and VSTest print it in
        // the language this variable names (the user's otherwise), and MSBuild's terminal
        // logger, when forced on, rewrites those lines in place. Both are read by the .NET
        // tooling; a test host inherits them, and a test that asserts on its UI culture could
        // see the language (the one variable pith sets that a test might observe).
        cmd.env("DOTNET_CLI_UI_LANGUAGE", "en")
            .env("MSBUILDTERMINALLOGGER", "off");
        if matches!(self.layout.platform, Platform::Vstest | Platform::None) {
            // The blame collector writes its Sequence file to a temporary directory before
            // moving it into the results: there, the scratch directory keeps it from outliving
            // the run, and a file the move did not reach is still found.
            cmd.env("VSTEST_DUMP_TEMP_PATH", results.join("blame"));
        }
        cmd.args(command::args(
            &self.layout,
            results,
            ids,
            self.hang(remaining),
        ));
        cmd
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
        let mut docs = Vec::new();
        let mut unread: Vec<String> = Vec::new();
        for file in &files.trx {
            let f = std::fs::File::open(file)
                .map_err(|e| RunnerError::io(format!("reading {}", file.display()), e))?;
            let len = f.metadata().map_or(0, |m| m.len());
            if len > TRX_LIMIT {
                unread.push(format!(
                    "a TRX report of {} MB is over pith's {} MB limit and was not read",
                    len >> 20,
                    TRX_LIMIT >> 20
                ));
                continue;
            }
            if let Some(doc) = trx::parse_from(std::io::Read::take(f, TRX_LIMIT)) {
                docs.push(doc);
            }
        }
        let mut evidence = Evidence::read(&files, &captured);
        evidence.unread = unread;
        let watch = Watch {
            layout: &self.layout,
            hang: self.hang(remaining),
        };
        Ok(judge(ctx, &captured, &docs, &evidence, &watch, tests))
    }

    /// One line telling how to get what this workspace needs.
    pub fn install_hint(&self) -> String {
        install_hint(&self.layout)
    }
}

/// One line telling how to get what the workspace of `layout` needs.
fn install_hint(layout: &project::Layout) -> String {
    let sdk = match (&layout.sdk_version, layout.platform) {
        (Some(v), _) => format!("the .NET SDK {v} (global.json)"),
        (None, Platform::Mtp { native: true }) => {
            "the .NET 10 SDK or later (global.json selects Microsoft.Testing.Platform)".to_owned()
        }
        _ => "the .NET SDK".to_owned(),
    };
    format!(
        "dotnet not found: install {sdk}, tests run on {}: {DOWNLOAD}",
        layout.platform.name()
    )
}

/// `dotnet` on PATH, else in `$DOTNET_ROOT` or `~/.dotnet` (where the install script puts it).
fn find_dotnet() -> Option<PathBuf> {
    crate::on_path("dotnet").or_else(|| {
        [
            std::env::var_os("DOTNET_ROOT").map(PathBuf::from),
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".dotnet")),
        ]
        .into_iter()
        .flatten()
        .map(|d| d.join("dotnet"))
        .find(|p| crate::is_executable(p))
    })
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

fn is_test_id(id: &str) -> bool {
    if id.is_empty() || id != id.trim() || id.contains("::") {
        return false;
    }
    let b = command::base(id);
    let params = b.len() < id.len();
    let segments: Vec<&str> = b.split('.').collect();
    let ident = |s: &&str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || "_`+<>,".contains(c))
    };
    segments.len() >= 2 && segments.iter().all(ident) && (segments.len() >= 3 || params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_dotnet_ids_only() {
        assert!(is_test_id("Ns.CalcTests.Adds"));
        assert!(is_test_id("Ns.CalcTests.IsEven(i: 3)"));
        assert!(is_test_id("CalcTests.IsEven(False)"));
        assert!(is_test_id("Ns.Outer+Inner.Generic`1.M"));
        assert!(!is_test_id("Sum.Adds"), "a GoogleTest id");
        assert!(!is_test_id("Inst/Suite.Test/0"));
        assert!(!is_test_id("tests/test_x.py::test_a"));
        assert!(!is_test_id("mycrate tests::it_works"));
        assert!(!is_test_id("Should be even(i: 3)"));
        assert!(!is_test_id(""));
    }
}
