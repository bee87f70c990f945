//! The pytest adapter against real pytest on the fixture projects in `tests/fixtures/python`.
//! Each fixture is copied to a temporary directory first, so pytest's caches never land in the
//! repository. Python 3, pytest and pytest-xdist must be installed: these tests fail, never
//! skip, without them.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::sync::Once;
use std::time::{Duration, Instant};

use pith_model::{Exit, ExitMeaning, Failure, Phase, Run, Status};
use pith_runner::pytest::{self, Pytest};
use pith_runner::{Adapter, PathMap};
use pith_testkit::{Fixture, Runs};

fn fixtures() -> PathBuf {
    pith_testkit::fixtures_dir("python")
}

/// Python 3 with pytest and pytest-xdist, or the test fails saying what is missing.
fn require_python() {
    static CHECK: Once = Once::new();
    CHECK.call_once(|| {
        let out = Command::new("python3")
            .args(["-c", "import pytest, xdist"])
            .output()
            .expect("python3 must be on PATH for the pytest adapter tests");
        assert!(
            out.status.success(),
            "pytest and pytest-xdist must be importable by python3 (pip install pytest pytest-xdist): {}",
            String::from_utf8_lossy(&out.stderr)
        );
    });
}

/// A fixture project copied into a fresh workspace, and the directories around its runs.
struct Workspace {
    copy: Fixture,
    runs: Runs,
}

impl Workspace {
    fn new(fixture: &str) -> Self {
        require_python();
        let copy = pith_testkit::fixture(&format!("python/{fixture}"));
        let runs = Runs::new(copy.path());
        Workspace { copy, runs }
    }

    fn root(&self) -> &Path {
        self.copy.path()
    }

    /// Runs `adapter` on `ids` with `limit` to go.
    fn run_with(&self, adapter: &Pytest, ids: &[&str], limit: Duration) -> Run {
        self.runs.run(adapter, ids, limit)
    }

    /// Detects the project and runs it the way pith does.
    fn run(&self, ids: &[&str]) -> Run {
        let adapter = pytest::detect(self.root()).expect("a Python project");
        self.run_with(&adapter, ids, Duration::from_secs(120))
    }

    /// The records the plugin wrote in the first attempt.
    fn records(&self) -> String {
        std::fs::read_to_string(self.runs.scratch().join("pytest-1.jsonl")).unwrap()
    }
}

fn run_fixture(fixture: &str) -> (Workspace, Run) {
    let ws = Workspace::new(fixture);
    let run = ws.run(&[]);
    (ws, run)
}

fn failure<'a>(run: &'a Run, test: &str, phase: Phase) -> &'a Failure {
    run.failures
        .iter()
        .find(|f| f.test == test && f.phase == phase)
        .unwrap_or_else(|| panic!("no {phase:?} failure for {test} in {:#?}", run.failures))
}

fn project_locations(f: &Failure) -> Vec<String> {
    f.project_frames().map(|fr| fr.location()).collect()
}

fn failed_ids(run: &Run) -> Vec<&str> {
    let mut ids: Vec<&str> = run.failures.iter().map(|f| f.test.as_str()).collect();
    ids.sort();
    ids
}

#[test]
fn plain_failure_through_a_helper_has_both_project_frames() {
    let (_ws, run) = run_fixture("single");
    assert_eq!(run.runner, "pytest");
    assert_eq!(run.status(), Status::TestsFailed);
    assert_eq!((run.passed, run.failed, run.skipped), (3, 1, 2));
    assert_eq!(run.failures.len(), 1);
    let f = failure(&run, "tests/test_prices.py::test_cents", Phase::Call);
    assert_eq!(
        f.message,
        "ValueError: invalid literal for int() with base 10: '3.50'"
    );
    assert_eq!(f.kind.as_deref(), Some("ValueError"));
    assert_eq!(
        project_locations(f),
        ["tests/test_prices.py:15", "prices.py:6"]
    );
    let top = f.top_project_frame().unwrap();
    assert_eq!(top.code.as_deref(), Some("return int(text.strip(\"$\"))"));
    assert!(f.frames.iter().all(|fr| fr.project), "{:#?}", f.frames);
    assert_eq!(run.tail, None);
    assert_eq!(run.interpreter, None);
    assert!(run.running.is_empty() && run.not_found.is_empty());
}

