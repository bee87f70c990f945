//! The real `pith` binary on the Python fixture projects with the real pytest, beyond the
//! shared scenarios of `scenarios.rs`: classes and parametrized ids, fixture phases, xdist, a
//! broken conftest, re-runs by id, the caller's shell, the example workspace.

use crate::common;

use common::{fixture, pith};
use pith_wire::ONE_FAILURE_BUDGET;

fn run(name: &str, extra: &[&str]) -> common::Answer {
    let ws = fixture(&format!("python/{name}"));
    pith(ws.path(), extra)
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
    // Causes of one size come in the order of their ids: the same whatever order they ran in.
    assert_eq!(
        ids,
        [
            "tests/test_params.py::TestC::test_words[colons::in-id]",
            "tests/test_params.py::test_inc[3-5]"
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
    // Four causes in full fill the answer: the smaller ones' source lines give way.
    assert!(
        setup["frames"][0]
            .as_str()
            .unwrap()
            .starts_with("conftest.py:5"),
        "{}",
        a.line
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
fn a_broken_conftest_is_a_collection_error_with_its_reason() {
    let a = run("bad_conftest", &[]);
    assert_eq!((a.status(), a.code), ("CollectionFailed", 1), "{}", a.line);
    assert_eq!(
        a.failures()[0]["message"],
        "ModuleNotFoundError: No module named 'yaml_is_not_here'",
        "{}",
        a.line
    );
    assert_eq!(a.failures()[0]["phase"], "collect");
    // The record carries the error, its frame and its file: no tail restating them.
    assert!(a.json.get("tail").is_none(), "{}", a.line);
    insta::assert_snapshot!("bad_conftest", a.stable());
}

#[test]
fn a_crashed_xdist_worker_is_crashed_and_names_the_test() {
    let a = run("xdist_crash", &[]);
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    assert_eq!(a.json["running"][0], "tests/test_crash.py::test_crash");
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
    let ws = fixture("python/single");
    let plain = pith(ws.path(), &[]);
    // A fresh copy: in the same workspace the second answer would carry the first's history.
    let ws = fixture("python/single");
    let hostile = common::pith_with(
        ws.path(),
        &[],
        &[
            ("FORCE_COLOR", "1"),
            ("PY_COLORS", "1"),
            ("PYTEST_ADDOPTS", "--color=yes -p no:pith_plugin"),
        ],
        &[],
    );
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

/// A pytest outside 7–9 in the project's `.venv` (here a stand-in package with that version,
/// whose `main` records any start) is not run: `RunnerMissing`, exit 2, naming the version
/// found and the range supported, told by the one Python process pith starts anyway.
#[test]
fn a_pytest_outside_the_supported_range_is_named_and_not_run() {
    for version in ["6.2.5", "10.0.0"] {
        let ws = fixture("python/green");
        let made = std::process::Command::new("python3")
            .args(["-m", "venv", "--without-pip", ".venv"])
            .current_dir(ws.path())
            .status()
            .is_ok_and(|s| s.success());
        assert!(made, "python3 -m venv failed");
        let lib = std::fs::read_dir(ws.path().join(".venv/lib"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let pkg = lib.join("site-packages/pytest");
        std::fs::create_dir_all(&pkg).unwrap();
        let started = ws.path().join("started");
        std::fs::write(
            pkg.join("__init__.py"),
            format!(
                "__version__ = {version:?}\n\ndef main():\n    open({:?}, 'w').close()\n    return 0\n",
                started.display().to_string()
            ),
        )
        .unwrap();
        let a = pith(ws.path(), &[]);
        assert_eq!((a.status(), a.code), ("RunnerMissing", 2), "{}", a.line);
        assert_eq!(a.json["runner"], "pytest", "{}", a.line);
        assert!(
            a.line.contains(&format!(
                "pytest {version} is installed for .venv/bin/python; pith supports pytest 7.0 to 9.x"
            )),
            "{}",
            a.line
        );
        assert!(!started.exists(), "pytest {version} was started");
    }
}
