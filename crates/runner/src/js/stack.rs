//! JavaScript errors as runners print them: `Name: message` and more lines, then V8 stack frames
//! (`at fn (/abs/file.js:12:5)`, `at file:///abs/file.mjs:3:4`). Owns the first line an answer
//! carries (folding in what a bare assertion header lacks), the error type, the frames, and the
//! raw tails cut down to the project's own lines.

use std::path::Path;

use pith_model::Frame;

use crate::paths::PathMap;
use crate::text;

/// What one error says, ready for a [`pith_model::Failure`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Parsed {
    pub message: String,
    pub kind: Option<String>,
    /// Outermost first.
    pub frames: Vec<Frame>,
    /// The error's whole text for `Failure::detail`: every message line (the diff included)
    /// and its causes with their project frames; its own frames are in `frames`.
    pub detail: String,
}

/// Reads one error text: its message lines up to the first stack frame, then the frames.
/// `dir` is the directory relative paths in the text are relative to (the runner's rootDir).
pub(crate) fn parse_error(raw: &str, paths: &PathMap, dir: &Path) -> Parsed {
    let clean = text::strip_ansi(raw);
    let lines: Vec<&str> = clean.lines().collect();
    let head_end = lines
        .iter()
        .position(|l| frame_location(l).is_some())
        .unwrap_or(lines.len());
    let head: Vec<&str> = lines[..head_end]
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect();
    let (message, kind) = message_of(&head);
    Parsed {
        message: text::first_line(&paths.scrub(&message)),
        kind,
        frames: frames_of(&lines[head_end..], paths, dir),
        detail: detail_of(&lines, head_end, paths, dir),
    }
}

/// Lines that introduce an error's cause, in the runners' words: node's `[cause]:` and our
/// rendering of an assertion's `actual` error, jest's `Cause:`, `Caused by:`.
fn is_cause_label(line: &str) -> bool {
    let t = line.trim_start();
    ["[cause]:", "Caused by:", "Cause:", "[actual]:"]
        .iter()
        .any(|p| t.starts_with(p))
}

/// An error's whole text: its message lines as printed, then each cause (introduced by its
/// label) with its lines and its frames inside the project. The error's own frames are left
/// out (the failure carries them), as are frames outside the project (node internals,
/// `node_modules`) anywhere.
fn detail_of(lines: &[&str], head_end: usize, paths: &PathMap, dir: &Path) -> String {
    let mut out: Vec<String> = lines[..head_end]
        .iter()
        .map(|l| l.trim_end().to_owned())
        .collect();
    let mut in_cause = false;
    for l in &lines[head_end..] {
        if is_cause_label(l) {
            in_cause = true;
            out.push(String::new());
            out.push(l.trim().to_owned());
            continue;
        }
        if !in_cause {
            continue;
        }
        match frame_location(l) {
            Some((file, line)) => {
                let f = paths.frame(&file, line, Some(dir));
                let at = format!("    at {}", f.location());
                // A frame repeated (an async function's two entries) is said once.
                if f.project && out.last() != Some(&at) {
                    out.push(at);
                }
            }
            None if l.trim_start().starts_with("at ") => {}
            None => out.push(l.trim_end().to_owned()),
        }
    }
    out.join("\n")
}

/// The error type a `Name: message` line starts with (`TypeError`, `AssertionError` from
/// `AssertionError [ERR_ASSERTION]`), and the message after it.
pub(crate) fn split_kind(line: &str) -> (Option<&str>, &str) {
    let Some((name, rest)) = line.split_once(':') else {
        return (None, line);
    };
    let bare = name
        .split_once(" [")
        .map_or(name, |(n, code)| if code.ends_with(']') { n } else { name });
    let ok = !bare.is_empty()
        && bare.len() <= 60
        && bare
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && bare
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.');
    if ok {
        (Some(bare), rest.trim_start())
    } else {
        (None, line)
    }
}

