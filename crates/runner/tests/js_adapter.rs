//! The JavaScript adapter against real jest, vitest and node on the fixture projects in
//! `tests/fixtures/js/<runner>/`. Each fixture is copied to a temporary directory and, for jest
//! and vitest, given the runners installed once in `tests/fixtures/js/node_modules` (by
//! `scripts/setup/js.sh`) through a symlink. node, jest and vitest must be installed: these
//! tests fail, never skip, without them.

use std::path::Path;
use std::sync::Once;
use std::time::{Duration, Instant};

use pith_model::{Exit, ExitMeaning, Failure, Phase, Run, Status};
use pith_runner::js;
use pith_runner::{Adapter, PathMap};
use pith_testkit::{Fixture, Runs};

/// node on PATH, jest and vitest installed for the fixtures, or the test fails saying what to do.
fn require_runners() {
    static CHECK: Once = Once::new();
    CHECK.call_once(|| {
        assert!(
            pith_runner::on_path("node").is_some(),
            "node must be on PATH for the JavaScript adapter tests"
        );
        for bin in ["jest", "vitest"] {
            let p = pith_testkit::shared_node_modules().join(".bin").join(bin);
            assert!(
                pith_runner::is_executable(&p),
                "{} is missing: run scripts/setup/js.sh",
                p.display()
            );
        }
    });
}

/// A fixture project copied into a fresh workspace, and the directories around its runs.
struct Workspace {
    copy: Fixture,
    runs: Runs,
}

impl Workspace {
    fn new(runner: &str, fixture: &str) -> Self {
        require_runners();
        let copy = pith_testkit::fixture(&format!("js/{runner}/{fixture}"));
        if runner != "node" {
            pith_testkit::link_node_modules(copy.path());
        }
        let runs = Runs::new(copy.path());
        Workspace { copy, runs }
    }

    fn root(&self) -> &Path {
        self.copy.path()
    }

    fn adapter(&self) -> Box<dyn Adapter> {
        let mut found = js::detect(self.root());
        assert_eq!(found.len(), 1, "one JavaScript runner");
        found.remove(0)
    }

    fn run_for(&self, ids: &[&str], limit: Duration) -> Run {
        self.runs.run(self.adapter().as_ref(), ids, limit)
    }

    fn run(&self, ids: &[&str]) -> Run {
        self.run_for(ids, Duration::from_secs(120))
    }

    /// The report the runner wrote in the scratch directory.
    fn report(&self, name: &str) -> String {
        std::fs::read_to_string(self.runs.scratch().join(name)).unwrap()
    }
}

const RUNNERS: [&str; 3] = ["jest", "vitest", "node"];

fn run_fixture(runner: &str, fixture: &str) -> (Workspace, Run) {
    let ws = Workspace::new(runner, fixture);
    let run = ws.run(&[]);
    assert_eq!(run.runner, runner);
    (ws, run)
}

fn failure<'a>(run: &'a Run, test: &str) -> &'a Failure {
    run.failures
        .iter()
        .find(|f| f.test == test)
        .unwrap_or_else(|| panic!("no failure for {test} in {:#?}", run.failures))
}

fn project_locations(f: &Failure) -> Vec<String> {
    f.project_frames().map(|fr| fr.location()).collect()
}

#[test]
fn green_is_green() {
    for r in RUNNERS {
        let (_ws, run) = run_fixture(r, "green");
        assert_eq!(run.status(), Status::TestsPassed, "{r}: {run:#?}");
        assert_eq!((run.passed, run.failed, run.skipped), (3, 0, 0), "{r}");
        assert_eq!(run.tail, None, "{r}");
    }
}

