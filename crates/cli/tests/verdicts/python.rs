//! The verdict corpus for Python: one tiny project per hostile case (`tests/fixtures/verdicts/
//! python/<case>`), run by the real pytest. The false greens of issue 11 come first (each
//! fails when its fix is reverted), then the cases pith already got right.

use super::*;
use super::{Exit::*, Ids::*, Text::*};

/// `python -m pytest` as a developer types it, without pytest's cache.
const PYTHON_M_PYTEST: &[&str] = &["python3", "-m", "pytest", "-p", "no:cacheprovider"];

table! {
    // ---- False greens: each was TestsPassed (or worse, wrong) before its fix. ----

    /// A coverage threshold in `addopts` fails the run after every test passed: pytest exits
    /// 1, and the answer carries pytest-cov's own line.
    coverage_threshold_fails_the_run => Row {
        passed: Some(1),
        failed: Some(0),
        texts: &[
            ("reason", Has("pytest exited 1")),
            ("tail", Has("FAIL Required test coverage of 90% not reached")),
        ],
        ..row("python/cov_fail_under", RUNNER_FAILED, 1)
    };

    /// A conftest's `pytest_sessionfinish` that sets `session.exitstatus = 1` after every test
    /// passed: pytest's exit is evidence.
    session_finish_hook_failing_the_run_is_not_green => Row {
        passed: Some(2),
        texts: &[
            ("reason", Is("pytest exited 1 though no test failed")),
            ("tail", Has("2 passed")),
        ],
        ..row("python/sessionfinish_exitstatus", RUNNER_FAILED, 1)
    };

    /// Tests that patch `json.dumps`, `json.JSONEncoder`, `open`, `os.write`, `os.open` and
    /// `sys.stdout` while failing: their failures are still recorded and reported.
    tests_that_patch_the_serializer_still_report_their_failures => Row {
        passed: Some(2),
        failed: Some(2),
        failing: All(&[
            "tests/test_patch.py::test_patches_io",
            "tests/test_patch.py::test_patches_json",
        ]),
        failures: &[Failure { message: Is("AssertionError: json patched"), ..some() }],
        absent: &["reason"],
        ..row("python/patched_serializer", FAILED, 1)
    };

    /// A write of the plugin that fails (a full disk) loses a failure record: the answer says
    /// so rather than trusting what is left.
    a_record_the_plugin_could_not_write_is_a_fault_not_green => Row {
        passed: Some(1),
        texts: &[
            ("reason", Starts("pith's pytest plugin lost 1 record(s): writing ")),
            ("reason", Ends("No space left on device")),
        ],
        ..row("python/plugin_write_fails", RUNNER_FAILED, 1)
    };

    /// A project module named `pith_plugin.py` is the project's: pith's plugin is not replaced
    /// by it, and the project's tests import their own module.
    a_project_file_cannot_shadow_the_plugin => Row {
        passed: Some(1),
        failed: Some(1),
        failing: All(&["tests/test_shadow.py::test_fails"]),
        ..row("python/shadow_plugin", FAILED, 1)
    };

    /// `pytest.exit("bye", returncode=0)` in the second of three tests: exit 0, one passed, the
    /// failing third never ran. Not green.
    a_run_that_stops_early_with_exit_zero_is_not_green => Row {
        passed: Some(1),
        failed: Some(0),
        texts: &[
            ("reason", Is("2 of 3 selected tests never reported; pytest exited 0")),
            ("tail", Has("Exit: bye")),
        ],
        ..row("python/exit_zero_early", RUNNER_FAILED, 1)
    };

    /// An id is never an option: `-x`, `--co` and `@args.txt` (pytest reads `@file` as more
    /// arguments) are ids that match nothing; nothing ran.
    ids_that_look_like_options_are_not_found => Row {
        args: &["--", "-x"],
        not_found: Set(&["-x"]),
        absent: &["passed"],
        then: &[
            Row {
                not_found: Set(&["--co", "--help"]),
                absent: &["passed"],
                ..again(&["--", "--co", "--help"], NOT_FOUND, 1)
            },
            Row {
                not_found: Set(&["@args.txt"]),
                absent: &["passed"],
                ..again(&["--", "@args.txt"], NOT_FOUND, 1)
            },
            // A real id beside one: the real one runs, the other is not found.
            Row {
                passed: Some(1),
                not_found: Exactly(&["-x"]),
                ..again(&["--", "-x", "tests/test_ok.py::test_passes"], NOT_FOUND, 1)
            },
        ],
        ..row("python/option_like_ids", NOT_FOUND, 1)
    };

    /// The tests see the caller's environment: no colour switch added, `TERM` as it was, and
    /// none of pith's own Python settings. The fixture's tests assert exactly that; run by
    /// hand, as the caller would, they agree.
    the_tests_see_the_callers_colour_environment => Row {
        env: &[
            ("TERM", Some("xterm-256color")),
            ("NO_COLOR", None),
            ("PY_COLORS", None),
            ("FORCE_COLOR", None),
            ("CLICOLOR", None),
            ("CLICOLOR_FORCE", None),
            ("PYTHONUNBUFFERED", None),
            ("PYTHONFAULTHANDLER", None),
            ("PYTHONPATH", None),
            ("VIRTUAL_ENV", None),
        ],
        passed: Some(3),
        raw: &[Raw {
            env: &[
                ("TERM", Some("xterm-256color")),
                ("NO_COLOR", None),
                ("PY_COLORS", None),
                ("FORCE_COLOR", None),
                ("CLICOLOR", None),
                ("CLICOLOR_FORCE", None),
                ("PYTHONUNBUFFERED", None),
                ("PYTHONFAULTHANDLER", None),
                ("PYTHONPATH", None),
                ("PYTEST_ADDOPTS", None),
            ],
            after: true,
            ..by_hand(&["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider"], Green)
        }],
        ..row("python/colour_env", PASSED, 0)
    };

    /// A failing test that prints 100 MB and fails on a 10 MB source line: the answer is the
    /// failure, small, and the run is not slowed into a timeout by what pith keeps.
    a_failure_that_prints_100_mb_is_answered_in_bounded_form => Row {
        failing: Count(1),
        failures: &[Failure { message: Is("AssertionError: huge line"), ..nth(0) }],
        // Under 4096 bytes.
        budget: Some(4095),
        ..row("python/huge_output", FAILED, 1)
    };

    // ---- The project's configuration is honoured: its options keep their effect. ----

    /// `addopts = -x` with two failing tests: pytest stops at the first, as it would by hand.
    addopts_exitfirst_is_honoured => Row {
        failed: Some(1),
        failing: All(&["tests/test_two.py::test_first_failure"]),
        ..row("python/addopts_exitfirst", FAILED, 1)
    };

    /// `--strict-markers` in addopts: an unknown marker is a collection error, as it is by
    /// hand.
    strict_markers_are_honoured => Row {
        failures: &[Failure {
            message: Has("'typo_marker' not found in `markers` configuration option"),
            ..nth(0)
        }],
        ..row("python/strict_markers", COLLECT, 1)
    };

    /// `-W error::DeprecationWarning` from `[tool.pytest.ini_options]`: the warning fails its
    /// test.
    warnings_as_errors_are_honoured => Row {
        passed: Some(1),
        failed: Some(1),
        failures: &[Failure { message: Is("DeprecationWarning: old_api is deprecated"), ..nth(0) }],
        ..row("python/warnings_error", FAILED, 1)
    };

    /// `-k`, `-m`, `-p xdist -n 2` in addopts deselect the failing tests: what pytest selected
    /// is what ran, so green stays green.
    deselection_in_addopts_keeps_green_green => Row {
        passed: Some(4),
        absent: &["reason"],
        ..row("python/deselected_green", PASSED, 0)
    };

    /// Re-running one parametrization (pith selects it in its plugin, after pytest's own
    /// collection): exactly it runs, and a passing one is green.
    a_parametrized_rerun_is_counted_exactly => Row {
        args: &["tests/test_p.py::test_inc[1-2]"],
        passed: Some(1),
        then: &[Row {
            passed: Some(1),
            failed: Some(1),
            ..again(
                &["tests/test_p.py::test_inc[3-5]", "tests/test_p.py::test_inc[7-8]"],
                FAILED,
                1,
            )
        }],
        ..row("python/param_rerun", PASSED, 0)
    };

    /// Was TestsPassed and silent: pytest-rerunfailures (`--reruns` in the project's
    /// `addopts`) re-ran a test that failed once, and pytest exits 0. Green, and the answer
    /// lists the failed attempt under `flaky`; a test that fails every attempt stays red.
    a_test_that_passes_on_a_rerun_is_green_and_listed_as_flaky => Row {
        passed: Some(2),
        flaky: First("tests/test_stock.py::test_reserves"),
        flaky_attempts: &[Failure {
            message: Is("AssertionError: first attempt"),
            frame: Is("tests/test_stock.py:12 assert left() == 3, \"first attempt\""),
            ..fail("tests/test_stock.py::test_reserves")
        }],
        then: &[Row {
            write: &[(
                "tests/test_stuck.py",
                "def test_stuck():\n    assert 1 == 2, \"every attempt\"\n",
            )],
            failing: All(&["tests/test_stuck.py::test_stuck"]),
            passed: Some(2),
            failed: Some(1),
            flaky: First("tests/test_stock.py::test_reserves"),
            ..again(&[], FAILED, 1)
        }],
        ..row("python/reruns", PASSED, 0)
    };

    // ---- Cases pith already got right: they stay right. ----

    /// `os._exit(0)` inside a test: exit 0, but the session never ended.
    os_exit_zero_inside_a_test_is_a_crash => Row {
        running: Exactly(&["tests/test_exit.py::test_leaves_the_interpreter"]),
        ..row("python/os_exit_zero", CRASHED, 1)
    };

    /// A test that SIGKILLs its xdist worker.
    a_killed_xdist_worker_is_a_crash_naming_the_test => Row {
        running: Exactly(&["tests/test_kill.py::test_kills_its_worker"]),
        ..row("python/xdist_worker_killed", CRASHED, 1)
    };

    /// A `conftest.py` that does not parse: nothing is collected.
    a_conftest_syntax_error_is_a_collection_failure => Row {
        failing: First("conftest.py"),
        failures: &[Failure { message: Is("SyntaxError: invalid syntax"), ..fail("conftest.py") }],
        ..row("python/conftest_syntax_error", COLLECT, 1)
    };

    /// `os.abort()` in a test.
    abort_is_a_crash_naming_the_test => Row {
        running: Exactly(&["tests/test_abort.py::test_aborts"]),
        failures: &[Failure { message: Is("Fatal Python error: Aborted"), ..nth(0) }],
        ..row("python/abort", CRASHED, 1)
    };

    /// Tests that patch `sys.exit`, `time.time` and empty `os.environ`: outcomes as they are.
    tests_that_patch_process_state_are_reported_as_they_are => Row {
        passed: Some(2),
        failed: Some(1),
        failing: All(&["tests/test_state.py::test_fails_with_everything_patched"]),
        ..row("python/patches_process_state", FAILED, 1)
    };

    /// A test module that does not import: a collection failure, and nothing else runs. By hand
    /// pytest stops at a collection error and runs nothing ("Interrupted: 1 error during
    /// collection"): so does pith (it used to add --continue-on-collection-errors).
    an_import_error_is_a_collection_failure => Row {
        raw: &[Raw {
            has: &["Interrupted: 1 error during collection"],
            lacks: &["passed"],
            ..by_hand(PYTHON_M_PYTEST, Code(2))
        }],
        passed: Some(0),
        counts: &[("errors", 1)],
        failures: &[Failure {
            message: Is("ModuleNotFoundError: No module named 'module_that_does_not_exist'"),
            ..nth(0)
        }],
        ..row("python/import_error", COLLECT, 1)
    };

    /// Four test modules import one broken module: four collection errors, each record carrying
    /// the error and its frame, and no tail restating the same traceback four times.
    a_module_broken_for_many_is_said_by_its_records_not_by_a_tail => Row {
        passed: Some(0),
        counts: &[("errors", 4)],
        failures: &[Failure {
            message: Is("ValueError: broken at import"),
            frame: Is("src/broken.py:10 raise ValueError(\"broken at import\")"),
            ..each()
        }],
        absent: &["tail"],
        ..row("python/shared_broken_import", COLLECT, 1)
    };

    /// Ids with shell metacharacters, spaces and brackets go to pytest as they are (argv, no
    /// shell) and re-run exactly.
    ids_with_shell_metacharacters_rerun_exactly => Row {
        failing: All(&[
            "tests/test_x.py::test_a[a;b $(x)]",
            "tests/test_x.py::test_a[sp ace|&>`y`]",
        ]),
        then: &[
            Row {
                failed: Some(1),
                failing: All(&["tests/test_x.py::test_a[a;b $(x)]"]),
                absent: &["passed"],
                ..again(&["tests/test_x.py::test_a[a;b $(x)]"], FAILED, 1)
            },
            Row {
                failed: Some(1),
                failing: All(&["tests/test_x.py::test_a[sp ace|&>`y`]"]),
                absent: &["passed"],
                ..again(&["tests/test_x.py::test_a[sp ace|&>`y`]"], FAILED, 1)
            },
            again(&["tests/test_x.py::test_a[plain]"], PASSED, 0),
        ],
        ..row("python/shell_metachar_id", FAILED, 1)
    };

    /// A session-finish hook that raises: pytest never finishes its session.
    a_session_finish_hook_that_raises_is_not_green => Row {
        texts: &[("tail", Has("RuntimeError: session check broke"))],
        ..row("python/sessionfinish_raises", CRASHED, 1)
    };

    /// Issue 26, item 5: what a test prints is never pytest's. With `-s`, tests print pytest's
    /// own lines (results, the summary, "not found", a coverage threshold, a faulthandler dump)
    /// on stdout and stderr, and run a child pytest with its output inherited: the verdict
    /// comes from pith's plugin's records, so none of it counts. When the process then
    /// crashes, the dump that locates it is the last one (the one the dying process wrote), not
    /// one a test printed.
    pytest_lines_a_test_prints_are_not_pytests => Row {
        raw: &[Raw {
            env: &[(RED, None), ("CI", None)],
            ..by_hand(&["python3", "-m", "pytest", "-p", "no:cacheprovider", "-q"], Green)
        }],
        env: &[(RED, None)],
        absent: &["reason", "notFound"],
        passed: Some(4),
        then: &[
            Row {
                raw: &[Raw {
                    env: &[(RED, Some("1")), ("CI", None)],
                    ..by_hand(&["python3", "-m", "pytest", "-p", "no:cacheprovider", "-q"], Red)
                }],
                env: &[(RED, Some("1"))],
                absent: &["reason", "notFound"],
                failing: All(&["tests/test_forge.py::test_adds"]),
                passed: Some(3),
                ..again(&[], FAILED, 1)
            },
            Row {
                env: &[(RED, None), ("PITH_FIXTURE_CRASH", Some("1"))],
                failures: &[Failure {
                    message: Is("Fatal Python error: Segmentation fault"),
                    frame: Starts("tests/test_forge.py:62"),
                    ..fail("tests/test_forge.py::test_zz_crashes")
                }],
                ..again(&[], CRASHED, 1)
            },
        ],
        ..row("python/forged_output", PASSED, 0)
    };

    /// The caller's `PYTEST_ADDOPTS` is how they run pytest: a developer who deselects the
    /// tests that need a service (`-m "not slow"`) gets a green suite by hand, and from pith.
    /// pith used to remove the variable: the deselected test ran and failed.
    the_callers_pytest_addopts_decide_what_runs => Row {
        raw: &[Raw {
            env: &[("PYTEST_ADDOPTS", Some("-m 'not slow'"))],
            has: &["1 passed, 1 deselected"],
            ..by_hand(PYTHON_M_PYTEST, Green)
        }],
        env: &[("PYTEST_ADDOPTS", Some("-m 'not slow'"))],
        passed: Some(1),
        // Without it, the slow test runs and fails, by hand and under pith.
        then: &[Row {
            raw: &[Raw { env: &[("PYTEST_ADDOPTS", None)], ..by_hand(PYTHON_M_PYTEST, Code(1)) }],
            env: &[("PYTEST_ADDOPTS", None)],
            ..again(&[], FAILED, 1)
        }],
        ..row("python/callers_addopts", PASSED, 0)
    };

    /// A package at the root that the tests import, with no `pythonpath` setting: the
    /// project's `pytest` (its console script) cannot import it and stops at collection; pith
    /// must not answer green where `python -m pytest` would (it puts the working directory on
    /// `sys.path`).
    a_package_only_the_working_directory_makes_importable_fails_as_pytest_fails => Row {
        raw: &[Raw {
            has: &["No module named 'shop'"],
            ..by_hand(&["pytest", "-p", "no:cacheprovider"], Code(2))
        }],
        line: &["No module named 'shop'"],
        ..row("python/package_from_root", COLLECT, 1)
    };

    /// The same project declaring `python -m pytest` (tox here; a Makefile, nox or a CI
    /// workflow alike): that command imports the package from the working directory, and so
    /// does pith.
    a_declared_python_m_pytest_keeps_the_working_directory_importable => Row {
        write: &[("tox.ini", "[testenv]\ncommands = python -m pytest {posargs}\n")],
        raw: &[by_hand(PYTHON_M_PYTEST, Green)],
        passed: Some(1),
        ..row("python/package_from_root", PASSED, 0)
    };
}
