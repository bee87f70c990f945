//! A `package.json` script read as `sh -c` reads it (npm, pnpm, yarn and bun run scripts
//! through `/bin/sh` on Unix): the and-or list it is (`&&`, `||`, `;` and newlines, equal
//! precedence, left to right), each command's words after quote removal, parameter expansion
//! (`$NAME`, `${NAME}`, with field splitting outside double quotes), tilde expansion and the
//! glob patterns sh expands before the program sees its arguments (`node --test test/*.js`
//! hands node the files, not the pattern; [`expand`]).
//!
//! pith reads only what it needs to follow the script. A command with syntax it does not
//! interpret (a pipe, a redirection, a special parameter, `${X:-y}`, `&`) is marked
//! [`Cmd::shell`]: it runs as npm runs it, `sh -c '<its own text>'`. Syntax that spans commands
//! (subshells, command substitution, backquotes, compound commands, comments, unterminated
//! quotes) makes the whole script one such command. That text is the project's own script,
//! never input: ids and paths pith adds never go through a shell.
//!
//! Never panics, whatever the script (a property test holds it).

use std::path::Path;

/// One word after expansion and quote removal.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Word {
    pub(crate) text: String,
    /// The word as a glob pattern when it has glob characters outside quotes: those live,
    /// every quoted character escaped with `\`. sh expands it; no match leaves [`Word::text`].
    pub(crate) pattern: Option<String>,
    /// A `NAME=value` assignment: the `=` outside quotes after a valid name written plainly.
    pub(crate) assign: bool,
    /// Some of it came from a parameter or tilde expansion.
    pub(crate) expanded: bool,
}

/// How a command joins the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// The first command, or after `;` or a newline: it runs whatever came before.
    Then,
    /// After `&&`: it runs when the status so far is 0.
    And,
    /// After `||`: it runs when the status so far is not 0.
    Or,
}

/// One command of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cmd {
    pub(crate) op: Op,
    pub(crate) words: Vec<Word>,
    /// Its own text in the script, trimmed.
    pub(crate) text: String,
    /// It uses syntax pith does not interpret: it runs as `sh -c` [`Cmd::text`].
    pub(crate) shell: bool,
}

/// Words that start a compound command or a reserved construct: sh reads them across the
/// separators pith splits at.
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
    "function", "select", "!", "[[", "]]", "{", "}", "time", "coproc",
];

/// The commands of `script`; `env` gives the value of a variable for `$NAME` (the shell's
/// environment: what the package manager sets for scripts, then the caller's).
pub(crate) fn parse(script: &str, env: &dyn Fn(&str) -> Option<String>) -> Vec<Cmd> {
    let mut r = Reader::new(script, env, false);
    r.read();
    if r.whole {
        return vec![opaque(script, env)];
    }
    r.cmds
}

/// The whole script as one command run by sh, its words read as well as they can be (the
/// program's name for the answer).
fn opaque(script: &str, env: &dyn Fn(&str) -> Option<String>) -> Cmd {
    let mut r = Reader::new(script, env, true);
    r.read();
    r.end_word();
    let words = match r.cmds.into_iter().next() {
        Some(c) => c.words,
        None => r.words,
    };
    Cmd {
        op: Op::Then,
        words,
        text: script.trim().to_owned(),
        shell: true,
    }
}

/// A word being read.
#[derive(Default)]
struct Partial {
    text: String,
    pattern: String,
    glob: bool,
    /// Something (quotes, characters) makes it a word, even an empty one.
    started: bool,
    /// Every character so far was written unquoted and plainly (for assignments).
    plain: bool,
    assign: bool,
    expanded: bool,
}

