//! Change memory, reach and impact through the real `pith` binary and the real pytest: a red
//! run names the changed line its failing tests reach (against the last run in which they
//! passed, with and without git; against git `HEAD` when they never passed), `tests-for`,
//! `select` and `blast` follow the import graph, and a change the graph cannot follow selects
//! everything. Every answer's budget is asserted.

use crate::common;

use common::impact::{harmless_edit, inject, suspects, BUG_AT, HELPER};
use common::{committed, fixture, query, Answer};
use pith_wire::{BLAST_BUDGET, SELECT_BUDGET, TESTS_FOR_BUDGET};

/// A green answer with the one changed line no test reaches.
const GREEN_WITH_UNTESTED_BUDGET: usize = 200;

/// The red answer of the injected bug: two failures of two causes, and the suspect.
const RED_WITH_SUSPECT_BUDGET: usize = 560;

fn assert_red_with_suspect(a: &Answer, baseline: &str) {
    assert_eq!(a.status(), "TestsFailed", "{}", a.line);
    assert_eq!(a.count("failed"), 2, "{}", a.line);
    // The runner's own output never names the helper: pith does.
    assert!(
        !a.json["failures"].to_string().contains(HELPER),
        "{}",
        a.line
    );
    assert_eq!(suspects(a).first().copied(), Some(BUG_AT), "{}", a.line);
    // pytest traces its failing tests inside the red run: what they executed, not the graph.
    assert_eq!(a.text("reach"), "traced", "{}", a.line);
    assert_eq!(a.text("baseline"), baseline, "{}", a.line);
    // Two failures in full, and the suspect that replaces a search through the code.
    a.assert_budget(RED_WITH_SUSPECT_BUDGET);
}

#[test]
fn a_red_run_names_the_changed_helper_line_since_the_tests_last_passed_with_git() {
    let ws = fixture("python/impact");
    committed(ws.path());
    assert_eq!(common::pith(ws.path(), &[]).status(), "TestsPassed");
    inject(ws.path());
    assert_red_with_suspect(&common::pith(ws.path(), &[]), "lastPass");
}

#[test]
fn without_git_pith_remembers_what_the_files_were_when_the_tests_passed() {
    let ws = fixture("python/impact");
    assert_eq!(common::pith(ws.path(), &[]).status(), "TestsPassed");
    inject(ws.path());
    let red = common::pith(ws.path(), &[]);
    assert_red_with_suspect(&red, "lastPass");
    // An unrelated edit after the bug: still the helper's line first, the baseline is the
    // tests' last pass, not the last run.
    let report = ws.path().join("src/shop/report.py");
    let text = std::fs::read_to_string(&report).unwrap();
    std::fs::write(&report, text.replace("title()", "title() ")).unwrap();
    let again = common::pith(ws.path(), &[]);
    assert_eq!(
        suspects(&again).first().copied(),
        Some(BUG_AT),
        "{}",
        again.line
    );
    assert!(
        !suspects(&again)
            .iter()
            .any(|s| s.starts_with("src/shop/report.py")),
        "no failing test reaches report.py: {}",
        again.line
    );
}

#[test]
fn tests_that_never_passed_compare_with_git_head() {
    let ws = fixture("python/impact");
    committed(ws.path());
    inject(ws.path());
    assert_red_with_suspect(&common::pith(ws.path(), &[]), "git");
}

#[test]
fn nothing_to_compare_with_means_no_suspects() {
    let ws = fixture("python/impact");
    inject(ws.path());
    let red = common::pith(ws.path(), &[]);
    assert_eq!(red.status(), "TestsFailed", "{}", red.line);
    for absent in ["suspects", "reach", "baseline"] {
        assert!(red.json.get(absent).is_none(), "{absent}: {}", red.line);
    }
}

