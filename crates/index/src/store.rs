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

use crate::extract::{self, FileSymbols, NONE};
use crate::fx::FxHashMap;
use crate::lang::Lang;
use crate::walk::{self, Candidate, FileMeta, Stamp, Walked, MAX_FILE_BYTES};
use crate::UpdateStats;
use std::ops::{Deref, Range};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

const MAGIC: &[u8; 8] = b"PITHIDX\0";
/// Bumped whenever the layout or what extraction records changes; an index of another
/// version is rebuilt.
const VERSION: u32 = 3;
const HEADER_WORDS: usize = 13;
const HEADER: usize = 16 + HEADER_WORDS * 8;
const NAME_RECORD: usize = 36;
/// Bytes looked at for a NUL to call a file binary.
const BINARY_PROBE: usize = 8192;

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

enum Bytes {
    Map(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Map(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

/// A readable index.
pub(crate) struct Segment {
    bytes: Bytes,
    blob: Range<usize>,
    offsets: Range<usize>,
    n_strings: usize,
    names: Range<usize>,
    n_names: usize,
    postings: Range<usize>,
    stamps_off: usize,
    pub(crate) files: Vec<FileMeta>,
    pub(crate) dirs: Vec<Stamp>,
    pub(crate) watched: Vec<Stamp>,
}

/// One name's entry: where its definitions and references are.
pub(crate) struct NameRecord {
    name: u32,
    n_defs: u32,
    n_refs: u32,
    defs: Range<usize>,
    refs: Range<usize>,
}

impl Segment {
    /// The index at `path`, or `None` when it is missing, of another version or damaged.
    pub(crate) fn open(path: &Path) -> Option<Segment> {
        // Never read through a link: the state directory or the index itself pointing
        // elsewhere.
        let linked =
            |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
        if linked(path) || path.parent().is_some_and(linked) {
            return None;
        }
        let file = std::fs::File::open(path).ok()?;
        // SAFETY: the index file is only ever replaced by rename, never written in place, so
        // the mapped bytes do not change under us (short of another program truncating it).
        let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
        Segment::parse(Bytes::Map(map))
    }

    pub(crate) fn from_bytes(bytes: Vec<u8>) -> Option<Segment> {
        Segment::parse(Bytes::Owned(bytes))
    }

    fn parse(bytes: Bytes) -> Option<Segment> {
        let b: &[u8] = &bytes;
        if b.get(..8)? != MAGIC || u32_at(b, 8)? != VERSION {
            return None;
        }
        let mut w = [0usize; HEADER_WORDS];
        for (i, slot) in w.iter_mut().enumerate() {
            *slot = usize::try_from(u64_at(b, 16 + i * 8)?).ok()?;
        }
        let [blob_off, blob_len, offsets_off, n_strings, files_off, files_len, n_files, names_off, n_names, post_off, post_len, stamps_off, stamps_len] =
            w;
        let range = |off: usize, len: usize| -> Option<Range<usize>> {
            let end = off.checked_add(len)?;
            (end <= b.len()).then_some(off..end)
        };
        let blob = range(blob_off, blob_len)?;
        let offsets = range(offsets_off, n_strings.checked_add(1)?.checked_mul(8)?)?;
        let files_range = range(files_off, files_len)?;
        let names = range(names_off, n_names.checked_mul(NAME_RECORD)?)?;
        let postings = range(post_off, post_len)?;
        let stamps_range = range(stamps_off, stamps_len)?;
        let mut seg = Segment {
            bytes: Bytes::Owned(Vec::new()),
            blob,
            offsets,
            n_strings,
            names,
            n_names,
            postings,
            stamps_off,
            files: Vec::new(),
            dirs: Vec::new(),
            watched: Vec::new(),
        };
        let mut files = Vec::with_capacity(n_files.min(1 << 20));
        let mut r = Reader::new(&b[files_range]);
        for _ in 0..n_files {
            let path = r.u32()?;
            let size = r.next()?;
            let mtime = r.next()?;
            let lang = u8::try_from(r.next()?).ok()?;
            let lines = r.u32()?;
            let path = seg.string_in(b, path)?.to_owned();
            files.push(FileMeta {
                path,
                size,
                mtime,
                lang,
                lines,
            });
        }
        seg.files = files;
        let mut r = Reader::new(&b[stamps_range]);
        for list in [&mut seg.dirs, &mut seg.watched] {
            let n = r.next()?;
            for _ in 0..n {
                let len = usize::try_from(r.next()?).ok()?;
                let path = std::str::from_utf8(r.bytes(len)?).ok()?.to_owned();
                let size = r.next()?;
                let mtime = r.next()?;
                list.push(Stamp { path, size, mtime });
            }
        }
        seg.bytes = bytes;
        Some(seg)
    }

    fn string_in<'b>(&self, b: &'b [u8], id: u32) -> Option<&'b str> {
        seg_string(b, &self.blob, &self.offsets, self.n_strings, id)
    }

    /// A string by id; `None` for the "no string" marker or a bad id.
    pub(crate) fn string(&self, id: u32) -> Option<&str> {
        if id == NONE {
            return None;
        }
        self.string_in(&self.bytes, id)
    }

    pub(crate) fn file(&self, id: u32) -> Option<&FileMeta> {
        self.files.get(usize::try_from(id).ok()?)
    }

    fn record(&self, i: usize) -> Option<NameRecord> {
        let b: &[u8] = &self.bytes;
        let at = self.names.start + i * NAME_RECORD;
        let base = self.postings.start;
        let abs = |off: u64, len: u32| -> Option<Range<usize>> {
            let start = base.checked_add(usize::try_from(off).ok()?)?;
            let end = start.checked_add(usize::try_from(len).ok()?)?;
            (end <= self.postings.end).then_some(start..end)
        };
        Some(NameRecord {
            name: u32_at(b, at)?,
            n_defs: u32_at(b, at + 4)?,
            n_refs: u32_at(b, at + 8)?,
            defs: abs(u64_at(b, at + 20)?, u32_at(b, at + 12)?)?,
            refs: abs(u64_at(b, at + 28)?, u32_at(b, at + 16)?)?,
        })
    }

    /// The record of exactly `name`, by binary search over the sorted name table.
    pub(crate) fn lookup(&self, name: &str) -> Option<NameRecord> {
        let (mut lo, mut hi) = (0, self.n_names);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let rec = self.record(mid)?;
            match self.string(rec.name)?.as_bytes().cmp(name.as_bytes()) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(rec),
            }
        }
        None
    }

    pub(crate) fn defs(&self, rec: &NameRecord) -> impl Iterator<Item = DefP> + '_ {
        let mut r = Reader::new(self.bytes.get(rec.defs.clone()).unwrap_or(&[]));
        let mut file = 0u32;
        (0..rec.n_defs).map_while(move |_| {
            file = file.checked_add(r.u32()?)?;
            let line = r.u32()?;
            let kind = r.next()?;
            let chain = r.u32()?.wrapping_sub(1);
            let shown = r.u32()?;
            Some(DefP {
                file,
                line,
                kind,
                chain,
                shown,
            })
        })
    }

    pub(crate) fn refs(&self, rec: &NameRecord) -> impl Iterator<Item = RefP> + '_ {
        let mut r = Reader::new(self.bytes.get(rec.refs.clone()).unwrap_or(&[]));
        // The first reference's file delta is its file + 1 (0 means "same file").
        let (mut file, mut line) = (u32::MAX, 0u32);
        (0..rec.n_refs).map_while(move |_| {
            let df = r.u32()?;
            let dl = r.u32()?;
            if df == 0 {
                line = line.checked_add(dl)?;
            } else {
                file = file.wrapping_add(df);
                line = dl;
            }
            let qual = r.u32()?.wrapping_sub(1);
            Some(RefP { file, line, qual })
        })
    }
}

