//! Which files of the workspace are indexed: a parallel walk with the `ignore` crate (so
//! `.gitignore`, `.ignore` and `.git/info/exclude` are respected, hidden directories skipped),
//! keeping source files of the seven languages with their size and modification time.
//! Symbolic links are not followed, so a link loop cannot trap the walk; dependency and
//! build directories (`node_modules`, any directory tagged with `CACHEDIR.TAG`) are skipped.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::UNIX_EPOCH;

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

/// Directories never indexed, whatever the ignore files say.
const NEVER: &[&str] = &["node_modules", ".pith", ".git"];

pub(crate) fn walk(root: &Path, threads: usize) -> Result<Vec<Candidate>, IndexError> {
    std::fs::read_dir(root).map_err(|source| IndexError::Walk {
        path: root.to_path_buf(),
        source,
    })?;
    let found = Mutex::new(Vec::new());
    let walker = ignore::WalkBuilder::new(root)
        .hidden(true)
        .git_ignore(std::env::var_os("X_NOGI").is_none())
        .git_exclude(std::env::var_os("X_NOGI").is_none())
        .git_global(std::env::var_os("X_NOGI").is_none())
        .ignore(std::env::var_os("X_NOIG").is_none())
        .parents(std::env::var_os("X_NOGI").is_none())
        .require_git(false)
        .follow_links(false)
        .threads(threads)
        .filter_entry(|e| {
            if e.depth() == 0 || !e.file_type().is_some_and(|t| t.is_dir()) {
                return true;
            }
            let name = e.file_name().to_string_lossy();
            !NEVER.contains(&name.as_ref()) && (std::env::var_os("X_NOTAG").is_some() || !e.path().join("CACHEDIR.TAG").exists())
        })
        .build_parallel();
    walker.run(|| {
        let mut batch = Batch {
            local: Vec::new(),
            found: &found,
        };
        Box::new(move |entry| {
            if let Some(c) = entry.ok().and_then(|e| candidate(root, &e)) {
                batch.local.push(c);
            }
            ignore::WalkState::Continue
        })
    });
    let mut found = found.into_inner().unwrap_or_else(|e| e.into_inner());
    found.sort_unstable_by(|a: &Candidate, b| a.rel.cmp(&b.rel));
    found.dedup_by(|a, b| a.rel == b.rel);
    Ok(found)
}

/// One walker thread's finds, handed over when the walker drops its visitor.
struct Batch<'s> {
    local: Vec<Candidate>,
    found: &'s Mutex<Vec<Candidate>>,
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        found.append(&mut self.local);
    }
}

fn candidate(root: &Path, entry: &ignore::DirEntry) -> Option<Candidate> {
    if !entry.file_type()?.is_file() {
        return None;
    }
    let rel = entry.path().strip_prefix(root).ok()?;
    let rel = rel_string(rel)?;
    let lang = Lang::of_path(&rel)?;
    if std::env::var_os("X_NOSTAT").is_some() { return Some(Candidate{rel, abs: entry.path().to_path_buf(), size: 0, mtime: 0, lang}); }
    let meta = entry.metadata().ok()?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    Some(Candidate {
        rel,
        abs: entry.path().to_path_buf(),
        size: meta.len(),
        mtime,
        lang,
    })
}

/// A relative path as the answers write it: `/`-separated, lossily UTF-8.
fn rel_string(rel: &Path) -> Option<String> {
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// Whether a path looks like test code (or fixtures), which ranks after the code it tests.
pub(crate) fn is_test_path(path: &str) -> bool {
    let mut parts = path.split('/');
    let file = parts.next_back().unwrap_or("");
    let stem = file.split('.').next().unwrap_or(file);
    parts.any(|d| {
        matches!(
            d,
            "test" | "tests" | "__tests__" | "testdata" | "fixtures" | "spec"
        )
    }) || stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("Test")
        || stem.ends_with("Tests")
        || file.contains(".test.")
        || file.contains(".spec.")
}
