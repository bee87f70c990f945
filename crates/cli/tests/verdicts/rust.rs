//! The verdict corpus for Rust: each hostile case (tests/fixtures/verdicts/rust/<case>/) run by
//! the real runners, through cargo-nextest and plain `cargo test` alike (a row for each,
//! `..._nextest` and `..._cargo`). The false greens of issue 11 (a failing `harness = false`
//! target, a failing doctest under nextest, a test that ends its process with exit 0, colour
//! variables pith changed) sit beside cases pith already got right (aborts, segfaults, build
//! scripts, `#[should_panic]`, ids that look like options or shell). Every run shares the
//! harness's one cargo target dir.

use super::*;
use super::{Exit::*, Ids::*, Text::*};

/// `rust/<fixture>` through cargo-nextest.
const fn nextest(fixture: &'static str, status: &'static str, code: i32) -> Row {
    Row {
        args: &["--runner", "nextest"],
        ..row(fixture, status, code)
    }
}

/// `rust/<fixture>` through plain `cargo test`.
const fn cargo(fixture: &'static str, status: &'static str, code: i32) -> Row {
    Row {
        args: &["--runner", "cargo"],
        ..row(fixture, status, code)
    }
}

/// A failing `harness = false` target: the unit test and `checks_ok` passed; `checks_fail` and
/// `checks_panic` did not. The target's own words are its failure's message; the tail does not
/// say them again.
macro_rules! harness_false {
    ($runner:literal) => {
        Row {
            passed: Some(2),
            failed: Some(2),
            failures: &[
                Failure {
                    message: Is("check failed: expected 2, got 1"),
                    ..fail("hfalse::checks_fail")
                },
                Failure {
                    message: Has("the answer drifted"),
                    frame: Starts("tests/checks_panic.rs:5"),
                    ..fail("hfalse::checks_panic")
                },
            ],
            texts: &[("tail", Lacks("check failed: expected 2, got 1"))],
            // Its id re-runs it, whole.
            then: &[
                Row {
                    failed: Some(1),
                    ..again(&["--runner", $runner, "hfalse::checks_fail"], FAILED, 1)
                },
                Row {
                    passed: Some(1),
                    ..again(&["--runner", $runner, "hfalse::checks_ok"], PASSED, 0)
                },
            ],
            args: &["--runner", $runner],
            ..row("rust/harness_false", FAILED, 1)
        }
    };
}

/// A failing doctest, red and re-run by its id.
macro_rules! doctest_fails {
    ($runner:literal) => {
        Row {
            passed: Some(1),
            failed: Some(1),
            failures: &[fail("docfail::doc src/lib.rs - add (line 3)")],
            then: &[Row {
                failed: Some(1),
                ..again(
                    &[
                        "--runner",
                        $runner,
                        "docfail::doc src/lib.rs - add (line 3)",
                    ],
                    FAILED,
                    1,
                )
            }],
            args: &["--runner", $runner],
            ..row("rust/doctest_fails", FAILED, 1)
        }
    };
}

/// Ids that look like options or shell name no test: nothing reaches a shell.
macro_rules! ids {
    ($runner:literal) => {
        Row {
            args: &[
                "--runner",
                $runner,
                "--",
                "-x",
                "--help",
                "--list",
                "ids -x",
                "-x tests::ok",
                "ids --exact",
            ],
            not_found: Set(&[
                "-x",
                "--help",
                "--list",
                "ids -x",
                "-x tests::ok",
                "ids --exact",
            ]),
            then: &[Row {
                passed: Some(1),
                not_found: Set(&[
                    "ids tests::a;touch pwned",
                    "ids tests::$(touch pwned)",
                    "ids tests::`touch pwned`",
                    "ids tests::a|b&c>pwned",
                    "ids tests::it's \"quoted\"",
                    "ids tests::a,b)c\\d/e",
                ]),
                // An id reached no shell.
                gone: &["pwned"],
                ..again(
                    &[
                        "--runner",
                        $runner,
                        "ids tests::ok",
                        "ids tests::a;touch pwned",
                        "ids tests::$(touch pwned)",
                        "ids tests::`touch pwned`",
                        "ids tests::a|b&c>pwned",
                        "ids tests::it's \"quoted\"",
                        "ids tests::a,b)c\\d/e",
                    ],
                    NOT_FOUND,
                    1,
                )
            }],
            ..row("rust/ids", NOT_FOUND, 1)
        }
    };
}

