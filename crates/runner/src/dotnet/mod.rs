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
mod message;
mod msbuild;
mod project;
mod stack;
pub(crate) mod trx;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pith_model::{ExitMeaning, Failure, Phase, Run, Status};

use crate::process::{self, Captured, End};
use crate::verdict::{self, Ending, Outcome, Verdict};
use crate::{text, Adapter, Context, ParseError, PathMap, RunnerError};

pub use blame::{parse_sequence, SequenceError};
pub use project::{Framework, Platform};

const DOWNLOAD: &str = "https://dot.net/download";
/// The hint when the test projects lack MTP's TRX extension.
const TRX_MISSING: &str = "the test projects cannot write TRX: add the Microsoft.Testing.Extensions.TrxReport package to them";
const HANG_DUMP_PACKAGE: &str = "Microsoft.Testing.Extensions.HangDump";

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

/// The adapters this ecosystem contributes for the project in `dir`: one, when `dir` holds a
/// solution or project file and some project under it is a test project.
pub fn detect(dir: &Path) -> Vec<Box<dyn Adapter>> {
    match Dotnet::new(dir) {
        Some(d) if d.platform() != Platform::None => vec![Box::new(d)],
        _ => Vec::new(),
    }
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

/// The files a run left in its results directory that pith reads.
#[derive(Debug, Default)]
struct Files {
    trx: Vec<PathBuf>,
    /// VSTest's blame `Sequence_<guid>.xml`.
    sequences: Vec<PathBuf>,
    /// MTP's hang dump: `<process>_<pid>_hang.log` (the tests it found running) and `.dmp`.
    hang_logs: Vec<PathBuf>,
    hang_dumps: usize,
}

impl Files {
    /// Every file of interest under `dir`, in a stable order.
    fn under(dir: &Path) -> Files {
        let mut out = Files::default();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                let name = e.file_name().to_string_lossy().to_ascii_lowercase();
                if name.ends_with(".trx") {
                    out.trx.push(p);
                } else if name.starts_with("sequence") && name.ends_with(".xml") {
                    out.sequences.push(p);
                } else if name.ends_with("_hang.log") {
                    out.hang_logs.push(p);
                } else if name.ends_with("_hang.dmp") {
                    out.hang_dumps += 1;
                }
            }
        }
        out.trx.sort();
        out.sequences.sort();
        out.hang_logs.sort();
        out
    }
}

/// A file pith reads whole to name tests; anything larger is not one the platforms write.
const EVIDENCE_LIMIT: u64 = 64 * 1024 * 1024;

fn read_small(path: &Path) -> Option<String> {
    let len = std::fs::metadata(path).ok()?.len();
    if len > EVIDENCE_LIMIT {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// A test the platform recorded as started and not ended.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Unfinished {
    /// Its pith id.
    id: String,
    /// The name the console's blame line uses for it (VSTest's fully qualified name).
    name: String,
}

/// What the platforms recorded about tests that never finished, besides the TRX.
#[derive(Debug, Default)]
struct Evidence {
    unfinished: Vec<Unfinished>,
    /// MTP's hang dump fired (its files are there, or its console message).
    mtp_hang: bool,
    /// TRX reports that were not read (over [`TRX_LIMIT`]), each said in one line.
    unread: Vec<String>,
}

/// The largest TRX report read. A TRX holds each failure's message and trace (cut to a
/// bounded length as it is read), so one this large is a run of millions of tests or output
/// gone wild; it is not read, and the run is not green.
const TRX_LIMIT: u64 = 256 << 20;

impl Evidence {
    fn read(files: &Files, cap: &Captured) -> Evidence {
        let sequences: Vec<String> = files
            .sequences
            .iter()
            .filter_map(|p| read_small(p))
            .collect();
        let logs: Vec<String> = files
            .hang_logs
            .iter()
            .filter_map(|p| read_small(p))
            .collect();
        let output = verdict::stdout_stderr(cap);
        Evidence::from_texts(&sequences, &logs, files.hang_dumps > 0, &output)
    }

    /// From the texts of the Sequence files and hang logs, whether hang dumps exist, and the
    /// console output. An unreadable Sequence file names nothing.
    fn from_texts(sequences: &[String], logs: &[String], dumps: bool, output: &str) -> Evidence {
        let mut ev = Evidence::default();
        for text in sequences {
            let Ok(entries) = blame::parse_sequence(text) else {
                continue;
            };
            for e in blame::unfinished(&entries) {
                ev.add(blame::sequence_id(e), e.name.trim().to_owned());
            }
        }
        let mut listed = blame::mtp_console_list(output);
        for text in logs {
            listed.extend(blame::mtp_hang_log(text));
        }
        ev.mtp_hang = dumps || !logs.is_empty() || blame::mtp_hang(output);
        for name in listed {
            ev.add(name.clone(), name);
        }
        ev
    }

    fn add(&mut self, id: String, name: String) {
        if !self.unfinished.iter().any(|u| u.id == id) {
            self.unfinished.push(Unfinished { id, name });
        }
    }
}

/// What pith asked of the platform about hangs.
struct Watch<'a> {
    layout: &'a project::Layout,
    /// The hang timeout given to the platform, if any.
    hang: Option<Duration>,
}

