//! The TRX document (Visual Studio test results), as VSTest's `trx` logger and MTP's
//! `--report-trx` write it: `<UnitTestResult>`s (test id, display name, outcome, duration,
//! `Output/ErrorInfo/{Message,StackTrace}`, data rows nested in `<InnerResults>`), the
//! `<TestDefinitions>` that give each test id its class and method, and the `<ResultSummary>`
//! (outcome, counters, run infos such as a test host crash).
//! Best effort: a truncated document yields what was read, flagged incomplete; never a panic.

use std::collections::HashMap;
use std::time::Duration;

use quick_xml::events::{BytesStart, Event};

/// One `<UnitTestResult>`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TestResult {
    pub test_id: String,
    /// The display name (`testName`): what the runner prints for the test.
    pub test_name: String,
    pub outcome: String,
    pub duration: Option<Duration>,
    pub message: String,
    pub stack_trace: String,
    /// A data-driven parent whose rows are reported in `<InnerResults>`: the rows count, the
    /// parent does not.
    pub has_inner: bool,
}

/// One `<UnitTest>` definition.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Definition {
    /// `TestMethod/@className`, an assembly-qualified suffix removed.
    pub class_name: String,
    /// `TestMethod/@name`.
    pub method: String,
}

/// `<ResultSummary><Counters>`: the runner's own totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counters {
    pub total: Option<u32>,
    pub passed: Option<u32>,
    pub failed: Option<u32>,
    /// Results that errored, timed out or were aborted: failures under other names.
    pub error: Option<u32>,
    pub timeout: Option<u32>,
    pub aborted: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Trx {
    pub results: Vec<TestResult>,
    pub definitions: HashMap<String, Definition>,
    pub counters: Counters,
    /// `ResultSummary/@outcome`: `Completed`, `Failed`, `Aborted`...
    pub summary_outcome: Option<String>,
    /// `RunInfo` entries as (outcome, text).
    pub run_infos: Vec<(String, String)>,
    /// The document was read to its end without an XML error.
    pub complete: bool,
}

/// Bound on any one collected text, so a test printing gigabytes cannot exhaust memory.
const TEXT_LIMIT: usize = 64 * 1024;

#[derive(Clone, Copy, PartialEq, Eq, Default)]
enum Sink {
    #[default]
    None,
    Message,
    Stack,
    RunInfo,
}

/// Reads a TRX document. `None` when it is not one (no `<TestRun>` root).
pub fn parse(xml: &str) -> Option<Trx> {
    parse_from(xml.as_bytes())
}

/// [`parse`] from a stream (a report file): what is held is what is kept of it (texts cut to
/// [`TEXT_LIMIT`]), not the file. Invalid UTF-8 is replaced; an I/O error ends the reading
/// like a truncation.
pub fn parse_from(input: impl std::io::Read) -> Option<Trx> {
    let mut reader =
        quick_xml::Reader::from_reader(std::io::BufReader::new(crate::xml::Lossy::new(input)));
    reader.config_mut().check_end_names = false;
    let mut buf: Vec<u8> = Vec::new();
    let mut r = Reading::default();
    // An XML error ends the reading: what was read so far is kept.
    loop {
        buf.clear();
        let Ok(ev) = reader.read_event_into(&mut buf) else {
            break;
        };
        let is_start = matches!(ev, Event::Start(_));
        match ev {
            Event::Eof => {
                r.trx.complete = r.rooted && r.path.is_empty();
                break;
            }
            Event::Start(e) | Event::Empty(e) if !r.rooted => {
                if e.local_name().as_ref() != "TestRun" {
                    return None;
                }
                r.rooted = true;
                if is_start {
                    r.path.push("TestRun".into());
                }
            }
            Event::Start(e) => r.start(&e),
            Event::Empty(e) => {
                let name = e.local_name().as_ref().to_owned();
                r.open_element(&name, &e);
                r.close_element(&name);
            }
            Event::End(e) => r.end(e.local_name().as_ref()),
            Event::Text(t) => r.push(&t.xml10_content()),
            Event::CData(t) => r.push(&t.xml10_content()),
            Event::GeneralRef(e) => r.push(&crate::xml::entity_text(&e)),
            _ => {}
        }
    }
    r.rooted.then(|| r.finish())
}