fn seg_string<'b>(
    b: &'b [u8],
    blob: &Range<usize>,
    offsets: &Range<usize>,
    n_strings: usize,
    id: u32,
) -> Option<&'b str> {
    let id = usize::try_from(id).ok()?;
    if id >= n_strings {
        return None;
    }
    let at = offsets.start + id * 8;
    let start = usize::try_from(u64_at(b, at)?).ok()?;
    let end = usize::try_from(u64_at(b, at + 8)?).ok()?;
    let blob = b.get(blob.clone())?;
    std::str::from_utf8(blob.get(start..end)?).ok()
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

struct Reader<'b> {
    b: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    fn new(b: &'b [u8]) -> Self {
        Reader { b, at: 0 }
    }

    /// One LEB128 varint.
    fn next(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *self.b.get(self.at)?;
            self.at += 1;
            v |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    fn u32(&mut self) -> Option<u32> {
        u32::try_from(self.next()?).ok()
    }

    fn bytes(&mut self, len: usize) -> Option<&'b [u8]> {
        let out = self.b.get(self.at..self.at.checked_add(len)?)?;
        self.at += len;
        Some(out)
    }
}

fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

// ---- building ----

#[derive(Default)]
struct Postings {
    defs: Vec<DefP>,
    refs: Vec<RefP>,
}

