//! C#'s edges, by namespace (C# file names need not match their types, so a namespace is the
//! finest unit a text scan can place): a file depends on the files of its own namespaces and
//! of every enclosing one (`N.A` sees `N`'s types, and all see the global namespace's), of
//! every namespace it names in a `using` or a qualified name (relative names resolved inside
//! its namespaces too), and of the namespaces of its project's global usings (`global using`
//! in any file, `<Using Include>` in the `.csproj`) and on the files holding those global
//! usings. A test project's files (a `.csproj` that references a test SDK or sits on a test
//! path) depend on every file of each project it references with `<ProjectReference>`,
//! transitively, since a compile error anywhere there fails the test project's build.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use super::lex::{self, Kind, Style, Tok};

const STYLE: Style = Style {
    nested_comments: false,
    rust_raw: false,
    backtick: false,
    csharp: true,
};

/// Edges `(from, to)` among the `.cs` files of `files`, with the projects read from the
/// `.csproj` files among `files` (the walk's every file); usings are all static, so no file
/// is left unplaced.
pub(super) fn edges(
    _root: &Path,
    files: &[String],
    read: &dyn Fn(&str) -> Option<String>,
) -> (Vec<(String, String)>, Vec<String>) {
    let cs: Vec<&str> = files
        .iter()
        .map(String::as_str)
        .filter(|f| f.ends_with(".cs"))
        .collect();
    let projects = Projects::find(files, read);
    let mut spaces: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    let mut scanned = Vec::new();
    for f in &cs {
        let Some(text) = read(f) else { continue };
        let s = scan(&lex::tokens(&text, STYLE));
        // A file of top-level statements declares nothing another file can name.
        if s.types || s.namespaces != [""] {
            for n in &s.namespaces {
                spaces.entry(n.clone()).or_default().push(f);
            }
        }
        scanned.push((*f, s));
    }
    // Global usings gathered per project before any file is resolved, with the files that
    // hold them: every file of the project compiles under them.
    let mut global: HashMap<&str, (BTreeSet<String>, Vec<&str>)> = HashMap::new();
    for (f, s) in &scanned {
        let g = global.entry(projects.of(f)).or_default();
        g.0.extend(s.global.iter().cloned());
        if !s.global.is_empty() {
            g.1.push(f);
        }
    }
    for p in &projects.list {
        let g = global.entry(&p.dir).or_default();
        g.0.extend(p.usings.iter().cloned());
    }
    let mut out = Vec::new();
    for (f, s) in &scanned {
        let mut targets: BTreeSet<&str> = BTreeSet::new();
        for n in &s.namespaces {
            for e in enclosing(n) {
                targets.extend(spaces.get(e).into_iter().flatten());
            }
        }
        let g = global.get(projects.of(f));
        targets.extend(g.into_iter().flat_map(|g| g.1.iter().copied()));
        for name in s.used.iter().chain(g.into_iter().flat_map(|g| g.0.iter())) {
            if let Some(files) = resolve(name, &s.namespaces, &spaces) {
                targets.extend(files);
            }
        }
        targets.remove(f);
        out.extend(targets.into_iter().map(|t| ((*f).to_owned(), t.to_owned())));
    }
    out.extend(projects.reference_edges(&cs));
    (out, Vec::new())
}

/// `A.B.C` → `A.B.C`, `A.B`, `A`, `` (the global namespace).
fn enclosing(n: &str) -> impl Iterator<Item = &str> {
    let mut next = Some(n);
    std::iter::from_fn(move || {
        let cur = next?;
        next = if cur.is_empty() {
            None
        } else {
            Some(cur.rsplit_once('.').map_or("", |(p, _)| p))
        };
        Some(cur)
    })
}

