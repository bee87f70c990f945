//! Writing an index file: strings interned, postings gathered by name (from parsed files, or
//! carried over from the old index for files that did not change) and encoded in the layout
//! the module describes; and the old file with new stamps when only they changed.

use super::segment::Segment;
use super::varint::put;
use super::{DefP, RefP, HEADER, HEADER_WORDS, MAGIC, NAME_RECORD, VERSION};
use crate::extract::{FileSymbols, NONE};
use crate::fx::FxHashMap;
use crate::walk::{FileMeta, Stamp};

#[derive(Default)]
struct Postings {
    defs: Vec<DefP>,
    refs: Vec<RefP>,
}

#[derive(Default)]
pub(super) struct Builder {
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

    pub(super) fn add_file(&mut self, file: u32, syms: &FileSymbols) {
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
    pub(super) fn carry(&mut self, old: &Segment, remap: &[u32]) {
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
    pub(super) fn finish(
        mut self,
        files: &[FileMeta],
        dirs: &[Stamp],
        watched: &[Stamp],
    ) -> Vec<u8> {
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
pub(super) fn restamp(old: &Segment, dirs: &[Stamp], watched: &[Stamp]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(old.stamps_off + 64 * (dirs.len() + watched.len()));
    out.extend_from_slice(old.bytes.get(..old.stamps_off)?);
    write_stamps(&mut out, dirs, watched);
    let len = out.len() - old.stamps_off;
    set_word(&mut out, HEADER_WORDS - 1, len);
    Some(out)
}