#[test]
fn one_failure_in_a_helper_has_both_project_frames() {
    for r in RUNNERS {
        let (_ws, run) = run_fixture(r, "single");
        assert_eq!(run.status(), Status::TestsFailed, "{r}: {run:#?}");
        assert_eq!((run.passed, run.failed, run.skipped), (2, 1, 1), "{r}");
        let f = failure(&run, "tests/prices.test.js > price > dollars");
        assert_eq!(
            f.message, "TypeError: Cannot read properties of undefined (reading 'trim')",
            "{r}"
        );
        assert_eq!(f.kind.as_deref(), Some("TypeError"), "{r}");
        let locs = project_locations(f);
        assert_eq!(locs.len(), 2, "{r}: {locs:?}");
        assert!(
            locs[0].starts_with("tests/prices.test.js:"),
            "{r}: {locs:?}"
        );
        assert_eq!(locs[1], "src/prices.js:3", "{r}");
        assert_eq!(
            f.top_project_frame().unwrap().code.as_deref(),
            Some("return dollars * 100 + Number(cents.trim());"),
            "{r}"
        );
        assert!(
            f.frames
                .iter()
                .all(|fr| fr.project || !fr.file.starts_with("tests/")),
            "{r}: {:#?}",
            f.frames
        );
    }
}

#[test]
fn assertion_messages_carry_their_values() {
    for (r, message) in [
        (
            "jest",
            "expect(received).toBe(expected) (Expected: 1000, Received: 0)",
        ),
        ("vitest", "AssertionError: expected +0 to be 1000"),
        (
            "node",
            "AssertionError: Expected values to be strictly equal: 0 !== 1000",
        ),
    ] {
        let (_ws, run) = run_fixture(r, "distinct100");
        assert_eq!((run.failed, run.passed), (100, 0), "{r}");
        assert_eq!(run.failures.len(), 100, "{r}");
        let f = failure(&run, "tests/d0.test.js > value 0");
        assert_eq!(f.message, message, "{r}");
        assert_eq!(project_locations(f), ["tests/d0.test.js:6"], "{r}");
    }
}

#[test]
fn files_that_fail_to_load_are_collection_failures() {
    for r in RUNNERS {
        let (_ws, run) = run_fixture(r, "load_error");
        assert_eq!(run.status(), Status::CollectionFailed, "{r}: {run:#?}");
        assert_eq!(run.passed, 1, "{r}");
        let f = failure(&run, "tests/broken.test.js");
        assert_eq!(f.phase, Phase::Collect);
        assert!(
            f.message.contains("Cannot find module") && f.message.contains("not_there"),
            "{r}: {}",
            f.message
        );
        assert!(run.tail.is_some(), "{r}");

        let (_ws, run) = run_fixture(r, "syntax_error");
        assert_eq!(run.status(), Status::CollectionFailed, "{r}: {run:#?}");
        let f = failure(&run, "tests/broken.test.js");
        assert_eq!(f.phase, Phase::Collect);
        assert_eq!(
            f.top_project_frame().map(|fr| fr.location()).as_deref(),
            Some("tests/broken.test.js:5"),
            "{r}: {f:#?}"
        );
        let tail = run.tail.as_deref().unwrap();
        assert!(
            !tail.contains("Out of the box Jest supports Babel"),
            "{r}: advice is not evidence: {tail}"
        );
    }
}

#[test]
fn no_tests_is_not_green() {
    for r in RUNNERS {
        let (_ws, run) = run_fixture(r, "empty");
        assert_eq!(run.status(), Status::NoTestsRan, "{r}: {run:#?}");
    }
}

#[test]
fn a_crash_names_the_test_and_is_not_green() {
    for (r, fixture, running) in [
        ("jest", "crash", "tests/crash.test.js > aborts"),
        ("jest", "crash_worker", "tests/crash.test.js > aborts"),
        ("vitest", "crash", "tests/crash.test.js"),
        ("node", "crash", "tests/crash.test.js"),
    ] {
        let (_ws, run) = run_fixture(r, fixture);
        assert_eq!(run.status(), Status::Crashed, "{r}/{fixture}: {run:#?}");
        assert_eq!(run.running, [running], "{r}/{fixture}");
        let f = failure(&run, running);
        assert!(!f.message.is_empty());
        assert!(run.tail.is_some(), "{r}/{fixture}");
    }
}

/// Runs a hanging fixture with `limit` to go: it must be killed then, and name what ran.
fn hang(r: &str, fixture: &str, limit: u64, running: &str) {
    let ws = Workspace::new(r, fixture);
    let start = Instant::now();
    let run = ws.run_for(&[], Duration::from_secs(limit));
    assert!(
        start.elapsed() < Duration::from_secs(limit + 15),
        "{r}: not killed in time"
    );
    assert_eq!(run.status(), Status::TimedOut, "{r}/{fixture}: {run:#?}");
    assert_eq!(run.running, [running], "{r}/{fixture}");
}