#[test]
fn unittest_and_plain_classes() {
    let (_ws, run) = run_fixture("classes");
    assert_eq!(run.status(), Status::TestsFailed);
    assert_eq!((run.passed, run.failed, run.skipped), (2, 3, 0));
    assert_eq!(
        failed_ids(&run),
        [
            "tests/test_classes.py::TestPlain::test_fail",
            "tests/test_classes.py::TestUnit::test_equal",
            "tests/test_classes.py::TestUnit::test_error",
        ]
    );
    let eq = failure(
        &run,
        "tests/test_classes.py::TestUnit::test_equal",
        Phase::Call,
    );
    assert_eq!(eq.message, "AssertionError: 2 != 3");
    assert_eq!(project_locations(eq), ["tests/test_classes.py:13"]);
    // unittest's own frames are there, and are not the project's.
    assert!(eq.frames.iter().any(|fr| !fr.project));
    let err = failure(
        &run,
        "tests/test_classes.py::TestUnit::test_error",
        Phase::Call,
    );
    assert_eq!(err.message, "KeyError: 'missing'");
    assert_eq!(
        project_locations(err),
        ["tests/test_classes.py:16", "tests/test_classes.py:5"]
    );
    let plain = failure(
        &run,
        "tests/test_classes.py::TestPlain::test_fail",
        Phase::Call,
    );
    assert_eq!(plain.message, "AssertionError: assert [1, 2] == [1, 3]");
    assert_eq!(plain.kind.as_deref(), Some("AssertionError"));
}

#[test]
fn parametrized_ids_are_verbatim_and_rerun_exactly() {
    let ws = Workspace::new("parametrized");
    let run = ws.run(&[]);
    assert_eq!((run.passed, run.failed), (5, 2));
    assert_eq!(
        failed_ids(&run),
        [
            "tests/test_params.py::TestC::test_words[colons::in-id]",
            "tests/test_params.py::test_inc[3-5]",
        ]
    );
    let f = failure(&run, "tests/test_params.py::test_inc[3-5]", Phase::Call);
    assert_eq!(f.message, "AssertionError: assert (3 + 1) == 5");
    assert_eq!(project_locations(f), ["tests/test_params.py:6"]);

    // Re-running one id runs exactly that one.
    for id in [
        "tests/test_params.py::test_inc[3-5]",
        "tests/test_params.py::TestC::test_words[colons::in-id]",
    ] {
        let again = ws.run(&[id]);
        assert_eq!((again.passed, again.failed), (0, 1), "{id}");
        assert_eq!(failed_ids(&again), [id]);
    }
    let one = ws.run(&["tests/test_params.py::TestC::test_m[1-2]"]);
    assert_eq!((one.passed, one.failed, one.skipped), (1, 0, 0));
    assert_eq!(one.status(), Status::TestsPassed);
    let spaced = ws.run(&["tests/test_params.py::TestC::test_words[with space]"]);
    assert_eq!((spaced.passed, spaced.failed), (1, 0));
}

#[test]
fn fixture_errors_in_setup_and_teardown() {
    let (_ws, run) = run_fixture("fixtures");
    assert_eq!(run.status(), Status::TestsFailed);
    assert_eq!((run.passed, run.failed), (1, 4));
    let setup = failure(
        &run,
        "tests/test_fixtures.py::test_needs_config",
        Phase::Setup,
    );
    assert_eq!(setup.message, "FileNotFoundError: config.toml is missing");
    assert_eq!(
        project_locations(setup),
        ["conftest.py:10", "conftest.py:5"]
    );
    let teardown = failure(&run, "tests/test_fixtures.py::test_leaks", Phase::Teardown);
    assert_eq!(teardown.message, "RuntimeError: connection leaked");
    assert_eq!(project_locations(teardown), ["conftest.py:16"]);
    // Failing in the body and again in teardown: one failure per phase.
    let id = "tests/test_fixtures.py::test_fails_and_leaks";
    assert_eq!(
        failure(&run, id, Phase::Call).message,
        "AssertionError: assert 'conn' == 'other'"
    );
    failure(&run, id, Phase::Teardown);
    assert_eq!(run.failures.iter().filter(|f| f.test == id).count(), 2);
    let unknown = failure(
        &run,
        "tests/test_fixtures.py::test_unknown_fixture",
        Phase::Setup,
    );
    assert_eq!(unknown.message, "fixture 'no_such_fixture' not found");
    assert_eq!(project_locations(unknown), ["tests/test_fixtures.py:13"]);
    assert_eq!(run.failures.len(), 5);
}

