//! pith leaves nothing in the project's tree: on a fixture of every runner kind made a git
//! repository, after the project's own test command has run once (so the runner's own outputs
//! are there, as in any developer's checkout), `git status --ignored --porcelain` is the same
//! before and after every pith command — `test` (twice, the second a `--since` replay),
//! `status`, `failures`, `select`, `tests-for`, `blast`, `symbol`, `usages`, `gain` and an MCP
//! session with a status, a symbol and a test call — and no `.pith/` appears. (`pith init`
//! writes the host's configuration files by design, and is left out.)

use crate::common;

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

use serde_json::json;

use common::mcp::{raw_answer, Raw};
use common::{fixture, link_node_modules, shared_target, PITH};

/// One fixture kind: the project, the commands a developer types there, a source file and a
/// name defined in it.
struct Kind {
    fixture: &'static str,
    raw: &'static [&'static [&'static str]],
    file: &'static str,
    symbol: &'static str,
    node_modules: bool,
}

/// Runs `argv` in `root` with the harness's cargo target directory; its verdict is not the
/// point (the fixtures are red), only that it ran.
fn run(root: &Path, argv: &[&str]) -> std::process::Output {
    let out = Command::new(argv[0])
        .args(&argv[1..])
        .current_dir(root)
        .env("CARGO_TARGET_DIR", shared_target())
        .output()
        .unwrap_or_else(|e| panic!("{argv:?}: {e}"));
    assert!(
        out.status.code().is_some(),
        "{argv:?} was killed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn git(root: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=pith", "-c", "user.email=pith@example.com"])
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn tree(root: &Path) -> String {
    git(root, &["status", "--ignored", "--porcelain"])
}

/// `pith ARGS --root ROOT` from the root, as the harness runs it.
fn pith(root: &Path, args: &[&str]) -> std::process::Output {
    let mut c = common::bare();
    c.args(args)
        .arg("--root")
        .arg(root)
        .current_dir(root)
        .env("CARGO_TARGET_DIR", shared_target());
    common::without_callers_pith_variables(&mut c);
    c.output().unwrap()
}

fn leaves_the_tree_as_it_was(kind: Kind) {
    let ws = fixture(kind.fixture);
    let root = ws.path();
    if kind.node_modules {
        link_node_modules(root);
    }
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "fixture"]);
    for argv in kind.raw {
        run(root, argv);
    }
    let before = tree(root);

    let mut commands: Vec<(String, std::process::Output)> = Vec::new();
    let first = common::answer_of(PITH.command(root, root, &[]).output().unwrap(), root);
    assert!(
        first.code == 0 || first.code == 1,
        "{}: {} {}",
        kind.fixture,
        first.line,
        first.stderr
    );
    let since = first.generation().to_string();
    commands.push((
        "test --since".into(),
        PITH.command(root, root, &["--since", &since])
            .output()
            .unwrap(),
    ));
    for args in [
        &["status"][..],
        &["failures"],
        &["select"],
        &["tests-for", kind.file],
        &["blast", kind.file],
        &["symbol", kind.symbol],
        &["usages", kind.symbol],
        &["gain"],
    ] {
        commands.push((args.join(" "), pith(root, args)));
    }
    for (what, out) in &commands {
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{}: pith {what}: {out:?}",
            kind.fixture
        );
    }

    // The server in the same environment as the commands above (the cargo target directory).
    let mut server = common::bare();
    server
        .args(["mcp", "--root"])
        .arg(root)
        .current_dir(root)
        .env("CARGO_TARGET_DIR", shared_target());
    common::without_callers_pith_variables(&mut server);
    let mut mcp = Raw::spawn(server);
    mcp.initialize();
    let call = |mcp: &mut Raw, id: u32, name: &str, args: serde_json::Value| {
        let line = mcp.request(id, "tools/call", json!({"name": name, "arguments": args}));
        raw_answer(&line)
    };
    let status = call(&mut mcp, 1, "get_status", json!({}));
    assert!(status["generation"].as_u64().is_some(), "{status}");
    call(&mut mcp, 2, "find_symbol", json!({"name": kind.symbol}));
    let tested = call(&mut mcp, 3, "run_tests", json!({}));
    assert!(tested["status"].is_string(), "{tested}");
    drop(mcp);

    let after = tree(root);
    assert_eq!(
        after, before,
        "{}: pith changed what git sees in the tree",
        kind.fixture
    );
    assert!(!root.join(".pith").exists());
    assert!(common::state_dir(root).join("state.db").is_file());
}

