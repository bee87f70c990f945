//! What a raw tail keeps: the lines that explain how a run ended, said once. Runner progress
//! (tests that started and passed) is dropped, identical consecutive blocks collapse to one copy
//! and a count line, and what the failure records already carry is not said again. Every
//! adapter's tail goes through here ([`tail`], [`why_tail`] and [`settle`]), so no runner's
//! progress format or repeated stack reaches an answer.
//!
//! A collapsed block is followed by one line `(same N lines ×R)` (`(same line ×R)` for one
//! line): the block above it appeared R times in a row.

use std::borrow::Cow;

use pith_model::{Phase, Run};

use crate::text::{strip_ansi, TAIL_BYTES, TAIL_LINES};

/// Longest block of lines whose repetition collapses.
const MAX_BLOCK: usize = 12;

/// What a line of runner output says about progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Progress {
    /// A test started (`[ RUN      ] A.b`, `=== RUN   TestX`, `Start 3: a`, `Running a.B`).
    Started,
    /// A test (or a file, a class, a package) passed or was skipped.
    Passed,
    /// Other progress: separators, pauses, percentage lines.
    Chatter,
}

/// The progress a line reports, if it is a progress line of a runner pith drives.
fn progress(line: &str) -> Option<Progress> {
    let t = line.trim();
    let t = t.strip_prefix("[INFO] ").unwrap_or(t);
    use Progress::*;
    // GoogleTest.
    if t.starts_with("[ RUN      ]") {
        return Some(Started);
    }
    if t.starts_with("[       OK ]") || t.starts_with("[  SKIPPED ]") && t.contains(" ms)") {
        return Some(Passed);
    }
    if t.starts_with("[----------]") {
        return Some(Chatter);
    }
    // Go.
    if t.starts_with("=== RUN ") {
        return Some(Started);
    }
    if t.starts_with("=== PAUSE ") || t.starts_with("=== CONT ") || t.starts_with("=== NAME ") {
        return Some(Chatter);
    }
    if t.starts_with("--- PASS: ") || t.starts_with("--- SKIP: ") || t == "PASS" {
        return Some(Passed);
    }
    if t.starts_with("ok  \t") || t.starts_with("ok \t") || t.starts_with("ok\t") {
        return Some(Passed);
    }
    // CTest.
    if ctest_start(t) {
        return Some(Started);
    }
    if t.contains(" Test #") && t.contains(" Passed") {
        return Some(Passed);
    }
    // libtest.
    if t.starts_with("test ") && (t.ends_with(" ... ok") || t.ends_with(" ... ignored")) {
        return Some(Passed);
    }
    if t.starts_with("running ") && (t.ends_with(" tests") || t.ends_with(" test")) {
        return Some(Chatter);
    }
    // Surefire / Gradle.
    if let Some(class) = t.strip_prefix("Running ") {
        if !class.contains(' ') && class.contains('.') && !class.contains('/') {
            return Some(Started);
        }
    }
    if t.starts_with("Tests run: ")
        && t.contains(" in ")
        && t.contains("Failures: 0,")
        && t.contains("Errors: 0,")
    {
        return Some(Passed);
    }
    // jest / vitest / node.
    if t.starts_with("PASS ") || t.starts_with("✓ ") || t.starts_with("✔ ") {
        return Some(Passed);
    }
    if t.starts_with("ok ") && t[3..].starts_with(|c: char| c.is_ascii_digit()) {
        return Some(Passed);
    }
    // pytest.
    if pytest_progress(t) {
        return Some(Chatter);
    }
    if (t.contains(" PASSED") || t.contains(" SKIPPED") || t.contains(" XFAIL"))
        && t.contains("::")
        && t.split_whitespace().count() <= 4
    {
        return Some(Passed);
    }
    None
}

