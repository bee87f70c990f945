//! `Adapter::trace` for jest against the real runner (installed for the fixtures by
//! scripts/setup/js.sh; these tests fail, never skip, without it), on a copy of
//! `tests/fixtures/js/trace_jest`: a helper whose branch decides which tests fail, a file no
//! test requires, and a configuration whose own coverage settings (a threshold, an ignore
//! pattern hiding `src/`) must not change what is traced; variants with a configured
//! `rootDir`, a babel transform that moves every line, and vitest.

use std::path::Path;
use std::time::{Duration, Instant};

use pith_model::impact::Traced;
use pith_runner::{js, Adapter};
use pith_testkit::{Fixture, Runs};

fn workspace() -> Fixture {
    let ws = pith_testkit::fixture("js/trace_jest");
    pith_testkit::link_node_modules(ws.path());
    ws
}

fn jest(root: &Path) -> Box<dyn Adapter> {
    let adapter = js::detect(root).pop().expect("a jest project");
    assert_eq!(adapter.name(), "jest");
    adapter
}

fn trace(adapter: &dyn Adapter, root: &Path, tests: &[&str], files: &[&str]) -> Option<Traced> {
    Runs::new(root).trace(adapter, tests, files, Duration::from_secs(240))
}

fn lines(traced: &Traced, test: &str, file: &str) -> Vec<u32> {
    pith_testkit::traced_lines(traced, test, file)
}

const SMALL: &str = "tests/price.test.js > discount > small";
const TINY: &str = "tests/price.test.js > discount > tiny";
const OTHER: &str = "tests/other.test.js > arithmetic";
const CHANGED: [&str; 3] = ["src/price.js", "src/round.js", "src/label.js"];

#[test]
fn jest_traces_the_lines_the_failing_tests_ran_of_a_changed_helper() {
    let ws = workspace();
    let root = ws.path();
    let adapter = jest(root);
    let traced = trace(adapter.as_ref(), root, &[SMALL, TINY, OTHER], &CHANGED).expect("traced");
    assert_eq!(traced.tests.len(), 3, "{traced:?}");
    // The big-amount branch (6) and `unused` (12-14) never ran; comments and blank lines are
    // no lines.
    assert_eq!(
        lines(&traced, SMALL, "src/price.js"),
        [2, 4, 5, 9, 10, 16],
        "{traced:?}"
    );
    assert_eq!(lines(&traced, SMALL, "src/round.js"), [2, 3, 4, 6]);
    // Tests of one file share its run (jest's coverage is per test file).
    assert_eq!(traced.tests[SMALL], traced.tests[TINY]);
    // The other file's test required nothing, and no test ran `label.js`.
    assert!(traced.tests[OTHER].is_empty(), "{traced:?}");
    assert!(traced
        .tests
        .values()
        .all(|l| !l.contains_key("src/label.js")));
    // Coverage went to the scratch directory, never into the project.
    assert!(!root.join("coverage").exists());
}

