//! What the house checks read, read once: the production code of every `crates/*/src`. A file
//! is lexed (comments, string and character literals blanked, the string literals kept aside
//! with their lines), its `#[cfg(test)]` items blanked, and the files of test-only modules
//! (declared `#[cfg(test)] mod tests;`) left out. Blanking keeps every character and line
//! break where it was, so a line number in the code is the line in the file.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

/// A string literal (`"…"`, `r#"…"#`, `b"…"`): where it starts, and its text between the
/// quotes as written (escapes not undone).
#[derive(Debug, Clone)]
pub struct Literal {
    /// Its first character's index in the file (in characters, not bytes).
    pub at: usize,
    /// 1-based.
    pub line: usize,
    pub text: String,
}

/// A source lexed: the code with comments and literals blanked to spaces (line breaks kept,
/// one character for one), and the string literals.
pub struct Lexed {
    pub code: String,
    pub literals: Vec<Literal>,
}

/// The source with comments, string and character literals blanked to spaces (line breaks
/// kept), so neither a path in a comment nor one in a string is read as code.
pub fn code_only(src: &str) -> String {
    lex(src).code
}

/// See [`Lexed`].
pub fn lex(src: &str) -> Lexed {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut literals = Vec::new();
    let mut line = 1;
    let blank = |out: &mut String, line: &mut usize, c: char| {
        if c == '\n' {
            *line += 1;
            out.push('\n');
        } else {
            out.push(' ');
        }
    };
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                blank(&mut out, &mut line, b[i]);
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
                    blank(&mut out, &mut line, b[i]);
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
            let close = (j + 1..b.len())
                .find(|&k| b[k] == '"' && (1..=hashes).all(|h| b.get(k + h) == Some(&'#')));
            let end = close.map_or(b.len(), |k| k + 1 + hashes);
            literals.push(Literal {
                at: i,
                line,
                text: b[j + 1..close.unwrap_or(b.len())].iter().collect(),
            });
            for &ch in &b[i..end] {
                blank(&mut out, &mut line, ch);
            }
            i = end;
        } else if c == '"' {
            let (start, at_line) = (i, line);
            blank(&mut out, &mut line, c);
            i += 1;
            while i < b.len() && b[i] != '"' {
                let step = if b[i] == '\\' { 2 } else { 1 };
                for &ch in b.iter().skip(i).take(step) {
                    blank(&mut out, &mut line, ch);
                }
                i += step;
            }
            literals.push(Literal {
                at: start,
                line: at_line,
                text: b[start + 1..i.min(b.len())].iter().collect(),
            });
            if i < b.len() {
                blank(&mut out, &mut line, b[i]);
                i += 1;
            }
        } else if c == '\'' {
            // A character literal ('a', '\n', '\'', '\u{1F600}'), not a lifetime ('a).
            let end = if next == Some('\\') {
                (i + 3..b.len()).find(|&k| b[k] == '\'').map(|k| k + 1)
            } else if b.get(i + 2) == Some(&'\'') {
                Some(i + 3)
            } else {
                None
            };
            match end {
                Some(end) => {
                    for &ch in &b[i..end] {
                        blank(&mut out, &mut line, ch);
                    }
                    i = end;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            if c == '\n' {
                line += 1;
            }
            out.push(c);
            i += 1;
        }
    }
    Lexed {
        code: out,
        literals,
    }
}

pub fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn ident_before(b: &[char], i: usize) -> bool {
    i > 0 && is_ident(b[i - 1]) && !(b[i - 1] == 'b' && (i < 2 || !is_ident(b[i - 2])))
}

/// Code (comments and literals already blanked) without its `#[cfg(test)]` items.
pub struct Production {
    /// The code with each `#[cfg(test)]` item blanked, line breaks kept.
    pub code: String,
    /// Per character of the code: inside a `#[cfg(test)]` item.
    pub test: Vec<bool>,
    /// The lines (1-based) from each `#[cfg(test)]` to the end of its item.
    pub test_lines: BTreeSet<usize>,
    /// The test-only modules it declares out of line (`#[cfg(test)] mod tests;`), whose files
    /// are left out too.
    pub test_mods: Vec<String>,
}

