//! Opening a workspace's `state.db`: connection settings, the versioned schema and its migrations, and
//! moving aside a file that is damaged, foreign or from a newer pith.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode, OpenFlags};

use crate::StoreError;

const DB_FILE: &str = "state.db";
/// `PRAGMA application_id`: "pith" in ASCII, so a foreign SQLite file is told from ours.
pub(crate) const APPLICATION_ID: i32 = 0x7069_7468;
/// How long a statement waits for another process's write transaction.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The schema, one step per version: `MIGRATIONS[i]` takes `user_version` i to i + 1.
pub(crate) const MIGRATIONS: &[&str] = &[
    // 1: generation, files, runs, per-test results.
    "
    CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
    INSERT INTO meta (key, value) VALUES ('generation', 0);
    -- One row per file ever seen; deleted files stay as tombstones until pruned.
    CREATE TABLE files (
        path TEXT PRIMARY KEY,
        size INTEGER NOT NULL,
        mtime INTEGER NOT NULL,          -- nanoseconds since the epoch
        hash INTEGER NOT NULL,           -- xxh3 of the content
        gen INTEGER NOT NULL,            -- the generation of its last change
        racy INTEGER NOT NULL DEFAULT 0, -- stat taken too soon after a write to trust it
        deleted INTEGER NOT NULL DEFAULT 0
    ) WITHOUT ROWID;
    CREATE INDEX files_by_gen ON files (gen);
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        generation INTEGER NOT NULL,
        selection TEXT NOT NULL,         -- runner and sorted test ids: what was asked
        requested INTEGER NOT NULL,      -- how many test ids were asked for, 0 for all
        status TEXT NOT NULL,
        runner TEXT NOT NULL,
        passed INTEGER NOT NULL,
        failed INTEGER NOT NULL,
        skipped INTEGER NOT NULL,
        errors INTEGER NOT NULL,
        recovered INTEGER NOT NULL,
        duration_ms INTEGER NOT NULL,
        started INTEGER NOT NULL         -- unix seconds
    );
    CREATE INDEX runs_by_selection ON runs (selection, id);
    CREATE TABLE runners (
        name TEXT NOT NULL,
        run_id INTEGER NOT NULL,
        status TEXT NOT NULL,
        lacks TEXT,
        interpreter TEXT,
        PRIMARY KEY (name, run_id)
    ) WITHOUT ROWID;
    CREATE TABLE tests (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
    CREATE TABLE results (
        run_id INTEGER NOT NULL,
        test_id INTEGER NOT NULL,
        phase INTEGER NOT NULL,          -- 0 collect, 1 setup, 2 call, 3 teardown
        outcome INTEGER NOT NULL,        -- 0 passed, 1 failed, 2 skipped
        seq INTEGER NOT NULL,            -- order among the run's failures
        duration_ms INTEGER,
        message TEXT,
        kind TEXT,
        frames TEXT,
        flaky INTEGER NOT NULL DEFAULT 0,
        new INTEGER NOT NULL DEFAULT 0,
        failing_for INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (run_id, test_id, phase)
    ) WITHOUT ROWID;
    CREATE INDEX results_by_test ON results (test_id, run_id);
    -- Tests whose latest result is a failure: a pass of one of these is a recovery.
    CREATE TABLE failing (test_id INTEGER PRIMARY KEY);
    ",
    // 2: the runners detected in the workspace, kept until a project may have appeared or
    // changed near the top.
    "
    CREATE TABLE detected (
        key TEXT PRIMARY KEY,            -- what detection depends on outside the workspace
        generation INTEGER NOT NULL,
        runners TEXT NOT NULL            -- names, comma-separated
    ) WITHOUT ROWID;
    ",
    // 3: the generation each file (re)appeared at, so additions are told from edits.
    "
    ALTER TABLE files ADD COLUMN born INTEGER NOT NULL DEFAULT 0;
    ",
    // 4: what the tests read from outside the workspace's files (toolchains, virtualenvs,
    // installed packages), fingerprinted by stat; and the process environment each run saw.
    "
    CREATE TABLE inputs (
        key TEXT PRIMARY KEY,            -- kind:path, e.g. toolchain:/usr/bin/python3.12
        hash INTEGER NOT NULL,           -- of the stats that make it up
        gen INTEGER NOT NULL,            -- the generation of its last change
        deleted INTEGER NOT NULL DEFAULT 0
    ) WITHOUT ROWID;
    CREATE INDEX inputs_by_gen ON inputs (gen);
    ALTER TABLE runs ADD COLUMN env INTEGER NOT NULL DEFAULT 0;
    ",
    // 5: a failure's whole text (every line, the diff, the cause chain) for `pith failures`,
    // when it says more than its message; older rows have none and show their message.
    "
    ALTER TABLE results ADD COLUMN detail TEXT;
    ",
    // 6: change memory: the generations whose contents are kept, the contents (by xxh3) and
    // which file held which content at each.
    "
    CREATE TABLE remembered (
        generation INTEGER PRIMARY KEY,
        head TEXT                        -- the HEAD commit clean files are read from; NULL: no git
    );
    CREATE TABLE blobs (hash INTEGER PRIMARY KEY, size INTEGER NOT NULL, data BLOB NOT NULL);
    -- Covers listing the hashes and summing the sizes without reading every content's page.
    CREATE INDEX blobs_by_size ON blobs (size);
    CREATE TABLE kept (
        generation INTEGER NOT NULL,
        path TEXT NOT NULL,
        hash INTEGER,                    -- NULL: the content was not kept
        PRIMARY KEY (generation, path)
    ) WITHOUT ROWID;                     -- no index by hash: a generation's rows stay together
                                         -- on a few pages, written once
    ",
    // 7: the import graph as of one generation (one row per kind of graph), so a status that
    // asks for it again before anything changed does not read the whole workspace.
    "
    CREATE TABLE graphs (key TEXT PRIMARY KEY, generation INTEGER NOT NULL, data BLOB NOT NULL);
    ",
    // 8: modules each test file loaded by a computed name, as runs saw them, with the test
    // file's content hash then (an edited file's observation no longer counts).
    "
    CREATE TABLE loads (
        test TEXT NOT NULL,
        module TEXT NOT NULL,
        hash INTEGER NOT NULL,
        PRIMARY KEY (test, module)
    ) WITHOUT ROWID;
    ",
    // 9: what `pith gain` weighs, per answered command: what the runner printed (its first
    // 150,000 characters, until counted; then only their tokens) against pith's answer.
    "
    CREATE TABLE gains (
        id INTEGER PRIMARY KEY,
        at INTEGER NOT NULL,             -- unix seconds
        command TEXT NOT NULL,           -- test
        status TEXT NOT NULL,
        raw_chars INTEGER NOT NULL,      -- characters the runner printed, all of them
        failing INTEGER,                 -- a red answer's fidelity; NULL: no failing test
        ids_kept INTEGER,
        frames INTEGER,
        frames_kept INTEGER,
        answer_tokens INTEGER,           -- once counted
        marks BLOB,                      -- once counted: tokens of the first k * 1,000
                                         -- characters, k = 1, 2, ..., then of all kept
                                         -- (little-endian u32s)
        answer TEXT,                     -- the answer's line, until counted
        raw TEXT                         -- the first 150,000 characters, until counted
    );
    -- The few rows waiting to be counted, found without reading the others.
    CREATE INDEX gains_pending ON gains (id) WHERE raw IS NOT NULL;
    ",
];

