//! The records pith's jest and vitest reporters stream (one JSON object per line, written as
//! files and tests start and finish): what finished, what was running when the run was killed,
//! the errors vitest reports outside any test, and the reporter's own faults (a record it could
//! not write). A truncated last line is ignored. Every test occurrence is kept: jest's reporter
//! writes each test again when its file ends (older jests report tests only then), and that
//! final list replaces the file's streamed one.

use pith_model::Phase;
use serde_json::Value;

use super::report::{self, strings, Case, Flavour, Suite};

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
    /// Why vitest ended the run (`passed`, `failed`, `interrupted`), when it said.
    pub end_reason: Option<String>,
    /// Records the reporter could not write, with the first error.
    pub faults: Option<(u64, String)>,
    /// mocha: its own totals at the end of the run (its stats collector).
    pub totals: Option<report::Totals>,
    /// Files whose final list of tests (jest) replaced the streamed one.
    finals: Vec<String>,
}

impl Events {
    fn suite(&mut self, path: &str) -> &mut Suite {
        report::suite_in(&mut self.suites, path)
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
        ev.line(line, flavour);
    }
    ev
}

impl Events {
    /// Reads one record (a line of the stream).
    pub(crate) fn line(&mut self, line: &str, flavour: Flavour) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            return;
        };
        let Some(kind) = v.get("e").and_then(Value::as_str) else {
            return;
        };
        self.any = true;
        let path = v.get("path").and_then(Value::as_str).unwrap_or("");
        match kind {
            "file" => {
                self.suite(path);
                // mocha's reporter names a file again when its tests run again after another
                // file's (the root suite's tests of every file run first).
                if v.get("again").and_then(Value::as_bool) == Some(true) {
                    self.done.retain(|d| d != path);
                }
            }
            "start" => {
                self.suite(path);
                self.started.push((path.to_owned(), strings(&v, "names")));
            }
            "case" => self.case(&v, path, flavour),
            "done" => self.done(&v, path),
            "fault" => self.fault(&v),
            "end" => self.end(&v),
            _ => {}
        }
    }

    /// A test's result: it is no longer running; jest's final list of a file replaces what
    /// was streamed for it.
    fn case(&mut self, v: &Value, path: &str, flavour: Flavour) {
        let names = strings(v, "names");
        if let Some(i) = self
            .started
            .iter()
            .position(|(f, n)| f == path && *n == names)
        {
            self.started.remove(i);
        }
        let last = v.get("final").and_then(Value::as_bool) == Some(true);
        if last && !self.finals.iter().any(|f| f == path) {
            self.finals.push(path.to_owned());
            self.suite(path).cases.clear();
        }
        let status = report::status(
            v.get("status").and_then(Value::as_str).unwrap_or(""),
            flavour,
        );
        let phase = match v.get("phase").and_then(Value::as_str) {
            Some("setup") => Phase::Setup,
            Some("teardown") => Phase::Teardown,
            _ => Phase::Call,
        };
        self.suite(path).record(Case {
            names,
            status,
            messages: strings(v, "messages"),
            retried: 0,
            phase,
        });
    }

    /// A file ended, with its error when it failed as a whole.
    fn done(&mut self, v: &Value, path: &str) {
        let error = v
            .get("error")
            .and_then(Value::as_str)
            .filter(|e| !e.trim().is_empty())
            .map(str::to_owned);
        let suite = self.suite(path);
        if error.is_some() {
            suite.error = error;
        }
        if !self.done.iter().any(|d| d == path) {
            self.done.push(path.to_owned());
        }
    }

    /// Records the reporter could not write: the highest count, the first error.
    fn fault(&mut self, v: &Value) {
        let n = v.get("count").and_then(Value::as_u64).unwrap_or(1);
        let error = v
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("a record could not be written")
            .to_owned();
        self.faults = Some(match self.faults.take() {
            Some((m, first)) => (m.max(n), first),
            None => (n, error),
        });
    }

    /// The run ended: how, and the errors outside any test.
    fn end(&mut self, v: &Value) {
        self.ended = true;
        self.end_reason = v.get("reason").and_then(Value::as_str).map(str::to_owned);
        if let Some(t) = v.get("totals") {
            let count = |k: &str| {
                t.get(k)
                    .and_then(Value::as_u64)
                    .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
            };
            let failures = count("failures");
            self.totals = Some(report::Totals {
                success: failures.map(|f| f == 0),
                tests: count("tests"),
                failed: failures,
                ..report::Totals::default()
            });
        }
        for e in v
            .get("errors")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
        {
            let get = |k: &str| e.get(k).and_then(Value::as_str).map(str::to_owned);
            if let Some(text) = get("text") {
                self.unhandled.push(Unhandled {
                    text,
                    path: get("path"),
                    test: get("test"),
                });
            }
        }
    }
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
    fn every_occurrence_counts_and_the_final_list_replaces_the_stream() {
        let stream = r#"{"e":"start","path":"/ws/a.test.js","names":["v"]}
{"e":"case","status":"passed","path":"/ws/a.test.js","names":["v"]}
{"e":"start","path":"/ws/a.test.js","names":["v"]}
{"e":"case","status":"failed","messages":["Error: x"],"path":"/ws/a.test.js","names":["v"]}
{"e":"start","path":"/ws/a.test.js","names":["v"]}
{"e":"fault","count":2,"error":"EBADF"}
{"e":"done","path":"/ws/a.test.js","error":null}
{"e":"case","status":"failed","messages":["Error: x"],"path":"/ws/a.test.js","names":["v"],"final":true}
{"e":"case","status":"passed","path":"/ws/a.test.js","names":["v"],"final":true}
{"e":"case","status":"passed","path":"/ws/a.test.js","names":["v"],"final":true}
{"e":"end","errors":[],"reason":"failed"}"#;
        let ev = parse(stream, Flavour::Jest);
        let st: Vec<CaseStatus> = ev.suites[0].cases.iter().map(|c| c.status).collect();
        assert_eq!(
            st,
            [CaseStatus::Failed, CaseStatus::Passed, CaseStatus::Passed]
        );
        assert_eq!(ev.faults, Some((2, "EBADF".to_owned())));
        assert_eq!(ev.end_reason.as_deref(), Some("failed"));
        // Every start has its result in the final list.
        assert!(ev.unfinished("/ws/a.test.js").is_empty());
    }

    #[test]
    fn mochas_records_reopen_files_carry_hook_phases_and_totals() {
        let stream = r#"{"e":"file","path":"/ws/a.test.js","again":true}
{"e":"case","status":"passed","path":"/ws/a.test.js","names":["top"]}
{"e":"done","path":"/ws/a.test.js"}
{"e":"file","path":"/ws/b.test.js","again":true}
{"e":"done","path":"/ws/b.test.js"}
{"e":"file","path":"/ws/a.test.js","again":true}
{"e":"case","status":"failed","path":"/ws/a.test.js","names":["s","t"],"phase":"setup","messages":["Error: x"]}
{"e":"start","path":"/ws/a.test.js","names":["s","u"]}"#;
        let ev = parse(stream, Flavour::Jest);
        assert_eq!(
            ev.running(),
            [(
                "/ws/a.test.js".to_owned(),
                vec!["s".to_owned(), "u".to_owned()]
            )]
        );
        assert_eq!(ev.suites[0].cases[1].phase, Phase::Setup);
        assert_eq!(ev.suites[0].cases[0].phase, Phase::Call);
        let end = parse(
            r#"{"e":"end","errors":[],"totals":{"tests":6,"passes":4,"failures":3,"pending":1}}"#,
            Flavour::Jest,
        );
        let t = end.totals.unwrap();
        assert_eq!(
            (t.tests, t.failed, t.success),
            (Some(6), Some(3), Some(false))
        );
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
