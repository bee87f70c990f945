//! `go list`'s lines for a module, kept in pith's cache under a fingerprint of everything they
//! depend on, so a run of a module whose packages did not change skips the listing: `go list`
//! beside `go test` competes with it for the machine (on two cores, ~10 ms of a 70 ms run).
//!
//! The fingerprint is what `go list -e ./...` reads: every `.go` file of the module's packages
//! (path, size, modification and change times, inode: build constraints and `package` clauses live in
//! them), its `go.mod`/`go.sum`/`go.work`, the `go.mod` of a nested module (whose presence
//! takes a directory out of `./...`), `vendor/modules.txt`, the go binary itself and every `GO*`
//! and `CGO_*` variable. Directories `./...` skips (`testdata`, names starting with `.` or `_`,
//! nested modules) are not walked, nor are links to directories (`./...` does not follow them).
//! A module too large to walk cheaply is never cached.

use std::hash::{Hash, Hasher};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Entries walked at most; past this the module is listed every run.
const MAX_ENTRIES: usize = 50_000;

/// The first line of a cache file, before the fingerprint.
const MAGIC: &str = "pith go list v1";

/// The fingerprint of what `go list` would read in the module at `dir` with `go` (`format`:
/// its `-f` template); `None` when the module cannot be walked or is too large.
pub(super) fn fingerprint(dir: &Path, go: &Path, format: &str) -> Option<u64> {
    let mut h = std::hash::DefaultHasher::new();
    format.hash(&mut h);
    stamp(&mut h, go, &std::fs::metadata(go).ok()?);
    let mut vars: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.to_string_lossy().into_owned())))
        .filter(|(k, _)| k.starts_with("GO") || k.starts_with("CGO_"))
        .collect();
    vars.sort();
    vars.hash(&mut h);
    for name in [
        "go.mod",
        "go.sum",
        "go.work",
        "go.work.sum",
        "vendor/modules.txt",
    ] {
        let path = dir.join(name);
        if let Ok(m) = std::fs::metadata(&path) {
            stamp(&mut h, &path, &m);
        }
    }
    let mut seen = 0usize;
    walk(dir, true, &mut h, &mut seen)?;
    Some(h.finish())
}

fn stamp(h: &mut impl Hasher, path: &Path, m: &std::fs::Metadata) {
    path.hash(h);
    (
        m.len(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
        m.ino(),
    )
        .hash(h);
}

/// Hashes the `.go` files below `dir` in a stable order; `None` past [`MAX_ENTRIES`].
fn walk(dir: &Path, top: bool, h: &mut impl Hasher, seen: &mut usize) -> Option<()> {
    let mut entries: Vec<(PathBuf, std::fs::FileType)> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter_map(|e| Some((e.path(), e.file_type().ok()?)))
        .collect();
    *seen += entries.len();
    if *seen > MAX_ENTRIES {
        return None;
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (path, kind) in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if kind.is_dir() {
            if name.starts_with('.') || name.starts_with('_') || name == "testdata" {
                continue;
            }
            if top && name == "vendor" {
                continue;
            }
            let nested = path.join("go.mod");
            if let Ok(m) = std::fs::metadata(&nested) {
                // Its own module: out of `./...`, but its appearing or going matters.
                stamp(h, &nested, &m);
                continue;
            }
            walk(&path, false, h, seen)?;
        } else if name.ends_with(".go") {
            // A link to a file is read through (its target's stamp), as go reads it.
            if let Ok(m) = std::fs::metadata(&path) {
                stamp(h, &path, &m);
            }
        }
    }
    Some(())
}

/// Where the lines of the module at `dir` are kept.
fn file(cache: &Path, dir: &Path) -> PathBuf {
    let mut h = std::hash::DefaultHasher::new();
    dir.hash(&mut h);
    cache.join("go-list").join(format!("{:016x}", h.finish()))
}

/// The lines kept for `dir` under `key`, if any.
pub(super) fn load(cache: &Path, dir: &Path, key: u64) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(file(cache, dir)).ok()?;
    let mut lines = text.lines();
    if lines.next()? != MAGIC || lines.next()? != format!("{key:016x}") {
        return None;
    }
    Some(lines.map(str::to_owned).collect())
}

/// Keeps `lines` for `dir` under `key`; best effort (written whole, then renamed in place).
pub(super) fn save(cache: &Path, dir: &Path, key: u64, lines: &[String]) {
    let mut text = format!("{MAGIC}\n{key:016x}\n");
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    let _ = crate::write_whole(&file(cache, dir), text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn the_fingerprint_moves_with_what_go_list_reads_and_only_with_it() {
        let d = tempfile::tempdir().unwrap();
        let m = d.path();
        let go = m.join("fake-go");
        touch(m, "fake-go", "");
        touch(m, "go.mod", "module example.com/m\n");
        touch(m, "a/a.go", "package a\n");
        touch(m, "a/a_test.go", "package a\n");
        let key = || fingerprint(m, &go, "F").unwrap();
        let first = key();
        assert_eq!(key(), first, "stable");
        // Not read by `go list ./...`: no change.
        touch(m, "a/README.md", "x");
        touch(m, "a/testdata/x.go", "package x\n");
        touch(m, ".git/x.go", "package x\n");
        touch(m, "_old/x.go", "package x\n");
        assert_eq!(key(), first);
        assert_ne!(fingerprint(m, &go, "G").unwrap(), first, "another template");
        // A test file added, one edited (size), a nested module's go.mod: each a change.
        touch(m, "a/b_test.go", "package a\n");
        let added = key();
        assert_ne!(added, first);
        touch(m, "a/b_test.go", "package a_test\n");
        let edited = key();
        assert_ne!(edited, added);
        touch(m, "inner/x.go", "package inner\n");
        let inner = key();
        assert_ne!(inner, edited);
        touch(m, "inner/go.mod", "module example.com/inner\n");
        let nested = key();
        assert_ne!(nested, inner);
        touch(m, "inner/y.go", "package inner\n");
        assert_eq!(key(), nested, "inside a nested module: not this one's");
        std::fs::remove_file(m.join("a/a_test.go")).unwrap();
        assert_ne!(key(), nested, "a file removed");
    }

    #[test]
    fn lines_are_kept_per_module_and_key() {
        let d = tempfile::tempdir().unwrap();
        let cache = d.path().join("cache");
        let (a, b) = (Path::new("/ws/a"), Path::new("/ws/b"));
        assert_eq!(load(&cache, a, 7), None);
        save(&cache, a, 7, &["x\ty".to_owned(), "z".to_owned()]);
        assert_eq!(load(&cache, a, 7).unwrap(), ["x\ty", "z"]);
        assert_eq!(load(&cache, a, 8), None, "another key");
        assert_eq!(load(&cache, b, 7), None, "another module");
        save(&cache, a, 8, &[]);
        assert_eq!(load(&cache, a, 8).unwrap(), Vec::<String>::new());
        assert_eq!(load(&cache, a, 7), None, "replaced");
    }
}
