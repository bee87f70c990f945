//! The JUnit document read as a stream into a [`Report`]: elements in, bounded texts kept
//! (see the module doc of [`super`]).

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use crate::xml::{entity_text, Lossy};
use crate::ParseError;

use super::{Case, Fault, FaultElement, Outcome, Report, Suite};

/// Bytes kept from the start of any one collected text (a trace's message and first frames).
pub(super) const TEXT_HEAD: usize = 64 * 1024;
/// Bytes kept from its end (what a test printed last: its panic, its assertion).
pub(super) const TEXT_TAIL: usize = 192 * 1024;
/// Stands where a text's middle was left out.
pub const CUT_NOTE: &str = "\n[… output cut by pith …]\n";

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
    read_from(xml.as_bytes())
}

/// [`read`] from a stream (a report file), in memory bounded by what is kept of it, not by its
/// size: the longest single text node is the most held at once. Invalid UTF-8 is replaced;
/// an I/O error ends the reading like a truncation.
pub fn read_from(input: impl std::io::Read) -> Result<Report, ParseError> {
    let mut reader = Reader::from_reader(std::io::BufReader::new(Lossy::new(input)));
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
    let mut buf: Vec<u8> = Vec::new();
    loop {
        buf.clear();
        match reader.read_event_into(&mut buf) {
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
            Ok(Event::GeneralRef(r)) => st.push_text(&entity_text(&r)),
            Ok(_) => {}
        }
    }
    // A truncated report: keep the case being read, it did start.
    let unclosed = st.case.is_some() || !st.open.is_empty();
    if st.case.is_some() {
        st.finish_case();
    }
    if let Some(f) = st.fault.take() {
        st.attach_suite_fault(f);
    }
    if !st.junit {
        return Err(ParseError::Malformed(match error {
            Some(e) => format!("not JUnit XML: {e}"),
            None => "no <testsuite> or <testcase> element".to_owned(),
        }));
    }
    st.report.complete = error.is_none() && !unclosed;
    let mut report = st.report;
    for s in &mut report.suites {
        settle(&mut s.stdout);
        settle(&mut s.stderr);
        for f in &mut s.faults {
            settle_fault(f);
        }
        for c in &mut s.cases {
            settle(&mut c.stdout);
            settle(&mut c.stderr);
            c.fault
                .iter_mut()
                .chain(c.retries.iter_mut())
                .for_each(settle_fault);
        }
    }
    Ok(report)
}

fn settle_fault(f: &mut Fault) {
    settle(&mut f.text);
    settle(&mut f.stdout);
    settle(&mut f.stderr);
}

/// Bytes kept of each end of a passing or skipped test's output.
pub(super) const PASSED_HEAD: usize = 4 * 1024;
pub(super) const PASSED_TAIL: usize = 4 * 1024;

/// Keeps `head` bytes of `t`'s start and `tail` of its end around [`CUT_NOTE`].
fn cut_to(t: &mut String, head: usize, tail: usize) {
    if t.len() <= head + tail + CUT_NOTE.len() {
        return;
    }
    let h = floor_boundary(t, head);
    let from = ceil_boundary(t, t.len() - tail);
    let mut kept = String::with_capacity(h + CUT_NOTE.len() + (t.len() - from));
    kept.push_str(&t[..h]);
    kept.push_str(CUT_NOTE);
    kept.push_str(&t[from..]);
    // A new string: the old one's capacity (the whole log) is given back.
    *t = kept;
}

/// Trims a cut text's tail to [`TEXT_TAIL`] (while reading it may hold up to twice that).
pub(super) fn settle(t: &mut String) {
    if let Some(h) = note_at(t) {
        let tail_at = h + CUT_NOTE.len();
        if t.len() - tail_at > TEXT_TAIL {
            let from = ceil_boundary(t, t.len() - TEXT_TAIL);
            t.replace_range(tail_at..from, "");
        }
    }
}

/// Where [`CUT_NOTE`] is in a text that was cut: right after its head, which ends on the char
/// boundary at or below [`TEXT_HEAD`].
fn note_at(t: &str) -> Option<usize> {
    (TEXT_HEAD.saturating_sub(3)..=TEXT_HEAD)
        .find(|&i| t.get(i..).is_some_and(|x| x.starts_with(CUT_NOTE)))
}

