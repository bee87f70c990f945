//! nextest's JUnit report: one `<testsuite>` per test binary (named by its binary id), one
//! `<testcase name="TEST" classname="BINARY_ID">` per test, with `<failure>`/`<error>` (message,
//! type, text), `<skipped/>`, retries as `<flakyFailure>`/`<rerunFailure>` (and `...Error`), and
//! the captured `<system-out>`/`<system-err>` (where the panic text lives).
//! Best effort: a truncated or malformed report yields the cases read so far, never a panic.

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Outcome {
    #[default]
    Passed,
    Failed,
    Skipped,
}

/// A `<failure>`, `<error>` or retry element.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Fault {
    /// The element name (`failure`, `error`, `flakyFailure`, `rerunFailure`...).
    pub element: String,
    pub message: Option<String>,
    pub kind: Option<String>,
    pub text: String,
    /// Output captured for this attempt (retry elements carry their own).
    pub stdout: String,
    pub stderr: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Case {
    /// The enclosing `<testsuite name>`: nextest's binary id.
    pub suite: String,
    pub classname: String,
    pub name: String,
    pub outcome: Outcome,
    /// The final `<failure>`/`<error>`, when the test failed.
    pub fault: Option<Fault>,
    /// Earlier failed attempts (`flakyFailure` when it passed at last, `rerunFailure` when not).
    pub retries: Vec<Fault>,
    pub stdout: String,
    pub stderr: String,
}

impl Case {
    /// nextest's id: binary id, a space, the test name.
    pub fn id(&self) -> String {
        let bin = if self.classname.is_empty() {
            &self.suite
        } else {
            &self.classname
        };
        format!("{bin} {}", self.name)
    }

    /// Failed on some attempt, then passed.
    pub fn flaky(&self) -> bool {
        self.outcome == Outcome::Passed
            && self.retries.iter().any(|r| r.element.starts_with("flaky"))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Report {
    pub cases: Vec<Case>,
    /// The document was read to its end without an XML error.
    pub complete: bool,
}

/// Which text we are collecting.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sink {
    None,
    FaultText,
    Out,
    Err,
}

/// Bound on any one collected text, so a test printing gigabytes cannot exhaust memory.
const TEXT_LIMIT: usize = 256 * 1024;

pub fn parse(xml: &str) -> Report {
    let mut reader = Reader::from_str(xml);
    reader.config_mut().check_end_names = false;
    let mut report = Report::default();
    let mut suite = String::new();
    let mut case: Option<Case> = None;
    // The fault element we are inside, if any.
    let mut fault: Option<Fault> = None;
    let mut sink = Sink::None;

    // An XML error ends the reading: what was read so far is kept.
    while let Ok(ev) = reader.read_event() {
        match ev {
            Event::Eof => {
                report.complete = true;
                break;
            }
            Event::Start(e) => {
                let name = local(&e);
                open(&name, &e, &mut suite, &mut case, &mut fault, &mut sink);
            }
            Event::Empty(e) => {
                let name = local(&e);
                let was_case = case.is_some();
                open(&name, &e, &mut suite, &mut case, &mut fault, &mut sink);
                // An empty element is closed at once.
                if was_case || case.is_some() {
                    close(
                        &name,
                        &mut report,
                        &mut suite,
                        &mut case,
                        &mut fault,
                        &mut sink,
                    );
                }
            }
            Event::End(e) => {
                let name = String::from_utf8_lossy(e.local_name().as_ref().as_bytes()).into_owned();
                close(
                    &name,
                    &mut report,
                    &mut suite,
                    &mut case,
                    &mut fault,
                    &mut sink,
                );
            }
            Event::Text(t) => push_text(&mut case, &mut fault, sink, &t.xml10_content()),
            Event::CData(t) => push_text(&mut case, &mut fault, sink, &t.xml10_content()),
            Event::GeneralRef(r) => {
                let s = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    Ok(None) => quick_xml::escape::resolve_predefined_entity(&r)
                        .unwrap_or("")
                        .to_owned(),
                    Err(_) => String::new(),
                };
                push_text(&mut case, &mut fault, sink, &s);
            }
            _ => {}
        }
    }
    // A truncated report: keep the case being read, it did start.
    if let Some(mut c) = case.take() {
        if let Some(f) = fault.take() {
            attach(&mut c, f);
        }
        report.cases.push(c);
    }
    report
}

