//! The real `pith` binary on the JVM fixture projects: Maven and Surefire (JUnit 5), and a
//! real Gradle without a wrapper (Debian's 4.4.1 on JUnit 4, `gradle` from PATH): statuses,
//! exit codes, answer shapes (snapshots), byte budgets and every false-green case. The
//! artifacts come from the local repositories (~/.m2, ~/.gradle) that scripts/setup/jvm.sh
//! fills; the tests fail, never skip, when Maven or Gradle is missing.

mod common;

use std::sync::{Mutex, MutexGuard, Once, PoisonError};

use common::{fixture, pith};
use pith_wire::{GREEN_BUDGET, MANY_FAILURES_BUDGET, ONE_CAUSE_BUDGET, ONE_FAILURE_BUDGET};

/// Maven must be installed. Its own JVM starts faster without the optimizing compiler: each
/// fixture says so in its `.mvn/jvm.config` (the project's own setting), so the environment
/// pith and the tests see is the harness's, unchanged.
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
    common::assert_reruns_only(ws.path(), &[], &a, 0, &["demo.CalcTest#noSuchTest"]);
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

/// Gradle builds run one at a time: each concurrent build starts a daemon of its own (a JVM of
/// a few hundred MB that stays up after it), while one after another they share one.
fn gradle_lock() -> MutexGuard<'static, ()> {
    static ONCE: Once = Once::new();
    static LOCK: Mutex<()> = Mutex::new(());
    ONCE.call_once(|| {
        assert!(
            std::process::Command::new("gradle")
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success()),
            "Gradle is not installed: run scripts/setup/jvm.sh"
        );
    });
    // A failed test must not fail the others with it.
    LOCK.lock().unwrap_or_else(PoisonError::into_inner)
}

fn gradle_fixture(name: &str) -> tempfile::TempDir {
    let ws = fixture(&format!("java/gradle/{name}"));
    assert!(
        !ws.path().join("gradlew").exists(),
        "the real-Gradle fixtures have no wrapper: pith runs `gradle` from PATH"
    );
    ws
}

#[test]
fn gradle_green_run_is_tiny_and_exits_zero() {
    let _one = gradle_lock();
    let ws = gradle_fixture("green");
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
    assert_eq!(a.json["runner"], "gradle");
    assert_eq!(a.json["passed"], 2, "{}", a.line);
    assert_eq!(a.json["skipped"], 1, "{}", a.line);
    assert!(
        ws.path()
            .join("build/test-results/test/TEST-demo.CalcTest.xml")
            .is_file(),
        "Gradle ran the tests: {}",
        a.line
    );
    a.assert_budget(GREEN_BUDGET);

    // Nothing changed: Gradle would call the test task up to date and run nothing; pith's run
    // runs the tests again.
    let again = pith(ws.path(), &[]);
    assert_eq!(
        (again.status(), again.code),
        ("TestsPassed", 0),
        "{}",
        again.line
    );
    assert_eq!(again.json["passed"], 2, "{}", again.line);
}

#[test]
fn gradle_one_failure_through_a_helper_has_two_project_frames_and_reruns_by_id() {
    let _one = gradle_lock();
    let ws = gradle_fixture("single");
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.json["runner"], "gradle");
    assert_eq!(
        (&a.json["passed"], &a.json["failed"], &a.json["skipped"]),
        (&1.into(), &1.into(), &1.into()),
        "{}",
        a.line
    );
    assert_eq!(a.failures().len(), 1, "{}", a.line);
    let f = &a.failures()[0];
    // JUnit 4 under Gradle names a method without `()`.
    assert_eq!(f["test"], "demo.CalcTest#addsNegatives");
    assert_eq!(f["message"], "expected:<-4> but was:<-5>");
    assert_eq!(
        frames(f),
        [
            "src/test/java/demo/CalcTest.java:25 assertEquals(want, Calc.add(a, b));",
            "src/test/java/demo/CalcTest.java:16 checkSum(-2, -3, -4);",
        ]
    );
    a.assert_budget(ONE_FAILURE_BUDGET);

    // The id from the answer runs exactly that test (`--tests demo.CalcTest.addsNegatives`);
    // an id that names nothing is not found.
    common::assert_reruns_only(ws.path(), &[], &a, 0, &["demo.CalcTest#noSuchTest"]);

    // A passing test by its id is green on its own.
    let one = pith(ws.path(), &["demo.CalcTest#adds"]);
    assert_eq!((one.status(), one.code), ("TestsPassed", 0), "{}", one.line);
    assert_eq!(one.json["passed"], 1, "{}", one.line);
    assert!(one.json.get("skipped").is_none(), "{}", one.line);
}

#[test]
fn gradle_compile_error_is_build_failed_with_the_location() {
    let _one = gradle_lock();
    let ws = gradle_fixture("compile_error");
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("BuildFailed", 1), "{}", a.line);
    assert_eq!(a.json["runner"], "gradle");
    let errors = a.json["buildErrors"].as_array().expect(&a.line);
    assert_eq!(errors.len(), 1, "{}", a.line);
    assert_eq!(errors[0]["at"], "src/main/java/demo/Calc.java:5");
    assert_eq!(errors[0]["message"], "cannot find symbol: variable c");
}
