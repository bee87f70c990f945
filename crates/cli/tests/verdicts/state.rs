//! Verdicts that depend on the workspace state: `pith test --since N` answers `unchanged` (the
//! last run's verdict, without running) only when nothing the tests read changed — ignored
//! files and environment variables included —, a failure that follows a pass on other inputs
//! is not `flaky`, a run's own ignored output does not stop the next replay, a state directory
//! that is a symbolic link is never followed (nor a `.pith` an older pith or a repository left),
//! and a base directory that cannot be written gives way to a private temporary one; a file
//! edited while a run goes on (the workspace is scanned beside the run) is never counted in
//! the generation that run answers with.
//!
//! Hand-written, every one: each is a sequence of commands over a changing workspace whose
//! later arguments (`--since N`) and expectations (a newer generation, `failingFor`,
//! `recovered`) come from the answers before, with `pith status` and the state directory read
//! between them. No row of the verdict tables says that.

use crate::common;

use std::path::Path;

use common::{fixture, Answer};

const PRICE: &str = "tests/test_inputs.py::test_price_from_ignored_data";
const MODE: &str = "tests/test_inputs.py::test_mode_from_environment";

/// `pith SUB --root ROOT ARGS...` with `env` set on top of one fixed environment, so every
/// call of a test runs in the same environment unless `env` says otherwise.
fn pith_env(root: &Path, sub: &str, args: &[&str], env: &[(&str, &str)]) -> Answer {
    let mut c = common::bare();
    c.arg(sub)
        .arg("--root")
        .arg(root)
        .args(args)
        .current_dir(root)
        .env_remove("SHOP_MODE");
    for (k, v) in env {
        c.env(k, v);
    }
    common::answer_of(c.output().expect("run pith"), root)
}

/// `a` answered `status` with exit `code`.
fn assert_status(a: &Answer, status: &str, code: i32) {
    assert_eq!((a.status(), a.code), (status, code), "{}", a.line);
}

/// `a` ran (nothing replayed) and answered `status` with exit `code`.
fn assert_ran(a: &Answer, status: &str, code: i32) {
    assert!(a.json.get("unchanged").is_none(), "must run: {}", a.line);
    assert_status(a, status, code);
}

fn test(root: &Path, args: &[&str]) -> Answer {
    pith_env(root, "test", args, &[])
}

/// A copy of the inputs fixture whose data makes its tests pass.
fn green() -> common::Fixture {
    let ws = fixture("verdicts/state/inputs");
    write_price(ws.path(), 3);
    ws
}

fn write_price(root: &Path, price: u32) {
    std::fs::write(root.join("data.json"), format!("{{\"price\": {price}}}\n")).unwrap();
}

/// False green #8: a git-ignored data file the tests read changed and made a test fail;
/// `--since N` answered `unchanged` + TestsPassed, and the next real run called that
/// deterministic failure `flaky`.
#[test]
fn an_ignored_input_that_changed_is_run_not_replayed_and_its_failure_is_not_flaky() {
    let ws = fixture("verdicts/state/inputs");
    let root = ws.path();
    write_price(root, 3);
    let first = test(root, &[]);
    assert_status(&first, "TestsPassed", 0);
    let g = first.generation();
    let g_arg = g.to_string();
    assert!(
        root.join("pytest.log").is_file(),
        "the run wrote its ignored log"
    );

    // Nothing changed (the run's own ignored log aside): the verdict is replayed.
    let same = test(root, &["--since", &g_arg]);
    assert_eq!(
        (same.json["unchanged"].as_bool(), same.status(), same.code),
        (Some(true), "TestsPassed", 0),
        "{}",
        same.line
    );

    write_price(root, 4);
    let after = test(root, &["--since", &g_arg]);
    assert_ran(&after, "TestsFailed", 1);
    assert!(
        after.json.get("durationS").is_some(),
        "it ran: {}",
        after.line
    );
    assert!(after.generation() > g, "{}", after.line);
    let f = after.failure(PRICE);
    assert!(
        f.get("flaky").is_none(),
        "other inputs, not flakiness: {}",
        after.line
    );
    assert_eq!(f["new"], true, "{}", after.line);

    // The next real run: the same deterministic failure, still not flaky.
    let again = test(root, &[]);
    assert_status(&again, "TestsFailed", 1);
    let f = again.failure(PRICE);
    assert!(f.get("flaky").is_none(), "{}", again.line);
    assert_eq!(f["failingFor"], 2, "{}", again.line);

    // Restoring it is a change too: the status names it, the run happens, the test recovers.
    write_price(root, 3);
    let status = pith_env(root, "status", &[], &[]);
    assert_eq!(
        status.json["changed"],
        serde_json::json!(["data.json"]),
        "{}",
        status.line
    );
    let back = test(root, &["--since", &again.generation().to_string()]);
    assert!(back.json.get("unchanged").is_none(), "{}", back.line);
    assert_eq!(
        (back.status(), back.json["recovered"].as_u64()),
        ("TestsPassed", Some(1)),
        "{}",
        back.line
    );
}

