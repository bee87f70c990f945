//! mocha beyond the scenario matrix (`scenarios.rs`, `mocha_*`): what a project's script and
//! configuration ask of it — parallel mode, root hook plugins, `--bail`, `--forbid-only`,
//! `--exit`, `this.retries()` — each run by the real mocha (the `mocha9` and `mocha11` package
//! sets, `scripts/setup/js.sh`) through the real `pith` binary and, where the verdict is the
//! point, beside the project's own `npm test`.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{fixture, pith, Answer, Fixture};

/// A copy of `tests/fixtures/js/mocha/<name>` on the package set `set` (`mocha9`, `mocha11`).
fn project(name: &str, set: &str) -> Fixture {
    let ws = fixture(&format!("js/mocha/{name}"));
    let m = common::repo_root()
        .join("tests/fixtures/js")
        .join(set)
        .join("node_modules");
    assert!(
        m.join(".bin/mocha").is_file(),
        "{set} is not installed for the fixtures: run scripts/setup/js.sh"
    );
    std::os::unix::fs::symlink(m, ws.path().join("node_modules")).unwrap();
    ws
}

/// The copy's `test` script replaced by `script`.
fn script(ws: &Path, script: &str) {
    let pkg = serde_json::json!({ "private": true, "scripts": { "test": script } });
    std::fs::write(ws.join("package.json"), pkg.to_string()).unwrap();
}

/// Whether the project's own `npm test` passes.
fn npm_test_passes(ws: &Path) -> bool {
    Command::new("npm")
        .args(["test", "--silent"])
        .current_dir(ws)
        .env_remove("CI")
        .output()
        .expect("run npm")
        .status
        .success()
}

fn failure<'a>(a: &'a Answer, test: &str) -> &'a serde_json::Value {
    a.failures()
        .iter()
        .find(|f| f["test"] == test)
        .unwrap_or_else(|| panic!("no failure of {test}: {}", a.line))
}

/// Two files, one test failing, one skipped, a root hook plugin the tests depend on, and a
/// `beforeEach` hook that fails: as mocha counts them (its `failing` counts the hook), the hook
/// a setup record under the id of the test it ran for.
fn hooks_and_failures(a: &Answer) {
    assert_eq!(a.json["status"], "TestsFailed", "{}", a.line);
    assert_eq!(a.json["runner"], "mocha", "{}", a.line);
    assert_eq!(a.json["passed"], 2, "the root hook ran: {}", a.line);
    assert_eq!(a.json["failed"], 2, "{}", a.line);
    assert_eq!(a.json["skipped"], 1, "{}", a.line);
    let call = failure(a, "test/a.spec.js > math > breaks");
    assert!(call.get("phase").is_none(), "{}", a.line);
    assert!(
        call["message"]
            .as_str()
            .unwrap()
            .starts_with("AssertionError: Expected values to be strictly equal"),
        "{}",
        a.line
    );
    let hook = failure(a, "test/b.spec.js > db > inner > writes");
    assert_eq!(hook["phase"], "setup", "{}", a.line);
    assert_eq!(hook["message"], "no connection", "{}", a.line);
    assert_eq!(
        common::frames(hook)[0],
        "test/b.spec.js:11 throw new Error('no connection');",
        "{}",
        a.line
    );
}

#[test]
fn parallel_mode_with_root_hooks_reports_every_file_and_hook() {
    for set in ["mocha11", "mocha9"] {
        let ws = project("hooks", set);
        assert!(!npm_test_passes(ws.path()));
        let a = pith(ws.path(), &[]);
        hooks_and_failures(&a);
        // The hook's id re-runs the test it ran for, and the hook fails again; a test's id
        // runs that test alone.
        let again = pith(ws.path(), &["test/b.spec.js > db > inner > writes"]);
        assert_eq!(again.json["failed"], 1, "{set}: {}", again.line);
        assert_eq!(again.failures()[0]["phase"], "setup", "{}", again.line);
        let one = pith(ws.path(), &["test/a.spec.js > math > adds"]);
        assert_eq!(one.json["status"], "TestsPassed", "{set}: {}", one.line);
        assert_eq!(one.json["passed"], 1, "{set}: {}", one.line);
    }
}

#[test]
fn serial_mode_reports_the_same() {
    let ws = project("hooks", "mocha11");
    script(
        ws.path(),
        "mocha --require test/setup.js --reporter dot 'test/*.spec.js'",
    );
    let a = pith(ws.path(), &[]);
    hooks_and_failures(&a);
    // The script's reporter printed what a person reads, beside pith's.
    let out = common::mcp::cli_line(ws.path(), &["output"]);
    assert!(out.contains("2 failing"), "{out}");
    assert!(!out.contains("✔"), "dot's marks, not spec's: {out}");
}

#[test]
fn bail_stops_where_mocha_stops() {
    let ws = project("hooks", "mocha11");
    script(
        ws.path(),
        "mocha --require test/setup.js --bail 'test/*.spec.js'",
    );
    let a = pith(ws.path(), &[]);
    assert_eq!(a.json["status"], "TestsFailed", "{}", a.line);
    assert_eq!(a.json["failed"], 1, "{}", a.line);
    assert_eq!(a.json["passed"], 1, "{}", a.line);
    assert_eq!(a.failures()[0]["test"], "test/a.spec.js > math > breaks");
}

