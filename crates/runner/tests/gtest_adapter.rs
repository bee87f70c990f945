//! The CTest/GoogleTest adapter against real CMake projects (tests/fixtures/cpp), built with the
//! machine's cmake, ninja, g++ and GoogleTest (scripts/setup/cpp.sh installs them: these tests
//! fail without them, they never skip). Each run copies its fixture to a temp dir; the build
//! directory lives in a temp cache, as pith's own would.

use std::path::Path;
use std::time::{Duration, Instant};

use pith_model::{Exit, ExitMeaning, Phase, Run, Status};
use pith_runner::gtest::{self, Ctest};
use pith_testkit::Runs;

/// A copy of `tests/fixtures/cpp/<name>` and the build cache pith would keep for it.
struct Fixture {
    copy: pith_testkit::Fixture,
    cache: tempfile::TempDir,
}

impl Fixture {
    fn path(&self) -> &Path {
        self.copy.path()
    }
}

fn fixture(name: &str) -> Fixture {
    for tool in ["cmake", "ctest", "g++"] {
        assert!(
            pith_runner::on_path(tool).is_some(),
            "{tool} is not installed: run scripts/setup/cpp.sh"
        );
    }
    Fixture {
        copy: pith_testkit::fixture_at(&format!("cpp/{name}"), name),
        cache: tempfile::tempdir().unwrap(),
    }
}

fn run_in(f: &Fixture, tests: &[&str], deadline: Duration) -> Run {
    let adapters = gtest::detect(f.path());
    assert_eq!(
        adapters.len(),
        1,
        "ctest detected in {}",
        f.path().display()
    );
    assert_eq!(adapters[0].name(), "ctest");
    Runs::new(f.path())
        .with_cache(f.cache.path())
        .run(adapters[0].as_ref(), tests, deadline)
}

fn run(name: &str, tests: &[&str]) -> Run {
    run_in(&fixture(name), tests, Duration::from_secs(600))
}

fn ids(run: &Run) -> Vec<&str> {
    let mut v: Vec<&str> = run.failures.iter().map(|f| f.test.as_str()).collect();
    v.sort();
    v
}

#[test]
fn detects_cmake_projects_with_tests_only() {
    let f = fixture("green");
    assert_eq!(gtest::detect(f.path()).len(), 1);
    assert!(gtest::detect(&f.path().join("src")).is_empty());
    let plain = tempfile::tempdir().unwrap();
    std::fs::write(
        plain.path().join("CMakeLists.txt"),
        "project(x C)\nadd_executable(x x.c)\n",
    )
    .unwrap();
    assert!(gtest::detect(plain.path()).is_empty());
}

#[test]
fn green_counts_every_test_and_builds_outside_the_project() {
    let f = fixture("green");
    let run = run_in(&f, &[], Duration::from_secs(600));
    assert_eq!(run.status(), Status::TestsPassed, "{run:#?}");
    assert_eq!((run.passed, run.failed, run.skipped), (3, 0, 0));
    assert!(
        !f.path().join("build").exists(),
        "pith must not create a build directory in the project"
    );
    let build = Ctest::new(f.path()).build_dir(f.cache.path());
    assert!(
        build.join("CMakeCache.txt").is_file(),
        "{}",
        build.display()
    );
    // The second run reuses the build: nothing to compile.
    let again = run_in(&f, &[], Duration::from_secs(600));
    assert_eq!(again.status(), Status::TestsPassed, "{again:#?}");
}

#[test]
fn projects_own_build_directory_is_used_when_it_is_one() {
    let f = fixture("green");
    let own = f.path().join("build");
    let out = std::process::Command::new("cmake")
        .arg("-S")
        .arg(f.path())
        .arg("-B")
        .arg(&own)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(Ctest::new(f.path()).build_dir(f.cache.path()), own);
    let run = run_in(&f, &[], Duration::from_secs(600));
    assert_eq!(run.status(), Status::TestsPassed, "{run:#?}");
    assert!(
        own.join("calc_test").is_file(),
        "built in the project's build/"
    );
}