/// See [`Production`].
pub fn production(code: &str) -> Production {
    const ATTR: &str = "#[cfg(test)]";
    let mut c: Vec<char> = code.chars().collect();
    let attr: Vec<char> = ATTR.chars().collect();
    let mut test = vec![false; c.len()];
    let mut test_lines = BTreeSet::new();
    let mut test_mods = Vec::new();
    let mut at = 0;
    while let Some(start) = (at..c.len()).find(|&k| c[k..].starts_with(&attr)) {
        let item = start + attr.len();
        let mut depth = 0usize;
        let mut end = c.len();
        for (k, &ch) in c.iter().enumerate().skip(item) {
            match ch {
                '{' | '[' | '(' => depth += 1,
                '}' | ']' | ')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 && ch == '}' {
                        end = k + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = k + 1;
                    break;
                }
                _ => {}
            }
        }
        let text: String = c[item..end].iter().collect();
        let words: Vec<&str> = text
            .split(|ch: char| !is_ident(ch))
            .filter(|w| !w.is_empty())
            .collect();
        if let Some(p) = words.iter().position(|w| *w == "mod") {
            if text.trim_end().ends_with(';') {
                if let Some(name) = words.get(p + 1) {
                    test_mods.push((*name).to_string());
                }
            }
        }
        let first = 1 + c[..start].iter().filter(|&&ch| ch == '\n').count();
        let last = first + c[start..end].iter().filter(|&&ch| ch == '\n').count();
        test_lines.extend(first..=last);
        for k in start..end {
            test[k] = true;
            if c[k] != '\n' {
                c[k] = ' ';
            }
        }
        at = end;
    }
    Production {
        code: c.into_iter().collect(),
        test,
        test_lines,
        test_mods,
    }
}

/// One production source file of a crate.
pub struct File {
    /// From the workspace root (`crates/engine/src/state.rs`).
    pub path: PathBuf,
    /// From the crate's `src` (`state.rs`).
    pub rel: PathBuf,
    /// Its module path from the crate root (`lib.rs`, `main.rs`: empty).
    pub module: Vec<String>,
    pub text: String,
    /// The production code: comments, literals and `#[cfg(test)]` items blanked; the same
    /// characters and lines as `text`.
    pub code: String,
    /// The string literals of the production code (none of a test item's).
    pub literals: Vec<Literal>,
    /// Lines (1-based) inside `#[cfg(test)]` items.
    pub test_lines: BTreeSet<usize>,
}

impl File {
    /// The file's lines outside its `#[cfg(test)]` items.
    pub fn production_lines(&self) -> usize {
        let lines = self.text.lines().count();
        lines - self.test_lines.iter().filter(|&&l| l <= lines).count()
    }
}

/// A text file that production code embeds (`include_str!`): an embedded plugin, a listener.
pub struct Embedded {
    /// From the workspace root.
    pub path: PathBuf,
    pub lines: usize,
}

/// One crate under `crates/`: its production files and what they embed.
pub struct Crate {
    /// Its folder's name (`engine`).
    pub name: String,
    pub files: Vec<File>,
    pub embedded: Vec<Embedded>,
}

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Every crate under `crates/` with a `src`, read once for all the checks.
pub fn crates() -> &'static [Crate] {
    static CRATES: OnceLock<Vec<Crate>> = OnceLock::new();
    CRATES.get_or_init(|| {
        let root = root();
        let mut names: Vec<String> = std::fs::read_dir(root.join("crates"))
            .unwrap()
            .flatten()
            .filter(|e| e.path().join("src").is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let found: Vec<Crate> = names.into_iter().map(|n| read_crate(&root, n)).collect();
        let files: usize = found.iter().map(|c| c.files.len()).sum();
        assert!(files > 100, "read {files} files under {}", root.display());
        found
    })
}

/// The crate named `name`.
pub fn krate(name: &str) -> &'static Crate {
    crates()
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no crates/{name}/src"))
}

fn read_crate(root: &Path, name: String) -> Crate {
    let base = Path::new("crates").join(&name).join("src");
    let src = root.join(&base);
    let mut found = Vec::new();
    let mut todo = vec![src.clone()];
    while let Some(dir) = todo.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                found.push(p);
            }
        }
    }
    found.sort();
    let sources: Vec<(PathBuf, String)> = found
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p.strip_prefix(&src).unwrap().to_path_buf(), text)
        })
        .collect();
    let files = assemble(&base, &sources);
    let mut embedded: Vec<Embedded> = Vec::new();
    for f in &files {
        for path in embeds(f) {
            if embedded.iter().any(|e| e.path == path) {
                continue;
            }
            let text = std::fs::read_to_string(root.join(&path))
                .unwrap_or_else(|e| panic!("{} embeds {}: {e}", f.path.display(), path.display()));
            embedded.push(Embedded {
                lines: text.lines().count(),
                path,
            });
        }
    }
    Crate {
        name,
        files,
        embedded,
    }
}