fn local(e: &BytesStart<'_>) -> String {
    e.local_name().as_ref().to_owned()
}

fn attr(e: &BytesStart<'_>, key: &str) -> Option<String> {
    let a = e.try_get_attribute(key).ok()??;
    a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
        .ok()
        .map(|v| v.into_owned())
}

fn is_fault(name: &str) -> bool {
    matches!(
        name,
        "failure" | "error" | "flakyFailure" | "flakyError" | "rerunFailure" | "rerunError"
    )
}

#[allow(clippy::too_many_arguments)]
fn open(
    name: &str,
    e: &BytesStart<'_>,
    suite: &mut String,
    case: &mut Option<Case>,
    fault: &mut Option<Fault>,
    sink: &mut Sink,
) {
    match name {
        "testsuite" if case.is_none() => *suite = attr(e, "name").unwrap_or_default(),
        "testcase" if case.is_none() => {
            *case = Some(Case {
                suite: suite.clone(),
                classname: attr(e, "classname").unwrap_or_default(),
                name: attr(e, "name").unwrap_or_default(),
                ..Case::default()
            });
        }
        n if is_fault(n) && case.is_some() && fault.is_none() => {
            *fault = Some(Fault {
                element: n.to_owned(),
                message: attr(e, "message"),
                kind: attr(e, "type"),
                ..Fault::default()
            });
            *sink = Sink::FaultText;
        }
        "skipped" => {
            if let Some(c) = case.as_mut() {
                c.outcome = Outcome::Skipped;
            }
        }
        "system-out" if case.is_some() => *sink = Sink::Out,
        "system-err" if case.is_some() => *sink = Sink::Err,
        // A retry's `<stackTrace>` is its failure text, like a failure element's body.
        "stackTrace" if fault.is_some() => *sink = Sink::FaultText,
        _ => {}
    }
}

#[allow(clippy::too_many_arguments)]
fn close(
    name: &str,
    report: &mut Report,
    suite: &mut String,
    case: &mut Option<Case>,
    fault: &mut Option<Fault>,
    sink: &mut Sink,
) {
    match name {
        "testcase" => {
            if let Some(mut c) = case.take() {
                if let Some(f) = fault.take() {
                    attach(&mut c, f);
                }
                report.cases.push(c);
            }
            *sink = Sink::None;
        }
        "testsuite" if case.is_none() => suite.clear(),
        n if is_fault(n) => {
            if let (Some(c), Some(f)) = (case.as_mut(), fault.take()) {
                attach(c, f);
            }
            *sink = Sink::None;
        }
        "system-out" | "system-err" | "stackTrace" => {
            *sink = if fault.is_some() {
                Sink::FaultText
            } else {
                Sink::None
            };
        }
        _ => {}
    }
}

fn attach(c: &mut Case, f: Fault) {
    if f.element == "failure" || f.element == "error" {
        c.outcome = Outcome::Failed;
        c.fault = Some(f);
    } else {
        c.retries.push(f);
    }
}

