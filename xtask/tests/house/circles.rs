//! The house rule inside each crate: its files depend on each other one way (parse → judge →
//! verdict, never back), so a file can be read, tested and changed after the ones it uses and
//! before the ones that use it. Read from the production code of every `crates/*/src` (test
//! modules and test-only files left out): a file depends on another when it names an item of
//! that file's module — through `use`, or a path written inline (`parse::read(..)`,
//! `super::judge::Judge`). A module's own file (`lib.rs`, `mod.rs`) is the door of its folder:
//! the types its files share and what it shows outside. What its files take from it, or from any
//! module above them, is not an edge here — the same as every file taking from `lib.rs` — so
//! the door may call into its rooms, and what is checked is that rooms never call back.
//!
//! And in the runner crate, adapters are rooms apart: an adapter takes another runner's format
//! through a shared reader (`junit`, `googletest`, `c_build`), never from that runner's
//! adapter.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use crate::source::{code_only, crates, is_ident, krate, synthetic, File};

/// One crate's production files: module path (from the crate root) → source.
type Crate = BTreeMap<Vec<String>, (PathBuf, String)>;

/// A path the code names: through `use` (`binds`: the name it brings in) or written inline.
struct Use {
    path: Vec<String>,
    binds: Option<String>,
}

/// Every path the code names: `use` trees expanded (`use a::{b, c::D}` → `a::b`, `a::c::D`),
/// and every inline `x::y` path.
fn paths(code: &str) -> Vec<Use> {
    let mut found = Vec::new();
    let toks = tokens(code);
    let mut i = 0;
    while i < toks.len() {
        if toks[i] == "use" {
            let mut j = i + 1;
            use_tree(&toks, &mut j, &mut Vec::new(), &mut found);
            i = j;
            continue;
        }
        if is_ident(toks[i].chars().next().unwrap_or(' '))
            && toks.get(i + 1).map(String::as_str) == Some("::")
            && (i == 0 || toks[i - 1] != "::")
        {
            let mut path = vec![toks[i].clone()];
            let mut j = i + 1;
            while toks.get(j).map(String::as_str) == Some("::")
                && toks
                    .get(j + 1)
                    .is_some_and(|t| is_ident(t.chars().next().unwrap_or(' ')))
            {
                path.push(toks[j + 1].clone());
                j += 2;
            }
            found.push(Use { path, binds: None });
            i = j;
            continue;
        }
        i += 1;
    }
    found
}

fn tokens(code: &str) -> Vec<String> {
    let c: Vec<char> = code.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < c.len() {
        if is_ident(c[i]) {
            let s = i;
            while i < c.len() && is_ident(c[i]) {
                i += 1;
            }
            toks.push(c[s..i].iter().collect());
        } else if c[i] == ':' && c.get(i + 1) == Some(&':') {
            toks.push("::".to_string());
            i += 2;
        } else if c[i].is_whitespace() {
            i += 1;
        } else {
            toks.push(c[i].to_string());
            i += 1;
        }
    }
    toks
}

/// One `use` tree from `toks[*j]`, each leaf pushed onto `found` as its path (with `prefix`
/// before it) and the name it binds (`as` an alias, else its last segment); `*j` left after
/// the tree.
fn use_tree(toks: &[String], j: &mut usize, prefix: &mut Vec<String>, found: &mut Vec<Use>) {
    let depth = prefix.len();
    let mut alias = None;
    loop {
        match toks.get(*j).map(String::as_str) {
            Some("{") => {
                *j += 1;
                loop {
                    match toks.get(*j).map(String::as_str) {
                        Some("}") => {
                            *j += 1;
                            break;
                        }
                        Some(",") => *j += 1,
                        None => break,
                        _ => use_tree(toks, j, prefix, found),
                    }
                }
                break;
            }
            Some("::" | "*") => *j += 1,
            // `{self, …}`: the path before the braces itself.
            Some("self") if !prefix.is_empty() => *j += 1,
            Some("as") => {
                alias = toks.get(*j + 1).cloned();
                *j += 2;
            }
            Some(t) if is_ident(t.chars().next().unwrap_or(' ')) => {
                prefix.push(t.to_string());
                *j += 1;
            }
            _ => {
                if prefix.len() > depth || toks.get(*j - 1).map(String::as_str) == Some("self") {
                    let name = alias.take().or_else(|| prefix.last().cloned());
                    found.push(Use {
                        path: prefix.clone(),
                        binds: name,
                    });
                }
                break;
            }
        }
    }
    prefix.truncate(depth);
    if toks.get(*j).map(String::as_str) == Some(";") && depth == 0 {
        *j += 1;
    }
}

