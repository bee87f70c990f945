//! The real `pith` binary on the JavaScript fixture projects with the real jest, vitest and node
//! test runner: statuses, exit codes, answer shapes (snapshots), byte budgets and every
//! false-green case. jest and vitest come from `tests/fixtures/js/node_modules`, installed by
//! `scripts/setup/js.sh` and linked into each fixture copy; without them these tests fail, they
//! never skip.

mod common;

use std::path::PathBuf;

use common::{fixture, pith};
use pith_wire::{GREEN_BUDGET, MANY_FAILURES_BUDGET, ONE_CAUSE_BUDGET, ONE_FAILURE_BUDGET};

const RUNNERS: [&str; 3] = ["jest", "vitest", "node"];

fn shared_node_modules() -> PathBuf {
    let p = common::repo_root().join("tests/fixtures/js/node_modules");
    for bin in ["jest", "vitest"] {
        assert!(
            p.join(".bin").join(bin).is_file(),
            "{bin} is not installed for the fixtures: run scripts/setup/js.sh"
        );
    }
    p
}

/// A copy of `tests/fixtures/js/<runner>/<name>`, with the shared runners linked in.
fn workspace(runner: &str, name: &str) -> tempfile::TempDir {
    let ws = fixture(&format!("js/{runner}/{name}"));
    if runner != "node" {
        std::os::unix::fs::symlink(shared_node_modules(), ws.path().join("node_modules")).unwrap();
    }
    ws
}

fn run(runner: &str, name: &str, extra: &[&str]) -> common::Answer {
    let ws = workspace(runner, name);
    let a = pith(ws.path(), extra);
    assert_eq!(a.json["runner"], runner, "{}", a.line);
    a
}

fn frames(f: &serde_json::Value) -> Vec<&str> {
    f["frames"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default()
}

#[test]
fn node_and_the_runners_are_installed() {
    assert!(
        std::process::Command::new("node")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success()),
        "node is not installed"
    );
    shared_node_modules();
}

#[test]
fn green_run_is_tiny_and_exits_zero() {
    for r in RUNNERS {
        let a = run(r, "green", &[]);
        assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
        assert_eq!(a.json["passed"], 3, "{}", a.line);
        a.assert_budget(GREEN_BUDGET);
        insta::assert_snapshot!(format!("green_{r}"), a.stable());
    }
}

#[test]
fn one_failure_in_a_helper_has_two_project_frames() {
    for r in RUNNERS {
        let a = run(r, "single", &[]);
        assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
        assert_eq!(
            (a.json["passed"].as_u64(), a.json["skipped"].as_u64()),
            (Some(2), Some(1)),
            "{}",
            a.line
        );
        let f = &a.failures()[0];
        assert_eq!(f["test"], "tests/prices.test.js > price > dollars");
        assert_eq!(
            f["message"],
            "TypeError: Cannot read properties of undefined (reading 'trim')"
        );
        let fr = frames(f);
        assert_eq!(fr.len(), 2, "{}", a.line);
        assert_eq!(
            fr[0],
            "src/prices.js:3 return dollars * 100 + Number(cents.trim());"
        );
        assert!(fr[1].starts_with("tests/prices.test.js:10 "), "{}", a.line);
        a.assert_budget(ONE_FAILURE_BUDGET);
        insta::assert_snapshot!(format!("single_{r}"), a.stable());
    }
}

#[test]
fn fifty_failures_from_one_helper_are_one_cluster() {
    for r in RUNNERS {
        let a = run(r, "helper50", &[]);
        assert_eq!(a.json["failed"], 50, "{}", a.line);
        assert_eq!(a.failures().len(), 1, "{}", a.line);
        assert_eq!(a.json["clusters"][0]["affected"], 50, "{}", a.line);
        assert_eq!(a.json["clusters"][0]["at"], "src/shapes.js:2", "{}", a.line);
        a.assert_budget(ONE_CAUSE_BUDGET);
        insta::assert_snapshot!(format!("helper50_{r}"), a.stable());
    }
}

#[test]
fn hundred_distinct_failures_fit_and_are_all_accounted_for() {
    for r in RUNNERS {
        let a = run(r, "distinct100", &[]);
        assert_eq!(a.json["failed"], 100, "{}", a.line);
        assert_eq!(a.accounted(), 100, "{}", a.line);
        assert_eq!(
            a.failures()[0]["test"],
            "tests/d0.test.js > value 0",
            "answers follow the files' order, not the workers': {}",
            a.line
        );
        a.assert_budget(MANY_FAILURES_BUDGET);
        insta::assert_snapshot!(format!("distinct100_{r}"), a.stable());
    }
}

#[test]
fn files_that_fail_to_load_are_not_green_and_carry_the_reason() {
    for r in RUNNERS {
        for name in ["load_error", "syntax_error"] {
            let a = run(r, name, &[]);
            assert_eq!((a.status(), a.code), ("CollectionFailed", 1), "{}", a.line);
            assert_eq!(
                a.json["passed"], 1,
                "the loading file still ran: {}",
                a.line
            );
            let f = &a.failures()[0];
            assert_eq!(f["test"], "tests/broken.test.js");
            assert_eq!(f["phase"], "collect");
            let message = f["message"].as_str().unwrap();
            if name == "load_error" {
                assert!(message.contains("Cannot find module"), "{}", a.line);
            } else {
                assert!(
                    frames(f)[0].starts_with("tests/broken.test.js:5"),
                    "the syntax error is located: {}",
                    a.line
                );
            }
            let tail = a.json["tail"].as_str().expect("a raw tail");
            assert!(tail.lines().count() <= 20 && tail.len() <= 1500);
            insta::assert_snapshot!(format!("{name}_{r}"), a.stable());
        }
    }
}

