//! What makes two failures one cause: the error's kind, its message with the values taken out
//! (a *template*), and the place in the project they share. `wire` clusters by it; the cargo
//! adapter uses it to re-run one member of each cause with backtraces. Pure functions of a
//! failure, so every crate groups alike.

use crate::ecosystem::is_test_path;
use crate::Failure;

/// Characters of a message's first line a template reads: causes differ early, and a key
/// must not grow with a value a test printed.
const TEMPLATE_CHARS: usize = 240;

/// The key failures are grouped by. Two failures with equal causes are one cluster.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cause {
    /// The error's type (`AssertionError`, `panic`), empty when the runner gives none.
    pub kind: String,
    /// The message's first line with its values normalised (see [`template`]).
    pub template: String,
    pub anchor: Anchor,
}

/// Where in the project a cause sits.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Anchor {
    /// The deepest project frame outside the tests (`file:line`): a helper or library line
    /// every member's stack passes through where it broke.
    Place(String),
    /// Every project frame is in test code (the assertion is in each test's own body, at its
    /// own line): the test file. Thirty tests asserting on one broken function fail at thirty
    /// lines of one file with one message template, and are one cause.
    TestFile(String),
    /// No project frame at all.
    Nowhere,
}

impl Failure {
    /// This failure's cause (see [`Cause`]).
    pub fn cause(&self) -> Cause {
        Cause {
            kind: self.kind.clone().unwrap_or_default(),
            template: template(&self.message),
            anchor: anchor(self),
        }
    }
}

fn anchor(f: &Failure) -> Anchor {
    if let Some(fr) = f.project_frames().rev().find(|fr| !is_test_path(&fr.file)) {
        return Anchor::Place(fr.location());
    }
    match f.top_project_frame() {
        Some(fr) => Anchor::TestFile(fr.file.clone()),
        None => Anchor::Nowhere,
    }
}

