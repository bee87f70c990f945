//! Rust's finer edges inside a crate: a module file depends on the module files its paths
//! name (`crate::money::cents`, `super::tax`, `self::x`, a child module, `shop::tax` from a
//! test target), on its child modules, on every file defining `macro_rules!` (macros are
//! textually scoped and exported by name, not by path), and a file declaring a type or trait
//! on the files that `impl` it (a method call reaches the impl without naming its module).
//! Anything a text scan cannot place stays coarse: a path ending at the crate root (an item
//! or a re-export there) reaches the root, which reaches every module; a file whose module
//! path is unknown (`#[path]` outside the root's directory) depends on its root.

use std::collections::{HashMap, HashSet};

use super::lex::{self, Kind, Tok};

/// The module path of each file of one crate root's tree, and back.
pub(super) struct Modules {
    root: String,
    path_of: HashMap<String, Vec<String>>,
    file_of: HashMap<Vec<String>, String>,
}

impl Modules {
    /// The modules of the tree rooted at `root` (`src/lib.rs`): a file's path is its place
    /// below the root's directory (`a/b.rs` and `a/b/mod.rs` are `a::b`); a file elsewhere has
    /// none.
    pub(super) fn new(root: &str, tree: &[String]) -> Modules {
        let dir = lex::dir_of(root);
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        let mut m = Modules {
            root: root.to_owned(),
            path_of: HashMap::from([(root.to_owned(), Vec::new())]),
            file_of: HashMap::from([(Vec::new(), root.to_owned())]),
        };
        for f in tree {
            let Some(rel) = f.strip_prefix(&prefix).and_then(|r| r.strip_suffix(".rs")) else {
                continue;
            };
            let rel = rel.strip_suffix("/mod").unwrap_or(rel);
            let path: Vec<String> = rel.split('/').map(str::to_owned).collect();
            if path
                .iter()
                .any(|s| s.is_empty() || s == "main" || s == "lib")
            {
                continue;
            }
            m.file_of.entry(path.clone()).or_insert_with(|| f.clone());
            m.path_of.insert(f.clone(), path);
        }
        m
    }

    /// The file of the deepest module `segments` names from `base` (`*` and items stop at
    /// the module they are in).
    fn resolve(&self, base: &[String], segments: &[String]) -> Option<&String> {
        let mut cur: Vec<String> = base.to_vec();
        for seg in segments {
            let mut next = cur.clone();
            next.push(seg.clone());
            if self.file_of.contains_key(&next) {
                cur = next;
            } else {
                break;
            }
        }
        self.file_of.get(&cur)
    }

    fn children(&self, path: &[String]) -> impl Iterator<Item = &String> + '_ {
        let path = path.to_vec();
        self.file_of
            .iter()
            .filter(move |(p, _)| p.len() == path.len() + 1 && p.starts_with(&path))
            .map(|(_, f)| f)
    }
}

/// What a file's text says for the finer edges.
#[derive(Default)]
pub(super) struct Said {
    /// Paths: their segments as written (`crate`, `super`, `self` or a first name kept), and
    /// how many inline modules (`mod tests { .. }`) they sit in: a `super` within those stays
    /// in the file.
    chains: Vec<(Vec<String>, usize)>,
    macros: bool,
    declares: Vec<String>,
    impls: Vec<String>,
}

impl Said {
    pub(super) fn defines_macros(&self) -> bool {
        self.macros
    }
}

