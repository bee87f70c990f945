//! Which files of the workspace are indexed: a parallel walk with the `ignore` crate (so
//! `.gitignore`, `.ignore` and `.git/info/exclude` are respected, hidden directories skipped),
//! keeping source files of the seven languages with their size and modification time.
//! Symbolic links are not followed, so a link loop cannot trap the walk; dependency trees,
//! environments and build output are left out by the filter the store's walk uses
//! (`pith_store::filter`), so the index and the generation see the same files.
//! When no directory and no ignore file changed since the last walk, the set of files is the
//! same and `quick` only stats the known files instead of walking again.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::lang::Lang;
use crate::IndexError;

/// Files larger than this are not indexed: at that size a source file is generated (bindings,
/// tables, bundles) and its names would flood every answer.
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// A source file found by the walk.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    /// Workspace-relative, `/`-separated.
    pub(crate) rel: String,
    pub(crate) abs: PathBuf,
    pub(crate) size: u64,
    /// Nanoseconds since the epoch; 0 when unknown.
    pub(crate) mtime: u64,
    pub(crate) lang: Lang,
}

/// The size and modification time of a directory or an ignore file, as last seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stamp {
    /// Relative to the workspace root (`..` for its parent).
    pub(crate) path: String,
    /// `ABSENT` for an ignore file that did not exist.
    pub(crate) size: u64,
    /// 0 when unknown or too recent to trust.
    pub(crate) mtime: u64,
}

/// A source file as the index keeps it: what the walk found and what reading it added.
#[derive(Debug, Clone)]
pub(crate) struct FileMeta {
    pub(crate) path: String,
    pub(crate) size: u64,
    pub(crate) mtime: u64,
    /// `Lang::code`, or 0 for a file not indexed (binary, too large, unreadable).
    pub(crate) lang: u8,
    pub(crate) lines: u32,
}

/// The size of a watched file that was not there.
pub(crate) const ABSENT: u64 = u64::MAX;

/// What a walk found: the source files, and what decides which files there are (every
/// directory walked, every ignore file), so the next update can tell without walking again
/// that the set of files did not change.
#[derive(Debug, Default)]
pub(crate) struct Walked {
    pub(crate) files: Vec<Candidate>,
    pub(crate) dirs: Vec<Stamp>,
    pub(crate) watched: Vec<Stamp>,
}

/// Ignore files the walk obeys.
const IGNORE_FILES: &[&str] = &[".gitignore", ".ignore"];
/// A directory or file modified this recently may change again within the clock's
/// granularity without its mtime changing: it is recorded as unknown (mtime 0).
pub(crate) const RACY_NANOS: u64 = 2_000_000_000;

pub(crate) fn walk(root: &Path, threads: usize) -> Result<Walked, IndexError> {
    std::fs::read_dir(root).map_err(|source| IndexError::Walk {
        path: root.to_path_buf(),
        source,
    })?;
    let now = now_nanos();
    let found = Mutex::new(Walked::default());
    let walker = builder(root, threads).build_parallel();
    walker.run(|| {
        let mut batch = Batch {
            local: Walked::default(),
            found: &found,
        };
        Box::new(move |entry| {
            if let Ok(entry) = entry {
                visit(root, &entry, now, &mut batch.local);
            }
            ignore::WalkState::Continue
        })
    });
    let mut found = found.into_inner().unwrap_or_else(|e| e.into_inner());
    found.files.sort_unstable_by(|a, b| a.rel.cmp(&b.rel));
    found.files.dedup_by(|a, b| a.rel == b.rel);
    found.dirs.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    found.watched.extend(outside_ignore_files(root, now));
    found.watched.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    Ok(found)
}

/// Every regular file of the workspace the index's walk would look at, whatever its language
/// (the import graph also needs manifests, headers and data files): workspace-relative,
/// `/`-separated, sorted.
pub(crate) fn all_files(root: &Path, threads: usize) -> Result<Vec<String>, IndexError> {
    std::fs::read_dir(root).map_err(|source| IndexError::Walk {
        path: root.to_path_buf(),
        source,
    })?;
    let found: Mutex<Vec<String>> = Mutex::new(Vec::new());
    builder(root, threads).build_parallel().run(|| {
        let found = &found;
        Box::new(move |entry| {
            let rel = entry
                .ok()
                .filter(|e| e.file_type().is_some_and(|t| t.is_file()));
            if let Some(rel) = rel.and_then(|e| e.path().strip_prefix(root).ok().map(rel_string)) {
                found.lock().unwrap_or_else(|e| e.into_inner()).push(rel);
            }
            ignore::WalkState::Continue
        })
    });
    let mut files = found.into_inner().unwrap_or_else(|e| e.into_inner());
    files.sort_unstable();
    files.dedup();
    Ok(files)
}

