//! Tests that started and never ended, and why: go's own timeout (each test it names, with
//! its goroutine's frames), a panic (charged to the test it belongs to, even one a finished
//! test's goroutine raised), a fatal error or a signal, or an end nothing in the output
//! explains (pith's deadline, a kill from outside, a report cut short, an `os.Exit`). Apart
//! from the package's walk because the evidence is what the dying binary printed, read across
//! every test still running, not one test's own end.

use pith_model::{Failure, Outcome as ModelOutcome, Run, Status};

use super::super::events::{Outcome, Package, Test};
use super::super::lines::compact;
use super::super::output::{self, Crash, CrashKind, Goroutine};
use super::{outcome, Judge, State};
use crate::process::End;

impl Judge<'_> {
    /// Tests that started and never ended: the binary panicked, timed out, died, or the stream
    /// was cut (pith killed go, or a saved report is incomplete).
    pub(super) fn cut_short(
        &self,
        pkg: &Package,
        running: &[&Test],
        run: &mut Run,
        st: &mut State,
    ) {
        let pkg_lines = pkg.output.all();
        // The explanation is in the output of the test go attributed it to, or the package's.
        let found = running
            .iter()
            .rev()
            .find_map(|t| output::crash(&t.output.all()).map(|c| (Some(*t), c)))
            .or_else(|| output::crash(&pkg_lines).map(|c| (None, c)));
        let mut evidence: Vec<String> = Vec::new();
        for t in running {
            let lines: Vec<String> = t.output.all().iter().map(|l| l.to_string()).collect();
            evidence.extend(compact(&lines));
        }
        let lines: Vec<String> = pkg_lines.iter().map(|l| l.to_string()).collect();
        evidence.extend(compact(&lines));
        let Some((holder, crash)) = found else {
            self.unexplained_end(pkg, running, &evidence, run, st);
            return;
        };
        match crash.kind {
            CrashKind::Timeout => {
                st.raise(if self.projects_timeout {
                    Status::TestsFailed
                } else {
                    Status::TimedOut
                });
                self.timed_out(pkg, running, &crash, run);
                st.tail.extend(evidence.iter().cloned());
            }
            CrashKind::Panic => self.panicked(pkg, running, holder, &crash, run),
            CrashKind::Fatal | CrashKind::Signal(_) => {
                st.raise(Status::Crashed);
                for t in running {
                    let id = self.id(&pkg.name, &t.name);
                    let mut f = self.crash_failure(&pkg.name, id.clone(), &crash);
                    if holder.is_some_and(|h| h.name != t.name) {
                        f.frames.clear();
                    }
                    run.failed += 1;
                    run.failures.push(f);
                    if !run.running.contains(&id) {
                        run.running.push(id);
                    }
                }
                st.tail.extend(evidence.iter().cloned());
            }
        }
    }

    /// A panic fails the test it happened in (go says so too); the binary is gone, so the
    /// tests after it never ran.
    fn panicked(
        &self,
        pkg: &Package,
        running: &[&Test],
        holder: Option<&Test>,
        crash: &Crash,
        run: &mut Run,
    ) {
        let t = holder.unwrap_or(running[running.len() - 1]);
        let lines = t.output.all();
        // A goroutine a finished test left behind panicked (`Fail in goroutine after
        // TestA has completed`): test2json hands the panic to whichever test was
        // running, but go's own words name the test it belongs to. That one fails;
        // those running never ended.
        let owner = leftover_of(&crash.message)
            .and_then(|n| pkg.get(n))
            .filter(|o| o.name != t.name && o.outcome.is_some());
        let charged = owner.unwrap_or(t);
        let id = self.id(&pkg.name, &charged.name);
        let mut f = self.failure(&pkg.name, id.clone(), &lines, None);
        if f.kind.as_deref() != Some("panic") {
            f = self.crash_failure(&pkg.name, f.test, crash);
        }
        if let Some(o) = owner {
            if o.outcome == Some(Outcome::Pass) && run.passed > 0 {
                // Counted passed above: it did not.
                run.passed -= 1;
                run.outcomes.retain(|x| x.test != id);
                run.outcomes
                    .push(outcome(id.clone(), ModelOutcome::Failed, None));
            }
            for r in running {
                let rid = self.id(&pkg.name, &r.name);
                if !run.running.contains(&rid) {
                    run.running.push(rid);
                }
            }
        }
        if already_failed(run, &id) {
            return;
        }
        run.failed += 1;
        run.failures.push(f);
    }

    /// Tests that never ended with nothing in their output to say why: pith's deadline, a kill
    /// from outside, a report that stops mid-run, or a binary that exited mid-test.
    fn unexplained_end(
        &self,
        pkg: &Package,
        running: &[&Test],
        evidence: &[String],
        run: &mut Run,
        st: &mut State,
    ) {
        let ids: Vec<String> = running
            .iter()
            .map(|t| self.id(&pkg.name, &t.name))
            .collect();
        match (self.end, pkg.outcome) {
            (Some(End::TimedOut | End::Cancelled), _) => st.raise(Status::TimedOut),
            (_, None) => {
                // Killed with go (a signal pith did not send) or a report that stops
                // mid-run: these tests never ended.
                st.raise(Status::Crashed);
            }
            (_, Some(_)) => {
                // The binary ended while the test ran, without a panic: `os.Exit`.
                st.raise(Status::Crashed);
                for id in &ids {
                    run.failed += 1;
                    run.failures.push(Failure {
                        test: id.clone(),
                        message: "the test binary exited before the test finished".into(),
                        kind: Some("exit".into()),
                        ..Failure::default()
                    });
                }
                st.tail.extend(evidence.iter().cloned());
            }
        }
        for id in ids {
            // Stopped by pith's deadline: it was still running. By the project's own limit: it
            // failed, and that is all.
            if !self.projects_timeout && !run.running.contains(&id) {
                run.running.push(id);
            }
        }
    }

    /// go's own timeout panic: each test it names as running (the innermost), else each test
    /// still running, failed with the panic's message and its goroutine's frames.
    fn timed_out(&self, pkg: &Package, running: &[&Test], crash: &Crash, run: &mut Run) {
        let mut names: Vec<String> = crash
            .running
            .iter()
            .filter(|n| !crash.running.iter().any(|o| is_under(o, n)))
            .cloned()
            .collect();
        if names.is_empty() {
            names = running.iter().map(|t| t.name.clone()).collect();
        }
        for name in &names {
            let id = self.id(&pkg.name, name);
            let frames = test_goroutine(&crash.goroutines, name, names.len() == 1)
                .map(|g| self.frames(&pkg.name, g))
                .unwrap_or_default();
            run.failed += 1;
            run.failures.push(Failure {
                test: id.clone(),
                message: crash.message.clone(),
                kind: Some("timeout".into()),
                frames,
                ..Failure::default()
            });
            // Stopped by pith's deadline: it was still running. By the project's own limit: it
            // failed, and that is all.
            if !self.projects_timeout && !run.running.contains(&id) {
                run.running.push(id);
            }
        }
    }
}

