//! The verdict corpus of the JVM and .NET slices: each hostile case as a tiny project under
//! tests/fixtures/verdicts/java (run by the real Maven, and the real Gradle wrapper jar the
//! installed Gradle ships) and tests/fixtures/verdicts/dotnet (no .NET SDK here: a stand-in
//! `dotnet` on PATH replays what a real `dotnet test` printed, wrote and exited with). The false
//! greens this slice fixed are marked; the rest are cases pith already answered right and must
//! keep answering right. Maven and Gradle must be installed (scripts/setup/jvm.sh).

use super::*;
use super::{Exit::*, Ids::*, Text::*};

/// A Maven project's copy.
const fn maven(fixture: &'static str, status: &'static str, code: i32) -> Row {
    Row {
        setup: &[Setup::Maven],
        ..row(fixture, status, code)
    }
}

/// A .NET project's copy, run by the stand-in `dotnet`.
const fn dotnet(fixture: &'static str, status: &'static str, code: i32) -> Row {
    Row {
        setup: &[Setup::DotnetReplay],
        ..row(fixture, status, code)
    }
}

/// The developer's own `mvn test`, in a copy of the workspace as it is.
const fn mvn_test(exit: i32) -> Raw {
    Raw {
        copy: true,
        ..by_hand(&["mvn", "-B", "-o", "test"], Code(exit))
    }
}

