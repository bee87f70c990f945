//! Domain types of a test run, shared by every crate: what ran, what failed, and where.
//! No I/O and no serialization here: adapters fill these in, `wire` shapes them into answers.

pub mod cause;
pub mod ecosystem;
pub mod gain;
pub mod impact;
pub mod lang;
pub mod output;
pub mod symbol;

use std::time::Duration;

/// The verdict of a run. Ordered from least to most severe, so merging several runners' results
/// keeps the worst (`max`). Never `TestsPassed` unless everything asked for ran and passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Status {
    TestsPassed,
    /// Nothing was selected or collected, so nothing was proven.
    #[default]
    NoTestsRan,
    /// Some requested test ids matched nothing (the rest may have passed).
    TestsNotFound,
    TestsFailed,
    /// The runner's own evidence says the run is not green, and no failing test explains it:
    /// a non-zero exit after every test passed (a coverage threshold, a session-finish check),
    /// tests selected that never reported (a run that stopped early, even with exit 0), or
    /// the runner's own totals disagreeing with its records. `Run::doubt` says which.
    RunnerFailed,
    /// A test module failed to import or parse: its tests never ran.
    CollectionFailed,
    /// The code did not compile: no test ran.
    BuildFailed,
    /// A test process died of a signal (segfault, abort) or a worker was lost.
    Crashed,
    /// pith killed the run at its deadline.
    TimedOut,
    /// pith stopped the run before it ended because its caller cancelled the request or pith
    /// itself was told to stop (a signal): no verdict, and never recorded.
    Cancelled,
    /// The detected runner is not installed where the project needs it.
    RunnerMissing,
    /// Another pith run holds this workspace and did not finish within the wait bound: nothing
    /// ran. Never recorded in the history.
    Busy,
}

impl Status {
    pub const fn name(self) -> &'static str {
        match self {
            Status::TestsPassed => "TestsPassed",
            Status::NoTestsRan => "NoTestsRan",
            Status::TestsNotFound => "TestsNotFound",
            Status::TestsFailed => "TestsFailed",
            Status::RunnerFailed => "RunnerFailed",
            Status::CollectionFailed => "CollectionFailed",
            Status::BuildFailed => "BuildFailed",
            Status::Crashed => "Crashed",
            Status::TimedOut => "TimedOut",
            Status::Cancelled => "Cancelled",
            Status::RunnerMissing => "RunnerMissing",
            Status::Busy => "Busy",
        }
    }

    /// The status a [`Status::name`] names.
    pub fn from_name(name: &str) -> Option<Status> {
        const ALL: [Status; 12] = [
            Status::TestsPassed,
            Status::NoTestsRan,
            Status::TestsNotFound,
            Status::TestsFailed,
            Status::RunnerFailed,
            Status::CollectionFailed,
            Status::BuildFailed,
            Status::Crashed,
            Status::TimedOut,
            Status::Cancelled,
            Status::RunnerMissing,
            Status::Busy,
        ];
        ALL.into_iter().find(|s| s.name() == name)
    }

    /// The process exit code this status maps to: 0 green, 1 the code under test is not green,
    /// 2 pith could not do its job.
    pub const fn exit_code(self) -> i32 {
        match self {
            Status::TestsPassed => 0,
            Status::Cancelled | Status::RunnerMissing | Status::Busy => 2,
            _ => 1,
        }
    }

    pub const fn is_green(self) -> bool {
        matches!(self, Status::TestsPassed)
    }
}

/// Where in a test's life a failure happened. `Call` (the test body) is the default and is not
/// worth a byte in an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Phase {
    /// Importing or parsing a test module (pytest collection).
    Collect,
    Setup,
    #[default]
    Call,
    Teardown,
}

impl Phase {
    pub const fn name(self) -> &'static str {
        match self {
            Phase::Collect => "collect",
            Phase::Setup => "setup",
            Phase::Call => "call",
            Phase::Teardown => "teardown",
        }
    }
}

/// One stack frame. `file` is workspace-relative when `project` is true; otherwise it is the
/// path as the runner printed it (a library, the standard library, a registry crate).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Frame {
    pub file: String,
    pub line: u32,
    /// The source line, trimmed, when the runner or the file gives it.
    pub code: Option<String>,
    pub project: bool,
}