/// The walk both `walk` and `all_files` make: ignore files obeyed, hidden entries and the
/// store's excluded directories skipped, links not followed.
fn builder(root: &Path, threads: usize) -> ignore::WalkBuilder {
    let mut b = ignore::WalkBuilder::new(root);
    b.hidden(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(true)
        .ignore(true)
        .parents(true)
        .require_git(false)
        .follow_links(false)
        .threads(threads)
        .filter_entry(|e| {
            if e.depth() == 0 || !e.file_type().is_some_and(|t| t.is_dir()) {
                return true;
            }
            // The store's filter: the generation and the index see the same files.
            !pith_store::filter::excluded_dir(e.path())
        });
    b
}

fn visit(root: &Path, entry: &ignore::DirEntry, now: u64, out: &mut Walked) {
    let Some(t) = entry.file_type() else {
        return;
    };
    if t.is_dir() {
        let Some(rel) = entry.path().strip_prefix(root).ok().map(rel_string) else {
            return;
        };
        let mtime = entry.metadata().map_or(0, |m| settled(mtime_of(&m), now));
        // Only ignore files that exist: creating one changes the directory's mtime.
        for name in IGNORE_FILES {
            let path = if rel.is_empty() {
                (*name).to_owned()
            } else {
                format!("{rel}/{name}")
            };
            let s = stamp(root, path, now);
            if s.size != ABSENT {
                out.watched.push(s);
            }
        }
        out.dirs.push(Stamp {
            path: rel,
            size: 0,
            mtime,
        });
    } else if let Some(c) = candidate(root, entry) {
        out.files.push(c);
    }
}

/// Ignore files above the root that the walk obeys: the parents' `.gitignore`s up to the
/// repository's top, and the repository's `info/exclude`.
fn outside_ignore_files(root: &Path, now: u64) -> Vec<Stamp> {
    let mut out = Vec::new();
    let mut up = String::new();
    for dir in root.ancestors().skip(1) {
        up.push_str(if up.is_empty() { ".." } else { "/.." });
        for name in IGNORE_FILES {
            out.push(stamp(root, format!("{up}/{name}"), now));
        }
        if dir.join(".git").exists() {
            out.push(stamp(root, format!("{up}/.git/info/exclude"), now));
            break;
        }
    }
    if root.join(".git").exists() {
        out.push(stamp(root, ".git/info/exclude".to_owned(), now));
    }
    out
}

fn stamp(root: &Path, path: String, now: u64) -> Stamp {
    match std::fs::metadata(root.join(&path)) {
        Ok(m) => Stamp {
            path,
            size: m.len(),
            mtime: settled(mtime_of(&m), now),
        },
        Err(_) => Stamp {
            path,
            size: ABSENT,
            mtime: 0,
        },
    }
}

/// Whether a stamp still holds: same size and mtime, or still absent.
fn holds(root: &Path, s: &Stamp, dir: bool) -> bool {
    match std::fs::metadata(root.join(&s.path)) {
        Ok(m) => {
            s.mtime != 0
                && mtime_of(&m) == s.mtime
                && (dir || m.len() == s.size)
                && m.is_dir() == dir
        }
        Err(e) => !dir && s.size == ABSENT && e.kind() == std::io::ErrorKind::NotFound,
    }
}

/// The source files without a walk, when no directory and no ignore file changed since the
/// last one (so the set of files is the same); `None` when a walk is needed. Costs one stat
/// per directory, ignore file and source file, spread over `threads`.
pub(crate) fn quick(
    root: &Path,
    files: &[&str],
    dirs: &[Stamp],
    watched: &[Stamp],
    threads: usize,
) -> Option<Walked> {
    if dirs.is_empty() {
        return None;
    }
    let chunk = |n: usize| n.div_ceil(threads.max(1)).max(1);
    let unchanged = std::thread::scope(|s| {
        let d: Vec<_> = dirs
            .chunks(chunk(dirs.len()))
            .map(|c| s.spawn(move || c.iter().all(|d| holds(root, d, true))))
            .collect();
        let w = watched.iter().all(|w| holds(root, w, false));
        w && d.into_iter().all(|h| h.join().unwrap_or(false))
    });
    if !unchanged {
        return None;
    }
    let found: Option<Vec<Candidate>> = std::thread::scope(|s| {
        let parts: Vec<_> = files
            .chunks(chunk(files.len()))
            .map(|c| {
                s.spawn(move || {
                    c.iter()
                        .map(|&rel| -> Option<Candidate> {
                            let abs = root.join(rel);
                            let m = std::fs::symlink_metadata(&abs).ok()?;
                            if !m.is_file() {
                                return None;
                            }
                            Some(Candidate {
                                rel: rel.to_owned(),
                                size: m.len(),
                                mtime: mtime_of(&m),
                                lang: Lang::of_path(rel)?,
                                abs,
                            })
                        })
                        .collect::<Option<Vec<_>>>()
                })
            })
            .collect();
        let mut all = Vec::with_capacity(files.len());
        for p in parts {
            all.extend(p.join().ok()??);
        }
        Some(all)
    });
    Some(Walked {
        files: found?,
        dirs: dirs.to_vec(),
        watched: watched.to_vec(),
    })
}

/// The source files after the changes a watcher saw (`changed`, workspace-relative), without
/// a walk: the known files, stat'ed again only when changed (or when their time was too
/// recent to trust), those gone dropped. `None` when a change may alter which files there are:
/// a new source file or directory, a removed directory that held known files, a changed
/// ignore file (inside or above the workspace: those are stat'ed, the watcher sees neither
/// `.git/` nor what lies above the root).
pub(crate) fn after_changes(
    root: &Path,
    known: &[FileMeta],
    dirs: &[Stamp],
    watched: &[Stamp],
    changed: &std::collections::BTreeSet<String>,
) -> Option<Walked> {
    if dirs.is_empty() || !watched.iter().all(|w| holds(root, w, false)) {
        return None;
    }
    let is_known = |p: &str| known.binary_search_by(|f| f.path.as_str().cmp(p)).is_ok();
    for p in changed {
        if is_known(p) {
            continue;
        }
        let name = p.rsplit('/').next().unwrap_or(p);
        if IGNORE_FILES.contains(&name) {
            return None;
        }
        match std::fs::symlink_metadata(root.join(p)) {
            Ok(m) if m.is_dir() => return None,
            Ok(m) if m.is_file() && Lang::of_path(p).is_some() => return None,
            Ok(_) => {}
            Err(_) => {
                // Gone: a directory that held known files takes them along unseen.
                let under = format!("{p}/");
                let from = known.partition_point(|f| f.path.as_str() < under.as_str());
                if known.get(from).is_some_and(|f| f.path.starts_with(&under)) {
                    return None;
                }
            }
        }
    }
    let mut files = Vec::with_capacity(known.len());
    for f in known {
        let lang = Lang::of_path(&f.path)?;
        let abs = root.join(&f.path);
        if f.mtime != 0 && !changed.contains(&f.path) {
            files.push(Candidate {
                rel: f.path.clone(),
                abs,
                size: f.size,
                mtime: f.mtime,
                lang,
            });
            continue;
        }
        match std::fs::symlink_metadata(&abs) {
            Ok(m) if m.is_file() => files.push(Candidate {
                rel: f.path.clone(),
                size: m.len(),
                mtime: mtime_of(&m),
                abs,
                lang,
            }),
            Ok(_) => return None,
            Err(_) => {}
        }
    }
    Some(Walked {
        files,
        dirs: dirs.to_vec(),
        watched: watched.to_vec(),
    })
}

/// One walker thread's finds, handed over when the walker drops its visitor.
struct Batch<'s> {
    local: Walked,
    found: &'s Mutex<Walked>,
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        found.files.append(&mut self.local.files);
        found.dirs.append(&mut self.local.dirs);
        found.watched.append(&mut self.local.watched);
    }
}

