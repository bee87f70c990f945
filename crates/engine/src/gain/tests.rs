//! `pith gain` on recorded histories: counting at the marks, limits, regressions, truncated raw
//! output, days, and texts dropped once counted.

use std::path::{Path, PathBuf};

use pith_model::gain::{Fidelity, Printed, PRINTED_KEPT};
use pith_model::Status;
use pith_store::{NewGain, Store, MARK_CHARS};

use super::*;

/// Text that tokenizes like runner output: words, numbers, paths, punctuation, a few non-ASCII
/// characters, so token boundaries fall everywhere.
fn output(chars: usize) -> String {
    let line =
        "tests/test_shop.py::test_cents FAILED — assert 3.5 == parse_price('$3.50') [ 42%]\n";
    line.chars().cycle().take(chars).collect()
}

fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("pytest.ini"), "[pytest]\n").unwrap();
    (dir, root)
}

fn printed(text: &str) -> Printed {
    let mut p = Printed::default();
    p.push(text);
    p
}

const DAY: u64 = 86_400;
/// 2025-12-01T09:00Z.
const MONDAY: u64 = 20_423 * DAY + 9 * 3600;

fn record(store: &Store, at: u64, status: Status, raw: &str, answer: &str, f: Option<Fidelity>) {
    store
        .record_gain(&NewGain {
            at,
            command: "test",
            status,
            printed: &printed(raw),
            answer,
            fidelity: f,
        })
        .unwrap();
}

fn request(root: &Path, limit: Option<u64>) -> GainRequest {
    GainRequest {
        root: Some(root.to_path_buf()),
        cwd: root.to_path_buf(),
        limit,
    }
}

#[test]
fn marks_give_each_prefix_its_tokens() {
    let c = Counter::new().unwrap();
    let text = output(5_500);
    let marks = c.marks(&text);
    assert_eq!(marks[0], 5_500, "the text's length comes first");
    assert_eq!(marks.len(), 1 + 5 + 1, "five marks, then the whole");
    assert_eq!(tokens_at(&marks, 5_500), c.count(&text));
    assert_eq!(tokens_at(&marks, 1_000_000), c.count(&text));
    for k in 1..=5u64 {
        let prefix: String = text
            .chars()
            .take((k * MARK_CHARS as u64) as usize)
            .collect();
        let exact = c.count(&prefix);
        let at = tokens_at(&marks, k * MARK_CHARS as u64);
        // Tokens that end within the prefix: the prefix's own tokenization splits the word
        // the cut falls in, a token or two more.
        assert!(at.abs_diff(exact) <= 3, "mark {k}: {at} vs {exact}");
    }
    // Between two marks: between their counts.
    let mid = tokens_at(&marks, 2_500);
    assert!(tokens_at(&marks, 2_000) <= mid && mid <= tokens_at(&marks, 3_000));
    assert_eq!(tokens_at(&marks, 0), 0);
    assert_eq!(tokens_at(&[], 10), 0);
}

#[test]
fn marks_count_characters_not_bytes() {
    let c = Counter::new().unwrap();
    let text = "é".repeat(2_000);
    let marks = c.marks(&text);
    assert_eq!(marks[0], 2_000);
    assert_eq!(tokens_at(&marks, 2_000), c.count(&text));
    let half: String = "é".repeat(1_000);
    let at = tokens_at(&marks, 1_000);
    assert!(at.abs_diff(c.count(&half)) <= 3);
}

