//! The real `pith` binary on the Rust fixture projects, through both paths (nextest and plain
//! `cargo test`): statuses, exit codes, answer shapes (snapshots) and byte budgets.

mod common;

use common::{fixture, pith, pith_in};
use pith_wire::{GREEN_BUDGET, MANY_FAILURES_BUDGET, ONE_CAUSE_BUDGET, ONE_FAILURE_BUDGET};

const PATHS: [&str; 2] = ["nextest", "cargo"];

fn run(name: &str, path: &str, extra: &[&str]) -> common::Answer {
    let ws = fixture(&format!("rust/{name}"));
    let mut args = vec!["--runner", path];
    args.extend_from_slice(extra);
    pith(ws.path(), &args)
}

#[test]
fn green_run_is_tiny_and_exits_zero() {
    for path in PATHS {
        let a = run("green", path, &[]);
        assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
        assert_eq!(a.json["runner"], path);
        a.assert_budget(GREEN_BUDGET);
        insta::assert_snapshot!(format!("green_{path}"), a.stable());
    }
}

#[test]
fn one_failure_names_test_message_and_two_project_frames() {
    for path in PATHS {
        let a = run("single", path, &[]);
        assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
        let f = &a.failures()[0];
        assert_eq!(f["test"], "single tests::off_by_one");
        assert_eq!(
            f["message"],
            "assertion `left == right` failed (left: 4, right: 5)"
        );
        let frames: Vec<&str> = f["frames"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert!(frames[0].starts_with("src/lib.rs:11 "), "{frames:?}");
        assert!(frames[1].starts_with("src/lib.rs:34 "), "{frames:?}");
        a.assert_budget(ONE_FAILURE_BUDGET);
        insta::assert_snapshot!(format!("single_{path}"), a.stable());
    }
}

#[test]
fn fifty_failures_from_one_helper_are_one_cluster() {
    for path in PATHS {
        let a = run("helper50", path, &[]);
        assert_eq!(a.status(), "TestsFailed");
        assert_eq!(a.json["failed"], 50, "{}", a.line);
        assert_eq!(a.failures().len(), 1, "{}", a.line);
        assert_eq!(a.json["clusters"][0]["affected"], 50, "{}", a.line);
        a.assert_budget(ONE_CAUSE_BUDGET);
    }
}

#[test]
fn hundred_distinct_failures_fit_and_are_all_accounted_for() {
    for path in PATHS {
        let a = run("distinct100", path, &[]);
        assert_eq!(a.json["failed"], 100, "{}", a.line);
        assert_eq!(a.accounted(), 100, "{}", a.line);
        a.assert_budget(MANY_FAILURES_BUDGET);
    }
}

#[test]
fn compile_error_is_build_failed_once() {
    for path in PATHS {
        let a = run("compile_error", path, &[]);
        assert_eq!((a.status(), a.code), ("BuildFailed", 1), "{}", a.line);
        let errors = a.json["buildErrors"].as_array().unwrap();
        assert_eq!(
            errors.len(),
            1,
            "deduplicated across lib and lib-test: {}",
            a.line
        );
        assert_eq!(errors[0]["at"], "src/lib.rs:2");
        assert_eq!(errors[0]["code"], "E0308");
        insta::assert_snapshot!(format!("compile_error_{path}"), a.stable());
    }
}

#[test]
fn abort_is_crashed_not_green() {
    for path in PATHS {
        let a = run("crash", path, &[]);
        assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
        assert!(a.line.contains("SIGABRT"), "{}", a.line);
        assert!(
            a.line.contains("tests::aborts"),
            "the crashed test is named: {}",
            a.line
        );
    }
}

#[test]
fn hang_is_killed_at_the_timeout_and_named() {
    for path in PATHS {
        let ws = fixture("rust/hang");
        // Build first so the deadline measures the tests, not the compiler.
        let warm = pith(ws.path(), &["--runner", path, "hang tests::quick"]);
        assert_eq!(warm.status(), "TestsPassed", "{}", warm.line);
        let start = std::time::Instant::now();
        let a = pith(ws.path(), &["--runner", path, "--timeout", "10"]);
        assert!(start.elapsed().as_secs() < 30, "not killed in time");
        assert_eq!((a.status(), a.code), ("TimedOut", 1), "{}", a.line);
        assert_eq!(
            a.json["running"][0], "hang tests::sleeps_forever",
            "{}",
            a.line
        );
    }
}

#[test]
fn no_tests_is_not_green() {
    for path in PATHS {
        let a = run("empty", path, &[]);
        assert_eq!((a.status(), a.code), ("NoTestsRan", 1), "{}", a.line);
    }
}

#[test]
fn ids_from_an_answer_rerun_exactly_those_tests() {
    for path in PATHS {
        let ws = fixture("rust/single");
        let runner = ["--runner", path];
        let first = pith(ws.path(), &runner);
        common::assert_reruns_only(ws.path(), &runner, &first, 0, &[]);
        common::assert_not_found(ws.path(), &runner, &["single tests::no_such_test"]);
    }
}

#[test]
fn workspace_frames_cross_crates_and_root_is_found_from_a_member() {
    let ws = fixture("rust/workspace");
    for path in PATHS {
        // Started inside a member crate with its own Cargo.toml: the answer is about the
        // workspace, paths relative to its root.
        let member = ws.path().join("crates/b");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_pith"))
            .args(["test", "--runner", path])
            .current_dir(&member)
            .env("CARGO_TARGET_DIR", common::shared_target())
            .output()
            .unwrap();
        let line = String::from_utf8(out.stdout).unwrap();
        common::assert_clean(line.trim_end(), ws.path());
        let bad = line.find("b tests::bad_addr").expect(&line);
        assert!(line[bad..].contains("crates/a/src/lib.rs:2"), "{line}");
        assert!(line[bad..].contains("crates/b/src/lib.rs:"), "{line}");
    }
    let a = pith_in(ws.path(), ws.path(), &["--runner", "nextest"]);
    insta::assert_snapshot!("workspace_nextest", a.stable());
}
