//! The code index: where each name is defined and where it is used, from tree-sitter syntax
//! trees of Rust, Python, Go, JavaScript, TypeScript (and TSX), Java and C#. It is persisted
//! in the workspace's state directory (outside the workspace: `pith_store::state_dir`) and
//! brought up to date from changed files only each time it is opened, so a query costs a walk
//! of the workspace's metadata plus a lookup.
//!
//! Resolution is syntactic: names are matched as written, not resolved through types. A
//! qualifier is used where the syntax gives one (`Config::load`, `self.check`, `net.Parse`).

mod behaviour;
mod extract;
mod fx;
mod graph;
mod lang;
mod store;
mod touched;
mod walk;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use behaviour::behaviour_changes;
pub use graph::Graph;
pub use pith_model::symbol::{Definition, FileUses, Kind};
pub use touched::{mentions_any, read_change, touched_names, use_of, Reading, Touched, Use};
pub use walk::MAX_FILE_BYTES;

/// The index file's name, in the workspace's state directory.
pub const INDEX_FILE: &str = "index.bin";

/// Where the index of the workspace at `root` is kept: in its state directory (made when
/// missing), `None` when there is none to use (the index is then answered from memory).
pub fn index_file(root: &Path) -> Option<PathBuf> {
    pith_store::state_dir(root).ok().map(|d| d.join(INDEX_FILE))
}

/// A kind's code in the index file: its position in [`Kind::ALL`].
fn kind_code(kind: Kind) -> u8 {
    Kind::ALL.iter().position(|k| *k == kind).unwrap_or(0) as u8
}

fn kind_from_code(code: u64) -> Option<Kind> {
    Kind::ALL.get(usize::try_from(code).ok()?).copied()
}

/// What bringing the index up to date did.
#[derive(Debug, Clone, Default)]
pub struct UpdateStats {
    /// Source files in the workspace the index knows (indexed or skipped).
    pub files: usize,
    /// Files parsed now (new or changed).
    pub parsed: usize,
    /// Lines in the files parsed now.
    pub parsed_lines: u64,
    /// Files gone since the last update.
    pub removed: usize,
    /// Files not indexed: binary or larger than [`MAX_FILE_BYTES`].
    pub skipped: usize,
    /// Whether the workspace was walked; without a change to any directory or ignore file,
    /// only the known files' metadata is read.
    pub walked: bool,
    /// Whether the updated index was written to disk.
    pub saved: bool,
    pub elapsed: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("{0} is not a directory")]
    NotADirectory(PathBuf),
    #[error("cannot read the workspace {path}: {source}")]
    Walk {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the index pith just built does not read back (a bug in pith)")]
    Unreadable,
}

/// How to open an index.
#[derive(Debug, Clone)]
pub struct Options {
    /// Write the updated index to the state directory (without one, it is answered from
    /// memory). Either way an index written before is read.
    pub persist: bool,
    /// Parser threads; 0 means one per available core.
    pub threads: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            persist: true,
            threads: 0,
        }
    }
}

/// A workspace's index, up to date as of when it was opened.
pub struct Index {
    segment: store::Segment,
    stats: UpdateStats,
}

impl Index {
    /// Opens the index of the workspace at `root`, first bringing it up to date: files whose
    /// size or modification time changed are re-parsed, new ones added, deleted ones dropped.
    pub fn open(root: &Path) -> Result<Index, IndexError> {
        Index::open_with(root, &Options::default())
    }

    pub fn open_with(root: &Path, options: &Options) -> Result<Index, IndexError> {
        let start = Instant::now();
        if !root.is_dir() {
            return Err(IndexError::NotADirectory(root.to_path_buf()));
        }
        let threads = match options.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let file = index_file(root);
        let old = file.as_deref().and_then(store::Segment::open);
        let quick = old.as_ref().and_then(|o| {
            let paths: Vec<&str> = o.files.iter().map(|f| f.path.as_str()).collect();
            walk::quick(root, &paths, &o.dirs, &o.watched, threads)
        });
        let walked = quick.is_none();
        let found = match quick {
            Some(found) => found,
            None => walk::walk(root, threads)?,
        };
        let (updated, mut stats) = store::update(old, found, threads);
        stats.walked = walked;
        let segment = match updated {
            store::Updated::Unchanged(segment) => segment,
            store::Updated::Changed(bytes) => {
                if let (true, Some(file)) = (options.persist, &file) {
                    stats.saved = store::save(file, &bytes);
                }
                store::Segment::from_bytes(bytes).ok_or(IndexError::Unreadable)?
            }
        };
        stats.elapsed = start.elapsed();
        Ok(Index { segment, stats })
    }

    /// This index brought up to date with what a file watcher saw change since it was opened
    /// (or last refreshed): `changed` holds workspace-relative paths. Only those files are
    /// looked at, and with nothing changed nothing is; when a change may alter which files
    /// there are (a new source file or directory, an ignore file) the workspace is opened
    /// anew, as [`Index::open_with`] does.
    pub fn refreshed(
        self,
        root: &Path,
        changed: &std::collections::BTreeSet<String>,
        options: &Options,
    ) -> Result<Index, IndexError> {
        let start = Instant::now();
        if changed.is_empty() {
            let mut index = self;
            index.stats.parsed = 0;
            index.stats.parsed_lines = 0;
            index.stats.removed = 0;
            index.stats.walked = false;
            index.stats.saved = false;
            index.stats.elapsed = start.elapsed();
            return Ok(index);
        }
        let old = self.segment;
        let Some(found) = walk::after_changes(root, &old.files, &old.dirs, &old.watched, changed)
        else {
            return Index::open_with(root, options);
        };
        let threads = match options.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let (updated, mut stats) = store::update(Some(old), found, threads);
        let segment = match updated {
            store::Updated::Unchanged(segment) => segment,
            store::Updated::Changed(bytes) => {
                if let (true, Some(file)) = (options.persist, index_file(root)) {
                    stats.saved = store::save(&file, &bytes);
                }
                store::Segment::from_bytes(bytes).ok_or(IndexError::Unreadable)?
            }
        };
        stats.elapsed = start.elapsed();
        Ok(Index { segment, stats })
    }

