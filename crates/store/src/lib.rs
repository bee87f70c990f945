//! pith's workspace state, kept outside the workspace (see [`location`]: one directory per
//! workspace under pith's base directory): the content generation, the run history (per-test
//! outcomes, messages, frames), flakiness and novelty, the run lock. The only crate that
//! touches SQLite; everything else sees model types.
//!
//! The database is WAL-mode SQLite with a versioned schema (`user_version`), written only in
//! short transactions, so two pith processes never corrupt it and a `kill -9` loses nothing
//! committed. A file that is not pith's database is moved aside with a one-line warning.
//!
//! pith writes nothing into the workspace: no state, no lock, no cookie, no `.git/info/exclude`
//! line. A workspace's state directory is never followed through a link (one that is a link is
//! refused, so pith runs without state and says why); a link among the files in it is moved
//! aside (the database's) or replaced (the lock's), never written through. A `.pith/` an older
//! pith left in the workspace is moved out of it when it holds only pith's own files
//! (`location::migrate`), else left alone; either way it is never walked ([`LEGACY_DIR`]).

mod clock;
mod db;
mod environment;
pub mod filter;
mod frames;
mod gains;
mod history;
mod loads;
pub mod location;
mod lock;
mod memory;
mod output;
mod resolved;
mod scan;
mod walk;
mod watch;

use std::path::{Path, PathBuf};

use rusqlite::Connection;

pub use gains::{Counted, NewGain, Pending, GAIN_ROWS, MARK_CHARS, PENDING_CHARS};
pub use history::{Annotated, Retention};
pub use location::{base_dir, state_dir, state_path, CACHE_ENV, LEGACY_DIR};
pub use lock::{RunLock, TryLock};
pub use memory::{
    changed_lines, Baseline, ChangeKind, Changes, FileChange, Hunk, Remembered, Since, MEMORY_BYTES,
};
pub use scan::RunStart;
pub use watch::{Dirty, Reader, Watcher};

/// Expected failures of the store, each one clear line.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
    #[error("pith's state database: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("cannot watch the workspace: {0}")]
    Watch(#[from] notify::Error),
    #[error(
        "{0} is a symbolic link; pith keeps a workspace's state only in a real directory and \
         does not follow it (remove the link to let pith keep state)"
    )]
    Link(String),
    #[error(
        "pith has nowhere to keep its state: tried {0}; set {CACHE_ENV} to a writable directory"
    )]
    NoBase(String),
}

impl StoreError {
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        StoreError::Io {
            context: context.into(),
            source,
        }
    }

    /// The database file turned out damaged while being used (not when opened, where it is
    /// handled): [`Store::reset`] moves it aside and starts afresh.
    pub fn is_corrupt(&self) -> bool {
        matches!(self, StoreError::Sql(e) if db::is_corruption(e))
    }
}

/// An open workspace state: one SQLite connection to the state directory's `state.db`.
pub struct Store {
    conn: Connection,
    root: PathBuf,
    dir: PathBuf,
    warnings: Vec<String>,
    /// The process environment, as the generation's inputs and the history's runs see it.
    pub(crate) env: environment::Environment,
    /// Bytes of file contents change memory keeps at most.
    pub(crate) memory_bytes: u64,
}

/// The state directory's file that keeps what the environment's names resolve to (see
/// [`resolved`]).
const RESOLVED_FILE: &str = "resolved";

/// Where the last run's output is kept: apart from the connection, so it can be written on
/// another thread while the run is recorded.
pub struct OutputShelf(PathBuf);

impl Store {
    /// Done beside a test run, while its runner runs, so the path from the runner's exit to
    /// the answer is shorter: the statements that record the run, prune the history and
    /// record the answer's gain are prepared (parsing them is most of what recording a small
    /// run costs), and a WAL past half its bound is checkpointed now rather than after the
    /// run's writes (a checkpoint fsyncs), and the emptied log started anew (its first write
    /// syncs its header). Best effort.
    pub fn prepare_to_record(&self) {
        for sql in history::WARM.iter().chain(memory::WARM).chain(gains::WARM) {
            let _ = self.conn.prepare_cached(sql);
        }
        if db::bound_wal_at(&self.conn, db::WAL_LIMIT / 2) {
            db::restart_wal(&self.conn);
        }
    }
}