/// The module path a path names, resolved from `module` (where it is written): `crate::`,
/// `super::`, `self::`, or a child module's name; `None` for another crate's path or an item
/// of this module's own (a type's associated function, a local enum's variant).
fn target(krate: &Crate, module: &[String], path: &[String]) -> Option<Vec<String>> {
    // A path from `crate`, `self` or `super` names this crate; another names it only when its
    // first segment is a child module (else: another crate, or an item of this module).
    let anchored = matches!(path[0].as_str(), "crate" | "self" | "super");
    let (mut at, mut rest): (Vec<String>, &[String]) = match path[0].as_str() {
        "crate" => (Vec::new(), &path[1..]),
        "self" => (module.to_vec(), &path[1..]),
        _ => (module.to_vec(), path),
    };
    while rest.first().map(String::as_str) == Some("super") {
        at.pop()?;
        rest = &rest[1..];
    }
    let mut moved = anchored;
    for seg in rest {
        at.push(seg.clone());
        if !krate.contains_key(&at) {
            at.pop();
            break;
        }
        moved = true;
    }
    moved.then_some(at)
}

/// Each file's edges to the other files of its crate, with the names that make each: file →
/// (file → names). An edge to a module above the file's own (its door, the crate root) is
/// left out (see the module doc).
fn edges(krate: &Crate) -> BTreeMap<PathBuf, BTreeMap<PathBuf, BTreeSet<String>>> {
    let mut all = BTreeMap::new();
    for (module, (file, code)) in krate {
        let out: &mut BTreeMap<PathBuf, BTreeSet<String>> = all.entry(file.clone()).or_default();
        let found = paths(code);
        // What `use` brings into this file, by the name it binds, for the inline paths that
        // start with that name (`use super::parse;` … `parse::read(..)`).
        let bound: BTreeMap<&str, &[String]> = found
            .iter()
            .filter_map(|u| Some((u.binds.as_deref()?, u.path.as_slice())))
            .collect();
        for u in &found {
            let mut path = u.path.clone();
            if u.binds.is_none() {
                if let Some(full) = bound.get(path[0].as_str()) {
                    if target(krate, module, &path).is_none() {
                        path.splice(0..1, full.iter().cloned());
                    }
                }
            }
            let Some(to) = target(krate, module, &path) else {
                continue;
            };
            if module.starts_with(&to) {
                continue;
            }
            let (to_file, _) = &krate[&to];
            out.entry(to_file.clone())
                .or_default()
                .insert(u.path.join("::"));
        }
    }
    all
}