#[test]
fn forbid_only_fails_the_file_that_has_one() {
    let ws = project("hooks", "mocha11");
    script(
        ws.path(),
        "mocha --require test/setup.js --forbid-only 'test/*.spec.js'",
    );
    let file = ws.path().join("test/a.spec.js");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("it('adds'", "it.only('adds'")).unwrap();
    assert!(!npm_test_passes(ws.path()));
    let a = pith(ws.path(), &[]);
    assert_eq!(a.json["status"], "CollectionFailed", "{}", a.line);
    let f = failure(&a, "test/a.spec.js");
    assert_eq!(f["phase"], "collect", "{}", a.line);
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("forbidden by --forbid-only"),
        "{}",
        a.line
    );
}

#[test]
fn process_exit_zero_inside_a_test_is_not_green() {
    for parallel in ["", "--parallel "] {
        let ws = project("hooks", "mocha11");
        script(
            ws.path(),
            &format!("mocha --require test/setup.js --exit {parallel}'test/*.spec.js'"),
        );
        let file = ws.path().join("test/a.spec.js");
        let text = std::fs::read_to_string(&file).unwrap();
        std::fs::write(
            &file,
            text.replace("assert.strictEqual(1 + 1, 3);", "process.exit(0);"),
        )
        .unwrap();
        // mocha itself exits 0.
        assert!(npm_test_passes(ws.path()));
        let a = pith(ws.path(), &[]);
        assert_eq!(a.json["status"], "RunnerFailed", "{parallel}: {}", a.line);
        assert!(
            a.json["reason"]
                .as_str()
                .unwrap()
                .starts_with("mocha exited 0 before its run ended"),
            "{}",
            a.line
        );
    }
}

#[test]
fn a_pass_on_mochas_own_retry_is_green_and_flaky() {
    let ws = project("hooks", "mocha11");
    script(ws.path(), "mocha 'test/a.spec.js'");
    let file = ws.path().join("test/a.spec.js");
    let text = std::fs::read_to_string(&file).unwrap();
    let retried = text.replace(
        "  it('breaks', () => {\n    assert.strictEqual(1 + 1, 3);\n  });",
        "  let n = 0;\n  it('breaks', function () {\n    this.retries(2);\n    n += 1;\n    assert.strictEqual(n, 2);\n  });",
    );
    assert_ne!(retried, text);
    std::fs::write(&file, retried).unwrap();
    assert!(npm_test_passes(ws.path()));
    let a = pith(ws.path(), &[]);
    assert_eq!(a.json["status"], "TestsPassed", "{}", a.line);
    assert_eq!(a.json["passed"], 2, "{}", a.line);
    let flaky = &a.json["flaky"][0];
    assert_eq!(
        flaky["test"], "test/a.spec.js > math > breaks",
        "{}",
        a.line
    );
}

#[test]
fn a_mocha_outside_9_to_11_is_runner_missing_with_the_range() {
    let ws = fixture("js/mocha/green");
    let modules = ws.path().join("node_modules");
    std::fs::create_dir_all(modules.join(".bin")).unwrap();
    std::fs::create_dir_all(modules.join("mocha")).unwrap();
    std::fs::write(
        modules.join("mocha/package.json"),
        r#"{"name":"mocha","version":"8.4.0"}"#,
    )
    .unwrap();
    let bin = modules.join(".bin/mocha");
    std::fs::write(&bin, "#!/bin/sh\nexit 0\n").unwrap();
    let mut perms = std::fs::metadata(&bin).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&bin, perms).unwrap();
    let a = pith(ws.path(), &[]);
    assert_eq!(a.json["status"], "RunnerMissing", "{}", a.line);
    assert_eq!(a.code, 2, "{}", a.line);
    assert!(
        a.line
            .contains("mocha 8.4.0 is installed; pith supports mocha 9.0 to 11.x"),
        "{}",
        a.line
    );
}

#[test]
fn a_failing_root_hook_is_a_setup_record_of_its_own() {
    for parallel in ["", "--parallel "] {
        let ws = project("hooks", "mocha11");
        script(
            ws.path(),
            &format!("mocha --require test/setup.js {parallel}'test/*.spec.js'"),
        );
        std::fs::write(
            ws.path().join("test/setup.js"),
            "exports.mochaHooks = {\n  beforeAll() {\n    throw new Error('root setup broke');\n  },\n};\n",
        )
        .unwrap();
        assert!(!npm_test_passes(ws.path()));
        let a = pith(ws.path(), &[]);
        assert_eq!(a.json["status"], "TestsFailed", "{parallel}: {}", a.line);
        let f = failure(&a, "\"before all\" hook: beforeAll in \"{root}\"");
        assert_eq!(f["phase"], "setup", "{}", a.line);
        assert_eq!(f["message"], "root setup broke", "{}", a.line);
        assert!(
            common::frames(f)[0].starts_with("test/setup.js:3 "),
            "{}",
            a.line
        );
    }
}