/// The files `f`'s production code embeds as text (`include_str!("…")`), from the workspace
/// root.
fn embeds(f: &File) -> Vec<PathBuf> {
    let code: Vec<char> = f.code.chars().collect();
    let mac: Vec<char> = "include_str!".chars().collect();
    let mut out = Vec::new();
    for k in (0..code.len()).filter(|&k| code[k..].starts_with(&mac)) {
        if k > 0 && is_ident(code[k - 1]) {
            continue;
        }
        let Some(lit) = f.literals.iter().find(|l| l.at > k) else {
            continue;
        };
        // Only `(` and space between the macro's name and its literal.
        if code[k + mac.len()..lit.at]
            .iter()
            .all(|c| c.is_whitespace() || *c == '(')
        {
            let dir = f.path.parent().unwrap_or(Path::new(""));
            out.push(normalize(&dir.join(&lit.text)));
        }
    }
    out
}

/// `a/b/../c` → `a/c`, without asking the file system.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// The production files among a crate's sources (paths from its `src`, under `base` from the
/// workspace root): module paths given, `#[cfg(test)]` items blanked, test-only modules and
/// their files left out.
pub fn assemble(base: &Path, sources: &[(PathBuf, String)]) -> Vec<File> {
    let mut files = Vec::new();
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
        let lexed = lex(text);
        let prod = production(&lexed.code);
        for t in prod.test_mods {
            let mut m = module.clone();
            m.push(t);
            test_only.insert(m);
        }
        files.push(File {
            path: base.join(rel),
            rel: rel.clone(),
            module,
            text: text.clone(),
            code: prod.code,
            literals: lexed
                .literals
                .into_iter()
                .filter(|l| !prod.test[l.at])
                .collect(),
            test_lines: prod.test_lines,
        });
    }
    files.retain(|f| !test_only.iter().any(|t| f.module.starts_with(t)));
    files
}

/// A crate's files from `(path from src, source)` pairs, as [`assemble`] makes them.
pub fn synthetic(files: &[(&str, &str)]) -> Vec<File> {
    let sources: Vec<(PathBuf, String)> = files
        .iter()
        .map(|(p, s)| (PathBuf::from(p), s.to_string()))
        .collect();
    assemble(Path::new("crates/x/src"), &sources)
}

#[test]
fn the_lexer_keeps_lines_and_literals_apart() {
    let src = "let a = \"x::y\"; // \"not\"\nlet b = r#\"q\"r\"#;\n/* \"no\" */ let c = ('\\'', '\"', b\"go\");\nfn f<'a>() {}";
    let l = lex(src);
    assert_eq!(l.code.chars().count(), src.chars().count());
    assert_eq!(l.code.lines().count(), src.lines().count());
    let found: Vec<(usize, &str)> = l
        .literals
        .iter()
        .map(|l| (l.line, l.text.as_str()))
        .collect();
    assert_eq!(found, [(1, "x::y"), (2, "q\"r"), (3, "go")]);
    assert!(l.code.ends_with("fn f<'a>() {}"), "{}", l.code);
}

#[test]
fn a_test_item_and_a_test_only_file_are_not_production() {
    let files = synthetic(&[
        (
            "lib.rs",
            "mod a;\n#[cfg(test)]\nmod tests;\n#[cfg(test)]\nmod more {\n    \"in a test\";\n}\nconst S: &str = \"kept\";\n",
        ),
        ("a.rs", "#[cfg(test)]\nmod helper;\nfn f() {}\n"),
        ("a/helper.rs", "fn g() {}\n"),
        ("tests.rs", "fn t() {}\n"),
        // Named like a test file, declared as production.
        ("a/tests.rs", "fn p() {}\n"),
    ]);
    let paths: Vec<String> = files.iter().map(|f| f.path.display().to_string()).collect();
    assert_eq!(
        paths,
        [
            "crates/x/src/lib.rs",
            "crates/x/src/a.rs",
            "crates/x/src/a/tests.rs"
        ]
    );
    let lib = &files[0];
    assert_eq!(lib.test_lines, (2..=7).collect());
    assert_eq!(lib.production_lines(), 2);
    let texts: Vec<&str> = lib.literals.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts, ["kept"]);
    assert_eq!(lib.code.lines().count(), 8);
}
