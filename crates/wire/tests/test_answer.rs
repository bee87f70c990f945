//! Shapes and budgets of the `pith test` answer on synthetic reports; the same budgets are
//! asserted again on real runner output by the CLI's integration tests.

use std::time::Duration;

use pith_model::impact::{Baseline, Reach, Suspect, Suspects, Traceless};
use pith_model::{BuildError, Exit, ExitMeaning, Failure, Frame, Phase, Report, Run, Status};
use pith_wire::{
    test_answer, to_json, ANSWER_CEILING, GREEN_BUDGET, MANY_FAILURES_BUDGET, ONE_CAUSE_BUDGET,
    ONE_FAILURE_BUDGET,
};
use proptest::prelude::*;

fn frame(file: &str, line: u32, code: Option<&str>) -> Frame {
    Frame {
        file: file.into(),
        line,
        code: code.map(Into::into),
        project: true,
    }
}

fn lib_frame(file: &str, line: u32) -> Frame {
    Frame {
        file: file.into(),
        line,
        code: None,
        project: false,
    }
}

fn report(run: Run, secs: f64) -> Report {
    Report {
        runs: vec![run],
        duration: Duration::from_secs_f64(secs),
        ..Report::default()
    }
}

fn render(r: &Report) -> String {
    to_json(&test_answer(r))
}

/// Failures an answer accounts for: each shown one stands for its cause's `affected`.
fn accounted(answer: &pith_wire::TestAnswer) -> usize {
    let shown: usize = answer.failures.iter().map(|f| f.affected.max(1)).sum();
    let clustered: usize = answer.clusters.iter().map(|c| c.affected).sum();
    shown + clustered + answer.more_failures
}