#[test]
fn xdist_records_come_from_the_controller_only() {
    let (ws, run) = run_fixture("xdist");
    assert_eq!(run.status(), Status::TestsFailed);
    assert_eq!((run.passed, run.failed), (6, 2));
    assert_eq!(
        failed_ids(&run),
        [
            "tests/test_part1.py::test_c1",
            "tests/test_part2.py::test_c2"
        ]
    );
    let f = failure(&run, "tests/test_part1.py::test_c1", Phase::Call);
    assert_eq!(f.message, "ValueError: 3 is odd");
    assert_eq!(
        project_locations(f),
        ["tests/test_part1.py:13", "checks.py:3"]
    );
    // Every test started and reported its call exactly once: no worker wrote.
    let records = ws.records();
    for i in 1..=2 {
        for t in ["a", "b", "c", "d"] {
            let id = format!("tests/test_part{i}.py::test_{t}{i}");
            let starts = records
                .lines()
                .filter(|l| l.contains("\"start\"") && l.contains(&format!("\"{id}\"")))
                .count();
            assert_eq!(starts, 1, "{id} in\n{records}");
        }
    }
    assert_eq!(
        records
            .lines()
            .filter(|l| l.contains("\"when\":\"call\""))
            .count(),
        8
    );
}

#[test]
fn xdist_worker_crash_names_the_test() {
    let (_ws, run) = run_fixture("xdist_crash");
    assert_eq!(run.status(), Status::Crashed, "{run:#?}");
    assert_eq!(run.running, ["tests/test_crash.py::test_crash"]);
    assert_eq!(run.passed, 2);
    let f = failure(&run, "tests/test_crash.py::test_crash", Phase::Call);
    assert!(f.message.contains("crashed while running"), "{}", f.message);
    assert_eq!(
        f.top_project_frame().map(|fr| fr.location()).as_deref(),
        Some("tests/test_crash.py:9")
    );
    let tail = run.tail.as_deref().unwrap();
    assert!(tail.contains("tests/test_crash.py\", line 9"), "{tail}");
}

#[test]
fn skips_xfails_and_other_outcomes() {
    let (_ws, run) = run_fixture("outcomes");
    assert_eq!(run.status(), Status::TestsFailed);
    // Passed: a test and an xpass; skipped: skipif, a skip in a fixture, an xfail.
    assert_eq!((run.passed, run.failed, run.skipped), (2, 5, 3));
    let t = |name: &str| format!("tests/test_outcomes.py::{name}");
    let strict = failure(&run, &t("test_xpass_strict"), Phase::Call);
    assert_eq!(strict.message, "[XPASS(strict)] must fail");
    assert_eq!(strict.kind, None);
    assert_eq!(project_locations(strict), ["tests/test_outcomes.py:34"]);
    let gave_up = failure(&run, &t("test_fail_without_trace"), Phase::Call);
    assert_eq!(gave_up.message, "Failed: gave up: 3 retries");
    assert_eq!(
        gave_up.top_project_frame().unwrap().location(),
        "tests/test_outcomes.py:40"
    );
    let custom = failure(&run, &t("test_custom_message"), Phase::Call);
    assert_eq!(
        custom.message,
        "AssertionError: expected an even total, got 7"
    );
    let eval = failure(&run, &t("test_eval_error"), Phase::Call);
    assert_eq!(eval.message, "SyntaxError: invalid syntax");
    assert_eq!(project_locations(eval), ["tests/test_outcomes.py:49"]);
    let raises = failure(&run, &t("test_raises_not_raised"), Phase::Call);
    assert_eq!(raises.message, "Failed: DID NOT RAISE ValueError");
    assert_eq!(project_locations(raises), ["tests/test_outcomes.py:53"]);
}

