//! The real `pith` binary on the Rust fixture projects, through both paths (nextest and plain
//! `cargo test`), beyond the shared scenarios of `scenarios.rs`: re-runs by id, and a Cargo
//! workspace run from inside a member.

mod common;

use common::{fixture, pith, pith_in};

const PATHS: [&str; 2] = ["nextest", "cargo"];

#[test]
fn ids_from_an_answer_rerun_exactly_those_tests() {
    for path in PATHS {
        let ws = fixture("rust/single");
        let runner = ["--runner", path];
        let first = pith(ws.path(), &runner);
        common::assert_reruns_only(ws.path(), &runner, &first, 0, &[]);
        common::assert_not_found(ws.path(), &runner, &["single tests::no_such_test"]);
    }
}

#[test]
fn workspace_frames_cross_crates_and_root_is_found_from_a_member() {
    let ws = fixture("rust/workspace");
    for path in PATHS {
        // Started inside a member crate with its own Cargo.toml: the answer is about the
        // workspace, paths relative to its root.
        let member = ws.path().join("crates/b");
        let out = common::bare()
            .args(["test", "--runner", path])
            .current_dir(&member)
            .env("CARGO_TARGET_DIR", common::shared_target())
            .output()
            .unwrap();
        let line = String::from_utf8(out.stdout).unwrap();
        common::assert_clean(line.trim_end(), ws.path());
        let bad = line.find("b tests::bad_addr").expect(&line);
        assert!(line[bad..].contains("crates/a/src/lib.rs:2"), "{line}");
        assert!(line[bad..].contains("crates/b/src/lib.rs:"), "{line}");
    }
    let a = pith_in(ws.path(), ws.path(), &["--runner", "nextest"]);
    insta::assert_snapshot!("workspace_nextest", a.stable());
}