/// `Start  3: Suite.Name` (CTest announcing a test).
fn ctest_start(t: &str) -> bool {
    let Some(rest) = t.strip_prefix("Start ") else {
        return false;
    };
    let rest = rest.trim_start();
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && rest[digits..].starts_with(": ")
}

/// pytest's progress: `tests/test_x.py ..F.s  [ 40%]`, or a line of outcome letters.
fn pytest_progress(t: &str) -> bool {
    let body = match t.rfind('[') {
        Some(i) if t.ends_with("%]") => {
            let pct = &t[i + 1..t.len() - 2];
            if !pct.trim().bytes().all(|b| b.is_ascii_digit()) {
                return false;
            }
            t[..i].trim_end()
        }
        _ => t,
    };
    let letters = match body.split_once(' ') {
        Some((file, rest)) if file.ends_with(".py") => rest.trim(),
        Some(_) => return false,
        None => body,
    };
    !letters.is_empty() && letters.chars().all(|c| ".sxXFE".contains(c))
}

/// `lines` without progress: tests that passed, separators, percentages. A test that started is
/// kept only when it is the last one started and nothing says it passed (the test a crash or a
/// hang took down); the last line is kept whatever it is (where the runner stopped: a binary
/// that exits right after a test passed, without its summary).
pub(crate) fn drop_progress<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    let kinds: Vec<Option<Progress>> = lines.iter().map(|l| progress(l)).collect();
    let last_start = kinds
        .iter()
        .rposition(|k| *k == Some(Progress::Started))
        .filter(|&i| !kinds[i..].contains(&Some(Progress::Passed)));
    lines
        .iter()
        .zip(&kinds)
        .enumerate()
        .filter(|(i, (_, k))| k.is_none() || Some(*i) == last_start || i + 1 == lines.len())
        .map(|(_, (l, _))| *l)
        .collect()
}

/// `lines` with every run of identical consecutive blocks (up to [`MAX_BLOCK`] lines each)
/// reduced to one copy and the line `(same N lines ×R)`.
pub(crate) fn collapse_repeats<'a>(lines: &[&'a str]) -> Vec<Cow<'a, str>> {
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        // The block length that covers most lines from `i` (the shortest on a tie).
        let best = (1..=MAX_BLOCK.min((lines.len() - i) / 2))
            .map(|k| (k, repeats(lines, i, k)))
            .filter(|&(_, r)| r >= 2)
            .max_by_key(|&(k, r)| (k * r, std::cmp::Reverse(k)));
        match best {
            Some((k, r)) => {
                out.extend(lines[i..i + k].iter().map(|l| Cow::Borrowed(*l)));
                out.push(Cow::Owned(if k == 1 {
                    format!("(same line ×{r})")
                } else {
                    format!("(same {k} lines ×{r})")
                }));
                i += k * r;
            }
            None => {
                out.push(Cow::Borrowed(lines[i]));
                i += 1;
            }
        }
    }
    out
}

/// How many times the block `lines[i..i + k]` appears in a row from `i`.
fn repeats(lines: &[&str], i: usize, k: usize) -> usize {
    let block = &lines[i..i + k];
    let mut r = 1;
    while lines.get(i + r * k..i + (r + 1) * k) == Some(block) {
        r += 1;
    }
    r
}

/// Runners' words that only announce a failure the records carry in full: left alone in a
/// tail, they do not keep it.
const HEADINGS: &[&str] = &[
    "test suite failed to run",
    "jest encountered an unexpected token",
    "traceback",
    "error: test run failed",
    "tests failed",
    "there were test failures",
];

