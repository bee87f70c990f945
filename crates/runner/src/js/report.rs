//! What jest and vitest report per test file, read from their `--json` reports (vitest's JSON
//! reporter copies jest's shape) into one model the adapter, the event streams and `--report`
//! share, with the runner's own totals to check the records against. Every test is kept as it
//! occurs: tests that share a name (`test.each` with repeated titles, two `describe` blocks of
//! one name) are separate records. Lenient: a field of the wrong type is absent, never a panic.

use pith_model::Phase;
use serde_json::Value;

use crate::ParseError;

/// How one test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CaseStatus {
    Passed,
    Failed,
    /// Skipped, todo, disabled.
    Skipped,
    /// Never finished: vitest's `pending` (a worker died, a bail stopped it).
    Pending,
}

/// One test.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Case {
    /// Enclosing `describe` titles, then the test's own.
    pub names: Vec<String>,
    pub status: CaseStatus,
    /// Each failure's text: `Name: message`, more lines, then stack frames. Of a test that
    /// passed, its failed attempts' (a retry of the project's own policy: vitest's `retry`,
    /// jest's `retryTimes` with `logErrorsBeforeRetry`).
    pub messages: Vec<String>,
    /// Attempts that failed before the last one, when the runner counts them (jest's
    /// `invocations`): a test that passed after some passed on a retry.
    pub retried: u32,
    /// `Call` for a test's own result; `Setup` or `Teardown` for a hook that failed for it
    /// (mocha's `"before each" hook for "adds"`), a record of its own beside the test's.
    pub phase: Phase,
}

/// One test file.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Suite {
    /// As the runner printed it (absolute, on the machine that ran it).
    pub file: String,
    pub cases: Vec<Case>,
    /// Why the file as a whole failed (it did not load, it holds no test, its worker died).
    pub error: Option<String>,
}

impl Suite {
    /// Adds one test's result: every occurrence counts, names shared or not.
    pub fn record(&mut self, case: Case) {
        self.cases.push(case);
    }
}

/// The suite of `file`, added at the end of `suites` when it has none yet: records name files
/// in the order they start.
pub(crate) fn suite_in<'a>(suites: &'a mut Vec<Suite>, file: &str) -> &'a mut Suite {
    match suites.iter().position(|s| s.file == file) {
        Some(i) => &mut suites[i],
        None => {
            suites.push(Suite {
                file: file.to_owned(),
                ..Suite::default()
            });
            suites.last_mut().expect("just pushed")
        }
    }
}

/// Which runner wrote a report: their statuses differ in one word (`pending`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavour {
    Jest,
    Vitest,
}

/// A whole `--json` report.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct JsonReport {
    pub suites: Vec<Suite>,
    /// jest: snapshots were missing or obsolete under `--ci`, which fails the run with every
    /// test passing.
    pub snapshot_failure: bool,
    /// Snapshots the runner wrote: `snapshot.added` (new ones) and `snapshot.updated` (under
    /// `-u`), in jest's and vitest's reports alike.
    pub snapshots_written: u32,
    /// The runner's own account of the run, to check the records against.
    pub totals: Totals,
}

/// What the report's summary fields say (absent when the report lacks them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Totals {
    /// `success`: the runner's verdict on the whole run.
    pub success: Option<bool>,
    /// `numTotalTests`: every test of every file it ran, skipped ones included.
    pub tests: Option<u32>,
    /// `numFailedTests`.
    pub failed: Option<u32>,
    /// jest's `numRuntimeErrorTestSuites`: files that failed to run.
    pub runtime_errors: Option<u32>,
    /// jest's `wasInterrupted`.
    pub interrupted: bool,
}

/// A `--json` report of `flavour`: its files, in order, and its totals. Malformed when it is
/// not JSON or has no `testResults`.
pub(crate) fn parse_json(text: &str, flavour: Flavour) -> Result<JsonReport, ParseError> {
    let v: Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| ParseError::Malformed(e.to_string()))?;
    let results = v
        .get("testResults")
        .and_then(Value::as_array)
        .ok_or_else(|| ParseError::Malformed("no testResults".into()))?;
    let suites = results.iter().map(|r| suite(r, flavour)).collect();
    let snapshot_failure = v
        .get("snapshot")
        .and_then(|s| s.get("failure"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let count = |k: &str| {
        v.get("snapshot")
            .and_then(|s| s.get(k))
            .and_then(Value::as_u64)
            .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX))
    };
    Ok(JsonReport {
        suites,
        snapshot_failure,
        snapshots_written: count("added").saturating_add(count("updated")),
        totals: totals(&v),
    })
}

