//! `pith mcp` as hosts really run it (issue 15): sessions that only probe the server, servers
//! stopped by signals mid-run, and the JSON-RPC edges real clients hit. The malformed-input
//! table is in `mcp_cli.rs` beside the in-band tool errors.

use crate::common;

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

/// A pytest workspace whose one test says it started (a `started` file), then sleeps.
fn hanging_workspace() -> tempfile::TempDir {
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("pytest.ini"), "[pytest]\n").unwrap();
    std::fs::write(
        ws.path().join("test_hang.py"),
        "import time\n\n\ndef test_sleeps():\n    open(\"started\", \"w\").close()\n    time.sleep(3600)\n",
    )
    .unwrap();
    ws
}

/// A server on `ws` (its cwd elsewhere) with a run under way, inside the test that sleeps.
fn hanging_run(ws: &Path) -> Raw {
    let mut raw = Raw::handshake(&std::env::temp_dir(), &["--root", ws.to_str().unwrap()]);
    raw.send(HANG_RUN);
    assert!(
        until(Duration::from_secs(60), || ws.join("started").exists()),
        "the test never started; stderr: {}",
        raw.stderr()
    );
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
    let ws = hanging_workspace();
    let mut raw = hanging_run(ws.path());
    let pid = raw.child.id() as libc::pid_t;
    // SAFETY: kill sends a signal to the server this test started.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let line = raw.next_within(Duration::from_secs(30));
    let answer = raw_answer(&line);
    assert_eq!(answer["status"], "Cancelled", "{line}");
    assert_eq!(
        answer["running"],
        json!(["test_hang.py::test_sleeps"]),
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
    let ws = hanging_workspace();
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

/// A plan for the SDK client: `pith mcp` with no `--root`, started in `cwd`.
fn rootless(cwd: &Path, roots: Option<Vec<String>>, steps: serde_json::Value) -> serde_json::Value {
    let mut plan = json!({
        "command": [env!("CARGO_BIN_EXE_pith"), "mcp"],
        "cwd": cwd,
        "mode": "handshake",
        "steps": steps,
    });
    if let Some(roots) = roots {
        plan["roots"] = json!(roots);
    }
    plan
}

fn uri(dir: &Path) -> String {
    format!("file://{}", dir.canonicalize().unwrap().display())
}

/// The answer of a tool result step, parsed.
fn answer(step: &serde_json::Value) -> serde_json::Value {
    serde_json::from_str(&common::mcp::answer_text(step)).unwrap()
}

#[test]
fn without_root_the_server_asks_the_client_for_its_roots_and_follows_their_changes() {
    // Started where there is no project: the client's root decides.
    let nowhere = tempfile::tempdir().unwrap();
    let red = fixture("python/single");
    let green = fixture("python/green");
    let steps = json!([
        {"call": "run_tests"},
        {"roots": [uri(green.path())]},
        {"call": "run_tests"},
        {"call": "get_status"},
    ]);
    let out = common::mcp::client(rootless(nowhere.path(), Some(vec![uri(red.path())]), steps));
    assert_eq!(answer(&out[1])["status"], "TestsFailed", "{}", out[1]);
    assert_eq!(answer(&out[3])["status"], "TestsPassed", "{}", out[3]);
    assert_eq!(
        answer(&out[4])["lastRun"]["status"],
        "TestsPassed",
        "{}",
        out[4]
    );
    assert!(common::state_dir(red.path()).join("state.db").is_file());
    assert!(common::state_dir(green.path()).join("state.db").is_file());
    assert!(!common::state_dir(nowhere.path()).exists());
    assert!(!red.path().join(".pith").exists());
}

#[test]
fn without_roots_or_a_project_tools_answer_with_the_fix_and_nothing_is_scanned() {
    let nowhere = tempfile::tempdir().unwrap();
    // A home directory that looks like a project (a dotfiles repository).
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".git")).unwrap();
    std::fs::create_dir_all(home.path().join("notes")).unwrap();
    let steps = json!([
        {"call": "get_status"},
        {"call": "run_tests"},
        {"call": "get_guide", "args": {"topic": "ids"}},
    ]);
    for (cwd, roots, says) in [
        (nowhere.path().to_path_buf(), None, "is in no project"),
        (home.path().join("notes"), None, "your home directory"),
        // Roots the server will not adopt: the filesystem root, the home directory.
        (
            home.path().join("notes"),
            Some(vec!["file:///".to_owned(), uri(home.path())]),
            "your home directory",
        ),
    ] {
        let mut plan = rootless(&cwd, roots, steps.clone());
        plan["env"] = json!({"HOME": home.path()});
        let out = common::mcp::client(plan);
        for step in &out[1..3] {
            let e = common::mcp::error_text(step);
            assert!(e.starts_with("no workspace: "), "{e}");
            assert!(e.contains(says) && e.contains("pith mcp --root DIR"), "{e}");
        }
        assert!(common::mcp::answer_text(&out[3]).starts_with("# Test ids"));
        assert!(!common::state_dir(&cwd).exists());
        assert!(!common::state_dir(home.path()).exists());
    }
}