#[test]
fn fifty_failures_from_one_helper() {
    let (_ws, run) = run_fixture("helper50");
    assert_eq!((run.passed, run.failed), (0, 50));
    assert_eq!(run.failures.len(), 50);
    for (i, f) in run.failures.iter().enumerate() {
        assert_eq!(f.test, format!("tests/test_shapes.py::test_area[{i}]"));
        assert_eq!(f.message, "NameError: name 'heigth' is not defined");
        assert_eq!(f.kind.as_deref(), Some("NameError"));
        assert_eq!(
            project_locations(f),
            ["tests/test_shapes.py:8", "shapes.py:2"]
        );
    }
}

#[test]
fn a_hundred_distinct_failures() {
    let (_ws, run) = run_fixture("distinct100");
    assert_eq!((run.passed, run.failed), (0, 100));
    let mut places: Vec<String> = run
        .failures
        .iter()
        .map(|f| f.top_project_frame().unwrap().location())
        .collect();
    places.sort();
    places.dedup();
    assert_eq!(places.len(), 100);
    let f = failure(&run, "tests/test_d3.py::test_f3_4", Phase::Call);
    assert_eq!(f.message, "AssertionError: assert 34 == 1034");
}

#[test]
fn syntax_error_is_a_collection_error_and_nothing_runs() {
    // As by hand: pytest stops at a collection error ("Interrupted: 1 error during
    // collection"), the module's neighbour selected but never run.
    let (_ws, run) = run_fixture("syntax_error");
    assert_eq!(run.status(), Status::CollectionFailed);
    assert_eq!((run.passed, run.selected), (0, Some(1)), "{run:#?}");
    assert_eq!(run.collection_errors(), 1);
    let f = failure(&run, "tests/test_broken.py", Phase::Collect);
    assert_eq!(f.message, "SyntaxError: invalid syntax");
    assert_eq!(f.kind.as_deref(), Some("SyntaxError"));
    assert_eq!(project_locations(f), ["tests/test_broken.py:3"]);
    let tail = run.tail.as_deref().unwrap();
    assert!(tail.contains("SyntaxError"), "{tail}");
    assert!(
        tail.contains("File \"tests/test_broken.py\", line 3"),
        "{tail}"
    );
    assert!(!tail.contains("frozen importlib"), "{tail}");
    assert!(!tail.contains(_ws.root().to_str().unwrap()), "{tail}");
}

#[test]
fn import_error_is_a_collection_error_and_nothing_runs() {
    let (_ws, run) = run_fixture("load_error");
    assert_eq!(run.status(), Status::CollectionFailed);
    assert_eq!((run.passed, run.selected), (0, Some(2)), "{run:#?}");
    let f = failure(&run, "tests/test_imports.py", Phase::Collect);
    assert_eq!(
        f.message,
        "ModuleNotFoundError: No module named 'foo_not_installed'"
    );
    assert_eq!(project_locations(f), ["tests/test_imports.py:2"]);
    let tail = run.tail.as_deref().unwrap();
    assert!(
        tail.contains("tests/test_imports.py:2: in <module>"),
        "{tail}"
    );
    assert!(tail.ends_with("E   ModuleNotFoundError: No module named 'foo_not_installed'"));
}

#[test]
fn broken_conftest_is_a_collection_error() {
    let (_ws, run) = run_fixture("bad_conftest");
    assert_eq!(run.status(), Status::CollectionFailed);
    assert_eq!(run.passed, 0);
    let f = failure(&run, "conftest.py", Phase::Collect);
    assert_eq!(
        f.message,
        "ModuleNotFoundError: No module named 'yaml_is_not_here'"
    );
    assert_eq!(project_locations(f), ["conftest.py:1"]);
    assert!(run.tail.as_deref().unwrap().contains("yaml_is_not_here"));
}

#[test]
fn no_tests_is_not_green() {
    let (_ws, run) = run_fixture("empty");
    assert_eq!(run.status(), Status::NoTestsRan);
    assert_eq!((run.passed, run.failed), (0, 0));
    assert_eq!(run.exit, Some(Exit::new(5, ExitMeaning::NoTests)));
}

