//! The verdict corpus for Python: one tiny project per hostile case (`tests/fixtures/verdicts/
//! python/<case>`), run by the real pytest through the real `pith` binary, asserting the status,
//! the exit code and the fields that carry the evidence. The false greens of issue 11 come first
//! (each fails when its fix is reverted), then the cases pith already got right.

use crate::common;

use std::process::Command;

use common::{fixture, pith, Answer};

fn run(case: &str, args: &[&str]) -> Answer {
    let ws = fixture(&format!("verdicts/python/{case}"));
    pith(ws.path(), args)
}

/// The failing ids an answer names: its failures in full and the other members of their causes.
fn failed_tests(a: &Answer) -> Vec<&str> {
    let mut ids: Vec<&str> = a
        .failures()
        .iter()
        .flat_map(|f| {
            let others = f["others"].as_array().into_iter().flatten();
            std::iter::once(&f["test"]).chain(others)
        })
        .filter_map(|t| t.as_str())
        .collect();
    ids.sort_unstable();
    ids
}

// ---- False greens: each was TestsPassed (or worse, wrong) before its fix. ----

/// A coverage threshold in `addopts` fails the run after every test passed: pytest exits 1,
/// and the answer carries pytest-cov's own line.
#[test]
fn coverage_threshold_fails_the_run() {
    let a = run("cov_fail_under", &[]);
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!((a.count("passed"), a.count("failed")), (1, 0), "{}", a.line);
    assert!(a.text("reason").contains("pytest exited 1"), "{}", a.line);
    assert!(
        a.text("tail")
            .contains("FAIL Required test coverage of 90% not reached"),
        "{}",
        a.line
    );
}

/// A conftest's `pytest_sessionfinish` that sets `session.exitstatus = 1` after every test
/// passed: pytest's exit is evidence.
#[test]
fn session_finish_hook_failing_the_run_is_not_green() {
    let a = run("sessionfinish_exitstatus", &[]);
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!(a.count("passed"), 2, "{}", a.line);
    assert_eq!(
        a.text("reason"),
        "pytest exited 1 though no test failed",
        "{}",
        a.line
    );
    assert!(a.text("tail").contains("2 passed"), "{}", a.line);
}

