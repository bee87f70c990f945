//! The generic JUnit XML reader: Maven Surefire, Gradle, and whatever else writes the format
//! (`pith test --report`, through [`crate::jvm::parse_report`]), and nextest's reports for the Rust adapter. It reads `<testsuites>`/`<testsuite>` (nested or not, or a bare
//! `<testcase>`), `<testcase classname name time file line>` with `<failure>`, `<error>`,
//! `<skipped>`, `<system-out>`/`<system-err>`, and Surefire's retry elements
//! (`<flakyFailure>`, `<flakyError>`, `<rerunFailure>`, `<rerunError>`, each with its own
//! `<stackTrace>` and output, which nextest also writes for its retries), into a neutral
//! [`Report`] that says nothing about any one runner. Best effort: a truncated document yields what was read, with [`Report::complete`] false;
//! only input with no JUnit element at all is an error. Never panics.
//!
//! The document is read as a stream ([`read_from`]), invalid UTF-8 replaced, and every text
//! kept (a failure's trace, a test's output) is bounded to its head and its tail around a note
//! of what was left out: a test that logs 300 KB before failing keeps the message it printed
//! last. Entities other than XML's five are never expanded (a billion-laughs document reads as
//! the little it is). What the report says of itself is kept too: the counts each
//! `<testsuite>`/`<testsuites>` declares and the `<failure>`/`<error>` a suite carries outside
//! any test case (a class-level setup failure), so [`Report::disagreement`] can tell when the
//! runner counted more failures or tests than its cases show.

mod read;

pub use read::{read, read_from, CUT_NOTE};

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
    /// Final `<failure>`/`<error>` elements after the first (pytest writes a teardown error
    /// after a failure): the first stands, these still count in the suite's totals.
    pub extra_faults: u32,
    pub stdout: String,
    pub stderr: String,
}

impl Case {
    /// What the test printed, as the report captured it (each failed attempt's first, then
    /// the last one's; stdout, then stderr), then its failure's text (the stack trace, the
    /// panic) unless what it printed already holds it, under `id`: `pith output --test`.
    pub fn own_output(&self, id: &str) -> Option<pith_model::output::TestOutput> {
        let attempts = self
            .retries
            .iter()
            .map(|r| (&r.stdout, &r.stderr))
            .chain(self.fault.iter().map(|f| (&f.stdout, &f.stderr)))
            .chain([(&self.stdout, &self.stderr)]);
        let mut texts: Vec<&str> = attempts
            .flat_map(|(o, e)| [o.as_str(), e.as_str()])
            .filter(|t| !t.trim().is_empty())
            .collect();
        if let Some(f) = &self.fault {
            let text = match f.text.trim() {
                "" => f.message.as_deref().unwrap_or_default(),
                text => text,
            };
            let first = text.lines().next().unwrap_or_default().trim();
            if !first.is_empty() && !texts.iter().any(|t| t.contains(first)) {
                texts.push(text);
            }
        }
        pith_model::output::TestOutput::of_lines(id, texts.iter().flat_map(|t| t.lines()))
    }

    /// Failed on some attempt, then passed.
    pub fn flaky(&self) -> bool {
        self.outcome == Outcome::Passed && self.retries.iter().any(|r| r.element.is_flaky())
    }

    /// How many times it ran: once, plus each retry element (every one a failed attempt).
    /// Gradle's `mergeReruns` report counts every execution in its `tests` and `failures`
    /// ("unaffected by merge reruns", its `JUnitXmlResultWriter` says) and so does its console
    /// line, while Surefire counts each test once: either is at most this.
    pub fn executions(&self) -> u64 {
        1 + self.retries.len() as u64
    }