/// A message's first line with what varies between members of one cause replaced by
/// placeholders: numbers and hex ids (`#`), quoted strings (`'…'`), the contents of brackets,
/// braces and angle-bracketed values (`[…]`, `{…}`, `<…>`), paths and URLs (`…/`). `got 1.4.2` and `got 0.7.0` become one
/// `got #`. Idempotent, reading at most [`TEMPLATE_CHARS`] characters.
pub fn template(message: &str) -> String {
    let line = message.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let chars: Vec<char> = line.chars().take(TEMPLATE_CHARS).collect();
    let mut out = String::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let word_before = prev.is_some_and(|p| p.is_alphanumeric() || p == '_');
        if let Some(end) = quoted(&chars, i, word_before) {
            out.push_str("'…'");
            i = end + 1;
        } else if let Some(end) = angled(&chars, i) {
            // JUnit's `expected: <hello-world> but was: <hello_world>`.
            out.push_str("<…>");
            i = end + 1;
        } else if c == '[' || c == '{' {
            let close = if c == '[' { ']' } else { '}' };
            out.push(c);
            out.push('…');
            out.push(close);
            i = closing(&chars, i).map_or(chars.len(), |e| e + 1);
        } else if !word_before && is_path_start(&chars, i) {
            out.push_str("…/");
            while i < chars.len() && !ends_path(chars[i]) {
                i += 1;
            }
        } else if c.is_ascii_digit()
            || (matches!(c, '+' | '-')
                && !word_before
                && chars.get(i + 1).is_some_and(char::is_ascii_digit))
        {
            // A sign belongs to its number: vitest says `expected +0 to be 1000`.
            // A number with its fraction, exponent, version dots or hex digits (`0x1f`,
            // `1.4.2`, `3e-5`, `0xdeadbeef`), or digits inside an identifier (`case_07`).
            if !out.ends_with('#') {
                out.push('#');
            }
            i += 1;
            while i < chars.len() && (chars[i].is_ascii_hexdigit() || "._xX".contains(chars[i])) {
                if chars[i] == '.' && !chars.get(i + 1).is_some_and(char::is_ascii_digit) {
                    break;
                }
                i += 1;
            }
        } else if !word_before && is_hex_id(&chars, i) {
            out.push('#');
            while i < chars.len() && chars[i].is_ascii_hexdigit() {
                i += 1;
            }
        } else if c.is_whitespace() {
            if !out.ends_with(' ') {
                out.push(' ');
            }
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out.trim().to_owned()
}

/// The index of the quote closing one opened at `i`, when `chars[i]` opens a quoted string: a
/// quote not inside a word (`doesn't` is no string; `b'..'` and `r"..` are), closed on the
/// same line.
fn quoted(chars: &[char], i: usize, word_before: bool) -> Option<usize> {
    let q = chars[i];
    if !matches!(q, '\'' | '"' | '`') {
        return None;
    }
    let prefix = word_before && i >= 1 && matches!(chars[i - 1], 'b' | 'r' | 'f' | 'u');
    let prefix_alone = prefix && (i < 2 || !chars[i - 2].is_alphanumeric());
    if word_before && !prefix_alone {
        return None;
    }
    (i + 1..chars.len()).find(|&j| chars[j] == q && chars[j - 1] != '\\')
}

/// The index of the `>` closing a value in angle brackets opened at `i`: `<` at a word's start,
/// not followed by a space or `=`, closed on the line before any other `<`, with no space
/// before the `>` (`a < b and c > d` is no value; `Vec<u8>` is a type, kept).
fn angled(chars: &[char], i: usize) -> Option<usize> {
    if chars[i] != '<' || i > 0 && !chars[i - 1].is_whitespace() && chars[i - 1] != ':' {
        return None;
    }
    if chars
        .get(i + 1)
        .is_none_or(|c| c.is_whitespace() || *c == '=')
    {
        return None;
    }
    let end = (i + 1..chars.len()).find(|&j| chars[j] == '>' || chars[j] == '<')?;
    (chars[end] == '>' && !chars[end - 1].is_whitespace()).then_some(end)
}

/// The index of the bracket closing the one at `i`, counting nesting of both kinds.
fn closing(chars: &[char], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (j, &c) in chars.iter().enumerate().skip(i) {
        match c {
            '[' | '{' => depth += 1,
            ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
    }
    None
}

/// A path or URL starts here: `/x`, `./x`, `../x`, `C:\x`, `name/x` with a further `/` or an
/// extension, `scheme://`.
fn is_path_start(chars: &[char], i: usize) -> bool {
    let token: String = chars[i..].iter().take_while(|&&c| !ends_path(c)).collect();
    let slashes = token.matches('/').count() + token.matches('\\').count();
    if slashes == 0 || token.len() < 3 || token.starts_with("//") && !token.contains("://") {
        return false;
    }
    let first = token.chars().next().unwrap_or(' ');
    let rooted = first == '/' || token.starts_with("./") || token.starts_with("../");
    let named = first.is_alphanumeric()
        && (slashes >= 2 || token.contains("://") || {
            let last = token.rsplit(['/', '\\']).next().unwrap_or("");
            last.contains('.') && !last.ends_with('.')
        });
    rooted || named || token.get(1..3) == Some(":\\")
}

fn ends_path(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '\'' | '"' | '`' | ',' | ';' | '(' | ')' | '<' | '>' | '[' | ']' | '{' | '}'
        )
}

/// A run of at least eight hex digits with a letter among them (an object id, a hash, a
/// signature), standing as a word of its own.
fn is_hex_id(chars: &[char], i: usize) -> bool {
    let run: Vec<char> = chars[i..]
        .iter()
        .copied()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    let end_is_word_end = chars
        .get(i + run.len())
        .is_none_or(|c| !(c.is_alphanumeric() || *c == '_'));
    run.len() >= 8 && end_is_word_end && run.iter().any(char::is_ascii_digit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Frame;

    #[test]
    fn values_are_taken_out() {
        let same = [
            ("got 1.4.2, want 2.0", "got 0.7.0, want 2.0"),
            ("assert 3 == 1003", "assert 4 == 1004"),
            (
                "area of side 3 = 6, want 9",
                "area of side 12 = 24, want 144",
            ),
            ("KeyError: 'alpha'", "KeyError: 'beta'"),
            ("expected [1, 2, 3] got [1, 2]", "expected [4] got []"),
            (
                "object at 0x7f3a2b1c9d00 is not callable",
                "object at 0x7f00 is not callable",
            ),
            (
                "Signature b'Zm9v' does not match",
                "Signature b'YmFy' does not match",
            ),
            (
                "open /tmp/a/b.json: no such file",
                "open ./data/c.json: no such file",
            ),
            ("commit 3f9a2c4b1d not found", "commit aa17bc93ee not found"),
            (
                "index out of range [5] with length 3",
                "index out of range [9] with length 3",
            ),
            (
                "value(3) == 1000 + 3 (3 vs 1003)",
                "value(44) == 1000 + 44 (44 vs 1044)",
            ),
        ];
        for (a, b) in same {
            assert_eq!(template(a), template(b), "{a} / {b}");
        }
        let differ = [
            ("expected 3 got 4", "expected 3 but found 4"),
            (
                "TypeError: x is not a function",
                "TypeError: y is undefined",
            ),
            ("doesn't match", "does match"),
            ("a < b and c > d", "a < x and c > d"),
        ];
        for (a, b) in differ {
            assert_ne!(template(a), template(b), "{a} / {b}");
        }
        assert_eq!(template("area of side 3 = 6\nmore"), "area of side # = #");
        assert_eq!(template("don't 'x' it's"), "don't '…' it's");
        assert_eq!(template("a < b and c > d"), "a < b and c > d");
        assert_eq!(template("Vec<u8> at <here>"), "Vec<u#> at <…>");
    }

    #[test]
    fn anchor_is_the_deepest_frame_outside_the_tests() {
        let f = |frames: Vec<Frame>| Failure {
            test: "t".into(),
            message: "boom".into(),
            frames,
            ..Failure::default()
        };
        let lib = Frame::project("src/lib.py", 10);
        let helper = Frame::project("src/helpers.py", 4);
        let test = Frame::project("tests/test_a.py", 7);
        let other_test = Frame::project("tests/test_a.py", 19);
        let mut std = Frame::project("/usr/lib/python3.11/json/decoder.py", 3);
        std.project = false;
        assert_eq!(
            f(vec![test.clone(), helper.clone(), lib.clone(), std.clone()])
                .cause()
                .anchor,
            Anchor::Place("src/lib.py:10".into())
        );
        // Each test's own assert line differs; the file and template are the cause.
        assert_eq!(f(vec![test.clone()]).cause(), f(vec![other_test]).cause());
        assert_eq!(
            f(vec![test]).cause().anchor,
            Anchor::TestFile("tests/test_a.py".into())
        );
        assert_eq!(f(vec![std]).cause().anchor, Anchor::Nowhere);
    }

    proptest::proptest! {
        // A template is a key, read from any bytes a runner printed: it never panics and
        // never grows past a bound, whatever the message.
        #[test]
        fn templates_are_bounded_for_any_text(s in "\\PC{0,400}") {
            proptest::prop_assert!(template(&s).chars().count() <= 3 * TEMPLATE_CHARS);
        }

        #[test]
        fn templates_are_bounded_for_any_punctuation(s in proptest::collection::vec(
            proptest::sample::select(vec!['[', ']', '{', '}', '\'', '"', '`', '/', '\\', '.', '0', '9', 'a', 'f', 'x', ' ', ':', 'b', 'é']), 0..400)) {
            let s: String = s.into_iter().collect();
            proptest::prop_assert!(template(&s).chars().count() <= 3 * TEMPLATE_CHARS);
        }
    }
}
