//! `Adapter::trace` against real runners on projects written into temp dirs: the failing tests
//! re-run with line tracing on the changed files, and what each one executed of them. Python 3
//! with pytest and pytest-xdist, Go, node (and mocha, scripts/setup/js.sh) and Maven (with Maven Central reachable for JaCoCo)
//! must be installed: these tests fail, never skip, without them.

use std::path::Path;
use std::time::Duration;

use pith_model::impact::Traced;
use pith_runner::{go, js, jvm, pytest, Adapter};
use pith_testkit::Runs;

/// A project written on the spot: `files` are (workspace-relative path, content).
fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("pith-trace-")
        .tempdir()
        .unwrap();
    for (path, content) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    dir
}

fn trace(adapter: &dyn Adapter, root: &Path, tests: &[&str], files: &[&str]) -> Option<Traced> {
    Runs::new(root).trace(adapter, tests, files, Duration::from_secs(240))
}

fn trace_pytest(root: &Path, tests: &[&str], files: &[&str]) -> Option<Traced> {
    let adapter = pytest::detect(root).expect("a Python project");
    trace(&adapter, root, tests, files)
}

/// A run's observed loads as (test file, modules, whole).
fn loads_of(run: &pith_model::Run) -> Vec<(&str, Vec<String>, bool)> {
    run.loads
        .iter()
        .map(|l| (l.test.as_str(), l.modules.clone(), l.whole))
        .collect()
}

fn lines(traced: &Traced, test: &str, file: &str) -> Vec<u32> {
    pith_testkit::traced_lines(traced, test, file)
}

const PYPROJECT: &str = "[project]\nname = \"shop\"\nversion = \"0.1.0\"\n\n[tool.pytest.ini_options]\npythonpath = [\".\"]\ntestpaths = [\"tests\"]\n";

/// `pricing.py`: line 3 runs only for big amounts, line 4 for the rest.
const PRICING: &str = "def discount(amount):\n    if amount > 100:\n        return amount * 0.9\n    return amount - 1\n\n\ndef unused():\n    return 0\n";

const DYNAMIC_TESTS: &str = r#"import importlib
import os


def test_discount_through_a_dynamic_import():
    pricing = importlib.import_module("pri" + "cing")
    assert pricing.discount(10) == 10


def test_unrelated():
    assert 1 + 1 == 3


def test_environment_is_the_tests_own():
    # Reaches the changed file only when pith's variable is out of the tests' world.
    if "PITH_TRACE" not in os.environ:
        import pricing

        pricing.unused()
    assert False
"#;

#[test]
fn pytest_traces_a_dynamic_import_and_only_the_lines_run() {
    let ws = project(&[
        ("pyproject.toml", PYPROJECT),
        ("pricing.py", PRICING),
        ("tests/test_pricing.py", DYNAMIC_TESTS),
    ]);
    let t = "tests/test_pricing.py::";
    let tests = [
        format!("{t}test_unrelated"),
        format!("{t}test_discount_through_a_dynamic_import"),
        format!("{t}test_environment_is_the_tests_own"),
    ];
    let tests: Vec<&str> = tests.iter().map(String::as_str).collect();
    let traced = trace_pytest(ws.path(), &tests, &["pricing.py"]).expect("traced");
    assert_eq!(traced.tests.len(), 3, "{traced:?}");
    let dynamic = lines(&traced, tests[1], "pricing.py");
    // The module's own lines ran at its import inside the test; line 3 never did.
    assert_eq!(dynamic, [1, 2, 4, 7], "{traced:?}");
    assert!(lines(&traced, tests[0], "pricing.py").is_empty());
    assert_eq!(lines(&traced, tests[2], "pricing.py"), [8]);
    // Files not asked for are never named.
    assert!(traced
        .tests
        .values()
        .all(|l| l.keys().all(|f| f == "pricing.py")));
}