    /// Its failed executions, as [`Case::executions`] counts them: the last one when it
    /// failed, and every retry element.
    pub fn failed_executions(&self) -> u64 {
        u64::from(self.is_failure()) + self.retries.len() as u64
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
    /// The index in [`Report::suites`] of the suite this one is nested in.
    pub parent: Option<usize>,
    /// `<failure>`/`<error>` elements of the suite itself, outside any test case: a class
    /// whose setup failed before any test ran, a crash some writers report at suite level.
    pub faults: Vec<Fault>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// In document order of their opening tags; nested suites are listed after their parent,
    /// each holding only its own cases.
    pub suites: Vec<Suite>,
    /// The document was read to its end, every element closed, without an XML error.
    pub complete: bool,
    /// The counts the `<testsuites>` root declares (`tests`, `failures`, `errors`).
    pub tests: Option<u32>,
    pub failures: Option<u32>,
    pub errors: Option<u32>,
}

impl Report {
    pub fn cases(&self) -> impl Iterator<Item = &Case> + '_ {
        self.suites.iter().flat_map(|s| s.cases.iter())
    }

    /// Where the report's own totals count more failures (failures and errors together: writers
    /// file one cause under either) or more tests than its test cases and suite-level faults
    /// show, one line naming the suite; `None` when every count agrees. Counts below what the
    /// cases show are not doubted: some writers leave the errors out of `failures`, none count
    /// a failure that did not happen. A nested suite's counts include its children's.
    pub fn disagreement(&self) -> Option<String> {
        let n = self.suites.len();
        // What the cases show, per suite and its descendants: (tests, failures + errors).
        let mut shown = vec![(0u64, 0u64); n];
        for (i, s) in self.suites.iter().enumerate() {
            // Every execution: Gradle's merged reruns count each one (see `Case::executions`).
            let tests = s.cases.iter().map(Case::executions).sum::<u64>();
            let bad = s
                .cases
                .iter()
                .map(|c| c.failed_executions() + u64::from(c.extra_faults))
                .sum::<u64>()
                + s.faults.len() as u64;
            let mut at = Some(i);
            let mut hops = 0;
            while let Some(j) = at.filter(|&j| j < n && hops <= n) {
                shown[j].0 += tests;
                shown[j].1 += bad;
                at = self.suites[j].parent;
                hops += 1;
            }
        }
        let check = |name: &str,
                     tests: Option<u32>,
                     failures: Option<u32>,
                     errors: Option<u32>,
                     (shown_tests, shown_bad): (u64, u64)| {
            let declared_bad = u64::from(failures.unwrap_or(0)) + u64::from(errors.unwrap_or(0));
            let who = if name.is_empty() {
                "the report".to_owned()
            } else {
                format!("suite {name}")
            };
            if declared_bad > shown_bad {
                return Some(format!(
                    "{who} counts {declared_bad} failed or errored tests, its test cases show {shown_bad}"
                ));
            }
            match tests.map(u64::from) {
                Some(t) if t > shown_tests => Some(format!(
                    "{who} counts {t} tests, its test cases show {shown_tests}"
                )),
                _ => None,
            }
        };
        let total = shown
            .iter()
            .zip(&self.suites)
            .filter(|(_, s)| s.parent.is_none())
            .fold((0, 0), |a, (c, _)| (a.0 + c.0, a.1 + c.1));
        check("", self.tests, self.failures, self.errors, total).or_else(|| {
            self.suites
                .iter()
                .zip(&shown)
                .find_map(|(s, c)| check(&s.name, s.tests, s.failures, s.errors, *c))
        })
    }
}

impl Case {
    /// Failed or errored (not skipped, not passed after a retry).
    pub fn is_failure(&self) -> bool {
        matches!(self.outcome, Outcome::Failed | Outcome::Errored)
    }
}

#[cfg(test)]
mod tests {
    use super::read::{push_bounded, settle, PASSED_HEAD, PASSED_TAIL, TEXT_HEAD, TEXT_TAIL};
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