/// The one line that tells what failed, from an error's message lines.
fn message_of(head: &[&str]) -> (String, Option<String>) {
    let Some(first) = head.first() else {
        return (String::new(), None);
    };
    let (kind, body) = split_kind(first);
    let kind = kind.map(str::to_owned);
    let rest = &head[1..];
    if body.starts_with("expect(") {
        // jest's matcher hint names the matcher only; the values are on the next lines. The
        // `// Object.is equality` comment says nothing an agent needs.
        let hint = body.split(" // ").next().unwrap_or(body).trim_end();
        if let Some(refused) = refused_snapshot(rest) {
            return (format!("{hint}: {refused}"), kind);
        }
        return match values(rest) {
            Some(v) => (format!("{hint} ({v})"), kind),
            None => (hint.to_owned(), kind),
        };
    }
    // jest: `Error: thrown: "..."` (or without `Error: `) for a thrown string.
    let thrown = match kind.as_deref() {
        Some("thrown") => Some(body),
        _ => body.strip_prefix("thrown: "),
    };
    if let Some(words) = thrown.and_then(thrown_string) {
        return (words, kind);
    }
    // chai's and jest's notes on how they compared say nothing an agent needs.
    let body = ["Object.is equality", "deep equality"]
        .iter()
        .find_map(|note| body.strip_suffix(note)?.strip_suffix(" // "))
        .unwrap_or(body);
    let shown = match kind.as_deref() {
        // A bare `Error:` prefix tells nothing; a real type does.
        Some("Error") | None => body.to_owned(),
        Some(k) => format!("{k}: {body}"),
    };
    if let Some(d) = long_difference(rest) {
        // chai's (vitest's) line shows each value's first characters only.
        return (
            format!("{} ({d})", text::cut_chars(&shown, SHOWN_WITH_DIFFERENCE)),
            kind,
        );
    }
    if body.ends_with(':') {
        // node's assert: `Expected values to be strictly equal:` and the values below.
        if let Some(v) = values(rest).or_else(|| rest.first().map(|s| (*s).to_owned())) {
            return (format!("{shown} {v}"), kind);
        }
    }
    (shown, kind)
}

/// jest's words when it did not write a new snapshot (under `--ci`, or where `CI` is set),
/// with its reason: the value it received says nothing of why the test failed.
fn refused_snapshot(lines: &[&str]) -> Option<String> {
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with("New snapshot was not written"))?;
    let mut words = lines[at].trim().to_owned();
    if let Some(why) = lines[at + 1..]
        .iter()
        .map(|l| l.trim())
        .find(|l| !l.is_empty())
        .filter(|l| l.starts_with("This is likely because"))
    {
        words.push(' ');
        words.push_str(why);
    }
    Some(words)
}

/// Characters of an assertion's own line kept before where its long values differ.
const SHOWN_WITH_DIFFERENCE: usize = 100;

/// Where two long one-line values first differ: from `Expected:`/`Received:` lines, or a diff
/// of one removed and one added line under `- Expected`/`+ Received` headers (vitest's diffs).
fn long_difference(lines: &[&str]) -> Option<String> {
    let value = |label: &str| {
        lines
            .iter()
            .find_map(|l| l.strip_prefix(label)?.strip_prefix(':'))
            .map(str::trim)
    };
    if let (Some(e), Some(r)) = (value("Expected"), value("Received")) {
        return crate::diff::first_difference_as(e, r, ("Expected", "Received"));
    }
    let header = |l: &&str| l.starts_with("- Expected") || l.starts_with("+ Received");
    if !lines.iter().any(header) {
        return None;
    }
    let body: Vec<&&str> = lines.iter().filter(|l| !header(l)).collect();
    let minus: Vec<&&&str> = body.iter().filter(|l| l.starts_with('-')).collect();
    let plus: Vec<&&&str> = body.iter().filter(|l| l.starts_with('+')).collect();
    match (minus.as_slice(), plus.as_slice()) {
        ([m], [p]) => {
            crate::diff::first_difference_as(m[1..].trim(), p[1..].trim(), ("Expected", "Received"))
        }
        _ => None,
    }
}

/// jest's words for a string thrown where an error was expected (`thrown: "why"`, the string's
/// first line after the quote): its own timeout is one (`thrown: "Exceeded timeout of 5000 ms
/// for a test.`), labelled by its words, not by the quoting.
fn thrown_string(body: &str) -> Option<String> {
    let words = body.strip_prefix('"')?;
    let words = words.strip_suffix('"').unwrap_or(words);
    if words.starts_with("Exceeded timeout of ") {
        Some(words.to_owned())
    } else {
        Some(format!("thrown: {words}"))
    }
}

