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

mod command;
mod message;
mod msbuild;
mod project;
mod stack;
mod trx;

use std::path::{Path, PathBuf};

use pith_model::{Failure, Phase, Run, Status};

use crate::process::{self, Captured, End};
use crate::{text, Adapter, Context, ParseError, PathMap, RunnerError};

pub use command::{args as command_args, escape as filter_escape, vstest_filter};
pub use project::{Framework, Platform};

const DOWNLOAD: &str = "https://dot.net/download";

/// Variables of the caller's shell that would change what `dotnet test` or the test platforms
/// do, on top of every `VSTEST_*` and `TESTINGPLATFORM_*` one.
const SCRUBBED_ENV: &[&str] = &[
    "DOTNET_CLI_TEST_TRACEFILE",
    "MSBUILDTERMINALLOGGER",
    "DOTNET_CLI_UI_LANGUAGE",
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

    /// The full command for `dotnet` at `program`, reports into `results`, running `ids`
    /// (all tests when empty).
    pub fn command(&self, program: &Path, results: &Path, ids: &[String]) -> std::process::Command {
        let mut cmd = crate::base_command(program, &self.dir);
        for (k, _) in std::env::vars_os() {
            let k_str = k.to_string_lossy();
            if k_str.starts_with("VSTEST_") || k_str.starts_with("TESTINGPLATFORM_") {
                cmd.env_remove(&k);
            }
        }
        for var in SCRUBBED_ENV {
            cmd.env_remove(var);
        }
        cmd.env("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
            .env("DOTNET_NOLOGO", "1")
            .env("DOTNET_SKIP_FIRST_TIME_EXPERIENCE", "1")
            .env("DOTNET_CLI_UI_LANGUAGE", "en")
            .env("DOTNET_SYSTEM_CONSOLE_ALLOW_ANSI_COLOR_REDIRECTION", "0")
            .env("MSBUILDTERMINALLOGGER", "off");
        cmd.args(command::args(&self.layout, results, ids));
        cmd
    }

    /// One line telling how to get what this workspace needs.
    pub fn install_hint(&self) -> String {
        let sdk = match (&self.layout.sdk_version, self.layout.platform) {
            (Some(v), _) => format!("the .NET SDK {v} (global.json)"),
            (None, Platform::Mtp { native: true }) => {
                "the .NET 10 SDK or later (global.json selects Microsoft.Testing.Platform)"
                    .to_owned()
            }
            _ => "the .NET SDK".to_owned(),
        };
        format!(
            "dotnet not found: install {sdk}, tests run on {}: {DOWNLOAD}",
            self.layout.platform.name()
        )
    }
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
        let Some(program) = find_dotnet() else {
            return Ok(self.missing());
        };
        let results = ctx.scratch.join("dotnet-trx");
        std::fs::create_dir_all(&results)
            .map_err(|e| RunnerError::io(format!("creating {}", results.display()), e))?;
        let cmd = self.command(&program, &results, tests);
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
        let mut docs = Vec::new();
        for file in trx_files(&results) {
            let bytes = std::fs::read(&file)
                .map_err(|e| RunnerError::io(format!("reading {}", file.display()), e))?;
            if let Some(doc) = trx::parse(&String::from_utf8_lossy(&bytes)) {
                docs.push(doc);
            }
        }
        Ok(judge(ctx, &captured, &docs, tests))
    }
}

