//! A workspace with several ecosystems (a Rust crate at the root, a Python package in
//! `python/`): every runner runs into one answer, ids route back to their runner, `--runner`
//! picks one.

use crate::common;

use common::{fixture, pith};

#[test]
fn every_runner_runs_into_one_answer_with_per_runner_counts() {
    let ws = fixture("mixed");
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.json["passed"], 2, "{}", a.line);
    let runs = a.json["runs"].as_array().expect(&a.line);
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["status"], "TestsPassed");
    assert_eq!(runs[1]["runner"], "pytest");
    assert_eq!(runs[1]["failed"], 1);
    // Paths and ids are relative to the workspace root, not to the package pytest ran in.
    let f = &a.failures()[0];
    assert_eq!(f["test"], "python/tests/test_geometry.py::test_square");
    assert!(f["frames"][0]
        .as_str()
        .unwrap()
        .starts_with("python/tests/test_geometry.py:5"));

    // The failing id re-runs in its own runner only, and the answer has no per-runner list.
    let again = pith(ws.path(), &["python/tests/test_geometry.py::test_square"]);
    assert_eq!(again.json["runner"], "pytest", "{}", again.line);
    assert_eq!(again.json["failed"], 1);
    assert!(
        again.json.get("runs").is_none() && again.json.get("passed").is_none(),
        "{}",
        again.line
    );

    let only = pith(ws.path(), &["--runner", "cargo"]);
    assert_eq!(
        (only.status(), only.json["runner"].as_str()),
        ("TestsPassed", Some("cargo")),
        "{}",
        only.line
    );
}

#[test]
fn an_id_no_runner_claims_is_not_found() {
    let ws = fixture("mixed");
    let a = pith(ws.path(), &["no-such-id"]);
    assert_eq!((a.status(), a.code), ("TestsNotFound", 1), "{}", a.line);
    assert_eq!(a.json["notFound"][0], "no-such-id");
}

#[test]
fn an_id_with_two_runners_shapes_goes_to_the_runner_that_owns_it() {
    // A CMake + GoogleTest project beside a Go module named `calc`: `calc.TestAdd` is also a
    // GoogleTest `Suite.Test`, but only Go has it, so only Go runs (nothing is built).
    let ws = fixture("cpp/green");
    let calc = ws.path().join("calc");
    std::fs::create_dir_all(&calc).unwrap();
    std::fs::write(calc.join("go.mod"), "module calc\n\ngo 1.22\n").unwrap();
    std::fs::write(
        calc.join("calc_test.go"),
        "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif 1+1 != 2 {\n\t\tt.Fatal(\"math\")\n\t}\n}\n",
    )
    .unwrap();
    let a = pith(ws.path(), &["calc.TestAdd"]);
    assert_eq!(
        (a.status(), a.code, a.json["runner"].as_str()),
        ("TestsPassed", 0, Some("go")),
        "{}",
        a.line
    );
    assert_eq!(a.json["passed"], 1, "{}", a.line);
}