/// Why a database file cannot be used as it is.
enum Open {
    /// Damaged, foreign or from a newer pith: move it aside.
    Unusable(String),
    Failed(StoreError),
}

impl From<rusqlite::Error> for Open {
    fn from(e: rusqlite::Error) -> Self {
        if is_corruption(&e) {
            Open::Unusable(format!("is damaged ({e})"))
        } else {
            Open::Failed(e.into())
        }
    }
}

pub(crate) fn is_corruption(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt)
    )
}

/// Opens the database in `dir`, moving an unusable file aside (with a warning) first.
pub(crate) fn open(dir: &Path, warnings: &mut Vec<String>) -> Result<Connection, StoreError> {
    let path = dir.join(DB_FILE);
    // A link would have SQLite write wherever it points: moved aside (the link itself, its
    // target untouched), like a damaged file.
    if let Some(link) = [DB_FILE, "state.db-wal", "state.db-shm"]
        .into_iter()
        .find(|f| is_link(&dir.join(f)))
    {
        let why = if link == DB_FILE {
            "is a symbolic link".to_owned()
        } else {
            format!("has a symbolic link beside it ({link})")
        };
        move_aside(dir, &why, warnings)?;
    }
    match try_open(&path) {
        Ok(conn) => Ok(conn),
        Err(Open::Failed(e)) => Err(e),
        Err(Open::Unusable(why)) => {
            move_aside(dir, &why, warnings)?;
            match try_open(&path) {
                Ok(conn) => Ok(conn),
                Err(Open::Failed(e)) => Err(e),
                Err(Open::Unusable(why)) => Err(StoreError::io(
                    format!("a fresh {} {why}", path.display()),
                    std::io::Error::other("unusable"),
                )),
            }
        }
    }
}

