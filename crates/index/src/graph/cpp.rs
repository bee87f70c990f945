//! C and C++'s edges: `#include "x.h"` → `x.h` beside the including file, else below every
//! directory named `include`, else every workspace file whose path ends with `/x.h` (all of
//! them: a build's `-I` flags are not read, so every candidate is kept); `#include <x.h>` →
//! the same without the first step, and only when a workspace file matches. A header depends
//! on the implementation files of its stem anywhere in the workspace (`foo.h` → `foo.c`,
//! `foo.cpp`, ...), and on the sources that define a function it declares (`shop.h`'s `mul`
//! in `money.c`): a test that includes a header runs what implements it.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use pith_model::lang::{self, Language};

use super::lex::{self, Kind, Style};

/// The model's C and C++ extensions by role (the table does not tell a header from a
/// translation unit): what a header's implementations are looked for among.
const HEADERS: &[&str] = &["h", "hh", "hpp", "hxx", "h++", "inl", "ipp", "tcc"];
const SOURCES: &[&str] = &["c", "cc", "cpp", "cxx", "c++"];

fn ext(path: &str) -> Option<&str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.').map(|(_, e)| e)
}

/// Whether a path is a C or C++ file this resolver reads.
pub(super) fn is_c_family(path: &str) -> bool {
    lang::of_path(path).is_some_and(|l| matches!(l.id, Language::C | Language::Cpp))
}

/// Edges `(from, to)` among the C/C++ files of `files`, and the files with an `#include`
/// whose target is a macro (`#include CONFIG_H`), which the graph cannot place.
pub(super) fn edges(
    _root: &Path,
    files: &[String],
    read: &dyn Fn(&str) -> Option<String>,
) -> (Vec<(String, String)>, Vec<String>) {
    let c: Vec<&str> = files
        .iter()
        .map(String::as_str)
        .filter(|f| is_c_family(f))
        .collect();
    let index = Index::new(&c);
    let mut out = Vec::new();
    let mut unplaced = Vec::new();
    let texts: Vec<(&str, Option<String>)> = c.iter().map(|f| (*f, read(f))).collect();
    // Which sources define each function name: a header reaches the sources that define what
    // it declares, whatever their names (`shop.h` declared, `money.c` and `cart.c` defining).
    let mut definers: HashMap<String, Vec<&str>> = HashMap::new();
    for (f, text) in &texts {
        if let (true, Some(text)) = (ext(f).is_some_and(|e| SOURCES.contains(&e)), text) {
            for name in functions(text).defined {
                definers.entry(name).or_default().push(f);
            }
        }
    }
    for (f, text) in &texts {
        let mut implemented: Vec<&str> = index.implementations(f).cloned().unwrap_or_default();
        if let (true, Some(text)) = (ext(f).is_some_and(|e| HEADERS.contains(&e)), text) {
            for name in functions(text).declared {
                match definers.get(&name) {
                    // A name defined everywhere (`main`, a common helper) tells nothing.
                    Some(by) if by.len() <= GENERIC => implemented.extend(by.iter().copied()),
                    _ => {}
                }
            }
        }
        implemented.sort_unstable();
        implemented.dedup();
        out.extend(
            implemented
                .into_iter()
                .filter(|i| i != f)
                .map(|i| ((*f).to_owned(), i.to_owned())),
        );
        let Some(text) = text else { continue };
        for inc in includes(text) {
            let targets = match inc {
                Include::Quoted(p) => index.quoted(lex::dir_of(f), p),
                Include::Angle(p) => index.angle(p),
                Include::Macro => {
                    unplaced.push((*f).to_owned());
                    continue;
                }
            };
            out.extend(
                targets
                    .into_iter()
                    .filter(|t| t != f)
                    .map(|t| ((*f).to_owned(), t.to_owned())),
            );
        }
    }
    unplaced.dedup();
    (out, unplaced)
}

/// Sources defining one name past which the name says nothing of a header's implementations.
const GENERIC: usize = 16;

/// The function names a C or C++ text declares (`name(...);`) and defines (`name(...) {`,
/// `Type::name(...) const {`), read from tokens at any depth: over-read rather than missed —
/// an extra edge runs a test too many, a missing one misses a suspect.
#[derive(Debug, Default, PartialEq)]
struct Functions {
    declared: Vec<String>,
    defined: Vec<String>,
}

