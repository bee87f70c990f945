//! The real `pith` binary on Python projects tested with the standard library's `unittest`,
//! beyond the shared scenarios of `scenarios.rs`: the project's own `.venv` without pytest,
//! subtests, expected failures and unexpected successes, class and module fixtures, ids that
//! re-run exactly, a declared `python -m unittest discover …`, an exit in the middle of the
//! run, Django's `manage.py test`, and what stays pytest's.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{fixture, pith, pith_with, Answer};

/// A copy of `python/unittest/<name>` with its own `.venv`, which has no pytest.
fn with_venv(name: &str) -> common::Fixture {
    let ws = fixture(&format!("python/unittest/{name}"));
    let made = Command::new("python3")
        .args(["-m", "venv", "--without-pip", ".venv"])
        .current_dir(ws.path())
        .status()
        .is_ok_and(|s| s.success());
    assert!(made, "python3 -m venv failed");
    ws
}

fn ids(a: &Answer) -> Vec<String> {
    let mut ids: Vec<String> = a
        .failures()
        .iter()
        .map(|f| f["test"].as_str().unwrap().to_owned())
        .collect();
    for f in a.failures() {
        for o in f["others"].as_array().into_iter().flatten() {
            ids.push(o.as_str().unwrap().to_owned());
        }
    }
    ids.sort();
    ids
}

/// What `python -m unittest` prints as its verdict line, run by hand in `ws`.
fn raw_verdict(ws: &Path, python: &str) -> (i32, String) {
    let out = Command::new(python)
        .args(["-m", "unittest"])
        .current_dir(ws)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let last = err
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .to_owned();
    (out.status.code().unwrap_or(-1), last)
}

#[test]
fn the_projects_venv_without_pytest_runs_unittest() {
    let ws = with_venv("green");
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
    assert_eq!(a.json["runner"], "unittest");
    assert_eq!(a.json["interpreter"], ".venv/bin/python");
    assert_eq!(a.json["passed"], 3);
}

#[test]
fn outcomes_count_as_unittest_counts_them() {
    let ws = with_venv("outcomes");
    let (code, verdict) = raw_verdict(ws.path(), ".venv/bin/python");
    assert_eq!(code, 1);
    assert_eq!(
        verdict,
        "FAILED (failures=2, errors=2, skipped=1, expected failures=1, unexpected successes=1)"
    );
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    // failures + errors + unexpected successes; the skip and the expected failure skipped.
    assert_eq!(
        (a.count("passed"), a.count("failed"), a.count("skipped")),
        (2, 5, 2),
        "{}",
        a.line
    );
    assert_eq!(
        ids(&a),
        [
            "tests.test_module_teardown",
            "tests.test_outcomes.BrokenSetup",
            "tests.test_outcomes.Expected.test_fixed",
            "tests.test_outcomes.Subtests.test_each (i=2)",
        ]
    );
    // Both failing subtests: one cause, the other counted beside it.
    let sub = a
        .failures()
        .iter()
        .find(|f| f["test"] == "tests.test_outcomes.Subtests.test_each (i=2)");
    assert_eq!(
        sub.map(|f| f["affected"].clone()),
        Some(serde_json::json!(2)),
        "{}",
        a.line
    );
    let phase = |id: &str| {
        a.failures()
            .iter()
            .find(|f| f["test"] == id)
            .map(|f| f["phase"].clone())
            .unwrap_or_else(|| panic!("{id}: {}", a.line))
    };
    assert_eq!(phase("tests.test_outcomes.BrokenSetup"), "setup");
    assert_eq!(phase("tests.test_module_teardown"), "teardown");

    // A subtest's id re-runs its test: all of its subtests, as unittest runs them.
    let again = pith(ws.path(), &["tests.test_outcomes.Subtests.test_each (i=3)"]);
    assert_eq!(again.count("failed"), 2, "{}", again.line);
    assert_eq!(again.count("passed"), 0, "{}", again.line);
    // An unexpected success alone is red: `wasSuccessful()` is false.
    let fixed = pith(ws.path(), &["tests.test_outcomes.Expected.test_fixed"]);
    assert_eq!(
        (fixed.status(), fixed.code),
        ("TestsFailed", 1),
        "{}",
        fixed.line
    );
}

