//! What each CTest test and gtest JSON report says of its tests, as one outcome per test:
//! the JSON first, the console where the JSON is missing, the process's death as a failure.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use pith_model::{Failure, Phase, Run};

use crate::verdict::{Outcome, Verdict};
use crate::{text, Context, ParseError, PathMap};

use crate::googletest::console::{parse_gtest, Console, ConsoleEnd};
use crate::googletest::failure;

use super::console::Ended;
use super::{console, json};

/// Largest GoogleTest JSON report read; a larger one is not read, and says so.
pub(super) const JSON_BYTES: u64 = 32 << 20;

/// The GoogleTest reports the run wrote: their cases, one line for each that could not be read
/// whole (too large) or whose totals disagree with its cases, and one for each that is no
/// report at all.
#[derive(Default)]
pub(super) struct Reports {
    pub(super) cases: Vec<json::Case>,
    pub(super) doubts: Vec<String>,
    /// Reports that are not JSON: a binary that died while writing, or two that wrote the same
    /// file at once (gtest picks a free name when it starts, not when it writes). A doubt only
    /// when the console does not account for every test on its own.
    pub(super) unreadable: Vec<String>,
}

pub(super) fn read_json_dir(dir: &Path) -> Reports {
    use std::io::Read;
    let mut out = Reports::default();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    for f in files {
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut bytes = Vec::new();
        // Regular files only, and no more than the bound: a report is data pith reads, not a
        // stream it waits on.
        let read = std::fs::File::open(&f).and_then(|file| {
            if !file.metadata()?.is_file() {
                return Err(std::io::Error::other("not a regular file"));
            }
            file.take(JSON_BYTES + 1).read_to_end(&mut bytes)
        });
        match read {
            Err(_) => continue,
            Ok(n) if n as u64 > JSON_BYTES => {
                out.doubts.push(format!(
                    "the GoogleTest report {name} is larger than {} MB and was not read",
                    JSON_BYTES >> 20
                ));
                continue;
            }
            Ok(_) => {}
        }
        match json::parse_report(&String::from_utf8_lossy(&bytes)) {
            Ok(r) => {
                if let Some(d) = r.disagreement() {
                    out.doubts.push(format!("{name}: {d}"));
                }
                out.cases.extend(r.cases);
            }
            Err(_) => out
                .unreadable
                .push(format!("the GoogleTest report {name} is unreadable")),
        }
    }
    out
}

/// ctest's words for a test process's death, as signal names.
pub(super) fn signal_of(word: &str) -> String {
    match word {
        "SegFault" => "SIGSEGV".to_owned(),
        "Child aborted" | "Subprocess aborted" => "SIGABRT".to_owned(),
        "Illegal" => "SIGILL".to_owned(),
        "Numerical" => "SIGFPE".to_owned(),
        "Bus error" => "SIGBUS".to_owned(),
        "Interrupt" => "SIGINT".to_owned(),
        other => other.to_owned(),
    }
}

/// The first line of a test's output worth showing as its failure message.
pub(super) fn output_message(lines: &console::Output) -> Option<String> {
    lines
        .iter()
        .map(|l| l.trim())
        .find(|l| !l.is_empty() && !l.starts_with("Running main()") && !l.starts_with('['))
        .map(text::first_line)
}

/// The first line a test printed that says it failed (`[fail] …`, `FAILED: …`, `error: …`).
fn failing_line(lines: &console::Output) -> Option<String> {
    lines
        .iter()
        .map(|l| l.trim())
        .find(|l| {
            let lower = l.to_ascii_lowercase();
            ["fail", "error", "assert"]
                .iter()
                .any(|w| lower.contains(w))
        })
        .map(text::first_line)
}

/// Outcomes of one CTest test: its gtest tests (JSON first, the console where the JSON is
/// missing), its suite failures, or the CTest test itself when it ran no gtest test.
pub(super) fn ctest_outcomes(
    ctx: &Context<'_>,
    t: &console::CtestTest,
    by_id: &HashMap<&str, &json::Case>,
    seen: &mut HashSet<String>,
) -> Vec<Outcome> {
    let g = parse_gtest(t.output.iter());
    let mut out: Vec<Outcome> = Vec::new();
    for (id, end) in &g.tests {
        if !seen.insert(id.clone()) {
            continue;
        }
        if let Some(case) = by_id.get(id.as_str()) {
            out.push(case_outcome(case, ctx.paths));
            continue;
        }
        out.push(match end {
            Some(ConsoleEnd::Ok) => Outcome::new(id, Verdict::Passed),
            Some(ConsoleEnd::Skipped) => Outcome::new(id, Verdict::Skipped),
            Some(ConsoleEnd::Failed) => {
                let texts: Vec<String> = g
                    .failures
                    .iter()
                    .filter(|(f, _)| f == id)
                    .map(|(_, t)| t.clone())
                    .collect();
                Outcome::failed(failure::failure(id.clone(), &texts, ctx.paths))
            }
            None => match &t.ended {
                None => Outcome::new(id, Verdict::Running),
                Some(Ended::Crashed(word)) => crashed_outcome(id, word),
                Some(Ended::Timeout) => timeout_outcome(id),
                Some(_) => Outcome::failed(Failure {
                    test: id.clone(),
                    message: "the test process exited during this test".to_owned(),
                    kind: Some("exit".to_owned()),
                    ..Failure::default()
                }),
            },
        });
    }
    for suite in &g.failed_suites {
        let mut f = failure::failure(suite.clone(), &g.outside, ctx.paths);
        f.phase = Phase::Collect;
        if g.outside.is_empty() {
            f.message = "SetUpTestSuite or TearDownTestSuite failed".to_owned();
        }
        out.push(Outcome::failed(f));
    }
    if g.tests.is_empty() && g.failed_suites.is_empty() {
        // A CTest test that ran no gtest test: a plain test, or a gtest binary that stopped
        // before its first test.
        out.extend(plain_outcome(t, &g));
        return out;
    }
    if !out.iter().any(|o| o.verdict == Verdict::Failed) {
        out.extend(failed_after(t));
    }
    out
}