#[derive(Default)]
struct Builder {
    ids: FxHashMap<Box<str>, u32>,
    strings: Vec<Box<str>>,
    /// By string id: the index of that name's postings, or `NONE`.
    posting_of: Vec<u32>,
    postings: Vec<(u32, Postings)>,
}

impl Builder {
    fn intern(&mut self, s: &str) -> u32 {
        if let Some(id) = self.ids.get(s) {
            return *id;
        }
        let id = self.strings.len() as u32;
        self.strings.push(s.into());
        self.ids.insert(s.into(), id);
        id
    }

    fn postings(&mut self, name: u32) -> &mut Postings {
        let i = name as usize;
        if self.posting_of.len() <= i {
            self.posting_of.resize(i + 1, NONE);
        }
        if self.posting_of[i] == NONE {
            self.posting_of[i] = self.postings.len() as u32;
            self.postings.push((name, Postings::default()));
        }
        let p = self.posting_of[i] as usize;
        &mut self.postings[p].1
    }

    fn add_file(&mut self, file: u32, syms: &FileSymbols) {
        let map: Vec<u32> = syms.strings.iter().map(|s| self.intern(s)).collect();
        let local = |id: u32| map.get(id as usize).copied().unwrap_or(NONE);
        for d in &syms.defs {
            let p = DefP {
                file,
                line: d.line,
                kind: u64::from(crate::kind_code(d.kind)),
                chain: local(d.chain),
                shown: d.shown,
            };
            self.postings(local(d.name)).defs.push(p);
        }
        for r in &syms.refs {
            let p = RefP {
                file,
                line: r.line,
                qual: local(r.qual),
            };
            self.postings(local(r.name)).refs.push(p);
        }
    }

    /// Copies the postings of files that did not change from the old index.
    fn carry(&mut self, old: &Segment, remap: &[u32]) {
        let mut strings = vec![NONE; old.n_strings];
        let mut map = |b: &mut Builder, id: u32| -> u32 {
            let Some(slot) = strings.get_mut(id as usize) else {
                return NONE;
            };
            if *slot == NONE {
                if let Some(s) = old.string(id) {
                    *slot = b.intern(s);
                }
            }
            *slot
        };
        let new_file = |f: u32| remap.get(f as usize).copied().unwrap_or(NONE);
        for i in 0..old.n_names {
            let Some(rec) = old.record(i) else {
                continue;
            };
            let defs: Vec<DefP> = old
                .defs(&rec)
                .filter_map(|d| {
                    let file = new_file(d.file);
                    (file != NONE).then_some(DefP { file, ..d })
                })
                .collect();
            let refs: Vec<RefP> = old
                .refs(&rec)
                .filter_map(|r| {
                    let file = new_file(r.file);
                    (file != NONE).then_some(RefP { file, ..r })
                })
                .collect();
            if defs.is_empty() && refs.is_empty() {
                continue;
            }
            let name = map(self, rec.name);
            if name == NONE {
                continue;
            }
            let defs: Vec<DefP> = defs
                .into_iter()
                .map(|d| DefP {
                    chain: if d.chain == NONE {
                        NONE
                    } else {
                        map(self, d.chain)
                    },
                    ..d
                })
                .collect();
            let refs: Vec<RefP> = refs
                .into_iter()
                .map(|r| RefP {
                    qual: if r.qual == NONE {
                        NONE
                    } else {
                        map(self, r.qual)
                    },
                    ..r
                })
                .collect();
            let p = self.postings(name);
            p.defs.extend(defs);
            p.refs.extend(refs);
        }
    }

