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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Sink {
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
        quick_xml::Reader::from_reader(std::io::BufReader::new(crate::junit::Lossy::new(input)));
    reader.config_mut().check_end_names = false;
    let mut buf: Vec<u8> = Vec::new();
    let mut trx = Trx::default();
    let mut path: Vec<String> = Vec::new();
    let mut open: Vec<TestResult> = Vec::new();
    let mut definition: Option<(String, Definition)> = None;
    let mut run_info: Option<(String, String)> = None;
    let mut sink = Sink::None;
    let mut rooted = false;
    // An XML error ends the reading: what was read so far is kept.
    loop {
        buf.clear();
        let Ok(ev) = reader.read_event_into(&mut buf) else {
            break;
        };
        let is_start = matches!(ev, Event::Start(_));
        match ev {
            Event::Eof => {
                trx.complete = rooted && path.is_empty();
                break;
            }
            Event::Start(e) | Event::Empty(e) if !rooted => {
                if e.local_name().as_ref() != "TestRun" {
                    return None;
                }
                rooted = true;
                if is_start {
                    path.push("TestRun".into());
                }
            }
            Event::Start(e) => {
                let name = e.local_name().as_ref().to_owned();
                open_element(
                    &name,
                    &e,
                    &path,
                    &mut open,
                    &mut definition,
                    &mut run_info,
                    &mut trx,
                );
                sink = match (name.as_str(), path.last().map(String::as_str)) {
                    ("Message", Some("ErrorInfo")) if !open.is_empty() => Sink::Message,
                    ("StackTrace", Some("ErrorInfo")) if !open.is_empty() => Sink::Stack,
                    ("Text", Some("RunInfo")) => Sink::RunInfo,
                    _ => Sink::None,
                };
                path.push(name);
            }
            Event::Empty(e) => {
                let name = e.local_name().as_ref().to_owned();
                open_element(
                    &name,
                    &e,
                    &path,
                    &mut open,
                    &mut definition,
                    &mut run_info,
                    &mut trx,
                );
                close_element(&name, &mut open, &mut definition, &mut run_info, &mut trx);
            }
            Event::End(e) => {
                let name = e.local_name().as_ref().to_owned();
                close_element(&name, &mut open, &mut definition, &mut run_info, &mut trx);
                if let Some(i) = path.iter().rposition(|p| *p == name) {
                    path.truncate(i);
                }
                sink = Sink::None;
            }
            Event::Text(t) => push(&mut open, &mut run_info, sink, &t.xml10_content()),
            Event::CData(t) => push(&mut open, &mut run_info, sink, &t.xml10_content()),
            Event::GeneralRef(r) => {
                let s = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    Ok(None) => quick_xml::escape::resolve_predefined_entity(&r)
                        .unwrap_or("")
                        .to_owned(),
                    Err(_) => String::new(),
                };
                push(&mut open, &mut run_info, sink, &s);
            }
            _ => {}
        }
    }
    if !rooted {
        return None;
    }
    // A truncated document: keep the results that did start.
    while let Some(r) = open.pop() {
        finish_result(r, &mut open, &mut trx);
    }
    trx.results.retain(|r| !r.has_inner);
    Some(trx)
}

fn open_element(
    name: &str,
    e: &BytesStart<'_>,
    path: &[String],
    open: &mut Vec<TestResult>,
    definition: &mut Option<(String, Definition)>,
    run_info: &mut Option<(String, String)>,
    trx: &mut Trx,
) {
    match name {
        "UnitTestResult" => open.push(TestResult {
            test_id: attr(e, "testId").unwrap_or_default(),
            test_name: attr(e, "testName").unwrap_or_default(),
            outcome: attr(e, "outcome").unwrap_or_default(),
            duration: attr(e, "duration").and_then(|d| parse_duration(&d)),
            ..TestResult::default()
        }),
        "UnitTest" => {
            *definition = Some((attr(e, "id").unwrap_or_default(), Definition::default()));
        }
        "TestMethod" => {
            if let Some((_, d)) = definition.as_mut() {
                let class = attr(e, "className").unwrap_or_default();
                d.class_name = class.split(',').next().unwrap_or("").trim().to_owned();
                d.method = attr(e, "name").unwrap_or_default();
            }
        }
        "ResultSummary" => trx.summary_outcome = attr(e, "outcome"),
        "Counters" if path.last().is_some_and(|p| p == "ResultSummary") => {
            let n = |k: &str| attr(e, k).and_then(|v| v.trim().parse().ok());
            trx.counters = Counters {
                total: n("total"),
                passed: n("passed"),
                failed: n("failed"),
                error: n("error"),
                timeout: n("timeout"),
                aborted: n("aborted"),
            };
        }
        "RunInfo" => *run_info = Some((attr(e, "outcome").unwrap_or_default(), String::new())),
        _ => {}
    }
}

fn close_element(
    name: &str,
    open: &mut Vec<TestResult>,
    definition: &mut Option<(String, Definition)>,
    run_info: &mut Option<(String, String)>,
    trx: &mut Trx,
) {
    match name {
        "UnitTestResult" => {
            if let Some(r) = open.pop() {
                finish_result(r, open, trx);
            }
        }
        "UnitTest" => {
            if let Some((id, d)) = definition.take() {
                trx.definitions.insert(id, d);
            }
        }
        "RunInfo" => {
            if let Some(info) = run_info.take() {
                trx.run_infos.push(info);
            }
        }
        _ => {}
    }
}

fn finish_result(r: TestResult, open: &mut [TestResult], trx: &mut Trx) {
    if let Some(parent) = open.last_mut() {
        parent.has_inner = true;
    }
    trx.results.push(r);
}

fn push(open: &mut [TestResult], run_info: &mut Option<(String, String)>, sink: Sink, s: &str) {
    let target = match (sink, open.last_mut(), run_info.as_mut()) {
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