/// The largest char boundary of `s` at or below `i`.
fn floor_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest char boundary of `s` at or above `i`.
fn ceil_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Appends `s` to `target`, keeping at most [`TEXT_HEAD`] bytes of its start and [`TEXT_TAIL`]
/// of its end around [`CUT_NOTE`]. Amortized: the tail may grow to twice its bound before it
/// is trimmed, so many small pieces (entities) cost no more than one large one.
pub(super) fn push_bounded(target: &mut String, s: &str) {
    let note = note_at(target);
    if note.is_none() && target.len() + s.len() <= TEXT_HEAD + TEXT_TAIL {
        target.push_str(s);
        return;
    }
    // The last TEXT_TAIL bytes of `a` followed by `b`.
    let tail_of = |a: &str, b: &str| -> String {
        let b = &b[ceil_boundary(b, b.len().saturating_sub(TEXT_TAIL))..];
        let keep_a = TEXT_TAIL.saturating_sub(b.len());
        let a = &a[ceil_boundary(a, a.len().saturating_sub(keep_a))..];
        let mut t = String::with_capacity(a.len() + b.len());
        t.push_str(a);
        t.push_str(b);
        t
    };
    match note {
        Some(h) => {
            let tail_at = h + CUT_NOTE.len();
            target.push_str(&s[ceil_boundary(s, s.len().saturating_sub(TEXT_TAIL))..]);
            if target.len() - tail_at > 2 * TEXT_TAIL {
                let from = ceil_boundary(target, target.len() - TEXT_TAIL);
                target.replace_range(tail_at..from, "");
            }
        }
        None if target.len() >= TEXT_HEAD => {
            let h = floor_boundary(target, TEXT_HEAD);
            let rest = target.split_off(h);
            let tail = tail_of(&rest, s);
            target.push_str(CUT_NOTE);
            target.push_str(&tail);
        }
        None => {
            let take = floor_boundary(s, TEXT_HEAD - target.len());
            target.push_str(&s[..take]);
            let tail = tail_of("", &s[take..]);
            target.push_str(CUT_NOTE);
            target.push_str(&tail);
        }
    }
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
            "testsuites" => {
                if !self.junit {
                    self.report.tests = number(e, "tests");
                    self.report.failures = number(e, "failures");
                    self.report.errors = number(e, "errors");
                }
                self.junit = true;
            }
            "testsuite" if self.case.is_none() => self.open_suite(e),
            "testcase" if self.case.is_none() => self.open_case(e),
            n if self.fault.is_none()
                && match FaultElement::of(n) {
                    Some(_) if self.case.is_some() => true,
                    // A suite's own failure: only a final verdict, retries need a case.
                    Some(f) => !self.open.is_empty() && !f.is_retry(),
                    None => false,
                } =>
            {
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

    /// A `<testsuite>` opens, inside the suite open if any.
    fn open_suite(&mut self, e: &BytesStart<'_>) {
        self.junit = true;
        if let Some(f) = self.fault.take() {
            self.attach_suite_fault(f);
        }
        let parent = self.open.last().copied();
        self.report.suites.push(Suite {
            name: attr(e, "name").unwrap_or_default(),
            file: attr(e, "file"),
            tests: number(e, "tests"),
            failures: number(e, "failures"),
            errors: number(e, "errors"),
            skipped: number(e, "skipped"),
            parent,
            ..Suite::default()
        });
        self.open.push(self.report.suites.len() - 1);
    }

    /// A `<testcase>` opens, in the innermost suite open.
    fn open_case(&mut self, e: &BytesStart<'_>) {
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
            // GoogleTest lists a disabled test as `status="notrun"`, with no `<skipped>`.
            outcome: if attr(e, "status").as_deref() == Some("notrun") {
                Outcome::Skipped
            } else {
                Outcome::Passed
            },
            ..Case::default()
        });
    }

    fn close(&mut self, name: &str) {
        match name {
            "testcase" => {
                if self.case.is_some() {
                    self.finish_case();
                }
            }
            "testsuite" if self.case.is_none() => {
                if let Some(f) = self.fault.take() {
                    self.attach_suite_fault(f);
                }
                self.open.pop();
            }
            n if FaultElement::of(n).is_some() => {
                match (self.case.as_mut(), self.fault.take()) {
                    (Some(c), Some(f)) => attach(c, f),
                    (None, Some(f)) => self.attach_suite_fault(f),
                    _ => {}
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
        if !c.is_failure() {
            // A passing test's output explains no failure: its first and last lines are
            // enough (how it began and ended), so a report of thousands of chatty tests holds
            // kilobytes per test, not its whole log.
            for t in [&mut c.stdout, &mut c.stderr] {
                cut_to(t, PASSED_HEAD, PASSED_TAIL);
            }
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
        push_bounded(target, s);
    }

    /// A `<failure>`/`<error>` read outside any test case, to the innermost open suite.
    fn attach_suite_fault(&mut self, f: Fault) {
        if let Some(&i) = self.open.last() {
            self.report.suites[i].faults.push(f);
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
        c.extra_faults = c.extra_faults.saturating_add(1);
        return;
    }
    c.outcome = match f.element {
        FaultElement::Error => Outcome::Errored,
        _ => Outcome::Failed,
    };
    c.fault = Some(f);
}