#[test]
fn ids_re_run_exactly_and_unknown_ones_are_named() {
    let ws = with_venv("single");
    let a = pith(ws.path(), &["tests.test_prices.TestPrices.test_cents"]);
    assert_eq!(
        (a.status(), a.count("failed"), a.count("passed")),
        ("TestsFailed", 1, 0),
        "{}",
        a.line
    );
    let a = pith(
        ws.path(),
        &[
            "tests.test_prices.TestPrices.test_total",
            "tests.test_prices.TestPrices.test_nope",
            "tests.nomodule.T.t",
        ],
    );
    assert_eq!(a.status(), "TestsNotFound", "{}", a.line);
    assert_eq!(a.count("passed"), 1, "{}", a.line);
    assert_eq!(
        a.json["notFound"],
        serde_json::json!([
            "tests.test_prices.TestPrices.test_nope",
            "tests.nomodule.T.t"
        ])
    );
}

#[test]
fn a_declared_discovery_is_run_as_declared() {
    // pytest is installed for python3 here; the Makefile's `python3 -m unittest discover -s
    // checks -p '*_check.py'` decides, and a module outside its pattern is never loaded.
    let ws = fixture("python/unittest/declared");
    let a = pith(ws.path(), &[]);
    assert_eq!(a.json["runner"], "unittest", "{}", a.line);
    assert_eq!((a.count("passed"), a.count("failed")), (1, 1), "{}", a.line);
    assert_eq!(ids(&a), ["price_check.PriceCheck.test_cents"]);
    // Its ids are importable as the declared discovery imports them (from `checks/`).
    let again = pith(ws.path(), &["price_check.PriceCheck.test_dollars"]);
    assert_eq!(
        (again.status(), again.count("passed")),
        ("TestsPassed", 1),
        "{}",
        again.line
    );
}

#[test]
fn an_exit_in_the_middle_of_the_run_is_never_green() {
    let ws = with_venv("green");
    std::fs::write(
        ws.path().join("tests/test_exits.py"),
        "import os\nimport unittest\n\n\nclass Exits(unittest.TestCase):\n    def test_leaves(self):\n        os._exit(0)\n",
    )
    .unwrap();
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    assert_eq!(
        a.json["running"],
        serde_json::json!(["tests.test_exits.Exits.test_leaves"])
    );
    assert_eq!(
        a.failures()[0]["message"],
        "the test process exited with code 0 during the test"
    );
}

#[test]
fn djangos_manage_py_test_runs_through_its_testrunner_hook() {
    assert!(
        Command::new("python3")
            .args(["-c", "import django"])
            .status()
            .is_ok_and(|s| s.success()),
        "Django is not installed: run scripts/setup/python.sh"
    );
    let ws = fixture("python/unittest/django");
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.json["runner"], "unittest");
    assert_eq!((a.count("passed"), a.count("failed")), (1, 2), "{}", a.line);
    assert_eq!(
        ids(&a),
        [
            "shop.tests.PriceTests.test_cents",
            "shop.tests.PriceTests.test_each_amount (text='$x')"
        ]
    );
    let f = &a.failures()[0];
    assert_eq!(
        f["frames"][0],
        "shop/prices.py:2 return int(text.strip(\"$\"))"
    );
    let again = pith(
        ws.path(),
        &[
            "shop.tests.PriceTests.test_whole_dollars",
            "shop.tests.Nope",
        ],
    );
    assert_eq!(again.status(), "TestsNotFound", "{}", again.line);
    assert_eq!(again.count("passed"), 1, "{}", again.line);
    assert_eq!(
        again.json["notFound"],
        serde_json::json!(["shop.tests.Nope"])
    );
    // Nothing of pith's in the project.
    assert!(!ws.path().join(".pith").exists());
}

#[test]
fn a_pytest_project_without_pytest_stays_pytests() {
    // Test functions written for pytest: unittest would find none of them. The hint installs
    // pytest, as before.
    let ws = fixture("python/single");
    let made = Command::new("python3")
        .args(["-m", "venv", "--without-pip", ".venv"])
        .current_dir(ws.path())
        .status()
        .is_ok_and(|s| s.success());
    assert!(made);
    let a = pith(ws.path(), &[]);
    assert_eq!(a.status(), "RunnerMissing", "{}", a.line);
    assert_eq!(a.json["runner"], "pytest");
}