/// The same false green through an environment variable the tests read: the process's
/// variables are part of what a replay and a flaky verdict must share.
#[test]
fn a_changed_environment_variable_is_run_not_replayed() {
    let ws = fixture("verdicts/state/inputs");
    let root = ws.path();
    write_price(root, 3);
    let first = test(root, &[]);
    assert_status(&first, "TestsPassed", 0);
    let g = first.generation().to_string();

    let broken = pith_env(root, "test", &["--since", &g], &[("SHOP_MODE", "broken")]);
    assert_ran(&broken, "TestsFailed", 1);
    assert_eq!(
        broken.generation().to_string(),
        g,
        "the files did not change"
    );
    let f = broken.failure(MODE);
    assert!(
        f.get("flaky").is_none(),
        "another environment, not flakiness: {}",
        broken.line
    );

    // Back in the first environment nothing changed: its verdict is replayed.
    let same = test(root, &["--since", &g]);
    assert_eq!(
        (same.json["unchanged"].as_bool(), same.status()),
        (Some(true), "TestsPassed"),
        "{}",
        same.line
    );
}

/// `pith test` in `env` is green, silent and kept in `base`; asked again `--since` its
/// generation, nothing changed: its own state was no change.
fn green_then_replayed(root: &Path, env: &[(&str, &str)], base: &Path) {
    let first = pith_env(root, "test", &[], env);
    assert_status(&first, "TestsPassed", 0);
    assert!(first.stderr.is_empty(), "{}", first.stderr);
    let dir = common::state_path(base, root);
    assert!(dir.join("state.db").is_file(), "{}", dir.display());
    let g = first.generation().to_string();
    let again = pith_env(root, "test", &["--since", &g], env);
    assert_eq!(
        (again.json["unchanged"].as_bool(), again.generation()),
        (Some(true), first.generation()),
        "{}",
        again.line
    );
    let status = pith_env(root, "status", &["--since", &g], env);
    assert_eq!(
        status.json["unchanged"].as_bool(),
        Some(true),
        "{}",
        status.line
    );
}

/// The names at the root of the workspace, less what the fixture's pytest run writes.
fn listing(root: &Path) -> Vec<std::ffi::OsString> {
    let mut names: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| {
            !["pytest.log", ".pytest_cache", "__pycache__"]
                .iter()
                .any(|o| n == o)
        })
        .collect();
    names.sort();
    names
}

/// `pith status --root ROOT` in the harness's environment.
fn status(root: &Path, env: &[(&str, &str)]) -> std::process::Output {
    let mut c = common::bare();
    c.args(["status", "--root"]).arg(root);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// A `.pith` symbolic link (a repository can ship one) is not pith's: never followed, never a
/// reason to fail, said once. The workspace's state directory that is a link is never followed
/// either, wherever it points: the run goes on without state and says why; nothing is written
/// through the link.
#[test]
fn a_state_directory_that_is_a_link_is_not_followed() {
    let ws = green();
    let root = ws.path();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.join("inside")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join(".pith")).unwrap();
    let a = test(root, &[]);
    assert_status(&a, "TestsPassed", 0);
    assert!(
        a.stderr
            .starts_with("pith: the .pith/ an older pith left in the workspace is a symbolic link")
            && a.stderr.lines().count() == 1,
        "{}",
        a.stderr
    );
    let again = status(root, &[]);
    assert_eq!(again.status.code(), Some(0));
    assert!(again.stderr.is_empty(), "said once");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    std::fs::remove_file(root.join(".pith")).unwrap();

    let dir = common::state_dir(root);
    std::fs::remove_dir_all(&dir).unwrap();
    for target in [outside.path().to_path_buf(), root.join("inside")] {
        std::os::unix::fs::symlink(&target, &dir).unwrap();
        let a = test(root, &[]);
        assert_status(&a, "TestsPassed", 0);
        assert_eq!(
            std::fs::read_dir(&target).unwrap().count(),
            0,
            "nothing written through the link to {}",
            target.display()
        );
        let why = format!("{} is a symbolic link", dir.display());
        assert!(
            a.stderr.contains(&why),
            "the warning says why: {}",
            a.stderr
        );
        let status = status(root, &[]);
        assert_eq!(status.status.code(), Some(2));
        let err = String::from_utf8_lossy(&status.stderr);
        assert!(err.contains(&why), "{err}");
        assert_eq!(std::fs::read_dir(&target).unwrap().count(), 0);
        std::fs::remove_file(&dir).unwrap();
    }
}

