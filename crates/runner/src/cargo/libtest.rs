//! libtest's stable human output as `cargo test` prints it, and cargo's stderr lines that say
//! which binary each block of it came from. Best effort on any text: never panics.
//!
//! stdout: one block per test binary, `running N tests`, then `test NAME ... ok|FAILED|ignored`
//! lines, then (on failure) `---- NAME stdout ----` sections with the captured output, then
//! `test result: ...`. stderr: `Running unittests src/lib.rs (target/debug/deps/x-hash)` or
//! `Doc-tests crate`, in the same order as the stdout blocks.

use std::collections::HashMap;

use super::diag;

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
    /// Captured output of failed tests, by name.
    pub outputs: HashMap<String, String>,
    /// `test result:` was printed: the binary ran to its end.
    pub finished: bool,
}

impl Block {
    pub fn reported(&self, name: &str) -> bool {
        self.results.iter().any(|(n, _)| n == name)
    }
}

/// Every block of libtest output in `stdout` (cargo's JSON lines skipped).
pub fn parse(stdout: &str) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    // The failed test whose captured output we are inside.
    let mut capturing: Option<(String, String)> = None;
    let mut in_failures = false;
    for raw in stdout.lines() {
        if diag::is_message(raw) {
            continue;
        }
        let line = raw.trim_end_matches('\r');
        if let Some(n) = running_count(line) {
            flush(&mut blocks, &mut capturing);
            in_failures = false;
            blocks.push(Block {
                declared: n,
                ..Block::default()
            });
            continue;
        }
        let Some(block) = blocks.last_mut() else {
            continue;
        };
        if let Some(name) = line
            .strip_prefix("---- ")
            .and_then(|l| l.strip_suffix(" stdout ----"))
        {
            if block.reported(name) || !in_failures {
                flush(&mut blocks, &mut capturing);
                capturing = Some((name.to_owned(), String::new()));
                in_failures = true;
                continue;
            }
        }
        if let Some((_, out)) = capturing.as_mut() {
            if line == "failures:" || line.starts_with("test result: ") {
                flush(&mut blocks, &mut capturing);
            } else {
                if out.len() < 256 * 1024 {
                    out.push_str(line);
                    out.push('\n');
                }
                continue;
            }
        }
        let Some(block) = blocks.last_mut() else {
            continue;
        };
        if line.starts_with("test result: ") {
            block.finished = true;
            in_failures = false;
            continue;
        }
        if line == "failures:" {
            in_failures = true;
            continue;
        }
        if in_failures {
            continue;
        }
        if let Some((name, outcome)) = result_line(line) {
            if !block.reported(&name) {
                block.results.push((name, outcome));
            }
        }
    }
    flush(&mut blocks, &mut capturing);
    blocks
}

fn flush(blocks: &mut [Block], capturing: &mut Option<(String, String)>) {
    if let (Some((name, out)), Some(b)) = (capturing.take(), blocks.last_mut()) {
        b.outputs.insert(name, out);
    }
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

/// cargo's `Running`/`Doc-tests` lines, in order.
pub fn announced(stderr: &str) -> Vec<Announced> {
    let mut out = Vec::new();
    for line in stderr.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("Running ") {
            // `Running unittests src/lib.rs (target/debug/deps/x-hash)`; older cargo printed
            // just the path, `Running target/debug/deps/x-hash`.
            let exe = match (rest.rfind(" ("), rest.ends_with(')')) {
                (Some(i), true) => &rest[i + 2..rest.len() - 1],
                _ => rest,
            };
            if !exe.is_empty() {
                out.push(Announced::Exe(exe.to_owned()));
            }
        } else if let Some(name) = t.strip_prefix("Doc-tests ") {
            out.push(Announced::Doc(name.trim().to_owned()));
        }
    }
    out
}

/// Executables cargo reports as killed by a signal:
/// ``process didn't exit successfully: `EXE` (signal: 6, SIGABRT: process abort signal)``.
pub fn signaled(stderr: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in stderr.lines() {
        let Some(i) = line.find("process didn't exit successfully: `") else {
            continue;
        };
        let rest = &line[i + "process didn't exit successfully: `".len()..];
        let Some((cmd, why)) = rest.split_once("` (") else {
            continue;
        };
        if let Some(sig) = why.strip_prefix("signal: ") {
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
            let exe = cmd.split(' ').next().unwrap_or(cmd);
            out.push((exe.to_owned(), name));
        }
    }
    out
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
        assert_eq!(
            announced(SINGLE_ERR),
            vec![
                Announced::Exe("target/debug/deps/single-54b0041e1e702ad2".into()),
                Announced::Doc("single".into()),
            ]
        );
        assert_eq!(
            announced("     Running tests/api.rs (target/debug/deps/api-f7)\n     Running target/debug/deps/old-1\n"),
            vec![
                Announced::Exe("target/debug/deps/api-f7".into()),
                Announced::Exe("target/debug/deps/old-1".into()),
            ]
        );
    }

    #[test]
    fn crashed_binary() {
        let stdout = "\nrunning 2 tests\ntest tests::fine ... ok\n\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";
        let b = parse(stdout);
        assert_eq!(b.len(), 2);
        assert!(!b[0].finished);
        assert_eq!(b[0].results.len(), 1);
        let err = "error: test failed, to rerun pass `--lib`\n\nCaused by:\n  process didn't exit successfully: `/tmp/exp/crash/target/debug/deps/crash-13c7f3b4a2d242ba` (signal: 6, SIGABRT: process abort signal)\n";
        assert_eq!(
            signaled(err),
            vec![(
                "/tmp/exp/crash/target/debug/deps/crash-13c7f3b4a2d242ba".into(),
                "SIGABRT".into()
            )]
        );
        assert!(signaled("process didn't exit successfully: `x` (exit status: 101)").is_empty());
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
            let _ = parse(&s);
            let _ = announced(&s);
            let _ = signaled(&s);
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
            let _ = signaled(&format!("process didn't exit successfully: `{a}` (signal: {b}"));
        }
    }
}