impl Frame {
    pub fn project(file: impl Into<String>, line: u32) -> Self {
        Frame {
            file: file.into(),
            line,
            code: None,
            project: true,
        }
    }

    /// `file:line`, the form agents paste into an editor.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// Most lines a [`Failure::detail`] keeps; the rest are counted on a `… N more lines` line.
pub const DETAIL_LINES: usize = 60;
/// Most bytes a [`Failure::detail`] keeps (cut at a line, or at a character boundary).
pub const DETAIL_BYTES: usize = 4_000;

/// One failing test (or one module that failed to collect).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Failure {
    /// The runner's own address of the test, verbatim (parametrization included). For a
    /// collection error, the module's path.
    pub test: String,
    /// The failure's message, first line(s) as the adapter judged useful; `wire` cuts it.
    pub message: String,
    /// The failure's whole text for `pith failures`, when it says more than `message`: every
    /// line of the runner's message, its diff (expected/actual) and the cause chain, without
    /// colour, workspace paths relative, capped ([`DETAIL_LINES`], [`DETAIL_BYTES`]) with a
    /// `… N more lines` remainder.
    pub detail: Option<String>,
    /// Exception or error type when the runner reports one (`ValueError`, `panic`), used to
    /// group failures from one cause.
    pub kind: Option<String>,
    /// Outermost first, innermost (where it broke) last. Includes library frames.
    pub frames: Vec<Frame>,
    pub phase: Phase,
    /// The history saw its outcome change between runs of the same content. (A test the
    /// runner itself saw fail and then pass on a retry is not a failure: it is in
    /// [`Run::flaky`].)
    pub flaky: bool,
    /// Its first failure: it passed (or did not exist) in the runs before. Set from history.
    pub new: bool,
    /// Consecutive runs it has failed in, this one included, when more than one. Set from
    /// history.
    pub failing_for: u32,
    /// The changed line this failure's test reaches that pith suspects most (set by the
    /// engine from the change memory; the run's list is [`Report::suspects`]).
    pub suspect: Option<impact::Suspect>,
}

impl Failure {
    pub fn project_frames(&self) -> impl DoubleEndedIterator<Item = &Frame> + '_ {
        self.frames.iter().filter(|f| f.project)
    }

    /// The innermost frame inside the project: where the agent should look first.
    pub fn top_project_frame(&self) -> Option<&Frame> {
        self.project_frames().next_back()
    }
}

/// A compiler diagnostic that stopped the build.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct BuildError {
    /// Workspace-relative file, when the diagnostic points into the project.
    pub file: Option<String>,
    pub line: Option<u32>,
    /// Compiler error code such as `E0308`.
    pub code: Option<String>,
    pub message: String,
}

/// How one test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    Passed,
    Failed,
    Skipped,
}

/// One test's result, as an adapter reports it for the history. Failures are described in
/// full in [`Run::failures`]; this only adds what they lack (passes, durations).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestOutcome {
    pub test: String,
    pub outcome: Outcome,
    /// When the runner measured it.
    pub duration: Option<Duration>,
}

impl TestOutcome {
    pub fn passed(test: impl Into<String>, duration: Option<Duration>) -> Self {
        TestOutcome {
            test: test.into(),
            outcome: Outcome::Passed,
            duration,
        }
    }
}

/// What a runner's exit code means, as the runner documents its codes. Each adapter maps its
/// runner's codes; the status rule in [`Run::status`] checks the records against it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExitMeaning {
    /// Every selected test passed.
    Passed,
    /// Some test failed (or failed to build or collect).
    Failed,
    /// Nothing was selected or collected.
    NoTests,
    /// The run was stopped before it ended (a signal, Ctrl-C, `pytest.exit`).
    Interrupted,
    /// The runner rejected its arguments or configuration.
    UsageError,
    /// A code the runner does not document for a test outcome (an internal error, a plugin's
    /// or a threshold's own code).
    Other,
}

impl ExitMeaning {
    const fn says(self) -> &'static str {
        match self {
            ExitMeaning::Passed => "",
            ExitMeaning::Failed => "",
            ExitMeaning::NoTests => " (no tests)",
            ExitMeaning::Interrupted => " (interrupted)",
            ExitMeaning::UsageError => " (usage error)",
            ExitMeaning::Other => "",
        }
    }
}