#[test]
fn jest_leaves_to_the_static_reach_a_changed_file_it_cannot_see() {
    let ws = workspace();
    let root = ws.path();
    let adapter = jest(root);
    // The traced test's own file changed: jest never covers a test file, so what ran of it
    // is unknown, and that test is left to the static reach; the other file's test is traced.
    let own = trace(
        adapter.as_ref(),
        root,
        &[SMALL, OTHER],
        &["src/price.js", "tests/price.test.js"],
    )
    .expect("traced");
    assert!(!own.tests.contains_key(SMALL), "{own:?}");
    assert!(own.tests[OTHER].is_empty(), "{own:?}");
    assert_eq!(
        trace(
            adapter.as_ref(),
            root,
            &[SMALL],
            &["src/price.js", "tests/price.test.js"]
        ),
        None
    );
    // A changed file in the project that jest keeps out of every run (a setup file): nothing
    // is traced.
    std::fs::write(root.join("setup.js"), "globalThis.READY = true;\n").unwrap();
    let pkg = std::fs::read_to_string(root.join("package.json")).unwrap();
    let pkg = pkg.replace(
        "\"jest\": {",
        "\"jest\": {\n    \"setupFiles\": [\"<rootDir>/setup.js\"],",
    );
    std::fs::write(root.join("package.json"), pkg).unwrap();
    let setup = trace(
        adapter.as_ref(),
        root,
        &[SMALL, OTHER],
        &["src/price.js", "setup.js"],
    );
    assert_eq!(setup, None);
    // Another test's file is not run by this one: traced.
    let other = trace(
        adapter.as_ref(),
        root,
        &[SMALL],
        &["src/price.js", "tests/other.test.js"],
    )
    .expect("traced");
    assert_eq!(lines(&other, SMALL, "src/price.js"), [2, 4, 5, 9, 10, 16]);
    // Nothing jest could run, or no test: not traced.
    assert_eq!(
        trace(adapter.as_ref(), root, &[SMALL], &["README.md"]),
        None
    );
    assert_eq!(trace(adapter.as_ref(), root, &[], &CHANGED), None);
    // A test the re-run did not find is absent.
    let gone = "tests/price.test.js > discount > renamed";
    let t = trace(adapter.as_ref(), root, &[gone, SMALL], &CHANGED).expect("traced");
    assert!(!t.tests.contains_key(gone), "{t:?}");
    assert!(t.tests.contains_key(SMALL));
}

#[test]
fn jest_traces_under_a_configured_root_dir() {
    let ws = workspace();
    let root = ws.path();
    // NestJS's layout: `rootDir` is `src`, so coverage globs are relative to it.
    let pkg = std::fs::read_to_string(root.join("package.json")).unwrap();
    let pkg = pkg.replace(
        "\"jest\": {",
        "\"jest\": {\n    \"rootDir\": \"src\",\n    \"roots\": [\"<rootDir>\", \"<rootDir>/../tests\"],",
    );
    std::fs::write(root.join("package.json"), pkg).unwrap();
    let adapter = jest(root);
    let traced = trace(adapter.as_ref(), root, &[SMALL], &CHANGED).expect("traced");
    assert_eq!(
        lines(&traced, SMALL, "src/price.js"),
        [2, 4, 5, 9, 10, 16],
        "{traced:?}"
    );
}

#[test]
fn jest_leaves_static_a_changed_file_outside_its_root_dir() {
    let ws = workspace();
    let root = ws.path();
    // A configuration file in its own directory, which is jest's root directory: jest's V8
    // coverage drops every file outside it, so `src/` can never be seen to run.
    std::fs::write(
        root.join("package.json"),
        r#"{"name": "trace-jest", "private": true, "scripts": {"test": "jest --config config/jest.config.js"}, "devDependencies": {"jest": "30.5.2"}}"#,
    )
    .unwrap();
    std::fs::create_dir(root.join("config")).unwrap();
    std::fs::write(
        root.join("config/jest.config.js"),
        "module.exports = { roots: [\"<rootDir>/../src\", \"<rootDir>/../tests\"] };\n",
    )
    .unwrap();
    let adapter = jest(root);
    assert_eq!(trace(adapter.as_ref(), root, &[SMALL], &CHANGED), None);
    // Inside it, the file is traced.
    std::fs::create_dir(root.join("config/lib")).unwrap();
    std::fs::write(
        root.join("config/lib/add.js"),
        "module.exports = (a, b) => a + b;\n",
    )
    .unwrap();
    std::fs::write(
        root.join("tests/add.test.js"),
        "const add = require(\"../config/lib/add\");\ntest(\"adds\", () => {\n  expect(add(1, 1)).toBe(3);\n});\n",
    )
    .unwrap();
    let adds = "tests/add.test.js > adds";
    let traced = trace(adapter.as_ref(), root, &[adds], &["config/lib/add.js"]).expect("traced");
    assert_eq!(lines(&traced, adds, "config/lib/add.js"), [1]);
}