/// Reads the paths, macro definitions, declared types and `impl` headers of a file's tokens.
pub(super) fn said(toks: &[Tok<'_>]) -> Said {
    let mut s = Said::default();
    let sep = |i: usize| {
        toks.get(i).is_some_and(|t| t.is(b':')) && toks.get(i + 1).is_some_and(|t| t.is(b':'))
    };
    // One entry per open brace: whether an inline module opened it.
    let mut braces: Vec<bool> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i].is(b'{') {
            let inline =
                i >= 2 && toks[i - 2].ident() == Some("mod") && toks[i - 1].ident().is_some();
            braces.push(inline);
        } else if toks[i].is(b'}') {
            braces.pop();
        }
        let Some(id) = toks[i].ident() else {
            i += 1;
            continue;
        };
        let after_path = i >= 2 && toks[i - 1].is(b':') && toks[i - 2].is(b':');
        if id == "macro_rules" && toks.get(i + 1).is_some_and(|t| t.is(b'!')) {
            s.macros = true;
        }
        if matches!(id, "struct" | "enum" | "trait" | "union" | "type") {
            if let Some(name) = toks.get(i + 1).and_then(Tok::ident) {
                s.declares.push(name.to_owned());
            }
        }
        if id == "impl" {
            let mut j = i + 1;
            while j < toks.len() && !toks[j].is(b'{') && !toks[j].is(b';') {
                if let Some(n) = toks[j].ident() {
                    s.impls.push(n.to_owned());
                }
                j += 1;
            }
        }
        if !after_path && sep(i + 1) {
            let mut prefix = vec![id.to_owned()];
            let mut j = i + 1;
            while sep(j) {
                match toks.get(j + 2).map(|t| t.kind) {
                    Some(Kind::Ident(n)) => {
                        prefix.push(n.to_owned());
                        j += 3;
                    }
                    Some(Kind::Punct(b'{')) => {
                        for first in group_heads(&toks[j + 3..]) {
                            let mut c = prefix.clone();
                            c.push(first.to_owned());
                            s.chains.push((c, depth(&braces)));
                        }
                        break;
                    }
                    _ => break,
                }
            }
            s.chains.push((prefix, depth(&braces)));
            i = j.max(i + 1);
            continue;
        }
        i += 1;
    }
    s
}

/// Inline modules around the current token.
fn depth(braces: &[bool]) -> usize {
    braces.iter().filter(|b| **b).count()
}

/// The first name of each item of a `{a, b::c, d as e}` group, up to its closing brace.
fn group_heads<'a>(toks: &[Tok<'a>]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut expect = true;
    for t in toks {
        match t.kind {
            Kind::Punct(b'{') => depth += 1,
            Kind::Punct(b'}') if depth == 0 => break,
            Kind::Punct(b'}') => depth -= 1,
            Kind::Punct(b',') if depth == 0 => expect = true,
            Kind::Ident(n) if expect && depth == 0 => {
                out.push(n);
                expect = false;
            }
            _ => {}
        }
    }
    out
}

/// The finer edges of one tree (`tree` holds its module files, not the root): each file to
/// what it names, to its children, to the macro files; a type's file to its impls' files.
/// `lib` (a test or binary target's view of its package's library, with the crate's name)
/// resolves paths through the library; a target file that names no module of it depends on
/// the library's root. Every file with no module path depends on the root.
pub(super) fn edges(
    root: &str,
    tree: &[String],
    said: &HashMap<String, Said>,
    lib: Option<(&str, &Modules)>,
) -> Vec<(String, String)> {
    let own = Modules::new(root, tree);
    let mut out: Vec<(String, String)> =
        tree.iter().map(|m| (root.to_owned(), m.clone())).collect();
    let all: Vec<&String> = std::iter::once(&own.root).chain(tree).collect();
    let macro_files: Vec<&String> = all
        .iter()
        .copied()
        .filter(|f| said.get(*f).is_some_and(|s| s.macros))
        .collect();
    let mut declared: HashMap<&str, Vec<&String>> = HashMap::new();
    for f in &all {
        for t in said.get(*f).map(|s| &s.declares[..]).unwrap_or_default() {
            declared.entry(t.as_str()).or_default().push(f);
        }
    }
    for f in &all {
        let Some(path) = own.path_of.get(*f) else {
            out.push(((*f).clone(), own.root.clone()));
            continue;
        };
        out.extend(own.children(path).map(|c| ((*f).clone(), c.clone())));
        out.extend(macro_files.iter().map(|m| ((*f).clone(), (*m).clone())));
        let Some(s) = said.get(*f) else { continue };
        let mut reached_lib = false;
        for (chain, inline) in &s.chains {
            for t in targets(&own, path, chain, *inline, lib, &mut reached_lib) {
                out.push(((*f).clone(), t.clone()));
            }
        }
        if let Some((_, l)) = lib.filter(|_| !reached_lib && *f == &own.root) {
            // A target naming nothing of its library by path (a glob, a macro, an alias):
            // all of it.
            out.push(((*f).clone(), l.root.clone()));
        }
        for name in &s.impls {
            for d in declared.get(name.as_str()).into_iter().flatten() {
                out.push(((*d).clone(), (*f).clone()));
            }
        }
    }
    out.retain(|(a, b)| a != b);
    let mut seen = HashSet::new();
    out.retain(|e| seen.insert(e.clone()));
    out
}

