//! libtest's stable human output as `cargo test` prints it, and cargo's stderr lines that say
//! which binary each block of it came from. Best effort on any text: never panics.
//!
//! stdout: one block per test binary, `running N tests`, then `test NAME ... ok|FAILED|ignored`
//! lines, then (on failure) `---- NAME stdout ----` sections with the captured output, then
//! `test result: ...`. stderr: `Running unittests src/lib.rs (target/debug/deps/x-hash)` or
//! `Doc-tests crate`, in the order the binaries ran, each followed by what the binary wrote to
//! stderr and, when it failed, cargo's `error: test failed, to rerun pass ...` (with
//! `process didn't exit successfully: ...` when it did not exit with libtest's 101).
//!
//! The stdout is read line by line ([`Parser`]), so pith holds what it needs of it, never all
//! of it: results, and each failed test's output as a bounded head and tail.

use std::collections::{HashMap, HashSet};

use super::capture::HeadTail;
use super::diag;
use crate::text;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Passed,
    Failed,
    Ignored,
}

/// What one test binary printed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Block {
    /// `running N tests`.
    pub declared: u32,
    /// Tests in the order they reported.
    pub results: Vec<(String, Outcome)>,
    /// Captured output of failed tests, by name (head and tail when long).
    pub outputs: HashMap<String, String>,
    /// `test result:` was printed: the binary ran to its end.
    pub finished: bool,
    seen: HashSet<String>,
}

impl Block {
    pub fn reported(&self, name: &str) -> bool {
        self.seen.contains(name)
    }

    fn push(&mut self, name: String, outcome: Outcome) {
        if self.seen.insert(name.clone()) {
            self.results.push((name, outcome));
        }
    }
}

/// All of cargo's stdout that is libtest's: its blocks, and the text printed outside any
/// block (by a test binary without libtest's harness), `gaps[k]` before block `k`, the last
/// after the last block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Output {
    pub blocks: Vec<Block>,
    pub gaps: Vec<String>,
}

/// Beyond this much captured output in one run, each further failed test keeps less: a
/// thousand failures logging megabytes each must not add up.
const RETAINED_BUDGET: usize = 32 << 20;
/// Bounds of text outside blocks, per gap.
const GAP_HEAD: usize = 4 * 1024;
const GAP_TAIL: usize = 12 * 1024;

/// Reads libtest's output one line at a time (cargo's JSON lines skipped).
#[derive(Debug, Default)]
pub struct Parser {
    blocks: Vec<Block>,
    gaps: Vec<String>,
    gap: HeadTail,
    /// The failed test whose captured output we are inside.
    capturing: Option<(String, HeadTail)>,
    in_failures: bool,
    retained: usize,
}

impl Parser {
    pub fn new() -> Self {
        Parser {
            gap: HeadTail::new(GAP_HEAD, GAP_TAIL),
            ..Parser::default()
        }
    }

    /// One line of stdout, without its newline.
    pub fn line(&mut self, raw: &str) {
        if diag::is_message(raw) {
            return;
        }
        let clean = text::strip_ansi(raw);
        let line = clean.trim_end_matches(['\r', '\n']);
        if let Some(n) = running_count(line) {
            self.flush();
            self.in_failures = false;
            let gap = std::mem::replace(&mut self.gap, HeadTail::new(GAP_HEAD, GAP_TAIL));
            self.gaps.push(gap.into_string());
            self.blocks.push(Block {
                declared: n,
                ..Block::default()
            });
            return;
        }
        let open = self.blocks.last().is_some_and(|b| !b.finished);
        if !open {
            if !line.trim().is_empty() {
                self.gap.push_line(line);
            }
            return;
        }
        if let Some(name) = line
            .strip_prefix("---- ")
            .and_then(|l| l.strip_suffix(" stdout ----"))
        {
            let known = self.blocks.last().is_some_and(|b| b.reported(name));
            if known || !self.in_failures {
                self.flush();
                let cap = if self.retained > RETAINED_BUDGET {
                    HeadTail::new(2 * 1024, 14 * 1024)
                } else {
                    HeadTail::for_test()
                };
                self.capturing = Some((name.to_owned(), cap));
                self.in_failures = true;
                return;
            }
        }
        if let Some((_, out)) = self.capturing.as_mut() {
            if line == "failures:" || line.starts_with("test result: ") {
                self.flush();
            } else {
                out.push_line(line);
                return;
            }
        }
        let Some(block) = self.blocks.last_mut() else {
            return;
        };
        if line.starts_with("test result: ") {
            block.finished = true;
            self.in_failures = false;
            return;
        }
        if line == "failures:" {
            self.in_failures = true;
            return;
        }
        if self.in_failures {
            return;
        }
        if let Some((name, outcome)) = result_line(line) {
            block.push(name, outcome);
        }
    }