/// A workspace in `rust/`: paths from the workspace root, and the failure's id re-runs exactly
/// it (nothing else passes or is skipped, nothing is not found).
macro_rules! cargo_in_subdir {
    ($runner:literal) => {
        Row {
            failing: First("subdir tests::halves"),
            failures: &[Failure {
                frame: Starts("rust/src/lib.rs:9 "),
                ..fail("subdir tests::halves")
            }],
            then: &[Row {
                failed: Some(1),
                absent: &["passed", "skipped", "notFound"],
                failing: First("subdir tests::halves"),
                ..again(&["--runner", $runner, "subdir tests::halves"], FAILED, 1)
            }],
            args: &["--runner", $runner],
            ..row("rust/cargo_in_subdir", FAILED, 1)
        }
    };
}

/// The caller's environment for `environment`'s colour test: what it sets, the test expects.
const COLOURS: Env = &[
    ("CARGO_TERM_COLOR", Some("always")),
    ("PITH_EXPECT_CARGO_TERM_COLOR", Some("always")),
    ("TERM", Some("xterm-256color")),
    ("PITH_EXPECT_TERM", Some("xterm-256color")),
    ("CLICOLOR_FORCE", Some("1")),
    ("PITH_EXPECT_CLICOLOR_FORCE", Some("1")),
    ("FORCE_COLOR", Some("1")),
    ("PITH_EXPECT_FORCE_COLOR", Some("1")),
    ("NO_COLOR", None),
    ("PITH_EXPECT_NO_COLOR", None),
    ("CLICOLOR", None),
    ("PITH_EXPECT_CLICOLOR", None),
    ("RUST_BACKTRACE", None),
    ("RUST_LIB_BACKTRACE", None),
    ("CARGO_TERM_QUIET", None),
    ("CARGO_TERM_VERBOSE", None),
    ("PITH_EXPECT_CAPTURED", None),
];

/// The caller's backtrace and cargo variables, as a developer who keeps `RUST_BACKTRACE=1`
/// and a quiet cargo in their shell has them.
const CALLERS_ENV: Env = &[
    ("RUST_BACKTRACE", Some("1")),
    ("PITH_EXPECT_RUST_BACKTRACE", Some("1")),
    ("PITH_EXPECT_CAPTURED", Some("1")),
    ("CARGO_TERM_QUIET", Some("true")),
    ("PITH_EXPECT_CARGO_TERM_QUIET", Some("true")),
    ("RUST_LIB_BACKTRACE", None),
    ("CARGO_TERM_VERBOSE", None),
    ("CARGO_TERM_COLOR", None),
    ("TERM", None),
    ("NO_COLOR", None),
    ("CLICOLOR", None),
    ("CLICOLOR_FORCE", None),
    ("FORCE_COLOR", None),
];

/// The message of `environment`'s test that fails on purpose.
const DEPTH_CHANGED: &str = "assertion `left == right` failed: depth changed (left: 7, right: 8)";