impl Watch<'_> {
    fn who(&self) -> &'static str {
        match self.layout.platform {
            Platform::Mtp { .. } => "the HangDump extension",
            _ => "vstest's blame-hang",
        }
    }

    /// The failure message of a test the platform's hang timeout stopped.
    fn hung(&self) -> String {
        match self.hang {
            Some(t) => format!(
                "timed out: no test finished for {}s (half of what pith's --timeout left), so {} stopped the test host during this test",
                t.as_secs(),
                self.who()
            ),
            None => format!(
                "timed out: {} stopped the test host during this test (no progress for its hang timeout)",
                self.who()
            ),
        }
    }

    /// Why no running test is named when pith's deadline ended the run, and how to have it
    /// named.
    fn unnamed_hint(&self) -> Option<String> {
        if let Some(t) = self.hang {
            return Some(format!(
                "no running test named: {} names a test after {}s without progress, and pith's deadline came first; a longer --timeout leaves it the time",
                self.who(),
                t.as_secs()
            ));
        }
        let mtp = matches!(self.layout.platform, Platform::Mtp { .. });
        if !mtp || self.layout.hang_dump() {
            return Some(format!(
                "no running test named: the --timeout left too little time for {} to name a hanging test; a longer one lets it",
                self.who()
            ));
        }
        let missing = self.layout.without_hang_dump();
        if missing.is_empty() {
            return None;
        }
        let mut list: Vec<String> = missing
            .iter()
            .take(3)
            .map(|p| p.display().to_string())
            .collect();
        if missing.len() > 3 {
            list.push(format!("{} more", missing.len() - 3));
        }
        Some(format!(
            "no running test named: Microsoft.Testing.Platform names a hanging test only with the {HANG_DUMP_PACKAGE} package; add it to {}",
            list.join(", ")
        ))
    }
}

/// MTP exit codes that say something the TRX cannot.
mod mtp_exit {
    pub const ZERO_TESTS: i32 = 8;
    pub const SESSION_FAILED: i32 = 7;
    pub const HOST_CRASHED: i32 = 11;
}

/// What `dotnet test`'s exit code means on `platform`. VSTest (and MTP through VSTest's
/// bridge, where MSBuild runs the test apps) exits 0 when every test passed and 1 otherwise.
/// `dotnet test` in MTP mode passes on the test apps' code when they all exit with the same
/// one, else 1 (dotnet/sdk#47550, #52402); MTP's codes are documented at
/// https://aka.ms/testingplatform/exitcodes: 2 a test failed, 3 the session was aborted, 5
/// invalid arguments, 8 zero tests ran, 13 stopped at `--maximum-failed-tests`.
fn exit_meaning(platform: Platform, code: i32) -> ExitMeaning {
    match (platform, code) {
        (_, 0) => ExitMeaning::Passed,
        (Platform::Mtp { native: true }, 2 | 13) => ExitMeaning::Failed,
        (Platform::Mtp { native: true }, 3) => ExitMeaning::Interrupted,
        (Platform::Mtp { native: true }, 5) => ExitMeaning::UsageError,
        (Platform::Mtp { native: true }, 8) => ExitMeaning::NoTests,
        (Platform::Mtp { native: true }, _) => ExitMeaning::Other,
        (_, 1) => ExitMeaning::Failed,
        _ => ExitMeaning::Other,
    }
}