#[test]
fn a_recorded_history_is_counted_with_its_regressions_and_truncated_output() {
    let (_d, root) = workspace();
    let store = Store::open(&root).unwrap();
    let c = Counter::new().unwrap();
    // Monday: a red run whose output is longer than the host's limit, its answer complete;
    // then a green run whose few lines are smaller than pith's answer: a regression.
    let long = output(40_000);
    let red = r#"{"generation":1,"status":"TestsFailed","runner":"pytest","passed":5,"failed":1,"failures":[{"test":"tests/test_shop.py::test_cents","message":"assert 3.5 == 3.05","frames":["tests/test_shop.py:14"]}]}"#;
    let complete = Fidelity {
        failing: 1,
        ids_kept: 1,
        frames: 1,
        frames_kept: 1,
    };
    record(
        &store,
        MONDAY,
        Status::TestsFailed,
        &long,
        red,
        Some(complete),
    );
    let green =
        r#"{"generation":2,"status":"TestsPassed","runner":"pytest","passed":6,"durationS":0.4}"#;
    record(
        &store,
        MONDAY + 60,
        Status::TestsPassed,
        "6 passed in 0.02s\n",
        green,
        None,
    );
    // Tuesday: a red answer that named only some of its failing tests.
    let some = Fidelity {
        failing: 40,
        ids_kept: 3,
        frames: 40,
        frames_kept: 38,
    };
    let short = output(9_000);
    record(
        &store,
        MONDAY + DAY,
        Status::TestsFailed,
        &short,
        red,
        Some(some),
    );
    drop(store);

    let gain = gain(&request(&root, None)).unwrap();
    assert_eq!(gain.limit, DEFAULT_LIMIT);
    let t = &gain.total;
    assert_eq!((t.commands, t.truncated, t.regressions), (3, 1, 1));
    assert_eq!((t.red, t.red_complete), (2, 1));
    // Newest first; the long output counted up to the limit only.
    let [tue, green_run, red_run] = gain.commands.as_slice() else {
        panic!("three commands: {:?}", gain.commands)
    };
    let first_30k: String = long.chars().take(30_000).collect();
    let counted = c.count(&first_30k);
    assert!(red_run.raw_tokens.abs_diff(counted) <= 3);
    assert!(red_run.raw_tokens < c.count(&long));
    assert!(red_run.truncated(gain.limit));
    assert_eq!(red_run.answer_tokens, c.count(red));
    assert_eq!(green_run.raw_tokens, c.count("6 passed in 0.02s\n"));
    assert!(green_run.saved() < 0, "a regression: {green_run:?}");
    assert_eq!(
        t.regression_tokens,
        green_run.answer_tokens - green_run.raw_tokens
    );
    assert_eq!(
        tue.raw_tokens,
        c.count(&short),
        "shorter than the limit: all of it"
    );
    assert_eq!(tue.fidelity, Some(some));
    // The total subtracts the regression.
    assert_eq!(
        t.saved(),
        gain.commands.iter().map(Answered::saved).sum::<i64>()
    );
    // Per day, newest first.
    let days: Vec<(u64, u64, u64)> = gain
        .days
        .iter()
        .map(|(d, t)| (*d, t.commands, t.regressions))
        .collect();
    assert_eq!(days, [(20_424, 1, 0), (20_423, 2, 1)]);

    // Counted once, the texts are gone; a larger limit counts more of what was kept.
    let store = Store::open(&root).unwrap();
    assert!(store.pending_gains().unwrap().is_empty());
    assert_eq!(store.pending_gain_chars().unwrap(), 0);
    drop(store);
    let wide = gain_at(&root, 100_000);
    assert_eq!(wide.total.truncated, 0);
    assert_eq!(wide.commands[2].raw_tokens, c.count(&long));
    let narrow = gain_at(&root, 10);
    assert_eq!(narrow.total.truncated, 3);
}

fn gain_at(root: &Path, limit: u64) -> Gain {
    gain(&request(root, Some(limit))).unwrap()
}

#[test]
fn output_beyond_what_a_run_keeps_is_counted_up_to_it() {
    let (_d, root) = workspace();
    let store = Store::open(&root).unwrap();
    let mut p = Printed::default();
    p.push(&output(PRINTED_KEPT + 5_000));
    assert_eq!(p.chars, (PRINTED_KEPT + 5_000) as u64);
    store
        .record_gain(&NewGain {
            at: MONDAY,
            command: "test",
            status: Status::TestsFailed,
            printed: &p,
            answer: "{}",
            fidelity: None,
        })
        .unwrap();
    drop(store);
    // A limit past what is kept counts what is kept, and says so.
    let g = gain_at(&root, u64::MAX);
    assert_eq!(g.limit, PRINTED_KEPT as u64);
    assert!(g.commands[0].truncated(g.limit));
    let c = Counter::new().unwrap();
    let kept: String = p.text.clone();
    assert_eq!(g.commands[0].raw_tokens, c.count(&kept));
}

#[test]
fn the_limit_comes_from_the_request_then_the_environment() {
    let req = |limit| GainRequest {
        limit,
        ..GainRequest::default()
    };
    assert_eq!(req(Some(500)).limit(), 500);
    assert_eq!(req(Some(10_000_000)).limit(), PRINTED_KEPT as u64);
    // The environment is the process's: only checked when the variable is not set by the
    // caller of the tests.
    if std::env::var_os(LIMIT_ENV).is_none() {
        assert_eq!(req(None).limit(), DEFAULT_LIMIT);
    }
}

#[test]
fn an_empty_history_answers_nothing_counted() {
    let (_d, root) = workspace();
    let g = gain_at(&root, 30_000);
    assert_eq!(g.total.commands, 0);
    assert!(g.days.is_empty() && g.commands.is_empty());
}