fn push_text(case: &mut Option<Case>, fault: &mut Option<Fault>, sink: Sink, s: &str) {
    let target = match (sink, fault.as_mut(), case.as_mut()) {
        (Sink::FaultText, Some(f), _) => &mut f.text,
        (Sink::Out, Some(f), _) => &mut f.stdout,
        (Sink::Err, Some(f), _) => &mut f.stderr,
        (Sink::Out, None, Some(c)) => &mut c.stdout,
        (Sink::Err, None, Some(c)) => &mut c.stderr,
        _ => return,
    };
    if target.len() < TEXT_LIMIT {
        target.push_str(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// nextest 0.9.151, `single` fixture (backtrace shortened).
    const SINGLE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="nextest-run" tests="4" skipped="1" failures="1" errors="0" uuid="f23db813-4a77-4f21-9566-1358e71a81f0" timestamp="2026-11-29T22:45:59.570+00:00" time="0.211">
    <testsuite name="single" tests="4" skipped="1" errors="0" failures="1">
        <testcase name="tests::adds" classname="single" timestamp="2026-11-29T22:45:59.570+00:00" time="0.011"/>
        <testcase name="tests::slow" classname="single" time="0.000">
            <skipped message="Skipped: test does not match the run-ignored option"/>
        </testcase>
        <testcase name="tests::adds_negative" classname="single" timestamp="2026-11-29T22:45:59.570+00:00" time="0.022"/>
        <testcase name="tests::off_by_one" classname="single" timestamp="2026-11-29T22:45:59.581+00:00" time="0.198">
            <failure message="thread &apos;tests::off_by_one&apos; (18914) panicked at src/lib.rs:11:5" type="test failure with exit code 101">thread &apos;tests::off_by_one&apos; (18914) panicked at src/lib.rs:11:5:
assertion `left == right` failed
  left: 4
 right: 5
stack backtrace:
   3: core::panicking::assert_failed::&lt;i32, i32&gt;
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs:394:5
   4: single::check_sum
             at ./src/lib.rs:11:5
note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.</failure>
            <system-out>
running 1 test
test tests::off_by_one ... FAILED

test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 3 filtered out; finished in 0.18s

</system-out>
            <system-err>
thread &apos;tests::off_by_one&apos; (18914) panicked at src/lib.rs:11:5:
assertion `left == right` failed
  left: 4
 right: 5
stack backtrace:
   3: core::panicking::assert_failed::&lt;i32, i32&gt;
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs:394:5
</system-err>
        </testcase>
    </testsuite>
</testsuites>"#;

    /// nextest 0.9.151: a test that called `std::process::abort()`.
    const ABORT: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="nextest-run" tests="2" skipped="0" failures="1" errors="0" uuid="5e541c10-088c-4ff7-9bae-43099a5e4868" timestamp="2026-11-29T22:46:03.890+00:00" time="0.043">
    <testsuite name="crash" tests="2" skipped="0" errors="0" failures="1">
        <testcase name="tests::fine" classname="crash" timestamp="2026-11-29T22:46:03.891+00:00" time="0.036"/>
        <testcase name="tests::aborts" classname="crash" timestamp="2026-11-29T22:46:03.891+00:00" time="0.038">
            <failure message="process aborted with signal 6 (SIGABRT)" type="test abort">process aborted with signal 6 (SIGABRT)</failure>
            <system-out>
running 1 test
</system-out>
            <system-err></system-err>
        </testcase>
    </testsuite>
</testsuites>"#;

    /// A retried test (nextest's documented shape): flaky, then one that failed every try.
    const RETRIES: &str = r#"<testsuites><testsuite name="b::api">
<testcase name="flaky_one" classname="b::api"><flakyFailure message="first try" type="test failure"><stackTrace>boom</stackTrace><system-err>thread 'flaky_one' panicked at crates/b/tests/api.rs:3:5:
first try failed
</system-err></flakyFailure></testcase>
<testcase name="always" classname="b::api"><failure message="m" type="test failure">last</failure><rerunFailure message="r" type="test failure"><system-out>retry out</system-out></rerunFailure><system-out>final out</system-out><system-err>final err</system-err></testcase>
</testsuite></testsuites>"#;

    #[test]
    fn real_report() {
        let r = parse(SINGLE);
        assert!(r.complete);
        let ids: Vec<String> = r.cases.iter().map(Case::id).collect();
        assert_eq!(
            ids,
            [
                "single tests::adds",
                "single tests::slow",
                "single tests::adds_negative",
                "single tests::off_by_one"
            ]
        );
        assert_eq!(r.cases[1].outcome, Outcome::Skipped);
        let c = &r.cases[3];
        assert_eq!(c.outcome, Outcome::Failed);
        let f = c.fault.as_ref().unwrap();
        assert_eq!(
            f.message.as_deref(),
            Some("thread 'tests::off_by_one' (18914) panicked at src/lib.rs:11:5")
        );
        assert_eq!(f.kind.as_deref(), Some("test failure with exit code 101"));
        assert!(f.text.contains("assert_failed::<i32, i32>"));
        assert!(c
            .stderr
            .contains("thread 'tests::off_by_one' (18914) panicked at src/lib.rs:11:5:\n"));
        assert!(c.stdout.contains("running 1 test"));
        assert!(!c.stdout.contains("panicked"));
    }

    #[test]
    fn aborted_test() {
        let r = parse(ABORT);
        assert_eq!(r.cases.len(), 2);
        let f = r.cases[1].fault.as_ref().unwrap();
        assert_eq!(f.kind.as_deref(), Some("test abort"));
        assert_eq!(
            f.message.as_deref(),
            Some("process aborted with signal 6 (SIGABRT)")
        );
    }

    #[test]
    fn retries() {
        let r = parse(RETRIES);
        assert_eq!(r.cases.len(), 2);
        let flaky = &r.cases[0];
        assert_eq!(flaky.outcome, Outcome::Passed);
        assert!(flaky.flaky());
        assert_eq!(flaky.retries[0].text, "boom");
        assert!(flaky.retries[0].stderr.contains("first try failed"));
        assert_eq!(flaky.stderr, "");
        let always = &r.cases[1];
        assert_eq!(always.outcome, Outcome::Failed);
        assert!(!always.flaky());
        assert_eq!(always.retries[0].stdout, "retry out");
        assert_eq!(always.stdout, "final out");
        assert_eq!(always.fault.as_ref().unwrap().text, "last");
    }

    #[test]
    fn malformed_input() {
        assert_eq!(
            parse(""),
            Report {
                cases: vec![],
                complete: true
            }
        );
        let r = parse("<testsuites><testsuite name=\"a\"><testcase name=\"t\" classname=\"a\"><failure message=\"x\">boo");
        assert_eq!(r.cases.len(), 1);
        assert_eq!(r.cases[0].outcome, Outcome::Failed);
        assert_eq!(r.cases[0].fault.as_ref().unwrap().text, "boo");
        let r = parse("\u{0}\u{1}<<<>>>&&&;</x>");
        assert!(r.cases.is_empty());
    }

    proptest! {
        #[test]
        fn never_panics_on_garbage(s in "(?s).{0,2000}") {
            let _ = parse(&s);
        }

        #[test]
        fn never_panics_on_truncation(cut in 0usize..3000) {
            for doc in [SINGLE, ABORT, RETRIES] {
                let s: String = doc.chars().take(cut).collect();
                let r = parse(&s);
                prop_assert!(r.cases.len() <= 4);
            }
        }

        #[test]
        fn never_panics_on_xml_shaped_garbage(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just("<testsuite name=\"a\">".to_owned()),
                    Just("</testsuite>".to_owned()),
                    Just("<testcase name=\"t\" classname=\"a\">".to_owned()),
                    Just("</testcase>".to_owned()),
                    Just("<failure message=\"m\" type=\"t\">".to_owned()),
                    Just("</failure>".to_owned()),
                    Just("<flakyFailure>".to_owned()),
                    Just("</flakyFailure>".to_owned()),
                    Just("<system-err>".to_owned()),
                    Just("</system-err>".to_owned()),
                    Just("<skipped/>".to_owned()),
                    Just("&amp;&#10;&#xZZ;&bogus;".to_owned()),
                    "[a-z<>/&;\"= ]{0,20}",
                ],
                0..40,
            )
        ) {
            let r = parse(&parts.concat());
            for c in &r.cases {
                prop_assert!(!c.id().is_empty());
            }
        }
    }
}
