//! The query API every front end calls (the CLI today, the MCP server next), so an answer is
//! computed in one place: find the workspace, pick its runners, run them, merge their results.
//! The engine does no printing and no serialization; progress goes through a callback.

mod state;
mod symbols;
mod workspace;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pith_model::{Report, Run};
use pith_runner::{Adapter, Context, PathMap, RunnerError};

pub use state::{
    failures, run_tests_with, status, FailuresRequest, StateOptions, StatusRequest, Watcher,
    DEFAULT_WAIT,
};
pub use symbols::{find_symbol, find_usages, Definition, FileUses, Kind, SymbolError};
pub use workspace::find_root;

/// Where a run reports what it is doing (one short line at a time); the CLI shows it on a
/// terminal.
pub type Progress = Box<dyn Fn(&str) + Send + Sync>;

/// Default bound on a whole test run.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// Expected failures of pith's job, each one clear line; distinct from failing tests (those
/// are a [`Report`]) and from bugs.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("{0} is not a directory")]
    BadRoot(PathBuf),
    #[error("no test runner found in {0} (looked for Cargo, Python, Go, JavaScript, JVM, .NET and CMake projects)")]
    NoRunner(PathBuf),
    #[error("runner {name} not found in {root} (detected: {detected})")]
    RunnerNotDetected {
        name: String,
        root: PathBuf,
        detected: String,
    },
    #[error("unknown runner {0} (known: {known})", known = pith_runner::RUNNER_NAMES.join(", "))]
    UnknownRunner(String),
    #[error("pith's cache directory {path} is not usable: {source}")]
    Cache {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Runner(#[from] RunnerError),
    #[error(transparent)]
    Report(#[from] pith_runner::report::ReportError),
    #[error(transparent)]
    State(#[from] pith_store::StoreError),
}

/// One `pith test` request, as the CLI or an MCP tool call states it.
#[derive(Default)]
pub struct TestRequest {
    /// An explicit workspace root; otherwise found from `cwd`.
    pub root: Option<PathBuf>,
    pub cwd: PathBuf,
    /// Bound on the whole run; [`DEFAULT_TIMEOUT`] when `None`.
    pub timeout: Option<Duration>,
    /// Test ids from an earlier answer; empty runs everything.
    pub tests: Vec<String>,
    /// Run only this runner (one of [`pith_runner::RUNNER_NAMES`]).
    pub runner: Option<String>,
    /// Set by another thread to cancel the run (its process groups are killed).
    pub cancel: Option<Arc<AtomicBool>>,
    /// Told the name of each runner as it starts, for a human watching.
    pub progress: Option<Progress>,
}

/// Runs the selected runners: the part of a test run that does not involve the workspace state.
fn execute(
    req: &TestRequest,
    root: &Path,
    adapters: &[Box<dyn Adapter>],
    start: Instant,
) -> Result<Report, EngineError> {
    let root = root.to_path_buf();
    let cache = cache_dir()?;
    let scratch = tempfile::Builder::new()
        .prefix("run-")
        .tempdir_in(&cache)
        .map_err(|source| EngineError::Cache {
            path: cache.clone(),
            source,
        })?;
    let paths = PathMap::new(&root);
    let ctx = Context {
        root: &root,
        paths: &paths,
        deadline: start + req.timeout.unwrap_or(DEFAULT_TIMEOUT),
        scratch: scratch.path(),
        cache: &cache,
        cancel: req.cancel.as_deref(),
    };

    let mut runs = Vec::new();
    for (adapter, tests) in route(adapters, &req.tests) {
        if let Some(progress) = &req.progress {
            progress(adapter.name());
        }
        runs.push(adapter.run(&ctx, &tests)?);
    }
    if let Some(first) = runs.first_mut() {
        first.not_found.extend(unclaimed(adapters, &req.tests));
    } else {
        // Every id was unclaimed: nothing ran, and the answer says which ids matched nothing.
        let mut run = Run::new(
            adapters
                .iter()
                .map(|a| a.name())
                .collect::<Vec<_>>()
                .join(","),
        );
        run.not_found = req.tests.clone();
        runs.push(run);
    }
    Ok(Report {
        runs,
        duration: start.elapsed(),
        ..Report::default()
    })
}

/// Reads existing report files (JUnit XML, TRX, `go test -json`, jest/vitest JSON, GoogleTest
/// JSON) into one report without running anything. Paths in them are made relative to the
/// workspace found from `cwd` (or `root`).
pub fn read_reports(
    root: Option<&Path>,
    cwd: &Path,
    files: &[PathBuf],
) -> Result<Report, EngineError> {
    let root = resolve(root, cwd)?;
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
    let duration = runs.iter().map(|r| r.duration).sum();
    Ok(Report {
        runs,
        duration,
        ..Report::default()
    })
}

fn select_runners(root: &Path, only: Option<&str>) -> Result<Vec<Box<dyn Adapter>>, EngineError> {
    if let Some(name) = only.filter(|n| !pith_runner::RUNNER_NAMES.contains(n)) {
        return Err(EngineError::UnknownRunner(name.to_owned()));
    }
    let adapters = detect_workspace(root, only);
    if !adapters.is_empty() {
        return Ok(adapters);
    }
    let all = detect_workspace(root, None);
    match only {
        Some(name) if !all.is_empty() => Err(EngineError::RunnerNotDetected {
            name: name.to_owned(),
            root: root.to_path_buf(),
            detected: all.iter().map(|a| a.name()).collect::<Vec<_>>().join(", "),
        }),
        _ => Err(EngineError::NoRunner(root.to_path_buf())),
    }
}

/// Directories never searched for projects: dependencies, build output, environments.
const NOT_PROJECTS: &[&str] = &[
    "node_modules",
    "target",
    "build",
    "dist",
    "vendor",
    "venv",
    "__pycache__",
];

/// The runners of the workspace: those of the root, then those of its immediate
/// subdirectories (a repository with a Rust crate, `python/` and `web/`), one per runner name,
/// the root's first. Deeper projects belong to a runner at a higher level (a Cargo member, a
/// Maven module) or are fixtures, not the workspace's own tests.
fn detect_workspace(root: &Path, only: Option<&str>) -> Vec<Box<dyn Adapter>> {
    let mut found = pith_runner::detect(root, only);
    let mut subdirs: Vec<PathBuf> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            !name.starts_with('.') && !NOT_PROJECTS.contains(&name.as_ref())
        })
        .map(|e| e.path())
        .collect();
    subdirs.sort();
    for dir in subdirs {
        for adapter in pith_runner::detect(&dir, only) {
            if !found.iter().any(|a| a.name() == adapter.name()) {
                found.push(adapter);
            }
        }
    }
    found
}

/// The workspace root: `root` when given (relative to `cwd`), else found from `cwd`.
pub fn resolve(root: Option<&Path>, cwd: &Path) -> Result<PathBuf, EngineError> {
    root_of(root, cwd).map_err(EngineError::BadRoot)
}

/// [`resolve`], with the path that is not a directory as the error.
fn root_of(root: Option<&Path>, cwd: &Path) -> Result<PathBuf, PathBuf> {
    match root {
        // An absolute `root` replaces `cwd`.
        Some(root) => {
            let root = cwd.join(root);
            if !root.is_dir() {
                return Err(root);
            }
            Ok(root.canonicalize().unwrap_or(root))
        }
        None => {
            let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
            Ok(find_root(&cwd).unwrap_or(cwd))
        }
    }
}

/// Which adapters run, with the ids each is to re-run. With no ids, every adapter runs
/// everything; with ids, only adapters that claim some of them run, and an id that an adapter
/// owns (see [`Adapter::owns`]) goes to its owners only.
fn route<'a>(
    adapters: &'a [Box<dyn Adapter>],
    tests: &[String],
) -> Vec<(&'a dyn Adapter, Vec<String>)> {
    if tests.is_empty() {
        return adapters.iter().map(|a| (a.as_ref(), Vec::new())).collect();
    }
    if let [only] = adapters {
        return vec![(only.as_ref(), tests.to_vec())];
    }
    adapters
        .iter()
        .filter_map(|a| {
            let mine: Vec<String> = tests
                .iter()
                .filter(|t| {
                    let owned = adapters.iter().any(|o| o.owns(t));
                    if owned {
                        a.owns(t)
                    } else {
                        a.claims(t)
                    }
                })
                .cloned()
                .collect();
            (!mine.is_empty()).then_some((a.as_ref(), mine))
        })
        .collect()
}

