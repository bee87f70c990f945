//! The real `pith` binary on the JavaScript fixture projects with the real jest, vitest and node
//! test runner, beyond the shared scenarios of `scenarios.rs`: re-runs by id, the caller's shell
//! and `NODE_OPTIONS`, and the project's declared command run in full
//! (`tests/fixtures/js/declared`: type checks, chained scripts, coverage wrappers, workspaces,
//! masked exits, snapshots, CI-keyed behaviour, configured reporters), each beside the raw
//! `npm test` a developer types. jest, vitest and the tools come from
//! `tests/fixtures/js/node_modules` (vitest 3 from `tests/fixtures/js/vitest3/node_modules`),
//! installed by `scripts/setup/js.sh` and linked into each fixture copy; without them these
//! tests fail, they never skip.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{fixture, pith, Fixture};

const RUNNERS: [&str; 3] = ["jest", "vitest", "node"];

/// A copy of `tests/fixtures/js/<runner>/<name>`, with the shared runners linked in.
fn workspace(runner: &str, name: &str) -> Fixture {
    let ws = fixture(&format!("js/{runner}/{name}"));
    if runner != "node" {
        common::link_node_modules(ws.path());
    }
    ws
}

fn run(runner: &str, name: &str, extra: &[&str]) -> common::Answer {
    let ws = workspace(runner, name);
    let a = pith(ws.path(), extra);
    assert_eq!(a.json["runner"], runner, "{}", a.line);
    a
}

#[test]
fn node_and_the_runners_are_installed() {
    assert!(
        std::process::Command::new("node")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success()),
        "node is not installed"
    );
    pith_testkit::shared_node_modules();
}

#[test]
fn ids_from_an_answer_rerun_exactly_those_tests() {
    for r in RUNNERS {
        let ws = workspace(r, "single");
        let first = pith(ws.path(), &[]);
        common::assert_reruns_only(ws.path(), &[], &first, 0, &[]);
        common::assert_not_found(
            ws.path(),
            &[],
            &[
                "tests/prices.test.js > price > euros?",
                "tests/nope.test.js > x",
            ],
        );
    }
}

/// The runners' own markers of a parent run and the caller's colour setting change nothing in
/// the answer: pith removes the markers (they would make the runner report to a parent that is
/// not there) and strips colour from what it reads.
#[test]
fn the_callers_shell_does_not_change_the_answer() {
    for r in RUNNERS {
        let plain = run(r, "single", &[]);
        // A fresh copy: the history of the first run would mark the failure as repeated.
        let ws = workspace(r, "single");
        let hostile = common::pith_with(
            ws.path(),
            &[],
            &[
                ("FORCE_COLOR", "3"),
                ("NODE_ENV", "production"),
                ("NODE_TEST_CONTEXT", "child-v8"),
                ("JEST_WORKER_ID", "7"),
                ("VITEST_WORKER_ID", "3"),
                ("VITEST", "true"),
                ("CI", "true"),
            ],
            &[],
        );
        assert_eq!(plain.stable(), hostile.stable(), "{r}");
    }
}

/// The caller's `NODE_OPTIONS` reaches the tests as in a raw run: a preload that does not
/// exist breaks the run, and the answer says so rather than running without it.
#[test]
fn the_callers_node_options_are_the_tests_own() {
    for r in RUNNERS {
        let ws = workspace(r, "green");
        let a = common::pith_with(
            ws.path(),
            &[],
            &[("NODE_OPTIONS", "--require /nonexistent/preload.js")],
            &[],
        );
        assert_ne!(a.status(), "TestsPassed", "{r}: {}", a.line);
        assert_eq!(a.code, 1, "{r}: {}", a.line);
        assert!(
            a.json["tail"]
                .as_str()
                .unwrap_or("")
                // A path from outside the workspace, in its short form.
                .contains("Cannot find module 'nonexistent/preload.js'"),
            "{r}: {}",
            a.line
        );
    }
}

