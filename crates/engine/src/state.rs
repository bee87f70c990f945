//! The workspace state in the engine's queries: every test run is numbered with the generation
//! it tested (the workspace's files, ignored inputs included, and the toolchains, virtualenvs
//! and packages outside them) and recorded in the history with the environment it ran in
//! (which annotates its failures), a run asked `since` a generation at which nothing changed
//! answers `unchanged` without running when the same selection ran on those inputs in the same
//! environment, one run at a time holds the workspace, and `status` and `failures` answer from
//! the store. A damaged state (or a state directory that is a link, never followed, or no
//! writable place for one) never fails a test run: the run goes on without it, with a warning.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pith_model::{FailureDetails, Report, Run, RunSummary, Status, WorkspaceState};
use pith_store::{Place, Remembered, Retention, Store, StoreError, TryLock};

use crate::heartbeat::Ticker;
use crate::watch::Watcher;
use crate::{
    detect_workspace, execute, names_of, resolve, select_runners, EngineError, TestRequest,
};

/// How long a test run waits for another pith run in the same workspace before answering
/// `Busy`.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(60);
/// Changed files the state lists (the answer names fewer; this bounds the query).
const CHANGED_LISTED: usize = 16;

/// How a test run uses the workspace state.
#[derive(Default, Clone)]
pub struct StateOptions {
    /// A generation from an earlier answer: when nothing changed since and the same selection
    /// ran at it, answer `unchanged` with that run's status instead of running.
    pub since: Option<u64>,
    /// Bound on waiting for another pith run in this workspace; [`DEFAULT_WAIT`] when `None`.
    pub wait: Option<Duration>,
    /// A watcher on the workspace (a long-running process): the generation is kept current
    /// from what it saw instead of a scan.
    pub watcher: Option<Arc<Watcher>>,
}

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

/// Runs the workspace's tests and reports what happened (a red run is `Ok`; `Err` means pith
/// could not do its job), with the state options: the answer carries the generation it tested, `since` may answer `unchanged` without running,
/// another run holding the workspace makes this one wait (up to the bound) or answer `Busy`.
pub fn run_tests_with(req: &TestRequest, opts: &StateOptions) -> Result<Tested, EngineError> {
    let Some(beat) = &req.beat else {
        return run_tests(req, opts, None);
    };
    // The heartbeat beats on a thread of its own for as long as the run goes on.
    let ticker = Ticker::new();
    std::thread::scope(|s| {
        s.spawn(|| ticker.run(beat));
        let report = run_tests(req, opts, Some(&ticker));
        ticker.stop();
        report
    })
}

