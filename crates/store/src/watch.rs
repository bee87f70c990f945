//! A file watcher for long-running pith processes (the MCP server): it keeps the set of paths
//! that changed since it was last asked, so [`crate::Store::refresh`] looks at just those (or
//! at nothing) instead of walking the whole workspace.
//!
//! Events arrive on the watcher's own thread, a little after the change. An agent edits a file
//! and asks for the status at once, so [`Watcher::take_synced`] first writes a cookie file and
//! waits for its event (as watchman does), then takes what changed. The cookie goes into the
//! workspace's state directory (`sync/`), outside the workspace, which the same watcher watches
//! beside the workspace: notify's Linux watcher keeps one inotify instance for all its watches
//! and reads its events in the order they come, and the kernel queues an instance's events, of
//! every watch, in the order they happen (each during the system call that made it). So once
//! the cookie's event is in, every change made before the question is too.
//!
//! The watcher is trusted only while it is complete. Any error after start — a directory
//! created during the session that could not be watched (the kernel's limit on watches), an
//! overflow of the kernel's event queue, a failed read — means some change may never be
//! reported: from then on every question gets a full scan ([`Watcher::failure`] says why),
//! never a stale answer.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, CreateKind, EventKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};

use crate::StoreError;

/// Above this many dirty paths the set is dropped for a full scan.
const MAX_DIRTY: usize = 10_000;
/// How long [`Watcher::take_synced`] waits for its cookie's event before it gives up on the
/// watcher for this question and asks for a full scan.
const SYNC_WAIT: Duration = Duration::from_secs(2);
/// Cookie files' name prefix, in [`COOKIES`].
const COOKIE: &str = "sync-";
/// The state directory's folder for cookies: watched alone, so the database's own writes
/// beside it raise no events.
const COOKIES: &str = "sync";
/// Numbers this process's cookies, across watchers: each name is made once.
static NEXT_COOKIE: AtomicU64 = AtomicU64::new(0);
/// For tests: how many directories created after start a watcher may watch before it fails
/// as at the kernel's limit on watches (what an unprivileged test cannot set).
pub const SPARE_ENV: &str = "PITH_WATCH_SPARE_DIRS";

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

/// Who reads a watcher's changes: each has its own set, emptied by its own takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// The workspace state (the generation).
    State = 0,
    /// The code index kept in memory between lookups.
    Index = 1,
}

/// Watches a workspace recursively; dropping it stops watching.
pub struct Watcher {
    _inner: RecommendedWatcher,
    /// The changes not yet taken, one set per [`Reader`].
    dirty: Arc<Mutex<[Dirty; 2]>>,
    /// Why the watcher stopped being complete, once it has.
    failure: Arc<Mutex<Option<String>>>,
    /// Cookie names whose event has arrived, and the signal that one did.
    cookies: Arc<(Mutex<HashSet<String>>, Condvar)>,
    /// Where cookies are written and watched for; `None` when the state directory is not
    /// there to write in, and then every synced take asks for a full scan.
    cookie_dir: Option<PathBuf>,
    root: PathBuf,
}

impl Watcher {
    /// Starts watching `root` (absolute, canonical). The first [`Watcher::take`] asks for a
    /// full scan, so nothing that happened before the watch began is missed.
    pub fn start(root: &Path) -> Result<Watcher, StoreError> {
        let spare = std::env::var(SPARE_ENV).ok().and_then(|v| v.parse().ok());
        Watcher::start_with(root, spare)
    }