/// `dotnet` started but could not run `dotnet test` here: no SDK that global.json accepts, or
/// none at all (the muxer alone).
fn sdk_missing(output: &str) -> bool {
    output.contains("A compatible .NET SDK was not found")
        || output.contains("No .NET SDKs were found")
        || output.contains("The application 'test' does not exist")
        || output.contains("A compatible installed .NET SDK for global.json version")
}

/// Where a TRX's own account disagrees with its results, in one line: its counters count more
/// failed tests than its results show, its summary says the run failed (or errored) with no
/// failed result, or a run info is an error. `None` when it agrees.
fn doc_doubt(doc: &trx::Trx) -> Option<String> {
    let failed = doc
        .results
        .iter()
        .filter(|r| verdict_of(&r.outcome.to_ascii_lowercase()) == Verdict::Failed)
        .count() as u64;
    let c = &doc.counters;
    let counted: u64 = [c.failed, c.error, c.timeout, c.aborted]
        .iter()
        .map(|n| u64::from(n.unwrap_or(0)))
        .sum();
    if counted > failed {
        return Some(format!(
            "the TRX counts {counted} failed tests, its results show {failed}"
        ));
    }
    let outcome = doc.summary_outcome.as_deref().unwrap_or("");
    if failed == 0
        && ["failed", "error", "timeout"]
            .iter()
            .any(|o| outcome.eq_ignore_ascii_case(o))
    {
        return Some(format!(
            "the TRX says the run {outcome} though no test failed"
        ));
    }
    doc.run_infos
        .iter()
        .find(|(o, _)| o.eq_ignore_ascii_case("error"))
        .map(|(_, t)| text::first_line(&format!("the TRX reports an error: {}", t.trim())))
}

