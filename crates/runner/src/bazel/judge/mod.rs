//! What one `bazel test` said, as a [`Run`]: each test target's result from the build event
//! stream, its cases from its `test.xml` (GoogleTest's or JUnit's own report) or, where Bazel
//! wrote the file itself (a shell or Python test, a test that crashed or timed out), from its
//! `test.log`; build failures from the failed actions' stderr; and Bazel's own ways to be
//! partial — a target with no status, a stream cut short, an exit that is not green — never
//! green.
//!
//! Layout: `cases` (a test target's cases), `failure` (one failure from a fault or a process
//! that ended), `errors` (a failed build), `files` (Bazel's files and paths, read bounded);
//! here, the targets walked and Bazel's exit weighed.

mod cases;
mod errors;
mod failure;
mod files;

use pith_model::{BuildError, ExitMeaning, Run, Status};

use crate::process::Captured;
use crate::verdict::{self, Ending};
use crate::{Context, PathMap};

use super::bep::Stream;
use super::command::{of_target, selects, split_id};
use cases::target_cases;
use errors::{bazel_errors, build_errors};
use files::{unroot, workspace_names};

/// Bazel's documented exit codes (`bazel help test`, "exit codes").
const EXIT_CODES: &verdict::ExitCodes = &[
    (0, ExitMeaning::Passed),
    (1, ExitMeaning::Failed),
    (2, ExitMeaning::UsageError),
    (3, ExitMeaning::Failed),
    (4, ExitMeaning::NoTests),
    (8, ExitMeaning::Interrupted),
];

/// One invocation's run. `requested` are the ids this invocation was for (empty: all).
pub(super) fn judge(
    ctx: &Context<'_>,
    cap: &Captured,
    stream: &Stream,
    requested: &[String],
) -> Run {
    let mut run = Run::new("bazel");
    let paths = ctx.paths;
    let names = workspace_names(stream);
    let console_text = stream.console.join("\n");
    let not_run = test_targets(&mut run, paths, &names, stream);
    run.build_errors = build_errors(stream, paths);
    if !requested.is_empty() {
        keep_requested(&mut run, requested);
    }
    let tail = || verdict::why_tail(paths, &unroot(&console_text, &names));
    match Ending::of(cap.end) {
        Ending::Stopped => verdict::stopped(&mut run, Some(still_running(stream)), tail()),
        Ending::Killed(signal) => verdict::killed(&mut run, "bazel", &signal, None, tail()),
        Ending::Exited(code) => exited(&mut run, code, stream, &not_run, requested, paths, &tail),
    }
    run.exit = verdict::exit(cap.end, |code| verdict::meaning(EXIT_CODES, code));
    run
}

/// Every test target's result into the run; the targets that did not run, each with why.
fn test_targets(run: &mut Run, paths: &PathMap, names: &[String], stream: &Stream) -> Vec<String> {
    let mut not_run: Vec<String> = Vec::new();
    let mut unreported = 0u32;
    for (label, target) in stream.targets.iter().filter(|(_, t)| t.test) {
        match target.attempts.last() {
            Some(last) => {
                // The verdict is the summary's when Bazel made one (retries of a flaky test).
                let status = target.summary.as_deref().unwrap_or(&last.status);
                if last.cached {
                    run.cached += 1;
                }
                if last.remote {
                    run.remote += 1;
                }
                match status {
                    "PASSED" | "FLAKY" | "FAILED" | "TIMEOUT" => {
                        unreported += target_cases(run, paths, names, label, target, status);
                    }
                    other => not_run.push(format!("{label} ({})", words(other))),
                }
            }
            None if target.built == Some(false) || target.aborted.is_some() => {
                not_run.push(format!("{label} (not built)"));
            }
            None => not_run.push(format!("{label} (no status)")),
        }
    }
    if unreported > 0 {
        run.selected = Some(run.passed + run.failed + run.skipped + unreported);
    }
    not_run
}

