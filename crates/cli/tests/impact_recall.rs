//! A selection never misses a failing test on the impact fixtures: every injected bug of the
//! Python and Go projects (`tests/fixtures/impact_bugs.json`, the bugs `cargo xtask impact`
//! measures), with git and without, goes through `pith select` after a green run, and every
//! test file the bug fails in the real runner (or, for a build failure, stops from running)
//! must be among the selected files, or the selection must be everything. The Python
//! project's `dynamic` bug is in a module only a test's import by a computed name reaches: the
//! graph sees no edge to it, so only the rule that a test with dynamic imports runs on every
//! change keeps its failing test selected.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use common::{committed, fixture, query};

struct Bug {
    kind: String,
    file: String,
    old: String,
    new: String,
    blocked: Vec<String>,
}

/// The fixture and bugs of project `eco` in the bug list.
fn project(eco: &str) -> (String, Vec<Bug>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/impact_bugs.json");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let p = doc["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["eco"] == eco)
        .unwrap_or_else(|| panic!("no {eco} project in the bug list"));
    let text = |v: &serde_json::Value, k: &str| v[k].as_str().unwrap().to_owned();
    let bugs = p["bugs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| Bug {
            kind: text(b, "kind"),
            file: text(b, "file"),
            old: text(b, "old"),
            new: text(b, "new"),
            blocked: common::strings(&b["blocked"])
                .into_iter()
                .map(str::to_owned)
                .collect(),
        })
        .collect();
    (text(p, "fixture"), bugs)
}

fn inject(root: &Path, bug: &Bug) {
    let path = root.join(&bug.file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        text.matches(&bug.old).count(),
        1,
        "{}: {:?}",
        bug.file,
        bug.old
    );
    // A later mtime than the green run's, whatever the clock's resolution.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(path, text.replacen(&bug.old, &bug.new, 1)).unwrap();
}

/// The test ids of every failure of the last run, through `pith failures`' pages.
fn failing_ids(root: &Path) -> Vec<String> {
    let mut ids = Vec::new();
    let mut page = 1;
    loop {
        let a = query(root, &["failures", "--page", &page.to_string()]);
        ids.extend(a.failure_ids().into_iter().map(str::to_owned));
        match a.json["nextPage"].as_u64() {
            Some(next) if next > page => page = next,
            _ => return ids,
        }
    }
}

/// The test file of a failing test: pytest's id starts with it (a collection error's is the
/// file alone); Go's
/// (`example.com/shop/cart.TestTotal/sub`) names the package's directory, and the file there
/// declaring the test.
fn test_file(root: &Path, id: &str) -> String {
    let file = id.split("::").next().unwrap();
    if file.ends_with(".py") {
        return file.to_owned();
    }
    let local = id
        .strip_prefix("example.com/shop/")
        .unwrap_or_else(|| panic!("{id}"));
    let (dir, test) = local.split_once('.').unwrap_or_else(|| panic!("{id}"));
    let name = test.split('/').next().unwrap();
    let declared = format!("func {name}(");
    for e in std::fs::read_dir(root.join(dir)).unwrap() {
        let path = e.unwrap().path();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        if file.ends_with("_test.go") && std::fs::read_to_string(&path).unwrap().contains(&declared)
        {
            return format!("{dir}/{file}");
        }
    }
    panic!("no test file in {dir} declares {name}");
}

/// Every bug of `eco`, on a fresh copy (committed to git when `git`): the selection holds
/// every test file the bug fails or stops. `kinds` are the bug kinds the list must hold for
/// it, so a bug dropped from the list is noticed.
fn every_failing_test_is_selected(eco: &str, git: bool, kinds: &[&str]) {
    let (dir, bugs) = project(eco);
    let listed: Vec<&str> = bugs.iter().map(|b| b.kind.as_str()).collect();
    assert_eq!(listed, kinds, "{eco}: the bug list changed");
    for bug in &bugs {
        let ws = fixture(&dir);
        if git {
            committed(ws.path());
        }
        let green = common::pith(ws.path(), &[]);
        assert_eq!(green.status(), "TestsPassed", "{}", green.line);
        inject(ws.path(), bug);
        let select = query(ws.path(), &["select"]);
        // The selection run before any red run: the last run was green, so what failed last
        // time adds nothing to it, and what it fails is what the selection holds.
        let changed = common::pith(ws.path(), &["--changed"]);
        let changed_failing: BTreeSet<String> = failing_ids(ws.path())
            .iter()
            .map(|id| test_file(ws.path(), id))
            .collect();
        let red = common::pith(ws.path(), &[]);
        assert_ne!(red.status(), "TestsPassed", "{}: {}", bug.kind, red.line);
        let mut failing: BTreeSet<String> = bug.blocked.iter().cloned().collect();
        failing.extend(
            failing_ids(ws.path())
                .iter()
                .map(|id| test_file(ws.path(), id)),
        );
        assert!(
            !failing.is_empty(),
            "{}: nothing to select: {}",
            bug.kind,
            red.line
        );
        if select.json.get("all").is_some() {
            continue;
        }
        // The answer names the nearest selected files within its budget and counts the rest;
        // a failing file among the rest is held when the `--changed` run fails it too. The
        // recall is read from what pith selected and ran, never guessed.
        let more = select.count("moreTests") > 0;
        let selected = common::strings(&select.json["tests"]);
        for file in &failing {
            assert!(
                selected.contains(&file.as_str()) || (more && changed_failing.contains(file)),
                "{eco} {} (git: {git}): {file} fails but is not selected: {} (--changed: {}; red: {})",
                bug.kind,
                select.line,
                changed.line,
                red.line
            );
        }
    }
}

/// Every kind once; Python's fixture also has the dynamic-import hole.
const GO_KINDS: &[&str] = &[
    "wrongResult",
    "helper",
    "deepException",
    "compileError",
    "config",
];
const PYTHON_KINDS: &[&str] = &[
    "wrongResult",
    "helper",
    "deepException",
    "compileError",
    "config",
    "dynamic",
];

#[test]
fn python_selections_hold_every_failing_test_with_git() {
    every_failing_test_is_selected("python", true, PYTHON_KINDS);
}

#[test]
fn python_selections_hold_every_failing_test_without_git() {
    every_failing_test_is_selected("python", false, PYTHON_KINDS);
}

#[test]
fn go_selections_hold_every_failing_test_with_git() {
    every_failing_test_is_selected("go", true, GO_KINDS);
}

#[test]
fn go_selections_hold_every_failing_test_without_git() {
    every_failing_test_is_selected("go", false, GO_KINDS);
}