#[test]
fn the_exit_is_evidence_when_every_test_passed() {
    let ws = Workspace::new("green");
    // A project check after the tests fails the run.
    std::fs::write(
        ws.root().join("conftest.py"),
        "def pytest_sessionfinish(session, exitstatus):\n    session.exitstatus = 1\n",
    )
    .unwrap();
    let run = ws.run(&[]);
    assert_eq!(
        run.exit,
        Some(Exit::new(1, ExitMeaning::Failed)),
        "{run:#?}"
    );
    assert_eq!((run.passed, run.failed, run.selected), (3, 0, Some(3)));
    assert_eq!(run.status(), Status::RunnerFailed);
    assert_eq!(
        run.doubt().as_deref(),
        Some("pytest exited 1 though no test failed")
    );
    assert!(
        run.tail.as_deref().unwrap().contains("3 passed"),
        "{run:#?}"
    );
    // A plugin's own code, after a normal end: not a crash, and not green either.
    std::fs::write(
        ws.root().join("conftest.py"),
        "def pytest_sessionfinish(session, exitstatus):\n    session.exitstatus = 7\n",
    )
    .unwrap();
    let run = ws.run(&[]);
    assert_eq!(run.exit, Some(Exit::new(7, ExitMeaning::Other)), "{run:#?}");
    assert_eq!(run.status(), Status::RunnerFailed, "{run:#?}");
}

#[test]
fn ids_that_look_like_options_never_reach_pytest_as_options() {
    let ws = Workspace::new("green");
    std::fs::write(ws.root().join("args.txt"), "--collect-only\n").unwrap();
    let run = ws.run(&["-x", "--co", "@args.txt"]);
    assert_eq!(run.status(), Status::TestsNotFound, "{run:#?}");
    assert_eq!(run.not_found, ["-x", "--co", "@args.txt"]);
    assert_eq!(run.passed, 0);
}

#[test]
fn records_stay_small_whatever_a_failing_test_prints() {
    let ws = Workspace::new("green");
    std::fs::write(
        ws.root().join("tests/test_noisy.py"),
        r#"import importlib, sys


def test_noisy(tmp_path):
    sys.stdout.write("x" * (20 << 20))
    (tmp_path / "table.py").write_text(
        "def check():\n    raise ValueError('long line')  # " + "y" * (5 << 20) + "\n"
    )
    sys.path.insert(0, str(tmp_path))
    importlib.import_module("table").check()
"#,
    )
    .unwrap();
    let run = ws.run(&[]);
    assert_eq!(run.status(), Status::TestsFailed, "{:#?}", run.failures);
    let f = failure(&run, "tests/test_noisy.py::test_noisy", Phase::Call);
    assert_eq!(f.message, "ValueError: long line");
    let size = std::fs::metadata(ws.runs.scratch().join("pytest-1.jsonl"))
        .unwrap()
        .len();
    assert!(size < 64 << 10, "the records file is {size} bytes");
}

#[test]
fn green_is_green() {
    let (_ws, run) = run_fixture("green");
    assert_eq!(run.status(), Status::TestsPassed);
    assert_eq!((run.passed, run.failed, run.skipped), (3, 0, 0));
    assert_eq!(run.selected, Some(3));
    assert_eq!(run.exit, Some(Exit::new(0, ExitMeaning::Passed)));
    assert!(run.failures.is_empty());
    assert_eq!(run.tail, None);
}

#[test]
fn segfault_is_a_crash_naming_the_test() {
    let (ws, run) = run_fixture("crash");
    assert_eq!(run.status(), Status::Crashed);
    assert_eq!(run.running, ["tests/test_segfault.py::test_crash"]);
    assert_eq!(run.passed, 1);
    let f = failure(&run, "tests/test_segfault.py::test_crash", Phase::Call);
    assert_eq!(f.message, "Fatal Python error: Segmentation fault");
    assert_eq!(f.kind.as_deref(), Some("SIGSEGV"));
    assert_eq!(project_locations(f), ["tests/test_segfault.py:9"]);
    let tail = run.tail.as_deref().unwrap();
    assert!(tail.contains("Segmentation fault"), "{tail}");
    assert!(
        tail.contains("File \"tests/test_segfault.py\", line 9 in test_crash"),
        "{tail}"
    );
    assert!(!tail.contains(ws.root().to_str().unwrap()), "{tail}");
}