/// A babel transform that moves every line of every module: three statements before its own.
const MOVING_BABEL: &str = r#"module.exports = {
  plugins: [
    ({ types: t }) => ({
      visitor: {
        Program(path) {
          for (let i = 0; i < 3; i++) {
            const call = t.callExpression(t.identifier("String"), [t.numericLiteral(i)]);
            path.unshiftContainer("body", t.expressionStatement(call));
          }
        },
      },
    }),
  ],
};
"#;

#[test]
fn jest_maps_transformed_code_back_to_its_source_lines() {
    let ws = workspace();
    let root = ws.path();
    std::fs::write(root.join("babel.config.js"), MOVING_BABEL).unwrap();
    let adapter = jest(root);
    let traced = trace(adapter.as_ref(), root, &[SMALL], &CHANGED).expect("traced");
    // The same lines as untransformed: jest maps V8's ranges through babel's source map.
    assert_eq!(
        lines(&traced, SMALL, "src/price.js"),
        [2, 4, 5, 9, 10, 16],
        "{traced:?}"
    );
    assert_eq!(lines(&traced, SMALL, "src/round.js"), [2, 3, 4, 6]);
}

/// The same project under vitest: globals on, and a configuration whose coverage settings
/// would hide `src/`, skip fully run files (istanbul's JSON reporter has no such option) and
/// rewrite itself (`autoUpdate`).
const VITEST_CONFIG: &str = "export default {\n  test: {\n    globals: true,\n    coverage: {\n      exclude: [\"src/**\"],\n      skipFull: true,\n      thresholds: { lines: 10, autoUpdate: true },\n    },\n  },\n};\n";

fn vitest_workspace() -> Fixture {
    let ws = workspace();
    let root = ws.path();
    std::fs::write(
        root.join("package.json"),
        r#"{"name": "trace-vitest", "private": true, "scripts": {"test": "vitest"}, "devDependencies": {"vitest": "4.1.12", "@vitest/coverage-v8": "4.1.12"}}"#,
    )
    .unwrap();
    std::fs::write(root.join("vitest.config.mjs"), VITEST_CONFIG).unwrap();
    ws
}

#[test]
fn vitest_traces_through_its_v8_coverage() {
    let ws = vitest_workspace();
    let root = ws.path();
    let adapter = js::detect(root).pop().expect("a vitest project");
    assert_eq!(adapter.name(), "vitest");
    let traced = trace(adapter.as_ref(), root, &[SMALL, TINY, OTHER], &CHANGED).expect("traced");
    // vitest 4 reports statements, not lines: the `if` (5) and both returns' statements; the
    // big-amount return (6) and `unused`'s (13) never ran.
    assert_eq!(
        lines(&traced, SMALL, "src/price.js"),
        [2, 5, 9, 16],
        "{traced:?}"
    );
    // Fully run, and still reported.
    assert_eq!(lines(&traced, SMALL, "src/round.js"), [3, 6]);
    assert_eq!(traced.tests[SMALL], traced.tests[TINY]);
    assert!(traced.tests[OTHER].is_empty(), "{traced:?}");
    // The configuration was not rewritten, and nothing was written into the project.
    let config = std::fs::read_to_string(root.join("vitest.config.mjs")).unwrap();
    assert_eq!(config, VITEST_CONFIG);
    assert!(!root.join("coverage").exists());
    // Its own test file changed: unknown, so not traced.
    let own = trace(
        adapter.as_ref(),
        root,
        &[SMALL],
        &["src/price.js", "tests/price.test.js"],
    );
    assert_eq!(own, None);
}

#[test]
fn vitest_without_its_v8_coverage_package_is_not_traced() {
    let ws = vitest_workspace();
    let root = ws.path();
    // A node_modules with vitest alone.
    std::fs::remove_file(root.join("node_modules")).unwrap();
    std::fs::create_dir_all(root.join("node_modules/.bin")).unwrap();
    let shared = pith_testkit::shared_node_modules();
    std::os::unix::fs::symlink(
        shared.join(".bin/vitest"),
        root.join("node_modules/.bin/vitest"),
    )
    .unwrap();
    let adapter = js::detect(root).pop().expect("a vitest project");
    assert_eq!(adapter.name(), "vitest");
    let t = Instant::now();
    assert_eq!(trace(adapter.as_ref(), root, &[SMALL], &CHANGED), None);
    // Decided before running anything.
    assert!(t.elapsed() < Duration::from_secs(2));
}

