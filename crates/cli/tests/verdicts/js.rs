//! The verdict regression corpus for JavaScript: each hostile case of issue 11 (and the cases
//! pith already got right) as a small project under `tests/fixtures/verdicts/js/<case>/`, run
//! by the real jest, vitest or node test runner. jest and vitest come from
//! `tests/fixtures/js/node_modules` (`scripts/setup/js.sh`), linked into each copy. Every run
//! has the colour variables of a plain shell (`FORCE_COLOR` and `CI` unset, `NO_COLOR=1`,
//! `TERM=xterm-pith`), whatever the harness itself runs under.

use super::*;
use super::{Exit::*, Ids::*, Text::*};

/// A plain shell's colour variables.
const SHELL: Env = &[
    ("FORCE_COLOR", None),
    ("CI", None),
    ("NO_COLOR", Some("1")),
    ("TERM", Some("xterm-pith")),
];

/// A copy of `js/<fixture>` with the shared runners linked in, run in a plain shell.
const fn js(fixture: &'static str, status: &'static str, code: i32) -> Row {
    Row {
        setup: &[Setup::NodeModules],
        env: SHELL,
        ..row(fixture, status, code)
    }
}

/// [`js`], and the answer names `runner`.
const fn by(runner: &'static str, fixture: &'static str, status: &'static str, code: i32) -> Row {
    Row {
        runner: Some(runner),
        ..js(fixture, status, code)
    }
}

/// A later run in a plain shell.
const fn js_again(args: &'static [&'static str], status: &'static str, code: i32) -> Row {
    Row {
        env: SHELL,
        ..again(args, status, code)
    }
}

/// Each test of a fixture's 17 that share one name fails the run; a run by that name runs all
/// of its tests (`jest_duplicates`, `vitest_duplicates`).
const DUPLICATES_AGAIN: &[Row] = &[
    Row {
        passed: Some(2),
        failed: Some(1),
        ..js_again(&["tests/each.test.js > value"], FAILED, 1)
    },
    Row {
        passed: Some(1),
        failed: Some(1),
        ..js_again(&["tests/each.test.js > group > works"], FAILED, 1)
    },
];

/// The ids of `ids_metachar_<runner>`, each run alone: shell and filter metacharacters are data.
const METACHAR_AGAIN: &[Row] = &[
    Row {
        passed: Some(1),
        failed: Some(0),
        ..js_again(
            &["tests/meta.test.js > math $(echo) | ^ > adds (1+1) [x]"],
            PASSED,
            0,
        )
    },
    Row {
        passed: Some(0),
        failed: Some(1),
        ..js_again(
            &["tests/meta.test.js > math $(echo) | ^ > adds (1+1) [y]"],
            FAILED,
            1,
        )
    },
    Row {
        passed: Some(0),
        failed: Some(1),
        ..js_again(
            &["tests/meta.test.js > math $(echo) | ^ > adds (1+1) *"],
            FAILED,
            1,
        )
    },
    Row {
        passed: Some(1),
        failed: Some(0),
        ..js_again(
            &["tests/meta.test.js > math $(echo) | ^ > it's `quoted` & \"done\"; \\ ok?"],
            PASSED,
            0,
        )
    },
];

/// The same project with the fixture's real failure off and on, by hand (`program args`) and
/// under pith: the answer is the raw run's, and has no reason.
macro_rules! forged {
    ($runner:literal, $($raw:literal),+) => {
        Row {
            env: &[
                ("FORCE_COLOR", None),
                ("CI", None),
                ("NO_COLOR", Some("1")),
                ("TERM", Some("xterm-pith")),
                (RED, None),
            ],
            raw: &[Raw { env: &[(RED, None), ("CI", None)], ..by_hand(&[$($raw),+], Green) }],
            absent: &["reason"],
            passed: Some(3),
            then: &[Row {
                env: &[
                    ("FORCE_COLOR", None),
                    ("CI", None),
                    ("NO_COLOR", Some("1")),
                    ("TERM", Some("xterm-pith")),
                    (RED, Some("1")),
                ],
                raw: &[Raw {
                    env: &[(RED, Some("1")), ("CI", None)],
                    ..by_hand(&[$($raw),+], Red)
                }],
                runner: Some($runner),
                absent: &["reason"],
                passed: Some(2),
                failed: Some(1),
                failing: First("tests/forge.test.js > adds"),
                ..again(&[], FAILED, 1)
            }],
            ..by($runner, concat!("js/", $runner, "_forged_output"), PASSED, 0)
        }
    };
}

