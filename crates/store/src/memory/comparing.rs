//! Comparing the work tree with a remembered generation: every file changed since, with its
//! content then (kept, or read from the generation's `HEAD` where it was clean), sorted into
//! modified, added, deleted, renamed and unknown files with their hunks. Deleted and added
//! files are paired into renames here, because only this side holds both lists at once.

use std::collections::HashMap;
use std::path::Path;

use super::files::{file_lines, read_current};
use super::git;
use super::lines::{changed_line_slices, count_lines, similarity, whole};
use super::{ChangeKind, FileChange, SNIFF};
use crate::{Store, StoreError};

/// Similarity comparisons tried at most when pairing deleted with added files.
const RENAME_TRIES: usize = 400;

impl Store {
    /// The files changed after remembered generation `g`, compared with their kept content
    /// (or `head`'s, for those that were clean then).
    pub(super) fn changes_since_run(
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
