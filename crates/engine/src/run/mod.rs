//! `pith test`, from request to report, read top to bottom in [`run_tests`]: the workspace
//! resolved; its state held ([`hold`]: opened, or found beside the detection and opened beside
//! the run) and, with `since`, the answer from the history when nothing changed; the projects
//! and their runners selected (`detect`); with `--changed`, the plan of what the changes reach
//! (`impact`); the run lock; the runners run ([`execute`], each through its adapter in
//! `pith_runner`) while the change memory is kept beside them; the run recorded and its output
//! kept ([`record`]); on red, the suspects ([`suspects`]: the changed lines the failures reach,
//! re-running a few with tracing when the graph leaves a choice). `answer::test` then shapes
//! the report through `wire`.
//!
//! Every run is numbered with the generation it tested (the workspace's files, ignored inputs
//! included, and the toolchains, virtualenvs and packages outside them) and recorded with the
//! environment it ran in. A damaged state never fails a run: it goes on without it, with a
//! warning.

mod execute;
mod hold;
mod record;
mod suspects;

use std::time::Instant;

use pith_model::Report;
use pith_store::Store;

use crate::detect::select_runners;
use crate::heartbeat::Ticker;
use crate::impact::{self, ChangeContext};
use crate::{resolve, EngineError, StateOptions, TestRequest, DEFAULT_WAIT};

pub(crate) use execute::read_reports;
pub(crate) use suspects::TRACE_LIMIT;

use execute::{execute, stopped_by_caller};
use hold::Held;

/// A test run's report, with the store it was recorded in (`None`: not recorded: a replay, a
/// busy workspace, a cancelled run, no workspace state).
pub(crate) struct Tested {
    pub report: Report,
    pub store: Option<Store>,
}

/// Runs the workspace's tests and reports what happened (a red run is `Ok`; `Err` means pith
/// could not do its job), with the state options: the answer carries the generation it tested,
/// `since` may answer `unchanged` without running, another run holding the workspace makes
/// this one wait (up to the bound) or answer `Busy`.
pub(crate) fn run_tests_with(
    req: &TestRequest,
    opts: &StateOptions,
) -> Result<Tested, EngineError> {
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
    let watcher = opts.watcher.as_deref().filter(|w| w.root() == root);
    // What `--changed` runs depends on more than the selection's key: it never replays.
    let since = opts.since.filter(|_| req.changed.is_none());
    let wait = opts.wait.unwrap_or(DEFAULT_WAIT);
    let (mut held, (detected, locked)) = Held::open(&root, req, watcher, since, wait);
    let mut selection = hold::selection(req);
    if let Some(report) = held.replay(since, &selection) {
        return Ok(held.unrecorded(report));
    }
    // Detection reads the workspace's project files: only when something will run.
    let adapters = detected.unwrap_or_else(|| select_runners(&root, req.runner.as_deref()))?;
    let mut changes = ChangeContext::new(&root);
    let planned = req
        .changed
        .as_ref()
        .map(|since| impact::plan(held.store.as_ref(), &changes, since, &adapters))
        .transpose()?;
    if let Some(p) = &planned {
        if let Some(green) = &p.stands {
            let generation = held.generation;
            // Changes no test reaches leave the last green standing, unproven where they are.
            let untested = held
                .store
                .as_ref()
                .zip(generation)
                .filter(|_| !p.selection.changed.is_empty())
                .and_then(|(s, g)| impact::untested(s, &changes, g));
            return Ok(held.unrecorded(Report {
                generation,
                unchanged: Some(green.clone()),
                changes: Some(p.selection.clone()),
                untested,
                ..Report::default()
            }));
        }
        selection = p.key();
    }

    let lock = match held.lock(locked, wait, &adapters, start) {
        Ok(lock) => lock,
        Err(busy) => return Ok(held.unrecorded(*busy)),
    };
    if lock.as_ref().is_some_and(|l| l.waited) && !held.beside {
        // Another run held the workspace: what it left, and what changed meanwhile, count.
        held.refresh();
        if let Some(report) = held.replay(since, &selection) {
            return Ok(held.unrecorded(report));
        }
    }

    let routed = planned.as_ref().and_then(|p| p.routed.as_deref());
    let traces = !matches!(req.trace, crate::Trace::Never)
        && adapters.iter().any(|p| p.adapter.traces_in_run());
    if held.beside && traces {
        // The run traces the files changed since the last green one: known only after a scan.
        held.open_now();
    }
    let plan = match (traces, held.store.as_ref()) {
        (false, _) | (_, None) => None,
        (true, Some(s)) => impact::trace_plan(s, &changes),
    };
    let ran = held.during(|| {
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
    });
    let mut report = ran?;
    report.generation = held.generation;
    report.changes = planned.as_ref().map(|p| p.selection.clone());

    let cancelled = stopped_by_caller(req);
    let asked = routed.map_or(req.tests.len(), |r| {
        r.iter().map(|(_, ids)| ids.len().max(1)).sum()
    });
    let requested = u32::try_from(asked).unwrap_or(u32::MAX);
    // A run of everything, or of everything the changes reach: what no test reaches is what
    // this green does not prove. Before the run is recorded, which lets the store forget the
    // contents it is measured from.
    let whole = req.tests.is_empty() || planned.is_some();
    if let (Some(s), Some(generation), false) = (held.store.as_ref(), held.generation, cancelled) {
        if report.status().is_green() && whole {
            report.untested = impact::untested(s, &changes, generation);
        }
    }
    let recorded = record::record(
        &mut held,
        &root,
        &mut report,
        &selection,
        requested,
        cancelled,
    );
    if let (Some(s), Some(_), false) = (held.store.as_ref(), held.generation, cancelled) {
        if !report.status().is_green() {
            if planned.is_some() {
                // The graph was made before the run: what the run saw tests load joins it.
                changes.observe_again(s);
            }
            suspects::suspects(req, &adapters, s, &changes, &mut report, ticker);
        }
    }
    drop(lock);
    Ok(held.tested(report, recorded))
}