#[test]
fn a_server_in_the_home_directory_answers_for_each_project_a_call_names() {
    // A user-level install: the server starts in the home directory (no project there), the
    // client sends no roots (protocol 2026-07-28 drops them), and each call names its project
    // by `root`: a passing pytest project by absolute path, a failing Go module by a path
    // relative to the server's directory, then a file inside it.
    let go = pith_testkit::fixture_at("go/single", "proj");
    let home = go.path().parent().unwrap().canonicalize().unwrap();
    let py = fixture("python/green");
    let py_root = py.path().to_str().unwrap();
    let mut cmd = common::bare();
    cmd.arg("mcp").current_dir(&home).env("HOME", &home);
    let mut raw = Raw::spawn(cmd);
    raw.initialize();
    let mut id = 0;
    let mut call = |raw: &mut Raw, tool: &str, args: serde_json::Value| {
        id += 1;
        let line = raw.request(id, "tools/call", json!({"name": tool, "arguments": args}));
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        let text = v["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned();
        (v["result"]["isError"] == true, text)
    };

    // No `root`, no workspace: the fix says to pass one.
    let (error, text) = call(&mut raw, "get_status", json!({}));
    assert!(error && text.starts_with("no workspace: "), "{text}");
    assert!(text.contains("pass `root`"), "{text}");

    let (error, green) = call(&mut raw, "run_tests", json!({"root": py_root}));
    assert!(!error, "{green}");
    let green: serde_json::Value = serde_json::from_str(&green).unwrap();
    assert_eq!(green["status"], "TestsPassed", "{green}");
    let (error, red) = call(&mut raw, "run_tests", json!({"root": "proj"}));
    assert!(!error, "{red}");
    assert!(red.contains("TestMeanOfNothing"), "{red}");
    let red: serde_json::Value = serde_json::from_str(&red).unwrap();
    assert_eq!(red["status"], "TestsFailed", "{red}");
    assert_eq!(
        (red["passed"].as_u64(), red["failed"].as_u64()),
        (Some(2), Some(1))
    );

    // Each project's status is its own, byte for byte what the CLI says of it.
    let (error, status) = call(&mut raw, "get_status", json!({"root": py_root}));
    assert!(!error, "{status}");
    assert_eq!(status, common::mcp::cli_line(py.path(), &["status"]));
    assert!(
        status.contains(r#""lastRun":{"status":"TestsPassed""#),
        "{status}"
    );
    let file = go.path().join("stats_test.go");
    let (error, status) = call(&mut raw, "get_status", json!({"root": file}));
    assert!(!error, "{status}");
    assert_eq!(status, common::mcp::cli_line(go.path(), &["status"]));
    assert!(
        status.contains(r#""lastRun":{"status":"TestsFailed""#),
        "{status}"
    );

    // Never the home directory or the filesystem root; the guide takes `root` and ignores it.
    for (root, says) in [
        (home.to_str().unwrap(), "your home directory"),
        ("/", "the filesystem root"),
    ] {
        let (error, text) = call(&mut raw, "run_tests", json!({"root": root}));
        assert!(error, "{text}");
        assert_eq!(
            text,
            format!("root {root} is {says}, which pith will not scan; pass a project's directory as `root`")
        );
    }
    let (error, text) = call(&mut raw, "get_guide", json!({"topic": "ids", "root": "/"}));
    assert!(!error && text.starts_with("# Test ids"), "{text}");
    assert!(!common::state_dir(&home).exists());
    assert!(!go.path().join(".pith").exists() && !py.path().join(".pith").exists());
    assert_eq!(
        raw.close(Duration::from_secs(10)),
        Some(0),
        "{}",
        raw.stderr()
    );
}

/// The inotify watches process `pid` holds (Linux `/proc/PID/fdinfo`).
fn watches(pid: u32) -> usize {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fdinfo")) else {
        return 0;
    };
    fds.flatten()
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .map(|info| {
            info.lines()
                .filter(|l| l.starts_with("inotify wd:"))
                .count()
        })
        .sum()
}

/// A passing pytest workspace that has run once already (its caches made), so that no run
/// makes a directory and the next one made is the test's.
fn watched_workspace() -> tempfile::TempDir {
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("pytest.ini"), "[pytest]\n").unwrap();
    std::fs::write(ws.path().join("test_a.py"), "def test_a():\n    pass\n").unwrap();
    let first = common::query(ws.path(), &["test"]);
    assert_eq!(first.status(), "TestsPassed", "{}", first.line);
    ws
}

/// The answer of a raw `run_tests` call with these arguments.
fn run(raw: &mut Raw, id: u32, args: serde_json::Value) -> serde_json::Value {
    raw_answer(&raw.request(
        id,
        "tools/call",
        json!({"name": "run_tests", "arguments": args}),
    ))
}

/// A server whose watcher has just become incomplete (a new directory it could not watch)
/// answers every later question from a scan: the change made in that directory is seen, and
/// so is the next one, which no event reports. `limit` lowers the watch limit once the
/// watcher is up; the server is `raw`.
fn an_incomplete_watcher_never_answers_stale(ws: &Path, raw: &mut Raw, limit: impl FnOnce(u32)) {
    let pid = raw.child.id();
    let first = run(raw, 1, json!({}));
    assert_eq!(first["status"], "TestsPassed", "{first}");
    let g = first["generation"].as_u64().unwrap();
    // The watcher is up once it holds a watch on every directory.
    let dirs = 1 + walk_dirs(ws);
    assert!(
        until(Duration::from_secs(30), || watches(pid) >= dirs),
        "the watcher never started ({} of {dirs} watches); stderr: {}",
        watches(pid),
        raw.stderr()
    );
    assert_eq!(run(raw, 2, json!({"since": g}))["unchanged"], true);
    limit(pid);

    std::fs::create_dir(ws.join("pkg")).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let fails = "def test_b():\n    assert False\n";
    std::fs::write(ws.join("pkg/test_b.py"), fails).unwrap();
    let red = run(raw, 3, json!({"since": g}));
    assert_eq!(red["status"], "TestsFailed", "{red}");
    assert_eq!(red["generation"], g + 1, "{red}");
    // Inside the directory no watch covers: only a scan sees this.
    std::fs::write(ws.join("pkg/test_b.py"), "def test_b():\n    pass\n").unwrap();
    let green = run(raw, 4, json!({"since": g + 1}));
    assert_eq!(green["status"], "TestsPassed", "{green}");
    assert_eq!(green["generation"], g + 2, "{green}");
    assert_eq!(run(raw, 5, json!({"since": g + 2}))["unchanged"], true);
    let stderr = raw.stderr();
    assert_eq!(
        stderr
            .matches("answering by scanning the workspace from now on")
            .count(),
        1,
        "said once: {stderr}"
    );
}

/// Directories under `dir`, at any depth.
fn walk_dirs(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| 1 + walk_dirs(&e.path()))
        .sum()
}

