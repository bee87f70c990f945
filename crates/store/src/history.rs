//! Run history: every run's summary and per-test results (outcome, duration, message, frames),
//! what the history says about a failure (flaky, new, failing for N runs), recovered tests,
//! and bounded retention.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pith_model::{
    Failure, FailureDetails, Outcome, Phase, Report, Run, RunSummary, RunnerInfo, Status,
};
use rusqlite::{params, Connection, OptionalExtension};

use crate::{db, frames, Store, StoreError};

/// How many earlier results of a test are looked at for flakiness and streaks.
const LOOKBACK: i64 = 20;

// The statements a run's record and prune prepare, named so the store can prepare them while
// the runner runs (see [`WARM`]).
const HAD_FULL_RUN: &str = "SELECT EXISTS (SELECT 1 FROM runs WHERE requested = 0)";
const INSERT_RUN: &str =
    "INSERT INTO runs (generation, selection, requested, status, runner, passed, failed,
         skipped, errors, recovered, duration_ms, started, env)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 0, ?10, ?11, ?12)";
const INSERT_RESULT: &str =
    "INSERT OR IGNORE INTO results (run_id, test_id, phase, outcome, seq, duration_ms,
         message, kind, frames, flaky, new, failing_for, detail)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";
const UNFAIL: &str = "DELETE FROM failing WHERE test_id = ?1";
const RUNNER_ROW: &str = "INSERT OR REPLACE INTO runners (name, run_id, status, lacks, interpreter)
     VALUES (?1, ?2, ?3, ?4, ?5)";
const FAILING: &str = "INSERT OR IGNORE INTO failing (test_id) VALUES (?1)";
const RECOVERED: &str = "UPDATE runs SET recovered = ?2 WHERE id = ?1";
const TEST_ID: &str = "SELECT id FROM tests WHERE name = ?1";
const NEW_TEST: &str = "INSERT INTO tests (name) VALUES (?1)";
const PAST: &str = "SELECT runs.generation, runs.env, max(r.outcome = 1), max(r.outcome = 0)
     FROM results r JOIN runs ON runs.id = r.run_id
     WHERE r.test_id = ?1 AND r.run_id < ?2
     GROUP BY r.run_id ORDER BY r.run_id DESC LIMIT ?3";
const NTH_NEWEST_RUN: &str = "SELECT id FROM runs ORDER BY id DESC LIMIT 1 OFFSET ?1";
const BYTES_USED: &str = "SELECT (page_count - freelist_count) * page_size
         - (SELECT coalesce(sum(size), 0) FROM blobs)
     FROM pragma_page_count(), pragma_freelist_count(), pragma_page_size()";

/// Every statement a recorded and pruned run prepares (besides those of change memory's and
/// gain's prunes, and of what only a pruning that drops runs runs).
pub(crate) const WARM: &[&str] = &[
    HAD_FULL_RUN,
    INSERT_RUN,
    INSERT_RESULT,
    UNFAIL,
    RUNNER_ROW,
    FAILING,
    RECOVERED,
    TEST_ID,
    NEW_TEST,
    PAST,
    NTH_NEWEST_RUN,
    BYTES_USED,
];

/// Bounds on the history; the oldest runs go first, the latest run always stays. A bound of
/// `runs` keeps up to an eighth more between prunings (200: 200 to 225 runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    pub runs: u32,
    /// Bytes of the database in use (free pages and change memory's kept contents, which
    /// have their own bound, not counted).
    pub bytes: u64,
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            runs: 200,
            bytes: 64 << 20,
        }
    }
}

impl Retention {
    /// The defaults, overridden by `PITH_HISTORY_RUNS` and `PITH_HISTORY_BYTES` when they are
    /// positive numbers.
    pub fn from_env() -> Retention {
        let var = |name: &str| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .filter(|&n| n > 0)
        };
        let d = Retention::default();
        Retention {
            runs: var("PITH_HISTORY_RUNS").map_or(d.runs, |n| n.min(u64::from(u32::MAX)) as u32),
            bytes: var("PITH_HISTORY_BYTES").unwrap_or(d.bytes),
        }
    }
}

/// What recording a run added to it from the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Annotated {
    /// Tests that passed after failing in their previous run.
    pub recovered: u32,
}

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

fn phase_code(p: Phase) -> i64 {
    match p {
        Phase::Collect => 0,
        Phase::Setup => 1,
        Phase::Call => 2,
        Phase::Teardown => 3,
    }
}

