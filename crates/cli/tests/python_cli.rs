//! The real `pith` binary on the Python fixture projects with the real pytest: statuses, exit
//! codes, answer shapes (snapshots) and byte budgets.

mod common;

use common::{fixture, pith};
use pith_wire::{GREEN_BUDGET, MANY_FAILURES_BUDGET, ONE_CAUSE_BUDGET, ONE_FAILURE_BUDGET};

fn run(name: &str, extra: &[&str]) -> common::Answer {
    let ws = fixture(&format!("python/{name}"));
    pith(ws.path(), extra)
}

#[test]
fn green_run_is_tiny_and_exits_zero() {
    let a = run("green", &[]);
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
    a.assert_budget(GREEN_BUDGET);
    assert!(
        a.stderr.is_empty(),
        "no progress when stderr is not a terminal: {}",
        a.stderr
    );
    insta::assert_snapshot!(a.stable());
}

#[test]
fn one_failure_through_a_helper_has_two_project_frames() {
    let a = run("plain", &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.failures().len(), 1);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "tests/test_prices.py::test_cents");
    assert_eq!(f["frames"][0], "prices.py:6 return int(text.strip(\"$\"))");
    assert!(f["frames"][1]
        .as_str()
        .unwrap()
        .starts_with("tests/test_prices.py:15 "));
    a.assert_budget(ONE_FAILURE_BUDGET);
    insta::assert_snapshot!(a.stable());
}

#[test]
fn fifty_failures_from_one_helper_are_one_cluster() {
    let a = run("helper50", &[]);
    assert_eq!(a.json["failed"], 50);
    assert_eq!(a.failures().len(), 1, "{}", a.line);
    assert_eq!(a.json["clusters"][0]["affected"], 50);
    assert_eq!(a.json["clusters"][0]["at"], "shapes.py:2");
    a.assert_budget(ONE_CAUSE_BUDGET);
    insta::assert_snapshot!(a.stable());
}

#[test]
fn hundred_distinct_failures_fit_and_are_all_accounted_for() {
    let a = run("distinct100", &[]);
    assert_eq!(a.json["failed"], 100);
    assert_eq!(a.accounted(), 100, "{}", a.line);
    a.assert_budget(MANY_FAILURES_BUDGET);
    insta::assert_snapshot!(a.stable());
}

#[test]
fn classes_and_parametrized_ids_are_verbatim() {
    let a = run("classes", &[]);
    let ids: Vec<&str> = a
        .failures()
        .iter()
        .map(|f| f["test"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&"tests/test_classes.py::TestUnit::test_equal"),
        "{ids:?}"
    );
    let a = run("parametrized", &[]);
    let ids: Vec<&str> = a
        .failures()
        .iter()
        .map(|f| f["test"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "tests/test_params.py::test_inc[3-5]",
            "tests/test_params.py::TestC::test_words[colons::in-id]"
        ]
    );
    insta::assert_snapshot!(a.stable());
}

#[test]
fn fixture_failures_name_their_phase_and_fixture_frames() {
    let a = run("fixtures", &[]);
    assert_eq!(a.status(), "TestsFailed");
    let setup = a
        .failures()
        .iter()
        .find(|f| f["phase"] == "setup")
        .expect(&a.line);
    assert_eq!(
        setup["frames"][0],
        "conftest.py:5 raise FileNotFoundError(\"config.toml is missing\")"
    );
    let teardown = a
        .failures()
        .iter()
        .find(|f| f["phase"] == "teardown")
        .expect(&a.line);
    assert!(teardown["frames"][0]
        .as_str()
        .unwrap()
        .starts_with("conftest.py:16"));
    insta::assert_snapshot!(a.stable());
}

#[test]
fn xdist_answer_matches_a_serial_one() {
    let a = run("xdist", &[]);
    assert_eq!(a.json["passed"], 6, "{}", a.line);
    assert_eq!(
        a.json["failed"], 2,
        "each failure once, from the controller: {}",
        a.line
    );
    for f in a.failures() {
        assert_eq!(f["frames"].as_array().unwrap().len(), 2, "{}", a.line);
    }
}

