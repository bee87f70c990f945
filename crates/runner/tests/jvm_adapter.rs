//! The JVM adapter against fixture projects (tests/fixtures/java): the real Maven and Surefire
//! on a multi-module project (frames across modules, reports of earlier runs ignored) and on
//! parametrized ids; Gradle through a stand-in wrapper script that writes the report Gradle 8
//! writes for JUnit 5, and the shapes of Gradle 6 to 9 (tests/fixtures/reports/junit) (the real Gradle the test machines have, Debian's 4.4.1 on JUnit 4, is
//! driven end to end in crates/cli/tests/jvm_cli.rs), and through its absence (RunnerMissing).
//! Each run copies its fixture to a temp dir, so no `target/` lands in the repo. Maven must be
//! installed (scripts/setup/jvm.sh): these tests fail without it, they never skip.

use std::path::{Path, PathBuf};
use std::time::Duration;

use pith_model::{Exit, ExitMeaning, Run, Status};
use pith_runner::jvm::{self, Jvm, Tool};
use pith_runner::Adapter;
use pith_testkit::{Fixture, Runs};

fn fixture(name: &str) -> Fixture {
    pith_testkit::fixture_at(&format!("java/{name}"), "ws")
}

fn maven_installed() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Maven's own JVM starts faster without the optimizing compiler: each fixture says so
        // in its `.mvn/jvm.config` (the project's own setting), so nothing in the environment
        // of the tests differs from a caller's.
        assert!(
            pith_runner::on_path("mvn").is_some(),
            "Maven is not installed: run scripts/setup/jvm.sh"
        );
    });
}

/// One cache for every run, as pith keeps one: the listener is compiled once.
fn cache() -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join("pith-jvm-adapter-cache");
        std::fs::create_dir_all(&d).unwrap();
        d
    })
}

fn run_with(adapter: &dyn Adapter, root: &Path, tests: &[&str]) -> Run {
    Runs::new(root)
        .with_cache(cache())
        .run(adapter, tests, Duration::from_secs(300))
}

fn detected(root: &Path) -> Box<dyn Adapter> {
    let mut found = jvm::detect(root);
    assert_eq!(found.len(), 1, "one JVM adapter for {}", root.display());
    found.remove(0)
}

#[test]
fn multi_module_frames_cross_modules_and_stale_reports_are_ignored() {
    maven_installed();
    let f = fixture("maven/multi");
    let maven = detected(f.path());
    assert_eq!(maven.name(), "maven");
    let run = run_with(maven.as_ref(), f.path(), &[]);
    assert_eq!(run.status(), Status::TestsFailed, "{run:#?}");
    assert_eq!((run.passed, run.failed), (2, 1), "{run:#?}");
    let fail = &run.failures[0];
    assert_eq!(fail.test, "demo.app.GreeterTest#greetsNobody");
    assert_eq!(fail.message, "IllegalArgumentException: empty name");
    assert_eq!(
        fail.kind.as_deref(),
        Some("java.lang.IllegalArgumentException")
    );
    let project: Vec<String> = fail.project_frames().map(|f| f.location()).collect();
    assert_eq!(
        project,
        [
            "app/src/test/java/demo/app/GreeterTest.java:15",
            "app/src/main/java/demo/app/Greeter.java:7",
            "core/src/main/java/demo/core/Names.java:6",
        ]
    );
    assert_eq!(
        fail.top_project_frame().unwrap().code.as_deref(),
        Some("throw new IllegalArgumentException(\"empty name\");")
    );
    // The runner's machinery below the test method is cut; the JDK frames above the project's
    // are kept as library frames.
    assert!(fail.frames.iter().all(|f| f.project), "{:#?}", fail.frames);

    // A second run of one core test: the app module's report from the first run is still on
    // disk, and must not count.
    let again = run_with(
        maven.as_ref(),
        f.path(),
        &["demo.core.NamesTest#keepsNames"],
    );
    assert_eq!(again.status(), Status::TestsPassed, "{again:#?}");
    assert_eq!((again.passed, again.failed), (1, 0), "{again:#?}");
    assert!(
        f.path()
            .join("app/target/surefire-reports/TEST-demo.app.GreeterTest.xml")
            .is_file(),
        "the stale report is there, and was ignored"
    );
}

