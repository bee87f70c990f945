//! GoogleTest's JSON report (`--gtest_output=json:PATH`): `testsuites[]`, each with its tests in
//! `testsuite[]` (`name`, `classname`, `file`, `line`, `status` RUN/NOTRUN, `result`
//! COMPLETED/SKIPPED/SUPPRESSED, `failures[].failure`). The test id is gtest's own
//! `classname.name`: `Suite.Test`, `Inst/Suite.Test/0` for a value-parametrized case,
//! `Suite/0.Test` for a typed one.
//!
//! A suite whose `SetUpTestSuite` failed shows its tests as skipped and no failure at all: the
//! console output is what tells (see `console`).

use serde_json::Value;

use crate::ParseError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    Failed,
    /// Skipped by `GTEST_SKIP`, disabled (`DISABLED_`), or filtered out.
    Skipped,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub id: String,
    pub verdict: Verdict,
    /// The failure texts, in order.
    pub failures: Vec<String>,
    /// Where the test is defined.
    pub file: Option<String>,
    pub line: Option<u32>,
    pub seconds: f64,
}

/// One report file: its cases and gtest's own totals over them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    pub cases: Vec<Case>,
    /// The top-level `tests` count: every reportable test, disabled ones included.
    pub tests: Option<u64>,
    /// The top-level `failures` count: tests that failed.
    pub failures: Option<u64>,
}

impl Report {
    /// Where gtest's own totals disagree with the cases read, one line saying how.
    pub fn disagreement(&self) -> Option<String> {
        let failed = self
            .cases
            .iter()
            .filter(|c| c.verdict == Verdict::Failed)
            .count() as u64;
        let total = self.cases.len() as u64;
        match (self.tests, self.failures) {
            (Some(t), _) if t != total => Some(format!(
                "the GoogleTest report counts {t} tests, {total} are in it"
            )),
            (_, Some(f)) if f > failed => Some(format!(
                "the GoogleTest report counts {f} failed tests, {failed} failures are in it"
            )),
            _ => None,
        }
    }
}

pub fn parse(text: &str) -> Result<Vec<Case>, ParseError> {
    parse_report(text).map(|r| r.cases)
}

