//! The verdict corpus for C/C++: each hostile case a tiny CMake project under
//! `tests/fixtures/verdicts/cpp/`, built with the machine's toolchain and GoogleTest
//! (scripts/setup/cpp.sh; these tests fail without them, they never skip) and run through CTest
//! by the real `pith` binary. The false green first, then what pith gets right and must keep.

use crate::common;

use std::path::Path;

use common::{fixture, pith};

fn case(name: &str) -> common::Fixture {
    fixture(&format!("verdicts/cpp/{name}"))
}

/// False green: every test passes, then the environment's tear-down `_exit(0)`s before gtest's
/// summary and report. ctest says Passed and exits 0.
#[test]
fn a_gtest_binary_that_exits_before_its_end_is_not_green() {
    let a = pith(case("no_summary").path(), &[]);
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!(a.json["passed"], 2, "{}", a.line);
    assert_eq!(
        a.json["reason"], "teardown exited 0 before GoogleTest's end (no summary, no report)",
        "{}",
        a.line
    );
    let tail = a.json["tail"].as_str().expect(&a.line);
    assert!(tail.ends_with("[       OK ] Env.Two (0 ms)"), "{tail}");
}

/// A test that `_Exit(0)`s: ctest says Passed, the test after it never ran, no report.
#[test]
fn a_test_that_exits_zero_mid_run_is_not_green() {
    let a = pith(case("exit_midtest").path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.json["selected"], 3, "{}", a.line);
    assert_eq!(a.json["passed"], 1, "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "Quit.Early");
    assert_eq!(f["message"], "the test process exited during this test");
    assert!(
        a.json["reason"]
            .as_str()
            .is_some_and(|r| r.contains("ctest exited 0")),
        "{}",
        a.line
    );
    assert!(
        a.json["tail"]
            .as_str()
            .is_some_and(|t| t.ends_with("[ RUN      ] Quit.Early")),
        "{}",
        a.line
    );
}

/// ctest fails a test whose gtest tests all passed (WILL_FAIL): ctest's exit 8 is explained by
/// a failure of the CTest test, never green.
#[test]
fn a_ctest_failure_no_gtest_test_explains_is_not_green() {
    let a = pith(case("will_fail").path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "inverted");
    assert_eq!(
        f["message"],
        "the test process failed after its tests passed"
    );
}

/// Reports that are not JSON (two processes that wrote the same file at once leave that when
/// ctest runs tests in parallel) cost nothing when every process's console says how each of its
/// tests ended and ctest's totals agree: the answer is the tests', not a doubt.
#[test]
fn unreadable_reports_the_console_accounts_for_are_no_doubt() {
    let a = pith(case("clobbered_report").path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(
        (&a.json["passed"], &a.json["failed"]),
        (&1.into(), &1.into()),
        "{}",
        a.line
    );
    assert!(a.json.get("reason").is_none(), "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "Clobber.Fails");
    assert_eq!(
        f["frames"][0], "tests/clobber_test.cc:29 EXPECT_EQ(got, 4);",
        "{}",
        a.line
    );
}

/// Twenty-five tests pass before one dies: the tail is the test that died, never the progress
/// lines of those that passed (`[ RUN ]`/`[ OK ]`, 600 B of them before).
#[test]
fn a_crash_after_passing_tests_has_a_tail_of_the_crash_alone() {
    let a = pith(case("crash_after_passes").path(), &[]);
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    assert_eq!(a.json["passed"], 25, "{}", a.line);
    assert_eq!(a.failures()[0]["test"], "Seg.Dies", "{}", a.line);
    assert_eq!(a.json["tail"], "[ RUN      ] Seg.Dies", "{}", a.line);
}

#[test]
fn a_segfault_is_crashed_and_names_the_test() {
    let a = pith(case("segv").path(), &[]);
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    assert_eq!(
        (a.json["selected"].as_u64(), a.json["passed"].as_u64()),
        (Some(3), Some(1))
    );
    let f = &a.failures()[0];
    assert_eq!(
        (f["test"].as_str(), f["message"].as_str()),
        (Some("Seg.Dies"), Some("crashed with SIGSEGV"))
    );
    assert!(
        a.json["tail"]
            .as_str()
            .is_some_and(|t| t.ends_with("[ RUN      ] Seg.Dies")),
        "{}",
        a.line
    );
}

/// ctest 3.25 says `Subprocess aborted***Exception:`: a crash, not a plain failure.
#[test]
fn an_abort_is_crashed_and_names_the_test() {
    let a = pith(case("abort").path(), &[]);
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(
        (f["test"].as_str(), f["message"].as_str()),
        (Some("Abort.Dies"), Some("crashed with SIGABRT"))
    );
}

#[test]
fn a_failing_suite_setup_is_a_collection_error() {
    let a = pith(case("suite_setup").path(), &[]);
    assert_eq!((a.status(), a.code), ("CollectionFailed", 1), "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(
        (f["test"].as_str(), f["phase"].as_str()),
        (Some("Db"), Some("collect"))
    );
    assert_eq!(f["message"], "database not reachable");
    assert_eq!(a.json["skipped"], 2, "{}", a.line);
}

/// A CTest test over its own TIMEOUT fails, named, beside a gtest test that passed.
#[test]
fn a_ctest_timeout_fails_the_test() {
    let a = pith(case("ctest_timeout").path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.json["passed"], 1, "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "slow");
    assert_eq!(f["message"], "timed out (the CTest TIMEOUT of this test)");
}

/// A CTest test that is no gtest binary (a script) and fails: a failure in its own words.
#[test]
fn a_plain_ctest_test_that_fails_is_a_failure() {
    let a = pith(case("plain_fail").path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.json["passed"], 1, "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "config_check");
    assert_eq!(f["message"], "config invalid: port missing");
}

/// A self-checking program that CTest fails by its output (`PASS_REGULAR_EXPRESSION` not
/// matched): the message is the line that says what failed, not the first line it printed.
#[test]
fn a_test_failed_by_its_output_says_the_failing_line() {
    let a = pith(case("plain_regex").path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "selfcheck");
    assert_eq!(
        f["message"], "[fail] attribute: double as int",
        "{}",
        a.line
    );
}

/// `Inst/P.Even/1` selects that instance alone (an unanchored `-R` would add `/10`, which
/// fails); `Whole.One` inside a whole binary alone (a prefix filter would add `OneMore`).
#[test]
fn ids_select_exactly_that_test() {
    let ws = case("ids");
    for id in ["Inst/P.Even/1", "Whole.One", "Inst/P.Even/0"] {
        let a = pith(ws.path(), &[id]);
        assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{id}: {}", a.line);
        assert_eq!(a.json["passed"], 1, "{id}: {}", a.line);
    }
}

/// An id is never an option to ctest or gtest.
#[test]
fn an_id_that_looks_like_an_option_is_not_found() {
    let ws = case("ids");
    let a = pith(ws.path(), &["--", "-R", "--gtest_filter=*"]);
    assert_eq!((a.status(), a.code), ("TestsNotFound", 1), "{}", a.line);
    assert_eq!(
        common::strings(&a.json["notFound"]),
        ["-R", "--gtest_filter=*"],
        "{}",
        a.line
    );
    assert!(
        a.json.get("passed").is_none() && a.json.get("failed").is_none(),
        "{}",
        a.line
    );
}

/// The tests see the caller's environment: colour and locale as given (pith sets its C locale
/// and colour switch on the build only), gtest's behaviour variables kept, its reporting ones
/// (`GTEST_COLOR`) taken out.
#[test]
fn the_tests_see_the_callers_environment() {
    let ws = case("env");
    let root: &Path = ws.path();
    let out = common::bare()
        .args(["test", "--root"])
        .arg(root)
        .current_dir(root)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CMAKE_COLOR_DIAGNOSTICS")
        .envs([
            ("TERM", "xterm-256color"),
            ("WANT_TERM", "xterm-256color"),
            ("FORCE_COLOR", "1"),
            ("WANT_FORCE_COLOR", "1"),
            ("CLICOLOR_FORCE", "1"),
            ("WANT_CLICOLOR_FORCE", "1"),
            ("LC_ALL", "C.UTF-8"),
            ("WANT_LC_ALL", "C.UTF-8"),
            ("GTEST_COLOR", "yes"),
            ("GTEST_DEATH_TEST_STYLE", "threadsafe"),
            ("WANT_GTEST_DEATH_TEST_STYLE", "threadsafe"),
        ])
        .output()
        .expect("run pith");
    let a = common::answer_of(out, root);
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
}

/// Issue 26, item 5: what a test prints is never GoogleTest's. A test prints gtest's and
/// CTest's lines on stdout and stderr, another runs this same binary (a test failing there)
/// with its output inherited. gtest runs one test at a time: between a test's `[ RUN ]` and
/// its end, no other marker is gtest's (CTest prefixes every line a test prints, so its own
/// totals cannot be forged). Green, red and crashed, the answer is the raw run's, and a crash
/// names the test that was running, not the one it printed.
#[test]
fn gtest_lines_a_test_prints_are_not_gtests() {
    let ws = case("forged_output");
    let env_of =
        |var: Option<&'static str>| -> (Vec<(&'static str, &'static str)>, Vec<&'static str>) {
            let all = ["PITH_FIXTURE_RED", "PITH_FIXTURE_CRASH"];
            (
                var.map(|v| vec![(v, "1")]).unwrap_or_default(),
                all.into_iter().filter(|a| Some(*a) != var).collect(),
            )
        };
    let (env, unset) = env_of(None);
    let a = common::pith_with(ws.path(), &[], &env, &unset);
    assert_eq!(
        (a.status(), a.code, a.count("passed")),
        ("TestsPassed", 0, 5),
        "{}",
        a.line
    );
    assert!(a.json.get("reason").is_none(), "{}", a.line);

    let (env, unset) = env_of(Some("PITH_FIXTURE_RED"));
    let a = common::pith_with(ws.path(), &[], &env, &unset);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!((a.count("passed"), a.count("failed")), (4, 1), "{}", a.line);
    assert_eq!(a.failures()[0]["test"], "Forge.Adds", "{}", a.line);

    let (env, unset) = env_of(Some("PITH_FIXTURE_CRASH"));
    let a = common::pith_with(ws.path(), &[], &env, &unset);
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    assert_eq!(a.failures().len(), 1, "{}", a.line);
    assert_eq!(a.failures()[0]["test"], "Forge.Crashes", "{}", a.line);
    assert!(a.json.get("running").is_none(), "{}", a.line);
    assert_eq!((a.count("passed"), a.count("failed")), (3, 1), "{}", a.line);
}

/// The caller's GoogleTest variables that decide what runs reach the tests, as they do under
/// raw `ctest`: a whole-binary test filtered with `GTEST_FILTER=-Service.*` is green by hand,
/// and was red under pith, which removed the filter; with `GTEST_ALSO_RUN_DISABLED_TESTS=1`
/// the disabled test runs and fails by hand, and was green under pith.
#[test]
fn the_callers_gtest_selection_decides_what_runs() {
    // Configured, built and run by hand in the caller's shell.
    let raw_ctest = |root: &Path, env: &[(&str, Option<&str>)]| {
        let ok = common::raw(
            root,
            &["cmake", "-S", ".", "-B", "build", "-G", "Ninja"],
            env,
        )
        .green()
            && common::raw(root, &["cmake", "--build", "build"], env).green();
        assert!(ok, "the raw build failed");
        common::raw(
            root,
            &["ctest", "--test-dir", "build", "--output-on-failure"],
            env,
        )
    };
    let filtered: &[(&str, Option<&str>)] = &[("GTEST_FILTER", Some("-Service.*"))];
    let ws = case("callers_gtest_env");
    let a = common::pith_with(ws.path(), &[], &[("GTEST_FILTER", "-Service.*")], &[]);
    assert_eq!(
        (a.status(), a.code, a.count("passed")),
        ("TestsPassed", 0, 1),
        "{}",
        a.line
    );
    let raw = raw_ctest(ws.path(), filtered);
    assert!(raw.green(), "{}", raw.output);

    let ws = case("callers_gtest_env");
    let a = common::pith_with(
        ws.path(),
        &[],
        &[
            ("GTEST_FILTER", "-Service.*"),
            ("GTEST_ALSO_RUN_DISABLED_TESTS", "1"),
        ],
        &[],
    );
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert!(
        a.failure("Local.DISABLED_KnownBroken")["message"]
            .as_str()
            .is_some_and(|m| m.contains("known broken")),
        "{}",
        a.line
    );
    let raw = raw_ctest(
        ws.path(),
        &[
            ("GTEST_FILTER", Some("-Service.*")),
            ("GTEST_ALSO_RUN_DISABLED_TESTS", Some("1")),
        ],
    );
    assert!(
        !raw.green() && raw.output.contains("known broken"),
        "{}",
        raw.output
    );
}
