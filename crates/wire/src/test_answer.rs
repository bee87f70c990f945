//! The answer to `pith test`: the generation it describes, status, counts, failures in full up
//! to a cap, the rest clustered by cause, and every left-out item counted. Shaping is
//! deterministic and never cuts a shown failure's id, first message line or deepest project
//! frame. When nothing changed since the same selection last ran, the answer is that run's
//! status and counts with `"unchanged":true`.

use std::collections::HashMap;

use pith_model::{BuildError, Failure, Phase, Report, Run, RunSummary, Status};
use serde::Serialize;

use crate::MANY_FAILURES_BUDGET;

/// Up to this many failures, every one is shown in full.
const ALL_IN_FULL: usize = 8;
/// Above [`ALL_IN_FULL`], this many (each from a distinct cause) are shown in full.
const IN_FULL: usize = 3;
/// Project frames per failure, deepest last in the model, deepest first in the answer.
const FRAMES: usize = 4;
/// Clusters shown at most; the budget may show fewer.
const CLUSTERS: usize = 5;
/// A cluster's representative message is cut here: it names the cause, the shown failures
/// carry full messages.
const CLUSTER_ERROR_CHARS: usize = 120;
/// A `reason` is one line; an adapter's own words (a runner's summary) are cut here.
const REASON_CHARS: usize = 240;
/// Projects listed in `runs` at most.
const RUNS_SHOWN: usize = 6;
/// Build errors shown; the rest are counted.
const BUILD_ERRORS: usize = 5;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TestAnswer {
    /// The workspace generation the answer describes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<u64>,
    /// Nothing ran: the content and the selection are those of the last run, which this is.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unchanged: bool,
    pub status: &'static str,
    pub runner: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lacks: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interpreter: Option<String>,
    #[serde(flatten)]
    pub counts: Counts,
    /// Tests that passed after failing in the run before.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub recovered: usize,
    /// Absent when nothing ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub running: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_found: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub build_errors: Vec<BuildErrorOut>,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more_build_errors: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<FailureOut>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub clusters: Vec<ClusterOut>,
    /// Failures neither shown in full nor counted in a shown cluster.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more_failures: usize,
    /// Why the runner's own evidence says the run is not green when no test failure explains
    /// it (an exit code, tests that never reported, totals that disagree).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tail: Option<String>,
    /// Per-project results, only when more than one project ran: every one up to
    /// [`RUNS_SHOWN`], beyond that the ones not green first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<RunOut>,
    /// Projects that ran and are not in `runs`.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more_runs: usize,
}

#[derive(Debug, Default, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// Only when some selected tests never reported (a timeout, a crash).
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub selected: usize,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub passed: usize,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub failed: usize,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub skipped: usize,
    /// Modules that failed to collect.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub errors: usize,
}

