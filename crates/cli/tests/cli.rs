//! The command-line contract that does not depend on a runner: exit code 2 with one clear
//! line when pith cannot do its job, argument errors, a closed stdout.

use std::process::{Command, Stdio};

fn pith() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pith"));
    c.env("XDG_CACHE_HOME", std::env::temp_dir().join("pith-it-cache"));
    c
}

#[test]
fn a_directory_without_a_runner_exits_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = pith()
        .args(["test", "--root"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("pith: no test runner found"), "{err}");
}

#[test]
fn bad_arguments_exit_2() {
    for args in [
        &["test", "--timeout", "0"][..],
        &["test", "--runner", "maven"],
        &["test", "--root", "/no/such/dir"],
        &["frobnicate"],
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("pytest.ini"), "[pytest]\n").unwrap();
        let out = pith().args(args).current_dir(dir.path()).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn a_runner_the_workspace_does_not_use_is_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pytest.ini"), "[pytest]\n").unwrap();
    let out = pith()
        .args(["test", "--runner", "cargo", "--root"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("runner cargo not found") && err.contains("detected: pytest"),
        "{err}"
    );
}

#[test]
fn a_closed_stdout_is_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("test_one.py"),
        "def test_one():\n    assert True\n",
    )
    .unwrap();
    let mut child = pith()
        .args(["test", "--root"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
