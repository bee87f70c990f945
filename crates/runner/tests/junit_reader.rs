//! The generic JUnit XML reader and `--report`'s conversion on real reports from public projects
//! ($PITH_SAMPLES/junit, see /work/shared/samples/README.md; never copied into the repo), on
//! Surefire's retry elements, and on malformed, truncated and binary input, which must never
//! panic and never read as green.

use std::path::{Path, PathBuf};

use pith_model::Status;
use pith_runner::junit::{self, FaultElement, Outcome};
use pith_runner::PathMap;
use proptest::prelude::*;

fn samples() -> PathBuf {
    let dir = std::env::var_os("PITH_SAMPLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/samples"));
    assert!(
        dir.join("junit").is_dir(),
        "real report samples not found at {}: set PITH_SAMPLES (scripts/test.sh does)",
        dir.display()
    );
    dir
}

fn sample(name: &str) -> String {
    let p = samples().join("junit").join(name);
    String::from_utf8_lossy(&std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .into_owned()
}

fn paths() -> PathMap {
    PathMap::new(Path::new("/ws"))
}

const SAMPLES: [&str; 3] = [
    "java-junit4-complete.xml",
    "java-surefire-pulsar-single.xml",
    "java-pulsar-report.xml",
];

#[test]
fn testmo_example_every_outcome() {
    let text = sample("java-junit4-complete.xml");
    let r = junit::read(&text).unwrap();
    assert!(r.complete);
    assert_eq!(r.suites.len(), 1);
    assert_eq!(r.suites[0].name, "Tests.Registration");
    assert_eq!(r.suites[0].tests, Some(8));
    assert_eq!(r.suites[0].stdout, "Data written to standard out.");
    let cases: Vec<_> = r.cases().collect();
    assert_eq!(cases.len(), 8);
    assert_eq!(cases[3].outcome, Outcome::Skipped);
    assert_eq!(cases[3].skip_message.as_deref(), Some("Test was skipped."));
    assert_eq!(cases[4].outcome, Outcome::Failed);
    let f = cases[4].fault.as_ref().unwrap();
    assert_eq!(f.message.as_deref(), Some("Expected value did not match."));
    assert_eq!(f.type_name.as_deref(), Some("AssertionError"));
    assert_eq!(cases[5].outcome, Outcome::Errored);
    assert_eq!(cases[6].stdout, "Data written to standard out.");
    assert_eq!(cases[6].stderr, "Data written to standard error.");
    assert_eq!(
        (cases[4].file.as_deref(), cases[4].line),
        (Some("tests/registration.code"), Some(202))
    );

    let run = junit::parse_report(&text, &paths()).unwrap();
    assert_eq!(run.runner, "junit");
    assert_eq!((run.passed, run.failed, run.skipped), (5, 2, 1));
    assert_eq!(run.status(), Status::TestsFailed);
    assert_eq!(run.failures[0].test, "Tests.Registration#testCase5");
    assert_eq!(run.failures[0].message, "Expected value did not match.");
    assert_eq!(run.failures[1].message, "Division by zero.");
    assert_eq!(run.failures[1].kind.as_deref(), Some("ArithmeticError"));
    // No trace, but the case's own location is inside the workspace.
    assert_eq!(
        run.failures[0]
            .top_project_frame()
            .map(|f| f.location())
            .as_deref(),
        Some("tests/registration.code:202")
    );
}

#[test]
fn surefire_testng_report_with_a_retried_name() {
    let text = sample("java-surefire-pulsar-single.xml");
    let run = junit::parse_report(&text, &paths()).unwrap();
    // TestNG reports the retried method twice: skipped, then failed.
    assert_eq!((run.passed, run.failed, run.skipped), (0, 1, 1));
    let f = &run.failures[0];
    assert_eq!(
        f.test,
        "org.apache.pulsar.AddMissingPatchVersionTest#testVersionStrings"
    );
    assert_eq!(f.message, "expected [1.2.1] but found [1.2.0]");
    assert_eq!(f.kind.as_deref(), Some("java.lang.AssertionError"));
    // Another machine's project: no frame is in this workspace.
    assert!(f.frames.iter().all(|fr| !fr.project), "{:#?}", f.frames);
    assert!(!f.frames.is_empty());
}

#[test]
fn large_pulsar_report_counts_match_its_totals() {
    let text = sample("java-pulsar-report.xml");
    let r = junit::read(&text).unwrap();
    assert!(r.complete);
    let declared: u32 = r.suites.iter().filter_map(|s| s.tests).sum();
    assert_eq!(r.cases().count() as u32, declared);
    assert_eq!(declared, 808);
    let run = junit::parse_report(&text, &paths()).unwrap();
    assert_eq!((run.failed, run.skipped), (1, 14));
    assert_eq!(run.passed, 808 - 15);
}

#[test]
fn surefire_flaky_and_rerun_failures_are_kept() {
    let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="demo.NetTest" tests="3" errors="0" skipped="0" failures="1" flakes="1">
  <testcase name="connects" classname="demo.NetTest" time="0.2">
    <flakyFailure message="timed out" type="java.net.SocketTimeoutException">
      <stackTrace><![CDATA[java.net.SocketTimeoutException: timed out
	at demo.NetTest.connects(NetTest.java:14)]]></stackTrace>
      <system-out>attempt 1</system-out>
    </flakyFailure>
  </testcase>
  <testcase name="sends" classname="demo.NetTest" time="0.1">
    <failure message="expected: &lt;1&gt; but was: &lt;2&gt;" type="org.opentest4j.AssertionFailedError"><![CDATA[org.opentest4j.AssertionFailedError: expected: <1> but was: <2>
	at demo.NetTest.sends(NetTest.java:20)]]></failure>
    <rerunFailure message="expected: &lt;1&gt; but was: &lt;3&gt;" type="org.opentest4j.AssertionFailedError">
      <stackTrace>org.opentest4j.AssertionFailedError: expected: &lt;1&gt; but was: &lt;3&gt;</stackTrace>
    </rerunFailure>
  </testcase>
  <testcase name="closes" classname="demo.NetTest" time="0.0"/>
</testsuite>"#;
    let r = junit::read(xml).unwrap();
    let cases: Vec<_> = r.cases().collect();
    assert!(cases[0].flaky());
    assert_eq!(cases[0].retries[0].element, FaultElement::FlakyFailure);
    assert_eq!(cases[0].retries[0].stdout, "attempt 1");
    assert_eq!(cases[1].outcome, Outcome::Failed);
    assert_eq!(cases[1].retries[0].element, FaultElement::RerunFailure);
    assert!(!cases[1].flaky());

    // In a workspace holding the test's source, frames are the project's.
    let ws = tempfile::tempdir().unwrap();
    let src = ws.path().join("src/test/java/demo/NetTest.java");
    std::fs::create_dir_all(src.parent().unwrap()).unwrap();
    std::fs::write(
        &src,
        (1..=30).map(|i| format!("line {i}\n")).collect::<String>(),
    )
    .unwrap();
    let run = junit::parse_report(xml, &PathMap::new(ws.path())).unwrap();
    assert_eq!((run.passed, run.failed), (1, 2));
    let flaky = &run.failures[0];
    assert!(flaky.flaky);
    assert_eq!(flaky.test, "demo.NetTest#connects");
    assert_eq!(flaky.message, "SocketTimeoutException: timed out");
    let top = flaky.top_project_frame().unwrap();
    assert_eq!(top.location(), "src/test/java/demo/NetTest.java:14");
    assert_eq!(top.code.as_deref(), Some("line 14"));
    assert!(!run.failures[1].flaky);
}

#[test]
fn other_writers_keep_their_own_ids() {
    // nextest's report read as generic JUnit: `binary test`, nextest's own id.
    let xml = r#"<testsuites><testsuite name="single"><testcase name="tests::off_by_one" classname="single"><failure message="panicked" type="test failure">x</failure></testcase></testsuite></testsuites>"#;
    let run = junit::parse_report(xml, &paths()).unwrap();
    assert_eq!(run.failures[0].test, "single tests::off_by_one");
    assert_eq!(run.failures[0].message, "panicked");
}

#[test]
fn foreign_and_empty_documents() {
    assert!(junit::parse_report("", &paths()).is_err());
    assert!(junit::parse_report("<TestRun/>", &paths()).is_err());
    assert!(junit::parse_report("\u{0}\u{1}\u{2}binary", &paths()).is_err());
    let none = junit::parse_report("<testsuites/>", &paths()).unwrap();
    assert_eq!(none.status(), Status::NoTestsRan);
}

#[test]
fn every_truncation_of_the_samples_is_read_and_never_green() {
    for name in SAMPLES {
        let text = sample(name);
        let full = junit::parse_report(&text, &paths()).unwrap();
        let end = text.trim_end().len();
        let step = (end / 120).max(1);
        for cut in (0..end).step_by(step) {
            let mut at = cut;
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            if let Ok(run) = junit::parse_report(&text[..at], &paths()) {
                assert!(
                    !run.status().is_green(),
                    "{name} cut at {at} reads green: {run:#?}"
                );
                // A case cut before its `<skipped/>` or `<failure>` reads as passed: never more
                // cases than the whole report, and the status says the report is incomplete.
                let total = |r: &pith_model::Run| r.passed + r.failed + r.skipped;
                assert!(total(&run) <= total(&full), "{name} cut at {at}");
            }
        }
    }
}

proptest! {
    #[test]
    fn garbage_never_panics(s in "(?s).{0,2000}") {
        let _ = junit::read(&s);
        let _ = junit::parse_report(&s, &paths());
    }

    #[test]
    fn xml_shaped_garbage_never_panics(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("<testsuites>".to_owned()),
                Just("<testsuite name=\"s\">".to_owned()),
                Just("</testsuite>".to_owned()),
                Just("<testcase classname=\"a.B\" name=\"t\">".to_owned()),
                Just("<testcase name=\"x\"/>".to_owned()),
                Just("</testcase>".to_owned()),
                Just("<failure message=\"m\" type=\"java.lang.Error\">".to_owned()),
                Just("</failure>".to_owned()),
                Just("<error/>".to_owned()),
                Just("<skipped/>".to_owned()),
                Just("<flakyFailure><stackTrace>".to_owned()),
                Just("</stackTrace></flakyFailure>".to_owned()),
                Just("<system-out>".to_owned()),
                Just("</system-out>".to_owned()),
                Just("<![CDATA[at a.B.c(B.java:1)]]>".to_owned()),
                Just("&amp;&#x41;&bogus;&#xFFFFFFFF;".to_owned()),
                "[^<>]{0,20}",
            ],
            0..40,
        )
    ) {
        let xml = parts.concat();
        let _ = junit::read(&xml);
        let _ = junit::parse_report(&xml, &paths());
    }

    #[test]
    fn truncated_real_report_never_panics(cut in 0usize..7600, junk in proptest::collection::vec(any::<u8>(), 0..64)) {
        let text = sample("java-junit4-complete.xml");
        let mut bytes = text.as_bytes()[..cut.min(text.len())].to_vec();
        bytes.extend_from_slice(&junk);
        let s = String::from_utf8_lossy(&bytes);
        let _ = junit::parse_report(&s, &paths());
    }
}