/// CTest says the process failed though no gtest test did (a sanitizer at exit, a crash in a
/// destructor): the CTest test fails, never green. `None` when CTest says it did not fail.
fn failed_after(t: &console::CtestTest) -> Option<Outcome> {
    let message = match &t.ended {
        Some(Ended::Crashed(word)) => {
            format!("crashed with {} after its tests ended", signal_of(word))
        }
        Some(Ended::Failed(_)) => output_message(&t.output)
            .unwrap_or_else(|| "the test process failed after its tests passed".to_owned()),
        _ => return None,
    };
    let mut o = Outcome::failed(Failure {
        test: t.name.clone(),
        message,
        kind: Some("exit".to_owned()),
        ..Failure::default()
    });
    o.crashed = matches!(t.ended, Some(Ended::Crashed(_)));
    Some(o)
}

/// The outcome of a CTest test that ran no gtest test (a plain test, or a gtest binary that
/// stopped before its first test); `None` for a gtest binary that passed without any.
fn plain_outcome(t: &console::CtestTest, g: &Console) -> Option<Outcome> {
    let name = &t.name;
    let o = match &t.ended {
        Some(Ended::Passed) if g.gtest => return None,
        Some(Ended::Passed) => Outcome::new(name, Verdict::Passed),
        Some(Ended::Skipped | Ended::Disabled) => Outcome::new(name, Verdict::Skipped),
        Some(Ended::NotRun(why)) => Outcome::failed(Failure {
            test: name.clone(),
            message: output_message(&t.output).unwrap_or_else(|| {
                format!(
                    "not run: {}",
                    if why.is_empty() {
                        "CTest could not start it"
                    } else {
                        why
                    }
                )
            }),
            phase: Phase::Collect,
            ..Failure::default()
        }),
        Some(Ended::Failed(why)) => Outcome::failed(Failure {
            test: name.clone(),
            // What says why first: a failure's own line, then CTest's reason (a regular
            // expression the output did not match), then whatever the test printed first.
            message: g
                .outside
                .first()
                .map(|o| failure::message(&failure::parse(o).body))
                .filter(|m| !m.is_empty())
                .or_else(|| failing_line(&t.output))
                .or_else(|| (!why.is_empty()).then(|| why.clone()))
                .or_else(|| output_message(&t.output))
                .unwrap_or_else(|| "failed".to_owned()),
            // A gtest binary that failed before running any test never loaded its tests.
            phase: if g.gtest { Phase::Collect } else { Phase::Call },
            ..Failure::default()
        }),
        Some(Ended::Crashed(word)) => crashed_outcome(name, word),
        Some(Ended::Timeout) => timeout_outcome(name),
        None => Outcome::new(name, Verdict::Running),
    };
    Some(o)
}

/// A test whose process CTest saw die of a signal (`word` is CTest's name for it).
fn crashed_outcome(id: &str, word: &str) -> Outcome {
    let sig = signal_of(word);
    let mut o = Outcome::failed(Failure {
        test: id.to_owned(),
        message: format!("crashed with {sig}"),
        kind: Some(sig),
        ..Failure::default()
    });
    o.crashed = true;
    o
}

/// A test CTest stopped at the test's own TIMEOUT.
fn timeout_outcome(id: &str) -> Outcome {
    Outcome::failed(Failure {
        test: id.to_owned(),
        message: "timed out (the CTest TIMEOUT of this test)".to_owned(),
        kind: Some("timeout".to_owned()),
        ..Failure::default()
    })
}

pub(super) fn case_outcome(case: &json::Case, paths: &PathMap) -> Outcome {
    match case.verdict {
        json::Verdict::Passed => Outcome::new(&case.id, Verdict::Passed),
        json::Verdict::Skipped => Outcome::new(&case.id, Verdict::Skipped),
        json::Verdict::Failed => {
            Outcome::failed(failure::failure(case.id.clone(), &case.failures, paths))
        }
    }
}

/// Reads an existing GoogleTest JSON report (for `pith test --report`).
pub fn parse_json(text: &str, paths: &PathMap) -> Result<Run, ParseError> {
    let cases = json::parse(text)?;
    let mut run = Run::new("gtest");
    for c in &cases {
        let o = case_outcome(c, paths);
        match o.verdict {
            Verdict::Passed => run.passed += 1,
            Verdict::Skipped => run.skipped += 1,
            _ => run.failed += 1,
        }
        run.failures.extend(o.failure);
        // A report from elsewhere may say anything: a time no Duration holds counts as none.
        run.duration = run
            .duration
            .saturating_add(Duration::try_from_secs_f64(c.seconds).unwrap_or_default());
    }
    Ok(run)
}
