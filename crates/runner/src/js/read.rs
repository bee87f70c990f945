//! Reading what the runners and pith's reporters wrote, in bounded memory whatever the tests
//! did: record files are read a line at a time (a line past [`LINE_BYTES`] is dropped and
//! counted), and a runner's JSON report is read with every string cut to its head and tail
//! ([`STRING_HEAD`], [`STRING_TAIL`]) before it is parsed, so a 50 MB failure message costs
//! 64 KB. pith's reporters cut their records themselves; these bounds hold when they could not.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// The longest record line read; longer ones are dropped.
pub(crate) const LINE_BYTES: usize = 4 << 20;
/// Bytes of a JSON string kept from its start...
pub(crate) const STRING_HEAD: usize = 48 << 10;
/// ...and from its end (a failure's stack is there).
pub(crate) const STRING_TAIL: usize = 16 << 10;
/// The most a capped JSON report may hold; a bigger one is unreadable (the records stand in).
pub(crate) const JSON_BYTES: usize = 256 << 20;

/// Hands each line of the file at `path` (without its newline, invalid UTF-8 replaced) to `f`.
/// Returns the number of lines dropped for being longer than [`LINE_BYTES`]; a missing file
/// has no lines.
pub(crate) fn each_line(path: &Path, mut f: impl FnMut(&str)) -> u64 {
    let Ok(file) = std::fs::File::open(path) else {
        return 0;
    };
    each_line_of(BufReader::with_capacity(64 << 10, file), &mut f)
}

