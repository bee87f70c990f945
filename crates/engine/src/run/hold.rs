//! The workspace state as one test run holds it: opened before the run, or (when nothing before
//! the run needs it) found while the runners are detected and opened and scanned beside the
//! run, so a green run costs what its runner costs; the run lock; the answer from the history
//! without running (`since`); and the change memory kept while the tests run. A damaged state
//! (or none that can be written) never fails the run: it goes on without it, with a warning.

use std::path::Path;
use std::time::Duration;

use pith_model::{Report, Run, RunSummary, Status};
use pith_store::{Place, Remembered, RunLock, Store, StoreError, TryLock};

use crate::detect::{names_of, select_runners, Found};
use crate::state::{keep, recovering, refresh};
use crate::watch::Watcher;
use crate::{EngineError, TestRequest};

use super::Tested;

/// The runners found and the run lock taken beside each other, when the state waits for
/// the run.
pub(super) type Detected = (
    Option<Result<Vec<Found>, EngineError>>,
    Option<Result<TryLock, StoreError>>,
);

/// The workspace state of one run, and the warnings it gathers on the way.
pub(super) struct Held<'a> {
    watcher: Option<&'a Watcher>,
    pub store: Option<Store>,
    /// Where the state is, while it waits to be opened beside the run.
    place: Option<Place>,
    pub generation: Option<u64>,
    pub warnings: Vec<String>,
    /// Nothing before the run needs the state: it is opened and scanned beside the run.
    pub beside: bool,
}

impl<'a> Held<'a> {
    /// The state for a run in `root`. Where nothing before the run needs the generation (no
    /// `since` to answer from, no change set to select by) and no watcher keeps it cheap, the
    /// run lock is taken while the runners are found, and the state is opened and the
    /// workspace scanned beside the run instead of before it. Returns the runners found then
    /// and the lock taken, if any.
    pub fn open(
        root: &Path,
        req: &TestRequest,
        watcher: Option<&'a Watcher>,
        since: Option<u64>,
        wait: Duration,
    ) -> (Self, Detected) {
        let beside = watcher.is_none() && since.is_none() && req.changed.is_none();
        let mut held = Held {
            watcher,
            store: None,
            place: None,
            generation: None,
            warnings: Vec::new(),
            beside,
        };
        if !beside {
            held.store = Store::open(root)
                .map_err(|e| held.warnings.push(without_state(&e)))
                .ok();
            held.refresh();
            return (held, (None, None));
        }
        let (found, detected) = std::thread::scope(|s| {
            let found = s.spawn(|| {
                let place = Place::find(root)?;
                let locked = place.lock_run(wait);
                Ok::<_, StoreError>((place, locked))
            });
            let detected = select_runners(root, req.runner.as_deref());
            let found = found
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            (found, detected)
        });
        match found {
            Ok((place, locked)) => {
                held.place = Some(place);
                (held, (Some(detected), Some(locked)))
            }
            Err(e) => {
                held.warnings.push(without_state(&e));
                (held, (Some(detected), None))
            }
        }
    }

    /// The generation now (`None` with a warning).
    pub fn refresh(&mut self) {
        let watcher = self.watcher;
        self.generation = self
            .store
            .as_mut()
            .and_then(|s| keep(recovering(s, |s| refresh(s, watcher)), &mut self.warnings));
    }

    /// The state opened and scanned now, not beside the run.
    pub fn open_now(&mut self) {
        self.store = opened(self.place.take(), &mut self.warnings);
        self.refresh();
    }

    /// The answer without running, when nothing changed since `since` and this selection's
    /// last run in this environment (the same variables) tested that very generation.
    /// Verdicts that depend on more than the inputs (a missing runner, a deadline) are never
    /// replayed.
    pub fn replay(&self, since: Option<u64>, selection: &str) -> Option<Report> {
        let (store, generation) = (self.store.as_ref()?, self.generation?);
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

    /// The run lock: taken beside the detection (`locked`), else now, waiting up to `wait`
    /// for another pith run; `Err` is the `Busy` answer. No state, no lock: the run goes on.
    pub fn lock(
        &mut self,
        locked: Option<Result<TryLock, StoreError>>,
        wait: Duration,
        adapters: &[Found],
        started: std::time::Instant,
    ) -> Result<Option<RunLock>, Box<Report>> {
        match locked.or_else(|| self.store.as_ref().map(|s| s.lock_run(wait))) {
            Some(Ok(TryLock::Held(lock))) => Ok(Some(lock)),
            Some(Ok(TryLock::Busy { holder })) => {
                if self.beside {
                    self.open_now();
                }
                let names = names_of(adapters).join(",");
                Err(Box::new(busy(
                    &names,
                    holder,
                    self.generation,
                    started.elapsed(),
                )))
            }
            Some(Err(e)) => {
                self.warnings
                    .push(format!("running without the run lock: {e}"));
                Ok(None)
            }
            None => Ok(None),
        }
    }

    /// Runs `run` while the change memory (what the next red run compares with) is kept
    /// beside it: it reads the workspace's files and asks git which of them are HEAD's. A state
    /// still to be opened is opened, and the workspace scanned, beside it too.
    pub fn during<T>(&mut self, run: impl FnOnce() -> T) -> T {
        let (ran, remembered) = match (self.place.take(), self.store.as_mut()) {
            (Some(place), _) => {
                let (beside, ran) = scanned_beside(place, run);
                match beside {
                    Ok(b) => {
                        self.store = Some(b.store);
                        self.generation = keep(b.scanned, &mut self.warnings);
                        (ran, b.remembered)
                    }
                    Err(e) => {
                        self.warnings.push(without_state(&e));
                        (ran, None)
                    }
                }
            }
            (None, Some(s)) if self.generation.is_some() => {
                let (remembered, ran) = remembered_beside(s, run);
                (ran, Some(remembered))
            }
            (None, _) => (run(), None),
        };
        if let Some(Err(e)) = remembered {
            self.warnings.push(format!("change memory not kept: {e}"));
        }
        ran
    }

    /// An answer that is not recorded (a replay, a busy workspace), with the warnings.
    pub fn unrecorded(self, report: Report) -> Tested {
        Tested {
            report: finish(report, self.store, self.warnings),
            store: None,
        }
    }

    /// The run's answer with the warnings, and the store when the run was recorded in it.
    pub fn tested(self, report: Report, recorded: bool) -> Tested {
        let mut report = finish(report, None, self.warnings);
        let mut store = self.store;
        if let Some(s) = store.as_mut() {
            report.warnings.splice(0..0, s.take_warnings());
        }
        Tested {
            report,
            store: store.filter(|_| recorded),
        }
    }
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
pub(super) fn selection(req: &TestRequest) -> String {
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
