//! What `pith gain` weighs, per answered command: what the runner printed and what pith
//! answered. Counting o200k tokens needs a tokenizer that takes 0.1–0.3 s to load, which a test
//! run does not pay: a command is recorded with the first [`PRINTED_KEPT`] characters of its
//! raw output and its answer's line, and counted later (by `pith gain`, or by a run that finds
//! more than [`PENDING_CHARS`] waiting), after which only the counts stay: the answer's
//! tokens, and the raw output's tokens at every [`MARK_CHARS`] characters, so any limit up to
//! [`PRINTED_KEPT`] is counted without the text. Bounded: [`GAIN_ROWS`] commands, the oldest
//! go first; a counted row is a few hundred bytes at most.

use pith_model::gain::{Fidelity, Printed, PRINTED_KEPT};
use pith_model::Status;
use rusqlite::params;

use crate::{db, Store, StoreError};

/// Characters between two marks of a counted raw output.
pub const MARK_CHARS: usize = 1_000;
/// Answered commands kept; the oldest go first.
pub const GAIN_ROWS: i64 = 10_000;
/// Characters of raw output waiting to be counted past which a run counts them.
pub const PENDING_CHARS: u64 = 8 << 20;

/// The `meta` row holding the characters waiting, kept as gains are recorded: summing the
/// rows on every run would read up to [`GAIN_ROWS`] of them.
const PENDING_KEY: &str = "gains_pending";

/// One answered command, as a run records it.
pub struct NewGain<'a> {
    /// Unix seconds.
    pub at: u64,
    pub command: &'a str,
    pub status: Status,
    pub printed: &'a Printed,
    /// The answer's line.
    pub answer: &'a str,
    pub fidelity: Option<Fidelity>,
}

/// A command recorded and not yet counted.
pub struct Pending {
    pub id: i64,
    /// The raw output's first [`PRINTED_KEPT`] characters.
    pub raw: String,
    pub answer: String,
}

/// A counted command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counted {
    pub at: u64,
    pub command: String,
    pub status: Status,
    /// Characters the runner printed, all of them.
    pub raw_chars: u64,
    /// Tokens of the raw output's first `k ·` [`MARK_CHARS`] characters (k = 1, 2, …), then
    /// of all that was kept.
    pub marks: Vec<u32>,
    pub answer_tokens: u64,
    pub fidelity: Option<Fidelity>,
}

const INSERT_GAIN: &str = "INSERT INTO gains (at, command, status, raw_chars, raw, answer, failing,
         ids_kept, frames, frames_kept)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
const ADD_PENDING: &str = "UPDATE meta SET value = value + ?1 WHERE key = ?2";
const DROP_OLDEST: &str = "DELETE FROM gains WHERE id <= (SELECT max(id) FROM gains) - ?1";

/// The statements an answered command's record and [`prune`] prepare.
pub(crate) const WARM: &[&str] = &[INSERT_GAIN, ADD_PENDING, DROP_OLDEST];

impl Store {
    /// Records an answered command, to be counted later.
    pub fn record_gain(&self, g: &NewGain<'_>) -> Result<(), StoreError> {
        let f = g.fidelity;
        db::write(&self.conn, |c| {
            c.prepare_cached(INSERT_GAIN)?.execute(params![
                g.at as i64,
                g.command,
                g.status.name(),
                g.printed.chars as i64,
                g.printed.text,
                g.answer,
                f.map(|f| f.failing),
                f.map(|f| f.ids_kept),
                f.map(|f| f.frames),
                f.map(|f| f.frames_kept),
            ])?;
            c.prepare_cached(ADD_PENDING)?.execute(params![
                g.printed.chars.min(PRINTED_KEPT as u64) as i64,
                PENDING_KEY
            ])?;
            Ok(())
        })
    }