#[test]
fn a_test_that_exits_the_interpreter_is_a_crash_not_green() {
    let (_ws, run) = run_fixture("exit_early");
    assert_eq!(run.status(), Status::Crashed, "{run:#?}");
    assert_eq!(
        run.running,
        ["tests/test_exit.py::test_exits_the_interpreter"]
    );
    assert_eq!(run.passed, 1);
    let f = failure(
        &run,
        "tests/test_exit.py::test_exits_the_interpreter",
        Phase::Call,
    );
    assert_eq!(
        f.message,
        "the test process exited with code 0 during the test"
    );
}

#[test]
fn hang_times_out_naming_the_running_test_and_its_line() {
    let ws = Workspace::new("hang");
    let adapter = pytest::detect(ws.root()).unwrap();
    let start = Instant::now();
    let run = ws.run_with(&adapter, &[], Duration::from_secs(8));
    assert!(start.elapsed() < Duration::from_secs(20));
    assert_eq!(run.status(), Status::TimedOut, "{run:#?}");
    assert_eq!(run.running, ["tests/test_hang.py::test_sleeps"]);
    assert_eq!(run.passed, 1);
    let tail = run.tail.as_deref().unwrap();
    assert!(
        tail.contains("File \"tests/test_hang.py\", line 9 in test_sleeps"),
        "{tail}"
    );
}

#[test]
fn a_deadline_keeps_collection_errors_and_failures_already_reported() {
    // A module that fails to import, a failure, then a hang (the project runs on past
    // collection errors, `--continue-on-collection-errors` in its addopts): the TimedOut answer
    // keeps what pytest said before the deadline.
    let ws = Workspace::new("timeout_loads");
    let adapter = pytest::detect(ws.root()).unwrap();
    let run = ws.run_with(&adapter, &[], Duration::from_secs(10));
    assert_eq!(run.status(), Status::TimedOut, "{run:#?}");
    assert_eq!(run.running, ["tests/test_b_hang.py::test_sleeps"]);
    let f = failure(&run, "tests/test_a_broken.py", Phase::Collect);
    assert!(f.message.contains("foo_not_installed"), "{}", f.message);
    let f = failure(&run, "tests/test_b_hang.py::test_fails", Phase::Call);
    assert!(f.message.contains("assert (1 + 1) == 3"), "{}", f.message);
}

#[test]
fn hang_under_xdist_names_the_test_and_its_line() {
    let ws = Workspace::new("hang");
    std::fs::write(ws.root().join("pytest.ini"), "[pytest]\naddopts = -n 2\n").unwrap();
    let adapter = pytest::detect(ws.root()).unwrap();
    // Bringing up two workers takes a few seconds, many more on a loaded machine: the deadline
    // must fall after the test started for it to be named.
    let run = ws.run_with(&adapter, &[], Duration::from_secs(30));
    assert_eq!(run.status(), Status::TimedOut, "{run:#?}");
    assert_eq!(run.running, ["tests/test_hang.py::test_sleeps"], "{run:#?}");
    assert_eq!(run.passed, 2);
    let tail = run.tail.as_deref().unwrap();
    assert!(
        tail.contains("File \"tests/test_hang.py\", line 9 in test_sleeps"),
        "{tail}"
    );
}

