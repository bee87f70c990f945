//! The answer to `pith test`: the generation it describes, status, counts, one failure in full
//! per cause, causes with several members as clusters, and every left-out item counted
//! (`shaping` decides what fits). When nothing changed since the same selection last ran, the
//! answer is that run's status and counts with `"unchanged":true`.

use pith_model::{BuildError, Failure, Phase, Report, Run, RunSummary, Status};
use serde::Serialize;

/// A shown message is cut here: adapters keep a message's telling first lines; this bounds
/// what they keep.
const MESSAGE_CHARS: usize = 400;
/// A frame with its source line is cut here (the runner's source lines are bounded already;
/// a report file's need not be).
const FRAME_CHARS: usize = 160;
/// Tests listed in `running` at most; the rest are counted.
const RUNNING_SHOWN: usize = 3;
/// Ids listed in `notFound` at most; the rest are counted.
const NOT_FOUND_SHOWN: usize = 8;
/// A `reason` is one line; an adapter's own words (a runner's summary) are cut here.
const REASON_CHARS: usize = 240;
/// Projects listed in `runs` at most.
const RUNS_SHOWN: usize = 6;
/// Build errors shown; the rest are counted.
const BUILD_ERRORS: usize = 5;
/// A suspect with its source line is cut here.
const SUSPECT_CHARS: usize = 120;
/// Tests that passed on a retry listed at most; the rest are counted in `moreFlaky`.
pub(crate) const FLAKY_SHOWN: usize = 3;

#[derive(Debug, Clone, Serialize)]
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
    /// Test targets whose result came from a cache, not from running now (Bazel).
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub cached: usize,
    /// Test targets that ran on a remote executor (Bazel).
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub remote: usize,
    /// `pith test --changed`: what the changes selected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<ChangesOut>,
    #[serde(flatten)]
    pub counts: Counts,
    /// Tests that passed after failing in the run before.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub recovered: usize,
    /// Snapshots the runners wrote during the run (jest's and vitest's new ones, updated ones
    /// where the command asks): a green run that wrote some says so.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub snapshots_written: usize,
    /// Absent when nothing ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    /// The declared command would exit 0 over these failures, and why
    /// (`maven.test.failure.ignore`, `|| true`): the verdict is still the tests'.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub masked: Option<String>,
    /// Tests that were running when the run ended (a hang, a crash), the first few.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub running: Vec<String>,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more_running: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_found: Vec<String>,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more_not_found: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub build_errors: Vec<BuildErrorOut>,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more_build_errors: usize,
    /// Every failure shown in full is new (it passed, or did not exist, before); said once
    /// here instead of on each.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub new: bool,
    /// Every failure shown in full has failed this many runs in a row.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub failing_for: u32,
    /// Changed lines the failing tests reach (`file:line source`), best first: where pith
    /// suspects the defect is, which no runner says.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suspects: Vec<String>,
    /// A green run's changed lines (since the last green run of everything) that no test
    /// reaches (`file:line source`), first changes first: green, and proven by nothing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub untested: Vec<String>,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more_untested: usize,
    /// How the suspects were found (`static`: the import graph; `traced`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reach: Option<&'static str>,
    /// With a `static` reach, why nothing was traced: `off`, `unneeded`, `unsupported`,
    /// `empty`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traceless: Option<&'static str>,
    /// What the changed lines were compared with: `lastPass` (the files when the failing
    /// test last passed), `git` (`HEAD`: the uncommitted changes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<FailureOut>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub clusters: Vec<ClusterOut>,
    /// Failures of causes neither shown in full nor listed as a cluster.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more_failures: usize,
    /// Tests that failed and then passed under the project's own retry policy, each as its
    /// failed attempt: counted in `passed`, never red, never silent.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flaky: Vec<FlakyOut>,
    /// Tests that passed on a retry and are not in `flaky`.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more_flaky: usize,
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

/// What `pith test --changed` ran, and against what it measured the changes.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangesOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<&'static str>,
    /// Changed files.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub files: usize,
    /// Every test ran, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all: Option<String>,
    /// Test files selected, of `suite` (absent: none, unless `all`).
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub tests: usize,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub suite: usize,
    /// The last run's failing tests, run again too.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub failing: usize,
}