fn functions(text: &str) -> Functions {
    const NOT_NAMES: &[&str] = &[
        "if",
        "for",
        "while",
        "switch",
        "return",
        "sizeof",
        "catch",
        "defined",
        "decltype",
        "alignof",
        "static_assert",
        "__attribute__",
        "typeof",
        "do",
        "else",
    ];
    let toks = lex::tokens(text, Style::default());
    let mut out = Functions::default();
    let mut i = 0;
    while i + 1 < toks.len() {
        let (Some(name), true) = (toks[i].ident(), toks[i + 1].is(b'(')) else {
            i += 1;
            continue;
        };
        // A macro's own definition is no function.
        let directive = i >= 2 && toks[i - 2].is(b'#') && toks[i - 1].ident() == Some("define");
        let mut depth = 0usize;
        let mut j = i + 1;
        while j < toks.len() {
            if toks[j].is(b'(') {
                depth += 1;
            } else if toks[j].is(b')') {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            j += 1;
        }
        // After the parameters: qualifiers (`const`, `noexcept`, `override`, a trailing
        // return type), then `;` or `= 0;` declares and `{` defines.
        let mut k = j + 1;
        while k < toks.len()
            && (toks[k].ident().is_some()
                || toks[k].is(b'-')
                || toks[k].is(b'>')
                || toks[k].is(b'&')
                || toks[k].is(b'*')
                || toks[k].is(b':'))
        {
            k += 1;
        }
        if !directive && !NOT_NAMES.contains(&name) {
            match toks.get(k) {
                Some(t) if t.is(b';') || t.is(b'=') => out.declared.push(name.to_owned()),
                Some(t) if t.is(b'{') => out.defined.push(name.to_owned()),
                _ => {}
            }
        }
        i += 1;
    }
    out.declared.sort_unstable();
    out.declared.dedup();
    out.defined.sort_unstable();
    out.defined.dedup();
    out
}

#[derive(Debug, PartialEq)]
enum Include<'a> {
    Quoted(&'a str),
    Angle(&'a str),
    Macro,
}

/// The `#include`s (and `#import`, `#include_next`) of a file, comments skipped.
fn includes(text: &str) -> Vec<Include<'_>> {
    let toks = lex::tokens(text, Style::default());
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let directive = t.is(b'#')
            && toks.get(i + 1).is_some_and(|d| {
                d.line == t.line && matches!(d.ident(), Some("include" | "import" | "include_next"))
            });
        if !directive {
            continue;
        }
        let Some(arg) = toks.get(i + 2).filter(|a| a.line == t.line) else {
            out.push(Include::Macro);
            continue;
        };
        out.push(match arg.kind {
            Kind::Str(s) => Include::Quoted(s),
            Kind::Punct(b'<') => {
                let rest = text.get(arg.start + 1..).unwrap_or("");
                let end = rest.find(['>', '\n']).unwrap_or(rest.len());
                Include::Angle(rest[..end].trim())
            }
            _ => Include::Macro,
        });
    }
    out
}

/// Lookups over the workspace's C/C++ files.
struct Index<'f> {
    files: HashSet<&'f str>,
    /// Directories named `include`.
    include_dirs: Vec<String>,
    /// Every trailing run of path components (`x.h`, `sub/x.h`, `a/sub/x.h`) → the files
    /// ending so.
    suffixes: HashMap<&'f str, Vec<&'f str>>,
    /// Implementation files by stem (`src/foo.cpp` → `foo`).
    impls: HashMap<&'f str, Vec<&'f str>>,
}

impl<'f> Index<'f> {
    fn new(c: &[&'f str]) -> Self {
        let mut include_dirs: HashSet<String> = HashSet::new();
        let mut suffixes: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut impls: HashMap<&str, Vec<&str>> = HashMap::new();
        for f in c {
            let mut dir = lex::dir_of(f);
            while !dir.is_empty() {
                if dir.rsplit('/').next() == Some("include") {
                    include_dirs.insert(dir.to_owned());
                }
                dir = lex::dir_of(dir);
            }
            suffixes.entry(f).or_default().push(f);
            for (i, _) in f.match_indices('/') {
                suffixes.entry(&f[i + 1..]).or_default().push(f);
            }
            if ext(f).is_some_and(|e| SOURCES.contains(&e)) {
                impls.entry(stem(f)).or_default().push(f);
            }
        }
        let mut include_dirs: Vec<String> = include_dirs.into_iter().collect();
        include_dirs.sort();
        Index {
            files: c.iter().copied().collect(),
            include_dirs,
            suffixes,
            impls,
        }
    }

    fn implementations(&self, f: &str) -> Option<&Vec<&'f str>> {
        if !ext(f).is_some_and(|e| HEADERS.contains(&e)) {
            return None;
        }
        self.impls.get(stem(f))
    }

    fn quoted(&self, dir: &str, p: &str) -> Vec<&'f str> {
        if let Some(beside) = lex::join(dir, p).and_then(|j| self.files.get(j.as_str())) {
            return vec![beside];
        }
        self.angle(p)
    }

    fn angle(&self, p: &str) -> Vec<&'f str> {
        let found: Vec<&'f str> = self
            .include_dirs
            .iter()
            .filter_map(|d| lex::join(d, p).and_then(|j| self.files.get(j.as_str()).copied()))
            .collect();
        if !found.is_empty() {
            return found;
        }
        // `../x.h` from an unknown search path: the part below the climbs.
        let tail = p
            .replace('\\', "/")
            .split('/')
            .filter(|s| !matches!(*s, "" | "." | ".."))
            .collect::<Vec<_>>()
            .join("/");
        self.suffixes
            .get(tail.as_str())
            .cloned()
            .unwrap_or_default()
    }
}

