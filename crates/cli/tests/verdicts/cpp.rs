//! The verdict corpus for C/C++: each hostile case a tiny CMake project under
//! `tests/fixtures/verdicts/cpp/`, built with the machine's toolchain and GoogleTest
//! (scripts/setup/cpp.sh) and run through CTest. The false green first, then what pith gets
//! right and must keep.

use super::*;
use super::{Exit::*, Ids::*, Text::*};

/// The project configured, built and tested by hand in the caller's shell, after pith's run
/// (before it, pith would build in the `build/` this configures).
macro_rules! raw_ctest {
    ($env:expr, $exit:expr, $has:expr) => {
        &[
            Raw {
                env: $env,
                after: true,
                ..by_hand(&["cmake", "-S", ".", "-B", "build", "-G", "Ninja"], Green)
            },
            Raw {
                env: $env,
                after: true,
                ..by_hand(&["cmake", "--build", "build"], Green)
            },
            Raw {
                env: $env,
                after: true,
                has: $has,
                ..by_hand(
                    &["ctest", "--test-dir", "build", "--output-on-failure"],
                    $exit,
                )
            },
        ]
    };
}

const FORGED_RED: &str = "PITH_FIXTURE_RED";
const FORGED_CRASH: &str = "PITH_FIXTURE_CRASH";