/// The shop fixture with its money helper broken (three test files fail through it) and its
/// stock parser throwing from deep inside `src/stock.js`.
fn broken_shop() -> Fixture {
    let ws = pith_testkit::fixture("js/impact_shop");
    pith_testkit::link_node_modules(ws.path());
    for (file, old, new) in [
        ("src/money.js", "return amount > 0", "return amount >= 0"),
        ("src/stock.js", "if (value < 0)", "if (value <= 0)"),
    ] {
        let path = ws.path().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(old), "{file}");
        std::fs::write(&path, text.replace(old, new)).unwrap();
    }
    ws
}

/// A project that says nothing of coverage traces its failing test files inside the red run
/// (istanbul's coverage of the changed files alone, each test file's taken by pith's
/// reporter): no second start, and the run's own account unchanged, failure lines included.
#[test]
fn jest_traces_its_failing_test_files_inside_the_run() {
    let ws = broken_shop();
    let root = ws.path();
    let adapter = jest(root);
    let runs = Runs::new(root);
    let limit = Duration::from_secs(240);
    let plain = runs.run(adapter.as_ref(), &[], limit);
    let changed = ["src/money.js", "src/stock.js"];
    let traced_run = runs.run_traced(adapter.as_ref(), &[], &changed, limit);
    assert_eq!(plain.traced, None);
    let verdict = |r: &pith_model::Run| {
        let failed: Vec<String> = r.failures.iter().map(|f| f.test.clone()).collect();
        (r.status(), r.passed, r.failed, failed)
    };
    assert_eq!(verdict(&traced_run), verdict(&plain));
    // The changed file is instrumented, yet every frame is where it was.
    let frames = |r: &pith_model::Run| {
        let all: Vec<String> = r
            .failures
            .iter()
            .flat_map(|f| f.frames.iter().map(|fr| format!("{}:{}", fr.file, fr.line)))
            .collect();
        all
    };
    assert_eq!(frames(&traced_run), frames(&plain));
    assert!(
        frames(&plain).contains(&"src/stock.js:9".to_owned()),
        "{plain:?}"
    );
    assert!(traced_run.failed > 3, "{traced_run:?}");
    let traced = traced_run.traced.as_ref().expect("traced in the run");
    assert_eq!(traced.files.iter().collect::<Vec<_>>(), changed);
    assert_eq!(traced.tests.len(), traced_run.failures.len(), "{traced:?}");
    for f in &traced_run.failures {
        // `isPositive`'s line ran in every failing file but stock's; `quantity`'s throw only
        // in stock's.
        let stock = f.test.starts_with("tests/stock.test.js");
        let ran = lines(traced, &f.test, "src/money.js");
        assert_eq!(ran.contains(&8), !stock, "{}: {ran:?}", f.test);
        let threw = lines(traced, &f.test, "src/stock.js");
        assert_eq!(threw.contains(&9), stock, "{}: {threw:?}", f.test);
    }
    let money_test = traced_run
        .failures
        .iter()
        .find(|f| f.test.starts_with("tests/money.test.js"))
        .unwrap();
    // istanbul's statements: each function's body and the exports.
    assert_eq!(
        lines(traced, &money_test.test, "src/money.js"),
        [4, 8, 12, 13, 16]
    );
    // Coverage went to the scratch directory, never into the project.
    assert!(!root.join("coverage").exists());
}

/// A configuration with coverage settings of its own is left alone: no coverage in its run.
#[test]
fn jest_with_coverage_settings_of_its_own_is_not_traced_inside_the_run() {
    let ws = workspace();
    let root = ws.path();
    let adapter = jest(root);
    let run = Runs::new(root).run_traced(adapter.as_ref(), &[], &CHANGED, Duration::from_secs(240));
    assert!(run.failed > 0, "{run:?}");
    assert_eq!(run.traced, None);
}
