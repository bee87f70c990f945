//! `pith symbol` and `pith usages` end to end: the real binary on fixture trees and generated
//! workspaces. Answers are one clean line (no absolute paths, nulls, empty lists or zero
//! counts); exit codes are 0 found, 1 nothing found (answer still printed), 2 pith failed; the
//! budgets hold however busy the symbol is; an edit shows in the next answer.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::Answer;

/// Runs `pith ARGS...` from `cwd` and checks the answer is one clean line.
fn pith_at(cwd: &Path, root: &Path, args: &[&str]) -> Answer {
    let out = common::bare()
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run pith");
    common::answer_of(out, root)
}

/// `pith <command> NAME --root ROOT [more]`.
fn query(root: &Path, command: &str, name: &str, more: &[&str]) -> Answer {
    let root_arg = root.to_string_lossy().into_owned();
    let mut args = vec![command, name, "--root", &root_arg];
    args.extend_from_slice(more);
    pith_at(root, root, &args)
}

fn symbol(root: &Path, name: &str) -> Answer {
    query(root, "symbol", name, &[])
}

fn usages(root: &Path, name: &str) -> Answer {
    query(root, "usages", name, &[])
}

#[test]
fn one_definition_is_small_and_exact() {
    let dir = common::fixture("index/rust");
    let a = symbol(dir.path(), "parse_port");
    assert_eq!(a.code, 0, "{}", a.stderr);
    a.assert_budget(pith_wire::SYMBOL_ONE_BUDGET);
    insta::assert_snapshot!(a.line, @r#"{"resolution":"syntactic","symbol":"parse_port","definitions":[{"kind":"function","at":"src/net.rs:3","in":"net"}]}"#);
    assert!(common::state_dir(dir.path()).join("index.bin").is_file());
    assert!(!dir.path().join(".pith").exists());
}

#[test]
fn same_named_methods_are_told_apart_and_qualified_queries_narrow() {
    let dir = common::fixture("index/python");
    let all = symbol(dir.path(), "load");
    let containers: Vec<&str> = all.json["definitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["in"].as_str().unwrap())
        .collect();
    assert_eq!(containers, ["Config", "Config.Builder", "Server"]);
    let one = symbol(dir.path(), "Config.load");
    insta::assert_snapshot!(one.line, @r#"{"resolution":"syntactic","symbol":"Config.load","definitions":[{"kind":"method","at":"pkg/config.py:13","in":"Config"}]}"#);
    let kind = query(dir.path(), "symbol", "parse_port", &["--kind", "function"]);
    assert_eq!(
        kind.json["definitions"].as_array().unwrap().len(),
        3,
        "{}",
        kind.line
    );
    let none = query(dir.path(), "symbol", "parse_port", &["--kind", "class"]);
    assert_eq!(none.code, 1);
}

#[test]
fn few_uses_come_flat() {
    let dir = common::fixture("index/go");
    let a = usages(dir.path(), "ParsePort");
    assert_eq!(a.code, 0, "{}", a.stderr);
    a.assert_budget(pith_wire::USAGES_FEW_BUDGET);
    insta::assert_snapshot!(a.line, @r#"{"resolution":"syntactic","symbol":"ParsePort","count":3,"uses":["config/config.go:19","main.go:12","net/net.go:15"]}"#);
    let aliased = usages(dir.path(), "config.Load");
    assert_eq!(aliased.json["uses"], serde_json::json!(["main.go:9"]));
}

#[test]
fn nothing_found_exits_1_with_the_answer() {
    let dir = common::fixture("index/ts");
    for command in ["symbol", "usages"] {
        let a = query(dir.path(), command, "noSuchName", &[]);
        assert_eq!(a.code, 1, "{command}: {}", a.stderr);
        assert_eq!(
            a.line,
            r#"{"resolution":"syntactic","symbol":"noSuchName"}"#
        );
    }
}

#[test]
fn pith_failures_exit_2_with_one_line() {
    let dir = common::fixture("index/java");
    let root = dir.path().to_string_lossy().into_owned();
    for args in [
        vec!["symbol", "Config", "--kind", "widget", "--root", &root],
        vec!["symbol", "Config", "--root", "/no/such/dir"],
        vec!["usages", " ", "--root", &root],
        vec!["usages"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_pith"))
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(!err.is_empty(), "{args:?}");
    }
}

#[test]
fn the_workspace_is_found_from_a_subdirectory() {
    let dir = common::fixture("index/rust");
    std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"fx\"\n").unwrap();
    let sub = dir.path().join("src");
    let a = pith_at(&sub, dir.path(), &["usages", "Config::load"]);
    assert_eq!(
        a.json["uses"],
        serde_json::json!(["src/config.rs:29", "src/lib.rs:13"])
    );
    assert!(common::state_dir(dir.path()).join("index.bin").is_file());
    assert!(!dir.path().join(".pith").exists());
}

/// A workspace where `parse_port` is defined once and used `uses` times across `files` files,
/// each use on its own line.
fn busy_workspace(uses: usize, files: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("handlers")).unwrap();
    std::fs::write(
        src.join("lib.rs"),
        "pub fn parse_port(s: &str) -> u16 {\n    s.parse().unwrap_or(0)\n}\n",
    )
    .unwrap();
    for f in 0..files {
        let n = uses / files + usize::from(f < uses % files);
        let mut body = String::from(
            "use crate::parse_port;\n\npub fn handle() -> u32 {\n    let mut total = 0;\n",
        );
        for i in 0..n {
            body.push_str(&format!("    total += u32::from(parse_port(\"{i}\"));\n"));
        }
        body.push_str("    total\n}\n");
        std::fs::write(src.join(format!("handlers/handler_{f:02}.rs")), body).unwrap();
    }
    dir
}

#[test]
fn many_uses_come_grouped_within_budget() {
    let dir = busy_workspace(480, 60);
    let a = usages(dir.path(), "parse_port");
    assert_eq!(a.code, 0, "{}", a.stderr);
    // 480 calls plus the 60 `use` lines.
    assert_eq!(a.json["count"], 540, "{}", a.line);
    a.assert_budget(pith_wire::USAGES_MANY_BUDGET);
    let files = a.json["files"].as_array().expect("grouped");
    let shown = files.len() as u64;
    assert_eq!(shown + a.json["moreFiles"].as_u64().unwrap(), 60);
    for f in files {
        assert!(f["uses"].as_u64().unwrap() >= f["lines"].as_array().map_or(0, |l| l.len() as u64));
    }
}

#[test]
fn the_grouped_answer_stops_growing_with_the_use_count() {
    let small = usages(busy_workspace(128, 60).path(), "parse_port");
    let large = usages(busy_workspace(480, 60).path(), "parse_port");
    assert!(small.json["files"].is_array() && large.json["files"].is_array());
    let (s, l) = (small.bytes(), large.bytes());
    assert!(
        s.abs_diff(l) <= 16,
        "128 uses: {s} bytes, 480 uses: {l} bytes"
    );
}

#[test]
fn under_ten_uses_are_flat_within_budget() {
    // Nine uses, one per file: the most paths a flat answer under ten uses repeats.
    let dir = busy_workspace(0, 9);
    let a = usages(dir.path(), "parse_port");
    assert_eq!(a.json["count"], 9);
    assert!(a.json["uses"].is_array(), "{}", a.line);
    a.assert_budget(pith_wire::USAGES_FEW_BUDGET);
}

#[test]
fn an_edit_shows_in_the_next_answer() {
    let dir = common::fixture("index/js");
    let root = dir.path();
    assert_eq!(usages(root, "portOf").json["count"], 1);
    std::fs::write(
        root.join("src/extra.js"),
        "import { parsePort as portOf } from \"./net.js\";\n\nexport const twice = (s) => portOf(s) * 2;\n",
    )
    .unwrap();
    let a = usages(root, "portOf");
    assert_eq!(
        a.json["uses"],
        serde_json::json!(["src/app.js:7", "src/extra.js:3"])
    );
    // Through the alias, `parsePort` gains the import and the call.
    assert_eq!(usages(root, "parsePort").json["count"], 8);
    std::fs::remove_file(root.join("src/app.js")).unwrap();
    let a = usages(root, "portOf");
    assert_eq!(a.json["uses"], serde_json::json!(["src/extra.js:3"]));
}
