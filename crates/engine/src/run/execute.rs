//! Running the selected projects' runners under one deadline and cancel switch, each with
//! its ids (routed, or planned by `--changed`), into one report; and reading report files
//! (`pith test --report`) into one, running nothing. Nothing here touches the workspace state.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pith_model::{Report, Run};
use pith_runner::{Context, PathMap};

use crate::detect::{names_of, Found};
use crate::heartbeat::Ticker;
use crate::route::{route, unclaimed};
use crate::workspace::RootError;
use crate::{cache_dir, root_of, EngineError, TestRequest, DEFAULT_TIMEOUT};

/// Runs the selected runners: the part of a test run that does not involve the workspace state.
/// `planned`, when given, is what each project runs (an index into `found` and its ids, empty
/// for all of it), instead of routing the request's ids.
pub(super) fn execute(
    req: &TestRequest,
    root: &Path,
    found: &[Found],
    start: Instant,
    planned: Option<&[(usize, Vec<String>)]>,
    trace: Option<&pith_runner::TracePlan>,
    ticker: Option<&Ticker>,
) -> Result<Report, EngineError> {
    let root = root.to_path_buf();
    let cache = cache_dir()?;
    let scratch = pith_runner::Scratch::lazy(&cache, "run-");
    let paths = PathMap::new(&root);
    let base = Context {
        root: &root,
        dir: &root,
        paths: &paths,
        deadline: start + req.timeout.unwrap_or(DEFAULT_TIMEOUT),
        scratch: &scratch,
        cache: &cache,
        cancel: req.cancel.as_deref(),
        trace,
    };

    // No runner's test id begins with `-` (they begin with a path, a package or a suite): such
    // an id is an option in disguise and never reaches a runner, whatever each adapter does.
    let (dashed, ids): (Vec<String>, Vec<String>) =
        req.tests.iter().cloned().partition(|t| t.starts_with('-'));
    let mut runs = Vec::new();
    let routed = if let Some(plan) = planned {
        plan.iter()
            .map(|(i, ids)| (&found[*i], ids.clone()))
            .collect()
    } else if ids.is_empty() && !dashed.is_empty() {
        Vec::new()
    } else {
        route(found, &ids)
    };
    for (project, tests) in routed {
        let doing = match &project.rel {
            Some(rel) => format!("{} in {rel}", project.adapter.name()),
            None => project.adapter.name().to_owned(),
        };
        if let Some(progress) = &req.progress {
            progress(&doing);
        }
        if let Some(t) = ticker {
            t.project(doing, project.adapter.progress(&scratch));
        }
        let ctx = Context {
            dir: &project.dir,
            ..base
        };
        let parts = project.adapter.run_all(&ctx, &tests)?;
        if let Some(t) = ticker {
            let tests: u64 = parts
                .iter()
                .map(|r| u64::from(r.passed) + u64::from(r.failed) + u64::from(r.skipped))
                .sum();
            t.ended(tests, "recording the run");
        }
        for mut run in parts {
            if run.status == Some(pith_model::Status::TimedOut) && stopped_by_caller(req) {
                // pith stopped it, but not at its deadline: the request was cancelled or pith
                // was told to stop. No verdict on the code.
                run.status = Some(pith_model::Status::Cancelled);
            }
            pith_runner::tails::settle(&mut run);
            // A part of the project's command in a package of its own keeps that directory.
            if run.dir.is_none() {
                run.dir = project.rel.clone();
            }
            runs.push(run);
        }
    }
    if planned.is_some_and(|p| p.is_empty()) {
        // The changes reach no test: nothing ran, and the answer's `changes` says why.
        runs.push(Run::new(names_of(found).join(",")));
    } else if let Some(first) = runs.first_mut() {
        first.not_found.extend(unclaimed(found, &ids));
        first.not_found.extend(dashed);
    } else {
        // Every id was unclaimed: nothing ran, and the answer says which ids matched nothing.
        let mut run = Run::new(names_of(found).join(","));
        run.not_found = req.tests.clone();
        runs.push(run);
    }
    Ok(Report {
        runs,
        duration: start.elapsed(),
        ..Report::default()
    })
}

/// Whether the request's caller cancelled it or pith was told to stop (a signal).
pub(super) fn stopped_by_caller(req: &TestRequest) -> bool {
    req.cancel
        .as_ref()
        .is_some_and(|c| c.load(std::sync::atomic::Ordering::SeqCst))
        || pith_runner::process::was_interrupted()
}

/// Reads existing report files (JUnit XML, TRX, `go test -json`, jest/vitest JSON, GoogleTest
/// JSON) into one report without running anything. Paths in them are made relative to the
/// workspace found from `cwd` (or `root`).
pub(crate) fn read_reports(
    root: Option<&Path>,
    cwd: &Path,
    files: &[PathBuf],
) -> Result<Report, EngineError> {
    // Only paths are made relative to it: nothing is scanned or written, so a directory in
    // no project (a report read from anywhere) is root enough.
    let root = match root_of(root, cwd) {
        Err(
            RootError::NoProject(dir) | RootError::TooBroad(dir, _) | RootError::Refused(dir, _),
        ) => dir,
        other => other?,
    };
    let paths = PathMap::new(&root);
    let mut runs = Vec::new();
    for file in files {
        let file = if file.is_absolute() {
            file.clone()
        } else {
            cwd.join(file)
        };
        runs.push(pith_runner::report::read(&file, &paths)?);
    }
    // A report's duration is the one it recorded, not the time pith took to read it.
    // Saturating: a report from elsewhere may record any time at all.
    let duration = runs
        .iter()
        .map(|r| r.duration)
        .fold(Duration::ZERO, Duration::saturating_add);
    Ok(Report {
        runs,
        duration,
        ..Report::default()
    })
}