struct Reader<'a> {
    src: &'a str,
    env: &'a dyn Fn(&str) -> Option<String>,
    cmds: Vec<Cmd>,
    words: Vec<Word>,
    word: Partial,
    /// Byte offset where the current command's text starts.
    start: usize,
    op: Op,
    /// The current command uses syntax pith does not interpret.
    shell: bool,
    /// The script uses syntax that spans commands: it is one command for sh.
    whole: bool,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `src`; `shell` marks its commands as sh's from the start.
    fn new(src: &'a str, env: &'a dyn Fn(&str) -> Option<String>, shell: bool) -> Self {
        Reader {
            src,
            env,
            cmds: Vec::new(),
            words: Vec::new(),
            word: Partial::default(),
            start: 0,
            op: Op::Then,
            shell,
            whole: false,
        }
    }

    fn read(&mut self) {
        let src = self.src;
        let mut it = src.char_indices().peekable();
        while let Some((i, c)) = it.next() {
            if self.whole {
                return;
            }
            match c {
                ' ' | '\t' | '\r' => self.end_word(),
                '\n' => self.separate(i, i + 1, Sep::Newline),
                ';' => {
                    if it.peek().map(|p| p.1) == Some(';') {
                        self.whole = true;
                    }
                    self.separate(i, i + 1, Sep::Semi);
                }
                '&' => {
                    if it.peek().map(|p| p.1) == Some('&') {
                        it.next();
                        self.separate(i, i + 2, Sep::And);
                    } else {
                        // A background job: the status is the next command's.
                        self.whole = true;
                    }
                }
                '|' => {
                    if it.peek().map(|p| p.1) == Some('|') {
                        it.next();
                        self.separate(i, i + 2, Sep::Or);
                    } else {
                        // A pipeline is one command of the list; its status is its last's.
                        self.end_word();
                        self.shell = true;
                    }
                }
                '<' | '>' => {
                    self.end_word();
                    self.shell = true;
                    if matches!(it.peek().map(|p| p.1), Some('&' | '>' | '<' | '|')) {
                        it.next();
                    }
                }
                '(' | ')' | '`' => self.whole = true,
                '#' if !self.word.started => self.whole = true,
                '\'' => {
                    self.word.started = true;
                    self.word.plain = false;
                    match until(&mut it, '\'') {
                        Some(inner) => inner.chars().for_each(|q| self.quoted(q)),
                        None => self.whole = true,
                    }
                }
                '"' => {
                    self.word.started = true;
                    self.word.plain = false;
                    let mut closed = false;
                    while let Some((_, q)) = it.next() {
                        match q {
                            '"' => {
                                closed = true;
                                break;
                            }
                            '\\' => match it.peek().map(|p| p.1) {
                                Some(n @ ('"' | '\\' | '$' | '`')) => {
                                    it.next();
                                    self.quoted(n);
                                }
                                Some('\n') => {
                                    it.next();
                                }
                                _ => self.quoted('\\'),
                            },
                            '`' => self.whole = true,
                            '$' => self.dollar(&mut it, true),
                            q => self.quoted(q),
                        }
                    }
                    if !closed {
                        self.whole = true;
                    }
                }
                '\\' => match it.next() {
                    Some((_, '\n')) => {}
                    Some((_, n)) => {
                        self.word.started = true;
                        self.word.plain = false;
                        self.quoted(n);
                    }
                    None => self.literal('\\'),
                },
                '$' => self.dollar(&mut it, false),
                '*' | '?' | '[' => {
                    self.word.started = true;
                    self.word.glob = true;
                    self.word.text.push(c);
                    self.word.pattern.push(c);
                }
                '~' if !self.word.started => {
                    let next = it.peek().map(|p| p.1);
                    match next {
                        None | Some('/' | ' ' | '\t' | '\n' | ';' | '&' | '|') => {
                            match (self.env)("HOME") {
                                Some(home) => {
                                    self.word.started = true;
                                    self.word.expanded = true;
                                    for h in home.chars() {
                                        self.quoted(h);
                                    }
                                }
                                None => self.literal('~'),
                            }
                        }
                        // `~user`: another user's home.
                        _ => self.shell = true,
                    }
                }
                '=' if self.word.plain && self.words.iter().all(|w| w.assign) => {
                    let name = &self.word.text;
                    if !self.word.assign && is_name(name) {
                        self.word.assign = true;
                    }
                    self.literal('=');
                }
                c => self.literal(c),
            }
        }
        self.separate(src.len(), src.len(), Sep::End);
    }

    /// A character written plainly.
    fn literal(&mut self, c: char) {
        if !self.word.started {
            self.word.started = true;
            self.word.plain = true;
        }
        self.word.text.push(c);
        self.word.pattern.push(c);
    }

    /// A quoted (or escaped, or expanded) character: never a glob character.
    fn quoted(&mut self, c: char) {
        self.word.started = true;
        self.word.text.push(c);
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            self.word.pattern.push('\\');
        }
        self.word.pattern.push(c);
    }

    /// `$...`: a parameter expansion pith reads, or syntax it leaves to sh.
    fn dollar(&mut self, it: &mut std::iter::Peekable<std::str::CharIndices<'_>>, in_quotes: bool) {
        let name = match it.peek().map(|p| p.1) {
            Some('(') => {
                self.whole = true;
                return;
            }
            Some('{') => {
                it.next();
                let Some(name) = until(it, '}') else {
                    self.whole = true;
                    return;
                };
                if !is_name(&name) {
                    // `${X:-y}`, `${#X}`, `${1}`: sh's own.
                    self.shell = true;
                    return;
                }
                name
            }
            Some(c) if c == '_' || c.is_ascii_alphabetic() => {
                let mut name = String::new();
                while let Some(&(_, c)) = it.peek() {
                    if c == '_' || c.is_ascii_alphanumeric() {
                        name.push(c);
                        it.next();
                    } else {
                        break;
                    }
                }
                name
            }
            Some(c) if c.is_ascii_digit() || "@*#?-$!'".contains(c) => {
                // Positional and special parameters, `$'...'`: sh's own.
                self.shell = true;
                return;
            }
            _ => {
                if in_quotes {
                    self.quoted('$');
                } else {
                    self.literal('$');
                }
                return;
            }
        };
        let value = (self.env)(&name).unwrap_or_default();
        self.word.expanded = true;
        self.word.plain = false;
        if in_quotes {
            self.word.started = true;
            for c in value.chars() {
                self.quoted(c);
            }
            return;
        }
        // Field splitting: whitespace ends a word and starts the next.
        let mut chars = value.chars().peekable();
        while let Some(c) = chars.next() {
            if c.is_whitespace() {
                self.end_word();
                while chars.peek().is_some_and(|n| n.is_whitespace()) {
                    chars.next();
                }
                if chars.peek().is_some() {
                    self.word.expanded = true;
                }
            } else {
                self.quoted(c);
                self.word.expanded = true;
            }
        }
    }

    fn end_word(&mut self) {
        let w = std::mem::take(&mut self.word);
        if !w.started {
            return;
        }
        let first = self.words.is_empty();
        if first && w.plain && RESERVED.contains(&w.text.as_str()) {
            self.whole = true;
        }
        self.words.push(Word {
            pattern: w.glob.then_some(w.pattern),
            assign: w.assign,
            expanded: w.expanded,
            text: w.text,
        });
    }

    /// Ends the command at `at`; its separator `sep` runs to `next`.
    fn separate(&mut self, at: usize, next: usize, sep: Sep) {
        self.end_word();
        let text = self.src.get(self.start..at).unwrap_or("").trim().to_owned();
        let words = std::mem::take(&mut self.words);
        let op = match sep {
            Sep::And => Op::And,
            Sep::Or => Op::Or,
            Sep::Semi | Sep::Newline | Sep::End => Op::Then,
        };
        if words.is_empty() {
            match (self.op, sep) {
                // Blank lines, a trailing `;`: nothing.
                (Op::Then, Sep::Semi | Sep::Newline | Sep::End) => {}
                // sh reads on past a newline after `&&` or `||`.
                (Op::And | Op::Or, Sep::Newline) => {}
                // `&& b`, `a && && b`, `a && ;`, `a &&` at the end: sh's syntax errors.
                _ => self.whole = true,
            }
        } else {
            self.cmds.push(Cmd {
                op: self.op,
                words,
                text,
                shell: self.shell,
            });
            self.op = op;
        }
        self.shell = false;
        self.start = next;
    }
}