impl ChangesOut {
    fn of(s: &pith_model::impact::Selection) -> Self {
        ChangesOut {
            baseline: s.baseline.map(|b| b.name()),
            files: s.changed.len(),
            all: s.all.as_ref().map(|a| crate::cut(a, REASON_CHARS / 2)),
            tests: s.tests.len(),
            suite: s.suite,
            failing: s.failing,
        }
    }
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
    /// Failures of this one's cause, itself included, when more than one: it stands for them.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub affected: usize,
    /// The other members' ids, when few.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<String>,
    /// Where each of `others` broke (`file:line`, in the same order), when not all where this
    /// one did: a helper marked as such (Go's `t.Helper()`) reports each caller's line.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub others_at: Vec<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub flaky: bool,
    /// Its first failure (it passed, or did not exist, before).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub new: bool,
    /// Consecutive runs it has failed in, this one included.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub failing_for: u32,
    /// Its own suspect (`file:line`), when not the answer's first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspect: Option<String>,
}

/// A test's failed attempt before the retry it passed on: its id, the first line of why, and
/// where (the deepest project frame first).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlakyOut {
    pub test: String,
    pub message: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<String>,
}

impl FlakyOut {
    /// The attempt with its first message line and up to `frames` project frames, deepest
    /// first, the deepest with its source line.
    pub(crate) fn of(f: &Failure, frames: usize) -> Self {
        let out = failure_out(f, frames, 1);
        FlakyOut {
            test: out.test,
            message: crate::cut(crate::first_line(&out.message), FLAKY_MESSAGE_CHARS),
            frames: out.frames,
        }
    }
}

/// A flaky attempt's message is its first line, cut here: the run is green, this is a hint.
const FLAKY_MESSAGE_CHARS: usize = 160;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterOut {
    pub error: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    pub affected: usize,
    /// The members' ids, when few; a big cluster is counted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<String>,
    /// Where each of `tests` broke, in the same order, when not all at `at`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tests_at: Vec<String>,
    /// The cause's own suspect (`file:line`), when not the answer's first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspect: Option<String>,
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

/// What a fitted answer is made from: the whole answer's failures and suspects, which
/// `shaping` shows in full, as clusters or counted.
pub(crate) struct Fit<'a> {
    pub(crate) failures: Vec<&'a Failure>,
    pub(crate) suspects: Vec<String>,
    /// How many of the first suspects are tied: the answer keeps them all.
    pub(crate) tied: usize,
}

/// The `pith test` answer for a report before it is fitted to its budget, and what fitting it
/// needs; an unchanged answer needs none.
pub(crate) fn whole(report: &Report) -> (TestAnswer, Option<Fit<'_>>) {
    if let Some(u) = &report.unchanged {
        let mut answer = unchanged_answer(report.generation.unwrap_or(u.generation), u);
        // Changed since, where no test reaches: the run stands, and proves nothing of them.
        untested_onto(&mut answer, report);
        return (answer, None);
    }
    let runs = &report.runs;
    let counts = total_counts(runs);
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
        cached: runs.iter().map(|r| r.cached as usize).sum(),
        remote: runs.iter().map(|r| r.remote as usize).sum(),
        changes: report.changes.as_ref().map(ChangesOut::of),
        counts: counts.settle(),
        recovered: report.recovered as usize,
        snapshots_written: runs.iter().map(|r| r.snapshots_written as usize).sum(),
        // Busy ran nothing: how long it waited is no signal; nor is a duration that rounds to
        // nothing (a report file that recorded none, a run under 50 ms).
        duration_s: Some(tenths(report.duration))
            .filter(|&d| d > 0.0 && report.status() != Status::Busy),
        // Several projects' reasons on one line: each says what hides its failures.
        masked: joined(|r| r.masked.as_ref()).map(|m| m.replace('\n', "; ")),
        running: Vec::new(),
        more_running: 0,
        not_found: Vec::new(),
        more_not_found: 0,
        hint: joined(|r| r.hint.as_ref()),
        more_build_errors: build_errors.len().saturating_sub(BUILD_ERRORS),
        new: false,
        failing_for: 0,
        suspects: Vec::new(),
        untested: Vec::new(),
        more_untested: 0,
        reach: None,
        traceless: None,
        baseline: None,
        build_errors: build_errors
            .into_iter()
            .take(BUILD_ERRORS)
            .map(build_error_out)
            .collect(),
        failures: Vec::new(),
        clusters: Vec::new(),
        more_failures: 0,
        flaky: Vec::new(),
        more_flaky: 0,
        reason: reason(runs),
        tail: joined(|r| r.tail.as_ref()),
        runs: Vec::new(),
        more_runs: 0,
    };
    cap_lists(&mut answer, runs);
    let suspects = suspect_lines(report);
    if let Some(s) = report.suspects.as_ref().filter(|_| !suspects.is_empty()) {
        answer.reach = Some(s.reach.name());
        answer.traceless = s.traceless.map(|t| t.name());
        answer.baseline = Some(s.baseline.name());
    }
    untested_onto(&mut answer, report);
    let fit = Fit {
        failures: all_failures,
        tied: report.suspects.as_ref().map_or(1, |s| s.tied.max(1)),
        suspects,
    };
    (answer, Some(fit))
}

