//! The generation: a counter that increases exactly when the workspace's source content
//! changes. A scan walks the files git would see (tracked and untracked-not-ignored: the walk
//! honours `.gitignore`, `.ignore`, `.git/info/exclude` and the global excludes, and skips
//! `.git/`, `.pith/` and tool caches), trusts size + mtime when both match what was recorded,
//! and hashes the content (xxh3) otherwise, so a `touch` changes nothing. Each file's row keeps
//! the generation of its last change, deleted files stay as tombstones, so "changed since
//! generation G" is one query.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension};

use crate::watch::Dirty;
use crate::{db, walk, Store, StoreError};

/// A file written this close to when it was looked at may change again within the same mtime
/// tick; its size + mtime are not trusted until it is older ("racy git").
const RACY_NS: i64 = 2_000_000_000;
/// Above this many dirty paths a refresh walks everything instead.
const SCOPED_LIMIT: usize = 2000;

/// The recorded files by workspace-relative path.
type Known = HashMap<String, Record, xxhash_rust::xxh3::Xxh3Builder>;

/// A file as the database last recorded it.
struct Record {
    size: i64,
    mtime: i64,
    hash: i64,
    racy: bool,
}

/// A file whose stat did not match its record (or that has none), with its content hash.
struct Observed {
    path: String,
    size: i64,
    mtime: i64,
    hash: i64,
    racy: bool,
}

/// Which part of the workspace a scan looks at: some paths (and everything under them) and
/// the directories leading to them.
#[derive(Debug, Default)]
struct Scope {
    paths: HashSet<String>,
    ancestors: HashSet<String>,
}

impl Scope {
    fn of<'a>(paths: impl IntoIterator<Item = &'a String>) -> Scope {
        let mut scope = Scope::default();
        for p in paths {
            let mut rest = p.as_str();
            while let Some(i) = rest.rfind('/') {
                rest = &rest[..i];
                scope.ancestors.insert(rest.to_owned());
            }
            scope.paths.insert(p.clone());
        }
        scope
    }

    fn covers(&self, rel: &str) -> bool {
        if self.ancestors.contains(rel) || self.paths.contains(rel) {
            return true;
        }
        let mut rest = rel;
        while let Some(i) = rest.rfind('/') {
            rest = &rest[..i];
            if self.paths.contains(rest) {
                return true;
            }
        }
        false
    }
}

impl Store {
    /// Looks at the workspace's files and returns the current generation, increasing it when
    /// their content changed since the last look (the first look makes generation 1).
    pub fn scan(&mut self) -> Result<u64, StoreError> {
        scan(&self.conn, &self.root, None)
    }

    /// Like [`Store::scan`], but looks only at what a [`crate::Watcher`] saw change; with
    /// nothing dirty it reads the generation without touching the files.
    pub fn refresh(&mut self, dirty: Dirty) -> Result<u64, StoreError> {
        let generation = self.generation()?;
        if dirty.full || generation == 0 || dirty.paths.len() > SCOPED_LIMIT {
            return self.scan();
        }
        if dirty.paths.is_empty() {
            return Ok(generation);
        }
        if dirty
            .paths
            .iter()
            .any(|p| p.ends_with(".gitignore") || p.ends_with(".ignore"))
        {
            // What is ignored changed: every file's standing may have.
            return self.scan();
        }
        let scope = Scope::of(&dirty.paths);
        scan(&self.conn, &self.root, Some(scope))
    }
}

