//! Reading an index file: its header checked and its sections bounds-checked once, then
//! names found by binary search and their postings decoded lazily, so a query touches one
//! record and one stream of a memory map.

use super::varint::Reader;
use super::{DefP, RefP, HEADER_WORDS, MAGIC, NAME_RECORD, VERSION};
use crate::extract::NONE;
use crate::walk::{FileMeta, Stamp};
use std::ops::{Deref, Range};
use std::path::Path;

pub(super) enum Bytes {
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
    pub(super) bytes: Bytes,
    blob: Range<usize>,
    offsets: Range<usize>,
    pub(super) n_strings: usize,
    names: Range<usize>,
    pub(super) n_names: usize,
    postings: Range<usize>,
    pub(super) stamps_off: usize,
    pub(crate) files: Vec<FileMeta>,
    pub(crate) dirs: Vec<Stamp>,
    pub(crate) watched: Vec<Stamp>,
}

/// One name's entry: where its definitions and references are.
pub(crate) struct NameRecord {
    pub(super) name: u32,
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

    pub(super) fn record(&self, i: usize) -> Option<NameRecord> {
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

#[cfg(test)]
mod tests {
    use super::super::builder::Builder;
    use super::super::HEADER;
    use super::*;

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
