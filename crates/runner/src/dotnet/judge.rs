//! What a finished `dotnet test`, its TRX reports and the platform's records of unfinished
//! tests say, as a [`Run`]: the common endings, the platform's exit codes, the SDK or TRX
//! extension missing, hangs and host crashes. Once tests ran, the console's words count only
//! from the first column ([`first_column`]): the console logger indents a test's output.

use std::time::Duration;

use pith_model::{ExitMeaning, Run, Status};

use crate::process::{Captured, End};
use crate::verdict::{self, Ending};
use crate::{tails, Context, ParseError, PathMap};

use super::evidence::{aborted, running_tests, Evidence, Watch};
use super::parse::{answers, doc_doubt, read_doc, tally, Doc};
use super::{blame, msbuild, project, stack, trx, Platform};

/// The hint when the test projects lack MTP's TRX extension.
pub(super) const TRX_MISSING: &str = "the test projects cannot write TRX: add the Microsoft.Testing.Extensions.TrxReport package to them";

const DOWNLOAD: &str = "https://dot.net/download";

/// One line telling how to get what the workspace of `layout` needs.
pub(super) fn install_hint(layout: &project::Layout) -> String {
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
pub(super) fn exit_meaning(platform: Platform, code: i32) -> ExitMeaning {
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
pub(super) fn sdk_missing(output: &str) -> bool {
    output.contains("A compatible .NET SDK was not found")
        || output.contains("No .NET SDKs were found")
        || output.contains("The application 'test' does not exist")
        || output.contains("A compatible installed .NET SDK for global.json version")
}

/// What a finished `dotnet test`, its TRX reports and the platform's records of unfinished
/// tests say.
pub(super) fn judge(
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
            verdict::killed(&mut run, "dotnet", &signal, Some(running), tail());
        }
        Ending::Exited(code) => {
            let seen = Exited {
                code,
                output: &output,
                docs,
                watch,
                hung,
                incomplete,
            };
            if let Some(missing) = exited(&mut run, ctx, &seen, running) {
                return missing;
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

/// What [`exited`] weighs.
struct Exited<'a> {
    code: i32,
    output: &'a str,
    docs: &'a [trx::Trx],
    watch: &'a Watch<'a>,
    /// The platform's own hang timeout stopped a test host.
    hung: bool,
    /// A report ends before its end.
    incomplete: bool,
}

/// The verdict of a `dotnet test` that exited by itself: build errors, a host that hung or
/// crashed, zero tests, a report cut short, an exit no report explains; `Some` when the answer
/// is rather that the SDK or the TRX extension is missing.
fn exited(run: &mut Run, ctx: &Context<'_>, e: &Exited<'_>, running: Vec<String>) -> Option<Run> {
    let (code, output, docs, watch, hung, incomplete) =
        (e.code, e.output, e.docs, e.watch, e.hung, e.incomplete);
    let tail = || verdict::tail(ctx.paths, output);
    // What the SDK, MSBuild and VSTest say they print from the first column; a test's output
    // the console logger shows (a failed test's, or every test's at detailed verbosity) it
    // indents. Once tests ran, only their lines are theirs.
    let own = if docs.is_empty() {
        output.to_owned()
    } else {
        first_column(output)
    };
    run.build_errors = msbuild::errors(&own, ctx.paths);
    if !docs.is_empty() {
        // Tests ran, so the build did not fail before them: an error MSBuild prints
        // without a compiler's or NuGet's code is a step after the tests (coverlet's
        // coverage threshold, an Exec task) failing the run, not the build. The exit
        // says not green; the tail says why.
        run.build_errors
            .retain(|e| e.code.as_deref().is_some_and(|c| !c.starts_with("MSB")));
    }
    // A crashed test host fails the run: a run that exited 0 had none, whatever a test
    // printed.
    let lower = first_column(output).to_ascii_lowercase();
    let crashed = docs.iter().any(aborted)
        || (code != 0
            && (lower.contains("test host process crashed")
                || lower.contains("the active test run was aborted")))
        || code == mtp_exit::HOST_CRASHED
        || (code == mtp_exit::SESSION_FAILED && run.failed == 0);
    if !run.build_errors.is_empty() {
        // BuildFailed, from the evidence; projects that did build may have run.
    } else if docs.is_empty() && sdk_missing(output) {
        // The muxer started; the SDK the workspace asks for is not there.
        return Some(Run {
            tail: tail(),
            ..verdict::runner_missing("dotnet", install_hint(watch.layout))
        });
    } else if lower.contains("unknown option") && lower.contains("report-") {
        return Some(Run {
            tail: tail(),
            ..verdict::runner_missing("dotnet", TRX_MISSING.to_owned())
        });
    } else if hung {
        // The test host was killed because of the hang, not a fault of its own.
        stopped_failures(run, &running, &watch.hung(), "timeout");
        verdict::stopped(run, Some(running), tail());
    } else if crashed {
        stopped_failures(
            run,
            &running,
            "the test host process crashed during this test",
            "crash",
        );
        verdict::crashed(run, Some(running), tail());
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
    None
}

/// The lines of `output` that start in its first column: the SDK's, MSBuild's and the test
/// platform's own, not a test's output the console logger indents under its result.
pub(super) fn first_column(output: &str) -> String {
    output
        .lines()
        .filter(|l| !l.starts_with(char::is_whitespace))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The tests a dead or killed test host was running become failures (`message`, `kind`),
/// unless a report already has them.
pub(super) fn stopped_failures(run: &mut Run, running: &[String], message: &str, kind: &str) {
    let how = verdict::Stopped {
        message,
        kind: Some(kind),
        frames: &[],
    };
    verdict::fail_running(run, running, &how);
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
        let t = tails::tail(&paths.scrub(&infos.join("\n")));
        run.tail = (!t.is_empty()).then_some(t);
    }
    if aborted(&doc) {
        run.status = Some(Status::Crashed);
        run.running = running_tests("", std::slice::from_ref(&doc), &Evidence::default());
        let infos: Vec<&str> = doc.run_infos.iter().map(|(_, t)| t.as_str()).collect();
        let t = tails::tail(&paths.scrub(&infos.join("\n")));
        run.tail = (!t.is_empty()).then_some(t);
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::dotnet::project;
    use crate::PathMap;

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
        judged_with(layout, hang, cap, sequences, requested, &[])
    }

    fn judged_with(
        layout: &project::Layout,
        hang: Option<Duration>,
        cap: &Captured,
        sequences: &[&str],
        requested: &[&str],
        docs: &[trx::Trx],
    ) -> Run {
        let root = std::env::temp_dir();
        let paths = PathMap::new(&root);
        let scratch = crate::Scratch::given(&root);
        let ctx = Context {
            root: &root,
            dir: &root,
            paths: &paths,
            deadline: Instant::now(),
            scratch: &scratch,
            cache: &root,
            cancel: None,
            trace: None,
        };
        let sequences: Vec<String> = sequences.iter().map(|s| s.to_string()).collect();
        let evidence = Evidence::from_texts(&sequences, &[], false, &cap.stdout_str());
        let watch = Watch { layout, hang };
        let requested: Vec<String> = requested.iter().map(|s| s.to_string()).collect();
        judge(&ctx, cap, docs, &evidence, &watch, &requested)
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
    fn a_tests_output_the_console_shows_is_not_the_platforms() {
        // VSTest's console logger at detailed verbosity shows what a passing test printed,
        // indented under its result: the platform's and MSBuild's words, copied.
        let out = "  Passed Ns.C.Prints [3 ms]\n  Standard Output Messages:\n The active test run was aborted. Reason: Test host process crashed\n The test running when the crash occurred: \n Ns.C.Ghost\n Data collector 'Blame' message: The specified inactivity time of 40 seconds has elapsed.\n /work/x/Ghost.cs(3,1): error CS1002: ; expected [/work/x/x.csproj]\n\nPassed!  - Failed:     0, Passed:     1, Skipped:     0, Total:     1, Duration: 20 ms - t.dll (net8.0)\n";
        let trx = crate::dotnet::trx::parse(r#"<TestRun><Results><UnitTestResult testId="1" testName="Prints" outcome="Passed" /></Results><TestDefinitions><UnitTest id="1" name="Prints"><TestMethod className="Ns.C" name="Prints" /></UnitTest></TestDefinitions><ResultSummary outcome="Completed"><Counters total="1" executed="1" passed="1" failed="0" /></ResultSummary></TestRun>"#).unwrap();
        let cap = captured(out, End::Exited(0));
        let hang = Some(Duration::from_secs(40));
        let run = judged_with(&vstest(), hang, &cap, &[], &[], &[trx]);
        assert_eq!(run.status(), Status::TestsPassed, "{run:#?}");
        assert!(
            run.running.is_empty() && run.build_errors.is_empty(),
            "{run:#?}"
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
}
