//! Change memory: what the workspace's files held at the generations a later question compares
//! with (a test's last pass, the last green run), so pith can say which lines changed since —
//! with git (the generation's `HEAD` commit plus the files that differed from it) or without
//! (every text file itself). Contents are kept content-addressed (by the xxh3 the scan already
//! computes) in `blobs`, bounded (oldest generations' contents go first), and pruned with the
//! history; what is gone is answered `Unknown`, never "unchanged".

mod git;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension};

use crate::{db, Store, StoreError};

/// Bytes of file contents kept at most, by default.
pub const MEMORY_BYTES: u64 = 64 << 20;
/// Files larger than this are not kept (their changes are answered `Unknown`).
const KEEP_LIMIT: u64 = 256 * 1024;
/// How much of a file is looked at for a NUL byte to call it binary.
const SNIFF: usize = 8 * 1024;
/// Above this size a file's changes are its whole file rather than a line diff.
const DIFF_LIMIT: u64 = 8 << 20;
/// Similarity comparisons tried at most when pairing deleted with added files.
const RENAME_TRIES: usize = 400;

/// What a comparison is made with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Since {
    /// The content at a run's generation (see [`Store::last_pass`], [`Store::last_green`]).
    Generation(u64),
    /// A git revision, e.g. `HEAD`: tracked changes (renames found by git) plus untracked,
    /// unignored files as `Added`. A revision git does not know is an error.
    Git(String),
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
        let g: Option<i64> = self
            .conn
            .prepare_cached(
                "SELECT generation FROM runs WHERE status = 'TestsPassed' ORDER BY id DESC LIMIT 1",
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

    fn is_live(&self, path: &str) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM files WHERE path = ?1 AND deleted = 0)")?
            .query_row([path], |r| r.get(0))?)
    }

    /// The files changed after remembered generation `g`, compared with their kept content
    /// (or `head`'s, for those that were clean then).
    fn changes_since_run(
        &self,
        g: u64,
        head: Option<String>,
    ) -> Result<Vec<FileChange>, StoreError> {
        let mut then = self.contents_then(g, head.is_some())?;
        if let Some(head) = &head {
            let ask: Vec<&str> = then
                .iter()
                .filter(|(_, t)| matches!(t.old, Old::Head))
                .map(|(p, _)| p.as_str())
                .collect();
            if !ask.is_empty() {
                if let Some(repo) = git::Repo::find(&self.root) {
                    let mut got = repo.blobs(head, &ask);
                    for (path, t) in then.iter_mut() {
                        if matches!(t.old, Old::Head) {
                            t.old = got.remove(path).map_or(Old::Unknown, Old::Content);
                        }
                    }
                }
            }
        }
        let mut added = Vec::new();
        let mut deleted = Vec::new();
        let mut files = Vec::new();
        for (path, t) in then {
            let Then { old, live, hash } = t;
            match (old, live) {
                (Old::Absent, false) => {}
                (Old::Absent, true) => added.push((path, hash)),
                (old, false) => deleted.push((path, old)),
                (Old::Content(old), true) => {
                    if let Some(f) = modified(&self.root, path, &old) {
                        files.push(f);
                    }
                }
                (_, true) => {
                    let lines = file_lines(&self.root, &path);
                    files.push(FileChange {
                        path,
                        kind: ChangeKind::Unknown,
                        hunks: whole(lines),
                    });
                }
            }
        }
        files.extend(pair_renames(&self.root, added, deleted));
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    }

    /// Every file changed after `g`: whether it lives now, its hash, and what it held at `g`.
    fn contents_then(&self, g: u64, git: bool) -> Result<Vec<(String, Then)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT f.path, f.hash, f.born, f.deleted, k.path IS NOT NULL, b.data
             FROM files f
             LEFT JOIN kept k ON k.generation = ?1 AND k.path = f.path
             LEFT JOIN blobs b ON b.hash = k.hash
             WHERE f.gen > ?1 ORDER BY f.path",
        )?;
        let rows = stmt.query_map([g as i64], |r| {
            let path: String = r.get(0)?;
            let hash: i64 = r.get(1)?;
            let born: i64 = r.get(2)?;
            let deleted: bool = r.get(3)?;
            let has_row: bool = r.get(4)?;
            let data: Option<Vec<u8>> = r.get(5)?;
            let old = match (has_row, data) {
                (true, Some(d)) => Old::Content(d),
                (true, None) => Old::Unknown,
                // Without git every file that existed had a row; with git a file without
                // one was clean in HEAD, if it existed then.
                (false, _) if git && born.max(0) as u64 <= g => Old::Head,
                (false, _) => Old::Absent,
            };
            Ok((
                path,
                Then {
                    old,
                    live: !deleted,
                    hash,
                },
            ))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

/// A changed file's state at the baseline, and now.
struct Then {
    old: Old,
    live: bool,
    hash: i64,
}

enum Old {
    /// It did not exist.
    Absent,
    /// Its content then is not known.
    Unknown,
    /// Clean in the generation's `HEAD`: read from there.
    Head,
    Content(Vec<u8>),
}

/// A remembered generation's `HEAD` (`Some(None)` when remembered without git).
fn remembered(c: &Connection, g: u64) -> Result<Option<Option<String>>, StoreError> {
    Ok(
        c.prepare_cached("SELECT head FROM remembered WHERE generation = ?1")?
            .query_row([g as i64], |r| r.get(0))
            .optional()?,
    )
}

fn total_bytes(c: &Connection) -> Result<u64, StoreError> {
    let n: i64 = c
        .prepare_cached("SELECT coalesce(sum(size), 0) FROM blobs")?
        .query_row([], |r| r.get(0))?;
    Ok(n.max(0) as u64)
}

/// Live files: path, hash, size.
fn live_files(c: &Connection) -> Result<Vec<(String, i64, i64)>, StoreError> {
    Ok(
        c.prepare_cached("SELECT path, hash, size FROM files WHERE deleted = 0")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<Result<_, _>>()?,
    )
}

/// The file's content when it is text, small enough, not a link, and still what the scan
/// hashed.
fn keepable(root: &Path, path: &str, hash: i64, size: i64) -> Option<Vec<u8>> {
    if size < 0 || size as u64 > KEEP_LIMIT {
        return None;
    }
    let data = read_limited(root, path, KEEP_LIMIT)?;
    if data[..data.len().min(SNIFF)].contains(&0) {
        return None;
    }
    (xxhash_rust::xxh3::xxh3_64(&data) as i64 == hash).then_some(data)
}

/// A file's content, read without following a link, when at most `limit` bytes.
fn read_limited(root: &Path, path: &str, limit: u64) -> Option<Vec<u8>> {
    let f = std::fs::File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(root.join(path))
        .ok()?;
    if !f.metadata().ok()?.is_file() {
        return None;
    }
    let mut data = Vec::new();
    f.take(limit + 1).read_to_end(&mut data).ok()?;
    (data.len() as u64 <= limit).then_some(data)
}

/// How many lines a file has now, counted as it streams by (any size); 0 when it cannot be
/// read as a regular file.
pub(crate) fn file_lines(root: &Path, path: &str) -> u32 {
    let Ok(mut f) = std::fs::File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(root.join(path))
    else {
        return 0;
    };
    if !f.metadata().is_ok_and(|m| m.is_file()) {
        return 0;
    }
    let mut buf = vec![0u8; 64 * 1024];
    let (mut lines, mut last) = (0u64, b'\n');
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
                last = buf[n - 1];
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    let lines = lines + u64::from(last != b'\n');
    u32::try_from(lines).unwrap_or(u32::MAX)
}

/// A file's current content, up to the diff limit.
pub(crate) fn read_current(root: &Path, path: &str) -> Option<Vec<u8>> {
    read_limited(root, path, DIFF_LIMIT)
}

/// Writes one generation's rows and new contents, making room within `bound` by dropping
/// the oldest generations' contents first; what still does not fit is not kept.
fn store_generation(
    c: &Connection,
    generation: u64,
    head: Option<&str>,
    rows: Vec<(String, Option<i64>)>,
    mut new: Vec<(String, i64, Vec<u8>)>,
    bound: u64,
) -> Result<Remembered, StoreError> {
    let g = generation as i64;
    // Another process's scan since this one read the files would have them labelled with
    // the wrong generation: nothing is kept (the next run remembers its own).
    if db::generation(c)? != generation || remembered(c, generation)?.is_some() {
        return Ok(Remembered {
            generation,
            total_bytes: total_bytes(c)?,
            ..Remembered::default()
        });
    }
    c.prepare_cached("INSERT OR REPLACE INTO remembered (generation, head) VALUES (?1, ?2)")?
        .execute(params![g, head])?;
    let mut row = c.prepare_cached(
        "INSERT OR REPLACE INTO kept (generation, path, hash) VALUES (?1, ?2, ?3)",
    )?;
    let mut out = Remembered {
        generation,
        head: head.map(str::to_owned),
        ..Remembered::default()
    };
    for (path, hash) in &rows {
        row.execute(params![g, path, hash])?;
        if hash.is_some() {
            out.kept += 1;
        } else {
            out.not_kept += 1;
        }
    }
    new.sort_by(|a, b| a.0.cmp(&b.0));
    let mut seen = HashSet::new();
    let need: u64 = new
        .iter()
        .filter(|(_, h, _)| seen.insert(*h))
        .map(|(_, _, d)| d.len() as u64)
        .sum();
    let mut total = make_room(c, g, need, bound)?;
    let mut blob = c.prepare_cached("INSERT INTO blobs (hash, size, data) VALUES (?1, ?2, ?3)")?;
    for (path, hash, data) in &new {
        let size = data.len() as u64;
        let stored = if seen_blob(c, *hash)? {
            true
        } else if total + size <= bound {
            blob.execute(params![hash, size as i64, data])?;
            total += size;
            out.added_bytes += size;
            true
        } else {
            false
        };
        row.execute(params![g, path, stored.then_some(*hash)])?;
        if stored {
            out.kept += 1;
        } else {
            out.not_kept += 1;
        }
    }
    out.total_bytes = total;
    Ok(out)
}

/// Drops the contents only older generations use, oldest generation first, until `need`
/// more bytes fit within `bound` (or no older generation is left); returns the bytes kept.
fn make_room(c: &Connection, g: i64, need: u64, bound: u64) -> Result<u64, StoreError> {
    let mut total = total_bytes(c)?;
    if total + need <= bound {
        return Ok(total);
    }
    let older: Vec<i64> = c
        .prepare_cached("SELECT generation FROM remembered WHERE generation < ?1 ORDER BY 1")?
        .query_map([g], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut drop = c.prepare_cached(
        "DELETE FROM blobs WHERE hash IN (SELECT hash FROM kept WHERE generation = ?1)
             AND hash NOT IN (SELECT hash FROM kept WHERE generation > ?1
                 AND hash IS NOT NULL)",
    )?;
    for old in older {
        if total + need <= bound {
            break;
        }
        drop.execute([old])?;
        total = total_bytes(c)?;
    }
    Ok(total)
}

/// Whether a content is kept already (a second file with the same content as one just
/// kept, or one another process kept meanwhile).
fn seen_blob(c: &Connection, hash: i64) -> Result<bool, StoreError> {
    Ok(
        c.prepare_cached("SELECT EXISTS (SELECT 1 FROM blobs WHERE hash = ?1)")?
            .query_row([hash], |r| r.get(0))?,
    )
}

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

/// A file changed in place: its hunks against `old`, or none when the content is the same
/// again. Binary content, or more than 8 MiB of it, is changed as a whole.
fn modified(root: &Path, path: String, old: &[u8]) -> Option<FileChange> {
    let Some(new) = read_current(root, &path) else {
        let lines = file_lines(root, &path);
        return Some(FileChange {
            path,
            kind: ChangeKind::Modified,
            hunks: whole(lines),
        });
    };
    if new == old {
        return None;
    }
    let hunks = if is_binary(old) || is_binary(&new) {
        whole(count_lines(&new))
    } else {
        changed_line_slices(old, &new)
    };
    Some(FileChange {
        path,
        kind: ChangeKind::Modified,
        hunks,
    })
}

fn is_binary(data: &[u8]) -> bool {
    data[..data.len().min(SNIFF)].contains(&0)
}

/// Added files and deleted ones, paired where an added file is a deleted one moved: the
/// same content, else at least half its lines equal (the best match).
fn pair_renames(
    root: &Path,
    added: Vec<(String, i64)>,
    deleted: Vec<(String, Old)>,
) -> Vec<FileChange> {
    let mut out = Vec::new();
    let mut gone: Vec<Gone> = deleted
        .into_iter()
        .map(|(p, old)| {
            Some((
                p,
                match old {
                    Old::Content(d) => Some(d),
                    _ => None,
                },
            ))
        })
        .collect();
    let by_hash: HashMap<i64, usize> = gone
        .iter()
        .enumerate()
        .filter_map(|(i, g)| {
            let d = g.as_ref()?.1.as_ref()?;
            Some((xxhash_rust::xxh3::xxh3_64(d) as i64, i))
        })
        .collect();
    let mut tries = 0;
    for (path, hash) in added {
        let new = read_current(root, &path);
        let exact = by_hash.get(&hash).copied().filter(|&i| gone[i].is_some());
        let best = exact.or_else(|| {
            let new = new.as_deref().filter(|n| !is_binary(n))?;
            most_similar(&gone, new, &mut tries)
        });
        let lines = |path: &str| match &new {
            Some(n) => count_lines(n),
            None => file_lines(root, path),
        };
        match best.and_then(|i| gone[i].take()) {
            Some((from, old)) => {
                let hunks = match (&old, &new) {
                    (Some(o), Some(n)) if o == n => Vec::new(),
                    (Some(o), Some(n)) if !is_binary(o) && !is_binary(n) => {
                        changed_line_slices(o, n)
                    }
                    _ => whole(lines(&path)),
                };
                out.push(FileChange {
                    path,
                    kind: ChangeKind::Renamed { from },
                    hunks,
                });
            }
            None => {
                let hunks = whole(lines(&path));
                out.push(FileChange {
                    path,
                    kind: ChangeKind::Added,
                    hunks,
                });
            }
        }
    }
    out.extend(gone.into_iter().flatten().map(|(path, _)| FileChange {
        path,
        kind: ChangeKind::Deleted,
        hunks: Vec::new(),
    }));
    out
}

/// The deleted file (with content) most like `new`, if at least half their lines are equal;
/// `tries` counts the comparisons made, which stop at [`RENAME_TRIES`].
fn most_similar(gone: &[Gone], new: &[u8], tries: &mut usize) -> Option<usize> {
    let mut best: Option<(f32, usize)> = None;
    for (i, g) in gone.iter().enumerate() {
        let Some((_, Some(old))) = g else { continue };
        if *tries >= RENAME_TRIES || is_binary(old) {
            continue;
        }
        *tries += 1;
        let r = similarity(old, new);
        if r >= 0.5 && best.is_none_or(|(b, _)| r > b) {
            best = Some((r, i));
        }
    }
    best.map(|(_, i)| i)
}

/// A deleted file not yet paired: its path and content at the baseline, when known.
type Gone = Option<(String, Option<Vec<u8>>)>;

/// The share of lines two contents have in common, 0 to 1.
fn similarity(old: &[u8], new: &[u8]) -> f32 {
    let (a, b) = (split_lines(old), split_lines(new));
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &a, &b);
    let equal: usize = ops
        .iter()
        .map(|op| match op {
            similar::DiffOp::Equal { len, .. } => *len,
            _ => 0,
        })
        .sum();
    (2 * equal) as f32 / total as f32
}

/// The lines of `new` that are new or changed relative to `old` (see [`Hunk`]): a Myers
/// line diff, O((N+M)·D).
pub fn changed_lines(old: &str, new: &str) -> Vec<Hunk> {
    changed_line_slices(old.as_bytes(), new.as_bytes())
}

/// Lines as byte slices, each with its newline, so a changed last newline is a change.
fn split_lines(data: &[u8]) -> Vec<&[u8]> {
    data.split_inclusive(|&b| b == b'\n').collect()
}

pub(crate) fn count_lines(data: &[u8]) -> u32 {
    u32::try_from(split_lines(data).len()).unwrap_or(u32::MAX)
}

fn changed_line_slices(old: &[u8], new: &[u8]) -> Vec<Hunk> {
    let (a, b) = (split_lines(old), split_lines(new));
    let last = u32::try_from(b.len()).unwrap_or(u32::MAX);
    let line = |i: usize| u32::try_from(i).unwrap_or(u32::MAX).saturating_add(1);
    let mut hunks = Vec::new();
    // Where the new file is at: a deletion's own `new_index` is not always the position
    // that follows the ops before it, so it is tracked here.
    let mut at = 0;
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &a, &b) {
        match op {
            similar::DiffOp::Equal { new_index, len, .. } => at = new_index + len,
            similar::DiffOp::Delete { .. } => {
                if last > 0 {
                    let line = line(at).min(last);
                    hunks.push(Hunk {
                        start: line,
                        end: line,
                    });
                }
            }
            similar::DiffOp::Insert {
                new_index, new_len, ..
            }
            | similar::DiffOp::Replace {
                new_index, new_len, ..
            } => {
                hunks.push(Hunk {
                    start: line(new_index),
                    end: line(new_index + new_len.max(1) - 1),
                });
                at = new_index + new_len;
            }
        }
    }
    merge(hunks)
}

/// Hunks sorted, overlapping or adjacent ones joined.
pub(crate) fn merge(mut hunks: Vec<Hunk>) -> Vec<Hunk> {
    hunks.sort();
    let mut out: Vec<Hunk> = Vec::with_capacity(hunks.len());
    for h in hunks {
        match out.last_mut() {
            Some(l) if h.start <= l.end.saturating_add(1) => l.end = l.end.max(h.end),
            _ => out.push(h),
        }
    }
    out
}

/// One hunk spanning a file of `lines` lines (none for an empty file).
pub(crate) fn whole(lines: u32) -> Vec<Hunk> {
    if lines == 0 {
        Vec::new()
    } else {
        vec![Hunk {
            start: 1,
            end: lines,
        }]
    }
}
