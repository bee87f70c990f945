//! Python's imports as graph edges: `import a.b`, `from a.b import c` (c a name or a
//! submodule), relative imports, imports anywhere in a file (functions, `try`, `if
//! TYPE_CHECKING`), `importlib.import_module` / `__import__` with a literal, and pytest's
//! `conftest.py` files, which every test below them loads. A small tokenizer (strings,
//! comments, brackets, line continuations) finds the statements, so text in a docstring or a
//! comment that reads like an import is not one; it costs one pass over each file's bytes.
//!
//! A module is looked up in the directories Python would search: the importing file's
//! ancestors that are not packages themselves (pytest's rootdir insertion, a script's own
//! directory), each with its `src/` and `lib/`, then the package ancestors as a fallback. A
//! module found nowhere in the workspace is a dependency outside it: no edge.

use std::collections::HashSet;
use std::path::Path;

use pith_model::lang::{self, Language};

use super::paths::{ancestors, child, has, join, parent};

/// One import as written: `level` leading dots, the dotted module, and for `from` imports
/// the imported names (each possibly a submodule).
#[derive(Debug, Default, PartialEq)]
struct Import {
    level: usize,
    module: Vec<String>,
    names: Vec<String>,
}

pub(super) fn edges(
    _root: &Path,
    files: &[String],
    read: &dyn Fn(&str) -> Option<String>,
) -> (Vec<(String, String)>, Vec<String>) {
    let ctx = Context::new(files);
    let mut edges = Vec::new();
    let mut dynamic = Vec::new();
    for file in files.iter().filter(|f| is_python(f)) {
        let Some(text) = read(file) else {
            continue;
        };
        let (imports, is_dynamic, paths) = scan(&text);
        if is_dynamic {
            dynamic.push(file.clone());
        }
        let mut to: Vec<String> = Vec::new();
        let entries = ctx.entries(file);
        for imp in &imports {
            ctx.resolve(file, &entries, imp, &mut to);
        }
        if pith_model::ecosystem::is_test_path(file) {
            to.extend(
                ancestors(file)
                    .map(|d| child(d, "conftest.py"))
                    .filter(|c| has(files, c)),
            );
            // A script the test runs by its path (`subprocess.run([sys.executable,
            // "tools/gen.py"])`), from its own directory or the workspace root.
            to.extend(
                paths
                    .iter()
                    .flat_map(|p| [join(parent(file), p), join("", p)])
                    .flatten()
                    .filter(|p| has(files, p)),
            );
        }
        to.sort_unstable();
        to.dedup();
        edges.extend(to.into_iter().map(|t| (file.clone(), t)));
    }
    (edges, dynamic)
}

fn is_python(path: &str) -> bool {
    lang::of_path(path).is_some_and(|l| l.id == Language::Python)
}

/// What resolution needs of the workspace: its files, and every directory holding Python
/// files at any depth (a possible namespace package).
struct Context<'a> {
    files: &'a [String],
    py_dirs: HashSet<&'a str>,
}