#[test]
fn unknown_ids_are_not_found_and_the_rest_still_run() {
    let ws = Workspace::new("single");
    let run = ws.run(&[
        "tests/test_prices.py::test_nope",
        "tests/test_prices.py::test_total",
    ]);
    assert_eq!(run.not_found, ["tests/test_prices.py::test_nope"]);
    assert_eq!((run.passed, run.failed), (1, 0));
    assert_eq!(run.status(), Status::TestsNotFound);

    let run = ws.run(&["tests/test_gone.py::test_x"]);
    assert_eq!(run.not_found, ["tests/test_gone.py::test_x"]);
    assert_eq!(run.status(), Status::TestsNotFound);

    // A parameter that does not exist, next to one that does.
    let ws = Workspace::new("parametrized");
    let run = ws.run(&[
        "tests/test_params.py::test_inc[9-9]",
        "tests/test_params.py::test_inc[1-2]",
        "tests/test_nope.py",
    ]);
    let mut nf = run.not_found.clone();
    nf.sort();
    assert_eq!(
        nf,
        ["tests/test_nope.py", "tests/test_params.py::test_inc[9-9]"]
    );
    assert_eq!((run.passed, run.failed), (1, 0));
    assert!(!run.status().is_green());

    // The whole function and a parametrization it does not have.
    let run = ws.run(&[
        "tests/test_params.py::test_inc",
        "tests/test_params.py::test_inc[7-7]",
    ]);
    assert_eq!(run.not_found, ["tests/test_params.py::test_inc[7-7]"]);
    assert_eq!((run.passed, run.failed), (2, 1));

    // Two parametrizations of one function, both missing, under xdist.
    let ws = Workspace::new("xdist");
    let run = ws.run(&[
        "tests/test_part1.py::test_a1[1]",
        "tests/test_part1.py::test_b1",
    ]);
    assert_eq!(run.not_found, ["tests/test_part1.py::test_a1[1]"]);
    assert_eq!((run.passed, run.failed), (1, 0));
}

#[test]
fn workspace_venv_is_used_and_named() {
    let ws = Workspace::new("green");
    let made = Command::new("python3")
        .args(["-m", "venv", "--system-site-packages", ".venv"])
        .current_dir(ws.root())
        .status()
        .unwrap();
    assert!(made.success());
    let python = ws.root().join(".venv/bin/python");
    let importable = Command::new(&python)
        .args(["-c", "import pytest"])
        .status()
        .unwrap();
    assert!(
        importable.success(),
        "pytest must be importable in the venv"
    );
    std::fs::write(
        ws.root().join("tests/test_venv.py"),
        "import sys\n\n\ndef test_runs_in_the_venv():\n    assert sys.prefix.endswith('.venv')\n",
    )
    .unwrap();
    let run = ws.run_with(&Pytest::new(None), &[], Duration::from_secs(120));
    assert_eq!(run.status(), Status::TestsPassed, "{run:#?}");
    assert_eq!(run.passed, 4);
    assert_eq!(run.interpreter.as_deref(), Some(".venv/bin/python"));
    // The venv's own frames would not be the project's.
    assert!(!PathMap::is_project(
        ".venv/lib/python3.11/site-packages/x.py"
    ));
}

#[test]
fn venv_without_pytest_is_runner_missing_with_a_hint() {
    let ws = Workspace::new("green");
    let made = Command::new("python3")
        .args(["-m", "venv", "--without-pip", ".venv"])
        .current_dir(ws.root())
        .status()
        .unwrap();
    assert!(made.success());
    let run = ws.run_with(&Pytest::new(None), &[], Duration::from_secs(60));
    assert_eq!(run.status(), Status::RunnerMissing);
    assert_eq!(
        run.hint.as_deref(),
        Some(
            "pytest is not installed for .venv/bin/python: .venv/bin/python -m pip install pytest"
        )
    );
    assert_eq!(run.interpreter.as_deref(), Some(".venv/bin/python"));
}

#[test]
fn an_active_virtualenv_wins_over_the_workspace_one() {
    let ws = Workspace::new("green");
    let outside = tempfile::tempdir().unwrap();
    let made = Command::new("python3")
        .args(["-m", "venv", "--system-site-packages"])
        .arg(outside.path().join("env"))
        .status()
        .unwrap();
    assert!(made.success());
    // A workspace venv without pytest: if it were used, pytest would be missing.
    let made = Command::new("python3")
        .args(["-m", "venv", "--without-pip", ".venv"])
        .current_dir(ws.root())
        .status()
        .unwrap();
    assert!(made.success());
    let adapter = Pytest::new(Some(outside.path().join("env")));
    let run = ws.run_with(&adapter, &[], Duration::from_secs(120));
    assert_eq!(run.status(), Status::TestsPassed, "{run:#?}");
    assert_eq!(run.interpreter, None);
}

#[test]
fn cancel_stops_the_run() {
    let ws = Workspace::new("hang");
    let cancel = AtomicBool::new(true);
    let mut ctx = ws.runs.context(Duration::from_secs(120));
    ctx.cancel = Some(&cancel);
    let run = Pytest::new(None).run(&ctx, &[]).unwrap();
    assert!(!run.status().is_green());
}