#[test]
fn tests_for_a_file_follow_the_imports() {
    let ws = fixture("python/impact");
    let a = query(ws.path(), &["tests-for", HELPER]);
    assert_eq!(a.code, 0, "{}", a.line);
    a.assert_budget(TESTS_FOR_BUDGET);
    assert_eq!(
        common::strings(&a.json["tests"]),
        ["tests/test_money.py", "tests/test_cart.py"],
        "{}",
        a.line
    );
    assert_eq!(a.text("reach"), "static");
    let data = query(ws.path(), &["tests-for", "data/labels.json"]);
    assert_eq!(data.code, 0, "{}", data.line);
    assert!(data.json.get("all").is_some(), "{}", data.line);
    data.assert_budget(TESTS_FOR_BUDGET);
    let outside = common::bare()
        .args(["tests-for", "/etc/hostname", "--root"])
        .arg(ws.path())
        .output()
        .unwrap();
    assert_eq!(outside.status.code(), Some(2));
    assert!(outside.stdout.is_empty());
}

/// A change to one function of a module every part imports selects the tests that can reach
/// that function — through a file that names it — not every test that imports the module;
/// code that runs when the module loads selects them all again. Measured from the last green
/// run and from git alike, and `--changed` runs exactly that selection.
#[test]
fn a_change_to_one_function_selects_only_the_tests_that_can_reach_it() {
    let ws = fixture("python/impact_shop");
    committed(ws.path());
    assert_eq!(common::pith(ws.path(), &[]).status(), "TestsPassed");
    let money = ws.path().join("src/shop/money.py");
    let text = std::fs::read_to_string(&money).unwrap();
    let edited = text.replace(
        "return f\"{total_cents // 100}.{total_cents % 100:02d}\"",
        "return \"%d.%02d\" % (total_cents // 100, total_cents % 100)",
    );
    assert_ne!(text, edited);
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&money, &edited).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    // `fmt` is named by orders.py (so its tests) and by the money tests; the cart imports
    // money for `cents` alone. The plugin test loads by computed name what the green run saw
    // it load (shipping.py), which reaches no money.
    let expected = ["tests/test_money.py", "tests/test_orders.py"];
    for args in [&["select"][..], &["select", "--rev", "HEAD"]] {
        let a = query(ws.path(), args);
        a.assert_budget(SELECT_BUDGET);
        let mut tests = common::strings(&a.json["tests"]);
        tests.sort_unstable();
        assert_eq!(tests, expected, "{args:?}: {}", a.line);
    }
    let run = common::pith(ws.path(), &["--changed"]);
    assert_eq!(run.status(), "TestsPassed", "{}", run.line);
    let raw = |files: &[&str]| {
        let out = std::process::Command::new("python3")
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .args(files)
            .current_dir(ws.path())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let passed = text.lines().rev().find_map(|l| {
            l.split(" passed")
                .next()?
                .rsplit(' ')
                .next()?
                .parse::<u64>()
                .ok()
        });
        passed.unwrap_or_else(|| panic!("no count in {text}"))
    };
    assert_eq!(run.count("passed"), raw(&expected), "{}", run.line);

    // Code that runs on load: every test that reaches the module.
    std::fs::write(
        &money,
        format!("{edited}\nSYMBOL = fmt(0)[:0]\nprint(end=SYMBOL)\n"),
    )
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let a = query(ws.path(), &["select"]);
    let tests = common::strings(&a.json["tests"]);
    assert!(tests.contains(&"tests/test_cart.py"), "{}", a.line);
}