/// How the runner process ended by itself: its code and what the code means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Exit {
    pub code: i32,
    pub meaning: ExitMeaning,
}

impl Exit {
    pub const fn new(code: i32, meaning: ExitMeaning) -> Self {
        Exit { code, meaning }
    }
}

/// What one runner did in one run: counts, failures, and the raw evidence when the run did not
/// end normally. Adapters produce it; the engine merges several into a [`Report`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Run {
    /// Which runner ran: `nextest`, `cargo`, `pytest`, ...
    pub runner: String,
    /// The project directory it ran in, workspace-relative; `None` at the workspace root.
    pub dir: Option<String>,
    /// Set by the adapter; `None` lets [`Run::status`] derive it from the evidence.
    pub status: Option<Status>,
    /// Tests the runner set out to run, when it said so; more than passed + failed + skipped
    /// means some never finished.
    pub selected: Option<u32>,
    pub passed: u32,
    pub failed: u32,
    pub skipped: u32,
    pub duration: Duration,
    pub failures: Vec<Failure>,
    pub build_errors: Vec<BuildError>,
    /// Tests that failed and then passed under the project's own retry policy (Surefire's
    /// `rerunFailingTestsCount`, pytest-rerunfailures, jest's `retryTimes`, vitest's `retry`,
    /// nextest's retries, Bazel's `flaky_test_attempts`), each as its failed attempt (message,
    /// frames, kind). They are counted in `passed`, never in `failed`, and do not make a run
    /// red: the runner's verdict after its retries is the project's. Never silent either: the
    /// answer lists them.
    pub flaky: Vec<Failure>,
    /// The declared command would exit 0 over this run's failures, and why (a setting that only
    /// hides failures from the exit code: `maven.test.failure.ignore`, a trailing `|| true`).
    /// It changes nothing of the verdict: the failures stand.
    pub masked: Option<String>,
    /// Snapshots the runner wrote (new ones, and updated ones where the command asks for it):
    /// a green run that wrote some says so.
    pub snapshots_written: u32,
    /// Tests that were running when the run was killed or crashed.
    pub running: Vec<String>,
    /// Requested test ids that matched no test.
    pub not_found: Vec<String>,
    /// The last lines of raw output explaining an abnormal end, paths already relative.
    pub tail: Option<String>,
    /// One line telling how to install a missing runner.
    pub hint: Option<String>,
    /// What this runner cannot tell, when a stronger runner could (`isolation` for plain
    /// `cargo test`).
    pub lacks: Option<String>,
    /// The interpreter used, only when it is not the one the user's shell would pick.
    pub interpreter: Option<String>,
    /// How the runner process ended, when it exited by itself (not killed by pith or a
    /// signal, not read from a report file). Evidence: an exit that does not say green is never
    /// a green run.
    pub exit: Option<Exit>,
    /// Set by an adapter when the runner's own account disagrees with the records in a way
    /// only the adapter can see (its totals count more tests or failures than reported, it
    /// says the run failed with no failing test): one line, never green.
    pub reason: Option<String>,
    /// Per-test outcomes, when the adapter reports them (at least the passed tests; failed
    /// ones may be here too, with their durations). Feeds the history: recovered and flaky
    /// tests. Empty when the adapter does not report them.
    pub outcomes: Vec<TestOutcome>,
    /// Failing tests run again with line tracing on the changed files, inside this run (the
    /// adapter's own, cheaper than a second start), when pith asked for it.
    pub traced: Option<impact::Traced>,
    /// What the tests loaded by computed names, per test file, when the adapter observes it.
    pub loads: Vec<impact::Loads>,
    /// What the runner printed for a person to read (see [`gain::Printed`]): what `pith gain`
    /// weighs the answer against. Never part of an answer.
    pub printed: gain::Printed,
    /// Each test's own output, where the adapter keeps it apart from the runner's (failing
    /// tests' at least): what `pith output --test` answers. Never part of an answer.
    pub test_output: Vec<output::TestOutput>,
    /// Test targets whose result came from a cache (local or remote) instead of running now
    /// (a build system's runner: Bazel): a green that proves nothing new says so.
    pub cached: u32,
    /// Test targets that ran on a remote executor.
    pub remote: u32,
}

impl Run {
    pub fn new(runner: impl Into<String>) -> Self {
        Run {
            runner: runner.into(),
            ..Run::default()
        }
    }