/// What a finished `dotnet test`, its TRX reports and the platform's records of unfinished
/// tests say.
fn judge(
    ctx: &Context<'_>,
    cap: &Captured,
    docs: &[trx::Trx],
    evidence: &Evidence,
    watch: &Watch<'_>,
    requested: &[String],
) -> Run {
    let mut run = Run::new("dotnet");
    run.duration = cap.elapsed;
    let output = verdict::stdout_stderr(cap);
    let mut locator = stack::Locator::new(ctx.paths);
    let read: Vec<Doc> = docs.iter().map(|d| read_doc(d, &mut locator)).collect();
    tally(&mut run, read, requested, ctx.paths);
    run.exit = verdict::exit(cap.end, |c| exit_meaning(watch.layout.platform, c));
    // The reports' own totals and summaries must agree with their results.
    run.reason = evidence
        .unread
        .first()
        .cloned()
        .or_else(|| docs.iter().find_map(doc_doubt));
    let tail = || verdict::tail(ctx.paths, &output);
    let running = running_tests(&output, docs, evidence);
    // The platform's own hang timeout stopped a test host (pith's, or one the project set).
    let hung = evidence.mtp_hang
        || blame::vstest_hang(
            &output,
            docs.iter()
                .flat_map(|d| d.run_infos.iter().map(|(_, t)| t.as_str())),
        );
    let incomplete = docs.iter().any(|d| !d.complete);
    match Ending::of(cap.end) {
        Ending::Stopped => {
            if hung {
                stopped_failures(&mut run, &running, &watch.hung(), "timeout");
            }
            if running.is_empty() && cap.end == End::TimedOut {
                run.hint = watch.unnamed_hint();
            }
            verdict::stopped(&mut run, Some(running), tail());
        }
        Ending::Killed(signal) => {
            let tail = tail().or_else(|| Some(verdict::killed_by("dotnet", &signal)));
            verdict::crashed(&mut run, Some(running), tail);
        }
        Ending::Exited(code) => {
            run.build_errors = msbuild::errors(&output, ctx.paths);
            if !docs.is_empty() {
                // Tests ran, so the build did not fail before them: an error MSBuild prints
                // without a compiler's or NuGet's code is a step after the tests (coverlet's
                // coverage threshold, an Exec task) failing the run, not the build. The exit
                // says not green; the tail says why.
                run.build_errors
                    .retain(|e| e.code.as_deref().is_some_and(|c| !c.starts_with("MSB")));
            }
            let lower = output.to_ascii_lowercase();
            let crashed = docs.iter().any(aborted)
                || lower.contains("test host process crashed")
                || lower.contains("the active test run was aborted")
                || code == mtp_exit::HOST_CRASHED
                || (code == mtp_exit::SESSION_FAILED && run.failed == 0);
            if !run.build_errors.is_empty() {
                // BuildFailed, from the evidence; projects that did build may have run.
            } else if docs.is_empty() && sdk_missing(&output) {
                // The muxer started; the SDK the workspace asks for is not there.
                return Run {
                    tail: tail(),
                    ..verdict::runner_missing("dotnet", install_hint(watch.layout))
                };
            } else if lower.contains("unknown option") && lower.contains("report-") {
                return Run {
                    tail: tail(),
                    ..verdict::runner_missing("dotnet", TRX_MISSING.to_owned())
                };
            } else if hung {
                // The test host was killed because of the hang, not a fault of its own.
                run.status = Some(Status::TimedOut);
                stopped_failures(&mut run, &running, &watch.hung(), "timeout");
                run.running = running;
                run.tail = tail();
            } else if crashed {
                run.status = Some(Status::Crashed);
                stopped_failures(
                    &mut run,
                    &running,
                    "the test host process crashed during this test",
                    "crash",
                );
                run.running = running;
                run.tail = tail();
            } else if code == mtp_exit::ZERO_TESTS {
                run.status = Some(Status::NoTestsRan);
            } else if incomplete {
                // A report cut off before its end: its writer died.
                run.status = Some(Status::Crashed);
                run.tail = tail();
            } else if docs.is_empty() && code == 0 {
                run.status = Some(Status::NoTestsRan);
                run.tail = tail();
            } else if code != 0 && run.failed == 0 && run.failures.is_empty() {
                // The runner says the run failed and no report names a failure (a coverage
                // threshold, a restore that failed, no report at all): its exit makes the run
                // RunnerFailed; the console says why.
                run.tail = tail();
            }
        }
    }
    if run.reason.is_some() && run.tail.is_none() {
        run.tail = tail();
    }
    // A requested test that started and never ended was found, though no report has it.
    let running = &run.running;
    run.not_found
        .retain(|r| !running.iter().any(|id| answers(r, id)));
    run
}

fn aborted(doc: &trx::Trx) -> bool {
    doc.summary_outcome
        .as_deref()
        .is_some_and(|o| o.eq_ignore_ascii_case("Aborted"))
        || doc.run_infos.iter().any(|(_, t)| {
            let t = t.to_ascii_lowercase();
            t.contains("test host process crashed") || t.contains("test run was aborted")
        })
}

/// The tests that started and never ended: those the platform recorded (blame Sequence
/// files, the hang dump's list), those VSTest's blame line names ("The test running when the
/// crash occurred:" followed by names, the Sequence file's fully qualified names, so only
/// the ones no file already gave), and results a report left in progress.
fn running_tests(output: &str, docs: &[trx::Trx], evidence: &Evidence) -> Vec<String> {
    let mut out: Vec<String> = evidence.unfinished.iter().map(|u| u.id.clone()).collect();
    for name in blame_line_names(output, docs) {
        let known = evidence
            .unfinished
            .iter()
            .any(|u| u.name == name || u.id == name);
        if !known && !out.contains(&name) {
            out.push(name);
        }
    }
    for d in docs {
        for r in &d.results {
            let o = r.outcome.to_ascii_lowercase();
            if matches!(o.as_str(), "inprogress" | "aborted") {
                let id = test_id(r, d);
                if !out.contains(&id) {
                    out.push(id);
                }
            }
        }
    }
    out
}