/// A TRX document being read: the elements, results, definition and run info open, and where
/// text goes.
#[derive(Default)]
struct Reading {
    trx: Trx,
    /// The names of the open elements, outermost first.
    path: Vec<String>,
    /// Results open, a data row inside its parent.
    open: Vec<TestResult>,
    definition: Option<(String, Definition)>,
    run_info: Option<(String, String)>,
    sink: Sink,
    /// The root `<TestRun>` was read.
    rooted: bool,
}

impl Reading {
    fn start(&mut self, e: &BytesStart<'_>) {
        let name = e.local_name().as_ref().to_owned();
        self.open_element(&name, e);
        self.sink = match (name.as_str(), self.path.last().map(String::as_str)) {
            ("Message", Some("ErrorInfo")) if !self.open.is_empty() => Sink::Message,
            ("StackTrace", Some("ErrorInfo")) if !self.open.is_empty() => Sink::Stack,
            ("Text", Some("RunInfo")) => Sink::RunInfo,
            _ => Sink::None,
        };
        self.path.push(name);
    }

    fn end(&mut self, name: &str) {
        self.close_element(name);
        if let Some(i) = self.path.iter().rposition(|p| p == name) {
            self.path.truncate(i);
        }
        self.sink = Sink::None;
    }

    fn open_element(&mut self, name: &str, e: &BytesStart<'_>) {
        match name {
            "UnitTestResult" => self.open.push(TestResult {
                test_id: attr(e, "testId").unwrap_or_default(),
                test_name: attr(e, "testName").unwrap_or_default(),
                outcome: attr(e, "outcome").unwrap_or_default(),
                duration: attr(e, "duration").and_then(|d| parse_duration(&d)),
                ..TestResult::default()
            }),
            "UnitTest" => {
                self.definition = Some((attr(e, "id").unwrap_or_default(), Definition::default()));
            }
            "TestMethod" => {
                if let Some((_, d)) = self.definition.as_mut() {
                    let class = attr(e, "className").unwrap_or_default();
                    d.class_name = class.split(',').next().unwrap_or("").trim().to_owned();
                    d.method = attr(e, "name").unwrap_or_default();
                }
            }
            "ResultSummary" => self.trx.summary_outcome = attr(e, "outcome"),
            "Counters" if self.path.last().is_some_and(|p| p == "ResultSummary") => {
                let n = |k: &str| attr(e, k).and_then(|v| v.trim().parse().ok());
                self.trx.counters = Counters {
                    total: n("total"),
                    passed: n("passed"),
                    failed: n("failed"),
                    error: n("error"),
                    timeout: n("timeout"),
                    aborted: n("aborted"),
                };
            }
            "RunInfo" => {
                self.run_info = Some((attr(e, "outcome").unwrap_or_default(), String::new()));
            }
            _ => {}
        }
    }

    fn close_element(&mut self, name: &str) {
        match name {
            "UnitTestResult" => {
                if let Some(r) = self.open.pop() {
                    self.finish_result(r);
                }
            }
            "UnitTest" => {
                if let Some((id, d)) = self.definition.take() {
                    self.trx.definitions.insert(id, d);
                }
            }
            "RunInfo" => {
                if let Some(info) = self.run_info.take() {
                    self.trx.run_infos.push(info);
                }
            }
            _ => {}
        }
    }

    fn finish_result(&mut self, r: TestResult) {
        if let Some(parent) = self.open.last_mut() {
            parent.has_inner = true;
        }
        self.trx.results.push(r);
    }

