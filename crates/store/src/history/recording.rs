//! Writing a run into the history: its row, its runner rows and every test's result, each
//! failure annotated on the way from the test's earlier runs (flaky, new, failing for N runs)
//! and passes taken off the failing list, all inside the caller's one transaction.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pith_model::{Failure, Outcome, Phase, Report, Run};
use rusqlite::{params, Connection, OptionalExtension};

use super::{
    phase_code, Annotated, NewRun, FAILING, HAD_FULL_RUN, INSERT_RESULT, INSERT_RUN, NEW_TEST,
    PAST, RECOVERED, RUNNER_ROW, TEST_ID, UNFAIL,
};
use crate::{frames, StoreError};

/// How many earlier results of a test are looked at for flakiness and streaks.
const LOOKBACK: i64 = 20;

/// One earlier run of one test.
struct Past {
    generation: i64,
    /// The identity of the process environment it ran in.
    env: i64,
    failed: bool,
    passed: bool,
}

impl Past {
    /// Whether it ran on the same inputs: the same generation in the same environment.
    fn same_inputs(&self, generation: i64, env: i64) -> bool {
        self.generation == generation && self.env == env
    }
}

const PASSED: i64 = 0;
const FAILED: i64 = 1;
const SKIPPED: i64 = 2;

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// The run's row, its per-project runner rows and its per-test results; the failing list
/// follows the results.
pub(super) fn record(
    c: &Connection,
    run: &NewRun,
    report: &mut Report,
) -> Result<Annotated, StoreError> {
    let had_full_run: bool = c
        .prepare_cached(HAD_FULL_RUN)?
        .query_row([], |r| r.get(0))?;
    let run_id = insert_run(c, run, report)?;
    let mut results = Results {
        c,
        generation: run.generation,
        env: run.env,
        had_full_run,
        run_id,
        insert: c.prepare_cached(INSERT_RESULT)?,
        unfail: c.prepare_cached(UNFAIL)?,
        recovered: 0,
        seq: 0,
        failed_ids: HashSet::new(),
    };
    let mut runner_row = c.prepare_cached(RUNNER_ROW)?;
    for project in &mut report.runs {
        runner_row.execute(params![
            project.runner,
            run_id,
            project.status().name(),
            project.lacks,
            project.interpreter
        ])?;
        results.failures(project)?;
        results.outcomes(project)?;
    }
    let Results {
        recovered,
        failed_ids,
        ..
    } = results;
    let mut failing = c.prepare_cached(FAILING)?;
    for tid in failed_ids {
        failing.execute([tid])?;
    }
    c.prepare_cached(RECOVERED)?
        .execute(params![run_id, recovered])?;
    let loads: Vec<_> = report.runs.iter().flat_map(|r| &r.loads).collect();
    crate::loads::record(c, &loads)?;
    Ok(Annotated { recovered })
}

/// The run's row (its `recovered` is set once the results are in); returns its id.
fn insert_run(c: &Connection, run: &NewRun, report: &Report) -> Result<i64, StoreError> {
    let mut sums = (0i64, 0i64, 0i64, 0i64);
    for r in &report.runs {
        sums.0 += i64::from(r.passed);
        sums.1 += i64::from(r.failed);
        sums.2 += i64::from(r.skipped);
        sums.3 += r.collection_errors() as i64;
    }
    let runner = report
        .runs
        .iter()
        .map(|r| r.runner.as_str())
        .collect::<Vec<_>>()
        .join(",");
    let started = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    c.prepare_cached(INSERT_RUN)?.execute(params![
        run.generation,
        run.selection,
        run.requested,
        run.status.name(),
        runner,
        sums.0,
        sums.1,
        sums.2,
        sums.3,
        millis(report.duration),
        started,
        run.env
    ])?;
    Ok(c.last_insert_rowid())
}

/// One run's per-test results being written, and what they add up to.
struct Results<'c> {
    c: &'c Connection,
    generation: i64,
    env: i64,
    had_full_run: bool,
    run_id: i64,
    insert: rusqlite::CachedStatement<'c>,
    unfail: rusqlite::CachedStatement<'c>,
    /// Tests that passed after failing in their previous run.
    recovered: u32,
    /// The failures' order in the run, across projects.
    seq: i64,
    failed_ids: HashSet<i64>,
}