/// The names after VSTest's blame line, in the console or a report's run infos.
fn blame_line_names(output: &str, docs: &[trx::Trx]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let texts = std::iter::once(output).chain(
        docs.iter()
            .flat_map(|d| d.run_infos.iter().map(|(_, t)| t.as_str())),
    );
    for text in texts {
        let mut lines = text.lines();
        while let Some(l) = lines.next() {
            if l.contains("The test running when the crash occurred") {
                for name in lines.by_ref() {
                    let name = name.trim();
                    if name.is_empty() || name.contains(' ') && !name.contains('(') {
                        break;
                    }
                    if !out.iter().any(|o| o == name) {
                        out.push(name.to_owned());
                    }
                }
            }
        }
    }
    out
}

/// The tests a dead or killed test host was running become failures (`message`, `kind`),
/// unless a report already has them.
fn stopped_failures(run: &mut Run, running: &[String], message: &str, kind: &str) {
    let how = verdict::Stopped {
        message,
        kind: Some(kind),
        frames: &[],
    };
    verdict::fail_running(run, running, &how);
}

/// A document's results, and how many tests it says it had.
struct Doc {
    outcomes: Vec<Outcome>,
    total: Option<u32>,
}

/// What a TRX result outcome (lowercase) says of its test.
fn verdict_of(outcome: &str) -> Verdict {
    match outcome {
        "passed" | "passedbutrunaborted" | "completed" | "warning" => Verdict::Passed,
        "notexecuted" | "inconclusive" | "pending" => Verdict::Skipped,
        "inprogress" => Verdict::Running,
        _ => Verdict::Failed,
    }
}

fn read_doc(doc: &trx::Trx, locator: &mut stack::Locator<'_>) -> Doc {
    let outcomes = doc
        .results
        .iter()
        .map(|r| {
            let id = test_id(r, doc);
            let outcome = r.outcome.to_ascii_lowercase();
            let verdict = verdict_of(&outcome);
            let failure = (verdict == Verdict::Failed).then(|| {
                let phase = if outcome == "notrunnable" {
                    Phase::Collect
                } else if id.starts_with('[') && id.contains("Cleanup Failure") {
                    Phase::Teardown
                } else {
                    Phase::Call
                };
                failure(r, id.clone(), phase, &outcome, locator)
            });
            Outcome {
                id,
                verdict,
                failure,
                crashed: false,
            }
        })
        .collect();
    Doc {
        outcomes,
        total: doc.counters.total,
    }
}

/// Whether result `id` answers the request `req`: the same id, or a case of the method `req`
/// names.
fn answers(req: &str, id: &str) -> bool {
    req == id || (command::base(req) == req && command::base(id) == req)
}

/// Counts and failures from the documents' results; with `requested` ids, only theirs (a
/// filter by method also runs a theory's other cases), the rest of the request not found.
fn tally(run: &mut Run, docs: Vec<Doc>, requested: &[String], paths: &PathMap) {
    let mut found: Vec<String> = Vec::new();
    let mut selected = 0;
    for doc in docs {
        let mut counted = 0;
        for o in doc.outcomes {
            if !requested.is_empty() {
                if !requested.iter().any(|r| answers(r, &o.id)) {
                    continue;
                }
                found.push(o.id.clone());
            }
            counted += 1;
            match o.verdict {
                Verdict::Passed => run.passed += 1,
                Verdict::Skipped => run.skipped += 1,
                Verdict::Running => {}
                Verdict::Failed => run.failed += 1,
            }
            if let Some(mut f) = o.failure {
                f.message = paths.scrub(&f.message);
                paths.fill_code(&mut f.frames);
                run.failures.push(f);
            }
        }
        selected += doc
            .total
            .filter(|t| requested.is_empty() && *t > counted)
            .unwrap_or(counted);
    }
    if selected > run.passed + run.failed + run.skipped {
        run.selected = Some(selected);
    }
    run.not_found = requested
        .iter()
        .filter(|r| !found.iter().any(|id| answers(r, id)))
        .cloned()
        .collect();
}