impl OutputShelf {
    /// Keeps `out` as the last run's output, in place of the one before.
    pub fn keep(&self, out: &pith_model::output::RunOutput) -> Result<(), StoreError> {
        output::save(&self.0, out)
    }
}

/// A workspace's state directory, found (made when new) without opening its database: all
/// the run lock needs, so a run can start while the database opens beside it.
pub struct Place {
    root: PathBuf,
    dir: PathBuf,
    warnings: Vec<String>,
}

impl Place {
    /// The state directory of the workspace at `root` (absolute, canonical); see
    /// [`Store::open`].
    pub fn find(root: &Path) -> Result<Place, StoreError> {
        let (dir, first) = location::open_in(&base_dir()?, root)?;
        // Before any lock is taken here: the move brings an older pith's lock file along.
        let warnings = location::migrate(root, &dir, first).into_iter().collect();
        Ok(Place {
            root: root.to_path_buf(),
            dir,
            warnings,
        })
    }

    /// Takes the run lock, waiting up to `wait` for another pith run to end.
    pub fn lock_run(&self, wait: std::time::Duration) -> Result<TryLock, StoreError> {
        lock::acquire(&self.dir, wait)
    }

    /// Opens the database in this directory, as [`Store::open`] does.
    pub fn open(self) -> Result<Store, StoreError> {
        let mut warnings = self.warnings;
        let conn = db::open(&self.dir, &mut warnings)?;
        let resolved = self.dir.join(RESOLVED_FILE);
        Ok(Store {
            conn,
            root: self.root,
            dir: self.dir,
            warnings,
            env: environment::Environment::from_process().keeping_resolutions_in(resolved),
            memory_bytes: memory::MEMORY_BYTES,
        })
    }
}