/// Reduces the run's tail to what its failure records do not already say: a line that carries
/// a failure's message, names one of its frames (file and line) or is its frame's source line
/// (or a line of a code excerpt around it), or names a collection error's file, is said. When
/// no line that tells why is left (headings aside), the tail goes: a collection error's
/// traceback restated under the error itself.
pub fn settle(run: &mut Run) {
    let Some(tail) = run.tail.take() else {
        return;
    };
    if run.failures.is_empty() {
        run.tail = Some(tail);
        return;
    }
    let lines: Vec<&str> = tail.lines().collect();
    let left: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| !said(run, l) && !l.starts_with("(same "))
        .collect();
    if left.len() == lines.len() {
        run.tail = Some(tail);
        return;
    }
    let tells = |l: &&str| {
        let lower = l.to_lowercase();
        tells_why(l) && !HEADINGS.iter().any(|h| lower.contains(h))
    };
    if !left.iter().any(tells) {
        return;
    }
    let kept: Vec<String> = collapse_repeats(&left)
        .into_iter()
        .map(Cow::into_owned)
        .collect();
    run.tail = Some(kept.join("\n"));
}

/// The shortest line that counts as said because a message contains it: shorter ones
/// (`right: 3`) are fragments that read only with their neighbours.
const MIN_PART: usize = 16;

/// Whether a failure record of `run` already says what `line` says.
fn said(run: &Run, line: &str) -> bool {
    let t = line.trim();
    let body = unqualified(t);
    if body.is_empty() {
        return true;
    }
    let excerpt = is_excerpt(t);
    run.failures.iter().any(|f| {
        let msg = f.message.trim();
        (msg.len() >= 8 && (body.contains(msg) || msg.contains(body) && body.len() >= MIN_PART))
            || excerpt && !f.frames.is_empty()
            || f.frames.iter().any(|fr| {
                fr.code
                    .as_deref()
                    .is_some_and(|c| c.trim() == body || c.len() >= 8 && body.contains(c.trim()))
                    || (t.contains(&fr.file) && names_line(t, &fr.file, fr.line))
            })
            || f.phase == Phase::Collect && names_file(t, &f.test)
    })
}

/// A line without the marks runners put before an error (`E   `, `Caused by: `, `Error: `)
/// and without the package of its exception's name (`java.lang.X: m` is `X: m`).
fn unqualified(t: &str) -> &str {
    let mut b = t;
    for mark in ["E ", "Caused by:", "Error:"] {
        if let Some(rest) = b.strip_prefix(mark) {
            b = rest.trim_start();
        }
    }
    let name_end = b.find([':', ' ']).unwrap_or(b.len());
    match b[..name_end].rfind('.') {
        Some(dot)
            if b[..dot]
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'.' || c == b'_') =>
        {
            &b[dot + 1..]
        }
        _ => b,
    }
}

/// A line of a source excerpt a runner prints around a frame: `  > 3 | code`, `  4 |`,
/// `    |   ^`.
fn is_excerpt(t: &str) -> bool {
    let t = t.strip_prefix('>').unwrap_or(t).trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let rest = t[digits..].trim_start();
    rest.starts_with('|') && (digits > 0 || rest[1..].trim().chars().all(|c| c == '^' || c == '~'))
}

/// Whether `t` names `line` after `file` (`file:12`, `"file", line 12`).
fn names_line(t: &str, file: &str, line: u32) -> bool {
    let Some(i) = t.find(file) else {
        return false;
    };
    let after = &t[i + file.len()..];
    let n = line.to_string();
    after
        .split(|c: char| !c.is_ascii_digit())
        .find(|s| !s.is_empty())
        .is_some_and(|s| s == n)
}

/// Whether `t` names the file a collection error is about, as pytest heads its report
/// (`ImportError while importing test module 'tests/x.py'.`, `tests/x.py:1: in <module>`).
fn names_file(t: &str, test: &str) -> bool {
    !test.is_empty() && !test.contains("::") && t.contains(test)
}

/// Lines from the end of output a tail looks at: enough to find the end's explanation past
/// progress and repeats, bounded so a megabyte of output costs nothing.
const TAIL_WINDOW: usize = 2000;