#[test]
fn collection_errors_are_not_green_and_carry_the_reason() {
    for (name, reason) in [
        ("syntax_error", "SyntaxError: invalid syntax"),
        (
            "import_error",
            "ModuleNotFoundError: No module named 'foo_not_installed'",
        ),
        (
            "bad_conftest",
            "ModuleNotFoundError: No module named 'yaml_is_not_here'",
        ),
    ] {
        let a = run(name, &[]);
        assert_eq!((a.status(), a.code), ("CollectionFailed", 1), "{}", a.line);
        assert_eq!(a.failures()[0]["message"], reason, "{}", a.line);
        assert_eq!(a.failures()[0]["phase"], "collect");
        let tail = a.json["tail"].as_str().expect("a raw tail");
        assert!(tail.lines().count() <= 20 && tail.len() <= 1500);
        insta::assert_snapshot!(name, a.stable());
    }
}

#[test]
fn no_tests_is_not_green() {
    let a = run("empty", &[]);
    assert_eq!((a.status(), a.code), ("NoTestsRan", 1), "{}", a.line);
}

#[test]
fn segfault_is_crashed_and_names_the_test() {
    let a = run("segfault", &[]);
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    assert_eq!(a.json["running"][0], "tests/test_segfault.py::test_crash");
    assert!(a.json["tail"]
        .as_str()
        .unwrap()
        .contains("Segmentation fault"));
    let a = run("xdist_crash", &[]);
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    assert_eq!(a.json["running"][0], "tests/test_crash.py::test_crash");
}

#[test]
fn hang_is_killed_at_the_timeout_and_named() {
    let ws = fixture("python/hang");
    let start = std::time::Instant::now();
    // Long enough for pytest to start and collect on a loaded machine; the test sleeps an hour.
    let a = pith(ws.path(), &["--timeout", "10"]);
    assert!(start.elapsed().as_secs() < 30, "not killed in time");
    assert_eq!((a.status(), a.code), ("TimedOut", 1), "{}", a.line);
    let running = a.json["running"].as_array().unwrap();
    assert_eq!(running.len(), 1, "{}", a.line);
    assert!(
        running[0]
            .as_str()
            .unwrap()
            .starts_with("tests/test_hang.py::"),
        "{}",
        a.line
    );
}

#[test]
fn ids_from_an_answer_rerun_exactly_those_tests() {
    let ws = fixture("python/parametrized");
    let first = pith(ws.path(), &[]);
    common::assert_reruns_only(ws.path(), &[], &first, 1, &[]);
    common::assert_not_found(
        ws.path(),
        &[],
        &[
            "tests/test_params.py::test_inc[9-9]",
            "tests/test_nope.py::test_x",
        ],
    );
}

#[test]
fn the_callers_shell_does_not_change_the_answer() {
    let ws = fixture("python/plain");
    let plain = pith(ws.path(), &[]);
    // A fresh copy: in the same workspace the second answer would carry the first's history.
    let ws = fixture("python/plain");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pith"))
        .args(["test", "--root"])
        .arg(ws.path())
        .env("PYTEST_ADDOPTS", "-x --tb=no -p no:pith_plugin")
        .env("FORCE_COLOR", "1")
        .env("PY_COLORS", "1")
        .env("XDG_CACHE_HOME", std::env::temp_dir().join("pith-it-cache"))
        .output()
        .unwrap();
    let line = String::from_utf8(out.stdout).unwrap();
    let hostile = common::Answer {
        line: line.trim_end().to_owned(),
        json: serde_json::from_str(line.trim_end()).unwrap(),
        code: out.status.code().unwrap(),
        stderr: String::new(),
    };
    assert_eq!(plain.stable(), hostile.stable());
}

#[test]
fn example_workspace_shows_its_bug() {
    let dir = common::repo_root().join("examples/demo");
    let ws = tempfile::tempdir().unwrap();
    for entry in [
        "pyproject.toml",
        "cart/__init__.py",
        "cart/pricing.py",
        "tests/test_pricing.py",
    ] {
        let to = ws.path().join(entry);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(dir.join(entry), to).unwrap();
    }
    let a = pith(ws.path(), &[]);
    assert_eq!(a.status(), "TestsFailed");
    assert_eq!(
        a.failures()[0]["test"],
        "tests/test_pricing.py::test_total_with_discount"
    );
    a.assert_budget(ONE_FAILURE_BUDGET);
}