impl Results<'_> {
    /// A project's failures, annotated from their history and written in the order reported.
    fn failures(&mut self, run: &mut Run) -> Result<(), StoreError> {
        let c = self.c;
        let failed_durations: HashMap<&str, Duration> = run
            .outcomes
            .iter()
            .filter(|o| o.outcome == Outcome::Failed)
            .filter_map(|o| o.duration.map(|d| (o.test.as_str(), d)))
            .collect();
        for f in &mut run.failures {
            let tid = test_id(c, &f.test)?;
            let past = history(c, tid, self.run_id)?;
            annotate(f, &past, self.generation, self.env, self.had_full_run);
            self.insert.execute(params![
                self.run_id,
                tid,
                phase_code(f.phase),
                FAILED,
                self.seq,
                failed_durations.get(f.test.as_str()).map(|d| millis(*d)),
                f.message,
                f.kind,
                frames::encode(&f.frames),
                f.flaky,
                f.new,
                f.failing_for,
                f.detail
            ])?;
            self.seq += 1;
            self.failed_ids.insert(tid);
        }
        Ok(())
    }

    /// A project's passed and skipped tests; a pass takes the test off the failing list. A
    /// test that passed on the runner's own retry passed: it is recorded as a pass, marked
    /// flaky, with its failed attempt's message, frames and detail.
    fn outcomes(&mut self, run: &Run) -> Result<(), StoreError> {
        let retried = run.flaky.iter().map(|f| (&f.test, PASSED, None, Some(f)));
        let others = run.outcomes.iter().filter_map(|o| {
            let outcome = match o.outcome {
                Outcome::Failed => return None,
                Outcome::Passed => PASSED,
                Outcome::Skipped => SKIPPED,
            };
            Some((&o.test, outcome, o.duration.map(millis), None))
        });
        for (test, outcome, duration, attempt) in retried.chain(others) {
            let tid = test_id(self.c, test)?;
            if self.failed_ids.contains(&tid) {
                // Failed in one phase and passed in another: the failure stands.
                continue;
            }
            self.insert.execute(params![
                self.run_id,
                tid,
                phase_code(Phase::Call),
                outcome,
                0,
                duration,
                attempt.map(|f| &f.message),
                attempt.and_then(|f| f.kind.as_ref()),
                attempt.map(|f| frames::encode(&f.frames)),
                attempt.is_some(),
                false,
                0,
                attempt.and_then(|f| f.detail.as_ref())
            ])?;
            if outcome == PASSED && self.unfail.execute([tid])? > 0 {
                self.recovered += 1;
            }
        }
        Ok(())
    }
}

/// The id of a test by name, added when new.
fn test_id(c: &Connection, name: &str) -> Result<i64, StoreError> {
    if let Some(id) = c
        .prepare_cached(TEST_ID)?
        .query_row([name], |r| r.get(0))
        .optional()?
    {
        return Ok(id);
    }
    c.prepare_cached(NEW_TEST)?.execute([name])?;
    Ok(c.last_insert_rowid())
}

/// The test's results in the runs before `run_id`, most recent first, one entry per run.
fn history(c: &Connection, tid: i64, run_id: i64) -> Result<Vec<Past>, StoreError> {
    let mut stmt = c.prepare_cached(PAST)?;
    let past = stmt
        .query_map(params![tid, run_id, LOOKBACK], |r| {
            Ok(Past {
                generation: r.get(0)?,
                env: r.get(1)?,
                failed: r.get(2)?,
                passed: r.get(3)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(past)
}

/// What the history says of a failure, at most one thing: flaky (its outcome changed
/// between runs of the same inputs — generation and environment —, or the runner saw it pass
/// on a retry), else how many consecutive runs it has failed in, else new (it did not fail in
/// its previous run, or did not exist in an earlier full run). A failure that follows a pass
/// on other inputs (an edited file, an ignored data file, a toolchain update, another
/// variable) is what the change did, not flakiness.
fn annotate(f: &mut Failure, past: &[Past], generation: i64, env: i64, had_full_run: bool) {
    let passed_here = past
        .iter()
        .any(|p| p.same_inputs(generation, env) && p.passed && !p.failed);
    let flipped = past.iter().any(|p| {
        p.failed
            && past
                .iter()
                .any(|q| q.same_inputs(p.generation, p.env) && q.passed && !q.failed)
    });
    f.flaky = f.flaky || passed_here || flipped;
    f.new = false;
    f.failing_for = 0;
    if f.flaky {
        return;
    }
    let streak = 1 + past.iter().take_while(|p| p.failed).count();
    if streak > 1 {
        f.failing_for = u32::try_from(streak).unwrap_or(u32::MAX);
    } else if !past.is_empty() || had_full_run {
        f.new = true;
    }
}