/// The runner's id of a result: the display name when it is already fully qualified (xUnit,
/// MTP), the class and display name joined when the display name starts with the method
/// (NUnit, MSTest), the display name as it is when its author chose it.
fn test_id(r: &trx::TestResult, doc: &trx::Trx) -> String {
    let Some(def) = doc.definitions.get(&r.test_id) else {
        return r.test_name.clone();
    };
    let class = def.class_name.as_str();
    if class.is_empty() || r.test_name.starts_with(&format!("{class}.")) {
        return r.test_name.clone();
    }
    let method = def.method.rsplit('.').next().unwrap_or(&def.method);
    let method_base = command::base(method);
    if !method_base.is_empty() && r.test_name.starts_with(method_base) {
        return format!("{class}.{}", r.test_name);
    }
    r.test_name.clone()
}

fn failure(
    r: &trx::TestResult,
    test: String,
    phase: Phase,
    outcome: &str,
    locator: &mut stack::Locator<'_>,
) -> Failure {
    let folded = message::fold(&r.message);
    let kind = message::kind(&folded).or_else(|| match outcome {
        "timeout" => Some("Timeout".to_owned()),
        "aborted" => Some("Aborted".to_owned()),
        _ => None,
    });
    let message = if folded.is_empty() {
        match outcome {
            "timeout" => "timed out".to_owned(),
            "aborted" => "aborted".to_owned(),
            "notrunnable" => "not runnable".to_owned(),
            _ => "failed".to_owned(),
        }
    } else {
        folded
    };
    Failure {
        test,
        message,
        kind,
        frames: locator.frames(&r.stack_trace),
        phase,
        ..Failure::default()
    }
}

/// Reads an existing TRX report (for `pith test --report`). A document that is not TRX, or
/// that ends before its end (a truncated upload), is an error rather than a partial answer.
pub fn parse_trx(text: &str, paths: &PathMap) -> Result<Run, ParseError> {
    parse_trx_from(text.as_bytes(), paths)
}

