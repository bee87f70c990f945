//! What an update re-reads: the walk joined with the old file table (a file whose size and
//! mtime are the same keeps its entry), and the files that changed parsed on several threads
//! while the builder carries the old index's other files over.

use super::builder::Builder;
use super::segment::Segment;
use crate::extract::{self, FileSymbols, NONE};
use crate::fx::FxHashMap;
use crate::lang::Lang;
use crate::walk::{self, Candidate, FileMeta, MAX_FILE_BYTES};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// Bytes looked at for a NUL to call a file binary.
const BINARY_PROBE: usize = 8192;

/// The walk joined with the old file table.
pub(super) struct Joined {
    /// By old file id: its id in the new table, or `NONE` when it changed or went.
    pub(super) remap: Vec<u32>,
    /// The new file table, in the walk's order; a file to parse has no language or lines yet.
    pub(super) metas: Vec<FileMeta>,
    /// The walk's ids of the files that are new or changed.
    pub(super) to_parse: Vec<usize>,
    /// Old files the walk no longer found.
    pub(super) removed: usize,
}

/// Joins the walk with the old file table, both sorted by path: a file whose size and mtime
/// are the same keeps its entry, any other is to be parsed.
pub(super) fn join(old_files: &[FileMeta], candidates: &[Candidate]) -> Joined {
    let now = walk::now_nanos();
    let mut remap = vec![NONE; old_files.len()];
    let mut metas: Vec<FileMeta> = Vec::with_capacity(candidates.len());
    let mut to_parse: Vec<usize> = Vec::new();
    let mut removed = 0;
    let mut j = 0;
    for (id, c) in candidates.iter().enumerate() {
        while j < old_files.len() && old_files[j].path.as_str() < c.rel.as_str() {
            removed += 1;
            j += 1;
        }
        let same = old_files.get(j).filter(|o| o.path == c.rel);
        if same.is_some() {
            j += 1;
        }
        match same {
            Some(o) if o.size == c.size && o.mtime == c.mtime && o.mtime != 0 => {
                remap[j - 1] = id as u32;
                metas.push(o.clone());
            }
            _ => {
                to_parse.push(id);
                metas.push(FileMeta {
                    path: c.rel.clone(),
                    size: c.size,
                    mtime: walk::settled(c.mtime, now),
                    lang: 0,
                    lines: 0,
                });
            }
        }
    }
    removed += old_files.len() - j;
    Joined {
        remap,
        metas,
        to_parse,
        removed,
    }
}

/// The files an update parses, by their walk ids.
pub(super) struct Changed<'a> {
    pub(super) candidates: &'a [Candidate],
    pub(super) to_parse: &'a [usize],
}

impl Changed<'_> {
    /// Parses the files on `threads` threads while `builder` carries the old index's
    /// unchanged files over (`carried`: the old index and its remap); each parsed file's
    /// language and lines go into `metas`.
    pub(super) fn parse_into(
        &self,
        builder: &mut Builder,
        carried: Option<(&Segment, &[u32])>,
        metas: &mut [FileMeta],
        threads: usize,
    ) {
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            let (tx, rx) = mpsc::sync_channel::<(usize, Option<FileSymbols>)>(256);
            for _ in 0..threads.max(1) {
                let tx = tx.clone();
                let next = &next;
                scope.spawn(move || self.parse_some(next, &tx));
            }
            drop(tx);
            if let Some((old, remap)) = carried {
                builder.carry(old, remap);
            }
            for (id, syms) in rx {
                let Some(syms) = syms else {
                    continue;
                };
                builder.add_file(id as u32, &syms);
                metas[id].lang = self.candidates[id].lang.code();
                metas[id].lines = syms.lines;
            }
        });
    }

    /// One parsing thread: takes the next file not taken yet until none is left (or the
    /// receiver is gone), keeping one parser per language.
    fn parse_some(&self, next: &AtomicUsize, tx: &mpsc::SyncSender<(usize, Option<FileSymbols>)>) {
        let mut parsers: FxHashMap<Lang, Option<tree_sitter::Parser>> = FxHashMap::default();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(&id) = self.to_parse.get(i) else {
                break;
            };
            let c = &self.candidates[id];
            let parser = parsers.entry(c.lang).or_insert_with(|| c.lang.parser());
            let syms = parser.as_mut().and_then(|p| parse_file(p, c));
            if tx.send((id, syms)).is_err() {
                break;
            }
        }
    }
}

/// Reads and parses one file; `None` when it is too large, binary or unreadable.
fn parse_file(parser: &mut tree_sitter::Parser, c: &Candidate) -> Option<FileSymbols> {
    if c.size > MAX_FILE_BYTES {
        return None;
    }
    let src = std::fs::read(&c.abs).ok()?;
    if src.len() as u64 > MAX_FILE_BYTES || src[..src.len().min(BINARY_PROBE)].contains(&0) {
        return None;
    }
    let tree = parser.parse(&src, None)?;
    Some(extract::extract(c.lang, &c.rel, &tree, &src))
}
