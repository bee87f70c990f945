//! The generation: a counter that increases exactly when something a test run reads changes:
//! the workspace's files (see `walk`: ignored inputs included, build output, caches and
//! dependency trees not) and the inputs outside them (see `environment`: toolchains,
//! virtualenvs, installed packages). A scan trusts a file's size + mtime when both match what
//! was recorded, and hashes the content (xxh3) otherwise, so a `touch` changes nothing (files
//! above [`BIG_FILE`] are fingerprinted by their stat instead). Each file's and input's row
//! keeps the generation of its last change, deleted ones stay as tombstones, so "changed since
//! generation G" is one query.
//!
//! A scan made while a test run goes on ([`Store::scan_during`]) records only what it can
//! tell was there before the run started ([`RunStart`]): a file written, renamed or removed
//! after that is left for the next scan to find, so a generation never claims content the run
//! may not have read.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::Path;
use std::sync::Mutex;

use rusqlite::{Connection, OptionalExtension};

use crate::clock::{mtime_ns, now_ns, stamp};
use crate::environment::{self, Environment, Input};
use crate::watch::Dirty;
use crate::{db, walk, Store, StoreError};

/// A file written this close to when it was looked at may change again within the same mtime
/// tick; its size + mtime are not trusted until it is older ("racy git").
const RACY_NS: i64 = 2_000_000_000;
/// Above this many dirty paths a refresh walks everything instead.
const SCOPED_LIMIT: usize = 2000;
/// Files larger than this (data sets, model weights, archives: mostly ignored files) are
/// fingerprinted by size and mtime rather than read whole on every change; a `touch`
/// of one counts as a change.
const BIG_FILE: i64 = 8 << 20;

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
        scan(&self.conn, &self.root, &self.env, None, None)
    }

    /// Like [`Store::scan`], made while a test run that started at `start` goes on (beside it,
    /// not before it, so that a green run costs what its runner costs): a file or input whose
    /// stamp is not older than `start` is not recorded, nor a deletion in a directory changed
    /// since, and the next scan finds them as changes. The generation returned is thus one the
    /// run tested, or an older one.
    pub fn scan_during(&mut self, start: RunStart) -> Result<u64, StoreError> {
        scan(&self.conn, &self.root, &self.env, None, Some(start))
    }

    /// Like [`Store::scan`], but looks only at what a [`crate::Watcher`] saw change; with
    /// nothing dirty it looks at no file of the workspace. The inputs outside it (which no
    /// watcher sees) and the dependency trees inside it (whose events the watcher drops) are
    /// measured every time: a few dozen `stat`s.
    pub fn refresh(&mut self, dirty: Dirty) -> Result<u64, StoreError> {
        let generation = self.generation()?;
        if dirty.full || generation == 0 || dirty.paths.len() > SCOPED_LIMIT {
            return self.scan();
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
        scan(&self.conn, &self.root, &self.env, Some(scope), None)
    }
}

fn scan(
    conn: &Connection,
    root: &Path,
    env: &Environment,
    scope: Option<Scope>,
    during: Option<RunStart>,
) -> Result<u64, StoreError> {
    // The walk (on its own threads) overlaps the read of the records and the measuring of
    // the inputs known or found in the environment (here); the dependency trees the walk met
    // are measured after it.
    let (loaded, walked) = std::thread::scope(|s| {
        let walker = s.spawn(|| stat_all(root, scope.as_ref()));
        let loaded = load(conn, scope.as_ref()).map(|(generation, known, inputs_known)| {
            let inputs =
                environment::measure_all(root, env, inputs_known.keys().map(String::as_str));
            (generation, known, inputs_known, inputs)
        });
        (loaded, walker.join())
    });
    let (generation, known, inputs_known, mut inputs) = loaded?;
    let (walked, trees) = walked.map_err(|_| {
        StoreError::io(
            format!("walking {}", root.display()),
            std::io::Error::other("the walk failed"),
        )
    })?;
    environment::measure_trees(root, &trees, &mut inputs);
    let changes = Changes::between(root, walked, known, &inputs, &inputs_known, during);
    if generation > 0 && changes.is_empty() {
        return Ok(generation);
    }
    // Another process may have recorded the same changes since `load`: decide against the
    // rows as they are now, inside the write transaction.
    db::write(conn, |c| {
        let generation = db::generation(c)?;
        let decided = changes.decide(c, generation)?;
        let next = if decided.changed {
            generation + 1
        } else {
            generation
        };
        decided.write(c, next as i64)?;
        Ok(next)
    })
}

/// What a scan found different from the rows it loaded.
struct Changes<'a> {
    /// Files whose stat did not match their row (or that have none), hashed.
    observed: Vec<Observed>,
    /// Files with a live row that the walk did not find.
    deleted: Vec<String>,
    /// Inputs whose fingerprint is not the one recorded.
    inputs_changed: Vec<&'a Input>,
    /// Inputs with a live row that are no longer measured.
    inputs_gone: Vec<&'a String>,
}

