//! The generic JUnit XML reader and `--report`'s conversion on our own reports
//! (tests/fixtures/reports/junit, and a large multi-suite report built here), on the same checks
//! over real reports from public projects where the external corpus is (`junit/` in it, see
//! tests/fixtures/reports/samples.rs; never copied into the repo), on Surefire's retry
//! elements, and on malformed, truncated and binary input, which must never panic and never
//! read as green.

use std::path::Path;

use pith_model::Status;
use pith_runner::junit::{self, FaultElement, Outcome};
use pith_runner::jvm;
use pith_runner::PathMap;
use proptest::prelude::*;

// Where the external corpus of real reports is, if anywhere.
#[allow(dead_code)]
mod samples {
    include!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/reports/samples.rs"
    ));
}

/// A report of the corpus; `None` where there is no corpus.
fn sample(name: &str) -> Option<String> {
    samples::read(&format!("junit/{name}"))
}

/// One of our own reports (tests/fixtures/reports/junit).
fn ours(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/reports/junit")
        .join(name);
    String::from_utf8_lossy(&std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .into_owned()
}

/// Our own JUnit reports, modelled on the shapes the samples show.
const OURS: [&str; 2] = [
    "plain-junit4.xml",
    "TEST-org.acme.ledger.RetryingClientTest.xml",
];

/// A large multi-suite report, built here rather than committed: 120 suites of 1 to 13 cases
/// (825 in all), two failures with traces, an error, 17 skips, the totals on every suite and
/// on the root, as Python's junit writers start a file.
fn large_report() -> String {
    let mut body = String::new();
    let mut i = 0u32;
    let (mut tests, mut failures, mut errors, mut skipped) = (0, 0, 0, 0);
    for s in 0..120u32 {
        let class = format!("org.acme.ledger.module{}.Service{s}Test", s % 9);
        let n = s % 13 + 1;
        let (mut f, mut e, mut k) = (0, 0, 0);
        let mut cases = String::new();
        for c in 0..n {
            let verdict = match i {
                100 | 500 => {
                    f += 1;
                    format!(
                        "\n    <failure type=\"java.lang.AssertionError\" message=\"expected [{c}] but found [{i}]\">\n      java.lang.AssertionError: expected [{c}] but found [{i}]\nat org.testng.Assert.fail(Assert.java:111)\nat {class}.case{c}({}.java:{})\n    </failure>\n  ",
                        class.rsplit('.').next().unwrap(),
                        20 + c
                    )
                }
                700 => {
                    e += 1;
                    format!("<error type=\"java.lang.IllegalStateException\" message=\"pool closed &amp; drained\">java.lang.IllegalStateException: pool closed &amp; drained\nat {class}.case{c}(Unknown Source)</error>")
                }
                _ if i % 50 == 7 => {
                    k += 1;
                    "\n    <skipped />\n  ".to_owned()
                }
                _ => String::new(),
            };
            let time = f64::from(i % 17) * 0.013;
            if verdict.is_empty() {
                cases.push_str(&format!(
                    "<testcase name=\"case{c}\" time=\"{time}\" classname=\"{class}\" />\n  "
                ));
            } else {
                cases.push_str(&format!(
                    "<testcase name=\"case{c}\" time=\"{time}\" classname=\"{class}\">{verdict}</testcase>\n  "
                ));
            }
            i += 1;
        }
        body.push_str(&format!(
            "<testsuite name=\"{class}\" tests=\"{n}\" errors=\"{e}\" failures=\"{f}\" skipped=\"{k}\" time=\"{}.5\">{cases}</testsuite>",
            s % 7
        ));
        (tests, failures, errors, skipped) = (tests + n, failures + f, errors + e, skipped + k);
    }
    format!("<?xml version='1.0' encoding='utf-8'?>\n<testsuites tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"2012.25\">{body}</testsuites>\n")
}

fn paths() -> PathMap {
    PathMap::new(Path::new("/ws"))
}

/// The public JUnit samples of the external corpus (`junit/` in it).
const SAMPLES: [&str; 3] = [
    "java-junit4-complete.xml",
    "java-surefire-pulsar-single.xml",
    "java-pulsar-report.xml",
];

#[test]
fn junit4_report_every_outcome() {
    let text = ours("plain-junit4.xml");
    let r = junit::read(&text).unwrap();
    assert!(r.complete);
    assert_eq!(r.suites.len(), 1);
    assert_eq!(r.suites[0].name, "Shop.Checkout");
    assert_eq!(r.suites[0].tests, Some(7));
    assert_eq!(r.suites[0].stdout, "Seeded 12 products.");
    let cases: Vec<_> = r.cases().collect();
    assert_eq!(cases.len(), 7);
    assert_eq!(cases[2].outcome, Outcome::Skipped);
    assert_eq!(
        cases[2].skip_message.as_deref(),
        Some("Gift cards are disabled on staging.")
    );
    assert_eq!(cases[3].outcome, Outcome::Failed);
    let f = cases[3].fault.as_ref().unwrap();
    assert_eq!(
        f.message.as_deref(),
        Some("Total should be 18.00 after coupon.")
    );
    assert_eq!(f.type_name.as_deref(), Some("AssertionError"));
    assert_eq!(cases[4].outcome, Outcome::Errored);
    assert_eq!(cases[5].stdout, "Receipt queued for buyer@example.test.");
    assert_eq!(cases[5].stderr, "smtp: retrying in 1s");
    assert_eq!(
        (cases[3].file.as_deref(), cases[3].line),
        (Some("acceptance/checkout.spec"), Some(66))
    );

    let run = jvm::parse_report(&text, &paths()).unwrap();
    assert_eq!(run.runner, "junit");
    assert_eq!((run.passed, run.failed, run.skipped), (4, 2, 1));
    assert_eq!(run.status(), Status::TestsFailed);
    assert_eq!(run.failures[0].test, "Shop.Checkout#appliesCoupon");
    assert_eq!(
        run.failures[0].message,
        "Total should be 18.00 after coupon."
    );
    assert_eq!(
        run.failures[1].message,
        "Cannot read property 'zone' of undefined."
    );
    assert_eq!(run.failures[1].kind.as_deref(), Some("TypeError"));
    // No trace, but the case's own location is inside the workspace.
    assert_eq!(
        run.failures[0]
            .top_project_frame()
            .map(|f| f.location())
            .as_deref(),
        Some("acceptance/checkout.spec:66")
    );
}

#[test]
fn testmo_example_every_outcome() {
    let Some(text) = sample("java-junit4-complete.xml") else {
        return;
    };
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

    let run = jvm::parse_report(&text, &paths()).unwrap();
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
fn surefire_testng_report_with_a_retried_name_of_ours() {
    let text = ours("TEST-org.acme.ledger.RetryingClientTest.xml");
    let run = jvm::parse_report(&text, &paths()).unwrap();
    // TestNG's retry analyzer reports the retried method twice: skipped, then failed.
    assert_eq!((run.passed, run.failed, run.skipped), (1, 1, 1));
    let f = &run.failures[0];
    assert_eq!(
        f.test,
        "org.acme.ledger.RetryingClientTest#connectsWithBackoff"
    );
    assert_eq!(f.message, "expected [3] but found [4]");
    assert_eq!(f.kind.as_deref(), Some("java.lang.AssertionError"));
    // Another machine's project: no frame is in this workspace.
    assert!(f.frames.iter().all(|fr| !fr.project), "{:#?}", f.frames);
    assert!(!f.frames.is_empty());
}

#[test]
fn surefire_testng_report_with_a_retried_name() {
    let Some(text) = sample("java-surefire-pulsar-single.xml") else {
        return;
    };
    let run = jvm::parse_report(&text, &paths()).unwrap();
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
fn large_report_counts_match_its_totals() {
    let text = large_report();
    let r = junit::read(&text).unwrap();
    assert!(r.complete);
    assert_eq!(r.suites.len(), 120);
    let declared: u32 = r.suites.iter().filter_map(|s| s.tests).sum();
    assert_eq!(r.cases().count() as u32, declared);
    assert_eq!(declared, 825);
    let run = jvm::parse_report(&text, &paths()).unwrap();
    assert_eq!((run.failed, run.skipped), (3, 17));
    assert_eq!(run.passed, 825 - 20);
    let error = run
        .failures
        .iter()
        .find(|f| f.kind.as_deref() == Some("java.lang.IllegalStateException"))
        .unwrap_or_else(|| panic!("{:#?}", run.failures));
    assert_eq!(
        error.message,
        "IllegalStateException: pool closed & drained"
    );
}

#[test]
fn large_pulsar_report_counts_match_its_totals() {
    let Some(text) = sample("java-pulsar-report.xml") else {
        return;
    };
    let r = junit::read(&text).unwrap();
    assert!(r.complete);
    let declared: u32 = r.suites.iter().filter_map(|s| s.tests).sum();
    assert_eq!(r.cases().count() as u32, declared);
    assert_eq!(declared, 808);
    let run = jvm::parse_report(&text, &paths()).unwrap();
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
    let run = jvm::parse_report(xml, &PathMap::new(ws.path())).unwrap();
    // Passed on a retry: a pass, listed with its failed attempt; failed every try: a failure.
    assert_eq!((run.passed, run.failed), (2, 1));
    assert_eq!(run.status(), Status::TestsFailed);
    let flaky = &run.flaky[0];
    assert_eq!(flaky.test, "demo.NetTest#connects");
    assert_eq!(flaky.message, "SocketTimeoutException: timed out");
    let top = flaky.top_project_frame().unwrap();
    assert_eq!(top.location(), "src/test/java/demo/NetTest.java:14");
    assert_eq!(top.code.as_deref(), Some("line 14"));
    assert_eq!(run.failures.len(), 1);
    assert_eq!(run.failures[0].test, "demo.NetTest#sends");
    assert!(!run.failures[0].flaky);
}

#[test]
fn other_writers_keep_their_own_ids() {
    // nextest's report read as generic JUnit: `binary test`, nextest's own id.
    let xml = r#"<testsuites><testsuite name="single"><testcase name="tests::off_by_one" classname="single"><failure message="panicked" type="test failure">x</failure></testcase></testsuite></testsuites>"#;
    let run = jvm::parse_report(xml, &paths()).unwrap();
    assert_eq!(run.failures[0].test, "single tests::off_by_one");
    assert_eq!(run.failures[0].message, "panicked");
}

#[test]
fn foreign_and_empty_documents() {
    assert!(jvm::parse_report("", &paths()).is_err());
    assert!(jvm::parse_report("<TestRun/>", &paths()).is_err());
    assert!(jvm::parse_report("\u{0}\u{1}\u{2}binary", &paths()).is_err());
    let none = jvm::parse_report("<testsuites/>", &paths()).unwrap();
    assert_eq!(none.status(), Status::NoTestsRan);
}

/// Every report: ours, the large one, and the corpus's where it is.
fn every_report() -> Vec<(String, String)> {
    let mut all: Vec<(String, String)> = OURS.iter().map(|n| (n.to_string(), ours(n))).collect();
    all.push(("large".to_owned(), large_report()));
    for name in SAMPLES {
        if let Some(text) = sample(name) {
            all.push((name.to_owned(), text));
        }
    }
    all
}

#[test]
fn every_truncation_is_read_and_never_green() {
    for (name, text) in every_report() {
        let full = jvm::parse_report(&text, &paths()).unwrap();
        let end = text.trim_end().len();
        let step = (end / 120).max(1);
        for cut in (0..end).step_by(step) {
            let mut at = cut;
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            if let Ok(run) = jvm::parse_report(&text[..at], &paths()) {
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
        let _ = jvm::parse_report(&s, &paths());
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
        let _ = jvm::parse_report(&xml, &paths());
    }

    #[test]
    fn truncated_report_never_panics(cut in 0usize..7600, junk in proptest::collection::vec(any::<u8>(), 0..64), sample_of_corpus in any::<bool>()) {
        // Ours, or the corpus's where it is.
        let text = sample_of_corpus
            .then(|| sample("java-junit4-complete.xml"))
            .flatten()
            .unwrap_or_else(|| ours("plain-junit4.xml"));
        let mut bytes = text.as_bytes()[..cut.min(text.len())].to_vec();
        bytes.extend_from_slice(&junk);
        let s = String::from_utf8_lossy(&bytes);
        let _ = jvm::parse_report(&s, &paths());
    }
}
