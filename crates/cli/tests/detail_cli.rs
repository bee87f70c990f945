//! `pith failures` through the real binary and the real runners: the detail on demand is the
//! failure's whole text (every line, the runner's diff, the cause chain), stored by `pith test`
//! and read back within its budget; long equality operands in `pith test` are told by where
//! they first differ.

use crate::common;

use std::path::Path;

use common::{fixture, pith, Answer};
use pith_wire::FAILURE_DETAIL_BUDGET;

fn failures(root: &Path, tests: &[&str]) -> Answer {
    let out = common::bare()
        .arg("failures")
        .arg("--root")
        .arg(root)
        .args(tests)
        .current_dir(root)
        .output()
        .expect("run pith");
    common::answer_of(out, root)
}

/// `pith test`, then `pith failures <test>`: the failure's message in detail.
fn detail_of(root: &Path, test: &str) -> String {
    let run = pith(root, &[]);
    println!("pith test ({} bytes): {}", run.bytes(), run.line);
    assert_eq!(run.status(), "TestsFailed", "{}", run.line);
    let one = failures(root, &[test]);
    println!("pith failures ({} bytes): {}", one.bytes(), one.line);
    one.assert_budget(FAILURE_DETAIL_BUDGET);
    assert_eq!(one.failures().len(), 1, "{}", one.line);
    let f = &one.failures()[0];
    assert_eq!(f["test"], test);
    assert!(!f["frames"].as_array().unwrap().is_empty(), "{}", one.line);
    f["message"].as_str().unwrap().to_owned()
}

#[test]
fn go_fatalf_keeps_expected_and_actual() {
    let ws = fixture("go/detail_fatalf");
    assert_eq!(
        detail_of(ws.path(), "example.com/detail.TestNewer"),
        "1.10.0 >= 1.9.0\nexpected: true\nactual: false"
    );
}

#[test]
fn pytest_keeps_the_diff_and_the_chain() {
    let ws = fixture("python/detail_chain");
    let root = ws.path();
    let unittest = detail_of(root, "tests/test_config.py::TestSquares::test_list");
    assert!(
        unittest
            .starts_with("AssertionError: Lists differ: [0, 1, 4, 9, 16] != [0, 1, 4, 9, 17]\n")
            && unittest.contains("\n- [0, 1, 4, 9, 16]\n"),
        "{unittest}"
    );
    let chained = failures(root, &["tests/test_config.py::test_port"]);
    assert_eq!(
        chained.failures()[0]["message"],
        "RuntimeError: bad config\n\nThe direct cause of the above exception:\nValueError: invalid literal for int() with base 10: '80a'\n  config.py:6 return int(settings[\"port\"])"
    );
}

#[test]
fn jest_keeps_the_cause_and_long_values_differ_in_the_answer() {
    let ws = fixture("js/jest/detail_chain");
    common::link_node_modules(ws.path());
    let root = ws.path();
    let detail = detail_of(root, "tests/config.test.js > port");
    assert_eq!(
        detail,
        "Error: bad config\n\n[cause]: TypeError: not a number: 80a\n    at src/config.js:9\n    at src/config.js:15\n    at tests/config.test.js:12"
    );
    let run = pith(root, &[]);
    assert!(
        run.line
            .contains("differ at offset 56: Expected …96,225,256,289,"),
        "{}",
        run.line
    );
}

#[test]
fn cargo_keeps_the_whole_panic_and_long_operands_differ_in_the_answer() {
    let ws = fixture("rust/long_equal");
    let root = ws.path();
    let detail = detail_of(root, "long_equal tests::negative_port");
    assert_eq!(detail, "bad config:\n  port: -1\n  expected: 0..=65535");
    let run = pith(root, &[]);
    assert!(
        run.line.contains("differ at [17]: left … 225, 256, 290,"),
        "{}",
        run.line
    );
    let eq = failures(root, &["long_equal tests::squares_of_forty"]);
    let m = eq.failures()[0]["message"].as_str().unwrap().to_owned();
    assert!(
        m.starts_with("assertion `left == right` failed\n  left: [0, 1, 4,")
            && m.ends_with(", 1521]"),
        "both operands whole: {m}"
    );
}
