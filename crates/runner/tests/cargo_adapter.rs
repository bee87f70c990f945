//! The cargo adapter against real fixture projects (tests/fixtures/rust), through both paths:
//! cargo-nextest (must be installed: these tests fail without it, they never skip) and plain
//! `cargo test`. Each run copies its fixture to a temp dir, so no `target/` lands in the repo.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use pith_model::{BuildError, Exit, ExitMeaning, Run, Status};
use pith_runner::cargo::{self, Cargo};
use pith_runner::Adapter;
use pith_testkit::{Fixture, Runs};

const BOTH: [bool; 2] = [true, false];

fn fixture(name: &str) -> Fixture {
    pith_testkit::fixture_at(&format!("rust/{name}"), name)
}

fn adapter(nextest: bool) -> Cargo {
    if nextest {
        assert!(
            cargo::nextest_installed(),
            "cargo-nextest is not installed: cargo install cargo-nextest --locked"
        );
    }
    Cargo::with_nextest(nextest)
}

fn run_in(f: &Fixture, nextest: bool, tests: &[&str], deadline: Duration) -> Run {
    run_at(f.path(), f.path(), nextest, tests, deadline)
}

/// Runs the project in `dir`, answering for the workspace at `root`.
fn run_at(root: &Path, dir: &Path, nextest: bool, tests: &[&str], deadline: Duration) -> Run {
    let run = Runs::in_dir(root, dir).run(&adapter(nextest), tests, deadline);
    assert_eq!(run.runner, if nextest { "nextest" } else { "cargo" });
    if !nextest && run.exit.is_some() {
        assert_eq!(run.lacks.as_deref(), Some("isolation"));
    }
    run
}

fn run(name: &str, nextest: bool, tests: &[&str]) -> Run {
    run_in(&fixture(name), nextest, tests, Duration::from_secs(300))
}

fn ids(run: &Run) -> Vec<&str> {
    let mut v: Vec<&str> = run.failures.iter().map(|f| f.test.as_str()).collect();
    v.sort();
    v
}

fn project_frames(run: &Run, test: &str) -> Vec<String> {
    run.failures
        .iter()
        .find(|f| f.test == test)
        .unwrap_or_else(|| panic!("no failure {test} in {run:#?}"))
        .project_frames()
        .map(|f| f.location())
        .collect()
}

#[test]
fn detects_cargo_and_picks_nextest_where_the_workspace_declares_it() {
    let f = fixture("green");
    assert!(
        cargo::nextest_installed(),
        "cargo-nextest must be installed"
    );
    // Installed is not declared: `cargo test` is the command every cargo project has.
    assert_eq!(cargo::detect(f.path()).unwrap().name(), "cargo");
    assert!(!cargo::declares_nextest(f.path()));
    std::fs::create_dir_all(f.path().join(".config")).unwrap();
    std::fs::write(f.path().join(cargo::NEXTEST_CONFIG), "").unwrap();
    assert!(cargo::declares_nextest(f.path()));
    assert_eq!(cargo::detect(f.path()).unwrap().name(), "nextest");
    assert!(cargo::detect(f.path().join("src").as_path()).is_none());
    assert_eq!(Cargo::with_nextest(false).name(), "cargo");
}

#[test]
fn single_failure_with_helper_and_test_frames() {
    for nextest in BOTH {
        let run = run("single", nextest, &[]);
        assert_eq!(run.status(), Status::TestsFailed, "{run:#?}");
        assert_eq!(run.failed, 1);
        assert_eq!(run.skipped, 1);
        // The doctest runs too: nextest cannot run it, `cargo test --doc` does after it.
        assert_eq!(run.passed, 3, "{run:#?}");
        assert_eq!(
            run.exit,
            Some(Exit::new(
                if nextest { 100 } else { 101 },
                ExitMeaning::Failed
            ))
        );
        assert_eq!(ids(&run), ["single tests::off_by_one"]);
        let f = &run.failures[0];
        assert_eq!(
            f.message,
            "assertion `left == right` failed (left: 4, right: 5)"
        );
        assert_eq!(f.kind.as_deref(), Some("panic"));
        assert_eq!(
            project_frames(&run, "single tests::off_by_one"),
            ["src/lib.rs:34", "src/lib.rs:11"],
            "nextest: {nextest}"
        );
        let top = f.top_project_frame().unwrap();
        assert_eq!(top.code.as_deref(), Some("assert_eq!(add(a, b), want);"));
        // Library frames are kept, outside the project, in their short form.
        assert!(f
            .frames
            .iter()
            .any(|fr| !fr.project && fr.file.starts_with("library/")));
        assert!(run.not_found.is_empty() && run.running.is_empty());
    }
}