/// The last [`TAIL_LINES`] non-blank lines of `s` within [`TAIL_BYTES`], colour removed, without
/// runner progress and with repeated blocks collapsed (see the module doc). Lines are kept
/// whole except when a single line alone exceeds the byte bound.
pub fn tail(s: &str) -> String {
    let clean = strip_ansi(s);
    let mut window: Vec<&str> = clean
        .lines()
        .rev()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .take(TAIL_WINDOW)
        .collect();
    window.reverse();
    let lines = collapse_repeats(&drop_progress(&window));
    let mut picked: Vec<&str> = Vec::new();
    let mut bytes = 0;
    for line in lines.iter().rev().map(|l| l.as_ref()) {
        if picked.len() == TAIL_LINES {
            break;
        }
        let cost = line.len() + usize::from(!picked.is_empty());
        if bytes + cost > TAIL_BYTES {
            if picked.is_empty() {
                // One enormous line: keep its end, where the error usually is.
                let mut start = line.len() - TAIL_BYTES.min(line.len());
                while !line.is_char_boundary(start) {
                    start += 1;
                }
                picked.push(&line[start..]);
            }
            break;
        }
        bytes += cost;
        picked.push(line);
    }
    picked.reverse();
    picked.join("\n")
}

/// Lines from the end of output that come before the ones a tail keeps, when looking for why.
const WHY_WINDOW: usize = 80;
/// A tail without a telling line keeps this many of the last lines.
const WHY_FALLBACK_LINES: usize = 5;

/// The tail of a run that is not green though no test failed: from the end of `s`, only the
/// lines that say why (an error, a failure, a threshold, an exit), in order, within the tail's
/// bounds; without such a line, the last few lines. A coverage table or a page of progress
/// dots before pytest's `FAIL Required test coverage of 90% not reached` is not the reason.
pub fn why_tail(s: &str) -> String {
    let clean = strip_ansi(s);
    let lines: Vec<&str> = clean
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect();
    let window = &lines[lines.len().saturating_sub(WHY_WINDOW)..];
    let telling: Vec<&str> = window.iter().copied().filter(|l| tells_why(l)).collect();
    if telling.is_empty() {
        let last = &window[window.len().saturating_sub(WHY_FALLBACK_LINES)..];
        return tail(&last.join("\n"));
    }
    tail(&telling.join("\n"))
}

