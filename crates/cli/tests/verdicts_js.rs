//! The verdict regression corpus for JavaScript: each hostile case of issue 11 (and the cases
//! pith already got right) as a small project under `tests/fixtures/verdicts/js/<case>/`, run
//! by the real jest, vitest or node test runner through the real `pith` binary, its verdict
//! asserted: status, exit code and the counts and fields that carry the evidence. jest and
//! vitest come from `tests/fixtures/js/node_modules` (`scripts/setup/js.sh`), linked into each
//! copy; without them these tests fail, they never skip.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{fixture, Answer, Fixture};

/// A copy of `tests/fixtures/verdicts/js/<name>`, with the shared runners linked in.
fn case(name: &str) -> Fixture {
    let ws = fixture(&format!("verdicts/js/{name}"));
    common::link_node_modules(ws.path());
    ws
}

/// `pith test --root ROOT ARGS...` with the colour variables of a plain shell (`FORCE_COLOR`
/// unset, `NO_COLOR=1`, `TERM=xterm-pith`), whatever the harness itself runs under.
fn pith(root: &Path, args: &[&str]) -> Answer {
    let out = pith_command(root, args).output().expect("run pith");
    common::answer_of(out, root)
}

fn pith_command(root: &Path, args: &[&str]) -> Command {
    let mut cmd = common::bare();
    cmd.arg("test")
        .arg("--root")
        .arg(root)
        .args(args)
        .current_dir(root)
        .env_remove("FORCE_COLOR")
        .env_remove("CI")
        .env("NO_COLOR", "1")
        .env("TERM", "xterm-pith");
    common::without_callers_pith_variables(&mut cmd);
    cmd
}

fn run(name: &str, runner: &str) -> (Fixture, Answer) {
    let ws = case(name);
    let a = pith(ws.path(), &[]);
    assert_eq!(a.json["runner"], runner, "{}", a.line);
    (ws, a)
}

// ---- The project's own retry policy (issue 26) ----

/// The flaky entry of `test`, or a panic naming the answer.
fn flaky<'a>(a: &'a Answer, test: &str) -> &'a serde_json::Value {
    a.json["flaky"]
        .as_array()
        .and_then(|l| l.iter().find(|f| f["test"] == test))
        .unwrap_or_else(|| panic!("no flaky {test}: {}", a.line))
}

/// Adds `tests/stuck.test.js` (`source`, a test that fails every attempt) to `ws`: the run is
/// red for it alone, and the test that passed on its retry is still listed, not failed.
fn a_test_failing_every_attempt_stays_red(ws: &Fixture, source: &str, passed: u64) {
    std::fs::write(ws.path().join("tests/stuck.test.js"), source).unwrap();
    let b = pith(ws.path(), &[]);
    assert_eq!((b.status(), b.code), ("TestsFailed", 1), "{}", b.line);
    assert_eq!(
        b.failure_ids(),
        ["tests/stuck.test.js > stuck"],
        "{}",
        b.line
    );
    assert_eq!(
        (b.count("passed"), b.count("failed")),
        (passed, 1),
        "{}",
        b.line
    );
    flaky(&b, "tests/stock.test.js > reserves");
}

/// Was green and silent: `jest.retryTimes` re-ran a test that failed once, and jest exits 0.
/// Green, and the answer lists it under `flaky`: with its failed attempt's message and frame
/// where jest kept them (`logErrorsBeforeRetry`), else with the attempts jest counted. A test
/// that fails every attempt stays red.
#[test]
fn jest_retry_times_passing_on_a_retry_is_green_and_listed_as_flaky() {
    let (ws, a) = run("jest_retry", "jest");
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
    assert_eq!(a.count("passed"), 3, "{}", a.line);
    let f = flaky(&a, "tests/stock.test.js > reserves");
    assert!(
        f["message"]
            .as_str()
            .is_some_and(|m| m.contains("Received: 2")),
        "{}",
        a.line
    );
    assert_eq!(
        f["frames"][0], "tests/stock.test.js:9 expect(attempts > 1 ? 3 : 2).toBe(3);",
        "{}",
        a.line
    );
    let quiet = flaky(&a, "tests/quiet.test.js > settles");
    assert_eq!(
        quiet["message"], "failed 1 attempt, then passed on a retry (the runner kept no error)",
        "{}",
        a.line
    );

    a_test_failing_every_attempt_stays_red(
        &ws,
        "jest.retryTimes(2);\ntest('stuck', () => { expect(1).toBe(2); });\n",
        3,
    );
}

