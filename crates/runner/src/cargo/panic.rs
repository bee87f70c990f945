//! A Rust panic as the standard library prints it: `thread 'NAME' panicked at FILE:LINE:COL:`
//! followed by the message, then (with `RUST_BACKTRACE=1`) a `stack backtrace:` block.
//! Best effort on any text: never panics, returns what it could read.

use crate::text;

/// One backtrace frame as printed: the symbol and, when debug info had it, where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawFrame {
    pub symbol: String,
    pub file: Option<String>,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Panic {
    /// First line of the panic message, `left`/`right` folded in for assertions, cut.
    pub message: String,
    /// The whole message, every line (`left:`/`right:` included), as printed.
    pub text: String,
    /// `FILE:LINE` of the panic as given to rustc (workspace-relative for members).
    pub location: Option<(String, u32)>,
    /// Innermost first, as printed.
    pub frames: Vec<RawFrame>,
}

/// The first panic in `out` (a test's captured output), if any.
pub fn parse(out: &str) -> Option<Panic> {
    let lines: Vec<&str> = out.lines().collect();
    let (at, rest) = lines.iter().enumerate().find_map(|(i, l)| {
        let l = l.trim_start();
        if !l.starts_with("thread '") {
            return None;
        }
        let k = l.find(" panicked at ")?;
        Some((i, &l[k + " panicked at ".len()..]))
    })?;
    let mut panic = Panic::default();
    let body: Vec<&str>;
    if let Some(quoted) = rest.strip_prefix('\'') {
        // Before Rust 1.73: panicked at 'MESSAGE', FILE:LINE:COL (the message may span lines).
        let mut msg = String::from(quoted);
        let mut end = at;
        let mut loc = None;
        loop {
            if let Some(k) = msg.rfind("', ") {
                if let Some(l) = parse_location(&msg[k + 3..]) {
                    loc = Some(l);
                    msg.truncate(k);
                    break;
                }
            }
            end += 1;
            match lines.get(end) {
                Some(l) if end - at < 50 => {
                    msg.push('\n');
                    msg.push_str(l);
                }
                _ => break,
            }
        }
        panic.location = loc;
        panic.message = fold_message(&msg.lines().collect::<Vec<_>>());
        panic.text = msg;
        body = lines.get(end + 1..).unwrap_or(&[]).to_vec();
    } else {
        panic.location = parse_location(rest.trim_end().trim_end_matches(':'));
        let after = lines.get(at + 1..).unwrap_or(&[]);
        let msg_end = after
            .iter()
            .position(|l| is_message_end(l))
            .unwrap_or(after.len());
        panic.message = fold_message(&after[..msg_end]);
        panic.text = after[..msg_end].join("\n");
        body = after[msg_end..].to_vec();
    }
    panic.frames = parse_backtrace(&body);
    Some(panic)
}

fn is_message_end(l: &str) -> bool {
    let t = l.trim_start();
    t.starts_with("stack backtrace:")
        || t.starts_with("note: run with `RUST_BACKTRACE")
        || t.starts_with("note: Some details are omitted")
        || (t.starts_with("thread '") && t.contains(" panicked at "))
}

/// `FILE:LINE:COL` (or `FILE:LINE`) into file and line.
pub fn parse_location(s: &str) -> Option<(String, u32)> {
    let s = s.trim();
    let mut parts = s.rsplitn(3, ':');
    let last = parts.next()?;
    let mid = parts.next()?;
    match (mid.parse::<u32>(), last.parse::<u32>()) {
        (Ok(line), Ok(_col)) => {
            let file = parts.next()?;
            (!file.is_empty()).then(|| (file.to_owned(), line))
        }
        (Err(_), Ok(line)) => (!mid.is_empty()).then(|| (mid.to_owned(), line)),
        _ => None,
    }
}

