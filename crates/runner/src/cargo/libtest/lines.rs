//! What one line of a test binary's output says in libtest's words: `running N tests`, a
//! result line (whole, or cut by another writer between `test NAME ... ` and its verdict), a
//! failed test's section header, the closing `test result:` counts, a `--list` entry. Kept
//! apart from the reading so the other readers of libtest's text (nextest's per-test output,
//! `--list`) take the same words without taking a reader's state.

use super::{Outcome, Totals};

/// `test NAME ... ` lines awaiting their verdict, at most.
const MAX_PENDING: usize = 1000;

/// What a line (or what follows a verdict on it) says of libtest's result lines, `pending`
/// holding the `test NAME ... ` lines whose verdict is still to come, latest last.
pub(super) enum Piece<'l> {
    /// A test's verdict, and the text after it on the line (another writer's).
    Verdict(String, Outcome, &'l str),
    /// `test NAME ... ` then another writer's `test X ... `: NAME's verdict comes later, and
    /// what follows is read as a line of its own.
    Then(&'l str),
    /// `test NAME ... ` then another writer's text, which is this text.
    Cut(&'l str),
}

impl<'l> Piece<'l> {
    pub(super) fn read(line: &'l str, pending: &mut Vec<String>) -> Option<Piece<'l>> {
        let Some((name, after)) = started_line(line) else {
            // A verdict alone (or before another writer's text) ends the latest cut line: a
            // child's cut line ends before its parent's.
            let (o, rest) = verdict_prefix(line).filter(|_| !pending.is_empty())?;
            return pending.pop().map(|name| Piece::Verdict(name, o, rest));
        };
        if let Some((o, rest)) = verdict_prefix(after) {
            pending.retain(|p| *p != name);
            return Some(Piece::Verdict(name, o, rest));
        }
        // A name with ` ... test ` in it is not worth misreading every cut line as one.
        let cut_by_another = started_line(after).is_some();
        if !cut_by_another {
            if let Some((name, o)) = result_line(line) {
                // A name with ` ... ` in it (a harness of the binary's own names its tests).
                return Some(Piece::Verdict(name, o, ""));
            }
        }
        if pending.len() < MAX_PENDING {
            pending.push(name);
        }
        Some(if cut_by_another {
            Piece::Then(after)
        } else {
            Piece::Cut(after)
        })
    }
}

pub fn running_count(line: &str) -> Option<u32> {
    let rest = line.strip_prefix("running ")?;
    let n = rest
        .strip_suffix(" tests")
        .or_else(|| rest.strip_suffix(" test"))?;
    n.parse().ok()
}

/// `---- NAME stdout ----`.
pub(super) fn section_header(line: &str) -> Option<&str> {
    line.strip_prefix("---- ")?.strip_suffix(" stdout ----")
}

/// `test result: ok. 2 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; ...`.
pub fn totals_line(line: &str) -> Option<Totals> {
    let rest = line.strip_prefix("test result: ")?;
    let (_, counts) = rest.split_once(". ")?;
    let mut t = Totals::default();
    let mut any = false;
    for part in counts.split("; ") {
        let Some((n, what)) = part.trim().split_once(' ') else {
            continue;
        };
        let Ok(n) = n.parse::<u32>() else { continue };
        let slot = match what {
            "passed" => &mut t.passed,
            "failed" => &mut t.failed,
            "ignored" => &mut t.ignored,
            "measured" => &mut t.measured,
            _ => continue,
        };
        *slot = n;
        any = true;
    }
    any.then_some(t)
}

/// A verdict as libtest writes it after `test NAME ... `.
fn verdict(v: &str) -> Option<Outcome> {
    match v.trim() {
        "ok" => Some(Outcome::Passed),
        "FAILED" => Some(Outcome::Failed),
        v if v == "ignored" || v.starts_with("ignored, ") => Some(Outcome::Ignored),
        v if v.starts_with("bench:") => Some(Outcome::Passed),
        _ => None,
    }
}

/// A verdict at the start of `s` and what follows it on the line: `ok` and `FAILED` may be
/// followed by another writer's text; `ignored, REASON` and `bench: ...` run to the end.
fn verdict_prefix(s: &str) -> Option<(Outcome, &str)> {
    if let Some(o) = verdict(s) {
        return Some((o, ""));
    }
    [("ok", Outcome::Passed), ("FAILED", Outcome::Failed)]
        .into_iter()
        .find_map(|(w, o)| s.strip_prefix(w).map(|rest| (o, rest)))
}

/// The name of a test in `test NAME - should panic`-style forms.
fn test_name(name: &str) -> &str {
    let name = name.trim();
    for mode in [" - should panic", " - compile fail", " - compile"] {
        if let Some(n) = name.strip_suffix(mode) {
            return n;
        }
    }
    name
}

/// `test NAME ... ok` and its variants (`FAILED`, `ignored`, `ignored, reason`, a
/// ` - should panic` mode suffix after the name).
pub fn result_line(line: &str) -> Option<(String, Outcome)> {
    let rest = line.strip_prefix("test ")?;
    let (name, v) = rest.rsplit_once(" ... ")?;
    let outcome = verdict(v)?;
    let name = test_name(name);
    (!name.is_empty()).then(|| (name.to_owned(), outcome))
}

/// Where in `lines` (one test process's output) libtest said `name` passed: its
/// `test NAME ... ok`, or the `ok` that ended its `test NAME ... ` after other text.
pub fn passed_at(lines: &[&str], name: &str) -> Option<usize> {
    let mut at = None;
    let mut pending = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let mut l: &str = l;
        while let Some(piece) = Piece::read(l, &mut pending) {
            l = match piece {
                Piece::Verdict(n, o, rest) => {
                    if n == name && o == Outcome::Passed {
                        at = Some(i);
                    } else if n == name {
                        // The process runs this one test: a `FAILED` alone may be the test's own
                        // text, and libtest's `ok` for it may still come.
                        pending.push(n);
                    }
                    rest
                }
                Piece::Then(next) => next,
                Piece::Cut(_) => break,
            };
        }
    }
    at
}

/// `test NAME ... ` followed by no verdict (another writer's text, or nothing yet): the name
/// and what followed.
fn started_line(line: &str) -> Option<(String, &str)> {
    let rest = line.strip_prefix("test ")?;
    let (name, after) = rest.split_once(" ... ")?;
    let name = test_name(name);
    (!name.is_empty() && !name.contains(" ... ")).then(|| (name.to_owned(), after))
}

/// `--list --format terse` output: `NAME: test` lines.
pub fn list(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| l.trim_end().strip_suffix(": test"))
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_single_tests_pass_is_found_past_another_writers_lines() {
        let at = |text: &str| passed_at(&text.lines().collect::<Vec<_>>(), "t::a");
        assert_eq!(at("running 1 test\ntest t::a ... ok"), Some(1));
        assert_eq!(at("running 1 test\ntest t::a ... \nforged\nok"), Some(3));
        assert_eq!(
            at("running 1 test\ntest t::a ... test x ... FAILED\nok"),
            Some(2)
        );
        assert_eq!(
            at("running 1 test\ntest t::a ... \ntest x ... ok\nok"),
            Some(3)
        );
        assert_eq!(at("running 1 test\ntest t::a ... \nFAILED"), None);
        assert_eq!(at("running 1 test\ntest t::a ... \nFAILED\nok"), Some(3));
        assert_eq!(at("running 1 test\ntest t::a ... \ntest x ... \nok"), None);
    }

    #[test]
    fn result_line_variants() {
        assert_eq!(
            result_line("test a::b - should panic ... ok"),
            Some(("a::b".into(), Outcome::Passed))
        );
        assert_eq!(
            result_line("test a ... ignored, needs network"),
            Some(("a".into(), Outcome::Ignored))
        );
        assert_eq!(
            result_line("test src/lib.rs - f (line 3) - compile fail ... ok"),
            Some(("src/lib.rs - f (line 3)".into(), Outcome::Passed))
        );
        assert_eq!(result_line("test result: ok. 1 passed"), None);
        assert_eq!(
            result_line("test a has been running for over 60 seconds"),
            None
        );
        assert_eq!(
            totals_line("test result: FAILED. 2 passed; 1 failed; 3 ignored; 0 measured; 5 filtered out; finished in 0.32s"),
            Some(Totals { passed: 2, failed: 1, ignored: 3, measured: 0 })
        );
        assert_eq!(totals_line("test result: ok"), None);
    }

    #[test]
    fn terse_list() {
        assert_eq!(
            list("tests::quick: test\ntests::sleeps_forever: test\nbench_x: bench\n"),
            vec![
                "tests::quick".to_owned(),
                "tests::sleeps_forever".to_owned()
            ]
        );
    }
}
