//! The JSON lines pith's pytest plugin streams to disk, read back tolerantly: a line that is not
//! a well-formed record is skipped (a run killed mid-write leaves a truncated last line), and no
//! input, however broken, makes the parser panic. The file is read line by line with a bound per
//! line, so a record that is not the plugin's (or a plugin gone wrong) cannot exhaust memory.

use std::collections::{BTreeMap, HashSet};
use std::io::BufRead;

use pith_model::impact::Lines;
use serde_json::{Map, Value};

/// Longest text kept from any one record field; the plugin already bounds them, this guards
/// against a file that is not the plugin's.
const FIELD_CHARS: usize = 8000;
/// Most frames kept from one record.
const MAX_FRAMES: usize = 100;
/// Modules read from one "loads" record at most (the plugin writes 200).
const MAX_LOADS: usize = 256;
/// Longest line read as a record. The plugin bounds every string it writes (64 K characters at
/// most, a few K for messages), so its lines stay far below this; a longer line is skipped
/// without being held.
pub const MAX_LINE: usize = 1 << 20;

/// The tests a run in progress has finished: the most `finish` records in any of the
/// plugin's files in `scratch` (each attempt writes its own), while pytest is still writing.
pub fn finished_in(scratch: &std::path::Path) -> u64 {
    // As the plugin writes it, and as JSON with spaces would be.
    const FINISH: [&[u8]; 2] = [b"{\"t\":\"finish\"", b"{\"t\": \"finish\""];
    let Ok(entries) = std::fs::read_dir(scratch) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("pytest-") && name.ends_with(".jsonl")
        })
        .filter_map(|e| std::fs::read(e.path()).ok())
        .map(|bytes| {
            bytes
                .split(|&b| b == b'\n')
                .filter(|line| FINISH.iter().any(|f| line.starts_with(f)))
                .count() as u64
        })
        .max()
        .unwrap_or(0)
}

/// A frame as the plugin wrote it: absolute path, 1-based line, stripped source line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawFrame {
    pub path: String,
    pub line: u32,
    pub code: String,
}

/// Why something failed, as the plugin saw it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Detail {
    /// Exception type name (`AssertionError`), when there was an exception.
    pub kind: Option<String>,
    /// The exception's own words (`AssertionError: assert 1 == 2`), possibly several lines.
    pub msg: String,
    /// Outermost first.
    pub frames: Vec<RawFrame>,
    /// The exceptions it was raised from or while handling, most recent first, each with its
    /// deepest frames: the plugin's text, empty when there are none.
    pub chain: String,
    /// A failed `==` assertion's operands, as `repr` prints them (each bounded).
    pub operands: Option<(String, String)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    Setup,
    Call,
    Teardown,
    /// Anything else; pytest-xdist reports a crashed worker's test as `???`.
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Passed,
    Failed,
    Skipped,
}

/// One phase of one test (pytest's `TestReport`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestReport {
    pub id: String,
    pub when: When,
    pub outcome: Outcome,
    pub detail: Detail,
    /// Expected to fail (`xfail`); reported as skipped by pytest when it did.
    pub xfail: bool,
    /// Raw report text the plugin kept (a crashed xdist worker's words).
    pub text: Option<String>,
    /// A failed phase's own text, as pytest's FAILURES section shows it (traceback, captured
    /// output): `pith output --test`.
    pub out: Option<String>,
    /// How long the phase took, when the plugin said.
    pub dur: Option<std::time::Duration>,
}

/// A module (or conftest) that failed to collect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectError {
    pub id: String,
    pub detail: Detail,
    /// The end of pytest's own report of the error.
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionEnd {
    pub exit: i64,
    pub collected: u64,
}