/// The message's first line; for `assert_eq!`/`assert_ne!` the `left:`/`right:` lines folded in,
/// or, when they are long, where they first differ.
fn fold_message(lines: &[&str]) -> String {
    let mut it = lines.iter().map(|l| l.trim()).skip_while(|l| l.is_empty());
    let Some(first) = it.next() else {
        return String::new();
    };
    let mut msg = first.to_owned();
    if first.starts_with("assertion") {
        let mut sides = Vec::new();
        let (mut left, mut right) = (None, None);
        for l in it.take(6) {
            for side in ["left:", "right:"] {
                if let Some(v) = l.strip_prefix(side) {
                    let v = v.trim().trim_end_matches(',');
                    sides.push(format!("{side} {v}"));
                    *(if side == "left:" {
                        &mut left
                    } else {
                        &mut right
                    }) = Some(v);
                }
            }
        }
        let differ = left
            .zip(right)
            .filter(|_| first.contains("left == right"))
            .and_then(|(l, r)| crate::diff::first_difference(l, r));
        if let Some(at) = differ {
            msg = format!("{msg} ({at})");
        } else if !sides.is_empty() {
            msg = format!("{msg} ({})", sides.join(", "));
        }
    }
    text::cut_chars(&text::strip_ansi(&msg), text::MESSAGE_CHARS).into_owned()
}

/// Frames of a `stack backtrace:` block, innermost first, as printed. Frames without a
/// location (no debug info) are kept with `file: None`.
fn parse_backtrace(lines: &[&str]) -> Vec<RawFrame> {
    let Some(start) = lines
        .iter()
        .position(|l| l.trim_start().starts_with("stack backtrace:"))
    else {
        return Vec::new();
    };
    let mut frames: Vec<RawFrame> = Vec::new();
    for l in &lines[start + 1..] {
        let t = l.trim();
        if let Some(loc) = t.strip_prefix("at ") {
            if let (Some(f), Some((file, line))) = (frames.last_mut(), parse_location(loc)) {
                if f.file.is_none() {
                    f.file = Some(file);
                    f.line = line;
                }
            }
            continue;
        }
        let Some((num, sym)) = t.split_once(':') else {
            break;
        };
        if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
            break;
        }
        let mut sym = sym.trim();
        // RUST_BACKTRACE=full prints `0x55d4c0a1b2c3 - symbol`.
        if let Some((addr, s)) = sym.split_once(" - ") {
            if addr.starts_with("0x") {
                sym = s.trim();
            }
        }
        frames.push(RawFrame {
            symbol: sym.to_owned(),
            file: None,
            line: 0,
        });
        if frames.len() >= 200 {
            break;
        }
    }
    frames
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const MODERN: &str = "
thread 'tests::off_by_one' (12237) panicked at src/lib.rs:11:5:
assertion `left == right` failed
  left: 4
 right: 5
stack backtrace:
   0: __rustc::rust_begin_unwind
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/std/src/panicking.rs:689:5
   1: core::panicking::panic_fmt
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs:80:14
   2: core::panicking::assert_failed_inner
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs:439:17
   3: core::panicking::assert_failed::<i32, i32>
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs:394:5
   4: single::check_sum
             at ./src/lib.rs:11:5
   5: single::tests::off_by_one
             at ./src/lib.rs:34:9
   6: single::tests::off_by_one::{{closure}}
             at ./src/lib.rs:33:20
   7: core::ops::function::FnOnce::call_once
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/ops/function.rs:250:5
note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.
";

    /// From a real `cargo test` of tests/fixtures/rust/long_equal.
    const LONG_EQUAL: &str = "
