//! The real `pith` binary on the JavaScript fixture projects with the real jest, vitest and node
//! test runner, beyond the shared scenarios of `scenarios.rs`: snapshots never written, re-runs
//! by id, the caller's shell and `NODE_OPTIONS`. jest and vitest come from
//! `tests/fixtures/js/node_modules`, installed by `scripts/setup/js.sh` and linked into each
//! fixture copy; without them these tests fail, they never skip.

mod common;

use common::{fixture, pith, Fixture};

const RUNNERS: [&str; 3] = ["jest", "vitest", "node"];

/// A copy of `tests/fixtures/js/<runner>/<name>`, with the shared runners linked in.
fn workspace(runner: &str, name: &str) -> Fixture {
    let ws = fixture(&format!("js/{runner}/{name}"));
    if runner != "node" {
        common::link_node_modules(ws.path());
    }
    ws
}

fn run(runner: &str, name: &str, extra: &[&str]) -> common::Answer {
    let ws = workspace(runner, name);
    let a = pith(ws.path(), extra);
    assert_eq!(a.json["runner"], runner, "{}", a.line);
    a
}

#[test]
fn node_and_the_runners_are_installed() {
    assert!(
        std::process::Command::new("node")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success()),
        "node is not installed"
    );
    pith_testkit::shared_node_modules();
}

#[test]
fn missing_snapshots_fail_and_are_not_written() {
    for r in ["jest", "vitest"] {
        let ws = workspace(r, "snapshot");
        let a = pith(ws.path(), &[]);
        assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
        assert!(
            !ws.path().join("tests/__snapshots__").exists(),
            "{r} wrote into the project"
        );
    }
}

#[test]
fn ids_from_an_answer_rerun_exactly_those_tests() {
    for r in RUNNERS {
        let ws = workspace(r, "single");
        let first = pith(ws.path(), &[]);
        common::assert_reruns_only(ws.path(), &[], &first, 0, &[]);
        common::assert_not_found(
            ws.path(),
            &[],
            &[
                "tests/prices.test.js > price > euros?",
                "tests/nope.test.js > x",
            ],
        );
    }
}

/// The runners' own markers of a parent run and the caller's colour setting change nothing in
/// the answer: pith removes the markers (they would make the runner report to a parent that is
/// not there) and strips colour from what it reads.
#[test]
fn the_callers_shell_does_not_change_the_answer() {
    for r in RUNNERS {
        let plain = run(r, "single", &[]);
        // A fresh copy: the history of the first run would mark the failure as repeated.
        let ws = workspace(r, "single");
        let hostile = common::pith_with(
            ws.path(),
            &[],
            &[
                ("FORCE_COLOR", "3"),
                ("NODE_ENV", "production"),
                ("NODE_TEST_CONTEXT", "child-v8"),
                ("JEST_WORKER_ID", "7"),
                ("VITEST_WORKER_ID", "3"),
                ("VITEST", "true"),
                ("CI", "true"),
            ],
            &[],
        );
        assert_eq!(plain.stable(), hostile.stable(), "{r}");
    }
}

/// The caller's `NODE_OPTIONS` reaches the tests as in a raw run: a preload that does not
/// exist breaks the run, and the answer says so rather than running without it.
#[test]
fn the_callers_node_options_are_the_tests_own() {
    for r in RUNNERS {
        let ws = workspace(r, "green");
        let a = common::pith_with(
            ws.path(),
            &[],
            &[("NODE_OPTIONS", "--require /nonexistent/preload.js")],
            &[],
        );
        assert_ne!(a.status(), "TestsPassed", "{r}: {}", a.line);
        assert_eq!(a.code, 1, "{r}: {}", a.line);
        assert!(
            a.json["tail"]
                .as_str()
                .unwrap_or("")
                // A path from outside the workspace, in its short form.
                .contains("Cannot find module 'nonexistent/preload.js'"),
            "{r}: {}",
            a.line
        );
    }
}
