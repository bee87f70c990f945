//! A small tokenizer shared by the import-graph resolvers of the C-family languages (Go, Rust,
//! Java, C#, C/C++): identifiers, string literals and punctuation, with comments, character
//! literals and numbers skipped. The resolvers only look at import-like statements, so a full
//! grammar would cost a parse per file for nothing; what matters is that a comment or a string
//! never hides or fakes an import. Never panics: any byte sequence tokenizes.

/// The literal syntaxes a language adds to the common `"..."`, `'x'`, `//` and `/* */`.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Style {
    /// `/* /* */ */` nests (Rust).
    pub(super) nested_comments: bool,
    /// `r"..."`, `r#"..."#`, `br"..."` (Rust).
    pub(super) rust_raw: bool,
    /// `` `...` `` raw strings (Go).
    pub(super) backtick: bool,
    /// `@"..."` verbatim and `"""..."""` raw strings (C#).
    pub(super) csharp: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind<'a> {
    Ident(&'a str),
    /// A string literal's content between its delimiters, escapes left as written.
    Str(&'a str),
    Punct(u8),
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Tok<'a> {
    pub(super) kind: Kind<'a>,
    /// Byte offset of the token's first byte in the source.
    pub(super) start: usize,
    /// 1-based line of the token's first byte.
    pub(super) line: u32,
}

impl<'a> Tok<'a> {
    pub(super) fn ident(&self) -> Option<&'a str> {
        match self.kind {
            Kind::Ident(s) => Some(s),
            _ => None,
        }
    }

    pub(super) fn is(&self, p: u8) -> bool {
        self.kind == Kind::Punct(p)
    }
}

fn ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The tokens of a source text.
pub(super) fn tokens(src: &str, style: Style) -> Vec<Tok<'_>> {
    let mut lx = Lexer {
        src,
        b: src.as_bytes(),
        // A byte order mark would read as the start of an identifier.
        i: if src.starts_with('\u{feff}') { 3 } else { 0 },
        line: 1,
        style,
        // About one token per five bytes of source (pith's own Rust: 2.6 MB, 504k tokens).
        out: Vec::with_capacity(src.len() / 5),
    };
    lx.run();
    lx.out
}

struct Lexer<'a> {
    src: &'a str,
    b: &'a [u8],
    i: usize,
    line: u32,
    style: Style,
    out: Vec<Tok<'a>>,
}

impl<'a> Lexer<'a> {
    fn at(&self, k: usize) -> u8 {
        self.b.get(self.i + k).copied().unwrap_or(0)
    }