thread 'tests::squares_of_forty' (405563) panicked at src/lib.rs:20:9:
assertion `left == right` failed: squares
  left: [0, 1, 4, 9, 16, 25, 36, 49, 64, 81, 100, 121, 144, 169, 196, 225, 256, 290, 324, 361, 400, 441]
 right: [0, 1, 4, 9, 16, 25, 36, 49, 64, 81, 100, 121, 144, 169, 196, 225, 256, 289, 324, 361, 400, 441]
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
";

    #[test]
    fn long_operands_are_told_by_their_first_difference() {
        let p = parse(LONG_EQUAL).unwrap();
        assert_eq!(
            p.message,
            "assertion `left == right` failed: squares (differ at [17]: left … 225, 256, 290, 324, 361, 40… right … 225, 256, 289, 324, 361, 40…)"
        );
        assert_eq!(p.text.lines().count(), 3, "every line: {}", p.text);
        assert!(p.text.ends_with("289, 324, 361, 400, 441]"));
        let ne = LONG_EQUAL.replace("left == right", "left != right");
        assert!(
            parse(&ne).unwrap().message.contains("(left: [0, 1,"),
            "assert_ne! has no difference to show"
        );
    }

    #[test]
    fn modern_assert_eq() {
        let p = parse(MODERN).unwrap();
        assert_eq!(
            p.message,
            "assertion `left == right` failed (left: 4, right: 5)"
        );
        assert_eq!(p.location, Some(("src/lib.rs".into(), 11)));
        assert_eq!(p.frames.len(), 8);
        assert_eq!(p.frames[4].symbol, "single::check_sum");
        assert_eq!(p.frames[4].file.as_deref(), Some("./src/lib.rs"));
        assert_eq!(p.frames[4].line, 11);
        assert_eq!(p.frames[6].symbol, "single::tests::off_by_one::{{closure}}");
    }

    #[test]
    fn without_thread_id_and_custom_message() {
        let p = parse(
            "thread 'case_01' panicked at src/lib.rs:6:5:\n\
             assertion `left == right` failed: bad checksum\n  left: 2\n right: 1\n\
             note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
        )
        .unwrap();
        assert_eq!(
            p.message,
            "assertion `left == right` failed: bad checksum (left: 2, right: 1)"
        );
        assert!(p.frames.is_empty());
    }

    #[test]
    fn plain_message_first_line() {
        let p = parse("thread 'tests::bad_addr' (1) panicked at crates/a/src/lib.rs:2:15:\nnot a port: ParseIntError { kind: Empty }\nsecond\n").unwrap();
        assert_eq!(p.message, "not a port: ParseIntError { kind: Empty }");
        assert_eq!(p.location, Some(("crates/a/src/lib.rs".into(), 2)));
    }

    #[test]
    fn pre_1_73_form() {
        let p = parse(
            "thread 'tests::t' panicked at 'assertion failed: `(left == right)`\n  left: `4`,\n right: `5`', src/lib.rs:11:5\nnote: run with `RUST_BACKTRACE=1`\n",
        )
        .unwrap();
        assert_eq!(
            p.message,
            "assertion failed: `(left == right)` (left: `4`, right: `5`)"
        );
        assert_eq!(p.location, Some(("src/lib.rs".into(), 11)));
        let p = parse("thread 'main' panicked at 'boom', src/main.rs:2:5\n").unwrap();
        assert_eq!(p.message, "boom");
        assert_eq!(p.location, Some(("src/main.rs".into(), 2)));
    }

    #[test]
    fn full_backtrace_addresses() {
        let p = parse(
            "thread 'x' panicked at src/lib.rs:1:1:\nboom\nstack backtrace:\n   0:     0x55d4c0a1b2c3 - a::f\n                               at ./src/lib.rs:3:5\n   1:     0x55d4c0a1b2c4 - <unknown>\n",
        )
        .unwrap();
        assert_eq!(p.frames[0].symbol, "a::f");
        assert_eq!(p.frames[0].line, 3);
        assert_eq!(p.frames[1].file, None);
    }

    #[test]
    fn no_panic() {
        assert_eq!(parse("Error: Custom { kind: Other }\n"), None);
        assert_eq!(parse(""), None);
    }

    #[test]
    fn locations() {
        assert_eq!(parse_location("a.rs:3:4"), Some(("a.rs".into(), 3)));
        assert_eq!(parse_location("a.rs:3"), Some(("a.rs".into(), 3)));
        assert_eq!(parse_location("C:x.rs:3:4"), Some(("C:x.rs".into(), 3)));
        assert_eq!(parse_location(":3:4"), None);
        assert_eq!(parse_location("nope"), None);
    }

    proptest! {
        #[test]
        fn never_panics_on_garbage(s in "(?s).{0,2000}") {
            let _ = parse(&s);
        }

        #[test]
        fn never_panics_on_truncation(cut in 0usize..2000) {
            let s: String = MODERN.chars().take(cut).collect();
            if let Some(p) = parse(&s) {
                prop_assert!(p.message.chars().count() <= text::MESSAGE_CHARS + 1);
            }
        }

        #[test]
        fn never_panics_on_panic_shaped_garbage(a in "(?s).{0,300}", b in "[0-9:' ,]{0,20}") {
            let s = format!("thread 'x' panicked at '{a}', {b}\n{a}");
            let _ = parse(&s);
            let s = format!("thread 'x' panicked at {b}:\n{a}\nstack backtrace:\n{b}{a}");
            let _ = parse(&s);
        }
    }
}