/// ctest's exit code is part of the run (0 all passed, 8 some test failed), and its totals
/// agree with what was read.
#[test]
fn the_exit_code_and_ctests_totals_are_evidence() {
    let green = run("green", &[]);
    assert_eq!(
        green.exit,
        Some(Exit::new(0, ExitMeaning::Passed)),
        "{green:#?}"
    );
    assert_eq!(green.doubt(), None, "{green:#?}");
    let red = run("single", &[]);
    assert_eq!(
        red.exit,
        Some(Exit::new(8, ExitMeaning::Failed)),
        "{red:#?}"
    );
    assert_eq!(red.doubt(), None, "{red:#?}");
}

#[test]
fn single_failure_names_the_helper_and_its_caller() {
    let run = run("single", &[]);
    assert_eq!(run.status(), Status::TestsFailed, "{run:#?}");
    assert_eq!((run.passed, run.failed, run.skipped), (2, 1, 1), "{run:#?}");
    let f = &run.failures[0];
    assert_eq!(f.test, "Calc.OffByOne");
    assert_eq!(f.message, "Expected equality: add(a, b) == want (4 vs 5)");
    let frames: Vec<String> = f
        .project_frames()
        .map(|fr| format!("{} {}", fr.location(), fr.code.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(
        frames,
        [
            "tests/calc_test.cc:24 CHECK_SUM(2, 2, 5);",
            "tests/calc_test.cc:8 EXPECT_EQ(add(a, b), want);",
        ]
    );
}

#[test]
fn parametrized_ids_are_verbatim_and_cluster_on_the_helper() {
    let run = run("helper50", &[]);
    assert_eq!(run.failed, 50, "{run:#?}");
    let ids = ids(&run);
    assert!(ids.contains(&"Sizes/AreaTest.Matches/0"), "{ids:?}");
    assert!(ids.contains(&"Sizes/AreaTest.Matches/49"), "{ids:?}");
    let at: Vec<String> = run
        .failures
        .iter()
        .map(|f| f.top_project_frame().unwrap().location())
        .collect();
    assert!(at.iter().all(|a| a == "tests/shapes_test.cc:6"), "{at:?}");
}

#[test]
fn a_whole_binary_reports_each_gtest_test() {
    let run = run("distinct100", &[]);
    assert_eq!(run.failed, 100, "{run:#?}");
    assert_eq!(run.passed, 0);
    let f = run
        .failures
        .iter()
        .find(|f| f.test == "Distinct.Case7")
        .unwrap();
    assert_eq!(
        f.message,
        "Expected equality: value(7) == 1000 + 7 (7 vs 1007)"
    );
    assert_eq!(
        f.top_project_frame().unwrap().location(),
        "tests/values_test.cc:16"
    );
}

#[test]
fn compile_error_is_build_failed_at_the_line() {
    let run = run("compile_error", &[]);
    assert_eq!(run.status(), Status::BuildFailed, "{run:#?}");
    let e = &run.build_errors[0];
    assert_eq!(e.file.as_deref(), Some("src/calc.cc"));
    assert_eq!(e.line, Some(3));
    assert!(e.message.contains("'c' was not declared"), "{e:?}");
    assert_eq!(run.passed + run.failed, 0);
}

#[test]
fn a_macro_error_is_told_at_its_expansion_with_its_definition() {
    // gcc reports the error at the macro's definition in calc.h and notes the expansion in
    // calc.cc, the file that was edited: the answer is there, the definition in the message.
    let run = run("macro_error", &[]);
    assert_eq!(run.status(), Status::BuildFailed, "{run:#?}");
    let e = &run.build_errors[0];
    assert_eq!(e.file.as_deref(), Some("src/calc.cc"), "{e:?}");
    assert_eq!(e.line, Some(6));
    assert!(e.message.contains("request for member"), "{e:?}");
    assert!(
        e.message.ends_with("(macro TWICE defined at src/calc.h:4)"),
        "{e:?}"
    );
}

#[test]
fn a_segfault_is_crashed_and_names_the_test() {
    let run = run("crash", &[]);
    assert_eq!(run.status(), Status::Crashed, "{run:#?}");
    assert_eq!(run.passed, 1, "Crash.Before ran: {run:#?}");
    let f = run
        .failures
        .iter()
        .find(|f| f.test == "Crash.Segfaults")
        .unwrap_or_else(|| panic!("crashed test named: {run:#?}"));
    assert_eq!(f.message, "crashed with SIGSEGV");
    assert!(
        run.tail
            .as_deref()
            .unwrap_or("")
            .contains("Crash.Segfaults"),
        "{run:#?}"
    );
}

#[test]
fn suite_setup_failure_is_a_collection_error() {
    let run = run("suite_setup", &[]);
    assert_eq!(run.status(), Status::CollectionFailed, "{run:#?}");
    let f = run.failures.iter().find(|f| f.test == "Db").unwrap();
    assert_eq!(f.phase, Phase::Collect);
    assert_eq!(f.message, "database not reachable");
    assert_eq!(
        f.top_project_frame().unwrap().location(),
        "tests/db_test.cc:6"
    );
    assert_eq!(run.passed, 1, "Other.Works ran: {run:#?}");
    assert_eq!(run.skipped, 2, "the suite's tests never ran: {run:#?}");
}

#[test]
fn hang_is_killed_at_the_deadline_and_named() {
    let f = fixture("hang");
    let warm = run_in(&f, &["Hang.Quick"], Duration::from_secs(600));
    assert_eq!(warm.status(), Status::TestsPassed, "{warm:#?}");
    let start = Instant::now();
    let run = run_in(&f, &[], Duration::from_secs(5));
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "not killed in time"
    );
    assert_eq!(run.status(), Status::TimedOut, "{run:#?}");
    assert_eq!(run.running, ["Hang.Forever"], "{run:#?}");
}

#[test]
fn no_tests_is_not_green() {
    let run = run("empty", &[]);
    assert_eq!(run.status(), Status::NoTestsRan, "{run:#?}");
}

#[test]
fn ids_rerun_exactly_those_tests() {
    let f = fixture("single");
    let run = run_in(&f, &["Calc.OffByOne"], Duration::from_secs(600));
    assert_eq!((run.passed, run.failed), (0, 1), "{run:#?}");
    assert_eq!(run.failures[0].test, "Calc.OffByOne");
    let missing = run_in(&f, &["Calc.Nope", "Calc.Adds"], Duration::from_secs(600));
    assert_eq!(missing.status(), Status::TestsNotFound, "{missing:#?}");
    assert_eq!(missing.not_found, ["Calc.Nope"]);
    assert_eq!(missing.passed, 1);

    // Inside a whole binary: GTEST_FILTER picks them.
    let f = fixture("distinct100");
    let run = run_in(
        &f,
        &["Distinct.Case3", "Distinct.Case42"],
        Duration::from_secs(600),
    );
    assert_eq!(ids(&run), ["Distinct.Case3", "Distinct.Case42"], "{run:#?}");
    assert_eq!(run.failed, 2);

    let f = fixture("helper50");
    let run = run_in(&f, &["Sizes/AreaTest.Matches/7"], Duration::from_secs(600));
    assert_eq!(ids(&run), ["Sizes/AreaTest.Matches/7"], "{run:#?}");
}

#[test]
fn the_detail_is_every_failed_assertion_with_its_diff() {
    let run = run("detail_diff", &[]);
    let f = &run.failures[0];
    assert_eq!(f.test, "Greet.TwoLines");
    assert_eq!(
        f.detail.as_deref(),
        Some("Expected equality of these values:\n  greeting()\n    Which is: \"Hello,\\nworld\\n\"\n  want\n    Which is: \"Hello,\\nworld,\\n\"\nWith diff:\n@@ -1,2 +1,2 @@\n Hello,\n-world\\n\n+world,\\n\n\ngreeting changed\n\ntests/greet_test.cc:11: Failure\nValue of: greeting().size() > 20\n  Actual: false\nExpected: true"),
        "gtest's diff, the author's message, and the next failed assertion"
    );
}