fn phase_of(code: i64) -> Phase {
    match code {
        0 => Phase::Collect,
        1 => Phase::Setup,
        3 => Phase::Teardown,
        _ => Phase::Call,
    }
}

const PASSED: i64 = 0;
const FAILED: i64 = 1;
const SKIPPED: i64 = 2;

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

impl Store {
    /// Records a finished run of the content at `generation`, in this process's environment:
    /// its summary and every test's result. Annotates the report's failures from the runs
    /// before (`flaky` when the test's outcome changed between runs of the same inputs — the
    /// same generation in the same environment —, else `failing_for` when it also failed in
    /// its previous run, else `new`) and sets `recovered`. One transaction: a run is recorded
    /// whole or not at all.
    pub fn record(
        &mut self,
        generation: u64,
        selection: &str,
        requested: u32,
        report: &mut Report,
    ) -> Result<Annotated, StoreError> {
        self.record_then(generation, selection, requested, report, None)
    }

    /// The latest recorded run.
    pub fn last_run(&self) -> Result<Option<RunSummary>, StoreError> {
        Ok(last_run(&self.conn, None)?.map(|(_, s)| s))
    }

    /// The latest recorded run of exactly this selection in this process's environment (the
    /// same variables, [`VOLATILE`](crate::environment) ones aside): the one whose verdict a
    /// replay may repeat.
    pub fn last_run_of(&self, selection: &str) -> Result<Option<RunSummary>, StoreError> {
        Ok(last_run(&self.conn, Some((selection, self.env.identity)))?.map(|(_, s)| s))
    }