    /// Characters of raw output waiting to be counted (read from the rows' counts, not their
    /// text).
    pub fn pending_gain_chars(&self) -> Result<u64, StoreError> {
        use rusqlite::OptionalExtension;
        let kept: Option<i64> = self
            .conn
            .prepare_cached("SELECT value FROM meta WHERE key = ?1")?
            .query_row([PENDING_KEY], |r| r.get(0))
            .optional()?;
        if let Some(n) = kept {
            return Ok(n.max(0) as u64);
        }
        let n: i64 = self.conn.query_row(
            "SELECT coalesce(sum(min(raw_chars, ?1)), 0) FROM gains WHERE raw IS NOT NULL",
            [PRINTED_KEPT as i64],
            |r| r.get(0),
        )?;
        // Best effort: a gain recorded between the sum and this goes uncounted here, which
        // only delays the counting a little.
        let _ = self.conn.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES (?1, ?2)",
            params![PENDING_KEY, n],
        );
        Ok(n.max(0) as u64)
    }

    /// The commands not yet counted, oldest first.
    pub fn pending_gains(&self) -> Result<Vec<Pending>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT id, raw, coalesce(answer, '') FROM gains WHERE raw IS NOT NULL ORDER BY id",
        )?;
        let rows = stmt
            .query_map([], |r| {
                Ok(Pending {
                    id: r.get(0)?,
                    raw: r.get(1)?,
                    answer: r.get(2)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Keeps a command's counts in place of its texts, each `(id, marks, answer tokens)`; one
    /// transaction.
    pub fn set_counted(&self, counted: &[(i64, Vec<u32>, u64)]) -> Result<(), StoreError> {
        db::write(&self.conn, |c| {
            let mut stmt = c.prepare_cached(
                "UPDATE gains SET marks = ?2, answer_tokens = ?3, raw = NULL, answer = NULL
                 WHERE id = ?1",
            )?;
            for (id, marks, answer) in counted {
                let blob: Vec<u8> = marks.iter().flat_map(|m| m.to_le_bytes()).collect();
                stmt.execute(params![id, blob, *answer as i64])?;
            }
            forget_pending(c)
        })
    }

    /// Every counted command, oldest first.
    pub fn gains(&self) -> Result<Vec<Counted>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT at, command, status, raw_chars, marks, answer_tokens, failing, ids_kept,
                 frames, frames_kept
             FROM gains WHERE raw IS NULL AND marks IS NOT NULL ORDER BY id",
        )?;
        let count = |v: Option<i64>| v.map_or(0, |n| n.clamp(0, i64::from(u32::MAX)) as u32);
        let rows = stmt
            .query_map([], |r| {
                let status: String = r.get(2)?;
                let blob: Vec<u8> = r.get(4)?;
                let failing: Option<i64> = r.get(6)?;
                Ok(Counted {
                    at: r.get::<_, i64>(0)?.max(0) as u64,
                    command: r.get(1)?,
                    status: Status::from_name(&status).unwrap_or(Status::Crashed),
                    raw_chars: r.get::<_, i64>(3)?.max(0) as u64,
                    marks: blob
                        .chunks_exact(4)
                        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                        .collect(),
                    answer_tokens: r.get::<_, i64>(5)?.max(0) as u64,
                    fidelity: match failing {
                        Some(f) => Some(Fidelity {
                            failing: count(Some(f)),
                            ids_kept: count(r.get(7)?),
                            frames: count(r.get(8)?),
                            frames_kept: count(r.get(9)?),
                        }),
                        None => None,
                    },
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }
}

/// Drops the oldest commands beyond [`GAIN_ROWS`], inside the caller's write transaction.
pub(crate) fn prune(c: &rusqlite::Connection) -> Result<(), StoreError> {
    let dropped = c.prepare_cached(DROP_OLDEST)?.execute([GAIN_ROWS])?;
    if dropped > 0 {
        forget_pending(c)?;
    }
    Ok(())
}

/// Drops the running total of characters waiting: the next [`Store::pending_gain_chars`]
/// sums the rows again, once.
fn forget_pending(c: &rusqlite::Connection) -> Result<(), StoreError> {
    c.execute("DELETE FROM meta WHERE key = ?1", [PENDING_KEY])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Retention;

    fn printed(text: &str) -> Printed {
        let mut p = Printed::default();
        p.push(text);
        p
    }

    #[test]
    fn a_command_waits_with_its_texts_then_keeps_only_its_counts() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let store = crate::tests::open(&root);
        let raw = printed("4 passed in 0.01s\n");
        let f = Fidelity {
            failing: 2,
            ids_kept: 1,
            frames: 2,
            frames_kept: 2,
        };
        store
            .record_gain(&NewGain {
                at: 1_700_000_000,
                command: "test",
                status: Status::TestsFailed,
                printed: &raw,
                answer: "{\"status\":\"TestsFailed\"}",
                fidelity: Some(f),
            })
            .unwrap();
        assert_eq!(store.pending_gain_chars().unwrap(), 18);
        assert!(store.gains().unwrap().is_empty(), "nothing counted yet");
        let pending = store.pending_gains().unwrap();
        assert_eq!(pending.len(), 1);
        assert_eq!(pending[0].raw, "4 passed in 0.01s\n");
        store
            .set_counted(&[(pending[0].id, vec![18, 7], 9)])
            .unwrap();
        assert!(store.pending_gains().unwrap().is_empty());
        assert_eq!(store.pending_gain_chars().unwrap(), 0);
        let texts: (Option<String>, Option<String>) = store
            .conn
            .query_row("SELECT raw, answer FROM gains", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!(texts, (None, None), "the texts are gone once counted");
        assert_eq!(
            store.gains().unwrap(),
            [Counted {
                at: 1_700_000_000,
                command: "test".into(),
                status: Status::TestsFailed,
                raw_chars: 18,
                marks: vec![18, 7],
                answer_tokens: 9,
                fidelity: Some(f),
            }]
        );
    }

    #[test]
    fn the_characters_waiting_are_kept_as_a_total_that_agrees_with_the_rows() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let mut store = crate::tests::open(&root);
        let summed = |store: &Store| -> u64 {
            store
                .conn
                .query_row(
                    "SELECT coalesce(sum(min(raw_chars, ?1)), 0) FROM gains WHERE raw IS NOT NULL",
                    [PRINTED_KEPT as i64],
                    |r| r.get::<_, i64>(0),
                )
                .unwrap() as u64
        };
        let total = |store: &Store| -> Option<i64> {
            store
                .conn
                .query_row(
                    "SELECT value FROM meta WHERE key = ?1",
                    [PENDING_KEY],
                    |r| r.get(0),
                )
                .ok()
        };
        let record = |store: &Store, text: &str| {
            let raw = printed(text);
            store
                .record_gain(&NewGain {
                    at: 1,
                    command: "test",
                    status: Status::TestsPassed,
                    printed: &raw,
                    answer: "{}",
                    fidelity: None,
                })
                .unwrap();
        };
        record(&store, "one\n");
        assert_eq!(total(&store), None, "no total before the first sum");
        assert_eq!(store.pending_gain_chars().unwrap(), 4);
        let long = "x".repeat(PRINTED_KEPT + 10);
        record(&store, &long);
        record(&store, "three\n");
        assert_eq!(
            total(&store),
            Some(4 + PRINTED_KEPT as i64 + 6),
            "kept up as recorded"
        );
        assert_eq!(store.pending_gain_chars().unwrap(), summed(&store));
        let pending = store.pending_gains().unwrap();
        store.set_counted(&[(pending[0].id, vec![1], 1)]).unwrap();
        assert_eq!(total(&store), None, "counting drops the total");
        assert_eq!(store.pending_gain_chars().unwrap(), summed(&store));
        // Rows dropped past the bound take their characters with them.
        store
            .conn
            .execute_batch(&format!(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {GAIN_ROWS})
                 INSERT INTO gains (at, command, status, raw_chars, marks, answer_tokens)
                 SELECT i, 'test', 'TestsPassed', 10, x'0a000000', 5 FROM n;"
            ))
            .unwrap();
        store.prune(Retention::default()).unwrap();
        assert_eq!(summed(&store), 0, "the pending rows were the oldest");
        assert_eq!(store.pending_gain_chars().unwrap(), 0);
    }

    #[test]
    fn the_oldest_commands_go_past_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let mut store = crate::tests::open(&root);
        store
            .conn
            .execute_batch(&format!(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {})
                 INSERT INTO gains (at, command, status, raw_chars, marks, answer_tokens)
                 SELECT i, 'test', 'TestsPassed', 10, x'0a000000', 5 FROM n;",
                GAIN_ROWS + 5
            ))
            .unwrap();
        store.prune(Retention::default()).unwrap();
        let rows = store.gains().unwrap();
        assert_eq!(rows.len() as i64, GAIN_ROWS);
        assert_eq!(rows[0].at, 6, "the five oldest went");
    }
}
