//! The real `pith` binary on the JVM fixture projects beyond the shared scenarios of
//! `scenarios.rs` (where Maven's rows are): a real Gradle without a wrapper (Debian's 4.4.1 on
//! JUnit 4, `gradle` from PATH): statuses, exit codes, byte budgets, re-runs by id. The
//! artifacts come from the local repositories (~/.m2, ~/.gradle) that scripts/setup/jvm.sh
//! fills; the tests fail, never skip, when Maven or Gradle is missing.

use crate::common;

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

/// Was both subprojects' failures (pith's `--continue` ran every `test` task): `gradle test`
/// stops at the first `test` task that fails, and the one after it never runs. pith answers
/// the same failing ids, and runs nothing the developer's command does not.
#[test]
fn gradle_stops_where_gradle_test_stops() {
    let _one = gradle_lock();
    let ws = gradle_fixture("fail_fast");
    let raw = tempfile::tempdir().unwrap();
    pith_testkit::copy_tree(ws.path(), raw.path());
    let out = std::process::Command::new("gradle")
        .args(["test", "--console=plain"])
        .current_dir(raw.path())
        .output()
        .expect("gradle runs");
    let printed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{printed}");
    assert!(printed.contains(":core:test FAILED"), "{printed}");
    assert!(
        !raw.path().join("tools/build/test-results").exists(),
        "{printed}"
    );

    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.failure_ids(), ["demo.core.CoreTest#fails"], "{}", a.line);
    assert!(
        !ws.path().join("tools/build/test-results").exists(),
        "tools ran under pith: {}",
        a.line
    );

    // `ignoreFailures`: Gradle runs both and succeeds over their failures; pith answers them,
    // red, and says the command itself would exit 0.
    let build = ws.path().join("build.gradle");
    let mut text = std::fs::read_to_string(&build).unwrap();
    text.push_str("\nsubprojects { test { ignoreFailures = true } }\n");
    std::fs::write(&build, text).unwrap();
    let b = pith(ws.path(), &[]);
    assert_eq!((b.status(), b.code), ("TestsFailed", 1), "{}", b.line);
    assert_eq!(b.json["masked"], "ignoreFailures", "{}", b.line);
    assert_eq!(
        b.failure_ids(),
        ["demo.core.CoreTest#fails", "demo.tools.ToolsTest#fails"],
        "{}",
        b.line
    );
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