    /// Adds `part` (the same runner's run of another batch: a package, a test binary) to this
    /// run: counts, lists without repeats where one cause can be reported twice (build errors,
    /// running tests), the worse status, and the later tail, hint and `lacks`.
    pub fn absorb(&mut self, part: Run) {
        // The part's own doubt is kept as a reason: absorbing it into the whole must not
        // lose it (the whole's counts may hide one part's missing tests).
        let doubt = part.doubt();
        self.selected = match (self.selected, part.selected) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        self.passed += part.passed;
        self.failed += part.failed;
        self.skipped += part.skipped;
        self.cached += part.cached;
        self.remote += part.remote;
        self.snapshots_written += part.snapshots_written;
        self.duration = self.duration.saturating_add(part.duration);
        self.failures.extend(part.failures);
        self.flaky.extend(part.flaky);
        self.outcomes.extend(part.outcomes);
        self.loads.extend(part.loads);
        match (&mut self.traced, part.traced) {
            (Some(mine), Some(theirs)) => {
                mine.tests.extend(theirs.tests);
                mine.files.extend(theirs.files);
                mine.imported.extend(theirs.imported);
            }
            (mine @ None, theirs) => *mine = theirs,
            (Some(_), None) => {}
        }
        self.printed.append(part.printed);
        self.test_output.extend(part.test_output);
        for e in part.build_errors {
            if !self.build_errors.contains(&e) {
                self.build_errors.push(e);
            }
        }
        for r in part.running {
            if !self.running.contains(&r) {
                self.running.push(r);
            }
        }
        self.not_found.extend(part.not_found);
        self.status = match (self.status, part.status) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.exit = match (self.exit, part.exit) {
            (Some(a), Some(b)) if a.meaning == ExitMeaning::Passed => Some(b),
            (Some(a), _) => Some(a),
            (None, b) => b,
        };
        if self.reason.is_none() {
            self.reason = doubt;
        }
        for (mine, theirs) in [
            (&mut self.tail, part.tail),
            (&mut self.hint, part.hint),
            (&mut self.lacks, part.lacks),
            (&mut self.masked, part.masked),
        ] {
            if theirs.is_some() {
                *mine = theirs;
            }
        }
    }

    /// Collection errors, counted apart from failing tests.
    pub fn collection_errors(&self) -> usize {
        self.failures
            .iter()
            .filter(|f| f.phase == Phase::Collect)
            .count()
    }

    /// Tests the runner set out to run that reported no outcome.
    pub fn unreported(&self) -> u32 {
        self.selected
            .unwrap_or(0)
            .saturating_sub(self.passed + self.failed + self.skipped)
    }

    /// Why the runner's own evidence says this run is not green although no test failed, in
    /// one line; `None` when it agrees. Checked in this order: the adapter's reason (totals
    /// that disagree), tests selected that never reported, an exit code that does not say
    /// green.
    pub fn doubt(&self) -> Option<String> {
        if self.reason.is_some() {
            return self.reason.clone();
        }
        // A status worse than RunnerFailed (a build failure, a crash, a timeout) is its own
        // explanation of the exit: saying the exit is unexplained beside it would mislead.
        if self.status.max(Some(self.evidence())) > Some(Status::RunnerFailed) {
            return None;
        }
        self.unexplained()
    }

    /// [`Run::doubt`] before weighing the status: what the runner's evidence contradicts.
    fn unexplained(&self) -> Option<String> {
        if let Some(r) = &self.reason {
            return Some(r.clone());
        }
        let missing = self.unreported();
        if missing > 0 && self.running.is_empty() {
            let selected = self.selected.unwrap_or(0);
            let exit = self
                .exit
                .map(|e| format!("; {} exited {}", self.runner, e.code))
                .unwrap_or_default();
            return Some(format!(
                "{missing} of {selected} selected tests never reported{exit}"
            ));
        }
        let exit = self.exit?;
        let explained = match exit.meaning {
            ExitMeaning::Passed => true,
            ExitMeaning::NoTests => self.passed == 0 && self.failed == 0,
            // Ids that match nothing are a usage error to several runners (pytest exits 4).
            ExitMeaning::UsageError if !self.not_found.is_empty() => true,
            _ => self.failed > 0 || !self.failures.is_empty() || !self.build_errors.is_empty(),
        };
        (!explained).then(|| {
            format!(
                "{} exited {}{} though no test failed",
                self.runner,
                exit.code,
                exit.meaning.says()
            )
        })
    }