/// A green run after changes names the changed lines no test reaches: a function added that
/// nothing calls, beside an edit to one the tests run (not named); once a green run of
/// everything has seen them, the next answers without them.
#[test]
fn a_green_run_names_the_changed_lines_no_test_reaches() {
    let ws = fixture("python/impact_shop");
    committed(ws.path());
    assert_eq!(common::pith(ws.path(), &[]).status(), "TestsPassed");
    let cart = ws.path().join("src/shop/cart.py");
    let text = std::fs::read_to_string(&cart).unwrap();
    let edited = text
        .replace(
            "def count(prices):",
            "def average(prices):\n    return total(prices) // max(count(prices), 1)\n\n\ndef count(prices):",
        )
        .replace(
            "return sum(cents(p) for p in prices if is_positive(p))",
            "return sum([cents(p) for p in prices if is_positive(p)])",
        );
    assert_ne!(text, edited);
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&cart, edited).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let green = common::pith(ws.path(), &[]);
    assert_eq!(green.status(), "TestsPassed", "{}", green.line);
    assert_eq!(
        common::strings(&green.json["untested"]),
        ["src/shop/cart.py:10 def average(prices):"],
        "{}",
        green.line
    );
    assert_eq!(green.text("reach"), "static", "{}", green.line);
    green.assert_budget(GREEN_WITH_UNTESTED_BUDGET);
    // Seen by a green run of everything: no longer news.
    let again = common::pith(ws.path(), &[]);
    assert!(again.json.get("untested").is_none(), "{}", again.line);
    assert!(again.json.get("reach").is_none(), "{}", again.line);
}

/// `--changed` runs the test classes the build runs: one the pom's Surefire `excludes` keep
/// out (and that fails) is selected by the change, but Surefire never runs it under the
/// project's own `mvn test`, so neither does pith (passed by name, `-Dtest` would run it).
#[test]
fn changed_runs_no_test_class_the_pom_excludes() {
    let ws = fixture("java/impact_shop");
    let pom = ws.path().join("pom.xml");
    let text = std::fs::read_to_string(&pom).unwrap();
    let excluded = text.replacen(
        "          <systemPropertyVariables>",
        "          <excludes>\n            <exclude>**/SlowCartTest.java</exclude>\n          </excludes>\n          <systemPropertyVariables>",
        1,
    );
    assert_ne!(text, excluded);
    std::fs::write(&pom, excluded).unwrap();
    std::fs::write(
        ws.path().join("src/test/java/shop/SlowCartTest.java"),
        "package shop;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\n\
         import org.junit.jupiter.api.Test;\n\nclass SlowCartTest {\n    @Test\n    \
         void totalsAgainstTheService() {\n        assertEquals(-1, Cart.total(1.0));\n    }\n}\n",
    )
    .unwrap();
    committed(ws.path());
    let green = common::pith(ws.path(), &[]);
    assert_eq!(green.status(), "TestsPassed", "{}", green.line);
    common::edit(
        ws.path(),
        "src/main/java/shop/Cart.java",
        ".mapToLong(Money::cents).sum();",
        ".mapToLong(Money::cents).sum() + 0;",
    );
    let changed = common::pith(ws.path(), &["--changed"]);
    assert_eq!(changed.status(), "TestsPassed", "{}", changed.line);
    assert!(changed.count("passed") > 0, "{}", changed.line);
    assert!(!changed.line.contains("SlowCartTest"), "{}", changed.line);
    // What pith names and counts as the suite is what Surefire runs, too.
    assert_not_in_suite(ws.path(), "src/main/java/shop/Cart.java", "SlowCartTest", 6);
}

/// `select` after a change to `file`, `tests-for` and `blast` of it name no file `left_out`
/// names (one the build keeps out of its tests), and `select` counts the suite without it:
/// `suite` test files.
fn assert_not_in_suite(root: &std::path::Path, file: &str, left_out: &str, suite: u64) {
    let select = query(root, &["select", "--rev", "HEAD"]);
    assert_eq!(select.code, 0, "{}", select.line);
    assert!(
        !common::strings(&select.json["tests"]).is_empty(),
        "{}",
        select.line
    );
    let tests_for = query(root, &["tests-for", file]);
    let blast = query(root, &["blast", file]);
    for a in [&select, &tests_for, &blast] {
        let named = common::strings(&a.json["tests"]);
        assert!(!named.iter().any(|t| t.contains(left_out)), "{}", a.line);
    }
    assert_eq!(select.count("suite"), suite, "{}", select.line);
}