#[test]
fn parametrized_ids_rerun_just_that_invocation_and_unknown_ids_are_not_found() {
    maven_installed();
    let f = fixture("maven/green");
    let maven = Jvm::new(Tool::Maven, f.path());
    let run = run_with(
        &maven,
        f.path(),
        &[
            "demo.CalcTest#addsZero(int)[2]",
            "demo.Ghost#boo",
            "src/test/java/demo/Nope.java",
            "not a jvm id",
        ],
    );
    assert_eq!(run.passed, 1, "only the asked invocation counts: {run:#?}");
    assert_eq!((run.failed, run.skipped), (0, 0), "{run:#?}");
    assert_eq!(
        run.not_found,
        [
            "not a jvm id",
            "demo.Ghost#boo",
            "src/test/java/demo/Nope.java"
        ]
    );
    assert_eq!(run.status(), Status::TestsNotFound);

    // A class by its source file: every test of it.
    let class = run_with(&maven, f.path(), &["src/test/java/demo/CalcTest.java"]);
    assert_eq!((class.passed, class.skipped), (3, 1), "{class:#?}");
    assert_eq!(class.status(), Status::TestsPassed);
    // Maven's exit and Surefire's totals were read, and agree with the reports.
    assert_eq!(class.exit, Some(Exit::new(0, ExitMeaning::Passed)));
    assert_eq!(class.reason, None);

    // An id that looks like an option names nothing, and nothing runs for it.
    let dashed = run_with(&maven, f.path(), &["-Dtest=demo.CalcTest", "--version"]);
    assert_eq!(dashed.status(), Status::TestsNotFound, "{dashed:#?}");
    assert_eq!(dashed.not_found, ["-Dtest=demo.CalcTest", "--version"]);
    assert_eq!(dashed.exit, None, "Maven never ran: {dashed:#?}");
}

/// The stand-in wrapper of `gradle/fake`, rewritten to write `report` and print `console`, then
/// exit `code`.
fn fake_gradle(root: &Path, report: &str, console: &str, code: i32) {
    std::fs::write(root.join("gradle-output/TEST-demo.CalcTest.xml"), report).unwrap();
    let script = format!(
        "#!/bin/sh\nset -e\ncd \"$(dirname \"$0\")\"\nmkdir -p build/test-results/test\ncp gradle-output/TEST-demo.CalcTest.xml build/test-results/test/\ncat <<'OUT'\n{console}\nOUT\nexit {code}\n"
    );
    std::fs::write(root.join("gradlew"), script).unwrap();
}

