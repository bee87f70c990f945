//! A red run's suspects, from the run's side: which project each failing run came from, so a
//! few of its failing tests can run again with line tracing (under a limit of their own), and
//! the impact module's ranking over what they reach.

use std::path::Path;
use std::time::{Duration, Instant};

use pith_model::impact::{Traced, Traceless};
use pith_model::Report;
use pith_runner::{Context, PathMap};
use pith_store::Store;

use crate::detect::Found;
use crate::heartbeat::Ticker;
use crate::impact::{find_suspects, ChangeContext};
use crate::route::owner_of;
use crate::{cache_dir, TestRequest, DEFAULT_TIMEOUT};

/// Sets the red report's suspects (see [`find_suspects`]), re-running failing tests of the
/// projects in `adapters` with tracing when the graph leaves a choice.
pub(super) fn suspects(
    req: &TestRequest,
    adapters: &[Found],
    store: &Store,
    changes: &ChangeContext,
    report: &mut Report,
    ticker: Option<&Ticker>,
) {
    // Each run's project, for re-running its failing tests with tracing.
    let owners: Vec<Option<usize>> = report
        .runs
        .iter()
        .map(|run| {
            adapters
                .iter()
                .position(|p| p.rel == run.dir && p.adapter.name() == run.runner)
                .or_else(|| owner_of(adapters, run))
        })
        .collect();
    if let Some(t) = ticker {
        t.ended(0, "finding the changes the failures reach");
    }
    let root = changes.root();
    let tracer = |r: usize, tests: &[String], files: &[String]| {
        let Some(project) = owners.get(r).copied().flatten().map(|i| &adapters[i]) else {
            return Err(Traceless::Unsupported);
        };
        trace_project(req, root, project, tests, files)
    };
    find_suspects(store, changes, report, req.trace, &tracer);
}

/// How long re-running a few failing tests with line tracing may take: past it, the suspects
/// stay those of the static reach.
pub(crate) const TRACE_LIMIT: Duration = Duration::from_secs(60);

/// Re-runs `tests` of `project` with line tracing on `files`, in a scratch directory of its
/// own and under [`TRACE_LIMIT`] (or what is left of the request's bound, if less); else
/// whether the runner cannot trace or the re-run told nothing.
fn trace_project(
    req: &TestRequest,
    root: &Path,
    project: &Found,
    tests: &[String],
    files: &[String],
) -> Result<Traced, Traceless> {
    if !project.adapter.can_trace() {
        return Err(Traceless::Unsupported);
    }
    let cache = cache_dir().map_err(|_| Traceless::Empty)?;
    let scratch = pith_runner::Scratch::lazy(&cache, "trace-");
    let paths = PathMap::new(root);
    let ctx = Context {
        root,
        dir: &project.dir,
        paths: &paths,
        deadline: Instant::now() + TRACE_LIMIT.min(req.timeout.unwrap_or(DEFAULT_TIMEOUT)),
        scratch: &scratch,
        cache: &cache,
        cancel: req.cancel.as_deref(),
        trace: None,
    };
    match project.adapter.trace(&ctx, tests, files) {
        Ok(Some(t)) => Ok(t),
        _ => Err(Traceless::Empty),
    }
}
