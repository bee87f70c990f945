//! Rust's edges, by crate: every package's targets (lib, main, `src/bin`, `tests`, `benches`,
//! `examples`, `build.rs`, and the paths `Cargo.toml` names) each root a module tree followed
//! through `mod x;` (`x.rs`, `x/mod.rs`, inline `mod a { mod b; }`, `#[path]`) and literal
//! `include!`s. The root depends on every module file; a module file on the modules its paths
//! name, its children and the macro files, and a type's file on its impls' files
//! (`rust_paths`: coarse to the root wherever a path ends at an item there, so a re-export or
//! a glob reaches the whole crate). A target other than the lib and the build script reaches
//! the lib's modules it names by the crate's name (else the whole lib), every target the build
//! script, and the build script on the workspace files it names (C sources it compiles, paths
//! it watches); every target of a package depends on the lib root of each workspace package
//! its manifest names in any dependency table (`rust_manifest` reads the packages).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use super::lex::{self, Kind, Style, Tok};
use super::rust_manifest::{find_packages, Package};
use super::rust_paths;

const STYLE: Style = Style {
    nested_comments: true,
    rust_raw: true,
    backtick: false,
    csharp: false,
};

/// Edges `(from, to)` among the `.rs` files of `files`, and the files the graph cannot place:
/// those with a `mod` or `include!` whose file is not found (generated into `OUT_DIR`, or a
/// path built by a macro), and those no crate's module tree reaches (fixtures, files only a
/// macro includes).
pub(super) fn edges(
    _root: &Path,
    files: &[String],
    read: &dyn Fn(&str) -> Option<String>,
) -> (Vec<(String, String)>, Vec<String>) {
    let rs: HashSet<&str> = files
        .iter()
        .map(String::as_str)
        .filter(|f| f.ends_with(".rs"))
        .collect();
    let mut by_dir: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for f in &rs {
        by_dir.entry(lex::dir_of(f)).or_default().push(f);
    }
    let mut packages = find_packages(&by_dir, read);
    for p in &mut packages {
        p.lib = p.lib.take().filter(|l| rs.contains(l.as_str()));
        p.build = p.build.take().filter(|b| rs.contains(b.as_str()));
    }
    let libs = libs_by_name(&packages);
    let mut out = Vec::new();
    let mut unplaced = Vec::new();
    let mut placed: HashSet<String> = HashSet::new();
    for p in &packages {
        // The library's modules and macro files, which the package's other targets reach by
        // the crate's name.
        let mut lib_view: Option<(rust_paths::Modules, Vec<String>)> = None;
        for root in p.roots(&rs, &by_dir) {
            let tree = module_tree(&root, &p.dir, &rs, read, &mut unplaced, &mut out);
            let said: HashMap<String, rust_paths::Said> = std::iter::once(&root)
                .chain(&tree)
                .filter_map(|f| {
                    let text = read(f)?;
                    Some((f.clone(), rust_paths::said(&lex::tokens(&text, STYLE))))
                })
                .collect();
            let is_lib = p.lib.as_ref() == Some(&root);
            let is_build = p.build.as_ref() == Some(&root);
            let lib = lib_view
                .as_ref()
                .filter(|_| !is_build)
                .map(|(m, _)| (p.name.as_str(), m));
            out.extend(rust_paths::edges(&root, &tree, &said, lib));
            if let Some((_, macros)) = lib_view.as_ref().filter(|_| !is_build) {
                for f in std::iter::once(&root).chain(&tree) {
                    out.extend(macros.iter().map(|m| (f.clone(), m.clone())));
                }
            }
            if is_lib {
                let macros = std::iter::once(&root)
                    .chain(&tree)
                    .filter(|f| said.get(*f).is_some_and(rust_paths::Said::defines_macros))
                    .cloned()
                    .collect();
                lib_view = Some((rust_paths::Modules::new(&root, &tree), macros));
            }
            placed.extend(tree);
            let lib_read = lib_view.is_some();
            out.extend(target_edges(
                p, &root, is_build, lib_read, &libs, files, read,
            ));
            placed.insert(root);
        }
    }
    unplaced.append(&mut orphans(&rs, &placed));
    unplaced.sort();
    unplaced.dedup();
    (out, unplaced)
}