    fn flush(&mut self) {
        if let (Some((name, out)), Some(b)) = (self.capturing.take(), self.blocks.last_mut()) {
            self.retained += out.len();
            b.outputs.insert(name, out.into_string());
        }
    }

    pub fn finish(mut self) -> Output {
        self.flush();
        self.gaps.push(self.gap.into_string());
        Output {
            blocks: self.blocks,
            gaps: self.gaps,
        }
    }
}

/// Every block of libtest output in `stdout` (cargo's JSON lines skipped).
#[cfg(test)]
pub fn parse(stdout: &str) -> Vec<Block> {
    parse_all(stdout).blocks
}

/// [`parse`], with the text outside blocks.
pub fn parse_all(stdout: &str) -> Output {
    let mut p = Parser::new();
    for line in stdout.lines() {
        p.line(line);
    }
    p.finish()
}

fn running_count(line: &str) -> Option<u32> {
    let rest = line.strip_prefix("running ")?;
    let n = rest
        .strip_suffix(" tests")
        .or_else(|| rest.strip_suffix(" test"))?;
    n.parse().ok()
}

/// `test NAME ... ok` and its variants (`FAILED`, `ignored`, `ignored, reason`, a
/// ` - should panic` mode suffix after the name).
pub fn result_line(line: &str) -> Option<(String, Outcome)> {
    let rest = line.strip_prefix("test ")?;
    let (name, verdict) = rest.rsplit_once(" ... ")?;
    let outcome = match verdict.trim() {
        "ok" => Outcome::Passed,
        "FAILED" => Outcome::Failed,
        v if v == "ignored" || v.starts_with("ignored, ") => Outcome::Ignored,
        v if v.starts_with("bench:") => Outcome::Passed,
        _ => return None,
    };
    let mut name = name.trim();
    for mode in [" - should panic", " - compile fail", " - compile"] {
        if let Some(n) = name.strip_suffix(mode) {
            name = n;
            break;
        }
    }
    (!name.is_empty()).then(|| (name.to_owned(), outcome))
}

/// One binary cargo announced on stderr, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Announced {
    /// `Running ... (PATH)`: the executable as cargo displayed it (often relative).
    Exe(String),
    /// `Doc-tests CRATE`.
    Doc(String),
}

/// How cargo said a test binary ended, when it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failed {
    /// `error: test failed` and nothing more: libtest's own exit code, 101.
    Reported,
    /// ``process didn't exit successfully: `EXE` (exit status: N)``.
    Status(i32),
    /// `` ... (signal: 6, SIGABRT: process abort signal)``: the signal's name.
    Signal(String),
}

/// One binary cargo ran, in the order it ran them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ran {
    pub who: Announced,
    pub failed: Option<Failed>,
    /// What the binary itself wrote to stderr (libtest captures its tests' output, so this is
    /// a harness-less binary's own words), head and tail.
    pub stderr: String,
}

/// Bounds of one binary's own stderr.
const BINARY_HEAD: usize = 4 * 1024;
const BINARY_TAIL: usize = 12 * 1024;