// jest and vitest get time to start under a loaded machine: before their first test starts,
// only the file can be named.
#[test]
fn a_hang_is_killed_and_named_jest() {
    hang(
        "jest",
        "hang",
        20,
        "tests/hang.test.js > server > waits forever",
    );
}

#[test]
fn a_hang_is_killed_and_named_vitest() {
    hang(
        "vitest",
        "hang",
        20,
        "tests/hang.test.js > server > waits forever",
    );
    // A test stuck in synchronous code keeps vitest's worker from reporting it started.
    hang("vitest", "hang_sync", 20, "tests/spin.test.js");
}

#[test]
fn a_deadline_keeps_load_errors_and_failures_already_reported() {
    // One file fails to load while the other has a test fail, then hangs: pith's deadline
    // answers TimedOut with both, the load error a collection error.
    for r in ["vitest", "jest"] {
        let ws = Workspace::new(r, "timeout_loads");
        let run = ws.run_for(&[], Duration::from_secs(20));
        assert_eq!(run.status(), Status::TimedOut, "{r}: {run:#?}");
        assert!(!run.running.is_empty(), "{r}");
        assert!(run.passed >= 1, "{r}");
        let f = failure(&run, "tests/a_broken.test.js");
        assert_eq!(f.phase, Phase::Collect, "{r}");
        assert!(f.message.contains("not_there"), "{r}: {}", f.message);
        let fails = failure(&run, "tests/b_slow.test.js > fails");
        assert!(
            fails.message.contains("expected 2 to be 3") || fails.message.contains("Received: 2"),
            "{r}: {}",
            fails.message
        );
    }
}

#[test]
fn a_runner_timeout_is_labelled_in_its_own_words() {
    for (r, label) in [
        ("jest", "Exceeded timeout of 300 ms for a test."),
        ("vitest", "Test timed out in 300ms."),
    ] {
        let ws = Workspace::new(r, "timeout_loads");
        let slow = "tests/b_slow.test.js > waits past its timeout";
        let run = ws.run(&[slow]);
        assert_eq!((run.passed, run.failed), (0, 1), "{r}: {run:#?}");
        assert_eq!(failure(&run, slow).message, label, "{r}");
    }
}

#[test]
fn a_hang_is_killed_and_named_node() {
    hang(
        "node",
        "hang",
        6,
        "tests/hang.test.js > server > waits forever",
    );
    // node's child process sends nothing while blocked.
    hang("node", "hang_sync", 6, "tests/spin.test.js");
}

#[test]
fn node_drops_suites_that_repeat_their_children() {
    let (_ws, run) = run_fixture("node", "nested");
    let mut ids: Vec<&str> = run.failures.iter().map(|f| f.test.as_str()).collect();
    ids.sort();
    assert_eq!(
        ids,
        [
            "tests/nested.test.js > outer > inner > deep",
            "tests/nested.test.js > parent > child broken"
        ]
    );
    assert_eq!(run.failed, 2);
    assert_eq!(
        failure(&run, "tests/nested.test.js > parent > child broken").message,
        "AssertionError: child broke"
    );
}

#[test]
fn ids_rerun_exactly_those_tests() {
    for r in RUNNERS {
        let ws = Workspace::new(r, "single");
        let first = ws.run(&[]);
        let id = first.failures[0].test.clone();
        let again = ws.run(&[&id]);
        assert_eq!(
            (again.failed, again.passed, again.skipped),
            (1, 0, 0),
            "{r}: {again:#?}"
        );
        assert_eq!(again.failures[0].test, id, "{r}");

        let pass = ws.run(&["tests/prices.test.js > price > cents"]);
        assert_eq!(pass.status(), Status::TestsPassed, "{r}: {pass:#?}");
        assert_eq!(pass.passed, 1, "{r}");

        let whole = ws.run(&["tests/prices.test.js"]);
        assert_eq!((whole.passed, whole.failed), (2, 1), "{r}");

        let missing = ws.run(&[
            "tests/prices.test.js > price > nope",
            "tests/gone.test.js > x",
            &id,
        ]);
        assert_eq!(missing.status(), Status::TestsFailed, "{r}: {missing:#?}");
        assert_eq!(
            missing.not_found,
            [
                "tests/gone.test.js > x",
                "tests/prices.test.js > price > nope"
            ],
            "{r}"
        );
        let only_missing = ws.run(&["tests/prices.test.js > price > nope"]);
        assert_eq!(only_missing.status(), Status::TestsNotFound, "{r}");
    }
}