    /// [`Watcher::start`], failing as at the kernel's limit on watches once `spare`
    /// directories created after start have been watched (`None`: the kernel's own limit).
    pub(crate) fn start_with(root: &Path, mut spare: Option<u64>) -> Result<Watcher, StoreError> {
        let dirty = Arc::new(Mutex::new([Dirty::everything(), Dirty::everything()]));
        let failure: Arc<Mutex<Option<String>>> = Arc::default();
        let cookies: Arc<(Mutex<HashSet<String>>, Condvar)> = Arc::default();
        let sink = Arc::clone(&dirty);
        let failed = Arc::clone(&failure);
        let cookie_sink = Arc::clone(&cookies);
        let base = root.to_path_buf();
        let cookie_dir = crate::state_dir(root).ok().and_then(|s| cookie_dir(&s));
        let cookie_at = cookie_dir.clone();
        let mut generated = HashSet::new();
        let mut inner =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                let fail = |why: String| {
                    if let Ok(mut f) = failed.lock() {
                        f.get_or_insert(why);
                    }
                };
                let event = match event {
                    Ok(e) => e,
                    Err(e) => return fail(lost(&e)),
                };
                if let Some(dir) = &cookie_at {
                    arrived(dir, &event, &cookie_sink);
                }
                if event.need_rescan() {
                    fail("the kernel's queue of file events overflowed".to_owned());
                }
                if let (Some(n), EventKind::Create(CreateKind::Folder)) = (&mut spare, event.kind) {
                    match n.checked_sub(1) {
                        Some(left) => *n = left,
                        None => fail(format!(
                            "a new directory could not be watched: the limit on watches was \
                             reached ({SPARE_ENV})"
                        )),
                    }
                }
                let Ok(mut sets) = sink.lock() else {
                    return;
                };
                if let EventKind::Access(kind) = event.kind {
                    // Reads (pith's own hashing among them) change nothing; a closed writer does.
                    if kind != AccessKind::Close(AccessMode::Write) {
                        return;
                    }
                }
                for p in &event.paths {
                    if let Some(rel) = relevant(&base, p, &mut generated) {
                        for d in sets.iter_mut() {
                            d.paths.insert(rel.clone());
                        }
                    }
                }
                for d in sets.iter_mut() {
                    if d.paths.len() > MAX_DIRTY {
                        d.paths.clear();
                        d.full = true;
                    }
                }
            })?;
        inner.watch(root, RecursiveMode::Recursive)?;
        // The same watcher, so its events queue with the workspace's (see the module doc).
        let cookie_dir = cookie_dir.filter(|d| inner.watch(d, RecursiveMode::NonRecursive).is_ok());
        Ok(Watcher {
            _inner: inner,
            dirty,
            failure,
            cookies,
            cookie_dir,
            root: root.to_path_buf(),
        })
    }

    /// Why the watcher can no longer vouch for every change, once something went wrong after
    /// it started; from then on every [`Watcher::take`] asks for a full scan.
    pub fn failure(&self) -> Option<String> {
        match self.failure.lock() {
            Ok(f) => f.clone(),
            Err(_) => Some("the watcher's state was lost".to_owned()),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// What changed since the state's last take, emptying its set.
    pub fn take(&self) -> Dirty {
        self.take_for(Reader::State)
    }

    /// What changed since `reader`'s last take, emptying its set.
    pub fn take_for(&self, reader: Reader) -> Dirty {
        let taken = match self.dirty.lock() {
            Ok(mut sets) => std::mem::take(&mut sets[reader as usize]),
            Err(_) => Dirty::everything(),
        };
        if self.failure().is_some() {
            return Dirty::everything();
        }
        taken
    }

    /// What changed up to now, emptying the set: like [`Watcher::take`], after waiting until
    /// the events of every change made before this call have arrived. When they cannot be
    /// vouched for (the cookie cannot be written, or its event is late), a full scan is asked.
    pub fn take_synced(&self) -> Dirty {
        self.take_synced_for(Reader::State)
    }

    /// [`Watcher::take_synced`], for `reader`.
    pub fn take_synced_for(&self, reader: Reader) -> Dirty {
        let n = NEXT_COOKIE.fetch_add(1, Ordering::Relaxed);
        let name = format!("{COOKIE}{}-{n}", std::process::id());
        let path = self.cookie_dir.as_ref().map(|d| d.join(&name));
        // Never through a link: the cookie is a new file in a real directory.
        let written = path.as_ref().is_some_and(|path| {
            std::fs::symlink_metadata(path.parent().unwrap_or(path)).is_ok_and(|m| m.is_dir())
                && std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(path)
                    .is_ok()
        });
        let synced = written && self.wait_for(&name);
        if let (true, Some(path)) = (written, &path) {
            let _ = std::fs::remove_file(path);
        }
        // Taken after the cookie: a failure reported with the events before it counts.
        let mut dirty = self.take_for(reader);
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

/// What a watcher error means for the answers, in words.
fn lost(e: &notify::Error) -> String {
    match e.kind {
        notify::ErrorKind::MaxFilesWatch => {
            "a new directory could not be watched: the system's limit on file watches \
             (fs.inotify.max_user_watches) was reached"
                .to_owned()
        }
        _ => format!("the file watcher failed: {e}"),
    }
}

/// The cookie folder in the state directory `state`, made when missing; `None` when it cannot
/// be, or is not a real directory.
fn cookie_dir(state: &Path) -> Option<PathBuf> {
    let dir = state.join(COOKIES);
    let _ = std::fs::create_dir(&dir);
    std::fs::symlink_metadata(&dir)
        .is_ok_and(|m| m.is_dir())
        .then_some(dir)
}

/// Records the arrival of this process's cookie files. Only their creation counts: a later
/// event of the same file (its close, its removal) would leave a name no wait takes; another
/// pith's cookies in the same folder are not waited for here.
fn arrived(dir: &Path, event: &notify::Event, cookies: &(Mutex<HashSet<String>>, Condvar)) {
    if !matches!(event.kind, EventKind::Create(_)) {
        return;
    }
    let mine = format!("{COOKIE}{}-", std::process::id());
    let names: Vec<String> = event
        .paths
        .iter()
        .filter(|p| p.parent() == Some(dir))
        .filter_map(|p| p.file_name()?.to_str())
        .filter(|n| n.starts_with(&mine))
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
/// or an older pith's state, a tool cache (`node_modules`, `__pycache__`), or a top-level directory
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
    // A link a build tool re-makes beside its build file (Bazel's `bazel-out`): each build
    // touches it, and no walk counts it.
    if rel.components().nth(1).is_none()
        && path
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
        && crate::filter::output_links(ecosystem_files(root).iter().map(|n| n.as_os_str()))
            .iter()
            .any(|p| first.to_string_lossy().starts_with(p))
    {
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

/// The names at the workspace root that are some descriptor's build file with output links.
fn ecosystem_files(root: &Path) -> Vec<std::ffi::OsString> {
    pith_model::ecosystem::output_links()
        .map(|(file, _)| file)
        .filter(|f| root.join(f).is_file())
        .map(std::ffi::OsString::from)
        .collect()
}