/// Moves a database found damaged while in use aside and opens a fresh one.
pub(crate) fn reset(dir: &Path, warnings: &mut Vec<String>) -> Result<Connection, StoreError> {
    move_aside(dir, "is damaged", warnings)?;
    open(dir, warnings)
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

fn try_open(path: &Path) -> Result<Connection, Open> {
    // NOFOLLOW: a link anywhere in the path is refused (the WAL and shared-memory files are
    // always opened without following), should one appear after the check above.
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW,
    )?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // Room for what a test run prepares ahead (see `Store::prepare_to_record`) and what the
    // command itself asks.
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    // The last connection to close would checkpoint the WAL into the database and fsync both:
    // several milliseconds on every `pith status` that wrote. The WAL is checkpointed instead
    // when a write leaves it past `WAL_LIMIT` (see `write`), and beside a test run's runner
    // past half of that (`Store::prepare_to_record`).
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
    // The first read of the file: a file that is not SQLite fails here.
    let app: i32 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if app != APPLICATION_ID {
        let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
        if app != 0 || version != 0 || tables != 0 {
            return Err(Open::Unusable("is not pith's database".to_owned()));
        }
        // A new, empty file: freed pages go back to the file system when history is pruned.
        conn.pragma_update(None, "auto_vacuum", "INCREMENTAL")?;
    }
    if version > MIGRATIONS.len() as i64 {
        return Err(Open::Unusable("was written by a newer pith".to_owned()));
    }
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(Open::Failed(StoreError::io(
            format!("{} cannot use WAL mode (got {mode})", path.display()),
            std::io::Error::other("journal mode"),
        )));
    }
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    if version < MIGRATIONS.len() as i64 {
        migrate(&conn)?;
    }
    // A file whose tables are not what its version says (written by a build of pith that
    // never shipped, or edited by hand) is as unusable as a damaged one. The probes cost a
    // statement's compilation each, on every open: once they pass, a row of `meta` keyed by
    // the probes themselves keeps the schema's `schema_version` (which every change to a
    // table moves), and an open that finds it unchanged skips them.
    let schema: i64 = conn.pragma_query_value(None, "schema_version", |r| r.get(0))?;
    let key = probed_key();
    let probed: Option<i64> = conn.query_row(PROBED, [&key], |r| r.get(0)).unwrap_or(None);
    if probed != Some(schema) {
        for probe in SCHEMA_PROBES {
            if conn.prepare(probe).is_err() {
                return Err(Open::Unusable(
                    "does not have the tables its version says".to_owned(),
                ));
            }
        }
        // Best effort and never waiting: the next open probes again.
        let _ = conn.busy_timeout(Duration::ZERO);
        let _ = conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
            rusqlite::params![key, schema],
        );
        conn.busy_timeout(BUSY_TIMEOUT)?;
    }
    Ok(conn)
}

/// The `meta` row that says at which `schema_version` this build's probes last passed.
const PROBED: &str = "SELECT max(value) FROM meta WHERE key = ?1";

/// The key of that row: the probes' own hash, so a build that probes otherwise probes anew.
fn probed_key() -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for probe in SCHEMA_PROBES {
        h.update(probe.as_bytes());
        h.update(b"\0");
    }
    format!("schema probed {:016x}", h.digest())
}

/// One statement per table naming every column the store uses; preparing them checks the
/// schema without reading a row.
const SCHEMA_PROBES: &[&str] = &[
    "SELECT key, value FROM meta LIMIT 0",
    "SELECT path, size, mtime, hash, gen, racy, deleted, born FROM files LIMIT 0",
    "SELECT id, generation, selection, requested, status, runner, passed, failed, skipped,
         errors, recovered, duration_ms, started, env FROM runs LIMIT 0",
    "SELECT name, run_id, status, lacks, interpreter FROM runners LIMIT 0",
    "SELECT id, name FROM tests LIMIT 0",
    "SELECT run_id, test_id, phase, outcome, seq, duration_ms, message, kind, frames, flaky,
         new, failing_for, detail FROM results LIMIT 0",
    "SELECT test_id FROM failing LIMIT 0",
    "SELECT key, generation, runners FROM detected LIMIT 0",
    "SELECT key, hash, gen, deleted FROM inputs LIMIT 0",
    "SELECT generation, head FROM remembered LIMIT 0",
    "SELECT hash, size, data FROM blobs LIMIT 0",
    "SELECT generation, path, hash FROM kept LIMIT 0",
    "SELECT key, generation, data FROM graphs LIMIT 0",
    "SELECT test, module, hash FROM loads LIMIT 0",
    "SELECT id, at, command, status, raw_chars, failing, ids_kept, frames, frames_kept,
         answer_tokens, marks, answer, raw FROM gains LIMIT 0",
];