/// The rows a scan changes, decided inside the write transaction.
struct Decided<'a> {
    changed: bool,
    /// Files to write, and whether the write is a change (else only their stat moved).
    updates: Vec<(&'a Observed, bool)>,
    gone: Vec<&'a String>,
    input_updates: Vec<&'a Input>,
    inputs_tomb: Vec<&'a String>,
}

impl<'a> Changes<'a> {
    /// Compares what the walk and the measuring found with the rows `load` read, hashing the
    /// files whose stat cannot be trusted.
    /// During a run (`during`), what may have changed after it started is left out.
    fn between(
        root: &Path,
        walked: Vec<Seen>,
        mut known: Known,
        inputs: &'a [Input],
        inputs_known: &'a KnownInputs,
        during: Option<RunStart>,
    ) -> Changes<'a> {
        let before = |stamp: i64| during.is_none_or(|start| start.precedes(stamp));
        let inputs_changed: Vec<&Input> = inputs
            .iter()
            .filter(|i| inputs_known.get(&i.key) != Some(&i.hash) && before(i.stamp))
            .collect();
        let measured: HashSet<&str> = inputs.iter().map(|i| i.key.as_str()).collect();
        let inputs_gone: Vec<&String> = inputs_known
            .keys()
            .filter(|k| !measured.contains(k.as_str()))
            .filter(|k| {
                during.is_none_or(|start| {
                    environment::key_path(root, k).is_some_and(|p| removed_before(&p, start))
                })
            })
            .collect();
        let mut candidates: Vec<(Seen, Option<Record>)> = Vec::new();
        for f in walked {
            match known.remove(f.rel.as_str()) {
                Some(k) if k.size == f.size && k.mtime == f.mtime && !k.racy => {}
                // Written since the run started: the run may have read either content.
                _ if !before(f.stamp) => {}
                k => candidates.push((f, k)),
            }
        }
        let deleted: Vec<String> = known
            .into_keys()
            .filter(|p| during.is_none_or(|start| removed_before(&root.join(p), start)))
            .collect();
        let mut observed = hash_all(root, candidates);
        if let Some(start) = during {
            // Read after the run started: only content still under the stat it was read
            // with, and stamped before the start, is what the run read. The stat is taken as
            // the walk took it: a link's target's, a dangling link's own.
            observed.retain(|o| {
                let path = root.join(&o.path);
                std::fs::metadata(&path)
                    .or_else(|_| std::fs::symlink_metadata(&path))
                    .is_ok_and(|m| {
                        m.len() as i64 == o.size
                            && mtime_ns(&m) == o.mtime
                            && start.precedes(stamp(&m))
                    })
            });
        }
        Changes {
            observed,
            deleted,
            inputs_changed,
            inputs_gone,
        }
    }

    fn is_empty(&self) -> bool {
        self.observed.is_empty()
            && self.deleted.is_empty()
            && self.inputs_changed.is_empty()
            && self.inputs_gone.is_empty()
    }

    /// Which of the changes the rows as they are now still lack.
    fn decide(&self, c: &Connection, generation: u64) -> Result<Decided<'_>, StoreError> {
        let mut decided = Decided {
            changed: generation == 0,
            updates: Vec::new(),
            gone: Vec::new(),
            input_updates: Vec::new(),
            inputs_tomb: Vec::new(),
        };
        let mut get =
            c.prepare_cached("SELECT size, mtime, hash, racy, deleted FROM files WHERE path = ?1")?;
        for o in &self.observed {
            let row: Option<(i64, i64, i64, bool, bool)> = get
                .query_row([&o.path], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                })
                .optional()?;
            match row {
                Some((size, mtime, hash, racy, false)) if hash == o.hash => {
                    if (size, mtime, racy) != (o.size, o.mtime, o.racy) {
                        decided.updates.push((o, false));
                    }
                }
                _ => {
                    decided.changed = true;
                    decided.updates.push((o, true));
                }
            }
        }
        for p in &self.deleted {
            let live: Option<bool> = get
                .query_row([p], |r| r.get::<_, bool>(4).map(|d| !d))
                .optional()?;
            if live == Some(true) {
                decided.changed = true;
                decided.gone.push(p);
            }
        }
        let mut get_input = c.prepare_cached("SELECT hash, deleted FROM inputs WHERE key = ?1")?;
        for i in &self.inputs_changed {
            let row: Option<(i64, bool)> = get_input
                .query_row([&i.key], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            if row != Some((i.hash, false)) {
                decided.changed = true;
                decided.input_updates.push(i);
            }
        }
        for k in &self.inputs_gone {
            let row: Option<(i64, bool)> = get_input
                .query_row([k], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            if matches!(row, Some((_, false))) {
                decided.changed = true;
                decided.inputs_tomb.push(k);
            }
        }
        Ok(decided)
    }
}

