//! The real `pith` binary on the Rust fixture projects, through both paths (nextest and plain
//! `cargo test`), beyond the shared scenarios of `scenarios.rs`: re-runs by id, and a Cargo
//! workspace run from inside a member.

use crate::common;

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

/// A cargo-nextest outside pith's range (0.9.143 to 0.9.x), first on PATH, answers
/// RunnerMissing naming its version and the range, and is never run: only asked its version.
#[test]
fn a_nextest_outside_the_supported_range_is_named_and_not_run() {
    use std::os::unix::fs::PermissionsExt;
    for version in ["0.9.140", "0.10.0"] {
        let ws = fixture("rust/green");
        let bin = tempfile::tempdir().unwrap();
        let started = bin.path().join("started");
        let script = format!(
            "#!/bin/sh\nif [ \"$2\" = --version ]; then echo 'cargo-nextest {version} (abc 2026-01-01)'; exit 0; fi\ntouch '{}'\nexit 1\n",
            started.display()
        );
        let nextest = bin.path().join("cargo-nextest");
        std::fs::write(&nextest, script).unwrap();
        std::fs::set_permissions(&nextest, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = std::env::join_paths(
            std::iter::once(bin.path().to_owned())
                .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
        )
        .unwrap();
        let env = [("PATH", path.to_str().unwrap())];
        let a = common::pith_with(ws.path(), &["--runner", "nextest"], &env, &[]);
        assert_eq!((a.status(), a.code), ("RunnerMissing", 2), "{}", a.line);
        assert_eq!(a.json["runner"], "nextest", "{}", a.line);
        let said = format!(
            "cargo-nextest {version} is installed; pith supports cargo-nextest 0.9.143 to 0.9.x"
        );
        assert!(a.line.contains(&said), "{}", a.line);
        assert!(!started.exists(), "cargo-nextest {version} was run");
    }
}

/// A wrong-result bug beside a harmless edit in a crate: Rust has no line tracing pith can
/// use, so the suspects come from the graph, and the answer says why in one word.
#[test]
fn a_static_reach_says_why_nothing_was_traced() {
    let ws = fixture("rust/impact_shop");
    common::committed(ws.path());
    assert_eq!(pith(ws.path(), &[]).status(), "TestsPassed");
    let edit = |file: &str, from: &str, to: &str| {
        let path = ws.path().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{file}");
        std::fs::write(&path, text.replace(from, to)).unwrap();
    };
    std::thread::sleep(std::time::Duration::from_millis(20));
    edit("src/money.rs", "amount > 0.0", "amount >= 0.0");
    edit("src/cart.rs", ".count()", ".count() + 0");
    // Older than the run's start, whatever the clock's resolution.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let red = pith(ws.path(), &[]);
    assert_eq!(red.status(), "TestsFailed", "{}", red.line);
    assert_eq!(red.text("reach"), "static", "{}", red.line);
    assert_eq!(red.text("traceless"), "unsupported", "{}", red.line);
    let suspects = common::strings(&red.json["suspects"]);
    assert!(
        suspects.contains(&"src/money.rs:13 amount >= 0.0"),
        "{}",
        red.line
    );
    let never = pith(ws.path(), &["--trace", "never"]);
    assert_eq!(never.text("traceless"), "off", "{}", never.line);
}