fn stem(f: &str) -> &str {
    let name = f.rsplit('/').next().unwrap_or(f);
    name.split_once('.').map_or(name, |(s, _)| s)
}

#[cfg(test)]
mod tests {
    use super::super::lex::testing::{pairs, run};
    use super::*;

    const CMAKE: &[(&str, &str)] = &[
        ("CMakeLists.txt", "cmake_minimum_required(VERSION 3.20)\nproject(geo CXX)\nadd_subdirectory(src)\nadd_subdirectory(tests)\n"),
        ("include/geo/point.hpp", "#pragma once\n#include <cmath>\n#include \"geo/config.h\"\nstruct Point { double x, y; };\n"),
        ("include/geo/config.h", "#define GEO_VERSION 1\n"),
        ("include/geo/shape.hpp", "#pragma once\n#include \"point.hpp\"\n/* #include \"geo/legacy.h\" */\n"),
        ("src/point.cpp", "#include <geo/point.hpp>\n// #include \"shape.hpp\"\nconst char* s = \"#include <geo/shape.hpp>\";\n"),
        ("src/shape.cpp", "#  include \"geo/shape.hpp\"\n#include \"detail/area.h\"\n#include PLATFORM_HEADER\n"),
        ("src/detail/area.h", "double area();\n"),
        // Copies a search by name alone would also find.
        ("include/geo/area.h", "double area2();\n"),
        ("legacy/geo/config.h", "#define GEO_VERSION 0\n"),
        ("src/detail/area.c", "#include \"area.h\"\n"),
        ("third/util/log.h", "void log();\n"),
        ("lib/util/log.h", "void log2();\n"),
        ("tests/test_shape.cpp", "#include \"geo/shape.hpp\"\n#include \"util/log.h\"\n#include <gtest/gtest.h>\n"),
    ];

    #[test]
    fn headers_and_sources_part_the_language_tables_c_and_cpp() {
        let mut parts: Vec<&str> = HEADERS.iter().chain(SOURCES).copied().collect();
        let mut table: Vec<&str> = [&lang::C, &lang::CPP]
            .iter()
            .flat_map(|l| l.extensions.iter().copied())
            .collect();
        parts.sort_unstable();
        table.sort_unstable();
        assert_eq!(parts, table);
    }

    #[test]
    fn cmake_tree_with_include_and_src() {
        let (edges, unplaced) = run(CMAKE, edges);
        assert_eq!(
            edges,
            pairs(&[
                ("include/geo/point.hpp", "include/geo/config.h"),
                ("include/geo/point.hpp", "src/point.cpp"),
                ("include/geo/shape.hpp", "include/geo/point.hpp"),
                ("include/geo/shape.hpp", "src/shape.cpp"),
                ("src/point.cpp", "include/geo/point.hpp"),
                ("src/shape.cpp", "include/geo/shape.hpp"),
                ("src/shape.cpp", "src/detail/area.h"),
                ("src/detail/area.h", "src/detail/area.c"),
                ("include/geo/area.h", "src/detail/area.c"),
                ("src/detail/area.c", "src/detail/area.h"),
                ("tests/test_shape.cpp", "include/geo/shape.hpp"),
                ("tests/test_shape.cpp", "lib/util/log.h"),
                ("tests/test_shape.cpp", "third/util/log.h"),
            ])
        );
        assert_eq!(unplaced, vec!["src/shape.cpp".to_owned()]);
    }

    #[test]
    fn a_header_reaches_the_sources_that_define_what_it_declares() {
        let tree: &[(&str, &str)] = &[
            ("include/shop.h", "#pragma once\n#define TWICE(x) ((x) * 2)\nint add(int a, int b);\nint mul(int a, int b);\nstruct Cart { long total() const; };\n"),
            ("src/money.c", "#include \"shop.h\"\nint mul(int a, int b) { return a * b; }\n"),
            ("src/cart.cc", "#include \"shop.h\"\nint add(int a, int b) {\n  if (a) { return a + b; }\n  return b;\n}\nlong Cart::total() const { return add(1, 2); }\n"),
            ("src/other.c", "static int twice(int x) { return TWICE(x); }\n"),
            ("tests/shop_test.cc", "#include \"shop.h\"\nTEST(Shop, Muls) { EXPECT_EQ(mul(2, 3), 6); }\n"),
        ];
        let (edges, _) = run(tree, edges);
        for (from, to) in [
            ("include/shop.h", "src/money.c"),
            ("include/shop.h", "src/cart.cc"),
            ("tests/shop_test.cc", "include/shop.h"),
        ] {
            assert!(
                edges.contains(&(from.to_owned(), to.to_owned())),
                "{from} -> {to}: {edges:?}"
            );
        }
        assert!(
            !edges
                .iter()
                .any(|(f, t)| f == "include/shop.h" && t == "src/other.c"),
            "{edges:?}"
        );
        let f = functions("int add(int a, int b);\nlong Cart::total() const { return 1; }\n#define F(x) (x)\nvoid g() = delete;\n");
        assert_eq!(f.declared, ["add", "g"]);
        assert_eq!(f.defined, ["total"]);
    }
}
