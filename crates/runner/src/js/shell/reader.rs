//! The one pass behind [`super::parse`]: a script's characters read as sh reads them (quotes,
//! escapes, `$NAME` and `~` expansion, the list's separators) into words and commands. What it
//! does not interpret marks the command, or the whole script, as sh's own; it never fails.

use super::{is_name, Cmd, Op, Word};

/// The script's characters still to read, with their byte offsets.
type Chars<'s> = std::iter::Peekable<std::str::CharIndices<'s>>;

/// Words that start a compound command or a reserved construct: sh reads them across the
/// separators pith splits at.
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
    "function", "select", "!", "[[", "]]", "{", "}", "time", "coproc",
];

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

pub(super) struct Reader<'a> {
    src: &'a str,
    env: &'a dyn Fn(&str) -> Option<String>,
    pub(super) cmds: Vec<Cmd>,
    pub(super) words: Vec<Word>,
    word: Partial,
    /// Byte offset where the current command's text starts.
    start: usize,
    op: Op,
    /// The current command uses syntax pith does not interpret.
    shell: bool,
    /// The script uses syntax that spans commands: it is one command for sh.
    pub(super) whole: bool,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `src`; `shell` marks its commands as sh's from the start.
    pub(super) fn new(src: &'a str, env: &'a dyn Fn(&str) -> Option<String>, shell: bool) -> Self {
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

    /// Reads the script: the list's separators here, each quoting and expansion form in a
    /// step of its own.
    pub(super) fn read(&mut self) {
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
                '\'' => self.single_quoted(&mut it),
                '"' => self.double_quoted(&mut it),
                '\\' => self.escaped(&mut it),
                '$' => self.dollar(&mut it, false),
                '*' | '?' | '[' => self.glob(c),
                '~' if !self.word.started => self.tilde(&mut it),
                '=' if self.word.plain && self.words.iter().all(|w| w.assign) => self.equals(),
                c => self.literal(c),
            }
        }
        self.separate(src.len(), src.len(), Sep::End);
    }

    /// `'...'`: every character as written; unclosed, sh's syntax error.
    fn single_quoted(&mut self, it: &mut Chars<'_>) {
        self.word.started = true;
        self.word.plain = false;
        match until(it, '\'') {
            Some(inner) => inner.chars().for_each(|q| self.quoted(q)),
            None => self.whole = true,
        }
    }

    /// `"..."`: `\` escapes only what sh lets it escape there, and `$` still expands.
    fn double_quoted(&mut self, it: &mut Chars<'_>) {
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
                '$' => self.dollar(it, true),
                q => self.quoted(q),
            }
        }
        if !closed {
            self.whole = true;
        }
    }

    /// `\x` outside quotes: `x` quoted; before a newline, the line goes on.
    fn escaped(&mut self, it: &mut Chars<'_>) {
        match it.next() {
            Some((_, '\n')) => {}
            Some((_, n)) => {
                self.word.started = true;
                self.word.plain = false;
                self.quoted(n);
            }
            None => self.literal('\\'),
        }
    }

    /// A glob character outside quotes: live in the word's pattern, for sh to expand.
    fn glob(&mut self, c: char) {
        self.word.started = true;
        self.word.glob = true;
        self.word.text.push(c);
        self.word.pattern.push(c);
    }

    /// `~` starting a word: the caller's home, as sh expands it.
    fn tilde(&mut self, it: &mut Chars<'_>) {
        let next = it.peek().map(|p| p.1);
        match next {
            None | Some('/' | ' ' | '\t' | '\n' | ';' | '&' | '|') => match (self.env)("HOME") {
                Some(home) => {
                    self.word.started = true;
                    self.word.expanded = true;
                    for h in home.chars() {
                        self.quoted(h);
                    }
                }
                None => self.literal('~'),
            },
            // `~user`: another user's home.
            _ => self.shell = true,
        }
    }

    /// `=` in a plain word before the command's name: `NAME=value` assigns.
    fn equals(&mut self) {
        let name = &self.word.text;
        if !self.word.assign && is_name(name) {
            self.word.assign = true;
        }
        self.literal('=');
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
    fn dollar(&mut self, it: &mut Chars<'_>, in_quotes: bool) {
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

    pub(super) fn end_word(&mut self) {
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
fn until(it: &mut Chars<'_>, end: char) -> Option<String> {
    let mut out = String::new();
    for (_, c) in it.by_ref() {
        if c == end {
            return Some(out);
        }
        out.push(c);
    }
    None
}