#[test]
fn rerunning_one_id_runs_exactly_that_test() {
    for nextest in BOTH {
        let run = run("single", nextest, &["single tests::off_by_one"]);
        assert_eq!((run.passed, run.failed, run.skipped), (0, 1, 0), "{run:#?}");
        assert_eq!(ids(&run), ["single tests::off_by_one"]);
        assert!(run.not_found.is_empty());
    }
}

#[test]
fn unknown_ids_are_not_found_and_the_rest_runs() {
    for nextest in BOTH {
        let run = run(
            "single",
            nextest,
            &[
                "single tests::adds",
                "single tests::nope",
                "ghost tests::x",
                "single::doc src/lib.rs - add (line 3)",
                "not-an-id",
            ],
        );
        assert_eq!((run.passed, run.failed), (2, 0), "{run:#?}");
        let mut nf = run.not_found.clone();
        nf.sort();
        assert_eq!(nf, ["ghost tests::x", "not-an-id", "single tests::nope"]);
        assert_eq!(run.status(), Status::TestsNotFound);
    }
}

#[test]
fn a_doctest_panic_points_into_its_doc_comment() {
    // rustdoc prints the assert at line 10 as `src/lib.rs:8` (its line in the program it wraps
    // the block in); the answer names the doc comment's line, whichever drive ran it.
    for nextest in BOTH {
        let run = run("doctest_frame", nextest, &[]);
        assert_eq!((run.passed, run.failed), (2, 1), "{run:#?}");
        let id = "doctest_frame::doc src/lib.rs - mean (line 6)";
        assert_eq!(project_frames(&run, id), ["src/lib.rs:10"]);
        let f = run.failures.iter().find(|f| f.test == id).unwrap();
        let at = f.project_frames().last().unwrap();
        assert_eq!(
            at.code.as_deref(),
            Some("/// assert_eq!(m, 3.0, \"mean of {xs:?}\");")
        );
    }
}

#[test]
fn a_std_panic_cluster_has_its_smallest_id_rerun_for_a_place() {
    // Twenty-nine panics inside `Vec::drain` through one library function: without a
    // backtrace none names a project line. Eight single faults come first in id order (eight
    // distinct places, as many as there are re-runs): the biggest cause is re-run first, its
    // member with the smallest id, and gets the library line, on both drives.
    for nextest in BOTH {
        let run = run("std_panic", nextest, &[]);
        assert_eq!((run.passed, run.failed), (1, 37), "{run:#?}");
        assert_eq!(
            project_frames(&run, "std_panic tests::drops_00"),
            ["src/lib.rs:78", "src/lib.rs:7"]
        );
        // The others of the cause keep phase 1's frame, inside the standard library.
        assert!(project_frames(&run, "std_panic tests::drops_01").is_empty());
        let f = run
            .failures
            .iter()
            .find(|f| f.test == "std_panic tests::drops_00")
            .unwrap();
        assert!(
            f.message.starts_with("range end index 4 out of range"),
            "{f:?}"
        );
    }
}

#[test]
fn workspace_frames_cross_crates() {
    for nextest in BOTH {
        let run = run("workspace", nextest, &[]);
        assert_eq!(run.status(), Status::TestsFailed, "{run:#?}");
        assert_eq!((run.passed, run.failed), (3, 2));
        assert_eq!(ids(&run), ["b tests::bad_addr", "b::api public_api_fails"]);
        let bad = run
            .failures
            .iter()
            .find(|f| f.test == "b tests::bad_addr")
            .unwrap();
        assert_eq!(bad.message, "not a port: ParseIntError { kind: Empty }");
        assert_eq!(
            project_frames(&run, "b tests::bad_addr"),
            [
                "crates/b/src/lib.rs:15",
                "crates/b/src/lib.rs:3",
                "crates/a/src/lib.rs:2"
            ]
        );
        let api = run
            .failures
            .iter()
            .find(|f| f.test == "b::api public_api_fails")
            .unwrap();
        assert_eq!(api.message, "port mismatch");
        assert_eq!(
            project_frames(&run, "b::api public_api_fails"),
            ["crates/b/tests/api.rs:8"]
        );
        // Re-run the integration test by its id.
        let again = run_in(
            &fixture("workspace"),
            nextest,
            &["b::api public_api", "b tests::good_addr"],
            Duration::from_secs(300),
        );
        assert_eq!((again.passed, again.failed), (2, 0), "{again:#?}");
        assert_eq!(again.status(), Status::TestsPassed);
    }
}

