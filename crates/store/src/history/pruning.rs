//! Bounding the history: the oldest runs dropped past the bounds on runs and bytes, an eighth
//! over the run bound at a time so a history at its bound is not swept on every run, and the
//! rows that only those runs needed.

use rusqlite::{Connection, OptionalExtension};

use super::{Retention, BYTES_USED, NTH_NEWEST_RUN};
use crate::StoreError;

/// [`prune`] inside a savepoint of the caller's transaction: when it fails, what it deleted
/// is put back and nothing is said pruned.
pub(super) fn pruned_apart(c: &Connection, retention: Retention) -> Result<bool, StoreError> {
    c.execute_batch("SAVEPOINT prune")?;
    let pruned = prune(c, retention);
    if pruned.is_err() {
        c.execute_batch("ROLLBACK TO prune")?;
    }
    c.execute_batch("RELEASE prune")?;
    Ok(pruned.unwrap_or(false))
}

/// Deletes runs beyond the bounds, oldest first, inside the caller's write transaction.
pub(super) fn prune(c: &Connection, retention: Retention) -> Result<bool, StoreError> {
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
