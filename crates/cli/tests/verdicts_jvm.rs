//! The verdict corpus of the JVM and .NET slices: each hostile case as a tiny project under
//! tests/fixtures/verdicts/java (run by the real Maven, and the real Gradle wrapper jar the
//! installed Gradle ships) and tests/fixtures/verdicts/dotnet (no .NET SDK here: a stand-in
//! `dotnet` on PATH replays what a real `dotnet test` printed, wrote and exited with), through
//! the real `pith` binary, asserting the verdict: status, exit code and the fields that prove
//! it. The false greens this slice fixed are marked; the rest are cases pith already answered
//! right and must keep answering right. Maven and Gradle must be installed
//! (scripts/setup/jvm.sh): these tests fail, never skip, without them.

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use common::{fixture, pith};

fn case(name: &str) -> common::Fixture {
    fixture(&format!("verdicts/java/{name}"))
}

fn maven_installed() {
    assert!(
        Command::new("mvn")
            .arg("-v")
            .output()
            .is_ok_and(|o| o.status.success()),
        "Maven is not installed: run scripts/setup/jvm.sh"
    );
}

/// A real Gradle wrapper jar, as `gradle wrapper` writes it into a project, made once per run
/// by the installed Gradle (never committed to the repository).
fn wrapper_jar() -> PathBuf {
    static JAR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    JAR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("pith-it-wrapper-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("settings.gradle"), "").unwrap();
        // The daemon this starts stops two minutes after, not three hours.
        std::fs::write(
            dir.join("gradle.properties"),
            "org.gradle.daemon.idletimeout=120000\n",
        )
        .unwrap();
        let out = Command::new("gradle")
            .args(["wrapper", "--offline", "-q"])
            .current_dir(&dir)
            .output()
            .expect("Gradle is not installed: run scripts/setup/jvm.sh");
        let jar = dir.join("gradle/wrapper/gradle-wrapper.jar");
        assert!(
            out.status.success() && jar.is_file(),
            "gradle wrapper: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        jar
    })
    .clone()
}

/// A PATH of every program on this one but `hidden`: a machine without them.
fn path_without(hidden: &[&str]) -> (tempfile::TempDir, String) {
    let bin = tempfile::tempdir().unwrap();
    let path = std::env::var_os("PATH").unwrap();
    for dir in std::env::split_paths(&path) {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name();
            if hidden.iter().any(|h| name == *h) || bin.path().join(&name).exists() {
                continue;
            }
            let _ = std::os::unix::fs::symlink(e.path(), bin.path().join(&name));
        }
    }
    let p = bin.path().to_string_lossy().into_owned();
    (bin, p)
}

// ---- A build tool that cannot start is not the project's build failure ----

/// Fixed (was BuildFailed): a Gradle wrapper whose jar is not there cannot start; the
/// project's Maven build runs instead, and its verdict is the answer.
#[test]
fn a_gradle_wrapper_without_its_jar_gives_way_to_maven() {
    maven_installed();
    let ws = case("wrapper_offline");
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.json["runner"], "maven", "{}", a.line);
    assert_eq!(
        (&a.json["passed"], &a.json["failed"]),
        (&1.into(), &1.into()),
        "{}",
        a.line
    );
    assert_eq!(a.failure_ids(), ["demo.CalcTest#subtracts"], "{}", a.line);
    let hint = a.json["hint"].as_str().unwrap_or_default();
    assert!(
        hint.contains("./gradlew: its wrapper jar (gradle/wrapper/gradle-wrapper.jar) is missing"),
        "{}",
        a.line
    );
}

/// Fixed (was BuildFailed with an UnknownHostException tail): the real wrapper jar cannot
/// download its distribution; Maven runs instead.
#[test]
fn a_gradle_wrapper_that_cannot_download_gives_way_to_maven() {
    maven_installed();
    let ws = case("wrapper_offline");
    std::fs::copy(
        wrapper_jar(),
        ws.path().join("gradle/wrapper/gradle-wrapper.jar"),
    )
    .unwrap();
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.json["runner"], "maven", "{}", a.line);
    assert_eq!(a.failure_ids(), ["demo.CalcTest#subtracts"], "{}", a.line);
    let hint = a.json["hint"].as_str().unwrap_or_default();
    assert!(
        hint.contains("./gradlew: UnknownHostException: gradle.invalid while downloading https://gradle.invalid/distributions/gradle-8.10-bin.zip"),
        "{}",
        a.line
    );
    assert!(
        !ws.path().join("build").exists(),
        "Gradle never ran: {}",
        a.line
    );
}