fn run_tests(
    req: &TestRequest,
    opts: &StateOptions,
    ticker: Option<&Ticker>,
) -> Result<Tested, EngineError> {
    let start = Instant::now();
    let root = resolve(req.root.as_deref(), &req.cwd)?;
    let mut warnings = Vec::new();
    let watcher = opts.watcher.as_deref().filter(|w| w.root() == root);
    let selection = selection(req);
    // What `--changed` runs depends on more than the selection's key: it never replays.
    let since = opts.since.filter(|_| req.changed.is_none());
    // Where nothing before the run needs the generation (no `since` to answer from, no change
    // set to select by) and no watcher keeps it cheap, the run lock is taken while the runners
    // are found, and the state is opened and the workspace scanned beside the run instead of
    // before it: a green run then costs what its runner costs.
    let beside = watcher.is_none() && since.is_none() && req.changed.is_none();
    let wait = opts.wait.unwrap_or(DEFAULT_WAIT);
    let (mut store, mut place, detected, locked) = if beside {
        let (found, detected) = std::thread::scope(|s| {
            let found = s.spawn(|| {
                let place = Place::find(&root)?;
                let locked = place.lock_run(wait);
                Ok::<_, StoreError>((place, locked))
            });
            let detected = select_runners(&root, req.runner.as_deref());
            let found = found
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            (found, detected)
        });
        match found {
            Ok((place, locked)) => (None, Some(place), Some(detected), Some(locked)),
            Err(e) => {
                warnings.push(without_state(&e));
                (None, None, Some(detected), None)
            }
        }
    } else {
        let store = Store::open(&root)
            .map_err(|e| warnings.push(without_state(&e)))
            .ok();
        (store, None, None, None)
    };
    let mut generation = if beside {
        None
    } else {
        fresh(store.as_mut(), watcher, &mut warnings)
    };
    if let Some(report) = replay(store.as_ref(), generation, since, &selection) {
        return Ok(Tested::unrecorded(finish(report, store, warnings)));
    }
    // Detection reads the workspace's project files: only when something will run.
    let adapters = match detected {
        Some(found) => found,
        None => select_runners(&root, req.runner.as_deref()),
    }?;
    let planned = req
        .changed
        .as_ref()
        .map(|since| crate::impact::plan(store.as_ref(), &root, since, &adapters))
        .transpose()?;
    let selection = match &planned {
        Some(p) => p.key(),
        None => selection,
    };

    let lock = match locked.or_else(|| store.as_ref().map(|s| s.lock_run(wait))) {
        Some(Ok(TryLock::Held(lock))) => Some(lock),
        Some(Ok(TryLock::Busy { holder })) => {
            if beside {
                store = opened(place.take(), &mut warnings);
                generation = fresh(store.as_mut(), watcher, &mut warnings);
            }
            let names = names_of(&adapters).join(",");
            let report = busy(&names, holder, generation, start.elapsed());
            return Ok(Tested::unrecorded(finish(report, store, warnings)));
        }
        Some(Err(e)) => {
            warnings.push(format!("running without the run lock: {e}"));
            None
        }
        None => None,
    };
    if lock.as_ref().is_some_and(|l| l.waited) && !beside {
        // Another run held the workspace: what it left, and what changed meanwhile, count.
        generation = fresh(store.as_mut(), watcher, &mut warnings);
        if let Some(report) = replay(store.as_ref(), generation, since, &selection) {
            return Ok(Tested::unrecorded(finish(report, store, warnings)));
        }
    }

    let routed = planned.as_ref().and_then(|p| p.routed.as_deref());
    let traces = !matches!(req.trace, crate::Trace::Never)
        && adapters.iter().any(|p| p.adapter.traces_in_run());
    if beside && traces {
        // The run traces the files changed since the last green one: known only after a scan.
        store = opened(place.take(), &mut warnings);
        generation = fresh(store.as_mut(), watcher, &mut warnings);
    }
    let plan = match (traces, store.as_ref()) {
        (false, _) | (_, None) => None,
        (true, Some(s)) => crate::impact::trace_plan(s, &root),
    };
    let execute = || {
        let started = Instant::now();
        execute(
            req,
            &root,
            &adapters,
            started,
            routed,
            plan.as_ref(),
            ticker,
        )
    };
    // Change memory (what the next red run compares with) is kept while the tests run: it
    // reads the workspace's files and asks git which of them are HEAD's.
    let (ran, remembered) = match (place.take(), store.as_mut()) {
        (Some(place), _) => {
            let (beside, ran) = scanned_beside(place, execute);
            match beside {
                Ok(b) => {
                    store = Some(b.store);
                    generation = keep(b.scanned, &mut warnings);
                    (ran, b.remembered)
                }
                Err(e) => {
                    warnings.push(without_state(&e));
                    (ran, None)
                }
            }
        }
        (None, Some(s)) if generation.is_some() => {
            let (remembered, ran) = remembered_beside(s, execute);
            (ran, Some(remembered))
        }
        (None, _) => (execute(), None),
    };
    if let Some(Err(e)) = remembered {
        warnings.push(format!("change memory not kept: {e}"));
    }
    let mut report = ran?;
    report.generation = generation;
    report.changes = planned.as_ref().map(|p| p.selection.clone());
    let cancelled = crate::stopped_by_caller(req);
    let mut recorded = false;
    // What the runners printed, for `pith output`: any run that ran to its end keeps it, a
    // run the history cannot record included (its output is all there is to read then).
    // Recording annotates the report's failures, never what the runners printed, so either
    // may go first. A run that printed much (past [`KEPT_IN_LINE`]) keeps it on a thread while
    // it is recorded; a small one in line, as a thread's start and join cost more than the
    // write then (a virtual machine is slow to wake an idle processor: 0.7 ms against 0.3 ms
    // for a small crate's green run).
    let shelf = store
        .as_ref()
        .filter(|_| !cancelled)
        .map(|s| s.output_shelf());
    let (beside, printed) = if printed_bytes(&report) > KEPT_IN_LINE {
        (shelf, None)
    } else {
        (None, shelf)
    };
    std::thread::scope(|sc| {
        let keeping = beside.map(|shelf| {
            let (root, ran) = (&root, report.clone());
            sc.spawn(move || shelf.keep(&crate::output::kept(root, &ran)))
        });
        let kept_here = printed.map(|shelf| shelf.keep(&crate::output::kept(&root, &report)));
        if let (Some(s), Some(g), false) = (store.as_mut(), generation, cancelled) {
            let asked = routed.map_or(req.tests.len(), |r| {
                r.iter().map(|(_, ids)| ids.len().max(1)).sum()
            });
            let requested = u32::try_from(asked).unwrap_or(u32::MAX);
            let retention = Retention::from_env();
            let recorded_run = recovering(s, |s| {
                s.record_pruned(g, &selection, requested, &mut report, retention)
            });
            recorded = keep(recorded_run, &mut warnings).is_some();
        }
        let kept = keeping
            .map(|k| k.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .or(kept_here);
        if let Some(Err(e)) = kept {
            warnings.push(format!("the run's output was not kept: {e}"));
        }
    });
    if let (Some(s), Some(_), false) = (store.as_mut(), generation, cancelled) {
        if !report.status().is_green() {
            // Each run's project, for re-running its failing tests with tracing.
            let owners: Vec<Option<usize>> = report
                .runs
                .iter()
                .map(|run| {
                    adapters
                        .iter()
                        .position(|p| p.rel == run.dir && p.adapter.name() == run.runner)
                        .or_else(|| owner_of(&adapters, run))
                })
                .collect();
            if let Some(t) = ticker {
                t.ended(0, "finding the changes the failures reach");
            }
            let tracer = |r: usize, tests: &[String], files: &[String]| {
                let project = &adapters[owners.get(r).copied().flatten()?];
                crate::trace_project(req, &root, project, tests, files)
            };
            crate::impact::find_suspects(s, &root, &mut report, req.trace, &tracer);
        }
    }
    drop(lock);
    let mut report = finish(report, None, warnings);
    if let Some(s) = store.as_mut() {
        report.warnings.splice(0..0, s.take_warnings());
    }
    Ok(Tested {
        report,
        store: store.filter(|_| recorded),
    })
}

/// The project whose declared command produced `run` when it is not named after it (a
/// second runner of a JavaScript test script, a workspace package): the deepest project
/// holding the run's directory that claims its failing tests.
fn owner_of(adapters: &[crate::detect::Found], run: &pith_model::Run) -> Option<usize> {
    let test = &run.failures.first()?.test;
    adapters
        .iter()
        .enumerate()
        .filter(|(_, p)| match (&p.rel, &run.dir) {
            (None, _) => true,
            (Some(r), Some(d)) => d == r || d.starts_with(&format!("{r}/")),
            (Some(_), None) => false,
        })
        .filter(|(_, p)| p.adapter.claims(test))
        .max_by_key(|(_, p)| p.rel.as_ref().map_or(0, String::len))
        .map(|(i, _)| i)
}

/// A test run's report, with the store it was recorded in (`None`: not recorded: a replay, a
/// busy workspace, a cancelled run, no workspace state).
pub(crate) struct Tested {
    pub report: Report,
    pub store: Option<Store>,
}

impl Tested {
    fn unrecorded(report: Report) -> Self {
        Tested {
            report,
            store: None,
        }
    }
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
    let names: Vec<String> = names_of(&detect_workspace(root, None))
        .into_iter()
        .map(str::to_owned)
        .collect();
    // Best effort: a busy database only costs the next status another detection.
    let _ = store.cache_runners(&key, generation, &names);
    Ok(names)
}

/// Bytes of runner output above which the output is kept on a thread of its own.
const KEPT_IN_LINE: usize = 128 * 1024;

/// Bytes the report's runners printed, as kept for `pith output`.
fn printed_bytes(report: &Report) -> usize {
    report
        .runs
        .iter()
        .map(|r| r.printed.text.len() + r.printed.tail.len())
        .sum()
}

/// The generation now, or `None` with a warning.
fn fresh(
    store: Option<&mut Store>,
    watcher: Option<&Watcher>,
    warnings: &mut Vec<String>,
) -> Option<u64> {
    store.and_then(|s| keep(recovering(s, |s| refresh(s, watcher)), warnings))
}

/// What is done beside a run when nothing before it needs the state: the state opened, the
/// workspace scanned (see [`Store::scan_during`]), its contents remembered.
struct Beside {
    store: Store,
    scanned: Result<u64, StoreError>,
    /// `None` when the scan failed.
    remembered: Option<Result<Remembered, StoreError>>,
}

/// Runs `run` while the state in `place` is opened, the workspace scanned and remembered
/// beside it.
fn scanned_beside<T>(place: Place, run: impl FnOnce() -> T) -> (Result<Beside, StoreError>, T) {
    let started = pith_store::RunStart::now();
    std::thread::scope(|s| {
        let beside = s.spawn(move || {
            let mut store = place.open()?;
            let scanned = recovering(&mut store, |s| s.scan_during(started));
            let remembered = scanned.is_ok().then(|| store.remember());
            store.prepare_to_record();
            Ok(Beside {
                store,
                scanned,
                remembered,
            })
        });
        let ran = run();
        let beside = beside
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (beside, ran)
    })
}

/// Runs `run` while the current generation's contents are remembered beside it.
fn remembered_beside<T>(
    store: &mut Store,
    run: impl FnOnce() -> T,
) -> (Result<Remembered, StoreError>, T) {
    std::thread::scope(|s| {
        let remembered = s.spawn(|| {
            let remembered = store.remember();
            store.prepare_to_record();
            remembered
        });
        let ran = run();
        let remembered = remembered
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (remembered, ran)
    })
}

/// The state in `place` opened now, or `None` with a warning.
fn opened(place: Option<Place>, warnings: &mut Vec<String>) -> Option<Store> {
    place?
        .open()
        .map_err(|e| warnings.push(without_state(&e)))
        .ok()
}

fn without_state(e: &StoreError) -> String {
    format!("running without the workspace state: {e}")
}

/// The generation: from the watcher's dirty set when there is one, else by a scan.
fn refresh(store: &mut Store, watcher: Option<&Watcher>) -> Result<u64, StoreError> {
    match watcher {
        Some(w) => store.refresh(w.take_synced()),
        None => store.scan(),
    }
}

/// Runs `f`; when the database turns out damaged, moves it aside and runs `f` once more on a
/// fresh one.
fn recovering<T>(
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
fn keep<T>(r: Result<T, StoreError>, warnings: &mut Vec<String>) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            warnings.push(e.to_string());
            None
        }
    }
}