/// A test that loads modules by a computed name no run has seen it load (pith observes
/// pytest's loads, not jest's) may reach anything: a green run then names no line unreached.
#[test]
fn a_test_loading_by_a_computed_name_leaves_no_line_untested() {
    let ws = fixture("js/impact_shop");
    common::link_node_modules(ws.path());
    committed(ws.path());
    assert_eq!(common::pith(ws.path(), &[]).status(), "TestsPassed");
    common::edit(
        ws.path(),
        "src/cart.js",
        "function count(prices) {",
        "function average(prices) {\n  return Math.floor(total(prices) / Math.max(count(prices), 1));\n}\n\nfunction count(prices) {",
    );
    let green = common::pith(ws.path(), &[]);
    assert_eq!(green.status(), "TestsPassed", "{}", green.line);
    assert!(green.json.get("untested").is_none(), "{}", green.line);
}

/// `--changed` runs the test modules the project's `pytest` collects: one outside its
/// `testpaths` (a benchmark kept apart, failing here) reaches the change, but the project's
/// own `pytest` never runs it, so neither does pith (given by path, pytest would).
#[test]
fn changed_runs_no_module_outside_the_projects_testpaths() {
    let ws = fixture("python/impact_shop");
    let pyproject = std::fs::read_to_string(ws.path().join("pyproject.toml")).unwrap();
    assert!(pyproject.contains("testpaths = [\"tests\"]"), "{pyproject}");
    std::fs::create_dir_all(ws.path().join("benchmarks")).unwrap();
    std::fs::write(
        ws.path().join("benchmarks/test_speed.py"),
        "from shop.money import fmt\n\n\ndef test_fmt_is_fast():\n    assert fmt(100) == \"needs a timer\"\n",
    )
    .unwrap();
    committed(ws.path());
    let green = common::pith(ws.path(), &[]);
    assert_eq!(green.status(), "TestsPassed", "{}", green.line);
    common::edit(
        ws.path(),
        "src/shop/money.py",
        "return f\"{total_cents // 100}.{total_cents % 100:02d}\"",
        "return \"%d.%02d\" % (total_cents // 100, total_cents % 100)",
    );
    let changed = common::pith(ws.path(), &["--changed"]);
    assert_eq!(changed.status(), "TestsPassed", "{}", changed.line);
    assert!(!changed.line.contains("test_speed"), "{}", changed.line);
    assert_not_in_suite(ws.path(), "src/shop/money.py", "test_speed", 7);
}

#[test]
fn select_runs_what_the_changes_reach_and_everything_when_it_cannot_follow() {
    let ws = fixture("python/impact");
    committed(ws.path());
    assert_eq!(common::pith(ws.path(), &[]).status(), "TestsPassed");
    inject(ws.path());
    let a = query(ws.path(), &["select"]);
    a.assert_budget(SELECT_BUDGET);
    assert_eq!(a.text("baseline"), "lastGreen", "{}", a.line);
    assert_eq!(a.count("changed"), 1, "{}", a.line);
    assert_eq!(
        common::strings(&a.json["tests"]),
        ["tests/test_money.py", "tests/test_cart.py"],
        "{}",
        a.line
    );
    assert_eq!(a.count("suite"), 3);
    // Never miss: every test the bug fails is in a selected file.
    let red = common::pith(ws.path(), &[]);
    for id in red.failure_ids() {
        let file = id.split("::").next().unwrap();
        assert!(
            common::strings(&a.json["tests"]).contains(&file),
            "{id} not selected: {}",
            a.line
        );
    }
    // Against a revision: the same change, measured from git.
    let by_rev = query(ws.path(), &["select", "--rev", "HEAD"]);
    assert_eq!(by_rev.text("baseline"), "git", "{}", by_rev.line);
    assert_eq!(by_rev.json["tests"], a.json["tests"]);

    // Data the tests read: everything, with the reason.
    std::fs::write(
        ws.path().join("data/labels.json"),
        "{\"greeting\": \"Hi\"}\n",
    )
    .unwrap();
    let all = query(ws.path(), &["select"]);
    all.assert_budget(SELECT_BUDGET);
    assert!(all.text("all").contains("data/labels.json"), "{}", all.line);
    assert!(all.json.get("tests").is_none(), "{}", all.line);

    let bad = common::bare()
        .args(["select", "--rev=--output=x", "--root"])
        .arg(ws.path())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(!ws.path().join("x").exists());
}