    /// The index file's bytes, in the layout the module describes.
    fn finish(mut self, files: &[FileMeta], dirs: &[Stamp], watched: &[Stamp]) -> Vec<u8> {
        let file_paths: Vec<u32> = files.iter().map(|f| self.intern(&f.path)).collect();
        let mut postings = std::mem::take(&mut self.postings);
        postings.sort_unstable_by(|a, b| {
            self.strings[a.0 as usize]
                .as_bytes()
                .cmp(self.strings[b.0 as usize].as_bytes())
        });

        let mut out = vec![0u8; HEADER];
        let (blob_off, blob_len, offsets_off) = self.write_strings(&mut out);
        let files_off = out.len();
        write_files(&mut out, files, &file_paths);
        let files_len = out.len() - files_off;
        let (records, stream) = encode_postings(postings);
        let names_off = out.len();
        let n_names = records.len() / NAME_RECORD;
        out.extend_from_slice(&records);
        let post_off = out.len();
        out.extend_from_slice(&stream);
        let stamps_off = out.len();
        write_stamps(&mut out, dirs, watched);
        let stamps_len = out.len() - stamps_off;

        out[..8].copy_from_slice(MAGIC);
        out[8..12].copy_from_slice(&VERSION.to_le_bytes());
        let words = [
            blob_off,
            blob_len,
            offsets_off,
            self.strings.len(),
            files_off,
            files_len,
            files.len(),
            names_off,
            n_names,
            post_off,
            stream.len(),
            stamps_off,
            stamps_len,
        ];
        for (i, w) in words.into_iter().enumerate() {
            set_word(&mut out, i, w);
        }
        out
    }

    /// The string table: every string's bytes back to back, then each one's start (and the
    /// end) as a u64. Returns the blob's offset and length and the offsets' offset.
    fn write_strings(&self, out: &mut Vec<u8>) -> (usize, usize, usize) {
        let blob_off = out.len();
        let mut offsets = Vec::with_capacity(self.strings.len() + 1);
        for s in &self.strings {
            offsets.push((out.len() - blob_off) as u64);
            out.extend_from_slice(s.as_bytes());
        }
        offsets.push((out.len() - blob_off) as u64);
        let blob_len = out.len() - blob_off;
        let offsets_off = out.len();
        for o in &offsets {
            out.extend_from_slice(&o.to_le_bytes());
        }
        (blob_off, blob_len, offsets_off)
    }
}

/// The file table: each file's path (a string id), size, mtime, language and lines.
fn write_files(out: &mut Vec<u8>, files: &[FileMeta], paths: &[u32]) {
    for (f, path) in files.iter().zip(paths) {
        put(out, u64::from(*path));
        put(out, f.size);
        put(out, f.mtime);
        put(out, u64::from(f.lang));
        put(out, u64::from(f.lines));
    }
}

/// The name records (sorted as `postings` is) and the postings stream they point into.
fn encode_postings(postings: Vec<(u32, Postings)>) -> (Vec<u8>, Vec<u8>) {
    let mut stream = Vec::new();
    let mut records = Vec::with_capacity(postings.len() * NAME_RECORD);
    for (name, mut p) in postings {
        p.defs.sort_unstable();
        p.defs.dedup();
        p.refs.sort_unstable();
        p.refs.dedup();
        let defs_off = stream.len();
        encode_defs(&mut stream, &p.defs);
        let refs_off = stream.len();
        encode_refs(&mut stream, &p.refs);
        let end = stream.len();
        records.extend_from_slice(&name.to_le_bytes());
        records.extend_from_slice(&(p.defs.len() as u32).to_le_bytes());
        records.extend_from_slice(&(p.refs.len() as u32).to_le_bytes());
        records.extend_from_slice(&((refs_off - defs_off) as u32).to_le_bytes());
        records.extend_from_slice(&((end - refs_off) as u32).to_le_bytes());
        records.extend_from_slice(&(defs_off as u64).to_le_bytes());
        records.extend_from_slice(&(refs_off as u64).to_le_bytes());
    }
    (records, stream)
}