impl Store {
    /// Opens (creating when needed) the state of the workspace at `root`, an absolute,
    /// canonical directory. A database file that is damaged, foreign or from a newer pith is
    /// moved aside; the warning saying so is in [`Store::take_warnings`], as is a note when a
    /// `.pith/` an older pith left in the workspace was moved out of it (or why not).
    pub fn open(root: &Path) -> Result<Store, StoreError> {
        Place::find(root)?.open()
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// One-line warnings for a human (a database moved aside), each once.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// Moves a database found damaged mid-use aside and starts a fresh one, with a warning.
    pub fn reset(&mut self) -> Result<(), StoreError> {
        let old = std::mem::replace(&mut self.conn, Connection::open_in_memory()?);
        drop(old);
        self.conn = db::reset(&self.dir, &mut self.warnings)?;
        Ok(())
    }

    /// The current generation without looking at the files (0 before the first scan).
    pub fn generation(&self) -> Result<u64, StoreError> {
        db::generation(&self.conn)
    }

    /// Files changed (edited, added or deleted) after generation `since`, and inputs outside
    /// them (`toolchain:/usr/bin/python3.12`, `venv:.venv`, `packages:~/.local/lib/...`): how
    /// many, and the first `limit` of them, most recently changed first.
    pub fn changed_since(
        &self,
        since: u64,
        limit: usize,
    ) -> Result<(u64, Vec<String>), StoreError> {
        scan::changed_since(&self.conn, &self.env, since, limit)
    }

    /// The first input outside the workspace's files (see [`Store::changed_since`]) that
    /// changed after generation `since`: what no import graph follows.
    pub fn input_changed_since(&self, since: u64) -> Result<Option<String>, StoreError> {
        scan::input_changed_since(&self.conn, &self.env, since)
    }

    /// Runner names detected earlier under `key` (a fingerprint of what detection reads
    /// outside the workspace), unless a project may have appeared or changed since: a file
    /// near the top (three levels deep or less, where projects are marked) was added or
    /// deleted, or one that configures rather than implements (not a source file) was edited,
    /// or a toolchain or installed package changed (a runner may have been installed).
    pub fn cached_runners(&self, key: &str) -> Result<Option<Vec<String>>, StoreError> {
        use rusqlite::OptionalExtension;
        let row: Option<(i64, String)> = self
            .conn
            .prepare_cached("SELECT generation, runners FROM detected WHERE key = ?1")?
            .query_row([key], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let Some((generation, runners)) = row else {
            return Ok(None);
        };
        let inputs_changed: bool = self
            .conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM inputs WHERE gen > ?1)")?
            .query_row([generation], |r| r.get(0))?;
        if inputs_changed {
            return Ok(None);
        }
        let mut stmt = self.conn.prepare_cached(
            "SELECT path, born > ?1 OR deleted FROM files WHERE gen > ?1
                 AND length(path) - length(replace(path, '/', '')) <= 2",
        )?;
        let mut rows = stmt.query([generation])?;
        while let Some(r) = rows.next()? {
            let (path, appeared): (String, bool) = (r.get(0)?, r.get(1)?);
            if appeared || !is_source(&path) {
                return Ok(None);
            }
        }
        Ok(Some(
            runners
                .split(',')
                .filter(|n| !n.is_empty())
                .map(str::to_owned)
                .collect(),
        ))
    }

    /// Remembers the runners detected at `generation` under `key`.
    pub fn cache_runners(
        &self,
        key: &str,
        generation: u64,
        runners: &[String],
    ) -> Result<(), StoreError> {
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO detected (key, generation, runners) VALUES (?1, ?2, ?3)",
            )?
            .execute(rusqlite::params![key, generation as i64, runners.join(",")])?;
        Ok(())
    }

    /// The bytes cached under `key` by [`Store::cache_graph`] at `generation`, if that is the
    /// generation they were cached at.
    pub fn cached_graph(&self, key: &str, generation: u64) -> Result<Option<Vec<u8>>, StoreError> {
        use rusqlite::OptionalExtension;
        Ok(self
            .conn
            .prepare_cached("SELECT data FROM graphs WHERE key = ?1 AND generation = ?2")?
            .query_row(rusqlite::params![key, generation as i64], |r| r.get(0))
            .optional()?)
    }

    /// Keeps `data` (a graph of the workspace at `generation`) under `key`, replacing what
    /// was kept there: one row per key, so the table never grows past the kinds of graph.
    pub fn cache_graph(&self, key: &str, generation: u64, data: &[u8]) -> Result<(), StoreError> {
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO graphs (key, generation, data) VALUES (?1, ?2, ?3)",
            )?
            .execute(rusqlite::params![key, generation as i64, data])?;
        Ok(())
    }

    /// Where the last run's output is kept, replacing the one before (see [`output`]).
    pub fn output_shelf(&self) -> OutputShelf {
        OutputShelf(self.dir.clone())
    }

    /// The last run's output, when a run kept one.
    pub fn output(&self) -> Result<Option<pith_model::output::RunOutput>, StoreError> {
        output::load(&self.dir)
    }

    /// Takes the run lock, waiting up to `wait` for another pith run to end.
    pub fn lock_run(&self, wait: std::time::Duration) -> Result<TryLock, StoreError> {
        lock::acquire(&self.dir, wait)
    }
}

/// Whether a file is code whose edits cannot change which runners a workspace uses (only
/// its presence can, and that is checked apart).
fn is_source(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    if name.eq_ignore_ascii_case("CMakeLists.txt") {
        return false;
    }
    name.rsplit_once('.')
        .is_some_and(|(_, ext)| pith_model::ecosystem::is_source_extension(ext))
}

#[cfg(test)]
mod tests;
