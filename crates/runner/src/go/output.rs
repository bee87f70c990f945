//! What Go tests and the go command print, read: `t.Errorf` log entries (`    file.go:12: why`,
//! located by base name), testify's labelled blocks, panics and fatal errors with their goroutine
//! dumps, go's own timeout panic with its list of running tests, and compiler/vet diagnostics.
//! Plain text in, plain data out; locating files is the caller's business.

/// One `t.Log`/`t.Error` entry: where the testing package says it was called, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// As printed: a base name (`calc_test.go`), or a path with `-fullpath`.
    pub file: String,
    pub line: u32,
    /// The entry's first line.
    pub text: String,
    /// Its continuation lines, trimmed.
    pub more: Vec<String>,
}

/// go's framing lines around each test: never evidence of why it failed.
pub fn is_framing(line: &str) -> bool {
    let t = line.trim_start();
    [
        "=== RUN",
        "=== PAUSE",
        "=== CONT",
        "=== NAME",
        "--- FAIL:",
        "--- PASS:",
        "--- SKIP:",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

/// `    file.go:12: text` → (indent, file, line, text).
fn log_line(line: &str) -> Option<(usize, &str, u32, &str)> {
    let rest = line.trim_start_matches(' ');
    let indent = line.len() - rest.len();
    if indent == 0 {
        return None;
    }
    let i = rest.find(".go:")?;
    let file = &rest[..i + 3];
    if file.len() <= 3 || file.contains(char::is_whitespace) {
        return None;
    }
    let after = &rest[i + 4..];
    let digits = after
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(after.len());
    let n: u32 = after[..digits].parse().ok()?;
    let text = after[digits..].strip_prefix(':')?;
    Some((indent, file, n, text.strip_prefix(' ').unwrap_or(text)))
}

/// The log entries in a test's output, in order.
pub fn entries(lines: &[&str]) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    let mut indent: Option<usize> = None;
    for line in lines {
        if let Some((ind, file, n, text)) = log_line(line) {
            out.push(Entry {
                file: file.to_owned(),
                line: n,
                text: text.trim_end().to_owned(),
                more: Vec::new(),
            });
            indent = Some(ind);
            continue;
        }
        let ind = line.len() - line.trim_start().len();
        match (indent, out.last_mut()) {
            (Some(base), Some(e)) if ind > base && !is_framing(line) => {
                e.more.push(line.trim().to_owned());
            }
            _ => indent = None,
        }
    }
    out
}

/// The message an entry gives: its first line, with the next lines folded in when the first
/// says nothing alone (`mismatch:` then `got: 3` and `want: 4`).
pub fn entry_message(e: &Entry) -> String {
    if let Some(t) = testify(e) {
        return t.message;
    }
    fold(&e.text, e.more.iter().map(String::as_str))
}

/// `head`, followed by up to three of `more` when `head` is empty or ends with a colon.
fn fold<'a>(head: &str, more: impl Iterator<Item = &'a str>) -> String {
    let head = head.trim();
    if !(head.is_empty() || head.ends_with(':')) {
        return head.to_owned();
    }
    let rest: Vec<&str> = more
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(3)
        .collect();
    match (head.is_empty(), rest.is_empty()) {
        (_, true) => head.to_owned(),
        (true, false) => rest.join(", "),
        (false, false) => format!("{head} {}", rest.join(", ")),
    }
}

/// A testify assertion's block: `Error Trace:`, `Error:`, `Test:`, `Messages:` labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Testify {
    pub message: String,
    /// `Error Trace` locations, innermost (the assertion's caller) first.
    pub trace: Vec<(String, u32)>,
}

const TESTIFY_LABELS: &[&str] = &["Error Trace:", "Error:", "Test:", "Messages:"];

