//! Shapes and budgets of the workspace-state answers (`status`, `failures`) and of what the
//! history adds to `pith test` (generation, unchanged, recovered, flaky/new/failingFor).

use std::time::Duration;

use pith_model::{
    Failure, FailureDetails, Frame, Report, Run, RunSummary, RunnerInfo, Status, WorkspaceState,
};
use pith_wire::{
    failures_answer, status_answer, test_answer, to_json, FAILURES_PAGE, FAILURE_DETAIL_BUDGET,
    GREEN_BUDGET, STATUS_BUDGET, UNCHANGED_BUDGET,
};

fn summary() -> RunSummary {
    RunSummary {
        generation: 41,
        status: Status::TestsFailed,
        runner: "nextest,pytest".into(),
        passed: 1287,
        failed: 3,
        skipped: 12,
        recovered: 2,
        duration: Duration::from_millis(48_260),
        ..RunSummary::default()
    }
}

fn failure(i: usize) -> Failure {
    Failure {
        test: format!("tests/test_checkout.py::TestCart::test_discount_applies_once[case-{i}]"),
        message: "AssertionError: assert Decimal('17.99') == Decimal('16.19')".into(),
        kind: Some("AssertionError".into()),
        frames: vec![
            Frame {
                file: "/usr/lib/python3.12/site-packages/_pytest/python.py".into(),
                line: 159,
                code: Some("result = testfunction(**testargs)".into()),
                project: false,
            },
            Frame {
                code: Some("assert cart.total() == Decimal(\"16.19\")".into()),
                ..Frame::project("tests/test_checkout.py", 88)
            },
            Frame {
                code: Some("return sum(self._discounted(item) for item in self.items)".into()),
                ..Frame::project("shop/cart.py", 41)
            },
            Frame {
                code: Some("return item.price * (1 - self.discount.rate(item))".into()),
                ..Frame::project("shop/cart.py", 57)
            },
            Frame {
                code: Some("return self._rates.get(item.sku, Decimal(0)) + self._bonus".into()),
                ..Frame::project("shop/discount.py", 23)
            },
        ],
        failing_for: 3,
        ..Failure::default()
    }
}

