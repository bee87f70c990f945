//! The `go test -json` event stream (cmd/test2json) read into per-package state, one line at a
//! time as go prints it: which tests ran and how each ended, what each printed, and the build
//! output of packages that did not compile. Tolerant by construction: a line that is not an
//! event is kept as plain text (old Go wrote build errors there), a truncated stream leaves
//! tests without an end, and no input makes it panic.
//!
//! Memory is bounded whatever the tests print: each test keeps the head and the tail of its
//! output, a test that passed or was skipped keeps none (nothing is read from it), and once the
//! whole stream keeps [`STREAM_BYTES`] every output keeps only a small head and tail.

use std::borrow::Cow;
use std::collections::HashMap;

use pith_model::gain::Printed;
use serde::Deserialize;

use crate::text::BoundedLines;

/// Bytes of one test's (or package's) output kept from its start: the first failure line is
/// there.
const HEAD_BYTES: usize = 64 * 1024;
/// Bytes kept from its end: a panic's goroutine dump is there.
const TAIL_BYTES: usize = 192 * 1024;
/// Longest single line kept; go splits nothing, a test may print megabytes on one line.
const LINE_BYTES: usize = 16 * 1024;
/// Output bytes the whole stream keeps before every output is held to [`TIGHT_HEAD`] +
/// [`TIGHT_TAIL`]: thousands of failing tests that each print a lot stay bounded too.
#[cfg(not(test))]
const STREAM_BYTES: usize = 48 << 20;
#[cfg(test)]
const STREAM_BYTES: usize = 1 << 20;
const TIGHT_HEAD: usize = 4 * 1024;
const TIGHT_TAIL: usize = 12 * 1024;

/// One event, borrowing from its line where it can: a stream is read event by event, often
/// millions of them, and most fields are only looked at.
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct RawEvent<'a> {
    #[serde(borrow)]
    action: Option<Cow<'a, str>>,
    #[serde(borrow)]
    package: Option<Cow<'a, str>>,
    #[serde(borrow)]
    test: Option<Cow<'a, str>>,
    #[serde(borrow)]
    output: Option<Cow<'a, str>>,
    elapsed: Option<f64>,
    #[serde(borrow)]
    import_path: Option<Cow<'a, str>>,
    #[serde(borrow)]
    failed_build: Option<Cow<'a, str>>,
}

/// How a test or a package ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    Fail,
    Skip,
}

/// Output lines, bounded: the head and the tail are kept, the middle of a flood is dropped.
#[derive(Debug, Default, Clone)]
pub struct Lines {
    kept: BoundedLines,
    /// The last line, not yet ended by a newline.
    partial: String,
}

impl Lines {
    #[cfg(test)]
    fn push_output(&mut self, out: &str) {
        self.push_bounded(out, false);
    }

    /// Appends `out`; `tight` holds what is kept to the small head and tail.
    fn push_bounded(&mut self, out: &str, tight: bool) {
        let mut rest = out;
        while let Some(i) = rest.find('\n') {
            self.partial_push(&rest[..i]);
            let line = std::mem::take(&mut self.partial);
            self.push_line_capped(line, tight);
            rest = &rest[i + 1..];
        }
        self.partial_push(rest);
    }

    /// Bytes kept.
    pub fn bytes(&self) -> usize {
        self.kept.bytes() + self.partial.len()
    }

    /// Forgets everything kept (what a passed test printed is never read).
    fn clear(&mut self) {
        *self = Lines::default();
    }

    /// The last line printed, ended or not.
    fn last(&self) -> Option<&str> {
        if !self.partial.is_empty() {
            return Some(&self.partial);
        }
        self.kept.iter().next_back()
    }

    fn partial_push(&mut self, s: &str) {
        let room = LINE_BYTES.saturating_sub(self.partial.len());
        if s.len() <= room {
            self.partial.push_str(s);
        } else {
            let mut end = room;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            self.partial.push_str(&s[..end]);
        }
    }

    fn push_line_capped(&mut self, line: String, tight: bool) {
        let (head_cap, tail_cap) = if tight {
            (TIGHT_HEAD, TIGHT_TAIL)
        } else {
            (HEAD_BYTES, TAIL_BYTES)
        };
        let line = line.strip_suffix('\r').map(str::to_owned).unwrap_or(line);
        self.kept.push(line, head_cap, tail_cap);
    }