impl Decided<'_> {
    /// Writes the decided rows at generation `next`, and `next` as the generation when
    /// anything changed.
    fn write(self, c: &Connection, next: i64) -> Result<(), StoreError> {
        let mut upsert_input = c.prepare_cached(
            "INSERT INTO inputs (key, hash, gen, deleted) VALUES (?1, ?2, ?3, 0)
             ON CONFLICT (key) DO UPDATE SET hash = ?2, gen = ?3, deleted = 0",
        )?;
        for i in self.input_updates {
            upsert_input.execute(rusqlite::params![i.key, i.hash, next])?;
        }
        let mut tomb_input =
            c.prepare_cached("UPDATE inputs SET deleted = 1, gen = ?2 WHERE key = ?1")?;
        for k in self.inputs_tomb {
            tomb_input.execute(rusqlite::params![k, next])?;
        }
        let mut upsert = c.prepare_cached(
            "INSERT INTO files (path, size, mtime, hash, gen, racy, deleted, born)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, ?5)
             ON CONFLICT (path) DO UPDATE SET size = ?2, mtime = ?3, hash = ?4, gen = ?5,
                 racy = ?6, born = CASE WHEN deleted THEN ?5 ELSE born END, deleted = 0",
        )?;
        let mut restat =
            c.prepare_cached("UPDATE files SET size = ?2, mtime = ?3, racy = ?4 WHERE path = ?1")?;
        for (o, bump) in self.updates {
            if bump {
                upsert.execute(rusqlite::params![
                    o.path, o.size, o.mtime, o.hash, next, o.racy
                ])?;
            } else {
                restat.execute(rusqlite::params![o.path, o.size, o.mtime, o.racy])?;
            }
        }
        let mut tomb =
            c.prepare_cached("UPDATE files SET deleted = 1, gen = ?2 WHERE path = ?1")?;
        for p in self.gone {
            tomb.execute(rusqlite::params![p, next])?;
        }
        if self.changed {
            c.execute(
                "UPDATE meta SET value = ?1 WHERE key = 'generation'",
                [next],
            )?;
        }
        Ok(())
    }
}

/// The live inputs' fingerprints by key.
type KnownInputs = HashMap<String, i64>;

/// The generation, the live file rows (all of them, or those in `scope`) and every live
/// input's row, read consistently.
fn load(conn: &Connection, scope: Option<&Scope>) -> Result<(u64, Known, KnownInputs), StoreError> {
    conn.execute_batch("BEGIN")?;
    let result = (|| {
        let generation = db::generation(conn)?;
        let mut inputs = KnownInputs::new();
        let mut stmt = conn.prepare_cached("SELECT key, hash FROM inputs WHERE deleted = 0")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            inputs.insert(r.get(0)?, r.get(1)?);
        }
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
        Ok((generation, known, inputs))
    })();
    let _ = conn.execute_batch("COMMIT");
    result
}

/// A file the walk saw, by its stat.
struct Seen {
    rel: String,
    size: i64,
    mtime: i64,
    /// The later of its mtime and ctime: a file renamed into place keeps its mtime.
    stamp: i64,
    symlink: bool,
}

/// The dependency trees a walk met, by workspace-relative path.
type Trees = Vec<(String, walk::Tree)>;

/// Every file of the workspace (or of `scope`) with its size and mtime (a symlink's are its
/// target's, so an edit through it is seen without reading past it), and the dependency trees
/// met. An empty scope looks at nothing.
fn stat_all(root: &Path, scope: Option<&Scope>) -> (Vec<Seen>, Trees) {
    if scope.is_some_and(|s| s.paths.is_empty()) {
        return (Vec::new(), Vec::new());
    }
    let out: Mutex<Vec<Seen>> = Mutex::new(Vec::new());
    let trees: Mutex<Trees> = Mutex::new(Vec::new());
    let wanted = |rel: &str| scope.is_none_or(|s| s.covers(rel));
    let file = |f: walk::Found<'_>| {
        let symlink = f.file_type.is_symlink();
        let target = if symlink {
            std::fs::metadata(root.join(f.rel)).ok()
        } else {
            None
        };
        let meta = target.as_ref().unwrap_or(&f.meta);
        let seen = Seen {
            rel: f.rel.to_owned(),
            size: meta.len() as i64,
            mtime: mtime_ns(meta),
            stamp: stamp(meta),
            symlink,
        };
        if let Ok(mut v) = out.lock() {
            v.push(seen);
        }
    };
    let tree = |rel: &str, kind: walk::Tree| {
        if let Ok(mut t) = trees.lock() {
            t.push((rel.to_owned(), kind));
        }
    };
    walk::walk(
        root,
        &walk::Visitor {
            wanted: &wanted,
            file: &file,
            tree: &tree,
        },
    );
    (
        out.into_inner().unwrap_or_default(),
        trees.into_inner().unwrap_or_default(),
    )
}