/// Gradle's test-retry plugin (not installable here: the Gradle Plugin Portal is out of reach)
/// writes each execution of a retried test as a testcase of its own unless `mergeReruns` is
/// set: the failed one, then the one that passed, in a build that succeeded. Green, the test
/// counted once and listed as flaky. The same report under `ignoreFailures` (Gradle says
/// "There were failing tests" and exits 0) stays red, masked.
#[test]
fn gradle_retries_written_as_separate_testcases_are_flaky_not_failed() {
    let f = fixture("gradle/fake");
    let report = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="demo.CalcTest" tests="3" skipped="0" failures="1" errors="0" time="0.031">
  <testcase name="reserves()" classname="demo.CalcTest" time="0.014">
    <failure message="org.opentest4j.AssertionFailedError: first attempt" type="org.opentest4j.AssertionFailedError">org.opentest4j.AssertionFailedError: first attempt
	at app//demo.CalcTest.reserves(CalcTest.java:16)
</failure>
  </testcase>
  <testcase name="adds()" classname="demo.CalcTest" time="0.012"/>
  <testcase name="reserves()" classname="demo.CalcTest" time="0.010"/>
</testsuite>"#;
    fake_gradle(
        f.path(),
        report,
        "> Task :test\n\nCalcTest > reserves() FAILED\n\nBUILD SUCCESSFUL in 2s",
        0,
    );
    let gradle = detected(f.path());
    let run = run_with(gradle.as_ref(), f.path(), &[]);
    assert_eq!(run.status(), Status::TestsPassed, "{run:#?}");
    assert_eq!((run.passed, run.failed), (2, 0), "{run:#?}");
    assert_eq!(run.flaky.len(), 1, "{run:#?}");
    assert_eq!(run.flaky[0].test, "demo.CalcTest#reserves()");
    assert_eq!(run.flaky[0].message, "first attempt");
    assert_eq!(
        run.flaky[0]
            .top_project_frame()
            .map(|f| f.location())
            .as_deref(),
        Some("src/test/java/demo/CalcTest.java:16")
    );
    assert_eq!(run.masked, None);

    fake_gradle(
        f.path(),
        report,
        "> Task :test\n\nCalcTest > reserves() FAILED\n\n3 tests completed, 1 failed\nThere were failing tests. See the report at: file:///fake/build/reports/tests/test/index.html\n\nBUILD SUCCESSFUL in 2s",
        0,
    );
    let run = run_with(gradle.as_ref(), f.path(), &[]);
    assert_eq!(run.status(), Status::TestsFailed, "{run:#?}");
    assert_eq!(run.failures[0].test, "demo.CalcTest#reserves()");
    assert_eq!(run.masked.as_deref(), Some("ignoreFailures"));
}

/// Every test of a class errors because a class it uses (the library's, not the test's) failed
/// to initialize: each test ran and errored, so each is a failure of its own (TestsFailed),
/// not one load failure of the test class. The same errors from the test class's own static
/// initializer are one collection failure.
#[test]
fn a_library_class_that_failed_to_initialize_fails_each_test() {
    let f = fixture("gradle/fake");
    let report = |class: &str| {
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="demo.CalcTest" tests="2" skipped="0" failures="0" errors="2" time="0.031">
  <testcase name="adds()" classname="demo.CalcTest" time="0.014">
    <error message="java.lang.ExceptionInInitializerError" type="java.lang.ExceptionInInitializerError">java.lang.ExceptionInInitializerError
	at app//demo.CalcTest.adds(CalcTest.java:9)
Caused by: java.lang.IllegalArgumentException: bad table
	at app//{class}.&lt;clinit&gt;(Calc.java:5)
	... 1 more
</error>
  </testcase>
  <testcase name="subtracts()" classname="demo.CalcTest" time="0.012">
    <error message="java.lang.NoClassDefFoundError: Could not initialize class {class}" type="java.lang.NoClassDefFoundError">java.lang.NoClassDefFoundError: Could not initialize class {class}
	at app//demo.CalcTest.subtracts(CalcTest.java:14)
</error>
  </testcase>
</testsuite>"#
        )
    };
    let console = "> Task :test FAILED\n\nCalcTest > adds() FAILED\n\nCalcTest > subtracts() FAILED\n\n2 tests completed, 2 failed\n\nBUILD FAILED in 2s";
    fake_gradle(f.path(), &report("demo.Calc"), console, 1);
    let gradle = detected(f.path());
    let run = run_with(gradle.as_ref(), f.path(), &[]);
    assert_eq!(run.status(), Status::TestsFailed, "{run:#?}");
    let mut tests: Vec<&str> = run.failures.iter().map(|f| f.test.as_str()).collect();
    tests.sort_unstable();
    assert_eq!(tests, ["demo.CalcTest#adds()", "demo.CalcTest#subtracts()"]);

    fake_gradle(f.path(), &report("demo.CalcTest"), console, 1);
    let run = run_with(gradle.as_ref(), f.path(), &[]);
    assert_eq!(run.status(), Status::CollectionFailed, "{run:#?}");
    assert_eq!(run.failures.len(), 1, "{run:#?}");
}

