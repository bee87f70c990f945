//! Go's edges: a file depends on the non-test files of every workspace package it imports
//! (import paths resolved through the `go.mod` files of the workspace, nested modules and
//! in-workspace `replace` directives included, and `vendor/` copies), and on the non-test
//! files of its own directory, since a package compiles as one unit; a test file also on the
//! other test files of its directory, which compile into the same test binary; every file on
//! the C, C++ and assembly files of its directory (cgo and `.s` files build into the
//! package). The standard library and modules outside the workspace give no edge.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use super::lex::{self, Kind, Style, Tok};

const STYLE: Style = Style {
    nested_comments: false,
    rust_raw: false,
    backtick: true,
    csharp: false,
};

/// Sources of other languages a Go package compiles with it, as the go tool names them (cgo's
/// C, C++ and Objective-C files, assembly): the tool's list, not the language table's C and
/// C++, whose rarer extensions (`c++`, `ipp`, …) a Go package does not build.
const FOREIGN: &[&str] = &[
    "c", "h", "cc", "cpp", "cxx", "hh", "hpp", "hxx", "m", "s", "S",
];

/// Edges `(from, to)` among the `.go` files of `files` (and to the C and assembly files of
/// their packages), and the files importing a path of a
/// workspace module that names no directory with Go files (generated, or deleted).
pub(super) fn edges(
    _root: &Path,
    files: &[String],
    read: &dyn Fn(&str) -> Option<String>,
) -> (Vec<(String, String)>, Vec<String>) {
    let go: Vec<&str> = files
        .iter()
        .map(String::as_str)
        .filter(|f| f.ends_with(".go"))
        .collect();
    // Directory → its non-test files, the target of every import of the package.
    let mut packages: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    // Directory → its test files, which compile together into the package's test binary.
    let mut tests: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for f in &go {
        let entry = packages.entry(lex::dir_of(f)).or_default();
        if f.ends_with("_test.go") {
            tests.entry(lex::dir_of(f)).or_default().push(f);
        } else {
            entry.push(f);
        }
    }
    // Directory → its C, C++ and assembly files, which `go build` compiles into the package
    // (cgo, `.s`): a change to one changes the package.
    let mut foreign: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for f in files {
        let ext = f.rsplit_once('.').map_or("", |(_, e)| e);
        if FOREIGN.contains(&ext) && packages.contains_key(lex::dir_of(f)) {
            foreign.entry(lex::dir_of(f)).or_default().push(f);
        }
    }
    let modules = Modules::find(&packages, read);
    let mut out = Vec::new();
    let mut unplaced = Vec::new();
    for f in &go {
        let dir = lex::dir_of(f);
        // A test file also uses its siblings' helpers (`export_test.go`, `helpers_test.go`).
        let siblings = f
            .ends_with("_test.go")
            .then(|| tests.get(dir))
            .flatten()
            .into_iter()
            .flatten();
        let own = packages.get(dir).into_iter().flatten();
        for g in own
            .chain(siblings)
            .chain(foreign.get(dir).into_iter().flatten())
        {
            if g != f {
                out.push(((*f).to_owned(), (*g).to_owned()));
            }
        }
        let Some(text) = read(f) else { continue };
        for path in imports(&lex::tokens(&text, STYLE)) {
            match modules.resolve(path, dir, &packages) {
                Resolved::Package(targets) => {
                    out.extend(targets.iter().map(|t| ((*f).to_owned(), (*t).to_owned())));
                }
                Resolved::Missing => unplaced.push((*f).to_owned()),
                Resolved::Outside => {}
            }
        }
    }
    unplaced.dedup();
    (out, unplaced)
}

/// The import paths of a Go file: the `import` declarations after the package clause, single
/// or grouped, with or without a name (`_`, `.`, an alias). Stops at the first other
/// declaration, since Go allows imports nowhere else.
fn imports<'a>(toks: &[Tok<'a>]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        match toks[i].kind {
            Kind::Ident("package") => i += 2,
            Kind::Punct(b';') => i += 1,
            Kind::Ident("import") => {
                i += 1;
                if toks.get(i).is_some_and(|t| t.is(b'(')) {
                    while i < toks.len() && !toks[i].is(b')') {
                        if let Kind::Str(s) = toks[i].kind {
                            out.push(s);
                        }
                        i += 1;
                    }
                    i += 1;
                } else {
                    // The package name, `_` or `.` before the path.
                    while toks
                        .get(i)
                        .is_some_and(|t| t.ident().is_some() || t.is(b'.'))
                    {
                        i += 1;
                    }
                    if let Some(Kind::Str(s)) = toks.get(i).map(|t| t.kind) {
                        out.push(s);
                    }
                    i += 1;
                }
            }
            _ => break,
        }
    }
    out
}