    /// A slice of the source; empty when the bounds do not fall on characters.
    fn slice(&self, from: usize, to: usize) -> &'a str {
        self.src.get(from..to).unwrap_or("")
    }

    fn push(&mut self, kind: Kind<'a>, start: usize, line: u32) {
        self.out.push(Tok { kind, start, line });
    }

    /// Moves to `to`, counting the newlines passed.
    fn advance_to(&mut self, to: usize) {
        let to = to.min(self.b.len());
        self.line += self.b[self.i..to].iter().filter(|&&c| c == b'\n').count() as u32;
        self.i = to;
    }

    fn run(&mut self) {
        while self.i < self.b.len() {
            let c = self.b[self.i];
            match c {
                b'\n' => {
                    self.line += 1;
                    self.i += 1;
                }
                b'/' if self.at(1) == b'/' => {
                    let end = memchr(b'\n', &self.b[self.i..]).map_or(self.b.len(), |n| self.i + n);
                    self.i = end;
                }
                b'/' if self.at(1) == b'*' => self.block_comment(),
                b'"' if self.style.csharp && self.at(1) == b'"' && self.at(2) == b'"' => {
                    self.csharp_raw()
                }
                b'"' => self.string(b'"', true),
                b'`' if self.style.backtick => self.string(b'`', false),
                b'@' if self.style.csharp && self.at(1) == b'"' => {
                    self.i += 1;
                    self.verbatim();
                }
                b'\'' => self.quote(),
                c if ident_byte(c) => self.word(),
                c if c.is_ascii_whitespace() => self.i += 1,
                c => {
                    self.push(Kind::Punct(c), self.i, self.line);
                    self.i += 1;
                }
            }
        }
    }

    fn block_comment(&mut self) {
        let mut depth = 0usize;
        let mut j = self.i;
        while j < self.b.len() {
            if self.b[j] == b'/' && self.b.get(j + 1) == Some(&b'*') {
                depth += 1;
                j += 2;
                if !self.style.nested_comments {
                    // Only the first opener counts.
                    let end = find(&self.b[j..], b"*/").map_or(self.b.len(), |n| j + n + 2);
                    return self.advance_to(end);
                }
            } else if self.b[j] == b'*' && self.b.get(j + 1) == Some(&b'/') {
                depth -= 1;
                j += 2;
                if depth == 0 {
                    break;
                }
            } else {
                j += 1;
            }
        }
        self.advance_to(j);
    }

    /// A string closed by `close`, with backslash escapes when `escapes`.
    fn string(&mut self, close: u8, escapes: bool) {
        let (start, line) = (self.i, self.line);
        let mut j = self.i + 1;
        while j < self.b.len() && self.b[j] != close {
            if escapes && self.b[j] == b'\\' {
                j += 1;
            } else if escapes && self.b[j] == b'\n' && close == b'"' && !self.style.rust_raw {
                // An unclosed string ends at the line's end (C, Java, Go, C#), so one stray
                // quote does not swallow the rest of the file.
                break;
            }
            j += 1;
        }
        let end = j.min(self.b.len());
        let content = self.slice(start + 1, end);
        self.push(Kind::Str(content), start, line);
        self.advance_to((end + 1).min(self.b.len()));
    }

    fn verbatim(&mut self) {
        let (start, line) = (self.i, self.line);
        let mut j = self.i + 1;
        while j < self.b.len() {
            if self.b[j] == b'"' {
                if self.b.get(j + 1) == Some(&b'"') {
                    j += 2;
                    continue;
                }
                break;
            }
            j += 1;
        }
        let end = j.min(self.b.len());
        self.push(Kind::Str(self.slice(start + 1, end)), start, line);
        self.advance_to((end + 1).min(self.b.len()));
    }

    fn csharp_raw(&mut self) {
        let (start, line) = (self.i, self.line);
        let n = self.b[self.i..].iter().take_while(|&&c| c == b'"').count();
        let delim = vec![b'"'; n];
        let from = self.i + n;
        let end = find(&self.b[from..], &delim).map_or(self.b.len(), |k| from + k);
        self.push(Kind::Str(self.slice(from, end)), start, line);
        self.advance_to((end + n).min(self.b.len()));
    }

    /// A character literal, or a Rust lifetime / label (`'a`), which is skipped alone.
    fn quote(&mut self) {
        if self.at(1) == b'\\' {
            let lim = (self.i + 16).min(self.b.len());
            let end = self.b[self.i + 2..lim]
                .iter()
                .position(|&c| c == b'\'')
                .map_or(self.i + 1, |k| self.i + 2 + k + 1);
            return self.advance_to(end);
        }
        let rest = self.src.get(self.i + 1..).unwrap_or("");
        let width = rest.chars().next().map_or(0, char::len_utf8);
        if width > 0 && self.b.get(self.i + 1 + width) == Some(&b'\'') {
            return self.advance_to(self.i + 2 + width);
        }
        self.i += 1;
    }

    fn word(&mut self) {
        let (start, line) = (self.i, self.line);
        let mut j = self.i;
        while j < self.b.len() && ident_byte(self.b[j]) {
            j += 1;
        }
        let w = self.slice(start, j);
        if self.style.rust_raw && matches!(w, "r" | "br" | "cr") {
            let hashes = self.b[j..].iter().take_while(|&&c| c == b'#').count();
            if self.b.get(j + hashes) == Some(&b'"') {
                return self.rust_raw(start, j + hashes + 1, hashes);
            }
        }
        if self.style.rust_raw && matches!(w, "b" | "c") && self.b.get(j) == Some(&b'"') {
            self.i = j;
            return self.string(b'"', true);
        }
        self.i = j;
        if !w.is_empty() && !w.as_bytes()[0].is_ascii_digit() {
            self.push(Kind::Ident(w), start, line);
        }
    }

    fn rust_raw(&mut self, start: usize, from: usize, hashes: usize) {
        let line = self.line;
        let mut close = vec![b'"'];
        close.extend(std::iter::repeat_n(b'#', hashes));
        let end = find(&self.b[from..], &close).map_or(self.b.len(), |k| from + k);
        self.push(Kind::Str(self.slice(from, end)), start, line);
        self.i = from;
        self.advance_to((end + close.len()).min(self.b.len()));
    }
}