impl Counts {
    fn of(run: &Run) -> Self {
        let reported = (run.passed + run.failed + run.skipped) as usize;
        Counts {
            selected: run.selected.map_or(0, |s| s as usize).max(reported),
            passed: run.passed as usize,
            failed: run.failed as usize,
            skipped: run.skipped as usize,
            errors: run.collection_errors(),
        }
    }
    /// Drops `selected` when it says nothing the other counts do not.
    fn settle(mut self) -> Self {
        if self.selected <= self.passed + self.failed + self.skipped {
            self.selected = 0;
        }
        self
    }
    fn add(&mut self, o: &Counts) {
        self.selected += o.selected;
        self.passed += o.passed;
        self.failed += o.failed;
        self.skipped += o.skipped;
        self.errors += o.errors;
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FailureOut {
    pub test: String,
    pub message: String,
    /// `file:line code`, deepest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<&'static str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub flaky: bool,
    /// Its first failure (it passed, or did not exist, before).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub new: bool,
    /// Consecutive runs it has failed in, this one included.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub failing_for: u32,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterOut {
    pub error: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    pub affected: usize,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildErrorOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    pub message: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunOut {
    pub runner: String,
    /// The project's directory, when not the workspace root.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    pub status: &'static str,
    #[serde(flatten)]
    pub counts: Counts,
}

/// What failures are grouped by: the error's type (or, lacking one, its message) and where in
/// the project it broke.
type Cause = (String, Option<String>);

fn cause(f: &Failure) -> Cause {
    let kind = f.kind.clone().unwrap_or_else(|| f.message.clone());
    (kind, f.top_project_frame().map(|fr| fr.location()))
}

/// Shapes a report into the `pith test` answer.
pub fn test_answer(report: &Report) -> TestAnswer {
    if let Some(u) = &report.unchanged {
        return unchanged_answer(report.generation.unwrap_or(u.generation), u);
    }
    let runs = &report.runs;
    let mut counts = Counts::default();
    for r in runs {
        counts.add(&Counts::of(r));
    }
    let all_failures: Vec<&Failure> = runs.iter().flat_map(|r| &r.failures).collect();
    let build_errors = dedup_build_errors(runs.iter().flat_map(|r| &r.build_errors));
    let status = report.status();
    let joined = |f: fn(&Run) -> Option<&String>| joined(runs, status, f);
    let mut answer = TestAnswer {
        generation: report.generation,
        unchanged: false,
        status: report.status().name(),
        runner: runner_names(runs),
        // What a weaker runner cannot tell (crash and hang attribution, durations) matters
        // only when the run is not green; on a green run it is noise in every answer.
        lacks: joined(|r| r.lacks.as_ref()).filter(|_| !report.status().is_green()),
        interpreter: joined(|r| r.interpreter.as_ref()),
        counts: counts.settle(),
        recovered: report.recovered as usize,
        // Busy ran nothing: how long it waited is no signal; nor is a duration that rounds to
        // nothing (a report file that recorded none, a run under 50 ms).
        duration_s: Some(tenths(report.duration))
            .filter(|&d| d > 0.0 && report.status() != Status::Busy),
        running: runs
            .iter()
            .flat_map(|r| r.running.iter().cloned())
            .collect(),
        not_found: runs
            .iter()
            .flat_map(|r| r.not_found.iter().cloned())
            .collect(),
        hint: joined(|r| r.hint.as_ref()),
        more_build_errors: build_errors.len().saturating_sub(BUILD_ERRORS),
        build_errors: build_errors
            .into_iter()
            .take(BUILD_ERRORS)
            .map(build_error_out)
            .collect(),
        failures: Vec::new(),
        clusters: Vec::new(),
        more_failures: 0,
        reason: reason(runs),
        tail: joined(|r| r.tail.as_ref()),
        runs: Vec::new(),
        more_runs: 0,
    };
    if runs.len() > 1 {
        (answer.runs, answer.more_runs) = runs_out(runs);
    }
    shape_failures(&mut answer, &all_failures);
    answer
}

/// What the projects that speak say, each thing once, one a line: several projects of one
/// runner say the same thing once (`lacks` of two plain-cargo workspaces is one `isolation`).
/// A project without tests beside projects that ran some does not make the verdict (see
/// `Report::status`), so its words are not the answer's either.
fn joined(runs: &[Run], status: Status, f: fn(&Run) -> Option<&String>) -> Option<String> {
    let speaks = |r: &&Run| status == Status::NoTestsRan || r.status() != Status::NoTestsRan;
    let mut parts: Vec<&str> = Vec::new();
    for p in runs
        .iter()
        .filter(speaks)
        .filter_map(|r| f(r).map(String::as_str))
    {
        if !parts.contains(&p) {
            parts.push(p);
        }
    }
    (!parts.is_empty()).then(|| parts.join("\n"))
}

/// Why the answer cannot be trusted in full, when a run says so.
fn reason(runs: &[Run]) -> Option<String> {
    let doubts: Vec<String> = runs.iter().filter_map(Run::doubt).collect();
    (!doubts.is_empty()).then(|| cut(&doubts.join("; "), REASON_CHARS))
}

/// The per-project list, up to [`RUNS_SHOWN`], and how many it leaves out: beyond the cap,
/// the projects that are not green come first; order is kept otherwise.
fn runs_out(runs: &[Run]) -> (Vec<RunOut>, usize) {
    let mut order: Vec<&Run> = runs.iter().collect();
    if order.len() > RUNS_SHOWN {
        order.sort_by_key(|r| r.status().is_green() || r.status() == Status::NoTestsRan);
    }
    let more = order.len().saturating_sub(RUNS_SHOWN);
    let shown = order
        .into_iter()
        .take(RUNS_SHOWN)
        .map(|r| RunOut {
            runner: r.runner.clone(),
            dir: r.dir.clone(),
            status: r.status().name(),
            counts: Counts::of(r).settle(),
        })
        .collect();
    (shown, more)
}

/// The runners that ran, each named once, in the order they ran.
fn runner_names(runs: &[Run]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for r in runs {
        if !names.contains(&r.runner.as_str()) {
            names.push(&r.runner);
        }
    }
    names.join(",")
}

/// Seconds rounded to a tenth.
pub(crate) fn tenths(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 10.0).round() / 10.0
}

/// The answer when nothing changed since the same selection ran: that run's status and counts.
fn unchanged_answer(generation: u64, u: &RunSummary) -> TestAnswer {
    TestAnswer {
        generation: Some(generation),
        unchanged: true,
        status: u.status.name(),
        runner: u.runner.clone(),
        lacks: None,
        interpreter: None,
        counts: Counts {
            selected: 0,
            passed: u.passed as usize,
            failed: u.failed as usize,
            skipped: u.skipped as usize,
            errors: u.errors as usize,
        },
        recovered: 0,
        duration_s: None,
        running: Vec::new(),
        not_found: Vec::new(),
        hint: None,
        build_errors: Vec::new(),
        more_build_errors: 0,
        failures: Vec::new(),
        clusters: Vec::new(),
        more_failures: 0,
        reason: None,
        tail: None,
        runs: Vec::new(),
        more_runs: 0,
    }
}

fn dedup_build_errors<'a>(errors: impl Iterator<Item = &'a BuildError>) -> Vec<&'a BuildError> {
    let mut seen = std::collections::HashSet::new();
    errors
        .filter(|e| seen.insert((&e.file, e.line, &e.code, &e.message)))
        .collect()
}

