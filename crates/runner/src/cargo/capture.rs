//! Bounded text kept from output that may be endless: its first lines and its last. A test
//! that logs megabytes before it panics prints the panic last, so the tail is what explains a
//! failure; the head keeps how it started. What lies between is counted, not kept.

use crate::text::BoundedLines;

/// A test's captured output: head and tail (the panic is at the end).
pub const TEST_HEAD: usize = 16 * 1024;
pub const TEST_TAIL: usize = 48 * 1024;

/// Lines kept from the start and from the end of a text, within byte bounds: a
/// [`BoundedLines`] with fixed budgets that also keeps the end of one enormous line (where a
/// message ends) and counts what it left out in bytes, for the note that stands in for it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeadTail {
    lines: BoundedLines,
    head_cap: usize,
    tail_cap: usize,
    /// Bytes left out between head and tail.
    dropped: u64,
    /// Once a line went to the tail, the head is closed: the kept text stays in order.
    head_full: bool,
}

impl HeadTail {
    pub fn new(head_cap: usize, tail_cap: usize) -> Self {
        HeadTail {
            head_cap,
            tail_cap,
            ..HeadTail::default()
        }
    }

    /// A test's captured output.
    pub fn for_test() -> Self {
        HeadTail::new(TEST_HEAD, TEST_TAIL)
    }

    /// Appends one line (a newline is added).
    pub fn push_line(&mut self, line: &str) {
        let cost = line.len() + 1;
        if !self.head_full && self.lines.bytes() + cost <= self.head_cap {
            // The head has room (checked here: a line costs its newline too).
            self.lines.push(line.to_owned(), usize::MAX, self.tail_cap);
            return;
        }
        self.head_full = true;
        let line = if cost > self.tail_cap {
            // One enormous line: its end, where a message ends.
            let mut start = line.len() + 1 - self.tail_cap.max(1);
            while !line.is_char_boundary(start) {
                start += 1;
            }
            self.dropped += start as u64;
            &line[start..]
        } else {
            line
        };
        let before = self.lines.bytes() + line.len() + 1;
        self.lines.push_tail(line.to_owned(), self.tail_cap);
        self.dropped += (before - self.lines.bytes()) as u64;
    }

    /// Bytes held.
    pub fn len(&self) -> usize {
        self.lines.bytes()
    }

    /// The kept text, a one-line note where bytes were left out.
    pub fn into_string(self) -> String {
        let (head, tail) = self.lines.head_and_tail();
        let mut out = String::with_capacity(self.lines.bytes() + 40);
        for l in head {
            out.push_str(l);
            out.push('\n');
        }
        if self.dropped > 0 {
            out.push_str(&format!("[… {} bytes left out …]\n", self.dropped));
        }
        for l in tail {
            out.push_str(l);
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn short_text_is_kept_whole() {
        let mut h = HeadTail::new(100, 100);
        h.push_line("a");
        h.push_line("b");
        assert_eq!(h.into_string(), "a\nb\n");
    }

    #[test]
    fn long_text_keeps_its_start_and_its_end() {
        let mut h = HeadTail::new(20, 30);
        for i in 0..1000 {
            h.push_line(&format!("log {i}"));
        }
        h.push_line("panicked: the reason");
        let s = h.into_string();
        assert!(s.starts_with("log 0\nlog 1\n"), "{s}");
        assert!(s.ends_with("panicked: the reason\n"), "{s}");
        assert!(s.contains("bytes left out"), "{s}");
        assert!(s.len() < 20 + 30 + 40, "{s}");
    }

    #[test]
    fn one_enormous_line_keeps_its_end() {
        let mut h = HeadTail::new(10, 10);
        h.push_line(&format!("{}END", "é".repeat(100)));
        let s = h.into_string();
        assert!(s.ends_with("END\n"), "{s}");
        assert!(s.len() < 60, "{s}");
    }

    proptest! {
        #[test]
        fn bounded_whatever_is_pushed(lines in proptest::collection::vec("(?s).{0,300}", 0..60)) {
            let mut h = HeadTail::new(64, 128);
            for l in &lines {
                h.push_line(l);
            }
            prop_assert!(h.len() <= 64 + 128);
            let _ = h.into_string();
        }
    }
}
