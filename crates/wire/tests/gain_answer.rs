//! The `pith gain` answer's shape on a synthetic history (a regression, a truncated raw
//! output, red answers complete and not), its table for a person, and a red answer's fidelity
//! judged against the report it shapes.

use pith_model::gain::{Answered, Fidelity, Gain, Totals};
use pith_model::{Failure, Frame, Report, Run, Status};
use pith_wire::{
    fidelity, gain_answer, gain_table, test_answer, to_json, GAIN_BUDGET, GAIN_COMMANDS,
};

const DAY: u64 = 86_400;
/// 2025-12-01T09:00Z.
const MONDAY: u64 = 20_423 * DAY + 9 * 3600;
const LIMIT: u64 = 30_000;

fn answered(at: u64, status: Status, raw: u64, answer: u64, chars: u64) -> Answered {
    Answered {
        at,
        command: "test".into(),
        status,
        raw_chars: chars,
        raw_tokens: raw,
        answer_tokens: answer,
        fidelity: None,
    }
}

/// Newest first: Tuesday's red run that named 3 of its 40 failing tests; Monday's green run
/// whose output was smaller than the answer (a regression) and red run whose output was
/// longer than the limit.
fn history() -> Gain {
    let mut tuesday = answered(MONDAY + DAY + 600, Status::TestsFailed, 2_310, 190, 9_000);
    tuesday.fidelity = Some(Fidelity {
        failing: 40,
        ids_kept: 3,
        frames: 40,
        frames_kept: 38,
    });
    let green = answered(MONDAY + 60, Status::TestsPassed, 9, 27, 19);
    let mut red = answered(MONDAY, Status::TestsFailed, 7_702, 84, 40_000);
    red.fidelity = Some(Fidelity {
        failing: 1,
        ids_kept: 1,
        frames: 1,
        frames_kept: 1,
    });
    let commands = vec![tuesday, green, red];
    let mut gain = Gain {
        limit: LIMIT,
        ..Gain::default()
    };
    for a in &commands {
        gain.total.add(a, LIMIT);
    }
    let mut tue = Totals::default();
    tue.add(&commands[0], LIMIT);
    let mut mon = Totals::default();
    mon.add(&commands[1], LIMIT);
    mon.add(&commands[2], LIMIT);
    gain.days = vec![(20_424, tue), (20_423, mon)];
    gain.commands = commands;
    gain
}

