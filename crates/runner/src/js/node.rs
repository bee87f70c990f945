//! node's built-in test runner (`node --test`), read through pith's own reporter
//! (`pith_node_reporter.mjs`), which writes each runner event as a JSON line as it comes.
//!
//! node runs each test file in a child process and reports the file itself as a test (named by
//! its path, at line 1). That test fails with "test failed" when the file did not load or its
//! process died; the reason is only in the file's stderr, which the reporter also receives.
//! Suites and parent tests whose only failure is their children's (`subtestsFailed`) are
//! dropped: the children are reported. A child process blocked in synchronous code sends
//! nothing until it ends, so a run killed then can only name the file.
//!
//! node's own summary (`tests`, `pass`, `fail`, `cancelled`...) is kept to check the records
//! against; it counts a file that reported no test of its own as one test. A file whose process
//! ended through `process.exit()` loses the results it had not sent yet: pith's exit hook
//! (loaded into each test process with `--require`) records such exits apart.

use serde_json::Value;

use super::report::{self, Case, CaseStatus, Suite};

/// Bytes of each file's stderr kept from its start (load errors are there) and from its end
/// (crash dumps are there).
const STDERR_HEAD: usize = 64 << 10;
const STDERR_TAIL: usize = 64 << 10;

/// node's summary at the end of a run, as it printed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Summary {
    pub tests: Option<u32>,
    pub pass: Option<u32>,
    pub fail: Option<u32>,
    pub cancelled: Option<u32>,
    pub skipped: Option<u32>,
    pub todo: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct NodeEvents {
    pub any: bool,
    pub suites: Vec<Suite>,
    /// Files whose process died of a signal: `(file, signal)`.
    pub crashed: Vec<(String, String)>,
    /// Each file's stderr, in order (its head and tail when long).
    pub stderr: Vec<(String, String)>,
    /// node's summary, when the run got that far.
    pub summary: Summary,
    /// Files node reported as a test of their own (they reported no test inside), and whether
    /// that passed.
    pub file_results: Vec<(String, bool)>,
    /// What node said outside any test (asynchronous activity after a test ended, coverage
    /// thresholds), a few lines.
    pub diagnostics: Vec<String>,
    /// Results received that node's summary counts as tests (files' own included).
    pub counted: u32,
    started: Vec<(String, Vec<String>)>,
    files_started: Vec<String>,
    files_done: Vec<String>,
    /// Bytes of stderr left out per file.
    stderr_dropped: Vec<(String, u64)>,
}

impl NodeEvents {
    fn suite(&mut self, file: &str) -> &mut Suite {
        report::suite_in(&mut self.suites, file)
    }

    /// Adds to a file's stderr, keeping its head and its tail.
    fn push_stderr(&mut self, file: &str, msg: &str) {
        let i = match self.stderr.iter().position(|(f, _)| f == file) {
            Some(i) => i,
            None => {
                self.stderr.push((file.to_owned(), String::new()));
                self.stderr.len() - 1
            }
        };
        let s = &mut self.stderr[i].1;
        s.push_str(msg);
        if s.len() > STDERR_HEAD + 2 * STDERR_TAIL {
            let mut head = STDERR_HEAD;
            while !s.is_char_boundary(head) {
                head -= 1;
            }
            let mut tail = s.len() - STDERR_TAIL;
            while !s.is_char_boundary(tail) {
                tail += 1;
            }
            let cut = (tail - head) as u64;
            s.replace_range(head..tail, "\n[...]\n");
            match self.stderr_dropped.iter_mut().find(|(f, _)| f == file) {
                Some((_, n)) => *n += cut,
                None => self.stderr_dropped.push((file.to_owned(), cut)),
            }
        }
    }

    pub fn stderr_of(&self, file: &str) -> String {
        self.stderr
            .iter()
            .find(|(f, _)| f == file)
            .map(|(_, s)| s.clone())
            .unwrap_or_default()
    }