/// `runner_lines_a_test_prints_are_not_the_runners`, green or red: by hand, then under plain
/// cargo (as many test threads as libtest likes, then one, where libtest's `test NAME ... ` and
/// its verdict are two writes others land between) and under nextest.
macro_rules! forged {
    (green) => {
        Row {
            raw: &[Raw {
                env: &[(RED, None)],
                ..by_hand(&["cargo", "test", "--offline"], Green)
            }],
            env: &[(RED, None), ("RUST_TEST_THREADS", None)],
            passed: Some(4),
            then: &[
                Row {
                    env: &[(RED, None), ("RUST_TEST_THREADS", Some("1"))],
                    passed: Some(4),
                    ..again(&["--runner", "cargo"], PASSED, 0)
                },
                Row {
                    env: &[(RED, None), ("RUST_TEST_THREADS", None)],
                    passed: Some(4),
                    ..again(&["--runner", "nextest"], PASSED, 0)
                },
            ],
            ..cargo("rust/forged_output", PASSED, 0)
        }
    };
    (red) => {
        Row {
            raw: &[Raw {
                env: &[(RED, Some("1"))],
                ..by_hand(&["cargo", "test", "--offline"], Red)
            }],
            env: &[(RED, Some("1")), ("RUST_TEST_THREADS", None)],
            then: &[
                Row {
                    env: &[(RED, Some("1")), ("RUST_TEST_THREADS", Some("1"))],
                    ..forged!(red again "cargo")
                },
                Row {
                    env: &[(RED, Some("1")), ("RUST_TEST_THREADS", None)],
                    ..forged!(red again "nextest")
                },
            ],
            fixture: "rust/forged_output",
            ..forged!(red again "cargo")
        }
    };
    (red again $runner:literal) => {
        Row {
            passed: Some(3),
            failed: Some(1),
            failures: &[Failure {
                message: Has("real failure"),
                frame: Starts("src/lib.rs:"),
                ..fail("forge tests::real_failure")
            }],
            absent: &["reason"],
            ..again(&["--runner", $runner], FAILED, 1)
        }
    };
}

