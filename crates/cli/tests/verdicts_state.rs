//! Verdicts that depend on the workspace state: `pith test --since N` answers `unchanged` (the
//! last run's verdict, without running) only when nothing the tests read changed — ignored
//! files and environment variables included —, a failure that follows a pass on other inputs
//! is not `flaky`, a run's own ignored output does not stop the next replay, and a `.pith` that
//! is a symbolic link is never followed.

mod common;

use std::path::Path;
use std::process::Command;

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

fn test(root: &Path, args: &[&str]) -> Answer {
    pith_env(root, "test", args, &[])
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
    assert_eq!(
        (first.status(), first.code),
        ("TestsPassed", 0),
        "{}",
        first.line
    );
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
    assert!(
        after.json.get("unchanged").is_none(),
        "must run: {}",
        after.line
    );
    assert!(
        after.json.get("durationS").is_some(),
        "it ran: {}",
        after.line
    );
    assert_eq!(
        (after.status(), after.code),
        ("TestsFailed", 1),
        "{}",
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
    assert_eq!(
        (again.status(), again.code),
        ("TestsFailed", 1),
        "{}",
        again.line
    );
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
    assert_eq!(
        (first.status(), first.code),
        ("TestsPassed", 0),
        "{}",
        first.line
    );
    let g = first.generation().to_string();

    let broken = pith_env(root, "test", &["--since", &g], &[("SHOP_MODE", "broken")]);
    assert!(
        broken.json.get("unchanged").is_none(),
        "must run: {}",
        broken.line
    );
    assert_eq!(
        (broken.status(), broken.code),
        ("TestsFailed", 1),
        "{}",
        broken.line
    );
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

/// A `.pith` symbolic link (a repository can ship one) is never followed, wherever it points:
/// the run goes on without state and says why; nothing is written through the link.
#[test]
fn a_state_directory_that_is_a_link_is_not_followed() {
    let ws = fixture("verdicts/state/inputs");
    let root = ws.path();
    write_price(root, 3);
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.join("inside")).unwrap();
    for target in [outside.path().to_path_buf(), root.join("inside")] {
        std::os::unix::fs::symlink(&target, root.join(".pith")).unwrap();
        let a = test(root, &[]);
        assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
        assert_eq!(
            std::fs::read_dir(&target).unwrap().count(),
            0,
            "nothing written through the link to {}",
            target.display()
        );
        assert!(
            a.stderr.contains(".pith is a symbolic link"),
            "the warning says why: {}",
            a.stderr
        );
        let status = Command::new(env!("CARGO_BIN_EXE_pith"))
            .args(["status", "--root"])
            .arg(root)
            .output()
            .unwrap();
        assert_eq!(status.status.code(), Some(2));
        let err = String::from_utf8_lossy(&status.stderr);
        assert!(err.contains(".pith is a symbolic link"), "{err}");
        assert_eq!(std::fs::read_dir(&target).unwrap().count(), 0);
        std::fs::remove_file(root.join(".pith")).unwrap();
    }
}