/// The test targets still running when pith stopped Bazel: built, and no attempt reported.
fn still_running(stream: &Stream) -> Vec<String> {
    stream
        .targets
        .iter()
        .filter(|(_, t)| t.test && t.attempts.is_empty() && t.built != Some(false))
        .map(|(l, _)| l.clone())
        .collect()
}

/// Bazel exited by itself: what its code and its stream say beside the targets' results.
fn exited(
    run: &mut Run,
    code: i32,
    stream: &Stream,
    not_run: &[String],
    requested: &[String],
    paths: &PathMap,
    tail: &dyn Fn() -> Option<String>,
) {
    let reasons = doubts(run, code, stream, not_run);
    if code == 1 && run.build_errors.is_empty() {
        build_failed_unspoken(run, stream, requested, paths, tail);
    }
    if code == 2 || code > 4 && code != 8 {
        run.status = Some(Status::RunnerFailed);
        run.tail = tail();
    }
    if !reasons.is_empty() {
        for r in reasons {
            add_reason(run, r);
        }
        run.tail = run.tail.take().or_else(tail);
    }
}

/// Why the run is not to be trusted green: test targets that did not run (where no build
/// error explains it), a stream cut short, an exit the stream contradicts.
fn doubts(run: &Run, code: i32, stream: &Stream, not_run: &[String]) -> Vec<String> {
    let mut reasons: Vec<String> = Vec::new();
    if !not_run.is_empty() && run.build_errors.is_empty() {
        reasons.push(format!(
            "{} test target{} did not run: {}",
            not_run.len(),
            if not_run.len() == 1 { "" } else { "s" },
            not_run.join(", ")
        ));
    }
    if !stream.complete {
        reasons.push("the build event stream ends before its last event".to_owned());
    }
    if let Some((name, bep_code)) = &stream.finished {
        if *bep_code != code {
            reasons.push(format!(
                "bazel exited {code}, its build events say {name} ({bep_code})"
            ));
        }
    }
    reasons
}

/// A build that failed where no compiler spoke: a BUILD file, or a requested target that
/// does not exist (not found, not a failed build).
fn build_failed_unspoken(
    run: &mut Run,
    stream: &Stream,
    requested: &[String],
    paths: &PathMap,
    tail: &dyn Fn() -> Option<String>,
) {
    let errors = bazel_errors(&stream.console, paths);
    // Bazel quotes the label it cannot find: `no such target '//a:b'`.
    let quotes = |e: &BuildError, id: &str| {
        split_id(id).is_some_and(|(t, _)| e.message.contains(&format!("'{t}'")))
    };
    let missing: Vec<&String> = requested
        .iter()
        .filter(|r| errors.iter().any(|e| quotes(e, r)))
        .collect();
    run.build_errors = errors
        .into_iter()
        .filter(|e| {
            !(missing.iter().any(|m| quotes(e, m))
                || e.message
                    .contains("there were errors parsing the target pattern"))
        })
        .collect();
    for m in missing {
        if !run.not_found.contains(m) {
            run.not_found.push(m.clone());
        }
    }
    if run.build_errors.is_empty() && run.not_found.is_empty() {
        run.status = Some(Status::BuildFailed);
        run.tail = tail();
    }
}

