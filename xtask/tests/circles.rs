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
use std::path::{Path, PathBuf};

/// One crate's production files: module path (from the crate root) → source.
type Crate = BTreeMap<Vec<String>, (PathBuf, String)>;

/// The source with comments, string and character literals blanked to spaces (line breaks
/// kept), so neither a path in a comment nor one in a string is read as code.
fn code_only(src: &str) -> String {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                blank(&mut out, b[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
        } else if c == 'r' && matches!(next, Some('"' | '#')) && !ident_before(&b, i) {
            // A raw string: r"…", r#"…"#, br"…" (the b was copied as an identifier char).
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let end = (j + 1..b.len())
                .find(|&k| b[k] == '"' && (1..=hashes).all(|h| b.get(k + h) == Some(&'#')))
                .map_or(b.len(), |k| k + 1 + hashes);
            for &ch in &b[i..end] {
                blank(&mut out, ch);
            }
            i = end;
        } else if c == '"' {
            blank(&mut out, c);
            i += 1;
            while i < b.len() && b[i] != '"' {
                let step = if b[i] == '\\' { 2 } else { 1 };
                for &ch in b.iter().skip(i).take(step) {
                    blank(&mut out, ch);
                }
                i += step;
            }
            if i < b.len() {
                blank(&mut out, b[i]);
                i += 1;
            }
        } else if c == '\'' {
            // A character literal ('a', '\n', '\u{1F600}'), not a lifetime ('a).
            let end = if next == Some('\\') {
                (i + 2..b.len()).find(|&k| b[k] == '\'').map(|k| k + 1)
            } else if b.get(i + 2) == Some(&'\'') {
                Some(i + 3)
            } else {
                None
            };
            match end {
                Some(end) => {
                    for &ch in &b[i..end] {
                        blank(&mut out, ch);
                    }
                    i = end;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn ident_before(b: &[char], i: usize) -> bool {
    i > 0 && is_ident(b[i - 1]) && !(b[i - 1] == 'b' && (i < 2 || !is_ident(b[i - 2])))
}

/// The code without its `#[cfg(test)]` items, and the names of the test-only modules it
/// declares out of line (`#[cfg(test)] mod tests;`), whose files are left out too.
fn production(code: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(code.len());
    let mut test_mods = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at + "#[cfg(test)]".len()..];
        let b = item.as_bytes();
        let mut depth = 0usize;
        let mut end = b.len();
        for (k, &c) in b.iter().enumerate() {
            match c {
                b'{' | b'[' | b'(' => depth += 1,
                b'}' | b']' | b')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 && c == b'}' {
                        end = k + 1;
                        break;
                    }
                }
                b';' if depth == 0 => {
                    end = k + 1;
                    break;
                }
                _ => {}
            }
        }
        let words: Vec<&str> = item[..end]
            .split(|c: char| !is_ident(c))
            .filter(|w| !w.is_empty())
            .collect();
        if let Some(p) = words.iter().position(|w| *w == "mod") {
            if item[..end].trim_end().ends_with(';') {
                if let Some(name) = words.get(p + 1) {
                    test_mods.push((*name).to_string());
                }
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    (out, test_mods)
}

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

/// A crate's production files, read from its `src` (`lib.rs` or `main.rs` as the root).
fn read_crate(src: &Path) -> Crate {
    let mut files = Vec::new();
    let mut todo = vec![src.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    let sources: Vec<(PathBuf, String)> = files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p.strip_prefix(src).unwrap().to_path_buf(), text)
        })
        .collect();
    assemble(&sources)
}

/// Module paths for files relative to `src`, test-only modules and their files left out.
fn assemble(sources: &[(PathBuf, String)]) -> Crate {
    let mut krate = Crate::new();
    let mut test_only: BTreeSet<Vec<String>> = BTreeSet::new();
    for (rel, text) in sources {
        let mut module: Vec<String> = rel
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if matches!(
            module.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            module.pop();
        }
        if module.first().map(String::as_str) == Some("bin") {
            continue;
        }
        let (code, tests) = production(&code_only(text));
        for t in tests {
            let mut m = module.clone();
            m.push(t);
            test_only.insert(m);
        }
        krate.insert(module, (rel.clone(), code));
    }
    krate.retain(|m, _| !test_only.iter().any(|t| m.starts_with(t)));
    krate
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
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates");
    let mut wrong = Vec::new();
    let mut files = 0;
    for e in std::fs::read_dir(&root).unwrap().flatten() {
        let src = e.path().join("src");
        if !src.is_dir() {
            continue;
        }
        let krate = read_crate(&src);
        files += krate.len();
        let graph = edges(&krate);
        for circle in circles(&graph) {
            wrong.push(format!(
                "{}: {} files in a circle{}",
                src.display(),
                circle.len(),
                describe(&graph, &circle)
            ));
        }
    }
    assert!(files > 100, "read {files} files under {}", root.display());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn krate(files: &[(&str, &str)]) -> Crate {
    let sources: Vec<(PathBuf, String)> = files
        .iter()
        .map(|(p, s)| (PathBuf::from(p), s.to_string()))
        .collect();
    assemble(&sources)
}

#[test]
fn a_room_calling_back_is_a_circle_and_the_door_is_not() {
    let k = krate(&[
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
    let one_way = krate(&[
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
/// [`BORROWS`] says why it may.
fn borrowings(krate: &Crate) -> Vec<String> {
    let adapters = adapters(krate);
    let mut wrong = Vec::new();
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
            if BORROWS.iter().any(|(a, b, _)| a == from && b == other) {
                continue;
            }
            wrong.push(format!(
                "{} names {}: another adapter's room (use a shared reader, or add a row to BORROWS with the reason)",
                file.display(),
                u.path.join("::")
            ));
        }
    }
    wrong
}

#[test]
fn no_adapter_reaches_into_another() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/runner/src");
    let krate = read_crate(&src);
    let found = adapters(&krate);
    assert!(found.len() >= 8, "adapters read: {found:?}");
    assert!(
        !found.contains("googletest"),
        "a shared reader is no adapter"
    );
    let wrong = borrowings(&krate);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_borrowed_room_is_named_and_a_shared_reader_is_not() {
    let k = krate(&[
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
        borrowings(&k),
        ["bazel/judge.rs names crate::gtest::judge::output_tail: another adapter's room (use a shared reader, or add a row to BORROWS with the reason)"]
    );
}