/// The circles: every strongly connected set of more than one file (Tarjan's algorithm).
fn circles(
    graph: &BTreeMap<PathBuf, BTreeMap<PathBuf, BTreeSet<String>>>,
) -> Vec<BTreeSet<PathBuf>> {
    struct State<'a> {
        graph: &'a BTreeMap<PathBuf, BTreeMap<PathBuf, BTreeSet<String>>>,
        index: BTreeMap<&'a PathBuf, (usize, usize)>,
        stack: Vec<&'a PathBuf>,
        on: BTreeSet<&'a PathBuf>,
        next: usize,
        found: Vec<BTreeSet<PathBuf>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a PathBuf) {
        s.index.insert(v, (s.next, s.next));
        s.next += 1;
        s.stack.push(v);
        s.on.insert(v);
        for w in s.graph.get(v).into_iter().flat_map(|m| m.keys()) {
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.index[w].1.min(s.index[v].1);
                s.index.get_mut(v).unwrap().1 = low;
            } else if s.on.contains(w) {
                let low = s.index[w].0.min(s.index[v].1);
                s.index.get_mut(v).unwrap().1 = low;
            }
        }
        if s.index[v].0 == s.index[v].1 {
            let mut set = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                set.insert(w.clone());
                if w == v {
                    break;
                }
            }
            if set.len() > 1 {
                s.found.push(set);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.found
}

/// A crate's production files by module path (`src/bin/` left out: other crates' roots).
fn modules(files: &[File]) -> Crate {
    files
        .iter()
        .filter(|f| f.module.first().map(String::as_str) != Some("bin"))
        .map(|f| (f.module.clone(), (f.rel.clone(), f.code.clone())))
        .collect()
}

fn describe(
    graph: &BTreeMap<PathBuf, BTreeMap<PathBuf, BTreeSet<String>>>,
    circle: &BTreeSet<PathBuf>,
) -> String {
    let mut s = String::new();
    for from in circle {
        for (to, names) in &graph[from] {
            if circle.contains(to) {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                s.push_str(&format!(
                    "\n  {} -> {}: {}",
                    from.display(),
                    to.display(),
                    names.join(", ")
                ));
            }
        }
    }
    s
}