    /// Tests that started and never finished (the innermost of nested ones), else each file
    /// that started without finishing (`names` empty).
    pub fn running(&self) -> Vec<(String, Vec<String>)> {
        let mut out = Vec::new();
        for file in &self.files_started {
            let tests: Vec<&(String, Vec<String>)> = self
                .started
                .iter()
                .filter(|(f, n)| {
                    f == file
                        && !self
                            .started
                            .iter()
                            .any(|(g, m)| g == file && m.len() > n.len() && m.starts_with(n))
                })
                .collect();
            if !tests.is_empty() {
                out.extend(tests.into_iter().cloned());
            } else if !self.files_done.contains(file) {
                out.push((file.clone(), Vec::new()));
            }
        }
        out
    }
}

/// Open tests per file, with their nesting, to name a test by its ancestors.
#[derive(Default)]
struct Stacks(Vec<(String, Vec<(i64, String)>)>);

impl Stacks {
    /// The names of the test `name` at `nesting` in `file`, after pushing it.
    fn push(&mut self, file: &str, nesting: i64, name: &str) -> Vec<String> {
        let i = match self.0.iter().position(|(f, _)| f == file) {
            Some(i) => i,
            None => {
                self.0.push((file.to_owned(), Vec::new()));
                self.0.len() - 1
            }
        };
        let stack = &mut self.0[i].1;
        while stack.last().is_some_and(|(n, _)| *n >= nesting) {
            stack.pop();
        }
        stack.push((nesting, name.to_owned()));
        stack.iter().map(|(_, n)| n.clone()).collect()
    }

    /// The names of a test that already started (its ancestors are on the stack).
    fn names(&self, file: &str, nesting: i64, name: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .0
            .iter()
            .find(|(f, _)| f == file)
            .map(|(_, s)| {
                s.iter()
                    .filter(|(n, _)| *n < nesting)
                    .map(|(_, x)| x.clone())
                    .collect()
            })
            .unwrap_or_default();
        out.push(name.to_owned());
        out
    }
}

pub(crate) fn parse(text: &str) -> NodeEvents {
    let mut p = Parser::default();
    for line in text.lines() {
        p.line(line);
    }
    p.ev
}

/// Reads the reporter's records one line at a time.
#[derive(Default)]
pub(crate) struct Parser {
    pub ev: NodeEvents,
    queued: Stacks,
    reported: Stacks,
}

/// Diagnostics kept for the answer's evidence.
const DIAGNOSTICS: usize = 20;

impl Parser {
    /// Reads one record: node's event, the file and nesting of the test it is about.
    pub(crate) fn line(&mut self, line: &str) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            return;
        };
        let Some(kind) = v.get("type").and_then(Value::as_str) else {
            return;
        };
        let ev = &mut self.ev;
        ev.any = true;
        let nesting = v.get("nesting").and_then(Value::as_i64).unwrap_or(0);
        let message = || v.get("message").and_then(Value::as_str).unwrap_or("");
        // node 18 names the file of a test in an ES module by its URL (`file:///…`), and the
        // file's own test by its path: one file, one name.
        let file = v.get("file").and_then(Value::as_str).map(|f| {
            f.strip_prefix("file://")
                .map_or_else(|| f.to_owned(), crate::text::percent_decode)
        });
        let Some(file) = file else {
            if kind == "test:diagnostic" && nesting == 0 {
                let msg = message();
                if msg.starts_with("Error") {
                    ev.diagnostic(msg);
                } else {
                    summary_line(&mut ev.summary, msg);
                }
            }
            return;
        };
        let name = v.get("name").and_then(Value::as_str).unwrap_or("");
        // The file's own test: named by its path (its `line` is 1, or that of the hook that
        // failed in it).
        let file_level = nesting == 0 && (name == file || file.ends_with(&format!("/{name}")));
        match kind {
            "test:stderr" => ev.push_stderr(&file, message()),
            "test:diagnostic" => {
                let msg = message();
                if msg.starts_with("Error") {
                    ev.diagnostic(msg);
                }
            }
            "test:dequeue" | "test:start" if file_level => {
                ev.file_started(&file);
                ev.suite(&file);
            }
            "test:dequeue" => {
                let names = self.queued.push(&file, nesting, name);
                ev.file_started(&file);
                ev.started.push((file, names));
            }
            "test:start" => {
                self.reported.push(&file, nesting, name);
            }
            "test:complete" | "test:pass" | "test:fail" if file_level => {
                ev.file_result(kind, &file, v.get("error"));
            }
            "test:complete" => {
                let names = self.queued.names(&file, nesting, name);
                ev.finished(&file, &names);
            }
            "test:pass" | "test:fail" => {
                let names = self.reported.names(&file, nesting, name);
                ev.result(kind == "test:pass", &file, names, &v);
            }
            _ => {}
        }
    }
}