#[test]
fn a_doctest_is_named_and_re_run_by_its_id() {
    // Doctests join a suite through `load_tests`; their id is the function's dotted name,
    // which `python -m unittest <id>` cannot load: pith finds it in the discovered suite.
    let ws = with_venv("green");
    std::fs::write(
        ws.path().join("calc.py"),
        "def double(n):\n    \"\"\"\n    >>> double(2)\n    4\n    \"\"\"\n    return n * 3\n",
    )
    .unwrap();
    std::fs::write(
        ws.path().join("tests/test_docs.py"),
        "import doctest\n\nimport calc\n\n\ndef load_tests(loader, tests, ignore):\n    tests.addTests(doctest.DocTestSuite(calc))\n    return tests\n",
    )
    .unwrap();
    let a = pith(ws.path(), &[]);
    assert_eq!((a.count("passed"), a.count("failed")), (3, 1), "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "calc.double", "{}", a.line);
    assert_eq!(f["frames"][0], "calc.py:3 >>> double(2)", "{}", a.line);
    let again = pith(ws.path(), &["calc.double"]);
    assert_eq!(
        (again.count("passed"), again.count("failed")),
        (0, 1),
        "{}",
        again.line
    );
}

/// Every line of a kept `pith output` answer, all of its pages.
fn output_lines(ws: &Path, args: &[&str]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut page = 1;
    loop {
        let p = page.to_string();
        let out = common::mcp::cli_line(ws, &[&["output"], args, &["--page", &p]].concat());
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(v["byName"].is_null(), "{args:?}: {out}");
        lines.extend(
            v["lines"]
                .as_array()
                .unwrap_or_else(|| panic!("{args:?}: {out}"))
                .iter()
                .map(|l| l.as_str().unwrap().to_owned()),
        );
        if v["pages"].as_u64().unwrap_or(1) <= page {
            return lines;
        }
        page += 1;
    }
}

#[test]
fn a_failing_tests_own_output_is_kept_and_the_printed_text_is_unittests() {
    let ws = with_venv("prints");
    let a = pith(ws.path(), &[]);
    assert_eq!(
        (a.status(), a.count("failed")),
        ("TestsFailed", 2),
        "{}",
        a.line
    );

    // What the failing test printed, on both streams, with unittest's own failure text.
    let own = output_lines(ws.path(), &["--test", "tests.test_talk.Talk.test_loud"]);
    assert_eq!(
        own,
        [
            "Traceback (most recent call last):",
            "  File \"tests/test_talk.py\", line 13, in test_loud",
            "    self.assertEqual(41, 42)",
            "AssertionError: 41 != 42",
            "",
            "Stdout:",
            "computing the total",
            "total is 41",
            "",
            "Stderr:",
            "warning: rounding down",
        ]
    );
    // A class fixture's output is printed before any test starts.
    let fixture = output_lines(ws.path(), &["--test", "tests.test_talk.BrokenSetup"]);
    assert!(
        fixture.contains(&"opening the ledger".to_owned()),
        "{fixture:?}"
    );
    // A passing test's output is not kept apart; it stays in the run's.
    let run = output_lines(ws.path(), &[]);
    assert!(run.contains(&"all fine here".to_owned()), "{run:?}");

    // The run printed what `python -m unittest` prints without pith: stdout, then stderr,
    // line for line (the timing line aside; pith shows paths workspace-relative).
    let raw = Command::new(".venv/bin/python")
        .args(["-m", "unittest"])
        .current_dir(ws.path())
        .output()
        .unwrap();
    let root = format!("{}/", ws.path().canonicalize().unwrap().display());
    let timing = |l: &str| {
        if l.starts_with("Ran ") && l.ends_with('s') {
            l.split(" in ").next().unwrap_or(l).to_owned()
        } else {
            l.to_owned()
        }
    };
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&raw.stdout),
        String::from_utf8_lossy(&raw.stderr)
    )
    .replace(&root, "");
    let want: Vec<String> = text.lines().map(timing).collect();
    let got: Vec<String> = run.iter().map(|l| timing(l)).collect();
    assert_eq!(got, want);
}

/// The failing ids `manage.py test` prints in its `ERROR:`/`FAIL:` headers: a test's id, a
/// class fixture's class, a subtest's id with its parameters (a parallel worker's replayed
/// subtest prints its lost message sentinel, `[<object object at 0x…>]`, which is no id).
fn django_failing_ids(stderr: &str) -> Vec<String> {
    let mut ids: Vec<String> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("ERROR: ").or(l.strip_prefix("FAIL: ")))
        .filter_map(|h| {
            let (_, inner) = h.split_once(" (")?;
            let (id, rest) = inner.split_once(')')?;
            let rest = rest.trim();
            let rest = match rest.find("] ") {
                Some(at) if rest.starts_with("[<object object at") => &rest[at + 2..],
                _ => rest,
            };
            Some(if rest.is_empty() {
                id.to_owned()
            } else {
                format!("{id} {rest}")
            })
        })
        .collect();
    ids.sort();
    ids
}