/// The packages' lib roots by crate name; several packages may share one (fixtures, vendored
/// copies): all count.
fn libs_by_name(packages: &[Package]) -> HashMap<&str, Vec<&str>> {
    let mut libs: HashMap<&str, Vec<&str>> = HashMap::new();
    for p in packages {
        if let Some(lib) = &p.lib {
            libs.entry(&p.name).or_default().push(lib);
        }
    }
    libs
}

/// The `.rs` files no crate's module tree reached.
fn orphans(rs: &HashSet<&str>, placed: &HashSet<String>) -> Vec<String> {
    rs.iter()
        .filter(|f| !placed.contains(**f))
        .map(|f| (*f).to_owned())
        .collect()
}

/// A crate root's edges beyond its module tree: a build script's to the files it names; any
/// other target's to the lib (whole, when the lib's tree was not read) and to the build
/// script; every target's to the lib roots of the workspace packages its manifest depends on.
fn target_edges(
    p: &Package,
    root: &str,
    is_build: bool,
    lib_read: bool,
    libs: &HashMap<&str, Vec<&str>>,
    files: &[String],
    read: &dyn Fn(&str) -> Option<String>,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if is_build {
        let inputs = build_inputs(root, &p.dir, files, read);
        out.extend(inputs.into_iter().map(|i| (root.to_owned(), i)));
    }
    if let Some(lib) = p.lib.as_ref().filter(|l| **l != root && !is_build) {
        if !lib_read {
            // A library whose tree was not read: all of it.
            out.push((root.to_owned(), lib.clone()));
        }
    }
    // What the build script generates or configures, every target compiles with.
    if let Some(build) = p.build.as_ref().filter(|_| !is_build) {
        out.push((root.to_owned(), build.clone()));
    }
    for dep in &p.deps {
        for lib in libs.get(dep.as_str()).into_iter().flatten() {
            if *lib != root {
                out.push((root.to_owned(), (*lib).to_owned()));
            }
        }
    }
    out
}

/// The workspace files a build script names in a string literal, relative to its package
/// (`cc::Build::new().file("src/fast.c")`, `cargo:rerun-if-changed=proto/`): a directory
/// stands for every file below it that is not Rust (the crate's own files are its already).
fn build_inputs(
    build: &str,
    dir: &str,
    files: &[String],
    read: &dyn Fn(&str) -> Option<String>,
) -> Vec<String> {
    let Some(text) = read(build) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for t in lex::tokens(&text, STYLE) {
        let Kind::Str(s) = t.kind else { continue };
        let s = s
            .trim_start_matches("cargo:")
            .trim_start_matches(':')
            .trim_start_matches("rerun-if-changed=");
        let Some(path) = lex::join(dir, s).filter(|p| !p.is_empty() && *p != dir) else {
            continue;
        };
        if files.binary_search(&path).is_ok() {
            out.push(path);
            continue;
        }
        let below = format!("{path}/");
        let from = files.partition_point(|f| f.as_str() < below.as_str());
        out.extend(
            files[from..]
                .iter()
                .take_while(|f| f.starts_with(&below))
                .filter(|f| !f.ends_with(".rs"))
                .cloned(),
        );
    }
    out
}

/// How a module file places the files of the modules it declares.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    /// A crate root or `mod.rs`: children beside it.
    ModRs,
    /// `a.rs`: children in `a/`.
    Named,
    /// Loaded through `#[path]`: either way (rustc's rule differs by version and position).
    Either,
}

/// The module files a crate root declares, transitively (without the root).
fn module_tree(
    root: &str,
    manifest_dir: &str,
    rs: &HashSet<&str>,
    read: &dyn Fn(&str) -> Option<String>,
    unplaced: &mut Vec<String>,
    links: &mut Vec<(String, String)>,
) -> Vec<String> {
    let mut seen: HashSet<String> = HashSet::from([root.to_owned()]);
    let mut queue = vec![(root.to_owned(), Place::ModRs)];
    let mut out = Vec::new();
    while let Some((file, place)) = queue.pop() {
        let Some(text) = read(&file) else { continue };
        for (child, child_place) in children(&file, manifest_dir, place, &text, rs, unplaced) {
            // A file depends on what it declares or includes (`#[path]`, `include!`), wherever
            // that is.
            links.push((file.clone(), child.clone()));
            if seen.insert(child.clone()) {
                out.push(child.clone());
                queue.push((child, child_place));
            }
        }
    }
    out
}

