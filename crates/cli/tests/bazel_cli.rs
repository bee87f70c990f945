//! The real `pith` binary on the Bazel fixture workspaces (Debian's Bazel 4.2.3, offline:
//! scripts/setup/bazel.sh), beyond the shared scenarios of `scenarios.rs`: results from a
//! disk cache and Bazel's own cache said as such, several test targets of several kinds,
//! re-runs by label and by case.

use crate::common;

use std::path::Path;

use common::{fixture, pith};

/// The fixture's own `.bazelrc` gains a line, as a user's would.
fn bazelrc_line(ws: &Path, line: &str) {
    let rc = ws.join(".bazelrc");
    let mut text = std::fs::read_to_string(&rc).unwrap();
    text.push_str(line);
    text.push('\n');
    std::fs::write(rc, text).unwrap();
}

#[test]
fn a_green_from_a_cache_says_so() {
    let cache = tempfile::tempdir().unwrap();
    let disk_cache = format!("build --disk_cache={}", cache.path().display());
    let first = fixture("bazel/green");
    bazelrc_line(first.path(), &disk_cache);
    let a = pith(first.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
    assert!(a.json.get("cached").is_none(), "ran now: {}", a.line);
    assert_eq!(a.json["passed"], 6, "{}", a.line);

    // Another checkout of the same code with the same disk cache: every result is the
    // cache's, and the answer says so (a green that proves nothing new).
    let second = fixture("bazel/green");
    bazelrc_line(second.path(), &disk_cache);
    let b = pith(second.path(), &[]);
    assert_eq!((b.status(), b.code), ("TestsPassed", 0), "{}", b.line);
    assert_eq!(
        b.json["cached"], 4,
        "four test targets, all from the disk cache: {}",
        b.line
    );
    assert_eq!(b.json["passed"], 6, "{}", b.line);
    assert!(b.json.get("remote").is_none(), "{}", b.line);

    // Bazel's own cache of results, after an edit outside every target's inputs.
    std::fs::write(second.path().join("NOTES.txt"), "not an input\n").unwrap();
    let c = pith(second.path(), &[]);
    assert_eq!(
        (c.status(), c.json["cached"].as_u64()),
        ("TestsPassed", Some(4)),
        "{}",
        c.line
    );
}

#[test]
fn every_test_target_answers_whatever_its_kind() {
    let ws = fixture("bazel/targets");
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!((a.count("passed"), a.count("failed")), (3, 2), "{}", a.line);
    let tests: Vec<&str> = a
        .failures()
        .iter()
        .map(|f| f["test"].as_str().unwrap())
        .collect();
    assert!(
        tests.contains(&"//str:str_test#Str.Uppercases"),
        "{}",
        a.line
    );
    // A shell test has no cases: the target is the test, its message the line it printed
    // last.
    let sh = a
        .failures()
        .iter()
        .find(|f| f["test"] == "//scripts:check_test")
        .unwrap_or_else(|| panic!("{}", a.line));
    assert_eq!(sh["message"], "check: config.ini not found", "{}", a.line);
    assert!(!a.line.contains("/root/.cache/bazel"), "{}", a.line);
}

#[test]
fn ids_from_an_answer_rerun_exactly_those_tests() {
    let ws = fixture("bazel/single");
    let first = pith(ws.path(), &[]);
    assert_eq!(first.status(), "TestsFailed", "{}", first.line);
    common::assert_reruns_only(ws.path(), &[], &first, 0, &["//tests:calc_test#Calc.Nope"]);
    // A whole target, a label of no package here and one of no target in a package.
    let a = pith(
        ws.path(),
        &["//tests:calc_test", "//nowhere:gone", "//tests:gone"],
    );
    assert_eq!(a.status(), "TestsFailed", "{}", a.line);
    assert_eq!((a.count("passed"), a.count("failed")), (2, 1), "{}", a.line);
    let mut not_found: Vec<&str> = a.json["notFound"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", a.line))
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    not_found.sort();
    assert_eq!(not_found, ["//nowhere:gone", "//tests:gone"], "{}", a.line);
    assert!(a.json.get("buildErrors").is_none(), "{}", a.line);
}

#[test]
fn a_change_runs_the_test_targets_bazel_builds_from_what_it_reaches() {
    let ws = fixture("bazel/green");
    common::committed(ws.path());
    let green = pith(ws.path(), &[]);
    assert_eq!(
        (green.status(), green.count("passed")),
        ("TestsPassed", 6),
        "{}",
        green.line
    );

    // A bug in the library: the import graph reaches tests/calc_test.cc, and Bazel's query of
    // the tests package names the one target built from it; the other three do not run.
    let calc = ws.path().join("src/calc.cc");
    let code = std::fs::read_to_string(&calc).unwrap();
    std::fs::write(&calc, code.replace("return a + b;", "return a + b + 1;")).unwrap();
    let a = pith(ws.path(), &["--changed"]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.json["changes"]["tests"], 1, "{}", a.line);
    assert!(
        a.failures().iter().all(|f| f["test"]
            .as_str()
            .unwrap()
            .starts_with("//tests:calc_test#")),
        "{}",
        a.line
    );
    assert_eq!(
        a.count("passed") + a.count("failed"),
        3,
        "calc_test's cases only: {}",
        a.line
    );
    std::fs::write(&calc, code).unwrap();

    // A Python test edited: its py_test alone.
    let py = ws.path().join("tests/calc_py_test.py");
    let mut text = std::fs::read_to_string(&py).unwrap();
    text.push_str("\n# edited\n");
    std::fs::write(&py, text).unwrap();
    let b = pith(ws.path(), &["--changed"]);
    assert_eq!((b.status(), b.code), ("TestsPassed", 0), "{}", b.line);
    assert_eq!(
        b.count("passed"),
        1 + 2,
        "the py_test and calc_test's fix check: {}",
        b.line
    );
}

#[test]
fn a_workspace_below_the_root_answers_paths_from_the_root() {
    // Bazel prints paths relative to its own workspace; the answer's are the root's, so the
    // agent opens `services/...`, not a file that is not there.
    let copy = pith_testkit::fixture_at("bazel/green", "services");
    let ws = copy.path();
    let root = ws.parent().unwrap();
    let edit = |rel: &str, from: &str, to: &str| {
        let p = ws.join(rel);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains(from), "{rel}");
        std::fs::write(p, text.replace(from, to)).unwrap();
    };
    edit("src/calc.cc", "return a + b;", "return a + b + 1;");
    edit("tests/calc_py_test.py", "(2 * 3, 6)", "(2 * 3, 7)");
    edit("tests/CalcTest.java", "(6, 2 * 3)", "(7, 2 * 3)");
    let a = pith(root, &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    let at = |test: &str| -> Vec<String> {
        let f = a
            .failures()
            .iter()
            .find(|f| f["test"].as_str().is_some_and(|t| t.starts_with(test)))
            .unwrap_or_else(|| panic!("no {test}: {}", a.line));
        f["frames"]
            .as_array()
            .unwrap_or_else(|| panic!("no frames for {test}: {}", a.line))
            .iter()
            .map(|v| v.as_str().unwrap().split(' ').next().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        at("//tests:calc_test#"),
        ["services/tests/calc_test.cc:5"],
        "{}",
        a.line
    );
    assert_eq!(
        at("//tests:calc_py_test"),
        ["services/tests/calc_py_test.py:9"],
        "{}",
        a.line
    );
    assert_eq!(
        at("//tests:CalcTest"),
        ["services/tests/CalcTest.java:13"],
        "{}",
        a.line
    );

    // A compile error, the same.
    edit("src/calc.cc", "return a + b + 1;", "return a + c;");
    let b = pith(root, &[]);
    assert_eq!(b.status(), "BuildFailed", "{}", b.line);
    assert_eq!(
        b.json["buildErrors"][0]["at"], "services/src/calc.cc:3",
        "{}",
        b.line
    );
}

#[test]
fn target_patterns_run_their_packages_and_a_label_of_nothing_runs_nothing() {
    let ws = fixture("bazel/targets");
    let tests = |a: &common::Answer| -> Vec<String> {
        a.failures()
            .iter()
            .map(|f| f["test"].as_str().unwrap().to_owned())
            .collect()
    };
    // `//str/...`: the str package's test alone, its failure kept (not filtered out as an
    // id nobody asked for), nothing not found.
    let a = pith(ws.path(), &["//str/..."]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(tests(&a), ["//str:str_test#Str.Uppercases"], "{}", a.line);
    assert!(a.json.get("notFound").is_none(), "{}", a.line);
    // `//scripts:all`, and a case also asked for by label inside it, run once.
    let b = pith(ws.path(), &["//scripts:all", "//scripts:check_test"]);
    assert_eq!(tests(&b), ["//scripts:check_test"], "{}", b.line);
    assert_eq!(b.count("failed"), 1, "{}", b.line);
    assert!(b.json.get("notFound").is_none(), "{}", b.line);
    // What names nothing here runs nothing (it ran the whole workspace: an empty plan was
    // `//...`).
    std::fs::create_dir_all(ws.path().join("docs/guide")).unwrap();
    for absent in ["//nowhere/...", "//nowhere:gone", "//docs/..."] {
        let c = pith(ws.path(), &[absent]);
        assert_eq!((c.status(), c.code), ("TestsNotFound", 1), "{}", c.line);
        assert_eq!(
            c.json["notFound"],
            serde_json::json!([absent]),
            "{}",
            c.line
        );
        assert_eq!(c.count("passed") + c.count("failed"), 0, "{}", c.line);
    }
}

#[test]
fn a_python_project_inside_a_bazel_workspace_is_bazels() {
    // pytest would find the test file too; Bazel's py_test runs it, once.
    let ws = fixture("bazel/green");
    std::fs::write(
        ws.path().join("pyproject.toml"),
        "[project]\nname = \"x\"\n",
    )
    .unwrap();
    let a = pith(ws.path(), &[]);
    assert_eq!(
        (a.status(), a.json["runner"].as_str()),
        ("TestsPassed", Some("bazel")),
        "{}",
        a.line
    );
}

/// Was TestsFailed: a target the workspace retries passed on its retry, Bazel says FLAKY and
/// exits 0. Green, as every runner's retry policy is, and the failed attempt is listed.
#[test]
fn a_test_that_passes_only_on_a_retry_is_green_and_listed_as_flaky() {
    let ws = fixture("bazel/single");
    let marker = tempfile::tempdir().unwrap();
    // A `flaky = True` target (Bazel retries it) whose first attempt fails: Bazel calls the
    // result FLAKY and exits 0.
    std::fs::write(
        ws.path().join("tests/flaky_test.cc"),
        r#"#include <gtest/gtest.h>
#include <cstdlib>
#include <fstream>

TEST(Flaky, SecondTimeLucky) {
  const char* marker = std::getenv("PITH_FLAKY_MARKER");
  ASSERT_NE(marker, nullptr);
  bool again = std::ifstream(marker).good();
  std::ofstream(marker) << "seen";
  EXPECT_TRUE(again) << "first attempt";
}

TEST(Flaky, Steady) { EXPECT_EQ(1, 1); }
"#,
    )
    .unwrap();
    let build = ws.path().join("tests/BUILD");
    let mut text = std::fs::read_to_string(&build).unwrap();
    text.push_str(
        r#"
cc_test(
    name = "flaky_test",
    srcs = ["flaky_test.cc"],
    flaky = True,
    linkopts = ["-lgtest", "-lgtest_main", "-lpthread"],
)
"#,
    );
    std::fs::write(&build, text).unwrap();
    bazelrc_line(
        ws.path(),
        &format!(
            "test --test_env=PITH_FLAKY_MARKER={}/seen",
            marker.path().display()
        ),
    );
    let a = pith(ws.path(), &["//tests:flaky_test"]);
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
    assert!(a.json.get("failures").is_none(), "{}", a.line);
    let f = &a.json["flaky"][0];
    assert_eq!(
        f["test"], "//tests:flaky_test#Flaky.SecondTimeLucky",
        "{}",
        a.line
    );
    assert_eq!(
        f["frames"][0],
        "tests/flaky_test.cc:10 EXPECT_TRUE(again) << \"first attempt\";"
    );
    assert_eq!(
        a.count("passed"),
        2,
        "both, on the last attempt: {}",
        a.line
    );
    // Bazel answers the same inputs from its cache, last attempt only: still listed.
    let b = pith(ws.path(), &["//tests:flaky_test"]);
    assert_eq!(
        (b.status(), b.json["cached"].as_u64()),
        ("TestsPassed", Some(1)),
        "{}",
        b.line
    );
    assert_eq!(
        b.json["flaky"][0]["test"], "//tests:flaky_test",
        "{}",
        b.line
    );

    // A target that fails every attempt stays red.
    let src = ws.path().join("tests/flaky_test.cc");
    let text = std::fs::read_to_string(&src)
        .unwrap()
        .replace("EXPECT_TRUE(again)", "EXPECT_TRUE(false)");
    std::fs::write(&src, text).unwrap();
    let c = pith(ws.path(), &["//tests:flaky_test"]);
    assert_eq!((c.status(), c.code), ("TestsFailed", 1), "{}", c.line);
    assert_eq!(
        c.failure_ids(),
        ["//tests:flaky_test#Flaky.SecondTimeLucky"],
        "{}",
        c.line
    );
}

/// Issue 26, item 5: a test's output is never the runner's. Without a report of the crash,
/// Bazel's test.log is read as GoogleTest's console: a passing test printed gtest's markers
/// (a failure, a test left running) and the crashing one printed another test's `[ RUN ]`
/// first. Only the markers of the test gtest was running count: one pass, and the crash is
/// the test that crashed.
#[test]
fn gtest_lines_a_test_prints_in_its_log_are_not_gtests() {
    let ws = fixture("bazel/forged_output");
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    assert_eq!((a.count("passed"), a.count("failed")), (1, 1), "{}", a.line);
    assert_eq!(
        a.failures()[0]["test"],
        "//tests:forge_test#Forge.Segfaults",
        "{}",
        a.line
    );
    assert!(a.json.get("running").is_none(), "{}", a.line);
}
