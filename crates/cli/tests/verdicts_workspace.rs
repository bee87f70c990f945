//! Verdicts that depend on the workspace as a whole rather than on one runner: every project
//! found runs (sibling projects under a root with no marker of its own), and the runner's
//! process tree dies with pith, even when pith is killed with SIGKILL.

use crate::common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{fixture, pith};

/// False green #4: a root with no project marker and two sibling Python projects. Only the
/// first ran, and the other's failure was never seen.
#[test]
fn sibling_projects_all_run_and_each_is_named() {
    let ws = fixture("verdicts/workspace/siblings");
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.json["runner"], "pytest", "{}", a.line);
    assert_eq!(
        (a.json["passed"].as_u64(), a.json["failed"].as_u64()),
        (Some(2), Some(1)),
        "{}",
        a.line
    );
    let runs = a.json["runs"]
        .as_array()
        .unwrap_or_else(|| panic!("no runs: {}", a.line));
    let dirs: Vec<(&str, &str)> = runs
        .iter()
        .map(|r| (r["dir"].as_str().unwrap(), r["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        dirs,
        [("a", "TestsPassed"), ("b", "TestsFailed")],
        "{}",
        a.line
    );
    let f = &a.failures()[0];
    assert_eq!(f["test"], "b/tests/test_b.py::test_double", "{}", a.line);
    assert_eq!(
        f["frames"][0].as_str().unwrap().split(' ').next(),
        Some("b/tests/test_b.py:6")
    );

    // The id goes back to the project that holds it, and only that one runs.
    let again = pith(ws.path(), &["b/tests/test_b.py::test_double"]);
    assert_eq!(
        (
            again.status(),
            again.json["failed"].as_u64(),
            again.json.get("runs")
        ),
        ("TestsFailed", Some(1), None),
        "{}",
        again.line
    );
    let green = pith(ws.path(), &["a/test_a.py::test_a"]);
    assert_eq!(
        (green.status(), green.code),
        ("TestsPassed", 0),
        "{}",
        green.line
    );
}

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
    let ws = fixture("verdicts/workspace/sigkill");
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
    let ws = fixture("verdicts/workspace/siblings");
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
