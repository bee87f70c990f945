//! `pith mcp` as hosts really run it (issue 15): sessions that only probe the server, servers
//! stopped by signals mid-run, and the JSON-RPC edges real clients hit. The malformed-input
//! table is in `mcp_cli.rs` beside the in-band tool errors.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::fixture;
use common::mcp::{raw_answer, Raw};
use serde_json::json;

/// Processes whose working directory is `dir` or below it (Linux `/proc`); a zombie has none.
fn pids_in(dir: &Path) -> Vec<u32> {
    let dir = dir.canonicalize().unwrap();
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(cwd) = std::fs::read_link(e.path().join("cwd")) {
            if cwd.starts_with(&dir) {
                found.push(pid);
            }
        }
    }
    found
}

/// Waits up to `wait` for `done`.
fn until(wait: Duration, mut done: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + wait;
    while Instant::now() < end {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done()
}

const HANG_RUN: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_tests","arguments":{}}}"#;

/// A server on the `python/hang` fixture (its cwd elsewhere) with a run under way.
fn hanging_run(ws: &Path) -> Raw {
    let mut raw = Raw::handshake(&std::env::temp_dir(), &["--root", ws.to_str().unwrap()]);
    raw.send(HANG_RUN);
    assert!(
        until(Duration::from_secs(60), || !pids_in(ws).is_empty()),
        "pytest never started; stderr: {}",
        raw.stderr()
    );
    // Past collection, into the test that sleeps.
    std::thread::sleep(Duration::from_millis(1500));
    raw
}

#[test]
fn a_session_that_only_discovers_ends_cleanly() {
    let ws = fixture("python/green");
    let mut raw = Raw::start(ws.path(), &[]);
    raw.request(
        1,
        "server/discover",
        json!({"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        }}),
    );
    assert_eq!(
        raw.close(Duration::from_secs(10)),
        Some(0),
        "{}",
        raw.stderr()
    );
    assert_eq!(raw.stderr(), "");

    // A client that goes without a word: the same.
    let mut raw = Raw::start(ws.path(), &[]);
    assert_eq!(
        raw.close(Duration::from_secs(10)),
        Some(0),
        "{}",
        raw.stderr()
    );
}

#[test]
fn sigterm_mid_run_answers_cancelled_and_leaves_nothing_running() {
    let ws = fixture("python/hang");
    let mut raw = hanging_run(ws.path());
    let pid = raw.child.id() as libc::pid_t;
    // SAFETY: kill sends a signal to the server this test started.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let line = raw.next_within(Duration::from_secs(30));
    let answer = raw_answer(&line);
    assert_eq!(answer["status"], "Cancelled", "{line}");
    assert_eq!(
        answer["running"],
        json!(["tests/test_hang.py::test_sleeps"]),
        "{line}"
    );
    assert!(
        until(Duration::from_secs(10), || pids_in(ws.path()).is_empty()),
        "left running: {:?}",
        pids_in(ws.path())
    );
    let _ = raw.close(Duration::from_secs(15));

    // Never recorded: the next status names no run.
    let status = common::query(ws.path(), &["status"]);
    assert!(status.json.get("lastRun").is_none(), "{}", status.line);
}

#[test]
fn a_server_killed_with_its_whole_group_takes_the_runner_along() {
    // What the MCP SDKs do to stop a server: SIGTERM to its process group, then SIGKILL
    // before pith's grace for the runner is over. The runner, in a group of its own, must
    // not outlive it.
    let ws = fixture("python/hang");
    let mut raw = hanging_run(ws.path());
    let pgid = raw.child.id() as libc::pid_t;
    // SAFETY: killpg signals the group of the server this test started (its own group).
    unsafe { libc::killpg(pgid, libc::SIGKILL) };
    let _ = raw.child.wait();
    assert!(
        until(Duration::from_secs(10), || pids_in(ws.path()).is_empty()),
        "the runner outlived its server: {:?}",
        pids_in(ws.path())
    );
}
