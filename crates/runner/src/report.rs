//! `pith test --report PATH...`: existing report files (CI artifacts, runners pith does not
//! drive) read into the same answer without running anything. The format is told from the
//! content, never from the file name.

use std::path::{Path, PathBuf};

use pith_model::Run;

use crate::{ParseError, PathMap};

/// The report formats pith reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Junit,
    Trx,
    GoJson,
    Jest,
    Vitest,
    Gtest,
}

/// The TRX namespace: a `<TestRun>` root in it is a Visual Studio test results file.
const TRX_NAMESPACE: &str = "microsoft.com/schemas/VisualStudio/TeamTest/";

/// Which format `text` is, from its shape (never its file name): the root element of an XML
/// document, the keys of a JSON document, or `go test -json`'s event lines. A leading BOM,
/// whitespace, XML declarations and comments are skipped. vitest's JSON reporter copies jest's
/// shape; it leaves out the keys only jest writes (`numRuntimeErrorTestSuites`,
/// `wasInterrupted`, `openHandles`), which is what tells the two apart.
pub fn sniff(text: &str) -> Option<Format> {
    let text = text.trim_start_matches(|c: char| c == '\u{feff}' || c.is_whitespace());
    match text.as_bytes().first()? {
        b'<' => sniff_xml(text),
        b'{' | b'[' => sniff_json(text),
        // Build output printed ahead of `go test -json`'s events.
        _ => go_events(text).then_some(Format::GoJson),
    }
}

fn sniff_xml(text: &str) -> Option<Format> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    loop {
        match reader.read_event().ok()? {
            Event::Start(e) | Event::Empty(e) => {
                let name = e.local_name();
                return match name.as_ref() {
                    "TestRun" => e
                        .attributes()
                        .flatten()
                        .any(|a| {
                            a.key.as_ref().starts_with("xmlns") && a.value.contains(TRX_NAMESPACE)
                        })
                        .then_some(Format::Trx),
                    "testsuites" | "testsuite" => Some(Format::Junit),
                    _ => None,
                };
            }
            Event::Eof => return None,
            // Declarations, comments, doctypes, processing instructions, blank text.
            _ => {}
        }
    }
}

/// `go test -json`: one event object per line (`Action`, with `Package` or `Time`); build
/// output may come first.
fn go_events(text: &str) -> bool {
    let event = |line: &str| {
        serde_json::from_str::<serde_json::Value>(line).is_ok_and(|v| {
            v.get("Action").is_some_and(serde_json::Value::is_string)
                && (v.get("Package").is_some() || v.get("Time").is_some())
        })
    };
    text.lines()
        .map(str::trim)
        .filter(|l| l.starts_with('{'))
        .take(20)
        .any(event)
}

fn sniff_json(text: &str) -> Option<Format> {
    if go_events(text) {
        return Some(Format::GoJson);
    }
    let doc: serde_json::Value = serde_json::from_str(text).ok()?;
    let root = doc.as_object()?;
    let array = |k: &str| root.get(k).and_then(serde_json::Value::as_array);
    if let Some(suites) = array("testsuites") {
        // GoogleTest: `testsuites` is an array of suites, each holding its tests in `testsuite`.
        let gtest_suites = suites
            .iter()
            .all(|s| s.get("testsuite").is_some_and(serde_json::Value::is_array));
        let gtest_root = root.get("tests").is_some_and(serde_json::Value::is_number)
            || root.get("name").is_some_and(|n| n == "AllTests");
        return (gtest_suites && (gtest_root || !suites.is_empty())).then_some(Format::Gtest);
    }
    let results = array("testResults")?;
    if !root.contains_key("numTotalTests")
        || !results.iter().all(|r| {
            r.get("assertionResults")
                .is_some_and(serde_json::Value::is_array)
        })
    {
        return None;
    }
    let jest_only = ["numRuntimeErrorTestSuites", "wasInterrupted", "openHandles"];
    Some(if jest_only.iter().any(|k| root.contains_key(*k)) {
        Format::Jest
    } else {
        Format::Vitest
    })
}

/// Parses one report of a known format.
pub fn parse(format: Format, text: &str, paths: &PathMap) -> Result<Run, ParseError> {
    match format {
        Format::Junit => crate::junit::parse_report(text, paths),
        Format::Trx => crate::dotnet::parse_trx(text, paths),
        Format::GoJson => crate::go::parse_json(text, paths),
        Format::Jest => crate::js::parse_jest(text, paths),
        Format::Vitest => crate::js::parse_vitest(text, paths),
        Format::Gtest => crate::gtest::parse_json(text, paths),
    }
}

/// Why a report file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a report pith knows (JUnit XML, TRX, go test -json, jest/vitest JSON, GoogleTest JSON)")]
    Unknown { path: PathBuf },
    #[error("{path}: {source}")]
    Parse { path: PathBuf, source: ParseError },
}

