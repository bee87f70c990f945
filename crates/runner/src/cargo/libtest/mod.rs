//! libtest's stable human output as `cargo test` prints it, and cargo's lines around it that
//! say which test binary printed what. Best effort on any text: never panics.
//!
//! pith reads cargo's stdout and stderr as one stream, in the order they were written
//! ([`crate::process::run_lines_merged`]): cargo announces each binary on stderr
//! (`     Running unittests src/lib.rs (target/debug/deps/x-hash)`, `   Doc-tests crate`)
//! before it starts it, so everything up to the next announcement is that binary's
//! ([`Segment`]), and after it ends cargo says how (`error: test failed, to rerun pass ...`,
//! with `process didn't exit successfully: ...` when it did not exit with libtest's 101).
//! An announcement counts only when it names a binary cargo built for this run.
//!
//! A binary's stdout is shared with whatever its tests start: libtest captures `print!`, not
//! a child process's output nor a direct write to the stdout handle, so a test that runs
//! `cargo test` on a fixture, or a tool such as trybuild, puts `running N tests`,
//! `test x ... FAILED`, `failures:` and `test result:` lines of its own into the binary's
//! block. What libtest itself says is told from them by what a child cannot forge
//! ([`Reader`]): the block is opened by the binary's first line, closed by its last
//! `test result:` whose counts add up to the tests it declared, its failures are the
//! `failures:` list just above that line, and result lines those counts do not account for
//! are checked against the tests the binary lists (`--list`) by [`Block::settle`].
//!
//! A block: `running N tests`, then `test NAME ... ok|FAILED|ignored` lines (libtest writes
//! `test NAME ... ` and its verdict separately, so another writer may land between them),
//! then (on failure) `---- NAME stdout ----` sections with each failed test's captured
//! output, the `failures:` list, and `test result: ...`. Every line is read as it comes,
//! never all of it kept: results, and each failed test's output as a bounded head and tail.
//!
//! Layout: `lines` (what one line says in libtest's words), `reader` (one binary's lines into
//! its block), `settle` (which of a block's result lines are the binary's), `stream` (cargo's
//! lines around the binaries, the stream cut into segments).

mod lines;
mod reader;
mod settle;
mod stream;

use std::collections::{HashMap, HashSet};

use super::diag;

pub use lines::{list, passed_at, result_line, running_count, totals_line};
pub use reader::Reader;
pub use stream::{Announced, Failed, Known, Segment, Stream};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    Passed,
    Failed,
    Ignored,
}

/// libtest's closing count: `test result: FAILED. 2 passed; 1 failed; 1 ignored; 0 measured;
/// 0 filtered out; finished in 0.32s`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Totals {
    pub passed: u32,
    pub failed: u32,
    pub ignored: u32,
    pub measured: u32,
}

impl Totals {
    /// Tests the binary ran (the `running N tests` it declared, when it is the binary's own).
    pub fn ran(&self) -> u32 {
        self.passed
            .saturating_add(self.failed)
            .saturating_add(self.ignored)
            .saturating_add(self.measured)
    }
}

/// What one test binary's libtest block says, once read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Block {
    /// `running N tests`.
    pub declared: u32,
    /// Tests in the order they reported.
    pub results: Vec<(String, Outcome)>,
    /// Captured output of failed tests, by name (head and tail when long).
    pub outputs: HashMap<String, String>,
    /// The binary's own `test result:` was printed: it ran to its end.
    pub finished: bool,
    /// The counts of that line.
    pub totals: Option<Totals>,
    /// The `failures:` list just above that line.
    failures: Option<Vec<String>>,
    seen: HashSet<String>,
}

impl Block {
    pub fn reported(&self, name: &str) -> bool {
        self.seen.contains(name)
    }

    fn set_results(&mut self, results: Vec<(String, Outcome)>) {
        self.seen = results.iter().map(|(n, _)| n.clone()).collect();
        self.results = results;
    }
}

/// Every segment of `out` as [`Stream`] reads it, every announced binary taken as this run's
/// libtest binary, and the text that is not libtest's.
pub fn parse_all(out: &str) -> (Vec<Segment>, String) {
    let mut s = Stream::new();
    for line in out.lines() {
        if diag::is_message(line) {
            continue;
        }
        s.line(line, &|_| Known::Libtest);
    }
    s.finish()
}

