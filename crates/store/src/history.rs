//! Run history: every run's summary and per-test results (outcome, duration, message, frames),
//! what the history says about a failure (flaky, new, failing for N runs), recovered tests,
//! and bounded retention.
//!
//! This file keeps the store's entry points, the types they share and what reads the history
//! back; writing a run is `recording`'s and bounding the history `pruning`'s.

mod pruning;
mod recording;

use std::collections::HashSet;
use std::time::Duration;

use pith_model::{Failure, FailureDetails, Phase, Report, RunSummary, RunnerInfo, Status};
use rusqlite::{params, Connection, OptionalExtension};

use crate::{db, frames, Store, StoreError};
use pruning::{prune, pruned_apart};
use recording::record;

// The statements a run's record and prune prepare, named so the store can prepare them while
// the runner runs (see [`WARM`]); they sit beside that list, though `recording` and `pruning`
// run them.
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
        Ok(last_run(&self.conn, Which::Any)?.map(|(_, s)| s))
    }

    /// The latest recorded run whose status was TestsPassed: the answer that stands while
    /// nothing has changed since it.
    pub fn last_green_run(&self) -> Result<Option<RunSummary>, StoreError> {
        Ok(last_run(&self.conn, Which::Green)?.map(|(_, s)| s))
    }

    /// How many tests are on the failing list: those whose latest recorded run failed them,
    /// whichever run that was (a later run that left them out keeps them there).
    pub fn failing_count(&self) -> Result<u64, StoreError> {
        let n: i64 = self
            .conn
            .prepare_cached("SELECT count(*) FROM failing")?
            .query_row([], |r| r.get(0))?;
        Ok(n.max(0) as u64)
    }

    /// The names on the failing list (see [`Store::failing_count`]), sorted, at most `limit`.
    pub fn failing_tests(&self, limit: usize) -> Result<Vec<String>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT t.name FROM failing f JOIN tests t ON t.id = f.test_id ORDER BY t.name
             LIMIT ?1",
        )?;
        let names = stmt.query_map([limit as i64], |r| r.get(0))?;
        Ok(names.collect::<Result<_, _>>()?)
    }

    /// The latest recorded run of exactly this selection in this process's environment (the
    /// same variables, [`VOLATILE`](crate::environment) ones aside): the one whose verdict a
    /// replay may repeat.
    pub fn last_run_of(&self, selection: &str) -> Result<Option<RunSummary>, StoreError> {
        Ok(last_run(&self.conn, Which::Of(selection, self.env.identity))?.map(|(_, s)| s))
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
        let Some((run_id, summary)) = last_run(&self.conn, Which::Any)? else {
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

type RunRow = (i64, RunSummary);

/// The latest run, or the latest of a selection in an environment.
/// Which run [`last_run`] looks for, the latest of its kind.
enum Which<'a> {
    Any,
    Green,
    /// Of exactly this selection, in this environment.
    Of(&'a str, i64),
}

fn last_run(c: &Connection, which: Which) -> Result<Option<RunRow>, StoreError> {
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
    let row = match which {
        Which::Any => c
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM runs ORDER BY id DESC LIMIT 1"
            ))?
            .query_row([], map)
            .optional()?,
        Which::Green => c
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM runs WHERE status = 'TestsPassed' ORDER BY id DESC LIMIT 1"
            ))?
            .query_row([], map)
            .optional()?,
        Which::Of(sel, env) => c
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM runs WHERE selection = ?1 AND env = ?2
                 ORDER BY id DESC LIMIT 1"
            ))?
            .query_row(params![sel, env], map)
            .optional()?,
    };
    Ok(row)
}