/// testify's labelled output, when `e` is one.
pub fn testify(e: &Entry) -> Option<Testify> {
    let mut values: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in &e.more {
        let t = line.trim();
        match TESTIFY_LABELS.iter().find(|l| t.starts_with(*l)) {
            Some(label) => {
                let v = t[label.len()..].trim();
                values.push((label, if v.is_empty() { vec![] } else { vec![v] }));
            }
            None => {
                if let Some((_, vs)) = values.last_mut() {
                    vs.push(t);
                }
            }
        }
    }
    let get = |label: &str| values.iter().find(|(l, _)| *l == label).map(|(_, v)| v);
    let (trace, error) = (get("Error Trace:")?, get("Error:")?);
    let mut parts = error.iter().map(|v| squeeze(v)).filter(|v| !v.is_empty());
    let mut message = parts.next().unwrap_or_default();
    if message.ends_with(':') {
        // `Not equal:` says nothing alone; testify's expected/actual lines follow it.
        let more: Vec<String> = parts
            .take_while(|v| v.starts_with("expected") || v.starts_with("actual"))
            .collect();
        if !more.is_empty() {
            message = format!("{message} {}", more.join(", "));
        }
    }
    if let Some(m) = get("Messages:").and_then(|m| m.first()) {
        message = format!("{message} ({m})");
    }
    let trace = trace
        .iter()
        .filter_map(|t| {
            let (file, line) = t.rsplit_once(':')?;
            Some((file.to_owned(), line.trim().parse().ok()?))
        })
        .collect();
    Some(Testify { message, trace })
}

/// Runs of blanks to one space, and none before a colon (`actual  : 5` → `actual: 5`).
fn squeeze(s: &str) -> String {
    let words: Vec<&str> = s.split_whitespace().collect();
    words.join(" ").replace(" :", ":")
}

/// What ended a test binary abnormally.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CrashKind {
    /// `panic:` — in Go, a test failure.
    Panic,
    /// go's own `-timeout` fired.
    Timeout,
    /// `fatal error:` — the runtime gave up (concurrent map writes, a cgo signal).
    Fatal,
    /// Killed by a signal (`signal: killed`, `SIGSEGV: segmentation violation`).
    Signal(String),
}

/// A goroutine's stack from a dump, innermost first as printed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Goroutine {
    pub header: String,
    pub frames: Vec<RawFrame>,
}

