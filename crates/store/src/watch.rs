//! A file watcher for long-running pith processes (the MCP server): it keeps the set of paths
//! that changed since it was last asked, so [`crate::Store::refresh`] looks at just those (or
//! at nothing) instead of walking the whole workspace.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use notify::event::{AccessKind, AccessMode, EventKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};

use crate::StoreError;

/// Above this many dirty paths the set is dropped for a full scan.
const MAX_DIRTY: usize = 10_000;

/// What changed since the watcher was last asked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dirty {
    /// Workspace-relative paths that changed (files or directories).
    pub paths: BTreeSet<String>,
    /// Something may have changed that the paths do not say (the watcher just started, lost
    /// events, or saw too many): only a full scan is right.
    pub full: bool,
}

impl Dirty {
    /// Everything must be looked at.
    pub fn everything() -> Dirty {
        Dirty {
            paths: BTreeSet::new(),
            full: true,
        }
    }
}

/// Watches a workspace recursively; dropping it stops watching.
pub struct Watcher {
    _inner: RecommendedWatcher,
    dirty: Arc<Mutex<Dirty>>,
    root: PathBuf,
}

impl Watcher {
    /// Starts watching `root` (absolute, canonical). The first [`Watcher::take`] asks for a
    /// full scan, so nothing that happened before the watch began is missed.
    pub fn start(root: &Path) -> Result<Watcher, StoreError> {
        let dirty = Arc::new(Mutex::new(Dirty::everything()));
        let sink = Arc::clone(&dirty);
        let base = root.to_path_buf();
        let mut inner =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                let Ok(mut d) = sink.lock() else {
                    return;
                };
                let event = match event {
                    Ok(e) => e,
                    Err(_) => {
                        d.full = true;
                        return;
                    }
                };
                if event.need_rescan() {
                    d.full = true;
                }
                if let EventKind::Access(kind) = event.kind {
                    // Reads (pith's own hashing among them) change nothing; a closed writer does.
                    if kind != AccessKind::Close(AccessMode::Write) {
                        return;
                    }
                }
                for p in &event.paths {
                    if let Some(rel) = relevant(&base, p) {
                        d.paths.insert(rel);
                    }
                }
                if d.paths.len() > MAX_DIRTY {
                    d.paths.clear();
                    d.full = true;
                }
            })?;
        inner.watch(root, RecursiveMode::Recursive)?;
        Ok(Watcher {
            _inner: inner,
            dirty,
            root: root.to_path_buf(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// What changed since the last call, emptying the set.
    pub fn take(&self) -> Dirty {
        match self.dirty.lock() {
            Ok(mut d) => std::mem::take(&mut *d),
            Err(_) => Dirty::everything(),
        }
    }

    /// Whether anything changed since the last [`Watcher::take`], without taking it.
    pub fn is_dirty(&self) -> bool {
        self.dirty
            .lock()
            .map_or(true, |d| d.full || !d.paths.is_empty())
    }
}

/// The workspace-relative path of an event, unless it is in a directory that never holds
/// source (version control, pith's own state).
fn relevant(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let first = rel.components().next()?;
    let first = first.as_os_str();
    if first == crate::STATE_DIR || first == ".git" {
        return None;
    }
    let s = rel.to_string_lossy();
    (!s.is_empty()).then(|| s.into_owned())
}