/// Tests that patch `json.dumps`, `json.JSONEncoder`, `open`, `os.write`, `os.open` and
/// `sys.stdout` while failing: their failures are still recorded and reported.
#[test]
fn tests_that_patch_the_serializer_still_report_their_failures() {
    let a = run("patched_serializer", &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!((a.count("passed"), a.count("failed")), (2, 2), "{}", a.line);
    assert_eq!(
        failed_tests(&a),
        [
            "tests/test_patch.py::test_patches_io",
            "tests/test_patch.py::test_patches_json"
        ],
        "{}",
        a.line
    );
    let messages: Vec<&str> = a
        .failures()
        .iter()
        .filter_map(|f| f["message"].as_str())
        .collect();
    assert!(
        messages.contains(&"AssertionError: json patched"),
        "{}",
        a.line
    );
    assert!(a.json.get("reason").is_none(), "{}", a.line);
}

/// A write of the plugin that fails (a full disk) loses a failure record: the answer says so
/// rather than trusting what is left.
#[test]
fn a_record_the_plugin_could_not_write_is_a_fault_not_green() {
    let a = run("plugin_write_fails", &[]);
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!(a.count("passed"), 1, "{}", a.line);
    assert!(
        a.text("reason")
            .starts_with("pith's pytest plugin lost 1 record(s): writing ")
            && a.text("reason").ends_with("No space left on device"),
        "{}",
        a.line
    );
}

/// A project module named `pith_plugin.py` is the project's: pith's plugin is not replaced by
/// it, and the project's tests import their own module.
#[test]
fn a_project_file_cannot_shadow_the_plugin() {
    let a = run("shadow_plugin", &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!((a.count("passed"), a.count("failed")), (1, 1), "{}", a.line);
    assert_eq!(
        failed_tests(&a),
        ["tests/test_shadow.py::test_fails"],
        "{}",
        a.line
    );
}

/// `pytest.exit("bye", returncode=0)` in the second of three tests: exit 0, one passed, the
/// failing third never ran. Not green.
#[test]
fn a_run_that_stops_early_with_exit_zero_is_not_green() {
    let a = run("exit_zero_early", &[]);
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!((a.count("passed"), a.count("failed")), (1, 0), "{}", a.line);
    assert_eq!(
        a.text("reason"),
        "2 of 3 selected tests never reported; pytest exited 0",
        "{}",
        a.line
    );
    assert!(a.text("tail").contains("Exit: bye"), "{}", a.line);
}

/// An id is never an option: `-x`, `--co` and `@args.txt` (pytest reads `@file` as more
/// arguments) are ids that match nothing.
#[test]
fn ids_that_look_like_options_are_not_found() {
    let ws = fixture("verdicts/python/option_like_ids");
    for ids in [&["-x"][..], &["--co", "--help"], &["@args.txt"]] {
        let a = pith(ws.path(), &[&["--"][..], ids].concat());
        assert_eq!((a.status(), a.code), ("TestsNotFound", 1), "{}", a.line);
        let mut nf: Vec<&str> = a.json["notFound"]
            .as_array()
            .unwrap_or_else(|| panic!("{}", a.line))
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        nf.sort_unstable();
        let mut want = ids.to_vec();
        want.sort_unstable();
        assert_eq!(nf, want, "{}", a.line);
        assert!(a.json.get("passed").is_none(), "nothing ran: {}", a.line);
    }
    // A real id beside one: the real one runs, the other is not found.
    let a = pith(ws.path(), &["--", "-x", "tests/test_ok.py::test_passes"]);
    assert_eq!((a.status(), a.code), ("TestsNotFound", 1), "{}", a.line);
    assert_eq!(a.count("passed"), 1, "{}", a.line);
    assert_eq!(a.json["notFound"], serde_json::json!(["-x"]), "{}", a.line);
}

/// The tests see the caller's environment: no colour switch added, `TERM` as it was, and none
/// of pith's own Python settings. The fixture's tests assert exactly that.
#[test]
fn the_tests_see_the_callers_colour_environment() {
    let ws = fixture("verdicts/python/colour_env");
    let mut cmd = common::bare();
    cmd.args(["test", "--root"])
        .arg(ws.path())
        .env("TERM", "xterm-256color");
    for var in [
        "NO_COLOR",
        "PY_COLORS",
        "FORCE_COLOR",
        "CLICOLOR",
        "CLICOLOR_FORCE",
        "PYTHONUNBUFFERED",
        "PYTHONFAULTHANDLER",
        "PYTHONPATH",
        "VIRTUAL_ENV",
    ] {
        cmd.env_remove(var);
    }
    let a = common::answer_of(cmd.output().unwrap(), ws.path());
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
    assert_eq!(a.count("passed"), 3, "{}", a.line);
    // The same tests run by hand, as the caller would: the same outcome.
    let raw = Command::new("python3")
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .current_dir(ws.path())
        .env("TERM", "xterm-256color")
        .env_remove("NO_COLOR")
        .env_remove("PY_COLORS")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("PYTHONUNBUFFERED")
        .env_remove("PYTHONFAULTHANDLER")
        .env_remove("PYTHONPATH")
        .env_remove("PYTEST_ADDOPTS")
        .output()
        .unwrap();
    assert!(
        raw.status.success(),
        "{}",
        String::from_utf8_lossy(&raw.stdout)
    );
}

/// A failing test that prints 100 MB and fails on a 10 MB source line: the answer is the
/// failure, small, and the run is not slowed into a timeout by what pith keeps.
#[test]
fn a_failure_that_prints_100_mb_is_answered_in_bounded_form() {
    let a = run("huge_output", &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.failures().len(), 1, "{}", a.line);
    assert_eq!(
        a.failures()[0]["message"],
        "AssertionError: huge line",
        "{}",
        a.line
    );
    assert!(a.line.len() < 4096, "answer is {} bytes", a.line.len());
}

// ---- The project's configuration is honoured: its options keep their effect. ----

/// `addopts = -x` with two failing tests: pytest stops at the first, as it would by hand.
#[test]
fn addopts_exitfirst_is_honoured() {
    let a = run("addopts_exitfirst", &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.count("failed"), 1, "{}", a.line);
    assert_eq!(
        failed_tests(&a),
        ["tests/test_two.py::test_first_failure"],
        "{}",
        a.line
    );
}

/// `--strict-markers` in addopts: an unknown marker is a collection error, as it is by hand.
#[test]
fn strict_markers_are_honoured() {
    let a = run("strict_markers", &[]);
    assert_eq!((a.status(), a.code), ("CollectionFailed", 1), "{}", a.line);
    assert!(
        a.failures()[0]["message"]
            .as_str()
            .unwrap()
            .contains("'typo_marker' not found in `markers` configuration option"),
        "{}",
        a.line
    );
}

/// `-W error::DeprecationWarning` from `[tool.pytest.ini_options]`: the warning fails its test.
#[test]
fn warnings_as_errors_are_honoured() {
    let a = run("warnings_error", &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!((a.count("passed"), a.count("failed")), (1, 1), "{}", a.line);
    assert_eq!(
        a.failures()[0]["message"],
        "DeprecationWarning: old_api is deprecated",
        "{}",
        a.line
    );
}

/// `-k`, `-m`, `-p xdist -n 2` in addopts deselect the failing tests: what pytest selected is
/// what ran, so green stays green.
#[test]
fn deselection_in_addopts_keeps_green_green() {
    let a = run("deselected_green", &[]);
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
    assert_eq!(a.count("passed"), 4, "{}", a.line);
    assert!(a.json.get("reason").is_none(), "{}", a.line);
}

/// Re-running one parametrization (pith selects it in its plugin, after pytest's own
/// collection): exactly it runs, and a passing one is green.
#[test]
fn a_parametrized_rerun_is_counted_exactly() {
    let ws = fixture("verdicts/python/param_rerun");
    let a = pith(ws.path(), &["tests/test_p.py::test_inc[1-2]"]);
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
    assert_eq!(a.count("passed"), 1, "{}", a.line);
    let a = pith(
        ws.path(),
        &[
            "tests/test_p.py::test_inc[3-5]",
            "tests/test_p.py::test_inc[7-8]",
        ],
    );
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!((a.count("passed"), a.count("failed")), (1, 1), "{}", a.line);
}

/// Was TestsPassed and silent: pytest-rerunfailures (`--reruns` in the project's `addopts`)
/// re-ran a test that failed once, and pytest exits 0. Green, and the answer lists the failed
/// attempt under `flaky`; a test that fails every attempt stays red.
#[test]
fn a_test_that_passes_on_a_rerun_is_green_and_listed_as_flaky() {
    let ws = fixture("verdicts/python/reruns");
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
    assert_eq!(a.count("passed"), 2, "{}", a.line);
    let f = &a.json["flaky"][0];
    assert_eq!(
        f["test"], "tests/test_stock.py::test_reserves",
        "{}",
        a.line
    );
    assert_eq!(f["message"], "AssertionError: first attempt", "{}", a.line);
    assert_eq!(
        f["frames"][0], "tests/test_stock.py:12 assert left() == 3, \"first attempt\"",
        "{}",
        a.line
    );

    std::fs::write(
        ws.path().join("tests/test_stuck.py"),
        "def test_stuck():\n    assert 1 == 2, \"every attempt\"\n",
    )
    .unwrap();
    let b = pith(ws.path(), &[]);
    assert_eq!((b.status(), b.code), ("TestsFailed", 1), "{}", b.line);
    assert_eq!(
        failed_tests(&b),
        ["tests/test_stuck.py::test_stuck"],
        "{}",
        b.line
    );
    assert_eq!((b.count("passed"), b.count("failed")), (2, 1), "{}", b.line);
    assert_eq!(
        b.json["flaky"][0]["test"], "tests/test_stock.py::test_reserves",
        "{}",
        b.line
    );
}

// ---- Cases pith already got right: they stay right. ----

/// `os._exit(0)` inside a test: exit 0, but the session never ended.
#[test]
fn os_exit_zero_inside_a_test_is_a_crash() {
    let a = run("os_exit_zero", &[]);
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    assert_eq!(
        a.json["running"],
        serde_json::json!(["tests/test_exit.py::test_leaves_the_interpreter"]),
        "{}",
        a.line
    );
}

/// A test that SIGKILLs its xdist worker.
#[test]
fn a_killed_xdist_worker_is_a_crash_naming_the_test() {
    let a = run("xdist_worker_killed", &[]);
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    assert_eq!(
        a.json["running"],
        serde_json::json!(["tests/test_kill.py::test_kills_its_worker"]),
        "{}",
        a.line
    );
}

/// A `conftest.py` that does not parse: nothing is collected.
#[test]
fn a_conftest_syntax_error_is_a_collection_failure() {
    let a = run("conftest_syntax_error", &[]);
    assert_eq!((a.status(), a.code), ("CollectionFailed", 1), "{}", a.line);
    assert_eq!(
        a.failures()[0]["message"],
        "SyntaxError: invalid syntax",
        "{}",
        a.line
    );
    assert_eq!(a.failures()[0]["test"], "conftest.py", "{}", a.line);
}

/// `os.abort()` in a test.
#[test]
fn abort_is_a_crash_naming_the_test() {
    let a = run("abort", &[]);
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    assert_eq!(
        a.json["running"],
        serde_json::json!(["tests/test_abort.py::test_aborts"]),
        "{}",
        a.line
    );
    assert_eq!(
        a.failures()[0]["message"],
        "Fatal Python error: Aborted",
        "{}",
        a.line
    );
}

/// Tests that patch `sys.exit`, `time.time` and empty `os.environ`: outcomes as they are.
#[test]
fn tests_that_patch_process_state_are_reported_as_they_are() {
    let a = run("patches_process_state", &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!((a.count("passed"), a.count("failed")), (2, 1), "{}", a.line);
    assert_eq!(
        failed_tests(&a),
        ["tests/test_state.py::test_fails_with_everything_patched"],
        "{}",
        a.line
    );
}

/// A test module that does not import: a collection failure, the rest still runs.
#[test]
fn an_import_error_is_a_collection_failure() {
    // By hand pytest stops at a collection error and runs nothing ("Interrupted: 1 error
    // during collection"): so does pith (it used to add --continue-on-collection-errors).
    let ws = fixture("verdicts/python/import_error");
    let raw = common::raw(
        ws.path(),
        &["python3", "-m", "pytest", "-p", "no:cacheprovider"],
        &[],
    );
    assert_eq!(raw.code, Some(2), "{}", raw.output);
    assert!(
        raw.output
            .contains("Interrupted: 1 error during collection")
            && !raw.output.contains("passed"),
        "{}",
        raw.output
    );
    let a = run("import_error", &[]);
    assert_eq!((a.status(), a.code), ("CollectionFailed", 1), "{}", a.line);
    assert_eq!(a.count("passed"), 0, "{}", a.line);
    assert_eq!(a.count("errors"), 1, "{}", a.line);
    assert_eq!(
        a.failures()[0]["message"],
        "ModuleNotFoundError: No module named 'module_that_does_not_exist'",
        "{}",
        a.line
    );
}

/// Four test modules import one broken module: four collection errors, each record carrying the
/// error and its frame, and no tail restating the same traceback four times.
#[test]
fn a_module_broken_for_many_is_said_by_its_records_not_by_a_tail() {
    let a = run("shared_broken_import", &[]);
    assert_eq!((a.status(), a.code), ("CollectionFailed", 1), "{}", a.line);
    assert_eq!(a.count("passed"), 0, "{}", a.line);
    assert_eq!(a.count("errors"), 4, "{}", a.line);
    for f in a.failures() {
        assert_eq!(f["message"], "ValueError: broken at import", "{}", a.line);
        assert_eq!(
            common::frames(f)[0],
            "src/broken.py:10 raise ValueError(\"broken at import\")",
            "{}",
            a.line
        );
    }
    assert!(a.json.get("tail").is_none(), "{}", a.line);
}

/// Ids with shell metacharacters, spaces and brackets go to pytest as they are (argv, no
/// shell) and re-run exactly.
#[test]
fn ids_with_shell_metacharacters_rerun_exactly() {
    let ws = fixture("verdicts/python/shell_metachar_id");
    let first = pith(ws.path(), &[]);
    assert_eq!(
        (first.status(), first.code),
        ("TestsFailed", 1),
        "{}",
        first.line
    );
    assert_eq!(
        failed_tests(&first),
        [
            "tests/test_x.py::test_a[a;b $(x)]",
            "tests/test_x.py::test_a[sp ace|&>`y`]"
        ],
        "{}",
        first.line
    );
    for id in [
        "tests/test_x.py::test_a[a;b $(x)]",
        "tests/test_x.py::test_a[sp ace|&>`y`]",
    ] {
        let a = pith(ws.path(), &[id]);
        assert_eq!(
            (a.status(), a.count("failed")),
            ("TestsFailed", 1),
            "{}",
            a.line
        );
        assert_eq!(failed_tests(&a), [id], "{}", a.line);
        assert!(a.json.get("passed").is_none(), "{}", a.line);
    }
    let a = pith(ws.path(), &["tests/test_x.py::test_a[plain]"]);
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
}

/// A session-finish hook that raises: pytest never finishes its session.
#[test]
fn a_session_finish_hook_that_raises_is_not_green() {
    let a = run("sessionfinish_raises", &[]);
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    assert!(
        a.text("tail").contains("RuntimeError: session check broke"),
        "{}",
        a.line
    );
}

/// Issue 26, item 5: what a test prints is never pytest's. With `-s`, tests print pytest's own
/// lines (results, the summary, "not found", a coverage threshold, a faulthandler dump) on
/// stdout and stderr, and run a child pytest with its output inherited: the verdict comes from
/// pith's plugin's records, so none of it counts. When the process then crashes, the dump that
/// locates it is the last one (the one the dying process wrote), not one a test printed.
#[test]
fn pytest_lines_a_test_prints_are_not_pytests() {
    let ws = fixture("verdicts/python/forged_output");
    for red in [false, true] {
        let pytest = ["-m", "pytest", "-p", "no:cacheprovider", "-q"];
        assert_eq!(
            common::raw_passes(ws.path(), "python3", &pytest, red),
            !red,
            "the raw run"
        );
        let a = common::pith_red(ws.path(), &[], red);
        assert!(a.json.get("reason").is_none(), "{}", a.line);
        assert!(a.json.get("notFound").is_none(), "{}", a.line);
        if !red {
            assert_eq!(
                (a.status(), a.code, a.count("passed")),
                ("TestsPassed", 0, 4),
                "{}",
                a.line
            );
            continue;
        }
        assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
        assert_eq!(
            failed_tests(&a),
            ["tests/test_forge.py::test_adds"],
            "{}",
            a.line
        );
        assert_eq!(a.count("passed"), 3, "{}", a.line);
    }
    let a = common::pith_with(
        ws.path(),
        &[],
        &[("PITH_FIXTURE_CRASH", "1")],
        &[common::RED],
    );
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    let f = a.failure("tests/test_forge.py::test_zz_crashes");
    assert_eq!(
        f["message"], "Fatal Python error: Segmentation fault",
        "{}",
        a.line
    );
    assert!(
        common::frames(f)[0].starts_with("tests/test_forge.py:62"),
        "{}",
        a.line
    );
}

/// The caller's `PYTEST_ADDOPTS` is how they run pytest: a developer who deselects the tests
/// that need a service (`-m "not slow"`) gets a green suite by hand, and from pith. pith used
/// to remove the variable: the deselected test ran and failed.
#[test]
fn the_callers_pytest_addopts_decide_what_runs() {
    let ws = fixture("verdicts/python/callers_addopts");
    let addopts = "-m 'not slow'";
    let raw = common::raw(
        ws.path(),
        &["python3", "-m", "pytest", "-p", "no:cacheprovider"],
        &[("PYTEST_ADDOPTS", Some(addopts))],
    );
    assert!(
        raw.green() && raw.output.contains("1 passed, 1 deselected"),
        "{}",
        raw.output
    );
    let a = common::pith_with(ws.path(), &[], &[("PYTEST_ADDOPTS", addopts)], &[]);
    assert_eq!(
        (a.status(), a.code, a.count("passed")),
        ("TestsPassed", 0, 1),
        "{}",
        a.line
    );
    // Without it, the slow test runs and fails, by hand and under pith.
    let raw = common::raw(
        ws.path(),
        &["python3", "-m", "pytest", "-p", "no:cacheprovider"],
        &[("PYTEST_ADDOPTS", None)],
    );
    assert_eq!(raw.code, Some(1), "{}", raw.output);
    let a = common::pith_with(ws.path(), &[], &[], &["PYTEST_ADDOPTS"]);
    assert_eq!(a.status(), "TestsFailed", "{}", a.line);
}

/// A package at the root that the tests import, with no `pythonpath` setting: the project's
/// `pytest` (its console script) cannot import it and stops at collection; pith must not
/// answer green where `python -m pytest` would (it puts the working directory on `sys.path`).
#[test]
fn a_package_only_the_working_directory_makes_importable_fails_as_pytest_fails() {
    let ws = fixture("verdicts/python/package_from_root");
    let raw = common::raw(ws.path(), &["pytest", "-p", "no:cacheprovider"], &[]);
    assert_eq!(raw.code, Some(2), "{}", raw.output);
    assert!(
        raw.output.contains("No module named 'shop'"),
        "{}",
        raw.output
    );
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("CollectionFailed", 1), "{}", a.line);
    assert!(a.line.contains("No module named 'shop'"), "{}", a.line);
}

/// The same project declaring `python -m pytest` (tox here; a Makefile, nox or a CI workflow
/// alike): that command imports the package from the working directory, and so does pith.
#[test]
fn a_declared_python_m_pytest_keeps_the_working_directory_importable() {
    let ws = fixture("verdicts/python/package_from_root");
    std::fs::write(
        ws.path().join("tox.ini"),
        "[testenv]\ncommands = python -m pytest {posargs}\n",
    )
    .unwrap();
    let raw = common::raw(
        ws.path(),
        &["python3", "-m", "pytest", "-p", "no:cacheprovider"],
        &[],
    );
    assert!(raw.green(), "{}", raw.output);
    let a = pith(ws.path(), &[]);
    assert_eq!(
        (a.status(), a.code, a.count("passed")),
        ("TestsPassed", 0, 1),
        "{}",
        a.line
    );
}