/// The answer without running, when nothing changed since `since` and this selection's last
/// run in this environment (the same variables) tested that very generation. Verdicts that
/// depend on more than the inputs (a missing runner, a deadline) are never replayed.
fn replay(
    store: Option<&Store>,
    generation: Option<u64>,
    since: Option<u64>,
    selection: &str,
) -> Option<Report> {
    let (store, generation) = (store?, generation?);
    if since? != generation {
        return None;
    }
    let last: RunSummary = store.last_run_of(selection).ok()??;
    let replayable = !matches!(
        last.status,
        Status::RunnerMissing | Status::TimedOut | Status::Cancelled
    );
    (last.generation == generation && replayable).then(|| Report {
        generation: Some(generation),
        unchanged: Some(last),
        ..Report::default()
    })
}

fn busy(runner: &str, holder: Option<u32>, generation: Option<u64>, waited: Duration) -> Report {
    let who = holder.map_or(String::new(), |pid| format!(" (pid {pid})"));
    let run = Run {
        status: Some(Status::Busy),
        hint: Some(format!(
            "another pith test{who} is running in this workspace; ask again when it ends"
        )),
        ..Run::new(runner)
    };
    Report {
        runs: vec![run],
        duration: waited,
        generation,
        ..Report::default()
    }
}