/// A `mod` declaration found in a file: the inline modules around it, its name, its `#[path]`
/// (and whether that path only applies under a `cfg_attr`).
struct ModDecl<'a> {
    inline: Vec<&'a str>,
    name: &'a str,
    path: Option<(&'a str, bool)>,
}

/// The files one module file declares or includes, with how each places its own children.
fn children(
    file: &str,
    manifest_dir: &str,
    place: Place,
    text: &str,
    rs: &HashSet<&str>,
    unplaced: &mut Vec<String>,
) -> Vec<(String, Place)> {
    let toks = lex::tokens(text, STYLE);
    let (decls, includes) = scan(&toks);
    let dir = lex::dir_of(file);
    let stem = file
        .rsplit('/')
        .next()
        .unwrap_or(file)
        .trim_end_matches(".rs");
    let mut out = Vec::new();
    for d in decls {
        let mut bases = Vec::new();
        if place != Place::Named {
            bases.push(lex::join(dir, &d.inline.join("/")));
        }
        if place != Place::ModRs {
            bases.push(lex::join(dir, &format!("{stem}/{}", d.inline.join("/"))));
        }
        let mut found = Vec::new();
        for base in bases.into_iter().flatten() {
            if let Some((p, conditional)) = d.path {
                // Outside inline modules a path is relative to the file's directory.
                let base = if d.inline.is_empty() { dir } else { &base };
                found.extend(lex::join(base, p).map(|f| (f, Place::Either)));
                if !conditional {
                    continue;
                }
            }
            found.push((
                lex::join(&base, &format!("{}.rs", d.name)).unwrap_or_default(),
                Place::Named,
            ));
            found.push((
                lex::join(&base, &format!("{}/mod.rs", d.name)).unwrap_or_default(),
                Place::ModRs,
            ));
        }
        found.retain(|(f, _)| rs.contains(f.as_str()));
        if found.is_empty() {
            unplaced.push(file.to_owned());
        }
        out.extend(found);
    }
    for inc in includes {
        let target = inc.and_then(|(from_manifest, p)| {
            if from_manifest {
                lex::join(manifest_dir, p.trim_start_matches('/'))
            } else {
                lex::join(dir, &p)
            }
        });
        match target {
            Some(f) if rs.contains(f.as_str()) => out.push((f, Place::Either)),
            Some(_) => {}
            None => unplaced.push(file.to_owned()),
        }
    }
    out
}

/// An `include!`'s path: relative to the package's directory when it starts with
/// `env!("CARGO_MANIFEST_DIR")`, else to the including file's.
type IncludePath = (bool, String);

/// The `mod x;` declarations and `include!` arguments of a file (`None` for an argument that
/// is neither a string literal nor a `concat!` of literals after an optional
/// `env!("CARGO_MANIFEST_DIR")`).
fn scan<'a>(toks: &[Tok<'a>]) -> (Vec<ModDecl<'a>>, Vec<Option<IncludePath>>) {
    let mut decls = Vec::new();
    let mut includes = Vec::new();
    // One entry per open brace: the inline module it opens, if any.
    let mut braces: Vec<Option<&'a str>> = Vec::new();
    let mut pending_path: Option<(&'a str, bool)> = None;
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        match t.kind {
            Kind::Punct(b'#') => {
                let (path, next) = attribute(toks, i);
                pending_path = path.or(pending_path);
                i = next;
                continue;
            }
            Kind::Ident("mod") => {
                if let (Some(name), Some(after)) =
                    (toks.get(i + 1).and_then(Tok::ident), toks.get(i + 2))
                {
                    if after.is(b';') {
                        decls.push(ModDecl {
                            inline: braces.iter().flatten().copied().collect(),
                            name,
                            path: pending_path.take(),
                        });
                        i += 3;
                        continue;
                    }
                    if after.is(b'{') {
                        braces.push(Some(name));
                        pending_path = None;
                        i += 3;
                        continue;
                    }
                }
            }
            Kind::Ident("include")
                if toks.get(i + 1).is_some_and(|t| t.is(b'!'))
                    && toks
                        .get(i + 2)
                        .is_some_and(|t| t.is(b'(') || t.is(b'{') || t.is(b'[')) =>
            {
                includes.push(include_path(&toks[i + 3..]));
            }
            Kind::Punct(b'{') => {
                braces.push(None);
                pending_path = None;
            }
            Kind::Punct(b'}') => {
                braces.pop();
                pending_path = None;
            }
            Kind::Punct(b';') => pending_path = None,
            _ => {}
        }
        i += 1;
    }
    (decls, includes)
}

