//! Change memory: what the workspace's files held at the generations a later question compares
//! with (a test's last pass, the last green run), so pith can say which lines changed since —
//! with git (the generation's `HEAD` commit plus the files that differed from it) or without
//! (every text file itself). Contents are kept content-addressed (by the xxh3 the scan already
//! computes) in `blobs`, bounded (oldest generations' contents go first), and pruned with the
//! history; what is gone is answered `Unknown`, never "unchanged".
//!
//! This file keeps the store's entry points and the types its rooms share: keeping a
//! generation's contents is `keeping`'s, comparing with a kept generation `comparing`'s, the
//! line diff `lines`', reading the work tree's files `files`', asking git `git`'s, and dropping
//! the generations no question needs any more `pruning`'s.

mod comparing;
mod files;
mod git;
mod keeping;
mod lines;
mod pruning;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};

use rusqlite::OptionalExtension;

use crate::{db, Store, StoreError};
use files::file_lines;
use keeping::{keepable, live_files, remembered, store_generation, total_bytes};
pub use lines::changed_lines;
use lines::whole;
pub(crate) use pruning::{prune, WARM};

/// Bytes of file contents kept at most, by default.
pub const MEMORY_BYTES: u64 = 64 << 20;
/// How much of a file is looked at for a NUL byte to call it binary.
const SNIFF: usize = 8 * 1024;
/// Above this size a file's changes are its whole file rather than a line diff.
const DIFF_LIMIT: u64 = 8 << 20;

/// What a comparison is made with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Since {
    /// The content at a run's generation (see [`Store::last_pass`], [`Store::last_green`]).
    Generation(u64),
    /// A git revision, e.g. `HEAD`: tracked changes (renames found by git) plus untracked,
    /// unignored files as `Added`. A revision git does not know is an error.
    Git(String),
}

/// A file's row in a remembered generation.
enum Kept {
    Content(Vec<u8>),
    /// Kept as not keepable (binary, large, a link): its content then is not known.
    Unknown,
    /// No row: clean in the generation's `HEAD`, or not there.
    NoRow,
}

/// What a comparison was made with, in the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Baseline {
    Run { generation: u64 },
    Git { rev: String },
    None,
}

/// What changed, and against what; `files` sorted by path, workspace-relative.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changes {
    pub baseline: Baseline,
    pub files: Vec<FileChange>,
}

/// One changed file. A file whose content is the baseline's again is not listed; one that
/// cannot be read as a regular file now (a link) has no hunks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    pub kind: ChangeKind,
    pub hunks: Vec<Hunk>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeKind {
    Added,
    /// Binary content, or more than 8 MiB, is modified as a whole file.
    Modified,
    /// No hunks.
    Deleted,
    /// Moved (git's `-M`; without git, the same content or at least half its lines equal),
    /// with the lines changed on the way.
    Renamed {
        from: String,
    },
    /// Changed, but its content at the baseline was not kept.
    Unknown,
}

/// Lines of the current file, 1-based inclusive, that are new or changed; a pure deletion
/// is the one line after it (`start == end`, clamped to the file's last line). `Unknown`
/// (content at the baseline not kept) and `Added` have one hunk spanning the whole file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hunk {
    pub start: u32,
    pub end: u32,
}

/// What [`Store::remember`] kept for a generation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Remembered {
    pub generation: u64,
    /// The `HEAD` commit the files not kept are read from; none without git.
    pub head: Option<String>,
    /// Files whose content at the generation is kept (newly or already).
    pub kept: u32,
    /// Files whose content is not kept (binary, larger than 256 KiB, a link, beyond the
    /// bound, or changed while being read): their changes will be `Unknown`.
    pub not_kept: u32,
    /// Bytes of contents added now, and kept in all.
    pub added_bytes: u64,
    pub total_bytes: u64,
}

impl Store {
    /// Keeps what `changes` will need to compare the current generation with later:
    /// called by the engine right after a run is recorded. Returns what it stored (nothing
    /// new when the generation was remembered already).
    pub fn remember(&mut self) -> Result<Remembered, StoreError> {
        let generation = self.generation()?;
        if generation == 0 {
            return Ok(Remembered::default());
        }
        if let Some(head) = remembered(&self.conn, generation)? {
            let total = total_bytes(&self.conn)?;
            return Ok(Remembered {
                generation,
                head,
                total_bytes: total,
                ..Remembered::default()
            });
        }
        let repo = git::Repo::find(&self.root);
        let (head, clean) = match repo.as_ref().and_then(|r| Some((r.head()?, r))) {
            Some((head, r)) => match r.clean() {
                Some(clean) => (Some(head), clean),
                None => (None, HashSet::new()),
            },
            None => (None, HashSet::new()),
        };
        let known: HashSet<i64> = self
            .conn
            .prepare_cached("SELECT hash FROM blobs")?
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let mut rows: Vec<(String, Option<i64>)> = Vec::new();
        let mut new: Vec<(String, i64, Vec<u8>)> = Vec::new();
        for (path, hash, size) in live_files(&self.conn)? {
            if clean.contains(&path) {
                continue;
            }
            if known.contains(&hash) {
                rows.push((path, Some(hash)));
            } else if let Some(data) = keepable(&self.root, &path, hash, size) {
                new.push((path, hash, data));
            } else {
                rows.push((path, None));
            }
        }
        let bound = self.memory_bytes;
        db::write(&self.conn, |c| {
            store_generation(c, generation, head.as_deref(), rows, new, bound)
        })
    }