#[test]
fn pytest_traces_under_xdist_and_in_a_package_directory() {
    let ws = project(&[
        (
            "py/pyproject.toml",
            &PYPROJECT.replace("testpaths", "addopts = \"-n 2\"\ntestpaths"),
        ),
        ("py/pricing.py", PRICING),
        ("py/tests/test_pricing.py", DYNAMIC_TESTS),
    ]);
    let dir = ws.path().join("py");
    let adapter = pytest::detect(&dir).expect("a Python project").in_dir(&dir);
    let test = "py/tests/test_pricing.py::test_discount_through_a_dynamic_import";
    let traced = trace(&adapter, ws.path(), &[test], &["py/pricing.py"]).expect("traced");
    assert_eq!(lines(&traced, test, "py/pricing.py"), [1, 2, 4, 7]);
}

/// A project that traces on its own: a Python tracer installed by its conftest counts the
/// calls into `pricing.py` and says at the end of the session whether it is still the one set.
const OWN_TRACER: &str = r#"import sys

calls = []


def tracer(frame, event, arg):
    if event == "call" and frame.f_code.co_filename.endswith("/pricing.py"):
        calls.append(frame.f_code.co_name)
    return None


sys.settrace(tracer)


def pytest_sessionfinish(session, exitstatus):
    with open("tracer.txt", "w") as f:
        f.write("%s %s" % (sys.gettrace() is tracer, ",".join(calls)))
"#;

#[test]
fn pytest_keeps_the_projects_own_tracer() {
    let ws = project(&[
        ("pyproject.toml", PYPROJECT),
        ("pricing.py", PRICING),
        ("tests/conftest.py", OWN_TRACER),
        (
            "tests/test_pricing.py",
            "import pricing\n\n\ndef test_a():\n    assert pricing.discount(500) == 0\n\n\ndef test_b():\n    assert pricing.discount(5) == 0\n",
        ),
    ]);
    let tests = [
        "tests/test_pricing.py::test_a",
        "tests/test_pricing.py::test_b",
    ];
    let traced = trace_pytest(ws.path(), &tests, &["pricing.py"]).expect("traced");
    assert_eq!(lines(&traced, tests[0], "pricing.py"), [2, 3]);
    assert_eq!(lines(&traced, tests[1], "pricing.py"), [2, 4]);
    let told = std::fs::read_to_string(ws.path().join("tracer.txt")).unwrap();
    // Restored after the tests, and it saw the import (collection) and both calls, made while
    // pith traced.
    assert_eq!(told, "True <module>,discount,discount");
}

/// The red run traces itself: after the last test, its failing tests run again in the same
/// process, traced, and nothing of the run's own account changes. A module imported during
/// the run is not imported again, so the re-run sees the lines its functions ran.
#[test]
fn pytest_traces_its_failing_tests_inside_the_run_and_changes_no_verdict() {
    let ws = project(&[
        ("pyproject.toml", PYPROJECT),
        ("pricing.py", PRICING),
        ("tests/test_pricing.py", DYNAMIC_TESTS),
        (
            "tests/test_passing.py",
            "import pricing\n\n\ndef test_big():\n    assert pricing.discount(1000) == 900\n",
        ),
    ]);
    let adapter = pytest::detect(ws.path()).expect("a Python project");
    let runs = Runs::new(ws.path());
    let limit = Duration::from_secs(240);
    let plain = runs.run(&adapter, &[], limit);
    let traced_run = runs.run_traced(&adapter, &[], &["pricing.py"], limit);
    assert_eq!(plain.traced, None);
    let verdict = |r: &pith_model::Run| {
        let failed: Vec<String> = r.failures.iter().map(|f| f.test.clone()).collect();
        (r.status(), r.passed, r.failed, r.selected, failed)
    };
    assert_eq!(verdict(&traced_run), verdict(&plain));
    assert_eq!(traced_run.failed, 3);
    let traced = traced_run.traced.as_ref().expect("traced in the run");
    let t = "tests/test_pricing.py::";
    assert_eq!(traced.tests.len(), 3, "{traced:?}");
    assert_eq!(
        lines(
            traced,
            &format!("{t}test_discount_through_a_dynamic_import"),
            "pricing.py"
        ),
        [2, 4]
    );
    assert!(lines(traced, &format!("{t}test_unrelated"), "pricing.py").is_empty());
    // The variable stays out of the tests' world in the re-run too.
    assert_eq!(
        lines(
            traced,
            &format!("{t}test_environment_is_the_tests_own"),
            "pricing.py"
        ),
        [8]
    );
    assert!(!traced.tests.contains_key("tests/test_passing.py::test_big"));
    assert_eq!(traced.files.iter().collect::<Vec<_>>(), ["pricing.py"]);
    // Imported before the re-run: its import-time lines (the `def`s) ran with no trace event.
    let imported: Vec<u32> = traced.imported["pricing.py"].iter().copied().collect();
    assert_eq!(imported, [1, 7]);

    // What the dynamic import loaded, per test file: not whole, its tests failed.
    let loads = loads_of(&traced_run);
    assert_eq!(
        loads,
        [(
            "tests/test_pricing.py",
            vec!["pricing.py".to_owned()],
            false
        )]
    );
}

