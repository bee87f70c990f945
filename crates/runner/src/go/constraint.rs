//! Whether `go test` builds a `_test.go` file on this machine: its build constraints (the
//! `//go:build` line, else `// +build` lines) and its name's `_GOOS`/`_GOARCH` suffixes, as go
//! reads them with the tags of this platform and of the caller's `GOFLAGS` `-tags`. So an
//! integration test behind `//go:build integration` or a `_windows_test.go` is no test of the
//! suite `pith select` counts; anything unreadable counts as built.

/// Every GOOS go knows: a name's `_<os>` suffix constrains it only when it is one of these.
const KNOWN_OS: &[&str] = &[
    "aix",
    "android",
    "darwin",
    "dragonfly",
    "freebsd",
    "hurd",
    "illumos",
    "ios",
    "js",
    "linux",
    "nacl",
    "netbsd",
    "openbsd",
    "plan9",
    "solaris",
    "wasip1",
    "windows",
    "zos",
];

/// Every GOARCH go knows (see [`KNOWN_OS`]).
const KNOWN_ARCH: &[&str] = &[
    "386",
    "amd64",
    "amd64p32",
    "arm",
    "armbe",
    "arm64",
    "arm64be",
    "loong64",
    "mips",
    "mipsle",
    "mips64",
    "mips64le",
    "mips64p32",
    "mips64p32le",
    "ppc",
    "ppc64",
    "ppc64le",
    "riscv",
    "riscv64",
    "s390",
    "s390x",
    "sparc",
    "sparc64",
    "wasm",
];

/// Operating systems whose files the `unix` constraint selects.
const UNIX: &[&str] = &[
    "aix",
    "android",
    "darwin",
    "dragonfly",
    "freebsd",
    "hurd",
    "illumos",
    "ios",
    "linux",
    "netbsd",
    "openbsd",
    "solaris",
];

/// Bytes of a file read for its constraints: they sit above the package clause.
const HEAD: usize = 16 * 1024;

/// The start of the file at `path`, where its constraints are; `None` when it cannot be read.
pub(super) fn head(path: &std::path::Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut out = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(HEAD as u64).read_to_end(&mut out))
        .ok()?;
    Some(out)
}

/// The tags a build here satisfies.
pub(super) struct Tags {
    os: &'static str,
    arch: &'static str,
    extra: Vec<String>,
}

impl Tags {
    /// This machine's, with the `-tags` of `goflags` (the caller's `GOFLAGS`).
    pub(super) fn here(goflags: Option<&str>) -> Self {
        let os = match std::env::consts::OS {
            "macos" => "darwin",
            other => KNOWN_OS
                .iter()
                .copied()
                .find(|o| *o == other)
                .unwrap_or("linux"),
        };
        let arch = match std::env::consts::ARCH {
            "x86_64" => "amd64",
            "x86" => "386",
            "aarch64" => "arm64",
            "powerpc64" => "ppc64",
            "loongarch64" => "loong64",
            other => KNOWN_ARCH
                .iter()
                .copied()
                .find(|a| *a == other)
                .unwrap_or("amd64"),
        };
        Tags {
            os,
            arch,
            extra: goflags.map(tags_of_flags).unwrap_or_default(),
        }
    }

    fn has(&self, tag: &str) -> bool {
        tag == self.os
            || tag == self.arch
            || (tag == "unix" && UNIX.contains(&self.os))
            // Go's own release tags: a test file that needs a newer go than the one here is
            // rare, and counting it costs only a name in a list.
            || tag == "gc"
            || tag == "cgo"
            || tag.strip_prefix("go1.").is_some_and(|v| v.parse::<u32>().is_ok())
            || self.extra.iter().any(|t| t == tag)
    }

    /// Whether go builds the file named `name` (its base name) holding `text` here.
    pub(super) fn builds(&self, name: &str, text: &[u8]) -> bool {
        self.name_allows(name) && self.lines_allow(&text[..text.len().min(HEAD)])
    }

    /// `x_linux_test.go`, `x_arm64_test.go`, `x_linux_arm64_test.go`: the suffixes go reads
    /// (the name's first part never counts, so `linux_test.go` is for every system).
    fn name_allows(&self, name: &str) -> bool {
        let stem = name.strip_suffix("_test.go").unwrap_or(name);
        let parts: Vec<&str> = stem.split('_').skip(1).collect();
        match parts.as_slice() {
            [.., os, arch] if KNOWN_OS.contains(os) && KNOWN_ARCH.contains(arch) => {
                *os == self.os && *arch == self.arch
            }
            [.., last] if KNOWN_OS.contains(last) => *last == self.os,
            [.., last] if KNOWN_ARCH.contains(last) => *last == self.arch,
            _ => true,
        }
    }

