//! A file watcher on a workspace, for a long-running face (`pith mcp`): while it runs, the
//! generation is kept current from the changes it saw instead of a scan. The store's watcher
//! does the work; the faces hold it through this type and never see the store.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::EngineError;

/// Watches a workspace recursively; dropping it stops watching. Trusted only while complete:
/// after any failure (a directory it could not watch, lost events) every answer scans.
pub struct Watcher {
    inner: pith_store::Watcher,
    /// Whether the failure was told already.
    told: AtomicBool,
}

impl Watcher {
    /// Starts watching `root` (absolute, canonical: as [`crate::resolve`] gives it).
    pub fn start(root: &Path) -> Result<Watcher, EngineError> {
        Ok(Watcher {
            inner: pith_store::Watcher::start(root)?,
            told: AtomicBool::new(false),
        })
    }

    /// The workspace watched.
    pub fn root(&self) -> &Path {
        self.inner.root()
    }

    /// The first time the watcher is found incomplete, one line saying so (for the face's
    /// stderr); `None` before that and after.
    pub fn failure_news(&self) -> Option<String> {
        let why = self.inner.failure()?;
        (!self.told.swap(true, Ordering::Relaxed)).then(|| {
            format!(
                "{why}; the file watcher on {} is incomplete: answering by scanning the \
                 workspace from now on",
                self.root().display()
            )
        })
    }

    /// What changed since the last call, every earlier change included (see
    /// [`pith_store::Watcher::take_synced`]).
    pub(crate) fn take_synced(&self) -> pith_store::Dirty {
        self.inner.take_synced()
    }

    /// The same, for the code index kept in memory (its own set of changes).
    pub(crate) fn take_synced_index(&self) -> pith_store::Dirty {
        self.inner.take_synced_for(pith_store::Reader::Index)
    }
}