impl NodeEvents {
    fn file_started(&mut self, file: &str) {
        if !self.files_started.iter().any(|f| f == file) {
            self.files_started.push(file.to_owned());
        }
    }

    /// The file's own test ended (`test:complete`) or reported (`test:pass`, `test:fail`):
    /// node counts the latter as a test.
    fn file_result(&mut self, kind: &str, file: &str, error: Option<&Value>) {
        if !self.files_done.iter().any(|f| f == file) {
            self.files_done.push(file.to_owned());
        }
        self.suite(file);
        if kind != "test:complete" {
            self.file_results
                .push((file.to_owned(), kind == "test:pass"));
            self.counted += 1;
        }
        if kind == "test:fail" {
            file_failed(self, file, error);
        }
    }

    /// A test's result (`passed` or failed, todo and skip as skipped). Suites are counted
    /// apart and kept only when they failed themselves; a parent whose only failure is its
    /// children's (`subtestsFailed`) is dropped: the children are reported.
    fn result(&mut self, passed: bool, file: &str, names: Vec<String>, v: &Value) {
        self.finished(file, &names);
        let error = v.get("error").filter(|e| !e.is_null());
        let failure_type = error
            .and_then(|e| e.get("failureType"))
            .and_then(Value::as_str);
        let suite = v.get("kind").and_then(Value::as_str) == Some("suite");
        let flag = |k: &str| v.get(k).and_then(Value::as_bool) == Some(true);
        let status = if flag("todo") || flag("skip") {
            CaseStatus::Skipped
        } else if passed {
            CaseStatus::Passed
        } else {
            CaseStatus::Failed
        };
        if !suite {
            self.counted += 1;
        }
        let repeats_children = failure_type == Some("subtestsFailed");
        if (suite && status != CaseStatus::Failed) || repeats_children {
            return;
        }
        let messages = match (status, error) {
            (CaseStatus::Failed, Some(e)) => vec![error_text(e)],
            _ => Vec::new(),
        };
        self.suite(file).record(Case {
            names,
            status,
            messages,
            retried: 0,
            phase: pith_model::Phase::Call,
        });
    }
}

impl NodeEvents {
    /// Keeps an error node reported outside any test (a few of them).
    fn diagnostic(&mut self, msg: &str) {
        if self.diagnostics.len() < DIAGNOSTICS {
            self.diagnostics.push(crate::text::first_line(msg));
        }
    }

    /// A test of `file` named `names` ended: one occurrence of it is no longer running.
    fn finished(&mut self, file: &str, names: &[String]) {
        if let Some(i) = self
            .started
            .iter()
            .position(|(f, n)| f == file && n == names)
        {
            self.started.remove(i);
        }
    }

    /// Tests that started in `file` and never finished.
    pub fn unfinished_in(&self, file: &str) -> usize {
        self.started.iter().filter(|(f, _)| f == file).count()
    }
}

/// A record of pith's exit hook: the test file whose process ended through `process.exit()`,
/// and the code it exited with.
pub(crate) fn exit_record(line: &str) -> Option<(String, i64)> {
    let v: Value = serde_json::from_str(line).ok()?;
    if v.get("type").and_then(Value::as_str) != Some("pith:exit") {
        return None;
    }
    let file = v.get("file").and_then(Value::as_str)?.to_owned();
    Some((file, v.get("code").and_then(Value::as_i64).unwrap_or(0)))
}