    /// The constraints above the package clause: `//go:build` wins; else every `// +build`
    /// line must hold.
    fn lines_allow(&self, head: &[u8]) -> bool {
        let text = String::from_utf8_lossy(head);
        let mut plus: Vec<&str> = Vec::new();
        let mut in_block = false;
        for line in text.lines() {
            let l = line.trim();
            if in_block {
                in_block = !l.contains("*/");
                continue;
            }
            if l.starts_with("/*") {
                in_block = !l.contains("*/");
                continue;
            }
            if let Some(expr) = l.strip_prefix("//go:build") {
                if expr.starts_with([' ', '\t']) || expr.is_empty() {
                    return Expr::parse(expr).is_none_or(|e| e.holds(self));
                }
            }
            if let Some(alts) = l.strip_prefix("// +build") {
                plus.push(alts);
                continue;
            }
            if l.is_empty() || l.starts_with("//") {
                continue;
            }
            // The package clause, or anything else: constraints end here.
            break;
        }
        plus.iter().all(|alts| {
            alts.split_whitespace().any(|alt| {
                alt.split(',').all(|t| match t.strip_prefix('!') {
                    Some(t) => !self.has(t),
                    None => self.has(t),
                })
            })
        })
    }
}

/// The tags a `GOFLAGS` value sets (`-tags=a,b`, `-tags a,b`, `--tags=a`; go's older
/// space-separated list inside one value too).
fn tags_of_flags(flags: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut words = flags.split_whitespace();
    while let Some(w) = words.next() {
        let w = w.trim_start_matches('-');
        let value = match w.strip_prefix("tags") {
            Some(v) if v.starts_with('=') => Some(v[1..].to_owned()),
            Some("") => words.next().map(str::to_owned),
            _ => None,
        };
        if let Some(v) = value {
            out.extend(
                v.split([',', ' '])
                    .filter(|t| !t.is_empty())
                    .map(str::to_owned),
            );
        }
    }
    out
}

/// A `//go:build` expression.
#[derive(Debug)]
enum Expr {
    Tag(String),
    Not(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
}

/// Deeper nesting than this is no constraint anyone writes; it is read as none.
const MAX_DEPTH: usize = 64;

impl Expr {
    /// `None` when it is not an expression go would accept.
    fn parse(text: &str) -> Option<Expr> {
        let tokens = tokens(text)?;
        let mut p = Parser { tokens, at: 0 };
        let e = p.or(0)?;
        (p.at == p.tokens.len()).then_some(e)
    }