    pub fn stats(&self) -> &UpdateStats {
        &self.stats
    }

    /// Definitions of `query` (a name, or a qualified name such as `Config::load`,
    /// `config.Config.load`), best first: types, then callables, then the rest; code before
    /// tests; shallower paths first.
    pub fn definitions(&self, query: &str, kind: Option<Kind>) -> Vec<Definition> {
        let q = Query::parse(query);
        let Some(rec) = self.segment.lookup(q.name) else {
            return Vec::new();
        };
        let mut out: Vec<Definition> = self
            .segment
            .defs(&rec)
            .filter(|d| kind.is_none_or(|k| kind_from_code(d.kind) == Some(k)))
            .filter_map(|d| {
                let chain = self.segment.string(d.chain);
                if !q.matches_chain(chain) {
                    return None;
                }
                let file = self.segment.file(d.file)?;
                Some(Definition {
                    name: q.name.to_owned(),
                    kind: kind_from_code(d.kind)?,
                    file: file.path.clone(),
                    line: d.line,
                    container: chain
                        .and_then(|c| c.get(usize::try_from(d.shown).ok()?..))
                        .filter(|c| !c.is_empty())
                        .map(str::to_owned),
                })
            })
            .collect();
        out.sort_by(|a, b| {
            let key = |d: &Definition| {
                (
                    walk::is_test_path(&d.file),
                    d.kind.rank(),
                    d.file.matches('/').count(),
                )
            };
            key(a)
                .cmp(&key(b))
                .then_with(|| a.file.cmp(&b.file))
                .then(a.line.cmp(&b.line))
        });
        out
    }

    /// Uses of `query` grouped by file, in path order. A qualified query (`Config::load`)
    /// keeps only uses written with that qualifier (`Config::load(..)`, `self.load()` inside
    /// `Config`); a plain name keeps every use.
    pub fn usages(&self, query: &str) -> Vec<FileUses> {
        let q = Query::parse(query);
        let Some(rec) = self.segment.lookup(q.name) else {
            return Vec::new();
        };
        let want_qual = q.qualifier.last().copied();
        let mut out: Vec<FileUses> = Vec::new();
        let mut current = u32::MAX;
        for r in self.segment.refs(&rec) {
            if let Some(want) = want_qual {
                if self.segment.string(r.qual) != Some(want) {
                    continue;
                }
            }
            if r.file != current || out.is_empty() {
                let Some(file) = self.segment.file(r.file) else {
                    continue;
                };
                current = r.file;
                out.push(FileUses {
                    file: file.path.clone(),
                    lines: Vec::new(),
                });
            }
            if let Some(last) = out.last_mut() {
                if last.lines.last() != Some(&r.line) {
                    last.lines.push(r.line);
                }
            }
        }
        out
    }
}

/// A query split into its qualifier segments and the name: `a::B::c`, `a.B.c`, `B#c`, `c()`.
struct Query<'a> {
    qualifier: Vec<&'a str>,
    name: &'a str,
}

impl<'a> Query<'a> {
    fn parse(q: &'a str) -> Query<'a> {
        let q = q.trim();
        let q = q.strip_suffix("()").unwrap_or(q);
        let mut parts: Vec<&str> = split_qualified(q).collect();
        let name = parts.pop().unwrap_or("");
        while parts
            .first()
            .is_some_and(|p| matches!(*p, "crate" | "self" | "super"))
        {
            parts.remove(0);
        }
        Query {
            qualifier: parts,
            name,
        }
    }

    /// Whether a definition's container chain ends with the query's qualifier.
    fn matches_chain(&self, chain: Option<&str>) -> bool {
        if self.qualifier.is_empty() {
            return true;
        }
        let Some(chain) = chain else {
            return false;
        };
        let segments: Vec<&str> = split_qualified(chain).collect();
        segments.ends_with(&self.qualifier)
    }
}

fn split_qualified(s: &str) -> impl Iterator<Item = &str> {
    s.split("::")
        .flat_map(|p| p.split(['.', '#']))
        .filter(|p| !p.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_split_on_any_separator() {
        let q = Query::parse("crate::config::Config::load");
        assert_eq!(
            (q.qualifier.as_slice(), q.name),
            (&["config", "Config"][..], "load")
        );
        let q = Query::parse("app.config.Config#load()");
        assert_eq!(q.qualifier, ["app", "config", "Config"]);
        assert_eq!(q.name, "load");
        assert!(q.matches_chain(Some("app.config.Config")));
        assert!(!q.matches_chain(Some("Config")));
        assert!(Query::parse("load").matches_chain(None));
    }

    #[test]
    fn kinds_parse_from_names_and_keywords() {
        for k in Kind::ALL {
            assert_eq!(Kind::parse(k.name()), Some(k));
            assert_eq!(kind_from_code(u64::from(kind_code(k))), Some(k));
        }
        assert_eq!(Kind::parse("fn"), Some(Kind::Function));
        assert_eq!(Kind::parse("Classes"), Some(Kind::Class));
        assert_eq!(Kind::parse("widget"), None);
    }
}