/// Everything one run's report file said.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Records {
    /// pytest's rootdir: node ids are relative to it.
    pub rootdir: Option<String>,
    /// Tests in the order they started, each once.
    pub started: Vec<String>,
    pub finished: HashSet<String>,
    pub reports: Vec<TestReport>,
    /// Failed attempts the project's own retry policy ran again (pytest-rerunfailures'
    /// `rerun` reports), in order: a test whose last attempt passed is flaky, not failed.
    pub reruns: Vec<TestReport>,
    pub collect_errors: Vec<CollectError>,
    /// Requested parametrized ids the plugin found no test for.
    pub unmatched: Vec<String>,
    /// How many tests pytest selected to run, once collection finished.
    pub selected: Option<u64>,
    /// Present only when pytest reached the end of its session.
    pub end: Option<SessionEnd>,
    /// Records the plugin could not write (its "fault" records), with the first reason: the
    /// report is known to be incomplete.
    pub lost: u64,
    pub lost_why: Option<String>,
    /// The version of a pytest outside pith's range, which was not run (pith's entry wrote
    /// it instead: [`super::command::version_check`]).
    pub unsupported: Option<String>,
    /// Whether any record at all was read (the plugin was loaded).
    pub any: bool,
    /// Lines that were not records.
    pub malformed: usize,
    /// A tracing re-run's lines, per node id as pytest wrote it, per traced file as pith gave
    /// it (its "trace" records; several for one id, a re-run test's, are merged).
    pub traced: BTreeMap<String, Lines>,
    /// Per traced file as pith gave it, the lines its import ran ("imported" records).
    pub imported: Lines,
    /// Per test file as pytest named it, the files of the modules its tests loaded by a
    /// computed name ("loads" records).
    pub loads: Vec<(String, Vec<String>)>,
}

impl Records {
    /// Tests that started and never finished: running when the run was killed or crashed.
    pub fn running(&self) -> Vec<String> {
        self.started
            .iter()
            .filter(|id| !self.finished.contains(*id))
            .cloned()
            .collect()
    }
}

/// Parses a report held in memory. Never fails: what cannot be read is counted in `malformed`.
pub fn parse(bytes: &[u8]) -> Records {
    let mut parser = Parser::default();
    for line in bytes.split(|&b| b == b'\n') {
        if line.len() > MAX_LINE {
            parser.records.malformed += 1;
        } else {
            parser.line(line);
        }
    }
    parser.records
}

/// Parses a report file line by line, holding at most [`MAX_LINE`] bytes of any one line: a
/// longer line is skipped (and counted in `malformed`). Only reading the file can fail.
pub fn read(reader: impl std::io::Read) -> std::io::Result<Records> {
    let mut reader = std::io::BufReader::new(reader);
    let mut parser = Parser::default();
    let mut line: Vec<u8> = Vec::new();
    let mut too_long = false;
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            break;
        }
        let (chunk, newline) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        if !too_long && line.len() + chunk.len() <= MAX_LINE {
            line.extend_from_slice(chunk);
        } else {
            too_long = true;
            line = Vec::new();
        }
        let used = chunk.len() + usize::from(newline);
        reader.consume(used);
        if newline {
            if too_long {
                parser.records.malformed += 1;
            } else {
                parser.line(&line);
            }
            line.clear();
            too_long = false;
        }
    }
    if too_long {
        parser.records.malformed += 1;
    } else {
        parser.line(&line);
    }
    Ok(parser.records)
}

#[derive(Default)]
struct Parser {
    records: Records,
    seen_start: HashSet<String>,
}

impl Parser {
    fn line(&mut self, line: &[u8]) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let Ok(Value::Object(obj)) = serde_json::from_slice::<Value>(line) else {
            self.records.malformed += 1;
            return;
        };
        if !read_record(&obj, &mut self.records, &mut self.seen_start) {
            self.records.malformed += 1;
            return;
        }
        self.records.any = true;
    }
}

