//! Shapes and budgets of the `pith test` answer on synthetic reports; the same budgets are
//! asserted again on real runner output by the CLI's integration tests.

use std::time::Duration;

use pith_model::{BuildError, Exit, ExitMeaning, Failure, Frame, Phase, Report, Run, Status};
use pith_wire::{
    test_answer, to_json, GREEN_BUDGET, MANY_FAILURES_BUDGET, ONE_CAUSE_BUDGET, ONE_FAILURE_BUDGET,
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

/// Five distinct failures, each with the same source line on its deepest frame.
fn long_failures(message: &str, code: &str) -> Report {
    let failures: Vec<Failure> = (0..5)
        .map(|i| Failure {
            test: format!("CalculatorTests.Even(i: {i})"),
            message: format!("{message} {i}"),
            frames: vec![frame("tests/CalculatorTests.cs", 60 + i, Some(code))],
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

#[test]
fn a_few_failures_lose_their_source_lines_only_when_that_makes_them_fit() {
    let code = "Assert.True(i % 2 == 0 && Calculator.IsEven(i), $\"{i} should be even by now\");";
    // Without the source lines they fit: the lines go, ids, messages and locations stay.
    let json = render(&long_failures("Assert.True() Failure", code));
    assert!(
        json.len() <= MANY_FAILURES_BUDGET,
        "{} bytes: {json}",
        json.len()
    );
    assert!(!json.contains("Assert.True(i % 2"), "{json}");
    for i in 0..5 {
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
    // They would not fit either way: the lines are kept.
    let long = "Assert.True() Failure (Expected: True, Actual: False): the value under test was \
                not even, as the test expected it to be";
    let json = render(&long_failures(long, code));
    assert!(
        json.len() > MANY_FAILURES_BUDGET,
        "{} bytes: {json}",
        json.len()
    );
    assert_eq!(json.matches("Assert.True(i % 2").count(), 5, "{json}");
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
fn fifty_from_one_cause_is_one_record_and_one_cluster() {
    let failures: Vec<Failure> = (0..50).map(helper_failure).collect();
    let run = Run {
        passed: 500,
        failed: 50,
        failures,
        ..Run::new("pytest")
    };
    let json = render(&report(run, 64.7));
    insta::assert_snapshot!(json, @r#"{"status":"TestsFailed","runner":"pytest","passed":500,"failed":50,"durationS":64.7,"failures":[{"test":"tests/test_more.py::test_case[0]","message":"ValueError: maxlen must be non-negative","frames":["more_itertools/more.py:2736 cache = deque(wrapper, maxlen=start)","tests/test_more.py:100"]}],"clusters":[{"error":"ValueError: maxlen must be non-negative","at":"more_itertools/more.py:2736","affected":50}]}"#);
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
    let clustered: usize = answer.clusters.iter().map(|c| c.affected).sum();
    assert_eq!(
        answer.failures.len() + clustered + answer.more_failures,
        100
    );
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

fn arb_failure() -> impl Strategy<Value = Failure> {
    (
        "[a-z_/]{1,60}\\.py::test_[a-z0-9_\\[\\]-]{1,40}",
        "[ -~]{0,400}",
        prop::option::of(prop::sample::select(vec![
            "AssertionError",
            "ValueError",
            "panic",
        ])),
        prop::collection::vec(
            (
                "[a-z_/]{1,50}\\.py",
                1u32..5000,
                prop::option::of("[ -~]{0,80}"),
                any::<bool>(),
            ),
            0..12,
        ),
        prop::sample::select(vec![Phase::Call, Phase::Setup, Phase::Teardown]),
    )
        .prop_map(|(test, message, kind, frames, phase)| Failure {
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
            ..Failure::default()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// However many failures and however long their messages, every failure is accounted for,
    /// every shown failure keeps its id, message and deepest project frame, and the answer's
    /// size stops growing with the failure count.
    #[test]
    fn every_failure_is_accounted_for_and_size_is_bounded(failures in prop::collection::vec(arb_failure(), 1..120)) {
        let n = failures.len();
        let run = Run { failed: n as u32, failures: failures.clone(), ..Run::new("pytest") };
        let answer = test_answer(&report(run, 1.0));
        let json = to_json(&answer);
        // A shown failure may also be counted in its cause's cluster, never anywhere else.
        let clustered: usize = answer.clusters.iter().map(|c| c.affected).sum();
        let shown = answer.failures.len();
        prop_assert!(clustered + answer.more_failures <= n);
        prop_assert!(n <= shown + clustered + answer.more_failures);
        for shown in &answer.failures {
            let original = failures.iter().find(|f| f.test == shown.test).unwrap();
            prop_assert_eq!(&shown.message, &original.message);
            if let Some(deepest) = original.top_project_frame() {
                prop_assert!(shown.frames[0].starts_with(&deepest.location()));
            }
        }
        // 8 failures in full with 400-char messages and 120-char ids is the largest answer.
        prop_assert!(json.len() <= 8 * (120 + 400 + 200) + 200, "{} bytes", json.len());
        if n > 8 {
            prop_assert!(answer.failures.len() <= 3);
        }
    }
}