fn scan(conn: &Connection, root: &Path, scope: Option<Scope>) -> Result<u64, StoreError> {
    // The walk (on its own threads) and the read of the records (here) overlap.
    let (loaded, walked) = std::thread::scope(|s| {
        let walker = s.spawn(|| stat_all(root, scope.as_ref()));
        let loaded = load(conn, scope.as_ref());
        (loaded, walker.join())
    });
    let (generation, mut known) = loaded?;
    let walked = walked.map_err(|_| {
        StoreError::io(
            format!("walking {}", root.display()),
            std::io::Error::other("the walk failed"),
        )
    })?;
    let mut candidates: Vec<(Seen, Option<Record>)> = Vec::new();
    for f in walked {
        match known.remove(f.rel.as_str()) {
            Some(k) if k.size == f.size && k.mtime == f.mtime && !k.racy => {}
            k => candidates.push((f, k)),
        }
    }
    let deleted: Vec<String> = known.into_keys().collect();
    let observed = hash_all(root, candidates);
    if generation > 0 && observed.is_empty() && deleted.is_empty() {
        return Ok(generation);
    }
    // Another process may have recorded the same changes since `load`: decide against the
    // rows as they are now, inside the write transaction.
    db::write(conn, |c| {
        let generation = db::generation(c)?;
        let mut changed = generation == 0;
        let mut get =
            c.prepare_cached("SELECT size, mtime, hash, racy, deleted FROM files WHERE path = ?1")?;
        let mut updates: Vec<(&Observed, bool)> = Vec::new();
        for o in &observed {
            let row: Option<(i64, i64, i64, bool, bool)> = get
                .query_row([&o.path], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                })
                .optional()?;
            match row {
                Some((size, mtime, hash, racy, false)) if hash == o.hash => {
                    if (size, mtime, racy) != (o.size, o.mtime, o.racy) {
                        updates.push((o, false));
                    }
                }
                _ => {
                    changed = true;
                    updates.push((o, true));
                }
            }
        }
        let mut gone: Vec<&String> = Vec::new();
        for p in &deleted {
            let live: Option<bool> = get
                .query_row([p], |r| r.get::<_, bool>(4).map(|d| !d))
                .optional()?;
            if live == Some(true) {
                changed = true;
                gone.push(p);
            }
        }
        let next = if changed { generation + 1 } else { generation };
        let next_sql = next as i64;
        let mut upsert = c.prepare_cached(
            "INSERT INTO files (path, size, mtime, hash, gen, racy, deleted, born)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, ?5)
             ON CONFLICT (path) DO UPDATE SET size = ?2, mtime = ?3, hash = ?4, gen = ?5,
                 racy = ?6, born = CASE WHEN deleted THEN ?5 ELSE born END, deleted = 0",
        )?;
        let mut restat =
            c.prepare_cached("UPDATE files SET size = ?2, mtime = ?3, racy = ?4 WHERE path = ?1")?;
        for (o, bump) in updates {
            if bump {
                upsert.execute(rusqlite::params![
                    o.path, o.size, o.mtime, o.hash, next_sql, o.racy
                ])?;
            } else {
                restat.execute(rusqlite::params![o.path, o.size, o.mtime, o.racy])?;
            }
        }
        let mut tomb =
            c.prepare_cached("UPDATE files SET deleted = 1, gen = ?2 WHERE path = ?1")?;
        for p in gone {
            tomb.execute(rusqlite::params![p, next_sql])?;
        }
        if changed {
            c.execute(
                "UPDATE meta SET value = ?1 WHERE key = 'generation'",
                [next_sql],
            )?;
        }
        Ok(next)
    })
}

/// The generation and the live rows (all of them, or those in `scope`), read consistently.
fn load(conn: &Connection, scope: Option<&Scope>) -> Result<(u64, Known), StoreError> {
    conn.execute_batch("BEGIN")?;
    let result = (|| {
        let generation = db::generation(conn)?;
        let mut known = Known::with_hasher(xxhash_rust::xxh3::Xxh3Builder::new());
        let mut add = |r: &rusqlite::Row<'_>| -> rusqlite::Result<()> {
            known.insert(
                r.get::<_, String>(0)?,
                Record {
                    size: r.get(1)?,
                    mtime: r.get(2)?,
                    hash: r.get(3)?,
                    racy: r.get(4)?,
                },
            );
            Ok(())
        };
        match scope {
            None => {
                let mut stmt = conn.prepare_cached(
                    "SELECT path, size, mtime, hash, racy FROM files WHERE deleted = 0",
                )?;
                let mut rows = stmt.query([])?;
                while let Some(r) = rows.next()? {
                    add(r)?;
                }
            }
            Some(scope) => {
                // The path itself and everything under it: `path/` up to `path0` ('/' + 1).
                let mut stmt = conn.prepare_cached(
                    "SELECT path, size, mtime, hash, racy FROM files WHERE deleted = 0
                     AND (path = ?1 OR (path > ?1 || '/' AND path < ?1 || '0'))",
                )?;
                for p in &scope.paths {
                    let mut rows = stmt.query([p])?;
                    while let Some(r) = rows.next()? {
                        add(r)?;
                    }
                }
            }
        }
        Ok((generation, known))
    })();
    let _ = conn.execute_batch("COMMIT");
    result
}