impl<'a> Context<'a> {
    fn new(files: &'a [String]) -> Context<'a> {
        let mut py_dirs = HashSet::new();
        for f in files.iter().filter(|f| is_python(f)) {
            for d in ancestors(f) {
                if !py_dirs.insert(d) {
                    break;
                }
            }
        }
        Context { files, py_dirs }
    }

    fn has(&self, path: &str) -> bool {
        has(self.files, path)
    }

    fn is_package(&self, dir: &str) -> bool {
        self.has(&child(dir, "__init__.py")) || self.has(&child(dir, "__init__.pyi"))
    }

    /// The files an import of `file` makes Python run, added to `out`.
    fn resolve(&self, file: &str, entries: &[String], imp: &Import, out: &mut Vec<String>) {
        let mut wanted: Vec<Vec<&str>> = vec![imp.module.iter().map(String::as_str).collect()];
        for name in &imp.names {
            let mut parts = wanted[0].clone();
            parts.push(name);
            wanted.push(parts);
        }
        if imp.level > 0 {
            let mut base = parent(file);
            for _ in 1..imp.level {
                if base.is_empty() {
                    return;
                }
                base = parent(base);
            }
            out.extend(self.init(base));
            for parts in &wanted {
                out.extend(self.walk(base, parts).0);
            }
            return;
        }
        if wanted[0].is_empty() {
            return;
        }
        for parts in &wanted {
            let mut best: (Vec<String>, usize) = (Vec::new(), 0);
            for entry in entries {
                let found = self.walk(entry, parts);
                if found.1 > best.1 {
                    best = found;
                    if best.1 == parts.len() {
                        break;
                    }
                }
            }
            out.extend(best.0);
        }
    }

    fn init(&self, dir: &str) -> Option<String> {
        ["__init__.py", "__init__.pyi"]
            .iter()
            .map(|n| child(dir, n))
            .find(|p| self.has(p))
    }

    /// Follows `parts` from the directory `entry`: the files importing them runs (package
    /// `__init__`s, then the module), and how many parts were found.
    fn walk(&self, entry: &str, parts: &[&str]) -> (Vec<String>, usize) {
        let mut out = Vec::new();
        let mut dir = entry.to_owned();
        for (k, part) in parts.iter().enumerate() {
            let base = child(&dir, part);
            if let Some(init) = self.init(&base) {
                out.push(init);
            } else if let Some(module) = [".py", ".pyi"]
                .iter()
                .map(|e| format!("{base}{e}"))
                .find(|p| self.has(p))
            {
                out.push(module);
                return (out, k + 1);
            } else if !self.py_dirs.contains(base.as_str()) {
                return (out, k);
            }
            dir = base;
        }
        let n = parts.len();
        (out, n)
    }

    /// Where an absolute import of `file` is looked up, in order: the non-package ancestors
    /// nearest first, each followed by its `src/` and `lib/`, then the package ancestors.
    fn entries(&self, file: &str) -> Vec<String> {
        let mut first = Vec::new();
        let mut last = Vec::new();
        for dir in ancestors(file) {
            let list = if self.is_package(dir) {
                &mut last
            } else {
                &mut first
            };
            list.push(dir.to_owned());
            for sub in ["src", "lib"] {
                let d = child(dir, sub);
                if self.py_dirs.contains(d.as_str()) {
                    list.push(d);
                }
            }
        }
        first.extend(last);
        let mut seen = HashSet::new();
        first.retain(|d| seen.insert(d.clone()));
        first
    }
}

/// A Python token, as far as finding imports needs.
#[derive(Debug, Clone, PartialEq)]
enum Tok<'a> {
    Name(&'a str),
    /// A string's contents (escapes left as written) and whether it is a plain literal (not
    /// an f-string or a template).
    Str(&'a str, bool),
    Op(u8),
    /// The end of a logical line.
    Newline,
}

/// The imports of a Python source (`pytest_plugins` lists too), whether it imports a module
/// named at run time, and its literal strings naming `.py` files.
fn scan(src: &str) -> (Vec<Import>, bool, Vec<&str>) {
    let toks = tokens(src);
    let mut imports = Vec::new();
    let mut dynamic = false;
    let mut k = 0;
    while k < toks.len() {
        let start = k == 0 || matches!(toks[k - 1], Tok::Newline | Tok::Op(b';' | b':'));
        k += match toks[k] {
            Tok::Name("import") if start => import_stmt(&toks[k + 1..], &mut imports) + 1,
            Tok::Name("from") if start => from_stmt(&toks[k + 1..], &mut imports) + 1,
            Tok::Name("pytest_plugins") if start && toks.get(k + 1) == Some(&Tok::Op(b'=')) => {
                let listed = toks[k + 2..].iter().take_while(|t| **t != Tok::Newline);
                for t in listed {
                    if let Tok::Str(name, true) = t {
                        imports.extend(literal_import(name));
                    }
                }
                2
            }
            Tok::Name("import_module" | "__import__")
                if toks.get(k + 1) == Some(&Tok::Op(b'('))
                    && (k == 0 || toks[k - 1] != Tok::Name("def")) =>
            {
                match (toks.get(k + 2), toks.get(k + 3)) {
                    (Some(Tok::Str(name, true)), Some(Tok::Op(b')' | b','))) => {
                        imports.extend(literal_import(name));
                    }
                    _ => dynamic = true,
                }
                2
            }
            _ => 1,
        };
    }
    let paths = toks
        .iter()
        .filter_map(|t| match t {
            Tok::Str(s, true) if s.ends_with(".py") && !s.contains(['\n', '\\']) => Some(*s),
            _ => None,
        })
        .collect();
    (imports, dynamic, paths)
}

/// `import a.b as c, d`: the tokens after `import`; returns how many it consumed.
fn import_stmt(toks: &[Tok], out: &mut Vec<Import>) -> usize {
    let mut k = 0;
    loop {
        let (module, n) = dotted(&toks[k..]);
        if module.is_empty() {
            return k;
        }
        k += n;
        out.push(Import {
            module,
            ..Import::default()
        });
        if toks.get(k) == Some(&Tok::Name("as")) {
            k += 2;
        }
        if toks.get(k) != Some(&Tok::Op(b',')) {
            return k;
        }
        k += 1;
    }
}

/// `from ..a.b import (c as d, e)`: the tokens after `from`; returns how many it consumed.
fn from_stmt(toks: &[Tok], out: &mut Vec<Import>) -> usize {
    let mut k = 0;
    let mut level = 0;
    while toks.get(k) == Some(&Tok::Op(b'.')) {
        level += 1;
        k += 1;
    }
    let (module, n) = dotted(&toks[k..]);
    k += n;
    if (level == 0 && module.is_empty()) || toks.get(k) != Some(&Tok::Name("import")) {
        return k;
    }
    k += 1;
    let mut names = Vec::new();
    let paren = toks.get(k) == Some(&Tok::Op(b'('));
    k += usize::from(paren);
    while let Some(tok) = toks.get(k) {
        match tok {
            Tok::Name("as") => k += 1,
            Tok::Name(name) if toks.get(k.wrapping_sub(1)) != Some(&Tok::Name("as")) => {
                names.push((*name).to_owned());
            }
            Tok::Name(_) | Tok::Op(b',') => {}
            Tok::Op(b'*') => {}
            _ => break,
        }
        k += 1;
    }
    out.push(Import {
        level,
        module,
        names,
    });
    k
}

/// A dotted name at the start of `toks`, and how many tokens it took.
fn dotted(toks: &[Tok]) -> (Vec<String>, usize) {
    let mut parts = Vec::new();
    let mut k = 0;
    while let Some(Tok::Name(n)) = toks.get(k) {
        if *n == "import" {
            break;
        }
        parts.push((*n).to_owned());
        k += 1;
        if toks.get(k) == Some(&Tok::Op(b'.')) && matches!(toks.get(k + 1), Some(Tok::Name(_))) {
            k += 1;
        } else {
            break;
        }
    }
    (parts, k)
}

/// `import_module("a.b")` / `import_module(".b", ...)` as an import.
fn literal_import(name: &str) -> Option<Import> {
    let rest = name.trim_start_matches('.');
    let level = name.len() - rest.len();
    let module: Vec<String> = rest
        .split('.')
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect();
    let ok = module.iter().all(|p| {
        p.chars()
            .all(|c| c.is_alphanumeric() || c == '_' || !c.is_ascii())
    });
    (ok && (level > 0 || !module.is_empty())).then_some(Import {
        level,
        module,
        names: Vec::new(),
    })
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The tokens of a Python source. Never fails: an unterminated string ends at the end of its
/// line (or of the file, for a triple-quoted one), stray bytes are operators.
fn tokens(src: &str) -> Vec<Tok<'_>> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            // A line continuation (or a stray backslash): the next byte, or `\r\n`, is not
            // the end of a logical line.
            b'\\' => i += if b.get(i + 1) == Some(&b'\r') { 3 } else { 2 },
            b'\n' => {
                if depth == 0 && out.last().is_some_and(|t| *t != Tok::Newline) {
                    out.push(Tok::Newline);
                }
                i += 1;
            }
            b'\'' | b'"' => {
                let (tok, end) = string(src, i, true);
                out.push(tok);
                i = end;
            }
            c if is_name_byte(c) && !c.is_ascii_digit() => {
                let s = i;
                while i < b.len() && is_name_byte(b[i]) {
                    i += 1;
                }
                let Some(name) = src.get(s..i) else {
                    continue;
                };
                let prefix = name.len() <= 2
                    && name.bytes().all(|x| {
                        matches!(x.to_ascii_lowercase(), b'r' | b'b' | b'u' | b'f' | b't')
                    });
                if prefix && i < b.len() && matches!(b[i], b'\'' | b'"') {
                    let plain = !name
                        .bytes()
                        .any(|x| matches!(x.to_ascii_lowercase(), b'f' | b't'));
                    let (tok, end) = string(src, i, plain);
                    out.push(tok);
                    i = end;
                } else {
                    out.push(Tok::Name(name));
                }
            }
            c if c.is_ascii_digit() => {
                while i < b.len() && (is_name_byte(b[i]) || b[i] == b'.') {
                    i += 1;
                }
            }
            c if c.is_ascii_whitespace() => i += 1,
            c => {
                match c {
                    b'(' | b'[' | b'{' => depth += 1,
                    b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                out.push(Tok::Op(c));
                i += 1;
            }
        }
    }
    out
}

/// The string starting at the quote at `i`: its token and where it ends.
fn string(src: &str, i: usize, plain: bool) -> (Tok<'_>, usize) {
    let b = src.as_bytes();
    let q = b[i];
    let triple = b.len() >= i + 3 && b[i + 1] == q && b[i + 2] == q;
    let open = if triple { 3 } else { 1 };
    let start = i + open;
    let mut j = start;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'\n' if !triple => break,
            x if x == q && (!triple || (b.len() >= j + 3 && b[j + 1] == q && b[j + 2] == q)) => {
                let text = src.get(start..j).unwrap_or("");
                return (Tok::Str(text, plain), j + open);
            }
            _ => j += 1,
        }
    }
    let end = j.min(b.len());
    (Tok::Str(src.get(start..end).unwrap_or(""), plain), end)
}

/// For the core's robustness test: how many imports a source holds.
#[cfg(test)]
pub(super) fn tests_scan(src: &str) -> usize {
    scan(src).0.len()
}