/// What ends a command.
#[derive(Clone, Copy)]
enum Sep {
    Semi,
    Newline,
    And,
    Or,
    End,
}

/// The characters up to `end`, which is consumed; `None` when the script ends first.
fn until(it: &mut std::iter::Peekable<std::str::CharIndices<'_>>, end: char) -> Option<String> {
    let mut out = String::new();
    for (_, c) in it.by_ref() {
        if c == end {
            return Some(out);
        }
        out.push(c);
    }
    None
}

/// A shell variable name.
pub(crate) fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// `s` quoted for sh, as npm quotes the arguments it appends to a script (`npm run x -- a b`).
pub(crate) fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@+%".contains(c))
    {
        return s.to_owned();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Most paths one pattern expands to: past it, the word stays as written (a pattern over a
/// tree that large is not a test list).
const MAX_MATCHES: usize = 100_000;

/// sh's pathname expansion of `pattern` (see [`Word::pattern`]) in `cwd`: the matching paths,
/// sorted, written as the pattern was (relative stays relative); `None` when nothing matches,
/// and sh passes the word as written. `*` and `?` never match `/` nor a leading `.`; `**` is
/// `*` (sh has no globstar).
pub(crate) fn expand(pattern: &str, cwd: &Path) -> Option<Vec<String>> {
    let absolute = pattern.starts_with('/');
    let parts: Vec<&str> = pattern.split('/').collect();
    let mut found: Vec<String> = vec![if absolute {
        "/".to_owned()
    } else {
        String::new()
    }];
    let skip = usize::from(absolute);
    for (n, part) in parts.iter().enumerate().skip(skip) {
        let last = n + 1 == parts.len();
        if part.is_empty() {
            // `a//b` or a trailing `/`: kept as written, and only directories match.
            for f in &mut found {
                f.push('/');
            }
            found.retain(|f| cwd.join(f).is_dir());
            continue;
        }
        let mut next: Vec<String> = Vec::new();
        for base in &found {
            let join = |name: &str| {
                if base.is_empty() {
                    name.to_owned()
                } else if base.ends_with('/') {
                    format!("{base}{name}")
                } else {
                    format!("{base}/{name}")
                }
            };
            if !has_live_glob(part) {
                let name = unescape(part);
                let path = join(&name);
                let p = cwd.join(&path);
                if (last && p.symlink_metadata().is_ok()) || p.is_dir() {
                    next.push(path);
                }
                continue;
            }
            let dir = if base.is_empty() {
                cwd.to_path_buf()
            } else {
                cwd.join(base)
            };
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut names: Vec<String> = entries
                .flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|name| {
                    (!name.starts_with('.') || part.starts_with('.')) && fnmatch(part, name)
                })
                .collect();
            names.sort();
            for name in names {
                let path = join(&name);
                if last || cwd.join(&path).is_dir() {
                    next.push(path);
                }
                if next.len() > MAX_MATCHES {
                    return None;
                }
            }
        }
        found = next;
        if found.is_empty() {
            return None;
        }
    }
    found.sort();
    (!found.is_empty()).then_some(found)
}

/// Whether a pattern component has a glob character that is not escaped.
fn has_live_glob(part: &str) -> bool {
    let mut escaped = false;
    for c in part.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '*' | '?' | '[' => return true,
            _ => {}
        }
    }
    false
}