/// One line of node's closing summary (`tests 7`, `fail 2`).
fn summary_line(s: &mut Summary, msg: &str) {
    let Some((key, n)) = msg.trim().split_once(' ') else {
        return;
    };
    let Ok(n) = n.trim().parse::<u32>() else {
        return;
    };
    let slot = match key {
        "tests" => &mut s.tests,
        "pass" => &mut s.pass,
        "fail" => &mut s.fail,
        "cancelled" => &mut s.cancelled,
        "skipped" => &mut s.skipped,
        "todo" => &mut s.todo,
        _ => return,
    };
    *slot = Some(n);
}

/// The file's own test failed: its process died, or it did not load.
fn file_failed(ev: &mut NodeEvents, file: &str, error: Option<&Value>) {
    let error = error.filter(|e| !e.is_null());
    let get = |k: &str| error.and_then(|e| e.get(k));
    if get("failureType").and_then(Value::as_str) == Some("subtestsFailed") {
        return;
    }
    if let Some(sig) = get("signal").and_then(Value::as_str) {
        ev.crashed.push((file.to_owned(), sig.to_owned()));
        return;
    }
    if get("failureType").and_then(Value::as_str) == Some("hookFailed") {
        // A file-level hook (`after`, `before`) failed: its own error says why.
        if let Some(e) = error {
            ev.suite(file).error = Some(error_text(e));
            return;
        }
    }
    let code = get("exitCode").and_then(Value::as_i64);
    if code == Some(1) && async_after_end(ev, file) {
        return;
    }
    let stderr = ev.stderr_of(file);
    let text = load_error(&stderr).unwrap_or_else(|| match code {
        Some(c) => format!("Error: the test file exited with code {c}"),
        None => "Error: the test file failed".to_owned(),
    });
    ev.suite(file).error = Some(text);
}

/// node failed the file because a test of it "generated asynchronous activity after the test
/// ended" (a rejection or an exception once it had passed): that test failed, with node's words.
/// Returns whether any test of `file` was named so.
fn async_after_end(ev: &mut NodeEvents, file: &str) -> bool {
    let mut hit = false;
    for d in ev.diagnostics.clone() {
        if !d.contains("generated asynchronous activity after the test ended") {
            continue;
        }
        let Some((name, after)) = d
            .strip_prefix("Error: Test \"")
            .and_then(|r| r.split_once("\" at "))
        else {
            continue;
        };
        let loc = after.split(' ').next().unwrap_or("");
        let mut parts = loc.split(':');
        let path = parts.next().unwrap_or("");
        let line = parts
            .next()
            .and_then(|n| n.parse::<u32>().ok())
            .unwrap_or(1);
        if path.is_empty() || !(file == path || file.ends_with(&format!("/{path}"))) {
            continue;
        }
        let case =
            ev.suite(file).cases.iter_mut().rev().find(|c| {
                c.status == CaseStatus::Passed && c.names.last().is_some_and(|n| n == name)
            });
        if let Some(c) = case {
            c.status = CaseStatus::Failed;
            c.messages = vec![format!("{d}\n    at {file}:{line}:1")];
            hit = true;
        }
    }
    hit
}

/// An error's text (`Name: message` and the stack), from the underlying error node wraps in
/// its own `ERR_TEST_FAILURE`; then its causes (`[cause]:`) and, for `assert.doesNotThrow`, the
/// error the code really threw (`[actual]:`), each with its stack.
fn error_text(e: &Value) -> String {
    let cause = e.get("cause").filter(|c| c.is_object());
    let mut out = one_error(cause.unwrap_or(e));
    let mut at = cause.unwrap_or(e);
    for _ in 0..4 {
        let (label, next) = match (at.get("cause"), at.get("actual")) {
            (Some(c), _) if c.is_object() => ("[cause]:", c),
            (_, Some(a)) if a.is_object() => ("[actual]:", a),
            _ => break,
        };
        out.push_str(&format!("\n{label} {}", one_error(next)));
        at = next;
    }
    out
}

