//! The verdict corpus for Go: each hostile case a tiny module under
//! `tests/fixtures/verdicts/go/`, run by the installed Go. The false greens first, then what
//! pith already got right and must keep.

use super::*;
use super::{Exit::*, Ids::*, Text::*};

use common::{fixture, pith};

const GO_TEST: &[&str] = &["go", "test", "./..."];

table! {
    /// False green: a `TestMain` that returns without `m.Run`, and one that exits 0 before it.
    /// go says `ok` and exits 0; the tests the packages declare never ran.
    a_testmain_that_never_runs_the_tests_is_not_green => Row {
        passed: Some(1),
        texts: &[
            ("reason", Has("example.com/skips/nomrun never ran 1 of its 1 tests (TestNever)")),
            (
                "reason",
                Has("example.com/skips/exitzero never ran 2 of its 2 tests (TestOne, TestTwo)"),
            ),
            ("tail", Has("skipping: no database")),
        ],
        // Asked for by id, the test is declared but never ran: not a missing id.
        then: &[Row {
            absent: &["notFound"],
            texts: &[("reason", Has("never ran TestNever"))],
            ..again(&["example.com/skips/nomrun.TestNever"], RUNNER_FAILED, 1)
        }],
        ..row("go/testmain_skips", RUNNER_FAILED, 1)
    };

    /// False green: a test ends the binary with status 0 (`syscall.Exit(0)`; the testing
    /// package only guards `os.Exit`). test2json hands the package's `ok` to the running test,
    /// go exits 0, and the failing test after it never runs.
    a_binary_that_exits_zero_mid_run_is_not_green => Row {
        running: Exactly(&["example.com/midrun.TestQuits"]),
        // Only TestFirst passed.
        passed: Some(1),
        failing: First("example.com/midrun.TestQuits"),
        failures: &[Failure {
            message: Is("the test binary exited before the test finished"),
            ..fail("example.com/midrun.TestQuits")
        }],
        ..row("go/exit_zero_midrun", CRASHED, 1)
    };

    /// The binary exits 0 while parallel subtests are still out: neither is a pass.
    parallel_subtests_left_running_are_not_green => Row {
        running: Set(&[
            "example.com/parallel.TestGroup/quits",
            "example.com/parallel.TestGroup/slow",
        ]),
        absent: &["passed"],
        ..row("go/parallel_left", CRASHED, 1)
    };

    /// The records of a run survive 9 MB of output around them, and the failure is the test's.
    records_survive_a_flood_of_output => Row {
        passed: Some(1),
        failed: Some(1),
        failing: First("example.com/flood.TestFails"),
        failures: &[Failure {
            message: Is("got 1, want 2"),
            ..fail("example.com/flood.TestFails")
        }],
        ..row("go/flood", FAILED, 1)
    };

    /// Two modules side by side under a root with no marker: both run, the failing one is
    /// named with workspace-relative paths, an id goes back to its own module; fixed, both are
    /// green.
    sibling_modules_all_run_and_each_is_named => Row {
        runs: Exactly(&["svc/a: TestsPassed", "svc/b: TestsFailed"]),
        failing: First("example.com/svc/b.TestDouble"),
        failures: &[Failure {
            frame: At("svc/b/calc_test.go:8"),
            ..fail("example.com/svc/b.TestDouble")
        }],
        then: &[
            // Only b ran.
            Row {
                failed: Some(1),
                absent: &["runs"],
                ..again(&["example.com/svc/b.TestDouble"], FAILED, 1)
            },
            Row {
                write: &[(
                    "svc/b/calc.go",
                    "// Package b doubles.\npackage b\n\n// Double returns 2n.\nfunc Double(n int) int { return 2 * n }\n",
                )],
                passed: Some(2),
                runs: Exactly(&["svc/a: TestsPassed", "svc/b: TestsPassed"]),
                ..again(&[], PASSED, 0)
            },
        ],
        ..row("go/siblings", FAILED, 1)
    };

    /// A `go.work` at a root without a module, a module nested in another: each module runs
    /// once in its own directory (app builds only through the workspace), ids go to their
    /// module.
    a_go_work_runs_each_module_once => Row {
        passed: Some(2),
        failed: Some(1),
        runs: Exactly(&["app: TestsPassed", "lib: TestsPassed", "app/inner: TestsFailed"]),
        failing: First("example.com/app/inner.TestInner"),
        then: &[
            // The nested module alone.
            Row {
                failed: Some(1),
                absent: &["runs"],
                ..again(&["example.com/app/inner.TestInner"], FAILED, 1)
            },
            Row {
                passed: Some(2),
                ..again(&["example.com/app.TestApp", "example.com/lib.TestGreeting"], PASSED, 0)
            },
        ],
        ..row("go/gowork", FAILED, 1)
    };

    /// Subtest names with regexp metacharacters select exactly that subtest: unescaped, the
    /// pattern would also run a sibling that panics.
    ids_with_regexp_metacharacters_select_exactly_that_test => Row {
        args: &["example.com/ids.TestA/sub_(1+1)"],
        passed: Some(1),
        then: &[
            Row { passed: Some(1), ..again(&["example.com/ids.TestA/x.y|z"], PASSED, 0) },
            // Subtests of two parents: each runs alone, never the cross product of their names.
            Row {
                passed: Some(2),
                ..again(
                    &["example.com/ids.TestA/sub_(1+1)", "example.com/ids.TestB/last"],
                    PASSED,
                    0,
                )
            },
        ],
        ..row("go/ids", PASSED, 0)
    };

    /// An id is never an option: one that starts with `-` reaches go as nothing and matches
    /// nothing, beside a real id or alone.
    an_id_that_looks_like_an_option_is_not_found => Row {
        args: &["--", "-run=."],
        not_found: Exactly(&["-run=."]),
        then: &[Row {
            not_found: Exactly(&["-v"]),
            passed: Some(1),
            ..again(&["--", "-v", "example.com/ids.TestA/sub_(1+1)"], NOT_FOUND, 1)
        }],
        ..row("go/ids", NOT_FOUND, 1)
    };

    /// The tests see the caller's environment: colour variables as given, GOFLAGS as given
    /// less the flags that would replace the run with something else (`-tags` kept: the tagged
    /// test runs; `-count` and `-failfast` are the caller's), GOTOOLCHAIN as given (unset: go's
    /// own configuration decides, as by hand).
    the_tests_see_the_callers_environment => Row {
        env: &[
            ("TERM", Some("xterm-256color")),
            ("WANT_TERM", Some("xterm-256color")),
            ("FORCE_COLOR", Some("1")),
            ("WANT_FORCE_COLOR", Some("1")),
            ("CLICOLOR_FORCE", Some("1")),
            ("WANT_CLICOLOR_FORCE", Some("1")),
            ("GOFLAGS", Some("-tags=extra -count=1 -failfast -list=Nothing")),
            ("WANT_GOFLAGS", Some("-tags=extra -count=1 -failfast")),
            ("NO_COLOR", None),
            ("CLICOLOR", None),
            ("GOTOOLCHAIN", None),
            ("WANT_GOTOOLCHAIN", None),
        ],
        // TestTagged ran too.
        passed: Some(2),
        ..row("go/env", PASSED, 0)
    };

    /// `os.Exit(0)` inside a test: the testing package panics on it, and the test fails.
    os_exit_zero_in_a_test_fails_it => Row {
        failing: First("example.com/osexit0.TestExitsZero"),
        failures: &[Failure {
            message: Is("panic: unexpected call to os.Exit(0) during test"),
            ..fail("example.com/osexit0.TestExitsZero")
        }],
        ..row("go/os_exit_zero", FAILED, 1)
    };

    /// `os.Exit(1)` inside a test: the binary dies mid-run, naming the test.
    os_exit_one_in_a_test_is_crashed => Row {
        running: Exactly(&["example.com/osexit1.TestExitsOne"]),
        passed: Some(1),
        ..row("go/os_exit_one", CRASHED, 1)
    };

    /// A panic in `init`: no test ran; the package is the failure.
    a_panic_in_init_is_a_collection_error => Row {
        failing: First("example.com/initpanic"),
        failures: &[Failure {
            message: Is("panic: config missing"),
            phase: Some("collect"),
            ..fail("example.com/initpanic")
        }],
        ..row("go/init_panic", COLLECT, 1)
    };

    /// Every test passed and the binary still failed (a leak check in `TestMain`): not green,
    /// the binary's own words as the failure.
    a_binary_failing_after_every_test_passed_is_not_green => Row {
        failing: First("example.com/afterpass"),
        failures: &[Failure {
            message: Is("leak check: 1 goroutine still running"),
            phase: Some("teardown"),
            ..fail("example.com/afterpass")
        }],
        ..row("go/fails_after_pass", FAILED, 1)
    };

    /// Issue 26, item 5: what a test prints is never the runner's. A test prints go's own lines
    /// (`--- FAIL`, `FAIL pkg`, `ok  pkg`, `[build failed]`, `panic:`) on its stdout and
    /// stderr, another runs `go test` (verbose, plain, -json) on a module of its own with its
    /// output inherited, a `TestMain` prints go's summary of a failed build around the run.
    /// Since Go 1.20 the binary frames its own lines (`-test.v=test2json`), so none of it is an
    /// event; a failed build's line counts only for a package that ran no test. The answer is
    /// the raw `go test`'s verdict with the fixture's own tests, green or red.
    runner_lines_a_test_prints_are_not_the_runners => Row {
        env: &[(RED, None)],
        raw: &[Raw { env: &[(RED, None), ("CI", None)], ..by_hand(GO_TEST, Green) }],
        passed: Some(4),
        then: &[Row {
            env: &[(RED, Some("1"))],
            raw: &[Raw { env: &[(RED, Some("1")), ("CI", None)], ..by_hand(GO_TEST, Red) }],
            passed: Some(3),
            failed: Some(1),
            failing: First("example.com/forged.TestAdds"),
            failures: &[Failure {
                message: Is("real failure"),
                ..fail("example.com/forged.TestAdds")
            }],
            ..again(&[], FAILED, 1)
        }],
        ..row("go/forged_output", PASSED, 0)
    };

    /// A goroutine TestA left behind fails it after it completed: the testing package panics
    /// ("Fail in goroutine after TestA has completed") while TestB runs, and test2json hands
    /// the panic to TestB. go's own words name TestA: TestA fails (its pass undone), TestB
    /// never ended.
    a_leftover_goroutines_panic_is_charged_to_the_test_go_names => Row {
        failing: Exactly(&["example.com/leftover.TestA"]),
        failures: &[Failure {
            message: Is("panic: Fail in goroutine after TestA has completed"),
            frame: Starts("leftover_test.go:13"),
            ..fail("example.com/leftover.TestA")
        }],
        absent: &["passed"],
        running: Exactly(&["example.com/leftover.TestB"]),
        ..row("go/leftover_goroutine", FAILED, 1)
    };

    /// False green: the caller's `-count=2` runs each test twice, and a test that leaves state
    /// behind fails on its second run; pith dropped `-count` (and would have let the pass that
    /// came last hide the failure). go's verdict: a test that failed once has failed.
    a_repeated_test_that_fails_once_is_red => Row {
        raw: &[Raw {
            env: &[("GOFLAGS", Some("-count=2"))],
            has: &["--- FAIL: TestCache"],
            ..by_hand(GO_TEST, Red)
        }],
        env: &[("GOFLAGS", Some("-count=2"))],
        passed: Some(1),
        failed: Some(1),
        failures: &[Failure {
            message: Has("cache not reset between runs (run 2)"),
            ..fail("example.com/countflip.TestCache")
        }],
        then: &[
            // The caller's `-run` chooses the steady test alone: green by hand, and a package
            // that ran fewer tests than it declares ran what was asked (it was RunnerFailed,
            // "never ran").
            Row {
                raw: &[Raw {
                    env: &[("GOFLAGS", Some("-run=TestSteady -count=2"))],
                    ..by_hand(GO_TEST, Green)
                }],
                env: &[("GOFLAGS", Some("-run=TestSteady -count=2"))],
                passed: Some(1),
                failed: Some(0),
                ..again(&[], PASSED, 0)
            },
            // Once: green, by hand and under pith.
            Row {
                raw: &[Raw { env: &[("GOFLAGS", None)], ..by_hand(GO_TEST, Green) }],
                env: &[("GOFLAGS", None)],
                ..again(&[], PASSED, 0)
            },
        ],
        ..row("go/count_flip", FAILED, 1)
    };

    /// False green: the caller's `-timeout` is how long the project lets a test run; pith's own
    /// (from its deadline) replaced it, and a test slower than the project allows passed. The
    /// project's rule failed the test, as by hand: TestsFailed, not pith's TimedOut (which
    /// would say to give pith more time).
    the_projects_timeout_fails_a_slower_test => Row {
        raw: &[Raw {
            env: &[("GOFLAGS", Some("-timeout=1s"))],
            has: &["test timed out after 1s"],
            ..by_hand(GO_TEST, Red)
        }],
        env: &[("GOFLAGS", Some("-timeout=1s"))],
        failures: &[Failure {
            message: Is("test timed out after 1s"),
            ..fail("example.com/slowtimeout.TestSlow")
        }],
        absent: &["running"],
        ..row("go/slow_timeout", FAILED, 1)
    };

    /// False green: go.mod pins a toolchain go cannot get. By hand (go's default
    /// `GOTOOLCHAIN=auto`, go's own configuration as it ships) go tries to switch to it and
    /// fails (no network: as with no such release); pith forced `GOTOOLCHAIN=local` and ran
    /// the installed Go, green.
    a_pinned_toolchain_is_the_projects_runner_version => Row {
        setup: &[Setup::GoEnv("GOTOOLCHAIN=auto\n")],
        raw: &[Raw {
            env: &[("GOPROXY", Some("off")), ("GOTOOLCHAIN", None)],
            has: &["toolchain not available"],
            ..by_hand(GO_TEST, Red)
        }],
        env: &[("GOPROXY", Some("off")), ("GOTOOLCHAIN", None)],
        texts: &[("hint", Has("go1.99.0"))],
        ..row("go/toolchain_pinned", MISSING, 2)
    };

    /// A module the go.work leaves out is built and tested on its own, as a developer does
    /// there (`GOWORK=off`): inside the workspace go refuses `./...` in it. The modules the
    /// go.work uses run inside it (app builds only with lib from the workspace).
    a_module_the_go_work_leaves_out_runs_on_its_own => Row {
        raw: &[
            Raw { dir: "app", ..by_hand(GO_TEST, Green) },
            Raw { dir: "tools", has: &["go.work"], ..by_hand(GO_TEST, Red) },
            Raw { dir: "tools", env: &[("GOWORK", Some("off"))], ..by_hand(GO_TEST, Green) },
        ],
        passed: Some(2),
        then: &[Row { passed: Some(1), ..again(&["example.com/tools.TestTool"], PASSED, 0) }],
        ..row("go/gowork_left_out", PASSED, 0)
    };
}