/// Adds one record; false when it is not one the parser knows. One arm per record type the
/// plugin writes: the match is the format's table, read in one place.
fn read_record(
    obj: &Map<String, Value>,
    records: &mut Records,
    seen: &mut HashSet<String>,
) -> bool {
    match string(obj, "t").as_deref() {
        Some(super::command::UNSUPPORTED) => {
            records.unsupported = string(obj, "pytest");
        }
        Some("session") => {
            records.rootdir = string(obj, "rootdir").filter(|s| !s.is_empty());
        }
        Some("start") => {
            let Some(id) = string(obj, "id") else {
                return false;
            };
            if seen.insert(id.clone()) {
                records.started.push(id);
            }
        }
        Some("finish") => {
            let Some(id) = string(obj, "id") else {
                return false;
            };
            records.finished.insert(id);
        }
        Some("report") => return read_report(obj, records),
        Some("collect") => {
            records.collect_errors.push(CollectError {
                id: string(obj, "id").unwrap_or_default(),
                detail: detail(obj),
                text: string(obj, "text").unwrap_or_default(),
            });
        }
        Some("unmatched") => {
            let Some(ids) = obj.get("ids").and_then(Value::as_array) else {
                return false;
            };
            records
                .unmatched
                .extend(ids.iter().filter_map(Value::as_str).map(bounded));
        }
        Some("selected") => {
            let Some(n) = obj.get("n").and_then(Value::as_u64) else {
                return false;
            };
            records.selected = Some(n);
        }
        Some("fault") => {
            let lost = obj.get("lost").and_then(Value::as_u64).unwrap_or(1).max(1);
            records.lost = records.lost.max(lost);
            if records.lost_why.is_none() {
                records.lost_why = string(obj, "why").filter(|w| !w.is_empty());
            }
        }
        Some("trace") => return read_trace(obj, records),
        Some("imported") => return read_imported(obj, records),
        Some("loads") => return read_loads(obj, records),
        Some("end") => {
            records.end = Some(SessionEnd {
                exit: obj.get("exit").and_then(Value::as_i64).unwrap_or(-1),
                collected: obj.get("collected").and_then(Value::as_u64).unwrap_or(0),
            });
        }
        _ => return false,
    }
    true
}

/// A "report" record: one phase of one test, or a failed attempt the project's retry policy
/// runs again. False when it lacks its id or outcome.
fn read_report(obj: &Map<String, Value>, records: &mut Records) -> bool {
    let (Some(id), Some(outcome)) = (string(obj, "id"), string(obj, "outcome")) else {
        return false;
    };
    // pytest-rerunfailures' "rerun" is a failed attempt that runs again; other
    // plugins' words are not outcomes: the final report decides.
    let rerun = outcome == "rerun";
    let Some(outcome) = Outcome::of(&outcome).or(rerun.then_some(Outcome::Failed)) else {
        return true;
    };
    let report = TestReport {
        id,
        when: When::of(string(obj, "when").as_deref()),
        outcome,
        detail: detail(obj),
        xfail: obj.get("xfail").and_then(Value::as_bool).unwrap_or(false),
        text: string(obj, "text"),
        out: string(obj, "out"),
        dur: duration(obj),
    };
    if rerun {
        records.reruns.push(report);
    } else {
        records.reports.push(report);
    }
    true
}

/// A "trace" record: the lines one test ran, per traced file. False without its id or lines.
fn read_trace(obj: &Map<String, Value>, records: &mut Records) -> bool {
    let (Some(id), Some(Value::Object(files))) = (string(obj, "id"), obj.get("lines")) else {
        return false;
    };
    let lines = records.traced.entry(id).or_default();
    for (file, got) in files {
        let got = got.as_array().into_iter().flatten();
        lines
            .entry(bounded(file))
            .or_default()
            .extend(got.filter_map(line_number));
    }
    true
}

/// An "imported" record: the lines a traced file's import ran. False without its lines.
fn read_imported(obj: &Map<String, Value>, records: &mut Records) -> bool {
    let Some(Value::Object(files)) = obj.get("lines") else {
        return false;
    };
    for (file, got) in files {
        let got = got.as_array().into_iter().flatten();
        records
            .imported
            .entry(bounded(file))
            .or_default()
            .extend(got.filter_map(line_number));
    }
    true
}

/// A "loads" record: the modules one test file loaded by a computed name. False without its
/// file or modules.
fn read_loads(obj: &Map<String, Value>, records: &mut Records) -> bool {
    let (Some(file), Some(Value::Array(modules))) = (string(obj, "file"), obj.get("modules"))
    else {
        return false;
    };
    let modules = modules.iter().filter_map(Value::as_str).map(bounded);
    records
        .loads
        .push((file, modules.take(MAX_LOADS).collect()));
    true
}