enum Resolved<'a> {
    /// The package's files; the union when several modules share the path (copies, fixtures).
    Package(Vec<&'a str>),
    /// A workspace module's path naming no directory with Go files.
    Missing,
    /// The standard library or a module outside the workspace.
    Outside,
}

/// The workspace's modules: module path → directory, from every `go.mod` above a Go file
/// and every `replace` pointing inside the workspace.
struct Modules {
    dirs: HashMap<String, Vec<String>>,
}

impl Modules {
    fn find(packages: &BTreeMap<&str, Vec<&str>>, read: &dyn Fn(&str) -> Option<String>) -> Self {
        let mut seen: HashMap<String, bool> = HashMap::new();
        let mut dirs: HashMap<String, Vec<String>> = HashMap::new();
        for dir in packages.keys() {
            let mut d = (*dir).to_owned();
            loop {
                if seen.insert(d.clone(), true).is_some() {
                    break;
                }
                let gomod = if d.is_empty() {
                    "go.mod".to_owned()
                } else {
                    format!("{d}/go.mod")
                };
                if let Some(text) = read(&gomod) {
                    for (path, target) in parse_gomod(&text, &d) {
                        dirs.entry(path).or_default().push(target);
                    }
                }
                if d.is_empty() {
                    break;
                }
                d = lex::dir_of(&d).to_owned();
            }
        }
        Modules { dirs }
    }

    /// The package an import path names: the longest module path it starts with, then the
    /// rest as directories below the module's; else a `vendor/` copy in an enclosing dir.
    fn resolve<'p>(
        &self,
        path: &str,
        from_dir: &str,
        packages: &'p BTreeMap<&'p str, Vec<&'p str>>,
    ) -> Resolved<'p> {
        let mut prefix = path;
        loop {
            if let Some(dirs) = self.dirs.get(prefix) {
                let rest = &path[prefix.len()..];
                let mut found = Vec::new();
                for d in dirs {
                    let dir = lex::join(d, rest.trim_start_matches('/')).unwrap_or_default();
                    found.extend(packages.get(dir.as_str()).into_iter().flatten());
                }
                found.sort_unstable();
                found.dedup();
                return if found.is_empty() {
                    Resolved::Missing
                } else {
                    Resolved::Package(found)
                };
            }
            match prefix.rsplit_once('/') {
                Some((p, _)) => prefix = p,
                None => break,
            }
        }
        let mut d = from_dir;
        loop {
            let vendored = lex::join(d, &format!("vendor/{path}")).unwrap_or_default();
            if let Some(v) = packages.get(vendored.as_str()).filter(|v| !v.is_empty()) {
                return Resolved::Package(v.clone());
            }
            if d.is_empty() {
                return Resolved::Outside;
            }
            d = lex::dir_of(d);
        }
    }
}