impl Goroutine {
    /// The stack split at a re-panic: a handler that recovers a panic and panics again
    /// (`defer func() { panic(recover()) }()`, or testing's own tRunner) sits above a runtime
    /// `panic(` frame, and the frames below the last such frame are where the value was first
    /// panicked. Returns those (innermost first, as printed) and the handlers' frames above
    /// it (runtime `panic(` frames left out); `None` without a `panic(` frame.
    pub fn origin(&self) -> Option<(&[RawFrame], Vec<&RawFrame>)> {
        let is_panic = |f: &RawFrame| f.func.starts_with("panic(");
        let last = self.frames.iter().rposition(is_panic)?;
        let origin = &self.frames[last + 1..];
        let handlers = self.frames[..last].iter().filter(|f| !is_panic(f));
        (!origin.is_empty()).then(|| (origin, handlers.collect()))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawFrame {
    /// `example.com/x.TestY.func1(...)`, `created by testing.(*T).Run in goroutine 1`.
    pub func: String,
    pub file: String,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crash {
    pub kind: CrashKind,
    /// The crash's own first line, `panic: ` kept, go's `[recovered]` notes removed.
    pub message: String,
    /// For a timeout: the tests go said were running.
    pub running: Vec<String>,
    pub goroutines: Vec<Goroutine>,
}

impl Crash {
    pub fn kind_name(&self) -> String {
        match &self.kind {
            CrashKind::Panic => "panic".into(),
            CrashKind::Timeout => "timeout".into(),
            CrashKind::Fatal => "fatal error".into(),
            CrashKind::Signal(s) => s.clone(),
        }
    }
}

/// The first crash in `lines`: a panic, a fatal error, a signal, or go's timeout panic, with
/// the goroutine dump that follows it.
pub fn crash(lines: &[&str]) -> Option<Crash> {
    let (at, kind, message) = lines.iter().enumerate().find_map(|(i, l)| {
        let l = l.trim_end();
        let (kind, message) = crash_line(l)?;
        Some((i, kind, message))
    })?;
    let rest = &lines[at + 1..];
    let running = if kind == CrashKind::Timeout {
        running_tests(rest)
    } else {
        Vec::new()
    };
    Some(Crash {
        kind,
        message,
        running,
        goroutines: goroutines(rest),
    })
}

fn crash_line(l: &str) -> Option<(CrashKind, String)> {
    if let Some(rest) = l.strip_prefix("panic: ") {
        if rest.starts_with("test timed out after ") {
            return Some((CrashKind::Timeout, rest.to_owned()));
        }
        let mut msg = rest;
        for note in [
            " [recovered]",
            " [recovered, repanicked]",
            " [recovered, reraised]",
        ] {
            msg = msg.strip_suffix(note).unwrap_or(msg);
        }
        return Some((CrashKind::Panic, format!("panic: {msg}")));
    }
    if l.starts_with("fatal error: ") {
        return Some((CrashKind::Fatal, l.to_owned()));
    }
    if let Some(rest) = l.strip_prefix("signal: ") {
        return Some((CrashKind::Signal(signal_of(rest)), l.to_owned()));
    }
    // The runtime's own report of a fatal signal: `SIGSEGV: segmentation violation`.
    let (name, _) = l.split_once(": ")?;
    RUNTIME_SIGNALS
        .contains(&name)
        .then(|| (CrashKind::Signal(name.to_owned()), l.to_owned()))
}

/// Signals the Go runtime reports by name when one kills the program.
const RUNTIME_SIGNALS: &[&str] = &[
    "SIGSEGV", "SIGBUS", "SIGABRT", "SIGQUIT", "SIGILL", "SIGFPE", "SIGTRAP", "SIGSYS", "SIGKILL",
    "SIGTERM",
];

/// The signal name of go's `signal: <description>` (os.ProcessState's words).
fn signal_of(desc: &str) -> String {
    let d = desc.trim_end_matches(" (core dumped)");
    let name = match d {
        "killed" => "SIGKILL",
        "segmentation fault" => "SIGSEGV",
        "aborted" => "SIGABRT",
        "terminated" => "SIGTERM",
        "bus error" => "SIGBUS",
        "illegal instruction" => "SIGILL",
        "floating point exception" => "SIGFPE",
        "interrupt" => "SIGINT",
        "quit" => "SIGQUIT",
        "trace/breakpoint trap" => "SIGTRAP",
        _ if d.starts_with("SIG") => return d.split(':').next().unwrap_or(d).to_owned(),
        _ => "signal",
    };
    name.to_owned()
}

/// `running tests:` then one `Name (3s)` per line.
fn running_tests(lines: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for l in lines {
        let t = l.trim();
        if t == "running tests:" {
            inside = true;
            continue;
        }
        if !inside {
            if t.starts_with("goroutine ") {
                break;
            }
            continue;
        }
        if t.is_empty() {
            break;
        }
        let name = match t.rfind(" (") {
            Some(i) if t.ends_with(')') => &t[..i],
            _ => t,
        };
        out.push(name.to_owned());
    }
    out
}

/// Every goroutine of a dump.
fn goroutines(lines: &[&str]) -> Vec<Goroutine> {
    let mut out: Vec<Goroutine> = Vec::new();
    let mut current: Option<Goroutine> = None;
    let mut func: Option<String> = None;
    for l in lines {
        let l = l.trim_end();
        if l.starts_with("goroutine ") && l.ends_with(':') {
            out.extend(current.take());
            current = Some(Goroutine {
                header: l.to_owned(),
                frames: Vec::new(),
            });
            func = None;
            continue;
        }
        let Some(g) = current.as_mut() else { continue };
        if l.is_empty() {
            out.extend(current.take());
            continue;
        }
        if let Some(loc) = l.strip_prefix('\t') {
            if let (Some(f), Some((file, line))) = (func.take(), location(loc)) {
                g.frames.push(RawFrame {
                    func: f,
                    file,
                    line,
                });
            }
        } else {
            func = Some(l.to_owned());
        }
    }
    out.extend(current);
    out
}

/// `/abs/file.go:12 +0x1d` → (file, 12).
fn location(loc: &str) -> Option<(String, u32)> {
    let loc = loc.trim();
    let loc = [" +0x", " fp=", " pc="]
        .iter()
        .filter_map(|m| loc.find(m))
        .min()
        .map_or(loc, |i| &loc[..i]);
    let (file, line) = loc.rsplit_once(':')?;
    if file.is_empty() {
        return None;
    }
    Some((file.to_owned(), line.parse().ok()?))
}

/// The top-level test a goroutine frame's function belongs to: `example.com/x.TestY.func1(..)`
/// and `example.com/x_test.TestY(..)` → `TestY`.
pub fn test_of_func(func: &str) -> Option<&str> {
    let f = func.strip_prefix("created by ").unwrap_or(func);
    let f = f.split(['(', ' ']).next().unwrap_or(f);
    let last = f.rsplit('/').next().unwrap_or(f);
    let (_, name) = last.split_once('.')?;
    let name = name.split('.').next().unwrap_or(name);
    is_test_func(name).then_some(name)
}

/// `TestX`, `Test`, `ExampleX`, `FuzzX`: what go runs as a test (`Testx` is not one).
pub fn is_test_func(name: &str) -> bool {
    ["Test", "Example", "Fuzz"].iter().any(|p| {
        name.strip_prefix(p).is_some_and(|rest| {
            rest.chars().next().is_none_or(|c| !c.is_lowercase())
                && rest.chars().all(|c| c.is_alphanumeric() || c == '_')
        })
    })
}

/// A compiler or vet diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diag {
    /// As printed: relative to go's working directory, or absolute.
    pub file: Option<String>,
    pub line: Option<u32>,
    pub message: String,
    /// Reported by the vet checks `go test` runs, not the compiler.
    pub vet: bool,
}

/// Diagnostics in build output: `file.go:3:9: message` lines, vet's (after a `# [pkg]`
/// header), and unlocated errors (`no required module provides package ...`), folded with their
/// indented continuation when the first line ends with a colon.
pub fn diagnostics(lines: &[&str]) -> Vec<Diag> {
    let mut out: Vec<Diag> = Vec::new();
    let mut vet = false;
    for raw in lines {
        let l = raw.trim_end();
        if let Some(h) = l.strip_prefix("# ") {
            vet = h.starts_with('[');
            continue;
        }
        if l.trim().is_empty() {
            continue;
        }
        if l.starts_with([' ', '\t']) {
            if let Some(d) = out.last_mut().filter(|d| d.message.ends_with(':')) {
                d.message = format!("{} {}", d.message, l.trim());
            }
            continue;
        }
        let l = l.strip_prefix("vet: ").unwrap_or(l);
        if l == "too many errors"
            || l.starts_with("FAIL")
            || l.starts_with("ok  ")
            || l.starts_with("?   ")
            || l.starts_with("exit status ")
        {
            continue;
        }
        out.push(match located(l) {
            Some((file, line, message)) => Diag {
                file: Some(file.to_owned()),
                line: Some(line),
                message: message.to_owned(),
                vet,
            },
            None => Diag {
                file: None,
                line: None,
                message: l.trim().to_owned(),
                vet,
            },
        });
    }
    out
}

/// `file:12:9: message` or `file:12: message`.
fn located(l: &str) -> Option<(&str, u32, &str)> {
    let mut from = 0;
    while let Some(i) = l[from..].find(':').map(|i| i + from) {
        let after = &l[i + 1..];
        let digits = after
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(after.len());
        if digits > 0 && after[digits..].starts_with(':') {
            let file = &l[..i];
            let line: u32 = after[..digits].parse().ok()?;
            let mut rest = &after[digits + 1..];
            let col = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            if col > 0 && rest[col..].starts_with(':') {
                rest = &rest[col + 1..];
            }
            let message = rest.trim();
            return (!file.trim().is_empty() && !message.is_empty())
                .then_some((file, line, message));
        }
        from = i + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_entries_with_continuations() {
        let lines = [
            "=== RUN   TestLogs",
            "    l_test.go:6: starting up",
            "    l_test.go:7: mismatch:",
            "        got: 3",
            "        want: 4",
            "plain print",
            "    l_test.go:9: fatal 3",
            "--- FAIL: TestLogs (0.00s)",
        ];
        let e = entries(&lines);
        assert_eq!(e.len(), 3);
        assert_eq!((e[0].file.as_str(), e[0].line), ("l_test.go", 6));
        assert_eq!(entry_message(&e[1]), "mismatch: got: 3, want: 4");
        assert_eq!(e[2].more, Vec::<String>::new());
        assert!(entries(&["    x.go:12 no colon", "x.go:1: not indented"]).is_empty());
        let e = entries(&["    /abs/dir/x_test.go:3: fullpath"]);
        assert_eq!(e[0].file, "/abs/dir/x_test.go");
    }

    #[test]
    fn testify_blocks_give_message_and_trace() {
        let lines = [
            "    calc_test.go:14: ",
            "        \tError Trace:\t/ws/calc_test.go:14",
            "        \t            \t\t\t\t/ws/helpers_test.go:30",
            "        \tError:      \tNot equal: ",
            "        \t            \texpected: 4",
            "        \t            \tactual  : 5",
            "        \tTest:       \tTestSum",
            "        \tMessages:   \tsum of two",
        ];
        let e = &entries(&lines)[0];
        let t = testify(e).unwrap();
        assert_eq!(t.message, "Not equal: expected: 4, actual: 5 (sum of two)");
        assert_eq!(
            t.trace,
            [
                ("/ws/calc_test.go".to_owned(), 14),
                ("/ws/helpers_test.go".to_owned(), 30)
            ]
        );
        assert_eq!(entry_message(e), t.message);
        let lines = [
            "    calc_test.go:20: ",
            "        \tError Trace:\t/ws/calc_test.go:20",
            "        \tError:      \tShould be true",
            "        \tTest:       \tTestTrue",
        ];
        assert_eq!(
            testify(&entries(&lines)[0]).unwrap().message,
            "Should be true"
        );
    }

    #[test]
    fn panics_with_their_goroutine() {
        let lines = [
            "--- FAIL: TestMeanOfNothing (0.00s)",
            "panic: runtime error: integer divide by zero [recovered, repanicked]",
            "",
            "goroutine 19 [running]:",
            "testing.tRunner.func1.2({0x55a7a0, 0x6cae50})",
            "\t/usr/local/go/src/testing/testing.go:1974 +0x232",
            "example.com/single.Mean(...)",
            "\t/tmp/single/stats.go:10",
            "example.com/single.TestMeanOfNothing(0x227b328d6488?)",
            "\t/tmp/single/stats_test.go:17 +0x25",
            "created by testing.(*T).Run in goroutine 1",
            "\t/usr/local/go/src/testing/testing.go:2101 +0x4c5",
        ];
        let c = crash(&lines).unwrap();
        assert_eq!(c.kind, CrashKind::Panic);
        assert_eq!(c.message, "panic: runtime error: integer divide by zero");
        let g = &c.goroutines[0];
        assert_eq!(g.frames.len(), 4);
        assert_eq!(g.frames[1].file, "/tmp/single/stats.go");
        assert_eq!(g.frames[1].line, 10);
        assert_eq!(test_of_func(&g.frames[2].func), Some("TestMeanOfNothing"));
        assert_eq!(test_of_func(&g.frames[3].func), None);
        let old = ["panic: boom [recovered]", "\tpanic: boom"];
        assert_eq!(crash(&old).unwrap().message, "panic: boom");
    }

    /// Go 1.26's output of tests/fixtures/go/repanic; older Go prints `[recovered]` and the
    /// re-panic's value on a second line, over the same goroutine dump.
    const REPANIC: &[&str] = &[
        "panic: runtime error: index out of range [2] with length 2 [recovered, repanicked]",
        "",
        "goroutine 7 [running]:",
        "testing.tRunner.func1.2({0x575440, 0x2dab3a844090})",
        "\t/usr/local/go/src/testing/testing.go:1974 +0x232",
        "testing.tRunner.func1()",
        "\t/usr/local/go/src/testing/testing.go:1977 +0x349",
        "panic({0x575440?, 0x2dab3a844090?})",
        "\t/usr/local/go/src/runtime/panic.go:860 +0x13a",
        "example.com/repanic.TestThird.func1()",
        "\t/ws/parse_test.go:14 +0x25",
        "panic({0x575440?, 0x2dab3a844090?})",
        "\t/usr/local/go/src/runtime/panic.go:860 +0x13a",
        "example.com/repanic.Field(...)",
        "\t/ws/parse.go:8",
        "example.com/repanic.TestThird(0x2dab3a842908?)",
        "\t/ws/parse_test.go:17 +0x1f6",
        "testing.tRunner(0x2dab3a842908, 0x593e48)",
        "\t/usr/local/go/src/testing/testing.go:2036 +0xea",
        "created by testing.(*T).Run in goroutine 1",
        "\t/usr/local/go/src/testing/testing.go:2101 +0x4c5",
    ];

    #[test]
    fn a_repanic_is_read_from_its_origin() {
        let mut old = REPANIC.to_vec();
        old[0] = "panic: runtime error: index out of range [2] with length 2 [recovered]";
        old.insert(
            1,
            "\tpanic: runtime error: index out of range [2] with length 2",
        );
        for lines in [REPANIC, &old[..]] {
            let c = crash(lines).unwrap();
            assert_eq!(
                c.message,
                "panic: runtime error: index out of range [2] with length 2"
            );
            let (origin, handlers) = c.goroutines[0].origin().unwrap();
            let at = |fs: &[&RawFrame]| -> Vec<String> {
                fs.iter()
                    .map(|f| format!("{}:{}", f.file, f.line))
                    .collect()
            };
            assert_eq!(
                at(&origin.iter().collect::<Vec<_>>())[..2],
                ["/ws/parse.go:8", "/ws/parse_test.go:17"]
            );
            assert_eq!(
                at(&handlers),
                [
                    "/usr/local/go/src/testing/testing.go:1974",
                    "/usr/local/go/src/testing/testing.go:1977",
                    "/ws/parse_test.go:14"
                ]
            );
        }
        // No runtime `panic(` frame (a fatal error's dump): nothing to split.
        let plain = Goroutine {
            header: "goroutine 1 [running]:".into(),
            frames: vec![RawFrame {
                func: "main.main()".into(),
                file: "/ws/main.go".into(),
                line: 3,
            }],
        };
        assert!(plain.origin().is_none());
    }

    #[test]
    fn timeouts_name_running_tests() {
        let lines = [
            "panic: test timed out after 3s",
            "\trunning tests:",
            "\t\tTestSleepsForever (3s)",
            "\t\tTestSleepsForever/inner (3s)",
            "",
            "goroutine 4 [running]:",
            "testing.(*M).startAlarm.func1()",
            "\t/usr/local/go/src/testing/testing.go:2802 +0x354",
        ];
        let c = crash(&lines).unwrap();
        assert_eq!(c.kind, CrashKind::Timeout);
        assert_eq!(c.message, "test timed out after 3s");
        assert_eq!(c.running, ["TestSleepsForever", "TestSleepsForever/inner"]);
        assert_eq!(c.goroutines.len(), 1);
    }

    #[test]
    fn signals_and_fatal_errors() {
        let c = crash(&["signal: killed"]).unwrap();
        assert_eq!(c.kind, CrashKind::Signal("SIGKILL".into()));
        let c = crash(&["SIGSEGV: segmentation violation", "PC=0x0 m=0"]).unwrap();
        assert_eq!(c.kind_name(), "SIGSEGV");
        let c = crash(&["fatal error: concurrent map writes"]).unwrap();
        assert_eq!(c.kind, CrashKind::Fatal);
        assert!(crash(&["    x_test.go:3: panic: not really", "SIGNAL: x"]).is_none());
    }

    #[test]
    fn test_funcs_are_told_apart() {
        for ok in [
            "Test",
            "TestX",
            "Test_x",
            "ExampleFoo_bar",
            "FuzzParse",
            "Test1",
        ] {
            assert!(is_test_func(ok), "{ok}");
        }
        for no in ["Testx", "test", "Benchmark", "TestA.B", "Tes", ""] {
            assert!(!is_test_func(no), "{no}");
        }
        assert_eq!(
            test_of_func("example.com/a/b_test.TestY.func1.2(0xc0)"),
            Some("TestY")
        );
        assert_eq!(
            test_of_func("created by example.com/a.TestZ in goroutine 6"),
            Some("TestZ")
        );
    }

    #[test]
    fn diagnostics_new_and_old_forms() {
        let lines = [
            "# example.com/vet",
            "calc/calc.go:6:9: invalid operation: n * \"2\" (mismatched types int and untyped string)",
            "too many errors",
            "# [example.com/vet]",
            "vet: ./x_test.go:9:14: fmt.Printf format %d has arg \"x\" of wrong type string",
            "# example.com/nope",
            "no required module provides package example.com/nope; to add it:",
            "\tgo get example.com/nope",
            "/abs/go.mod:3: unknown directive: foo",
        ];
        let d = diagnostics(&lines);
        assert_eq!(d.len(), 4, "{d:?}");
        assert_eq!(d[0].file.as_deref(), Some("calc/calc.go"));
        assert_eq!(d[0].line, Some(6));
        assert!(d[0].message.starts_with("invalid operation"));
        assert!(!d[0].vet);
        assert!(d[1].vet);
        assert_eq!(d[1].file.as_deref(), Some("./x_test.go"));
        assert_eq!(
            d[2].message,
            "no required module provides package example.com/nope; to add it: go get example.com/nope"
        );
        assert_eq!(d[2].file, None);
        assert_eq!(d[3].line, Some(3));
    }

    proptest::proptest! {
        #[test]
        fn text_readers_never_panic(s in "(?s).{0,600}") {
            let lines: Vec<&str> = s.lines().collect();
            for e in entries(&lines) {
                let _ = entry_message(&e);
            }
            let _ = crash(&lines);
            let _ = diagnostics(&lines);
            for l in &lines {
                let _ = test_of_func(l);
                let _ = location(l);
            }
        }
    }
}