table! {
    /// False green: every test passes, then the environment's tear-down `_exit(0)`s before
    /// gtest's summary and report. ctest says Passed and exits 0.
    a_gtest_binary_that_exits_before_its_end_is_not_green => Row {
        passed: Some(2),
        texts: &[
            ("reason", Is("teardown exited 0 before GoogleTest's end (no summary, no report)")),
            ("tail", Ends("[       OK ] Env.Two (0 ms)")),
        ],
        ..row("cpp/no_summary", RUNNER_FAILED, 1)
    };

    /// A test that `_Exit(0)`s: ctest says Passed, the test after it never ran, no report.
    a_test_that_exits_zero_mid_run_is_not_green => Row {
        counts: &[("selected", 3)],
        passed: Some(1),
        failing: First("Quit.Early"),
        failures: &[Failure {
            message: Is("the test process exited during this test"),
            ..fail("Quit.Early")
        }],
        texts: &[
            ("reason", Has("ctest exited 0")),
            ("tail", Ends("[ RUN      ] Quit.Early")),
        ],
        ..row("cpp/exit_midtest", FAILED, 1)
    };

    /// ctest fails a test whose gtest tests all passed (WILL_FAIL): ctest's exit 8 is explained
    /// by a failure of the CTest test, never green.
    a_ctest_failure_no_gtest_test_explains_is_not_green => Row {
        failing: First("inverted"),
        failures: &[Failure {
            message: Is("the test process failed after its tests passed"),
            ..fail("inverted")
        }],
        ..row("cpp/will_fail", FAILED, 1)
    };

    /// Reports that are not JSON (two processes that wrote the same file at once leave that
    /// when ctest runs tests in parallel) cost nothing when every process's console says how
    /// each of its tests ended and ctest's totals agree: the answer is the tests', not a doubt.
    unreadable_reports_the_console_accounts_for_are_no_doubt => Row {
        passed: Some(1),
        failed: Some(1),
        absent: &["reason"],
        failing: First("Clobber.Fails"),
        failures: &[Failure {
            frame: Is("tests/clobber_test.cc:29 EXPECT_EQ(got, 4);"),
            ..fail("Clobber.Fails")
        }],
        ..row("cpp/clobbered_report", FAILED, 1)
    };

    /// Twenty-five tests pass before one dies: the tail is the test that died, never the
    /// progress lines of those that passed (`[ RUN ]`/`[ OK ]`, 600 B of them before).
    a_crash_after_passing_tests_has_a_tail_of_the_crash_alone => Row {
        passed: Some(25),
        failing: First("Seg.Dies"),
        texts: &[("tail", Is("[ RUN      ] Seg.Dies"))],
        ..row("cpp/crash_after_passes", CRASHED, 1)
    };

    a_segfault_is_crashed_and_names_the_test => Row {
        counts: &[("selected", 3)],
        passed: Some(1),
        failing: First("Seg.Dies"),
        failures: &[Failure { message: Is("crashed with SIGSEGV"), ..fail("Seg.Dies") }],
        texts: &[("tail", Ends("[ RUN      ] Seg.Dies"))],
        ..row("cpp/segv", CRASHED, 1)
    };

    /// ctest 3.25 says `Subprocess aborted***Exception:`: a crash, not a plain failure.
    an_abort_is_crashed_and_names_the_test => Row {
        failing: First("Abort.Dies"),
        failures: &[Failure { message: Is("crashed with SIGABRT"), ..fail("Abort.Dies") }],
        ..row("cpp/abort", CRASHED, 1)
    };

    a_failing_suite_setup_is_a_collection_error => Row {
        failing: First("Db"),
        failures: &[Failure {
            message: Is("database not reachable"),
            phase: Some("collect"),
            ..fail("Db")
        }],
        counts: &[("skipped", 2)],
        ..row("cpp/suite_setup", COLLECT, 1)
    };

    /// A CTest test over its own TIMEOUT fails, named, beside a gtest test that passed.
    a_ctest_timeout_fails_the_test => Row {
        passed: Some(1),
        failing: First("slow"),
        failures: &[Failure {
            message: Is("timed out (the CTest TIMEOUT of this test)"),
            ..fail("slow")
        }],
        ..row("cpp/ctest_timeout", FAILED, 1)
    };

    /// A CTest test that is no gtest binary (a script) and fails: a failure in its own words.
    a_plain_ctest_test_that_fails_is_a_failure => Row {
        passed: Some(1),
        failing: First("config_check"),
        failures: &[Failure {
            message: Is("config invalid: port missing"),
            ..fail("config_check")
        }],
        ..row("cpp/plain_fail", FAILED, 1)
    };

    /// A self-checking program that CTest fails by its output (`PASS_REGULAR_EXPRESSION` not
    /// matched): the message is the line that says what failed, not the first line it printed.
    a_test_failed_by_its_output_says_the_failing_line => Row {
        failing: First("selfcheck"),
        failures: &[Failure {
            message: Is("[fail] attribute: double as int"),
            ..fail("selfcheck")
        }],
        ..row("cpp/plain_regex", FAILED, 1)
    };

    /// `Inst/P.Even/1` selects that instance alone (an unanchored `-R` would add `/10`, which
    /// fails); `Whole.One` inside a whole binary alone (a prefix filter would add `OneMore`).
    ids_select_exactly_that_test => Row {
        args: &["Inst/P.Even/1"],
        passed: Some(1),
        then: &[
            Row { passed: Some(1), ..again(&["Whole.One"], PASSED, 0) },
            Row { passed: Some(1), ..again(&["Inst/P.Even/0"], PASSED, 0) },
        ],
        ..row("cpp/ids", PASSED, 0)
    };

    /// An id is never an option to ctest or gtest.
    an_id_that_looks_like_an_option_is_not_found => Row {
        args: &["--", "-R", "--gtest_filter=*"],
        not_found: Exactly(&["-R", "--gtest_filter=*"]),
        absent: &["passed", "failed"],
        ..row("cpp/ids", NOT_FOUND, 1)
    };

    /// The tests see the caller's environment: colour and locale as given (pith sets its C
    /// locale and colour switch on the build only), gtest's behaviour variables kept, its
    /// reporting ones (`GTEST_COLOR`) taken out.
    the_tests_see_the_callers_environment => Row {
        env: &[
            ("NO_COLOR", None),
            ("CLICOLOR", None),
            ("CMAKE_COLOR_DIAGNOSTICS", None),
            ("TERM", Some("xterm-256color")),
            ("WANT_TERM", Some("xterm-256color")),
            ("FORCE_COLOR", Some("1")),
            ("WANT_FORCE_COLOR", Some("1")),
            ("CLICOLOR_FORCE", Some("1")),
            ("WANT_CLICOLOR_FORCE", Some("1")),
            ("LC_ALL", Some("C.UTF-8")),
            ("WANT_LC_ALL", Some("C.UTF-8")),
            ("GTEST_COLOR", Some("yes")),
            ("GTEST_DEATH_TEST_STYLE", Some("threadsafe")),
            ("WANT_GTEST_DEATH_TEST_STYLE", Some("threadsafe")),
        ],
        ..row("cpp/env", PASSED, 0)
    };

    /// Issue 26, item 5: what a test prints is never GoogleTest's. A test prints gtest's and
    /// CTest's lines on stdout and stderr, another runs this same binary (a test failing there)
    /// with its output inherited. gtest runs one test at a time: between a test's `[ RUN ]` and
    /// its end, no other marker is gtest's (CTest prefixes every line a test prints, so its own
    /// totals cannot be forged). Green, red and crashed, the answer is the raw run's, and a
    /// crash names the test that was running, not the one it printed.
    gtest_lines_a_test_prints_are_not_gtests => Row {
        env: &[(FORGED_RED, None), (FORGED_CRASH, None)],
        passed: Some(5),
        absent: &["reason"],
        then: &[
            Row {
                env: &[(FORGED_CRASH, None), (FORGED_RED, Some("1"))],
                passed: Some(4),
                failed: Some(1),
                failing: First("Forge.Adds"),
                ..again(&[], FAILED, 1)
            },
            Row {
                env: &[(FORGED_RED, None), (FORGED_CRASH, Some("1"))],
                failing: Exactly(&["Forge.Crashes"]),
                absent: &["running"],
                passed: Some(3),
                failed: Some(1),
                ..again(&[], CRASHED, 1)
            },
        ],
        ..row("cpp/forged_output", PASSED, 0)
    };

    /// The caller's GoogleTest variables that decide what runs reach the tests, as they do
    /// under raw `ctest`: a whole-binary test filtered with `GTEST_FILTER=-Service.*` is green
    /// by hand, and was red under pith, which removed the filter.
    the_callers_gtest_selection_decides_what_runs_filtered => Row {
        env: &[("GTEST_FILTER", Some("-Service.*"))],
        passed: Some(1),
        raw: raw_ctest!(&[("GTEST_FILTER", Some("-Service.*"))], Green, &[]),
        ..row("cpp/callers_gtest_env", PASSED, 0)
    };

    /// The same with `GTEST_ALSO_RUN_DISABLED_TESTS=1`: the disabled test runs and fails by
    /// hand, and was green under pith.
    the_callers_gtest_selection_decides_what_runs_with_disabled => Row {
        env: &[
            ("GTEST_FILTER", Some("-Service.*")),
            ("GTEST_ALSO_RUN_DISABLED_TESTS", Some("1")),
        ],
        failures: &[Failure { message: Has("known broken"), ..fail("Local.DISABLED_KnownBroken") }],
        raw: raw_ctest!(
            &[
                ("GTEST_FILTER", Some("-Service.*")),
                ("GTEST_ALSO_RUN_DISABLED_TESTS", Some("1")),
            ],
            Red,
            &["known broken"]
        ),
        ..row("cpp/callers_gtest_env", FAILED, 1)
    };
}