#[test]
fn blast_radius_of_a_file_and_of_a_symbol() {
    let ws = fixture("python/impact");
    let file = query(ws.path(), &["blast", HELPER]);
    file.assert_budget(BLAST_BUDGET);
    assert_eq!(
        common::strings(&file.json["files"]),
        ["src/shop/cart.py"],
        "{}",
        file.line
    );
    assert_eq!(
        common::strings(&file.json["tests"]),
        ["tests/test_money.py", "tests/test_cart.py"],
        "{}",
        file.line
    );
    let symbol = query(ws.path(), &["blast", "is_positive"]);
    symbol.assert_budget(BLAST_BUDGET);
    assert_eq!(
        common::strings(&symbol.json["defined"]),
        ["src/shop/money.py:8"],
        "{}",
        symbol.line
    );
    assert!(
        common::strings(&symbol.json["tests"]).contains(&"tests/test_cart.py"),
        "{}",
        symbol.line
    );
    let unknown = query(ws.path(), &["blast", "no_such_name_anywhere"]);
    assert_eq!(unknown.code, 1, "{}", unknown.line);
    assert_eq!(unknown.json["unknown"], true);
}

#[test]
fn test_changed_runs_exactly_the_selection_in_one_invocation() {
    let ws = fixture("python/impact");
    committed(ws.path());
    let green = common::pith(ws.path(), &[]);
    assert_eq!(green.count("passed"), 7, "{}", green.line);
    inject(ws.path());
    let changed = common::pith(ws.path(), &["--changed"]);
    assert_eq!(changed.status(), "TestsFailed", "{}", changed.line);
    // test_money.py (2) and test_cart.py (3) ran; test_report.py (2) did not.
    assert_eq!(
        (changed.count("passed"), changed.count("failed")),
        (3, 2),
        "{}",
        changed.line
    );
    assert_eq!(
        changed.json["changes"],
        serde_json::json!({"baseline": "lastGreen", "files": 1, "tests": 2, "suite": 3}),
        "{}",
        changed.line
    );
    // The full run fails the same tests.
    let full = common::pith(ws.path(), &[]);
    assert_eq!(full.failure_ids(), changed.failure_ids());

    // Reverted: nothing changed since the last green run, and what failed runs again.
    let text = std::fs::read_to_string(ws.path().join(HELPER)).unwrap();
    std::fs::write(ws.path().join(HELPER), text.replace(">= 0", "> 0")).unwrap();
    let fixed = common::pith(ws.path(), &["--changed"]);
    assert_eq!(fixed.status(), "TestsPassed", "{}", fixed.line);
    assert_eq!(fixed.count("passed"), 2, "{}", fixed.line);
    assert_eq!(
        fixed.json["changes"],
        serde_json::json!({"baseline": "lastGreen", "suite": 3, "failing": 2}),
        "{}",
        fixed.line
    );

    // A change the graph cannot follow runs everything, and says why.
    std::fs::write(
        ws.path().join("data/labels.json"),
        "{\"greeting\": \"Hello\"}  \n",
    )
    .unwrap();
    let all = common::pith(ws.path(), &["--changed"]);
    assert_eq!(all.count("passed") + all.count("failed"), 7, "{}", all.line);
    assert!(
        all.json["changes"]["all"]
            .as_str()
            .unwrap()
            .contains("data/labels.json"),
        "{}",
        all.line
    );
}