table! {
    // ---- A build tool that cannot start is not the project's build failure ----

    /// Fixed (was BuildFailed): a Gradle wrapper whose jar is not there cannot start; the
    /// project's Maven build runs instead, and its verdict is the answer.
    a_gradle_wrapper_without_its_jar_gives_way_to_maven => Row {
        runner: Some("maven"),
        passed: Some(1),
        failed: Some(1),
        failing: Exactly(&["demo.CalcTest#subtracts"]),
        texts: &[(
            "hint",
            Has("./gradlew: its wrapper jar (gradle/wrapper/gradle-wrapper.jar) is missing"),
        )],
        ..maven("java/wrapper_offline", FAILED, 1)
    };

    /// Fixed (was BuildFailed with an UnknownHostException tail): the real wrapper jar cannot
    /// download its distribution; Maven runs instead, and Gradle never ran.
    a_gradle_wrapper_that_cannot_download_gives_way_to_maven => Row {
        setup: &[Setup::Maven, Setup::WrapperJar],
        runner: Some("maven"),
        failing: Exactly(&["demo.CalcTest#subtracts"]),
        texts: &[(
            "hint",
            Has("./gradlew: UnknownHostException: gradle.invalid while downloading https://gradle.invalid/distributions/gradle-8.10-bin.zip"),
        )],
        gone: &["build"],
        ..row("java/wrapper_offline", FAILED, 1)
    };

    /// Fixed (was BuildFailed, exit 1): when no tool can start — the wrapper cannot download,
    /// no Maven and no Gradle installed — pith could not do its job: RunnerMissing, exit 2, one
    /// line naming what failed, and the wrapper's own words in the tail.
    when_no_build_tool_can_start_pith_says_which_and_why => Row {
        setup: &[Setup::WrapperJar, Setup::PathWithout(&["mvn", "gradle"])],
        texts: &[
            (
                "hint",
                Starts("no build tool could start: ./gradlew: UnknownHostException: gradle.invalid"),
            ),
            ("hint", Has("mvn is not installed")),
            ("hint", Has("gradle is not installed")),
            ("hint", Lacks("\n")),
            ("tail", Has("UnknownHostException")),
        ],
        ..row("java/wrapper_offline", MISSING, 2)
    };

    // ---- Exit and totals are evidence ----

    /// Fixed (was TestsPassed): a module writes its reports where no tool looks by default and
    /// its test fails (Maven's `maven.test.failure.ignore` keeps the exit 0). Surefire's own
    /// totals count the failure the reports pith reads do not have.
    reports_written_elsewhere_do_not_hide_a_failure => Row {
        passed: Some(1),
        texts: &[
            ("reason", Is("maven counted 1 failed tests, its reports record 0")),
            ("tail", Has("Tests run: 1, Failures: 1")),
        ],
        ..maven("java/reports_elsewhere", RUNNER_FAILED, 1)
    };

    /// Every test passed, then the build failed in the test phase (was BuildFailed, which says
    /// no test ran): the exit says not green, the tail says why.
    a_build_that_fails_after_its_tests_passed_is_runner_failed => Row {
        passed: Some(1),
        texts: &[
            ("reason", Starts("maven exited 1")),
            ("tail", Has("No tests matching pattern")),
        ],
        ..maven("java/build_fails_after_tests", RUNNER_FAILED, 1)
    };

    // ---- Run what the project runs (issue 26) ----

    /// Was TestsFailed (the pass on a retry counted as a failure, marked flaky): Surefire's
    /// `rerunFailingTestsCount` re-ran a test that failed once and `mvn test` ends in BUILD
    /// SUCCESS. Green, and the failed attempt is listed under `flaky` with its first message
    /// line and frame. A test that fails every attempt stays red.
    a_test_that_passes_on_surefires_rerun_is_green_and_listed_as_flaky => Row {
        raw: &[Raw { has: &["Flakes: 1"], ..mvn_test(0) }],
        passed: Some(2),
        absent: &["failed", "failures"],
        flaky: First("demo.StockTest#reserves"),
        flaky_attempts: &[Failure {
            message: Starts("first attempt ==> expected: <3> but was: <2>"),
            frame: Starts("src/test/java/demo/StockTest.java:20"),
            ..fail("demo.StockTest#reserves")
        }],
        then: &[
            // A test that fails on every attempt: red, as `mvn test` is; the flaky one still
            // listed.
            Row {
                write: &[(
                    "src/test/java/demo/StuckTest.java",
                    "package demo;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\nclass StuckTest {\n    @Test\n    void stuck() {\n        assertEquals(1, 2, \"every attempt\");\n    }\n}\n",
                )],
                raw: &[mvn_test(1)],
                failing: Exactly(&["demo.StuckTest#stuck"]),
                passed: Some(2),
                failed: Some(1),
                flaky: First("demo.StockTest#reserves"),
                ..again(&[], FAILED, 1)
            },
            // A project that fails its build on a flake (Surefire's `failOnFlakeCount`): `mvn
            // test` exits 1 with every test passed; not green, and the tail says why.
            Row {
                remove: &["src/test/java/demo/StuckTest.java"],
                write: &[(".mvn/maven.config", "-Dsurefire.failOnFlakeCount=1\n")],
                flaky: First("demo.StockTest#reserves"),
                texts: &[("tail", Has("There is 1 flake and failOnFlakeCount is set to 1"))],
                ..again(&[], RUNNER_FAILED, 1)
            },
        ],
        ..maven("java/retry", PASSED, 0)
    };

    /// Was three failures (pith's `-fae` and `maven.test.failure.ignore` ran every module):
    /// `mvn test` stops at the first module whose tests fail, and the modules after it (one
    /// that needs it, one that does not) never run. pith answers the same failing ids, and runs
    /// nothing the developer's command does not.
    maven_stops_where_mvn_test_stops => Row {
        raw: &[Raw {
            has: &["CoreTest.fails"],
            lacks: &["AppTest.fails", "ToolsTest.fails"],
            ..mvn_test(1)
        }],
        failing: Exactly(&["demo.core.CoreTest#fails"]),
        failed: Some(1),
        gone: &["app/target/surefire-reports", "tools/target/surefire-reports"],
        ..maven("java/fail_fast", FAILED, 1)
    };

    /// A project that hides its test failures from the exit code (`maven.test.failure.ignore`
    /// as a property, or Surefire's `testFailureIgnore`): `mvn test` says BUILD SUCCESS and
    /// exits 0, pith answers TestsFailed and says the command itself would exit 0 (`masked`).
    failures_a_pom_ignores_are_red_and_masked => Row {
        raw: &[Raw { has: &["BUILD SUCCESS"], ..mvn_test(0) }],
        texts: &[("masked", Is("maven.test.failure.ignore"))],
        failing: Exactly(&["demo.CalcTest#adds"]),
        // The same through the plugin's own parameter.
        then: &[Row {
            edit: &[
                ("pom.xml", "<maven.test.failure.ignore>true</maven.test.failure.ignore>", ""),
                (
                    "pom.xml",
                    "<version>3.5.4</version>",
                    "<version>3.5.4</version>\n        <configuration><testFailureIgnore>true</testFailureIgnore></configuration>",
                ),
            ],
            raw: &[mvn_test(0)],
            texts: &[("masked", Is("maven.test.failure.ignore"))],
            ..again(&[], FAILED, 1)
        }],
        ..maven("java/masked", FAILED, 1)
    };

    // ---- What pith already answered right ----

    a_before_all_failure_fails_its_class => Row {
        failing: First("src/test/java/demo/SetupTest.java"),
        failures: &[Failure {
            phase: Some("setup"),
            message: Is("IllegalStateException: no database"),
            ..fail("src/test/java/demo/SetupTest.java")
        }],
        ..maven("java/before_all", FAILED, 1)
    };

    an_after_all_failure_is_not_green_though_every_test_passed => Row {
        passed: Some(1),
        failing: Exactly(&["src/test/java/demo/CleanupTest.java"]),
        ..maven("java/after_all", FAILED, 1)
    };

    /// `System.exit(0)` in the second of three tests: Surefire's forked JVM ends early; the
    /// third (failing) test never runs. Crashed, naming the test that exited.
    system_exit_zero_in_a_forked_jvm_is_crashed => Row {
        running: First("demo.QuitTest#b_exits"),
        failures: &[Failure { message: Has("exited with code 0"), ..nth(0) }],
        ..maven("java/exit_zero", CRASHED, 1)
    };

    a_compile_error_is_build_failed => Row {
        build_errors: First("src/test/java/demo/BrokenTest.java:8"),
        ..maven("java/compile_error", BUILD, 1)
    };

    /// Issue 26, item 5: what a test prints is never the build tool's. Surefire forwards what a
    /// test prints to Maven's console (stdout to stdout, stderr to stderr), so a test printing
    /// Maven's own lines — a `Results:` count, "There are test failures", a compilation error,
    /// a crashed fork — or a child process writing to the test JVM's stderr puts them beside
    /// Maven's. Only Maven's levelled stdout lines are its count, the last of each plugin
    /// execution; a compilation error and a crashed fork fail the build, so a build that
    /// exited 0 had neither. The answer is the raw `mvn test`'s verdict, green or red.
    maven_lines_a_test_prints_are_not_mavens => Row {
        raw: &[Raw {
            env: &[(RED, None), ("CI", None)],
            ..by_hand(&["mvn", "-B", "-q", "test"], Green)
        }],
        env: &[(RED, None)],
        absent: &["reason"],
        passed: Some(2),
        then: &[Row {
            raw: &[Raw {
                env: &[(RED, Some("1")), ("CI", None)],
                ..by_hand(&["mvn", "-B", "-q", "test"], Red)
            }],
            env: &[(RED, Some("1"))],
            absent: &["reason"],
            passed: Some(1),
            failed: Some(1),
            failing: First("demo.ForgeTest#adds"),
            ..again(&[], FAILED, 1)
        }],
        ..maven("java/forged_output", PASSED, 0)
    };

    /// The same with Gradle showing the tests' standard streams: it indents them, and its own
    /// count (`N tests completed, F failed`) starts a line. Red through a test resource (Gradle
    /// runs a test task again only when its inputs changed).
    gradle_lines_a_test_prints_are_not_gradles => Row {
        passed: Some(2),
        then: &[Row {
            write: &[("src/test/resources/red.txt", "red\n")],
            passed: Some(1),
            failed: Some(1),
            failing: First("demo.ForgeTest#adds"),
            absent: &["reason"],
            ..again(&[], FAILED, 1)
        }],
        ..row("java/forged_output_gradle", PASSED, 0)
    };

    /// Ids are ids: one beginning with `-` never reaches Maven as an option, display names with
    /// shell and filter metacharacters stay data, a parametrized invocation re-runs alone.
    ids_with_metacharacters_stay_literal => Row {
        passed: Some(4),
        then: &[
            Row { passed: Some(1), ..again(&["demo.MetaTest#meta(String)[2]"], PASSED, 0) },
            Row {
                not_found: First("-x"),
                absent: &["passed"],
                ..again(&["--", "-x"], NOT_FOUND, 1)
            },
            Row {
                not_found: First("-Dtest=demo.MetaTest"),
                absent: &["passed"],
                ..again(&["--", "-Dtest=demo.MetaTest"], NOT_FOUND, 1)
            },
            Row {
                not_found: First("-DskipTests"),
                absent: &["passed"],
                ..again(&["--", "-DskipTests"], NOT_FOUND, 1)
            },
            Row {
                not_found: First("demo.MetaTest#[2] c&d;$(touch pwned)"),
                absent: &["passed"],
                gone: &["pwned"],
                ..again(&["demo.MetaTest#[2] c&d;$(touch pwned)"], NOT_FOUND, 1)
            },
            Row {
                not_found: First("demo.MetaTest#meta(String)[9]"),
                absent: &["passed"],
                gone: &["pwned"],
                ..again(&["demo.MetaTest#meta(String)[9]"], NOT_FOUND, 1)
            },
        ],
        ..maven("java/ids", PASSED, 0)
    };

    /// The tests see the caller's environment: pith sets no colour variable and removes none.
    the_tests_see_the_callers_environment => Row {
        env: &[
            ("NO_COLOR", None),
            ("CLICOLOR", None),
            ("WANT_NO_COLOR", None),
            ("WANT_CLICOLOR", None),
            ("TERM", Some("xterm-256color")),
            ("WANT_TERM", Some("xterm-256color")),
            ("FORCE_COLOR", Some("1")),
            ("WANT_FORCE_COLOR", Some("1")),
            ("CLICOLOR_FORCE", Some("1")),
            ("WANT_CLICOLOR_FORCE", Some("1")),
        ],
        // And the other way round: NO_COLOR as the caller set it.
        then: &[Row {
            env: &[
                ("FORCE_COLOR", None),
                ("CLICOLOR", None),
                ("CLICOLOR_FORCE", None),
                ("WANT_FORCE_COLOR", None),
                ("WANT_CLICOLOR", None),
                ("WANT_CLICOLOR_FORCE", None),
                ("NO_COLOR", Some("1")),
                ("WANT_NO_COLOR", Some("1")),
                ("TERM", Some("dumb")),
                ("WANT_TERM", Some("dumb")),
            ],
            ..again(&[], PASSED, 0)
        }],
        ..maven("java/env", PASSED, 0)
    };

    // ---- .NET: a stand-in `dotnet` replays what a real `dotnet test` did ----

    /// Every test passed, then coverlet's threshold failed the run (`dotnet test` exits 1): was
    /// BuildFailed (the threshold's MSBuild error taken for the build's), then Crashed. The exit
    /// says not green; the tail says why.
    a_dotnet_coverage_threshold_is_runner_failed => Row {
        passed: Some(1),
        texts: &[
            ("reason", Is("dotnet exited 1 though no test failed")),
            ("tail", Has("The minimum line coverage is below the specified 80")),
        ],
        absent: &["buildErrors"],
        ..dotnet("dotnet/coverage_threshold", RUNNER_FAILED, 1)
    };

    /// Fixed (was TestsPassed): the test adapter could not load an assembly; VSTest's TRX says
    /// so (an error run info, outcome Failed) while the exit is 0 and every recorded test
    /// passed.
    a_dotnet_run_error_with_exit_zero_is_not_green => Row {
        texts: &[
            ("reason", Is("the TRX says the run Failed though no test failed")),
            ("tail", Has("Could not load file or assembly")),
        ],
        ..dotnet("dotnet/run_error_exit_zero", RUNNER_FAILED, 1)
    };

    /// MTP's exit code 2 (a test failed) with no failure in the TRX: was Crashed.
    an_mtp_exit_that_no_record_explains_is_runner_failed => Row {
        texts: &[("reason", Is("dotnet exited 2 though no test failed"))],
        ..dotnet("dotnet/mtp_failed_exit_no_failure", RUNNER_FAILED, 1)
    };

    /// Exit 8 means zero tests: no reason to give.
    an_mtp_run_of_zero_tests_is_no_tests_ran => Row {
        absent: &["reason"],
        ..dotnet("dotnet/mtp_zero_tests", NO_TESTS, 1)
    };

    /// `dotnet` is there, the SDK global.json asks for is not: the tool cannot start (was
    /// Crashed, exit 1).
    a_missing_dotnet_sdk_is_runner_missing => Row {
        texts: &[("hint", Has("the .NET SDK 8.0.400 (global.json)"))],
        ..dotnet("dotnet/sdk_missing", MISSING, 2)
    };

    /// Ids are ids: `-x` reaches no runner; dotnet never ran.
    dotnet_ids_that_look_like_options_reach_no_runner => Row {
        args: &["--", "-x"],
        not_found: First("-x"),
        gone: &[".replay/argv.txt"],
        ..dotnet("dotnet/ids", NOT_FOUND, 1)
    };
}