#[test]
fn a_watcher_past_its_watch_limit_mid_session_never_answers_stale() {
    // The limit injected (no privilege needed): the first directory made after start fails.
    let ws = watched_workspace();
    let mut cmd = common::bare();
    cmd.args(["mcp", "--root"])
        .arg(ws.path())
        .env("PITH_WATCH_SPARE_DIRS", "0");
    let mut raw = Raw::spawn(cmd);
    raw.initialize();
    an_incomplete_watcher_never_answers_stale(ws.path(), &mut raw, |_| {});
    assert!(
        raw.stderr().contains("limit on watches"),
        "{}",
        raw.stderr()
    );
}

#[test]
fn the_kernels_watch_limit_reached_mid_session_never_answers_stale() {
    // The kernel's own limit, lowered mid-session in a user namespace of the server's own
    // (`/proc/sys/user/max_inotify_watches` is per namespace): root, or a system that allows
    // unprivileged user namespaces, as CI's does.
    let works = |cmd: &mut std::process::Command| cmd.output().is_ok_and(|o| o.status.success());
    if !works(std::process::Command::new("unshare").args(["-U", "-r", "true"])) {
        eprintln!("skipped: no user namespaces here (unshare -U -r)");
        return;
    }
    let ws = watched_workspace();
    let mut cmd = std::process::Command::new("unshare");
    cmd.args(["-U", "-r", env!("CARGO_BIN_EXE_pith"), "mcp", "--root"])
        .arg(ws.path())
        .env("XDG_CACHE_HOME", pith_testkit::harness_cache());
    let mut raw = Raw::spawn(cmd);
    raw.initialize();
    an_incomplete_watcher_never_answers_stale(ws.path(), &mut raw, |pid| {
        // No watch left: the next directory cannot be watched.
        let set = format!("echo {} > /proc/sys/user/max_inotify_watches", watches(pid));
        let out = std::process::Command::new("nsenter")
            .args(["-U", "-t", &pid.to_string(), "sh", "-c", &set])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    });
    assert!(
        raw.stderr().contains("fs.inotify.max_user_watches"),
        "{}",
        raw.stderr()
    );
}