fn build_error_out(e: &BuildError) -> BuildErrorOut {
    BuildErrorOut {
        at: e.file.as_ref().map(|f| match e.line {
            Some(l) => format!("{f}:{l}"),
            None => f.clone(),
        }),
        code: e.code.clone(),
        message: e.message.clone(),
    }
}

/// One failure in full, with up to `frames` project frames (deepest first) and source lines
/// on the first `code_frames` of them.
fn failure_out(f: &Failure, frames: usize, code_frames: usize) -> FailureOut {
    let frames = f
        .project_frames()
        .rev()
        .take(frames)
        .enumerate()
        .map(|(i, fr)| crate::failures_answer::frame(fr, i < code_frames))
        .collect();
    FailureOut {
        test: f.test.clone(),
        message: f.message.clone(),
        frames,
        phase: (f.phase != Phase::Call).then(|| f.phase.name()),
        flaky: f.flaky,
        new: f.new,
        failing_for: f.failing_for,
    }
}

/// The trimming steps for a shown failure, as (frames kept, frames keeping their source line):
/// source lines on outer frames go first, then outer frames.
const LADDER: [(usize, usize); 4] = [(FRAMES, FRAMES), (FRAMES, 1), (2, 1), (1, 1)];

struct Group<'a> {
    members: Vec<&'a Failure>,
}

/// Chooses what to show in full, what to cluster and what to count, then trims to the budget
/// by dropping noise in a fixed order: source lines on outer frames, outer frames, the
/// smallest clusters, then full failures beyond the first (they move into clusters or the
/// left-out count, never vanish).
fn shape_failures(answer: &mut TestAnswer, failures: &[&Failure]) {
    if failures.is_empty() {
        return;
    }
    if failures.len() <= ALL_IN_FULL {
        show_all(answer, failures);
    } else {
        show_by_cause(answer, failures, &by_cause(failures));
    }
}