#[test]
fn every_fixture_is_detected_and_ids_are_claimed() {
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let path = entry.unwrap().path();
        if path.ends_with("unittest") || path.ends_with("pytest7") {
            // unittest's fixtures, one project each (scenarios.rs, unittest_cli.rs); pytest7 is
            // a pinned pytest's virtualenv (scripts/setup/python.sh), not a project.
            continue;
        }
        assert!(pytest::detect(&path).is_some(), "{}", path.display());
    }
    let empty = tempfile::tempdir().unwrap();
    assert!(pytest::detect(empty.path()).is_none());
    let p = Pytest::new(None);
    assert!(p.claims("tests/test_x.py::TestC::test_m[1-2]"));
    assert!(p.claims("tests/test_x.py"));
    assert!(!p.claims("crate::module::test"));
}

#[test]
fn the_detail_has_the_explanation_the_diff_and_the_chain() {
    let (_ws, run) = run_fixture("detail_chain");
    let detail = |test: &str| {
        let f = failure(&run, &format!("tests/test_config.py::{test}"), Phase::Call);
        (f.message.as_str(), f.detail.as_deref().unwrap_or(""))
    };
    // `raise ... from`: the cause, with its deepest frame.
    assert_eq!(
        detail("test_port"),
        (
            "RuntimeError: bad config",
            "RuntimeError: bad config\n\nThe direct cause of the above exception:\nValueError: invalid literal for int() with base 10: '80a'\n  config.py:6 return int(settings[\"port\"])"
        )
    );
    // Raised while handling another.
    assert_eq!(
        detail("test_host").1,
        "LookupError: no host configured\n\nThe above exception occurred during handling of:\nKeyError: 'host'\n  config.py:13 return settings[\"host\"]"
    );
    // A cause raised inside the standard library: its frames there are left out, the
    // project's frame that called it stays.
    assert_eq!(
        detail("test_settings").1,
        "RuntimeError: bad settings\n\nThe direct cause of the above exception:\njson.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)\n  config.py:25 return json.loads(text)"
    );
    // Long operands: the message says where they differ; the detail keeps pytest's own words,
    // which depend on the tests' world: pytest gives its full diff where `CI` or `BUILD_NUMBER`
    // is set, and pith leaves those to the tests (they read them too).
    let (message, whole) = detail("test_squares");
    assert_eq!(
        message,
        "AssertionError: left != right, differ at [17]: left … 225, 256, 290, 324, 361, 40… right … 225, 256, 289, 324, 361, 40…"
    );
    let (head, rest) = whole
        .split_once("  At index 17 diff: 290 != 289\n")
        .unwrap_or_else(|| panic!("{whole}"));
    assert_eq!(
        head,
        "AssertionError: assert [0, 1, 4, 9, 16, 25, ...] == [0, 1, 4, 9, 16, 25, ...]\n\n"
    );
    let on_ci = ["CI", "BUILD_NUMBER"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
    if on_ci {
        assert!(rest.starts_with("\n  Full diff:"), "{whole}");
        assert!(
            rest.contains("\n  -     289,\n") && rest.contains("\n  +     290,\n"),
            "{whole}"
        );
        assert!(whole.ends_with("\n    ]"), "the whole diff: {whole}");
    } else {
        assert_eq!(rest, "  Use -v to get more diff");
    }
    // unittest's diff.
    let (message, whole) = detail("TestSquares::test_list");
    assert_eq!(
        message,
        "AssertionError: Lists differ: [0, 1, 4, 9, 16] != [0, 1, 4, 9, 17]"
    );
    assert!(
        whole.ends_with("First differing element 4:\n16\n17\n\n- [0, 1, 4, 9, 16]\n?               ^\n\n+ [0, 1, 4, 9, 17]\n?               ^"),
        "{whole}"
    );
    // Short operands keep pytest's first line.
    let (_ws, single) = run_fixture("single");
    let f = failure(&single, "tests/test_prices.py::test_cents", Phase::Call);
    assert_eq!(f.detail, None, "one line says it all");
}
