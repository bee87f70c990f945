//! The persisted index, `index.bin` in the workspace's state directory: one immutable file, memory-mapped for queries and
//! replaced whole (write to a temporary file, rename) when files changed, so readers never see
//! a half-written index and concurrent `pith` processes cannot corrupt it.
//!
//! Layout (little-endian): a header of section offsets; a string table (names, paths,
//! containers); the file table (path, size, mtime, language, lines) as varints; a sorted table
//! of fixed-size name records, binary-searched by name; and per name, its definitions and its
//! references as varint streams sorted by (file, line). A query reads one record and one
//! stream, whatever the size of the workspace. An update re-parses only files whose size or
//! modification time changed and carries every other file's postings over from the old index.
//! Last come the stamps (mtimes) of the directories and ignore files the walk saw, which let
//! the next update skip the walk when none of them changed.
//! Reads are bounds-checked: a damaged file yields fewer results or a rebuild, never a panic.
//!
//! This file holds what the rooms share (the layout's constants, the posting types) and the
//! update that drives them: `segment` reads a file, `builder` writes one, `changed` finds and
//! parses the files that changed, `varint` is the streams' one encoding.

mod builder;
mod changed;
mod segment;
mod varint;

use crate::walk::{FileMeta, Walked};
use crate::UpdateStats;
use std::path::Path;

use builder::{restamp, Builder};
use changed::{join, Changed, Joined};
pub(crate) use segment::Segment;

const MAGIC: &[u8; 8] = b"PITHIDX\0";
/// Bumped whenever the layout or what extraction records changes; an index of another
/// version is rebuilt.
const VERSION: u32 = 3;
const HEADER_WORDS: usize = 13;
const HEADER: usize = 16 + HEADER_WORDS * 8;
const NAME_RECORD: usize = 36;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct DefP {
    pub(crate) file: u32,
    pub(crate) line: u32,
    pub(crate) kind: u64,
    pub(crate) chain: u32,
    pub(crate) shown: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct RefP {
    pub(crate) file: u32,
    pub(crate) line: u32,
    pub(crate) qual: u32,
}

pub(crate) enum Updated {
    Unchanged(Segment),
    Changed(Vec<u8>),
}

/// Brings an index up to date with the files the walk found.
pub(crate) fn update(
    old: Option<Segment>,
    walked: Walked,
    threads: usize,
) -> (Updated, UpdateStats) {
    let Walked {
        files: candidates,
        dirs,
        watched,
    } = walked;
    let old_files: &[FileMeta] = old.as_ref().map_or(&[], |s| &s.files);
    let Joined {
        remap,
        mut metas,
        to_parse,
        removed,
    } = join(old_files, &candidates);
    let mut stats = UpdateStats {
        files: candidates.len(),
        removed,
        ..UpdateStats::default()
    };
    if to_parse.is_empty() && stats.removed == 0 {
        let same_stamps = old
            .as_ref()
            .is_some_and(|o| o.dirs == dirs && o.watched == watched);
        if let Some(o) = &old {
            stats.skipped = o.files.iter().filter(|f| f.lang == 0).count();
            if !same_stamps {
                if let Some(bytes) = restamp(o, &dirs, &watched) {
                    return (Updated::Changed(bytes), stats);
                }
            }
        }
        if same_stamps {
            if let Some(old) = old {
                return (Updated::Unchanged(old), stats);
            }
        }
    }

    let mut builder = Builder::default();
    let changed = Changed {
        candidates: &candidates,
        to_parse: &to_parse,
    };
    changed.parse_into(
        &mut builder,
        old.as_ref().map(|o| (o, &remap[..])),
        &mut metas,
        threads,
    );
    stats.parsed = to_parse.len();
    stats.parsed_lines = to_parse.iter().map(|&id| u64::from(metas[id].lines)).sum();
    stats.skipped = metas.iter().filter(|f| f.lang == 0).count();
    (
        Updated::Changed(builder.finish(&metas, &dirs, &watched)),
        stats,
    )
}

/// Writes the index to `file` (atomically, by rename). Returns whether it was written; a
/// state directory pith cannot write to still answers, from memory.
pub(crate) fn save(file: &Path, bytes: &[u8]) -> bool {
    let Some(dir) = file.parent() else {
        return false;
    };
    let tmp = dir.join(format!("index.bin.{}.tmp", std::process::id()));
    if std::fs::write(&tmp, bytes).is_err() {
        let _ = std::fs::remove_file(&tmp);
        return false;
    }
    if std::fs::rename(&tmp, file).is_err() {
        let _ = std::fs::remove_file(&tmp);
        return false;
    }
    true
}