    /// The status implied by the evidence, unless an adapter set a stronger one. This is where
    /// "never a false green" is enforced for every runner alike: green needs the records to
    /// say so, the runner's exit to say so, every selected test to have reported, and the
    /// runner's totals to agree (the adapter's `reason`).
    pub fn status(&self) -> Status {
        let derived = self.evidence();
        let derived = if derived <= Status::NoTestsRan && self.unexplained().is_some() {
            Status::RunnerFailed
        } else {
            derived
        };
        match self.status {
            Some(s) => s.max(derived),
            None => derived,
        }
    }

    /// The status the records alone imply.
    fn evidence(&self) -> Status {
        if !self.build_errors.is_empty() {
            Status::BuildFailed
        } else if self.collection_errors() > 0 {
            Status::CollectionFailed
        } else if self.failed > 0 || !self.failures.is_empty() {
            Status::TestsFailed
        } else if !self.not_found.is_empty() {
            Status::TestsNotFound
        } else if self.passed == 0 {
            Status::NoTestsRan
        } else {
            Status::TestsPassed
        }
    }
}

/// Everything one `pith test` learned: one run per runner that ran.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    pub runs: Vec<Run>,
    pub duration: Duration,
    /// The workspace generation the run tested (`None` when the workspace state is not
    /// available).
    pub generation: Option<u64>,
    /// Set instead of running when nothing changed since the same selection last ran: the
    /// answer is that run's summary.
    pub unchanged: Option<RunSummary>,
    /// Tests that passed in this run after failing in the one before.
    pub recovered: u32,
    /// The changed lines the failing tests reach, best first (a red run with something to
    /// compare with only).
    pub suspects: Option<impact::Suspects>,
    /// A green run's changed lines (since the last green run of everything) no test
    /// reaches.
    pub untested: Option<impact::Untested>,
    /// `pith test --changed`: what the changes selected (the tests that ran are those).
    pub changes: Option<impact::Selection>,
    /// One-line warnings for a human (a damaged state database moved aside); never part of
    /// the answer.
    pub warnings: Vec<String>,
}

impl Report {
    pub fn status(&self) -> Status {
        if let Some(u) = &self.unchanged {
            return u.status;
        }
        // A project without tests beside projects that ran some does not make the workspace's
        // verdict: the runner said it had nothing to run (a doubtful exit is RunnerFailed).
        let ran = self.runs.iter().any(|r| r.status() != Status::NoTestsRan);
        self.runs
            .iter()
            .map(Run::status)
            .filter(|s| !ran || *s != Status::NoTestsRan)
            .max()
            .unwrap_or(Status::NoTestsRan)
    }
}

/// A run as the history remembers it: the verdict and counts, without the failures.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunSummary {
    /// The workspace generation the run tested.
    pub generation: u64,
    pub status: Status,
    pub runner: String,
    pub passed: u32,
    pub failed: u32,
    pub skipped: u32,
    /// Modules that failed to collect.
    pub errors: u32,
    /// Tests that passed after failing in the run before.
    pub recovered: u32,
    pub duration: Duration,
    /// How many test ids the run was asked for; 0 when it ran everything.
    pub requested: u32,
}

/// A runner the workspace uses, and what pith knows of how it resolves (from its last run).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunnerInfo {
    pub name: String,
    /// The interpreter it runs under, when not the shell's default.
    pub interpreter: Option<String>,
    /// What it cannot tell (`isolation`).
    pub lacks: Option<String>,
    /// Its last run found it not installed.
    pub missing: bool,
}

/// What `pith status` knows: the workspace's generation, its last run, what changed since.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WorkspaceState {
    /// Increases exactly when the workspace's source content changes.
    pub generation: u64,
    /// Asked with `since` and nothing changed since that generation: nothing else is set.
    pub unchanged: bool,
    pub last_run: Option<RunSummary>,
    /// Files changed (edited, added, deleted) since the last run, most recent first; may be a
    /// prefix of all of them.
    pub changed: Vec<String>,
    /// How many files changed since the last run in all.
    pub changed_count: u64,
    /// Source files changed since the last green run (or git `HEAD`) that no test reaches:
    /// edits that may be in the wrong place. Sorted.
    pub off_target: Vec<String>,
    pub runners: Vec<RunnerInfo>,
    /// One-line warnings for a human; never part of the answer.
    pub warnings: Vec<String>,
}