/// Fixed (was BuildFailed, exit 1): when no tool can start — the wrapper cannot download, no
/// Maven and no Gradle installed — pith could not do its job: RunnerMissing, exit 2, one line
/// naming what failed, and the wrapper's own words in the tail.
#[test]
fn when_no_build_tool_can_start_pith_says_which_and_why() {
    let ws = case("wrapper_offline");
    std::fs::copy(
        wrapper_jar(),
        ws.path().join("gradle/wrapper/gradle-wrapper.jar"),
    )
    .unwrap();
    let (_bin, path) = path_without(&["mvn", "gradle"]);
    let a = common::pith_with(ws.path(), &[], &[("PATH", &path)], &[]);
    assert_eq!((a.status(), a.code), ("RunnerMissing", 2), "{}", a.line);
    let hint = a.json["hint"].as_str().unwrap_or_default();
    assert!(
        hint.starts_with(
            "no build tool could start: ./gradlew: UnknownHostException: gradle.invalid"
        ) && hint.contains("mvn is not installed")
            && hint.contains("gradle is not installed")
            && !hint.contains('\n'),
        "{}",
        a.line
    );
    assert!(
        a.json["tail"]
            .as_str()
            .is_some_and(|t| t.contains("UnknownHostException")),
        "{}",
        a.line
    );
}

// ---- Exit and totals are evidence ----

/// Fixed (was TestsPassed): a module writes its reports where no tool looks by default and
/// its test fails (Maven's `maven.test.failure.ignore` keeps the exit 0). Surefire's own
/// totals count the failure the reports pith reads do not have.
#[test]
fn reports_written_elsewhere_do_not_hide_a_failure() {
    maven_installed();
    let ws = case("reports_elsewhere");
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!(a.json["passed"], 1, "{}", a.line);
    assert_eq!(
        a.json["reason"], "maven counted 1 failed tests, its reports record 0",
        "{}",
        a.line
    );
    assert!(
        a.json["tail"]
            .as_str()
            .is_some_and(|t| t.contains("Tests run: 1, Failures: 1")),
        "{}",
        a.line
    );
}