#[test]
fn pytest() {
    leaves_the_tree_as_it_was(Kind {
        fixture: "python/single",
        raw: &[&["python3", "-m", "pytest", "-q"]],
        file: "prices.py",
        symbol: "total",
        node_modules: false,
    });
}

#[test]
fn unittest() {
    // Its Makefile declares `python3 -m unittest discover -s checks -p '*_check.py'`.
    leaves_the_tree_as_it_was(Kind {
        fixture: "python/unittest/declared",
        raw: &[&["make", "test"]],
        file: "checks/prices.py",
        symbol: "parse_price",
        node_modules: false,
    });
}

#[test]
fn django() {
    leaves_the_tree_as_it_was(Kind {
        fixture: "python/unittest/django",
        raw: &[&["python3", "manage.py", "test"]],
        file: "shop/prices.py",
        symbol: "parse_price",
        node_modules: false,
    });
}

#[test]
fn cargo() {
    leaves_the_tree_as_it_was(Kind {
        fixture: "rust/single",
        raw: &[&["cargo", "test", "-q"]],
        file: "src/lib.rs",
        symbol: "add",
        node_modules: false,
    });
}

#[test]
fn go() {
    leaves_the_tree_as_it_was(Kind {
        fixture: "go/single",
        raw: &[&["go", "test", "./..."]],
        file: "stats.go",
        symbol: "Mean",
        node_modules: false,
    });
}

#[test]
fn jest() {
    leaves_the_tree_as_it_was(Kind {
        fixture: "js/jest/single",
        raw: &[&["node_modules/.bin/jest"]],
        file: "src/prices.js",
        symbol: "price",
        node_modules: true,
    });
}

#[test]
fn vitest() {
    leaves_the_tree_as_it_was(Kind {
        fixture: "js/vitest/single",
        raw: &[&["node_modules/.bin/vitest", "run"]],
        file: "src/prices.js",
        symbol: "price",
        node_modules: true,
    });
}

#[test]
fn node_test() {
    leaves_the_tree_as_it_was(Kind {
        fixture: "js/node/single",
        raw: &[&["node", "--test"]],
        file: "src/prices.js",
        symbol: "price",
        node_modules: false,
    });
}

/// Maven and Gradle one at a time: each build is a JVM of a few hundred MB.
static JVM: Mutex<()> = Mutex::new(());

#[test]
fn maven() {
    let _one = JVM.lock().unwrap_or_else(|e| e.into_inner());
    leaves_the_tree_as_it_was(Kind {
        fixture: "java/maven/single",
        raw: &[&["mvn", "-q", "test"]],
        file: "src/main/java/demo/Calc.java",
        symbol: "Calc",
        node_modules: false,
    });
}

#[test]
fn gradle() {
    let _one = JVM.lock().unwrap_or_else(|e| e.into_inner());
    leaves_the_tree_as_it_was(Kind {
        fixture: "java/gradle/single",
        raw: &[&["gradle", "-q", "test"]],
        file: "src/main/java/demo/Calc.java",
        symbol: "Calc",
        node_modules: false,
    });
}

#[test]
fn ctest() {
    leaves_the_tree_as_it_was(Kind {
        fixture: "cpp/single",
        raw: &[
            &["cmake", "-S", ".", "-B", "build"],
            &["cmake", "--build", "build"],
            &["ctest", "--test-dir", "build"],
        ],
        file: "src/calc.cc",
        symbol: "add",
        node_modules: false,
    });
}

#[test]
fn bazel() {
    leaves_the_tree_as_it_was(Kind {
        fixture: "bazel/single",
        raw: &[&["bazel", "test", "//..."]],
        file: "src/calc.cc",
        symbol: "add",
        node_modules: false,
    });
}