/// What `pith failures` knows: the last run's failures in full.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FailureDetails {
    /// The run they come from; `None` when no run was recorded yet.
    pub run: Option<RunSummary>,
    /// Every failure of that run (or just the named tests'), frames complete.
    pub failures: Vec<Failure>,
    /// Named tests that ran in that run and did not fail.
    pub not_failing: Vec<String>,
    /// Named tests that run did not run.
    pub not_found: Vec<String>,
    /// One-line warnings for a human; never part of the answer.
    pub warnings: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absorbing_a_part_keeps_its_hint_and_says_each_cause_once() {
        let err = BuildError {
            message: "E".into(),
            ..BuildError::default()
        };
        let mut run = Run {
            passed: 2,
            selected: Some(2),
            build_errors: vec![err.clone()],
            running: vec!["a".into()],
            ..Run::new("nextest")
        };
        run.absorb(Run {
            status: Some(Status::RunnerMissing),
            failed: 1,
            selected: Some(1),
            build_errors: vec![err],
            running: vec!["a".into(), "b".into()],
            hint: Some("cargo install cargo-nextest".into()),
            lacks: Some("isolation".into()),
            tail: Some("t".into()),
            ..Run::new("nextest")
        });
        assert_eq!((run.passed, run.failed, run.selected), (2, 1, Some(3)));
        assert_eq!(run.build_errors.len(), 1);
        assert_eq!(run.running, ["a", "b"]);
        assert_eq!(run.status, Some(Status::RunnerMissing));
        assert_eq!(run.hint.as_deref(), Some("cargo install cargo-nextest"));
        assert_eq!(run.lacks.as_deref(), Some("isolation"));
        assert_eq!(run.tail.as_deref(), Some("t"));
    }

    #[test]
    fn a_test_that_passed_on_a_retry_leaves_the_run_green_and_a_mask_hides_nothing() {
        let attempt = Failure {
            test: "demo.NetTest#connects".into(),
            message: "timed out".into(),
            ..Failure::default()
        };
        let mut run = Run {
            passed: 2,
            selected: Some(2),
            flaky: vec![attempt.clone()],
            exit: Some(Exit::new(0, ExitMeaning::Passed)),
            ..Run::new("maven")
        };
        assert_eq!(run.status(), Status::TestsPassed);
        assert_eq!(run.doubt(), None);
        run.absorb(Run {
            failed: 1,
            failures: vec![Failure {
                test: "demo.CartTest#totals".into(),
                ..Failure::default()
            }],
            flaky: vec![attempt],
            masked: Some("maven.test.failure.ignore".into()),
            exit: Some(Exit::new(0, ExitMeaning::Passed)),
            ..Run::new("maven")
        });
        assert_eq!(run.flaky.len(), 2);
        assert_eq!(run.masked.as_deref(), Some("maven.test.failure.ignore"));
        // The exit the mask made green explains nothing away: the failure stands.
        assert_eq!(run.status(), Status::TestsFailed);
    }

    #[test]
    fn nothing_ran_is_not_green() {
        assert_eq!(Run::new("pytest").status(), Status::NoTestsRan);
    }

    #[test]
    fn a_missing_id_is_not_green_even_when_the_rest_passed() {
        let run = Run {
            passed: 3,
            not_found: vec!["t::gone".into()],
            ..Run::new("cargo")
        };
        assert_eq!(run.status(), Status::TestsNotFound);
    }

    #[test]
    fn adapter_status_never_weakens_the_evidence() {
        let mut run = Run {
            passed: 1,
            ..Run::new("pytest")
        };
        run.build_errors.push(BuildError {
            message: "x".into(),
            ..Default::default()
        });
        run.status = Some(Status::TestsPassed);
        assert_eq!(run.status(), Status::BuildFailed);
        run.status = Some(Status::TimedOut);
        assert_eq!(run.status(), Status::TimedOut);
    }

    #[test]
    fn an_exit_that_does_not_say_green_is_never_green() {
        let mut run = Run {
            passed: 3,
            exit: Some(Exit::new(1, ExitMeaning::Failed)),
            ..Run::new("pytest")
        };
        assert_eq!(run.status(), Status::RunnerFailed);
        assert_eq!(
            run.doubt().as_deref(),
            Some("pytest exited 1 though no test failed")
        );
        run.exit = Some(Exit::new(0, ExitMeaning::Passed));
        assert_eq!(run.status(), Status::TestsPassed);
        // A failing test explains a failing exit.
        run.exit = Some(Exit::new(1, ExitMeaning::Failed));
        run.failed = 1;
        assert_eq!(run.status(), Status::TestsFailed);
        assert_eq!(run.doubt(), None);
        // "No tests" explains itself only when nothing ran.
        let none = Run {
            exit: Some(Exit::new(5, ExitMeaning::NoTests)),
            ..Run::new("pytest")
        };
        assert_eq!(none.status(), Status::NoTestsRan);
        let odd = Run {
            passed: 2,
            exit: Some(Exit::new(5, ExitMeaning::NoTests)),
            ..Run::new("pytest")
        };
        assert_eq!(odd.status(), Status::RunnerFailed);
        let usage = Run {
            exit: Some(Exit::new(4, ExitMeaning::UsageError)),
            ..Run::new("pytest")
        };
        assert_eq!(usage.status(), Status::RunnerFailed);
    }

    #[test]
    fn a_worse_status_is_its_own_explanation_of_the_exit() {
        let crashed = Run {
            status: Some(Status::Crashed),
            exit: Some(Exit::new(101, ExitMeaning::Failed)),
            ..Run::new("cargo")
        };
        assert_eq!(crashed.status(), Status::Crashed);
        assert_eq!(crashed.doubt(), None);
        let build = Run {
            build_errors: vec![BuildError::default()],
            exit: Some(Exit::new(101, ExitMeaning::Failed)),
            ..Run::new("cargo")
        };
        assert_eq!(build.doubt(), None);
        // What the adapter itself saw is said whatever the status.
        let told = Run {
            reason: Some("the binary exited 0 with 2 tests unreported".into()),
            ..crashed
        };
        assert_eq!(
            told.doubt().as_deref(),
            Some("the binary exited 0 with 2 tests unreported")
        );
    }

    #[test]
    fn tests_that_never_reported_are_never_green_whatever_the_exit() {
        let run = Run {
            selected: Some(3),
            passed: 1,
            exit: Some(Exit::new(0, ExitMeaning::Passed)),
            ..Run::new("pytest")
        };
        assert_eq!(run.status(), Status::RunnerFailed);
        assert_eq!(
            run.doubt().as_deref(),
            Some("2 of 3 selected tests never reported; pytest exited 0")
        );
        // The runner's own totals, as the adapter read them.
        let totals = Run {
            passed: 4,
            reason: Some("jest reported success:false".into()),
            ..Run::new("jest")
        };
        assert_eq!(totals.status(), Status::RunnerFailed);
        // A part's doubt survives being absorbed into a whole that looks complete.
        let mut whole = Run {
            passed: 5,
            selected: Some(5),
            ..Run::new("go")
        };
        whole.absorb(Run {
            passed: 1,
            exit: Some(Exit::new(1, ExitMeaning::Failed)),
            ..Run::new("go")
        });
        assert_eq!(whole.status(), Status::RunnerFailed);
    }

    #[test]
    fn a_project_without_tests_does_not_make_the_workspace_verdict() {
        let green = Run {
            passed: 2,
            ..Run::new("cargo")
        };
        let empty = Run {
            exit: Some(Exit::new(0, ExitMeaning::Passed)),
            ..Run::new("go")
        };
        let report = Report {
            runs: vec![green, empty.clone()],
            ..Default::default()
        };
        assert_eq!(report.status(), Status::TestsPassed);
        let report = Report {
            runs: vec![empty],
            ..Default::default()
        };
        assert_eq!(report.status(), Status::NoTestsRan);
    }

    #[test]
    fn report_takes_the_worst_run() {
        let green = Run {
            passed: 2,
            ..Run::new("cargo")
        };
        let red = Run {
            failed: 1,
            ..Run::new("pytest")
        };
        let report = Report {
            runs: vec![green, red],
            ..Default::default()
        };
        assert_eq!(report.status(), Status::TestsFailed);
        assert_eq!(Report::default().status(), Status::NoTestsRan);
    }
}