/// Was green and silent: vitest's `retry` (the project's config) re-ran a test that failed
/// once. Green, and the failed attempt is listed under `flaky`; a test that fails every attempt
/// stays red.
#[test]
fn vitest_retry_passing_on_a_retry_is_green_and_listed_as_flaky() {
    let (ws, a) = run("vitest_retry", "vitest");
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
    assert_eq!(a.count("passed"), 2, "{}", a.line);
    let f = flaky(&a, "tests/stock.test.js > reserves");
    assert_eq!(
        f["message"], "AssertionError: expected 2 to be 3",
        "{}",
        a.line
    );
    assert_eq!(
        f["frames"][0], "tests/stock.test.js:9 expect(attempts > 1 ? 3 : 2).toBe(3);",
        "{}",
        a.line
    );

    a_test_failing_every_attempt_stays_red(
        &ws,
        "import { expect, test } from 'vitest';\ntest('stuck', () => { expect(1).toBe(2); });\n",
        2,
    );
}

// ---- The runner's exit and the user's script ----

#[test]
fn jest_coverage_threshold_in_the_script_is_honoured() {
    let (ws, a) = run("jest_coverage_threshold", "jest");
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!(a.count("passed"), 1, "{}", a.line);
    assert!(
        a.text("reason")
            .contains("does not meet \"global\" threshold (90%)"),
        "the runner's own threshold line is the reason: {}",
        a.line
    );
    assert!(
        a.text("tail")
            .contains("Coverage for statements (50%) does not meet"),
        "{}",
        a.line
    );
    assert!(
        !ws.path().join("coverage").exists(),
        "coverage reports go to pith's scratch, not into the project"
    );
    // A re-run of one test is not judged by the whole suite's threshold.
    let again = pith(ws.path(), &["tests/calc.test.js > adds"]);
    assert_eq!(
        (again.status(), again.code),
        ("TestsPassed", 0),
        "{}",
        again.line
    );
}

#[test]
fn vitest_coverage_threshold_in_the_script_is_honoured() {
    let (ws, a) = run("vitest_coverage_threshold", "vitest");
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!(a.count("passed"), 1, "{}", a.line);
    assert!(
        a.text("reason")
            .contains("Coverage for statements (40%) does not meet global threshold (90%)"),
        "{}",
        a.line
    );
    assert!(
        a.text("tail").contains("does not meet global threshold"),
        "{}",
        a.line
    );
    assert!(!ws.path().join("coverage").exists());
}

#[test]
fn a_configured_reporter_that_fails_the_run_is_kept() {
    let (_ws, a) = run("jest_failing_reporter", "jest");
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!(
        a.text("reason"),
        "jest reported success:false with no failing test",
        "{}",
        a.line
    );
    assert!(
        a.text("tail").contains("Tests:       1 passed"),
        "{}",
        a.line
    );
}

#[test]
fn a_failing_exit_after_every_test_passed_is_not_green() {
    let (_ws, a) = run("jest_teardown_fails", "jest");
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!(a.count("passed"), 1, "{}", a.line);
    assert!(
        a.text("reason").contains("jest exited 1"),
        "the exit is the evidence: {}",
        a.line
    );
    assert!(
        a.text("tail")
            .contains("teardown check: 3 temp files left behind"),
        "{}",
        a.line
    );
}