#[test]
fn saved_reports_read_like_live_runs() {
    for (r, file) in [("jest", "jest.json"), ("vitest", "vitest.json")] {
        let (ws, live) = run_fixture(r, "single");
        let text = ws.report(file);
        assert_eq!(js::sniff(&text), Some(r));
        let paths = PathMap::new(ws.root());
        let saved = if r == "jest" {
            js::parse_jest(&text, &paths).unwrap()
        } else {
            js::parse_vitest(&text, &paths).unwrap()
        };
        assert_eq!(saved.failures, live.failures, "{r}");
        assert_eq!(
            (saved.passed, saved.failed, saved.skipped),
            (live.passed, live.failed, live.skipped)
        );
        // Truncated or garbled reports are errors, never a panic and never green.
        for cut in [0, 1, text.len() / 3, text.len() / 2, text.len() - 1] {
            let mut end = cut;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            if let Ok(run) = js::parse_jest(&text[..end], &paths) {
                assert!(!run.status().is_green());
            }
        }
    }
}

#[test]
fn a_missing_runner_says_how_to_install_it() {
    require_runners();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("package.json"),
        r#"{"devDependencies":{"jest":"30.5.2"}}"#,
    )
    .unwrap();
    std::fs::write(dir.path().join("yarn.lock"), "").unwrap();
    let adapter = js::detect(dir.path()).pop().expect("a jest project");
    let run = Runs::new(dir.path()).run(adapter.as_ref(), &[], Duration::from_secs(30));
    assert_eq!(run.status(), Status::RunnerMissing);
    assert_eq!(
        run.hint.as_deref(),
        Some("jest is not installed in node_modules: run yarn install")
    );
}

#[test]
fn only_javascript_ids_are_claimed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("package.json"),
        r#"{"devDependencies":{"vitest":"4.1.12"}}"#,
    )
    .unwrap();
    let adapter = js::detect(dir.path()).pop().expect("a vitest project");
    assert!(adapter.claims("tests/a.test.ts > sum > adds"));
    assert!(adapter.claims("tests/a.test.js"));
    assert!(!adapter.claims("tests/test_a.py::test_x"));
    assert!(!adapter.claims("mycrate tests::it_works"));
}

#[test]
fn the_runners_exit_and_totals_are_evidence() {
    for r in RUNNERS {
        let (_ws, green) = run_fixture(r, "green");
        assert_eq!(
            green.exit,
            Some(Exit::new(0, ExitMeaning::Passed)),
            "{r}: {green:#?}"
        );
        let (_ws, red) = run_fixture(r, "single");
        assert_eq!(
            red.exit,
            Some(Exit::new(1, ExitMeaning::Failed)),
            "{r}: {red:#?}"
        );
        assert_eq!(red.reason, None, "{r}: the records explain the exit");
        if r != "node" {
            // jest and vitest say how many tests the run held, skipped ones included.
            assert_eq!(green.selected, Some(3), "{r}");
            assert_eq!(red.selected, Some(4), "{r}");
        }
    }
}