#[test]
fn unchanged_status_is_tiny() {
    let state = WorkspaceState {
        generation: 12345,
        unchanged: true,
        ..WorkspaceState::default()
    };
    let json = to_json(&status_answer(&state));
    assert_eq!(json, r#"{"generation":12345,"unchanged":true}"#);
    assert!(json.len() <= UNCHANGED_BUDGET);
}

#[test]
fn full_status_names_three_changes_and_counts_the_rest() {
    let state = WorkspaceState {
        generation: 44,
        last_run: Some(summary()),
        changed: vec![
            "src/shop/cart.py".into(),
            "src/shop/discount.py".into(),
            "tests/test_checkout.py".into(),
            "README.md".into(),
        ],
        changed_count: 7,
        runners: vec![
            RunnerInfo {
                name: "nextest".into(),
                ..RunnerInfo::default()
            },
            RunnerInfo {
                name: "pytest".into(),
                interpreter: Some(".venv/bin/python".into()),
                ..RunnerInfo::default()
            },
            RunnerInfo {
                name: "go".into(),
                missing: true,
                ..RunnerInfo::default()
            },
        ],
        ..WorkspaceState::default()
    };
    let json = to_json(&status_answer(&state));
    insta::assert_snapshot!(json, @r#"{"generation":44,"lastRun":{"status":"TestsFailed","generationsBehind":3,"passed":1287,"failed":3,"skipped":12,"recovered":2,"durationS":48.3},"changed":["src/shop/cart.py","src/shop/discount.py","tests/test_checkout.py"],"moreChanged":4,"runners":[{"name":"nextest"},{"name":"pytest","interpreter":".venv/bin/python"},{"name":"go","missing":true}]}"#);
    assert!(json.len() <= STATUS_BUDGET, "{} bytes", json.len());
}

#[test]
fn off_target_edits_are_named_three_and_counted() {
    let state = WorkspaceState {
        generation: 9,
        last_run: Some(summary()),
        changed: vec!["src/shop/cart.py".into()],
        changed_count: 5,
        off_target: ["a", "b", "c", "d", "e"]
            .iter()
            .map(|f| format!("src/shop/{f}.py"))
            .collect(),
        ..WorkspaceState::default()
    };
    let json = to_json(&status_answer(&state));
    assert!(
        json.contains(
            r#""offTarget":["src/shop/a.py","src/shop/b.py","src/shop/c.py"],"moreOffTarget":2"#
        ),
        "{json}"
    );
    assert!(json.len() <= STATUS_BUDGET, "{} bytes", json.len());
}

#[test]
fn a_fresh_workspace_has_only_its_generation_and_runners() {
    let state = WorkspaceState {
        generation: 1,
        runners: vec![RunnerInfo {
            name: "cargo".into(),
            lacks: Some("isolation".into()),
            ..RunnerInfo::default()
        }],
        ..WorkspaceState::default()
    };
    insta::assert_snapshot!(to_json(&status_answer(&state)), @r#"{"generation":1,"runners":[{"name":"cargo","lacks":"isolation"}]}"#);
}

#[test]
fn the_test_answer_leads_with_its_generation_and_says_what_history_knows() {
    // Three causes, so each is shown in full with its own flags.
    let mut flaky = failure(1);
    flaky.failing_for = 0;
    flaky.flaky = true;
    flaky.kind = Some("KeyError".into());
    let mut new = failure(2);
    new.failing_for = 0;
    new.new = true;
    new.kind = Some("TypeError".into());
    let run = Run {
        passed: 40,
        failed: 3,
        failures: vec![failure(0), flaky, new],
        ..Run::new("pytest")
    };
    let report = Report {
        runs: vec![run],
        duration: Duration::from_millis(2100),
        generation: Some(7),
        recovered: 1,
        ..Report::default()
    };
    let answer = test_answer(&report);
    let json = to_json(&answer);
    assert!(json.starts_with(r#"{"generation":7,"status":"TestsFailed","runner":"pytest","passed":40,"failed":3,"recovered":1,"durationS":2.1,"#), "{json}");
    assert_eq!(answer.failures[0].failing_for, 3);
    assert!(
        json.contains(r#""failingFor":3}"#)
            && json.contains(r#""flaky":true}"#)
            && json.contains(r#""new":true}"#),
        "{json}"
    );
    assert!(!json.contains("\"new\":false") && !json.contains("failingFor\":0"));

    let green = Report {
        runs: vec![Run {
            passed: 765,
            ..Run::new("pytest")
        }],
        duration: Duration::from_secs(16),
        generation: Some(123_456),
        ..Report::default()
    };
    assert!(to_json(&test_answer(&green)).len() <= GREEN_BUDGET);
}

#[test]
fn an_unchanged_test_answer_is_the_last_runs_verdict_and_counts() {
    let report = Report {
        generation: Some(41),
        unchanged: Some(summary()),
        ..Report::default()
    };
    assert_eq!(report.status(), Status::TestsFailed);
    insta::assert_snapshot!(to_json(&test_answer(&report)), @r#"{"generation":41,"unchanged":true,"status":"TestsFailed","runner":"nextest,pytest","passed":1287,"failed":3,"skipped":12}"#);
}

#[test]
fn busy_says_why_and_nothing_else() {
    let report = Report {
        runs: vec![Run {
            status: Some(Status::Busy),
            hint: Some(
                "another pith test (pid 7) is running in this workspace; ask again when it ends"
                    .into(),
            ),
            ..Run::new("pytest")
        }],
        duration: Duration::from_secs(60),
        generation: Some(3),
        ..Report::default()
    };
    insta::assert_snapshot!(to_json(&test_answer(&report)), @r#"{"generation":3,"status":"Busy","runner":"pytest","hint":"another pith test (pid 7) is running in this workspace; ask again when it ends"}"#);
}

fn details(n: usize) -> FailureDetails {
    FailureDetails {
        run: Some(summary()),
        failures: (0..n).map(failure).collect(),
        ..FailureDetails::default()
    }
}

#[test]
fn one_failure_in_detail_has_every_project_frame_within_budget() {
    let answer = failures_answer(&details(1), 1, false);
    let json = to_json(&answer);
    insta::assert_snapshot!(json, @r#"{"generation":41,"status":"TestsFailed","failures":[{"test":"tests/test_checkout.py::TestCart::test_discount_applies_once[case-0]","message":"AssertionError: assert Decimal('17.99') == Decimal('16.19')","frames":["shop/discount.py:23 return self._rates.get(item.sku, Decimal(0)) + self._bonus","shop/cart.py:57 return item.price * (1 - self.discount.rate(item))","shop/cart.py:41 return sum(self._discounted(item) for item in self.items)","tests/test_checkout.py:88 assert cart.total() == Decimal(\"16.19\")"],"failingFor":3}]}"#);
    assert!(json.len() <= FAILURE_DETAIL_BUDGET, "{} bytes", json.len());
}

#[test]
fn the_detail_is_shown_whole_in_place_of_the_first_line() {
    let mut d = details(1);
    let detail = "AssertionError: assert [1, 2, 3] == [1, 2, 4]\n  At index 2 diff: 3 != 4\n  Full diff:\n  - [1, 2, 4]\n  + [1, 2, 3]";
    d.failures[0].detail = Some(detail.into());
    let one_line = to_json(&failures_answer(&details(1), 1, false));
    let answer = failures_answer(&d, 1, false);
    assert_eq!(answer.failures[0].message, detail);
    assert_eq!(
        answer.failures[0].frames,
        failures_answer(&details(1), 1, false).failures[0].frames,
        "later lines cost no frame"
    );
    let json = to_json(&answer);
    assert!(json.len() > one_line.len());
    assert!(json.len() <= FAILURE_DETAIL_BUDGET, "{} bytes", json.len());
}

#[test]
fn a_detail_past_the_budget_sheds_its_last_lines_and_counts_them() {
    let mut d = details(1);
    let lines: Vec<String> = (0..200)
        .map(|i| format!("line {i}: \"quoted\" \\ text that escapes to more bytes than it has"))
        .collect();
    d.failures[0].detail = Some(format!("{}\n… 40 more lines", lines.join("\n")));
    let answer = failures_answer(&d, 1, false);
    let json = to_json(&answer);
    assert!(json.len() <= FAILURE_DETAIL_BUDGET, "{} bytes", json.len());
    let message = &answer.failures[0].message;
    assert!(message.starts_with("line 0: "), "{message}");
    let kept = message.lines().count() - 1;
    let last = message.lines().last().unwrap();
    assert_eq!(last, format!("… {} more lines", 200 - kept + 40));
}

proptest::proptest! {
    #[test]
    fn any_detail_fits_the_budget_and_keeps_its_start(detail in "(?s).{0,9000}") {
        let mut d = details(1);
        d.failures[0].detail = Some(detail.clone());
        let answer = failures_answer(&d, 1, false);
        let json = to_json(&answer);
        proptest::prop_assert!(json.len() <= FAILURE_DETAIL_BUDGET, "{} bytes", json.len());
        let start: String = detail.chars().take(60).collect();
        // A `\r\n` cut before its `\n` leaves the `\r`, which the answer's lines drop.
        let start = start.lines().next().unwrap_or("").trim_end_matches('\r');
        proptest::prop_assert!(answer.failures[0].message.starts_with(start));
    }
}

#[test]
fn a_deep_failure_sheds_outer_source_lines_then_outer_frames_to_fit() {
    let mut f = failure(0);
    for i in 0..12 {
        f.frames.insert(
            1,
            Frame {
                code: Some(format!(
                    "return self.layer_{i}.handle(request, context, retries=3)"
                )),
                ..Frame::project(format!("shop/layers/layer_{i}.py"), 10 + i)
            },
        );
    }
    let d = FailureDetails {
        run: Some(summary()),
        failures: vec![f],
        ..FailureDetails::default()
    };
    let json = to_json(&failures_answer(&d, 1, false));
    assert!(
        json.len() <= FAILURE_DETAIL_BUDGET,
        "{} bytes: {json}",
        json.len()
    );
    assert!(
        json.contains("shop/discount.py:23 return self._rates"),
        "{json}"
    );
    let stacks = failures_answer(&d, 1, true);
    assert_eq!(
        stacks.failures[0].frames.len(),
        17,
        "--stacks is never trimmed"
    );
}

#[test]
fn stacks_show_every_frame_deepest_first() {
    let answer = failures_answer(&details(1), 1, true);
    let frames = &answer.failures[0].frames;
    assert_eq!(frames.len(), 5);
    assert!(frames[0].starts_with("shop/discount.py:23 "));
    assert_eq!(
        frames[4],
        "/usr/lib/python3.12/site-packages/_pytest/python.py:159 result = testfunction(**testargs)"
    );
}

#[test]
fn failures_are_paged_and_the_rest_counted() {
    let d = details(23);
    let p1 = failures_answer(&d, 1, false);
    assert_eq!(
        (p1.failures.len(), p1.more_failures, p1.next_page),
        (FAILURES_PAGE, 13, 2)
    );
    let p3 = failures_answer(&d, 3, false);
    assert_eq!(
        (p3.failures.len(), p3.more_failures, p3.next_page),
        (3, 0, 0)
    );
    assert!(p3.failures[0].test.ends_with("[case-20]"));
    let past = failures_answer(&d, 9, false);
    assert!(past.failures.is_empty());
    assert!(!to_json(&past).contains("failures"));
}

#[test]
fn named_tests_that_did_not_fail_are_sorted_out_and_no_run_is_a_hint() {
    let d = FailureDetails {
        run: Some(summary()),
        failures: vec![],
        not_failing: vec!["t::passes".into()],
        not_found: vec!["t::gone".into()],
        ..FailureDetails::default()
    };
    insta::assert_snapshot!(to_json(&failures_answer(&d, 1, false)), @r#"{"generation":41,"status":"TestsFailed","notFailing":["t::passes"],"notFound":["t::gone"]}"#);
    insta::assert_snapshot!(to_json(&failures_answer(&FailureDetails::default(), 1, false)), @r#"{"hint":"no run recorded yet: pith test"}"#);
}