/// Only the first failing tests are traced, and only while their first runs took a small
/// share of the run: a slow failing test is not run twice.
#[test]
fn pytest_in_run_tracing_skips_a_slow_failing_test() {
    let ws = project(&[
        ("pyproject.toml", PYPROJECT),
        ("pricing.py", PRICING),
        (
            "tests/test_slow.py",
            "import time\n\nimport pricing\n\n\ndef test_slow():\n    time.sleep(1.5)\n    assert pricing.discount(5) == 5\n\n\ndef test_quick():\n    assert pricing.discount(500) == 500\n",
        ),
    ]);
    let adapter = pytest::detect(ws.path()).expect("a Python project");
    let run =
        Runs::new(ws.path()).run_traced(&adapter, &[], &["pricing.py"], Duration::from_secs(240));
    assert_eq!(run.failed, 2);
    let traced = run.traced.expect("the quick one is traced");
    assert_eq!(
        lines(&traced, "tests/test_slow.py::test_quick", "pricing.py"),
        [2, 3]
    );
    assert!(
        !traced.tests.contains_key("tests/test_slow.py::test_slow"),
        "{traced:?}"
    );
}

/// A failing test whose session fixture took long to build (by another test, first) is not
/// run again: the session was torn down, and it would be built again.
#[test]
fn pytest_in_run_tracing_skips_a_test_whose_fixtures_took_long_to_build() {
    let ws = project(&[
        ("pyproject.toml", PYPROJECT),
        ("pricing.py", PRICING),
        (
            "tests/conftest.py",
            "import time\n\nimport pytest\n\n\n@pytest.fixture(scope=\"session\")\ndef database():\n    time.sleep(1.5)\n    return {}\n",
        ),
        (
            "tests/test_db.py",
            "import pricing\n\n\ndef test_first(database):\n    assert pricing.discount(500) == 450\n\n\ndef test_second(database):\n    assert pricing.discount(5) == 5\n",
        ),
    ]);
    let adapter = pytest::detect(ws.path()).expect("a Python project");
    let run =
        Runs::new(ws.path()).run_traced(&adapter, &[], &["pricing.py"], Duration::from_secs(240));
    assert_eq!((run.passed, run.failed), (1, 1), "{run:?}");
    assert_eq!(run.traced, None);
}

