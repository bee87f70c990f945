//! The pith package's shim over `pith-testkit`: the shared harness bound to this package's own
//! `pith` binary, whose path only these tests know (`CARGO_BIN_EXE_pith`).

#![allow(dead_code, unused_imports)]

use std::path::Path;
use std::process::Command;

pub mod mcp;

pub use pith_testkit::{
    answer_of, assert_clean, fixture, frames, harness_base, link_node_modules, raw, repo_root,
    shared_target, state_dir, state_path, strings, without_callers_pith_variables, Answer, Fixture,
    Raw,
};

pub const PITH: pith_testkit::Pith = pith_testkit::Pith {
    bin: env!("CARGO_BIN_EXE_pith"),
};

/// The binary with the harness's cache and nothing else set.
pub fn bare() -> Command {
    pith_testkit::pith_bare(PITH.bin)
}

pub fn pith(root: &Path, args: &[&str]) -> Answer {
    PITH.test(root, args)
}

pub fn pith_in(cwd: &Path, root: &Path, args: &[&str]) -> Answer {
    PITH.test_in(cwd, root, args)
}

pub fn pith_command(cwd: &Path, root: &Path, args: &[&str]) -> Command {
    PITH.command(cwd, root, args)
}

pub fn pith_with(root: &Path, args: &[&str], env: &[(&str, &str)], unset: &[&str]) -> Answer {
    PITH.test_with(root, args, env, unset)
}

pub fn assert_reruns_only(
    root: &Path,
    args: &[&str],
    first: &Answer,
    index: usize,
    unknown: &[&str],
) -> String {
    PITH.assert_reruns_only(root, args, first, index, unknown)
}

pub fn assert_not_found(root: &Path, args: &[&str], ids: &[&str]) {
    PITH.assert_not_found(root, args, ids)
}

/// Runs git in `root` as a test's own user, never signing, whatever the caller's git
/// environment; panics unless it succeeds.
pub fn git(root: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(root)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// `root` as a git repository of one commit holding every file.
pub fn committed(root: &Path) {
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "green"]);
}

/// What `pith ARGS --root ROOT` answers (any command, not only `test`).
pub fn query(root: &Path, args: &[&str]) -> Answer {
    let out = bare()
        .args(args)
        .arg("--root")
        .arg(root)
        .current_dir(root)
        .output()
        .expect("run pith");
    answer_of(out, root)
}

/// Replaces `from` by `to` in the workspace file `rel`, which must hold it, away from the
/// clock tick of the runs before and after: a file written within a tick of a run's start may
/// have been written after it began, and waits for the next generation.
pub fn edit(root: &Path, rel: &str, from: &str, to: &str) {
    let path = root.join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replace(from, to);
    assert_ne!(text, edited, "{rel}: {from:?} is not there");
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&path, edited).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
}

/// The `python/impact` fixture's injected bug and the edits around it, shared by the tests
/// of suspects and of the trace switch.
pub mod impact {
    use std::path::Path;

    use super::Answer;

    /// The helper every shop module uses.
    pub const HELPER: &str = "src/shop/money.py";
    /// The line of the helper the injected bug changes, and what it reads after.
    pub const BUG_AT: &str = "src/shop/money.py:9 return amount >= 0";

    /// The negated-boundary bug: zero counts as positive. Two tests fail, each at its own
    /// assertion; no frame names the helper.
    pub fn inject(root: &Path) {
        let path = root.join(HELPER);
        let text = std::fs::read_to_string(&path).unwrap();
        let bugged = text.replace("return amount > 0", "return amount >= 0");
        assert_ne!(text, bugged);
        // A later mtime than the run before, whatever the clock's resolution.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(path, bugged).unwrap();
    }

    /// A harmless edit the failing tests reach by import but never execute: with it, the
    /// static reach leaves a choice of two hunks.
    pub fn harmless_edit(root: &Path) {
        let cart = root.join("src/shop/cart.py");
        let text = std::fs::read_to_string(&cart).unwrap();
        let edited = text.replace("return sum(cents(p)", "return sum(cents(p) * 1");
        assert_ne!(text, edited);
        std::fs::write(&cart, edited).unwrap();
        // Older than the next run's start, whatever the clock's resolution: a file written
        // within a tick of it may have been written after it began, and waits for the next
        // generation (a run never claims content it may not have read).
        std::thread::sleep(std::time::Duration::from_millis(20));
    }

    /// The answer's suspects.
    pub fn suspects(a: &Answer) -> Vec<&str> {
        super::strings(&a.json["suspects"])
    }
}

/// The variable the hostile-output fixtures (`*/forged_output`) read to fail one real test.
pub const RED: &str = "PITH_FIXTURE_RED";

/// Whether the project's own test command (`program args...` in `root`) passes, with the
/// fixture's real failure on (`red`) or off: the raw run an answer must agree with.
pub fn raw_passes(root: &Path, program: &str, args: &[&str], red: bool) -> bool {
    Command::new(program)
        .args(args)
        .current_dir(root)
        .env_remove(RED)
        .env_remove("CI")
        .envs(red.then_some((RED, "1")))
        .output()
        .unwrap_or_else(|e| panic!("run {program}: {e}"))
        .status
        .success()
}

/// `pith test` in `root` with the fixture's real failure on (`red`) or off, the rest of the
/// environment the harness's.
pub fn pith_red(root: &Path, args: &[&str], red: bool) -> Answer {
    if red {
        pith_with(root, args, &[(RED, "1")], &[])
    } else {
        pith_with(root, args, &[], &[RED])
    }
}

/// Where the external corpus of real reports is, if anywhere.
#[allow(dead_code)]
pub mod samples {
    include!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/reports/samples.rs"
    ));
}

/// `pith test --report FILE` run from an empty directory: its answer, checked clean and parsed.
pub fn report_answer(file: &Path) -> (String, serde_json::Value) {
    assert!(file.is_file(), "{}", file.display());
    let ws = tempfile::tempdir().unwrap();
    let out = bare()
        .args(["test", "--report"])
        .arg(file)
        .current_dir(ws.path())
        .output()
        .unwrap();
    let line = String::from_utf8(out.stdout).unwrap();
    let line = line.trim_end().to_owned();
    assert_clean(&line, ws.path());
    let json: serde_json::Value = serde_json::from_str(&line).unwrap();
    (line, json)
}