fn unescape(part: &str) -> String {
    let mut out = String::new();
    let mut chars = part.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.extend(chars.next());
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `name` matches the glob `pattern` (`*`, `?`, `[...]` with `!` or `^` and ranges,
/// `\` escapes), as sh's `fnmatch` without flags.
pub(crate) fn fnmatch(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    matches_at(&p, &n)
}

fn matches_at(p: &[char], n: &[char]) -> bool {
    // Iterative with one backtrack point for the last `*`: linear in practice, never
    // exponential.
    let (mut pi, mut ni) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        let step = match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
                continue;
            }
            Some('?') => Some(1),
            Some('[') => match class(&p[pi..], n[ni]) {
                Some((len, true)) => Some(len),
                Some((_, false)) => None,
                // An unclosed `[` is a literal `[`.
                None => (n[ni] == '[').then_some(1),
            },
            Some('\\') if pi + 1 < p.len() => (p[pi + 1] == n[ni]).then_some(2),
            Some(&c) => (c == n[ni]).then_some(1),
            None => None,
        };
        match step {
            Some(len) => {
                pi += len;
                ni += 1;
            }
            None => match star {
                Some((sp, sn)) => {
                    pi = sp + 1;
                    ni = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    p[pi.min(p.len())..].iter().all(|&c| c == '*')
}

/// A bracket expression at the start of `p` against `c`: its length and whether `c` is in it;
/// `None` when it is not closed.
fn class(p: &[char], c: char) -> Option<(usize, bool)> {
    let mut i = 1;
    let negate = matches!(p.get(i), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let mut hit = false;
    let mut first = true;
    while let Some(&x) = p.get(i) {
        if x == ']' && !first {
            return Some((i + 1, hit != negate));
        }
        first = false;
        let lo = if x == '\\' {
            i += 1;
            *p.get(i)?
        } else {
            x
        };
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&h| h != ']') {
            let hi = p[i + 2];
            if lo <= c && c <= hi {
                hit = true;
            }
            i += 3;
        } else {
            if lo == c {
                hit = true;
            }
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/u".to_owned()),
            "JOBS" => Some("2".to_owned()),
            "FLAGS" => Some(" --a  --b ".to_owned()),
            _ => None,
        }
    }

    fn cmds(s: &str) -> Vec<(Op, Vec<String>, bool)> {
        parse(s, &env)
            .into_iter()
            .map(|c| (c.op, c.words.into_iter().map(|w| w.text).collect(), c.shell))
            .collect()
    }

    fn w(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn lists_split_as_sh_splits_them() {
        assert_eq!(
            cmds("tsc --noEmit && vitest run || echo failed ; lint\nnext"),
            [
                (Op::Then, w(&["tsc", "--noEmit"]), false),
                (Op::And, w(&["vitest", "run"]), false),
                (Op::Or, w(&["echo", "failed"]), false),
                (Op::Then, w(&["lint"]), false),
                (Op::Then, w(&["next"]), false),
            ]
        );
        // Quotes and escapes keep separators in their word.
        assert_eq!(
            cmds(r#"jest -t "a && b" 'c;d' e\;f"#),
            [(Op::Then, w(&["jest", "-t", "a && b", "c;d", "e;f"]), false)]
        );
        assert_eq!(
            parse("a &&  b ", &env)
                .iter()
                .map(|c| c.text.as_str())
                .collect::<Vec<_>>(),
            ["a", "b"]
        );
        // A trailing separator is nothing.
        assert_eq!(cmds("jest;").len(), 1);
        assert_eq!(cmds("\n\njest\n").len(), 1);
    }

    #[test]
    fn syntax_pith_does_not_read_runs_through_sh() {
        // One command of the list: a pipe, a redirection.
        let c = parse("lint && jest 2>&1 | tee out.log", &env);
        assert_eq!(c.len(), 2);
        assert!(!c[0].shell);
        assert!(c[1].shell);
        assert_eq!(c[1].text, "jest 2>&1 | tee out.log");
        assert!(parse("echo $1", &env)[0].shell);
        assert!(parse("echo ${X:-y}", &env)[0].shell);
        // Across commands: the whole script.
        for s in [
            "(cd a && jest)",
            "echo $(date) && jest",
            "jest `x`",
            "if true; then jest; fi",
            "jest & wait",
            "jest # all of them",
            "jest 'unclosed",
            "jest &&",
            "&& jest",
            "{ jest; }",
        ] {
            let c = parse(s, &env);
            assert_eq!(c.len(), 1, "{s}");
            assert!(c[0].shell, "{s}");
            assert_eq!(c[0].text, s.trim(), "{s}");
        }
    }

    #[test]
    fn words_expand_as_sh_expands_them() {
        assert_eq!(
            cmds("jest --maxWorkers=$JOBS \"$FLAGS\" $FLAGS $NOPE ~/x '~' ${JOBS}x"),
            [(
                Op::Then,
                w(&[
                    "jest",
                    "--maxWorkers=2",
                    " --a  --b ",
                    "--a",
                    "--b",
                    "/home/u/x",
                    "~",
                    "2x"
                ]),
                false
            )]
        );
        let c = parse(r#"A=1 B="x y" node --test 'q*' t/*.js "$HOME"/*"#, &env);
        let words = &c[0].words;
        assert!(words[0].assign && words[1].assign && !words[2].assign);
        assert_eq!(words[1].text, "B=x y");
        assert_eq!(words[4].pattern, None);
        assert_eq!(words[5].pattern.as_deref(), Some("t/*.js"));
        assert_eq!(words[6].pattern.as_deref(), Some("/home/u/*"));
        // `=` after the command's name assigns nothing.
        assert!(!parse("jest A=1", &env)[0].words[1].assign);
        assert!(!parse("'A'=1 jest", &env)[0].words[0].assign);
    }

    #[test]
    fn globs_match_as_sh_matches_them() {
        let d = tempfile::tempdir().unwrap();
        for f in [
            "test/a.test.js",
            "test/b.test.js",
            "test/.hidden.test.js",
            "test/sub/c.test.js",
        ] {
            let p = d.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        }
        assert_eq!(
            expand("test/*.test.js", d.path()).unwrap(),
            ["test/a.test.js", "test/b.test.js"]
        );
        // No globstar: `**` is `*`, one level.
        assert_eq!(
            expand("test/**/*.test.js", d.path()).unwrap(),
            ["test/sub/c.test.js"]
        );
        assert_eq!(expand("test/[ab].test.js", d.path()).unwrap().len(), 2);
        assert_eq!(expand("test/[!a].test.js", d.path()).unwrap().len(), 1);
        assert_eq!(expand("nope/*.js", d.path()), None);
        assert_eq!(expand(r"test/\*.js", d.path()), None);
        assert_eq!(expand("*/", d.path()).unwrap(), ["test/"]);
        assert!(fnmatch("a*b?c", "axxbyc"));
        assert!(!fnmatch("a*b?c", "axxbc"));
        assert!(fnmatch("[a-c]x", "bx"));
        assert!(fnmatch("[x", "[x"));
    }

    #[test]
    fn arguments_are_quoted_for_sh() {
        assert_eq!(quote("--coverage"), "--coverage");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,120}") {
            let cs = parse(&s, &env);
            for c in &cs {
                proptest::prop_assert!(!c.words.is_empty() || c.shell);
            }
        }

        #[test]
        fn shell_like_scripts_never_panic(
            s in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just("&&"), proptest::strategy::Just("||"),
                    proptest::strategy::Just(";"), proptest::strategy::Just("'"),
                    proptest::strategy::Just("\""), proptest::strategy::Just("\\"),
                    proptest::strategy::Just("$"), proptest::strategy::Just("${"),
                    proptest::strategy::Just("}"), proptest::strategy::Just("*"),
                    proptest::strategy::Just("["), proptest::strategy::Just("A=1"),
                    proptest::strategy::Just(" "), proptest::strategy::Just("jest"),
                    proptest::strategy::Just("~"), proptest::strategy::Just("|"),
                    proptest::strategy::Just("\n"), proptest::strategy::Just("é"),
                ],
                0..24,
            ),
        ) {
            let _ = parse(&s.concat(), &env);
        }

        #[test]
        fn globs_never_panic(p in "[a-z*?\\[\\]!\\\\/^-]{0,12}", n in "[a-z.\\[\\]-]{0,12}") {
            let _ = fnmatch(&p, &n);
        }
    }
}
