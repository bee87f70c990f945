//! The workspace state through the real `pith` binary and the real pytest: generations (an edit
//! bumps, a touch does not), the `--since` short-circuits of `status` and `test`, flakiness,
//! `failures` in detail, history pruning, two concurrent runs, `kill -9` mid-run, a corrupt
//! database; each answer's budget asserted.

use crate::common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{fixture, Answer};
use pith_wire::{FAILURE_DETAIL_BUDGET, STATUS_BUDGET, UNCHANGED_BUDGET};

const TEST_CENTS: &str = "tests/test_shop.py::test_cents";
const TEST_ORDER: &str = "tests/test_shop.py::test_order";
const TEST_FLIPS: &str = "tests/test_shop.py::test_flips";
const TEST_SLEEPS: &str = "tests/test_shop.py::test_sleeps";

fn command(root: &Path, sub: &str, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut c = common::bare();
    c.arg(sub)
        .arg("--root")
        .arg(root)
        .args(args)
        .current_dir(root)
        .env_remove("PITH_HISTORY_RUNS")
        .env_remove("PITH_HISTORY_BYTES")
        .env_remove("FLAKY_MARKER")
        .env_remove("SLOW_SECS");
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

fn pith_env(root: &Path, sub: &str, args: &[&str], env: &[(&str, &str)]) -> Answer {
    let out = command(root, sub, args, env).output().expect("run pith");
    common::answer_of(out, root)
}

fn pith(root: &Path, sub: &str, args: &[&str]) -> Answer {
    pith_env(root, sub, args, &[])
}

fn spawn(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Child {
    command(root, "test", args, env)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start pith")
}

/// Waits until process `pid` holds the workspace's run lock (it writes its pid there).
fn wait_for_lock_holder(root: &Path, pid: u32) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let text =
            std::fs::read_to_string(common::state_dir(root).join("run.lock")).unwrap_or_default();
        if text.trim() == pid.to_string() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("pith {pid} never took the run lock");
}

fn append(path: &Path, text: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

#[test]
fn generation_bumps_on_edit_not_on_touch() {
    let ws = fixture("state/suite");
    let root = ws.path();
    let a = pith(root, "status", &[]);
    assert_eq!(a.code, 0, "{}", a.line);
    assert_eq!(a.line, r#"{"generation":1,"runners":[{"name":"pytest"}]}"#);

    let same = pith(root, "status", &["--since", "1"]);
    assert_eq!(same.line, r#"{"generation":1,"unchanged":true}"#);
    same.assert_budget(UNCHANGED_BUDGET);

    // A touch (new mtime, same bytes) is not a change.
    let later = std::time::SystemTime::now() + Duration::from_secs(30);
    std::fs::File::options()
        .write(true)
        .open(root.join("shop.py"))
        .unwrap()
        .set_modified(later)
        .unwrap();
    assert_eq!(pith(root, "status", &["--since", "1"]).generation(), 1);

    append(&root.join("shop.py"), "# an edit\n");
    let edited = pith(root, "status", &["--since", "1"]);
    assert_eq!(edited.generation(), 2, "{}", edited.line);
    assert!(edited.json.get("unchanged").is_none());
    // Durable across processes, and stable while nothing changes.
    assert_eq!(pith(root, "status", &[]).generation(), 2);

    // In a git repository, nothing of pith's shows: no .pith/, no .gitignore or
    // .git/info/exclude line.
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .unwrap()
    };
    git(&["init", "-q"]);
    assert_eq!(
        pith(root, "status", &[]).generation(),
        2,
        ".git is not source"
    );
    let status = String::from_utf8(git(&["status", "--porcelain", "--ignored"]).stdout).unwrap();
    assert!(!status.contains(".pith"), "{status}");
    assert!(status.contains("shop.py"), "{status}");
    assert!(!root.join(".gitignore").exists());
    let exclude = std::fs::read_to_string(root.join(".git/info/exclude")).unwrap_or_default();
    assert!(!exclude.contains("pith"), "{exclude}");
}

#[test]
fn status_after_a_run_counts_changes_within_budget() {
    let ws = fixture("state/suite");
    let root = ws.path();
    let run = pith(root, "test", &[]);
    assert_eq!((run.status(), run.code), ("TestsFailed", 1), "{}", run.line);
    assert_eq!(run.generation(), 1);

    append(&root.join("shop.py"), "# edited\n");
    for name in ["a.py", "b.py", "c.py", "d.py"] {
        std::fs::write(root.join(name), "x = 1\n").unwrap();
    }
    let a = pith(root, "status", &[]);
    println!("status ({} bytes): {}", a.bytes(), a.line);
    assert_eq!(a.code, 0, "status answers 0 even when the last run was red");
    assert_eq!(a.generation(), 2);
    let last = &a.json["lastRun"];
    assert_eq!(last["status"], "TestsFailed");
    assert_eq!(last["generationsBehind"], 1);
    assert_eq!(
        (last["passed"].as_u64(), last["failed"].as_u64()),
        (Some(3), Some(2))
    );
    assert_eq!(a.json["changed"].as_array().unwrap().len(), 3, "{}", a.line);
    assert_eq!(a.json["moreChanged"], 2, "{}", a.line);
    assert_eq!(a.json["runners"][0]["name"], "pytest");
    a.assert_budget(STATUS_BUDGET);
}

#[test]
fn test_since_answers_unchanged_without_running() {
    let ws = fixture("state/suite");
    let root = ws.path();
    let first = pith(root, "test", &[]);
    assert_eq!(first.generation(), 1);

    let again = pith(root, "test", &["--since", "1"]);
    println!("unchanged test ({} bytes): {}", again.bytes(), again.line);
    assert_eq!(again.json["unchanged"], true, "{}", again.line);
    assert_eq!((again.status(), again.code), ("TestsFailed", 1));
    assert_eq!(
        (
            again.json["generation"].as_u64(),
            again.json["failed"].as_u64()
        ),
        (Some(1), Some(2))
    );
    assert!(
        again.json.get("durationS").is_none(),
        "nothing ran: {}",
        again.line
    );

    // Another selection has not run at this generation: it runs, then it too is unchanged.
    let one = pith(
        root,
        "test",
        &["--since", "1", "tests/test_shop.py::test_whole_dollars"],
    );
    assert!(one.json.get("unchanged").is_none(), "{}", one.line);
    assert_eq!(
        (one.status(), one.code, one.generation()),
        ("TestsPassed", 0, 1)
    );
    let one = pith(
        root,
        "test",
        &["--since", "1", "tests/test_shop.py::test_whole_dollars"],
    );
    assert_eq!(
        (one.json["unchanged"].as_bool(), one.code),
        (Some(true), 0),
        "{}",
        one.line
    );

    // After an edit the run happens and says the new generation.
    append(&root.join("shop.py"), "# edited\n");
    let after = pith(root, "test", &["--since", "1"]);
    assert!(after.json.get("unchanged").is_none(), "{}", after.line);
    assert_eq!(after.generation(), 2);
    assert!(after.json.get("durationS").is_some());
}

#[test]
fn a_test_failing_every_other_run_is_flaky_and_its_pass_is_a_recovery() {
    let ws = fixture("state/suite");
    let root = ws.path();
    let outside = tempfile::tempdir().unwrap();
    let marker = outside.path().join("flips");
    let marker = marker.to_str().unwrap();
    let env = [("FLAKY_MARKER", marker)];
    let run = |n: u32| {
        let a = pith_env(root, "test", &[TEST_FLIPS, TEST_CENTS], &env);
        assert_eq!(
            a.generation(),
            1,
            "the content never changes (run {n}): {}",
            a.line
        );
        a
    };

    let first = run(1);
    assert_eq!(first.json["failed"], 1, "{}", first.line);
    let cents = first.failure(TEST_CENTS);
    assert!(
        cents.get("new").is_none() && cents.get("failingFor").is_none(),
        "no history yet: {cents}"
    );

    let second = run(2);
    let flips = second.failure(TEST_FLIPS);
    assert_eq!(
        flips["flaky"], true,
        "passed, then failed at the same content: {}",
        second.line
    );
    assert_eq!(second.failure(TEST_CENTS)["failingFor"], 2);

    let third = run(3);
    assert_eq!(third.json["recovered"], 1, "{}", third.line);
    assert_eq!(third.failures().len(), 1);

    let fourth = run(4);
    assert_eq!(fourth.failure(TEST_FLIPS)["flaky"], true, "{}", fourth.line);
    assert_eq!(fourth.failure(TEST_CENTS)["failingFor"], 4);

    let detail = pith(root, "failures", &[TEST_FLIPS]);
    assert_eq!(detail.failures().len(), 1, "{}", detail.line);
    assert_eq!(detail.failures()[0]["flaky"], true);
    detail.assert_budget(FAILURE_DETAIL_BUDGET);
}

#[test]
fn failures_in_detail_named_paged_and_with_stacks() {
    let ws = fixture("state/suite");
    let root = ws.path();
    let none = pith(root, "failures", &[]);
    assert_eq!(none.code, 0);
    assert!(
        none.json["hint"].as_str().unwrap().contains("pith test"),
        "{}",
        none.line
    );

    pith(root, "test", &[]);
    let all = pith(root, "failures", &[]);
    assert_eq!(
        (all.code, all.json["status"].as_str()),
        (0, Some("TestsFailed"))
    );
    assert_eq!(all.failures().len(), 2, "{}", all.line);
    assert!(all.json.get("moreFailures").is_none());

    let one = pith(root, "failures", &[TEST_CENTS]);
    println!(
        "failures for one test ({} bytes): {}",
        one.bytes(),
        one.line
    );
    one.assert_budget(FAILURE_DETAIL_BUDGET);
    let f = &one.failures()[0];
    assert_eq!(f["test"], TEST_CENTS);
    assert_eq!(
        f["message"],
        "ValueError: invalid literal for int() with base 10: '3.50'"
    );
    assert_eq!(f["frames"][0], "shop.py:5 return int(text.strip(\"$\"))");

    // Project frames only without --stacks; the standard library's too with it.
    let short = pith(root, "failures", &[TEST_ORDER]);
    let frames = |a: &Answer| -> Vec<String> {
        a.failures()[0]["frames"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_owned())
            .collect()
    };
    assert!(
        frames(&short).iter().all(|f| !f.contains("json/")),
        "{}",
        short.line
    );
    let stacks = pith(root, "failures", &["--stacks", TEST_ORDER]);
    let full = frames(&stacks);
    assert!(full.len() > frames(&short).len(), "{}", stacks.line);
    assert!(full.iter().any(|f| f.contains("json/")), "{}", stacks.line);
    assert!(
        full.iter().any(|f| f.starts_with("shop.py:9")),
        "{}",
        stacks.line
    );

    let named = pith(
        root,
        "failures",
        &[
            TEST_CENTS,
            "tests/test_shop.py::test_whole_dollars",
            "tests/test_x.py::nope",
        ],
    );
    assert_eq!(named.failures().len(), 1);
    assert_eq!(
        named.json["notFailing"][0],
        "tests/test_shop.py::test_whole_dollars"
    );
    assert_eq!(named.json["notFound"][0], "tests/test_x.py::nope");

    // A hundred failures: ten a page, the rest counted, the next page named.
    let many = fixture("python/distinct100");
    pith(many.path(), "test", &[]);
    let page1 = pith(many.path(), "failures", &[]);
    assert_eq!(page1.failures().len(), 10);
    assert_eq!(
        (
            page1.json["moreFailures"].as_u64(),
            page1.json["nextPage"].as_u64()
        ),
        (Some(90), Some(2))
    );
    let last = pith(many.path(), "failures", &["--page", "10"]);
    assert_eq!(last.failures().len(), 10);
    assert!(last.json.get("moreFailures").is_none() && last.json.get("nextPage").is_none());
}

#[test]
fn history_is_pruned_to_its_bound() {
    let ws = fixture("state/suite");
    let root = ws.path();
    for n in 1..=3 {
        let a = pith(root, "test", &[TEST_CENTS]);
        if n > 1 {
            assert_eq!(a.failure(TEST_CENTS)["failingFor"], n, "{}", a.line);
        }
    }
    // Bounded to one run: this run still sees the three before it, then the history keeps
    // only itself...
    let bounded = pith_env(root, "test", &[TEST_CENTS], &[("PITH_HISTORY_RUNS", "1")]);
    assert_eq!(
        bounded.failure(TEST_CENTS)["failingFor"],
        4,
        "{}",
        bounded.line
    );
    // ...so the next run finds just that one.
    let next = pith(root, "test", &[TEST_CENTS]);
    assert_eq!(next.failure(TEST_CENTS)["failingFor"], 2, "{}", next.line);
    let detail = pith(root, "failures", &[]);
    assert_eq!(detail.failures().len(), 1, "{}", detail.line);
}

/// What the runner printed is kept for `pith output` whatever its size: a small run's in line,
/// one past 128 KiB on a thread beside the recording; either reads back, its head and tail.
#[test]
fn the_runners_output_is_kept_small_or_large() {
    let ws = fixture("state/suite");
    let root = ws.path();
    pith_testkit::write_file(
        root,
        "tests/test_loud.py",
        "def test_loud():\n    print('FIRST-LOUD-LINE')\n    for i in range(6000):\n        \
         print('x' * 60, i)\n    print('LAST-LOUD-LINE')\n    assert False, 'loud'\n",
    );
    for (test, first, last) in [
        (TEST_CENTS, "test_cents", "test_cents"),
        (
            "tests/test_loud.py::test_loud",
            "FIRST-LOUD-LINE",
            "LAST-LOUD-LINE",
        ),
    ] {
        let a = pith(root, "test", &[test]);
        assert_eq!(a.status(), "TestsFailed", "{}", a.line);
        for word in [first, last] {
            let found = pith(root, "output", &["--grep", word]);
            assert!(
                found.json["matches"].as_u64() > Some(0),
                "{test}: {word}: {}",
                found.line
            );
        }
    }
    // A page of raw lines may hold an empty one: read as the line it is, not as an answer.
    let whole = common::mcp::cli_line(root, &["output"]);
    let v: serde_json::Value = serde_json::from_str(&whole).unwrap();
    assert!(v["pages"].as_u64() > Some(1), "{whole}");
    assert!(v["cut"]["bytes"].as_u64() > Some(0), "{whole}");
}

#[test]
fn a_second_run_waits_or_answers_busy() {
    let ws = fixture("state/suite");
    let root = ws.path();
    pith(root, "status", &[]);
    let slow = spawn(root, &[TEST_SLEEPS], &[("SLOW_SECS", "4")]);
    wait_for_lock_holder(root, slow.id());

    let busy = pith(root, "test", &["--wait", "0"]);
    println!("busy ({} bytes): {}", busy.bytes(), busy.line);
    assert_eq!((busy.status(), busy.code), ("Busy", 2), "{}", busy.line);
    assert!(busy.json["hint"]
        .as_str()
        .unwrap()
        .contains(&format!("pid {}", slow.id())));
    assert_eq!(busy.generation(), 1);

    // The default waits for the first run to end, then runs.
    let start = Instant::now();
    let waited = pith(root, "test", &[TEST_CENTS]);
    assert_eq!(
        (waited.status(), waited.code),
        ("TestsFailed", 1),
        "{}",
        waited.line
    );
    let first = common::answer_of(slow.wait_with_output().unwrap(), root);
    assert_eq!(
        (first.status(), first.code),
        ("TestsPassed", 0),
        "{}",
        first.line
    );
    assert!(start.elapsed() > Duration::from_millis(500));

    // Both were recorded, the store is sound.
    let status = pith(root, "status", &[]);
    assert!(status.stderr.is_empty(), "{}", status.stderr);
    assert_eq!(status.json["lastRun"]["failed"], 1, "{}", status.line);
}

#[test]
fn kill_9_mid_run_loses_no_history_and_the_next_run_works() {
    let ws = fixture("state/suite");
    let root = ws.path();
    let first = pith(root, "test", &[TEST_CENTS]);
    assert_eq!(first.status(), "TestsFailed");

    let mut doomed = spawn(root, &[TEST_CENTS, TEST_SLEEPS], &[("SLOW_SECS", "3")]);
    wait_for_lock_holder(root, doomed.id());
    std::thread::sleep(Duration::from_millis(500));
    doomed.kill().unwrap(); // SIGKILL
    doomed.wait().unwrap();

    let next = pith(root, "test", &["--wait", "10", TEST_CENTS]);
    assert!(next.stderr.is_empty(), "{}", next.stderr);
    assert_eq!(
        (next.status(), next.code),
        ("TestsFailed", 1),
        "{}",
        next.line
    );
    // The first run is still in the history; the killed one was never recorded.
    assert_eq!(next.failure(TEST_CENTS)["failingFor"], 2, "{}", next.line);
}

#[test]
fn a_corrupt_database_is_moved_aside_with_a_one_line_warning() {
    let ws = fixture("state/suite");
    let root = ws.path();
    pith(root, "test", &[TEST_CENTS]);
    let dir = common::state_dir(root);
    for side in ["state.db-wal", "state.db-shm"] {
        let _ = std::fs::remove_file(dir.join(side));
    }
    std::fs::write(
        dir.join("state.db"),
        b"\x00garbage, not SQLite\n".repeat(500),
    )
    .unwrap();

    let status = pith(root, "status", &[]);
    assert_eq!(status.code, 0, "{}", status.line);
    assert_eq!(status.stderr.lines().count(), 1, "{}", status.stderr);
    let db = dir.join("state.db").display().to_string();
    assert!(
        status.stderr.starts_with(&format!("pith: {db} is damaged"))
            && status.stderr.contains(&format!("{db}.corrupt-1")),
        "{}",
        status.stderr
    );
    assert_eq!(
        status.line,
        r#"{"generation":1,"runners":[{"name":"pytest"}]}"#
    );
    assert!(dir.join("state.db.corrupt-1").is_file());

    let run = pith(root, "test", &[TEST_CENTS]);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    assert_eq!(run.status(), "TestsFailed");
}