/// One file's results. `--json` writes jest's formatted results; a `testResultsProcessor`
/// gets the raw ones (`testFilePath`, `testResults`, `failureMessage`), which some CI steps
/// save instead.
fn suite(r: &Value, flavour: Flavour) -> Suite {
    let file = str_of(r, "name")
        .or_else(|| str_of(r, "testFilePath"))
        .unwrap_or_default()
        .to_owned();
    let mut suite = Suite {
        file,
        ..Suite::default()
    };
    for a in r
        .get("assertionResults")
        .or_else(|| r.get("testResults"))
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
    {
        let mut names = strings(a, "ancestorTitles");
        names.push(
            str_of(a, "title")
                .or_else(|| str_of(a, "fullName"))
                .unwrap_or_default()
                .to_owned(),
        );
        let status = status(str_of(a, "status").unwrap_or(""), flavour);
        let mut messages = strings(a, "failureMessages");
        if status == CaseStatus::Passed && messages.is_empty() {
            // jest keeps a retried test's failed attempts here, with `logErrorsBeforeRetry`.
            messages = strings(a, "retryReasons");
        }
        let retried = a.get("invocations").and_then(Value::as_u64).map_or(0, |n| {
            u32::try_from(n.saturating_sub(1)).unwrap_or(u32::MAX)
        });
        suite.record(Case {
            names,
            status,
            messages,
            retried,
            phase: Phase::Call,
        });
    }
    if flavour == Flavour::Vitest {
        drop_default_suite(&mut suite);
    }
    let message = str_of(r, "message")
        .or_else(|| str_of(r, "failureMessage"))
        .unwrap_or("")
        .trim();
    // vitest 1.0 says `passed` of a file that failed to load, with no test and its error as
    // the message.
    let failed = str_of(r, "status") == Some("failed")
        || r.get("testExecError").is_some_and(|e| !e.is_null())
        || (flavour == Flavour::Vitest && suite.cases.is_empty());
    if failed && !message.is_empty() && !suite.cases.iter().any(|c| c.status == CaseStatus::Failed)
    {
        suite.error = Some(message.to_owned());
    }
    suite
}

/// vitest 1.0's report puts every test of a file under its unnamed default suite
/// (`"ancestorTitles": ["", "price"]`); its task tree, pith's records and later vitests do
/// not: where every test of the file starts with an unnamed suite, that suite is dropped, so a
/// test has one id whichever vitest reported it.
fn drop_default_suite(suite: &mut Suite) {
    let under_default = |c: &Case| c.names.len() > 1 && c.names[0].is_empty();
    if !suite.cases.is_empty() && suite.cases.iter().all(under_default) {
        for c in &mut suite.cases {
            c.names.remove(0);
        }
    }
}

/// The report's summary fields.
fn totals(v: &Value) -> Totals {
    let count = |k: &str| {
        v.get(k)
            .and_then(Value::as_u64)
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
    };
    Totals {
        success: v.get("success").and_then(Value::as_bool),
        tests: count("numTotalTests"),
        failed: count("numFailedTests"),
        runtime_errors: count("numRuntimeErrorTestSuites"),
        interrupted: v.get("wasInterrupted").and_then(Value::as_bool) == Some(true),
    }
}