    /// Whether lines were left out between head and tail.
    #[cfg(test)]
    pub fn dropped(&self) -> bool {
        self.kept.dropped > 0
    }

    /// Every kept line, in order (a pending partial line last).
    pub fn all(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self.kept.iter().collect();
        if !self.partial.is_empty() {
            out.push(&self.partial);
        }
        out
    }
}

/// One test (top-level or subtest, named in full: `TestA/sub`).
#[derive(Debug, Clone)]
pub struct Test {
    pub name: String,
    pub outcome: Option<Outcome>,
    /// Paused (`t.Parallel`) and not continued since: waiting, not running.
    pub paused: bool,
    pub elapsed: Option<f64>,
    pub output: Lines,
}

/// One package's test binary.
#[derive(Debug, Clone)]
pub struct Package {
    pub name: String,
    pub outcome: Option<Outcome>,
    /// The import path whose build failed (Go ≥ 1.24 names it on the package's `fail`).
    pub failed_build: Option<String>,
    pub elapsed: Option<f64>,
    /// What the binary printed outside any test.
    pub output: Lines,
    pub tests: Vec<Test>,
    index: HashMap<String, usize>,
}

impl Package {
    fn new(name: String) -> Self {
        Package {
            name,
            outcome: None,
            failed_build: None,
            elapsed: None,
            output: Lines::default(),
            tests: Vec::new(),
            index: HashMap::new(),
        }
    }

    fn test_index(&mut self, name: &str) -> usize {
        match self.index.get(name) {
            Some(&i) => i,
            None => {
                self.tests.push(Test {
                    name: name.to_owned(),
                    outcome: None,
                    paused: false,
                    elapsed: None,
                    output: Lines::default(),
                });
                self.index.insert(name.to_owned(), self.tests.len() - 1);
                self.tests.len() - 1
            }
        }
    }

    /// An event of one of the package's tests: the bytes its output kept before and after.
    fn test_event(
        &mut self,
        test: &str,
        action: &str,
        outcome: Option<Outcome>,
        elapsed: Option<f64>,
        output: &str,
        tight: bool,
    ) -> (usize, usize) {
        let ti = self.test_index(test);
        // The test binary ended while this test ran (`syscall.Exit(0)`, a binary that
        // exits 0 with a parallel test still waiting): test2json gives the package's
        // own result line and end to the test it thinks is running. The package ended;
        // the test did not.
        let misattributed = outcome.is_some()
            && self.tests[ti]
                .output
                .last()
                .is_some_and(|l| is_result_of(l, &self.name));
        if misattributed {
            self.outcome = outcome;
            self.elapsed = elapsed;
        }
        let t = &mut self.tests[ti];
        let before = t.output.bytes();
        match action {
            "output" => t.output.push_bounded(output, tight),
            "pause" => t.paused = true,
            "cont" | "run" => t.paused = false,
            _ => {}
        }
        match outcome {
            // A test run again (`-count=N`, `-cpu=1,2` in the caller's GOFLAGS) that
            // failed once has failed, as go's own verdict says: a later pass does not
            // undo it, nor clear what the failing run printed.
            Some(o) if !misattributed && t.outcome == Some(Outcome::Fail) => {
                t.paused = false;
                if o == Outcome::Fail {
                    t.elapsed = elapsed;
                }
            }
            Some(o) if !misattributed => {
                t.outcome = Some(o);
                t.paused = false;
                t.elapsed = elapsed;
                if o != Outcome::Fail {
                    // Nothing is read from what a passed or skipped test printed.
                    t.output.clear();
                }
            }
            _ => {}
        }
        (before, t.output.bytes())
    }

    /// An event of the package's own, outside any test: the bytes its output kept before and
    /// after.
    fn own_event(
        &mut self,
        action: &str,
        outcome: Option<Outcome>,
        elapsed: Option<f64>,
        failed_build: Option<Cow<'_, str>>,
        output: &str,
        tight: bool,
    ) -> (usize, usize) {
        let before = self.output.bytes();
        if action == "output" {
            self.output.push_bounded(output, tight);
        }
        if let Some(o) = outcome {
            self.outcome = Some(o);
            self.elapsed = elapsed;
            if let Some(fb) = failed_build.filter(|f| !f.is_empty()) {
                self.failed_build = Some(fb.into_owned());
            }
        }
        (before, self.output.bytes())
    }

    pub fn get(&self, name: &str) -> Option<&Test> {
        self.index.get(name).map(|&i| &self.tests[i])
    }