#[test]
fn a_declared_django_parallel_run_is_run_so_and_agrees_with_django() {
    assert!(
        Command::new("python3")
            .args(["-c", "import django, tblib"])
            .status()
            .is_ok_and(|s| s.success()),
        "Django or tblib is not installed: run scripts/setup/python.sh"
    );
    let ws = fixture("python/unittest/django");
    // A second and third test class: Django runs one class per worker, so `--parallel 2`
    // runs in parallel only with two classes or more.
    std::fs::write(
        ws.path().join("shop/test_more.py"),
        "import multiprocessing\n\nfrom django.test import SimpleTestCase\n\nfrom shop.prices import parse_price\n\n\nclass MoreTests(SimpleTestCase):\n    def test_spaces(self):\n        print(\"parsing in\", multiprocessing.current_process().name)\n        self.assertEqual(parse_price(\" $4 \"), 4)\n\n    def test_plain(self):\n        self.assertEqual(parse_price(\"7\"), 7)\n\n\nclass LedgerTests(SimpleTestCase):\n    @classmethod\n    def setUpClass(cls):\n        super().setUpClass()\n        raise RuntimeError(\"no ledger\")\n\n    def test_never(self):\n        pass\n",
    )
    .unwrap();
    std::fs::write(
        ws.path().join("Makefile"),
        "test:\n\tpython manage.py test --parallel 2\n",
    )
    .unwrap();
    let raw = Command::new("python3")
        .args(["manage.py", "test", "--parallel", "2"])
        .current_dir(ws.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&raw.stderr).into_owned();
    assert_eq!(raw.status.code(), Some(1), "{err}");
    assert!(err.contains("\nRan 5 tests in "), "{err}");
    assert!(err.contains("\nFAILED (errors=4)\n"), "{err}");
    let want = django_failing_ids(&err);
    assert_eq!(
        want,
        [
            "shop.test_more.LedgerTests",
            "shop.test_more.MoreTests.test_spaces",
            "shop.tests.PriceTests.test_cents",
            "shop.tests.PriceTests.test_each_amount (text='$x')",
        ]
    );

    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    // Ran 5: 2 passed, 3 tests failed; the class fixture's error is the fourth.
    assert_eq!((a.count("passed"), a.count("failed")), (2, 4), "{}", a.line);
    assert_eq!(ids(&a), want, "{}", a.line);
    let fixture = a
        .failures()
        .iter()
        .find(|f| f["test"] == "shop.test_more.LedgerTests")
        .cloned()
        .unwrap_or_else(|| panic!("{}", a.line));
    assert_eq!(fixture["phase"], "setup");
    assert_eq!(fixture["message"], "RuntimeError: no ledger");
    assert_eq!(
        fixture["frames"][0],
        "shop/test_more.py:21 raise RuntimeError(\"no ledger\")"
    );
    // The replayed tracebacks keep their first line and the project's frames.
    let cause = a
        .failures()
        .iter()
        .find(|f| f["test"] != "shop.test_more.LedgerTests")
        .cloned()
        .unwrap_or_else(|| panic!("{}", a.line));
    assert!(
        cause["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("ValueError: invalid literal for int() with base 10: ")),
        "{}",
        a.line
    );
    assert_eq!(
        cause["frames"][0], "shop/prices.py:2 return int(text.strip(\"$\"))",
        "{}",
        a.line
    );
    // What a test printed in a worker process is its own output.
    let own = output_lines(
        ws.path(),
        &["--test", "shop.test_more.MoreTests.test_spaces"],
    );
    assert!(
        own.iter()
            .any(|l| l.starts_with("parsing in ForkPoolWorker-")),
        "{own:?}"
    );

    // `--parallel` alone is Django's `auto`: `DJANGO_TEST_PROCESSES` decides, read by Django.
    std::fs::write(
        ws.path().join("Makefile"),
        "test:\n\tpython manage.py test --parallel\n",
    )
    .unwrap();
    let auto = pith_with(ws.path(), &[], &[("DJANGO_TEST_PROCESSES", "2")], &[]);
    assert_eq!(
        (auto.count("passed"), auto.count("failed")),
        (2, 4),
        "{}",
        auto.line
    );
    let own = output_lines(
        ws.path(),
        &["--test", "shop.test_more.MoreTests.test_spaces"],
    );
    assert!(
        own.iter()
            .any(|l| l.starts_with("parsing in ForkPoolWorker-")),
        "{own:?}"
    );
    // Ids re-run in parallel too, each exactly.
    let again = pith(
        ws.path(),
        &[
            "shop.test_more.MoreTests.test_spaces",
            "shop.tests.PriceTests.test_whole_dollars",
        ],
    );
    assert_eq!(
        (again.count("passed"), again.count("failed")),
        (1, 1),
        "{}",
        again.line
    );
}