/// The files of the namespace a name reaches: its longest prefix naming a workspace namespace,
/// tried as written and inside each namespace around the file (relative names).
fn resolve<'f>(
    name: &str,
    inside: &[String],
    spaces: &'f BTreeMap<String, Vec<&'f str>>,
) -> Option<&'f Vec<&'f str>> {
    let name = name.strip_prefix("global::").unwrap_or(name);
    let segs: Vec<&str> = name.split('.').collect();
    for k in (1..=segs.len()).rev() {
        let head = segs[..k].join(".");
        for around in inside.iter().flat_map(|n| enclosing(n)) {
            let full = if around.is_empty() {
                head.clone()
            } else {
                format!("{around}.{head}")
            };
            if let Some(files) = spaces.get(&full) {
                return Some(files);
            }
        }
    }
    None
}

/// What one file declares and names.
#[derive(Debug, Default)]
struct Scan {
    /// The namespaces it declares (full names); the global one (`""`) when none.
    namespaces: Vec<String>,
    /// Names in its `using`s and its dotted names.
    used: Vec<String>,
    /// Its `global using`s, which apply to its whole project.
    global: Vec<String>,
    /// Whether it declares a type (`class`, `record`, ...), which a file of the global
    /// namespace must to be named by another.
    types: bool,
}

fn scan(toks: &[Tok<'_>]) -> Scan {
    let mut s = Scan::default();
    // One entry per open brace: the namespace it opens, if any.
    let mut braces: Vec<Option<String>> = Vec::new();
    let mut file_scoped = String::new();
    let mut i = 0;
    while i < toks.len() {
        match toks[i].kind {
            Kind::Ident("namespace") => {
                let (name, next) = dotted(toks, i + 1);
                let outer = braces.iter().rev().flatten().next().unwrap_or(&file_scoped);
                let full = if outer.is_empty() {
                    name
                } else {
                    format!("{outer}.{name}")
                };
                s.namespaces.push(full.clone());
                match toks.get(next).map(|t| t.kind) {
                    Some(Kind::Punct(b'{')) => braces.push(Some(full)),
                    Some(Kind::Punct(b';')) => file_scoped = full,
                    _ => {}
                }
                i = next + 1;
                continue;
            }
            Kind::Ident("using") if !toks.get(i + 1).is_some_and(|t| t.is(b'(')) => {
                let global = i > 0 && toks[i - 1].ident() == Some("global");
                let mut j = i + 1;
                if toks.get(j).and_then(Tok::ident) == Some("static") {
                    j += 1;
                }
                // `using Alias = N.C;`
                if toks.get(j + 1).is_some_and(|t| t.is(b'=')) {
                    j += 2;
                }
                let (name, next) = dotted(toks, j);
                if toks.get(next).is_some_and(|t| t.is(b';')) && !name.is_empty() {
                    if global {
                        s.global.push(name.clone());
                    }
                    s.used.push(name);
                }
            }
            Kind::Ident("class" | "struct" | "interface" | "enum" | "record" | "delegate") => {
                s.types = true;
            }
            Kind::Punct(b'{') => braces.push(None),
            Kind::Punct(b'}') => {
                braces.pop();
            }
            _ => {}
        }
        i += 1;
    }
    s.used.extend(lex::dotted_chains(toks));
    if s.namespaces.is_empty() {
        s.namespaces.push(String::new());
    }
    s.namespaces.sort();
    s.namespaces.dedup();
    s
}

/// A dotted name starting at `toks[i]` (`global::` dropped), and the index after it.
fn dotted(toks: &[Tok<'_>], mut i: usize) -> (String, usize) {
    if toks.get(i).and_then(Tok::ident) == Some("global")
        && toks.get(i + 1).is_some_and(|t| t.is(b':'))
        && toks.get(i + 2).is_some_and(|t| t.is(b':'))
    {
        i += 3;
    }
    let mut name = String::new();
    while let Some(id) = toks.get(i).and_then(Tok::ident) {
        name.push_str(id.trim_start_matches('@'));
        i += 1;
        if toks.get(i).is_some_and(|t| t.is(b'.')) && toks.get(i + 1).and_then(Tok::ident).is_some()
        {
            name.push('.');
            i += 1;
        } else {
            break;
        }
    }
    (name, i)
}

/// A `.csproj`: its directory (its files are the `.cs` files below it, nearer projects aside),
/// its `<Using Include>`s, the directories of the projects it references, and whether it is a
/// test project.
#[derive(Debug)]
struct Project {
    dir: String,
    usings: Vec<String>,
    references: Vec<String>,
    test: bool,
}

struct Projects {
    /// Sorted by directory.
    list: Vec<Project>,
}

impl Projects {
    /// Every `.csproj` among the workspace's files.
    fn find(files: &[String], read: &dyn Fn(&str) -> Option<String>) -> Self {
        let mut list: Vec<Project> = files
            .iter()
            .filter(|f| f.ends_with(".csproj"))
            .filter_map(|f| Some(parse_project(lex::dir_of(f), f, &read(f)?)))
            .collect();
        list.sort_by(|a, b| a.dir.cmp(&b.dir));
        Projects { list }
    }

    /// The directory of the project a file belongs to: the nearest `.csproj` above it (`""`
    /// when none, the workspace as one project).
    fn of<'a>(&'a self, file: &str) -> &'a str {
        self.list
            .iter()
            .rev()
            .find(|p| p.dir.is_empty() || file.starts_with(&format!("{}/", p.dir)))
            .map_or("", |p| p.dir.as_str())
    }

    /// A test project's files → every file of each project it references.
    fn reference_edges(&self, cs: &[&str]) -> Vec<(String, String)> {
        let mut by_project: HashMap<&str, Vec<&str>> = HashMap::new();
        for f in cs {
            by_project.entry(self.of(f)).or_default().push(f);
        }
        let mut out = Vec::new();
        for p in self.list.iter().filter(|p| p.test) {
            let reached = self.references_of(p);
            for f in by_project.get(p.dir.as_str()).into_iter().flatten() {
                for r in &reached {
                    let theirs = by_project.get(r).into_iter().flatten();
                    out.extend(theirs.map(|t| ((*f).to_owned(), (*t).to_owned())));
                }
            }
        }
        out
    }

    /// The directories of the projects a project references, transitively: a compile error
    /// anywhere in them fails the test project's build.
    fn references_of<'a>(&'a self, p: &'a Project) -> BTreeSet<&'a str> {
        let mut reached: BTreeSet<&str> = BTreeSet::new();
        let mut queue: Vec<&str> = p.references.iter().map(String::as_str).collect();
        while let Some(dir) = queue.pop() {
            if dir == p.dir || !reached.insert(dir) {
                continue;
            }
            for q in self.list.iter().filter(|q| q.dir == dir) {
                queue.extend(q.references.iter().map(String::as_str));
            }
        }
        reached
    }
}