/// A test file whose tests all passed, run whole, is a whole observation of its loads; the
/// statement imports the graph reads are not loads.
#[test]
fn pytest_tells_the_modules_a_test_file_loads_by_a_computed_name() {
    let ws = project(&[
        ("pyproject.toml", PYPROJECT),
        ("pricing.py", PRICING),
        ("plugins/__init__.py", ""),
        ("plugins/fast.py", "def quote():\n    return 1\n"),
        (
            "tests/test_plugins.py",
            "import importlib\n\nimport pricing\n\n\ndef test_fast():\n    assert importlib.import_module(\"plugins.\" + \"fast\").quote() == 1\n\n\ndef test_dunder():\n    assert __import__(\"plugins.fast\").fast.quote() == 1\n",
        ),
    ]);
    let adapter = pytest::detect(ws.path()).expect("a Python project");
    let runs = Runs::new(ws.path());
    let limit = Duration::from_secs(240);
    let whole = runs.run(&adapter, &[], limit);
    assert_eq!(whole.passed, 2, "{whole:?}");
    let loads = loads_of(&whole);
    assert_eq!(
        loads,
        [(
            "tests/test_plugins.py",
            vec!["plugins/fast.py".to_owned()],
            true
        )]
    );
    // One test of the file: what it saw adds to an observation, it is not one.
    let part = runs.run(&adapter, &["tests/test_plugins.py::test_fast"], limit);
    assert_eq!(part.loads.len(), 1);
    assert!(!part.loads[0].whole);
    // The file by its path is the whole file.
    let file = runs.run(&adapter, &["tests/test_plugins.py"], limit);
    assert!(file.loads[0].whole);
}

#[test]
fn pytest_without_tests_or_files_does_not_trace() {
    let ws = project(&[
        ("pyproject.toml", PYPROJECT),
        ("pricing.py", PRICING),
        ("tests/test_pricing.py", DYNAMIC_TESTS),
    ]);
    let test = "tests/test_pricing.py::test_unrelated";
    assert_eq!(trace_pytest(ws.path(), &[], &["pricing.py"]), None);
    assert_eq!(trace_pytest(ws.path(), &[test], &[]), None);
    // A file no test reaches: the test is traced, with nothing.
    let traced = trace_pytest(ws.path(), &[test], &["nowhere.py"]).expect("traced");
    assert!(traced.tests[test].is_empty());
}

const GO_PRICE: &str = "package price

func Discount(a int) int {
	if a > 100 {
		return a * 9 / 10
	}
	return a - 1
}

func Unused() int {
	return 0
}
";

const GO_CART: &str = "package cart

import \"example.com/shop/price\"

func Total(xs []int) int {
	t := 0
	for _, x := range xs {
		t += price.Discount(x)
	}
	return t
}
";

const GO_CART_TEST: &str = "package cart

import (
	\"os\"
	\"strconv\"
	\"strings\"
	\"testing\"
)