#[test]
fn no_tests_is_not_green() {
    for r in RUNNERS {
        let a = run(r, "empty", &[]);
        assert_eq!((a.status(), a.code), ("NoTestsRan", 1), "{}", a.line);
    }
}

#[test]
fn a_crash_is_crashed_and_names_the_test() {
    for (r, name, running) in [
        ("jest", "crash", "tests/crash.test.js > aborts"),
        ("jest", "crash_worker", "tests/crash.test.js > aborts"),
        ("vitest", "crash", "tests/crash.test.js"),
        ("node", "crash", "tests/crash.test.js"),
    ] {
        let a = run(r, name, &[]);
        assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
        assert_eq!(a.json["running"][0], running, "{}", a.line);
        assert_eq!(a.failures()[0]["test"], running, "{}", a.line);
        let tail = a.json["tail"].as_str().expect("a raw tail");
        assert!(tail.lines().count() <= 20 && tail.len() <= 1500);
        assert!(
            !tail.contains(": 0x"),
            "native stack addresses are noise: {tail}"
        );
    }
}

#[test]
fn a_hang_is_killed_at_the_timeout_and_named() {
    // jest and vitest take seconds to start on a loaded machine; node's timeout is short.
    for (r, timeout) in [("jest", "20"), ("vitest", "20"), ("node", "5")] {
        let ws = workspace(r, "hang");
        let start = std::time::Instant::now();
        let a = pith(ws.path(), &["--timeout", timeout]);
        assert!(start.elapsed().as_secs() < 45, "{r}: not killed in time");
        assert_eq!((a.status(), a.code), ("TimedOut", 1), "{}", a.line);
        assert_eq!(
            a.json["running"],
            serde_json::json!(["tests/hang.test.js > server > waits forever"]),
            "{}",
            a.line
        );
        assert_eq!(a.json["passed"], 1, "what finished is counted: {}", a.line);
    }
}

#[test]
fn missing_snapshots_fail_and_are_not_written() {
    for r in ["jest", "vitest"] {
        let ws = workspace(r, "snapshot");
        let a = pith(ws.path(), &[]);
        assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
        assert!(
            !ws.path().join("tests/__snapshots__").exists(),
            "{r} wrote into the project"
        );
    }
}

#[test]
fn ids_from_an_answer_rerun_exactly_those_tests() {
    for r in RUNNERS {
        let ws = workspace(r, "single");
        let first = pith(ws.path(), &[]);
        common::assert_reruns_only(ws.path(), &[], &first, 0, &[]);
        common::assert_not_found(
            ws.path(),
            &[],
            &[
                "tests/prices.test.js > price > euros?",
                "tests/nope.test.js > x",
            ],
        );
    }
}

/// The runners' own markers of a parent run and the caller's colour setting change nothing in
/// the answer: pith removes the markers (they would make the runner report to a parent that is
/// not there) and strips colour from what it reads.
#[test]
fn the_callers_shell_does_not_change_the_answer() {
    for r in RUNNERS {
        let plain = run(r, "single", &[]);
        // A fresh copy: the history of the first run would mark the failure as repeated.
        let ws = workspace(r, "single");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_pith"))
            .args(["test", "--root"])
            .arg(ws.path())
            .env("FORCE_COLOR", "3")
            .env("NODE_ENV", "production")
            .env("NODE_TEST_CONTEXT", "child-v8")
            .env("JEST_WORKER_ID", "7")
            .env("VITEST_WORKER_ID", "3")
            .env("VITEST", "true")
            .env("CI", "true")
            .env("XDG_CACHE_HOME", std::env::temp_dir().join("pith-it-cache"))
            .output()
            .unwrap();
        let hostile = common::answer_of(out, ws.path());
        assert_eq!(plain.stable(), hostile.stable(), "{r}");
    }
}

/// The caller's `NODE_OPTIONS` reaches the tests as in a raw run: a preload that does not
/// exist breaks the run, and the answer says so rather than running without it.
#[test]
fn the_callers_node_options_are_the_tests_own() {
    for r in RUNNERS {
        let ws = workspace(r, "green");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_pith"))
            .args(["test", "--root"])
            .arg(ws.path())
            .env("NODE_OPTIONS", "--require /nonexistent/preload.js")
            .env("XDG_CACHE_HOME", std::env::temp_dir().join("pith-it-cache"))
            .output()
            .unwrap();
        let a = common::answer_of(out, ws.path());
        assert_ne!(a.status(), "TestsPassed", "{r}: {}", a.line);
        assert_eq!(a.code, 1, "{r}: {}", a.line);
        assert!(
            a.json["tail"]
                .as_str()
                .unwrap_or("")
                .contains("Cannot find module '/nonexistent/preload.js'"),
            "{r}: {}",
            a.line
        );
    }
}