#[test]
fn green_passes() {
    for nextest in BOTH {
        let run = run("green", nextest, &[]);
        assert_eq!(run.status(), Status::TestsPassed, "{run:#?}");
        assert_eq!((run.passed, run.failed, run.skipped), (2, 0, 0));
        assert_eq!(run.exit, Some(Exit::new(0, ExitMeaning::Passed)));
        assert_eq!(run.selected, Some(2));
    }
}

#[test]
fn project_in_a_subdirectory_runs_there_with_workspace_paths() {
    for nextest in BOTH {
        // A workspace root with no marker, the Cargo project in `rust/`. Renamed: copies of
        // one package in the shared target dir get the same binaries, and other tests run
        // `single` at the same time.
        let f = fixture("single");
        let root = f.path().parent().unwrap().join("ws");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::rename(f.path(), root.join("rust")).unwrap();
        for file in ["Cargo.toml", "src/lib.rs"] {
            let p = root.join("rust").join(file);
            let text = std::fs::read_to_string(&p).unwrap();
            std::fs::write(&p, text.replace("single", "single_sub")).unwrap();
        }
        let run = run_at(
            &root,
            &root.join("rust"),
            nextest,
            &[],
            Duration::from_secs(300),
        );
        assert_eq!(run.status(), Status::TestsFailed, "{run:#?}");
        assert_eq!(
            project_frames(&run, "single_sub tests::off_by_one"),
            ["rust/src/lib.rs:34", "rust/src/lib.rs:11"]
        );
        let again = run_at(
            &root,
            &root.join("rust"),
            nextest,
            &["single_sub tests::off_by_one"],
            Duration::from_secs(300),
        );
        assert_eq!((again.passed, again.failed), (0, 1), "{again:#?}");
    }
}

#[test]
fn ids_that_look_like_options_never_reach_the_runner() {
    for nextest in BOTH {
        let ids = [
            "-x",
            "--help",
            "single --help",
            "-p tests::adds",
            "single -x",
        ];
        let run = run("single", nextest, &ids);
        assert_eq!(run.status(), Status::TestsNotFound, "{run:#?}");
        assert_eq!(run.not_found, ids, "{run:#?}");
        assert_eq!(run.passed + run.failed + run.skipped, 0, "{run:#?}");
        assert_eq!(run.exit, None, "nothing ran: {run:#?}");
    }
}

#[test]
fn fifty_failures_through_one_helper() {
    for nextest in BOTH {
        let run = run("helper50", nextest, &[]);
        assert_eq!(run.failed, 50, "{run:#?}");
        assert_eq!(run.failures.len(), 50);
        for f in &run.failures {
            assert!(
                f.message
                    .starts_with("assertion `left == right` failed: bad checksum (left: "),
                "{}",
                f.message
            );
            assert_eq!(f.top_project_frame().unwrap().location(), "src/lib.rs:6");
        }
        assert!(run
            .failures
            .iter()
            .any(|f| f.test == "helper50 tests::case_07"
                && f.message.ends_with("(left: 8, right: 7)")));
    }
}

#[test]
fn hundred_distinct_failures() {
    for nextest in BOTH {
        let run = run("distinct100", nextest, &[]);
        assert_eq!(run.failed, 100, "{run:#?}");
        let mut tops: Vec<String> = run
            .failures
            .iter()
            .map(|f| f.top_project_frame().unwrap().location())
            .collect();
        tops.sort();
        tops.dedup();
        assert_eq!(tops.len(), 100);
        let f = run
            .failures
            .iter()
            .find(|f| f.test == "distinct100 tests::t042")
            .unwrap();
        assert_eq!(f.message, "case 42 too small");
        assert_eq!(f.top_project_frame().unwrap().location(), "src/lib.rs:44");
    }
}