    fn push(&mut self, s: &str) {
        let target = match (self.sink, self.open.last_mut(), self.run_info.as_mut()) {
            (Sink::Message, Some(r), _) => &mut r.message,
            (Sink::Stack, Some(r), _) => &mut r.stack_trace,
            (Sink::RunInfo, _, Some((_, text))) => text,
            _ => return,
        };
        if target.len() < TEXT_LIMIT {
            let room = TEXT_LIMIT - target.len();
            let mut end = s.len().min(room);
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            target.push_str(&s[..end]);
        }
    }

    /// The document read: a truncated one keeps the results that did start; a data-driven
    /// parent gives way to its rows.
    fn finish(mut self) -> Trx {
        while let Some(r) = self.open.pop() {
            self.finish_result(r);
        }
        self.trx.results.retain(|r| !r.has_inner);
        self.trx
    }
}

fn attr(e: &BytesStart<'_>, key: &str) -> Option<String> {
    let a = e.try_get_attribute(key).ok()??;
    a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
        .ok()
        .map(|v| v.into_owned())
}

/// `00:00:01.5000000` (`[d.]hh:mm:ss[.fraction]`).
pub fn parse_duration(s: &str) -> Option<Duration> {
    let s = s.trim();
    let (days, rest) = match s.split_once('.') {
        Some((d, r)) if !d.contains(':') => (d.parse::<u64>().ok()?, r),
        _ => (0, s),
    };
    let mut parts = rest.splitn(3, ':');
    let h: u64 = parts.next()?.parse().ok()?;
    let m: u64 = parts.next()?.parse().ok()?;
    let secs: f64 = parts.next()?.parse().ok()?;
    if !secs.is_finite() || secs < 0.0 || h > 1_000_000 || m > 1_000_000 || days > 1_000_000 {
        return None;
    }
    Duration::from_secs((days * 24 + h) * 3600 + m * 60)
        .checked_add(Duration::try_from_secs_f64(secs).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(
            parse_duration("00:00:00.1084258"),
            Some(Duration::from_secs_f64(0.1084258))
        );
        assert_eq!(parse_duration("00:01:02"), Some(Duration::from_secs(62)));
        assert_eq!(
            parse_duration("1.00:00:01"),
            Some(Duration::from_secs(86401))
        );
        assert_eq!(parse_duration("x"), None);
        assert_eq!(parse_duration("00:00:NaN"), None);
    }

    #[test]
    fn data_rows_count_instead_of_their_parent() {
        let xml = r#"<TestRun xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010"><Results>
<UnitTestResult testId="a" testName="Add" outcome="Failed" resultType="DataDrivenTest"><InnerResults>
<UnitTestResult testId="a" testName="Add (1,2)" outcome="Passed"/>
<UnitTestResult testId="a" testName="Add (2,2)" outcome="Failed"><Output><ErrorInfo><Message>Assert.AreEqual failed. Expected:&lt;5&gt;. Actual:&lt;4&gt;.</Message></ErrorInfo></Output></UnitTestResult>
</InnerResults></UnitTestResult></Results></TestRun>"#;
        let trx = parse(xml).unwrap();
        assert!(trx.complete);
        let names: Vec<&str> = trx.results.iter().map(|r| r.test_name.as_str()).collect();
        assert_eq!(names, ["Add (1,2)", "Add (2,2)"]);
        assert_eq!(
            trx.results[1].message,
            "Assert.AreEqual failed. Expected:<5>. Actual:<4>."
        );
    }

    #[test]
    fn not_a_trx() {
        assert!(parse("<testsuites/>").is_none());
        assert!(parse("").is_none());
        let cut = parse(
            "<TestRun><Results><UnitTestResult testId=\"x\" testName=\"A.B.C\" outcome=\"Passed\">",
        )
        .unwrap();
        assert!(!cut.complete);
        assert_eq!(cut.results.len(), 1);
    }
}