impl Outcome {
    /// The outcome a report's word names; `None` for a word that is no final outcome.
    fn of(word: &str) -> Option<Outcome> {
        match word {
            "passed" => Some(Outcome::Passed),
            "failed" => Some(Outcome::Failed),
            "skipped" => Some(Outcome::Skipped),
            _ => None,
        }
    }
}

impl When {
    fn of(word: Option<&str>) -> When {
        match word {
            Some("setup") => When::Setup,
            Some("call") => When::Call,
            Some("teardown") => When::Teardown,
            _ => When::Other,
        }
    }
}

/// A 1-based line number, when `v` is one.
fn line_number(v: &Value) -> Option<u32> {
    v.as_u64()
        .filter(|&n| n > 0)
        .and_then(|n| u32::try_from(n).ok())
}

/// A report's duration (`dur`, seconds), when it is one.
fn duration(obj: &Map<String, Value>) -> Option<std::time::Duration> {
    obj.get("dur")
        .and_then(Value::as_f64)
        .filter(|d| d.is_finite() && *d >= 0.0)
        .and_then(|d| std::time::Duration::try_from_secs_f64(d).ok())
}

fn string(obj: &Map<String, Value>, key: &str) -> Option<String> {
    obj.get(key).and_then(Value::as_str).map(bounded)
}

fn bounded(s: &str) -> String {
    match s.char_indices().nth(FIELD_CHARS) {
        Some((i, _)) => s[..i].to_owned(),
        None => s.to_owned(),
    }
}

pub(crate) fn detail(obj: &Map<String, Value>) -> Detail {
    let frames = obj
        .get("frames")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(frame).take(MAX_FRAMES).collect())
        .unwrap_or_default();
    Detail {
        kind: string(obj, "kind").filter(|k| !k.is_empty()),
        msg: string(obj, "msg").unwrap_or_default(),
        frames,
        chain: string(obj, "chain").unwrap_or_default(),
        operands: string(obj, "left").zip(string(obj, "right")),
    }
}