#[test]
fn compile_error_is_reported_once() {
    for nextest in BOTH {
        let run = run("compile_error", nextest, &[]);
        assert_eq!(run.status(), Status::BuildFailed, "{run:#?}");
        assert_eq!(
            run.build_errors,
            [BuildError {
                file: Some("src/lib.rs".into()),
                line: Some(2),
                code: Some("E0308".into()),
                message: "mismatched types: expected `u32`, found `&str`".into(),
            }]
        );
        assert_eq!(run.passed + run.failed, 0);
    }
}

#[test]
fn a_macro_error_is_told_at_its_call_with_its_definition() {
    // rustc's primary span is the macro's definition (macros.rs); its expansion names the
    // call in lib.rs, the code that broke it.
    for nextest in BOTH {
        let run = run("macro_error", nextest, &[]);
        assert_eq!(run.status(), Status::BuildFailed, "{run:#?}");
        assert_eq!(run.build_errors.len(), 1, "{run:#?}");
        let e = &run.build_errors[0];
        assert_eq!(
            (e.file.as_deref(), e.line),
            (Some("src/lib.rs"), Some(8)),
            "{e:?}"
        );
        assert!(
            e.message
                .ends_with("(macro twice! defined at src/macros.rs:6)"),
            "{e:?}"
        );
    }
}

#[test]
fn build_failure_without_compiler_message_keeps_a_tail() {
    for nextest in BOTH {
        let f = fixture("green");
        let manifest = f.path().join("Cargo.toml");
        let mut text = std::fs::read_to_string(&manifest).unwrap();
        text = text.replace(
            "[workspace]",
            "[dependencies]\nmissing = { path = \"../does-not-exist\" }\n\n[workspace]",
        );
        std::fs::write(&manifest, text).unwrap();
        let run = run_in(&f, nextest, &[], Duration::from_secs(300));
        assert_eq!(run.status(), Status::BuildFailed, "{run:#?}");
        assert!(run.build_errors.is_empty());
        let tail = run.tail.as_deref().unwrap();
        assert!(tail.contains("does-not-exist"), "{tail}");
        assert!(!tail.contains(f.path().to_str().unwrap()), "{tail}");
    }
}

#[test]
fn abort_is_a_crash() {
    for nextest in BOTH {
        let run = run("crash", nextest, &[]);
        assert_eq!(run.status(), Status::Crashed, "{run:#?}");
        assert!(run.tail.as_deref().unwrap().contains("SIGABRT"), "{run:#?}");
        if nextest {
            // nextest isolates the test: the failure is kept, the other test passed.
            assert_eq!((run.passed, run.failed), (1, 1));
            assert_eq!(ids(&run), ["crash tests::aborts"]);
            assert!(run.failures[0].message.contains("SIGABRT"));
        } else {
            // The whole binary died: whatever had not reported was running.
            assert!(
                run.running.contains(&"crash tests::aborts".to_string()),
                "{run:#?}"
            );
        }
    }
}

#[test]
fn hang_times_out_naming_the_test() {
    for nextest in BOTH {
        let f = fixture("hang");
        // Build first, so the deadline is spent running tests.
        let built = Command::new("cargo")
            .args(["test", "--no-run", "--workspace", "-q"])
            .current_dir(f.path())
            .env("CARGO_TERM_COLOR", "never")
            .output()
            .unwrap();
        assert!(built.status.success(), "{built:?}");
        let start = Instant::now();
        let run = run_in(&f, nextest, &[], Duration::from_secs(8));
        assert!(start.elapsed() < Duration::from_secs(30));
        assert_eq!(run.status(), Status::TimedOut, "{run:#?}");
        assert_eq!(run.running, ["hang tests::sleeps_forever"], "{run:#?}");
        assert_eq!(run.passed, 1, "{run:#?}");
        assert!(run.failures.is_empty(), "{run:#?}");
    }
}

#[test]
fn a_deadline_keeps_failures_already_reported() {
    // A failure, then a hang in the same binary: nextest has printed the failure in full,
    // plain libtest only its `FAILED` line (its output comes at the binary's end). Either way
    // the TimedOut answer keeps it.
    for nextest in BOTH {
        let f = fixture("timeout_loads");
        let built = Command::new("cargo")
            .args(["test", "--no-run", "-q"])
            .current_dir(f.path())
            .env("CARGO_TERM_COLOR", "never")
            .output()
            .unwrap();
        assert!(built.status.success(), "{built:?}");
        let run = run_in(&f, nextest, &[], Duration::from_secs(8));
        assert_eq!(run.status(), Status::TimedOut, "{run:#?}");
        assert_eq!(run.running, ["timeout_loads tests::b_sleeps"], "{run:#?}");
        assert_eq!(ids(&run), ["timeout_loads tests::a_fails"], "{run:#?}");
        if nextest {
            assert!(
                run.failures[0].message.contains("left: 6, right: 4"),
                "{run:#?}"
            );
        }
    }
}