#[test]
fn gradle_reports_are_read_through_the_wrapper() {
    let f = fixture("gradle/fake");
    // A report of an earlier run, untouched by this one.
    let results = f.path().join("build/test-results/test");
    std::fs::create_dir_all(&results).unwrap();
    std::fs::write(
        results.join("TEST-demo.OldTest.xml"),
        r#"<testsuite name="demo.OldTest"><testcase name="gone()" classname="demo.OldTest"><failure message="old"/></testcase></testsuite>"#,
    )
    .unwrap();
    let gradle = detected(f.path());
    assert_eq!(gradle.name(), "gradle");
    let run = run_with(gradle.as_ref(), f.path(), &[]);
    assert_eq!(run.runner, "gradle");
    assert_eq!((run.passed, run.failed, run.skipped), (1, 1, 1), "{run:#?}");
    assert_eq!(run.status(), Status::TestsFailed, "{run:#?}");
    let fail = &run.failures[0];
    assert_eq!(fail.test, "demo.CalcTest#addsNegatives()");
    assert_eq!(fail.message, "expected: <-4> but was: <-5>");
    let project: Vec<String> = fail.project_frames().map(|f| f.location()).collect();
    assert_eq!(
        project,
        [
            "src/test/java/demo/CalcTest.java:16",
            "src/test/java/demo/CalcTest.java:25"
        ]
    );

    let args = std::fs::read_to_string(f.path().join("gradle-output/args.txt")).unwrap();
    let args: Vec<&str> = args.lines().collect();
    assert_eq!(&args[..2], ["test", "--console=plain"]);
    assert_eq!(
        args[2], "--init-script",
        "the listener goes in from scratch: {args:?}"
    );
    let events = std::fs::read_to_string(f.path().join("gradle-output/events-env.txt")).unwrap();
    assert!(events.trim().ends_with("junit-events.txt"), "{events}");

    // Re-running the failing test by its id filters with Gradle's `Class.method`.
    let again = run_with(
        gradle.as_ref(),
        f.path(),
        &["demo.CalcTest#addsNegatives()"],
    );
    let args = std::fs::read_to_string(f.path().join("gradle-output/args.txt")).unwrap();
    assert!(
        args.ends_with("--tests\ndemo.CalcTest.addsNegatives\n"),
        "{args}"
    );
    assert_eq!((again.passed, again.failed), (0, 1), "{again:#?}");
}

/// Set in the child process that runs with a PATH holding no Gradle.
const NO_GRADLE_CHILD: &str = "PITH_TEST_NO_GRADLE_CHILD";

#[test]
fn gradle_without_wrapper_or_install_is_runner_missing() {
    // The test machines have Gradle on PATH, and PATH is the whole process's: this test runs
    // itself again in a child whose PATH is an empty directory, so other tests keep theirs.
    if std::env::var_os(NO_GRADLE_CHILD).is_none() {
        let empty = tempfile::tempdir().unwrap();
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "gradle_without_wrapper_or_install_is_runner_missing",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(NO_GRADLE_CHILD, "1")
            .env("PATH", empty.path())
            .output()
            .unwrap();
        let log = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{log}");
        assert!(log.contains("1 passed"), "the child ran nothing: {log}");
        return;
    }
    let f = fixture("gradle/fake");
    std::fs::remove_file(f.path().join("gradlew")).unwrap();
    let gradle = detected(f.path());
    assert!(
        pith_runner::on_path("gradle").is_none(),
        "this test expects no Gradle on PATH"
    );
    let run = run_with(gradle.as_ref(), f.path(), &[]);
    assert_eq!(run.status(), Status::RunnerMissing);
    assert!(run.hint.as_deref().unwrap().contains("gradlew"), "{run:#?}");
}

