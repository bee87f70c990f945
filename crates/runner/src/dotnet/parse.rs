//! TRX documents as outcomes and counts: each result's id, verdict and failure, the
//! documents tallied against the request, and where a document's own account disagrees with
//! its results.

use pith_model::{Failure, Phase, Run};

use crate::verdict::{Outcome, Verdict};
use crate::{text, PathMap, RunnerError};

use super::{command, message, stack, trx};

/// The largest TRX report read. A TRX holds each failure's message and trace (cut to a
/// bounded length as it is read), so one this large is a run of millions of tests or output
/// gone wild; it is not read, and the run is not green.
pub(super) const TRX_LIMIT: u64 = 256 << 20;

/// The TRX reports in `files`, each read within [`TRX_LIMIT`]; and one line for each that is
/// over it and was not read.
pub(super) fn read_trx(
    files: &[std::path::PathBuf],
) -> Result<(Vec<trx::Trx>, Vec<String>), RunnerError> {
    let mut docs = Vec::new();
    let mut unread: Vec<String> = Vec::new();
    for file in files {
        let f = std::fs::File::open(file)
            .map_err(|e| RunnerError::io(format!("reading {}", file.display()), e))?;
        let len = f.metadata().map_or(0, |m| m.len());
        if len > TRX_LIMIT {
            unread.push(format!(
                "a TRX report of {} MB is over pith's {} MB limit and was not read",
                len >> 20,
                TRX_LIMIT >> 20
            ));
            continue;
        }
        if let Some(doc) = trx::parse_from(std::io::Read::take(f, TRX_LIMIT)) {
            docs.push(doc);
        }
    }
    Ok((docs, unread))
}

/// A document's results, and how many tests it says it had.
pub(super) struct Doc {
    pub(super) outcomes: Vec<Outcome>,
    pub(super) total: Option<u32>,
}

/// What a TRX result outcome (lowercase) says of its test.
pub(super) fn verdict_of(outcome: &str) -> Verdict {
    match outcome {
        "passed" | "passedbutrunaborted" | "completed" | "warning" => Verdict::Passed,
        "notexecuted" | "inconclusive" | "pending" => Verdict::Skipped,
        "inprogress" => Verdict::Running,
        _ => Verdict::Failed,
    }
}

pub(super) fn read_doc(doc: &trx::Trx, locator: &mut stack::Locator<'_>) -> Doc {
    let outcomes = doc
        .results
        .iter()
        .map(|r| {
            let id = test_id(r, doc);
            let outcome = r.outcome.to_ascii_lowercase();
            let verdict = verdict_of(&outcome);
            let failure = (verdict == Verdict::Failed).then(|| {
                let phase = if outcome == "notrunnable" {
                    Phase::Collect
                } else if id.starts_with('[') && id.contains("Cleanup Failure") {
                    Phase::Teardown
                } else {
                    Phase::Call
                };
                failure(r, id.clone(), phase, &outcome, locator)
            });
            Outcome {
                id,
                verdict,
                failure,
                crashed: false,
            }
        })
        .collect();
    Doc {
        outcomes,
        total: doc.counters.total,
    }
}

/// Whether result `id` answers the request `req`: the same id, or a case of the method `req`
/// names.
pub(super) fn answers(req: &str, id: &str) -> bool {
    req == id || (command::base(req) == req && command::base(id) == req)
}

/// Counts and failures from the documents' results; with `requested` ids, only theirs (a
/// filter by method also runs a theory's other cases), the rest of the request not found.
pub(super) fn tally(run: &mut Run, docs: Vec<Doc>, requested: &[String], paths: &PathMap) {
    let mut found: Vec<String> = Vec::new();
    let mut selected = 0;
    for doc in docs {
        let mut counted = 0;
        for o in doc.outcomes {
            if !requested.is_empty() {
                if !requested.iter().any(|r| answers(r, &o.id)) {
                    continue;
                }
                found.push(o.id.clone());
            }
            counted += 1;
            match o.verdict {
                Verdict::Passed => run.passed += 1,
                Verdict::Skipped => run.skipped += 1,
                Verdict::Running => {}
                Verdict::Failed => run.failed += 1,
            }
            if let Some(mut f) = o.failure {
                f.message = paths.scrub(&f.message);
                let whole = f.detail.take().unwrap_or_default();
                crate::detail::fill(&mut f, paths, &whole);
                paths.fill_code(&mut f.frames);
                run.failures.push(f);
            }
        }
        selected += doc
            .total
            .filter(|t| requested.is_empty() && *t > counted)
            .unwrap_or(counted);
    }
    if selected > run.passed + run.failed + run.skipped {
        run.selected = Some(selected);
    }
    run.not_found = requested
        .iter()
        .filter(|r| !found.iter().any(|id| answers(r, id)))
        .cloned()
        .collect();
}