/// The module files one path reaches from the module at `path`.
fn targets<'m>(
    own: &'m Modules,
    path: &[String],
    chain: &[String],
    inline: usize,
    lib: Option<(&str, &'m Modules)>,
    reached_lib: &mut bool,
) -> Vec<&'m String> {
    let (head, rest) = match chain.split_first() {
        Some(x) => x,
        None => return Vec::new(),
    };
    match head.as_str() {
        "crate" => own.resolve(&[], rest).into_iter().collect(),
        "self" => own.resolve(path, rest).into_iter().collect(),
        "super" => {
            // `super` inside an inline module (`mod tests { use super::*; }`) climbs those
            // first: it stays in the file.
            let mut ups = 1;
            while rest.get(ups - 1).is_some_and(|s| s == "super") {
                ups += 1;
            }
            let rest = &rest[ups - 1..];
            let up = ups.saturating_sub(inline);
            match path.len().checked_sub(up) {
                Some(base) => own.resolve(&path[..base], rest).into_iter().collect(),
                // Above the crate root: nothing of this crate.
                None => Vec::new(),
            }
        }
        name => {
            let mut child = path.to_vec();
            child.push(name.to_owned());
            if own.file_of.contains_key(&child) {
                return own.resolve(path, chain).into_iter().collect();
            }
            match lib {
                Some((crate_name, l)) if crate_name == name => {
                    *reached_lib = true;
                    l.resolve(&[], rest).into_iter().collect()
                }
                _ => Vec::new(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::lex::testing::run;
    use super::super::rust::edges as rust_edges;

    const SHOP: &[(&str, &str)] = &[
        ("Cargo.toml", "[package]\nname = \"shop\"\nversion = \"0.1.0\"\n"),
        ("src/lib.rs", "pub mod money;\npub mod cart;\npub mod tax;\nmod macros;\npub mod show;\npub use cart::Cart;\n"),
        ("src/macros.rs", "#[macro_export]\nmacro_rules! cents { ($x:expr) => { $x * 100 }; }\n"),
        ("src/money.rs", "pub fn round(x: f64) -> i64 { x as i64 }\n#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test] fn r() { assert_eq!(round(1.0), 1); }\n}\n"),
        ("src/cart.rs", "use crate::{money::round, tax};\npub struct Cart(pub Vec<f64>);\nimpl Cart { pub fn total(&self) -> i64 { tax::add(round(self.0[0])) } }\n"),
        ("src/tax.rs", "pub fn add(c: i64) -> i64 { c }\n"),
        ("src/show.rs", "impl std::fmt::Display for crate::cart::Cart {\n    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result { write!(f, \"cart\") }\n}\n"),
        ("tests/tax.rs", "use shop::tax::add;\n#[test] fn t() { assert_eq!(add(1), 1); }\n"),
        ("tests/cart.rs", "use shop::Cart;\n#[test] fn t() { Cart(vec![]); }\n"),
        ("tests/glob.rs", "use shop::*;\n#[test] fn t() {}\n"),
    ];

    fn reach(edges: &[(String, String)], from: &str) -> Vec<String> {
        let mut seen = vec![from.to_owned()];
        let mut i = 0;
        while i < seen.len() {
            let cur = seen[i].clone();
            for (a, b) in edges {
                if *a == cur && !seen.contains(b) {
                    seen.push(b.clone());
                }
            }
            i += 1;
        }
        seen.sort();
        seen
    }

    #[test]
    fn a_test_reaches_the_modules_it_names_and_what_they_name() {
        let (edges, _) = run(SHOP, rust_edges);
        assert_eq!(
            reach(&edges, "tests/tax.rs"),
            ["src/macros.rs", "src/tax.rs", "tests/tax.rs"],
            "{edges:?}"
        );
        // A re-export at the root (`shop::Cart`) and a glob reach the whole crate.
        for t in ["tests/cart.rs", "tests/glob.rs"] {
            assert!(
                reach(&edges, t).contains(&"src/show.rs".to_owned()),
                "{t}: {edges:?}"
            );
        }
        let cart = reach(&edges, "src/cart.rs");
        for m in ["src/money.rs", "src/tax.rs", "src/macros.rs"] {
            assert!(cart.contains(&m.to_owned()), "{m}: {cart:?}");
        }
        // A type's file reaches its impls elsewhere: `cart.to_string()` runs show.rs.
        assert!(cart.contains(&"src/show.rs".to_owned()), "{cart:?}");
        // The unit tests in money.rs reach money.rs (and the macros), not the cart.
        assert_eq!(
            reach(&edges, "src/money.rs"),
            ["src/macros.rs", "src/money.rs"]
        );
    }
}
