//! What `ctest -V` prints, and the GoogleTest console output inside it.
//!
//! ctest announces each test (`Start 3: Sum.Bad`), prefixes every line the test prints with its
//! number (`3: [ RUN      ] Sum.Bad`), and ends it with a result line
//! (` 3/12 Test  #3: Sum.Bad ....***Failed    0.04 sec`, `***Exception: SegFault`,
//! `Subprocess aborted***Exception:`, `***Timeout`, `***Not Run (Disabled)`), then its totals
//! (`67% tests passed, 1 tests failed out of 3`). Verbose mode streams the output as it comes,
//! so a run killed at pith's deadline or a binary that crashed still says which gtest test was
//! running: the last `[ RUN ]` without its `[ OK ]`/`[ FAILED ]`/`[ SKIPPED ]`.
//!
//! What a test prints is never gtest's: ctest's own lines are unprefixed and a test's are
//! numbered, and gtest runs one test at a time, so between a test's `[ RUN ]` and its end a
//! marker other than that end is the test's output
//! ([`crate::googletest::console::parse_gtest`]).
//!
//! ctest's output is read line by line as it comes ([`CtestReader`]), in bounded memory: each
//! test keeps the head and the tail of what it printed (gtest's banner is at the head, its
//! summary and a crash at the tail), less once the whole run keeps [`RUN_BYTES`].

use std::collections::VecDeque;

use crate::text::BoundedLines;

/// Bytes of one test's output kept from its start, and from its end.
const HEAD_BYTES: usize = 1 << 20;
const TAIL_BYTES: usize = 1 << 20;
/// Output bytes the whole run keeps before every test's output is held to the tight bounds.
const RUN_BYTES: usize = 48 << 20;
const TIGHT_HEAD: usize = 16 * 1024;
const TIGHT_TAIL: usize = 48 * 1024;
/// Longest line kept.
const LINE_BYTES: usize = 16 * 1024;
/// Bytes of ctest's own last lines kept for a tail.
const LAST_BYTES: usize = 64 * 1024;

/// What one test printed: its first and its last lines, the middle of a flood left out.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Output(BoundedLines);

impl Output {
    fn push(&mut self, line: &str, tight: bool) {
        let (head_cap, tail_cap) = if tight {
            (TIGHT_HEAD, TIGHT_TAIL)
        } else {
            (HEAD_BYTES, TAIL_BYTES)
        };
        self.0.push(cut(line).to_owned(), head_cap, tail_cap);
    }

    pub fn bytes(&self) -> usize {
        self.0.bytes()
    }

    /// Lines left out between head and tail.
    pub fn dropped(&self) -> usize {
        self.0.dropped
    }

    /// Every kept line, in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &str> + Clone + '_ {
        self.0.iter()
    }

    #[cfg(test)]
    pub fn get(&self, i: usize) -> Option<&str> {
        self.iter().nth(i)
    }
}

/// `line` cut at [`LINE_BYTES`] on a character boundary.
fn cut(line: &str) -> &str {
    if line.len() <= LINE_BYTES {
        return line;
    }
    let mut end = LINE_BYTES;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    &line[..end]
}