/// The test a leftover goroutine belonged to, as the testing package's panic names it:
/// `panic: Fail in goroutine after TestA has completed`, `Log in goroutine after TestA/sub has
/// completed: ...`, `Output called after ...`, `Write called after ...`.
fn leftover_of(message: &str) -> Option<&str> {
    let m = message.strip_prefix("panic: ")?;
    let rest = [
        "Fail in goroutine after ",
        "Log in goroutine after ",
        "Output called after ",
        "Write called after ",
    ]
    .iter()
    .find_map(|p| m.strip_prefix(p))?;
    let (name, _) = rest.split_once(" has completed")?;
    (!name.is_empty() && !name.contains(' ')).then_some(name)
}

/// Whether `id` already failed in the tests judged (its own failure came first).
fn already_failed(run: &Run, id: &str) -> bool {
    run.failures.iter().any(|f| f.test == id)
}

/// `a/b` is under `a`.
fn is_under(child: &str, parent: &str) -> bool {
    child
        .strip_prefix(parent)
        .is_some_and(|s| s.starts_with('/'))
}

/// The goroutine running test `name` in a timeout's dump: one whose frames belong to its
/// top-level test and which is not a parent waiting in `t.Run`. With `alone`, any goroutine of
/// the project's will do.
fn test_goroutine<'g>(gs: &'g [Goroutine], name: &str, alone: bool) -> Option<&'g Goroutine> {
    let top = name.split('/').next().unwrap_or(name);
    let busy = |g: &&Goroutine| {
        g.frames
            .first()
            .is_some_and(|f| !f.func.starts_with("testing."))
    };
    let mine = |g: &&Goroutine| {
        g.frames
            .iter()
            .any(|f| output::test_of_func(&f.func) == Some(top))
    };
    gs.iter()
        .filter(mine)
        .find(busy)
        .or_else(|| if alone { gs.iter().find(mine) } else { None })
}