/// The binaries cargo announced on stderr (`     Running ...`, `   Doc-tests ...`, in its
/// right-aligned status column, so a test's own "Running" line is not taken for one), each with
/// how it ended and what it wrote in between.
pub fn binaries(stderr: &str) -> Vec<Ran> {
    #[derive(PartialEq)]
    enum State {
        /// Inside a binary's run: its own stderr.
        Output,
        /// cargo's error about the binary just announced.
        Error,
        /// cargo's closing summary, or before any binary.
        Outside,
    }
    let mut out: Vec<(Ran, HeadTail)> = Vec::new();
    let mut state = State::Outside;
    for raw in stderr.lines() {
        let clean = text::strip_ansi(raw);
        let line = clean.trim_end_matches('\r');
        if let Some(who) = announcement(line) {
            out.push((
                Ran {
                    who,
                    failed: None,
                    stderr: String::new(),
                },
                HeadTail::new(BINARY_HEAD, BINARY_TAIL),
            ));
            state = State::Output;
            continue;
        }
        if line.starts_with("error: test failed, to rerun pass")
            || line.starts_with("error: doctest failed, to rerun pass")
        {
            if let Some((r, _)) = out.last_mut() {
                r.failed.get_or_insert(Failed::Reported);
            }
            state = State::Error;
            continue;
        }
        if let Some((exe, how)) = exit_line(line) {
            let name = std::path::Path::new(&exe).file_name();
            let at = out
                .iter()
                .rposition(|(r, _)| match &r.who {
                    Announced::Exe(e) => {
                        name.is_some() && std::path::Path::new(e).file_name() == name
                    }
                    Announced::Doc(_) => false,
                })
                .or(out.len().checked_sub(1));
            if let Some(i) = at {
                out[i].0.failed = Some(how);
            }
            continue;
        }
        if line.starts_with("error: ") && line.contains(" failed:") && line.contains("target") {
            state = State::Outside;
            continue;
        }
        if state == State::Output {
            if let Some((_, h)) = out.last_mut() {
                h.push_line(line);
            }
        }
    }
    out.into_iter()
        .map(|(mut r, h)| {
            r.stderr = h.into_string();
            r
        })
        .collect()
}

/// `     Running unittests src/lib.rs (target/debug/deps/x-hash)` (older cargo printed just the
/// path) or `   Doc-tests crate`.
fn announcement(line: &str) -> Option<Announced> {
    if let Some(rest) = line.strip_prefix("     Running ") {
        let rest = rest.trim();
        let exe = match (rest.rfind(" ("), rest.ends_with(')')) {
            (Some(i), true) => &rest[i + 2..rest.len() - 1],
            _ => rest,
        };
        return (!exe.is_empty()).then(|| Announced::Exe(exe.to_owned()));
    }
    let name = line.strip_prefix("   Doc-tests ")?.trim();
    (!name.is_empty()).then(|| Announced::Doc(name.to_owned()))
}