#[test]
fn the_detail_keeps_the_cause_chain() {
    maven_installed();
    let f = fixture("maven/detail_cause");
    let run = run_with(detected(f.path()).as_ref(), f.path(), &[]);
    let failure = run
        .failures
        .iter()
        .find(|x| x.test == "demo.ConfigTest#port")
        .unwrap_or_else(|| panic!("{run:#?}"));
    assert_eq!(failure.message, "IllegalStateException: bad config");
    assert_eq!(
        failure.detail.as_deref(),
        Some("java.lang.IllegalStateException: bad config\nCaused by: java.lang.NumberFormatException: For input string: \"80a\"\n\tat demo.Config(Config.java:6)")
    );
}

/// One of the Gradle report shapes in tests/fixtures/reports/junit (`gradle-<major>.xml`),
/// written by the stand-in wrapper with Gradle's console line for it and exit 1, read by the
/// adapter as it reads a real Gradle run.
fn gradle_shape(major: u32, console: &str) -> Run {
    let f = fixture("gradle/fake");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "../../tests/fixtures/reports/junit/gradle-{major}.xml"
    ));
    let report = std::fs::read_to_string(&path).unwrap();
    fake_gradle(f.path(), &report, console, 1);
    let gradle = detected(f.path());
    run_with(gradle.as_ref(), f.path(), &[])
}

/// What every shape says alike: one failure with its message, both project frames, the skip
/// counted, Gradle's totals agreeing with the report's.
fn assert_one_failure(run: &Run, major: u32) {
    assert_eq!(
        run.status(),
        Status::TestsFailed,
        "gradle {major}: {run:#?}"
    );
    assert_eq!(
        (run.passed, run.failed, run.skipped),
        (1, 1, 1),
        "gradle {major}: {run:#?}"
    );
    assert_eq!(run.reason, None, "gradle {major}: the totals agree");
    let f = &run.failures[0];
    assert_eq!(f.test, "demo.CalcTest#addsNegatives()", "gradle {major}");
    assert_eq!(f.message, "expected: <-4> but was: <-5>", "gradle {major}");
    let project: Vec<String> = f
        .frames
        .iter()
        .filter(|fr| fr.project)
        .map(|fr| fr.location())
        .collect();
    assert_eq!(
        project,
        [
            "src/test/java/demo/CalcTest.java:16",
            "src/test/java/demo/CalcTest.java:25"
        ],
        "gradle {major}: {f:#?}"
    );
}

/// Gradle's JUnit XML as each major writes it (JUnitXmlResultWriter in gradle/gradle:
/// `subprojects/testing-base/.../junit/result/` up to 8.x, then
/// `platforms/software/testing-base/...`). Gradle distributions cannot be downloaded on these
/// machines, so each shape is a report written by hand from that source, read through the
/// stand-in wrapper; Debian's Gradle 4.4.1 writes the oldest shape for real (jvm_cli.rs).
/// 6.x: a timestamp without a zone (Ant's `ISO8601_DATETIME_PATTERN`), an empty `<skipped/>`,
/// `errors="0"` always, the whole class's output in one suite-level CDATA, no `file`/`line`.
#[test]
fn gradle_6_report_shape() {
    let run = gradle_shape(
        6,
        "> Task :test FAILED\n\nCalcTest > addsNegatives() FAILED\n\n3 tests completed, 1 failed, 1 skipped\n\nBUILD FAILED in 3s",
    );
    assert_one_failure(&run, 6);
}