/// An agent runs `pith test --changed` in its loop: with nothing changed since the last green
/// run the green answer stands (exit 0, `unchanged`, a few dozen bytes) rather than "no tests
/// ran" — but never over a test still failing from a run that a smaller green one followed.
#[test]
fn test_changed_with_nothing_changed_since_the_last_green_run_stands_on_it() {
    let ws = fixture("python/impact");
    committed(ws.path());
    let green = common::pith(ws.path(), &[]);
    assert_eq!(green.count("passed"), 7, "{}", green.line);
    let stands = |a: &Answer| {
        assert_eq!((a.code, a.status()), (0, "TestsPassed"), "{}", a.line);
        assert_eq!(a.json["unchanged"], true, "{}", a.line);
        assert_eq!(a.count("passed"), 7, "{}", a.line);
    };
    let quiet = common::pith(ws.path(), &["--changed"]);
    stands(&quiet);
    quiet.assert_budget(100);

    // An edit made and undone is no change.
    let helper = ws.path().join(HELPER);
    let text = std::fs::read_to_string(&helper).unwrap();
    // Each write older than the next look, whatever the clock's resolution.
    let tick = || std::thread::sleep(std::time::Duration::from_millis(20));
    tick();
    std::fs::write(
        &helper,
        text.replace("return amount > 0", "return amount > 1"),
    )
    .unwrap();
    tick();
    assert_eq!(query(ws.path(), &["status"]).code, 0);
    std::fs::write(&helper, &text).unwrap();
    tick();
    stands(&common::pith(ws.path(), &["--changed"]));

    // A function nothing calls yet: no test reaches the change, so the green run stands (it
    // was `NoTestsRan`, exit 1), and the answer names the lines it does not prove.
    std::fs::write(
        &helper,
        format!("{text}\n\ndef double(amount):\n    return amount * 2\n"),
    )
    .unwrap();
    tick();
    let unreached = common::pith(ws.path(), &["--changed"]);
    stands(&unreached);
    assert_eq!(
        common::strings(&unreached.json["untested"]),
        [format!(
            "{HELPER}:{} def double(amount):",
            text.lines().count() + 3
        )],
        "{}",
        unreached.line
    );
    unreached.assert_budget(160);
    std::fs::write(&helper, &text).unwrap();
    tick();
    stands(&common::pith(ws.path(), &["--changed"]));

    // Red, then green on one test file alone: two tests are still failing, so nothing stands.
    inject(ws.path());
    assert_eq!(common::pith(ws.path(), &[]).status(), "TestsFailed");
    let one = common::pith(ws.path(), &["tests/test_report.py"]);
    assert_eq!(one.status(), "TestsPassed", "{}", one.line);
    let after = common::pith(ws.path(), &["--changed"]);
    assert_ne!(after.status(), "TestsPassed", "{}", after.line);
    assert_ne!(after.code, 0, "{}", after.line);
}

/// What still fails from an earlier run is run again by `--changed`, though a green run of a
/// few tests came between: it fails while the bug is there, and its pass after the fix is
/// the green answer (it was `NoTestsRan`, exit 1, with nothing changed since that green run).
#[test]
fn changed_runs_again_what_is_still_failing_from_before() {
    let ws = fixture("python/impact");
    committed(ws.path());
    assert_eq!(common::pith(ws.path(), &[]).status(), "TestsPassed");
    inject(ws.path());
    let red = common::pith(ws.path(), &[]);
    assert_eq!(red.count("failed"), 2, "{}", red.line);
    let few = common::pith(ws.path(), &["tests/test_report.py"]);
    assert_eq!(few.status(), "TestsPassed", "{}", few.line);
    let again = common::pith(ws.path(), &["--changed"]);
    assert_eq!(again.status(), "TestsFailed", "{}", again.line);
    assert_eq!(again.count("failed"), 2, "{}", again.line);
    assert_eq!(again.code, 1, "{}", again.line);
    // The bug put right: the two run and pass.
    let helper = ws.path().join(HELPER);
    let text = std::fs::read_to_string(&helper).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(
        &helper,
        text.replace("return amount >= 0", "return amount > 0"),
    )
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let fixed = common::pith(ws.path(), &["--changed"]);
    assert_eq!(fixed.status(), "TestsPassed", "{}", fixed.line);
    assert!(fixed.count("passed") >= 2, "{}", fixed.line);
    assert_eq!(fixed.code, 0, "{}", fixed.line);
}