table! {
    // ---- The project's own retry policy (issue 26) ----

    /// Was green and silent: `jest.retryTimes` re-ran a test that failed once, and jest exits
    /// 0. Green, and the answer lists it under `flaky`: with its failed attempt's message and
    /// frame where jest kept them (`logErrorsBeforeRetry`), else with the attempts jest
    /// counted. A test that fails every attempt stays red, and the test that passed on its
    /// retry is still listed, not failed.
    jest_retry_times_passing_on_a_retry_is_green_and_listed_as_flaky => Row {
        passed: Some(3),
        flaky_attempts: &[
            Failure {
                message: Has("Received: 2"),
                frame: Is("tests/stock.test.js:9 expect(attempts > 1 ? 3 : 2).toBe(3);"),
                ..fail("tests/stock.test.js > reserves")
            },
            Failure {
                message: Is("failed 1 attempt, then passed on a retry (the runner kept no error)"),
                ..fail("tests/quiet.test.js > settles")
            },
        ],
        then: &[Row {
            write: &[(
                "tests/stuck.test.js",
                "jest.retryTimes(2);\ntest('stuck', () => { expect(1).toBe(2); });\n",
            )],
            failing: Exactly(&["tests/stuck.test.js > stuck"]),
            passed: Some(3),
            failed: Some(1),
            flaky: Includes(&["tests/stock.test.js > reserves"]),
            ..js_again(&[], FAILED, 1)
        }],
        ..by("jest", "js/jest_retry", PASSED, 0)
    };

    /// Was green and silent: vitest's `retry` (the project's config) re-ran a test that failed
    /// once. Green, and the failed attempt is listed under `flaky`; a test that fails every
    /// attempt stays red.
    vitest_retry_passing_on_a_retry_is_green_and_listed_as_flaky => Row {
        passed: Some(2),
        flaky_attempts: &[Failure {
            message: Is("AssertionError: expected 2 to be 3"),
            frame: Is("tests/stock.test.js:9 expect(attempts > 1 ? 3 : 2).toBe(3);"),
            ..fail("tests/stock.test.js > reserves")
        }],
        then: &[Row {
            write: &[(
                "tests/stuck.test.js",
                "import { expect, test } from 'vitest';\ntest('stuck', () => { expect(1).toBe(2); });\n",
            )],
            failing: Exactly(&["tests/stuck.test.js > stuck"]),
            passed: Some(2),
            failed: Some(1),
            flaky: Includes(&["tests/stock.test.js > reserves"]),
            ..js_again(&[], FAILED, 1)
        }],
        ..by("vitest", "js/vitest_retry", PASSED, 0)
    };

    // ---- The runner's exit and the user's script ----

    /// The runner's own threshold line is the reason; coverage reports go to pith's scratch,
    /// not into the project; a re-run of one test is not judged by the whole suite's threshold.
    jest_coverage_threshold_in_the_script_is_honoured => Row {
        passed: Some(1),
        texts: &[
            ("reason", Has("does not meet \"global\" threshold (90%)")),
            ("tail", Has("Coverage for statements (50%) does not meet")),
        ],
        gone: &["coverage"],
        then: &[js_again(&["tests/calc.test.js > adds"], PASSED, 0)],
        ..by("jest", "js/jest_coverage_threshold", RUNNER_FAILED, 1)
    };

    vitest_coverage_threshold_in_the_script_is_honoured => Row {
        passed: Some(1),
        texts: &[
            ("reason", Has("Coverage for statements (40%) does not meet global threshold (90%)")),
            ("tail", Has("does not meet global threshold")),
        ],
        gone: &["coverage"],
        ..by("vitest", "js/vitest_coverage_threshold", RUNNER_FAILED, 1)
    };

    a_configured_reporter_that_fails_the_run_is_kept => Row {
        texts: &[
            ("reason", Is("jest reported success:false with no failing test")),
            ("tail", Has("Tests:       1 passed")),
        ],
        ..by("jest", "js/jest_failing_reporter", RUNNER_FAILED, 1)
    };

    /// The exit is the evidence.
    a_failing_exit_after_every_test_passed_is_not_green => Row {
        passed: Some(1),
        texts: &[
            ("reason", Has("jest exited 1")),
            ("tail", Has("teardown check: 3 temp files left behind")),
        ],
        ..by("jest", "js/jest_teardown_fails", RUNNER_FAILED, 1)
    };

    node_test_only_in_the_script_is_honoured => Row {
        passed: Some(1),
        ..by("node", "js/node_test_only", PASSED, 0)
    };

    an_option_that_runs_no_test_is_named_not_dropped => Row {
        texts: &[("reason", Has("pith could not honour --listTests"))],
        ..by("jest", "js/jest_unhonoured", RUNNER_FAILED, 1)
    };

    /// `jest -u` in the script: the runner rewrites the snapshot the test no longer matches, as
    /// `npm test` has it do, and the answer says it wrote one.
    the_scripts_own_snapshot_update_is_honoured => Row {
        counts: &[("snapshotsWritten", 1)],
        files: &[("tests/__snapshots__/label.test.js.snap", Has(r#"`"3 items"`"#))],
        ..by("jest", "js/jest_update_snapshots", PASSED, 0)
    };

    // ---- A run that stops early ----

    /// The test that ended the run is named.
    jest_process_exit_zero_inside_a_test_is_not_green => Row {
        texts: &[
            ("reason", Has("exited 0 before its run ended")),
            ("tail", Has("process.exit called with \"0\"")),
        ],
        running: First("tests/exit.test.js > two"),
        ..by("jest", "js/jest_process_exit", RUNNER_FAILED, 1)
    };

    node_process_exit_zero_inside_a_test_is_not_green => Row {
        texts: &[(
            "reason",
            Has("tests/exit.test.js ended through process.exit(0) before node reported its tests"),
        )],
        ..by("node", "js/node_process_exit", RUNNER_FAILED, 1)
    };

    vitest_process_exit_inside_a_test_fails_that_test => Row {
        passed: Some(1),
        failed: Some(2),
        ..by("vitest", "js/vitest_process_exit", FAILED, 1)
    };

    // ---- Every outcome counts ----

    /// The id names all 17: all run, and the failing one fails the re-run.
    node_tests_that_share_a_name_are_all_kept_and_rerun => Row {
        passed: Some(16),
        failed: Some(1),
        failing: First("tests/loop.test.js > handles a case"),
        then: &[Row {
            passed: Some(16),
            failed: Some(1),
            ..js_again(&["tests/loop.test.js > handles a case"], FAILED, 1)
        }],
        ..by("node", "js/node_duplicates", FAILED, 1)
    };

    jest_tests_that_share_a_name_are_all_kept_and_rerun => Row {
        passed: Some(3),
        failed: Some(2),
        failing: Set(&["tests/each.test.js > group > works", "tests/each.test.js > value"]),
        then: DUPLICATES_AGAIN,
        ..by("jest", "js/jest_duplicates", FAILED, 1)
    };

    vitest_tests_that_share_a_name_are_all_kept_and_rerun => Row {
        passed: Some(3),
        failed: Some(2),
        failing: Set(&["tests/each.test.js > group > works", "tests/each.test.js > value"]),
        then: DUPLICATES_AGAIN,
        ..by("vitest", "js/vitest_duplicates", FAILED, 1)
    };

    // ---- Ids are ids ----

    /// Nothing runs.
    ids_that_look_like_options_name_no_test => Row {
        args: &["--", "--help"],
        not_found: Exactly(&["--help"]),
        absent: &["passed"],
        then: &[
            Row {
                not_found: Exactly(&["-x"]),
                absent: &["passed"],
                ..js_again(&["--", "-x"], NOT_FOUND, 1)
            },
            Row {
                not_found: Exactly(&["--listTests"]),
                absent: &["passed"],
                ..js_again(&["--", "--listTests"], NOT_FOUND, 1)
            },
        ],
        ..js("js/ids_dash", NOT_FOUND, 1)
    };

    ids_with_metacharacters_select_exactly_their_test_jest => Row {
        passed: Some(2),
        failed: Some(2),
        then: METACHAR_AGAIN,
        ..by("jest", "js/ids_metachar_jest", FAILED, 1)
    };

    ids_with_metacharacters_select_exactly_their_test_vitest => Row {
        passed: Some(2),
        failed: Some(2),
        then: METACHAR_AGAIN,
        ..by("vitest", "js/ids_metachar_vitest", FAILED, 1)
    };

    ids_with_metacharacters_select_exactly_their_test_node => Row {
        passed: Some(2),
        failed: Some(2),
        then: METACHAR_AGAIN,
        ..by("node", "js/ids_metachar_node", FAILED, 1)
    };

    // ---- Colour and environment ----

    tests_see_the_callers_colour_variables_jest => Row {
        passed: Some(2),
        ..by("jest", "js/env_colour_jest", PASSED, 0)
    };

    tests_see_the_callers_colour_variables_vitest => Row {
        passed: Some(2),
        ..by("vitest", "js/env_colour_vitest", PASSED, 0)
    };

    tests_see_the_callers_colour_variables_node => Row {
        passed: Some(2),
        ..by("node", "js/env_colour_node", PASSED, 0)
    };

    // ---- Bounded memory ----

    /// A flood of output and a huge message: pith's own peak memory stays bounded.
    a_flood_of_output_and_a_huge_message_stay_bounded_jest => Row {
        passed: Some(1),
        failed: Some(1),
        failures: &[Failure { message: Has("huge: yyy"), ..nth(0) }],
        peak_mib: Some(100),
        ..by("jest", "js/jest_big_output", FAILED, 1)
    };

    a_flood_of_output_and_a_huge_message_stay_bounded_node => Row {
        passed: Some(1),
        failed: Some(1),
        failures: &[Failure { message: Has("huge: yyy"), ..nth(0) }],
        peak_mib: Some(100),
        ..by("node", "js/node_big_output", FAILED, 1)
    };

    // ---- What pith already got right ----

    a_syntax_error_in_a_test_file_is_a_collection_failure => Row {
        failing: First("tests/broken.test.js"),
        passed: Some(1),
        ..by("jest", "js/jest_syntax_error", COLLECT, 1)
    };

    a_vitest_import_failure_is_a_collection_failure => Row {
        failing: First("tests/broken.test.js"),
        failures: &[Failure { message: Has("not_there"), ..nth(0) }],
        ..by("vitest", "js/vitest_import_failure", COLLECT, 1)
    };

    an_unhandled_rejection_after_the_tests_is_not_green => Row {
        line: &["late rejection"],
        ..by("vitest", "js/vitest_unhandled_rejection", FAILED, 1)
    };

    tests_that_throw_what_is_not_an_error_fail => Row {
        passed: Some(1),
        failed: Some(3),
        ..by("jest", "js/jest_throws_non_error", FAILED, 1)
    };

    a_jest_worker_crash_is_crashed_and_named => Row {
        running: First("tests/crash.test.js > aborts"),
        ..by("jest", "js/jest_worker_crash", CRASHED, 1)
    };

    /// Issue 26, item 5: what a test prints is never the runner's. For each runner, a test
    /// prints jest's, vitest's and node's summary lines ("No tests found", a coverage
    /// threshold, failed counts) through console and straight to stdout and stderr, another
    /// runs the same runner on a project of its own with its output inherited. pith reads its
    /// reporters' records, so the answer is the raw run's, green or red; and "No tests found"
    /// is the runner's word only when no test reported (jest's red run said "jest exited 1 (no
    /// tests) though no test failed").
    runner_lines_a_test_prints_are_not_the_runners_node => forged!("node", "node", "--test");

    runner_lines_a_test_prints_are_not_the_runners_jest =>
        forged!("jest", "node", "node_modules/jest/bin/jest.js");

    runner_lines_a_test_prints_are_not_the_runners_vitest =>
        forged!("vitest", "node", "node_modules/vitest/vitest.mjs", "run");
}
