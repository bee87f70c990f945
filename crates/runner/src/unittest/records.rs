//! The JSON lines pith's unittest script streams to disk, read back tolerantly: a line that is
//! not a well-formed record (a run killed mid-write leaves a truncated last line) is skipped,
//! and no input makes the reader panic. Failure details share the pytest plugin's shape
//! (`kind`, `msg`, `frames`), so they are read by the same code.

use std::collections::HashSet;
use std::io::Read;

use serde_json::{Map, Value};

use crate::pytest::records::{detail, Detail, MAX_LINE};

/// The most of a report file read: far more than any suite's records.
const MAX_BYTES: u64 = 256 << 20;

/// What one result record says of a test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Passed,
    /// An assertion failed (unittest's `failures`).
    Failed,
    /// Anything else raised (unittest's `errors`).
    Error,
    Skipped,
    /// `expectedFailure` that failed: not a failure, as unittest counts it.
    ExpectedFailure,
    /// `expectedFailure` that passed: `wasSuccessful()` is false (Python 3.4+).
    UnexpectedSuccess,
}

#[derive(Debug, Clone)]
pub struct TestResult {
    /// The reported id: a subtest's carries its parameters.
    pub id: String,
    /// The test's own id (a subtest's test).
    pub test: String,
    pub outcome: Outcome,
    pub detail: Detail,
    /// A failing outcome's own text (its traceback, what the test printed): `pith output
    /// --test`.
    pub out: Option<String>,
}

/// A class or module fixture that raised (`setUpClass`, `setUpModule`, their tear-downs).
#[derive(Debug, Clone)]
pub struct Fixture {
    /// The class's or module's dotted name.
    pub id: String,
    pub teardown: bool,
    pub detail: Detail,
    /// Its traceback and what was printed since the last test.
    pub out: Option<String>,
}

/// A test module that did not import.
#[derive(Debug, Clone)]
pub struct LoadError {
    pub id: String,
    pub detail: Detail,
}

/// unittest's own tally, written after the run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct End {
    pub run: u64,
    pub ok: bool,
}

#[derive(Debug, Default)]
pub struct Records {
    pub selected: Option<u64>,
    /// Started tests, in order, each with its module's file (absolute).
    pub started: Vec<(String, Option<String>)>,
    pub results: Vec<TestResult>,
    pub fixtures: Vec<Fixture>,
    pub loads: Vec<LoadError>,
    pub unmatched: Vec<String>,
    pub end: Option<End>,
}

impl Records {
    /// Tests that started and told no outcome: running when the process ended.
    pub fn running(&self) -> Vec<(String, Option<String>)> {
        let ended: HashSet<&str> = self.results.iter().map(|r| r.test.as_str()).collect();
        self.started
            .iter()
            .filter(|(id, _)| !ended.contains(id.as_str()))
            .cloned()
            .collect()
    }
}

/// The tests a run in progress has finished so far.
pub fn finished_in(scratch: &std::path::Path) -> u64 {
    let Ok(bytes) = std::fs::read(scratch.join("unittest.jsonl")) else {
        return 0;
    };
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| l.starts_with(b"{\"e\":\"result\""))
        .count() as u64
}

pub fn read(file: impl Read) -> Records {
    let mut bytes = Vec::new();
    let _ = file.take(MAX_BYTES).read_to_end(&mut bytes);
    parse(&bytes)
}

pub fn parse(bytes: &[u8]) -> Records {
    let mut r = Records::default();
    for line in bytes.split(|&b| b == b'\n') {
        if line.len() > MAX_LINE {
            continue;
        }
        if let Ok(Value::Object(obj)) = serde_json::from_slice::<Value>(line) {
            record(&obj, &mut r);
        }
    }
    r
}

fn string(obj: &Map<String, Value>, key: &str) -> Option<String> {
    obj.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn record(obj: &Map<String, Value>, r: &mut Records) {
    let id = string(obj, "id").unwrap_or_default();
    match string(obj, "e").as_deref() {
        Some("selected") => r.selected = obj.get("n").and_then(Value::as_u64),
        Some("start") if !id.is_empty() => r.started.push((id, string(obj, "file"))),
        Some("result") if !id.is_empty() => {
            let outcome = match string(obj, "o").as_deref() {
                Some("passed") => Outcome::Passed,
                Some("failed") => Outcome::Failed,
                Some("error") => Outcome::Error,
                Some("skipped") => Outcome::Skipped,
                Some("xfail") => Outcome::ExpectedFailure,
                Some("xpass") => Outcome::UnexpectedSuccess,
                _ => return,
            };
            r.results.push(TestResult {
                test: string(obj, "test").unwrap_or_else(|| id.clone()),
                id,
                outcome,
                detail: detail(obj),
                out: string(obj, "out"),
            });
        }
        Some("fixture") if !id.is_empty() => r.fixtures.push(Fixture {
            id,
            teardown: string(obj, "phase").as_deref() == Some("teardown"),
            detail: detail(obj),
            out: string(obj, "out"),
        }),
        Some("load") if !id.is_empty() => r.loads.push(LoadError {
            id,
            detail: detail(obj),
        }),
        Some("unmatched") => r.unmatched.extend(
            obj.get("ids")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned),
        ),
        Some("end") => {
            r.end = Some(End {
                run: obj.get("run").and_then(Value::as_u64).unwrap_or(0),
                ok: obj.get("ok").and_then(Value::as_bool).unwrap_or(false),
            })
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"{"e":"selected","n":3}
{"e":"start","id":"t.T.a","file":"/w/t.py"}
{"e":"result","id":"t.T.a","test":"t.T.a","o":"passed"}
{"e":"start","id":"t.T.b","file":"/w/t.py"}
{"e":"result","id":"t.T.b (i=1)","test":"t.T.b","o":"failed","kind":"AssertionError","msg":"AssertionError: 1 != 2","frames":[["/w/t.py",9,"self.assertEqual(i, 2)"]],"out":"Traceback\n\nStdout:\nhello\n"}
{"e":"start","id":"t.T.c","file":"/w/t.py"}
{"e":"result","id":"t.T.c","#;

    #[test]
    fn reads_records_and_tells_what_was_running() {
        let r = parse(SAMPLE.as_bytes());
        assert_eq!(r.selected, Some(3));
        assert_eq!(r.results.len(), 2);
        assert_eq!(r.results[1].outcome, Outcome::Failed);
        assert_eq!(r.results[1].test, "t.T.b");
        assert_eq!(r.results[1].detail.frames[0].line, 9);
        assert_eq!(
            r.results[1].out.as_deref(),
            Some("Traceback\n\nStdout:\nhello\n")
        );
        assert_eq!(r.results[0].out, None);
        assert_eq!(
            r.running(),
            [("t.T.c".to_owned(), Some("/w/t.py".to_owned()))]
        );
        assert!(r.end.is_none());
    }

    #[test]
    fn never_panics_on_cut_records() {
        for cut in 0..SAMPLE.len() {
            let _ = parse(&SAMPLE.as_bytes()[..cut]);
        }
        let _ = parse(b"\xff{\"e\":\"end\",\"run\":\"x\"}\n{\"e\":\"load\"}\n[1]");
    }
}