/// Every test passed, then the build failed in the test phase (was BuildFailed, which says no
/// test ran): the exit says not green, the tail says why.
#[test]
fn a_build_that_fails_after_its_tests_passed_is_runner_failed() {
    maven_installed();
    let ws = case("build_fails_after_tests");
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!(a.json["passed"], 1, "{}", a.line);
    assert!(
        a.json["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("maven exited 1")),
        "{}",
        a.line
    );
    assert!(
        a.json["tail"]
            .as_str()
            .is_some_and(|t| t.contains("No tests matching pattern")),
        "{}",
        a.line
    );
}

// ---- Run what the project runs (issue 26) ----

/// The developer's own `mvn test` in a copy of `ws`: its exit code and what it printed.
fn raw_mvn(ws: &std::path::Path) -> (i32, String) {
    let copy = tempfile::tempdir().unwrap();
    pith_testkit::copy_tree(ws, copy.path());
    let out = Command::new("mvn")
        .args(["-B", "-o", "test"])
        .current_dir(copy.path())
        .output()
        .expect("mvn runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

/// Was TestsFailed (the pass on a retry counted as a failure, marked flaky): Surefire's
/// `rerunFailingTestsCount` re-ran a test that failed once and `mvn test` ends in BUILD
/// SUCCESS. Green, and the failed attempt is listed under `flaky` with its first message line
/// and frame. A test that fails every attempt stays red.
#[test]
fn a_test_that_passes_on_surefires_rerun_is_green_and_listed_as_flaky() {
    maven_installed();
    let ws = case("retry");
    let (raw, out) = raw_mvn(ws.path());
    assert_eq!(raw, 0, "{out}");
    assert!(out.contains("Flakes: 1"), "{out}");
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
    assert_eq!(a.json["passed"], 2, "{}", a.line);
    assert!(a.json.get("failed").is_none(), "{}", a.line);
    assert!(a.json.get("failures").is_none(), "{}", a.line);
    let f = &a.json["flaky"][0];
    assert_eq!(f["test"], "demo.StockTest#reserves", "{}", a.line);
    assert!(
        f["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("first attempt ==> expected: <3> but was: <2>")),
        "{}",
        a.line
    );
    assert!(
        common::frames(f)[0].starts_with("src/test/java/demo/StockTest.java:20"),
        "{}",
        a.line
    );

    // A test that fails on every attempt: red, as `mvn test` is; the flaky one still listed.
    std::fs::write(
        ws.path().join("src/test/java/demo/StuckTest.java"),
        "package demo;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\nclass StuckTest {\n    @Test\n    void stuck() {\n        assertEquals(1, 2, \"every attempt\");\n    }\n}\n",
    )
    .unwrap();
    let (raw, out) = raw_mvn(ws.path());
    assert_eq!(raw, 1, "{out}");
    let b = pith(ws.path(), &[]);
    assert_eq!((b.status(), b.code), ("TestsFailed", 1), "{}", b.line);
    assert_eq!(b.failure_ids(), ["demo.StuckTest#stuck"], "{}", b.line);
    assert_eq!(
        (b.json["passed"].as_u64(), b.json["failed"].as_u64()),
        (Some(2), Some(1)),
        "{}",
        b.line
    );
    assert_eq!(
        b.json["flaky"][0]["test"], "demo.StockTest#reserves",
        "{}",
        b.line
    );

    // A project that fails its build on a flake (Surefire's `failOnFlakeCount`): `mvn test`
    // exits 1 with every test passed; not green, and the tail says why.
    std::fs::remove_file(ws.path().join("src/test/java/demo/StuckTest.java")).unwrap();
    std::fs::write(
        ws.path().join(".mvn/maven.config"),
        "-Dsurefire.failOnFlakeCount=1\n",
    )
    .unwrap();
    let c = pith(ws.path(), &[]);
    assert_eq!((c.status(), c.code), ("RunnerFailed", 1), "{}", c.line);
    assert_eq!(
        c.json["flaky"][0]["test"], "demo.StockTest#reserves",
        "{}",
        c.line
    );
    assert!(
        c.text("tail")
            .contains("There is 1 flake and failOnFlakeCount is set to 1"),
        "{}",
        c.line
    );
}

/// Was three failures (pith's `-fae` and `maven.test.failure.ignore` ran every module): `mvn
/// test` stops at the first module whose tests fail, and the modules after it (one that needs
/// it, one that does not) never run. pith answers the same failing ids, and runs nothing the
/// developer's command does not.
#[test]
fn maven_stops_where_mvn_test_stops() {
    maven_installed();
    let ws = case("fail_fast");
    let (raw, out) = raw_mvn(ws.path());
    assert_eq!(raw, 1, "{out}");
    assert!(out.contains("CoreTest.fails"), "{out}");
    assert!(
        !out.contains("AppTest.fails") && !out.contains("ToolsTest.fails"),
        "{out}"
    );
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.failure_ids(), ["demo.core.CoreTest#fails"], "{}", a.line);
    assert_eq!(a.json["failed"], 1, "{}", a.line);
    for module in ["app", "tools"] {
        assert!(
            !ws.path()
                .join(module)
                .join("target/surefire-reports")
                .exists(),
            "{module} ran under pith: {}",
            a.line
        );
    }
}

/// A project that hides its test failures from the exit code (`maven.test.failure.ignore` as a
/// property, or Surefire's `testFailureIgnore`): `mvn test` says BUILD SUCCESS and exits 0,
/// pith answers TestsFailed and says the command itself would exit 0 (`masked`).
#[test]
fn failures_a_pom_ignores_are_red_and_masked() {
    maven_installed();
    let ws = case("masked");
    let (raw, out) = raw_mvn(ws.path());
    assert_eq!(raw, 0, "{out}");
    assert!(out.contains("BUILD SUCCESS"), "{out}");
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.json["masked"], "maven.test.failure.ignore", "{}", a.line);
    assert_eq!(a.failure_ids(), ["demo.CalcTest#adds"], "{}", a.line);

    // The same through the plugin's own parameter.
    let pom = ws.path().join("pom.xml");
    let text = std::fs::read_to_string(&pom).unwrap();
    let text = text
        .replace("<maven.test.failure.ignore>true</maven.test.failure.ignore>", "")
        .replace(
            "<version>3.5.4</version>",
            "<version>3.5.4</version>\n        <configuration><testFailureIgnore>true</testFailureIgnore></configuration>",
        );
    std::fs::write(&pom, text).unwrap();
    let (raw, out) = raw_mvn(ws.path());
    assert_eq!(raw, 0, "{out}");
    let b = pith(ws.path(), &[]);
    assert_eq!((b.status(), b.code), ("TestsFailed", 1), "{}", b.line);
    assert_eq!(b.json["masked"], "maven.test.failure.ignore", "{}", b.line);
}

// ---- What pith already answered right ----

#[test]
fn a_before_all_failure_fails_its_class() {
    maven_installed();
    let a = pith(case("before_all").path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "src/test/java/demo/SetupTest.java", "{}", a.line);
    assert_eq!(f["phase"], "setup", "{}", a.line);
    assert_eq!(
        f["message"], "IllegalStateException: no database",
        "{}",
        a.line
    );
}

#[test]
fn an_after_all_failure_is_not_green_though_every_test_passed() {
    maven_installed();
    let a = pith(case("after_all").path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.json["passed"], 1, "{}", a.line);
    assert_eq!(
        a.failure_ids(),
        ["src/test/java/demo/CleanupTest.java"],
        "{}",
        a.line
    );
}

/// `System.exit(0)` in the second of three tests: Surefire's forked JVM ends early; the third
/// (failing) test never runs. Crashed, naming the test that exited.
#[test]
fn system_exit_zero_in_a_forked_jvm_is_crashed() {
    maven_installed();
    let a = pith(case("exit_zero").path(), &[]);
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    assert_eq!(a.json["running"][0], "demo.QuitTest#b_exits", "{}", a.line);
    assert!(
        a.failures()[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("exited with code 0")),
        "{}",
        a.line
    );
}

#[test]
fn a_compile_error_is_build_failed() {
    maven_installed();
    let a = pith(case("compile_error").path(), &[]);
    assert_eq!((a.status(), a.code), ("BuildFailed", 1), "{}", a.line);
    let errors = a.json["buildErrors"].as_array().expect(&a.line);
    assert_eq!(
        errors[0]["at"], "src/test/java/demo/BrokenTest.java:8",
        "{}",
        a.line
    );
}

/// Issue 26, item 5: what a test prints is never the build tool's. Surefire forwards what a
/// test prints to Maven's console (stdout to stdout, stderr to stderr), so a test printing
/// Maven's own lines — a `Results:` count, "There are test failures", a compilation error, a
/// crashed fork — or a child process writing to the test JVM's stderr puts them beside
/// Maven's. Only Maven's levelled stdout lines are its count, the last of each plugin
/// execution; a compilation error and a crashed fork fail the build, so a build that exited 0
/// had neither. The answer is the raw `mvn test`'s verdict, green or red.
#[test]
fn maven_lines_a_test_prints_are_not_mavens() {
    maven_installed();
    let ws = case("forged_output");
    for red in [false, true] {
        assert_eq!(
            common::raw_passes(ws.path(), "mvn", &["-B", "-q", "test"], red),
            !red,
            "the raw run"
        );
        let a = common::pith_red(ws.path(), &[], red);
        assert!(a.json.get("reason").is_none(), "{}", a.line);
        if !red {
            assert_eq!(
                (a.status(), a.code, a.count("passed")),
                ("TestsPassed", 0, 2),
                "{}",
                a.line
            );
            continue;
        }
        assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
        assert_eq!((a.count("passed"), a.count("failed")), (1, 1), "{}", a.line);
        assert_eq!(a.failures()[0]["test"], "demo.ForgeTest#adds", "{}", a.line);
    }
}

/// The same with Gradle showing the tests' standard streams: it indents them, and its own
/// count (`N tests completed, F failed`) starts a line. Red through a test resource (Gradle
/// runs a test task again only when its inputs changed).
#[test]
fn gradle_lines_a_test_prints_are_not_gradles() {
    let ws = case("forged_output_gradle");
    let a = pith(ws.path(), &[]);
    assert_eq!(
        (a.status(), a.code, a.count("passed")),
        ("TestsPassed", 0, 2),
        "{}",
        a.line
    );
    let res = ws.path().join("src/test/resources");
    std::fs::create_dir_all(&res).unwrap();
    std::fs::write(res.join("red.txt"), "red\n").unwrap();
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!((a.count("passed"), a.count("failed")), (1, 1), "{}", a.line);
    assert_eq!(a.failures()[0]["test"], "demo.ForgeTest#adds", "{}", a.line);
    assert!(a.json.get("reason").is_none(), "{}", a.line);
}

/// Ids are ids: one beginning with `-` never reaches Maven as an option, display names with
/// shell and filter metacharacters stay data, a parametrized invocation re-runs alone.
#[test]
fn ids_with_metacharacters_stay_literal() {
    maven_installed();
    let ws = case("ids");
    let a = pith(ws.path(), &[]);
    assert_eq!(
        (a.status(), a.code, &a.json["passed"]),
        ("TestsPassed", 0, &4.into()),
        "{}",
        a.line
    );

    let one = pith(ws.path(), &["demo.MetaTest#meta(String)[2]"]);
    assert_eq!(
        (one.status(), &one.json["passed"]),
        ("TestsPassed", &1.into()),
        "{}",
        one.line
    );

    for ids in [
        &["--", "-x"][..],
        &["--", "-Dtest=demo.MetaTest"],
        &["--", "-DskipTests"],
        &["demo.MetaTest#[2] c&d;$(touch pwned)"],
        &["demo.MetaTest#meta(String)[9]"],
    ] {
        let a = pith(ws.path(), ids);
        assert_eq!(
            (a.status(), a.code),
            ("TestsNotFound", 1),
            "{ids:?}: {}",
            a.line
        );
        let id = ids.last().unwrap();
        assert_eq!(a.json["notFound"][0], *id, "{}", a.line);
        assert!(
            a.json.get("passed").is_none(),
            "{ids:?} ran something: {}",
            a.line
        );
    }
    assert!(!ws.path().join("pwned").exists());
}

/// The tests see the caller's environment: pith sets no colour variable and removes none.
#[test]
fn the_tests_see_the_callers_environment() {
    maven_installed();
    let ws = case("env");
    let vars = [
        ("TERM", "xterm-256color"),
        ("FORCE_COLOR", "1"),
        ("CLICOLOR_FORCE", "1"),
    ];
    let mut env: Vec<(String, String)> = Vec::new();
    for (k, v) in vars {
        env.push((k.to_owned(), v.to_owned()));
        env.push((format!("WANT_{k}"), v.to_owned()));
    }
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let a = common::pith_with(
        ws.path(),
        &[],
        &env,
        &["NO_COLOR", "CLICOLOR", "WANT_NO_COLOR", "WANT_CLICOLOR"],
    );
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
    // And the other way round: NO_COLOR as the caller set it.
    let a = common::pith_with(
        ws.path(),
        &[],
        &[
            ("NO_COLOR", "1"),
            ("WANT_NO_COLOR", "1"),
            ("TERM", "dumb"),
            ("WANT_TERM", "dumb"),
        ],
        &[
            "FORCE_COLOR",
            "CLICOLOR",
            "CLICOLOR_FORCE",
            "WANT_FORCE_COLOR",
            "WANT_CLICOLOR",
            "WANT_CLICOLOR_FORCE",
        ],
    );
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
}

// ---- .NET: a stand-in `dotnet` replays what a real `dotnet test` did ----

/// A copy of tests/fixtures/verdicts/dotnet/<name>, and a PATH whose `dotnet` replays the run
/// recorded in its `.replay/`: prints `console.txt`, copies `results/` into the
/// `--results-directory` it is given, records its arguments (`argv.txt`) and environment
/// (`env.txt`) there, and exits with `exit`.
fn dotnet_case(name: &str) -> (common::Fixture, tempfile::TempDir, String) {
    let ws = fixture(&format!("verdicts/dotnet/{name}"));
    let replay = ws.path().join(".replay");
    let bin = tempfile::tempdir().unwrap();
    let script = format!(
        r#"#!/bin/sh
replay='{}'
results=
prev=
for a in "$@"; do
  if [ "$prev" = "--results-directory" ]; then results=$a; fi
  prev=$a
done
printf '%s\n' "$@" > "$replay/argv.txt"
env > "$replay/env.txt"
if [ -n "$results" ] && [ -d "$replay/results" ]; then cp -R "$replay/results/." "$results/"; fi
cat "$replay/console.txt"
exit "$(cat "$replay/exit")"
"#,
        replay.display()
    );
    let dotnet = bin.path().join("dotnet");
    std::fs::write(&dotnet, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&dotnet, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    (ws, bin, path)
}

fn dotnet_run(name: &str, args: &[&str]) -> (common::Answer, common::Fixture) {
    let (ws, _bin, path) = dotnet_case(name);
    let a = common::pith_with(ws.path(), args, &[("PATH", &path)], &[]);
    (a, ws)
}

/// Every test passed, then coverlet's threshold failed the run (`dotnet test` exits 1): was
/// BuildFailed (the threshold's MSBuild error taken for the build's), then Crashed. The exit
/// says not green; the tail says why.
#[test]
fn a_dotnet_coverage_threshold_is_runner_failed() {
    let (a, _ws) = dotnet_run("coverage_threshold", &[]);
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!(a.json["passed"], 1, "{}", a.line);
    assert_eq!(
        a.json["reason"], "dotnet exited 1 though no test failed",
        "{}",
        a.line
    );
    assert!(a.json.get("buildErrors").is_none(), "{}", a.line);
    assert!(
        a.json["tail"]
            .as_str()
            .is_some_and(|t| t.contains("The minimum line coverage is below the specified 80")),
        "{}",
        a.line
    );
}

/// Fixed (was TestsPassed): the test adapter could not load an assembly; VSTest's TRX says so
/// (an error run info, outcome Failed) while the exit is 0 and every recorded test passed.
#[test]
fn a_dotnet_run_error_with_exit_zero_is_not_green() {
    let (a, _ws) = dotnet_run("run_error_exit_zero", &[]);
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!(
        a.json["reason"], "the TRX says the run Failed though no test failed",
        "{}",
        a.line
    );
    assert!(
        a.json["tail"]
            .as_str()
            .is_some_and(|t| t.contains("Could not load file or assembly")),
        "{}",
        a.line
    );
}

/// MTP's exit code 2 (a test failed) with no failure in the TRX: was Crashed.
#[test]
fn an_mtp_exit_that_no_record_explains_is_runner_failed() {
    let (a, _ws) = dotnet_run("mtp_failed_exit_no_failure", &[]);
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!(
        a.json["reason"], "dotnet exited 2 though no test failed",
        "{}",
        a.line
    );
}

#[test]
fn an_mtp_run_of_zero_tests_is_no_tests_ran() {
    let (a, _ws) = dotnet_run("mtp_zero_tests", &[]);
    assert_eq!((a.status(), a.code), ("NoTestsRan", 1), "{}", a.line);
    assert!(
        a.json.get("reason").is_none(),
        "exit 8 means zero tests: {}",
        a.line
    );
}

/// `dotnet` is there, the SDK global.json asks for is not: the tool cannot start (was
/// Crashed, exit 1).
#[test]
fn a_missing_dotnet_sdk_is_runner_missing() {
    let (a, _ws) = dotnet_run("sdk_missing", &[]);
    assert_eq!((a.status(), a.code), ("RunnerMissing", 2), "{}", a.line);
    assert!(
        a.json["hint"]
            .as_str()
            .is_some_and(|h| h.contains("the .NET SDK 8.0.400 (global.json)")),
        "{}",
        a.line
    );
}

/// Ids are ids: `-x` reaches no runner; a theory case's display name with filter
/// metacharacters is escaped in VSTest's filter. And the test host's environment is the
/// caller's: pith adds only the UI language and MSBuild's logger switch.
#[test]
fn dotnet_ids_stay_literal_and_the_environment_is_the_callers() {
    let (ws, _bin, path) = dotnet_case("ids");
    let a = common::pith_with(ws.path(), &["--", "-x"], &[("PATH", &path)], &[]);
    assert_eq!((a.status(), a.code), ("TestsNotFound", 1), "{}", a.line);
    assert_eq!(a.json["notFound"][0], "-x", "{}", a.line);
    assert!(
        !ws.path().join(".replay/argv.txt").exists(),
        "dotnet never ran: {}",
        a.line
    );

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