/// A bug made, run red, then put right while another is made: the tests that passed beside
/// the first bug last passed with it in place, so against that run the restored line changed
/// too — but it is again what it was at the last green run, and never a suspect.
#[test]
fn a_line_put_back_as_it_was_at_the_last_green_run_is_no_suspect() {
    let ws = fixture("python/impact");
    committed(ws.path());
    assert_eq!(common::pith(ws.path(), &[]).status(), "TestsPassed");
    inject(ws.path());
    let first = common::pith(ws.path(), &[]);
    assert_eq!(first.count("failed"), 2, "{}", first.line);
    assert_eq!(
        suspects(&first).first().copied(),
        Some(BUG_AT),
        "{}",
        first.line
    );

    // The first bug put right, the second made in another file.
    let helper = ws.path().join(HELPER);
    let text = std::fs::read_to_string(&helper).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(
        &helper,
        text.replace("return amount >= 0", "return amount > 0"),
    )
    .unwrap();
    let cart = ws.path().join("src/shop/cart.py");
    let text = std::fs::read_to_string(&cart).unwrap();
    let bugged = text.replace("if is_positive(p))", "if is_positive(p)) + 1");
    assert_ne!(text, bugged);
    std::fs::write(&cart, bugged).unwrap();
    // Older than the run's start, whatever the clock's resolution.
    std::thread::sleep(std::time::Duration::from_millis(20));
    // Static reach, where nothing but the change sets can tell the two lines apart (in-run
    // tracing sees only the lines changed since the last green run).
    let red = common::pith(ws.path(), &["--trace", "never"]);
    assert_eq!(red.status(), "TestsFailed", "{}", red.line);
    assert_eq!(red.text("reach"), "static", "{}", red.line);
    assert_eq!(
        suspects(&red),
        ["src/shop/cart.py:7 return sum(cents(p) for p in prices if is_positive(p)) + 1"],
        "{}",
        red.line
    );
    assert!(
        !red.line.contains("money.py:9"),
        "the restored line is named: {}",
        red.line
    );
}

/// Edits that cannot change what the code does — a docstring, a comment after code, a call
/// reflowed over lines, blank lines — are no suspects, even where the failing tests reach
/// them and no trace tells them apart: the two versions are compared as syntax.
#[test]
fn comment_docstring_and_layout_edits_are_no_suspects() {
    let ws = fixture("python/impact");
    committed(ws.path());
    assert_eq!(common::pith(ws.path(), &[]).status(), "TestsPassed");
    inject(ws.path());
    let cart = ws.path().join("src/shop/cart.py");
    let text = std::fs::read_to_string(&cart).unwrap();
    let edited = text
        .replace(
            "\"\"\"A cart: lines of prices, totalled in cents.\"\"\"",
            "\"\"\"A cart.\n\nLines of prices, totalled in whole cents.\n\"\"\"",
        )
        .replace(
            "    return sum(cents(p) for p in prices if is_positive(p))",
            "    return sum(  # in cents\n        cents(p) for p in prices if is_positive(p)\n    )\n",
        );
    assert_ne!(text, edited);
    std::fs::write(&cart, edited).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let red = common::pith(ws.path(), &["--trace", "never"]);
    assert_eq!(red.count("failed"), 2, "{}", red.line);
    assert_eq!(red.text("reach"), "static", "{}", red.line);
    assert_eq!(suspects(&red), [BUG_AT], "{}", red.line);
}