/// The failures grouped by cause, keeping first-seen order; a group's position is its first
/// member's.
fn by_cause<'a>(failures: &[&'a Failure]) -> Vec<Group<'a>> {
    let mut index: HashMap<Cause, usize> = HashMap::new();
    let mut groups: Vec<Group> = Vec::new();
    for f in failures {
        let i = *index.entry(cause(f)).or_insert_with(|| {
            groups.push(Group {
                members: Vec::new(),
            });
            groups.len() - 1
        });
        groups[i].members.push(f);
    }
    groups
}

/// Few enough to show every one; only frames are trimmed to fit, down to the deepest one. Its
/// source line goes too only when that makes the answer fit: ids and messages are never cut,
/// so eight long ones may not fit at all, and then the line that often saves opening the file
/// is worth its bytes. Faithful before small.
fn show_all(answer: &mut TestAnswer, failures: &[&Failure]) {
    let shaped = |frames, code| -> Vec<FailureOut> {
        failures
            .iter()
            .map(|f| failure_out(f, frames, code))
            .collect()
    };
    for (frames, code) in LADDER {
        answer.failures = shaped(frames, code);
        if size(answer) <= MANY_FAILURES_BUDGET {
            return;
        }
    }
    let with_lines = std::mem::replace(&mut answer.failures, shaped(1, 0));
    if size(answer) > MANY_FAILURES_BUDGET {
        answer.failures = with_lines;
    }
}

/// The first failure of each of the first [`IN_FULL`] causes is shown in full; every cause
/// with members not shown becomes a cluster, biggest first. Trimmed step by step until the
/// answer fits or only one failure in full is left.
fn show_by_cause(answer: &mut TestAnswer, failures: &[&Failure], groups: &[Group]) {
    let mut shown_groups: Vec<usize> = (0..groups.len().min(IN_FULL)).collect();
    let mut cluster_order: Vec<usize> = (0..groups.len()).collect();
    cluster_order.sort_by_key(|&g| std::cmp::Reverse(groups[g].members.len()));

    let ladder = LADDER;
    let mut step = 0;
    let mut clusters = CLUSTERS;
    loop {
        let (frames, code) = ladder[step];
        answer.failures = shown_groups
            .iter()
            .map(|&g| failure_out(groups[g].members[0], frames, code))
            .collect();
        let wanted: Vec<usize> = cluster_order
            .iter()
            .copied()
            .filter(|g| groups[*g].members.len() > 1 || !shown_groups.contains(g))
            .collect();
        answer.clusters = wanted
            .iter()
            .take(clusters)
            .map(|&g| {
                let first = groups[g].members[0];
                ClusterOut {
                    error: cut(&first.message, CLUSTER_ERROR_CHARS),
                    at: first.top_project_frame().map(|fr| fr.location()),
                    affected: groups[g].members.len(),
                }
            })
            .collect();
        let accounted: usize = answer.failures.len()
            + wanted
                .iter()
                .take(clusters)
                .map(|g| groups[*g].members.len() - usize::from(shown_groups.contains(g)))
                .sum::<usize>();
        answer.more_failures = failures.len() - accounted;
        if size(answer) <= MANY_FAILURES_BUDGET {
            return;
        }
        if step + 1 < ladder.len() {
            step += 1;
        } else if clusters > 0 {
            clusters -= 1;
        } else if shown_groups.len() > 1 {
            shown_groups.pop();
            clusters = CLUSTERS;
        } else {
            return;
        }
    }
}

/// Cuts a message at a character boundary, marking the cut.
fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_owned(),
        Some((i, _)) => format!("{}…", s[..i].trim_end()),
    }
}

/// The bytes the failure budget bounds: all but the raw tail and the per-project list, which
/// have bounds of their own (the number of projects is the workspace's, not the failures').
fn size(answer: &TestAnswer) -> usize {
    let tail = answer.tail.as_ref().map_or(0, String::len);
    let runs = if answer.runs.is_empty() {
        0
    } else {
        crate::to_json(&answer.runs).len() + ",\"runs\":".len()
    };
    crate::to_json(answer).len() - tail - runs
}