fn memchr(c: u8, hay: &[u8]) -> Option<usize> {
    hay.iter().position(|&b| b == c)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The directory part of a workspace-relative path (`""` at the top).
pub(super) fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// `rel` joined to `dir` with `.` and `..` resolved; `None` when it climbs out of the
/// workspace or is absolute.
pub(super) fn join(dir: &str, rel: &str) -> Option<String> {
    let rel = rel.replace('\\', "/");
    if rel.starts_with('/') || rel.as_bytes().get(1) == Some(&b':') {
        return None;
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for p in rel.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// Dotted chains of identifiers (`a.b.C`) in a token stream, as written: `a . b` with spaces
/// counts too. Used to resolve qualified names without an import (Java, C#).
pub(super) fn dotted_chains(toks: &[Tok<'_>]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let Some(first) = toks[i].ident() else {
            i += 1;
            continue;
        };
        let mut chain = first.to_owned();
        let mut j = i + 1;
        while j + 1 < toks.len() && toks[j].is(b'.') {
            match toks[j + 1].ident() {
                Some(next) => {
                    chain.push('.');
                    chain.push_str(next);
                    j += 2;
                }
                None => break,
            }
        }
        if j > i + 1 {
            out.push(chain);
        }
        i = j.max(i + 1);
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str, style: Style) -> Vec<Kind<'_>> {
        tokens(src, style).into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn comments_and_char_literals_hide_nothing_and_fake_nothing() {
        let src = "a /* \"x\" */ b // \"y\"\n'\"' \"c\\\"d\" '\\n' e";
        assert_eq!(
            kinds(src, Style::default()),
            vec![
                Kind::Ident("a"),
                Kind::Ident("b"),
                Kind::Str("c\\\"d"),
                Kind::Ident("e")
            ]
        );
    }

    #[test]
    fn language_literals() {
        let rust = Style {
            nested_comments: true,
            rust_raw: true,
            ..Style::default()
        };
        assert_eq!(
            kinds("/* /* */ mod */ r#\"a\"b\"# fn f<'a>()", rust),
            vec![
                Kind::Str("a\"b"),
                Kind::Ident("fn"),
                Kind::Ident("f"),
                Kind::Punct(b'<'),
                Kind::Ident("a"),
                Kind::Punct(b'>'),
                Kind::Punct(b'('),
                Kind::Punct(b')'),
            ]
        );
        let go = Style {
            backtick: true,
            ..Style::default()
        };
        assert_eq!(kinds("`a\"b`", go), vec![Kind::Str("a\"b")]);
        let cs = Style {
            csharp: true,
            ..Style::default()
        };
        assert_eq!(
            kinds("@\"a\"\"b\" \"\"\"x\"y\"\"\" z", cs),
            vec![Kind::Str("a\"\"b"), Kind::Str("x\"y"), Kind::Ident("z")]
        );
    }

    #[test]
    fn malformed_input_does_not_panic() {
        for src in [
            "\"", "'", "/*", "r#\"", "@\"", "\"\"\"", "'\\", "é'", "`", "'é",
        ] {
            for style in [
                Style::default(),
                Style {
                    nested_comments: true,
                    rust_raw: true,
                    backtick: true,
                    csharp: true,
                },
            ] {
                let _ = tokens(src, style);
            }
        }
    }

    /// Every resolver over every prefix of a source mixing the five languages' import syntax:
    /// truncated statements, unclosed literals and comments end nothing but the scan.
    #[test]
    fn truncated_sources_do_not_panic() {
        let src =
            "\u{feff}package a.b; import (\"x/y\" z `w`) #[path = \"p.rs\"] mod m { mod n; } \
            include!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/x\")); namespace N.M { using static \
            global::A.B; } #include <a/b.h>\n#include \"c.h\"\n#include M\n/* é */ 'é' r#\"q\"# \
            @\"v\"\"\" \"\"\"raw\"\"\" import static a.b.C.*;";
        let files: Vec<String> = [
            "Cargo.toml",
            "a.go",
            "src/lib.rs",
            "A.java",
            "a.cs",
            "a.c",
            "a.h",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let resolvers: [testing::Resolver; 5] = [
            super::super::go::edges,
            super::super::rust::edges,
            super::super::java::edges,
            super::super::csharp::edges,
            super::super::cpp::edges,
        ];
        let root = std::path::Path::new("/nonexistent/pith-graph-test");
        for (cut, _) in src.char_indices() {
            let text = &src[..cut];
            let read = |rel: &str| -> Option<String> {
                if rel == "Cargo.toml" {
                    Some(format!(
                        "[package]\nname = \"{text}\n[dependencies]\n{text}"
                    ))
                } else {
                    Some(text.to_owned())
                }
            };
            for r in resolvers {
                let _ = r(root, &files, &read);
            }
        }
    }

    #[test]
    fn joins_stay_inside_the_workspace() {
        assert_eq!(join("a/b", "../c/./d.h").as_deref(), Some("a/c/d.h"));
        assert_eq!(join("a", "..\\x.rs").as_deref(), Some("x.rs"));
        assert_eq!(join("a", "../../x"), None);
        assert_eq!(join("a", "/etc/x"), None);
    }
}

/// Test support: a project written into a temp dir and one resolver run over it.
#[cfg(test)]
pub(super) mod testing {
    use std::path::Path;

    pub(crate) type Edges = (Vec<(String, String)>, Vec<String>);
    pub(crate) type Resolver = fn(&Path, &[String], &dyn Fn(&str) -> Option<String>) -> Edges;

    /// Writes `tree` into a temp dir and runs `resolver` with every file of the tree as the
    /// walk's files (sorted) and a `read` of those files only, as the graph's core gives them.
    /// Edges come back sorted and deduplicated.
    pub(crate) fn run(tree: &[(&str, &str)], resolver: Resolver) -> Edges {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (rel, text) in tree {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let mut files: Vec<String> = tree.iter().map(|(p, _)| (*p).to_owned()).collect();
        files.sort();
        let read = |rel: &str| {
            files
                .binary_search_by(|f| f.as_str().cmp(rel))
                .ok()
                .and_then(|_| std::fs::read_to_string(root.join(rel)).ok())
        };
        let (mut edges, mut unplaced) = resolver(root, &files, &read);
        edges.sort();
        edges.dedup();
        unplaced.sort();
        unplaced.dedup();
        (edges, unplaced)
    }

    /// Edges from literal pairs.
    pub(crate) fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = list
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect();
        v.sort();
        v
    }
}