    /// What the latest run of runner `name` said about how it resolved.
    pub fn runner_info(&self, name: &str) -> Result<RunnerInfo, StoreError> {
        let row: Option<(String, Option<String>, Option<String>)> = self
            .conn
            .prepare_cached(
                "SELECT status, lacks, interpreter FROM runners WHERE name = ?1
                 ORDER BY run_id DESC LIMIT 1",
            )?
            .query_row([name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .optional()?;
        let mut info = RunnerInfo {
            name: name.to_owned(),
            ..RunnerInfo::default()
        };
        if let Some((status, lacks, interpreter)) = row {
            info.missing = status == Status::RunnerMissing.name();
            info.lacks = lacks;
            info.interpreter = interpreter;
        }
        Ok(info)
    }

    /// The latest run's failures in full (in the order the run reported them), or just those
    /// of the named tests; named tests that did not fail are sorted into `not_failing` (they
    /// ran) and `not_found` (they did not).
    pub fn failures(&self, tests: &[String]) -> Result<FailureDetails, StoreError> {
        let Some((run_id, summary)) = last_run(&self.conn, None)? else {
            return Ok(FailureDetails {
                not_found: tests.to_vec(),
                ..FailureDetails::default()
            });
        };
        let mut stmt = self.conn.prepare_cached(
            "SELECT t.name, r.phase, r.message, r.kind, r.frames, r.flaky, r.new, r.failing_for,
                 r.detail
             FROM results r JOIN tests t ON t.id = r.test_id
             WHERE r.run_id = ?1 AND r.outcome = 1 ORDER BY r.seq",
        )?;
        let all = stmt
            .query_map([run_id], |r| {
                Ok(Failure {
                    test: r.get(0)?,
                    phase: phase_of(r.get(1)?),
                    message: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                    kind: r.get(3)?,
                    frames: r
                        .get::<_, Option<String>>(4)?
                        .map(|t| frames::decode(&t))
                        .unwrap_or_default(),
                    flaky: r.get(5)?,
                    new: r.get(6)?,
                    failing_for: r.get::<_, i64>(7)?.clamp(0, i64::from(u32::MAX)) as u32,
                    detail: r.get(8)?,
                    suspect: None,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let mut details = FailureDetails {
            run: Some(summary),
            ..FailureDetails::default()
        };
        if tests.is_empty() {
            details.failures = all;
            return Ok(details);
        }
        let mut ran = self.conn.prepare_cached(
            "SELECT 1 FROM results r JOIN tests t ON t.id = r.test_id
             WHERE r.run_id = ?1 AND t.name = ?2 LIMIT 1",
        )?;
        let mut seen = HashSet::new();
        for name in tests {
            if !seen.insert(name.as_str()) {
                continue;
            }
            let mine: Vec<&Failure> = all.iter().filter(|f| &f.test == name).collect();
            if !mine.is_empty() {
                details.failures.extend(mine.into_iter().cloned());
            } else if ran.exists(params![run_id, name])? {
                details.not_failing.push(name.clone());
            } else {
                details.not_found.push(name.clone());
            }
        }
        Ok(details)
    }

    /// Drops the oldest runs beyond `retention` and gives the space back. Never waits: when
    /// another process is writing, it does nothing and says `false`; the next run prunes.
    pub fn prune(&mut self, retention: Retention) -> Result<bool, StoreError> {
        self.conn.busy_timeout(Duration::ZERO)?;
        let result = match self.conn.execute_batch("BEGIN IMMEDIATE") {
            Ok(()) => {
                let pruned = prune(&self.conn, retention);
                let end = if pruned.is_ok() { "COMMIT" } else { "ROLLBACK" };
                match (pruned, self.conn.execute_batch(end)) {
                    (Ok(p), Ok(())) => Ok(p),
                    (Err(e), _) => Err(e),
                    (Ok(_), Err(e)) => {
                        let _ = self.conn.execute_batch("ROLLBACK");
                        Err(e.into())
                    }
                }
            }
            Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy) => Ok(false),
            Err(e) => Err(e.into()),
        };
        if matches!(result, Ok(true)) {
            self.give_back();
        }
        self.conn.busy_timeout(db::BUSY_TIMEOUT)?;
        result
    }

    /// [`Store::record`], then [`Store::prune`], in one transaction: one commit between the
    /// runner's exit and the answer, not two.
    pub fn record_pruned(
        &mut self,
        generation: u64,
        selection: &str,
        requested: u32,
        report: &mut Report,
        retention: Retention,
    ) -> Result<Annotated, StoreError> {
        self.record_then(generation, selection, requested, report, Some(retention))
    }

    /// Records the run and, given a retention, prunes to it in the same transaction. A prune
    /// that fails is undone alone (a savepoint) and costs the run nothing: the next one prunes.
    fn record_then(
        &mut self,
        generation: u64,
        selection: &str,
        requested: u32,
        report: &mut Report,
        retention: Option<Retention>,
    ) -> Result<Annotated, StoreError> {
        let run = NewRun {
            generation: generation as i64,
            env: self.env.identity,
            selection,
            requested,
            status: report.status(),
        };
        let (annotated, pruned) = db::write(&self.conn, |c| {
            let annotated = record(c, &run, report)?;
            let pruned = match retention {
                Some(retention) => pruned_apart(c, retention)?,
                None => false,
            };
            Ok((annotated, pruned))
        })?;
        report.recovered = annotated.recovered;
        if pruned {
            self.give_back();
        }
        Ok(annotated)
    }

    /// After runs were dropped: their freed pages back to the file system. Skipped when busy.
    fn give_back(&self) {
        let _ = self.conn.execute_batch("PRAGMA incremental_vacuum");
        let _ = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    }

    /// How many runs the history holds.
    pub fn run_count(&self) -> Result<u64, StoreError> {
        let n: i64 = self
            .conn
            .query_row("SELECT count(*) FROM runs", [], |r| r.get(0))?;
        Ok(n.max(0) as u64)
    }
}

/// What a run's row says besides its totals: the content and environment it ran on, what
/// was asked and the verdict.
struct NewRun<'a> {
    generation: i64,
    env: i64,
    selection: &'a str,
    requested: u32,
    status: Status,
}

/// The run's row, its per-project runner rows and its per-test results; the failing list
/// follows the results.
fn record(c: &Connection, run: &NewRun, report: &mut Report) -> Result<Annotated, StoreError> {
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

type RunRow = (i64, RunSummary);

/// The latest run, or the latest of a selection in an environment.
fn last_run(c: &Connection, selection: Option<(&str, i64)>) -> Result<Option<RunRow>, StoreError> {
    const COLUMNS: &str = "id, generation, status, runner, passed, failed, skipped, errors,
        recovered, duration_ms, requested";
    let map = |r: &rusqlite::Row<'_>| -> rusqlite::Result<RunRow> {
        let count = |i: usize| -> rusqlite::Result<u32> {
            Ok(r.get::<_, i64>(i)?.clamp(0, i64::from(u32::MAX)) as u32)
        };
        let status: String = r.get(2)?;
        Ok((
            r.get(0)?,
            RunSummary {
                generation: r.get::<_, i64>(1)?.max(0) as u64,
                status: Status::from_name(&status).unwrap_or(Status::Crashed),
                runner: r.get(3)?,
                passed: count(4)?,
                failed: count(5)?,
                skipped: count(6)?,
                errors: count(7)?,
                recovered: count(8)?,
                duration: Duration::from_millis(r.get::<_, i64>(9)?.max(0) as u64),
                requested: count(10)?,
            },
        ))
    };
    let row = match selection {
        None => c
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM runs ORDER BY id DESC LIMIT 1"
            ))?
            .query_row([], map)
            .optional()?,
        Some((sel, env)) => c
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM runs WHERE selection = ?1 AND env = ?2
                 ORDER BY id DESC LIMIT 1"
            ))?
            .query_row(params![sel, env], map)
            .optional()?,
    };
    Ok(row)
}

