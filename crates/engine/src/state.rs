//! The workspace state's own queries, answered from the store without running anything:
//! `pith status` (the generation, the last run, what changed since, the runners) and
//! `pith failures` (the last run's failures in full); and the store's recovery rule every
//! query of the state follows: a damaged database is moved aside and the query asked again
//! on a fresh one. A test run's use of the state is the run module's.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pith_model::{FailureDetails, WorkspaceState};
use pith_store::{Store, StoreError};

use crate::detect::{names_of, projects};
use crate::watch::Watcher;
use crate::{resolve, EngineError};

/// Changed files the state lists (the answer names fewer; this bounds the query).
const CHANGED_LISTED: usize = 16;

/// One `pith status` request.
#[derive(Default, Clone)]
pub struct StatusRequest {
    pub root: Option<PathBuf>,
    pub cwd: PathBuf,
    /// A generation from an earlier answer: when nothing changed since, the answer says just
    /// that.
    pub since: Option<u64>,
    pub watcher: Option<Arc<Watcher>>,
}

/// One `pith failures` request.
#[derive(Default, Clone)]
pub struct FailuresRequest {
    pub root: Option<PathBuf>,
    pub cwd: PathBuf,
    /// Just these tests' failures; empty for all of the last run's.
    pub tests: Vec<String>,
}

/// The workspace's generation, last run, changes since, and runners.
pub fn status(req: &StatusRequest) -> Result<WorkspaceState, EngineError> {
    let root = resolve(req.root.as_deref(), &req.cwd)?;
    let mut store = Store::open(&root)?;
    let watcher = req.watcher.as_deref().filter(|w| w.root() == root);
    let generation = recovering(&mut store, |s| refresh(s, watcher))?;
    if req.since == Some(generation) {
        return Ok(WorkspaceState {
            generation,
            unchanged: true,
            warnings: store.take_warnings(),
            ..WorkspaceState::default()
        });
    }
    let last_run = recovering(&mut store, |s| s.last_run())?;
    let (changed_count, changed) = match &last_run {
        Some(run) => store.changed_since(run.generation, CHANGED_LISTED)?,
        None => (0, Vec::new()),
    };
    let runners = runner_names(&store, &root, generation)?
        .iter()
        .map(|name| store.runner_info(name))
        .collect::<Result<Vec<_>, _>>()?;
    let off_target = crate::impact::off_target(&store, &root);
    Ok(WorkspaceState {
        generation,
        unchanged: false,
        last_run,
        changed,
        changed_count,
        off_target,
        runners,
        warnings: store.take_warnings(),
    })
}

/// The last run's failures in full (or the named tests'), from the history; nothing runs.
pub fn failures(req: &FailuresRequest) -> Result<FailureDetails, EngineError> {
    let root = resolve(req.root.as_deref(), &req.cwd)?;
    let mut store = Store::open(&root)?;
    let mut details = recovering(&mut store, |s| s.failures(&req.tests))?;
    details.warnings = store.take_warnings();
    Ok(details)
}

/// The workspace's runners, detected once and remembered until a file near the top of the
/// workspace changes (detection reads a few hundred files in a large workspace).
fn runner_names(store: &Store, root: &Path, generation: u64) -> Result<Vec<String>, StoreError> {
    // What detection reads outside the workspace: installed tools, the active virtualenv.
    let mut key = String::new();
    for var in pith_model::ecosystem::detection_env() {
        key.push_str(&std::env::var(var).unwrap_or_default());
        key.push('\u{1f}');
    }
    let key = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(key.as_bytes()));
    if let Some(names) = store.cached_runners(&key)? {
        return Ok(names);
    }
    let names: Vec<String> = names_of(&projects(root, None))
        .into_iter()
        .map(str::to_owned)
        .collect();
    // Best effort: a busy database only costs the next status another detection.
    let _ = store.cache_runners(&key, generation, &names);
    Ok(names)
}

/// The generation: from the watcher's dirty set when there is one, else by a scan.
pub(crate) fn refresh(store: &mut Store, watcher: Option<&Watcher>) -> Result<u64, StoreError> {
    match watcher {
        Some(w) => store.refresh(w.take_synced()),
        None => store.scan(),
    }
}

/// Runs `f`; when the database turns out damaged, moves it aside and runs `f` once more on a
/// fresh one.
pub(crate) fn recovering<T>(
    store: &mut Store,
    mut f: impl FnMut(&mut Store) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    match f(store) {
        Err(e) if e.is_corrupt() => {
            store.reset()?;
            f(store)
        }
        other => other,
    }
}

/// The value, or `None` with the error kept as a warning.
pub(crate) fn keep<T>(r: Result<T, StoreError>, warnings: &mut Vec<String>) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            warnings.push(e.to_string());
            None
        }
    }
}