#[test]
fn a_client_that_gives_up_after_20s_of_silence_survives_a_45s_run_by_progress() {
    // A host's request timeout of 20 s, counted again from each progress notification (the
    // TypeScript SDK's resetTimeoutOnProgress; Codex and others give up at 60 s): a run of
    // 45 s answers only because pith's heartbeat keeps coming.
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("pytest.ini"), "[pytest]\n").unwrap();
    std::fs::write(
        ws.path().join("test_long.py"),
        "import time\n\n\ndef test_a_quick():\n    pass\n\n\ndef test_b_long():\n    time.sleep(45)\n",
    )
    .unwrap();
    let steps = json!([
        {"call": "run_tests", "timeout": 20, "progress": true},
    ]);
    let out = common::mcp::client(common::mcp::plan(ws.path(), "handshake", steps));
    let step = &out[1];
    assert!(step.get("timedOut").is_none(), "the client gave up: {step}");
    assert_eq!(answer(step)["status"], "TestsPassed", "{step}");
    assert!(step["elapsed"].as_f64().unwrap() >= 45.0, "{step}");
    // A beat at least every 10 s, from the start; each says how many tests are done.
    let notes = step["notes"].as_array().unwrap();
    let mut last = 0.0;
    let mut last_progress = -1.0;
    for n in notes {
        let at = n["at"].as_f64().unwrap();
        assert!(at - last <= 10.0, "a silence of {}s: {step}", at - last);
        last = at;
        let progress = n["progress"].as_f64().unwrap();
        assert!(progress > last_progress, "progress must grow: {step}");
        last_progress = progress;
        let message = n["message"].as_str().unwrap();
        assert!(message.ends_with(" done"), "{n}");
    }
    println!("{step}");
    assert!(notes.len() >= 5, "{step}");
    assert!(
        notes.iter().any(|n| n["message"] == "pytest: 1 test done"),
        "the quick test counted while the long one runs: {step}"
    );
}

#[test]
fn lookups_keep_the_index_in_memory_and_follow_every_edit() {
    // Each lookup is compared with the CLI's (which opens the index from disk) after an edit
    // to a known file, a new file, a deleted file and a new directory.
    let ws = fixture("python/single");
    let root = ws.path().canonicalize().unwrap();
    let usages = json!({"call": "find_usages", "args": {"name": "parse_price"}});
    let symbol = json!({"call": "find_symbol", "args": {"name": "parse_price"}});
    let p = |rel: &str| root.join(rel).to_string_lossy().into_owned();
    let steps = json!([
        usages, usages, symbol,
        {"write": p("prices.py"), "text": "def parse_price(text):\n    return int(text)\n\n\ndef total(prices):\n    return sum(parse_price(p) for p in prices)\n"},
        usages, symbol,
        {"write": p("cart.py"), "text": "from prices import parse_price\n\n\ndef cart(x):\n    return parse_price(x)\n"},
        usages,
        {"remove": p("cart.py")},
        usages,
        {"write": p("pkg/deep/more.py"), "text": "def parse_price(t):\n    return 0\n"},
        symbol, usages,
    ]);
    let out = common::mcp::client(common::mcp::plan(&root, "handshake", steps));
    let answers: Vec<String> = out[1..]
        .iter()
        .filter(|s| s.get("result").is_some())
        .map(common::mcp::answer_text)
        .collect();
    assert_eq!(answers[0], answers[1], "warm = cold");
    let cli = |args: &[&str]| common::mcp::cli_line(&root, args);
    // The final state, as the CLI reads it from disk, is what the last lookups said.
    assert_eq!(answers[answers.len() - 2], cli(&["symbol", "parse_price"]));
    assert_eq!(answers[answers.len() - 1], cli(&["usages", "parse_price"]));
    // Each edit showed at once.
    assert_ne!(answers[0], answers[3], "the edit moved the uses");
    assert!(
        answers[5].contains("cart.py"),
        "a new file's uses: {}",
        answers[5]
    );
    assert!(
        !answers[6].contains("cart.py"),
        "a deleted file's uses: {}",
        answers[6]
    );
    assert!(
        answers[7].contains("pkg/deep/more.py"),
        "a new directory's: {}",
        answers[7]
    );
}
