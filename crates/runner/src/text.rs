//! Small text rules every adapter applies alike: no colour codes, first lines cut at a character
//! boundary, the bounds of a raw tail (what a tail keeps is [`crate::tails`]).

use std::borrow::Cow;
use std::collections::VecDeque;

/// Longest message first line an answer carries.
pub const MESSAGE_CHARS: usize = 400;
/// A raw tail explaining an abnormal end: at most this many lines...
pub const TAIL_LINES: usize = 20;
/// ...and at most this many bytes.
pub const TAIL_BYTES: usize = 1500;

/// Removes ANSI/VT escape sequences (CSI, OSC and two-byte escapes). Runners colour their output
/// even when told not to; no escape may reach an answer.
pub fn strip_ansi(s: &str) -> Cow<'_, str> {
    if !s.contains('\u{1b}') && !s.contains('\u{9b}') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.peek() {
                Some('[') => {
                    chars.next();
                    skip_csi(&mut chars);
                }
                Some(']') => {
                    chars.next();
                    // OSC: until BEL or ESC \
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' {
                            if chars.peek() == Some(&'\\') {
                                chars.next();
                            }
                            break;
                        }
                    }
                }
                Some(_) => {
                    chars.next();
                }
                None => {}
            },
            '\u{9b}' => skip_csi(&mut chars),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    // Parameters and intermediates, then one final byte in 0x40..=0x7e.
    for c in chars.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&c) {
            break;
        }
    }
}

/// Cuts `s` to at most `max` characters, marking the cut with `…`.
pub fn cut_chars(s: &str, max: usize) -> Cow<'_, str> {
    match s.char_indices().nth(max) {
        None => Cow::Borrowed(s),
        Some((i, _)) => {
            let keep = s[..i]
                .char_indices()
                .nth(max.saturating_sub(1))
                .map_or(i, |(j, _)| j);
            Cow::Owned(format!("{}…", s[..keep].trim_end()))
        }
    }
}

/// The first non-blank line of `s`, trimmed, without colour, cut at [`MESSAGE_CHARS`].
pub fn first_line(s: &str) -> String {
    let clean = strip_ansi(s);
    let line = clean
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    cut_chars(line, MESSAGE_CHARS).into_owned()
}

/// `s` with a backslash before each character `special` picks: a literal inside a runner's
/// regular expression.
pub fn escape_chars(s: &str, special: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for c in s.chars() {
        if special(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Lines kept in bounded memory: the first ones up to a head budget, then the last ones up to a
/// tail budget; the middle of a flood is counted, not kept (a test's banner is at its head, its
/// failure or crash at its tail). Each line costs its length plus one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BoundedLines {
    head: Vec<String>,
    head_bytes: usize,
    tail: VecDeque<String>,
    tail_bytes: usize,
    /// Lines left out between head and tail.
    pub dropped: usize,
}

impl BoundedLines {
    /// Keeps `line` within `head_cap` bytes of head and `tail_cap` of tail; the budgets may
    /// shrink between calls (a run that already keeps a lot).
    pub fn push(&mut self, line: String, head_cap: usize, tail_cap: usize) {
        if self.tail.is_empty() && self.head_bytes + line.len() <= head_cap {
            self.head_bytes += line.len() + 1;
            self.head.push(line);
            return;
        }
        self.push_tail(line, tail_cap);
    }

    /// Keeps `line` at the end of the tail, within `tail_cap` bytes: the head is closed.
    pub fn push_tail(&mut self, line: String, tail_cap: usize) {
        self.tail_bytes += line.len() + 1;
        self.tail.push_back(line);
        while self.tail_bytes > tail_cap {
            let Some(l) = self.tail.pop_front() else {
                break;
            };
            self.tail_bytes -= l.len() + 1;
            self.dropped += 1;
        }
    }

    /// Bytes kept.
    pub fn bytes(&self) -> usize {
        self.head_bytes + self.tail_bytes
    }

    /// Every kept line, in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &str> + Clone + '_ {
        self.head.iter().chain(self.tail.iter()).map(String::as_str)
    }

    /// The lines kept from the start, and those kept from the end (what was left out lies
    /// between them).
    pub fn head_and_tail(&self) -> (&[String], &VecDeque<String>) {
        (&self.head, &self.tail)
    }
}

/// `%20` and friends, as file URLs escape them (Bazel's `file:///` outputs, node 18's test
/// events in an ES module).
pub(crate) fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let bytes = s.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            if let Some(b) = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_lines_keep_the_head_and_the_tail_in_order() {
        let mut b = BoundedLines::default();
        for i in 0..100 {
            b.push(format!("line {i:02}"), 16, 24);
        }
        let kept: Vec<&str> = b.iter().collect();
        assert_eq!(
            kept,
            ["line 00", "line 01", "line 97", "line 98", "line 99"]
        );
        assert_eq!(b.dropped, 95);
        assert_eq!(b.bytes(), 5 * 8);
    }
    use proptest::prelude::*;

    #[test]
    fn strips_colour() {
        assert_eq!(
            strip_ansi("\u{1b}[31mred\u{1b}[0m \u{1b}]8;;http://x\u{7}link"),
            "red link"
        );
        assert_eq!(strip_ansi("plain"), "plain");
    }

    #[test]
    fn cuts_at_char_boundary() {
        assert_eq!(cut_chars("héllo", 3), "hé…");
        assert_eq!(cut_chars("héllo", 5), "héllo");
    }

    #[test]
    fn first_line_skips_blank_and_colour() {
        assert_eq!(first_line("\n  \u{1b}[1mboom\u{1b}[0m  \nmore"), "boom");
    }

    proptest! {
        #[test]
        fn first_line_is_bounded(s in "(?s).{0,2000}") {
            let l = first_line(&s);
            prop_assert!(l.chars().count() <= MESSAGE_CHARS);
            prop_assert!(!l.contains('\n'));
        }
    }
}