table! {
    failing_harness_free_targets_are_named_and_never_green_nextest => harness_false!("nextest");
    failing_harness_free_targets_are_named_and_never_green_cargo => harness_false!("cargo");

    /// Plain cargo runs a harness-free target that ignores `--list`, and it fails.
    harness_free_target_that_ignores_list_is_never_green_cargo => Row {
        failures: &[Failure {
            message: Is("custom check failed: expected 2, got 1"),
            ..fail("hfunlisted::custom")
        }],
        ..cargo("rust/harness_false_unlisted", FAILED, 1)
    };

    /// nextest cannot list it and runs nothing: never green, the target's words in the tail.
    harness_free_target_that_ignores_list_is_never_green_nextest => Row {
        texts: &[("tail", Has("hfunlisted::custom")), ("tail", Has("custom check failed"))],
        ..nextest("rust/harness_false_unlisted", COLLECT, 1)
    };

    failing_doctest_is_red_under_nextest_as_under_cargo_nextest => doctest_fails!("nextest");
    failing_doctest_is_red_under_nextest_as_under_cargo_cargo => doctest_fails!("cargo");

    /// Passing doctests count with the rest.
    passing_doctests_count_with_the_rest_nextest => Row {
        passed: Some(2),
        ..nextest("rust/doctest_passes", PASSED, 0)
    };

    passing_doctests_count_with_the_rest_cargo => Row {
        passed: Some(2),
        ..cargo("rust/doctest_passes", PASSED, 0)
    };

    a_panic_after_a_long_log_keeps_its_message_nextest => Row {
        failures: &[Failure {
            message: Is("the real reason"),
            frame: Starts("src/lib.rs:14"),
            ..fail("loglong tests::logs_then_panics")
        }],
        ..nextest("rust/log_then_panic", FAILED, 1)
    };

    a_panic_after_a_long_log_keeps_its_message_cargo => Row {
        failures: &[Failure {
            message: Is("the real reason"),
            frame: Starts("src/lib.rs:14"),
            ..fail("loglong tests::logs_then_panics")
        }],
        ..cargo("rust/log_then_panic", FAILED, 1)
    };

    /// A hundred megabytes of output stay out of pith (its peak memory), and the binary that
    /// ran after the flood was read too.
    a_hundred_megabytes_of_output_stay_out_of_pith_nextest => Row {
        failures: &[
            Failure { message: Is("flooded"), ..fail("huge tests::floods_then_fails") },
            Failure { message: Has("seen after the flood"), ..fail("huge::after after_the_flood") },
        ],
        peak_mib: Some(100),
        ..nextest("rust/huge_output", FAILED, 1)
    };

    a_hundred_megabytes_of_output_stay_out_of_pith_cargo => Row {
        failures: &[
            Failure { message: Is("flooded"), ..fail("huge tests::floods_then_fails") },
            Failure { message: Has("seen after the flood"), ..fail("huge::after after_the_flood") },
        ],
        peak_mib: Some(100),
        ..cargo("rust/huge_output", FAILED, 1)
    };

    /// Plain cargo: the binary ended mid-run; the tests it never reported were running. How
    /// many reported before the exit depends on libtest's threads.
    exit_zero_inside_a_test_is_never_green_cargo => Row {
        running: Includes(&["exitzero tests::b_exits_zero_before_its_assertion"]),
        texts: &[
            ("reason", Starts("exitzero exited 0 with ")),
            ("reason", Ends(" of its 2 tests unreported")),
        ],
        ..cargo("rust/exit_zero_in_test", CRASHED, 1)
    };

    /// nextest: the test's own process exited 0 before libtest reported it; nextest calls that
    /// a pass.
    exit_zero_inside_a_test_is_never_green_nextest => Row {
        passed: Some(1),
        failed: Some(1),
        failures: &[Failure {
            message: Has("exited 0 before libtest reported"),
            ..fail("exitzero tests::b_exits_zero_before_its_assertion")
        }],
        ..nextest("rust/exit_zero_in_test", FAILED, 1)
    };

    /// Issue 26, item 5: what a test prints is never the runner's. One test writes a whole
    /// libtest block, a cargo JSON error and a cargo announcement straight to its stdout and
    /// stderr (past libtest's capture, as trybuild does), another runs `cargo test` on a crate
    /// of its own with its output inherited (its failure and its `error: test failed`
    /// included). The answer is the raw `cargo test`'s verdict with the fixture's own four
    /// tests, green or red, under either runner, on one test thread (where libtest's
    /// `test NAME ... ` and its verdict are two writes others land between) as on several.
    runner_lines_a_test_prints_are_not_the_runners_green => forged!(green);
    runner_lines_a_test_prints_are_not_the_runners_red => forged!(red);

    /// A project whose cargo configuration keeps it quiet (`term.quiet`: no `Running` lines,
    /// libtest's terse dots) with edition 2024 doctests (rustdoc prints a block for the merged
    /// ones and one for the rest): every test counted, green as `cargo test` says. The unit
    /// test, three doctests that ran, one ignored.
    quiet_cargo_and_edition_2024_doctests_are_read_whole_nextest => Row {
        passed: Some(4),
        counts: &[("skipped", 1)],
        ..nextest("rust/quiet_doctests_2024", PASSED, 0)
    };

    quiet_cargo_and_edition_2024_doctests_are_read_whole_cargo => Row {
        passed: Some(4),
        counts: &[("skipped", 1)],
        ..cargo("rust/quiet_doctests_2024", PASSED, 0)
    };

    segfault_is_a_crash_nextest => Row {
        line: &["SIGSEGV", "segv tests::segfaults"],
        ..nextest("rust/segfault", CRASHED, 1)
    };

    segfault_is_a_crash_cargo => Row {
        line: &["SIGSEGV", "segv tests::segfaults"],
        ..cargo("rust/segfault", CRASHED, 1)
    };

    /// Only the test that fails on purpose fails; the colour test saw the caller's world.
    tests_see_the_callers_colour_environment_and_may_set_backtraces_nextest => Row {
        env: COLOURS,
        passed: Some(2),
        failed: Some(1),
        failures: &[Failure {
            message: Is(DEPTH_CHANGED),
            frame: Starts("src/lib.rs:21"),
            ..fail("environment tests::sets_backtrace_then_fails")
        }],
        ..nextest("rust/environment", FAILED, 1)
    };

    tests_see_the_callers_colour_environment_and_may_set_backtraces_cargo => Row {
        env: COLOURS,
        passed: Some(2),
        failed: Some(1),
        failures: &[Failure {
            message: Is(DEPTH_CHANGED),
            frame: Starts("src/lib.rs:21"),
            ..fail("environment tests::sets_backtrace_then_fails")
        }],
        ..cargo("rust/environment", FAILED, 1)
    };

    ids_are_never_options_nor_shell_nextest => ids!("nextest");
    ids_are_never_options_nor_shell_cargo => ids!("cargo");

    failing_build_script_is_build_failed_with_its_words_nextest => Row {
        texts: &[("tail", Has("generator input missing: schema.json"))],
        ..nextest("rust/build_script_fails", BUILD, 1)
    };

    failing_build_script_is_build_failed_with_its_words_cargo => Row {
        texts: &[("tail", Has("generator input missing: schema.json"))],
        ..cargo("rust/build_script_fails", BUILD, 1)
    };

    should_panic_passes_when_it_panics_and_says_why_when_not_nextest => Row {
        passed: Some(1),
        failed: Some(2),
        failures: &[
            Failure {
                message: Is("panic did not contain expected string (panic message: \"bang\", expected substring: \"boom\")"),
                ..fail("shouldpanic tests::panics_otherwise")
            },
            Failure {
                message: Is("test did not panic as expected"),
                ..fail("shouldpanic tests::does_not_panic")
            },
        ],
        ..nextest("rust/should_panic", FAILED, 1)
    };

    should_panic_passes_when_it_panics_and_says_why_when_not_cargo => Row {
        passed: Some(1),
        failed: Some(2),
        failures: &[
            Failure {
                message: Is("panic did not contain expected string (panic message: \"bang\", expected substring: \"boom\")"),
                ..fail("shouldpanic tests::panics_otherwise")
            },
            Failure {
                message: Is("test did not panic as expected"),
                ..fail("shouldpanic tests::does_not_panic")
            },
        ],
        ..cargo("rust/should_panic", FAILED, 1)
    };

    cargo_workspace_in_a_subdirectory_answers_with_workspace_paths_nextest =>
        cargo_in_subdir!("nextest");
    cargo_workspace_in_a_subdirectory_answers_with_workspace_paths_cargo =>
        cargo_in_subdir!("cargo");

    nested_cargo_workspace_runs_as_its_own_project_nextest => Row {
        passed: Some(1),
        failed: Some(1),
        failures: &[Failure {
            frame: Starts("tools/inner/src/lib.rs:9 "),
            ..fail("inner tests::triples")
        }],
        runs: Includes(&["tools/inner: TestsFailed"]),
        ..nextest("rust/nested_workspace", FAILED, 1)
    };

    nested_cargo_workspace_runs_as_its_own_project_cargo => Row {
        passed: Some(1),
        failed: Some(1),
        failures: &[Failure {
            frame: Starts("tools/inner/src/lib.rs:9 "),
            ..fail("inner tests::triples")
        }],
        runs: Includes(&["tools/inner: TestsFailed"]),
        ..cargo("rust/nested_workspace", FAILED, 1)
    };

    /// pith used to set RUST_BACKTRACE=0 and remove CARGO_TERM_QUIET: a test that checks the
    /// backtraces its errors capture failed under pith and passed by hand. By hand only the test
    /// that fails on purpose fails; the run printed its backtraces: the frames are its own, no
    /// re-run needed.
    backtraces_and_cargos_reporting_stay_the_callers_nextest => Row {
        raw: &[Raw {
            env: CALLERS_ENV,
            lacks: &["backtrace_and_cargo_env_are_the_callers ... FAILED"],
            ..by_hand(&["cargo", "nextest", "run", "--no-fail-fast"], Red)
        }],
        env: CALLERS_ENV,
        passed: Some(2),
        failed: Some(1),
        failures: &[Failure {
            frame: Starts("src/lib.rs:21"),
            ..fail("environment tests::sets_backtrace_then_fails")
        }],
        ..nextest("rust/environment", FAILED, 1)
    };

    backtraces_and_cargos_reporting_stay_the_callers_cargo => Row {
        raw: &[Raw {
            env: CALLERS_ENV,
            lacks: &["backtrace_and_cargo_env_are_the_callers ... FAILED"],
            ..by_hand(&["cargo", "test", "--no-fail-fast"], Red)
        }],
        env: CALLERS_ENV,
        passed: Some(2),
        failed: Some(1),
        failures: &[Failure {
            frame: Starts("src/lib.rs:21"),
            ..fail("environment tests::sets_backtrace_then_fails")
        }],
        ..cargo("rust/environment", FAILED, 1)
    };

    /// RUST_TEST_NOCAPTURE is the one variable pith takes away (libtest would print a failed
    /// test's panic outside its block): the suite answers as it does by hand with it set.
    uncaptured_test_output_is_captured_again_without_changing_a_verdict => Row {
        raw: &[Raw {
            env: &[("RUST_TEST_NOCAPTURE", Some("1"))],
            has: &["test result: FAILED. 1 passed; 1 failed"],
            ..by_hand(&["cargo", "test"], Red)
        }],
        env: &[("RUST_TEST_NOCAPTURE", Some("1"))],
        passed: Some(1),
        failed: Some(1),
        failures: &[Failure {
            message: Is("the real reason"),
            ..fail("loglong tests::logs_then_panics")
        }],
        ..cargo("rust/log_then_panic", FAILED, 1)
    };

    /// What runs is the runner the project declares: `cargo test`, or nextest where the
    /// workspace has nextest's configuration. A setting initialised once per process, by each
    /// test as its setup, fails under `cargo test` (one process a test binary) and passes under
    /// nextest (a process a test): each answer is its own raw command's.
    the_declared_runner_answers_as_its_raw_command => Row {
        raw: &[by_hand(&["cargo", "test"], Code(101))],
        runner: Some("cargo"),
        passed: Some(1),
        failed: Some(1),
        failures: &[Failure {
            message: Starts("settings are initialised once per process"),
            ..nth(0)
        }],
        then: &[
            // The project declares nextest.
            Row {
                write: &[(".config/nextest.toml", "[profile.default]\nfail-fast = false\n")],
                raw: &[by_hand(&["cargo", "nextest", "run"], Green)],
                runner: Some("nextest"),
                passed: Some(2),
                ..again(&[], PASSED, 0)
            },
            // `--runner` still chooses.
            again(&["--runner", "cargo"], FAILED, 1),
        ],
        ..row("rust/shared_state", FAILED, 1)
    };

    /// `slow-timeout` with `terminate-after` in the project's profile: a test slower than that
    /// fails under `cargo nextest run`. pith's own profile used to replace the setting, and the
    /// test passed.
    the_projects_nextest_profile_still_decides_what_fails => Row {
        raw: &[Raw { has: &["TIMEOUT"], ..by_hand(&["cargo", "nextest", "run"], Code(100)) }],
        runner: Some("nextest"),
        passed: Some(1),
        failed: Some(1),
        failures: &[Failure {
            message: Has("slow-timeout"),
            ..fail("nxterminate tests::too_slow")
        }],
        ..row("rust/nextest_terminate", FAILED, 1)
    };

    /// `cargo test` in a workspace runs its default members. A member left out fails on
    /// purpose: by hand the suite is green, and so is pith's answer, under either runner, one
    /// project; the member is still there to run by id.
    only_the_default_members_run_as_cargo_runs_them_nextest => Row {
        raw: &[by_hand(&["cargo", "nextest", "run"], Green)],
        passed: Some(2),
        absent: &["runs"],
        then: &[Row {
            failed: Some(1),
            ..again(&["--runner", "nextest", "bench_harness tests::machine_is_ready"], FAILED, 1)
        }],
        ..nextest("rust/default_members", PASSED, 0)
    };

    only_the_default_members_run_as_cargo_runs_them_cargo => Row {
        raw: &[by_hand(&["cargo", "test"], Green)],
        passed: Some(2),
        absent: &["runs"],
        then: &[Row {
            failed: Some(1),
            ..again(&["--runner", "cargo", "bench_harness tests::machine_is_ready"], FAILED, 1)
        }],
        ..cargo("rust/default_members", PASSED, 0)
    };

    /// In a root package, `cargo test` runs that package alone.
    only_the_root_package_runs_as_cargo_runs_it => Row {
        raw: &[by_hand(&["cargo", "test"], Green)],
        passed: Some(1),
        ..row("rust/root_package", PASSED, 0)
    };
}
