//! The real `pith` binary on the JVM fixture projects beyond the shared scenarios of
//! `scenarios.rs` (where Maven's rows are): a real Gradle without a wrapper (Debian's 4.4.1 on
//! JUnit 4, `gradle` from PATH): statuses, exit codes, byte budgets, re-runs by id. The
//! artifacts come from the local repositories (~/.m2, ~/.gradle) that scripts/setup/jvm.sh
//! fills; the tests fail, never skip, when Maven or Gradle is missing.

mod common;

use std::sync::{Mutex, MutexGuard, Once, PoisonError};

use common::{fixture, frames, pith, Fixture};
use pith_wire::{GREEN_BUDGET, ONE_FAILURE_BUDGET};

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

fn gradle_fixture(name: &str) -> Fixture {
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