/// Reads the first JSON document of `text`. What follows a whole document is ignored: two gtest
/// processes that ctest started together both pick the same free file name, and the one that
/// opens it last truncates it and writes its own report over the other's, leaving the longer
/// one's tail after a complete document.
pub fn parse_report(text: &str) -> Result<Report, ParseError> {
    let doc: Value = serde_json::Deserializer::from_str(text.trim_start_matches('\u{feff}'))
        .into_iter::<Value>()
        .next()
        .unwrap_or_else(|| Err(<serde_json::Error as serde::de::Error>::custom("empty")))
        .map_err(|e| ParseError::Malformed(format!("GoogleTest JSON: {e}")))?;
    let suites = doc
        .get("testsuites")
        .and_then(Value::as_array)
        .ok_or_else(|| ParseError::Malformed("GoogleTest JSON without testsuites".into()))?;
    let mut cases = Vec::new();
    for suite in suites {
        let suite_name = suite.get("name").and_then(Value::as_str).unwrap_or("");
        let Some(tests) = suite.get("testsuite").and_then(Value::as_array) else {
            continue;
        };
        for t in tests {
            let s = |k: &str| t.get(k).and_then(Value::as_str);
            let Some(name) = s("name") else { continue };
            let class = s("classname").unwrap_or(suite_name);
            let failures: Vec<String> = t
                .get("failures")
                .and_then(Value::as_array)
                .map(|fs| {
                    fs.iter()
                        .filter_map(|f| f.get("failure").and_then(Value::as_str))
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default();
            let result = s("result").unwrap_or("");
            let verdict = if !failures.is_empty() {
                Verdict::Failed
            } else if s("status") == Some("NOTRUN") || matches!(result, "SKIPPED" | "SUPPRESSED") {
                Verdict::Skipped
            } else {
                Verdict::Passed
            };
            cases.push(Case {
                id: format!("{class}.{name}"),
                verdict,
                failures,
                file: s("file").map(str::to_owned),
                line: t
                    .get("line")
                    .and_then(Value::as_u64)
                    .and_then(|l| u32::try_from(l).ok()),
                seconds: s("time")
                    .and_then(|t| t.trim_end_matches('s').parse::<f64>().ok())
                    .filter(|t| t.is_finite() && *t >= 0.0)
                    .unwrap_or(0.0),
            });
        }
    }
    Ok(Report {
        cases,
        tests: doc.get("tests").and_then(Value::as_u64),
        failures: doc.get("failures").and_then(Value::as_u64),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"{"tests": 4, "name": "AllTests", "testsuites": [
  {"name": "Nums/P", "testsuite": [
    {"name": "Even/1", "value_param": "1", "file": "/w/t.cc", "line": 11, "status": "RUN", "result": "COMPLETED", "time": "0.002s", "classname": "Nums/P",
     "failures": [{"failure": "/w/t.cc:11\nExpected equality of these values:\n  GetParam() % 2\n    Which is: 1\n  0", "type": ""}]}]},
  {"name": "Sum", "testsuite": [
    {"name": "Ok", "status": "RUN", "result": "COMPLETED", "classname": "Sum"},
    {"name": "Skip", "status": "RUN", "result": "SKIPPED", "classname": "Sum"},
    {"name": "DISABLED_Off", "status": "NOTRUN", "result": "SUPPRESSED", "classname": "Sum"}]}]}"#;

    #[test]
    fn ids_and_verdicts() {
        let cases = parse(SAMPLE).unwrap();
        let got: Vec<(&str, Verdict)> = cases.iter().map(|c| (c.id.as_str(), c.verdict)).collect();
        assert_eq!(
            got,
            [
                ("Nums/P.Even/1", Verdict::Failed),
                ("Sum.Ok", Verdict::Passed),
                ("Sum.Skip", Verdict::Skipped),
                ("Sum.DISABLED_Off", Verdict::Skipped),
            ]
        );
        assert_eq!(cases[0].line, Some(11));
        assert!((cases[0].seconds - 0.002).abs() < 1e-9);
        assert!(parse("{\"testsuites\": 1}").is_err());
        assert_eq!(parse_report(SAMPLE).unwrap().disagreement(), None);
        let short = SAMPLE.replacen("\"tests\": 4", "\"tests\": 5", 1);
        assert_eq!(
            parse_report(&short).unwrap().disagreement().as_deref(),
            Some("the GoogleTest report counts 5 tests, 4 are in it")
        );
        assert!(parse("{\"tests\": 1, \"testsu").is_err());
        assert!(parse("").is_err());
    }

    /// Two processes that picked the same file: the last to open it wrote its whole report
    /// over the start of a longer one.
    #[test]
    fn a_report_written_over_a_longer_one_is_read() {
        let longer = SAMPLE.replace("\"Ok\"", "\"OkWithALongerName\"");
        let shorter = r#"{"tests": 1, "testsuites": [{"name": "Sum", "testsuite": [{"name": "Ok", "status": "RUN", "result": "COMPLETED", "classname": "Sum"}]}]}"#;
        let file = format!("{shorter}{}", &longer[shorter.len()..]);
        let r = parse_report(&file).unwrap();
        assert_eq!(r.cases.len(), 1);
        assert_eq!(r.cases[0].id, "Sum.Ok");
        assert_eq!(r.disagreement(), None);
    }

    proptest::proptest! {
        /// GoogleTest writes the file at exit: a cut one (a crash while writing) is an error,
        /// never a shorter list of passing tests.
        #[test]
        fn a_truncated_report_is_an_error(cut in 0usize..1000) {
            let cut = SAMPLE.char_indices().map(|(i, _)| i).nth(cut).unwrap_or(SAMPLE.len());
            if cut < SAMPLE.trim_end().len() {
                proptest::prop_assert!(parse(&SAMPLE[..cut]).is_err());
            }
        }

        #[test]
        fn never_panics(s in "(?s).{0,400}") {
            let _ = parse(&s);
            let _ = parse(&format!("{{\"testsuites\": [{{\"testsuite\": [{s}"));
        }
    }
}