/// How ctest says a test ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    Passed,
    /// `***Failed` and what ctest added (a regex that did not match...).
    Failed(String),
    /// `***Exception: SegFault` and the like: the process died of a signal.
    Crashed(String),
    /// The test's own ctest `TIMEOUT` property.
    Timeout,
    /// `***Not Run` with ctest's reason (an executable not found...).
    NotRun(String),
    Skipped,
    Disabled,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CtestTest {
    pub number: u32,
    pub name: String,
    /// `None`: it started and never ended (the run was killed).
    pub ended: Option<Ended>,
    /// What the test printed, without ctest's prefix and bookkeeping lines.
    pub output: Output,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CtestRun {
    pub tests: Vec<CtestTest>,
    /// `No tests were found!!!`
    pub no_tests: bool,
    /// ctest's own totals: `(failed, out of)` from `67% tests passed, 1 tests failed out of 3`.
    pub totals: Option<(u32, u32)>,
    /// ctest's last lines that are not a test's output, for a tail.
    pub last: Vec<String>,
}

impl CtestRun {
    /// The tests that ran, as ctest counts them in its totals (disabled ones are not), and how
    /// many of them failed (a crash, a timeout and a test that could not start included).
    pub fn counted(&self) -> (u32, u32) {
        let ran: Vec<&CtestTest> = self
            .tests
            .iter()
            .filter(|t| t.ended.as_ref().is_some_and(|e| *e != Ended::Disabled))
            .collect();
        let failed = ran
            .iter()
            .filter(|t| {
                matches!(
                    t.ended,
                    Some(Ended::Failed(_) | Ended::Crashed(_) | Ended::Timeout | Ended::NotRun(_))
                )
            })
            .count();
        (failed as u32, ran.len() as u32)
    }
}

/// ctest's own lines inside a test's prefixed output.
const CTEST_LINES: &[&str] = &[
    "Test command: ",
    "Working Directory: ",
    "Test timeout computed to be: ",
    "Environment variables:",
];

/// `ctest -V` output read line by line as it comes, in bounded memory.
#[derive(Default)]
pub struct CtestReader {
    run: CtestRun,
    /// Output bytes kept across every test.
    kept: usize,
    last: VecDeque<String>,
    last_bytes: usize,
}

impl CtestReader {
    /// One line of ctest's output, without its newline.
    pub fn line(&mut self, raw: &str) {
        let line = crate::text::strip_ansi(raw.trim_end_matches('\r'));
        let line = cut(&line);
        let t = line.trim();
        let index = |run: &CtestRun, n: u32| run.tests.iter().rposition(|t| t.number == n);
        if t.contains("No tests were found!!!") {
            self.run.no_tests = true;
        } else if let Some((n, name)) = start_line(t) {
            self.run.tests.push(CtestTest {
                number: n,
                name: name.to_owned(),
                ended: None,
                output: Output::default(),
            });
        } else if let Some((n, name, ended)) = result_line(t) {
            match index(&self.run, n) {
                Some(i) => self.run.tests[i].ended = Some(ended),
                // Not announced (a quiet run): known from its result alone.
                None => self.run.tests.push(CtestTest {
                    number: n,
                    name: name.to_owned(),
                    ended: Some(ended),
                    output: Output::default(),
                }),
            }
        } else if let Some((n, text)) = prefixed(line) {
            if let Some(i) = index(&self.run, n) {
                if !CTEST_LINES.iter().any(|p| text.starts_with(p)) {
                    let out = &mut self.run.tests[i].output;
                    let before = out.bytes();
                    out.push(text, self.kept > RUN_BYTES);
                    self.kept = (self.kept + out.bytes()).saturating_sub(before);
                }
            }
            return;
        } else if let Some(totals) = totals_line(t) {
            self.run.totals = Some(totals);
        }
        self.last_bytes += line.len() + 1;
        self.last.push_back(line.to_owned());
        while self.last_bytes > LAST_BYTES {
            match self.last.pop_front() {
                Some(l) => self.last_bytes -= l.len() + 1,
                None => break,
            }
        }
    }

    pub fn finish(mut self) -> CtestRun {
        self.run.last = self.last.into_iter().collect();
        self.run
    }
}

#[cfg(test)]
pub fn parse_ctest(output: &str) -> CtestRun {
    let mut r = CtestReader::default();
    for l in output.lines() {
        r.line(l);
    }
    r.finish()
}

/// `67% tests passed, 1 tests failed out of 3` → (1, 3).
fn totals_line(t: &str) -> Option<(u32, u32)> {
    let (_, rest) = t.split_once("% tests passed, ")?;
    let (failed, rest) = rest.split_once(" tests failed out of ")?;
    let total = rest.split_whitespace().next()?;
    Some((failed.trim().parse().ok()?, total.parse().ok()?))
}

/// `Start 12: name`
fn start_line(t: &str) -> Option<(u32, &str)> {
    let rest = t.strip_prefix("Start ")?.trim_start();
    let (n, name) = rest.split_once(": ")?;
    Some((n.trim().parse().ok()?, name))
}

/// `12/12 Test #12: name .......   Passed    0.01 sec`
fn result_line(t: &str) -> Option<(u32, &str, Ended)> {
    let (count, rest) = t.split_once(' ')?;
    let (a, b) = count.split_once('/')?;
    if a.parse::<u32>().is_err() || b.parse::<u32>().is_err() {
        return None;
    }
    let rest = rest.trim_start().strip_prefix("Test")?.trim_start();
    let (n, rest) = rest.strip_prefix('#')?.split_once(": ")?;
    let n: u32 = n.trim().parse().ok()?;
    let dots = rest.find(" .")?;
    let name = &rest[..dots];
    let status = rest[dots + 1..].trim_start_matches('.').trim();
    // The time at the end: `0.04 sec`.
    let status = status
        .strip_suffix(" sec")
        .and_then(|s| s.trim_end().rsplit_once(char::is_whitespace))
        .map_or(status, |(s, _)| s)
        .trim();
    let ended = if status == "Passed" {
        Ended::Passed
    } else if let Some((before, after)) = status.split_once("***Exception:") {
        // `***Exception: SegFault`, or the words before it: `Subprocess aborted***Exception:`.
        let word = if after.trim().is_empty() {
            before
        } else {
            after
        };
        Ended::Crashed(word.trim().to_owned())
    } else if status.starts_with("***Timeout") {
        Ended::Timeout
    } else if status.starts_with("***Skipped") {
        Ended::Skipped
    } else if status.contains("Not Run") && status.contains("(Disabled)") {
        Ended::Disabled
    } else if let Some(s) = status.strip_prefix("***Not Run") {
        Ended::NotRun(s.trim().trim_matches(|c| c == '(' || c == ')').to_owned())
    } else if let Some(s) = status.strip_prefix("***Failed") {
        Ended::Failed(s.trim().to_owned())
    } else {
        Ended::Failed(status.to_owned())
    };
    Some((n, name, ended))
}

/// `12: text` (or `12:` for an empty line).
fn prefixed(line: &str) -> Option<(u32, &str)> {
    let (n, text) = line.split_once(':')?;
    if n.is_empty() || n.len() > 9 || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((n.parse().ok()?, text.strip_prefix(' ').unwrap_or(text)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::googletest::console::{parse_gtest, ConsoleEnd};

    const CTEST: &str = "UpdateCTestConfiguration  from :/b/DartConfiguration.tcl
Test project /b
test 2
      Start  2: Sum.Bad

2: Test command: /b/t \"--gtest_filter=Sum.Bad\"
2: Working Directory: /b
2: Test timeout computed to be: 10000000
2: Running main() from ./googletest/src/gtest_main.cc
2: [==========] Running 1 test from 1 test suite.
2: [ RUN      ] Sum.Bad
2: /p/t.cc:3: Failure
2: Expected equality of these values:
2:   add(n, n)
2:     Which is: 5
2:   2 * n
2:     Which is: 4
2: Google Test trace:
2: /p/t.cc:5: from Bad
2: [  FAILED  ] Sum.Bad (0 ms)
2: [  FAILED  ] 1 test, listed below:
2: [  FAILED  ] Sum.Bad
2: 
 2/12 Test  #2: Sum.Bad ..........................***Failed    0.04 sec
test 6
      Start  6: Sum.Off
 5/12 Test  #6: Sum.Off ..........................***Not Run (Disabled)   0.00 sec
test 12
      Start 12: whole

12: Test command: /b/w
12: [==========] Running 4 tests from 1 test suite.
12: [ RUN      ] W.A
12: [       OK ] W.A (0 ms)
12: [ RUN      ] W.Crash
12/12 Test #12: whole ............................***Exception: SegFault  0.01 sec
test 13
      Start 13: hangs
13: [ RUN      ] H.Forever
";

    #[test]
    fn ctest_verbose_output() {
        let run = parse_ctest(CTEST);
        let got: Vec<(u32, &str, Option<Ended>)> = run
            .tests
            .iter()
            .map(|t| (t.number, t.name.as_str(), t.ended.clone()))
            .collect();
        assert_eq!(
            got,
            [
                (2, "Sum.Bad", Some(Ended::Failed(String::new()))),
                (6, "Sum.Off", Some(Ended::Disabled)),
                (12, "whole", Some(Ended::Crashed("SegFault".into()))),
                (13, "hangs", None),
            ]
        );
        assert_eq!(
            run.tests[0].output.get(0).unwrap(),
            "Running main() from ./googletest/src/gtest_main.cc"
        );
        let g = parse_gtest(run.tests[0].output.iter());
        assert!(g.gtest);
        assert_eq!(g.tests, [("Sum.Bad".to_owned(), Some(ConsoleEnd::Failed))]);
        assert_eq!(g.failures.len(), 1);
        assert!(g.failures[0]
            .1
            .starts_with("/p/t.cc:3: Failure\nExpected equality"));
        assert!(g.failures[0].1.ends_with("/p/t.cc:5: from Bad"));
        let w = parse_gtest(run.tests[2].output.iter());
        assert_eq!(w.tests.last(), Some(&("W.Crash".to_owned(), None)));
        let h = parse_gtest(run.tests[3].output.iter());
        assert_eq!(h.tests, [("H.Forever".to_owned(), None)]);
        assert!(parse_ctest("No tests were found!!!\n").no_tests);
    }

    #[test]
    fn aborts_totals_and_gtests_own_end() {
        let run = parse_ctest(
            "test 2
    Start 2: aborts
2: [==========] Running 2 tests from 1 test suite.
2: [ RUN      ] Abort.Dies
1/2 Test #2: aborts ...........................Subprocess aborted***Exception:   0.02 sec
test 1
    Start 1: noexit
1: [==========] Running 1 test from 1 test suite.
1: [ RUN      ] N.One
1: [       OK ] N.One (0 ms)
1: [==========] 1 test from 1 test suite ran. (0 ms total)
2/2 Test #1: noexit ...........................   Passed    0.02 sec

50% tests passed, 1 tests failed out of 2
",
        );
        assert_eq!(
            run.tests[0].ended,
            Some(Ended::Crashed("Subprocess aborted".into()))
        );
        assert_eq!(run.totals, Some((1, 2)));
        assert_eq!(run.counted(), (1, 2));
        assert!(!parse_gtest(run.tests[0].output.iter()).finished);
        assert!(parse_gtest(run.tests[1].output.iter()).finished);
        assert!(run.last.iter().any(|l| l.contains("tests failed out of")));
    }

    #[test]
    fn a_flood_keeps_the_head_and_the_tail_of_each_test() {
        let mut r = CtestReader::default();
        r.line("    Start 1: loud");
        r.line("1: [==========] Running 1 test from 1 test suite.");
        for i in 0..200_000 {
            r.line(&format!("1: line {i} {}", "x".repeat(40)));
        }
        r.line("1: [==========] 1 test from 1 test suite ran. (5 ms total)");
        r.line("1/1 Test #1: loud ...   Passed    0.50 sec");
        let run = r.finish();
        let out = &run.tests[0].output;
        assert!(out.bytes() <= HEAD_BYTES + TAIL_BYTES, "{}", out.bytes());
        assert!(out.dropped() > 0);
        let g = parse_gtest(out.iter());
        assert!(g.gtest && g.finished);
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,600}") {
            let run = parse_ctest(&s);
            for t in &run.tests {
                let _ = parse_gtest(t.output.iter());
            }
            let _ = parse_ctest(&format!("Start 1: a\n1: {s}\n1/1 Test #1: a ...{s}"));
        }
    }
}