#[test]
fn no_tests_is_not_green() {
    for nextest in BOTH {
        let run = run("empty", nextest, &[]);
        assert_eq!(run.status(), Status::NoTestsRan, "{run:#?}");
        assert_eq!(run.passed + run.failed + run.skipped, 0);
    }
}

#[test]
fn nextest_retry_that_passes_is_green_and_listed_as_flaky() {
    // The fixture's own .config/nextest.toml asks for one retry; pith's profile inherits it.
    let run = run("flaky", true, &[]);
    assert_eq!(run.status(), Status::TestsPassed, "{run:#?}");
    assert_eq!((run.passed, run.failed), (2, 0));
    assert!(run.failures.is_empty(), "{run:#?}");
    let f = &run.flaky[0];
    assert_eq!(f.test, "flaky tests::fails_once");
    assert_eq!(f.message, "first run fails");
    assert_eq!(f.top_project_frame().unwrap().location(), "src/lib.rs:9");

    // A test that fails on every try stays a failure; the one that passed on its retry is
    // still listed, not counted failed.
    let f = fixture("flaky");
    let lib = f.path().join("src/lib.rs");
    let src = std::fs::read_to_string(&lib).unwrap().replace(
        "    #[test]\n    fn steady() {}",
        "    #[test]\n    fn steady() {}\n\n    #[test]\n    fn always() {\n        panic!(\"every try\");\n    }",
    );
    std::fs::write(&lib, src).unwrap();
    let run = run_in(&f, true, &[], Duration::from_secs(300));
    assert_eq!(run.status(), Status::TestsFailed, "{run:#?}");
    assert_eq!((run.passed, run.failed), (2, 1), "{run:#?}");
    assert_eq!(ids(&run), ["flaky tests::always"]);
    assert_eq!(run.flaky[0].test, "flaky tests::fails_once");
}

#[test]
fn failure_that_passes_on_the_backtrace_rerun_keeps_its_first_frames() {
    // `fails_once` fails on its first run only: the re-run for a backtrace passes, so the
    // failure keeps what the run itself saw, the panic's location and nothing else. Plain
    // `cargo test` only: nextest retries it, as the project's config says (above).
    let run = run("flaky", false, &[]);
    assert_eq!(run.status(), Status::TestsFailed, "{run:#?}");
    assert_eq!((run.passed, run.failed), (1, 1));
    let f = &run.failures[0];
    assert_eq!(f.test, "flaky tests::fails_once");
    assert_eq!(f.message, "first run fails");
    assert_eq!(f.kind.as_deref(), Some("panic"));
    let frames: Vec<String> = f.frames.iter().map(|fr| fr.location()).collect();
    assert_eq!(frames, ["src/lib.rs:9"], "{run:#?}");
}

#[test]
fn long_operands_differ_at_an_index_and_the_detail_is_the_whole_panic() {
    for nextest in BOTH {
        let run = run("long_equal", nextest, &[]);
        let failure = |name: &str| {
            run.failures
                .iter()
                .find(|f| f.test == format!("long_equal tests::{name}"))
                .unwrap_or_else(|| panic!("no {name} in {run:#?}"))
        };
        let f = failure("squares_of_forty");
        assert_eq!(
            f.message,
            "assertion `left == right` failed (differ at [17]: left … 225, 256, 290, 324, 361, 40… right … 225, 256, 289, 324, 361, 40…)",
            "nextest: {nextest}"
        );
        let detail = f.detail.as_deref().unwrap();
        assert!(
            detail.starts_with("assertion `left == right` failed\n  left: [0, 1, 4, ")
                && detail.contains("\n right: [0, 1, 4, ")
                && detail.ends_with(", 1521]"),
            "both operands whole: {detail}"
        );
        let f = failure("negative_port");
        assert_eq!(f.message, "bad config:");
        assert_eq!(
            f.detail.as_deref(),
            Some("bad config:\n  port: -1\n  expected: 0..=65535")
        );
    }
}