/// The runner's id of a result: the display name when it is already fully qualified (xUnit,
/// MTP), the class and display name joined when the display name starts with the method
/// (NUnit, MSTest), the display name as it is when its author chose it.
pub(super) fn test_id(r: &trx::TestResult, doc: &trx::Trx) -> String {
    let Some(def) = doc.definitions.get(&r.test_id) else {
        return r.test_name.clone();
    };
    let class = def.class_name.as_str();
    if class.is_empty() || r.test_name.starts_with(&format!("{class}.")) {
        return r.test_name.clone();
    }
    let method = def.method.rsplit('.').next().unwrap_or(&def.method);
    let method_base = command::base(method);
    if !method_base.is_empty() && r.test_name.starts_with(method_base) {
        return format!("{class}.{}", r.test_name);
    }
    r.test_name.clone()
}

pub(super) fn failure(
    r: &trx::TestResult,
    test: String,
    phase: Phase,
    outcome: &str,
    locator: &mut stack::Locator<'_>,
) -> Failure {
    let folded = message::fold(&r.message);
    let kind = message::kind(&folded).or_else(|| match outcome {
        "timeout" => Some("Timeout".to_owned()),
        "aborted" => Some("Aborted".to_owned()),
        _ => None,
    });
    let message = if folded.is_empty() {
        match outcome {
            "timeout" => "timed out".to_owned(),
            "aborted" => "aborted".to_owned(),
            "notrunnable" => "not runnable".to_owned(),
            _ => "failed".to_owned(),
        }
    } else {
        folded
    };
    let mut f = Failure {
        test,
        message,
        kind,
        frames: locator.frames(&r.stack_trace),
        phase,
        ..Failure::default()
    };
    // Workspace paths are made relative with the message, in `tally`.
    f.detail = Some(whole(&r.message, &r.stack_trace)).filter(|d| !d.trim().is_empty());
    f
}

/// A failure's whole text for `Failure::detail`: the framework's message, every line (the
/// values, the inner exceptions it names: xUnit's `---- Inner : why`, .NET's `---> Inner: why`),
/// then, when the stack holds inner exceptions, their stacks: the markers between them
/// (`----- Inner Stack Trace -----`, `--- End of inner exception stack trace ---`) and the
/// frames with a source file (the code's own; the framework's have none).
fn whole(message: &str, stack: &str) -> String {
    let marker = |l: &str| {
        let t = l.trim();
        t == "----- Inner Stack Trace -----" || t == "--- End of inner exception stack trace ---"
    };
    let mut out = message.trim_end().to_owned();
    if stack.lines().any(marker) {
        out.push('\n');
        for l in stack.lines().map(|l| l.trim_end_matches('\r')) {
            if marker(l) || (l.trim_start().starts_with("at ") && l.contains(":line ")) {
                out.push('\n');
                out.push_str(l.trim_end());
            }
        }
    }
    out
}

/// Where a TRX's own account disagrees with its results, in one line: its counters count more
/// failed tests than its results show, its summary says the run failed (or errored) with no
/// failed result, or a run info is an error. `None` when it agrees.
pub(super) fn doc_doubt(doc: &trx::Trx) -> Option<String> {
    let failed = doc
        .results
        .iter()
        .filter(|r| verdict_of(&r.outcome.to_ascii_lowercase()) == Verdict::Failed)
        .count() as u64;
    let c = &doc.counters;
    let counted: u64 = [c.failed, c.error, c.timeout, c.aborted]
        .iter()
        .map(|n| u64::from(n.unwrap_or(0)))
        .sum();
    if counted > failed {
        return Some(format!(
            "the TRX counts {counted} failed tests, its results show {failed}"
        ));
    }
    let outcome = doc.summary_outcome.as_deref().unwrap_or("");
    if failed == 0
        && ["failed", "error", "timeout"]
            .iter()
            .any(|o| outcome.eq_ignore_ascii_case(o))
    {
        return Some(format!(
            "the TRX says the run {outcome} though no test failed"
        ));
    }
    doc.run_infos
        .iter()
        .find(|(o, _)| o.eq_ignore_ascii_case("error"))
        .map(|(_, t)| text::first_line(&format!("the TRX reports an error: {}", t.trim())))
}