// ---- The declared command, in full ----

/// A copy of `tests/fixtures/js/declared/<name>`, with the shared packages linked in (vitest 3's
/// for the `vitest3_` fixtures).
fn declared(name: &str) -> Fixture {
    let ws = fixture(&format!("js/declared/{name}"));
    let modules = if name.starts_with("vitest3") {
        let m = common::repo_root().join("tests/fixtures/js/vitest3/node_modules");
        assert!(
            m.join(".bin/vitest").is_file(),
            "vitest 3 is not installed for the fixtures: run scripts/setup/js.sh"
        );
        m
    } else {
        pith_testkit::shared_node_modules()
    };
    std::os::unix::fs::symlink(modules, ws.path().join("node_modules")).unwrap();
    ws
}

/// `npm test` in `root` as a developer types it outside CI: whether it exited 0, and what it
/// printed.
fn raw(root: &Path) -> (bool, String) {
    let out = Command::new("npm")
        .arg("test")
        .current_dir(root)
        .env_remove("CI")
        .env_remove("FORCE_COLOR")
        .env("NO_COLOR", "1")
        .env("npm_config_update_notifier", "false")
        .output()
        .expect("npm runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// `pith test` in `root` outside CI, as the same developer runs it.
fn pith_dev(root: &Path, args: &[&str]) -> common::Answer {
    common::pith_with(root, args, &[("NO_COLOR", "1")], &["CI", "FORCE_COLOR"])
}

/// Replaces `from` with `to` in a file of the copy (a later mtime, whatever the clock).
fn edit(root: &Path, file: &str, from: &str, to: &str) {
    let path = root.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{file} holds {from:?}");
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// Raw `npm test` and `pith test` on two copies of one set-up agree: pith is green exactly
/// when the raw command exits 0. Returns pith's answer.
fn agrees(name: &str, change: impl Fn(&Path)) -> common::Answer {
    let a = declared(name);
    change(a.path());
    let (green, printed) = raw(a.path());
    let b = declared(name);
    change(b.path());
    let answer = pith_dev(b.path(), &[]);
    assert_eq!(
        answer.status() == "TestsPassed",
        green,
        "{name}: pith said {}, npm test said:\n{printed}",
        answer.line
    );
    assert_eq!(answer.code, if green { 0 } else { 1 }, "{}", answer.line);
    answer
}

#[test]
fn a_type_check_before_the_tests_is_part_of_the_verdict() {
    let green = agrees("tsc_vitest", |_| {});
    assert_eq!(green.json["runner"], "vitest", "{}", green.line);
    assert_eq!(green.count("passed"), 2, "{}", green.line);
    let red = agrees("tsc_vitest", |root| {
        edit(
            root,
            "src/math.ts",
            "answer: number = add(40, 2)",
            "answer: number = '42'",
        )
    });
    assert_eq!(red.status(), "BuildFailed", "{}", red.line);
    assert_eq!(red.json["runner"], "tsc", "{}", red.line);
    let e = &red.json["buildErrors"][0];
    assert_eq!(e["at"], "src/math.ts:5", "{}", red.line);
    assert_eq!(e["code"], "TS2322", "{}", red.line);
    // tsc stopped the script: vitest never ran, and nothing says it passed.
    assert!(red.json.get("passed").is_none(), "{}", red.line);
}

#[test]
fn every_script_a_chained_test_script_runs_is_run() {
    // `npm run test:unit && npm run test:typescript`: `c8 --100 node --test`, then `tsd`.
    let green = agrees("unit_typescript", |_| {});
    assert_eq!(green.json["runner"], "node", "{}", green.line);
    assert_eq!(green.count("passed"), 1, "{}", green.line);
    // A line no test covers: c8's threshold fails the script, node's tests passed.
    let ws = declared("unit_typescript");
    edit(
        ws.path(),
        "index.js",
        "module.exports = { add };",
        "function sub(a, b) {\n  return a - b;\n}\n\nmodule.exports = { add, sub };",
    );
    let a = pith_dev(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!(a.count("passed"), 1, "{}", a.line);
    assert!(
        a.text("reason")
            .contains("does not meet global threshold (100%)"),
        "c8's own threshold line is the reason: {}",
        a.line
    );
    // The types the package declares are wrong: tsd fails the script after the tests passed.
    let ws = declared("unit_typescript");
    edit(
        ws.path(),
        "index.test-d.ts",
        "expectType<number>",
        "expectType<string>",
    );
    let a = pith_dev(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!(a.json["runner"], "node,tsd", "{}", a.line);
    assert!(a.text("reason").starts_with("tsd exited 1"), "{}", a.line);
    assert!(
        a.text("tail").contains("index.test-d.ts"),
        "tsd's own words: {}",
        a.line
    );
    // A failing test fails it first.
    let ws = declared("unit_typescript");
    edit(
        ws.path(),
        "test/add.test.js",
        "add(1, 2), 3",
        "add(1, 2), 4",
    );
    let a = pith_dev(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(
        a.failures()[0]["test"],
        "test/add.test.js > adds",
        "{}",
        a.line
    );
}

#[test]
fn npm_workspaces_run_every_packages_own_command() {
    let green = agrees("workspaces", |_| {});
    assert_eq!(green.json["runner"], "jest,node", "{}", green.line);
    let runs: Vec<(&str, &str)> = green.json["runs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["runner"].as_str().unwrap_or(""),
                r["dir"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        runs,
        [("jest", "packages/a"), ("node", "packages/b")],
        "{}",
        green.line
    );
    // A failure in either package is red, and the answer names its package's run.
    for (file, from, to, dir) in [
        ("packages/a/sum.test.js", "toBe(3)", "toBe(4)", "packages/a"),
        (
            "packages/b/test/twice.test.js",
            "2 * 21, 42",
            "2 * 21, 43",
            "packages/b",
        ),
    ] {
        let red = agrees("workspaces", |root| edit(root, file, from, to));
        assert_eq!(red.status(), "TestsFailed", "{}", red.line);
        let failed: Vec<&str> = red.json["runs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["status"] == "TestsFailed")
            .filter_map(|r| r["dir"].as_str())
            .collect();
        assert_eq!(failed, [dir], "{}", red.line);
        assert!(
            red.failures()[0]["test"]
                .as_str()
                .unwrap_or("")
                .starts_with(dir),
            "{}",
            red.line
        );
    }
    // A re-run of one package's test runs that package's runner alone, in its directory.
    let ws = declared("workspaces");
    let again = pith_dev(ws.path(), &["packages/a/sum.test.js > sums"]);
    assert_eq!(
        (again.status(), again.count("passed")),
        ("TestsPassed", 1),
        "{}",
        again.line
    );
    assert_eq!(again.json["runner"], "jest", "{}", again.line);
}

#[test]
fn a_workspace_the_command_leaves_out_is_not_run() {
    // `npm test -w a`: b's failure is not the command's, and pith does not run b.
    let change = |root: &Path| {
        edit(
            root,
            "package.json",
            "npm test --workspaces",
            "npm test -w a",
        );
        edit(
            root,
            "packages/b/test/twice.test.js",
            "2 * 21, 42",
            "2 * 21, 43",
        );
    };
    let a = agrees("workspaces", change);
    assert_eq!(a.status(), "TestsPassed", "{}", a.line);
    assert_eq!(a.json["runner"], "jest", "{}", a.line);
    assert!(a.json.get("runs").is_none(), "only a ran: {}", a.line);
}

#[test]
fn a_package_the_roots_command_does_not_run_is_run_on_its_own() {
    // The root's `node --test test/` never reaches packages/b, whose own `jest` fails: the
    // root does not hide it.
    let ws = declared("root_and_package");
    let a = pith_dev(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(
        a.failures()[0]["test"],
        "packages/b/b.test.js > b multiplies",
        "{}",
        a.line
    );
    let dirs: Vec<&str> = a.json["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["dir"].as_str().unwrap_or("."))
        .collect();
    assert_eq!(dirs, [".", "packages/b"], "{}", a.line);
}

#[test]
fn a_failure_the_script_hides_from_its_exit_is_still_a_failure() {
    // `jest || true`: npm test exits 0 over a failing test.
    let ws = declared("jest_or_true");
    let (green, _) = raw(ws.path());
    assert!(green, "npm test exits 0 over it");
    let a = pith_dev(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(
        a.failures()[0]["test"],
        "price.test.js > rounds down",
        "{}",
        a.line
    );
    assert_eq!(
        a.text("masked"),
        "npm test exits 0 over these failures",
        "{}",
        a.line
    );
}

#[test]
fn a_new_snapshot_is_written_as_npm_test_writes_it() {
    for (name, runner) in [("jest_snapshot", "jest"), ("vitest_snapshot", "vitest")] {
        let snap = "tests/__snapshots__/view.test.js.snap";
        let by_hand = declared(name);
        let (green, printed) = raw(by_hand.path());
        assert!(green, "{name}: {printed}");
        let ws = declared(name);
        let a = pith_dev(ws.path(), &[]);
        assert_eq!((a.status(), a.code), ("TestsPassed", 0), "{}", a.line);
        assert_eq!(a.json["runner"], runner, "{}", a.line);
        assert_eq!(a.count("snapshotsWritten"), 1, "{}", a.line);
        assert_eq!(
            std::fs::read(ws.path().join(snap)).unwrap(),
            std::fs::read(by_hand.path().join(snap)).unwrap(),
            "{name}: the snapshot is written as npm test writes it"
        );
        // Written once: the next run reads it, writes nothing and says nothing of it.
        let again = pith_dev(ws.path(), &[]);
        assert_eq!(again.status(), "TestsPassed", "{}", again.line);
        assert!(
            again.json.get("snapshotsWritten").is_none(),
            "{}",
            again.line
        );
    }
    // Where the caller set CI, jest refuses to write one, and the failure says why.
    let ws = declared("jest_snapshot");
    let a = common::pith_with(ws.path(), &[], &[("CI", "true")], &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert!(
        a.failures()[0]["message"]
            .as_str()
            .unwrap_or("")
            .contains("New snapshot was not written"),
        "{}",
        a.line
    );
    assert!(!ws.path().join("tests/__snapshots__").exists());
}

#[test]
fn a_focused_test_runs_as_it_does_outside_ci() {
    // vitest 3 forbids `test.only` under CI; pith sets no CI, so it runs it alone, as npm test.
    let a = agrees("vitest3_only", |_| {});
    assert_eq!(
        (a.count("passed"), a.count("skipped")),
        (1, 1),
        "{}",
        a.line
    );
}

#[test]
fn tests_see_the_ci_variable_as_the_caller_has_it() {
    let a = agrees("vitest3_ci", |_| {});
    assert_eq!(
        (a.status(), a.count("passed")),
        ("TestsPassed", 1),
        "{}",
        a.line
    );
    // The caller's own CI reaches them, as it reaches npm test's.
    let ws = declared("vitest3_ci");
    let on_ci = common::pith_with(ws.path(), &[], &[("CI", "true")], &[]);
    assert_eq!(on_ci.status(), "TestsFailed", "{}", on_ci.line);
}

#[test]
fn reporters_the_configuration_names_still_run() {
    // The project's own reporter fails a run with a slow test: vitest's `--reporter` would
    // replace it; pith names it again beside its own.
    let a = agrees("vitest_reporters", |_| {});
    assert_eq!(
        (a.status(), a.count("passed")),
        ("RunnerFailed", 2),
        "{}",
        a.line
    );
    assert!(
        a.text("tail").contains("gate: 1 slow test(s)"),
        "{}",
        a.line
    );
    assert!(
        !a.text("tail").contains("JSON report written"),
        "{}",
        a.line
    );
}

#[test]
fn a_glob_in_the_script_reaches_node_as_sh_expands_it() {
    // `node --test test/*.test.js`, unquoted: sh hands node the files (node 20 takes a
    // pattern it is given for a file name).
    let a = agrees("node_globs", |_| {});
    assert_eq!(
        (a.status(), a.count("passed")),
        ("TestsPassed", 2),
        "{}",
        a.line
    );
}

/// A vitest outside the range pith observes (0.x, or a major newer than it knows) is never
/// started with flags it may reject: `RunnerMissing`, exit 2, naming the version found and the
/// range supported.
#[test]
fn a_vitest_outside_the_supported_range_is_named_and_not_run() {
    for version in ["0.34.6", "5.0.0"] {
        refused_outside_its_range("js/vitest/green", "vitest", version, "1.0 to 4.x");
    }
}

/// jest outside 27–30 likewise: its version from `node_modules/jest/package.json`, never a
/// start.
#[test]
fn a_jest_outside_the_supported_range_is_named_and_not_run() {
    for version in ["26.6.3", "31.0.0"] {
        refused_outside_its_range("js/jest/green", "jest", version, "27.0 to 30.x");
    }
}

/// A node older than pith's node:test observation supports (18.19): RunnerMissing naming the
/// version it printed and the range, never a run with a flag it lacks (16) or events pith could
/// not place (18.18). The node is the project's `node_modules/.bin/node`, first on the
/// script's PATH as npm's `node` package puts it; it records any start but `--version`.
#[test]
fn a_node_outside_the_supported_range_is_named_and_not_run() {
    use std::os::unix::fs::PermissionsExt;
    for version in ["16.20.2", "18.18.2"] {
        let ws = fixture("js/node/green");
        let bin = ws.path().join("node_modules/.bin");
        std::fs::create_dir_all(&bin).unwrap();
        let started = ws.path().join("started");
        let node = bin.join("node");
        std::fs::write(
            &node,
            format!(
                "#!/bin/sh\nif [ \"$1\" = --version ]; then echo v{version}; exit 0; fi\ntouch '{}'\nexit 1\n",
                started.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&node, std::fs::Permissions::from_mode(0o755)).unwrap();
        let a = pith(ws.path(), &[]);
        assert_eq!((a.status(), a.code), ("RunnerMissing", 2), "{}", a.line);
        assert_eq!(a.json["runner"], "node", "{}", a.line);
        let said = format!("node {version} is installed; pith supports node 18.19 and newer");
        assert!(a.line.contains(&said), "{}", a.line);
        assert!(!started.exists(), "node {version} was started");
    }
}

/// `fixture` with `runner` installed at `version` (its package.json, and a fake program that
/// records any start) answers RunnerMissing naming the version and `range`, never starting it.
fn refused_outside_its_range(fixture_name: &str, runner: &str, version: &str, range: &str) {
    use std::os::unix::fs::PermissionsExt;
    let ws = fixture(fixture_name);
    let modules = ws.path().join("node_modules");
    std::fs::create_dir_all(modules.join(".bin")).unwrap();
    std::fs::create_dir_all(modules.join(runner)).unwrap();
    std::fs::write(
        modules.join(runner).join("package.json"),
        format!(r#"{{"name": "{runner}", "version": "{version}"}}"#),
    )
    .unwrap();
    let started = ws.path().join("started");
    let bin = modules.join(".bin").join(runner);
    std::fs::write(
        &bin,
        format!("#!/bin/sh\ntouch '{}'\nexit 1\n", started.display()),
    )
    .unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("RunnerMissing", 2), "{}", a.line);
    assert_eq!(a.json["runner"], runner, "{}", a.line);
    let said = format!("{runner} {version} is installed; pith supports {runner} {range}");
    assert!(a.line.contains(&said), "{}", a.line);
    assert!(!started.exists(), "{runner} {version} was started");
}