fn parse_project(dir: &str, path: &str, text: &str) -> Project {
    let attr_values = |tag: &str| -> Vec<String> {
        let mut out = Vec::new();
        for part in text.split('<').filter(|p| p.starts_with(tag)) {
            let after = &part[tag.len()..];
            if !after.starts_with(char::is_whitespace) {
                continue;
            }
            if let Some(i) = after.find("Include=\"") {
                let v = &after[i + 9..];
                out.extend(v.split('"').next().map(str::to_owned));
            }
        }
        out
    };
    let references = attr_values("ProjectReference")
        .iter()
        .filter_map(|r| lex::join(dir, r))
        .map(|r| lex::dir_of(&r).to_owned())
        .collect();
    let test = pith_model::ecosystem::is_test_path(path)
        || ["Microsoft.NET.Test.Sdk", "xunit", "nunit", "MSTest"]
            .iter()
            .any(|m| text.contains(m));
    Project {
        dir: dir.to_owned(),
        usings: attr_values("Using"),
        references,
        test,
    }
}

#[cfg(test)]
mod tests {
    use super::super::lex::testing::{pairs, run};
    use super::*;

    const SOLUTION: &[(&str, &str)] = &[
        ("Shop.sln", "Microsoft Visual Studio Solution File\n"),
        ("src/Shop/Shop.csproj", "<Project Sdk=\"Microsoft.NET.Sdk\">\n  <ItemGroup>\n    <Using Include=\"Shop.Common\" />\n    <ProjectReference Include=\"../Core/Core.csproj\" />\n  </ItemGroup>\n</Project>\n"),
        ("src/Core/Core.csproj", "<Project Sdk=\"Microsoft.NET.Sdk\" />\n"),
        ("src/Core/Clock.cs", "namespace Core;\n\npublic class Clock { }\n"),
        // Top-level statements after a byte order mark: no type another file could name.
        ("src/Shop/Program.cs", "\u{feff}using Shop;\n\nSystem.Console.WriteLine(new Cart().Total());\n"),
        ("src/Shop/Cart.cs", "namespace Shop;\n\nusing Shop.Money;\n\npublic class Cart { public Amount Total() => Pricing.Sum(); }\n"),
        ("src/Shop/Pricing.cs", "namespace Shop\n{\n    static class Pricing { public static Money.Amount Sum() => Guard.Check(new()); }\n}\n"),
        ("src/Shop/Money/Amount.cs", "// using Shop.Data;\nnamespace Shop.Money { public record Amount(decimal Value); }\n"),
        ("src/Shop/Data/Store.cs", "namespace Shop.Data;\n\nusing static System.Math;\n\npublic class Store { string s = \"using Shop.Money;\"; }\n"),
        ("src/Shop/Common/Guard.cs", "namespace Shop.Common { public static class Guard { } }\n"),
        ("src/Shop/Usings.cs", "global using Shop.Data;\n"),
        ("tests/Shop.Tests/Shop.Tests.csproj", "<Project Sdk=\"Microsoft.NET.Sdk\">\n  <ItemGroup>\n    <PackageReference Include=\"xunit\" Version=\"2.9.0\" />\n    <ProjectReference Include=\"..\\..\\src\\Shop\\Shop.csproj\" />\n  </ItemGroup>\n</Project>\n"),
        ("tests/Shop.Tests/CartTests.cs", "using Xunit;\n\nnamespace Shop.Tests\n{\n    public class CartTests { [Fact] public void Total() => new Cart().Total(); }\n}\n"),
    ];