/// Reads one report file.
pub fn read(path: &Path, paths: &PathMap) -> Result<Run, ReportError> {
    let bytes = std::fs::read(path).map_err(|source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let text = String::from_utf8_lossy(&bytes);
    let format = sniff(&text).ok_or_else(|| ReportError::Unknown {
        path: path.to_path_buf(),
    })?;
    parse(format, &text, paths).map_err(|source| ReportError::Parse {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod sniff_tests {
    use super::*;

    /// The real report samples (`$PITH_SAMPLES`, else `<repo>/../shared/samples`).
    fn samples() -> PathBuf {
        let dir = std::env::var_os("PITH_SAMPLES")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/samples")
            });
        assert!(
            dir.is_dir(),
            "report samples not found at {} (set PITH_SAMPLES)",
            dir.display()
        );
        dir
    }

    fn sniff_sample(rel: &str) -> Option<Format> {
        let bytes = std::fs::read(samples().join(rel)).unwrap();
        sniff(&String::from_utf8_lossy(&bytes))
    }

    #[test]
    fn real_samples_are_told_apart() {
        for trx in [
            "xunit-dotnet.trx",
            "xunit-v3-mtp.trx",
            "empty.trx",
            "empty-test-definitions.trx",
            "mstest-pickles.trx",
            "nunit-netcoreapp3.1.trx",
            "xunit-netcoreapp3.1.trx",
        ] {
            assert_eq!(
                sniff_sample(&format!("trx/{trx}")),
                Some(Format::Trx),
                "{trx}"
            );
        }
        for xml in [
            "java-junit4-complete.xml",
            "java-surefire-pulsar-single.xml",
            "java-pulsar-report.xml",
        ] {
            assert_eq!(
                sniff_sample(&format!("junit/{xml}")),
                Some(Format::Junit),
                "{xml}"
            );
        }
        assert_eq!(sniff_sample("go/go-test.json"), Some(Format::GoJson));
    }

    #[test]
    fn xml_roots_behind_bom_declarations_and_comments() {
        let trx = "\u{feff}  <?xml version=\"1.0\"?>\n<!-- made by hand -->\n<TestRun id=\"1\" xmlns=\"http://microsoft.com/schemas/VisualStudio/TeamTest/2010\"><Results/></TestRun>";
        assert_eq!(sniff(trx), Some(Format::Trx));
        // A TestRun outside the TRX namespace is some other format.
        assert_eq!(sniff("<TestRun><Results/></TestRun>"), None);
        assert_eq!(
            sniff("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites><testsuite name=\"a\"/></testsuites>"),
            Some(Format::Junit)
        );
        assert_eq!(
            sniff("\n\n<testsuite name=\"a\" tests=\"0\"/>"),
            Some(Format::Junit)
        );
        assert_eq!(sniff("<html><body>testsuite</body></html>"), None);
    }

    #[test]
    fn json_reports_by_their_keys() {
        let go = "# example.com/x\nbuild noise\n{\"Time\":\"2024-01-01T00:00:00Z\",\"Action\":\"start\",\"Package\":\"example.com/x\"}\n{\"Action\":\"run\",\"Package\":\"example.com/x\",\"Test\":\"TestA\"}\n";
        assert_eq!(sniff(go), Some(Format::GoJson));
        let jest = r#"{"numFailedTestSuites":0,"numFailedTests":0,"numPassedTestSuites":1,"numPassedTests":1,"numPendingTestSuites":0,"numPendingTests":0,"numRuntimeErrorTestSuites":0,"numTodoTests":0,"numTotalTestSuites":1,"numTotalTests":1,"openHandles":[],"startTime":1,"success":true,"testResults":[{"assertionResults":[{"ancestorTitles":[],"fullName":"adds","status":"passed","title":"adds","failureMessages":[],"numPassingAsserts":1}],"endTime":2,"message":"","name":"/w/a.test.js","startTime":1,"status":"passed","summary":""}],"wasInterrupted":false}"#;
        assert_eq!(sniff(jest), Some(Format::Jest));
        let vitest = r#"{
  "numTotalTestSuites": 1, "numPassedTestSuites": 1, "numFailedTestSuites": 0, "numPendingTestSuites": 0,
  "numTotalTests": 1, "numPassedTests": 1, "numFailedTests": 0, "numPendingTests": 0, "numTodoTests": 0,
  "snapshot": {}, "startTime": 1, "success": true,
  "testResults": [{"assertionResults": [{"ancestorTitles": [], "fullName": "adds", "status": "passed", "title": "adds", "duration": 1, "failureMessages": [], "meta": {}}],
    "startTime": 1, "endTime": 2, "status": "passed", "message": "", "name": "/w/a.test.ts"}]
}"#;
        assert_eq!(sniff(vitest), Some(Format::Vitest));
        let gtest = r#"{
  "tests": 1, "failures": 0, "disabled": 0, "errors": 0, "time": "0s", "name": "AllTests",
  "testsuites": [{"name": "Sum", "tests": 1, "testsuite": [{"name": "Ok", "file": "t.cc", "line": 3, "status": "RUN", "result": "COMPLETED", "classname": "Sum"}]}]
}"#;
        assert_eq!(sniff(gtest), Some(Format::Gtest));
        // JSON that is none of them.
        assert_eq!(sniff(r#"{"testsuites": 3}"#), None);
        assert_eq!(sniff(r#"{"numTotalTests": 1}"#), None);
        assert_eq!(sniff(r#"[1, 2]"#), None);
        assert_eq!(sniff("{ truncated"), None);
        assert_eq!(sniff(""), None);
        assert_eq!(sniff("plain text"), None);
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,300}") {
            let _ = sniff(&s);
            let _ = sniff(&format!("<{s}"));
            let _ = sniff(&format!("{{{s}"));
        }
    }
}
