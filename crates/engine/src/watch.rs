//! A file watcher on a workspace, for a long-running face (`pith mcp`): while it runs, the
//! generation is kept current from the changes it saw instead of a scan. The store's watcher
//! does the work; the faces hold it through this type and never see the store.

use std::path::Path;

use crate::EngineError;

/// Watches a workspace recursively; dropping it stops watching.
pub struct Watcher(pith_store::Watcher);

impl Watcher {
    /// Starts watching `root` (absolute, canonical: as [`crate::resolve`] gives it).
    pub fn start(root: &Path) -> Result<Watcher, EngineError> {
        Ok(Watcher(pith_store::Watcher::start(root)?))
    }

    /// The workspace watched.
    pub fn root(&self) -> &Path {
        self.0.root()
    }

    /// What changed since the last call, every earlier change included (see
    /// [`pith_store::Watcher::take_synced`]).
    pub(crate) fn take_synced(&self) -> pith_store::Dirty {
        self.0.take_synced()
    }
}
