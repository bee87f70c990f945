//! The real `pith` binary on the C++ fixture projects (CMake + GoogleTest under CTest, built
//! with the machine's toolchain: scripts/setup/cpp.sh): statuses, exit codes, answer shapes
//! (snapshots), byte budgets, and every false-green case on real output.

mod common;

use common::{fixture, pith};
use pith_wire::{GREEN_BUDGET, MANY_FAILURES_BUDGET, ONE_CAUSE_BUDGET, ONE_FAILURE_BUDGET};

fn run(name: &str, extra: &[&str]) -> common::Answer {
    let ws = fixture(&format!("cpp/{name}"));
    pith(ws.path(), extra)
}

#[test]
fn green_run_is_tiny_and_exits_zero() {
    let a = run("green", &[]);
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
    assert_eq!(a.json["runner"], "ctest");
    assert_eq!(a.json["passed"], 3);
    a.assert_budget(GREEN_BUDGET);
    insta::assert_snapshot!(a.stable());
}

#[test]
fn one_failure_through_a_helper_has_two_project_frames() {
    let a = run("single", &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.json["skipped"], 1, "the DISABLED_ test: {}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "Calc.OffByOne");
    assert_eq!(
        f["message"],
        "Expected equality: add(a, b) == want (4 vs 5)"
    );
    assert_eq!(
        f["frames"][0],
        "tests/calc_test.cc:8 EXPECT_EQ(add(a, b), want);"
    );
    assert_eq!(f["frames"][1], "tests/calc_test.cc:24 CHECK_SUM(2, 2, 5);");
    a.assert_budget(ONE_FAILURE_BUDGET);
    insta::assert_snapshot!(a.stable());
}

#[test]
fn fifty_failures_from_one_helper_are_one_cluster() {
    let a = run("helper50", &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.json["failed"], 50, "{}", a.line);
    assert_eq!(a.failures().len(), 1, "{}", a.line);
    assert_eq!(a.failures()[0]["test"], "Sizes/AreaTest.Matches/0");
    assert_eq!(a.json["clusters"][0]["affected"], 50, "{}", a.line);
    assert_eq!(a.json["clusters"][0]["at"], "tests/shapes_test.cc:6");
    a.assert_budget(ONE_CAUSE_BUDGET);
    insta::assert_snapshot!(a.stable());
}

#[test]
fn hundred_distinct_failures_fit_and_are_all_accounted_for() {
    let a = run("distinct100", &[]);
    assert_eq!(a.json["failed"], 100, "{}", a.line);
    assert_eq!(a.accounted(), 100, "{}", a.line);
    a.assert_budget(MANY_FAILURES_BUDGET);
    insta::assert_snapshot!(a.stable());
}

#[test]
fn compile_error_is_build_failed_at_its_line() {
    let a = run("compile_error", &[]);
    assert_eq!((a.status(), a.code), ("BuildFailed", 1), "{}", a.line);
    let errors = a.json["buildErrors"].as_array().unwrap();
    assert_eq!(errors[0]["at"], "src/calc.cc:3", "{}", a.line);
    assert_eq!(errors[0]["message"], "'c' was not declared in this scope");
    assert!(a.json.get("passed").is_none(), "nothing ran: {}", a.line);
    insta::assert_snapshot!(a.stable());
}

#[test]
fn a_segfault_is_crashed_and_names_the_test() {
    let a = run("crash", &[]);
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    assert_eq!(a.failures()[0]["test"], "Crash.Segfaults", "{}", a.line);
    assert_eq!(a.failures()[0]["message"], "crashed with SIGSEGV");
    // Crash.After never ran: the answer says one of three did not finish.
    assert_eq!(a.json["selected"], 3, "{}", a.line);
    assert_eq!(a.json["passed"], 1, "{}", a.line);
    let tail = a.json["tail"].as_str().expect("a raw tail");
    assert!(tail.ends_with("[ RUN      ] Crash.Segfaults"), "{tail}");
    assert!(tail.lines().count() <= 20 && tail.len() <= 1500);
    insta::assert_snapshot!(a.stable());
}

#[test]
fn a_suite_that_cannot_set_up_is_a_collection_error() {
    let a = run("suite_setup", &[]);
    assert_eq!((a.status(), a.code), ("CollectionFailed", 1), "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "Db");
    assert_eq!(f["phase"], "collect");
    assert_eq!(f["message"], "database not reachable");
    assert_eq!(a.json["skipped"], 2, "its tests never ran: {}", a.line);
    insta::assert_snapshot!(a.stable());
}

#[test]
fn hang_is_killed_at_the_timeout_and_named() {
    let ws = fixture("cpp/hang");
    // Build first so the deadline measures the tests, not the compiler.
    let warm = pith(ws.path(), &["Hang.Quick"]);
    assert_eq!(warm.status(), "TestsPassed", "{}", warm.line);
    let start = std::time::Instant::now();
    let a = pith(ws.path(), &["--timeout", "10"]);
    assert!(start.elapsed().as_secs() < 30, "not killed in time");
    assert_eq!((a.status(), a.code), ("TimedOut", 1), "{}", a.line);
    assert_eq!(a.json["running"][0], "Hang.Forever", "{}", a.line);
    assert_eq!(a.json["running"].as_array().unwrap().len(), 1);
}

#[test]
fn no_tests_is_not_green() {
    let a = run("empty", &[]);
    assert_eq!((a.status(), a.code), ("NoTestsRan", 1), "{}", a.line);
}

#[test]
fn ids_from_an_answer_rerun_exactly_those_tests() {
    let ws = fixture("cpp/helper50");
    let first = pith(ws.path(), &[]);
    common::assert_reruns_only(ws.path(), &[], &first, 0, &[]);
    common::assert_not_found(ws.path(), &[], &["Sizes/AreaTest.Matches/50"]);
}

#[test]
fn the_callers_shell_does_not_change_the_answer() {
    let plain = run("single", &[]);
    // A filter that hides the failure, disabled tests switched on, colour forced: pith sets
    // the tests' environment itself. (A fresh copy: the history of the first would show.)
    let ws = fixture("cpp/single");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pith"))
        .args(["test", "--root"])
        .arg(ws.path())
        .env("GTEST_FILTER", "Calc.Adds")
        .env("GTEST_ALSO_RUN_DISABLED_TESTS", "1")
        .env("GTEST_COLOR", "yes")
        .env("GTEST_BRIEF", "1")
        .env("CLICOLOR_FORCE", "1")
        .env("XDG_CACHE_HOME", std::env::temp_dir().join("pith-it-cache"))
        .output()
        .unwrap();
    let line = String::from_utf8(out.stdout).unwrap();
    common::assert_clean(line.trim_end(), ws.path());
    let hostile = common::Answer {
        line: line.trim_end().to_owned(),
        json: serde_json::from_str(line.trim_end()).unwrap(),
        code: out.status.code().unwrap(),
        stderr: String::new(),
    };
    assert_eq!(plain.stable(), hostile.stable());
}