/// Hand-written, for what the answer does not say: what pith handed `dotnet`, read from what
/// the stand-in recorded. A theory case's display name with filter metacharacters is escaped
/// in VSTest's filter, and the test host's environment is the caller's: pith adds only the UI
/// language and MSBuild's logger switch.
#[test]
fn dotnet_ids_stay_literal_and_the_environment_is_the_callers() {
    let ws = common::fixture("verdicts/dotnet/ids");
    let (_bin, path) = dotnet_path(ws.path());
    let id = r#"Calc.Tests.CalculatorTests.Echoes(s: "a|b")"#;
    let a = common::pith_with(
        ws.path(),
        &[id],
        &[
            ("PATH", &path),
            ("TERM", "xterm-256color"),
            ("VSTEST_CONNECTION_TIMEOUT", "180"),
        ],
        &["NO_COLOR", "DOTNET_NOLOGO", "DOTNET_CLI_TELEMETRY_OPTOUT"],
    );
    assert_eq!(
        (a.status(), a.code, &a.json["passed"]),
        ("TestsPassed", 0, &1.into()),
        "{}",
        a.line
    );
    let argv = std::fs::read_to_string(ws.path().join(".replay/argv.txt")).unwrap();
    let argv: Vec<&str> = argv.lines().collect();
    let filter = argv
        .iter()
        .position(|a| *a == "--filter")
        .map(|i| argv[i + 1]);
    assert_eq!(
        filter,
        Some(r#"DisplayName=Calc.Tests.CalculatorTests.Echoes\(s: "a\|b"\)"#),
        "{argv:?}"
    );
    let env = std::fs::read_to_string(ws.path().join(".replay/env.txt")).unwrap();
    let has = |kv: &str| env.lines().any(|l| l == kv);
    let set = |k: &str| env.lines().any(|l| l.starts_with(&format!("{k}=")));
    assert!(
        has("TERM=xterm-256color") && has("VSTEST_CONNECTION_TIMEOUT=180"),
        "{env}"
    );
    for k in [
        "NO_COLOR",
        "DOTNET_NOLOGO",
        "DOTNET_CLI_TELEMETRY_OPTOUT",
        "DOTNET_SKIP_FIRST_TIME_EXPERIENCE",
        "DOTNET_SYSTEM_CONSOLE_ALLOW_ANSI_COLOR_REDIRECTION",
    ] {
        assert!(!set(k), "pith set {k}: {env}");
    }
    assert!(has("DOTNET_CLI_UI_LANGUAGE=en"), "{env}");
}
