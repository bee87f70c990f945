//! The answer to `pith status`: the workspace generation, the last run's verdict and counts and
//! how many generations behind it is, the files changed since it (a few named, the rest
//! counted), and the runners the workspace uses with how each resolved. With `--since N` and
//! nothing changed, just `{"generation":N,"unchanged":true}`.

use pith_model::{RunSummary, RunnerInfo, WorkspaceState};
use serde::Serialize;

use crate::test_answer::tenths;

/// Changed files named in the answer; the rest are counted in `moreChanged`.
const CHANGED_NAMED: usize = 3;
/// Off-target files named; the rest are counted in `moreOffTarget`.
const OFF_TARGET_NAMED: usize = 3;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusAnswer {
    pub generation: u64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unchanged: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_run: Option<LastRunOut>,
    /// Files changed since the last run, most recent first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<String>,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more_changed: u64,
    /// Changed source files no test reaches (since the last green run): edits that may be in
    /// the wrong place.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub off_target: Vec<String>,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more_off_target: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runners: Vec<RunnerOut>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LastRunOut {
    pub status: &'static str,
    /// How many generations the workspace moved on since the run.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub generations_behind: u64,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub passed: u32,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub failed: u32,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub skipped: u32,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub errors: u32,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub recovered: u32,
    /// It ran only this many requested test ids, not everything.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub requested: u32,
    pub duration_s: f64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunnerOut {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interpreter: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lacks: Option<String>,
    /// Its last run found it not installed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub missing: bool,
}

/// Shapes the workspace state into the `pith status` answer.
pub fn status_answer(state: &WorkspaceState) -> StatusAnswer {
    if state.unchanged {
        return StatusAnswer {
            generation: state.generation,
            unchanged: true,
            last_run: None,
            changed: Vec::new(),
            more_changed: 0,
            off_target: Vec::new(),
            more_off_target: 0,
            runners: Vec::new(),
        };
    }
    let changed: Vec<String> = match &state.last_run {
        Some(_) => state.changed.iter().take(CHANGED_NAMED).cloned().collect(),
        None => Vec::new(),
    };
    StatusAnswer {
        generation: state.generation,
        unchanged: false,
        last_run: state
            .last_run
            .as_ref()
            .map(|r| last_run_out(r, state.generation)),
        more_changed: if state.last_run.is_some() {
            state.changed_count.saturating_sub(changed.len() as u64)
        } else {
            0
        },
        changed,
        off_target: state
            .off_target
            .iter()
            .take(OFF_TARGET_NAMED)
            .cloned()
            .collect(),
        more_off_target: state.off_target.len().saturating_sub(OFF_TARGET_NAMED),
        runners: state.runners.iter().map(runner_out).collect(),
    }
}

fn last_run_out(r: &RunSummary, generation: u64) -> LastRunOut {
    LastRunOut {
        status: r.status.name(),
        generations_behind: generation.saturating_sub(r.generation),
        passed: r.passed,
        failed: r.failed,
        skipped: r.skipped,
        errors: r.errors,
        recovered: r.recovered,
        requested: r.requested,
        duration_s: tenths(r.duration),
    }
}

fn runner_out(r: &RunnerInfo) -> RunnerOut {
    RunnerOut {
        name: r.name.clone(),
        interpreter: r.interpreter.clone(),
        lacks: r.lacks.clone(),
        missing: r.missing,
    }
}