/// Hashes the files whose stat did not vouch for their record (on several threads when there
/// are many, as on the first scan), keeping those whose record must change.
fn hash_all(root: &Path, candidates: Vec<(Seen, Option<Record>)>) -> Vec<Observed> {
    let now = now_ns();
    let one = |(f, record): (Seen, Option<Record>)| -> Option<Observed> {
        let path = root.join(&f.rel);
        let hash = if f.symlink {
            // Where it points, and the stat of what it points at: never read through.
            std::fs::read_link(&path)
                .map(|t| hash_bytes(t.as_os_str().as_encoded_bytes()) ^ 1)
                .unwrap_or(0)
                ^ stat_hash(f.size, f.mtime)
        } else if f.size > BIG_FILE {
            stat_hash(f.size, f.mtime) ^ 2
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

fn stat_hash(size: i64, mtime: i64) -> i64 {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&size.to_le_bytes());
    b[8..].copy_from_slice(&mtime.to_le_bytes());
    hash_bytes(&b)
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

/// When a test run started, read from the clock the kernel stamps file times with (the coarse
/// real-time clock: a write after this instant is stamped no earlier than it, where reading
/// the precise clock could be ahead of a stamp taken just after).
#[derive(Debug, Clone, Copy)]
pub struct RunStart(i64);

/// File systems that stamp whole seconds (or two: FAT) truncate a later write's time to
/// before the start: such a stamp is trusted only this far before it.
const WHOLE_SECONDS_NS: i64 = 2_000_000_000;

impl RunStart {
    pub fn now() -> RunStart {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid timespec for the call to write.
        let ok = unsafe { libc::clock_gettime(libc::CLOCK_REALTIME_COARSE, &mut ts) } == 0;
        if !ok {
            // No coarse clock: the precise one, one coarse tick (at most 10 ms) earlier.
            return RunStart(now_ns() - 10_000_000);
        }
        RunStart(ts.tv_sec.saturating_mul(1_000_000_000) + ts.tv_nsec)
    }

    /// Whether something stamped `stamp` (nanoseconds) was there before the run started.
    fn precedes(self, stamp: i64) -> bool {
        if stamp % 1_000_000_000 == 0 {
            stamp < self.0 - WHOLE_SECONDS_NS
        } else {
            stamp < self.0
        }
    }
}

/// Whether `path`, not found, went before the run started: the nearest directory above it
/// that still exists was last changed before then (removing an entry changes its directory).
fn removed_before(path: &Path, start: RunStart) -> bool {
    path.ancestors()
        .skip(1)
        .find_map(|d| std::fs::metadata(d).ok())
        .is_some_and(|m| start.precedes(stamp(&m)))
}

/// Files and inputs changed after generation `since`: how many, and the first `limit`, most
/// recent first (inputs shown as [`Environment::display`] says).
pub(crate) fn changed_since(
    conn: &Connection,
    env: &Environment,
    since: u64,
    limit: usize,
) -> Result<(u64, Vec<String>), StoreError> {
    let since = since as i64;
    let count: i64 = conn
        .prepare_cached(
            "SELECT (SELECT count(*) FROM files WHERE gen > ?1)
                  + (SELECT count(*) FROM inputs WHERE gen > ?1)",
        )?
        .query_row([since], |r| r.get(0))?;
    if count == 0 {
        return Ok((0, Vec::new()));
    }
    let mut stmt = conn.prepare_cached(
        "SELECT path, gen, 0 FROM files WHERE gen > ?1
         UNION ALL SELECT key, gen, 1 FROM inputs WHERE gen > ?1
         ORDER BY 2 DESC, 1 LIMIT ?2",
    )?;
    let names = stmt
        .query_map(rusqlite::params![since, limit as i64], |r| {
            let name: String = r.get(0)?;
            let input: bool = r.get(2)?;
            Ok(if input { env.display(&name) } else { name })
        })?
        .collect::<Result<Vec<String>, _>>()?;
    Ok((count.max(0) as u64, names))
}

/// The first input outside the workspace's files (a toolchain, a virtualenv, installed
/// packages) changed after generation `since`, as [`Environment::display`] shows it.
pub(crate) fn input_changed_since(
    conn: &Connection,
    env: &Environment,
    since: u64,
) -> Result<Option<String>, StoreError> {
    let key: Option<String> = conn
        .prepare_cached("SELECT key FROM inputs WHERE gen > ?1 ORDER BY gen DESC, key LIMIT 1")?
        .query_row([since as i64], |r| r.get(0))
        .optional()?;
    Ok(key.map(|k| env.display(&k)))
}
