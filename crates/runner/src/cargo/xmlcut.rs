//! nextest's JUnit report, read in bounded memory. nextest stores each failing test's whole
//! output in it, so a test that prints 100 MB makes a 100 MB report. This reads the file as a
//! stream and keeps every text run (element text, CDATA, attribute values) as its head and its
//! tail around a note of what was left out, so the panic a test prints last survives a log
//! of any size; the markup itself is kept as it is. Comments are dropped. Never panics.

use std::io::Read;
use std::path::Path;

/// Bytes kept from the start and from the end of each text run.
pub const RUN_HEAD: usize = 16 * 1024;
pub const RUN_TAIL: usize = 48 * 1024;
/// Input read at most: past this the report is taken as truncated.
const MAX_INPUT: u64 = 4 << 30;

/// The report at `path`, each text run cut to its head and tail; `None` when it cannot be read
/// (absent, not a regular file).
pub fn read(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let mut cut = Cutter::new(RUN_HEAD, RUN_TAIL);
    let mut reader = file.take(MAX_INPUT);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => cut.feed(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    Some(cut.finish())
}

/// Cuts `xml` as [`read`] does (for text already in memory).
#[cfg(test)]
pub fn cut(xml: &str, head: usize, tail: usize) -> String {
    let mut c = Cutter::new(head, tail);
    c.feed(xml.as_bytes());
    c.finish()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Text,
    /// After `<`: collecting enough to tell a comment or CDATA from a tag.
    Open,
    Tag,
    Attr(u8),
    Cdata,
    Comment,
}

struct Cutter {
    out: Vec<u8>,
    state: State,
    /// What follows `<` so far, in [`State::Open`].
    pre: Vec<u8>,
    run: Run,
    /// The last bytes seen in a comment or CDATA section, to find its end.
    last: [u8; 3],
}

impl Cutter {
    fn new(head: usize, tail: usize) -> Self {
        Cutter {
            out: Vec::new(),
            state: State::Text,
            pre: Vec::new(),
            run: Run::new(head, tail),
            last: [0; 3],
        }
    }

    fn feed(&mut self, mut bytes: &[u8]) {
        while let Some(&first) = bytes.first() {
            // Text runs are taken whole up to the byte that ends them: most of a big report.
            let end = match self.state {
                State::Text => Some(b'<'),
                State::Attr(q) => Some(q),
                _ => None,
            };
            if let Some(end) = end {
                let n = bytes.iter().position(|&b| b == end).unwrap_or(bytes.len());
                if n > 0 {
                    self.run.push_slice(&bytes[..n]);
                    bytes = &bytes[n..];
                    continue;
                }
            }
            self.byte(first);
            bytes = &bytes[1..];
        }
    }

    fn byte(&mut self, b: u8) {
        match self.state {
            State::Text => {
                if b == b'<' {
                    self.run.flush(&mut self.out);
                    self.pre.clear();
                    self.state = State::Open;
                } else {
                    self.run.push(b);
                }
            }
            State::Open => {
                self.pre.push(b);
                const CDATA: &[u8] = b"![CDATA[";
                const COMMENT: &[u8] = b"!--";
                if self.pre == CDATA {
                    self.out.extend_from_slice(b"<![CDATA[");
                    self.last = [0; 3];
                    self.state = State::Cdata;
                } else if self.pre == COMMENT {
                    self.last = [0; 3];
                    self.state = State::Comment;
                } else if !CDATA.starts_with(&self.pre) && !COMMENT.starts_with(&self.pre) {
                    self.out.push(b'<');
                    self.state = State::Tag;
                    let pre = std::mem::take(&mut self.pre);
                    for p in pre {
                        self.byte(p);
                    }
                }
            }
            State::Tag => {
                self.out.push(b);
                match b {
                    b'"' | b'\'' => self.state = State::Attr(b),
                    b'>' => self.state = State::Text,
                    _ => {}
                }
            }
            State::Attr(q) => {
                if b == q {
                    self.run.flush(&mut self.out);
                    self.out.push(q);
                    self.state = State::Tag;
                } else {
                    self.run.push(b);
                }
            }
            State::Cdata => {
                self.shift(b);
                self.run.push(b);
                if &self.last == b"]]>" {
                    self.run.drop_last(3);
                    self.run.flush_raw(&mut self.out);
                    self.out.extend_from_slice(b"]]>");
                    self.state = State::Text;
                }
            }
            State::Comment => {
                self.shift(b);
                if &self.last == b"-->" {
                    self.state = State::Text;
                }
            }
        }
    }

    fn shift(&mut self, b: u8) {
        self.last = [self.last[1], self.last[2], b];
    }

    fn finish(mut self) -> String {
        match self.state {
            State::Text | State::Attr(_) => self.run.flush(&mut self.out),
            State::Cdata => self.run.flush_raw(&mut self.out),
            _ => {}
        }
        String::from_utf8_lossy(&self.out).into_owned()
    }
}

/// One text run: its head, its tail, and how much fell between.
struct Run {
    head: Vec<u8>,
    /// The run's last bytes: up to twice the bound, cut back to it when it grows past (bulk
    /// copies, not a byte-wise ring).
    tail: Vec<u8>,
    head_cap: usize,
    tail_cap: usize,
    dropped: u64,
}

impl Run {
    fn new(head_cap: usize, tail_cap: usize) -> Self {
        Run {
            head: Vec::new(),
            tail: Vec::new(),
            head_cap,
            tail_cap,
            dropped: 0,
        }
    }

    fn push(&mut self, b: u8) {
        self.push_slice(&[b]);
    }

    fn push_slice(&mut self, mut s: &[u8]) {
        if self.tail.is_empty() && self.dropped == 0 && self.head.len() < self.head_cap {
            let n = (self.head_cap - self.head.len()).min(s.len());
            self.head.extend_from_slice(&s[..n]);
            s = &s[n..];
        }
        if s.is_empty() {
            return;
        }
        if s.len() >= self.tail_cap {
            self.dropped += (self.tail.len() + s.len() - self.tail_cap) as u64;
            self.tail.clear();
            self.tail.extend_from_slice(&s[s.len() - self.tail_cap..]);
            return;
        }
        self.tail.extend_from_slice(s);
        if self.tail.len() > 2 * self.tail_cap.max(1) {
            self.trim();
        }
    }

    /// Cuts the tail back to its bound.
    fn trim(&mut self) {
        let over = self.tail.len().saturating_sub(self.tail_cap);
        self.tail.drain(..over);
        self.dropped += over as u64;
    }

    /// Forgets the last `n` bytes (a CDATA section's `]]>`).
    fn drop_last(&mut self, n: usize) {
        for _ in 0..n {
            if self.tail.pop().is_none() {
                self.head.pop();
            }
        }
    }

    /// Writes the run as XML text: a cut never splits an entity (`&amp;`) or a character.
    fn flush(&mut self, out: &mut Vec<u8>) {
        self.write(out, true);
    }

    /// Writes the run as CDATA content: entities mean nothing there.
    fn flush_raw(&mut self, out: &mut Vec<u8>) {
        self.write(out, false);
    }

    fn write(&mut self, out: &mut Vec<u8>, entities: bool) {
        self.trim();
        let tail = std::mem::take(&mut self.tail);
        if self.dropped == 0 {
            out.append(&mut self.head);
            out.extend_from_slice(&tail);
            return;
        }
        let mut head = std::mem::take(&mut self.head);
        let mut lost = self.dropped;
        // The head must not end inside an entity or a character.
        if entities {
            if let Some(amp) = head.iter().rposition(|&c| c == b'&') {
                if !head[amp..].contains(&b';') {
                    lost += (head.len() - amp) as u64;
                    head.truncate(amp);
                }
            }
        }
        let valid = match std::str::from_utf8(&head) {
            Ok(_) => head.len(),
            Err(e) => e.valid_up_to(),
        };
        lost += (head.len() - valid) as u64;
        head.truncate(valid);
        // Nor may the tail start inside one.
        let mut start = 0;
        if entities {
            let near = &tail[..tail.len().min(12)];
            if let Some(semi) = near.iter().position(|&c| c == b';') {
                if !near[..semi].contains(&b'&') {
                    start = semi + 1;
                }
            }
        }
        while start < tail.len() && tail[start] & 0xC0 == 0x80 {
            start += 1;
        }
        lost += start as u64;
        out.extend_from_slice(&head);
        out.extend_from_slice(format!("\n[… {lost} bytes left out …]\n").as_bytes());
        out.extend_from_slice(&tail[start..]);
        self.dropped = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn small_documents_pass_unchanged() {
        let x = r#"<?xml version="1.0"?><a b="1 &amp; 2"><c>text &lt;x&gt;</c><d/><![CDATA[<raw>]]></a>"#;
        assert_eq!(cut(x, 100, 100), x);
    }

    #[test]
    fn comments_are_dropped() {
        assert_eq!(cut("<a><!-- <b> --->x</a>", 10, 10), "<a>x</a>");
    }

    #[test]
    fn long_texts_keep_head_and_tail_and_stay_xml() {
        let log = "line &lt;&amp;&gt; é\n".repeat(5000);
        let x = format!(
            "<testsuite><testcase name=\"{}\"><system-err>{log}panicked: the reason &amp; more</system-err></testcase></testsuite>",
            "é&amp;".repeat(100)
        );
        let s = cut(&x, 50, 60);
        assert!(s.len() < 600, "{s}");
        assert!(
            s.contains("panicked: the reason &amp; more</system-err>"),
            "{s}"
        );
        assert!(s.starts_with("<testsuite><testcase name=\""), "{s}");
        let r = crate::junit::read(&s).unwrap();
        assert!(r.complete);
        let c = r.cases().next().unwrap();
        assert!(c.stderr.starts_with("line <&> é\n"), "{}", c.stderr);
        assert!(
            c.stderr.ends_with("panicked: the reason & more"),
            "{}",
            c.stderr
        );
        assert!(c.stderr.contains("bytes left out"));
    }

    #[test]
    fn long_cdata_is_cut_too() {
        let x = format!("<a><![CDATA[{}END]]></a>", "x".repeat(1000));
        let s = cut(&x, 10, 10);
        assert!(s.starts_with("<a><![CDATA[xxxxxxxxxx\n"), "{s}");
        assert!(s.ends_with("xEND]]></a>"), "{s}");
        assert!(s.len() < 90, "{s}");
    }

    #[test]
    fn unreadable_paths_are_none() {
        assert!(read(Path::new("/nonexistent/junit.xml")).is_none());
        assert!(read(Path::new("/")).is_none());
    }

    proptest! {
        #[test]
        fn bulk_and_bytewise_reading_agree(s in "(?s)[<>&;\"'!\\[\\]a-zé-]{0,400}", split in 0usize..400) {
            let mut bulk = Cutter::new(8, 8);
            let at = split.min(s.len());
            bulk.feed(&s.as_bytes()[..at]);
            bulk.feed(&s.as_bytes()[at..]);
            let mut bytewise = Cutter::new(8, 8);
            for &b in s.as_bytes() {
                bytewise.byte(b);
            }
            prop_assert_eq!(bulk.finish(), bytewise.finish());
        }

        #[test]
        fn never_panics_and_stays_bounded(s in "(?s)[<>&;\"'!\\[\\]a-zé-]{0,400}") {
            let out = cut(&s, 8, 8);
            // Markup is kept; text runs shrink to head + tail + note.
            prop_assert!(out.len() <= s.len() + 64 * (s.matches(['<', '"', '\'']).count() + 1));
        }
    }
}
