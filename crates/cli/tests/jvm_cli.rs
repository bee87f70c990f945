//! The real `pith` binary on the Maven fixture projects with the real Maven and Surefire
//! (JUnit 5): statuses, exit codes, answer shapes (snapshots), byte budgets and every false-green
//! case. The artifacts come from the local repository that scripts/setup/jvm.sh fills.

mod common;

use std::sync::Once;

use common::{fixture, pith};
use pith_wire::{GREEN_BUDGET, MANY_FAILURES_BUDGET, ONE_CAUSE_BUDGET, ONE_FAILURE_BUDGET};

/// Maven's own JVM starts faster without the optimizing compiler; the answers do not change.
fn fast_maven() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        assert!(
            std::process::Command::new("mvn")
                .arg("-v")
                .output()
                .is_ok_and(|o| o.status.success()),
            "Maven is not installed: run scripts/setup/jvm.sh"
        );
        std::env::set_var("MAVEN_OPTS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
    });
}

fn run(name: &str, extra: &[&str]) -> common::Answer {
    fast_maven();
    let ws = fixture(&format!("java/maven/{name}"));
    pith(ws.path(), extra)
}

fn frames(f: &serde_json::Value) -> Vec<&str> {
    f["frames"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default()
}

#[test]
fn green_run_is_tiny_and_exits_zero() {
    let a = run("green", &[]);
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
    assert_eq!(a.json["runner"], "maven");
    assert_eq!(a.json["passed"], 3, "{}", a.line);
    assert_eq!(a.json["skipped"], 1, "{}", a.line);
    a.assert_budget(GREEN_BUDGET);
    insta::assert_snapshot!(a.stable());
}

#[test]
fn one_failure_through_a_helper_has_two_project_frames_and_reruns_by_id() {
    fast_maven();
    let ws = fixture("java/maven/single");
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.failures().len(), 1, "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "demo.CalcTest#addsNegatives");
    assert_eq!(f["message"], "expected: <-4> but was: <-5>");
    let fr = frames(f);
    assert_eq!(
        fr,
        [
            "src/test/java/demo/CalcTest.java:25 assertEquals(want, Calc.add(a, b));",
            "src/test/java/demo/CalcTest.java:16 checkSum(-2, -3, -4);",
        ]
    );
    a.assert_budget(ONE_FAILURE_BUDGET);
    insta::assert_snapshot!(a.stable());

    // The id from the answer runs exactly that test; an id that names nothing is not found.
    let id = f["test"].as_str().unwrap().to_owned();
    let again = pith(ws.path(), &[&id, "demo.CalcTest#noSuchTest"]);
    assert_eq!(
        (again.status(), again.code),
        ("TestsFailed", 1),
        "{}",
        again.line
    );
    assert_eq!(again.json["failed"], 1, "{}", again.line);
    assert!(
        again.json.get("passed").is_none() && again.json.get("skipped").is_none(),
        "only the named test ran: {}",
        again.line
    );
    assert_eq!(again.failures()[0]["test"], id.as_str());
    assert_eq!(
        again.json["notFound"][0], "demo.CalcTest#noSuchTest",
        "{}",
        again.line
    );
}

#[test]
fn fifty_failures_from_one_helper_are_one_cluster() {
    let a = run("helper50", &[]);
    assert_eq!(a.status(), "TestsFailed", "{}", a.line);
    assert_eq!(a.json["failed"], 50, "{}", a.line);
    assert_eq!(a.failures().len(), 1, "{}", a.line);
    assert_eq!(a.failures()[0]["test"], "demo.ShapesTest#area(int)[1]");
    assert_eq!(a.failures()[0]["message"], "ArithmeticException: / by zero");
    assert_eq!(a.json["clusters"][0]["affected"], 50, "{}", a.line);
    assert_eq!(
        a.json["clusters"][0]["at"],
        "src/main/java/demo/Shapes.java:7"
    );
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
fn compile_error_is_build_failed_with_the_location() {
    let a = run("compile_error", &[]);
    assert_eq!((a.status(), a.code), ("BuildFailed", 1), "{}", a.line);
    let errors = a.json["buildErrors"].as_array().expect(&a.line);
    assert_eq!(
        errors.len(),
        1,
        "printed twice by Maven, kept once: {}",
        a.line
    );
    assert_eq!(errors[0]["at"], "src/main/java/demo/Calc.java:5");
    assert_eq!(errors[0]["message"], "cannot find symbol: variable c");
    insta::assert_snapshot!(a.stable());
}

#[test]
fn class_that_fails_to_load_is_collection_failed() {
    let a = run("load_error", &[]);
    assert_eq!((a.status(), a.code), ("CollectionFailed", 1), "{}", a.line);
    assert_eq!(a.json["passed"], 1, "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "src/test/java/demo/TableTest.java", "{}", a.line);
    assert_eq!(f["phase"], "collect");
    assert_eq!(
        f["message"],
        "ExceptionInInitializerError caused by NumberFormatException: For input string: \"ten\""
    );
    assert!(
        frames(f)[0].starts_with("src/test/java/demo/TableTest.java:8 "),
        "{}",
        a.line
    );
    insta::assert_snapshot!(a.stable());
}

#[test]
fn no_tests_is_not_green() {
    let a = run("empty", &[]);
    assert_eq!((a.status(), a.code), ("NoTestsRan", 1), "{}", a.line);
}

#[test]
fn system_exit_in_a_test_is_crashed_and_names_it() {
    let a = run("exit", &[]);
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    assert_eq!(a.json["running"][0], "demo.ExitTest#quits", "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "demo.ExitTest#quits");
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("exited with code 3"),
        "{}",
        a.line
    );
    assert!(a.json["tail"].is_string(), "{}", a.line);
    insta::assert_snapshot!(a.stable());
}

#[test]
fn hang_is_killed_at_the_timeout_and_named() {
    fast_maven();
    let ws = fixture("java/maven/hang");
    // Compile first, so the deadline measures the tests, not Maven's start and the compiler.
    let warm = pith(ws.path(), &["demo.HangTest#quick"]);
    assert_eq!(warm.status(), "TestsPassed", "{}", warm.line);
    let start = std::time::Instant::now();
    let a = pith(ws.path(), &["--timeout", "30"]);
    assert!(start.elapsed().as_secs() < 60, "not killed in time");
    assert_eq!((a.status(), a.code), ("TimedOut", 1), "{}", a.line);
    assert_eq!(
        a.json["running"][0], "demo.HangTest#sleepsForever",
        "{}",
        a.line
    );
    assert_eq!(
        a.json["passed"], 1,
        "the test that finished counts: {}",
        a.line
    );
}