pub(crate) fn now_nanos() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

fn mtime_of(m: &std::fs::Metadata) -> u64 {
    m.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// An mtime, or 0 when it is too recent to be trusted.
pub(crate) fn settled(mtime: u64, now: u64) -> u64 {
    if now.saturating_sub(mtime) < RACY_NANOS {
        0
    } else {
        mtime
    }
}

fn candidate(root: &Path, entry: &ignore::DirEntry) -> Option<Candidate> {
    if !entry.file_type()?.is_file() {
        return None;
    }
    let rel = rel_string(entry.path().strip_prefix(root).ok()?);
    let lang = Lang::of_path(&rel)?;
    let meta = entry.metadata().ok()?;
    Some(Candidate {
        rel,
        abs: entry.path().to_path_buf(),
        size: meta.len(),
        mtime: mtime_of(&meta),
        lang,
    })
}

/// A relative path as the answers write it: `/`-separated, lossily UTF-8.
fn rel_string(rel: &Path) -> String {
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// Whether a path looks like test code (or fixtures), which ranks after the code it tests:
/// by every ecosystem's naming conventions (`pith_model::ecosystem`).
pub(crate) fn is_test_path(path: &str) -> bool {
    pith_model::ecosystem::is_test_path(path)
}

#[cfg(test)]
mod agreement_tests {
    //! The index's walk and the store's (the generation) see the same files: one filter.

    use super::*;

    fn write(root: &Path, rel: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "x\n").unwrap();
    }

    /// A workspace with every kind of directory the walks leave out, and sources beside them.
    fn tree(root: &Path) {
        for rel in [
            // The workspace's own sources.
            "src/lib.rs",
            "app/main.py",
            "pkg/util.go",
            "web/index.js",
            "web/package.json",
            "build/tool.py",
            "out/gen.py",
            // Virtualenvs, one hidden.
            "venv/pyvenv.cfg",
            "venv/lib/site.py",
            ".venv/pyvenv.cfg",
            ".venv/lib/other.py",
            // Cargo's tagged target/.
            "Cargo.toml",
            "target/CACHEDIR.TAG",
            "target/debug/build/out.rs",
            // An untagged target/ of a crate (older cargo, or the tag removed).
            "crate/Cargo.toml",
            "crate/src/lib.rs",
            "crate/target/debug/build/gen.rs",
            // Maven's untagged target/ beside pom.xml, Gradle's build/.
            "mvn/pom.xml",
            "mvn/src/main/java/A.java",
            "mvn/target/generated-sources/G.java",
            "gradle/build.gradle",
            "gradle/src/main/java/B.java",
            "gradle/build/generated/H.java",
            // node_modules at the top and below.
            "node_modules/lib/index.js",
            "web/node_modules/dep/index.js",
            // A CMake build tree.
            "cpp/CMakeLists.txt",
            "cpp/build/CMakeCache.txt",
            "cpp/build/bindings.py",
            // .NET's bin/ and obj/.
            "cs/App.csproj",
            "cs/Program.cs",
            "cs/bin/Debug/Gen.cs",
            "cs/obj/Debug/AssemblyInfo.cs",
        ] {
            write(root, rel);
        }
    }

    fn index_files(root: &Path) -> Vec<String> {
        walk(root, 2)
            .unwrap()
            .files
            .into_iter()
            .map(|c| c.rel)
            .collect()
    }

    /// The generation's files the index would read: sources of its languages, not hidden (the
    /// index leaves hidden and ignored files out by design; the tree has no other ignored file).
    fn store_files(root: &Path) -> Vec<String> {
        let mut store = pith_store::Store::open(root).unwrap();
        store.scan().unwrap();
        let (_, names) = store.changed_since(0, 100_000).unwrap();
        let mut files: Vec<String> = names
            .into_iter()
            // Inputs outside the workspace (`toolchain:...`) are not files of the tree.
            .filter(|n| !n.contains(':') && Lang::of_path(n).is_some())
            .filter(|n| !n.split('/').any(|p| p.starts_with('.')))
            .collect();
        files.sort();
        files
    }

    fn agree(gitignore: Option<&str>) {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        tree(root);
        if let Some(text) = gitignore {
            std::fs::write(root.join(".gitignore"), text).unwrap();
        }
        let index = index_files(root);
        assert_eq!(index, store_files(root), "gitignore: {gitignore:?}");
        for own in [
            "src/lib.rs",
            "app/main.py",
            "mvn/src/main/java/A.java",
            "cs/Program.cs",
        ] {
            assert!(index.contains(&own.to_owned()), "{own}: {index:?}");
        }
        for generated in [
            "venv/lib/site.py",
            "target/debug/build/out.rs",
            "crate/target/debug/build/gen.rs",
            "mvn/target/generated-sources/G.java",
            "gradle/build/generated/H.java",
            "node_modules/lib/index.js",
            "web/node_modules/dep/index.js",
            "cpp/build/bindings.py",
            "cs/bin/Debug/Gen.cs",
            "cs/obj/Debug/AssemblyInfo.cs",
        ] {
            assert!(!index.contains(&generated.to_owned()), "{generated}");
        }
        let tracked_build = index.contains(&"build/tool.py".to_owned());
        assert_eq!(
            tracked_build,
            gitignore.is_none(),
            "a tracked build/ is source"
        );
    }

    #[test]
    fn the_index_and_the_generation_see_the_same_files_without_a_gitignore() {
        agree(None);
    }

    #[test]
    fn the_index_and_the_generation_see_the_same_files_with_a_gitignore() {
        agree(Some(
            "venv/\n.venv/\ntarget/\nbuild/\nout/\nbin/\nobj/\nnode_modules/\n",
        ));
    }
}
