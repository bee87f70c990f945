//! The generic JUnit XML reader: Maven Surefire, Gradle, and whatever else writes the format
//! (`pith test --report`), and nextest's reports for the Rust adapter. It reads `<testsuites>`/`<testsuite>` (nested or not, or a bare
//! `<testcase>`), `<testcase classname name time file line>` with `<failure>`, `<error>`,
//! `<skipped>`, `<system-out>`/`<system-err>`, and Surefire's retry elements
//! (`<flakyFailure>`, `<flakyError>`, `<rerunFailure>`, `<rerunError>`, each with its own
//! `<stackTrace>` and output, which nextest also writes for its retries), into a neutral
//! [`Report`] that says nothing about any one runner. Best effort: a truncated document yields what was read, with [`Report::complete`] false;
//! only input with no JUnit element at all is an error. Never panics.

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use crate::ParseError;

/// How a test case ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Outcome {
    #[default]
    Passed,
    /// A `<failure>`: an assertion did not hold.
    Failed,
    /// An `<error>`: the test threw something other than an assertion failure.
    Errored,
    Skipped,
}

/// Which element a [`Fault`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FaultElement {
    #[default]
    Failure,
    Error,
    /// Failed on an earlier attempt; the test passed on a later one.
    FlakyFailure,
    FlakyError,
    /// Failed on an earlier attempt, and on the last one too.
    RerunFailure,
    RerunError,
}

impl FaultElement {
    fn of(name: &str) -> Option<Self> {
        Some(match name {
            "failure" => FaultElement::Failure,
            "error" => FaultElement::Error,
            "flakyFailure" => FaultElement::FlakyFailure,
            "flakyError" => FaultElement::FlakyError,
            "rerunFailure" => FaultElement::RerunFailure,
            "rerunError" => FaultElement::RerunError,
            _ => return None,
        })
    }

    /// A retry element rather than the final verdict.
    pub fn is_retry(self) -> bool {
        !matches!(self, FaultElement::Failure | FaultElement::Error)
    }

    pub fn is_flaky(self) -> bool {
        matches!(self, FaultElement::FlakyFailure | FaultElement::FlakyError)
    }
}

/// A `<failure>`, `<error>` or retry element.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Fault {
    pub element: FaultElement,
    /// The `message` attribute.
    pub message: Option<String>,
    /// The `type` attribute: an exception class, an assertion kind.
    pub type_name: Option<String>,
    /// The element's text (or a retry's `<stackTrace>`): usually the stack trace.
    pub text: String,
    /// Output captured with this attempt (retry elements carry their own).
    pub stdout: String,
    pub stderr: String,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Case {
    /// The name of the innermost `<testsuite>` around it.
    pub suite: String,
    pub classname: String,
    pub name: String,
    /// Seconds, when given.
    pub time: Option<f64>,
    /// The `file` and `line` attributes some writers add (pytest, Testmo's examples).
    pub file: Option<String>,
    pub line: Option<u32>,
    pub outcome: Outcome,
    /// The final `<failure>`/`<error>`, when the test did not pass.
    pub fault: Option<Fault>,
    /// Failed attempts before the last (`flaky*` when it passed at last, `rerun*` when not).
    pub retries: Vec<Fault>,
    /// `<skipped message>`.
    pub skip_message: Option<String>,
    pub stdout: String,
    pub stderr: String,
}

impl Case {
    /// Failed on some attempt, then passed.
    pub fn flaky(&self) -> bool {
        self.outcome == Outcome::Passed && self.retries.iter().any(|r| r.element.is_flaky())
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Suite {
    pub name: String,
    pub file: Option<String>,
    /// The counts the suite declares about itself (`tests`, `failures`, `errors`, `skipped`).
    pub tests: Option<u32>,
    pub failures: Option<u32>,
    pub errors: Option<u32>,
    pub skipped: Option<u32>,
    pub cases: Vec<Case>,
    /// Suite-level output (Gradle and Surefire put some here).
    pub stdout: String,
    pub stderr: String,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// In document order of their opening tags; nested suites are listed after their parent,
    /// each holding only its own cases.
    pub suites: Vec<Suite>,
    /// The document was read to its end, every element closed, without an XML error.
    pub complete: bool,
}

impl Report {
    pub fn cases(&self) -> impl Iterator<Item = &Case> + '_ {
        self.suites.iter().flat_map(|s| s.cases.iter())
    }
}

/// Bound on any one collected text, so a test printing gigabytes cannot exhaust memory.
const TEXT_LIMIT: usize = 256 * 1024;

/// Which text we are collecting.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sink {
    None,
    FaultText,
    Out,
    Err,
}

