//! One package that built, judged: its leaf tests counted (a parent that failed only
//! because a subtest did is no failure of its own), each failure described, and a package
//! that failed with no test failing told as such. Tests that never ended go to
//! [`Judge::cut_short`]; siblings a level-wise `-run` pattern also ran explain go's exit
//! without being the answer's. Per package, as go runs one test binary per package and each
//! ends on its own.

use std::collections::HashSet;
use std::time::Duration;

use pith_model::{Failure, Outcome as ModelOutcome, Phase, Run, Status};

use super::super::events::{Outcome, Package, Test};
use super::super::lines::{compact, meaningful};
use super::super::output::{self, CrashKind};
use super::{outcome, unended, Judge, State};
use crate::text;

impl Judge<'_> {
    /// One package that built: its tests counted, its failures described.
    pub(super) fn package(&self, pkg: &Package, run: &mut Run, st: &mut State) {
        let keeps = |name: &str| self.selection.is_none_or(|s| s.keeps(&pkg.name, name));
        let failed_before = run.failures.len();
        let Ancestors {
            parents,
            troubled,
            busy,
        } = Ancestors::of(&pkg.tests);
        let running: Vec<&Test> = pkg
            .tests
            .iter()
            .filter(|t| unended(t) && keeps(&t.name) && !busy.contains(t.name.as_str()))
            .collect();
        let pkg_lines = pkg.output.all();
        // Go before 1.20-ish printed a test's panic after its `--- FAIL` line, outside it.
        let mut loose_crash = output::crash(&pkg_lines).filter(|_| running.is_empty());
        let last_failed = pkg
            .tests
            .iter()
            .rposition(|t| t.outcome == Some(Outcome::Fail) && !parents.contains(t.name.as_str()));
        for (i, t) in pkg.tests.iter().enumerate() {
            if !keeps(&t.name) {
                sibling(pkg, t, st);
                continue;
            }
            let children = parents.contains(t.name.as_str());
            let id = self.id(&pkg.name, &t.name);
            let duration = t.elapsed.and_then(|e| Duration::try_from_secs_f64(e).ok());
            match t.outcome {
                Some(Outcome::Pass) if !children => {
                    run.passed += 1;
                    run.outcomes
                        .push(outcome(id, ModelOutcome::Passed, duration));
                }
                Some(Outcome::Skip) if !children => {
                    run.skipped += 1;
                    run.outcomes
                        .push(outcome(id, ModelOutcome::Skipped, duration));
                }
                Some(Outcome::Fail) => {
                    let lines = t.output.all();
                    let own = lines
                        .iter()
                        .any(|l| !l.trim().is_empty() && !output::is_framing(l));
                    let child_failed = troubled.contains(t.name.as_str());
                    if children && child_failed && !own {
                        // Failed because a subtest did: the subtest is the failure.
                        continue;
                    }
                    let fallback = if !own && Some(i) == last_failed {
                        loose_crash.take()
                    } else {
                        None
                    };
                    let f = self.failure(&pkg.name, id.clone(), &lines, fallback);
                    if f.kind.as_deref() == Some("panic") {
                        st.cut_short.push(pkg.name.clone());
                    }
                    run.failed += 1;
                    run.outcomes
                        .push(outcome(id, ModelOutcome::Failed, duration));
                    run.failures.push(f);
                }
                _ => {}
            }
        }
        if !running.is_empty() {
            st.cut_short.push(pkg.name.clone());
            self.cut_short(pkg, &running, run, st);
        } else if pkg.outcome == Some(Outcome::Fail)
            && run.failures.len() == failed_before
            && !pkg.tests.iter().any(|t| t.outcome == Some(Outcome::Fail))
        {
            self.outside_tests(pkg, run, st, keeps);
        }
    }

    /// A package that failed with no test failing: `init` panicked, `TestMain` exited non-zero,
    /// or something after the tests failed the binary.
    fn outside_tests(
        &self,
        pkg: &Package,
        run: &mut Run,
        st: &mut State,
        keeps: impl Fn(&str) -> bool,
    ) {
        let lines = pkg.output.all();
        let ran = pkg.tests.iter().any(|t| keeps(&t.name));
        let crash = output::crash(&lines);
        let mut f = match &crash {
            Some(c) => self.crash_failure(&pkg.name, self.pkg_name(&pkg.name), c),
            None => Failure {
                test: self.pkg_name(&pkg.name),
                message: meaningful(&lines)
                    .map(|l| text::first_line(&self.paths.scrub(l)))
                    .unwrap_or_else(|| "the test binary failed outside any test".into()),
                ..Failure::default()
            },
        };
        if ran {
            f.phase = Phase::Teardown;
            run.failed += 1;
        } else {
            f.phase = Phase::Collect;
            st.cut_short.push(pkg.name.clone());
        }
        if crash
            .as_ref()
            .is_some_and(|c| matches!(c.kind, CrashKind::Fatal | CrashKind::Signal(_)))
        {
            st.raise(Status::Crashed);
        }
        run.failures.push(f);
        let owned: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        st.tail.extend(compact(&owned));
    }
}

/// The ancestors (`a` of `a/b`) in a package's tests.
struct Ancestors<'p> {
    /// Of every test.
    parents: HashSet<&'p str>,
    /// Of the tests that did not pass.
    troubled: HashSet<&'p str>,
    /// Of the tests still running.
    busy: HashSet<&'p str>,
}

impl<'p> Ancestors<'p> {
    /// All three in one pass, as a package may hold thousands of table-driven subtests.
    fn of(tests: &'p [Test]) -> Self {
        let mut a = Ancestors {
            parents: HashSet::new(),
            troubled: HashSet::new(),
            busy: HashSet::new(),
        };
        for t in tests {
            for (i, _) in t.name.match_indices('/') {
                let parent = &t.name[..i];
                a.parents.insert(parent);
                if !matches!(t.outcome, Some(Outcome::Pass | Outcome::Skip)) {
                    a.troubled.insert(parent);
                }
                if unended(t) {
                    a.busy.insert(parent);
                }
            }
        }
        a
    }
}

/// A sibling the level-wise `-run` pattern also selected: its failure is not the answer's, but
/// it explains go's exit, and a panic or an exit in it stopped the binary before the requested
/// tests after it.
fn sibling(pkg: &Package, t: &Test, st: &mut State) {
    let died = unended(t) && pkg.outcome.is_some();
    if t.outcome == Some(Outcome::Fail) || died {
        st.unselected_failed = true;
        if died || output::crash(&t.output.all()).is_some() {
            st.stopped_by.push((pkg.name.clone(), t.name.clone()));
        }
    }
}