    #[test]
    fn suite_level_faults_and_counts_are_kept() {
        let xml = r#"<testsuites tests="3" failures="0" errors="2"><testsuite name="demo.SetupTest" tests="2" errors="1" failures="0">
<error message="no database" type="java.lang.IllegalStateException">java.lang.IllegalStateException: no database
	at demo.SetupTest.setUp(SetupTest.java:4)</error>
<testcase name="a" classname="demo.SetupTest"/><testcase name="b" classname="demo.SetupTest"/>
<system-err>warming up</system-err>
</testsuite><testsuite name="demo.Other" tests="1"><testcase name="c" classname="demo.Other"/></testsuite></testsuites>"#;
        let r = read(xml).unwrap();
        assert!(r.complete);
        assert_eq!((r.tests, r.failures, r.errors), (Some(3), Some(0), Some(2)));
        assert_eq!(r.suites[0].faults.len(), 1);
        let f = &r.suites[0].faults[0];
        assert_eq!(f.message.as_deref(), Some("no database"));
        assert!(f.text.contains("SetupTest.java:4"));
        assert_eq!(r.suites[0].stderr, "warming up");
        assert!(r.cases().all(|c| c.outcome == Outcome::Passed));
        // The suite's own error counts; the root counts one more than anything shows.
        assert_eq!(
            r.disagreement().as_deref(),
            Some("the report counts 2 failed or errored tests, its test cases show 1")
        );
    }

    #[test]
    fn counts_that_agree_raise_no_doubt_nested_or_not() {
        let xml = r#"<testsuites tests="3" failures="1"><testsuite name="outer" tests="3" failures="1"><testcase name="a" classname="x"/>
<testsuite name="inner" tests="2" failures="1"><testcase name="b" classname="y"><failure>bad</failure></testcase><testcase name="c" classname="y"><skipped/></testcase></testsuite>
</testsuite></testsuites>"#;
        let r = read(xml).unwrap();
        assert_eq!(r.suites[1].parent, Some(0));
        assert_eq!(r.disagreement(), None);
        // pytest: a test that failed and then errored in teardown counts in both totals.
        let twice = r#"<testsuite name="pytest" tests="1" failures="1" errors="1"><testcase name="t" classname="m"><failure>f</failure><error>e</error></testcase></testsuite>"#;
        assert_eq!(read(twice).unwrap().disagreement(), None);
        // Fewer declared than shown is not doubted (writers that leave errors out).
        let fewer = r#"<testsuite name="s" tests="1" failures="0"><testcase name="a" classname="k"><error/></testcase><testcase name="b" classname="k"/></testsuite>"#;
        assert_eq!(read(fewer).unwrap().disagreement(), None);
        let missing = r#"<testsuite name="s" tests="3" failures="0"><testcase name="a" classname="k"/></testsuite>"#;
        assert_eq!(
            read(missing).unwrap().disagreement().as_deref(),
            Some("suite s counts 3 tests, its test cases show 1")
        );
        let counted = r#"<testsuite name="demo.T" tests="1" failures="1" errors="0"><testcase name="a" classname="demo.T"/></testsuite>"#;
        assert_eq!(
            read(counted).unwrap().disagreement().as_deref(),
            Some("suite demo.T counts 1 failed or errored tests, its test cases show 0")
        );
    }

    #[test]
    fn a_long_log_keeps_its_head_and_the_failure_printed_last() {
        let log: String = (0..9000)
            .map(|i| format!("log line number {i} padding padding\n"))
            .collect();
        assert!(log.len() > 300 * 1024);
        let xml = format!(
            "<testsuite name=\"s\"><testcase name=\"t\" classname=\"k\"><failure message=\"m\">trace</failure><system-out>{log}the real failure &amp; its reason</system-out></testcase></testsuite>"
        );
        let r = read(&xml).unwrap();
        let out = &r.suites[0].cases[0].stdout;
        assert!(
            out.len() <= TEXT_HEAD + TEXT_TAIL + CUT_NOTE.len(),
            "{}",
            out.len()
        );
        assert!(out.starts_with("log line number 0 "), "{}", &out[..40]);
        assert!(
            out.ends_with("the real failure & its reason"),
            "{}",
            &out[out.len() - 60..]
        );
        assert_eq!(out.matches(CUT_NOTE).count(), 1);
        // Many small pieces (one per entity) are kept the same way.
        let many = format!(
            "<testcase name=\"t\"><system-err>{}END</system-err></testcase>",
            "&lt;x&gt;".repeat(200_000)
        );
        let r = read(&many).unwrap();
        let err = &r.suites[0].cases[0].stderr;
        assert!(err.len() <= TEXT_HEAD + TEXT_TAIL + CUT_NOTE.len());
        assert!(
            err.starts_with("<x><x>") && err.ends_with("<x>END"),
            "{}",
            &err[err.len() - 20..]
        );
        assert_eq!(err.matches(CUT_NOTE).count(), 1);
    }