/// The blocks of `out`, as [`parse_all`] reads them.
#[cfg(test)]
pub fn parse(out: &str) -> Vec<Block> {
    parse_all(out)
        .0
        .into_iter()
        .filter_map(|s| s.block)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::stream::exit_line;
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

    /// `cargo test` of a crate whose tests print runner lines past libtest's capture (cargo
    /// 1.95, stdout and stderr merged; backtraces cut): one test writes a whole libtest block
    /// and a cargo announcement straight to its stdout and stderr, another runs `cargo test`
    /// on a crate of its own with its output inherited, and `real_failure` fails.
    const FORGED: &str = include_str!("../testdata/forged_merged.txt");

    fn forge_known(who: &Announced) -> Known {
        match who {
            Announced::Exe(e) if e.ends_with("forge-7d50b91e3e2a08b5") => Known::Libtest,
            Announced::Doc(d) if d == "forge" => Known::Libtest,
            _ => Known::Foreign,
        }
    }

    fn stream(text: &str, known: &dyn Fn(&Announced) -> Known) -> (Vec<Segment>, String) {
        let mut s = Stream::new();
        for line in text.lines() {
            if !diag::is_message(line) {
                s.line(line, known);
            }
        }
        s.finish()
    }

    fn names(b: &Block, o: Outcome) -> Vec<&str> {
        b.results
            .iter()
            .filter(|(_, x)| *x == o)
            .map(|(n, _)| n.as_str())
            .collect()
    }

    const FORGE_TESTS: [&str; 4] = [
        "tests::adds",
        "tests::prints_forged_lines",
        "tests::real_failure",
        "tests::runs_a_child_cargo_test",
    ];

    #[test]
    fn blocks_of_single() {
        let b = parse(SINGLE);
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].declared, 4);
        assert!(b[0].finished);
        assert_eq!(
            b[0].totals,
            Some(Totals {
                passed: 2,
                failed: 1,
                ignored: 1,
                measured: 0
            })
        );
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
        // Lines that add up to the totals are settled without asking the binary.
        let mut b0 = b[0].clone();
        let asked = std::cell::Cell::new(false);
        assert_eq!(
            b0.settle(&mut || {
                asked.set(true);
                None
            }),
            None
        );
        assert!(!asked.get());
        assert_eq!(b0.results, b[0].results);
    }

    #[test]
    fn forged_and_child_lines_are_not_the_binarys() {
        let (segs, rest) = stream(FORGED, &forge_known);
        assert_eq!(segs.len(), 2, "{segs:#?}");
        assert_eq!(
            segs[0].who,
            Some(Announced::Exe(
                "target/debug/deps/forge-7d50b91e3e2a08b5".into()
            ))
        );
        assert_eq!(segs[0].failed, Some(Failed::Reported));
        assert_eq!(segs[1].who, Some(Announced::Doc("forge".into())));
        assert_eq!(segs[1].failed, None);
        let mut b = segs[0].block.clone().unwrap();
        assert_eq!(b.declared, 4);
        assert!(b.finished);
        let mut asked = 0;
        let why = b.settle(&mut || {
            asked += 1;
            Some(FORGE_TESTS.iter().map(|s| s.to_string()).collect())
        });
        assert_eq!((why, asked), (None, 1));
        assert_eq!(names(&b, Outcome::Failed), ["tests::real_failure"]);
        assert_eq!(
            names(&b, Outcome::Passed),
            [
                "tests::adds",
                "tests::prints_forged_lines",
                "tests::runs_a_child_cargo_test"
            ]
        );
        let out = &b.outputs["tests::real_failure"];
        assert!(out.contains("real failure"), "{out}");
        assert!(!out.contains("child failure"), "{out}");
        assert_eq!(b.outputs.len(), 1);
        // The forged block's first line is the binary's own text.
        assert!(rest.contains("running 2 tests"), "{rest}");
    }

    #[test]
    fn without_a_list_the_totals_still_say_which_lines_disagree() {
        let (segs, _) = stream(FORGED, &forge_known);
        let mut b = segs[0].block.clone().unwrap();
        let why = b.settle(&mut || None);
        assert_eq!(
            why.as_deref(),
            Some("libtest counted 3 passed, 1 failed, 0 ignored; its result lines say 5, 1, 0")
        );
    }

    #[test]
    fn a_green_binary_is_not_failed_by_a_childs_failure() {
        // The same run with `real_failure` passing: libtest's own word is `ok`.
        let green = FORGED
            .replace(
                "test tests::real_failure ... FAILED",
                "test tests::real_failure ... ok",
            )
            .replace(
                "test result: FAILED. 3 passed; 1 failed; 0 ignored",
                "test result: ok. 4 passed; 0 failed; 0 ignored",
            );
        let cut = green
            .find("\nfailures:\n\n---- tests::real_failure")
            .unwrap();
        let end = green.find("test result: ok. 4 passed").unwrap();
        let green = format!("{}\n\n{}", &green[..cut], &green[end..]).replace(
            "error: test failed, to rerun pass `--lib`\n   Doc-tests",
            "   Doc-tests",
        );
        let (segs, _) = stream(&green, &forge_known);
        // The child's `error: test failed` came before libtest's last lines: not the binary's.
        assert_eq!(segs[0].failed, None);
        let mut b = segs[0].block.clone().unwrap();
        let why = b.settle(&mut || Some(FORGE_TESTS.iter().map(|s| s.to_string()).collect()));
        assert_eq!(why, None);
        assert!(names(&b, Outcome::Failed).is_empty(), "{:?}", b.results);
        assert_eq!(names(&b, Outcome::Passed).len(), 4);
    }

    #[test]
    fn a_verdict_cut_off_by_another_writer_still_counts() {
        let text = "     Running unittests src/lib.rs (target/debug/deps/forge-7d50b91e3e2a08b5)\n\nrunning 2 tests\ntest tests::adds ... error: test failed, to rerun pass `--lib`\nok\ntest tests::real_failure ... ok\n\ntest result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";
        let (segs, _) = stream(text, &forge_known);
        assert_eq!(segs[0].failed, None, "a note inside a line is text");
        let mut b = segs[0].block.clone().unwrap();
        assert_eq!(b.settle(&mut || None), None);
        assert_eq!(
            names(&b, Outcome::Passed),
            ["tests::adds", "tests::real_failure"]
        );
        // The verdict and its newline are two writes too: a line of another writer's may
        // follow the verdict on its line (seen with two test threads).
        let glued = text.replace(
            "ok\ntest tests::real_failure",
            "oktest forged::c ... FAILED\n\ntest tests::real_failure",
        );
        let (segs, _) = stream(&glued, &forge_known);
        let mut b = segs[0].block.clone().unwrap();
        let why = b.settle(&mut || Some(vec!["tests::adds".into(), "tests::real_failure".into()]));
        assert_eq!(why, None);
        assert_eq!(
            b.results,
            vec![
                ("tests::adds".into(), Outcome::Passed),
                ("tests::real_failure".into(), Outcome::Passed)
            ]
        );
        // Another writer's whole result line may land between `test NAME ... ` and its
        // verdict (seen on a loaded machine): it is its own, and the verdict is still NAME's.
        let cut = text.replace(
            "error: test failed, to rerun pass `--lib`\nok\n",
            "test forged::c ... FAILED\nok\n",
        );
        let (segs, _) = stream(&cut, &forge_known);
        let mut b = segs[0].block.clone().unwrap();
        assert_eq!(b.settle(&mut || None), None, "{b:?}");
        assert_eq!(
            names(&b, Outcome::Passed),
            ["tests::adds", "tests::real_failure"]
        );
        // Both cut: the later verdict ends the later name.
        let both = text.replace(
            "error: test failed, to rerun pass `--lib`\nok\n",
            "test forged::c ... \nFAILED\nok\n",
        );
        let (segs, _) = stream(&both, &forge_known);
        let b = segs[0].block.clone().unwrap();
        assert!(
            b.results.contains(&("forged::c".into(), Outcome::Failed)),
            "{b:?}"
        );
        assert!(
            b.results.contains(&("tests::adds".into(), Outcome::Passed)),
            "{b:?}"
        );
    }

    #[test]
    fn a_harness_free_binary_keeps_its_own_text_and_exit_status() {
        // cargo 1.95, a `harness = false` test target that printed and exited 1.
        let err = "   Compiling hf v0.1.0 (/tmp/hx/hf)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.82s
     Running unittests src/lib.rs (/tmp/hx/target/debug/deps/hf-85be204453b0bec0)

running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

     Running tests/custom.rs (/tmp/hx/target/debug/deps/custom-9cf0d708cf5a86a1)
Running my own checks
running 3 tests of mine
custom check failed: expected 2, got 1
error: test failed, to rerun pass `--test custom`

Caused by:
  process didn't exit successfully: `/tmp/hx/target/debug/deps/custom-9cf0d708cf5a86a1` (exit status: 1)
   Doc-tests hf

running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

error: 1 target failed:
    `--test custom`
";
        let known = |w: &Announced| match w {
            Announced::Exe(e) if e.contains("custom-") => Known::Custom,
            _ => Known::Libtest,
        };
        let (segs, rest) = stream(err, &known);
        assert_eq!(segs.len(), 3, "{segs:#?}");
        assert!(segs[0].block.as_ref().is_some_and(|b| b.finished));
        assert_eq!(segs[1].failed, Some(Failed::Status(1)));
        assert_eq!(segs[1].block, None);
        assert_eq!(
            segs[1].own,
            "Running my own checks\nrunning 3 tests of mine\ncustom check failed: expected 2, got 1\n"
        );
        assert_eq!(segs[2].who, Some(Announced::Doc("hf".into())));
        assert_eq!(segs[2].own, "");
        assert!(rest.contains("error: 1 target failed:"), "{rest}");
    }

    #[test]
    fn crashed_binary() {
        let text = "     Running unittests src/lib.rs (target/debug/deps/crash-13c7f3b4a2d242ba)\n\nrunning 2 tests\ntest tests::fine ... ok\nerror: test failed, to rerun pass `--lib`\n\nCaused by:\n  process didn't exit successfully: `/tmp/exp/crash/target/debug/deps/crash-13c7f3b4a2d242ba` (signal: 6, SIGABRT: process abort signal)\n     Running unittests src/main.rs (target/debug/deps/next-1)\n\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";
        let (segs, _) = stream(text, &|_| Known::Libtest);
        assert_eq!(segs.len(), 2);
        let b = segs[0].block.as_ref().unwrap();
        assert!(!b.finished);
        assert_eq!(b.results.len(), 1);
        assert_eq!(segs[0].failed, Some(Failed::Signal("SIGABRT".into())));
        assert!(segs[1].block.as_ref().unwrap().finished);
        assert_eq!(
            exit_line("process didn't exit successfully: `x --exact a` (exit status: 3)"),
            Some(("x".into(), Failed::Status(3)))
        );
        // A child's exit line names another executable: not this binary's end.
        let child = text.replace(
            "`/tmp/exp/crash/target/debug/deps/crash-13c7f3b4a2d242ba`",
            "`/tmp/other/target/debug/deps/child-99`",
        );
        let (segs, _) = stream(&child, &|_| Known::Libtest);
        assert_eq!(segs[0].failed, Some(Failed::Reported));
    }

    #[test]
    fn edition_2024_doctests_are_two_blocks_of_one_binary() {
        // rustdoc 1.95: merged doctests, then those that cannot be merged.
        let text = "   Doc-tests ed24\n\nrunning 4 tests\ntest src/lib.rs - add (line 1) ... ok\ntest src/lib.rs - add (line 17) ... ignored\ntest src/lib.rs - add (line 5) ... ok\ntest src/lib.rs - add (line 13) - should panic ... ok\n\ntest result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.33s\n\n\nrunning 1 test\ntest src/lib.rs - add (line 9) - compile fail ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.07s\n\nall doctests ran in 1.46s; merged doctests compilation took 1.06s\n";
        let (segs, _) = stream(text, &|_| Known::Libtest);
        assert_eq!(segs.len(), 1);
        let mut b = segs[0].block.clone().unwrap();
        assert_eq!((b.declared, b.finished), (5, true));
        assert_eq!(b.settle(&mut || None), None);
        assert_eq!(names(&b, Outcome::Passed).len(), 4);
        assert_eq!(names(&b, Outcome::Ignored), ["src/lib.rs - add (line 17)"]);
        // A test binary prints one block: a second one is a child's.
        let exe = text.replace(
            "   Doc-tests ed24",
            "     Running unittests src/lib.rs (target/debug/deps/ed24-1)",
        );
        let (segs, _) = stream(&exe, &|_| Known::Libtest);
        assert_eq!(segs[0].block.as_ref().unwrap().declared, 4);
    }

    #[test]
    fn a_quiet_cargo_announces_nothing_and_each_block_is_a_binary() {
        let (segs, _) = parse_all(SINGLE);
        assert_eq!(segs.len(), 2);
        assert!(segs.iter().all(|s| s.who.is_none()));
    }

    #[test]
    fn a_long_log_before_a_panic_keeps_the_panic() {
        let mut s =
            String::from("running 1 test\ntest t ... FAILED\n\nfailures:\n\n---- t stdout ----\n");
        for i in 0..6000 {
            s.push_str(&format!("log line {i} {}\n", "x".repeat(40)));
        }
        s.push_str("\nthread 't' (1) panicked at src/lib.rs:15:9:\nthe real reason\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\nfailures:\n    t\n\ntest result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n");
        let b = parse(&s);
        let out = &b[0].outputs["t"];
        assert!(out.len() < 80 * 1024, "{}", out.len());
        assert!(out.starts_with("log line 0 "), "{out}");
        let p = crate::cargo::panic::parse(out).expect("the panic is kept");
        assert_eq!(p.message, "the real reason");
        assert_eq!(p.location, Some(("src/lib.rs".into(), 15)));
    }

    #[test]
    fn a_failed_tests_output_quoting_a_block_stays_its_output() {
        // A test that ran `cargo test` in a child, captured it, and failed showing it.
        let out = "running 2 tests\ntest a ... FAILED\ntest b ... ok\n\nfailures:\n\n---- a stdout ----\nchild said:\nrunning 1 test\ntest inner ... FAILED\n\nfailures:\n    inner\n\ntest result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\nrunning 5 tests\n\nthread 'a' panicked at src/lib.rs:9:5:\nthe child failed\n\n\nfailures:\n    a\n\ntest result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n";
        let mut b = parse(out).remove(0);
        assert!(b.finished);
        let o = b.outputs["a"].clone();
        assert!(
            o.contains("child said:") && o.contains("the child failed"),
            "{o}"
        );
        let why = b.settle(&mut || Some(vec!["a".into(), "b".into()]));
        assert_eq!(why, None);
        assert_eq!(
            b.results,
            vec![("a".into(), Outcome::Failed), ("b".into(), Outcome::Passed)]
        );
    }

    #[test]
    fn an_unfinished_block_keeps_only_listed_names() {
        let out = "running 3 tests\ntest a ... ok\ntest ghost ... FAILED\n";
        let mut b = parse(out).remove(0);
        assert!(!b.finished);
        assert_eq!(b.settle(&mut || Some(vec!["a".into(), "b".into()])), None);
        assert_eq!(b.results, vec![("a".into(), Outcome::Passed)]);
        assert!(!b.reported("ghost"));
    }

    #[test]
    fn captured_output_mentioning_failures_header_keeps_other_tests() {
        let out = "running 2 tests\ntest a ... FAILED\ntest b ... FAILED\n\nfailures:\n\n---- a stdout ----\nhello\n---- b stdout ----\nworld\n\nfailures:\n    a\n    b\n\ntest result: FAILED. 0 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out\n";
        let b = parse(out);
        assert_eq!(b[0].outputs["a"].trim(), "hello");
        assert_eq!(b[0].outputs["b"].trim(), "world");
        assert!(b[0].finished);
    }

    proptest! {
        #[test]
        fn never_panics_on_garbage(s in "(?s).{0,2000}") {
            for mut b in parse(&s) {
                let _ = b.settle(&mut || None);
            }
            let _ = stream(&s, &|_| Known::Custom);
            let _ = list(&s);
        }

        #[test]
        fn never_panics_on_truncation(cut in 0usize..1500) {
            let s: String = SINGLE.chars().take(cut).collect();
            for mut b in parse(&s) {
                prop_assert!(b.results.len() <= 4);
                let _ = b.settle(&mut || Some(vec!["tests::adds".into()]));
            }
        }

        #[test]
        fn never_panics_on_shaped_garbage(a in "[a-z:\\- .()]{0,40}", b in "(?s).{0,200}", n in 0u32..5) {
            let s = format!("running {n} tests\ntest {a} ... {b}\n---- {a} stdout ----\n{b}\nfailures:\n    {a}\ntest result: FAILED. {n} passed; 0 failed; 0 ignored; 0 measured\n");
            for mut blk in parse(&s) {
                let _ = blk.settle(&mut || Some(vec![a.clone()]));
            }
            let _ = stream(&format!("     Running {a}\nprocess didn't exit successfully: `{a}` (signal: {b}"), &|_| Known::Libtest);
            let _ = exit_line(&format!("process didn't exit successfully: `{a}` (exit status: {b}"));
        }
    }
}
