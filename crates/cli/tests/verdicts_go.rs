//! The verdict corpus for Go: each hostile case a tiny module under
//! `tests/fixtures/verdicts/go/`, run by the installed Go through the real `pith` binary (these
//! tests fail without Go, they never skip). The false greens first (each was TestsPassed, exit 0,
//! before its fix), then what pith already got right and must keep.

use crate::common;

use common::{fixture, pith};

fn case(name: &str) -> common::Fixture {
    fixture(&format!("verdicts/go/{name}"))
}

/// False green: a `TestMain` that returns without `m.Run`, and one that exits 0 before it. go
/// says `ok` and exits 0; the tests the packages declare never ran.
#[test]
fn a_testmain_that_never_runs_the_tests_is_not_green() {
    let ws = case("testmain_skips");
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!(a.json["passed"], 1, "{}", a.line);
    let reason = a.json["reason"].as_str().expect(&a.line);
    assert!(
        reason.contains("example.com/skips/nomrun never ran 1 of its 1 tests (TestNever)"),
        "{reason}"
    );
    assert!(
        reason.contains("example.com/skips/exitzero never ran 2 of its 2 tests (TestOne, TestTwo)"),
        "{reason}"
    );
    assert!(
        a.json["tail"]
            .as_str()
            .is_some_and(|t| t.contains("skipping: no database")),
        "{}",
        a.line
    );

    // Asked for by id, the test is declared but never ran: not a missing id.
    let again = pith(ws.path(), &["example.com/skips/nomrun.TestNever"]);
    assert_eq!(
        (again.status(), again.code),
        ("RunnerFailed", 1),
        "{}",
        again.line
    );
    assert!(again.json.get("notFound").is_none(), "{}", again.line);
    assert!(
        again.json["reason"]
            .as_str()
            .is_some_and(|r| r.contains("never ran TestNever")),
        "{}",
        again.line
    );
}