/// `Expected: 4, Received: 5` from jest's lines, or the first removed and added lines of a diff
/// (jest's `- Expected`/`+ Received`, node's `+ actual - expected`).
fn values(lines: &[&str]) -> Option<String> {
    let expected = lines.iter().find(|l| l.starts_with("Expected"));
    let received = lines.iter().find(|l| l.starts_with("Received"));
    if let (Some(e), Some(r)) = (expected, received) {
        // Long values are told by where they first differ.
        let value = |l: &str| l.split_once(':').map_or("", |(_, v)| v.trim()).to_owned();
        let differ =
            crate::diff::first_difference_as(&value(e), &value(r), ("Expected", "Received"));
        return Some(differ.unwrap_or_else(|| format!("{e}, {r}")));
    }
    let header = |l: &&str| {
        l.starts_with("- Expected")
            || l.starts_with("+ Received")
            || l.starts_with("+ actual - expected")
            || l.starts_with("+ expected - actual")
    };
    if !lines.iter().any(header) {
        return expected.or(received).map(|s| (*s).to_owned());
    }
    let body: Vec<&&str> = lines.iter().filter(|l| !header(l)).collect();
    let minus = body.iter().find(|l| l.starts_with('-'));
    let plus = body.iter().find(|l| l.starts_with('+'));
    let squeeze = |l: &str| {
        let words = l.split_whitespace().collect::<Vec<_>>().join(" ");
        words.trim_end_matches(',').to_owned()
    };
    match (minus, plus) {
        (Some(m), Some(p)) => Some(format!("{}, {}", squeeze(m), squeeze(p))),
        (Some(one), None) | (None, Some(one)) => Some(squeeze(one)),
        (None, None) => None,
    }
}

/// The `file` and line of a stack frame line (`at fn (file:12:5)`, `at file:12:5`), if it is one
/// with a location in a file. `node:` internals, `<anonymous>` and `native` have none.
pub(crate) fn frame_location(line: &str) -> Option<(String, u32)> {
    let rest = line.trim_start().strip_prefix("at ")?;
    let rest = rest.trim_end();
    let loc = match rest.strip_suffix(')') {
        // The first ` (`: a function name never has one, a path may (`a (1).js`).
        Some(inner) => {
            &inner[inner
                .find(" (")
                .map(|i| i + 2)
                .or_else(|| inner.find('('))?..]
        }
        None => rest.strip_prefix("async ").unwrap_or(rest),
    };
    location(loc)
}

/// `path:line:col` or `path:line` with a real path.
pub(crate) fn location(loc: &str) -> Option<(String, u32)> {
    let (before, last) = loc.rsplit_once(':')?;
    let (file, line) = match before.rsplit_once(':') {
        Some((file, line)) if line.bytes().all(|b| b.is_ascii_digit()) && !line.is_empty() => {
            last.bytes().all(|b| b.is_ascii_digit()).then_some(())?;
            (file, line)
        }
        _ => (before, last),
    };
    let line: u32 = line.parse().ok()?;
    if file.is_empty() || file.starts_with("node:") || file.starts_with('<') || file == "native" {
        return None;
    }
    Some((decode_url(file), line))
}