struct State {
    report: Report,
    /// Indices into `report.suites` of the open suites, innermost last.
    open: Vec<usize>,
    case: Option<Case>,
    fault: Option<Fault>,
    sink: Sink,
    /// A JUnit element was seen: the document is this format, even with no test in it.
    junit: bool,
    /// Depth of unknown elements inside a fault/output whose text is not ours.
    depth: usize,
}

/// Reads a JUnit XML document. Errors only when no JUnit element could be read at all.
pub fn read(xml: &str) -> Result<Report, ParseError> {
    let mut reader = Reader::from_str(xml);
    reader.config_mut().check_end_names = false;
    let mut st = State {
        report: Report::default(),
        open: Vec::new(),
        case: None,
        fault: None,
        sink: Sink::None,
        junit: false,
        depth: 0,
    };
    let mut error: Option<String> = None;
    loop {
        match reader.read_event() {
            Err(e) => {
                error = Some(e.to_string());
                break;
            }
            Ok(Event::Eof) => break,
            Ok(Event::Start(e)) => st.open(&e, false),
            Ok(Event::Empty(e)) => st.open(&e, true),
            Ok(Event::End(e)) => {
                let name = e.local_name().as_ref().to_owned();
                st.close(&name);
            }
            Ok(Event::Text(t)) => st.push_text(&t.xml10_content()),
            Ok(Event::CData(t)) => st.push_text(&t.xml10_content()),
            Ok(Event::GeneralRef(r)) => {
                let s = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    Ok(None) => quick_xml::escape::resolve_predefined_entity(&r)
                        .unwrap_or("")
                        .to_owned(),
                    Err(_) => String::new(),
                };
                st.push_text(&s);
            }
            Ok(_) => {}
        }
    }
    // A truncated report: keep the case being read, it did start.
    let unclosed = st.case.is_some() || !st.open.is_empty();
    if st.case.is_some() {
        st.finish_case();
    }
    if !st.junit {
        return Err(ParseError::Malformed(match error {
            Some(e) => format!("not JUnit XML: {e}"),
            None => "no <testsuite> or <testcase> element".to_owned(),
        }));
    }
    st.report.complete = error.is_none() && !unclosed;
    Ok(st.report)
}

fn attr(e: &BytesStart<'_>, key: &str) -> Option<String> {
    let a = e.try_get_attribute(key).ok()??;
    match a.normalized_value(quick_xml::XmlVersion::Implicit1_0) {
        Ok(v) => Some(v.into_owned()),
        // A bad escape: the raw value is still better than nothing.
        Err(_) => Some(a.value.clone().into_owned()),
    }
}

fn number<T: std::str::FromStr>(e: &BytesStart<'_>, key: &str) -> Option<T> {
    attr(e, key).and_then(|v| v.trim().parse().ok())
}

impl State {
    fn open(&mut self, e: &BytesStart<'_>, empty: bool) {
        let name = e.local_name().as_ref().to_owned();
        match name.as_str() {
            "testsuites" => self.junit = true,
            "testsuite" if self.case.is_none() => {
                self.junit = true;
                self.report.suites.push(Suite {
                    name: attr(e, "name").unwrap_or_default(),
                    file: attr(e, "file"),
                    tests: number(e, "tests"),
                    failures: number(e, "failures"),
                    errors: number(e, "errors"),
                    skipped: number(e, "skipped"),
                    ..Suite::default()
                });
                self.open.push(self.report.suites.len() - 1);
            }
            "testcase" if self.case.is_none() => {
                self.junit = true;
                self.case = Some(Case {
                    suite: self
                        .open
                        .last()
                        .map(|&i| self.report.suites[i].name.clone())
                        .unwrap_or_default(),
                    classname: attr(e, "classname").unwrap_or_default(),
                    name: attr(e, "name").unwrap_or_default(),
                    time: number(e, "time").filter(|t: &f64| t.is_finite()),
                    file: attr(e, "file"),
                    line: number(e, "line"),
                    ..Case::default()
                });
            }
            n if self.case.is_some() && self.fault.is_none() && FaultElement::of(n).is_some() => {
                self.fault = Some(Fault {
                    element: FaultElement::of(n).unwrap_or_default(),
                    message: attr(e, "message"),
                    type_name: attr(e, "type"),
                    ..Fault::default()
                });
                self.sink = Sink::FaultText;
            }
            "skipped" => {
                if let Some(c) = self.case.as_mut() {
                    if c.outcome == Outcome::Passed {
                        c.outcome = Outcome::Skipped;
                    }
                    c.skip_message = attr(e, "message");
                }
            }
            "system-out" => self.sink = Sink::Out,
            "system-err" => self.sink = Sink::Err,
            // A retry's `<stackTrace>` is its failure text, like a failure element's body.
            "stackTrace" if self.fault.is_some() => self.sink = Sink::FaultText,
            _ => {
                if !empty && self.sink != Sink::None {
                    // Markup inside a text we collect (rare): its text is still ours.
                    self.depth += 1;
                }
            }
        }
        if empty {
            self.close(&name);
        }
    }