fn unclaimed<'a>(
    adapters: &'a [Box<dyn Adapter>],
    tests: &'a [String],
) -> impl Iterator<Item = String> + 'a {
    let single = adapters.len() == 1;
    tests
        .iter()
        .filter(move |t| !single && !adapters.iter().any(|a| a.claims(t)))
        .cloned()
}

/// pith's own cache: `$XDG_CACHE_HOME/pith`, else `~/.cache/pith`. The only place outside a
/// workspace pith writes to.
pub fn cache_dir() -> Result<PathBuf, EngineError> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    let dir = base.join("pith");
    std::fs::create_dir_all(&dir).map_err(|source| EngineError::Cache {
        path: dir.clone(),
        source,
    })?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An adapter that claims ids with a prefix and owns those with another.
    struct Fake {
        name: &'static str,
        claims: &'static str,
        owns: Option<&'static str>,
    }

    impl Adapter for Fake {
        fn name(&self) -> &'static str {
            self.name
        }
        fn claims(&self, id: &str) -> bool {
            id.contains(self.claims)
        }
        fn owns(&self, id: &str) -> bool {
            self.owns.is_some_and(|o| id.starts_with(o))
        }
        fn run(&self, _: &Context<'_>, _: &[String]) -> Result<pith_model::Run, RunnerError> {
            unreachable!("routing runs nothing")
        }
    }

    fn routed(adapters: &[Box<dyn Adapter>], ids: &[&str]) -> Vec<(&'static str, Vec<String>)> {
        let ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        route(adapters, &ids)
            .into_iter()
            .map(|(a, t)| (a.name(), t))
            .collect()
    }

    #[test]
    fn an_id_two_runners_claim_goes_to_the_one_that_owns_it() {
        // A Go module `calc` beside a GoogleTest suite: `calc.TestAdd` has both shapes.
        let adapters: Vec<Box<dyn Adapter>> = vec![
            Box::new(Fake {
                name: "go",
                claims: ".Test",
                owns: Some("calc."),
            }),
            Box::new(Fake {
                name: "ctest",
                claims: ".",
                owns: None,
            }),
        ];
        assert_eq!(
            routed(&adapters, &["calc.TestAdd", "Sum.Ok"]),
            [
                ("go", vec!["calc.TestAdd".to_owned()]),
                ("ctest", vec!["Sum.Ok".to_owned()])
            ]
        );
        // Claimed by both and owned by neither: both run it, and each reports what it found.
        assert_eq!(
            routed(&adapters, &["other.TestX"]),
            [
                ("go", vec!["other.TestX".to_owned()]),
                ("ctest", vec!["other.TestX".to_owned()])
            ]
        );
        assert_eq!(routed(&adapters, &[]), [("go", vec![]), ("ctest", vec![])]);
    }
}
