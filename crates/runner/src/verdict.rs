//! The verdict scaffold every adapter's `judge` shares: the endings that mean the same whatever
//! the runner (pith stopped the run, a signal killed the runner, the runner is missing), the
//! documented exit codes as a table, the tests a dead process takes along as failures, and the
//! output tail and stdout+stderr joining. Each adapter keeps its own special cases (its
//! reports, its runner's words, its crash evidence): this module holds only what is the same,
//! so an adapter cannot get one of the common endings subtly wrong (never a false green).

use pith_model::{Exit, ExitMeaning, Failure, Frame, Phase, Run, Status};

use crate::process::{self, Captured, End};
use crate::{tails, PathMap};

/// How the runner process ended, as a judge weighs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ending {
    /// pith stopped it: the deadline passed or the caller cancelled. The run timed out.
    Stopped,
    /// A signal that was not pith's killed it; the signal's name (`SIGKILL`).
    Killed(String),
    /// It exited by itself with this code.
    Exited(i32),
}

impl Ending {
    pub(crate) fn of(end: End) -> Ending {
        match end {
            End::TimedOut | End::Cancelled => Ending::Stopped,
            End::Signaled(sig) => Ending::Killed(process::signal_name(sig)),
            End::Exited(code) => Ending::Exited(code),
        }
    }
}

/// The line that says a signal killed the runner: `pytest was killed by SIGKILL`.
pub(crate) fn killed_by(runner: &str, signal: &str) -> String {
    format!("{runner} was killed by {signal}")
}

/// pith stopped the run: it timed out, with the tests that were running (`None` leaves those
/// the adapter already gathered) and the output's tail.
pub(crate) fn stopped(run: &mut Run, running: Option<Vec<String>>, tail: Option<String>) {
    run.status = Some(Status::TimedOut);
    if let Some(running) = running {
        run.running = running;
    }
    run.tail = tail;
}

/// A signal killed the runner: the run crashed, with the tests that were running (`None`
/// leaves those the adapter already gathered) and the output's tail.
pub(crate) fn crashed(run: &mut Run, running: Option<Vec<String>>, tail: Option<String>) {
    run.status = Some(Status::Crashed);
    if let Some(running) = running {
        run.running = running;
    }
    run.tail = tail;
}

/// A signal killed the runner: it crashed, with its output's tail, else the line naming the
/// signal (`ctest was killed by SIGKILL`).
pub(crate) fn killed(
    run: &mut Run,
    runner: &str,
    signal: &str,
    running: Option<Vec<String>>,
    tail: Option<String>,
) {
    crashed(
        run,
        running,
        tail.or_else(|| Some(killed_by(runner, signal))),
    );
}

/// The runner is not installed (or cannot run here): the answer is the hint that installs it.
pub(crate) fn runner_missing(runner: &str, hint: String) -> Run {
    Run {
        status: Some(Status::RunnerMissing),
        hint: Some(hint),
        ..Run::new(runner)
    }
}

/// A runner's documented exit codes; every code the table does not list is
/// [`ExitMeaning::Other`].
pub(crate) type ExitCodes = [(i32, ExitMeaning)];

/// What `code` means by `table`.
pub(crate) fn meaning(table: &ExitCodes, code: i32) -> ExitMeaning {
    table
        .iter()
        .find(|(c, _)| *c == code)
        .map_or(ExitMeaning::Other, |(_, m)| *m)
}

/// The exit, when the runner exited by itself, with what its code means.
pub(crate) fn exit(end: End, meaning: impl FnOnce(i32) -> ExitMeaning) -> Option<Exit> {
    end.code().map(|c| Exit::new(c, meaning(c)))
}

/// What became of one test in the records an adapter reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    Passed,
    Skipped,
    Failed,
    /// Started and never ended: running when the run was cut short.
    Running,
}

/// One test's outcome as a judge tallies it.
pub(crate) struct Outcome {
    pub id: String,
    pub verdict: Verdict,
    pub failure: Option<Failure>,
    /// Its process died under it (a signal, an exit): the run crashed.
    pub crashed: bool,
}

impl Outcome {
    pub(crate) fn new(id: &str, verdict: Verdict) -> Self {
        Outcome {
            id: id.to_owned(),
            verdict,
            failure: None,
            crashed: false,
        }
    }