/// A file the walk saw, by its stat.
struct Seen {
    rel: String,
    size: i64,
    mtime: i64,
    symlink: bool,
}

/// Every file of the workspace (or of `scope`) with its size and mtime.
fn stat_all(root: &Path, scope: Option<&Scope>) -> Vec<Seen> {
    let out: Mutex<Vec<Seen>> = Mutex::new(Vec::new());
    let wanted = |rel: &str| scope.is_none_or(|s| s.covers(rel));
    let visit = |f: walk::Found<'_>| {
        let seen = Seen {
            rel: f.rel.to_owned(),
            size: f.meta.len() as i64,
            mtime: f.meta.mtime().saturating_mul(1_000_000_000) + f.meta.mtime_nsec(),
            symlink: f.file_type.is_symlink(),
        };
        if let Ok(mut v) = out.lock() {
            v.push(seen);
        }
    };
    walk::walk(root, &wanted, &visit);
    out.into_inner().unwrap_or_default()
}

/// Hashes the files whose stat did not vouch for their record (on several threads when there
/// are many, as on the first scan), keeping those whose record must change.
fn hash_all(root: &Path, candidates: Vec<(Seen, Option<Record>)>) -> Vec<Observed> {
    let now = now_ns();
    let one = |(f, record): (Seen, Option<Record>)| -> Option<Observed> {
        let path = root.join(&f.rel);
        let hash = if f.symlink {
            std::fs::read_link(&path)
                .map(|t| hash_bytes(t.as_os_str().as_encoded_bytes()) ^ 1)
                .unwrap_or(0)
        } else {
            hash_file(&path)
        };
        let racy = f.mtime > now - RACY_NS;
        if let Some(k) = record {
            if k.hash == hash && k.size == f.size && k.mtime == f.mtime && k.racy == racy {
                return None;
            }
        }
        Some(Observed {
            path: f.rel,
            size: f.size,
            mtime: f.mtime,
            hash,
            racy,
        })
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    if candidates.len() < 64 || threads < 2 {
        return candidates.into_iter().filter_map(one).collect();
    }
    let per = candidates.len().div_ceil(threads);
    let mut chunks: Vec<Vec<(Seen, Option<Record>)>> = Vec::new();
    let mut rest = candidates.into_iter();
    loop {
        let chunk: Vec<_> = rest.by_ref().take(per).collect();
        if chunk.is_empty() {
            break;
        }
        chunks.push(chunk);
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|c| s.spawn(|| c.into_iter().filter_map(one).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

fn hash_bytes(b: &[u8]) -> i64 {
    xxhash_rust::xxh3::xxh3_64(b) as i64
}

/// The content hash; an unreadable file hashes to 0 (a later readable change still differs).
fn hash_file(path: &Path) -> i64 {
    let Ok(mut f) = std::fs::File::open(path) else {
        return 0;
    };
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return 0,
        }
    }
    hasher.digest() as i64
}

fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64)
}

/// Files changed after generation `since`: how many, and the first `limit`, most recent first.
pub(crate) fn changed_since(
    conn: &Connection,
    since: u64,
    limit: usize,
) -> Result<(u64, Vec<String>), StoreError> {
    let since = since as i64;
    let count: i64 = conn
        .prepare_cached("SELECT count(*) FROM files WHERE gen > ?1")?
        .query_row([since], |r| r.get(0))?;
    if count == 0 {
        return Ok((0, Vec::new()));
    }
    let mut stmt = conn
        .prepare_cached("SELECT path FROM files WHERE gen > ?1 ORDER BY gen DESC, path LIMIT ?2")?;
    let names = stmt
        .query_map(rusqlite::params![since, limit as i64], |r| r.get(0))?
        .collect::<Result<Vec<String>, _>>()?;
    Ok((count.max(0) as u64, names))
}