    /// Whether the package's build failed: named by `FailedBuild` (Go ≥ 1.24) or by go's own
    /// summary line (`FAIL pkg [build failed]`, `[setup failed]`), which older Go prints too,
    /// for a package whose binary never ran a test (a test's own output saying so is not go's).
    pub fn build_failed(&self) -> bool {
        self.failed_build.is_some()
            || (self.tests.is_empty()
                && self.output.all().iter().any(|l| {
                    l.starts_with("FAIL")
                        && (l.ends_with("[build failed]") || l.ends_with("[setup failed]"))
                }))
    }
}

/// A block of build output for one import path (`build-output` events, Go ≥ 1.24).
#[derive(Debug, Clone, Default)]
pub struct Build {
    pub output: Lines,
    pub failed: bool,
}

/// Everything one `go test -json` stream said.
#[derive(Debug, Clone, Default)]
pub struct Stream {
    pub packages: Vec<Package>,
    index: HashMap<String, usize>,
    pub builds: Vec<Build>,
    build_index: HashMap<String, usize>,
    /// Lines that were not events: build errors from Go < 1.24, or whatever else was mixed in.
    pub text: Lines,
    /// Events read.
    pub events: usize,
    /// Output bytes kept across every test and package (see [`STREAM_BYTES`]).
    kept: usize,
}

impl Stream {
    /// Reads a whole stream. Never fails: what is not an event is plain text.
    pub fn parse(text: &str) -> Stream {
        let mut s = Stream::default();
        for line in text.lines() {
            s.line(line);
        }
        s
    }

    /// Reads one line of a stream as go prints it (without its newline).
    pub fn push(&mut self, line: &[u8]) {
        self.line(&String::from_utf8_lossy(line));
    }

    fn line(&mut self, line: &str) {
        let t = line.trim();
        if t.is_empty() {
            return;
        }
        let event = t
            .starts_with('{')
            .then(|| serde_json::from_str::<RawEvent>(t).ok())
            .flatten();
        match event {
            Some(e) if e.action.is_some() => self.event(e),
            Some(_) => {}
            None => {
                let before = self.text.bytes();
                self.text
                    .push_line_capped(line.to_owned(), self.kept > STREAM_BYTES);
                self.kept = (self.kept + self.text.bytes()).saturating_sub(before);
            }
        }
    }

    fn event(&mut self, e: RawEvent<'_>) {
        self.events += 1;
        let action = e.action.as_deref().unwrap_or("");
        if action == "build-output" || action == "build-fail" {
            self.build_event(action, e.import_path, e.output.as_deref());
            return;
        }
        let Some(name) = e.package.filter(|p| !p.is_empty()) else {
            return;
        };
        let i = match self.index.get(name.as_ref()) {
            Some(&i) => i,
            None => {
                self.packages.push(Package::new(name.to_string()));
                self.index
                    .insert(name.into_owned(), self.packages.len() - 1);
                self.packages.len() - 1
            }
        };
        let tight = self.kept > STREAM_BYTES;
        let pkg = &mut self.packages[i];
        let outcome = match action {
            "pass" => Some(Outcome::Pass),
            "fail" => Some(Outcome::Fail),
            "skip" => Some(Outcome::Skip),
            _ => None,
        };
        let output = e.output.as_deref().unwrap_or("");
        let (before, after) = match e.test.as_deref().filter(|t| !t.is_empty()) {
            Some(test) => pkg.test_event(test, action, outcome, e.elapsed, output, tight),
            None => pkg.own_event(action, outcome, e.elapsed, e.failed_build, output, tight),
        };
        self.kept = (self.kept + after).saturating_sub(before);
    }

    /// A `build-output` or `build-fail` event, for the import path it names.
    fn build_event(&mut self, action: &str, path: Option<Cow<'_, str>>, output: Option<&str>) {
        let Some(path) = path.filter(|p| !p.is_empty()) else {
            return;
        };
        let i = match self.build_index.get(path.as_ref()) {
            Some(&i) => i,
            None => {
                self.builds.push(Build::default());
                self.build_index
                    .insert(path.into_owned(), self.builds.len() - 1);
                self.builds.len() - 1
            }
        };
        let tight = self.kept > STREAM_BYTES;
        let b = &mut self.builds[i];
        let before = b.output.bytes();
        match action {
            "build-fail" => b.failed = true,
            _ => b.output.push_bounded(output.unwrap_or(""), tight),
        }
        self.kept = (self.kept + b.output.bytes()).saturating_sub(before);
    }