/// Reads pith's reporter's records from the scratch directory, one JSON value per line.
fn records(ws: &Workspace, runner: &str) -> Vec<serde_json::Value> {
    ws.report(&format!("{runner}.events.jsonl"))
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn a_test_that_patches_fs_cannot_lose_the_reporters_records() {
    let (ws, run) = run_fixture("jest", "patched_fs");
    assert_eq!(run.status(), Status::TestsFailed, "{run:#?}");
    assert_eq!((run.passed, run.failed), (2, 1), "{run:#?}");
    failure(&run, "tests/patch.test.js > fails after the patch");
    let recs = records(&ws, "jest");
    assert!(
        recs.iter().any(|r| r["e"] == "case"
            && r["names"][0] == "fails after the patch"
            && r["status"] == "failed"),
        "the failure was recorded after the patch: {recs:#?}"
    );
    assert!(
        recs.iter().any(|r| r["e"] == "end"),
        "the run's end was recorded: {recs:#?}"
    );
    assert!(!recs.iter().any(|r| r["e"] == "fault"), "{recs:#?}");
}

#[test]
fn tests_that_share_a_name_are_each_counted() {
    let ws = Workspace::new("node", "green");
    std::fs::write(
        ws.root().join("tests/twice.test.js"),
        "import { test } from 'node:test';\nimport assert from 'node:assert';\n\
         for (const ok of [true, false, true]) test('same', () => assert.ok(ok));\n",
    )
    .unwrap();
    let run = ws.run(&[]);
    assert_eq!((run.passed, run.failed), (5, 1), "{run:#?}");
    assert_eq!(run.failures[0].test, "tests/twice.test.js > same");
    let again = ws.run(&["tests/twice.test.js > same"]);
    assert_eq!((again.passed, again.failed), (2, 1), "{again:#?}");
    assert_eq!(again.status(), Status::TestsFailed);
}

#[test]
fn project_files_cannot_stand_in_for_pith_reporters() {
    // jest's case is the `patched_fs` fixture, which holds a `pith_jest_reporter.cjs`.
    for r in ["vitest", "node"] {
        let ws = Workspace::new(r, "green");
        for name in [
            "pith_vitest_reporter.mjs",
            "pith_node_reporter.mjs",
            "pith_node_exit.cjs",
        ] {
            for dir in [ws.root().to_path_buf(), ws.root().join("tests")] {
                std::fs::write(
                    dir.join(name),
                    "throw new Error('a project file stood in for pith');\n",
                )
                .unwrap();
            }
        }
        let run = ws.run(&[]);
        assert_eq!(run.status(), Status::TestsPassed, "{r}: {run:#?}");
        assert_eq!(run.passed, 3, "{r}");
    }
}

#[test]
fn the_detail_keeps_the_diff_and_the_cause() {
    let cause = |test_line: u32| {
        format!("Error: bad config\n\n[cause]: TypeError: not a number: 80a\n    at src/config.js:9\n    at src/config.js:15\n    at tests/config.test.js:{test_line}")
    };
    for r in ["jest", "vitest"] {
        let (_ws, run) = run_fixture(r, "detail_chain");
        let f = failure(&run, "tests/config.test.js > squares as text");
        assert!(
            f.message.ends_with("(differ at offset 56: Expected …96,225,256,289,324,361,400,4… Received …96,225,256,290,324,361,400,4…)"),
            "{r}: {}",
            f.message
        );
        let detail = f.detail.as_deref().unwrap_or("");
        assert!(
            detail.contains("\nExpected: \"0,1,4,") && detail.contains("\nReceived: \"0,1,4,"),
            "{r}: the values whole: {detail}"
        );
        let f = failure(&run, "tests/config.test.js > port");
        assert_eq!(f.message, "bad config");
        assert_eq!(f.detail, Some(cause(12)), "{r}");
    }
    let (_ws, run) = run_fixture("node", "detail_chain");
    let f = failure(&run, "tests/config.test.js > port does not throw");
    assert_eq!(f.message, "AssertionError: Got unwanted exception.");
    assert_eq!(
        f.detail.as_deref(),
        Some("AssertionError [ERR_ASSERTION]: Got unwanted exception.\nActual message: \"bad config\"\n\n[actual]: Error: bad config\n    at src/config.js:17\n    at tests/config.test.js:7\n\n[cause]: TypeError: not a number: 80a\n    at src/config.js:9\n    at src/config.js:15\n    at tests/config.test.js:7"),
        "the error the code really threw, and its cause"
    );
    let f = failure(&run, "tests/config.test.js > port");
    assert_eq!(f.detail, Some(cause(11)));
}