    #[test]
    fn solution_with_a_test_project_referencing_a_library() {
        let (edges, unplaced) = run(SOLUTION, edges);
        let cart = "src/Shop/Cart.cs";
        let pricing = "src/Shop/Pricing.cs";
        let amount = "src/Shop/Money/Amount.cs";
        let store = "src/Shop/Data/Store.cs";
        let guard = "src/Shop/Common/Guard.cs";
        let usings = "src/Shop/Usings.cs";
        let test = "tests/Shop.Tests/CartTests.cs";
        let program = "src/Shop/Program.cs";
        let mut want = vec![
            (program, cart),
            (program, pricing),
            (program, usings),
            (program, store),
            (program, guard),
            (cart, pricing),
            (pricing, cart),
            (cart, usings),
            (pricing, usings),
            (amount, usings),
            (store, usings),
            (guard, usings),
            // Namespaces a file names, and the project's global usings (Data, Common).
            (cart, amount),
            (pricing, amount),
            (cart, store),
            (pricing, store),
            (amount, store),
            (guard, store),
            (usings, store),
            (cart, guard),
            (pricing, guard),
            (amount, guard),
            (store, guard),
            (usings, guard),
            // Enclosing namespace Shop.
            (amount, cart),
            (amount, pricing),
            (store, cart),
            (store, pricing),
            (guard, cart),
            (guard, pricing),
            (test, cart),
            (test, pricing),
            (test, usings),
        ];
        // The test project references the whole library, and what the library references.
        for lib in [amount, store, guard, program, "src/Core/Clock.cs"] {
            want.push((test, lib));
        }
        assert_eq!(edges, pairs(&want));
        assert!(unplaced.is_empty());
    }
}