/// Requested ids only: a case asked for by `//t#case`, or every case of a target asked for
/// whole. What was asked and not reported is not found.
fn keep_requested(run: &mut Run, requested: &[String]) {
    let wanted = |id: &str| {
        requested
            .iter()
            .any(|r| r == id || (!r.contains('#') && selects(r, id)))
    };
    let before_failures = run.failures.len();
    run.failures.retain(|f| wanted(&f.test));
    let dropped_failures = before_failures - run.failures.len();
    let count = |run: &Run, o: pith_model::Outcome| {
        run.outcomes.iter().filter(|x| x.outcome == o).count() as u32
    };
    let (passed, skipped) = (
        count(run, pith_model::Outcome::Passed),
        count(run, pith_model::Outcome::Skipped),
    );
    run.outcomes.retain(|o| wanted(&o.test));
    run.passed = run
        .passed
        .saturating_sub(passed - count(run, pith_model::Outcome::Passed));
    run.skipped = run
        .skipped
        .saturating_sub(skipped - count(run, pith_model::Outcome::Skipped));
    run.failed = run.failed.saturating_sub(dropped_failures as u32);
    run.running
        .retain(|r| wanted(r) || requested.iter().any(|q| of_target(q, r)));
    let reported: Vec<&str> = run
        .outcomes
        .iter()
        .map(|o| o.test.as_str())
        .chain(run.failures.iter().map(|f| f.test.as_str()))
        .collect();
    run.not_found = requested
        .iter()
        .filter(|r| !reported.iter().any(|id| selects(r, id)))
        .cloned()
        .collect();
    if !run.running.is_empty() || run.status.is_some() {
        run.not_found
            .retain(|r| !run.running.iter().any(|x| r.starts_with(x.as_str())));
    }
}

fn add_reason(run: &mut Run, reason: String) {
    run.reason = Some(match run.reason.take() {
        Some(r) => format!("{r}; {reason}"),
        None => reason,
    });
}