#[test]
fn node_test_only_in_the_script_is_honoured() {
    let (_ws, a) = run("node_test_only", "node");
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
    assert_eq!(a.count("passed"), 1, "{}", a.line);
}

#[test]
fn an_option_that_runs_no_test_is_named_not_dropped() {
    let (_ws, a) = run("jest_unhonoured", "jest");
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert!(
        a.text("reason")
            .contains("pith could not honour --listTests"),
        "{}",
        a.line
    );
}

/// `jest -u` in the script: the runner rewrites the snapshot the test no longer matches, as
/// `npm test` has it do, and the answer says it wrote one.
#[test]
fn the_scripts_own_snapshot_update_is_honoured() {
    let (ws, a) = run("jest_update_snapshots", "jest");
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
    assert_eq!(a.count("snapshotsWritten"), 1, "{}", a.line);
    let snap =
        std::fs::read_to_string(ws.path().join("tests/__snapshots__/label.test.js.snap")).unwrap();
    assert!(snap.contains(r#"`"3 items"`"#), "{snap}");
}

// ---- A run that stops early ----

#[test]
fn jest_process_exit_zero_inside_a_test_is_not_green() {
    let (_ws, a) = run("jest_process_exit", "jest");
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert!(
        a.text("reason").contains("exited 0 before its run ended"),
        "{}",
        a.line
    );
    assert_eq!(
        a.json["running"][0], "tests/exit.test.js > two",
        "the test that ended the run is named: {}",
        a.line
    );
    assert!(
        a.text("tail").contains("process.exit called with \"0\""),
        "{}",
        a.line
    );
}

#[test]
fn node_process_exit_zero_inside_a_test_is_not_green() {
    let (_ws, a) = run("node_process_exit", "node");
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert!(
        a.text("reason").contains(
            "tests/exit.test.js ended through process.exit(0) before node reported its tests"
        ),
        "{}",
        a.line
    );
}

#[test]
fn vitest_process_exit_inside_a_test_fails_that_test() {
    let (_ws, a) = run("vitest_process_exit", "vitest");
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!((a.count("passed"), a.count("failed")), (1, 2), "{}", a.line);
}

// ---- Every outcome counts ----

#[test]
fn node_tests_that_share_a_name_are_all_kept_and_rerun() {
    let (ws, a) = run("node_duplicates", "node");
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(
        (a.count("passed"), a.count("failed")),
        (16, 1),
        "{}",
        a.line
    );
    let id = "tests/loop.test.js > handles a case";
    assert_eq!(a.failures()[0]["test"], id, "{}", a.line);
    // The id names all 17: all run, and the failing one fails the re-run.
    let again = pith(ws.path(), &[id]);
    assert_eq!(
        (again.status(), again.code),
        ("TestsFailed", 1),
        "{}",
        again.line
    );
    assert_eq!(
        (again.count("passed"), again.count("failed")),
        (16, 1),
        "{}",
        again.line
    );
}

fn duplicates(name: &str, runner: &str) {
    let (ws, a) = run(name, runner);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!((a.count("passed"), a.count("failed")), (3, 2), "{}", a.line);
    let mut ids: Vec<&str> = a
        .failures()
        .iter()
        .filter_map(|f| f["test"].as_str())
        .collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        [
            "tests/each.test.js > group > works",
            "tests/each.test.js > value"
        ],
        "{}",
        a.line
    );
    for (id, passed) in [
        ("tests/each.test.js > value", 2),
        ("tests/each.test.js > group > works", 1),
    ] {
        let again = pith(ws.path(), &[id]);
        assert_eq!(
            (again.status(), again.code),
            ("TestsFailed", 1),
            "{id}: {}",
            again.line
        );
        assert_eq!(
            (again.count("passed"), again.count("failed")),
            (passed, 1),
            "{id}: {}",
            again.line
        );
    }
}

#[test]
fn jest_tests_that_share_a_name_are_all_kept_and_rerun() {
    duplicates("jest_duplicates", "jest");
}

#[test]
fn vitest_tests_that_share_a_name_are_all_kept_and_rerun() {
    duplicates("vitest_duplicates", "vitest");
}

// ---- Ids are ids ----

#[test]
fn ids_that_look_like_options_name_no_test() {
    let ws = case("ids_dash");
    for ids in [&["--", "--help"][..], &["--", "-x"], &["--", "--listTests"]] {
        let a = pith(ws.path(), ids);
        assert_eq!(
            (a.status(), a.code),
            ("TestsNotFound", 1),
            "{ids:?}: {}",
            a.line
        );
        let nf = a.json["notFound"][0].as_str().unwrap_or("");
        assert!(nf.starts_with('-'), "{ids:?}: {}", a.line);
        assert!(a.json.get("passed").is_none(), "nothing ran: {}", a.line);
    }
}

#[test]
fn ids_with_metacharacters_select_exactly_their_test() {
    for r in ["jest", "vitest", "node"] {
        let ws = case(&format!("ids_metachar_{r}"));
        let first = pith(ws.path(), &[]);
        assert_eq!(first.json["runner"], r, "{}", first.line);
        assert_eq!(
            (first.count("passed"), first.count("failed")),
            (2, 2),
            "{r}: {}",
            first.line
        );
        let base = "tests/meta.test.js > math $(echo) | ^ > ";
        for (name, status, passed, failed) in [
            ("adds (1+1) [x]", "TestsPassed", 1, 0),
            ("adds (1+1) [y]", "TestsFailed", 0, 1),
            ("adds (1+1) *", "TestsFailed", 0, 1),
            ("it's `quoted` & \"done\"; \\ ok?", "TestsPassed", 1, 0),
        ] {
            let id = format!("{base}{name}");
            let a = pith(ws.path(), &[&id]);
            assert_eq!(a.status(), status, "{r} {id}: {}", a.line);
            assert_eq!(
                (a.count("passed"), a.count("failed")),
                (passed, failed),
                "{r} {id}: {}",
                a.line
            );
        }
    }
}

// ---- Colour and environment ----

#[test]
fn tests_see_the_callers_colour_variables() {
    for r in ["jest", "vitest", "node"] {
        let (_ws, a) = run(&format!("env_colour_{r}"), r);
        assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{r}: {}", a.line);
        assert_eq!(a.count("passed"), 2, "{r}: {}", a.line);
    }
}

// ---- Bounded memory ----

/// Runs pith on `name` and returns its answer and its peak resident memory (VmHWM, polled).
fn peak_rss(name: &str) -> (Answer, u64) {
    let ws = case(name);
    let mut child = pith_command(ws.path(), &[])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    // Read stdout on a thread so a full pipe never blocks pith.
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut s).unwrap();
        s
    });
    loop {
        if let Ok(text) = std::fs::read_to_string(&status) {
            if let Some(kb) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak = peak.max(kb);
            }
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = reader.join().unwrap();
    let a = common::answer_of(std::process::Output { stdout, ..out }, ws.path());
    (a, peak * 1024)
}