/// The listing that tells which tests a package declares is kept between runs (pith's cache)
/// only while the module's Go files stay as they were: a package added after a green run, whose
/// `TestMain` exits 0 before `m.Run`, is still caught. Each run here comes after one whose
/// listing was kept, so a stale listing would answer green.
#[test]
fn a_package_added_after_a_green_run_is_listed_again() {
    let ws = case("testmain_skips");
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

/// False green: a test ends the binary with status 0 (`syscall.Exit(0)`; the testing package
/// only guards `os.Exit`). test2json hands the package's `ok` to the running test, go exits 0,
/// and the failing test after it never runs.
#[test]
fn a_binary_that_exits_zero_mid_run_is_not_green() {
    let a = pith(case("exit_zero_midrun").path(), &[]);
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    assert_eq!(
        common::strings(&a.json["running"]),
        ["example.com/midrun.TestQuits"],
        "{}",
        a.line
    );
    assert_eq!(a.json["passed"], 1, "only TestFirst passed: {}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "example.com/midrun.TestQuits");
    assert_eq!(
        f["message"],
        "the test binary exited before the test finished"
    );
}

/// The binary exits 0 while parallel subtests are still out: neither is a pass.
#[test]
fn parallel_subtests_left_running_are_not_green() {
    let a = pith(case("parallel_left").path(), &[]);
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    let mut running = common::strings(&a.json["running"]);
    running.sort_unstable();
    assert_eq!(
        running,
        [
            "example.com/parallel.TestGroup/quits",
            "example.com/parallel.TestGroup/slow"
        ],
        "{}",
        a.line
    );
    assert!(a.json.get("passed").is_none(), "{}", a.line);
}

/// The records of a run survive 9 MB of output around them, and the failure is the test's.
#[test]
fn records_survive_a_flood_of_output() {
    let a = pith(case("flood").path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(
        (a.json["passed"].as_u64(), a.json["failed"].as_u64()),
        (Some(1), Some(1))
    );
    let f = &a.failures()[0];
    assert_eq!(f["test"], "example.com/flood.TestFails", "{}", a.line);
    assert_eq!(f["message"], "got 1, want 2", "{}", a.line);
}

/// Two modules side by side under a root with no marker: both run, the failing one is named
/// with workspace-relative paths, an id goes back to its own module; fixed, both are green.
#[test]
fn sibling_modules_all_run_and_each_is_named() {
    let ws = case("siblings");
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    let runs: Vec<(&str, &str)> = a.json["runs"]
        .as_array()
        .unwrap_or_else(|| panic!("no runs: {}", a.line))
        .iter()
        .map(|r| (r["dir"].as_str().unwrap(), r["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        runs,
        [("svc/a", "TestsPassed"), ("svc/b", "TestsFailed")],
        "{}",
        a.line
    );
    let f = &a.failures()[0];
    assert_eq!(f["test"], "example.com/svc/b.TestDouble", "{}", a.line);
    assert_eq!(
        f["frames"][0].as_str().unwrap().split(' ').next(),
        Some("svc/b/calc_test.go:8"),
        "{}",
        a.line
    );

    let again = pith(ws.path(), &["example.com/svc/b.TestDouble"]);
    assert_eq!(
        (
            again.status(),
            again.json["failed"].as_u64(),
            again.json.get("runs")
        ),
        ("TestsFailed", Some(1), None),
        "only b ran: {}",
        again.line
    );

    std::fs::write(
        ws.path().join("svc/b/calc.go"),
        "// Package b doubles.\npackage b\n\n// Double returns 2n.\nfunc Double(n int) int { return 2 * n }\n",
    )
    .unwrap();
    let green = pith(ws.path(), &[]);
    assert_eq!(
        (green.status(), green.code),
        ("TestsPassed", 0),
        "{}",
        green.line
    );
    assert_eq!(green.json["passed"], 2, "{}", green.line);
    let dirs: Vec<&str> = green.json["runs"]
        .as_array()
        .unwrap_or_else(|| panic!("no runs: {}", green.line))
        .iter()
        .map(|r| r["dir"].as_str().unwrap())
        .collect();
    assert_eq!(dirs, ["svc/a", "svc/b"], "{}", green.line);
}

/// A `go.work` at a root without a module, a module nested in another: each module runs once
/// in its own directory (app builds only through the workspace), ids go to their module.
#[test]
fn a_go_work_runs_each_module_once() {
    let ws = case("gowork");
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(
        (a.json["passed"].as_u64(), a.json["failed"].as_u64()),
        (Some(2), Some(1)),
        "{}",
        a.line
    );
    let runs: Vec<(&str, &str)> = a.json["runs"]
        .as_array()
        .unwrap_or_else(|| panic!("no runs: {}", a.line))
        .iter()
        .map(|r| (r["dir"].as_str().unwrap(), r["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        runs,
        [
            ("app", "TestsPassed"),
            ("lib", "TestsPassed"),
            ("app/inner", "TestsFailed")
        ],
        "{}",
        a.line
    );
    assert_eq!(a.failures()[0]["test"], "example.com/app/inner.TestInner");

    let inner = pith(ws.path(), &["example.com/app/inner.TestInner"]);
    assert_eq!(
        (
            inner.status(),
            inner.json["failed"].as_u64(),
            inner.json.get("runs")
        ),
        ("TestsFailed", Some(1), None),
        "the nested module alone: {}",
        inner.line
    );
    let outer = pith(
        ws.path(),
        &["example.com/app.TestApp", "example.com/lib.TestGreeting"],
    );
    assert_eq!(
        (outer.status(), outer.code),
        ("TestsPassed", 0),
        "{}",
        outer.line
    );
    assert_eq!(outer.json["passed"], 2, "{}", outer.line);
}

/// Subtest names with regexp metacharacters select exactly that subtest: unescaped, the
/// pattern would also run a sibling that panics.
#[test]
fn ids_with_regexp_metacharacters_select_exactly_that_test() {
    let ws = case("ids");
    for id in [
        "example.com/ids.TestA/sub_(1+1)",
        "example.com/ids.TestA/x.y|z",
    ] {
        let a = pith(ws.path(), &[id]);
        assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{id}: {}", a.line);
        assert_eq!(a.json["passed"], 1, "{id}: {}", a.line);
    }
    // Subtests of two parents: each runs alone, never the cross product of their names.
    let a = pith(
        ws.path(),
        &[
            "example.com/ids.TestA/sub_(1+1)",
            "example.com/ids.TestB/last",
        ],
    );
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
    assert_eq!(a.json["passed"], 2, "{}", a.line);
}

/// An id is never an option: one that starts with `-` reaches go as nothing and matches
/// nothing, beside a real id or alone.
#[test]
fn an_id_that_looks_like_an_option_is_not_found() {
    let ws = case("ids");
    let a = pith(ws.path(), &["--", "-run=."]);
    assert_eq!((a.status(), a.code), ("TestsNotFound", 1), "{}", a.line);
    assert_eq!(
        common::strings(&a.json["notFound"]),
        ["-run=."],
        "{}",
        a.line
    );
    let b = pith(ws.path(), &["--", "-v", "example.com/ids.TestA/sub_(1+1)"]);
    assert_eq!((b.status(), b.code), ("TestsNotFound", 1), "{}", b.line);
    assert_eq!(common::strings(&b.json["notFound"]), ["-v"], "{}", b.line);
    assert_eq!(b.json["passed"], 1, "{}", b.line);
}

/// The tests see the caller's environment: colour variables as given, GOFLAGS as given less
/// the flags that would replace the run with something else (`-tags` kept: the tagged test
/// runs; `-count` and `-failfast` are the caller's), GOTOOLCHAIN as given (unset: go's own
/// configuration decides, as by hand).
#[test]
fn the_tests_see_the_callers_environment() {
    let ws = case("env");
    let a = common::pith_with(
        ws.path(),
        &[],
        &[
            ("TERM", "xterm-256color"),
            ("WANT_TERM", "xterm-256color"),
            ("FORCE_COLOR", "1"),
            ("WANT_FORCE_COLOR", "1"),
            ("CLICOLOR_FORCE", "1"),
            ("WANT_CLICOLOR_FORCE", "1"),
            ("GOFLAGS", "-tags=extra -count=1 -failfast -list=Nothing"),
            ("WANT_GOFLAGS", "-tags=extra -count=1 -failfast"),
        ],
        &["NO_COLOR", "CLICOLOR", "GOTOOLCHAIN", "WANT_GOTOOLCHAIN"],
    );
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
    assert_eq!(a.json["passed"], 2, "TestTagged ran too: {}", a.line);
}

/// `os.Exit(0)` inside a test: the testing package panics on it, and the test fails.
#[test]
fn os_exit_zero_in_a_test_fails_it() {
    let a = pith(case("os_exit_zero").path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "example.com/osexit0.TestExitsZero");
    assert_eq!(
        f["message"],
        "panic: unexpected call to os.Exit(0) during test"
    );
}

/// `os.Exit(1)` inside a test: the binary dies mid-run, naming the test.
#[test]
fn os_exit_one_in_a_test_is_crashed() {
    let a = pith(case("os_exit_one").path(), &[]);
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    assert_eq!(
        common::strings(&a.json["running"]),
        ["example.com/osexit1.TestExitsOne"],
        "{}",
        a.line
    );
    assert_eq!(a.json["passed"], 1, "{}", a.line);
}

/// A panic in `init`: no test ran; the package is the failure.
#[test]
fn a_panic_in_init_is_a_collection_error() {
    let a = pith(case("init_panic").path(), &[]);
    assert_eq!((a.status(), a.code), ("CollectionFailed", 1), "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "example.com/initpanic");
    assert_eq!(f["message"], "panic: config missing");
    assert_eq!(f["phase"], "collect");
}

/// Every test passed and the binary still failed (a leak check in `TestMain`): not green, the
/// binary's own words as the failure.
#[test]
fn a_binary_failing_after_every_test_passed_is_not_green() {
    let a = pith(case("fails_after_pass").path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "example.com/afterpass");
    assert_eq!(f["message"], "leak check: 1 goroutine still running");
    assert_eq!(f["phase"], "teardown");
}

/// Issue 26, item 5: what a test prints is never the runner's. A test prints go's own lines
/// (`--- FAIL`, `FAIL pkg`, `ok  pkg`, `[build failed]`, `panic:`) on its stdout and stderr,
/// another runs `go test` (verbose, plain, -json) on a module of its own with its output
/// inherited, a `TestMain` prints go's summary of a failed build around the run. Since Go 1.20
/// the binary frames its own lines (`-test.v=test2json`), so none of it is an event; a
/// failed build's line counts only for a package that ran no test. The answer is the raw
/// `go test`'s verdict with the fixture's own tests, green or red.
#[test]
fn runner_lines_a_test_prints_are_not_the_runners() {
    let ws = case("forged_output");
    for red in [false, true] {
        assert_eq!(
            common::raw_passes(ws.path(), "go", &["test", "./..."], red),
            !red,
            "the raw run"
        );
        let a = common::pith_red(ws.path(), &[], red);
        if !red {
            assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
            assert_eq!(a.json["passed"], 4, "{}", a.line);
            continue;
        }
        assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
        assert_eq!(
            (a.json["passed"].as_u64(), a.json["failed"].as_u64()),
            (Some(3), Some(1)),
            "{}",
            a.line
        );
        assert_eq!(
            a.failures()[0]["test"],
            "example.com/forged.TestAdds",
            "{}",
            a.line
        );
        assert_eq!(a.failures()[0]["message"], "real failure", "{}", a.line);
    }
}

/// A goroutine TestA left behind fails it after it completed: the testing package panics
/// ("Fail in goroutine after TestA has completed") while TestB runs, and test2json hands the
/// panic to TestB. go's own words name TestA: TestA fails (its pass undone), TestB never
/// ended.
#[test]
fn a_leftover_goroutines_panic_is_charged_to_the_test_go_names() {
    let a = pith(case("leftover_goroutine").path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.failures().len(), 1, "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "example.com/leftover.TestA", "{}", a.line);
    assert_eq!(
        f["message"],
        "panic: Fail in goroutine after TestA has completed"
    );
    assert!(
        common::frames(f)[0].starts_with("leftover_test.go:13"),
        "{}",
        a.line
    );
    assert!(a.json.get("passed").is_none(), "{}", a.line);
    assert_eq!(
        common::strings(&a.json["running"]),
        ["example.com/leftover.TestB"],
        "{}",
        a.line
    );
}

/// False green: the caller's `-count=2` runs each test twice, and a test that leaves state
/// behind fails on its second run; pith dropped `-count` (and would have let the pass that
/// came last hide the failure). go's verdict: a test that failed once has failed.
#[test]
fn a_repeated_test_that_fails_once_is_red() {
    let ws = case("count_flip");
    let raw = common::raw(
        ws.path(),
        &["go", "test", "./..."],
        &[("GOFLAGS", Some("-count=2"))],
    );
    assert!(
        !raw.green() && raw.output.contains("--- FAIL: TestCache"),
        "{}",
        raw.output
    );
    let a = common::pith_with(ws.path(), &[], &[("GOFLAGS", "-count=2")], &[]);
    assert_eq!(a.tally(), ("TestsFailed", 1, 1), "{}", a.line);
    assert!(
        a.failure("example.com/countflip.TestCache")["message"]
            .as_str()
            .is_some_and(|m| m.contains("cache not reset between runs (run 2)")),
        "{}",
        a.line
    );
    // The caller's `-run` chooses the steady test alone: green by hand, and a package that
    // ran fewer tests than it declares ran what was asked (it was RunnerFailed, "never ran").
    let only = [("GOFLAGS", Some("-run=TestSteady -count=2"))];
    assert!(common::raw(ws.path(), &["go", "test", "./..."], &only).green());
    let a = common::pith_with(
        ws.path(),
        &[],
        &[("GOFLAGS", "-run=TestSteady -count=2")],
        &[],
    );
    assert_eq!(a.tally(), ("TestsPassed", 1, 0), "{}", a.line);
    // Once: green, by hand and under pith.
    assert!(common::raw(ws.path(), &["go", "test", "./..."], &[("GOFLAGS", None)]).green());
    let once = common::pith_with(ws.path(), &[], &[], &["GOFLAGS"]);
    assert_eq!(once.status(), "TestsPassed", "{}", once.line);
}

/// False green: the caller's `-timeout` is how long the project lets a test run; pith's own
/// (from its deadline) replaced it, and a test slower than the project allows passed.
#[test]
fn the_projects_timeout_fails_a_slower_test() {
    let ws = case("slow_timeout");
    let raw = common::raw(
        ws.path(),
        &["go", "test", "./..."],
        &[("GOFLAGS", Some("-timeout=1s"))],
    );
    assert!(
        !raw.green() && raw.output.contains("test timed out after 1s"),
        "{}",
        raw.output
    );
    // The project's rule failed the test, as by hand: TestsFailed, not pith's TimedOut (which
    // would say to give pith more time).
    let a = common::pith_with(ws.path(), &[], &[("GOFLAGS", "-timeout=1s")], &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(
        a.failure("example.com/slowtimeout.TestSlow")["message"],
        "test timed out after 1s"
    );
    assert!(a.json.get("running").is_none(), "{}", a.line);
}

/// False green: go.mod pins a toolchain go cannot get. By hand (go's default
/// `GOTOOLCHAIN=auto`) go tries to switch to it and fails; pith forced `GOTOOLCHAIN=local` and
/// ran the installed Go, green.
#[test]
fn a_pinned_toolchain_is_the_projects_runner_version() {
    let ws = case("toolchain_pinned");
    // go's own configuration as it ships: switch to the toolchain go.mod asks for. No network:
    // the switch fails as it would with no such release.
    let goenv = tempfile::tempdir().unwrap();
    let conf = goenv.path().join("env");
    std::fs::write(&conf, "GOTOOLCHAIN=auto\n").unwrap();
    let conf = conf.to_str().unwrap();
    let raw = common::raw(
        ws.path(),
        &["go", "test", "./..."],
        &[
            ("GOENV", Some(conf)),
            ("GOPROXY", Some("off")),
            ("GOTOOLCHAIN", None),
        ],
    );
    assert!(
        !raw.green() && raw.output.contains("toolchain not available"),
        "{}",
        raw.output
    );
    let a = common::pith_with(
        ws.path(),
        &[],
        &[("GOENV", conf), ("GOPROXY", "off")],
        &["GOTOOLCHAIN"],
    );
    assert_eq!((a.status(), a.code), ("RunnerMissing", 2), "{}", a.line);
    assert!(
        a.json["hint"]
            .as_str()
            .is_some_and(|h| h.contains("go1.99.0")),
        "{}",
        a.line
    );
}

/// A module the go.work leaves out is built and tested on its own, as a developer does there
/// (`GOWORK=off`): inside the workspace go refuses `./...` in it. The modules the go.work uses
/// run inside it (app builds only with lib from the workspace).
#[test]
fn a_module_the_go_work_leaves_out_runs_on_its_own() {
    let ws = case("gowork_left_out");
    let go_test = ["go", "test", "./..."];
    assert!(common::raw(&ws.path().join("app"), &go_test, &[]).green());
    let inside = common::raw(&ws.path().join("tools"), &go_test, &[]);
    assert!(
        !inside.green() && inside.output.contains("go.work"),
        "{}",
        inside.output
    );
    assert!(common::raw(
        &ws.path().join("tools"),
        &go_test,
        &[("GOWORK", Some("off"))]
    )
    .green());

    let a = pith(ws.path(), &[]);
    assert_eq!(
        (a.status(), a.code, a.json["passed"].as_u64()),
        ("TestsPassed", 0, Some(2)),
        "{}",
        a.line
    );
    let tool = pith(ws.path(), &["example.com/tools.TestTool"]);
    assert_eq!(
        (tool.status(), tool.json["passed"].as_u64()),
        ("TestsPassed", Some(1)),
        "{}",
        tool.line
    );
}