/// 6.8 to 8.x with `reports.junitXml { mergeReruns = true; outputPerTestCase = true }` and the
/// test-retry plugin: a test that failed on every try keeps `<failure>` and adds
/// `<rerunFailure>` (with a `<stackTrace>` element and its own output), a test that passed on a
/// retry has only `<flakyFailure>`; the suite's totals count every execution ("unaffected by
/// merge reruns", as Surefire's), and so does Gradle's console line. Each test's output is
/// its own `<system-out>`.
#[test]
fn gradle_7_merged_reruns_and_output_per_test_case() {
    let run = gradle_shape(
        7,
        "> Task :test FAILED\n\nCalcTest > addsNegatives() FAILED\n\nCalcTest > addsNegatives() FAILED\n\nCalcTest > reserves() FAILED\n\n6 tests completed, 3 failed, 1 skipped\n\nBUILD FAILED in 4s",
    );
    assert_eq!(run.status(), Status::TestsFailed, "{run:#?}");
    assert_eq!((run.passed, run.failed, run.skipped), (2, 1, 1), "{run:#?}");
    assert_eq!(run.reason, None, "totals of executions agree: {run:#?}");
    assert_eq!(run.failures.len(), 1, "{run:#?}");
    assert_eq!(run.failures[0].test, "demo.CalcTest#addsNegatives()");
    assert_eq!(run.flaky.len(), 1, "{run:#?}");
    assert_eq!(run.flaky[0].test, "demo.CalcTest#reserves()");
    assert_eq!(run.flaky[0].message, "IllegalStateException: pool busy");
    let own = |id: &str| {
        run.test_output
            .iter()
            .find(|o| o.test == id)
            .map(|o| o.text.clone())
    };
    assert!(
        own("demo.CalcTest#addsNegatives()").is_some_and(|t| t.contains("sum of -2 and -3")),
        "{:#?}",
        run.test_output
    );

    // Only the test that passed on its retry failed: the build succeeds, the report still
    // counts its failed execution (`failures="1"`, `tests="4"`), and the run is green.
    let f = fixture("gradle/fake");
    let full = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/reports/junit/gradle-7.xml"),
    )
    .unwrap();
    let (head, rest) = full
        .split_once("  <testcase name=\"addsNegatives()\"")
        .unwrap();
    let tail = &rest[rest.find("  <testcase name=\"reserves()\"").unwrap()..];
    let report = format!("{head}{tail}").replace(
        r#"tests="6" skipped="1" failures="3""#,
        r#"tests="4" skipped="1" failures="1""#,
    );
    fake_gradle(
        f.path(),
        &report,
        "> Task :test\n\nCalcTest > reserves() FAILED\n\n4 tests completed, 1 failed, 1 skipped\n\nBUILD SUCCESSFUL in 4s",
        0,
    );
    let gradle = detected(f.path());
    let run = run_with(gradle.as_ref(), f.path(), &[]);
    assert_eq!(run.status(), Status::TestsPassed, "{run:#?}");
    assert_eq!((run.passed, run.skipped), (2, 1), "{run:#?}");
    assert_eq!(run.reason, None, "{run:#?}");
    assert_eq!(run.flaky[0].test, "demo.CalcTest#reserves()");
}

/// 8.8 to 8.12: `includeSystemErrLog = false` leaves the `<system-err>` element out (8.8's
/// `JUnitXmlReport.getIncludeSystemErrLog`), and a class with `@DisplayName` names its suite
/// by it while each case keeps the class's name.
#[test]
fn gradle_8_report_shape() {
    let run = gradle_shape(
        8,
        "> Task :test FAILED\n\nCalculator > addsNegatives() FAILED\n\n3 tests completed, 1 failed, 1 skipped\n\nBUILD FAILED in 3s",
    );
    assert_one_failure(&run, 8);
}

/// 8.13 and 9.x: the timestamp is an instant with milliseconds and a zone
/// (`ISO_INSTANT`, gradle/gradle#31940), and a test skipped by a failed assumption carries the
/// assumption's trace inside `<skipped>`.
#[test]
fn gradle_9_report_shape() {
    let run = gradle_shape(
        9,
        "> Task :test FAILED\n\nCalcTest > addsNegatives() FAILED\n\n3 tests completed, 1 failed, 1 skipped\n\nBUILD FAILED in 3s",
    );
    assert_one_failure(&run, 9);
}