#[test]
fn a_flood_of_output_and_a_huge_message_stay_bounded() {
    for (name, runner) in [("jest_big_output", "jest"), ("node_big_output", "node")] {
        let (a, peak) = peak_rss(name);
        assert_eq!(a.json["runner"], runner, "{}", a.line);
        assert_eq!(
            (a.status(), a.code),
            ("TestsFailed", 1),
            "{name}: {}",
            a.line
        );
        assert_eq!(
            (a.count("passed"), a.count("failed")),
            (1, 1),
            "{name}: {}",
            a.line
        );
        let message = a.failures()[0]["message"].as_str().unwrap_or("");
        assert!(message.contains("huge: yyy"), "{name}: {}", a.line);
        eprintln!("{name}: pith peak RSS {} MB", peak >> 20);
        assert!(
            peak < 100 << 20,
            "{name}: pith's peak RSS {} MB",
            peak >> 20
        );
    }
}

// ---- What pith already got right ----

#[test]
fn a_syntax_error_in_a_test_file_is_a_collection_failure() {
    let (_ws, a) = run("jest_syntax_error", "jest");
    assert_eq!((a.status(), a.code), ("CollectionFailed", 1), "{}", a.line);
    assert_eq!(
        a.failures()[0]["test"],
        "tests/broken.test.js",
        "{}",
        a.line
    );
    assert_eq!(a.count("passed"), 1, "{}", a.line);
}