/// An agent's sandbox lets pith write only in the workspace and the temporary directory: with
/// its base directory unwritable (here `PITH_CACHE_DIR` below a file, which no user, root
/// included, can write under), pith keeps its state in `$TMPDIR/pith-<uid>`, made private, and
/// answers as always, its history kept from one command to the next; the workspace gets nothing.
#[test]
fn an_unwritable_base_falls_back_to_the_temporary_directory() {
    use std::os::unix::fs::MetadataExt;
    let ws = green();
    let root = ws.path();
    let sandbox = tempfile::tempdir().unwrap();
    let blocked = sandbox.path().join("file");
    std::fs::write(&blocked, "").unwrap();
    let tmp = sandbox.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let below_a_file = blocked.join("pith");
    let env = [
        ("PITH_CACHE_DIR", below_a_file.to_str().unwrap()),
        ("TMPDIR", tmp.to_str().unwrap()),
    ];
    let before = listing(root);
    let uid = std::fs::metadata(&tmp).unwrap().uid();
    let fallback = tmp.join(format!("pith-{uid}"));
    green_then_replayed(root, &env, &fallback);
    assert_eq!(std::fs::metadata(&fallback).unwrap().mode() & 0o777, 0o700);
    assert_eq!(listing(root), before, "nothing of pith's in the workspace");
}

/// `PITH_CACHE_DIR` inside the workspace (a CI that caches a directory of its checkout): what
/// pith writes there (the database, the lock, scratch directories, reporters) is never an input,
/// so a run's own state never bumps the generation and `--since` still replays.
#[test]
fn a_base_inside_the_workspace_is_never_an_input() {
    let ws = green();
    let root = ws.path();
    let base = root.join("ci-cache/pith");
    let env = [("PITH_CACHE_DIR", base.to_str().unwrap())];
    green_then_replayed(root, &env, &base);
}

/// Upgrading from a pith that kept its state in `.pith/` (whose `run.lock` failed an Apache
/// project's RAT licence check, and with it the user's own `mvn test`): the first command
/// moves the history out of the workspace, removes `.pith/`, and says so once.
#[test]
fn an_older_pith_state_is_moved_out_of_the_workspace() {
    let older = green();
    let first = test(older.path(), &[]);
    assert_eq!(first.status(), "TestsPassed", "{}", first.line);
    let ws = green();
    let root = ws.path();
    let legacy = root.join(".pith");
    std::fs::create_dir_all(&legacy).unwrap();
    for f in ["state.db", "state.db-wal", "state.db-shm"] {
        let from = common::state_dir(older.path()).join(f);
        if from.exists() {
            std::fs::copy(from, legacy.join(f)).unwrap();
        }
    }
    std::fs::write(legacy.join("run.lock"), "4242").unwrap();
    std::fs::write(legacy.join("index.bin"), "old").unwrap();

    let moved = pith_env(root, "status", &[], &[]);
    assert_eq!(moved.code, 0, "{}", moved.line);
    assert!(
        moved
            .stderr
            .starts_with("pith: moved the history and state an older pith kept")
            && moved.stderr.lines().count() == 1,
        "{}",
        moved.stderr
    );
    assert!(!legacy.exists());
    assert_eq!(
        moved.json["lastRun"]["status"], "TestsPassed",
        "the history came along: {}",
        moved.line
    );
    let again = test(root, &[]);
    assert_eq!(again.status(), "TestsPassed", "{}", again.line);
    assert!(again.stderr.is_empty(), "{}", again.stderr);
}

/// The generation a run answers with holds only what the run could have read: the workspace
/// is scanned beside the run, and a file written after the run started (here by the test
/// itself, after reading it, as an agent's edit lands mid-run) is the next generation's
/// change. Counted in the run's own, `--since` would replay the green over the edit.
#[test]
fn a_file_edited_during_the_run_is_run_again_not_replayed() {
    let ws = fixture("verdicts/state/edited_mid_run");
    let root = ws.path();
    let first = test(root, &[]);
    assert_status(&first, "TestsPassed", 0);
    assert_eq!(
        std::fs::read_to_string(root.join("data.txt")).unwrap(),
        "edited\n"
    );
    let g = first.generation().to_string();
    let next = test(root, &["--since", &g]);
    assert_ran(&next, "TestsFailed", 1);
    assert!(next.generation() > first.generation(), "{}", next.line);
}