/// [`parse_trx`] from a stream (a report file), in memory bounded by what is kept of it.
pub fn parse_trx_from(input: impl std::io::Read, paths: &PathMap) -> Result<Run, ParseError> {
    let doc =
        trx::parse_from(input).ok_or_else(|| ParseError::Malformed("not a TRX document".into()))?;
    if !doc.complete {
        return Err(ParseError::Malformed(format!(
            "TRX document ends early (after {} results)",
            doc.results.len()
        )));
    }
    let mut run = Run::new("dotnet");
    let mut locator = stack::Locator::new(paths);
    let read = read_doc(&doc, &mut locator);
    tally(&mut run, vec![read], &[], paths);
    run.duration = doc
        .results
        .iter()
        .filter_map(|r| r.duration)
        .fold(Duration::ZERO, Duration::saturating_add);
    run.reason = doc_doubt(&doc);
    if run.reason.is_some() {
        let infos: Vec<&str> = doc.run_infos.iter().map(|(_, t)| t.as_str()).collect();
        let t = text::tail(&paths.scrub(&infos.join("\n")));
        run.tail = (!t.is_empty()).then_some(t);
    }
    if aborted(&doc) {
        run.status = Some(Status::Crashed);
        run.running = running_tests("", std::slice::from_ref(&doc), &Evidence::default());
        let infos: Vec<&str> = doc.run_infos.iter().map(|(_, t)| t.as_str()).collect();
        let t = text::tail(&paths.scrub(&infos.join("\n")));
        run.tail = (!t.is_empty()).then_some(t);
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn captured(output: &str, end: End) -> Captured {
        Captured {
            stdout: output.as_bytes().to_vec(),
            stderr: Vec::new(),
            stdout_dropped: 0,
            stderr_dropped: 0,
            end,
            elapsed: Duration::from_secs(1),
        }
    }

    fn judged(
        layout: &project::Layout,
        hang: Option<Duration>,
        cap: &Captured,
        sequences: &[&str],
        requested: &[&str],
    ) -> Run {
        let root = std::env::temp_dir();
        let paths = PathMap::new(&root);
        let ctx = Context {
            root: &root,
            dir: &root,
            paths: &paths,
            deadline: Instant::now(),
            scratch: &root,
            cache: &root,
            cancel: None,
        };
        let sequences: Vec<String> = sequences.iter().map(|s| s.to_string()).collect();
        let evidence = Evidence::from_texts(&sequences, &[], false, &cap.stdout_str());
        let watch = Watch { layout, hang };
        let requested: Vec<String> = requested.iter().map(|s| s.to_string()).collect();
        judge(&ctx, cap, &[], &evidence, &watch, &requested)
    }

    fn vstest() -> project::Layout {
        project::Layout {
            target: None,
            target_is_solution: false,
            test_projects: Vec::new(),
            platform: Platform::Vstest,
            sdk_version: None,
            shared_packages: Vec::new(),
        }
    }

    const SEQ: &str = r#"<TestSequence><Test Name="Ns.C.Ok" DisplayName="Ns.C.Ok" Source="t.dll" Completed="True" /><Test Name="Ns.C.Boom" DisplayName="Ns.C.Boom(n: 1)" Source="t.dll" Completed="False" /></TestSequence>"#;

    #[test]
    fn a_crash_is_named_from_the_sequence_file_once() {
        let out = "The active test run was aborted. Reason: Test host process crashed\nThe test running when the crash occurred: \nNs.C.Boom\nThis test may, or may not be the source of the crash.\n";
        let run = judged(&vstest(), None, &captured(out, End::Exited(1)), &[SEQ], &[]);
        assert_eq!(run.status(), Status::Crashed, "{run:#?}");
        assert_eq!(run.running, ["Ns.C.Boom(n: 1)"]);
        assert_eq!(run.failures[0].kind.as_deref(), Some("crash"));
        // Without the file, the console's name stands.
        let run = judged(&vstest(), None, &captured(out, End::Exited(1)), &[], &[]);
        assert_eq!(run.running, ["Ns.C.Boom"]);
        // A truncated file names nothing.
        let cut = &SEQ[..SEQ.len() - 16];
        let run = judged(&vstest(), None, &captured(out, End::Exited(1)), &[cut], &[]);
        assert_eq!(run.running, ["Ns.C.Boom"]);
    }

    #[test]
    fn a_hang_stop_is_a_timeout_and_finds_the_requested_test() {
        let out = "Data collector 'Blame' message: The specified inactivity time of 40 seconds has elapsed. Collecting hang dumps from testhost and its child processes.\nThe active test run was aborted. Reason: Test host process crashed\n";
        let run = judged(
            &vstest(),
            Some(Duration::from_secs(40)),
            &captured(out, End::Exited(1)),
            &[SEQ],
            &["Ns.C.Boom"],
        );
        assert_eq!(run.status(), Status::TimedOut, "{run:#?}");
        assert_eq!(run.running, ["Ns.C.Boom(n: 1)"]);
        assert!(
            run.not_found.is_empty(),
            "a case of the requested method ran: {run:#?}"
        );
        let f = &run.failures[0];
        assert_eq!(f.kind.as_deref(), Some("timeout"));
        assert!(
            f.message.contains("no test finished for 40s"),
            "{}",
            f.message
        );
    }

    #[test]
    fn the_deadline_without_a_name_gives_a_hint() {
        let cap = captured("Starting test execution, please wait...\n", End::TimedOut);
        let run = judged(&vstest(), Some(Duration::from_secs(285)), &cap, &[], &[]);
        assert_eq!(run.status(), Status::TimedOut);
        assert_eq!(
            run.hint.as_deref(),
            Some("no running test named: vstest's blame-hang names a test after 285s without progress, and pith's deadline came first; a longer --timeout leaves it the time")
        );
        // Cancelled by the caller: nothing to advise.
        let cap = captured("", End::Cancelled);
        let run = judged(&vstest(), Some(Duration::from_secs(285)), &cap, &[], &[]);
        assert_eq!(run.status(), Status::TimedOut);
        assert!(run.hint.is_none());
        // A Sequence file found after the kill names the test, and the hint is not needed.
        let cap = captured("", End::TimedOut);
        let run = judged(&vstest(), Some(Duration::from_secs(285)), &cap, &[SEQ], &[]);
        assert_eq!(run.running, ["Ns.C.Boom(n: 1)"]);
        assert!(run.hint.is_none() && run.failures.is_empty(), "{run:#?}");
    }

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