/// [`prune`] inside a savepoint of the caller's transaction: when it fails, what it deleted
/// is put back and nothing is said pruned.
fn pruned_apart(c: &Connection, retention: Retention) -> Result<bool, StoreError> {
    c.execute_batch("SAVEPOINT prune")?;
    let pruned = prune(c, retention);
    if pruned.is_err() {
        c.execute_batch("ROLLBACK TO prune")?;
    }
    c.execute_batch("RELEASE prune")?;
    Ok(pruned.unwrap_or(false))
}

/// Deletes runs beyond the bounds, oldest first, inside the caller's write transaction.
fn prune(c: &Connection, retention: Retention) -> Result<bool, StoreError> {
    let mut pruned = false;
    let keep = i64::from(retention.runs.max(1));
    // Past the bound by an eighth before the oldest go, back down to the bound: a history at
    // its bound would otherwise drop one run, sweep and checkpoint (an fsync) on every run.
    let over: Option<i64> = c
        .prepare_cached(NTH_NEWEST_RUN)?
        .query_row([keep + keep / 8], |r| r.get(0))
        .optional()?;
    if over.is_some() {
        let cutoff: i64 = c
            .prepare_cached(NTH_NEWEST_RUN)?
            .query_row([keep - 1], |r| r.get(0))?;
        pruned |= delete_runs_before(c, cutoff)?;
    }
    loop {
        // Change memory's contents have their own bound (see `memory`).
        let used: i64 = c.prepare_cached(BYTES_USED)?.query_row([], |r| r.get(0))?;
        if used.max(0) as u64 <= retention.bytes {
            break;
        }
        let runs: i64 = c.query_row("SELECT count(*) FROM runs", [], |r| r.get(0))?;
        if runs <= 1 {
            break;
        }
        // Drop the oldest quarter (at least one run), keeping the latest.
        let drop = (runs / 4).max(1).min(runs - 1);
        let cutoff: i64 = c.query_row(
            "SELECT id FROM runs ORDER BY id ASC LIMIT 1 OFFSET ?1",
            [drop],
            |r| r.get(0),
        )?;
        if !delete_runs_before(c, cutoff)? {
            break;
        }
        pruned = true;
    }
    // Change memory is pruned on every call (its generations stop being needed as tests pass
    // again, not only when runs are dropped) without counting as pruned: the sweep and the
    // checkpoint below cost far more than the few pages it frees, which its next contents
    // reuse.
    crate::memory::prune(c)?;
    // Gain's rows are few bytes each, kept past the runs they came from: the whole history.
    crate::gains::prune(c)?;
    if pruned {
        c.execute_batch(
            "DELETE FROM tests WHERE id NOT IN (SELECT test_id FROM results)
                 AND id NOT IN (SELECT test_id FROM failing);
             DELETE FROM files WHERE deleted = 1
                 AND gen <= (SELECT coalesce(min(generation), 0) FROM runs);
             DELETE FROM inputs WHERE deleted = 1
                 AND gen <= (SELECT coalesce(min(generation), 0) FROM runs);",
        )?;
    }
    Ok(pruned)
}

fn delete_runs_before(c: &Connection, cutoff: i64) -> Result<bool, StoreError> {
    c.execute("DELETE FROM results WHERE run_id < ?1", [cutoff])?;
    c.execute("DELETE FROM runners WHERE run_id < ?1", [cutoff])?;
    Ok(c.execute("DELETE FROM runs WHERE id < ?1", [cutoff])? > 0)
}