/// Brings the schema to the latest version, in one write transaction that re-reads the
/// version, so two processes opening a new database at once apply each step once.
fn migrate(conn: &Connection) -> Result<(), rusqlite::Error> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let result = (|| {
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        for (i, step) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
            conn.execute_batch(step)?;
            conn.pragma_update(None, "user_version", i as i64 + 1)?;
        }
        conn.pragma_update(None, "application_id", APPLICATION_ID)?;
        Ok(())
    })();
    match result.and_then(|()| conn.execute_batch("COMMIT")) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

/// Renames `state.db` (and its WAL and shared-memory files) to the first free
/// `state.db.corrupt-<n>`, and says so in one line.
fn move_aside(dir: &Path, why: &str, warnings: &mut Vec<String>) -> Result<(), StoreError> {
    let path = dir.join(DB_FILE);
    let n = (1..)
        .find(|n| std::fs::symlink_metadata(dir.join(format!("{DB_FILE}.corrupt-{n}"))).is_err())
        .unwrap_or(0);
    let aside = format!("{DB_FILE}.corrupt-{n}");
    let target: PathBuf = dir.join(&aside);
    match std::fs::rename(&path, &target) {
        Ok(()) => {}
        // Only a WAL or shared-memory file was a link.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(StoreError::io(
                format!("moving {} aside", path.display()),
                e,
            ))
        }
    }
    for suffix in ["-wal", "-shm"] {
        let side = dir.join(format!("{DB_FILE}{suffix}"));
        if std::fs::symlink_metadata(&side).is_ok() {
            let _ = std::fs::rename(&side, dir.join(format!("{aside}{suffix}")));
        }
    }
    warnings.push(format!(
        "{} {why}: moved it to {} and started a new history",
        path.display(),
        target.display()
    ));
    Ok(())
}

pub(crate) fn generation(conn: &Connection) -> Result<u64, StoreError> {
    let g: i64 = conn.query_row("SELECT value FROM meta WHERE key = 'generation'", [], |r| {
        r.get(0)
    })?;
    Ok(g.max(0) as u64)
}

/// Runs `f` in a write transaction taken up front (`BEGIN IMMEDIATE`), so what it read stays
/// true until it commits.
/// Past this size the WAL is folded into the database after a write. Every process that
/// opens the database reads the WAL back (short-lived processes leave no index of it behind),
/// so its size is paid on every `pith status`; a checkpoint costs a few fsyncs, once in many
/// writes.
pub(crate) const WAL_LIMIT: u64 = 256 * 1024;

/// Prepared statements a connection keeps.
const STATEMENT_CACHE: usize = 64;

/// Checkpoints and truncates the WAL when it has grown past [`WAL_LIMIT`]. Best effort and
/// never waiting: a reader in another process keeps it for the next writer.
fn bound_wal(conn: &Connection) {
    bound_wal_at(conn, WAL_LIMIT);
}

/// Checkpoints and truncates the WAL when it has grown past `limit` bytes (see [`bound_wal`]).
/// Returns whether it did: the next write then starts the log anew.
pub(crate) fn bound_wal_at(conn: &Connection, limit: u64) -> bool {
    let Some(db) = conn.path() else { return false };
    let wal = format!("{db}-wal");
    if std::fs::metadata(&wal).map_or(0, |m| m.len()) <= limit {
        return false;
    }
    let _ = conn.busy_timeout(Duration::ZERO);
    let busy = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
        r.get::<_, i64>(0)
    });
    let _ = conn.busy_timeout(BUSY_TIMEOUT);
    busy == Ok(0)
}

/// Starts an emptied WAL anew. The first write to an empty log writes its header and syncs
/// it (even at `synchronous = NORMAL`): one `fsync` that, made here beside a test run's
/// runner, is not made by the run's record after it. The write counts these restarts (a
/// write that changes nothing writes no page). Best effort and never waiting.
pub(crate) fn restart_wal(conn: &Connection) {
    let _ = conn.busy_timeout(Duration::ZERO);
    let _ = conn.execute_batch(
        "BEGIN IMMEDIATE; INSERT INTO meta (key, value) VALUES ('wal restarts', 1) \
         ON CONFLICT (key) DO UPDATE SET value = value + 1; COMMIT",
    );
    if !conn.is_autocommit() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    let _ = conn.busy_timeout(BUSY_TIMEOUT);
}

pub(crate) fn write<T>(
    conn: &Connection,
    f: impl FnOnce(&Connection) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    match f(conn) {
        Ok(v) => match conn.execute_batch("COMMIT") {
            Ok(()) => {
                bound_wal(conn);
                Ok(v)
            }
            Err(e) => {
                let _ = conn.execute_batch("ROLLBACK");
                Err(e.into())
            }
        },
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}