fn frame(v: &Value) -> Option<RawFrame> {
    let a = v.as_array()?;
    let path = a.first()?.as_str()?;
    let line = u32::try_from(a.get(1)?.as_u64()?).ok()?;
    if path.is_empty() {
        return None;
    }
    Some(RawFrame {
        path: bounded(path),
        line,
        code: a
            .get(2)
            .and_then(Value::as_str)
            .map(bounded)
            .unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn tests_finished_so_far_are_counted_from_the_newest_records() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(finished_in(dir.path()), 0);
        std::fs::write(dir.path().join("pytest-1.jsonl"), SAMPLE).unwrap();
        assert_eq!(finished_in(dir.path()), 2);
        // A second attempt's file while it is being written: the most any file says.
        let partial =
            "{\"t\":\"start\",\"id\":\"a\"}\n{\"t\":\"finish\",\"id\":\"a\"}\n{\"t\":\"fin";
        std::fs::write(dir.path().join("pytest-2.jsonl"), partial).unwrap();
        assert_eq!(finished_in(dir.path()), 2);
        std::fs::remove_file(dir.path().join("pytest-1.jsonl")).unwrap();
        assert_eq!(finished_in(dir.path()), 1);
    }

    const SAMPLE: &str = r#"{"t": "session", "v": 1, "pytest": "9.2.0", "python": "3.11.7", "rootdir": "/ws"}
{"t": "start", "id": "tests/test_a.py::test_ok"}
{"t": "report", "id": "tests/test_a.py::test_ok", "when": "call", "outcome": "passed", "dur": 0.1}
{"t": "finish", "id": "tests/test_a.py::test_ok"}
{"t": "start", "id": "tests/test_a.py::test_bad[1-2]"}
{"t": "report", "id": "tests/test_a.py::test_bad[1-2]", "when": "call", "outcome": "failed", "kind": "AssertionError", "msg": "AssertionError: assert 1 == 2\nmore", "frames": [["/ws/tests/test_a.py", 7, "assert a == b"], ["/ws/lib.py", "x", ""], ["/ws/lib.py", 3]]}
{"t": "finish", "id": "tests/test_a.py::test_bad[1-2]"}
{"t": "collect", "id": "tests/test_b.py", "kind": "SyntaxError", "msg": "SyntaxError: invalid syntax", "frames": [["/ws/tests/test_b.py", 3, "def f(:"]], "text": "E   SyntaxError"}
{"t": "start", "id": "tests/test_c.py::test_hang"}
{"t": "unmatched", "ids": ["tests/test_a.py::test_bad[9]", 3]}
{"t": "end", "exit": 1, "collected": 3}
"#;

    #[test]
    fn reads_every_kind_of_record() {
        let r = parse(SAMPLE.as_bytes());
        assert_eq!(r.rootdir.as_deref(), Some("/ws"));
        assert_eq!(r.malformed, 0);
        assert_eq!(r.reports.len(), 2);
        let bad = &r.reports[1];
        assert_eq!(bad.id, "tests/test_a.py::test_bad[1-2]");
        assert_eq!(bad.when, When::Call);
        assert_eq!(bad.outcome, Outcome::Failed);
        assert_eq!(bad.detail.kind.as_deref(), Some("AssertionError"));
        // The frame with a non-numeric line is dropped; a missing source line is empty.
        assert_eq!(
            bad.detail.frames,
            vec![
                RawFrame {
                    path: "/ws/tests/test_a.py".into(),
                    line: 7,
                    code: "assert a == b".into()
                },
                RawFrame {
                    path: "/ws/lib.py".into(),
                    line: 3,
                    code: String::new()
                },
            ]
        );
        assert_eq!(r.collect_errors.len(), 1);
        assert_eq!(r.collect_errors[0].id, "tests/test_b.py");
        assert_eq!(r.running(), vec!["tests/test_c.py::test_hang".to_string()]);
        assert_eq!(
            r.unmatched,
            vec!["tests/test_a.py::test_bad[9]".to_string()]
        );
        assert_eq!(
            r.end,
            Some(SessionEnd {
                exit: 1,
                collected: 3
            })
        );
    }

    #[test]
    fn trace_records_merge_per_test_and_keep_only_line_numbers() {
        let text = r#"{"t": "trace", "id": "t.py::a", "lines": {"/ws/h.py": [3, 1, 0, -2, "4", 5000000000, 2.5], "/ws/g.py": "x"}}
{"t": "trace", "id": "t.py::a", "lines": {"/ws/h.py": [7, 3]}}
{"t": "trace", "id": "t.py::b", "lines": {}}
{"t": "trace", "id": "t.py::c", "lines": [1, 2]}
{"t": "trace", "lines": {"/ws/h.py": [1]}}
"#;
        let r = parse(text.as_bytes());
        assert_eq!(
            r.malformed, 2,
            "a trace without an id or a map of lines is not one"
        );
        assert_eq!(r.traced.len(), 2);
        let a = &r.traced["t.py::a"];
        assert_eq!(a["/ws/h.py"].iter().copied().collect::<Vec<_>>(), [1, 3, 7]);
        assert!(a["/ws/g.py"].is_empty());
        assert!(r.traced["t.py::b"].is_empty());
    }

    #[test]
    fn a_truncated_last_line_is_skipped() {
        let cut = &SAMPLE[..SAMPLE.find(r#"{"t": "end""#).unwrap() + 12];
        let r = parse(cut.as_bytes());
        assert_eq!(r.end, None);
        assert_eq!(r.malformed, 1);
        assert_eq!(r.reports.len(), 2);
        assert_eq!(r.running(), vec!["tests/test_c.py::test_hang".to_string()]);
    }

    #[test]
    fn garbage_and_unknown_records_are_skipped() {
        let input = b"\xff\xfe{not json}\n[1,2]\n{\"t\":\"weird\"}\n{\"t\":\"start\"}\n\n{\"t\":\"report\",\"id\":\"a.py::t\",\"outcome\":\"rerun\"}\n{\"t\":\"start\",\"id\":\"a.py::t\"}\n";
        let r = parse(input);
        assert_eq!(r.malformed, 4);
        assert!(r.reports.is_empty());
        assert_eq!(r.started, vec!["a.py::t".to_string()]);
        assert!(r.any);
        assert_eq!(parse(b""), Records::default());
    }

    #[test]
    fn invalid_utf8_inside_a_string_skips_only_that_line() {
        let mut input = b"{\"t\":\"start\",\"id\":\"a.py::\xff\"}\n".to_vec();
        input.extend_from_slice(b"{\"t\":\"start\",\"id\":\"b.py::t\"}\n");
        let r = parse(&input);
        assert_eq!(r.started, vec!["b.py::t".to_string()]);
        assert_eq!(r.malformed, 1);
    }

    #[test]
    fn huge_fields_are_bounded() {
        let long = "x".repeat(50_000);
        let line = format!(
            "{{\"t\":\"report\",\"id\":\"a.py::t\",\"when\":\"call\",\"outcome\":\"failed\",\"msg\":\"{long}\"}}"
        );
        let r = parse(line.as_bytes());
        assert_eq!(r.reports[0].detail.msg.chars().count(), FIELD_CHARS);
    }

    #[test]
    fn faults_say_how_many_records_were_lost() {
        let input = b"{\"t\":\"fault\",\"lost\":1,\"why\":\"writing r: [Errno 28] No space left on device\"}\n{\"t\":\"fault\",\"lost\":3,\"why\":\"later\"}\n{\"t\":\"fault\"}\n";
        let r = parse(input);
        assert_eq!(r.lost, 3);
        assert_eq!(
            r.lost_why.as_deref(),
            Some("writing r: [Errno 28] No space left on device")
        );
        assert_eq!(r.malformed, 0);
        assert_eq!(parse(SAMPLE.as_bytes()).lost, 0);
    }

    #[test]
    fn reading_a_file_matches_parsing_it_and_skips_huge_lines() {
        assert_eq!(read(SAMPLE.as_bytes()).unwrap(), parse(SAMPLE.as_bytes()));
        // Cut anywhere, including without a final newline.
        for cut in [0, 1, 80, SAMPLE.len() / 2, SAMPLE.len() - 1] {
            let part = &SAMPLE.as_bytes()[..cut];
            assert_eq!(read(part).unwrap(), parse(part), "cut at {cut}");
        }
        // A line over the bound is skipped whole; the records around it are kept.
        let mut input =
            b"{\"t\":\"start\",\"id\":\"a.py::t\"}\n{\"t\":\"report\",\"msg\":\"".to_vec();
        input.extend(std::iter::repeat_n(b'x', MAX_LINE + 10));
        input.extend_from_slice(b"\"}\n{\"t\":\"finish\",\"id\":\"a.py::t\"}\n");
        let r = read(&input[..]).unwrap();
        assert_eq!(r.started, ["a.py::t"]);
        assert!(r.finished.contains("a.py::t"));
        assert_eq!(r.malformed, 1);
        assert_eq!(parse(&input), r);
        // ... also as the last, unterminated line.
        let r = read(&input[..input.len() - 32]).unwrap();
        assert_eq!(r.started, ["a.py::t"]);
        assert_eq!(r.malformed, 1);
    }

    proptest! {
        #[test]
        fn reading_never_disagrees_with_parsing(bytes in proptest::collection::vec(any::<u8>(), 0..3000)) {
            prop_assert_eq!(read(&bytes[..]).unwrap(), parse(&bytes));
        }

        #[test]
        fn never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
            let _ = parse(&bytes);
        }

        #[test]
        fn never_panics_on_cut_records(cut in 0usize..SAMPLE.len()) {
            let r = parse(&SAMPLE.as_bytes()[..cut]);
            prop_assert!(r.reports.len() <= 2);
        }

        #[test]
        fn never_panics_on_json_shaped_noise(s in r#"(\{"t": ?"(report|start|collect|end|session|unmatched|trace)"(, ?"[a-z]{1,6}": ?(-?[0-9]{1,12}|"[^"\\]{0,8}"|\[\[?"[a-z/]*", ?-?[0-9]{1,12}\]?\]|\{"[a-z/]*": ?\[?-?[0-9]{1,12}\]?\}|null|true))*\}\n?){0,6}"#) {
            let _ = parse(s.as_bytes());
        }
    }
}