fn finish(mut report: Report, mut store: Option<Store>, mut warnings: Vec<String>) -> Report {
    if let Some(s) = store.as_mut() {
        warnings.splice(0..0, s.take_warnings());
    }
    report.warnings = warnings;
    report
}

/// What was asked, as the history keys it: the runner and the sorted test ids.
fn selection(req: &TestRequest) -> String {
    let mut ids: Vec<&str> = req.tests.iter().map(String::as_str).collect();
    ids.sort_unstable();
    ids.dedup();
    if req.runner.is_none() && ids.is_empty() {
        return String::new();
    }
    let mut key = req.runner.clone().unwrap_or_default();
    for id in ids {
        key.push('\u{1f}');
        key.push_str(id);
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_selection_is_its_runner_and_sorted_unique_ids() {
        let req = |runner: Option<&str>, tests: &[&str]| TestRequest {
            runner: runner.map(Into::into),
            tests: tests.iter().map(|t| t.to_string()).collect(),
            ..TestRequest::default()
        };
        assert_eq!(selection(&req(None, &[])), "");
        assert_eq!(
            selection(&req(None, &["b", "a", "b"])),
            selection(&req(None, &["a", "b"]))
        );
        assert_ne!(
            selection(&req(Some("cargo"), &[])),
            selection(&req(None, &[]))
        );
    }

    #[test]
    fn busy_is_not_green_and_says_who() {
        let r = busy("pytest", Some(42), Some(3), Duration::ZERO);
        assert_eq!(r.status(), Status::Busy);
        assert!(r.runs[0].hint.as_ref().unwrap().contains("pid 42"));
        assert_eq!(Status::Busy.exit_code(), 2);
    }
}