#[test]
fn green() {
    let run = Run {
        selected: Some(768), // equal to what reported: says nothing, absent
        passed: 765,
        skipped: 3,
        ..Run::new("pytest")
    };
    let json = render(&report(run, 16.24));
    insta::assert_snapshot!(json, @r#"{"status":"TestsPassed","runner":"pytest","passed":765,"skipped":3,"durationS":16.2}"#);
    assert!(json.len() <= GREEN_BUDGET);
}

#[test]
fn snapshots_written_and_a_masked_exit_are_said_once() {
    let green = Run {
        passed: 2,
        snapshots_written: 1,
        ..Run::new("jest")
    };
    let json = render(&report(green, 1.0));
    insta::assert_snapshot!(json, @r#"{"status":"TestsPassed","runner":"jest","passed":2,"snapshotsWritten":1,"durationS":1.0}"#);
    let masked = Run {
        passed: 1,
        failed: 1,
        failures: vec![Failure {
            test: "a.test.js > b".into(),
            message: "boom".into(),
            ..Failure::default()
        }],
        masked: Some("npm test exits 0 over these failures".into()),
        ..Run::new("jest")
    };
    let json = render(&report(masked, 1.0));
    insta::assert_snapshot!(json, @r#"{"status":"TestsFailed","runner":"jest","passed":1,"failed":1,"durationS":1.0,"masked":"npm test exits 0 over these failures","failures":[{"test":"a.test.js > b","message":"boom"}]}"#);
}

#[test]
fn a_runner_that_says_red_without_a_failing_test_is_runner_failed_with_its_reason() {
    let run = Run {
        passed: 3,
        exit: Some(Exit::new(1, ExitMeaning::Failed)),
        tail: Some("FAIL Required test coverage of 90% not reached. Total coverage: 62.50%".into()),
        ..Run::new("pytest")
    };
    let json = render(&report(run, 1.94));
    insta::assert_snapshot!(json, @r#"{"status":"RunnerFailed","runner":"pytest","passed":3,"durationS":1.9,"reason":"pytest exited 1 though no test failed","tail":"FAIL Required test coverage of 90% not reached. Total coverage: 62.50%"}"#);

    let stopped = Run {
        selected: Some(3),
        passed: 1,
        exit: Some(Exit::new(0, ExitMeaning::Passed)),
        ..Run::new("jest")
    };
    let json = render(&report(stopped, 0.5));
    insta::assert_snapshot!(json, @r#"{"status":"RunnerFailed","runner":"jest","selected":3,"passed":1,"durationS":0.5,"reason":"2 of 3 selected tests never reported; jest exited 0"}"#);
}

#[test]
fn several_projects_of_one_runner_are_named_once_and_told_apart_by_dir() {
    let a = Run {
        passed: 1,
        dir: Some("a".into()),
        ..Run::new("pytest")
    };
    let b = Run {
        passed: 1,
        failed: 1,
        dir: Some("b".into()),
        failures: vec![Failure {
            test: "b/t.py::x".into(),
            message: "AssertionError".into(),
            frames: vec![frame("b/t.py", 3, None)],
            ..Failure::default()
        }],
        ..Run::new("pytest")
    };
    let json = to_json(&test_answer(&Report {
        runs: vec![a, b],
        duration: Duration::from_secs(1),
        ..Report::default()
    }));
    insta::assert_snapshot!(json, @r#"{"status":"TestsFailed","runner":"pytest","passed":2,"failed":1,"durationS":1.0,"failures":[{"test":"b/t.py::x","message":"AssertionError","frames":["b/t.py:3"]}],"runs":[{"runner":"pytest","dir":"a","status":"TestsPassed","passed":1},{"runner":"pytest","dir":"b","status":"TestsFailed","passed":1,"failed":1}]}"#);
}

#[test]
fn many_projects_list_the_ones_not_green_first_and_count_the_rest() {
    let mut runs: Vec<Run> = (0..8)
        .map(|i| Run {
            passed: 1,
            dir: Some(format!("mod{i}")),
            ..Run::new("go")
        })
        .collect();
    // A module without tests says why on its own account; that is not the answer's tail.
    runs.push(Run {
        dir: Some("assets".into()),
        tail: Some("no packages to test".into()),
        ..Run::new("go")
    });
    runs[6].failed = 1;
    runs[6].failures.push(Failure {
        test: "m/mod6.TestX".into(),
        message: "boom".into(),
        ..Failure::default()
    });
    let json = to_json(&test_answer(&Report {
        runs,
        duration: Duration::from_secs(2),
        ..Report::default()
    }));
    insta::assert_snapshot!(json, @r#"{"status":"TestsFailed","runner":"go","passed":8,"failed":1,"durationS":2.0,"failures":[{"test":"m/mod6.TestX","message":"boom"}],"runs":[{"runner":"go","dir":"mod6","status":"TestsFailed","passed":1,"failed":1},{"runner":"go","dir":"mod0","status":"TestsPassed","passed":1},{"runner":"go","dir":"mod1","status":"TestsPassed","passed":1},{"runner":"go","dir":"mod2","status":"TestsPassed","passed":1},{"runner":"go","dir":"mod3","status":"TestsPassed","passed":1},{"runner":"go","dir":"mod4","status":"TestsPassed","passed":1}],"moreRuns":3}"#);
}

/// Five failures, each with the same source line on its deepest frame; `distinct` gives each
/// its own error type, so each is its own cause.
fn long_failures(message: &str, code: &str, distinct: bool) -> Report {
    let kinds = [
        "XunitException",
        "TrueException",
        "FalseException",
        "EqualException",
        "NullException",
    ];
    let failures: Vec<Failure> = (0..5)
        .map(|i| Failure {
            test: format!("CalculatorTests.Even(i: {i})"),
            message: format!("{message} {i}"),
            kind: distinct.then(|| kinds[i].to_owned()),
            frames: vec![frame("tests/CalculatorTests.cs", 60 + i as u32, Some(code))],
            ..Failure::default()
        })
        .collect();
    let run = Run {
        failed: 5,
        failures,
        ..Run::new("dotnet")
    };
    report(run, 1.0)
}

const EVEN_CODE: &str =
    "Assert.True(i % 2 == 0 && Calculator.IsEven(i), $\"{i} should be even by now\");";

#[test]
fn a_few_failures_of_one_cause_are_one_failure_naming_the_others() {
    // The messages differ by a number and each test fails at its own line of one test file:
    // one cause, shown once, the other ids listed with where each broke.
    let json = render(&long_failures("Assert.True() Failure", EVEN_CODE, false));
    insta::assert_snapshot!(json, @r#"{"status":"TestsFailed","runner":"dotnet","failed":5,"durationS":1.0,"failures":[{"test":"CalculatorTests.Even(i: 0)","message":"Assert.True() Failure 0","frames":["tests/CalculatorTests.cs:60 Assert.True(i % 2 == 0 && Calculator.IsEven(i), $\"{i} should be even by now\");"],"affected":5,"others":["CalculatorTests.Even(i: 1)","CalculatorTests.Even(i: 2)","CalculatorTests.Even(i: 3)","CalculatorTests.Even(i: 4)"],"othersAt":["tests/CalculatorTests.cs:61","tests/CalculatorTests.cs:62","tests/CalculatorTests.cs:63","tests/CalculatorTests.cs:64"]}]}"#);
    assert!(json.len() <= ANSWER_CEILING, "{} bytes: {json}", json.len());
}

#[test]
fn a_few_causes_lose_their_source_lines_only_when_that_makes_them_fit() {
    // Without most source lines they fit: the lines go from the last cause first; ids,
    // messages and locations stay.
    let json = render(&long_failures("Assert.True() Failure", EVEN_CODE, true));
    assert!(
        json.len() <= MANY_FAILURES_BUDGET,
        "{} bytes: {json}",
        json.len()
    );
    assert_eq!(json.matches("Assert.True(i % 2").count(), 1, "{json}");
    assert!(
        json.contains("CalculatorTests.cs:60 Assert.True(i % 2"),
        "{json}"
    );
    for i in 1..5 {
        assert!(
            json.contains(&format!("CalculatorTests.cs:{}\"", 60 + i)),
            "{json}"
        );
        assert!(json.contains(&format!("(i: {i})")), "{json}");
        assert!(
            json.contains(&format!("Assert.True() Failure {i}")),
            "{json}"
        );
    }
    // Short enough with their lines: the lines stay.
    let json = render(&long_failures(
        "Assert.True() Failure",
        "Assert.True(IsEven(i));",
        true,
    ));
    assert_eq!(json.matches("Assert.True(IsEven(i))").count(), 5, "{json}");
    // Five long ones never fit in full: the biggest causes keep theirs, the rest are clusters,
    // every failure still counted, the answer within the ceiling.
    let long = "Assert.True() Failure (Expected: True, Actual: False): the value under test was \
                not even, as the test expected it to be, and so the assertion failed here";
    let answer = test_answer(&long_failures(long, EVEN_CODE, true));
    let json = to_json(&answer);
    assert!(json.len() <= ANSWER_CEILING, "{} bytes: {json}", json.len());
    assert_eq!(
        answer.failures.len() + answer.clusters.len() + answer.more_failures,
        5,
        "{json}"
    );
    assert!(answer.failures.len() >= 2, "{json}");
    // The room a failure in full gave up brings the biggest cause's source line back.
    assert!(
        answer.failures[0].frames[0].contains("Assert.True(i % 2"),
        "{json}"
    );
}

#[test]
fn a_duration_that_rounds_to_nothing_is_absent() {
    // A report file that recorded no time, and a run under 50 ms.
    for secs in [0.0, 0.04] {
        let run = Run {
            passed: 2,
            ..Run::new("junit")
        };
        let json = render(&report(run, secs));
        assert_eq!(
            json,
            r#"{"status":"TestsPassed","runner":"junit","passed":2}"#
        );
    }
}

#[test]
fn one_failure_shows_project_frames_deepest_first() {
    let failure = Failure {
        test: "tests/test_more.py::WindowedTests::test_basic".into(),
        message: "AssertionError: Lists differ: [(1, 2, 3), (4, 5, None)] != [(1, 2, 3), (4, 5)]"
            .into(),
        kind: Some("AssertionError".into()),
        frames: vec![
            lib_frame("/usr/lib/python3.11/unittest/case.py", 57),
            frame(
                "tests/test_more.py",
                512,
                Some("self.assertEqual(actual, expected)"),
            ),
            frame("tests/helpers.py", 9, Some("return list(w)")),
            lib_frame("/usr/lib/python3.11/unittest/case.py", 1079),
        ],
        ..Default::default()
    };
    let run = Run {
        passed: 764,
        failed: 1,
        failures: vec![failure],
        ..Run::new("pytest")
    };
    let json = render(&report(run, 16.4));
    insta::assert_snapshot!(json, @r#"{"status":"TestsFailed","runner":"pytest","passed":764,"failed":1,"durationS":16.4,"failures":[{"test":"tests/test_more.py::WindowedTests::test_basic","message":"AssertionError: Lists differ: [(1, 2, 3), (4, 5, None)] != [(1, 2, 3), (4, 5)]","frames":["tests/helpers.py:9 return list(w)","tests/test_more.py:512 self.assertEqual(actual, expected)"]}]}"#);
    assert!(json.len() <= ONE_FAILURE_BUDGET);
}

fn helper_failure(i: usize) -> Failure {
    Failure {
        test: format!("tests/test_more.py::test_case[{i}]"),
        message: "ValueError: maxlen must be non-negative".into(),
        kind: Some("ValueError".into()),
        frames: vec![
            frame("tests/test_more.py", 100 + i as u32, None),
            frame(
                "more_itertools/more.py",
                2736,
                Some("cache = deque(wrapper, maxlen=start)"),
            ),
        ],
        ..Default::default()
    }
}

#[test]
fn fifty_from_one_cause_are_one_failure_with_their_count() {
    let failures: Vec<Failure> = (0..50).map(helper_failure).collect();
    let run = Run {
        passed: 500,
        failed: 50,
        failures,
        ..Run::new("pytest")
    };
    let json = render(&report(run, 64.7));
    insta::assert_snapshot!(json, @r#"{"status":"TestsFailed","runner":"pytest","passed":500,"failed":50,"durationS":64.7,"failures":[{"test":"tests/test_more.py::test_case[0]","message":"ValueError: maxlen must be non-negative","frames":["more_itertools/more.py:2736 cache = deque(wrapper, maxlen=start)","tests/test_more.py:100"],"affected":50}]}"#);
    assert!(json.len() <= ONE_CAUSE_BUDGET, "{} bytes", json.len());
}

fn distinct_failure(i: usize) -> Failure {
    Failure {
        test: format!("tests/test_distinct_{:02}.py::test_value_{i}", i / 10),
        message: format!("AssertionError: assert {i} == {}", i + 1),
        kind: Some("AssertionError".into()),
        frames: vec![frame(
            &format!("tests/test_distinct_{:02}.py", i / 10),
            3 + i as u32 * 3,
            Some("assert value == expected"),
        )],
        ..Default::default()
    }
}

#[test]
fn hundred_distinct_failures_stay_in_budget_and_account_for_all() {
    let failures: Vec<Failure> = (0..100).map(distinct_failure).collect();
    let run = Run {
        failed: 100,
        failures,
        ..Run::new("pytest")
    };
    let answer = test_answer(&report(run, 3.0));
    let json = to_json(&answer);
    assert!(
        json.len() <= MANY_FAILURES_BUDGET,
        "{} bytes: {json}",
        json.len()
    );
    assert_eq!(answer.failures.len(), 3);
    assert_eq!(accounted(&answer), 100);
    insta::assert_snapshot!(json);
}

#[test]
fn setup_phase_and_flaky_are_named_only_when_true() {
    let f = Failure {
        test: "tests/test_db.py::test_query".into(),
        message: "RuntimeError: database unavailable".into(),
        kind: Some("RuntimeError".into()),
        frames: vec![frame(
            "tests/conftest.py",
            12,
            Some("raise RuntimeError(\"database unavailable\")"),
        )],
        phase: Phase::Setup,
        flaky: true,
        ..Failure::default()
    };
    let run = Run {
        passed: 2,
        failed: 1,
        failures: vec![f],
        ..Run::new("pytest")
    };
    let json = render(&report(run, 0.4));
    insta::assert_snapshot!(json, @r#"{"status":"TestsFailed","runner":"pytest","passed":2,"failed":1,"durationS":0.4,"failures":[{"test":"tests/test_db.py::test_query","message":"RuntimeError: database unavailable","frames":["tests/conftest.py:12 raise RuntimeError(\"database unavailable\")"],"phase":"setup","flaky":true}]}"#);
}

/// The project's own retry policy re-ran a test that failed once: green, and the failed
/// attempt is listed (id, first message line, deepest project frame), never in `failed`.
#[test]
fn a_test_that_passed_on_a_retry_is_listed_as_flaky_on_a_green_answer() {
    let attempt = |i: usize| Failure {
        test: format!("com.acme.cart.CheckoutTest#reservesStock{i}"),
        message: "AssertionFailedError: expected: <3> but was: <2>\n\tat org.junit...".into(),
        kind: Some("AssertionFailedError".into()),
        frames: vec![
            frame(
                "src/test/java/com/acme/cart/CheckoutTest.java",
                21,
                Some("assertEquals(3, stock.left());"),
            ),
            frame(
                "src/main/java/com/acme/cart/Stock.java",
                58,
                Some("return left - held;"),
            ),
        ],
        ..Failure::default()
    };
    let run = Run {
        passed: 412,
        flaky: vec![attempt(1)],
        exit: Some(Exit::new(0, ExitMeaning::Passed)),
        ..Run::new("maven")
    };
    let json = render(&report(run.clone(), 31.0));
    insta::assert_snapshot!(json, @r#"{"status":"TestsPassed","runner":"maven","passed":412,"durationS":31.0,"flaky":[{"test":"com.acme.cart.CheckoutTest#reservesStock1","message":"AssertionFailedError: expected: <3> but was: <2>","frames":["src/main/java/com/acme/cart/Stock.java:58 return left - held;"]}]}"#);
    // Many: the first few, the rest counted.
    let many = Run {
        flaky: (0..7).map(attempt).collect(),
        ..run
    };
    let answer = test_answer(&report(many, 31.0));
    assert_eq!((answer.flaky.len(), answer.more_flaky), (3, 4));
    assert!(to_json(&answer).contains(r#""moreFlaky":4"#));
}

/// The declared command hides failures from its exit (`maven.test.failure.ignore`): the run
/// is red all the same, and the answer says the command itself would exit 0.
#[test]
fn a_masked_red_run_stays_red_and_says_why_the_command_would_exit_zero() {
    let run = Run {
        passed: 3,
        failed: 1,
        failures: vec![Failure {
            test: "demo.CalcTest#adds".into(),
            message: "AssertionFailedError: expected: <4> but was: <5>".into(),
            frames: vec![frame("src/test/java/demo/CalcTest.java", 9, None)],
            ..Failure::default()
        }],
        masked: Some("maven.test.failure.ignore".into()),
        exit: Some(Exit::new(0, ExitMeaning::Passed)),
        ..Run::new("maven")
    };
    let json = render(&report(run, 4.2));
    insta::assert_snapshot!(json, @r#"{"status":"TestsFailed","runner":"maven","passed":3,"failed":1,"durationS":4.2,"masked":"maven.test.failure.ignore","failures":[{"test":"demo.CalcTest#adds","message":"AssertionFailedError: expected: <4> but was: <5>","frames":["src/test/java/demo/CalcTest.java:9"]}]}"#);
}

/// Several projects whose commands each hide failures, in an answer that cannot fit: their
/// `masked` reasons give way to the first one and the ladder ends (it once kept cutting the
/// already-cut reason and never returned).
#[test]
fn many_masked_projects_over_the_ceiling_end_with_the_first_reason() {
    let runs: Vec<Run> = (0..7)
        .map(|p| Run {
            dir: Some(format!("packages/p{p}")),
            passed: 1,
            failed: 1,
            failures: vec![Failure {
                test: format!("p{p}.test.js > case"),
                message: format!("Error {p}: {}", "x".repeat(300)),
                frames: vec![frame(&format!("packages/p{p}/a.test.js"), 3, None)],
                ..Failure::default()
            }],
            hint: Some("h".repeat(300)),
            masked: Some(format!("p{p}: || true")),
            // A name nothing can cut: the answer never fits, so every step of the ladder runs.
            ..Run::new("j".repeat(ANSWER_CEILING))
        })
        .collect();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(render(&Report {
            runs,
            duration: Duration::from_secs(1),
            ..Report::default()
        }));
    });
    let json = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("shaping ended within 30 s");
    assert!(json.contains(r#""masked":"p0: || true; …""#), "{json}");
}

#[test]
fn build_errors_are_deduplicated_and_capped() {
    let mut errors: Vec<BuildError> = (0..7)
        .map(|i| BuildError {
            file: Some("src/lib.rs".into()),
            line: Some(10 + i),
            code: Some("E0308".into()),
            message: "mismatched types".into(),
        })
        .collect();
    errors.push(errors[0].clone());
    let run = Run {
        build_errors: errors,
        ..Run::new("nextest")
    };
    let answer = test_answer(&report(run, 1.2));
    assert_eq!(answer.status, Status::BuildFailed.name());
    assert_eq!(answer.build_errors.len(), 5);
    assert_eq!(answer.more_build_errors, 2);
    insta::assert_snapshot!(to_json(&answer));
}

#[test]
fn timeout_names_the_running_test_and_keeps_the_tail() {
    let run = Run {
        status: Some(Status::TimedOut),
        selected: Some(10),
        passed: 3,
        running: vec!["tests/test_slow.py::test_hangs".into()],
        tail: Some("tests/test_slow.py:4: in test_hangs\n    time.sleep(3600)".into()),
        ..Run::new("pytest")
    };
    insta::assert_snapshot!(render(&report(run, 5.0)), @r#"{"status":"TimedOut","runner":"pytest","selected":10,"passed":3,"durationS":5.0,"running":["tests/test_slow.py::test_hangs"],"tail":"tests/test_slow.py:4: in test_hangs\n    time.sleep(3600)"}"#);
}

#[test]
fn several_runners_get_per_runner_counts() {
    let a = Run {
        passed: 4,
        ..Run::new("nextest")
    };
    let b = Run {
        passed: 2,
        failed: 1,
        failures: vec![distinct_failure(1)],
        ..Run::new("pytest")
    };
    let r = Report {
        runs: vec![a, b],
        duration: Duration::from_secs(2),
        ..Report::default()
    };
    insta::assert_snapshot!(render(&r), @r#"{"status":"TestsFailed","runner":"nextest,pytest","passed":6,"failed":1,"durationS":2.0,"failures":[{"test":"tests/test_distinct_00.py::test_value_1","message":"AssertionError: assert 1 == 2","frames":["tests/test_distinct_00.py:6 assert value == expected"]}],"runs":[{"runner":"nextest","status":"TestsPassed","passed":4},{"runner":"pytest","status":"TestsFailed","passed":2,"failed":1}]}"#);
}

/// Failures of a few shapes: a message of any length and lines (a few templates, so causes
/// repeat, or free text), any frames, new/failing-for flags.
fn arb_failure() -> impl Strategy<Value = Failure> {
    (
        "[a-z_/]{1,60}\\.py::test_[a-z0-9_\\[\\]-]{1,40}",
        prop_oneof![
            "[ -~]{0,600}",
            "(AssertionError: assert [0-9]{1,4} == [0-9]{1,4})",
            "(got [0-9.]{1,8}, want [0-9.]{1,8}\n[ -~\n]{0,300})",
        ],
        prop::option::of(prop::sample::select(vec![
            "AssertionError",
            "ValueError",
            "panic",
        ])),
        prop::collection::vec(
            (
                "(tests/test_[a-z]{1,3}|src/[a-z_/]{1,50})\\.py",
                1u32..5000,
                prop::option::of("[ -~]{0,200}"),
                any::<bool>(),
            ),
            0..12,
        ),
        prop::sample::select(vec![Phase::Call, Phase::Setup, Phase::Teardown]),
        any::<bool>(),
        prop::sample::select(vec![0u32, 0, 2, 3]),
        prop::option::of(arb_suspect()),
    )
        .prop_map(
            |(test, message, kind, frames, phase, new, failing_for, suspect)| Failure {
                test,
                message,
                kind: kind.map(Into::into),
                frames: frames
                    .into_iter()
                    .map(|(file, line, code, project)| Frame {
                        file,
                        line,
                        code,
                        project,
                    })
                    .collect(),
                phase,
                new,
                failing_for,
                suspect,
                ..Failure::default()
            },
        )
}

/// A changed line of any length, in a file of any depth.
fn arb_suspect() -> impl Strategy<Value = Suspect> {
    ("src/[a-z_/]{1,60}\\.py", 1u32..99999, "[ -~]{0,200}")
        .prop_map(|(file, line, source)| Suspect { file, line, source })
}

/// Text of any length and lines, for tails, hints and the like.
fn arb_text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec("[ -~]{0,200}", 0..max).prop_map(|lines| lines.join("\n"))
}

/// A project's run of any shape: failures, build errors, running tests, a tail, a verdict.
fn arb_run() -> impl Strategy<Value = Run> {
    (
        (
            prop::sample::select(vec!["pytest", "cargo", "go", "jest", "maven", "ctest"]),
            prop::option::of("[a-z/]{1,40}"),
            prop::option::of(prop::sample::select(vec![
                Status::TestsFailed,
                Status::RunnerFailed,
                Status::CollectionFailed,
                Status::BuildFailed,
                Status::Crashed,
                Status::TimedOut,
                Status::NoTestsRan,
                Status::TestsPassed,
            ])),
            0u32..2000,
            prop::collection::vec(arb_failure(), 0..40),
        ),
        (
            prop::collection::vec(
                ("[a-z/]{1,40}\\.rs", 1u32..900, "[ -~]{1,500}").prop_map(
                    |(file, line, message)| BuildError {
                        file: Some(file),
                        line: Some(line),
                        code: Some("E0308".into()),
                        message,
                    },
                ),
                0..10,
            ),
            prop::collection::vec("[a-z_:]{1,80}", 0..40),
            prop::collection::vec("[a-z_:]{1,80}", 0..20),
            prop::option::of(arb_text(60)),
            prop::option::of("[ -~]{1,400}"),
            prop::option::of("[ -~]{1,400}"),
        ),
        (
            prop::collection::vec(arb_failure(), 0..6),
            prop::option::of(prop::sample::select(vec![
                "maven.test.failure.ignore",
                "testFailureIgnore",
                "|| true",
            ])),
        ),
    )
        .prop_map(
            |(
                (runner, dir, status, passed, failures),
                (build_errors, running, not_found, tail, hint, lacks),
                (flaky, masked),
            )| Run {
                dir,
                status,
                passed,
                failed: failures.len() as u32,
                failures,
                build_errors,
                running,
                not_found,
                tail,
                hint,
                lacks,
                flaky,
                masked: masked.map(Into::into),
                ..Run::new(runner)
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever the runs (any number of projects, failures, causes, build errors, running
    /// tests, tails, any message and source-line lengths), for every status: the answer is
    /// within the ceiling, every failure is accounted for, and a shown failure keeps its id,
    /// the start of its message's first line and its deepest project frame.
    #[test]
    fn every_answer_is_within_the_ceiling_and_accounts_for_every_failure(
        runs in prop::collection::vec(arb_run(), 1..8),
        suspects in prop::collection::vec(arb_suspect(), 0..4),
        tied in 1usize..4,
    ) {
        let tied = tied.min(suspects.len().max(1));
        let first_tied: Vec<String> = suspects.iter().take(tied).map(Suspect::location).collect();
        let all: Vec<Failure> = runs.iter().flat_map(|r| r.failures.clone()).collect();
        let flaky = runs.iter().map(|r| r.flaky.len()).sum::<usize>();
        let steady: Vec<Run> = runs.iter().cloned().map(|r| Run { flaky: Vec::new(), ..r }).collect();
        let first_suspect = suspects.first().map(Suspect::location);
        let suspects = (!suspects.is_empty()).then_some(Suspects {
            reach: Reach::Static,
            baseline: Baseline::LastPass,
            lines: suspects,
            tied,
            traceless: Some(Traceless::Unneeded),
        });
        let without = test_answer(&Report { runs: steady, duration: Duration::from_secs(3), suspects: suspects.clone(), ..Report::default() });
        let answer = test_answer(&Report { runs, duration: Duration::from_secs(3), suspects, ..Report::default() });
        let json = to_json(&answer);
        prop_assert!(json.len() <= ANSWER_CEILING, "{} bytes: {}", json.len(), json);
        prop_assert_eq!(accounted(&answer), all.len(), "{}", json);
        // Every test that passed on a retry is listed or counted, and while one is still
        // listed no failure has given way to it.
        prop_assert_eq!(answer.flaky.len() + answer.more_flaky, flaky, "{}", json);
        if !answer.flaky.is_empty() {
            prop_assert_eq!(to_json(&answer.failures), to_json(&without.failures), "{}", json);
            prop_assert_eq!(to_json(&answer.clusters), to_json(&without.clusters), "{}", json);
        }
        // The best suspect is the last thing a failure's shaping lets go of: its place stays,
        // and so do the places of those tied with it.
        if let (Some(first), false) = (&first_suspect, all.is_empty()) {
            prop_assert!(answer.suspects.first().is_some_and(|s| s.starts_with(first.as_str())), "{}", json);
            prop_assert_eq!(answer.reach, Some("static"));
            for (at, kept) in first_tied.iter().zip(&answer.suspects) {
                prop_assert!(kept.starts_with(at.as_str()), "{}", json);
            }
            // Those tied with it go only when every other failure has given way.
            if answer.suspects.len() < first_tied.len() {
                prop_assert!(answer.failures.len() <= 1 && answer.clusters.is_empty(), "{}", json);
            }
        }
        // Ids before prose: while a failing test goes unnamed, no message is longer than its
        // last cut.
        let named = answer.failures.iter().map(|f| f.others.len() + 1).sum::<usize>()
            + answer.clusters.iter().map(|c| c.tests.len()).sum::<usize>();
        if named < all.len() {
            for text in answer.failures.iter().map(|f| &f.message).chain(answer.clusters.iter().map(|c| &c.error)) {
                prop_assert!(text.chars().count() <= 101, "{:?} in {}", text, json);
            }
        }
        for shown in &answer.failures {
            let original = all.iter().find(|f| f.test == shown.test).unwrap();
            let kept = shown.message.trim_end_matches('…').trim_end();
            prop_assert!(original.message.contains(kept), "{:?} / {:?}", kept, original.message);
            let first = original.message.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim_end();
            // At least its first 100 characters (a cut drops the spaces it ends on).
            let least: String = first.chars().take(100).collect();
            prop_assert!(kept.len() >= least.trim_end().len(), "{:?} / {:?}", kept, first);
            if let Some(deepest) = original.top_project_frame() {
                prop_assert!(shown.frames[0].starts_with(&deepest.location()), "{}", json);
            }
        }
    }
}

/// A .NET run whose collection error is a 400-character sentence, beside three failing tests
/// and a raw tail of the runner's own `[FAIL]` lines: the sentence is cut and the tail gives
/// way before any failing test goes unnamed.
#[test]
fn long_prose_gives_way_before_a_failing_test_goes_unnamed() {
    let sentence = format!(
        "System.InvalidOperationException: {}",
        "the test host could not load the assembly because a dependency is missing; ".repeat(5)
    );
    let mut failures = vec![Failure {
        test: "DotnetTests.Unit.Fixtures".into(),
        phase: Phase::Collect,
        message: sentence,
        ..Failure::default()
    }];
    failures.extend((0..3).map(|i| Failure {
        test: format!("DotnetTests.Unit.CalculatorTests.Case_{i}_Fails"),
        message: format!("Assert.Equal() Failure (Expected: {i}, Actual: 9)"),
        frames: vec![frame("DotnetTests.Unit/CalculatorTests.cs", 10 + i, None)],
        ..Failure::default()
    }));
    let tail = (0..12)
        .map(|i| format!("[xUnit.net 00:00:00.{i:02}]     DotnetTests.Unit.CalculatorTests.Case_{i}_Fails [FAIL]"))
        .collect::<Vec<_>>()
        .join("\n");
    let run = Run {
        failed: 4,
        failures,
        tail: Some(tail),
        ..Run::new("dotnet")
    };
    let answer = test_answer(&report(run, 2.0));
    let json = to_json(&answer);
    assert!(json.len() <= ANSWER_CEILING, "{}", json);
    assert!(json.contains("DotnetTests.Unit.Fixtures"), "{}", json);
    for i in 0..3 {
        assert!(json.contains(&format!("Case_{i}_Fails\"")), "{}", json);
    }
    assert_eq!(answer.more_failures, 0, "{}", json);
}

/// Eight failures through one assertion helper, each message with its own value.
fn version_failure(i: usize) -> Failure {
    Failure {
        test: format!("tests/test_versions.py::test_parse[{i}]"),
        message: format!("AssertionError: got {i}.{}.2, want 2.0.0", i * 3),
        kind: Some("AssertionError".into()),
        frames: vec![
            frame("tests/test_versions.py", 40 + i as u32, None),
            frame(
                "tests/helpers.py",
                12,
                Some("assert got == want, f\"got {got}, want {want}\""),
            ),
        ],
        new: true,
        ..Failure::default()
    }
}

#[test]
fn failures_with_values_in_their_messages_are_one_cause_and_shared_flags_are_said_once() {
    // Reported in any order, the representative is the same: the smallest id.
    let mut failures: Vec<Failure> = (0..8).map(version_failure).collect();
    failures.reverse();
    let mut other = version_failure(9);
    other.message = "TypeError: expected str, got int".into();
    other.kind = Some("TypeError".into());
    other.test = "tests/test_versions.py::test_type".into();
    failures.push(other);
    let run = Run {
        failed: 9,
        failures,
        ..Run::new("pytest")
    };
    let answer = test_answer(&report(run, 1.0));
    let json = to_json(&answer);
    insta::assert_snapshot!(json, @r#"{"status":"TestsFailed","runner":"pytest","failed":9,"durationS":1.0,"new":true,"failures":[{"test":"tests/test_versions.py::test_parse[0]","message":"AssertionError: got 0.0.2, want 2.0.0","frames":["tests/helpers.py:12 assert got == want, f\"got {got}, want {want}\""],"affected":8,"others":["tests/test_versions.py::test_parse[1]","tests/test_versions.py::test_parse[2]","tests/test_versions.py::test_parse[3]","tests/test_versions.py::test_parse[4]","tests/test_versions.py::test_parse[5]","tests/test_versions.py::test_parse[6]","tests/test_versions.py::test_parse[7]"]},{"test":"tests/test_versions.py::test_type","message":"TypeError: expected str, got int","frames":["tests/helpers.py:12 assert got == want, f\"got {got}, want {want}\""]}]}"#);
    assert_eq!(accounted(&answer), 9);
    assert!(
        answer.new && answer.failures.iter().all(|f| !f.new),
        "{json}"
    );
}

#[test]
fn running_tests_are_capped_and_counted() {
    let run = Run {
        status: Some(Status::TimedOut),
        selected: Some(40),
        passed: 6,
        running: (0..34).map(|i| format!("tests::case_{i:02}")).collect(),
        ..Run::new("cargo")
    };
    let answer = test_answer(&report(run, 60.0));
    assert_eq!(
        answer.running,
        ["tests::case_00", "tests::case_01", "tests::case_02"]
    );
    assert_eq!(answer.more_running, 31);
}

#[test]
fn a_long_tail_keeps_its_end_within_the_ceiling() {
    let lines: Vec<String> = (0..20)
        .map(|i| format!("line {i}: {}", "x".repeat(90)))
        .collect();
    let run = Run {
        status: Some(Status::Crashed),
        failed: 12,
        failures: (0..12).map(distinct_failure).collect(),
        tail: Some(format!(
            "{}\nSegmentation fault (core dumped)",
            lines.join("\n")
        )),
        ..Run::new("pytest")
    };
    let answer = test_answer(&report(run, 1.0));
    let json = to_json(&answer);
    assert!(json.len() <= ANSWER_CEILING, "{} bytes: {json}", json.len());
    let tail = answer.tail.as_deref().unwrap();
    assert!(
        tail.starts_with("…\n") && tail.ends_with("Segmentation fault (core dumped)"),
        "{tail}"
    );
    assert_eq!(accounted(&answer), 12);
}

#[test]
fn panics_without_a_place_join_the_one_re_run_with_backtraces() {
    // Plain cargo re-ran one member of the cause (the smallest id) with backtraces; the other
    // 28 panicked inside the standard library with no project frame.
    let failure = |i: usize, frames: Vec<Frame>| Failure {
        test: format!("std_panic tests::drops_{i:02}"),
        message: format!(
            "range end index {} out of range for slice of length 4",
            5 + i % 3
        ),
        kind: Some("panic".into()),
        frames,
        ..Failure::default()
    };
    let mut failures: Vec<Failure> = (1..29)
        .map(|i| failure(i, vec![lib_frame("library/core/src/slice/index.rs", 99)]))
        .collect();
    failures.push(failure(
        0,
        vec![
            frame("src/lib.rs", 78, None),
            frame("src/lib.rs", 7, Some("v.drain(..n)")),
        ],
    ));
    let run = Run {
        failed: 29,
        failures,
        ..Run::new("cargo")
    };
    let answer = test_answer(&report(run, 1.0));
    let json = to_json(&answer);
    assert_eq!(answer.failures.len(), 1, "{json}");
    assert_eq!(
        answer.failures[0].test, "std_panic tests::drops_00",
        "{json}"
    );
    assert_eq!(answer.failures[0].affected, 29, "{json}");
    assert_eq!(
        answer.failures[0].frames[0], "src/lib.rs:7 v.drain(..n)",
        "{json}"
    );
}

#[test]
fn room_the_tail_did_not_take_goes_back_to_clusters() {
    // apache/commons-cli with a broken option validator: 73 failures of one cause, two test
    // classes that could not load, and a tail that says why the class could not initialize.
    let illegal = |i: usize| Failure {
        test: format!("org.apache.commons.cli.ApplicationTest#test{i:02}"),
        message: format!(
            "IllegalArgumentException: The option 'opt{i}' contains an illegal character : 'e'."
        ),
        kind: Some("IllegalArgumentException".into()),
        frames: vec![
            frame(
                "src/test/java/org/apache/commons/cli/ApplicationTest.java",
                40 + i as u32,
                None,
            ),
            frame(
                "src/main/java/org/apache/commons/cli/OptionValidator.java",
                140,
                None,
            ),
        ],
        ..Failure::default()
    };
    let collect = |class: &str, message: &str, kind: &str| Failure {
        test: format!("src/test/java/org/apache/commons/cli/{class}.java"),
        message: message.into(),
        kind: Some(kind.into()),
        phase: Phase::Collect,
        frames: vec![
            frame(
                &format!("src/test/java/org/apache/commons/cli/{class}.java"),
                34,
                None,
            ),
            frame(
                "src/main/java/org/apache/commons/cli/OptionValidator.java",
                140,
                None,
            ),
        ],
        ..Failure::default()
    };
    let mut failures: Vec<Failure> = (0..73).map(illegal).collect();
    failures.push(collect("SolrCliTest", "java.lang.ExceptionInInitializerError\nCaused by: java.lang.IllegalArgumentException: The option 'zkHost' contains an illegal character : 'k'.", "ExceptionInInitializerError"));
    failures.push(collect("SolrCreateToolTest", "java.lang.NoClassDefFoundError: Could not initialize class org.apache.commons.cli.SolrCliTest\nCaused by: java.lang.ExceptionInInitializerError", "NoClassDefFoundError"));
    let run = Run {
        status: Some(Status::CollectionFailed),
        passed: 854,
        failed: 73,
        failures,
        tail: Some("Caused by: java.lang.ExceptionInInitializerError: Exception java.lang.IllegalArgumentException: The option 'zkHost' contains an illegal character : 'k'. [in thread \"main\"]".into()),
        ..Run::new("maven")
    };
    let answer = test_answer(&report(run, 30.0));
    let json = to_json(&answer);
    assert!(json.len() <= ANSWER_CEILING, "{} bytes: {json}", json.len());
    assert_eq!(accounted(&answer), 75);
    assert!(
        json.contains("SolrCliTest") && answer.tail.is_some(),
        "{json}"
    );
}

#[test]
fn members_that_broke_at_lines_of_their_own_say_where() {
    // Go's t.Helper(): each failure is reported at its own test's call of the helper.
    let failures: Vec<Failure> = (0..4)
        .map(|i| Failure {
            test: format!("example.com/v.TestVersion{i}"),
            message: format!("got {i}.4.0, want 2.0.0"),
            frames: vec![frame("versions_test.go", 13 + 4 * i as u32, None)],
            ..Failure::default()
        })
        .collect();
    let run = Run {
        failed: 4,
        failures,
        ..Run::new("go")
    };
    let answer = test_answer(&report(run, 1.0));
    let f = &answer.failures[0];
    assert_eq!((f.affected, f.others.len()), (4, 3));
    assert_eq!(
        f.others_at,
        [
            "versions_test.go:17",
            "versions_test.go:21",
            "versions_test.go:25"
        ]
    );
    // Where every member broke at one line, the line is said once.
    assert!(test_answer(&report(
        Run {
            failed: 3,
            failures: (0..3).map(version_failure).collect(),
            ..Run::new("pytest")
        },
        1.0
    ))
    .failures[0]
        .others_at
        .is_empty());
}

#[test]
fn suspects_lead_and_a_cause_names_its_own_only_when_it_differs() {
    let helper = Suspect {
        file: "src/shop/money.py".into(),
        line: 9,
        source: "return amount >= 0".into(),
    };
    let other = Suspect {
        file: "src/shop/cart.py".into(),
        line: 7,
        source: "return sum(cents(p) for p in prices)".into(),
    };
    let failure = |test: &str, message: &str, suspect: &Suspect| Failure {
        test: test.into(),
        message: message.into(),
        kind: Some("AssertionError".into()),
        frames: vec![frame(
            "tests/test_cart.py",
            5,
            Some("assert total([1.0]) == 100"),
        )],
        suspect: Some(suspect.clone()),
        ..Failure::default()
    };
    let run = Run {
        failed: 2,
        failures: vec![
            failure(
                "tests/test_cart.py::test_a",
                "AssertionError: assert 3 == 1",
                &helper,
            ),
            failure(
                "tests/test_cart.py::test_b",
                "TypeError: bad operand",
                &other,
            ),
        ],
        ..Run::new("pytest")
    };
    let mut r = report(run, 1.0);
    r.suspects = Some(Suspects {
        reach: Reach::Static,
        baseline: Baseline::LastPass,
        lines: vec![helper.clone(), other.clone()],
        tied: 1,
        traceless: Some(Traceless::Unsupported),
    });
    insta::assert_snapshot!(render(&r), @r#"{"status":"TestsFailed","runner":"pytest","failed":2,"durationS":1.0,"suspects":["src/shop/money.py:9 return amount >= 0","src/shop/cart.py:7 return sum(cents(p) for p in prices)"],"reach":"static","traceless":"unsupported","baseline":"lastPass","failures":[{"test":"tests/test_cart.py::test_a","message":"AssertionError: assert 3 == 1","frames":["tests/test_cart.py:5 assert total([1.0]) == 100"]},{"test":"tests/test_cart.py::test_b","message":"TypeError: bad operand","frames":["tests/test_cart.py:5 assert total([1.0]) == 100"],"suspect":"src/shop/cart.py:7"}]}"#);
}
