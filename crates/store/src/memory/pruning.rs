//! Dropping the remembered generations no question needs any more, and the contents only they
//! used. Which generations are needed follows from the runs and results the history keeps,
//! so the history's prune calls this inside its own write transaction.

use std::collections::HashSet;

use rusqlite::Connection;

use crate::StoreError;

const REMEMBERED_GENERATIONS: &str = "SELECT generation FROM remembered ORDER BY 1";
const NEEDED_GENERATIONS: &str = "SELECT max(generation) FROM remembered
     UNION SELECT generation FROM (SELECT generation FROM runs ORDER BY id DESC LIMIT 1)
     UNION SELECT generation FROM (SELECT generation FROM runs
         WHERE status = 'TestsPassed' ORDER BY id DESC LIMIT 1)";
const RUNS_AT: &str = "SELECT id FROM runs WHERE generation = ?1";
const LAST_PASS_IN: &str = "SELECT EXISTS (SELECT 1 FROM results r
     WHERE r.run_id = ?1 AND r.outcome = 0 AND NOT EXISTS (
         SELECT 1 FROM results l WHERE l.test_id = r.test_id AND l.run_id > r.run_id
             AND l.outcome = 0))";

/// The statements [`prune`] prepares on every call.
pub(crate) const WARM: &[&str] = &[
    REMEMBERED_GENERATIONS,
    NEEDED_GENERATIONS,
    RUNS_AT,
    LAST_PASS_IN,
];

/// Drops the remembered generations no question needs any more — neither some test's last
/// pass, nor the last green run's, nor the newest run's or newest remembered — and the
/// contents only they used, inside the caller's write transaction. Says whether it dropped
/// anything.
pub(crate) fn prune(c: &Connection) -> Result<bool, StoreError> {
    let gens: Vec<i64> = c
        .prepare_cached(REMEMBERED_GENERATIONS)?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    if gens.len() <= 1 {
        return Ok(false);
    }
    let keep: HashSet<i64> = c
        .prepare_cached(NEEDED_GENERATIONS)?
        .query_map([], |r| r.get::<_, Option<i64>>(0))?
        .filter_map(|r| r.transpose())
        .collect::<Result<_, _>>()?;
    // Some test's last pass was in a run at the generation: a pass with no later pass. Asked
    // per run id, so SQLite seeks the run's results instead of scanning every result.
    let mut runs_at = c.prepare_cached(RUNS_AT)?;
    let mut last_pass_in = c.prepare_cached(LAST_PASS_IN)?;
    let mut last_pass_at = |g: i64| -> Result<bool, StoreError> {
        let runs: Vec<i64> = runs_at
            .query_map([g], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        for run in runs {
            if last_pass_in.query_row([run], |r| r.get::<_, bool>(0))? {
                return Ok(true);
            }
        }
        Ok(false)
    };
    let mut dropped = false;
    for g in gens {
        if keep.contains(&g) || last_pass_at(g)? {
            continue;
        }
        c.execute("DELETE FROM kept WHERE generation = ?1", [g])?;
        c.execute("DELETE FROM remembered WHERE generation = ?1", [g])?;
        dropped = true;
    }
    if dropped {
        c.execute(
            "DELETE FROM blobs WHERE hash NOT IN (SELECT hash FROM kept WHERE hash IS NOT NULL)",
            [],
        )?;
    }
    Ok(dropped)
}