/// The counts of every project's run added up.
fn total_counts(runs: &[Run]) -> Counts {
    let mut counts = Counts::default();
    for r in runs {
        counts.add(&Counts::of(r));
    }
    counts
}

/// The answer's lists that are capped, each with how many it leaves out: tests still running,
/// ids not found, flaky attempts, and the per-project list when several projects ran.
fn cap_lists(answer: &mut TestAnswer, runs: &[Run]) {
    (answer.running, answer.more_running) =
        capped(runs.iter().flat_map(|r| &r.running), RUNNING_SHOWN);
    (answer.not_found, answer.more_not_found) =
        capped(runs.iter().flat_map(|r| &r.not_found), NOT_FOUND_SHOWN);
    let flaky: Vec<&Failure> = runs.iter().flat_map(|r| &r.flaky).collect();
    answer.more_flaky = flaky.len().saturating_sub(FLAKY_SHOWN);
    answer.flaky = flaky
        .into_iter()
        .take(FLAKY_SHOWN)
        .map(|f| FlakyOut::of(f, 1))
        .collect();
    if runs.len() > 1 {
        (answer.runs, answer.more_runs) = runs_out(runs);
    }
}

/// The report's suspect lines, `file:line source`, each cut to fit.
fn suspect_lines(report: &Report) -> Vec<String> {
    report
        .suspects
        .iter()
        .flat_map(|s| &s.lines)
        .map(line_of)
        .collect()
}

/// A changed line as answers show it: `file:line source`, cut to fit.
fn line_of(s: &pith_model::impact::Suspect) -> String {
    crate::cut(
        format!("{} {}", s.location(), s.source).trim_end(),
        SUSPECT_CHARS,
    )
}

/// The first `n` items and how many more there are.
fn capped<'a>(items: impl Iterator<Item = &'a String>, n: usize) -> (Vec<String>, usize) {
    let all: Vec<&String> = items.collect();
    let more = all.len().saturating_sub(n);
    (all.into_iter().take(n).cloned().collect(), more)
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
    (!doubts.is_empty()).then(|| crate::cut(&doubts.join("; "), REASON_CHARS))
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

/// The report's `untested` lines, capped, and their reach.
fn untested_onto(answer: &mut TestAnswer, report: &Report) {
    if let Some(u) = &report.untested {
        answer.untested = u.lines.iter().map(line_of).collect();
        answer.more_untested = u.count.saturating_sub(answer.untested.len());
        answer.reach = Some(u.reach.name());
    }
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
        cached: 0,
        remote: 0,
        changes: None,
        counts: Counts {
            selected: 0,
            passed: u.passed as usize,
            failed: u.failed as usize,
            skipped: u.skipped as usize,
            errors: u.errors as usize,
        },
        recovered: 0,
        snapshots_written: 0,
        duration_s: None,
        masked: None,
        running: Vec::new(),
        more_running: 0,
        not_found: Vec::new(),
        more_not_found: 0,
        hint: None,
        build_errors: Vec::new(),
        more_build_errors: 0,
        new: false,
        failing_for: 0,
        suspects: Vec::new(),
        untested: Vec::new(),
        more_untested: 0,
        reach: None,
        traceless: None,
        baseline: None,
        failures: Vec::new(),
        clusters: Vec::new(),
        more_failures: 0,
        flaky: Vec::new(),
        more_flaky: 0,
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
pub(crate) fn failure_out(f: &Failure, frames: usize, code_frames: usize) -> FailureOut {
    let frames = f
        .project_frames()
        .rev()
        .take(frames)
        .enumerate()
        .map(|(i, fr)| {
            crate::cut(
                &crate::failures_answer::frame(fr, i < code_frames),
                FRAME_CHARS,
            )
        })
        .collect();
    FailureOut {
        test: f.test.clone(),
        message: crate::cut(&f.message, MESSAGE_CHARS),
        frames,
        phase: (f.phase != Phase::Call).then(|| f.phase.name()),
        affected: 0,
        others: Vec::new(),
        others_at: Vec::new(),
        flaky: f.flaky,
        new: f.new,
        failing_for: f.failing_for,
        suspect: None,
    }
}