    fn close(&mut self, name: &str) {
        match name {
            "testcase" => {
                if self.case.is_some() {
                    self.finish_case();
                }
            }
            "testsuite" if self.case.is_none() => {
                self.open.pop();
            }
            n if FaultElement::of(n).is_some() => {
                if let (Some(c), Some(f)) = (self.case.as_mut(), self.fault.take()) {
                    attach(c, f);
                }
                self.sink = Sink::None;
            }
            "system-out" | "system-err" | "stackTrace" => {
                self.sink = if self.fault.is_some() {
                    Sink::FaultText
                } else {
                    Sink::None
                };
            }
            _ => self.depth = self.depth.saturating_sub(1),
        }
    }

    fn finish_case(&mut self) {
        let Some(mut c) = self.case.take() else {
            return;
        };
        if let Some(f) = self.fault.take() {
            attach(&mut c, f);
        }
        self.sink = Sink::None;
        let i = match self.open.last() {
            Some(&i) => i,
            None => {
                // A case outside any suite: it gets a nameless one of its own.
                if self.report.suites.last().is_none_or(|s| !s.name.is_empty()) {
                    self.report.suites.push(Suite::default());
                }
                self.report.suites.len() - 1
            }
        };
        self.report.suites[i].cases.push(c);
    }

    fn push_text(&mut self, s: &str) {
        let target = match (self.sink, self.fault.as_mut(), self.case.as_mut()) {
            (Sink::FaultText, Some(f), _) => &mut f.text,
            (Sink::Out, Some(f), _) => &mut f.stdout,
            (Sink::Err, Some(f), _) => &mut f.stderr,
            (Sink::Out, None, Some(c)) => &mut c.stdout,
            (Sink::Err, None, Some(c)) => &mut c.stderr,
            (Sink::Out, None, None) => match self.open.last() {
                Some(&i) => &mut self.report.suites[i].stdout,
                None => return,
            },
            (Sink::Err, None, None) => match self.open.last() {
                Some(&i) => &mut self.report.suites[i].stderr,
                None => return,
            },
            _ => return,
        };
        if target.len() < TEXT_LIMIT {
            let room = TEXT_LIMIT - target.len();
            if s.len() <= room {
                target.push_str(s);
            } else {
                let mut end = room;
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                target.push_str(&s[..end]);
            }
        }
    }
}

fn attach(c: &mut Case, f: Fault) {
    if f.element.is_retry() {
        c.retries.push(f);
        return;
    }
    if c.fault.is_some() {
        // A second verdict (pytest writes a teardown error after a failure): the first stands.
        return;
    }
    c.outcome = match f.element {
        FaultElement::Error => Outcome::Errored,
        _ => Outcome::Failed,
    };
    c.fault = Some(f);
}