/// A test status word of either runner (or of pith's reporters, which pass them through).
pub(crate) fn status(word: &str, flavour: Flavour) -> CaseStatus {
    match (word, flavour) {
        ("passed" | "pass" | "focused", _) => CaseStatus::Passed,
        ("failed" | "fail", _) => CaseStatus::Failed,
        ("pending", Flavour::Jest) => CaseStatus::Skipped,
        ("skipped" | "todo" | "disabled" | "skip", _) => CaseStatus::Skipped,
        _ => CaseStatus::Pending,
    }
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// The strings of the array `key` (none when it is absent or not an array).
pub(crate) fn strings(v: &Value, key: &str) -> Vec<String> {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// Which of the two runners wrote a `--json` report, from its shape: jest's has fields vitest's
/// lacks (`numRuntimeErrorTestSuites`, `openHandles`, `wasInterrupted`). `None` when it is
/// neither.
pub fn sniff(text: &str) -> Option<&'static str> {
    let head = text.trim_start_matches('\u{feff}').trim_start();
    if !head.starts_with('{') || !text.contains("\"testResults\"") {
        return None;
    }
    let jest_only = [
        "\"numRuntimeErrorTestSuites\"",
        "\"openHandles\"",
        "\"wasInterrupted\"",
    ];
    if jest_only.iter().any(|k| text.contains(k)) {
        Some("jest")
    } else if text.contains("\"numTotalTests\"") {
        Some("vitest")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const JEST: &str = r#"{"numFailedTestSuites":2,"numRuntimeErrorTestSuites":1,"numTotalTests":3,"openHandles":[],"snapshot":{"failure":false},"success":false,"testResults":[
      {"assertionResults":[
        {"ancestorTitles":["sum"],"fullName":"sum adds","status":"failed","title":"adds","failureMessages":["Error: expect(received).toBe(expected)\n    at x (/ws/a.test.js:4:23)"]},
        {"ancestorTitles":[],"fullName":"ok","status":"passed","title":"ok","failureMessages":[]},
        {"ancestorTitles":[],"fullName":"later","status":"todo","title":"later","failureMessages":[]},
        {"ancestorTitles":[],"fullName":"sk","status":"pending","title":"sk","failureMessages":[]}],
       "message":"  ● sum › adds\n...","name":"/ws/a.test.js","status":"failed"},
      {"assertionResults":[],"message":"  ● Test suite failed to run\n\n    Cannot find module './nope' from 'b.test.js'","name":"/ws/b.test.js","status":"failed"}]}"#;

    #[test]
    fn reads_jest_cases_and_suite_errors() {
        let r = parse_json(JEST, Flavour::Jest).unwrap();
        assert_eq!(r.suites.len(), 2);
        let a = &r.suites[0];
        assert_eq!(a.error, None, "its failure is the test's");
        let st: Vec<CaseStatus> = a.cases.iter().map(|c| c.status).collect();
        assert_eq!(
            st,
            [
                CaseStatus::Failed,
                CaseStatus::Passed,
                CaseStatus::Skipped,
                CaseStatus::Skipped
            ]
        );
        assert_eq!(a.cases[0].names, ["sum", "adds"]);
        assert!(r.suites[1]
            .error
            .as_deref()
            .unwrap()
            .contains("Cannot find module"));
        assert_eq!(sniff(JEST), Some("jest"));
    }

    #[test]
    fn vitest_1_0s_unnamed_default_suite_is_not_part_of_an_id() {
        let case = |anc: &str, title: &str| {
            format!(
                r#"{{"ancestorTitles":[{anc}],"fullName":"x","status":"passed","title":"{title}","failureMessages":[]}}"#
            )
        };
        let report = |cases: &[String]| {
            format!(
                r#"{{"numTotalTests":2,"testResults":[{{"assertionResults":[{}],"name":"/ws/a.test.js","status":"passed","message":""}}]}}"#,
                cases.join(",")
            )
        };
        let names = |text: &str, flavour| -> Vec<Vec<String>> {
            let r = parse_json(text, flavour).unwrap();
            r.suites[0].cases.iter().map(|c| c.names.clone()).collect()
        };
        // vitest 1.0: every test under "".
        let v1 = report(&[case(r#""", "price""#, "dollars"), case(r#""""#, "euros")]);
        assert_eq!(
            names(&v1, Flavour::Vitest),
            [vec!["price", "dollars"], vec!["euros"]]
        );
        // An unnamed suite beside named tests is the project's own.
        let own = report(&[case(r#""""#, "a"), case("", "b")]);
        assert_eq!(names(&own, Flavour::Vitest), [vec!["", "a"], vec!["b"]]);
        assert_eq!(names(&v1, Flavour::Jest)[1], ["", "euros"]);
        // A file that failed to load, as vitest 1.0 reports it: `passed`, no test, a message.
        let broken = r#"{"numTotalTests":0,"testResults":[{"assertionResults":[],"name":"/ws/b.test.js","status":"passed","message":"Failed to load url ../x.js"}]}"#;
        let r = parse_json(broken, Flavour::Vitest).unwrap();
        assert_eq!(
            r.suites[0].error.as_deref(),
            Some("Failed to load url ../x.js")
        );
    }

    #[test]
    fn vitest_pending_never_finished() {
        let text = r#"{"numTotalTests":1,"testResults":[{"assertionResults":[{"ancestorTitles":[],"fullName":"a","status":"pending","title":"a","failureMessages":[]}],"name":"/ws/a.test.js","status":"passed","message":""}]}"#;
        let r = parse_json(text, Flavour::Vitest).unwrap();
        assert_eq!(r.suites[0].cases[0].status, CaseStatus::Pending);
        assert_eq!(sniff(text), Some("vitest"));
        assert_eq!(sniff("{\"x\":1}"), None);
        assert_eq!(sniff("<xml/>"), None);
    }

    #[test]
    fn raw_results_of_a_results_processor_read_too() {
        let text = r#"{"numRuntimeErrorTestSuites":1,"testResults":[
            {"testFilePath":"/ws/a.test.js","testResults":[{"ancestorTitles":[],"title":"t","status":"failed","failureMessages":["Error: x"]}]},
            {"testFilePath":"/ws/b.test.js","testResults":[],"testExecError":{"message":"boom"},"failureMessage":"  ● Test suite failed to run\n\n    boom"}]}"#;
        let r = parse_json(text, Flavour::Jest).unwrap();
        assert_eq!(r.suites[0].file, "/ws/a.test.js");
        assert_eq!(r.suites[0].cases[0].status, CaseStatus::Failed);
        assert!(r.suites[1].error.as_deref().unwrap().contains("boom"));
    }

    #[test]
    fn tests_that_share_a_name_are_each_kept_with_the_totals() {
        let text = r#"{"numTotalTests":3,"numFailedTests":1,"success":false,"numRuntimeErrorTestSuites":0,"wasInterrupted":false,"testResults":[{"name":"/ws/a.test.js","status":"failed","message":"","assertionResults":[
            {"ancestorTitles":[],"title":"value","status":"passed","failureMessages":[]},
            {"ancestorTitles":[],"title":"value","status":"failed","failureMessages":["Error: 2"]},
            {"ancestorTitles":[],"title":"value","status":"passed","failureMessages":[]}]}]}"#;
        let r = parse_json(text, Flavour::Jest).unwrap();
        let st: Vec<CaseStatus> = r.suites[0].cases.iter().map(|c| c.status).collect();
        assert_eq!(
            st,
            [CaseStatus::Passed, CaseStatus::Failed, CaseStatus::Passed]
        );
        assert_eq!(
            r.totals,
            Totals {
                success: Some(false),
                tests: Some(3),
                failed: Some(1),
                runtime_errors: Some(0),
                interrupted: false,
            }
        );
    }

    #[test]
    fn malformed_is_an_error() {
        assert!(parse_json("", Flavour::Jest).is_err());
        assert!(parse_json("{\"testResults\":", Flavour::Jest).is_err());
        assert!(parse_json("[1]", Flavour::Vitest).is_err());
        let odd = parse_json(
            r#"{"testResults":[{"name":3,"assertionResults":[{"title":null,"ancestorTitles":"x"}]},7]}"#,
            Flavour::Jest,
        )
        .unwrap();
        assert_eq!(odd.suites.len(), 2);
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,400}", cut in 0usize..2000) {
            let _ = parse_json(&s, Flavour::Jest);
            let _ = sniff(&s);
            let mut end = cut.min(JEST.len());
            while !JEST.is_char_boundary(end) { end -= 1; }
            let _ = parse_json(&JEST[..end], Flavour::Vitest);
        }
    }
}