#[test]
fn no_crate_has_an_import_circle() {
    let mut wrong = Vec::new();
    for c in crates() {
        let krate = modules(&c.files);
        let graph = edges(&krate);
        for circle in circles(&graph) {
            wrong.push(format!(
                "crates/{}/src: {} files in a circle{}",
                c.name,
                circle.len(),
                describe(&graph, &circle)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn fake(files: &[(&str, &str)]) -> Crate {
    modules(&synthetic(files))
}

#[test]
fn a_room_calling_back_is_a_circle_and_the_door_is_not() {
    let k = fake(&[
        (
            "lib.rs",
            "mod go; pub struct Ctx;\n#[cfg(test)]\nmod tests;",
        ),
        (
            "go/mod.rs",
            "mod judge; mod parse;\npub(crate) struct Shared;\nfn run() { judge::judge(); }",
        ),
        (
            "go/judge.rs",
            "use super::parse::{self, Line as L};\nuse crate::Ctx;\nuse super::Shared;\n\
             pub fn judge() { let _ = parse::read(\"crate::tests::x\"); }",
        ),
        (
            "go/parse.rs",
            "// super::judge::judge\npub fn read(_: &str) {\n    super::judge::Judge::new();\n}\n\
             #[cfg(test)]\nmod tests { use super::super::judge::*; }",
        ),
        ("tests.rs", "use crate::go::judge::judge;"),
    ]);
    assert!(
        !k.contains_key(&vec!["tests".to_string()]),
        "test-only file"
    );
    let graph = edges(&k);
    let found = circles(&graph);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        describe(&graph, &found[0]),
        "\n  go/judge.rs -> go/parse.rs: parse::read, super::parse, super::parse::Line\
         \n  go/parse.rs -> go/judge.rs: super::judge::Judge::new"
    );
    // The door calling its rooms, the rooms using the door and the crate root: no circle.
    let one_way = fake(&[
        ("lib.rs", "mod go; pub struct Ctx;"),
        (
            "go/mod.rs",
            "mod judge; mod parse; pub struct S; fn f() { judge::j(); parse::p(); }",
        ),
        (
            "go/judge.rs",
            "use super::{parse, S}; use crate::Ctx; pub fn j() { parse::p(); }",
        ),
        ("go/parse.rs", "use super::S; pub fn p() {}"),
    ]);
    assert!(circles(&edges(&one_way)).is_empty());
}

#[test]
fn literals_and_comments_are_not_code() {
    let c = code_only("let a = \"x::y\"; // z::w\nlet b = r#\"q::r\"#; /* s::t /* u::v */ */ 'c'; fn f<'a>() { m::n }");
    let found: Vec<Vec<String>> = paths(&c).into_iter().map(|u| u.path).collect();
    assert_eq!(found, vec![vec!["m".to_string(), "n".to_string()]]);
}

/// Adapters that borrow another adapter's rooms, and why. Everything else an adapter needs of
/// another runner's format goes through a shared reader (`junit`, `googletest`, `c_build`).
const BORROWS: &[(&str, &str, &str)] = &[(
    "unittest",
    "pytest",
    "one Python family: unittest runs under pytest's interpreter choice and reads failures \
     as pytest's records do",
)];

/// The runner crate's adapters: its folders with a `detect.rs` (the common layout; a shared
/// reader's folder has none).
fn adapters(krate: &Crate) -> BTreeSet<String> {
    krate
        .keys()
        .filter(|m| m.len() == 2 && m[1] == "detect")
        .map(|m| m[0].clone())
        .collect()
}

/// Every place where an adapter's file names a module of another adapter, unless
/// [`BORROWS`] says why it may; and the rows of [`BORROWS`] used.
fn borrowings(krate: &Crate) -> (Vec<String>, BTreeSet<(&'static str, &'static str)>) {
    let adapters = adapters(krate);
    let mut wrong = Vec::new();
    let mut used = BTreeSet::new();
    for (module, (file, code)) in krate {
        let Some(from) = module.first().filter(|m| adapters.contains(*m)) else {
            continue;
        };
        for u in paths(code) {
            let Some(to) = target(krate, module, &u.path) else {
                continue;
            };
            let Some(other) = to.first().filter(|t| *t != from && adapters.contains(*t)) else {
                continue;
            };
            if let Some((a, b, _)) = BORROWS.iter().find(|(a, b, _)| a == from && b == other) {
                used.insert((*a, *b));
                continue;
            }
            wrong.push(format!(
                "{} names {}: another adapter's room (use a shared reader, or add a row to BORROWS with the reason)",
                file.display(),
                u.path.join("::")
            ));
        }
    }
    (wrong, used)
}

#[test]
fn no_adapter_reaches_into_another() {
    let krate = modules(&krate("runner").files);
    let found = adapters(&krate);
    assert!(found.len() >= 8, "adapters read: {found:?}");
    assert!(
        !found.contains("googletest"),
        "a shared reader is no adapter"
    );
    let (mut wrong, used) = borrowings(&krate);
    for (a, b, _) in BORROWS {
        if !used.contains(&(*a, *b)) {
            wrong.push(format!(
                "BORROWS lets {a} borrow from {b}, and it no longer does: delete the row"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_borrowed_room_is_named_and_a_shared_reader_is_not() {
    let k = fake(&[
        ("lib.rs", "mod bazel; mod gtest; mod googletest;"),
        ("bazel/mod.rs", "mod detect; mod judge;"),
        ("bazel/detect.rs", ""),
        (
            "bazel/judge.rs",
            "use crate::googletest::console;\nfn f() { crate::gtest::judge::output_tail(); }",
        ),
        ("gtest/mod.rs", "mod detect; pub(crate) mod judge;"),
        ("gtest/detect.rs", ""),
        ("gtest/judge.rs", "pub fn output_tail() {}"),
        ("googletest/mod.rs", "pub mod console;"),
        ("googletest/console.rs", ""),
    ]);
    assert_eq!(
        borrowings(&k).0,
        ["bazel/judge.rs names crate::gtest::judge::output_tail: another adapter's room (use a shared reader, or add a row to BORROWS with the reason)"]
    );
}
