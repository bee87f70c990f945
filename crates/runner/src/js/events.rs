//! The records pith's jest and vitest reporters stream (one JSON object per line, written as
//! files and tests start and finish): what finished, what was running when the run was killed,
//! and the errors vitest reports outside any test. A truncated last line is ignored.

use serde_json::Value;

use super::report::{self, Case, Flavour, Suite};

/// An error vitest reported outside any test (an unhandled rejection, a worker that died).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unhandled {
    pub text: String,
    /// The test file and name vitest attributed it to, when it did.
    pub path: Option<String>,
    pub test: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Events {
    /// Any record at all: the reporter was loaded.
    pub any: bool,
    /// The run's end record: the stream is complete.
    pub ended: bool,
    /// Files in the order they started, with what finished.
    pub suites: Vec<Suite>,
    /// Files whose end was recorded.
    pub done: Vec<String>,
    /// Tests that started and never finished: `(file, names)`.
    pub started: Vec<(String, Vec<String>)>,
    pub unhandled: Vec<Unhandled>,
}

impl Events {
    fn suite(&mut self, path: &str) -> &mut Suite {
        if let Some(i) = self.suites.iter().position(|s| s.file == path) {
            return &mut self.suites[i];
        }
        self.suites.push(Suite {
            file: path.to_owned(),
            ..Suite::default()
        });
        self.suites.last_mut().expect("just pushed")
    }

    /// What was running: in each file that started without ending, the tests that started
    /// without a result, else the file itself (`names` empty), in the order they started.
    pub fn running(&self) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for s in self.suites.iter().filter(|s| !self.done.contains(&s.file)) {
            let tests = self.unfinished(&s.file);
            if tests.is_empty() {
                out.push((s.file.clone(), Vec::new()));
            }
            out.extend(tests.into_iter().map(|n| (s.file.clone(), n)));
        }
        out
    }

    /// Tests of `file` that started and never finished, even if the file ended (its worker
    /// died under them).
    pub fn unfinished(&self, file: &str) -> Vec<Vec<String>> {
        self.started
            .iter()
            .filter(|(f, _)| f == file)
            .map(|(_, n)| n.clone())
            .collect()
    }
}

pub(crate) fn parse(text: &str, flavour: Flavour) -> Events {
    let mut ev = Events::default();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let Some(kind) = v.get("e").and_then(Value::as_str) else {
            continue;
        };
        ev.any = true;
        let path = v.get("path").and_then(Value::as_str).unwrap_or("");
        let names = || -> Vec<String> {
            v.get("names")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        };
        match kind {
            "file" => {
                ev.suite(path);
            }
            "start" => {
                ev.suite(path);
                let entry = (path.to_owned(), names());
                if !ev.started.contains(&entry) {
                    ev.started.push(entry);
                }
            }
            "case" => {
                let names = names();
                ev.started.retain(|(f, n)| !(f == path && *n == names));
                let status = report::status(
                    v.get("status").and_then(Value::as_str).unwrap_or(""),
                    flavour,
                );
                let messages = v
                    .get("messages")
                    .and_then(Value::as_array)
                    .map_or(&[][..], Vec::as_slice)
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect();
                ev.suite(path).record(Case {
                    names,
                    status,
                    messages,
                });
            }
            "done" => {
                let error = v
                    .get("error")
                    .and_then(Value::as_str)
                    .filter(|e| !e.trim().is_empty())
                    .map(str::to_owned);
                let suite = ev.suite(path);
                if error.is_some() {
                    suite.error = error;
                }
                if !ev.done.iter().any(|d| d == path) {
                    ev.done.push(path.to_owned());
                }
            }
            "end" => {
                ev.ended = true;
                for e in v
                    .get("errors")
                    .and_then(Value::as_array)
                    .map_or(&[][..], Vec::as_slice)
                {
                    let get = |k: &str| e.get(k).and_then(Value::as_str).map(str::to_owned);
                    if let Some(text) = get("text") {
                        ev.unhandled.push(Unhandled {
                            text,
                            path: get("path"),
                            test: get("test"),
                        });
                    }
                }
            }
            _ => {}
        }
    }
    ev
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::report::CaseStatus;

    const STREAM: &str = r#"{"e":"run","files":2}
{"e":"file","path":"/ws/a.test.js"}
{"e":"start","path":"/ws/a.test.js","names":["before"]}
{"e":"case","path":"/ws/a.test.js","names":["before"],"status":"passed","messages":[]}
{"e":"start","path":"/ws/a.test.js","names":["loop","spins"]}
{"e":"file","path":"/ws/b.test.js"}
{"e":"file","path":"/ws/c.test.js"}
{"e":"done","path":"/ws/c.test.js","error":"Cannot find module"}
{"e":"case","path":"/ws/a.te"#;

    #[test]
    fn names_what_was_running() {
        let ev = parse(STREAM, Flavour::Jest);
        assert!(ev.any && !ev.ended);
        assert_eq!(
            ev.running(),
            [
                (
                    "/ws/a.test.js".to_owned(),
                    vec!["loop".to_owned(), "spins".to_owned()]
                ),
                ("/ws/b.test.js".to_owned(), vec![]),
            ]
        );
        assert_eq!(ev.suites[0].cases[0].status, CaseStatus::Passed);
        assert_eq!(ev.suites[2].error.as_deref(), Some("Cannot find module"));
    }

    #[test]
    fn unhandled_errors_at_the_end() {
        let ev = parse(
            r#"{"e":"end","errors":[{"text":"Error: [vitest-pool]: Worker forks emitted error.","type":"Unhandled Error"},{"nope":1}]}"#,
            Flavour::Vitest,
        );
        assert!(ev.ended);
        assert_eq!(ev.unhandled.len(), 1);
        assert_eq!(parse("", Flavour::Jest), Events::default());
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,400}", cut in 0usize..600) {
            let _ = parse(&s, Flavour::Vitest).running();
            let mut end = cut.min(STREAM.len());
            while !STREAM.is_char_boundary(end) { end -= 1; }
            let _ = parse(&STREAM[..end], Flavour::Jest).running();
        }
    }
}
