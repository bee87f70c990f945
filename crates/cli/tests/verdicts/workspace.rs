//! Verdicts that depend on the workspace as a whole rather than on one runner: every project
//! found runs (sibling projects under a root with no marker of its own), and the runner's
//! process tree dies with pith, even when pith is killed with SIGKILL.

use super::*;
use super::{Ids::*, Text::*};

use std::process::Stdio;
use std::time::{Duration, Instant};

table! {
    /// False green #4: a root with no project marker and two sibling Python projects. Only the
    /// first ran, and the other's failure was never seen. The id goes back to the project that
    /// holds it, and only that one runs.
    sibling_projects_all_run_and_each_is_named => Row {
        runner: Some("pytest"),
        passed: Some(2),
        failed: Some(1),
        runs: Exactly(&["a: TestsPassed", "b: TestsFailed"]),
        failing: First("b/tests/test_b.py::test_double"),
        failures: &[Failure {
            frame: At("b/tests/test_b.py:6"),
            ..fail("b/tests/test_b.py::test_double")
        }],
        then: &[
            Row {
                failed: Some(1),
                absent: &["runs"],
                ..again(&["b/tests/test_b.py::test_double"], FAILED, 1)
            },
            again(&["a/test_a.py::test_a"], PASSED, 0),
        ],
        ..row("workspace/siblings", FAILED, 1)
    };
}

// Hand-written: what these check is no answer, but the processes pith leaves behind.

fn alive(pid: i32) -> bool {
    // A zombie has died; only its parent's reaping is left.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) => false,
    }
}

/// SIGKILL of pith (a host killing its tool server, an OOM kill) must not orphan the runner:
/// its process group keeps running otherwise, test processes and their children included.
#[test]
fn the_runner_dies_with_pith_even_on_sigkill() {
    let ws = common::fixture("verdicts/workspace/sigkill");
    let pids_file = ws.path().join("pids.txt");
    let mut child = common::bare()
        .args(["test", "--root"])
        .arg(ws.path())
        .env("PITH_TEST_PIDS", &pids_file)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let pids: Vec<i32> = loop {
        if let Ok(text) = std::fs::read_to_string(&pids_file) {
            if text.ends_with('\n') {
                break text
                    .split_whitespace()
                    .map(|p| p.parse().unwrap())
                    .collect();
            }
        }
        assert!(Instant::now() < deadline, "the test never started");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(pids.len(), 2);
    assert!(pids.iter().all(|&p| alive(p)));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while pids.iter().any(|&p| alive(p)) {
        assert!(
            Instant::now() < deadline,
            "runner processes outlived pith: {:?}",
            pids.iter().filter(|&&p| alive(p)).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every process pith starts is reaped by pith: none is left for init, which in a container
/// whose first process never reaps keeps each one for good. A subreaper stands in for init
/// and counts what comes to it over a few runs (two projects, so two runners each).
#[test]
fn nothing_pith_starts_is_left_for_init_to_reap() {
    let ws = common::fixture("verdicts/workspace/siblings");
    let pith = common::bare();
    const COUNT_ORPHANS: &str = r#"
import ctypes, os, subprocess, sys, time
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
left = 0
for _ in range(3):
    subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.2)
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        left += 1
print(left)
"#;
    let mut python = std::process::Command::new("python3");
    python
        .args(["-c", COUNT_ORPHANS])
        .arg(pith.get_program())
        .args(["test", "--root"])
        .arg(ws.path());
    for (k, v) in pith.get_envs() {
        match v {
            Some(v) => python.env(k, v),
            None => python.env_remove(k),
        };
    }
    let out = python.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0");
}
