//! `pith gain` through the real binary on the real pytest: a red run, a green run whose few
//! lines are smaller than pith's answer (a regression), a replayed `unchanged` answer (no
//! runner ran: not counted), then the history at the default limit, at a limit the red run's
//! output is longer than (truncated), and as a table.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{fixture, Answer};

const GREEN_TEST: &str = "tests/test_shop.py::test_whole_dollars";

fn command(root: &Path, sub: &str, args: &[&str]) -> Command {
    let mut c = common::bare();
    c.arg(sub)
        .arg("--root")
        .arg(root)
        .args(args)
        .current_dir(root)
        .env_remove("PITH_GAIN_LIMIT")
        .env_remove("FLAKY_MARKER")
        .env_remove("SLOW_SECS");
    c
}

fn pith(root: &Path, sub: &str, args: &[&str]) -> Answer {
    common::answer_of(command(root, sub, args).output().expect("run pith"), root)
}

#[test]
fn gain_counts_what_ran_with_its_regression_and_truncated_output() {
    let ws = fixture("state/suite");
    let root = ws.path();
    let empty = pith(root, "gain", &[]);
    assert_eq!(empty.code, 0, "{}", empty.line);
    assert_eq!(empty.line, r#"{"limit":30000}"#);

    let red = pith(root, "test", &[]);
    assert_eq!(red.status(), "TestsFailed", "{}", red.line);
    let green = pith(root, "test", &[GREEN_TEST]);
    assert_eq!(green.status(), "TestsPassed", "{}", green.line);
    let since = green.generation().to_string();
    let replayed = pith(root, "test", &[GREEN_TEST, "--since", &since]);
    assert_eq!(replayed.json["unchanged"], true, "{}", replayed.line);

    let gain = pith(root, "gain", &[]);
    assert_eq!(gain.code, 0, "{}", gain.line);
    assert!(
        gain.bytes() <= pith_wire::GAIN_BUDGET,
        "{} bytes: {}",
        gain.bytes(),
        gain.line
    );
    assert_eq!(gain.count("limit"), 30_000);
    assert_eq!(
        gain.count("commands"),
        2,
        "the replay ran nothing: {}",
        gain.line
    );
    let last = gain.json["last"].as_array().expect("the commands");
    let (newest, oldest) = (&last[0], &last[1]);
    // pytest -q's two lines for one passing test are smaller than pith's answer: a regression,
    // shown as such and subtracted from the total.
    assert_eq!(newest["status"], "TestsPassed");
    assert_eq!(newest["regression"], true, "{}", gain.line);
    assert!(newest["savedTokens"].as_i64().unwrap() < 0);
    assert_eq!(gain.count("regressions"), 1);
    assert_eq!(
        gain.json["savedTokens"].as_i64().unwrap(),
        gain.count("rawTokens") as i64 - gain.count("answerTokens") as i64
    );
    // The red answer named both failing tests and their deepest project frames.
    assert_eq!(oldest["status"], "TestsFailed");
    assert_eq!(
        oldest["kept"],
        serde_json::json!({"failing": 2, "ids": 2, "frames": 2, "framesKept": 2})
    );
    assert!(oldest["savedTokens"].as_i64().unwrap() > 0, "{}", gain.line);
    assert_eq!((gain.count("red"), gain.count("redComplete")), (1, 1));
    assert!(oldest.get("truncated").is_none(), "{}", gain.line);
    // The answer's tokens are the answer's: a few per ten bytes, never characters ÷ 4 of the
    // raw output.
    let answer_tokens = oldest["answerTokens"].as_u64().unwrap();
    assert!(answer_tokens * 2 < red.bytes() as u64 && answer_tokens * 6 > red.bytes() as u64);

    // A host that cuts at 200 characters: the red run's output is counted up to there.
    let cut = pith(root, "gain", &["--limit", "200"]);
    assert_eq!(cut.count("limit"), 200);
    assert_eq!(cut.count("truncated"), 1, "{}", cut.line);
    let cut_red = &cut.json["last"][1];
    assert_eq!(cut_red["truncated"], true);
    let (at_200, at_default) = (
        cut_red["rawTokens"].as_u64().unwrap(),
        oldest["rawTokens"].as_u64().unwrap(),
    );
    assert!(
        at_200 < at_default && at_200 <= 200,
        "{at_200} vs {at_default}"
    );
    // The same limit from the environment.
    let env = command(root, "gain", &[])
        .env("PITH_GAIN_LIMIT", "200")
        .output()
        .unwrap();
    assert_eq!(common::answer_of(env, root).line, cut.line);

    // For a person: a table, the regression marked.
    let out = command(root, "gain", &["--human"]).output().unwrap();
    assert!(out.status.success());
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.lines().count() > 5, "{table}");
    assert!(table.contains("total") && table.contains(" !"), "{table}");
    assert!(table.contains("2/2, 2/2"), "{table}");
}