/// `file:///a%20b/c.mjs` → `file:///a b/c.mjs`: V8 prints ES module paths as URLs.
fn decode_url(file: &str) -> String {
    if !file.starts_with("file://") || !file.contains('%') {
        return file.to_owned();
    }
    let bytes = file.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        // Digits read as bytes: a `%` before a multi-byte character is no escape (slicing the
        // text there would split the character), nor is `%+1` (a sign `from_str_radix` takes).
        let hex = |k: usize| bytes.get(k).and_then(|b| char::from(*b).to_digit(16));
        if bytes[i] == b'%' {
            if let (Some(hi), Some(lo)) = (hex(i + 1), hex(i + 2)) {
                out.push((hi * 16 + lo) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| file.to_owned())
}

/// The frames of a stack, outermost first, consecutive repeats dropped.
pub(crate) fn frames_of(lines: &[&str], paths: &PathMap, dir: &Path) -> Vec<Frame> {
    let mut frames: Vec<Frame> = Vec::new();
    for l in lines {
        if let Some((file, line)) = frame_location(l) {
            let f = paths.frame(&file, line, Some(dir));
            if frames.last() != Some(&f) {
                frames.push(f);
            }
        }
    }
    frames.reverse();
    frames
}

/// A stack in the form a native crash prints it (`1: file:///a.mjs:3:32`, `2: fn (file:1:2)`).
pub(crate) fn native_frames(text: &str, paths: &PathMap, dir: &Path) -> Vec<Frame> {
    let Some(i) = text.find("----- JavaScript stack trace -----") else {
        return Vec::new();
    };
    let lines: Vec<String> = text[i..]
        .lines()
        .skip(1)
        .filter_map(|l| {
            let (n, rest) = l.trim().split_once(": ")?;
            n.bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| format!("at {rest}"))
        })
        .collect();
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    frames_of(&refs, paths, dir)
}

/// Whether a line of a runner's output is about what pith added, not the project's run: where
/// the JSON report pith asked for went; vitest's warning when its JSON report is written while
/// tests still run (pith's deadline stopping it, not the "internal bug in Vitest" the warning
/// suspects).
pub(crate) fn of_pith(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("JSON report written to ")
        || t.starts_with("Test results written to: ")
        || t.starts_with("WARNING: Some tests are still running when generating the JSON report")
}

/// `output` without the lines [`of_pith`] tells apart.
pub(crate) fn without_pith(output: &str) -> String {
    let clean = text::strip_ansi(output);
    let mut out = String::with_capacity(clean.len());
    for l in clean.lines().filter(|l| !of_pith(l)) {
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// Output cut down to what explains it: stack frames outside the project, native stack dumps
/// and jest's advice boilerplate go, paths become relative, colour goes; then the last lines.
pub(crate) fn tail(raw: &str, paths: &PathMap, dir: &Path) -> Option<String> {
    // ES module frames are URLs; as paths they become relative like the rest.
    let clean = text::strip_ansi(raw).replace("file:///", "/");
    let mut kept: Vec<&str> = Vec::new();
    let mut advice = false;
    for l in clean.lines() {
        let t = l.trim();
        if advice {
            // jest's advice after a parse error, up to the error itself.
            advice = t != "Details:";
            continue;
        }
        advice = t == "Jest encountered an unexpected token";
        let version = t
            .strip_prefix("Node.js v")
            .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()));
        if version || of_pith(t) {
            continue;
        }
        // `at fn (file:1:2)`, or `3: fn (file:1:2)` in a native crash's JavaScript stack.
        let frame = t.strip_prefix("at ").or_else(|| {
            let (n, rest) = t.split_once(": ")?;
            (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some(rest)
        });
        if let Some(rest) = frame {
            match frame_location(&format!("at {rest}")) {
                Some((file, line)) if paths.frame(&file, line, Some(dir)).project => {}
                Some(_) => continue,
                None if t.starts_with("at ") => continue,
                None => {}
            }
        }
        let native = t
            .split_once(": 0x")
            .is_some_and(|(n, _)| n.bytes().all(|b| b.is_ascii_digit()));
        if native || t == "----- Native stack trace -----" {
            continue;
        }
        kept.push(l);
    }
    crate::verdict::tail(paths, &kept.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths() -> PathMap {
        PathMap::new(Path::new("/ws"))
    }

    fn parse(s: &str) -> Parsed {
        parse_error(s, &paths(), Path::new("/ws"))
    }

    #[test]
    fn a_snapshot_jest_would_not_write_says_why() {
        let p = parse("Error: expect(received).toMatchSnapshot()\n\nSnapshot name: `renders 1`\n\nNew snapshot was not written. The update flag must be explicitly passed to write a new snapshot.\n\nThis is likely because this test is run in a continuous integration (CI) environment in which snapshots are not written by default.\n\nReceived: \"x\"\n    at Object.toMatchSnapshot (/ws/j/a.test.js:4:23)");
        assert_eq!(
            p.message,
            "expect(received).toMatchSnapshot(): New snapshot was not written. The update flag must be explicitly passed to write a new snapshot. This is likely because this test is run in a continuous integration (CI) environment in which snapshots are not written by default."
        );
    }

    #[test]
    fn file_urls_decode_escapes_and_only_escapes() {
        assert_eq!(decode_url("file:///a%20b/c.mjs"), "file:///a b/c.mjs");
        assert_eq!(decode_url("file:///%C3%A9.mjs"), "file:///\u{e9}.mjs");
        // What the fuzzer found: `%` before a multi-byte character panicked (a slice inside it).
        assert_eq!(
            decode_url("file:///a%1\u{fffd}.mjs"),
            "file:///a%1\u{fffd}.mjs"
        );
        assert_eq!(decode_url("file:///a%\u{fffd}b"), "file:///a%\u{fffd}b");
        assert_eq!(decode_url("file:///a%+1b%2"), "file:///a%+1b%2");
        assert_eq!(decode_url("/plain%20path.js"), "/plain%20path.js");
    }

    #[test]
    fn jest_matcher_hints_get_their_values() {
        let p = parse("Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 4\nReceived: 5\n    at Object.toBe (/ws/j/sum.test.js:4:23)\n    at Promise.finally.completed (/ws/node_modules/jest-circus/build/jestAdapterInit.js:1834:28)\n    at new Promise (<anonymous>)");
        assert_eq!(
            p.message,
            "expect(received).toBe(expected) (Expected: 4, Received: 5)"
        );
        assert_eq!(p.kind.as_deref(), Some("Error"));
        let locs: Vec<(String, bool)> =
            p.frames.iter().map(|f| (f.location(), f.project)).collect();
        assert_eq!(
            locs,
            [
                (
                    "node_modules/jest-circus/build/jestAdapterInit.js:1834".to_owned(),
                    false
                ),
                ("j/sum.test.js:4".to_owned(), true)
            ]
        );
        let diff = parse("Error: expect(received).toEqual(expected) // deep equality\n\n- Expected  - 1\n+ Received  + 1\n\n  Object {\n-   \"a\": 2,\n+   \"a\": 1,\n  }\n    at Object.toEqual (/ws/a.test.js:3:5)");
        assert_eq!(
            diff.message,
            "expect(received).toEqual(expected) (- \"a\": 2, + \"a\": 1)"
        );
        let thrown = parse("Error: expect(received).toThrow()\n\nReceived function did not throw\n    at x (/ws/a.test.js:1:1)");
        assert_eq!(
            thrown.message,
            "expect(received).toThrow() (Received function did not throw)"
        );
    }

    #[test]
    fn runner_timeouts_are_labelled_by_their_words() {
        // jest 30's failure message for its own timeout (tests/fixtures/js/jest/timeout_loads).
        let jest = parse("Error: thrown: \"Exceeded timeout of 300 ms for a test.\nAdd a timeout value to this test to increase the timeout, if this is a long-running test. See https://jestjs.io/docs/api#testname-fn-timeout.\"\n    at _getError (/ws/node_modules/jest-circus/build/jestAdapterInit.js:1985:12)\n    at Array.map (<anonymous>)");
        assert_eq!(jest.message, "Exceeded timeout of 300 ms for a test.");
        let s = parse("thrown: \"not an error\"\n    at x (/ws/a.test.js:1:1)");
        assert_eq!(s.message, "thrown: not an error");
        // vitest's, as pith's reporter records it (its report gives the stack alone, whose first
        // line is `Error: STACK_TRACE_ERROR`; `parse::keep_error_types` takes the record).
        let vitest = parse("Error: Test timed out in 300ms.\nIf this is a long-running test, pass a timeout value as the last argument or configure it globally with \"testTimeout\".\n    at task (file:///ws/node_modules/@vitest/runner/dist/chunk-artifact.js:1784:27)");
        assert_eq!(vitest.message, "Test timed out in 300ms.");
    }

    #[test]
    fn real_types_stay_and_node_asserts_fold() {
        let p = parse("TypeError: Cannot read properties of undefined (reading 'x')\n    at area (file:///ws/src/shapes.mjs:2:10)\n    at TestContext.<anonymous> (file:///ws/test/a.test.mjs:5:3)\n    at node:internal/test_runner/test:1:1");
        assert_eq!(
            p.message,
            "TypeError: Cannot read properties of undefined (reading 'x')"
        );
        assert_eq!(p.kind.as_deref(), Some("TypeError"));
        let locs: Vec<String> = p.frames.iter().map(Frame::location).collect();
        assert_eq!(locs, ["test/a.test.mjs:5", "src/shapes.mjs:2"]);
        let a = parse("AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n5 !== 4\n\n    at TestContext.<anonymous> (file:///ws/t.mjs:5:31)");
        assert_eq!(
            a.message,
            "AssertionError: Expected values to be strictly equal: 5 !== 4"
        );
        assert_eq!(a.kind.as_deref(), Some("AssertionError"));
        let d = parse("AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:\n+ actual - expected\n\n  {\n+   a: 1\n-   a: 2\n  }\n    at t (/ws/t.js:1:1)");
        assert_eq!(
            d.message,
            "AssertionError: Expected values to be strictly deep-equal: - a: 2, + a: 1"
        );
        let bare = parse("Error: boom\n    at /ws/a.js:1:1");
        assert_eq!(
            (bare.message.as_str(), bare.kind.as_deref()),
            ("boom", Some("Error"))
        );
    }

    #[test]
    fn locations_of_every_frame_shape() {
        let loc = |s: &str| frame_location(s);
        assert_eq!(loc("    at /ws/a.js:2:59"), Some(("/ws/a.js".into(), 2)));
        assert_eq!(loc("at async Promise.all (index 0)"), None, "no file in it");
        assert_eq!(loc("at new Promise (<anonymous>)"), None);
        assert_eq!(loc("at node:internal/main/run_main_module:28:49"), None);
        assert_eq!(
            loc("at Object.<anonymous> (/ws/my dir/a (1).js:3:4)"),
            Some(("/ws/my dir/a (1).js".into(), 3))
        );
        assert_eq!(
            loc("at file:///ws/a%20b.mjs:3:4"),
            Some(("file:///ws/a b.mjs".into(), 3))
        );
        assert_eq!(
            loc("at Parser.raise [as unexpected] (node_modules/@babel/parser/src/tokenizer/index.ts:1603:16)"),
            Some(("node_modules/@babel/parser/src/tokenizer/index.ts".into(), 1603))
        );
        assert_eq!(loc("at x (a.js)"), None);
        assert_eq!(loc("not a frame"), None);
    }

    #[test]
    fn native_crash_stacks_locate() {
        let text = "----- Native stack trace -----\n\n 1: 0xd3a3c0  [node]\n\n----- JavaScript stack trace -----\n\n1: file:///ws/t/crash.test.mjs:3:32\n2: runInAsyncScope (node:async_hooks:206:9)\n";
        let f = native_frames(text, &paths(), Path::new("/ws"));
        assert_eq!(
            f.iter().map(Frame::location).collect::<Vec<_>>(),
            ["t/crash.test.mjs:3"]
        );
        let t = tail(text, &paths(), Path::new("/ws")).unwrap();
        assert!(!t.contains("0xd3a3c0"), "{t}");
        assert!(t.contains("t/crash.test.mjs:3:32"), "{t}");
    }

    #[test]
    fn a_deadline_keeps_vitest_report_warning_out() {
        let text = "\u{1b}[33mWARNING: Some tests are still running when generating the JSON report.This is likely an internal bug in Vitest.Please report it to https://github.com/vitest-dev/vitest/issues\u{1b}[39m\nserver listening on 8080\n";
        let t = tail(text, &paths(), Path::new("/ws")).unwrap();
        assert_eq!(t, "server listening on 8080");
        assert_eq!(
            tail(
                &text[..text.find('\n').unwrap()],
                &paths(),
                Path::new("/ws")
            ),
            None
        );
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,600}") {
            let _ = parse(&s);
            let _ = native_frames(&s, &paths(), Path::new("/ws"));
            let _ = tail(&s, &paths(), Path::new("/ws"));
            for l in s.lines() {
                let _ = frame_location(l);
                let _ = split_kind(l);
            }
        }
    }
}