    fn holds(&self, tags: &Tags) -> bool {
        match self {
            Expr::Tag(t) => tags.has(t),
            Expr::Not(e) => !e.holds(tags),
            Expr::And(a, b) => a.holds(tags) && b.holds(tags),
            Expr::Or(a, b) => a.holds(tags) || b.holds(tags),
        }
    }
}

#[derive(Debug, PartialEq)]
enum Token {
    Tag(String),
    Not,
    And,
    Or,
    Open,
    Close,
}

fn tokens(text: &str) -> Option<Vec<Token>> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {}
            '(' => out.push(Token::Open),
            ')' => out.push(Token::Close),
            '!' => out.push(Token::Not),
            '&' if chars.next_if_eq(&'&').is_some() => out.push(Token::And),
            '|' if chars.next_if_eq(&'|').is_some() => out.push(Token::Or),
            c if c.is_alphanumeric() || c == '_' || c == '.' => {
                let mut tag = String::from(c);
                while let Some(c) = chars.next_if(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
                {
                    tag.push(c);
                }
                out.push(Token::Tag(tag));
            }
            _ => return None,
        }
    }
    Some(out)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn or(&mut self, depth: usize) -> Option<Expr> {
        let mut e = self.and(depth)?;
        while self.eat(&Token::Or) {
            e = Expr::Or(Box::new(e), Box::new(self.and(depth)?));
        }
        Some(e)
    }

    fn and(&mut self, depth: usize) -> Option<Expr> {
        let mut e = self.not(depth)?;
        while self.eat(&Token::And) {
            e = Expr::And(Box::new(e), Box::new(self.not(depth)?));
        }
        Some(e)
    }

    fn not(&mut self, depth: usize) -> Option<Expr> {
        if depth > MAX_DEPTH {
            return None;
        }
        if self.eat(&Token::Not) {
            return Some(Expr::Not(Box::new(self.not(depth + 1)?)));
        }
        if self.eat(&Token::Open) {
            let e = self.or(depth + 1)?;
            return self.eat(&Token::Close).then_some(e);
        }
        match self.tokens.get(self.at)? {
            Token::Tag(t) => {
                let t = t.clone();
                self.at += 1;
                Some(Expr::Tag(t))
            }
            _ => None,
        }
    }

    fn eat(&mut self, t: &Token) -> bool {
        let hit = self.tokens.get(self.at) == Some(t);
        self.at += usize::from(hit);
        hit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linux(extra: &[&str]) -> Tags {
        Tags {
            os: "linux",
            arch: "amd64",
            extra: extra.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn build_lines_decide() {
        let t = linux(&[]);
        let file = |head: &str| format!("{head}\npackage calc\n\nimport \"testing\"\n");
        assert!(!t.builds("db_test.go", file("//go:build integration").as_bytes()));
        assert!(
            linux(&["integration"]).builds("db_test.go", file("//go:build integration").as_bytes())
        );
        assert!(t.builds("a_test.go", file("//go:build !integration").as_bytes()));
        assert!(t.builds(
            "a_test.go",
            file("//go:build linux && (amd64 || arm64)").as_bytes()
        ));
        assert!(!t.builds(
            "a_test.go",
            file("//go:build windows || (darwin && !cgo)").as_bytes()
        ));
        assert!(t.builds("a_test.go", file("//go:build unix && go1.21").as_bytes()));
        // Below a licence comment, as most projects write it.
        let licensed = "// Copyright 2020 The Authors.\n// SPDX-License-Identifier: MIT\n\n/* more\n   prose */\n//go:build e2e\n\npackage calc\n";
        assert!(!t.builds("a_test.go", licensed.as_bytes()));
        // The old syntax: lines ANDed, words ORed, commas ANDed.
        assert!(!t.builds("a_test.go", file("// +build integration").as_bytes()));
        assert!(t.builds("a_test.go", file("// +build darwin linux,amd64").as_bytes()));
        assert!(!t.builds(
            "a_test.go",
            file("// +build linux\n// +build 386").as_bytes()
        ));
        // After the package clause a comment is no constraint.
        assert!(t.builds("a_test.go", b"package calc\n//go:build never\n"));
        // `//go:buildx` is not the directive; unreadable expressions count as built.
        assert!(t.builds("a_test.go", file("//go:buildx never").as_bytes()));
        assert!(t.builds("a_test.go", file("//go:build (never").as_bytes()));
        assert!(t.builds("a_test.go", file("//go:build a &&").as_bytes()));
    }

    #[test]
    fn name_suffixes_decide() {
        let t = linux(&[]);
        assert!(!t.builds("fs_windows_test.go", b"package x"));
        assert!(t.builds("fs_linux_test.go", b"package x"));
        assert!(!t.builds("fs_linux_arm64_test.go", b"package x"));
        assert!(t.builds("fs_linux_amd64_test.go", b"package x"));
        assert!(!t.builds("fs_386_test.go", b"package x"));
        // The first part of a name is no suffix; an unknown word is no constraint.
        assert!(t.builds("windows_test.go", b"package x"));
        assert!(t.builds("parse_windowsish_test.go", b"package x"));
    }

    #[test]
    fn tags_come_from_goflags() {
        assert_eq!(tags_of_flags("-tags=a,b -count=1"), ["a", "b"]);
        assert_eq!(
            tags_of_flags("-count=1 --tags integration"),
            ["integration"]
        );
        assert!(tags_of_flags("-mod=mod").is_empty());
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,300}") {
            let _ = linux(&[]).builds("x_test.go", s.as_bytes());
            let _ = Expr::parse(&s);
        }

        #[test]
        fn deep_nesting_is_no_constraint(n in 60usize..5000) {
            let e = format!("//go:build {}a{}\npackage x\n", "(".repeat(n), ")".repeat(n));
            let _ = linux(&[]).builds("x_test.go", e.as_bytes());
        }
    }
}