/// Whether a line says why a run ended (an error, a failure, a signal, a timeout...).
pub(crate) fn tells_why(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    [
        "fail",
        "error",
        "threshold",
        "not reached",
        "not met",
        "exception",
        "abort",
        "exit",
        "interrupt",
        "timeout",
        "timed out",
        "killed",
        "panic",
        "fatal",
    ]
    .iter()
    .any(|k| lower.contains(k))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pith_model::{Failure, Frame};

    fn lines(s: &str) -> Vec<&str> {
        s.lines().collect()
    }

    #[test]
    fn progress_of_every_runner_is_dropped() {
        let out = "[==========] Running 3 tests from 1 test suite.\n\
[----------] 3 tests from Crash\n\
[ RUN      ] Crash.Before\n\
[       OK ] Crash.Before (0 ms)\n\
[ RUN      ] Crash.Segfaults\n";
        assert_eq!(
            drop_progress(&lines(out)),
            [
                "[==========] Running 3 tests from 1 test suite.",
                "[ RUN      ] Crash.Segfaults"
            ]
        );
        // The last started test passed: no started line explains the end.
        let go = "=== RUN   TestA\n=== PAUSE TestA\n=== CONT  TestA\n--- PASS: TestA (0.00s)\nPASS\nok  \texample.com/a\t0.01s\nFAIL\texample.com/b";
        // Where the output stops, even on a test that passed.
        assert_eq!(
            drop_progress(&lines("[ RUN      ] A.b\n[       OK ] A.b (0 ms)\nsummary\n[ RUN      ] A.c\n[       OK ] A.c (0 ms)")),
            ["summary", "[       OK ] A.c (0 ms)"]
        );
        assert_eq!(drop_progress(&lines(go)), ["FAIL\texample.com/b"]);
        let ctest = "    Start 1: A.a\n1/2 Test #1: A.a ..........   Passed    0.01 sec\n    Start 2: A.b\n2/2 Test #2: A.b ..........***Exception: SegFault  0.01 sec";
        assert_eq!(
            drop_progress(&lines(ctest)),
            [
                "    Start 2: A.b",
                "2/2 Test #2: A.b ..........***Exception: SegFault  0.01 sec"
            ]
        );
        let cargo = "running 3 tests\ntest a ... ok\ntest b ... ignored\ntest c ... FAILED";
        assert_eq!(drop_progress(&lines(cargo)), ["test c ... FAILED"]);
        let py = "tests/test_a.py ....                    [ 40%]\n..F\ntests/test_b.py::test_x PASSED [ 50%]\nFatal Python error: Segmentation fault";
        assert_eq!(
            drop_progress(&lines(py)),
            ["Fatal Python error: Segmentation fault"]
        );
        let mvn = "[INFO] Running com.x.ATest\n[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.1 s - in com.x.ATest\n[INFO] Running com.x.BTest\n[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.1 s <<< FAILURE! - in com.x.BTest";
        assert_eq!(
            drop_progress(&lines(mvn)),
            [
                "[INFO] Running com.x.BTest",
                "[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.1 s <<< FAILURE! - in com.x.BTest"
            ]
        );
        // Words that only look like progress stay.
        let plain = "Running out of memory at 3 places\ntest result: FAILED. 1 passed; 1 failed\nE   assert 1 == 2";
        assert_eq!(drop_progress(&lines(plain)), lines(plain));
    }

    #[test]
    fn identical_blocks_collapse_with_a_count() {
        let block = "a\nb\nc\nd\n";
        let text = format!("head\n{}tail", block.repeat(4));
        let got: Vec<String> = collapse_repeats(&lines(&text))
            .into_iter()
            .map(Cow::into_owned)
            .collect();
        assert_eq!(
            got,
            ["head", "a", "b", "c", "d", "(same 4 lines ×4)", "tail"]
        );
        let got: Vec<String> = collapse_repeats(&lines("x\nx\nx\ny"))
            .into_iter()
            .map(Cow::into_owned)
            .collect();
        assert_eq!(got, ["x", "(same line ×3)", "y"]);
        assert_eq!(collapse_repeats(&lines("a\nb\na\nc")).len(), 4);
    }

    fn collect_error(test: &str) -> Failure {
        Failure {
            test: test.into(),
            message: "ValueError: broken at import".into(),
            frames: vec![Frame {
                code: Some("raise ValueError(\"broken at import\")".into()),
                ..Frame::project("src/broken.py", 6)
            }],
            phase: Phase::Collect,
            ..Failure::default()
        }
    }

    #[test]
    fn a_tail_the_records_already_say_goes() {
        // Real pytest output: four modules importing one broken module.
        let mut run = Run::new("pytest");
        let mut tail = String::new();
        for m in ["a", "b", "c", "d"] {
            let test = format!("tests/test_{m}.py");
            tail.push_str(&format!("{test}:1: in <module>\n    from broken import helper\nsrc/broken.py:6: in <module>\n    raise ValueError(\"broken at import\")\nE   ValueError: broken at import\n"));
            run.failures.push(collect_error(&test));
        }
        run.tail = Some(tail.trim_end().to_owned());
        settle(&mut run);
        assert_eq!(run.tail, None);
    }

    #[test]
    fn a_tail_keeps_what_the_records_do_not_say() {
        let mut run = Run::new("pytest");
        run.failures.push(collect_error("tests/test_a.py"));
        run.tail = Some("tests/test_a.py:1: in <module>\nE   ValueError: broken at import\nFatal error: out of disk\nFatal error: out of disk".into());
        settle(&mut run);
        assert_eq!(
            run.tail.as_deref(),
            Some("Fatal error: out of disk\n(same line ×2)")
        );
        // A Java cause chain and a code excerpt restate the record.
        let mut run = Run::new("maven");
        run.failures.push(Failure {
            message: "ExceptionInInitializerError caused by NumberFormatException: For input string: \"ten\"".into(),
            frames: vec![Frame::project("src/test/java/demo/TableTest.java", 8)],
            ..collect_error("src/test/java/demo/TableTest.java")
        });
        run.tail = Some("  ● Test suite failed to run\njava.lang.ExceptionInInitializerError\nCaused by: java.lang.NumberFormatException: For input string: \"ten\"\n    > 8 | x\n      |  ^\n      9 |".into());
        settle(&mut run);
        assert_eq!(run.tail, None);
        // Nothing said by the records: the tail stays as it is.
        let mut run = Run::new("pytest");
        run.failures.push(collect_error("tests/test_a.py"));
        run.tail = Some("MemoryError".into());
        settle(&mut run);
        assert_eq!(run.tail.as_deref(), Some("MemoryError"));
    }

    proptest::proptest! {
        /// Any tail and any record: no panic; what is left is lines of the tail and count lines.
        #[test]
        fn settle_keeps_only_lines_of_the_tail(tail in "(?s).{0,600}", msg in ".{0,40}", code in ".{0,20}") {
            let mut run = Run::new("x");
            run.failures.push(Failure {
                test: "tests/a.py".into(),
                message: msg,
                frames: vec![Frame { code: Some(code), ..Frame::project("tests/a.py", 3) }],
                phase: Phase::Collect,
                ..Failure::default()
            });
            run.tail = Some(tail.clone());
            settle(&mut run);
            for line in run.tail.as_deref().unwrap_or("").lines() {
                proptest::prop_assert!(line.starts_with("(same ") || tail.lines().any(|l| l == line));
            }
        }
    }

    #[test]
    fn tail_keeps_last_lines() {
        let text: String = (0..50).map(|i| format!("line {i}\n")).collect();
        let t = tail(&text);
        assert_eq!(t.lines().count(), TAIL_LINES);
        assert!(t.ends_with("line 49"));
        assert!(t.starts_with("line 30"));
    }

    #[test]
    fn why_tail_keeps_the_lines_that_say_why() {
        let mut out = String::from(
            "........ [ 96%]\nERROR: Coverage failure: total of 97 is less than fail-under=100\n",
        );
        for i in 0..15 {
            out.push_str(&format!(
                "src/pkg/mod{i}.py     12      0      0      0   100%\n"
            ));
        }
        out.push_str("TOTAL 425 10 98 5 97%\nFAIL Required test coverage of 100% not reached. Total coverage: 97.13%\n297 passed in 1.73s\n");
        assert_eq!(
            why_tail(&out),
            "ERROR: Coverage failure: total of 97 is less than fail-under=100\nFAIL Required test coverage of 100% not reached. Total coverage: 97.13%"
        );
        // Nothing telling: the last lines.
        let plain: String = (0..30).map(|i| format!("line {i}\n")).collect();
        assert_eq!(
            why_tail(&plain),
            "line 25\nline 26\nline 27\nline 28\nline 29"
        );
        assert_eq!(why_tail(""), "");
    }

    use proptest::prelude::*;

    proptest! {
        #[test]
        fn why_tail_is_bounded(s in "(?s).{0,5000}") {
            let t = why_tail(&s);
            prop_assert!(t.len() <= TAIL_BYTES);
            prop_assert!(t.lines().count() <= TAIL_LINES);
        }

        #[test]
        fn tail_is_bounded(s in ".{0,5000}") {
            let t = tail(&s);
            prop_assert!(t.len() <= TAIL_BYTES);
            prop_assert!(t.lines().count() <= TAIL_LINES);
            let esc = '\u{1b}';
            prop_assert!(!t.contains(esc));
        }
    }
}
