//! The verdict corpus for Rust: each hostile case (tests/fixtures/verdicts/rust/<case>/) run by
//! the real runners through the real `pith` binary, through cargo-nextest and plain
//! `cargo test` alike, asserting the verdict: status, exit code, the counts and the fields that
//! explain it. The false greens of issue 11 (a failing `harness = false` target, a failing
//! doctest under nextest, a test that ends its process with exit 0, colour variables pith
//! changed) sit beside cases pith already got right (aborts, segfaults, build scripts,
//! `#[should_panic]`, ids that look like options or shell).

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{fixture, frames, pith, Answer};

const PATHS: [&str; 2] = ["nextest", "cargo"];

fn case(name: &str) -> common::Fixture {
    fixture(&format!("verdicts/rust/{name}"))
}

fn run(name: &str, path: &str, extra: &[&str]) -> Answer {
    let ws = case(name);
    pith(ws.path(), &[&["--runner", path], extra].concat())
}

/// `pith test` with the caller's environment changed: `Some` sets, `None` removes.
fn pith_env(root: &Path, args: &[&str], env: &[(&str, Option<&str>)]) -> Answer {
    let mut cmd = command(root, args);
    for (k, v) in env {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    common::answer_of(cmd.output().expect("run pith"), root)
}

fn command(root: &Path, args: &[&str]) -> Command {
    let mut cmd = common::bare();
    cmd.arg("test")
        .arg("--root")
        .arg(root)
        .args(args)
        .current_dir(root)
        .env("CARGO_TARGET_DIR", common::shared_target());
    cmd
}

/// `pith test` and the peak resident memory of the pith process itself (kB), polled from
/// /proc while it runs.
fn pith_peak_rss(root: &Path, args: &[&str]) -> (Answer, u64) {
    let mut child = command(root, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run pith");
    let status = format!("/proc/{}/status", child.id());
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut o = Vec::new();
        let mut e = Vec::new();
        use std::io::Read;
        let t = std::thread::spawn(move || {
            let _ = err.read_to_end(&mut e);
            e
        });
        let _ = out.read_to_end(&mut o);
        (o, t.join().unwrap())
    });
    let mut peak = 0;
    while child.try_wait().unwrap().is_none() {
        if let Ok(s) = std::fs::read_to_string(&status) {
            if let Some(kb) = s
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak = peak.max(kb);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let status = child.wait().unwrap();
    let (stdout, stderr) = reader.join().unwrap();
    let a = common::answer_of(
        std::process::Output {
            status,
            stdout,
            stderr,
        },
        root,
    );
    (a, peak)
}

#[test]
fn failing_harness_free_targets_are_named_and_never_green() {
    for path in PATHS {
        let ws = case("harness_false");
        let a = pith(ws.path(), &["--runner", path]);
        assert_eq!(
            (a.status(), a.code),
            ("TestsFailed", 1),
            "{path}: {}",
            a.line
        );
        // The unit test and `checks_ok` passed; `checks_fail` and `checks_panic` did not.
        assert_eq!(
            (a.json["passed"].as_u64(), a.json["failed"].as_u64()),
            (Some(2), Some(2)),
            "{path}: {}",
            a.line
        );
        let f = a.failure("hfalse::checks_fail");
        assert_eq!(
            f["message"], "check failed: expected 2, got 1",
            "{}",
            a.line
        );
        let p = a.failure("hfalse::checks_panic");
        assert!(
            p["message"]
                .as_str()
                .unwrap()
                .contains("the answer drifted"),
            "{}",
            a.line
        );
        assert!(
            frames(p)[0].starts_with("tests/checks_panic.rs:5"),
            "{}",
            a.line
        );
        // The target's own words are its failure's message; the tail does not say them again.
        assert!(
            !a.json["tail"]
                .as_str()
                .is_some_and(|t| t.contains("check failed: expected 2, got 1")),
            "said once: {}",
            a.line
        );
        // Its id re-runs it, whole.
        let again = pith(ws.path(), &["--runner", path, "hfalse::checks_fail"]);
        assert_eq!(
            (again.status(), again.json["failed"].as_u64()),
            ("TestsFailed", Some(1)),
            "{path}: {}",
            again.line
        );
        let ok = pith(ws.path(), &["--runner", path, "hfalse::checks_ok"]);
        assert_eq!(
            (ok.status(), ok.code, ok.json["passed"].as_u64()),
            ("TestsPassed", 0, Some(1)),
            "{path}: {}",
            ok.line
        );
    }
}

#[test]
fn harness_free_target_that_ignores_list_is_never_green() {
    // plain cargo runs it and it fails; nextest cannot list it and runs nothing.
    let a = run("harness_false_unlisted", "cargo", &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(
        a.failure("hfunlisted::custom")["message"],
        "custom check failed: expected 2, got 1"
    );
    let a = run("harness_false_unlisted", "nextest", &[]);
    assert_eq!((a.status(), a.code), ("CollectionFailed", 1), "{}", a.line);
    let tail = a.json["tail"].as_str().unwrap_or_default();
    assert!(
        tail.contains("hfunlisted::custom") && tail.contains("custom check failed"),
        "{}",
        a.line
    );
}

#[test]
fn failing_doctest_is_red_under_nextest_as_under_cargo() {
    for path in PATHS {
        let ws = case("doctest_fails");
        let a = pith(ws.path(), &["--runner", path]);
        assert_eq!(
            (a.status(), a.code),
            ("TestsFailed", 1),
            "{path}: {}",
            a.line
        );
        assert_eq!(
            (a.json["passed"].as_u64(), a.json["failed"].as_u64()),
            (Some(1), Some(1)),
            "{path}: {}",
            a.line
        );
        let id = "docfail::doc src/lib.rs - add (line 3)";
        a.failure(id);
        let again = pith(ws.path(), &["--runner", path, id]);
        assert_eq!(
            (again.status(), again.json["failed"].as_u64()),
            ("TestsFailed", Some(1)),
            "{path}: {}",
            again.line
        );
        // Passing doctests count with the rest.
        let g = run("doctest_passes", path, &[]);
        assert_eq!(
            (g.status(), g.code, g.json["passed"].as_u64()),
            ("TestsPassed", 0, Some(2)),
            "{path}: {}",
            g.line
        );
    }
}

#[test]
fn a_panic_after_a_long_log_keeps_its_message() {
    for path in PATHS {
        let a = run("log_then_panic", path, &[]);
        assert_eq!(
            (a.status(), a.code),
            ("TestsFailed", 1),
            "{path}: {}",
            a.line
        );
        let f = a.failure("loglong tests::logs_then_panics");
        assert_eq!(f["message"], "the real reason", "{path}: {}", a.line);
        assert!(
            frames(f)[0].starts_with("src/lib.rs:14"),
            "{path}: {}",
            a.line
        );
    }
}

#[test]
fn a_hundred_megabytes_of_output_stay_out_of_pith() {
    for path in PATHS {
        let ws = case("huge_output");
        let (a, peak_kb) = pith_peak_rss(ws.path(), &["--runner", path]);
        assert_eq!(
            (a.status(), a.code),
            ("TestsFailed", 1),
            "{path}: {}",
            a.line
        );
        assert_eq!(
            a.failure("huge tests::floods_then_fails")["message"],
            "flooded"
        );
        // The binary that ran after the flood was read too.
        assert!(
            a.failure("huge::after after_the_flood")["message"]
                .as_str()
                .unwrap()
                .contains("seen after the flood"),
            "{}",
            a.line
        );
        assert!(
            peak_kb < 100 * 1024,
            "{path}: pith peaked at {peak_kb} kB on 100 MB of output"
        );
    }
}

#[test]
fn exit_zero_inside_a_test_is_never_green() {
    // Plain cargo: the binary ended mid-run; the tests it never reported were running.
    let a = run("exit_zero_in_test", "cargo", &[]);
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    assert!(
        a.json["running"].as_array().is_some_and(|r| r
            .iter()
            .any(|t| t == "exitzero tests::b_exits_zero_before_its_assertion")),
        "{}",
        a.line
    );
    // How many reported before the exit depends on libtest's threads.
    let reason = a.json["reason"].as_str().unwrap_or_default();
    assert!(
        reason.starts_with("exitzero exited 0 with ")
            && reason.ends_with(" of its 2 tests unreported"),
        "{}",
        a.line
    );
    // nextest: the test's own process exited 0 before libtest reported it; nextest calls
    // that a pass.
    let a = run("exit_zero_in_test", "nextest", &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(
        (a.json["passed"].as_u64(), a.json["failed"].as_u64()),
        (Some(1), Some(1)),
        "{}",
        a.line
    );
    assert!(
        a.failure("exitzero tests::b_exits_zero_before_its_assertion")["message"]
            .as_str()
            .unwrap()
            .contains("exited 0 before libtest reported"),
        "{}",
        a.line
    );
}

/// Issue 26, item 5: what a test prints is never the runner's. One test writes a whole libtest
/// block, a cargo JSON error and a cargo announcement straight to its stdout and stderr (past
/// libtest's capture, as trybuild does), another runs `cargo test` on a crate of its own with
/// its output inherited (its failure and its `error: test failed` included). The answer is the
/// raw `cargo test`'s verdict with the fixture's own four tests, green or red, under either
/// runner, on one test thread (where libtest's `test NAME ... ` and its verdict are two
/// writes others land between) as on several.
#[test]
fn runner_lines_a_test_prints_are_not_the_runners() {
    let ws = case("forged_output");
    for red in [false, true] {
        let raw = Command::new("cargo")
            .args(["test", "--offline"])
            .current_dir(ws.path())
            .env("CARGO_TARGET_DIR", common::shared_target())
            .env_remove(common::RED)
            .envs(red.then_some((common::RED, "1")))
            .output()
            .expect("run cargo test");
        assert_eq!(raw.status.success(), !red, "the raw run");
        let runs: [(&str, Option<&str>); 3] =
            [("cargo", None), ("cargo", Some("1")), ("nextest", None)];
        for (path, threads) in runs {
            let env = [
                (common::RED, red.then_some("1")),
                ("RUST_TEST_THREADS", threads),
            ];
            let a = pith_env(ws.path(), &["--runner", path], &env);
            let what = format!("{path}, red {red}, threads {threads:?}: {}", a.line);
            if !red {
                assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{what}");
                assert_eq!(a.json["passed"].as_u64(), Some(4), "{what}");
                continue;
            }
            assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{what}");
            assert_eq!(
                (a.json["passed"].as_u64(), a.json["failed"].as_u64()),
                (Some(3), Some(1)),
                "{what}"
            );
            let f = a.failure("forge tests::real_failure");
            assert!(
                f["message"].as_str().unwrap().contains("real failure"),
                "{what}"
            );
            assert!(frames(f)[0].starts_with("src/lib.rs:"), "{what}");
            assert!(a.json.get("reason").is_none(), "{what}");
        }
    }
}

/// A project whose cargo configuration keeps it quiet (`term.quiet`: no `Running` lines,
/// libtest's terse dots) with edition 2024 doctests (rustdoc prints a block for the merged
/// ones and one for the rest): every test counted, green as `cargo test` says.
#[test]
fn quiet_cargo_and_edition_2024_doctests_are_read_whole() {
    for path in PATHS {
        let a = run("quiet_doctests_2024", path, &[]);
        assert_eq!(
            (a.status(), a.code),
            ("TestsPassed", 0),
            "{path}: {}",
            a.line
        );
        // The unit test, three doctests that ran, one ignored.
        assert_eq!(
            (a.json["passed"].as_u64(), a.json["skipped"].as_u64()),
            (Some(4), Some(1)),
            "{path}: {}",
            a.line
        );
    }
}

#[test]
fn segfault_is_a_crash() {
    for path in PATHS {
        let a = run("segfault", path, &[]);
        assert_eq!((a.status(), a.code), ("Crashed", 1), "{path}: {}", a.line);
        assert!(a.line.contains("SIGSEGV"), "{path}: {}", a.line);
        assert!(
            a.line.contains("segv tests::segfaults"),
            "{path}: {}",
            a.line
        );
    }
}

#[test]
fn tests_see_the_callers_colour_environment_and_may_set_backtraces() {
    let env: &[(&str, Option<&str>)] = &[
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
    for path in PATHS {
        let ws = case("environment");
        let a = pith_env(ws.path(), &["--runner", path], env);
        // Only the test that fails on purpose fails; the colour test saw the caller's world.
        assert_eq!(
            (a.status(), a.code),
            ("TestsFailed", 1),
            "{path}: {}",
            a.line
        );
        assert_eq!(
            (a.json["passed"].as_u64(), a.json["failed"].as_u64()),
            (Some(2), Some(1)),
            "{path}: {}",
            a.line
        );
        let f = a.failure("environment tests::sets_backtrace_then_fails");
        assert_eq!(
            f["message"],
            "assertion `left == right` failed: depth changed (left: 7, right: 8)"
        );
        assert!(
            frames(f)[0].starts_with("src/lib.rs:21"),
            "{path}: {}",
            a.line
        );
    }
}

#[test]
fn ids_are_never_options_nor_shell() {
    for path in PATHS {
        let ws = case("ids");
        common::assert_not_found(
            ws.path(),
            &["--runner", path, "--"],
            &[
                "-x",
                "--help",
                "--list",
                "ids -x",
                "-x tests::ok",
                "ids --exact",
            ],
        );
        let odd = [
            "ids tests::a;touch pwned",
            "ids tests::$(touch pwned)",
            "ids tests::`touch pwned`",
            "ids tests::a|b&c>pwned",
            "ids tests::it's \"quoted\"",
            "ids tests::a,b)c\\d/e",
        ];
        let a = pith(
            ws.path(),
            &[&["--runner", path, "ids tests::ok"][..], &odd].concat(),
        );
        assert_eq!(
            (a.status(), a.code),
            ("TestsNotFound", 1),
            "{path}: {}",
            a.line
        );
        assert_eq!(a.json["passed"].as_u64(), Some(1), "{path}: {}", a.line);
        let mut nf: Vec<&str> = a.json["notFound"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        nf.sort_unstable();
        let mut want = odd.to_vec();
        want.sort_unstable();
        assert_eq!(nf, want, "{path}: {}", a.line);
        assert!(!ws.path().join("pwned").exists(), "an id reached a shell");
    }
}

#[test]
fn failing_build_script_is_build_failed_with_its_words() {
    for path in PATHS {
        let a = run("build_script_fails", path, &[]);
        assert_eq!(
            (a.status(), a.code),
            ("BuildFailed", 1),
            "{path}: {}",
            a.line
        );
        assert!(
            a.json["tail"]
                .as_str()
                .is_some_and(|t| t.contains("generator input missing: schema.json")),
            "{path}: {}",
            a.line
        );
    }
}

#[test]
fn should_panic_passes_when_it_panics_and_says_why_when_not() {
    for path in PATHS {
        let a = run("should_panic", path, &[]);
        assert_eq!(
            (a.status(), a.code),
            ("TestsFailed", 1),
            "{path}: {}",
            a.line
        );
        assert_eq!(
            (a.json["passed"].as_u64(), a.json["failed"].as_u64()),
            (Some(1), Some(2)),
            "{path}: {}",
            a.line
        );
        assert_eq!(
            a.failure("shouldpanic tests::panics_otherwise")["message"],
            "panic did not contain expected string (panic message: \"bang\", expected substring: \"boom\")"
        );
        let none = a.failure("shouldpanic tests::does_not_panic");
        assert_eq!(none["message"], "test did not panic as expected");
    }
}

#[test]
fn cargo_workspace_in_a_subdirectory_answers_with_workspace_paths() {
    for path in PATHS {
        let ws = case("cargo_in_subdir");
        let a = pith(ws.path(), &["--runner", path]);
        assert_eq!(
            (a.status(), a.code),
            ("TestsFailed", 1),
            "{path}: {}",
            a.line
        );
        let f = a.failure("subdir tests::halves");
        assert!(
            frames(f)[0].starts_with("rust/src/lib.rs:9 "),
            "{path}: {}",
            a.line
        );
        common::assert_reruns_only(ws.path(), &["--runner", path], &a, 0, &[]);
    }
}

#[test]
fn nested_cargo_workspace_runs_as_its_own_project() {
    for path in PATHS {
        let a = run("nested_workspace", path, &[]);
        assert_eq!(
            (a.status(), a.code),
            ("TestsFailed", 1),
            "{path}: {}",
            a.line
        );
        assert_eq!(
            (a.json["passed"].as_u64(), a.json["failed"].as_u64()),
            (Some(1), Some(1)),
            "{path}: {}",
            a.line
        );
        let f = a.failure("inner tests::triples");
        assert!(
            frames(f)[0].starts_with("tools/inner/src/lib.rs:9 "),
            "{path}: {}",
            a.line
        );
        let runs = a.json["runs"].as_array().expect("two projects ran");
        assert!(
            runs.iter().any(|r| r["dir"] == "tools/inner"),
            "{path}: {}",
            a.line
        );
    }
}

/// The caller's backtrace and cargo variables, as a developer who keeps `RUST_BACKTRACE=1`
/// and a quiet cargo in their shell has them.
const CALLERS_ENV: &[(&str, Option<&str>)] = &[
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

#[test]
fn backtraces_and_cargos_reporting_stay_the_callers() {
    // pith used to set RUST_BACKTRACE=0 and remove CARGO_TERM_QUIET: a test that checks the
    // backtraces its errors capture failed under pith and passed by hand.
    for path in PATHS {
        let ws = case("environment");
        let raw_argv: &[&str] = if path == "nextest" {
            &["cargo", "nextest", "run", "--no-fail-fast"]
        } else {
            &["cargo", "test", "--no-fail-fast"]
        };
        let raw = common::raw(ws.path(), raw_argv, CALLERS_ENV);
        assert!(
            !raw.green()
                && !raw
                    .output
                    .contains("backtrace_and_cargo_env_are_the_callers ... FAILED"),
            "{path}: by hand only the test that fails on purpose fails: {}",
            raw.output
        );
        let a = pith_env(ws.path(), &["--runner", path], CALLERS_ENV);
        assert_eq!(a.tally(), ("TestsFailed", 2, 1), "{path}: {}", a.line);
        // The run printed its backtraces: the frames are its own, no re-run needed.
        let f = a.failure("environment tests::sets_backtrace_then_fails");
        assert!(
            frames(f)[0].starts_with("src/lib.rs:21"),
            "{path}: {}",
            a.line
        );
    }
}

#[test]
fn uncaptured_test_output_is_captured_again_without_changing_a_verdict() {
    // RUST_TEST_NOCAPTURE is the one variable pith takes away (libtest would print a failed
    // test's panic outside its block): the suite answers as it does by hand with it set.
    let env: &[(&str, Option<&str>)] = &[("RUST_TEST_NOCAPTURE", Some("1"))];
    let ws = case("log_then_panic");
    let raw = common::raw(ws.path(), &["cargo", "test"], env);
    assert!(
        raw.output
            .contains("test result: FAILED. 1 passed; 1 failed"),
        "{}",
        raw.output
    );
    let a = pith_env(ws.path(), &["--runner", "cargo"], env);
    assert_eq!(a.tally(), ("TestsFailed", 1, 1), "{}", a.line);
    assert_eq!(
        a.failure("loglong tests::logs_then_panics")["message"],
        "the real reason"
    );
}

/// What runs is the runner the project declares: `cargo test`, or nextest where the workspace
/// has nextest's configuration. A setting initialised once per process, by each test as its
/// setup, fails under `cargo test` (one process a test binary) and passes under nextest (a
/// process a test): each answer is its own raw command's.
#[test]
fn the_declared_runner_answers_as_its_raw_command() {
    let ws = case("shared_state");
    let raw = common::raw(ws.path(), &["cargo", "test"], &[]);
    assert_eq!(raw.code, Some(101), "{}", raw.output);
    let a = pith(ws.path(), &[]);
    assert_eq!(
        (
            a.json["runner"].as_str(),
            a.status(),
            a.json["passed"].as_u64(),
            a.json["failed"].as_u64()
        ),
        (Some("cargo"), "TestsFailed", Some(1), Some(1)),
        "{}",
        a.line
    );
    assert!(
        a.failures()[0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("settings are initialised once per process")),
        "{}",
        a.line
    );

    // The project declares nextest.
    std::fs::create_dir_all(ws.path().join(".config")).unwrap();
    std::fs::write(
        ws.path().join(".config/nextest.toml"),
        "[profile.default]\nfail-fast = false\n",
    )
    .unwrap();
    let raw = common::raw(ws.path(), &["cargo", "nextest", "run"], &[]);
    assert!(raw.green(), "{}", raw.output);
    let a = pith(ws.path(), &[]);
    assert_eq!(
        (
            a.json["runner"].as_str(),
            a.status(),
            a.code,
            a.json["passed"].as_u64()
        ),
        (Some("nextest"), "TestsPassed", 0, Some(2)),
        "{}",
        a.line
    );
    // `--runner` still chooses.
    let a = pith(ws.path(), &["--runner", "cargo"]);
    assert_eq!(a.status(), "TestsFailed", "{}", a.line);
}

#[test]
fn the_projects_nextest_profile_still_decides_what_fails() {
    // `slow-timeout` with `terminate-after` in the project's profile: a test slower than that
    // fails under `cargo nextest run`. pith's own profile used to replace the setting, and the
    // test passed.
    let ws = case("nextest_terminate");
    let raw = common::raw(ws.path(), &["cargo", "nextest", "run"], &[]);
    assert_eq!(raw.code, Some(100), "{}", raw.output);
    assert!(raw.output.contains("TIMEOUT"), "{}", raw.output);
    let a = pith(ws.path(), &[]);
    assert_eq!(
        (
            a.json["runner"].as_str(),
            a.status(),
            a.json["passed"].as_u64(),
            a.json["failed"].as_u64()
        ),
        (Some("nextest"), "TestsFailed", Some(1), Some(1)),
        "{}",
        a.line
    );
    let f = a.failure("nxterminate tests::too_slow");
    assert!(
        f["message"].as_str().unwrap().contains("slow-timeout"),
        "{}",
        a.line
    );
}

/// `cargo test` in a workspace runs its default members; in a root package, that package
/// alone. A member left out fails on purpose: by hand the suite is green, and so is pith's
/// answer, under either runner; the member is still there to run by id.
#[test]
fn only_the_default_members_run_as_cargo_runs_them() {
    for path in PATHS {
        let ws = case("default_members");
        let raw_argv: &[&str] = if path == "nextest" {
            &["cargo", "nextest", "run"]
        } else {
            &["cargo", "test"]
        };
        let raw = common::raw(ws.path(), raw_argv, &[]);
        assert!(raw.green(), "{path}: {}", raw.output);
        let a = pith(ws.path(), &["--runner", path]);
        assert_eq!(
            (a.status(), a.code, a.json["passed"].as_u64()),
            ("TestsPassed", 0, Some(2)),
            "{path}: {}",
            a.line
        );
        assert!(a.json.get("runs").is_none(), "one project: {}", a.line);
        let member = pith(
            ws.path(),
            &["--runner", path, "bench_harness tests::machine_is_ready"],
        );
        assert_eq!(
            (member.status(), member.json["failed"].as_u64()),
            ("TestsFailed", Some(1)),
            "{path}: {}",
            member.line
        );
    }
    let ws = case("root_package");
    let raw = common::raw(ws.path(), &["cargo", "test"], &[]);
    assert!(raw.green(), "{}", raw.output);
    let a = pith(ws.path(), &[]);
    assert_eq!(
        (a.status(), a.json["passed"].as_u64()),
        ("TestsPassed", Some(1)),
        "{}",
        a.line
    );
}
