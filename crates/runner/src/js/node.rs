//! node's built-in test runner (`node --test`), read through pith's own reporter
//! (`pith_node_reporter.mjs`), which writes each runner event as a JSON line as it comes.
//!
//! node runs each test file in a child process and reports the file itself as a test (named by
//! its path, at line 1). That test fails with "test failed" when the file did not load or its
//! process died; the reason is only in the file's stderr, which the reporter also receives.
//! Suites and parent tests whose only failure is their children's (`subtestsFailed`) are
//! dropped: the children are reported. A child process blocked in synchronous code sends
//! nothing until it ends, so a run killed then can only name the file.

use serde_json::Value;

use super::report::{Case, CaseStatus, Suite};

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct NodeEvents {
    pub any: bool,
    pub suites: Vec<Suite>,
    /// Files whose process died of a signal: `(file, signal)`.
    pub crashed: Vec<(String, String)>,
    /// Each file's stderr, in order.
    pub stderr: Vec<(String, String)>,
    started: Vec<(String, Vec<String>)>,
    files_started: Vec<String>,
    files_done: Vec<String>,
}

impl NodeEvents {
    fn suite(&mut self, file: &str) -> &mut Suite {
        if let Some(i) = self.suites.iter().position(|s| s.file == file) {
            return &mut self.suites[i];
        }
        self.suites.push(Suite {
            file: file.to_owned(),
            ..Suite::default()
        });
        self.suites.last_mut().expect("just pushed")
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
    let mut ev = NodeEvents::default();
    let mut queued = Stacks::default();
    let mut reported = Stacks::default();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let Some(kind) = v.get("type").and_then(Value::as_str) else {
            continue;
        };
        ev.any = true;
        let Some(file) = v.get("file").and_then(Value::as_str).map(str::to_owned) else {
            continue;
        };
        let name = v.get("name").and_then(Value::as_str).unwrap_or("");
        let nesting = v.get("nesting").and_then(Value::as_i64).unwrap_or(0);
        let file_level = nesting == 0
            && v.get("line").and_then(Value::as_u64) == Some(1)
            && (name == file || file.ends_with(&format!("/{name}")));
        match kind {
            "test:stderr" => {
                let msg = v.get("message").and_then(Value::as_str).unwrap_or("");
                match ev.stderr.iter_mut().find(|(f, _)| *f == file) {
                    Some((_, s)) => s.push_str(msg),
                    None => ev.stderr.push((file.clone(), msg.to_owned())),
                }
            }
            "test:dequeue" | "test:start" if file_level => {
                if !ev.files_started.contains(&file) {
                    ev.files_started.push(file.clone());
                }
                ev.suite(&file);
            }
            "test:dequeue" => {
                let names = queued.push(&file, nesting, name);
                if !ev.files_started.contains(&file) {
                    ev.files_started.push(file.clone());
                }
                if !ev.started.contains(&(file.clone(), names.clone())) {
                    ev.started.push((file.clone(), names));
                }
            }
            "test:start" => {
                reported.push(&file, nesting, name);
            }
            "test:complete" | "test:pass" | "test:fail" if file_level => {
                if !ev.files_done.contains(&file) {
                    ev.files_done.push(file.clone());
                }
                ev.suite(&file);
                if kind == "test:fail" {
                    file_failed(&mut ev, &file, v.get("error"));
                }
            }
            "test:complete" => {
                let names = queued.names(&file, nesting, name);
                ev.started.retain(|(f, n)| !(*f == file && *n == names));
            }
            "test:pass" | "test:fail" => {
                let names = reported.names(&file, nesting, name);
                ev.started.retain(|(f, n)| !(*f == file && *n == names));
                let error = v.get("error").filter(|e| !e.is_null());
                let failure_type = error
                    .and_then(|e| e.get("failureType"))
                    .and_then(Value::as_str);
                let suite = v.get("kind").and_then(Value::as_str) == Some("suite");
                let todo = v.get("todo").and_then(Value::as_bool) == Some(true);
                let skip = v.get("skip").and_then(Value::as_bool) == Some(true);
                let status = if todo || skip {
                    CaseStatus::Skipped
                } else if kind == "test:pass" {
                    CaseStatus::Passed
                } else {
                    CaseStatus::Failed
                };
                let repeats_children = failure_type == Some("subtestsFailed");
                if (suite && status != CaseStatus::Failed) || repeats_children {
                    continue;
                }
                let messages = match (status, error) {
                    (CaseStatus::Failed, Some(e)) => vec![error_text(e)],
                    _ => Vec::new(),
                };
                ev.suite(&file).record(Case {
                    names,
                    status,
                    messages,
                });
            }
            _ => {}
        }
    }
    ev
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
    let code = get("exitCode").and_then(Value::as_i64);
    let stderr = ev.stderr_of(file);
    let text = load_error(&stderr).unwrap_or_else(|| match code {
        Some(c) => format!("Error: the test file exited with code {c}"),
        None => "Error: the test file failed".to_owned(),
    });
    ev.suite(file).error = Some(text);
}

/// An error's text (`Name: message` and the stack), from the underlying error node wraps in
/// its own `ERR_TEST_FAILURE`.
fn error_text(e: &Value) -> String {
    let cause = e.get("cause").filter(|c| c.is_object());
    let src = cause.unwrap_or(e);
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