    pub fn package(&self, name: &str) -> Option<&Package> {
        self.index.get(name).map(|&i| &self.packages[i])
    }

    /// What plain `go test` (neither `-json` nor `-v`) prints of this run, as far as the
    /// stream kept it: build output, the output of each test that failed or never ended
    /// without the `=== RUN`-style framing `-json` adds, each package's own output but a
    /// passing package's `PASS`, then the lines that were not events. The text a person would
    /// have read, not the events that carry it.
    pub fn printed(&self) -> Printed {
        let mut p = Printed::default();
        for b in &self.builds {
            add_lines(&mut p, &b.output, |_| true);
        }
        for pkg in &self.packages {
            for t in &pkg.tests {
                add_lines(&mut p, &t.output, |l| !is_framing(l));
            }
            let passed = pkg.outcome == Some(Outcome::Pass);
            add_lines(&mut p, &pkg.output, |l| !(passed && l == "PASS"));
        }
        add_lines(&mut p, &self.text, |_| true);
        p
    }
}

/// Adds the kept lines `keep` accepts; a dropped middle ends what is kept (counted, not read).
fn add_lines(p: &mut Printed, lines: &Lines, keep: impl Fn(&str) -> bool) {
    let (head, tail) = lines.kept.head_and_tail();
    for l in head.iter().filter(|l| keep(l)) {
        p.line(l);
    }
    if lines.kept.dropped > 0 {
        p.dropped(lines.kept.dropped as u64);
    }
    for l in tail.iter().filter(|l| keep(l)) {
        p.line(l);
    }
    if !lines.partial.is_empty() && keep(&lines.partial) {
        p.line(&lines.partial);
    }
}

/// The lines `go test -json` (verbose by construction) adds around each test's own output.
fn is_framing(line: &str) -> bool {
    ["=== RUN", "=== PAUSE", "=== CONT", "=== NAME"]
        .iter()
        .any(|f| line.starts_with(f))
}