/// A green run of a few tests vouches for nothing else: a bug made before it, in code those
/// tests never ran, stays the suspect of the full run after.
#[test]
fn a_green_run_of_a_few_tests_does_not_hide_a_bug_made_before_it() {
    let ws = fixture("python/impact");
    committed(ws.path());
    assert_eq!(common::pith(ws.path(), &[]).status(), "TestsPassed");
    inject(ws.path());
    let few = common::pith(ws.path(), &["tests/test_report.py"]);
    assert_eq!(few.status(), "TestsPassed", "{}", few.line);
    let red = common::pith(ws.path(), &["--trace", "never"]);
    assert_eq!(red.count("failed"), 2, "{}", red.line);
    assert_eq!(
        suspects(&red).first().copied(),
        Some(BUG_AT),
        "{}",
        red.line
    );
}

#[test]
fn edits_no_test_reaches_are_named_off_target() {
    let ws = fixture("python/impact");
    committed(ws.path());
    assert_eq!(common::pith(ws.path(), &[]).status(), "TestsPassed");
    std::fs::create_dir_all(ws.path().join("src/shop/unused")).unwrap();
    std::fs::write(
        ws.path().join("src/shop/orphan.py"),
        "def nobody():\n    return 1\n",
    )
    .unwrap();
    inject(ws.path());
    let status = query(ws.path(), &["status"]);
    assert_eq!(
        common::strings(&status.json["offTarget"]),
        ["src/shop/orphan.py"],
        "{}",
        status.line
    );
    status.assert_budget(pith_wire::STATUS_BUDGET);
}

#[test]
fn when_the_graph_leaves_a_choice_what_the_failing_tests_executed_decides() {
    let ws = fixture("python/impact");
    committed(ws.path());
    assert_eq!(common::pith(ws.path(), &[]).status(), "TestsPassed");
    inject(ws.path());
    harmless_edit(ws.path());
    let red = common::pith(ws.path(), &[]);
    assert_eq!(red.count("failed"), 2, "{}", red.line);
    assert_eq!(red.text("reach"), "traced", "{}", red.line);
    assert_eq!(suspects(&red), [BUG_AT], "{}", red.line);
}

/// In Go a package's files reach each other by being in it: a change to one function selects
/// the test files that name it (a file of test functions alone is used by nothing), and
/// `--changed` runs the tests those files declare, not their packages whole.
#[test]
fn a_go_change_runs_the_tests_that_name_it() {
    let ws = fixture("go/impact_shop");
    pith_testkit::write_file(
        ws.path(),
        "money/round.go",
        "package money\n\n// Round rounds cents to the nearest ten.\nfunc Round(cents int) int {\n\treturn (cents + 5) / 10 * 10\n}\n",
    );
    pith_testkit::write_file(
        ws.path(),
        "money/round_test.go",
        "package money\n\nimport \"testing\"\n\nfunc TestRound(t *testing.T) {\n\tif Round(14) != 10 {\n\t\tt.Fatal(Round(14))\n\t}\n}\n",
    );
    committed(ws.path());
    let green = common::pith(ws.path(), &[]);
    assert_eq!(green.status(), "TestsPassed", "{}", green.line);
    let all = green.count("passed");
    common::edit(ws.path(), "money/round.go", "(cents + 5)", "(cents + 4)");
    let select = query(ws.path(), &["select"]);
    assert_eq!(
        common::strings(&select.json["tests"]),
        ["money/round_test.go"],
        "{}",
        select.line
    );
    let changed = common::pith(ws.path(), &["--changed"]);
    assert_eq!(changed.status(), "TestsPassed", "{}", changed.line);
    assert_eq!(
        changed.count("passed"),
        1,
        "only TestRound ({all} in all): {}",
        changed.line
    );
}