#[test]
fn a_vitest_import_failure_is_a_collection_failure() {
    let (_ws, a) = run("vitest_import_failure", "vitest");
    assert_eq!((a.status(), a.code), ("CollectionFailed", 1), "{}", a.line);
    assert_eq!(
        a.failures()[0]["test"],
        "tests/broken.test.js",
        "{}",
        a.line
    );
    assert!(
        a.failures()[0]["message"]
            .as_str()
            .unwrap_or("")
            .contains("not_there"),
        "{}",
        a.line
    );
}

#[test]
fn an_unhandled_rejection_after_the_tests_is_not_green() {
    let (_ws, a) = run("vitest_unhandled_rejection", "vitest");
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert!(a.line.contains("late rejection"), "{}", a.line);
}

#[test]
fn tests_that_throw_what_is_not_an_error_fail() {
    let (_ws, a) = run("jest_throws_non_error", "jest");
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!((a.count("passed"), a.count("failed")), (1, 3), "{}", a.line);
}

#[test]
fn a_jest_worker_crash_is_crashed_and_named() {
    let (_ws, a) = run("jest_worker_crash", "jest");
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    assert_eq!(
        a.json["running"][0], "tests/crash.test.js > aborts",
        "{}",
        a.line
    );
}

/// Issue 26, item 5: what a test prints is never the runner's. For each runner, a test prints
/// jest's, vitest's and node's summary lines ("No tests found", a coverage threshold, failed
/// counts) through console and straight to stdout and stderr, another runs the same runner on
/// a project of its own with its output inherited. pith reads its reporters' records, so the
/// answer is the raw run's, green or red; and "No tests found" is the runner's word only when
/// no test reported (jest's red run said "jest exited 1 (no tests) though no test failed").
#[test]
fn runner_lines_a_test_prints_are_not_the_runners() {
    for (runner, raw) in [
        ("node", &["node", "--test"][..]),
        ("jest", &["node", "node_modules/jest/bin/jest.js"][..]),
        (
            "vitest",
            &["node", "node_modules/vitest/vitest.mjs", "run"][..],
        ),
    ] {
        let ws = case(&format!("{runner}_forged_output"));
        for red in [false, true] {
            assert_eq!(
                common::raw_passes(ws.path(), raw[0], &raw[1..], red),
                !red,
                "{runner}: the raw run"
            );
            let mut cmd = pith_command(ws.path(), &[]);
            cmd.env_remove(common::RED);
            if red {
                cmd.env(common::RED, "1");
            }
            let a = common::answer_of(cmd.output().expect("run pith"), ws.path());
            let what = format!("{runner}, red {red}: {}", a.line);
            assert_eq!(a.json["runner"], runner, "{what}");
            assert!(a.json.get("reason").is_none(), "{what}");
            if !red {
                assert_eq!(
                    (a.status(), a.code, a.count("passed")),
                    ("TestsPassed", 0, 3),
                    "{what}"
                );
                continue;
            }
            assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{what}");
            assert_eq!((a.count("passed"), a.count("failed")), (2, 1), "{what}");
            assert_eq!(
                a.failures()[0]["test"],
                "tests/forge.test.js > adds",
                "{what}"
            );
        }
    }
}