    /// The generation of the last recorded run in which `test` passed.
    pub fn last_pass(&self, test: &str) -> Result<Option<u64>, StoreError> {
        let g: Option<i64> = self
            .conn
            .prepare_cached(
                "SELECT runs.generation FROM results r
                 JOIN tests t ON t.id = r.test_id JOIN runs ON runs.id = r.run_id
                 WHERE t.name = ?1 AND r.outcome = 0 AND NOT EXISTS (SELECT 1 FROM results f
                     WHERE f.run_id = r.run_id AND f.test_id = r.test_id AND f.outcome = 1)
                 ORDER BY r.run_id DESC LIMIT 1",
            )?
            .query_row([test], |r| r.get(0))
            .optional()?;
        Ok(g.map(|g| g.max(0) as u64))
    }

    /// The generation of the last recorded run whose status was TestsPassed.
    pub fn last_green(&self) -> Result<Option<u64>, StoreError> {
        Ok(self.last_green_run()?.map(|r| r.generation))
    }

    /// The generation of the last recorded green run that ran everything (no test ids
    /// asked): one that vouches for every line it tested, which a green run of a few tests
    /// does not.
    pub fn last_full_green(&self) -> Result<Option<u64>, StoreError> {
        let g: Option<i64> = self
            .conn
            .prepare_cached(
                "SELECT generation FROM runs WHERE status = 'TestsPassed' AND requested = 0
                 ORDER BY id DESC LIMIT 1",
            )?
            .query_row([], |r| r.get(0))
            .optional()?;
        Ok(g.map(|g| g.max(0) as u64))
    }

    /// What differs between the working tree as of the current generation (the caller
    /// scanned first) and `since`. A `Generation` whose contents were not kept falls back
    /// to git HEAD when the workspace is a git repo (Baseline::Git), else Baseline::None
    /// with no files. Sorted by path. Deterministic.
    pub fn changes(&self, since: &Since) -> Result<Changes, StoreError> {
        let none = Changes {
            baseline: Baseline::None,
            files: Vec::new(),
        };
        let rev = match since {
            Since::Generation(g) => match remembered(&self.conn, *g)? {
                Some(head) => {
                    return Ok(Changes {
                        baseline: Baseline::Run { generation: *g },
                        files: self.changes_since_run(*g, head)?,
                    })
                }
                None => "HEAD".to_owned(),
            },
            Since::Git(rev) => rev.clone(),
        };
        let Some(repo) = git::Repo::find(&self.root) else {
            return Ok(none);
        };
        if matches!(since, Since::Generation(_)) && repo.head().is_none() {
            return Ok(none);
        }
        let mut files = repo.diff(&rev)?;
        if let Some(untracked) = repo.untracked() {
            let tracked = self.generation()? > 0;
            let listed: HashSet<String> = files.iter().map(|f| f.path.clone()).collect();
            for path in untracked {
                if listed.contains(&path) || (tracked && !self.is_live(&path)?) {
                    continue;
                }
                let lines = file_lines(&self.root, &path);
                files.push(FileChange {
                    path,
                    kind: ChangeKind::Added,
                    hunks: whole(lines),
                });
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(Changes {
            baseline: Baseline::Git { rev },
            files,
        })
    }

    /// What `paths` (workspace-relative) held at `since`: the content kept for that
    /// generation, else its `HEAD`'s where the file was clean then, else the git revision's.
    /// A path whose content then is not known, or that did not exist, is left out — the
    /// caller keeps its line hunks as they are. One `git cat-file` for all the paths.
    pub fn contents_at(
        &self,
        since: &Since,
        paths: &[&str],
    ) -> Result<HashMap<String, Vec<u8>>, StoreError> {
        let mut found = HashMap::new();
        let rev = match since {
            Since::Generation(g) => match remembered(&self.conn, *g)? {
                Some(head) => {
                    let mut ask = Vec::new();
                    for path in paths {
                        match self.kept_at(*g, path)? {
                            Kept::Content(data) => {
                                found.insert((*path).to_owned(), data);
                            }
                            Kept::Unknown => {}
                            Kept::NoRow => ask.push(*path),
                        }
                    }
                    // Without a row a file was clean in the generation's HEAD, if anywhere.
                    let (Some(head), false) = (head, ask.is_empty()) else {
                        return Ok(found);
                    };
                    if let Some(repo) = git::Repo::find(&self.root) {
                        found.extend(repo.blobs(&head, &ask));
                    }
                    return Ok(found);
                }
                None => "HEAD".to_owned(),
            },
            Since::Git(rev) => rev.clone(),
        };
        if let Some(repo) = git::Repo::find(&self.root) {
            found.extend(repo.blobs(&rev, paths));
        }
        Ok(found)
    }

    fn kept_at(&self, g: u64, path: &str) -> Result<Kept, StoreError> {
        let row: Option<Option<Vec<u8>>> = self
            .conn
            .prepare_cached(
                "SELECT b.data FROM kept k LEFT JOIN blobs b ON b.hash = k.hash
                 WHERE k.generation = ?1 AND k.path = ?2",
            )?
            .query_row(rusqlite::params![g as i64, path], |r| r.get(0))
            .optional()?;
        Ok(match row {
            Some(Some(data)) => Kept::Content(data),
            Some(None) => Kept::Unknown,
            None => Kept::NoRow,
        })
    }

    fn is_live(&self, path: &str) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM files WHERE path = ?1 AND deleted = 0)")?
            .query_row([path], |r| r.get(0))?)
    }
}