impl Dotnet {
    fn missing(&self) -> Run {
        Run {
            status: Some(Status::RunnerMissing),
            hint: Some(self.install_hint()),
            ..Run::new("dotnet")
        }
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

/// Every `.trx` under `dir`, in a stable order.
fn trx_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("trx")) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// MTP exit codes that say something the TRX cannot.
mod mtp_exit {
    pub const ZERO_TESTS: i32 = 8;
    pub const SESSION_FAILED: i32 = 7;
    pub const HOST_CRASHED: i32 = 11;
}

/// What a finished `dotnet test` and its TRX reports say.
fn judge(ctx: &Context<'_>, cap: &Captured, docs: &[trx::Trx], requested: &[String]) -> Run {
    let mut run = Run::new("dotnet");
    run.duration = cap.elapsed;
    let output = format!("{}\n{}", cap.stdout_str(), cap.stderr_str());
    let mut locator = stack::Locator::new(ctx.paths);
    let read: Vec<Doc> = docs.iter().map(|d| read_doc(d, &mut locator)).collect();
    tally(&mut run, read, requested, ctx.paths);
    let tail = || {
        let t = text::tail(&ctx.paths.scrub(&output));
        (!t.is_empty()).then_some(t)
    };
    let running = crash_running(&output, docs);
    let incomplete = docs.iter().any(|d| !d.complete);
    match cap.end {
        End::TimedOut | End::Cancelled => {
            run.status = Some(Status::TimedOut);
            run.running = running;
            run.tail = tail();
        }
        End::Signaled(sig) => {
            run.status = Some(Status::Crashed);
            run.running = running;
            run.tail = tail().or_else(|| {
                Some(format!(
                    "dotnet was killed by {}",
                    process::signal_name(sig)
                ))
            });
        }
        End::Exited(code) => {
            run.build_errors = msbuild::errors(&output, ctx.paths);
            let lower = output.to_ascii_lowercase();
            let crashed = docs.iter().any(aborted)
                || lower.contains("test host process crashed")
                || lower.contains("the active test run was aborted")
                || code == mtp_exit::HOST_CRASHED
                || (code == mtp_exit::SESSION_FAILED && run.failed == 0);
            if !run.build_errors.is_empty() {
                // BuildFailed, from the evidence; projects that did build may have run.
            } else if lower.contains("unknown option") && lower.contains("report-") {
                return Run {
                    status: Some(Status::RunnerMissing),
                    hint: Some(
                        "the test projects cannot write TRX: add the Microsoft.Testing.Extensions.TrxReport package to them"
                            .to_owned(),
                    ),
                    tail: tail(),
                    ..Run::new("dotnet")
                };
            } else if crashed {
                run.status = Some(Status::Crashed);
                crash_failures(&mut run, &running);
                run.running = running;
                run.tail = tail();
            } else if code == mtp_exit::ZERO_TESTS {
                run.status = Some(Status::NoTestsRan);
            } else if docs.is_empty() || incomplete {
                // No (whole) report: whatever ran, pith cannot tell.
                run.status = Some(if code == 0 && docs.is_empty() {
                    Status::NoTestsRan
                } else {
                    Status::Crashed
                });
                run.tail = tail();
            } else if code != 0 && run.failed == 0 && run.failures.is_empty() {
                // The runner says the run failed, the reports name no failure.
                run.status = Some(Status::Crashed);
                run.tail = tail();
            }
        }
    }
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

/// The tests named as running when a test host died: VSTest's blame line ("The test running
/// when the crash occurred:" followed by names), and results left in progress.
fn crash_running(output: &str, docs: &[trx::Trx]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let texts = std::iter::once(output.to_owned()).chain(
        docs.iter()
            .flat_map(|d| d.run_infos.iter().map(|(_, t)| t.clone())),
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

/// The crashed tests become failures, unless a report already has them.
fn crash_failures(run: &mut Run, running: &[String]) {
    for test in running {
        if run.failures.iter().any(|f| &f.test == test) {
            continue;
        }
        run.failures.push(Failure {
            test: test.clone(),
            message: "the test host process crashed during this test".to_owned(),
            kind: Some("crash".to_owned()),
            ..Failure::default()
        });
        run.failed += 1;
    }
}

/// What became of one result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Passed,
    Skipped,
    Failed,
    /// Still in progress when the report was written (the run was cut short).
    Running,
}

struct Outcome {
    id: String,
    verdict: Verdict,
    failure: Option<Failure>,
}

/// A document's results, and how many tests it says it had.
struct Doc {
    outcomes: Vec<Outcome>,
    total: Option<u32>,
}

fn read_doc(doc: &trx::Trx, locator: &mut stack::Locator<'_>) -> Doc {
    let outcomes = doc
        .results
        .iter()
        .map(|r| {
            let id = test_id(r, doc);
            let outcome = r.outcome.to_ascii_lowercase();
            let verdict = match outcome.as_str() {
                "passed" | "passedbutrunaborted" | "completed" | "warning" => Verdict::Passed,
                "notexecuted" | "inconclusive" | "pending" => Verdict::Skipped,
                "inprogress" => Verdict::Running,
                _ => Verdict::Failed,
            };
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
    let doc = trx::parse(text).ok_or_else(|| ParseError::Malformed("not a TRX document".into()))?;
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
    run.duration = doc.results.iter().filter_map(|r| r.duration).sum();
    if aborted(&doc) {
        run.status = Some(Status::Crashed);
        run.running = crash_running("", std::slice::from_ref(&doc));
        let infos: Vec<&str> = doc.run_infos.iter().map(|(_, t)| t.as_str()).collect();
        let t = text::tail(&paths.scrub(&infos.join("\n")));
        run.tail = (!t.is_empty()).then_some(t);
    }
    Ok(run)
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