    pub(crate) fn failed(failure: Failure) -> Self {
        Outcome {
            id: failure.test.clone(),
            verdict: Verdict::Failed,
            failure: Some(failure),
            crashed: false,
        }
    }
}

/// What a failure of a test a dead (or stopped) process took along says.
pub(crate) struct Stopped<'a> {
    pub message: &'a str,
    pub kind: Option<&'a str>,
    pub frames: &'a [Frame],
}

/// Each of `running` becomes a failure saying how its process ended, unless it already is
/// one; each counts as failed.
pub(crate) fn fail_running<'a>(
    run: &mut Run,
    running: impl IntoIterator<Item = &'a String>,
    how: &Stopped<'_>,
) {
    for test in running {
        if run.failures.iter().any(|f| &f.test == test) {
            continue;
        }
        run.failures.push(Failure {
            test: test.clone(),
            message: how.message.to_owned(),
            kind: how.kind.map(str::to_owned),
            frames: how.frames.to_vec(),
            phase: Phase::Call,
            ..Failure::default()
        });
        run.failed += 1;
    }
}

/// The end of some output, paths relative; `None` when there is nothing to say.
pub(crate) fn tail(paths: &PathMap, output: &str) -> Option<String> {
    let t = tails::tail(&paths.scrub(output));
    (!t.is_empty()).then_some(t)
}

/// The end of some output, lines first picked by `keep`, paths relative; `None` when nothing
/// is left.
pub(crate) fn tail_of_lines<'a>(
    paths: &PathMap,
    lines: impl Iterator<Item = &'a str>,
    keep: impl FnMut(&&'a str) -> bool,
) -> Option<String> {
    let kept: Vec<&str> = lines.filter(keep).collect();
    tail(paths, &kept.join("\n"))
}

/// The lines of the output's end that say why a run failed (see [`tails::why_tail`]), paths
/// relative; `None` when there are none.
pub(crate) fn why_tail(paths: &PathMap, output: &str) -> Option<String> {
    let t = tails::why_tail(&paths.scrub(output));
    (!t.is_empty()).then_some(t)
}

/// Streams joined in order (stdout, stderr, what else the runner left), each on lines of its
/// own; empty ones add nothing.
pub(crate) fn combined(parts: &[&str]) -> String {
    let mut s = String::new();
    for part in parts.iter().filter(|p| !p.is_empty()) {
        if !s.is_empty() && !s.ends_with('\n') {
            s.push('\n');
        }
        s.push_str(part);
    }
    s
}

/// stdout, a newline, stderr: what a runner printed, for readers that look for its words on
/// either stream.
pub(crate) fn stdout_stderr(cap: &Captured) -> String {
    format!("{}\n{}", cap.stdout_str(), cap.stderr_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_join_on_their_own_lines() {
        assert_eq!(combined(&["a", "b\n", "", "c"]), "a\nb\nc");
        assert_eq!(combined(&["", "b"]), "b");
        assert_eq!(combined(&["a\n", ""]), "a\n");
    }

    #[test]
    fn exit_codes_outside_the_table_are_other() {
        let t = [(0, ExitMeaning::Passed), (1, ExitMeaning::Failed)];
        assert_eq!(meaning(&t, 1), ExitMeaning::Failed);
        assert_eq!(meaning(&t, 7), ExitMeaning::Other);
    }

    #[test]
    fn endings_name_the_signal() {
        assert_eq!(Ending::of(End::Cancelled), Ending::Stopped);
        assert_eq!(
            Ending::of(End::Signaled(9)),
            Ending::Killed("SIGKILL".into())
        );
        assert_eq!(Ending::of(End::Exited(3)), Ending::Exited(3));
    }

    #[test]
    fn running_tests_fail_once() {
        let mut run = Run::new("x");
        let running = vec!["a".to_owned(), "a".to_owned(), "b".to_owned()];
        let how = Stopped {
            message: "died",
            kind: Some("SIGKILL"),
            frames: &[],
        };
        fail_running(&mut run, &running, &how);
        assert_eq!(run.failed, 2);
        assert_eq!(run.failures[1].kind.as_deref(), Some("SIGKILL"));
    }
}
