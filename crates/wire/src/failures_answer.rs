//! The answer to `pith failures`: the last run's failures in detail, a page at a time, with
//! whole messages (every line, the runner's diff and cause chain, as the adapter kept them in
//! `Failure::detail`) and project frames (every frame, library ones included, with `--stacks`);
//! named tests that did not fail are listed apart.

use pith_model::{Failure, FailureDetails, Phase};
use serde::Serialize;

use crate::{FAILURE_DETAIL_BUDGET, FAILURE_FRAMES_BUDGET};

/// Failures per page.
pub const FAILURES_PAGE: usize = 10;
/// Bytes an answer spends around one failure (generation, status, brackets); a failure alone
/// stays under [`FAILURE_DETAIL_BUDGET`] minus this.
const ENVELOPE: usize = 60;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FailuresAnswer {
    /// The generation the run tested.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<DetailOut>,
    /// Failures after this page.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more_failures: usize,
    /// The `--page` that shows them.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub next_page: usize,
    /// Named tests that ran in that run and did not fail.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_failing: Vec<String>,
    /// Named tests that run did not run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_found: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailOut {
    pub test: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<&'static str>,
    /// `file:line code`, deepest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub flaky: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub new: bool,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub failing_for: u32,
}

/// Shapes page `page` (1-based) of a run's failures. With `stacks`, every frame in full;
/// without, the project frames, trimmed (outer source lines, then outer frames) until one
/// failure fits its budget.
pub fn failures_answer(details: &FailureDetails, page: usize, stacks: bool) -> FailuresAnswer {
    let page = page.max(1);
    let start = (page - 1).saturating_mul(FAILURES_PAGE);
    let shown: Vec<DetailOut> = details
        .failures
        .iter()
        .skip(start)
        .take(FAILURES_PAGE)
        .map(|f| detail_out(f, stacks))
        .collect();
    let more = details.failures.len().saturating_sub(start + shown.len());
    FailuresAnswer {
        generation: details.run.as_ref().map(|r| r.generation),
        status: details.run.as_ref().map(|r| r.status.name()),
        failures: shown,
        more_failures: more,
        next_page: if more > 0 { page + 1 } else { 0 },
        not_failing: details.not_failing.clone(),
        not_found: details.not_found.clone(),
        hint: details
            .run
            .is_none()
            .then(|| "no run recorded yet: pith test".to_owned()),
    }
}

/// One failure in detail: its whole message, and its frames trimmed (outer source lines, then
/// outer frames) until all but the message's later lines fit [`FAILURE_FRAMES_BUDGET`]; a
/// message too long for [`FAILURE_DETAIL_BUDGET`] sheds lines from its end.
fn detail_out(f: &Failure, stacks: bool) -> DetailOut {
    let mut out = DetailOut {
        test: f.test.clone(),
        message: f.detail.clone().unwrap_or_else(|| f.message.clone()),
        phase: (f.phase != Phase::Call).then(|| f.phase.name()),
        frames: Vec::new(),
        flaky: f.flaky,
        new: f.new,
        failing_for: f.failing_for,
    };
    if stacks {
        out.frames = f.frames.iter().rev().map(|fr| frame(fr, true)).collect();
        return out;
    }
    // The frames are trimmed as if the message were its first line, as they were before the
    // message was whole: a long message does not cost the agent a frame.
    let later_lines = crate::to_json(&out.message)
        .len()
        .saturating_sub(crate::to_json(&out.message.lines().next().unwrap_or("")).len());
    let project: Vec<&pith_model::Frame> = f.project_frames().rev().collect();
    let all = project.len();
    for (frames, code) in [
        (all, all),
        (all, 2),
        (all, 1),
        (8, 1),
        (4, 1),
        (2, 1),
        (1, 1),
    ] {
        out.frames = project
            .iter()
            .take(frames)
            .enumerate()
            .map(|(i, fr)| frame(fr, i < code))
            .collect();
        if crate::to_json(&out).len() - later_lines + ENVELOPE <= FAILURE_FRAMES_BUDGET {
            break;
        }
    }
    shed_lines(&mut out);
    out
}

/// Drops the message's last lines, counting them on a `… N more lines` line, until the failure
/// fits [`FAILURE_DETAIL_BUDGET`]; the first line always stays.
fn shed_lines(out: &mut DetailOut) {
    let size = |o: &DetailOut| crate::to_json(o).len() + ENVELOPE;
    if size(out) <= FAILURE_DETAIL_BUDGET {
        return;
    }
    let lines: Vec<String> = out.message.lines().map(str::to_owned).collect();
    // A remainder line the adapter already wrote is folded into the new count.
    let (lines, before) = match lines.last().and_then(|l| more_lines(l)) {
        Some(n) => (&lines[..lines.len() - 1], n),
        None => (&lines[..], 0),
    };
    let mut keep = lines.len();
    while keep > 1 {
        keep -= 1;
        out.message = format!(
            "{}\n… {} more lines",
            lines[..keep].join("\n"),
            lines.len() - keep + before
        );
        if size(out) <= FAILURE_DETAIL_BUDGET {
            return;
        }
    }
    // One line that escapes past the budget (quotes, control characters): cut it.
    while size(out) > FAILURE_DETAIL_BUDGET && out.message.chars().count() > 80 {
        let keep = out.message.chars().count() * 3 / 4;
        out.message = format!("{}…", out.message.chars().take(keep).collect::<String>());
    }
}

/// The count on a `… N more lines` line.
fn more_lines(line: &str) -> Option<usize> {
    line.strip_prefix("… ")?
        .strip_suffix(" more lines")?
        .parse()
        .ok()
}

pub(crate) fn frame(f: &pith_model::Frame, with_code: bool) -> String {
    match (&f.code, with_code) {
        (Some(code), true) => format!("{}:{} {}", f.file, f.line, code),
        _ => f.location(),
    }
}