fn each_line_of(mut r: impl BufRead, f: &mut dyn FnMut(&str)) -> u64 {
    let mut line: Vec<u8> = Vec::new();
    let mut too_long = false;
    let mut dropped = 0;
    loop {
        let buf = match r.fill_buf() {
            Ok([]) | Err(_) => break,
            Ok(b) => b,
        };
        let (chunk, end) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if !too_long {
            if line.len() + chunk.len() > LINE_BYTES {
                too_long = true;
                line.clear();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = end.unwrap_or(buf.len());
        r.consume(used);
        if end.is_some() {
            if too_long {
                dropped += 1;
            } else {
                f(&String::from_utf8_lossy(&line));
            }
            line.clear();
            too_long = false;
        }
    }
    if too_long {
        dropped += 1;
    } else if !line.is_empty() {
        f(&String::from_utf8_lossy(&line));
    }
    dropped
}

/// The JSON report at `path` with every string longer than [`STRING_HEAD`] +
/// [`STRING_TAIL`] bytes cut to its head and tail; `None` when it is missing, or holds more than
/// [`JSON_BYTES`] even so.
pub(crate) fn json_capped(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    cap_strings(file, STRING_HEAD, STRING_TAIL, JSON_BYTES)
}

/// One unit of a JSON string's content: a character (1 to 4 bytes) or an escape (`\n`,
/// `\u00e9`), never split.
struct Token {
    bytes: [u8; 6],
    len: u8,
}

impl Token {
    fn as_slice(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// `\uD800`..`\uDBFF` (`hi`) or `\uDC00`..`\uDFFF`: half of an escaped surrogate pair,
    /// which must not be cut from its other half.
    fn surrogate(&self, hi: bool) -> bool {
        let b = self.as_slice();
        b.len() == 6
            && b[1] == b'u'
            && b[2].eq_ignore_ascii_case(&b'd')
            && if hi {
                matches!(b[3].to_ascii_lowercase(), b'8'..=b'9' | b'a'..=b'b')
            } else {
                matches!(b[3].to_ascii_lowercase(), b'c'..=b'f')
            }
    }
}

/// Bytes from a reader, one at a time, through a buffer.
struct Bytes<R> {
    r: BufReader<R>,
}

impl<R: Read> Bytes<R> {
    fn next(&mut self) -> Option<u8> {
        let buf = self.r.fill_buf().ok()?;
        let b = *buf.first()?;
        self.r.consume(1);
        Some(b)
    }

    /// Copies bytes up to and including the next `"` straight to `out` (outside strings).
    fn copy_until_quote(&mut self, out: &mut Vec<u8>) -> bool {
        loop {
            let Ok(buf) = self.r.fill_buf() else {
                return false;
            };
            if buf.is_empty() {
                return false;
            }
            match buf.iter().position(|&b| b == b'"') {
                Some(i) => {
                    out.extend_from_slice(&buf[..=i]);
                    self.r.consume(i + 1);
                    return true;
                }
                None => {
                    let n = buf.len();
                    out.extend_from_slice(buf);
                    self.r.consume(n);
                }
            }
        }
    }

    fn token(&mut self, first: u8) -> Option<Token> {
        let mut t = Token {
            bytes: [first, 0, 0, 0, 0, 0],
            len: 1,
        };
        let more = match first {
            b'\\' => {
                let c = self.next()?;
                t.bytes[1] = c;
                t.len = 2;
                if c == b'u' {
                    4
                } else {
                    0
                }
            }
            0xF0..=0xFF => 3,
            0xE0..=0xEF => 2,
            0xC0..=0xDF => 1,
            _ => 0,
        };
        for _ in 0..more {
            let c = self.next()?;
            t.bytes[usize::from(t.len)] = c;
            t.len += 1;
        }
        Some(t)
    }
}

/// Copies the JSON text from `r`, cutting each string's content longer than `head` + `tail`
/// bytes to its first `head` and last `tail` bytes around a note of the cut. Escapes and
/// characters are never split. `None` when the result would exceed `max` bytes, or the input
/// ends inside a string.
pub(crate) fn cap_strings<R: Read>(r: R, head: usize, tail: usize, max: usize) -> Option<String> {
    let mut src = Bytes {
        r: BufReader::with_capacity(64 << 10, r),
    };
    let mut out: Vec<u8> = Vec::new();
    // Outside strings: copy through the next quote.
    while src.copy_until_quote(&mut out) {
        if out.len() > max {
            return None;
        }
        // Inside a string: its content token by token; the head goes out as it comes, the
        // rest through a ring holding the last `tail` bytes.
        let mut kept = 0usize;
        let mut last_hi = false;
        let mut spilled = false;
        let mut ring: VecDeque<u8> = VecDeque::new();
        let mut lens: VecDeque<u8> = VecDeque::new();
        let mut dropped = 0u64;
        loop {
            let b = src.next()?;
            if b == b'"' {
                break;
            }
            let t = src.token(b)?;
            let n = t.as_slice().len();
            if !spilled && kept + n <= head {
                out.extend_from_slice(t.as_slice());
                kept += n;
                last_hi = t.surrogate(true);
                continue;
            }
            spilled = true;
            ring.extend(t.as_slice());
            lens.push_back(t.len);
            while ring.len() > tail {
                let n = usize::from(lens.pop_front().unwrap_or(1));
                for _ in 0..n {
                    ring.pop_front();
                }
                dropped += n as u64;
            }
        }
        if dropped > 0 {
            // Neither side of the cut keeps half of a surrogate pair.
            if last_hi {
                out.truncate(out.len() - 6);
                dropped += 6;
            }
            if lens.front() == Some(&6) {
                let b: Vec<u8> = ring.iter().take(6).copied().collect();
                let t = Token {
                    bytes: [b[0], b[1], b[2], b[3], b[4], b[5]],
                    len: 6,
                };
                if t.surrogate(false) {
                    ring.drain(..6);
                    lens.pop_front();
                    dropped += 6;
                }
            }
            out.extend_from_slice(
                format!("\\n[... {dropped} bytes cut by pith ...]\\n").as_bytes(),
            );
        }
        out.extend(ring.iter());
        out.push(b'"');
        if out.len() > max {
            return None;
        }
    }
    if out.len() > max {
        return None;
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cap(s: &str, head: usize, tail: usize) -> Option<String> {
        cap_strings(s.as_bytes(), head, tail, 1 << 20)
    }

    #[test]
    fn long_strings_keep_head_and_tail() {
        let long = format!("{}{}", "a".repeat(100), "z".repeat(100));
        let text = format!(r#"{{"m":"{long}","n":[1,"short"]}}"#);
        let out = cap(&text, 10, 5).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let m = v["m"].as_str().unwrap();
        assert_eq!(m, "aaaaaaaaaa\n[... 185 bytes cut by pith ...]\nzzzzz");
        assert_eq!(v["n"][1], "short");
        assert_eq!(cap(r#"{"a":"x"}"#, 10, 5).unwrap(), r#"{"a":"x"}"#);
    }

    #[test]
    fn escapes_characters_and_surrogates_are_never_split() {
        for s in [
            r#""é\u00e9😀\ud83d\ude00\n\"\\é\ud83d\ude00é\u00e9\ud83d\ude00 end""#,
            r#""\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00""#,
            r#""ééééééééééééééééééééééééééééééééééé""#,
        ] {
            for head in 0..20 {
                for tail in 0..20 {
                    let out = cap(s, head, tail).unwrap();
                    assert!(
                        serde_json::from_str::<serde_json::Value>(&out).is_ok(),
                        "{head}/{tail}: {out}"
                    );
                }
            }
        }
    }

    #[test]
    fn truncated_or_oversized_input_is_none() {
        assert_eq!(cap(r#"{"a":"unterminated"#, 10, 5), None);
        assert_eq!(cap_strings(&b"[1,2,3,4,5,6,7,8,9]"[..], 4, 4, 5), None);
    }

    #[test]
    fn lines_are_bounded() {
        let mut seen = Vec::new();
        let long = "x".repeat(LINE_BYTES + 1);
        let text = format!("a\n{long}\nb\nlast");
        let dropped = each_line_of(text.as_bytes(), &mut |l| seen.push(l.to_owned()));
        assert_eq!(dropped, 1);
        assert_eq!(seen, ["a", "b", "last"]);
    }

    proptest::proptest! {
        #[test]
        fn never_panics_and_keeps_valid_json_valid(
            s in proptest::collection::vec(".{0,30}", 0..6),
            head in 0usize..12,
            tail in 0usize..12,
        ) {
            let text = serde_json::to_string(&s).unwrap();
            let out = cap(&text, head, tail).unwrap();
            let v: Vec<String> = serde_json::from_str(&out).unwrap();
            proptest::prop_assert_eq!(v.len(), s.len());
        }

        #[test]
        fn arbitrary_bytes_never_panic(b in proptest::collection::vec(proptest::num::u8::ANY, 0..200)) {
            let _ = cap_strings(&b[..], 3, 3, 1 << 16);
        }
    }
}