fn one_error(src: &Value) -> String {
    let get = |k: &str| src.get(k).and_then(Value::as_str).unwrap_or("");
    let (name, message, stack) = (get("name"), get("message"), get("stack"));
    if !stack.is_empty() && !name.is_empty() && stack.starts_with(name) {
        return stack.to_owned();
    }
    let name = if name.is_empty() { "Error" } else { name };
    format!("{name}: {message}\n{stack}")
}

/// What node printed when a test file did not load, as an error text: the error line (`SyntaxError:
/// Unexpected token ';'`), its stack, and the `file:line` node prints above the source line,
/// as the outermost frame.
pub(crate) fn load_error(stderr: &str) -> Option<String> {
    let lines: Vec<&str> = stderr.lines().collect();
    let at = lines.iter().position(|l| {
        !l.starts_with(char::is_whitespace) && {
            let (kind, _) = super::stack::split_kind(l);
            kind.is_some_and(|k| k.ends_with("Error") || k.ends_with("Exception"))
        }
    })?;
    let mut out = vec![lines[at].to_owned()];
    out.extend(
        lines[at + 1..]
            .iter()
            .take_while(|l| l.trim_start().starts_with("at "))
            .map(|l| (*l).to_owned()),
    );
    let header = lines.first().map(|l| l.trim()).filter(|l| {
        l.rsplit_once(':').is_some_and(|(f, n)| {
            (f.starts_with('/') || f.starts_with("file://"))
                && !n.is_empty()
                && n.bytes().all(|b| b.is_ascii_digit())
        })
    });
    if let Some(h) = header {
        out.push(format!("    at {h}"));
    }
    Some(out.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const STREAM: &str = r#"{"type":"test:dequeue","name":"/ws/a.test.mjs","nesting":0,"file":"/ws/a.test.mjs","line":1}
{"type":"test:dequeue","name":"math","nesting":0,"file":"/ws/a.test.mjs","line":4}
{"type":"test:dequeue","name":"adds","nesting":1,"file":"/ws/a.test.mjs","line":5}
{"type":"test:complete","name":"adds","nesting":1,"file":"/ws/a.test.mjs","line":5}
{"type":"test:start","name":"math","nesting":0,"file":"/ws/a.test.mjs","line":4}
{"type":"test:start","name":"adds","nesting":1,"file":"/ws/a.test.mjs","line":5}
{"type":"test:fail","name":"adds","nesting":1,"file":"/ws/a.test.mjs","line":5,"kind":"test","error":{"name":"Error","message":"x","failureType":"testCodeFailure","cause":{"name":"AssertionError","message":"5 !== 4","stack":"AssertionError [ERR_ASSERTION]: 5 !== 4\n    at TestContext.<anonymous> (file:///ws/a.test.mjs:5:31)"}}}
{"type":"test:start","name":"td","nesting":1,"file":"/ws/a.test.mjs","line":6}
{"type":"test:pass","name":"td","nesting":1,"file":"/ws/a.test.mjs","line":6,"kind":"test","todo":true}
{"type":"test:fail","name":"math","nesting":0,"file":"/ws/a.test.mjs","line":4,"kind":"suite","error":{"failureType":"subtestsFailed"}}
{"type":"test:dequeue","name":"waits","nesting":0,"file":"/ws/a.test.mjs","line":9}
{"type":"test:dequeue","name":"/ws/b.test.mjs","nesting":0,"file":"/ws/b.test.mjs","line":1}
{"type":"test:stderr","file":"/ws/c.test.js","message":"/ws/c.test.js:2\n"}
{"type":"test:stderr","file":"/ws/c.test.js","message":"test('a', () => { let x = ; });\n\nSyntaxError: Unexpected token ';'\n    at wrapSafe (node:internal/modules/cjs/loader:1464:18)\n\nNode.js v20.20.2\n"}
{"type":"test:fail","name":"/ws/c.test.js","nesting":0,"file":"/ws/c.test.js","line":1,"error":{"message":"test failed","failureType":"testCodeFailure","exitCode":1}}
{"type":"test:fail","name":"/ws/d.test.mjs","nesting":0,"file":"/ws/d.test.mjs","line":1,"error":{"message":"test failed","failureType":"testCodeFailure","signal":"SIGABRT"}}
{"type":"test:diagnostic","nesting":0,"message":"tests 9"}
{"type":"test:pass","name":"trunc"#;

    #[test]
    fn results_running_and_file_failures() {
        let ev = parse(STREAM);
        assert!(ev.any);
        let a = &ev.suites[0];
        assert_eq!(a.file, "/ws/a.test.mjs");
        assert_eq!(a.cases.len(), 2, "the suite repeating its child is dropped");
        assert_eq!(a.cases[0].names, ["math", "adds"]);
        assert_eq!(a.cases[0].status, CaseStatus::Failed);
        assert!(a.cases[0].messages[0].starts_with("AssertionError [ERR_ASSERTION]: 5 !== 4"));
        assert_eq!(a.cases[1].status, CaseStatus::Skipped);
        assert_eq!(
            ev.running(),
            [
                ("/ws/a.test.mjs".to_owned(), vec!["waits".to_owned()]),
                ("/ws/b.test.mjs".to_owned(), vec![]),
            ]
        );
        let c = ev
            .suites
            .iter()
            .find(|s| s.file == "/ws/c.test.js")
            .unwrap();
        assert_eq!(
            c.error.as_deref(),
            Some("SyntaxError: Unexpected token ';'\n    at wrapSafe (node:internal/modules/cjs/loader:1464:18)\n    at /ws/c.test.js:2")
        );
        assert_eq!(
            ev.crashed,
            [("/ws/d.test.mjs".to_owned(), "SIGABRT".to_owned())]
        );
    }

    #[test]
    fn summary_counts_and_exits() {
        let stream = r#"{"type":"test:pass","name":"same","nesting":0,"file":"/ws/a.test.js","line":3}
{"type":"test:fail","name":"same","nesting":0,"file":"/ws/a.test.js","line":3,"error":{"failureType":"testCodeFailure","name":"Error","message":"x","stack":"Error: x"}}
{"type":"test:fail","name":"/ws/a.test.js","nesting":0,"file":"/ws/a.test.js","line":2,"error":{"failureType":"hookFailed","cause":{"name":"Error","message":"after boom","stack":"Error: after boom\n    at /ws/a.test.js:2:21"}}}
{"type":"test:pass","name":"/ws/b.test.js","nesting":0,"file":"/ws/b.test.js","line":1}
{"type":"test:diagnostic","nesting":0,"message":"Error: Test \"late\" at a.test.js:2:1 generated asynchronous activity after the test ended."}
{"type":"test:diagnostic","nesting":0,"message":"tests 5"}
{"type":"test:diagnostic","nesting":0,"message":"pass 2"}
{"type":"test:diagnostic","nesting":0,"message":"fail 3"}"#;
        let ev = parse(stream);
        assert_eq!(ev.suites[0].cases.len(), 2, "both occurrences of 'same'");
        assert!(ev.suites[0]
            .error
            .as_deref()
            .unwrap()
            .contains("after boom"));
        assert_eq!(
            ev.file_results,
            [
                ("/ws/a.test.js".to_owned(), false),
                ("/ws/b.test.js".to_owned(), true)
            ]
        );
        assert_eq!(ev.counted, 4);
        assert_eq!(
            (ev.summary.tests, ev.summary.pass, ev.summary.fail),
            (Some(5), Some(2), Some(3))
        );
        assert_eq!(ev.diagnostics.len(), 1);
        assert_eq!(
            exit_record(r#"{"type":"pith:exit","file":"/ws/a.test.js","code":0}"#),
            Some(("/ws/a.test.js".to_owned(), 0))
        );
        assert_eq!(exit_record(r#"{"type":"test:pass"}"#), None);
    }

    #[test]
    fn activity_after_a_test_ended_fails_that_test() {
        let stream = r#"{"type":"test:pass","name":"rej","nesting":0,"file":"/ws/tests/c.test.js","line":3}
{"type":"test:diagnostic","nesting":0,"message":"Error: Test \"rej\" at tests/c.test.js:3:1 generated asynchronous activity after the test ended. This activity created the error \"Error: rejected\" and would have caused the test to fail, but instead triggered an unhandledRejection event."}
{"type":"test:fail","name":"/ws/tests/c.test.js","nesting":0,"file":"/ws/tests/c.test.js","line":1,"error":{"message":"test failed","failureType":"testCodeFailure","exitCode":1}}"#;
        let ev = parse(stream);
        let c = &ev.suites[0];
        assert_eq!(c.error, None);
        assert_eq!(c.cases[0].status, CaseStatus::Failed);
        assert!(c.cases[0].messages[0].starts_with(
            "Error: Test \"rej\" at tests/c.test.js:3:1 generated asynchronous activity"
        ));
        assert!(c.cases[0].messages[0].ends_with("at /ws/tests/c.test.js:3:1"));
    }

    /// node 18 (an ES module's tests): each test's file is its URL, the file's own test's its
    /// path; a run killed in `waits forever` names that test alone, the file once.
    #[test]
    fn node_18_names_a_module_s_file_by_its_url() {
        let stream = r#"{"type":"test:dequeue","name":"/ws/t/h a.test.js","nesting":0,"file":"/ws/t/h a.test.js","line":1}
{"type":"test:dequeue","name":"quick","nesting":0,"file":"file:///ws/t/h%20a.test.js","line":4}
{"type":"test:start","name":"quick","nesting":0,"file":"file:///ws/t/h%20a.test.js","line":4}
{"type":"test:pass","name":"quick","nesting":0,"file":"file:///ws/t/h%20a.test.js","line":4}
{"type":"test:dequeue","name":"server","nesting":0,"file":"file:///ws/t/h%20a.test.js","line":6}
{"type":"test:dequeue","name":"waits forever","nesting":1,"file":"file:///ws/t/h%20a.test.js","line":7}"#;
        let ev = parse(stream);
        assert_eq!(ev.suites.len(), 1, "{:?}", ev.suites);
        assert_eq!(ev.suites[0].file, "/ws/t/h a.test.js");
        assert_eq!(
            ev.running(),
            [(
                "/ws/t/h a.test.js".to_owned(),
                vec!["server".to_owned(), "waits forever".to_owned()]
            )]
        );
    }

    #[test]
    fn a_flood_of_stderr_keeps_its_head_and_tail() {
        let mut ev = NodeEvents::default();
        ev.push_stderr("/ws/a.test.js", "Error: first\n");
        for _ in 0..100 {
            ev.push_stderr("/ws/a.test.js", &"x".repeat(10_000));
        }
        ev.push_stderr("/ws/a.test.js", "\nlast words");
        let s = ev.stderr_of("/ws/a.test.js");
        assert!(s.len() <= STDERR_HEAD + 2 * STDERR_TAIL + 16, "{}", s.len());
        assert!(s.starts_with("Error: first") && s.ends_with("last words"));
    }

    #[test]
    fn load_errors_without_a_source_line() {
        let text = "node:internal/modules/esm/resolve:283\n    throw new ERR_MODULE_NOT_FOUND(\n          ^\n\nError [ERR_MODULE_NOT_FOUND]: Cannot find module '/ws/nope.mjs' imported from /ws/a.test.mjs\n    at finalizeResolution (node:internal/modules/esm/resolve:283:11) {\n  code: 'ERR_MODULE_NOT_FOUND'\n}\n";
        assert_eq!(
            load_error(text).as_deref(),
            Some("Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/ws/nope.mjs' imported from /ws/a.test.mjs\n    at finalizeResolution (node:internal/modules/esm/resolve:283:11) {")
        );
        assert_eq!(load_error("nothing here\n"), None);
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,400}", cut in 0usize..3000) {
            let _ = parse(&s).running();
            let _ = load_error(&s);
            let mut end = cut.min(STREAM.len());
            while !STREAM.is_char_boundary(end) { end -= 1; }
            let _ = parse(&STREAM[..end]).running();
        }
    }
}