    #[test]
    fn a_passing_tests_output_keeps_its_first_and_last_lines() {
        let log: String = (0..2000).map(|i| format!("line {i}\n")).collect();
        let xml = format!(
            "<testsuite name=\"s\"><testcase name=\"p\" classname=\"k\"><system-out>running 1 test\n{log}test result: ok.</system-out></testcase><testcase name=\"f\" classname=\"k\"><failure/><system-out>{log}</system-out></testcase></testsuite>"
        );
        let r = read(&xml).unwrap();
        let passed = &r.suites[0].cases[0].stdout;
        assert!(
            passed.len() <= PASSED_HEAD + PASSED_TAIL + CUT_NOTE.len(),
            "{}",
            passed.len()
        );
        assert!(passed.starts_with("running 1 test\n") && passed.ends_with("test result: ok."));
        // A failing test's output is kept up to the larger bound.
        assert_eq!(r.suites[0].cases[1].stdout, log);
    }

    #[test]
    fn bounded_pushes_respect_characters() {
        for head in [0usize, 1, 2, 3] {
            let mut t = "é".repeat(TEXT_HEAD / 2 - head);
            for _ in 0..3 {
                push_bounded(&mut t, &"ü€".repeat(TEXT_TAIL / 2));
            }
            push_bounded(&mut t, "end");
            assert!(t.ends_with("end"));
            assert_eq!(t.matches(CUT_NOTE).count(), 1);
            assert!(t.len() <= TEXT_HEAD + 2 * TEXT_TAIL + CUT_NOTE.len() + 8);
            settle(&mut t);
            assert!(t.len() <= TEXT_HEAD + TEXT_TAIL + CUT_NOTE.len() + 8);
            assert!(t.ends_with("end"));
        }
    }

    #[test]
    fn invalid_utf8_and_entity_bombs_read_as_what_they_are() {
        let mut bytes =
            b"<testsuite name=\"s\"><testcase name=\"t\" classname=\"k\"><system-out>ok \xff\xfe "
                .to_vec();
        bytes.extend_from_slice("é".as_bytes());
        bytes.extend_from_slice(b"</system-out></testcase></testsuite>");
        let r = read_from(&bytes[..]).unwrap();
        assert!(r.complete);
        assert_eq!(r.suites[0].cases[0].stdout, "ok \u{fffd}\u{fffd} é");
        // A character split across reads is joined.
        struct OneByte<'a>(&'a [u8]);
        impl std::io::Read for OneByte<'_> {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                if self.0.is_empty() || out.is_empty() {
                    return Ok(0);
                }
                out[0] = self.0[0];
                self.0 = &self.0[1..];
                Ok(1)
            }
        }
        let r = read_from(OneByte(&bytes)).unwrap();
        assert_eq!(r.suites[0].cases[0].stdout, "ok \u{fffd}\u{fffd} é");

        let bomb = r#"<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<testsuite name="s"><testcase name="t" classname="k"><failure message="&lol3;">&lol3;</failure></testcase></testsuite>"#;
        let r = read(bomb).unwrap();
        let f = r.suites[0].cases[0].fault.as_ref().unwrap();
        assert!(f.text.len() < 100, "{}", f.text.len());
    }
}