#[test]
fn a_history_with_a_regression_and_a_truncated_output() {
    let json = to_json(&gain_answer(&history()));
    insta::assert_snapshot!(json, @r#"{"limit":30000,"commands":3,"rawTokens":10021,"answerTokens":301,"savedTokens":9720,"truncated":1,"regressions":1,"regressionTokens":18,"red":2,"redComplete":1,"days":[{"day":"2025-12-02","commands":1,"rawTokens":2310,"answerTokens":190,"savedTokens":2120,"red":1},{"day":"2025-12-01","commands":2,"rawTokens":7711,"answerTokens":111,"savedTokens":7600,"truncated":1,"regressions":1,"regressionTokens":18,"red":1,"redComplete":1}],"last":[{"at":"2025-12-02T09:10Z","command":"test","status":"TestsFailed","rawTokens":2310,"answerTokens":190,"savedTokens":2120,"kept":{"failing":40,"ids":3,"frames":40,"framesKept":38}},{"at":"2025-12-01T09:01Z","command":"test","status":"TestsPassed","rawTokens":9,"answerTokens":27,"savedTokens":-18,"regression":true},{"at":"2025-12-01T09:00Z","command":"test","status":"TestsFailed","rawTokens":7702,"answerTokens":84,"savedTokens":7618,"truncated":true,"kept":{"failing":1,"ids":1,"frames":1,"framesKept":1}}]}"#);
}

#[test]
fn the_table_says_the_same_for_a_person() {
    let table = gain_table(&gain_answer(&history()));
    insta::assert_snapshot!(table, @r"
    pith gain: raw runner output counted up to 30000 characters, in o200k tokens

                      commands       raw answered     saved saved% regressions
    total                    3     10021      301      9720    97%           1
    2025-12-02               1      2310      190      2120    92%           0
    2025-12-01               2      7711      111      7600    99%           1
    red answers that kept every failing test's id and deepest frame: 1 of 2

    latest            command status              raw answered     saved  kept (ids, frames)
    2025-12-02 09:10  test    TestsFailed        2310      190      2120  3/40, 38/40
    2025-12-01 09:01  test    TestsPassed           9       27     -18 !
    2025-12-01 09:00  test    TestsFailed       7702*       84      7618  1/1, 1/1
    * raw output longer than the limit, counted up to it; ! the answer was larger than the raw output
    ");
}

#[test]
fn an_empty_history_is_its_limit_alone() {
    let gain = Gain {
        limit: LIMIT,
        ..Gain::default()
    };
    let json = to_json(&gain_answer(&gain));
    insta::assert_snapshot!(json, @r#"{"limit":30000}"#);
}

#[test]
fn a_long_history_lists_the_latest_and_counts_the_rest() {
    let mut gain = Gain {
        limit: LIMIT,
        ..Gain::default()
    };
    for i in 0..25 {
        let a = answered(MONDAY - i * DAY, Status::TestsPassed, 100, 20, 400);
        gain.total.add(&a, LIMIT);
        let mut t = Totals::default();
        t.add(&a, LIMIT);
        gain.days.push((20_423 - i, t));
        gain.commands.push(a);
    }
    let a = gain_answer(&gain);
    assert!(to_json(&a).len() <= GAIN_BUDGET);
    assert_eq!(a.last.len(), GAIN_COMMANDS);
    assert_eq!(a.more_commands, 25 - GAIN_COMMANDS);
    assert_eq!(a.days.len(), pith_wire::GAIN_DAYS);
    assert_eq!(a.more_days, 25 - pith_wire::GAIN_DAYS);
    assert_eq!(a.total.commands, 25, "the total is the whole history");
}

fn failure(test: &str, frames: &[(&str, u32)]) -> Failure {
    Failure {
        test: test.into(),
        message: "AssertionError: assert 1 == 2".into(),
        kind: Some("AssertionError".into()),
        frames: frames.iter().map(|(f, l)| Frame::project(*f, *l)).collect(),
        ..Failure::default()
    }
}

fn red(failures: Vec<Failure>) -> Report {
    Report {
        runs: vec![Run {
            failed: failures.len() as u32,
            failures,
            ..Run::new("pytest")
        }],
        ..Report::default()
    }
}

#[test]
fn a_red_answer_that_shows_everything_is_complete() {
    let report = red(vec![failure(
        "tests/test_a.py::test_x",
        &[("tests/test_a.py", 3)],
    )]);
    let f = fidelity(&report, &test_answer(&report)).unwrap();
    assert_eq!(
        f,
        Fidelity {
            failing: 1,
            ids_kept: 1,
            frames: 1,
            frames_kept: 1
        }
    );
    assert!(f.complete());
}

#[test]
fn a_red_answer_that_counts_failures_it_does_not_name_is_not_complete() {
    // A hundred distinct failures: a few shown, the rest counted.
    let failures: Vec<Failure> = (0..100)
        .map(|i| {
            let file = format!("tests/test_d{:02}.py", i / 10);
            failure(
                &format!("{file}::test_{i}"),
                &[(file.as_str(), 3 + i as u32)],
            )
        })
        .collect();
    let report = red(failures);
    let answer = test_answer(&report);
    let f = fidelity(&report, &answer).unwrap();
    assert_eq!((f.failing, f.frames), (100, 100));
    assert!(f.ids_kept >= answer.failures.len() as u32 && f.ids_kept < 100);
    assert!(f.frames_kept < 100);
    assert!(!f.complete());
}

#[test]
fn a_cluster_keeps_its_members_place_and_a_green_run_has_no_fidelity() {
    // Fifty failures through one helper: one shown in full, the others counted, their place
    // (the helper's line) shown once for all.
    let failures: Vec<Failure> = (0..50)
        .map(|i| {
            failure(
                &format!("tests/test_h.py::test_{i}"),
                &[("tests/test_h.py", 10 + i), ("src/helper.py", 7)],
            )
        })
        .collect();
    let report = red(failures);
    let f = fidelity(&report, &test_answer(&report)).unwrap();
    assert_eq!((f.frames, f.frames_kept), (50, 50), "{f:?}");
    let green = Report {
        runs: vec![Run {
            passed: 3,
            ..Run::new("pytest")
        }],
        ..Report::default()
    };
    assert_eq!(fidelity(&green, &test_answer(&green)), None);
}

#[test]
fn the_largest_answer_stays_within_its_budget() {
    // Every listed command red, truncated, a regression, with a fidelity; every day with all
    // of its counts; every number as wide as a long history makes it.
    let mut gain = Gain {
        limit: 150_000,
        ..Gain::default()
    };
    for i in 0..40u64 {
        let mut a = answered(
            MONDAY + i * DAY,
            Status::CollectionFailed,
            38_000 + i,
            41_000 + i,
            9_000_000_000,
        );
        a.fidelity = Some(Fidelity {
            failing: 12_345,
            ids_kept: 12_000,
            frames: 12_345,
            frames_kept: 11_999,
        });
        gain.total.add(&a, gain.limit);
        gain.commands.insert(0, a);
    }
    for i in 0..40u64 {
        let mut t = gain.total.clone();
        t.raw_tokens *= 1_000;
        gain.days.insert(0, (20_423 + i, t));
    }
    let json = to_json(&gain_answer(&gain));
    assert!(json.len() <= GAIN_BUDGET, "{} bytes: {json}", json.len());
}