func TestTotal(t *testing.T) {
	t.Run(\"small\", func(t *testing.T) {
		// go runs a package's tests in its directory: testdata is found from there.
		b, err := os.ReadFile(\"testdata/small.txt\")
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if Total([]int{n}) != 10 {
			t.Fatal(\"wrong total\")
		}
	})
	t.Run(\"big\", func(t *testing.T) {
		if Total([]int{500}) != 450 {
			t.Fatal(\"wrong total\")
		}
	})
}

func TestNothing(t *testing.T) {
	t.Fatal(\"no\")
}
";

#[test]
fn go_traces_the_lines_a_test_runs_in_another_package() {
    assert!(
        pith_runner::on_path("go").is_some(),
        "go is not installed: https://go.dev/dl/"
    );
    let ws = project(&[
        ("svc/go.mod", "module example.com/shop\n\ngo 1.22\n"),
        ("svc/price/price.go", GO_PRICE),
        ("svc/cart/cart.go", GO_CART),
        ("svc/cart/cart_test.go", GO_CART_TEST),
        ("svc/cart/testdata/small.txt", "10\n"),
    ]);
    let dir = ws.path().join("svc");
    let adapter = go::detect(&dir).pop().expect("a Go module");
    let runs = Runs::in_dir(ws.path(), &dir);
    let sub = "example.com/shop/cart.TestTotal/small";
    let nothing = "example.com/shop/cart.TestNothing";
    let tests = [sub.to_owned(), nothing.to_owned()];
    let files = [
        "svc/price/price.go",
        "svc/cart/cart.go",
        "svc/cart/cart_test.go",
    ]
    .map(String::from);
    let traced = adapter
        .trace(&runs.context(Duration::from_secs(240)), &tests, &files)
        .expect("tracing itself must not fail")
        .expect("traced");
    // Line 5 (the big-amount branch) ran only in the sibling subtest, which a subtest asked for
    // alone does not run; the function's own lines did.
    assert_eq!(
        lines(&traced, sub, "svc/price/price.go"),
        [3, 4, 7],
        "{traced:?}"
    );
    // go's blocks end at their closing brace: the loop body's `}` (line 9) is in one.
    assert_eq!(lines(&traced, sub, "svc/cart/cart.go"), [5, 6, 7, 8, 9, 10]);
    assert!(lines(&traced, nothing, "svc/price/price.go").is_empty());
    assert!(lines(&traced, nothing, "svc/cart/cart.go").is_empty());
    // A test file is not instrumented, and scratch profiles stay in the scratch directory.
    assert!(traced
        .tests
        .values()
        .all(|l| !l.contains_key("svc/cart/cart_test.go")));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 3);
    // Two subtests of one parent share its run, and so its lines.
    let big = "example.com/shop/cart.TestTotal/big";
    let both = [sub.to_owned(), big.to_owned()];
    let traced = adapter
        .trace(&runs.context(Duration::from_secs(240)), &both, &files)
        .expect("tracing itself must not fail")
        .expect("traced");
    assert_eq!(lines(&traced, sub, "svc/price/price.go"), [3, 4, 5, 6, 7]);
    assert_eq!(traced.tests[sub], traced.tests[big]);
}

const JS_PRICE: &str = "// the price of one thing\nfunction discount(a) {\n  if (a > 100) {\n    return a * 0.9;\n  }\n  return a - 1;\n}\n\nfunction unused() {\n  return 0;\n}\n\nmodule.exports = { discount, unused };\n";

const JS_TESTS: &str = r#"const test = require("node:test");
const assert = require("node:assert");

test("small", () => {
  const { discount } = require("../" + "price.js");
  assert.strictEqual(discount(10), 10);
});

test("other", () => {
  assert.strictEqual(1, 2);
});
"#;

#[test]
fn node_traces_a_dynamic_require_and_only_the_lines_run() {
    assert!(
        pith_runner::on_path("node").is_some(),
        "node is not installed: https://nodejs.org"
    );
    let ws = project(&[
        (
            "package.json",
            r#"{"name": "shop", "scripts": {"test": "node --test"}}"#,
        ),
        ("price.js", JS_PRICE),
        ("test/price.test.js", JS_TESTS),
    ]);
    let adapter = js::detect(ws.path()).pop().expect("a node project");
    assert_eq!(adapter.name(), "node");
    let small = "test/price.test.js > small";
    let other = "test/price.test.js > other";
    let traced =
        trace(adapter.as_ref(), ws.path(), &[small, other], &["price.js"]).expect("traced");
    // The big-amount branch (4, 5) and `unused` (9-11) never ran; the comment is no line.
    assert_eq!(
        lines(&traced, small, "price.js"),
        [2, 3, 6, 7, 13],
        "{traced:?}"
    );
    assert!(lines(&traced, other, "price.js").is_empty());
}

const MOCHA_TESTS: &str = r#"const assert = require("assert");

describe("price", () => {
  it("small", () => {
    const { discount } = require("../" + "price.js");
    assert.strictEqual(discount(10), 10);
  });
  it("other", () => {
    assert.strictEqual(1, 2);
  });
});
"#;

/// mocha runs the code as written, so it traces as node's runner does: serially in its own
/// process, in parallel mode in its workers (the `mocha11` package set, scripts/setup/js.sh).
#[test]
fn mocha_traces_the_lines_each_failing_test_ran_serial_and_parallel() {
    let modules = pith_testkit::repo_root().join("tests/fixtures/js/mocha11/node_modules");
    assert!(
        modules.join(".bin/mocha").is_file(),
        "mocha11 is not installed for the fixtures: run scripts/setup/js.sh"
    );
    for script in ["mocha", "mocha --parallel"] {
        let ws = project(&[
            (
                "package.json",
                &format!(r#"{{"name": "shop", "scripts": {{"test": "{script}"}}}}"#),
            ),
            ("price.js", JS_PRICE),
            ("test/price.test.js", MOCHA_TESTS),
        ]);
        std::os::unix::fs::symlink(&modules, ws.path().join("node_modules")).unwrap();
        let adapter = js::detect(ws.path()).pop().expect("a mocha project");
        assert_eq!(adapter.name(), "mocha");
        let small = "test/price.test.js > price > small";
        let other = "test/price.test.js > price > other";
        let traced = trace(adapter.as_ref(), ws.path(), &[small, other], &["price.js"])
            .unwrap_or_else(|| panic!("{script}: not traced"));
        assert_eq!(
            lines(&traced, small, "price.js"),
            [2, 3, 6, 7, 13],
            "{script}: {traced:?}"
        );
        assert!(lines(&traced, other, "price.js").is_empty(), "{script}");
    }
}

#[test]
fn maven_traces_through_jacoco_the_lines_the_failing_tests_ran() {
    assert!(
        pith_runner::on_path("mvn").is_some(),
        "Maven is not installed (apt-get install maven)"
    );
    let ws = pith_testkit::fixture("java/impact_shop");
    let root = ws.path();
    let money = root.join("src/main/java/shop/Money.java");
    let text = std::fs::read_to_string(&money).unwrap();
    // The injected bug (line 12) and an edit no Cart test runs (line 16, in `format`).
    let text = text
        .replace("return amount > 0;", "return amount >= 0;")
        .replace("\"shop.currency\", \"USD\"", "\"shop.currency\", \"EUR\"");
    std::fs::write(&money, text).unwrap();
    // A project that sets Surefire's `argLine` itself (no `@{argLine}`) still traces.
    let pom = root.join("pom.xml");
    let text = std::fs::read_to_string(&pom).unwrap().replace(
        "<configuration>\n          <systemPropertyVariables>",
        "<configuration>\n          <argLine>-Xss1m</argLine>\n          <systemPropertyVariables>",
    );
    assert!(text.contains("<argLine>"));
    std::fs::write(&pom, text).unwrap();
    let adapter = jvm::detect(root).pop().expect("a Maven project");
    assert_eq!(adapter.name(), "maven");
    let refunds = "shop.CartTest#totalSkipsRefunds";
    let empty = "shop.CartTest#countSkipsEmptyLines";
    let files = [
        "src/main/java/shop/Money.java",
        "src/main/java/shop/Stock.java",
        "src/test/java/shop/CartTest.java",
    ];
    // Not compiled yet: no module has classes to report against.
    assert!(trace(adapter.as_ref(), root, &[refunds], &files).is_none());
    let runs = Runs::new(root);
    runs.run(adapter.as_ref(), &[refunds], Duration::from_secs(240));
    let traced = trace(adapter.as_ref(), root, &[refunds, empty], &files).expect("traced");
    // `cents` (8) and `isPositive` (12) ran; `format` (16, 17) did not; nothing of Stock ran, and
    // test sources are not instrumented. One JVM ran both tests, yet each has its own lines:
    // counting does not total, so it never reaches `cents`.
    assert_eq!(
        lines(&traced, refunds, "src/main/java/shop/Money.java"),
        [8, 12],
        "{traced:?}"
    );
    assert_eq!(lines(&traced, empty, "src/main/java/shop/Money.java"), [12]);
    assert!(lines(&traced, refunds, "src/main/java/shop/Stock.java").is_empty());
    assert!(traced
        .tests
        .values()
        .all(|l| !l.contains_key("src/test/java/shop/CartTest.java")));
    // JaCoCo's data and report stay in the scratch directory: nothing of it in the project.
    assert!(!root.join("target/jacoco.exec").exists());
    assert!(!root.join("target/site").exists());
    // Gradle is not traced: nothing runs.
    let gradle = project(&[("build.gradle", "plugins { id 'java' }\n")]);
    let adapter = jvm::detect(gradle.path()).pop().expect("a Gradle project");
    assert_eq!(adapter.name(), "gradle");
    assert!(trace(adapter.as_ref(), gradle.path(), &[refunds], &files[..1]).is_none());
}