/// Bazel's status names as words.
fn words(status: &str) -> String {
    status.to_ascii_lowercase().replace('_', " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::End;
    use pith_model::{Failure, TestOutcome};

    fn judged(bep: &str, end: End, requested: &[&str]) -> Run {
        let paths = PathMap::new(&std::env::temp_dir());
        let requested: Vec<String> = requested.iter().map(|s| s.to_string()).collect();
        super::super::judged_stream(bep.as_bytes(), end, &paths, &requested)
    }

    const PASSED_TARGET: &str = r#"{"id":{"targetConfigured":{"label":"//a:t"}},"configured":{"targetKind":"sh_test rule"}}
{"id":{"targetCompleted":{"label":"//a:t"}},"completed":{"success":true}}
{"id":{"testResult":{"label":"//a:t","run":1,"shard":1,"attempt":1}},"testResult":{"status":"PASSED","cachedLocally":true}}
{"id":{"testSummary":{"label":"//a:t"}},"testSummary":{"overallStatus":"PASSED"}}
"#;
    const FINISHED: &str = r#"{"id":{"buildFinished":{}},"finished":{"exitCode":{"name":"SUCCESS","code":0}}}
{"id":{"progress":{"opaqueCount":9}},"progress":{},"lastMessage":true}
"#;

    #[test]
    fn green_needs_every_test_target_a_result() {
        let run = judged(&format!("{PASSED_TARGET}{FINISHED}"), End::Exited(0), &[]);
        assert_eq!(run.status(), Status::TestsPassed);
        assert_eq!((run.passed, run.cached, run.remote), (1, 1, 0));

        let no_status = r#"{"id":{"targetConfigured":{"label":"//b:t"}},"configured":{"targetKind":"cc_test rule"}}
{"id":{"testResult":{"label":"//b:t","run":1,"shard":1,"attempt":1}},"testResult":{"status":"NO_STATUS"}}
"#;
        let run = judged(
            &format!("{PASSED_TARGET}{no_status}{FINISHED}"),
            End::Exited(0),
            &[],
        );
        assert_ne!(run.status(), Status::TestsPassed, "{run:?}");
        assert!(
            run.doubt().unwrap().contains("//b:t (no status)"),
            "{:?}",
            run.doubt()
        );

        let never = r#"{"id":{"targetConfigured":{"label":"//c:t"}},"configured":{"targetKind":"py_test rule","testSize":"SMALL"}}
"#;
        let run = judged(
            &format!("{PASSED_TARGET}{never}{FINISHED}"),
            End::Exited(0),
            &[],
        );
        assert_ne!(run.status(), Status::TestsPassed);
    }

    #[test]
    fn a_stream_cut_short_or_an_exit_it_contradicts_is_not_green() {
        let run = judged(PASSED_TARGET, End::Exited(0), &[]);
        assert_ne!(run.status(), Status::TestsPassed);
        assert!(run.doubt().unwrap().contains("before its last event"));

        let run = judged(&format!("{PASSED_TARGET}{FINISHED}"), End::Exited(3), &[]);
        assert_ne!(run.status(), Status::TestsPassed, "bazel's exit 3 is red");

        let interrupted = FINISHED.replace(
            r#""name":"SUCCESS","code":0"#,
            r#""name":"INTERRUPTED","code":8"#,
        );
        let run = judged(
            &format!("{PASSED_TARGET}{interrupted}"),
            End::Exited(0),
            &[],
        );
        assert!(
            run.doubt().unwrap().contains("INTERRUPTED (8)"),
            "{:?}",
            run.doubt()
        );
    }

    #[test]
    fn a_failed_build_without_a_compiler_message_says_bazels_error() {
        let bep = r#"{"id":{"progress":{}},"progress":{"stderr":"ERROR: /nowhere/pkg/BUILD:3:1: name 'cc_tset' is not defined\n"}}
{"id":{"buildFinished":{}},"finished":{"exitCode":{"name":"BUILD_FAILURE","code":1}}}
{"id":{"progress":{}},"progress":{},"lastMessage":true}
"#;
        let run = judged(bep, End::Exited(1), &[]);
        assert_eq!(run.status(), Status::BuildFailed);
        assert_eq!(run.build_errors.len(), 1);
        assert!(run.build_errors[0].message.contains("cc_tset"));
    }

    #[test]
    fn stopped_at_the_deadline_names_the_test_targets_still_running() {
        let bep = r#"{"id":{"targetConfigured":{"label":"//h:t"}},"configured":{"targetKind":"cc_test rule"}}
{"id":{"targetCompleted":{"label":"//h:t"}},"completed":{"success":true}}
"#;
        let run = judged(&format!("{PASSED_TARGET}{bep}"), End::TimedOut, &[]);
        assert_eq!(run.status(), Status::TimedOut);
        assert_eq!(run.running, vec!["//h:t".to_owned()]);
    }

    #[test]
    fn a_shard_without_its_result_is_not_green() {
        // (Not from the cache, which replays the last attempt alone.)
        let summary = PASSED_TARGET
            .replace(
                r#""overallStatus":"PASSED""#,
                r#""overallStatus":"PASSED","totalRunCount":2"#,
            )
            .replace(r#","cachedLocally":true"#, "");
        let run = judged(&format!("{summary}{FINISHED}"), End::Exited(0), &[]);
        assert_ne!(run.status(), Status::TestsPassed, "{run:?}");
        assert!(
            run.doubt().unwrap().contains("Bazel counted 2 runs"),
            "{:?}",
            run.doubt()
        );
    }

    #[test]
    fn a_junit_report_gives_its_cases_under_the_label() {
        let dir = tempfile::tempdir().unwrap();
        let xml = dir.path().join("test.xml");
        std::fs::write(
            &xml,
            r#"<?xml version="1.0"?>
<testsuites><testsuite name="calc.CalcTest" tests="2" failures="1" errors="0">
<testcase name="adds" classname="calc.CalcTest" time="0.01"/>
<testcase name="divides" classname="calc.CalcTest" time="0.02"><failure message="expected:&lt;2&gt; but was:&lt;3&gt;" type="java.lang.AssertionError">java.lang.AssertionError: expected:&lt;2&gt; but was:&lt;3&gt;
	at calc.CalcTest.divides(CalcTest.java:14)</failure></testcase>
</testsuite></testsuites>"#,
        )
        .unwrap();
        let bep = format!(
            r#"{{"id":{{"targetConfigured":{{"label":"//java:calc_test"}}}},"configured":{{"targetKind":"java_test rule"}}}}
{{"id":{{"testResult":{{"label":"//java:calc_test","run":1,"shard":1,"attempt":1}}}},"testResult":{{"status":"FAILED","testActionOutput":[{{"name":"test.xml","uri":"file://{}"}}]}}}}
{{"id":{{"buildFinished":{{}}}},"finished":{{"exitCode":{{"name":"TESTS_FAILED","code":3}}}}}}
{{"id":{{"progress":{{}}}},"progress":{{}},"lastMessage":true}}
"#,
            xml.display()
        );
        let root = std::env::temp_dir();
        let src = tempfile::tempdir_in(&root).unwrap();
        let pkg = src.path().strip_prefix(&root).unwrap().join("java");
        std::fs::create_dir_all(root.join(&pkg)).unwrap();
        std::fs::write(root.join(&pkg).join("CalcTest.java"), "x\n".repeat(20)).unwrap();
        let label = format!("//{}:calc_test", pkg.display());
        let bep = bep.replace("//java:calc_test", &label);
        let run = judged(&bep, End::Exited(3), &[]);
        assert_eq!((run.passed, run.failed), (1, 1), "{run:?}");
        let f = &run.failures[0];
        assert_eq!(f.test, format!("{label}#calc.CalcTest#divides"));
        assert_eq!(
            f.frames
                .iter()
                .map(|f| format!("{}:{}", f.file, f.line))
                .collect::<Vec<_>>(),
            [format!("{}/CalcTest.java:14", pkg.display())]
        );
        assert_eq!(f.message, "expected:<2> but was:<3>");
        assert_eq!(f.kind.as_deref(), Some("java.lang.AssertionError"));
        assert_eq!(run.outcomes[0].test, format!("{label}#calc.CalcTest#adds"));
        // A report cut off mid-way is never green, whatever its cases say.
        let full = std::fs::read_to_string(&xml).unwrap();
        std::fs::write(
            &xml,
            &full[..full.find("<testcase name=\"divides\"").unwrap()],
        )
        .unwrap();
        let run = judged(&bep, End::Exited(3), &[]);
        assert!(
            run.doubt().unwrap().contains("ends early"),
            "{:?}",
            run.doubt()
        );
        std::fs::write(&xml, full).unwrap();
        // Asked for one case, the rest of the report is left out.
        let run = judged(
            &bep,
            End::Exited(3),
            &[&format!("{label}#calc.CalcTest#adds")],
        );
        assert_eq!((run.passed, run.failed), (1, 0), "{run:?}");
    }

    #[test]
    fn a_remote_executor_is_said() {
        let remote = PASSED_TARGET.replace(
            r#""cachedLocally":true"#,
            r#""executionInfo":{"strategy":"remote"}"#,
        );
        let run = judged(&format!("{remote}{FINISHED}"), End::Exited(0), &[]);
        assert_eq!((run.cached, run.remote), (0, 1));
        assert_eq!(run.status(), Status::TestsPassed);
    }

    #[test]
    fn only_requested_ids_are_kept_the_rest_not_found() {
        let mut run = Run::new("bazel");
        run.passed = 2;
        run.failed = 1;
        run.outcomes = vec![
            TestOutcome::passed("//a:t#S.One", None),
            TestOutcome::passed("//b:t#S.Two", None),
        ];
        run.failures = vec![Failure {
            test: "//a:t#S.Bad".into(),
            ..Failure::default()
        }];
        keep_requested(
            &mut run,
            &["//a:t#S.Bad".into(), "//b:t".into(), "//c:t#Gone".into()],
        );
        assert_eq!(run.passed, 1);
        assert_eq!(run.failed, 1);
        assert_eq!(run.not_found, vec!["//c:t#Gone".to_owned()]);
    }
}