/// The path of an `include!` whose argument starts at `toks[0]`.
fn include_path(toks: &[Tok<'_>]) -> Option<IncludePath> {
    if let Some(Kind::Str(s)) = toks.first().map(|t| t.kind) {
        return Some((false, s.to_owned()));
    }
    let concat =
        toks.first()?.ident() == Some("concat") && toks.get(1)?.is(b'!') && toks.get(2)?.is(b'(');
    if !concat {
        return None;
    }
    let mut rest = &toks[3..];
    let from_manifest = rest.len() >= 5
        && rest[0].ident() == Some("env")
        && rest[1].is(b'!')
        && rest[2].is(b'(')
        && rest[3].kind == Kind::Str("CARGO_MANIFEST_DIR")
        && rest[4].is(b')');
    if from_manifest {
        rest = &rest[5..];
    }
    let mut path = String::new();
    for t in rest {
        match t.kind {
            Kind::Str(s) => path.push_str(s),
            Kind::Punct(b',') => {}
            Kind::Punct(b')') => return Some((from_manifest, path)),
            _ => return None,
        }
    }
    None
}

/// An attribute starting at `toks[i]` (`#`): its `path = ".."` if any (with whether it sits
/// in a `cfg_attr`), and the index after it.
fn attribute<'a>(toks: &[Tok<'a>], i: usize) -> (Option<(&'a str, bool)>, usize) {
    let mut j = i + 1;
    if toks.get(j).is_some_and(|t| t.is(b'!')) {
        j += 1;
    }
    if !toks.get(j).is_some_and(|t| t.is(b'[')) {
        return (None, i + 1);
    }
    let first = toks.get(j + 1).and_then(Tok::ident);
    let mut depth = 0usize;
    let mut path = None;
    while j < toks.len() {
        match toks[j].kind {
            Kind::Punct(b'[') => depth += 1,
            Kind::Punct(b']') => {
                depth -= 1;
                if depth == 0 {
                    return (path, j + 1);
                }
            }
            Kind::Ident("path") => {
                if let (Some(eq), Some(Kind::Str(s))) =
                    (toks.get(j + 1), toks.get(j + 2).map(|t| t.kind))
                {
                    if eq.is(b'=') {
                        path = Some((s, first != Some("path")));
                    }
                }
            }
            _ => {}
        }
        j += 1;
    }
    (path, j)
}

#[cfg(test)]
mod tests {
    use super::super::lex::testing::{pairs, run};
    use super::*;

    const WORKSPACE: &[(&str, &str)] = &[
        ("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n\n[workspace.dependencies]\ncore-lib = { path = \"crates/core\" }\nserde = \"1\"\n"),
        ("crates/core/Cargo.toml", "[package]\nname = \"core-lib\"\nversion = \"0.1.0\"\n\n[dependencies]\nserde.workspace = true\n"),
        ("crates/core/src/lib.rs", "//! Core.\n// mod commented;\npub mod parse;\nmod net;\n#[path = \"gen/tables.rs\"]\nmod tables;\nmod outer {\n    pub mod inner;\n}\nconst S: &str = \"mod fake;\";\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n"),
        ("crates/core/src/parse.rs", "mod lexer;\npub fn parse() {}\n"),
        ("crates/core/src/parse/lexer.rs", "pub fn lex<'a>(s: &'a str) -> &'a str { s }\n"),
        ("crates/core/src/net/mod.rs", "pub(crate) mod socket;\n"),
        ("crates/core/src/net/socket.rs", "include!(\"consts.rs\");\n"),
        ("crates/core/src/net/consts.rs", "const PORT: u16 = 1;\n"),
        ("crates/core/src/gen/tables.rs", "pub const T: [u8; 1] = [0];\n"),
        ("crates/core/src/outer/inner.rs", "pub struct Inner;\n"),
        ("crates/core/src/stray.rs", "fn unused() {}\n"),
        ("crates/core/tests/parse.rs", "mod common;\nmod cases {\n    include!(concat!(\n        env!(\"CARGO_MANIFEST_DIR\"),\n        \"/tests/data/cases.rs\"\n    ));\n}\nuse core_lib::parse::parse;\n#[test]\nfn parses() { parse() }\n"),
        ("crates/core/tests/common/mod.rs", "pub fn setup() {}\n"),
        ("crates/core/tests/data/cases.rs", "const CASES: &[&str] = &[];\n"),
        ("crates/app/Cargo.toml", "[package]\nname = \"app\"\nversion = \"0.1.0\"\nbuild = \"build.rs\"\n\n[dependencies]\ncore-lib.workspace = true\n"),
        ("crates/app/build.rs", "fn main() {\n    println!(\"cargo:rerun-if-changed=proto\");\n    cc::Build::new().file(\"native/fast.c\").compile(\"fast\");\n    let _ = \"src\";\n}\n"),
        ("crates/app/native/fast.c", "int fast(void) { return 1; }\n"),
        ("crates/app/proto/api.proto", "syntax = \"proto3\";\n"),
        ("crates/app/src/main.rs", "mod cli;\nmod generated { include!(concat!(env!(\"OUT_DIR\"), \"/gen.rs\")); }\nfn main() { core_lib::parse::parse() }\n"),
        ("crates/app/src/cli.rs", "pub fn run() {}\n"),
        // A fixture package under the member's name: a dependency on the name reaches both.
        ("crates/core/tests/fixtures/core/Cargo.toml", "[package]\nname = \"core_lib\"\n"),
        ("crates/core/tests/fixtures/core/src/lib.rs", "pub fn old() {}\n"),
    ];

    #[test]
    fn cargo_workspace_with_two_crates() {
        let (edges, unplaced) = run(WORKSPACE, edges);
        let lib = "crates/core/src/lib.rs";
        let mut want = Vec::new();
        // The root reaches every module file.
        for m in [
            "crates/core/src/parse.rs",
            "crates/core/src/parse/lexer.rs",
            "crates/core/src/net/mod.rs",
            "crates/core/src/net/socket.rs",
            "crates/core/src/net/consts.rs",
            "crates/core/src/gen/tables.rs",
            "crates/core/src/outer/inner.rs",
        ] {
            want.push((lib, m));
        }
        want.extend([
            // A module reaches what it declares or includes, not its root.
            ("crates/core/src/parse.rs", "crates/core/src/parse/lexer.rs"),
            (
                "crates/core/src/net/mod.rs",
                "crates/core/src/net/socket.rs",
            ),
            (
                "crates/core/src/net/mod.rs",
                "crates/core/src/net/consts.rs",
            ),
            (
                "crates/core/src/net/socket.rs",
                "crates/core/src/net/consts.rs",
            ),
            // The test target names `core_lib::parse`: that module, not the whole lib.
            ("crates/core/tests/parse.rs", "crates/core/src/parse.rs"),
            (
                "crates/core/tests/parse.rs",
                "crates/core/tests/common/mod.rs",
            ),
            (
                "crates/core/tests/parse.rs",
                "crates/core/tests/data/cases.rs",
            ),
            ("crates/app/src/main.rs", "crates/app/src/cli.rs"),
            ("crates/app/src/main.rs", lib),
            (
                "crates/app/src/main.rs",
                "crates/core/tests/fixtures/core/src/lib.rs",
            ),
            (
                "crates/app/build.rs",
                "crates/core/tests/fixtures/core/src/lib.rs",
            ),
            ("crates/app/src/main.rs", "crates/app/build.rs"),
            ("crates/app/build.rs", "crates/app/native/fast.c"),
            ("crates/app/build.rs", "crates/app/proto/api.proto"),
            ("crates/app/build.rs", lib),
        ]);
        assert_eq!(edges, pairs(&want));
        assert_eq!(
            unplaced,
            vec![
                "crates/app/src/main.rs".to_owned(),
                "crates/core/src/stray.rs".to_owned()
            ]
        );
    }
}
