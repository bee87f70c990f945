//! What a failed test printed and what cargo printed around it, read: libtest's notes on a
//! `#[should_panic]` test, a doctest id's block, and the progress lines that never explain a
//! bad ending.

use super::command::{is_doctest_name, split_id};
use super::panic;

/// libtest's notes on a `#[should_panic]` test, as a message and the test's location when
/// given: `note: test did not panic as expected at src/lib.rs:16:8`, or `note: panic did not
/// contain expected string` followed by `panic message: ...` and `expected substring: ...`.
pub(super) fn should_panic_note(output: &str) -> Option<(String, Option<(String, u32)>)> {
    let mut lines = output.lines().map(str::trim);
    while let Some(l) = lines.next() {
        if let Some(rest) = l.strip_prefix("note: test did not panic as expected") {
            let at = rest
                .trim()
                .strip_prefix("at ")
                .and_then(panic::parse_location);
            return Some(("test did not panic as expected".to_owned(), at));
        }
        if l.starts_with("note: panic did not contain expected string") {
            let parts: Vec<&str> = lines
                .by_ref()
                .take(2)
                .filter(|p| p.starts_with("panic message:") || p.starts_with("expected substring:"))
                .collect();
            let m = if parts.is_empty() {
                "panic did not contain expected string".to_owned()
            } else {
                format!(
                    "panic did not contain expected string ({})",
                    parts.join(", ")
                )
            };
            return Some((m, None));
        }
    }
    None
}

/// The file and line of a doctest's block, from its id (`pkg::doc src/lib.rs - add (line 3)`).
pub(super) fn doctest_block(id: &str) -> Option<(&str, u32)> {
    let (_, name) = split_id(id)?;
    if !is_doctest_name(name) {
        return None;
    }
    let (file, _) = name.split_once(" - ")?;
    let line = name
        .rsplit_once("(line ")?
        .1
        .trim_end_matches(')')
        .trim()
        .parse()
        .ok()?;
    Some((file, line))
}

/// cargo's and nextest's progress lines: they say the build and the passing tests went fine,
/// which is never why a run ended badly, and would push the explanation out of the tail.
pub(super) fn is_progress(line: &str) -> bool {
    let t = line.trim_start();
    const PREFIXES: &[&str] = &[
        "Compiling ",
        "Finished ",
        "Fresh ",
        "Checking ",
        "Blocking waiting",
        "Nextest run ID",
        "Starting ",
        "PASS [",
        "SKIP [",
        "SLOW [",
        "Running ",
        "Doc-tests ",
        "────",
    ];
    PREFIXES.iter().any(|p| t.starts_with(p)) || t.starts_with("test ") && t.ends_with(" ... ok")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_doctest_is_located_at_its_block() {
        assert_eq!(
            doctest_block("itoa::doc src/lib.rs - Buffer (line 67)"),
            Some(("src/lib.rs", 67))
        );
        assert_eq!(
            doctest_block("a::doc src/x y.rs - m::f (line 3)"),
            Some(("src/x y.rs", 3))
        );
        assert_eq!(doctest_block("a tests::it_works"), None);
        assert_eq!(doctest_block("a::doc src/lib.rs - f (line x)"), None);
    }

    #[test]
    fn progress_lines_are_not_evidence() {
        for l in [
            "   Compiling hang v0.1.0 (.)",
            "        PASS [   0.025s] (1/2) hang tests::quick",
            "test a::b ... ok",
            "────────────",
        ] {
            assert!(is_progress(l), "{l}");
        }
        for l in [
            "     SIGTERM [   3.597s] (2/2) hang tests::sleeps_forever",
            "error: test run failed",
            "test a::b ... FAILED",
        ] {
            assert!(!is_progress(l), "{l}");
        }
    }

    #[test]
    fn should_panic_notes_become_the_message() {
        let (m, at) =
            should_panic_note("note: test did not panic as expected at src/lib.rs:16:8").unwrap();
        assert_eq!(m, "test did not panic as expected");
        assert_eq!(at, Some(("src/lib.rs".into(), 16)));
        let out = "thread 't' panicked at src/lib.rs:13:26:\nbang\nnote: panic did not contain expected string\n      panic message: \"bang\"\n expected substring: \"boom\"\n";
        let (m, _) = should_panic_note(out).unwrap();
        assert_eq!(
            m,
            "panic did not contain expected string (panic message: \"bang\", expected substring: \"boom\")"
        );
        assert!(should_panic_note("thread 't' panicked at src/lib.rs:1:1:\nboom").is_none());
    }
}