/// One name's definitions, sorted: files as deltas.
fn encode_defs(stream: &mut Vec<u8>, defs: &[DefP]) {
    let mut file = 0;
    for d in defs {
        put(stream, u64::from(d.file - file));
        file = d.file;
        put(stream, u64::from(d.line));
        put(stream, d.kind);
        put(stream, u64::from(d.chain.wrapping_add(1)));
        put(stream, u64::from(d.shown));
    }
}

/// One name's references, sorted: a file delta of 0 means the same file, whose lines are
/// then deltas too.
fn encode_refs(stream: &mut Vec<u8>, refs: &[RefP]) {
    let (mut file, mut line) = (0, 0);
    for (i, r) in refs.iter().enumerate() {
        if i > 0 && r.file == file {
            put(stream, 0);
            put(stream, u64::from(r.line - line));
        } else {
            // The first reference always states its file (+1 keeps 0 for "same").
            let delta = if i == 0 { r.file + 1 } else { r.file - file };
            put(stream, u64::from(delta));
            put(stream, u64::from(r.line));
        }
        file = r.file;
        line = r.line;
        put(stream, u64::from(r.qual.wrapping_add(1)));
    }
}

/// The stamps section: paths inline (not in the string table), so it can be rewritten alone.
fn write_stamps(out: &mut Vec<u8>, dirs: &[Stamp], watched: &[Stamp]) {
    for list in [dirs, watched] {
        put(out, list.len() as u64);
        for s in list {
            put(out, s.path.len() as u64);
            out.extend_from_slice(s.path.as_bytes());
            put(out, s.size);
            put(out, s.mtime);
        }
    }
}

fn set_word(out: &mut [u8], i: usize, w: usize) {
    out[16 + i * 8..24 + i * 8].copy_from_slice(&(w as u64).to_le_bytes());
}

/// The old index with new stamps when only they changed (a directory's mtime settled, a
/// non-source file came or went): the symbols are the same, so only the last section is
/// rewritten.
fn restamp(old: &Segment, dirs: &[Stamp], watched: &[Stamp]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(old.stamps_off + 64 * (dirs.len() + watched.len()));
    out.extend_from_slice(old.bytes.get(..old.stamps_off)?);
    write_stamps(&mut out, dirs, watched);
    let len = out.len() - old.stamps_off;
    set_word(&mut out, HEADER_WORDS - 1, len);
    Some(out)
}

// ---- updating ----

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

/// The walk joined with the old file table.
struct Joined {
    /// By old file id: its id in the new table, or `NONE` when it changed or went.
    remap: Vec<u32>,
    /// The new file table, in the walk's order; a file to parse has no language or lines yet.
    metas: Vec<FileMeta>,
    /// The walk's ids of the files that are new or changed.
    to_parse: Vec<usize>,
    /// Old files the walk no longer found.
    removed: usize,
}

/// Joins the walk with the old file table, both sorted by path: a file whose size and mtime
/// are the same keeps its entry, any other is to be parsed.
fn join(old_files: &[FileMeta], candidates: &[Candidate]) -> Joined {
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
struct Changed<'a> {
    candidates: &'a [Candidate],
    to_parse: &'a [usize],
}

impl Changed<'_> {
    /// Parses the files on `threads` threads while `builder` carries the old index's
    /// unchanged files over (`carried`: the old index and its remap); each parsed file's
    /// language and lines go into `metas`.
    fn parse_into(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        let mut b = Vec::new();
        for v in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            put(&mut b, v);
        }
        let mut r = Reader::new(&b);
        for v in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            assert_eq!(r.next(), Some(v));
        }
        assert_eq!(r.next(), None);
    }

    #[test]
    fn damaged_bytes_are_no_index() {
        assert!(Segment::from_bytes(Vec::new()).is_none());
        assert!(Segment::from_bytes(b"PITHIDX\0garbage".to_vec()).is_none());
        let good = Builder::default().finish(&[], &[], &[]);
        assert!(Segment::from_bytes(good.clone()).is_some());
        for cut in [HEADER - 1, good.len() - 1] {
            assert!(
                Segment::from_bytes(good[..cut].to_vec()).is_none(),
                "cut at {cut}"
            );
        }
    }
}