/// Reads a JUnit XML report (for `pith test --report`) into a run: ids are
/// `classname#name` for JVM-like class names (Surefire's own `-Dtest` address), otherwise
/// `classname name`; Java, JavaScript and Python stack frames that point into the workspace
/// become project frames.
pub fn parse_report(text: &str, paths: &crate::PathMap) -> Result<pith_model::Run, ParseError> {
    let report = read(text)?;
    Ok(crate::jvm::report_run(&report, paths))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_surefire_report_with_retries() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="demo.CalcTest" tests="4" errors="1" skipped="1" failures="1">
  <properties><property name="java.version" value="17"/></properties>
  <testcase name="adds" classname="demo.CalcTest" time="0.01"/>
  <testcase name="flaky" classname="demo.CalcTest" time="0.02">
    <flakyFailure message="first" type="java.lang.AssertionError"><stackTrace><![CDATA[java.lang.AssertionError: first
	at demo.CalcTest.flaky(CalcTest.java:9)]]></stackTrace><system-out>try 1</system-out></flakyFailure>
  </testcase>
  <testcase name="npe" classname="demo.CalcTest">
    <error message="boom &amp; more" type="java.lang.NullPointerException">java.lang.NullPointerException: boom &amp; more
	at demo.CalcTest.npe(CalcTest.java:12)</error>
    <rerunError message="again" type="java.lang.NullPointerException"><stackTrace>x</stackTrace></rerunError>
    <system-out>printed</system-out>
  </testcase>
  <testcase name="later" classname="demo.CalcTest"><skipped message="not yet"/></testcase>
</testsuite>"#;
        let r = read(xml).unwrap();
        assert!(r.complete);
        assert_eq!(r.suites.len(), 1);
        assert_eq!(r.suites[0].tests, Some(4));
        let c: Vec<&Case> = r.cases().collect();
        assert_eq!(c.len(), 4);
        assert_eq!(c[0].outcome, Outcome::Passed);
        assert_eq!(c[0].time, Some(0.01));
        assert!(c[1].flaky());
        assert_eq!(c[1].retries[0].stdout, "try 1");
        assert!(c[1].retries[0].text.contains("CalcTest.java:9"));
        assert_eq!(c[2].outcome, Outcome::Errored);
        let f = c[2].fault.as_ref().unwrap();
        assert_eq!(f.message.as_deref(), Some("boom & more"));
        assert!(f
            .text
            .starts_with("java.lang.NullPointerException: boom & more\n"));
        assert_eq!(c[2].retries.len(), 1);
        assert!(!c[2].flaky());
        assert_eq!(c[2].stdout, "printed");
        assert_eq!(c[3].outcome, Outcome::Skipped);
        assert_eq!(c[3].skip_message.as_deref(), Some("not yet"));
    }

    #[test]
    fn nested_suites_and_bare_cases() {
        let xml = r#"<testsuites><testsuite name="outer"><testcase name="a" classname="x"/>
<testsuite name="inner" file="t.py"><testcase name="b" classname="y" file="t.py" line="3"><failure>bad</failure></testcase></testsuite>
<testcase name="c"/></testsuite></testsuites>"#;
        let r = read(xml).unwrap();
        assert!(r.complete);
        let names: Vec<(&str, &str)> = r
            .cases()
            .map(|c| (c.suite.as_str(), c.name.as_str()))
            .collect();
        assert_eq!(names, [("outer", "a"), ("outer", "c"), ("inner", "b")]);
        let b = &r.suites[1].cases[0];
        assert_eq!((b.file.as_deref(), b.line), (Some("t.py"), Some(3)));
        assert_eq!(b.fault.as_ref().unwrap().text, "bad");

        let bare = read(r#"<testcase name="solo"><skipped/></testcase>"#).unwrap();
        assert_eq!(bare.cases().count(), 1);
        assert_eq!(bare.suites[0].name, "");
    }

    #[test]
    fn empty_and_foreign_documents() {
        let r = read("<testsuites/>").unwrap();
        assert!(r.complete && r.suites.is_empty());
        assert!(read("").is_err());
        assert!(read("<TestRun><Results/></TestRun>").is_err());
        assert!(read("{\"json\": true}").is_err());
    }

    #[test]
    fn truncation_keeps_what_was_read() {
        let xml = r#"<testsuite name="s"><testcase name="a" classname="k"/><testcase name="b" classname="k"><failure message="m">at x"#;
        let r = read(xml).unwrap();
        assert!(!r.complete);
        let c: Vec<&Case> = r.cases().collect();
        assert_eq!(c.len(), 2);
        assert_eq!(c[1].outcome, Outcome::Failed);
        assert_eq!(c[1].fault.as_ref().unwrap().text, "at x");
    }
}