/// ``process didn't exit successfully: `EXE ARGS` (exit status: 1)`` or
/// ``(signal: 6, SIGABRT: process abort signal)``: the executable and how it ended.
fn exit_line(line: &str) -> Option<(String, Failed)> {
    const MARK: &str = "process didn't exit successfully: `";
    let i = line.find(MARK)?;
    let rest = &line[i + MARK.len()..];
    let (cmd, why) = rest.rsplit_once("` (")?;
    let exe = cmd.split(' ').next().unwrap_or(cmd).to_owned();
    if let Some(code) = why.strip_prefix("exit status: ") {
        let code = code.trim_end_matches(')').trim().parse().ok()?;
        return Some((exe, Failed::Status(code)));
    }
    let sig = why.strip_prefix("signal: ")?;
    // `6, SIGABRT: process abort signal)`
    let name = sig
        .split([',', ')'])
        .nth(1)
        .and_then(|s| s.split(':').next())
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map_or_else(
            || format!("signal {}", sig.split(',').next().unwrap_or("?")),
            str::to_owned,
        );
    Some((exe, Failed::Signal(name)))
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
    use proptest::prelude::*;

    const SINGLE: &str = r#"{"reason":"compiler-artifact","package_id":"path+file:///tmp/exp/single#0.1.0"}
{"reason":"build-finished","success":true}

running 4 tests
test tests::adds_negative ... ok
test tests::adds ... ok
test tests::slow ... ignored
test tests::off_by_one ... FAILED

failures:

---- tests::off_by_one stdout ----

thread 'tests::off_by_one' (12237) panicked at src/lib.rs:11:5:
assertion `left == right` failed
  left: 4
 right: 5
stack backtrace:
   4: single::check_sum
             at ./src/lib.rs:11:5
note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.


failures:
    tests::off_by_one

test result: FAILED. 2 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.32s


running 1 test
test src/lib.rs - add (line 3) ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.19s

"#;

    const SINGLE_ERR: &str = "   Compiling single v0.1.0 (/tmp/exp/single)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.64s
     Running unittests src/lib.rs (target/debug/deps/single-54b0041e1e702ad2)
error: test failed, to rerun pass `--lib`
   Doc-tests single
error: 1 target failed:
    `--lib`
";

    #[test]
    fn blocks_of_single() {
        let b = parse(SINGLE);
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].declared, 4);
        assert!(b[0].finished);
        assert_eq!(
            b[0].results,
            vec![
                ("tests::adds_negative".into(), Outcome::Passed),
                ("tests::adds".into(), Outcome::Passed),
                ("tests::slow".into(), Outcome::Ignored),
                ("tests::off_by_one".into(), Outcome::Failed),
            ]
        );
        let out = &b[0].outputs["tests::off_by_one"];
        assert!(out.contains("panicked at src/lib.rs:11:5:"));
        assert!(out.contains("at ./src/lib.rs:11:5"));
        assert!(!out.contains("test result"));
        assert_eq!(
            b[1].results,
            vec![("src/lib.rs - add (line 3)".into(), Outcome::Passed)]
        );
    }

    #[test]
    fn announcements() {
        let r = binaries(SINGLE_ERR);
        assert_eq!(
            r.iter().map(|r| r.who.clone()).collect::<Vec<_>>(),
            vec![
                Announced::Exe("target/debug/deps/single-54b0041e1e702ad2".into()),
                Announced::Doc("single".into()),
            ]
        );
        assert_eq!(r[0].failed, Some(Failed::Reported));
        assert_eq!(r[1].failed, None);
        let r = binaries(
            "     Running tests/api.rs (target/debug/deps/api-f7)\n     Running target/debug/deps/old-1\n",
        );
        assert_eq!(
            r.iter().map(|r| r.who.clone()).collect::<Vec<_>>(),
            vec![
                Announced::Exe("target/debug/deps/api-f7".into()),
                Announced::Exe("target/debug/deps/old-1".into()),
            ]
        );
    }

    #[test]
    fn a_harness_free_binary_keeps_its_stderr_and_exit_status() {
        // cargo 1.95, a `harness = false` test target that printed and exited 1.
        let err = "   Compiling hf v0.1.0 (/tmp/hx/hf)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.82s
     Running unittests src/lib.rs (/tmp/hx/target/debug/deps/hf-85be204453b0bec0)
     Running tests/custom.rs (/tmp/hx/target/debug/deps/custom-9cf0d708cf5a86a1)
Running my own checks
custom check failed: expected 2, got 1
error: test failed, to rerun pass `--test custom`

Caused by:
  process didn't exit successfully: `/tmp/hx/target/debug/deps/custom-9cf0d708cf5a86a1` (exit status: 1)
   Doc-tests hf
error: 1 target failed:
    `--test custom`
";
        let r = binaries(err);
        assert_eq!(r.len(), 3, "{r:#?}");
        assert_eq!(r[0].failed, None);
        assert_eq!(r[1].failed, Some(Failed::Status(1)));
        assert_eq!(
            r[1].stderr,
            "Running my own checks\ncustom check failed: expected 2, got 1\n"
        );
        assert_eq!(r[2].who, Announced::Doc("hf".into()));
        assert_eq!(r[2].stderr, "");
    }

    #[test]
    fn crashed_binary() {
        let stdout = "\nrunning 2 tests\ntest tests::fine ... ok\n\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";
        let b = parse(stdout);
        assert_eq!(b.len(), 2);
        assert!(!b[0].finished);
        assert_eq!(b[0].results.len(), 1);
        let err = "     Running unittests src/lib.rs (target/debug/deps/crash-13c7f3b4a2d242ba)\nerror: test failed, to rerun pass `--lib`\n\nCaused by:\n  process didn't exit successfully: `/tmp/exp/crash/target/debug/deps/crash-13c7f3b4a2d242ba` (signal: 6, SIGABRT: process abort signal)\n";
        let r = binaries(err);
        assert_eq!(r[0].failed, Some(Failed::Signal("SIGABRT".into())));
        assert_eq!(
            exit_line("process didn't exit successfully: `x --exact a` (exit status: 3)"),
            Some(("x".into(), Failed::Status(3)))
        );
    }

    #[test]
    fn gaps_hold_what_was_printed_outside_blocks() {
        let out = parse_all("{\"reason\":\"build-finished\",\"success\":true}\n\nrunning 1 test\ntest a ... ok\n\ntest result: ok. 1 passed\n\nchecking things\n\nrunning 0 tests\n\ntest result: ok.\n");
        assert_eq!(out.blocks.len(), 2);
        assert_eq!(out.gaps, ["", "checking things\n", ""]);
    }

    #[test]
    fn a_long_log_before_a_panic_keeps_the_panic() {
        let mut s =
            String::from("running 1 test\ntest t ... FAILED\n\nfailures:\n\n---- t stdout ----\n");
        for i in 0..6000 {
            s.push_str(&format!("log line {i} {}\n", "x".repeat(40)));
        }
        s.push_str("\nthread 't' (1) panicked at src/lib.rs:15:9:\nthe real reason\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\nfailures:\n    t\n\ntest result: FAILED. 0 passed; 1 failed\n");
        let b = parse(&s);
        let out = &b[0].outputs["t"];
        assert!(out.len() < 80 * 1024, "{}", out.len());
        assert!(out.starts_with("log line 0 "), "{out}");
        let p = crate::cargo::panic::parse(out).expect("the panic is kept");
        assert_eq!(p.message, "the real reason");
        assert_eq!(p.location, Some(("src/lib.rs".into(), 15)));
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

    #[test]
    fn captured_output_mentioning_failures_header_keeps_other_tests() {
        let out = "running 2 tests\ntest a ... FAILED\ntest b ... FAILED\n\nfailures:\n\n---- a stdout ----\nhello\n---- b stdout ----\nworld\n\nfailures:\n    a\n    b\n\ntest result: FAILED. 0 passed; 2 failed\n";
        let b = parse(out);
        assert_eq!(b[0].outputs["a"].trim(), "hello");
        assert_eq!(b[0].outputs["b"].trim(), "world");
        assert!(b[0].finished);
    }

    proptest! {
        #[test]
        fn never_panics_on_garbage(s in "(?s).{0,2000}") {
            let _ = parse_all(&s);
            let _ = binaries(&s);
            let _ = list(&s);
        }

        #[test]
        fn never_panics_on_truncation(cut in 0usize..1500) {
            let s: String = SINGLE.chars().take(cut).collect();
            let b = parse(&s);
            for block in &b {
                prop_assert!(block.results.len() <= 4);
            }
        }

        #[test]
        fn never_panics_on_shaped_garbage(a in "[a-z:\\- .()]{0,40}", b in "(?s).{0,200}") {
            let s = format!("running 1 test\ntest {a} ... {b}\n---- {a} stdout ----\n{b}\nfailures:\ntest result: {b}");
            let _ = parse(&s);
            let _ = binaries(&format!("     Running {a}\nprocess didn't exit successfully: `{a}` (signal: {b}"));
            let _ = exit_line(&format!("process didn't exit successfully: `{a}` (exit status: {b}"));
        }
    }
}
