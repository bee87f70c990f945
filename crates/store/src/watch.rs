//! A file watcher for long-running pith processes (the MCP server): it keeps the set of paths
//! that changed since it was last asked, so [`crate::Store::refresh`] looks at just those (or
//! at nothing) instead of walking the whole workspace.
//!
//! Events arrive on the watcher's own thread, a little after the change. An agent edits a file
//! and asks for the status at once, so [`Watcher::take_synced`] first writes a cookie file
//! into `.pith/` and waits for its event (as watchman does): the kernel queues events in
//! order, so once the cookie's event is in, every change made before the question is too.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, EventKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};

use crate::StoreError;

/// Above this many dirty paths the set is dropped for a full scan.
const MAX_DIRTY: usize = 10_000;
/// How long [`Watcher::take_synced`] waits for its cookie's event before it gives up on the
/// watcher for this question and asks for a full scan.
const SYNC_WAIT: Duration = Duration::from_secs(2);
/// Cookie files' name prefix, in the state directory.
const COOKIE: &str = "sync-";

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
    /// Cookie names whose event has arrived, and the signal that one did.
    cookies: Arc<(Mutex<HashSet<String>>, Condvar)>,
    next_cookie: AtomicU64,
    root: PathBuf,
}

impl Watcher {
    /// Starts watching `root` (absolute, canonical). The first [`Watcher::take`] asks for a
    /// full scan, so nothing that happened before the watch began is missed.
    pub fn start(root: &Path) -> Result<Watcher, StoreError> {
        let dirty = Arc::new(Mutex::new(Dirty::everything()));
        let cookies: Arc<(Mutex<HashSet<String>>, Condvar)> = Arc::default();
        let sink = Arc::clone(&dirty);
        let cookie_sink = Arc::clone(&cookies);
        let base = root.to_path_buf();
        let state_dir = root.join(crate::STATE_DIR);
        let mut generated = HashSet::new();
        let mut inner =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                if let Ok(e) = &event {
                    arrived(&state_dir, e, &cookie_sink);
                }
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
                    if let Some(rel) = relevant(&base, p, &mut generated) {
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
            cookies,
            next_cookie: AtomicU64::new(0),
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

    /// What changed up to now, emptying the set: like [`Watcher::take`], after waiting until
    /// the events of every change made before this call have arrived. When they cannot be
    /// vouched for (the cookie cannot be written, or its event is late), a full scan is asked.
    pub fn take_synced(&self) -> Dirty {
        let n = self.next_cookie.fetch_add(1, Ordering::Relaxed);
        let name = format!("{COOKIE}{}-{n}", std::process::id());
        let path = self.root.join(crate::STATE_DIR).join(&name);
        // Never through a link: `.pith` must be the workspace's own directory, and the cookie
        // a new file.
        let state_is_dir = std::fs::symlink_metadata(path.parent().unwrap_or(&self.root))
            .is_ok_and(|m| m.is_dir());
        let written = state_is_dir
            && std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .is_ok();
        let synced = written && self.wait_for(&name);
        if written {
            let _ = std::fs::remove_file(&path);
        }
        let mut dirty = self.take();
        if !synced {
            dirty.full = true;
        }
        dirty
    }

    fn wait_for(&self, name: &str) -> bool {
        let (seen, signal) = &*self.cookies;
        let deadline = Instant::now() + SYNC_WAIT;
        let Ok(mut seen) = seen.lock() else {
            return false;
        };
        loop {
            if seen.remove(name) {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            seen = match signal.wait_timeout(seen, left) {
                Ok((guard, _)) => guard,
                Err(_) => return false,
            };
        }
    }
}

/// Records the arrival of this watcher's cookie files. Only their creation counts: a later
/// event of the same file (its close, its removal) would leave a name no wait takes.
fn arrived(state_dir: &Path, event: &notify::Event, cookies: &(Mutex<HashSet<String>>, Condvar)) {
    if !matches!(event.kind, EventKind::Create(_)) {
        return;
    }
    let names: Vec<String> = event
        .paths
        .iter()
        .filter(|p| p.parent() == Some(state_dir))
        .filter_map(|p| p.file_name()?.to_str())
        .filter(|n| n.starts_with(COOKIE))
        .map(str::to_owned)
        .collect();
    if names.is_empty() {
        return;
    }
    let (seen, signal) = cookies;
    if let Ok(mut seen) = seen.lock() {
        seen.extend(names);
        signal.notify_all();
    }
}

/// The workspace-relative path of an event, unless it cannot be source: under version control
/// or pith's state, a tool cache (`node_modules`, `__pycache__`), or a top-level directory
/// that is generated (cargo's `target/`, a virtualenv, Maven's `target/` beside `pom.xml`),
/// which a build floods with events.
/// `generated` remembers the top-level directories found marked.
fn relevant(
    root: &Path,
    path: &Path,
    generated: &mut HashSet<std::ffi::OsString>,
) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let mut components = rel.components();
    let first = components.next()?.as_os_str();
    let skipped = |c: &std::ffi::OsStr| crate::filter::SKIP_DIRS.iter().any(|s| c == *s);
    if rel.components().any(|c| skipped(c.as_os_str())) {
        return None;
    }
    if components.next().is_some() {
        if generated.contains(first) {
            return None;
        }
        let dir = root.join(first);
        if crate::filter::generated(|m| dir.join(m).symlink_metadata().is_ok()).is_some()
            || crate::filter::is_build_output(root, first)
        {
            generated.insert(first.to_owned());
            return None;
        }
    }
    let s = rel.to_string_lossy();
    (!s.is_empty()).then(|| s.into_owned())
}