/// Hand-written, a sequence no row says: the tree changes by moving packages aside and back.
/// The listing that tells which tests a package declares is kept between runs (pith's cache)
/// only while the module's Go files stay as they were: a package added after a green run,
/// whose `TestMain` exits 0 before `m.Run`, is still caught. Each run here comes after one
/// whose listing was kept, so a stale listing would answer green.
#[test]
fn a_package_added_after_a_green_run_is_listed_again() {
    let ws = fixture("verdicts/go/testmain_skips");
    let root = ws.path();
    let moved = root.join("exitzero");
    let aside = root.join("_aside");
    std::fs::rename(&moved, &aside).unwrap();
    std::fs::remove_dir_all(root.join("nomrun")).unwrap();
    for _ in 0..2 {
        let green = pith(root, &[]);
        assert_eq!(
            (green.status(), green.code),
            ("TestsPassed", 0),
            "{}",
            green.line
        );
    }
    std::fs::rename(&aside, &moved).unwrap();
    let a = pith(root, &[]);
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert!(
        a.json["reason"]
            .as_str()
            .is_some_and(|r| r.contains("exitzero never ran 2 of its 2 tests")),
        "{}",
        a.line
    );
    // A test added to a package already listed: its own declared tests, read again.
    std::fs::rename(&moved, &aside).unwrap();
    let green = pith(root, &[]);
    assert_eq!(green.status(), "TestsPassed", "{}", green.line);
    std::fs::write(
        root.join("ok/more_test.go"),
        "package ok\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) { os.Exit(0) }\n\nfunc TestMore(t *testing.T) {}\n",
    )
    .unwrap();
    let a = pith(root, &[]);
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
}