/// A `go.mod`'s module path (→ its directory) and its `replace` directives whose target is a
/// directory inside the workspace (→ that directory).
fn parse_gomod(text: &str, dir: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut in_replace = false;
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("").trim();
        if let Some(rest) = line.strip_prefix("module") {
            let name = rest.trim().trim_matches('"');
            if !name.is_empty() && rest.starts_with([' ', '\t', '"']) {
                out.push((name.to_owned(), dir.to_owned()));
            }
            continue;
        }
        let spec = if in_replace {
            if line.starts_with(')') {
                in_replace = false;
                continue;
            }
            line
        } else if let Some(rest) = line.strip_prefix("replace") {
            let rest = rest.trim();
            if rest.starts_with('(') {
                in_replace = true;
                continue;
            }
            rest
        } else {
            continue;
        };
        let Some((left, right)) = spec.split_once("=>") else {
            continue;
        };
        let from = left
            .split_whitespace()
            .next()
            .unwrap_or("")
            .trim_matches('"');
        let to = right
            .split_whitespace()
            .next()
            .unwrap_or("")
            .trim_matches('"');
        if from.is_empty() || !(to.starts_with("./") || to.starts_with("../")) {
            continue;
        }
        if let Some(target) = lex::join(dir, to) {
            out.push((from.to_owned(), target));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::lex::testing::{pairs, run};
    use super::*;

    const TREE: &[(&str, &str)] = &[
        ("go.mod", "module example.com/shop\n\ngo 1.22\n\nrequire (\n\tgithub.com/x/y v1.0.0\n\texample.com/money v0.0.0\n)\n\nreplace example.com/money => ./money // local\n"),
        ("cmd/shop/main.go", "package main\n\nimport (\n\t\"fmt\"\n\tcart \"example.com/shop/internal/cart\"\n\t_ \"example.com/shop/internal/db\"\n\t\"example.com/tools/lint\"\n)\n\nfunc main() { fmt.Println(cart.New(), \"import \\\"example.com/shop/internal/price\\\"\") }\n"),
        ("internal/cart/cart.go", "// Package cart.\npackage cart\n\nimport \"example.com/money\"\n\n/* import \"example.com/shop/internal/db\" */\nfunc New() money.Amount { return total() }\n"),
        ("internal/cart/total.go", "package cart\n\nimport . `example.com/shop/internal/price`\n\nfunc total() int { return Zero }\n"),
        ("internal/cart/cart_test.go", "package cart\n\nimport \"testing\"\n\nfunc TestNew(t *testing.T) { helper(t) }\n"),
        ("internal/cart/helpers_test.go", "package cart\n\nimport \"testing\"\n\nfunc helper(t *testing.T) {}\n"),
        ("internal/cart/api_test.go", "package cart_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/shop/internal/cart\"\n)\n\nfunc TestAPI(t *testing.T) { cart.New() }\n"),
        ("internal/price/price.go", "package price\n\n// #include \"round.h\"\nimport \"C\"\n\nconst Zero = 0\n"),
        ("internal/price/round.h", "int round_cents(int);\n"),
        ("internal/price/round.c", "#include \"round.h\"\nint round_cents(int c) { return c; }\n"),
        ("internal/db/db.go", "package db\n\nimport \"github.com/x/y\"\n\nvar _ = y.X\n"),
        ("internal/gen/use.go", "package gen\n\nimport \"example.com/shop/internal/generated\"\n\nvar _ = generated.X\n"),
        // A fork under another path, reached only through the replace.
        ("money/go.mod", "module github.com/fork/money\n\ngo 1.22\n"),
        // A nested module with its own path, which the root module's path does not cover.
        ("tools/go.mod", "module example.com/tools\n\ngo 1.22\n"),
        ("tools/lint/lint.go", "package lint\n\nfunc Check() {}\n"),
        ("money/money.go", "package money\n\ntype Amount int\n"),
    ];

    #[test]
    fn go_module_with_packages_a_nested_module_and_a_replace() {
        let (edges, unplaced) = run(TREE, edges);
        assert_eq!(
            edges,
            pairs(&[
                ("cmd/shop/main.go", "internal/cart/cart.go"),
                ("cmd/shop/main.go", "internal/cart/total.go"),
                ("cmd/shop/main.go", "internal/db/db.go"),
                ("cmd/shop/main.go", "tools/lint/lint.go"),
                ("internal/cart/api_test.go", "internal/cart/cart.go"),
                ("internal/cart/api_test.go", "internal/cart/total.go"),
                ("internal/cart/cart.go", "internal/cart/total.go"),
                ("internal/cart/cart.go", "money/money.go"),
                ("internal/cart/cart_test.go", "internal/cart/cart.go"),
                ("internal/cart/cart_test.go", "internal/cart/total.go"),
                (
                    "internal/cart/cart_test.go",
                    "internal/cart/helpers_test.go"
                ),
                ("internal/cart/cart_test.go", "internal/cart/api_test.go"),
                ("internal/cart/helpers_test.go", "internal/cart/cart.go"),
                ("internal/cart/helpers_test.go", "internal/cart/total.go"),
                ("internal/cart/helpers_test.go", "internal/cart/api_test.go"),
                (
                    "internal/cart/helpers_test.go",
                    "internal/cart/cart_test.go"
                ),
                ("internal/cart/api_test.go", "internal/cart/cart_test.go"),
                ("internal/cart/api_test.go", "internal/cart/helpers_test.go"),
                ("internal/cart/total.go", "internal/cart/cart.go"),
                ("internal/cart/total.go", "internal/price/price.go"),
                ("internal/price/price.go", "internal/price/round.c"),
                ("internal/price/price.go", "internal/price/round.h"),
            ])
        );
        assert_eq!(unplaced, vec!["internal/gen/use.go".to_owned()]);
    }

    #[test]
    fn modules_sharing_a_path_are_all_reached() {
        let tree: &[(&str, &str)] = &[
            ("fixtures/a/go.mod", "module example.com/app\n"),
            (
                "fixtures/a/main.go",
                "package main\nimport \"example.com/app/util\"\n",
            ),
            ("fixtures/b/go.mod", "module example.com/app\n"),
            ("fixtures/a/util/u.go", "package util\n"),
            ("fixtures/b/util/u.go", "package util\n"),
        ];
        let (edges, unplaced) = run(tree, edges);
        assert_eq!(
            edges,
            pairs(&[
                ("fixtures/a/main.go", "fixtures/a/util/u.go"),
                ("fixtures/a/main.go", "fixtures/b/util/u.go"),
            ])
        );
        assert!(unplaced.is_empty());
    }

    #[test]
    fn vendored_packages_are_workspace_files() {
        let tree: &[(&str, &str)] = &[
            ("go.mod", "module m\n"),
            ("a.go", "package m\nimport \"github.com/v/w\"\n"),
            ("vendor/github.com/v/w/w.go", "package w\n"),
        ];
        let (edges, _) = run(tree, edges);
        assert_eq!(edges, pairs(&[("a.go", "vendor/github.com/v/w/w.go")]));
    }
}
