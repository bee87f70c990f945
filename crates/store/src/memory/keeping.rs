//! Keeping a generation's contents: which files are worth it (text, small, not a link, still
//! what the scan hashed), written content-addressed beside the generation's rows within the
//! bound. The oldest generations' contents make room first and what still does not fit is not
//! kept, so a later question answers `Unknown` for it rather than "unchanged". Apart from
//! comparing: this side writes, once per run and in one transaction; comparing only reads back.

use std::collections::HashSet;
use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension};

use super::files::read_limited;
use super::{Remembered, SNIFF};
use crate::{db, StoreError};

/// Files larger than this are not kept (their changes are answered `Unknown`).
const KEEP_LIMIT: u64 = 256 * 1024;

/// A remembered generation's `HEAD` (`Some(None)` when remembered without git).
pub(super) fn remembered(c: &Connection, g: u64) -> Result<Option<Option<String>>, StoreError> {
    Ok(
        c.prepare_cached("SELECT head FROM remembered WHERE generation = ?1")?
            .query_row([g as i64], |r| r.get(0))
            .optional()?,
    )
}

pub(super) fn total_bytes(c: &Connection) -> Result<u64, StoreError> {
    let n: i64 = c
        .prepare_cached("SELECT coalesce(sum(size), 0) FROM blobs")?
        .query_row([], |r| r.get(0))?;
    Ok(n.max(0) as u64)
}

/// Live files: path, hash, size.
pub(super) fn live_files(c: &Connection) -> Result<Vec<(String, i64, i64)>, StoreError> {
    Ok(
        c.prepare_cached("SELECT path, hash, size FROM files WHERE deleted = 0")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<Result<_, _>>()?,
    )
}

/// The file's content when it is text, small enough, not a link, and still what the scan
/// hashed.
pub(super) fn keepable(root: &Path, path: &str, hash: i64, size: i64) -> Option<Vec<u8>> {
    if size < 0 || size as u64 > KEEP_LIMIT {
        return None;
    }
    let data = read_limited(root, path, KEEP_LIMIT)?;
    if data[..data.len().min(SNIFF)].contains(&0) {
        return None;
    }
    (xxhash_rust::xxh3::xxh3_64(&data) as i64 == hash).then_some(data)
}

/// Writes one generation's rows and new contents, making room within `bound` by dropping
/// the oldest generations' contents first; what still does not fit is not kept.
pub(super) fn store_generation(
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