/// go's result line for `pkg`: `ok  \tpkg\t0.01s`, `FAIL\tpkg\t0.01s`.
fn is_result_of(line: &str, pkg: &str) -> bool {
    ["ok  \t", "FAIL\t"].iter().any(|p| {
        line.strip_prefix(p)
            .and_then(|rest| rest.strip_prefix(pkg))
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('\t'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_is_what_plain_go_test_shows() {
        let s = Stream::parse(concat!(
            r#"{"Action":"run","Package":"p","Test":"TestOk"}"#,
            "\n",
            r#"{"Action":"output","Package":"p","Test":"TestOk","Output":"=== RUN   TestOk\n"}"#,
            "\n",
            r#"{"Action":"output","Package":"p","Test":"TestOk","Output":"    ok_test.go:3: chatty\n"}"#,
            "\n",
            r#"{"Action":"output","Package":"p","Test":"TestOk","Output":"--- PASS: TestOk (0.00s)\n"}"#,
            "\n",
            r#"{"Action":"pass","Package":"p","Test":"TestOk"}"#,
            "\n",
            r#"{"Action":"output","Package":"p","Test":"TestBad","Output":"=== RUN   TestBad\n"}"#,
            "\n",
            r#"{"Action":"output","Package":"p","Test":"TestBad","Output":"    bad_test.go:9: want 2\n"}"#,
            "\n",
            r#"{"Action":"output","Package":"p","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}"#,
            "\n",
            r#"{"Action":"fail","Package":"p","Test":"TestBad"}"#,
            "\n",
            r#"{"Action":"output","Package":"p","Output":"FAIL\n"}"#,
            "\n",
            r#"{"Action":"output","Package":"p","Output":"FAIL\tp\t0.01s\n"}"#,
            "\n",
            r#"{"Action":"fail","Package":"p"}"#,
            "\n",
            r#"{"Action":"output","Package":"q","Output":"PASS\n"}"#,
            "\n",
            r#"{"Action":"output","Package":"q","Output":"ok  \tq\t0.01s\n"}"#,
            "\n",
            r#"{"Action":"pass","Package":"q"}"#,
        ));
        let p = s.printed();
        assert_eq!(
            p.text,
            "    bad_test.go:9: want 2\n--- FAIL: TestBad (0.00s)\nFAIL\nFAIL\tp\t0.01s\nok  \tq\t0.01s\n"
        );
        assert_eq!(p.chars, p.text.chars().count() as u64);
    }

    #[test]
    fn output_is_split_into_lines_across_events() {
        let s = Stream::parse(concat!(
            r#"{"Action":"run","Package":"p","Test":"TestA"}"#,
            "\n",
            r#"{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:3: hal"}"#,
            "\n",
            r#"{"Action":"output","Package":"p","Test":"TestA","Output":"f\nnext\n"}"#,
            "\n",
            r#"{"Action":"fail","Package":"p","Test":"TestA","Elapsed":0.5}"#,
            "\n",
            "# p\n",
            "a.go:1:2: oops\n",
            r#"{"Action":"fail","Package":"p","Elapsed":1}"#,
        ));
        let p = s.package("p").unwrap();
        let t = p.get("TestA").unwrap();
        assert_eq!(t.output.all(), ["    a_test.go:3: half", "next"]);
        assert_eq!(t.outcome, Some(Outcome::Fail));
        assert_eq!(p.outcome, Some(Outcome::Fail));
        assert_eq!(s.text.all(), ["# p", "a.go:1:2: oops"]);
        assert_eq!(s.events, 5);
    }

    #[test]
    fn a_test_run_again_that_failed_once_has_failed() {
        let lines = [
            r#"{"Action":"run","Package":"p","Test":"TestFlip"}"#,
            r#"{"Action":"output","Package":"p","Test":"TestFlip","Output":"    flip_test.go:9: second run differs\n"}"#,
            r#"{"Action":"fail","Package":"p","Test":"TestFlip","Elapsed":0.1}"#,
            r#"{"Action":"run","Package":"p","Test":"TestFlip"}"#,
            r#"{"Action":"output","Package":"p","Test":"TestFlip","Output":"--- PASS: TestFlip (0.00s)\n"}"#,
            r#"{"Action":"pass","Package":"p","Test":"TestFlip","Elapsed":0}"#,
            r#"{"Action":"fail","Package":"p","Elapsed":0.2}"#,
        ];
        let s = Stream::parse(&lines.join("\n"));
        let t = s.packages[0].get("TestFlip").unwrap();
        assert_eq!(t.outcome, Some(Outcome::Fail));
        assert!(t
            .output
            .all()
            .iter()
            .any(|l| l.contains("second run differs")));
    }

    /// A flood across many failing tests: past the stream's budget each keeps a small head and
    /// tail, its last line (where a test says why) included; passed tests keep nothing.
    #[test]
    fn a_stream_keeps_a_bounded_total() {
        let mut s = Stream::default();
        let line = "y".repeat(999);
        for t in 0..100 {
            let ev = |action: &str, out: &str| {
                format!(
                    "{{\"Action\":\"{action}\",\"Package\":\"p\",\"Test\":\"Test{t}\",\"Output\":\"{out}\"}}"
                )
            };
            s.push(ev("run", "").as_bytes());
            for _ in 0..100 {
                s.push(ev("output", &format!("{line}\\n")).as_bytes());
            }
            s.push(ev("output", &format!("    t_test.go:9: why {t}\\n")).as_bytes());
            s.push(ev(if t % 2 == 0 { "fail" } else { "pass" }, "").as_bytes());
        }
        let p = s.package("p").unwrap();
        let kept: usize = p.tests.iter().map(|t| t.output.bytes()).sum();
        assert!(
            kept <= STREAM_BYTES + 100 * (TIGHT_HEAD + TIGHT_TAIL + LINE_BYTES),
            "{kept}"
        );
        assert_eq!(p.get("Test1").unwrap().output.bytes(), 0);
        let last = p.get("Test98").unwrap().output.all();
        assert_eq!(*last.last().unwrap(), "    t_test.go:9: why 98");
    }

    #[test]
    fn floods_keep_head_and_tail() {
        let mut l = Lines::default();
        for i in 0..100_000 {
            l.push_output(&format!("line {i}\n"));
        }
        let all = l.all();
        assert_eq!(all[0], "line 0");
        assert_eq!(*all.last().unwrap(), "line 99999");
        assert!(l.dropped());
        assert!(all.iter().map(|s| s.len()).sum::<usize>() <= HEAD_BYTES + TAIL_BYTES);
        let mut l = Lines::default();
        l.push_output(&"é".repeat(LINE_BYTES));
        assert!(l.all()[0].len() <= LINE_BYTES);
    }
}
