//! The query API every front end calls (the CLI and the MCP server), so an answer is computed
//! in one place: find the workspace, pick its runners, run them, merge their results, and
//! shape them (through `wire`) into the answer's bytes and exit code ([`answer`]). The faces
//! call nothing else of pith. The engine does no printing; progress goes through a callback.

pub mod answer;
mod detect;
mod gain;
pub mod heartbeat;
mod impact;
mod o200k;
pub mod output;
pub mod signals;
mod state;
mod symbols;
mod watch;
mod workspace;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use detect::Found;
use pith_model::{Report, Run};
use pith_runner::{Context, PathMap, RunnerError};

pub use answer::Answer;
pub use gain::{GainRequest, DEFAULT_LIMIT as DEFAULT_GAIN_LIMIT, LIMIT_ENV as GAIN_LIMIT_ENV};
pub use heartbeat::{Beat, Pulse};
pub use impact::ImpactError;
pub use output::OutputRequest;
/// What pith knows of each ecosystem (the faces read the guide text from it).
pub use pith_model::ecosystem;
pub use state::{FailuresRequest, StateOptions, StatusRequest, DEFAULT_WAIT};
pub use symbols::{Lookups, SymbolError};
pub use watch::Watcher;
pub use workspace::{find_root, too_broad, RootError};

/// Where a run reports what it is doing (one short line at a time); the CLI shows it on a
/// terminal.
pub type Progress = Box<dyn Fn(&str) + Send + Sync>;

/// Default bound on a whole test run.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// The longest a `run_tests` call with the default bound can take: the run, a red run's
/// re-run with tracing ([`TRACE_LIMIT`]), and a minute for the rest (detection, recording,
/// backtraces). `pith init` sets a host's per-server tool timeout to it, so the host waits for
/// pith's own answer, `TimedOut` included, instead of giving up first.
pub const LONGEST_CALL: Duration =
    Duration::from_secs(DEFAULT_TIMEOUT.as_secs() + TRACE_LIMIT.as_secs() + 60);

/// Expected failures of pith's job, each one clear line; distinct from failing tests (those
/// are a [`Report`]) and from bugs.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Root(#[from] RootError),
    #[error("no test runner found in {0} (looked for {looked} projects)", looked = pith_model::ecosystem::project_names())]
    NoRunner(PathBuf),
    #[error("runner {name} not found in {root} (detected: {detected})")]
    RunnerNotDetected {
        name: String,
        root: PathBuf,
        detected: String,
    },
    #[error("unknown runner {0} (known: {known})", known = pith_runner::RUNNER_NAMES.join(", "))]
    UnknownRunner(String),
    #[error(transparent)]
    Runner(#[from] RunnerError),
    #[error(transparent)]
    Report(#[from] pith_runner::report::ReportError),
    #[error(transparent)]
    State(#[from] pith_store::StoreError),
    #[error("{0:?} is not a git revision")]
    BadRevision(String),
    #[error("grep pattern: {0}")]
    Pattern(String),
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
    /// Told every [`heartbeat::INTERVAL`] while the run is under way: what it is doing and
    /// the tests done so far (an MCP client's progress notifications).
    pub beat: Option<Beat>,
    /// Run only the tests the changes reach (`pith test --changed`), instead of `tests`.
    pub changed: Option<ChangedSince>,
    /// When a red run re-runs its failing tests with line tracing (`pith test --trace`).
    pub trace: Trace,
}

/// When a red run re-runs some failing tests with line tracing on the changed files, to
/// learn which changed lines they execute. The re-run costs wall time; `Always` and `Never`
/// exist so that cost can be measured (and avoided) against the same red run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Trace {
    /// When the static reach leaves a choice: several changed hunks, none under a failure's
    /// frame, or a failing test that reaches no change.
    #[default]
    Auto,
    /// Whenever failing tests have changes to trace, even when the static reach already
    /// names one line; still bounded by the trace's time limit.
    Always,
    /// Never: the suspects are the static reach's.
    Never,
}

/// What `pith test --changed` measures the changes against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangedSince {
    /// The last green run (else the uncommitted changes against git `HEAD`).
    LastGreen,
    /// A git revision.
    Rev(String),
}

/// Runs the selected runners: the part of a test run that does not involve the workspace state.
/// `planned`, when given, is what each project runs (an index into `found` and its ids, empty
/// for all of it), instead of routing the request's ids.
fn execute(
    req: &TestRequest,
    root: &Path,
    found: &[Found],
    start: Instant,
    planned: Option<&[(usize, Vec<String>)]>,
    trace: Option<&pith_runner::TracePlan>,
    ticker: Option<&heartbeat::Ticker>,
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
fn stopped_by_caller(req: &TestRequest) -> bool {
    req.cancel
        .as_ref()
        .is_some_and(|c| c.load(std::sync::atomic::Ordering::SeqCst))
        || pith_runner::process::was_interrupted()
}

/// How long re-running a few failing tests with line tracing may take: past it, the suspects
/// stay those of the static reach.
const TRACE_LIMIT: Duration = Duration::from_secs(60);

/// Re-runs `tests` of `project` with line tracing on `files`, in a scratch directory of its
/// own and under [`TRACE_LIMIT`] (or what is left of the request's bound, if less); `None`
/// when the runner cannot trace or the re-run told nothing.
fn trace_project(
    req: &TestRequest,
    root: &Path,
    project: &Found,
    tests: &[String],
    files: &[String],
) -> Option<pith_model::impact::Traced> {
    let cache = cache_dir().ok()?;
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
    project.adapter.trace(&ctx, tests, files).ok().flatten()
}

/// Reads existing report files (JUnit XML, TRX, `go test -json`, jest/vitest JSON, GoogleTest
/// JSON) into one report without running anything. Paths in them are made relative to the
/// workspace found from `cwd` (or `root`).
fn read_reports(root: Option<&Path>, cwd: &Path, files: &[PathBuf]) -> Result<Report, EngineError> {
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

fn select_runners(root: &Path, only: Option<&str>) -> Result<Vec<Found>, EngineError> {
    if let Some(name) = only.filter(|n| !pith_runner::RUNNER_NAMES.contains(n)) {
        return Err(EngineError::UnknownRunner(name.to_owned()));
    }
    let found = detect_workspace(root, only);
    if !found.is_empty() {
        return Ok(found);
    }
    let all = detect_workspace(root, None);
    match only {
        Some(name) if !all.is_empty() => Err(EngineError::RunnerNotDetected {
            name: name.to_owned(),
            root: root.to_path_buf(),
            detected: names_of(&all).join(", "),
        }),
        _ => Err(EngineError::NoRunner(root.to_path_buf())),
    }
}

/// The names of the runners found, each once, in the order found.
fn names_of(found: &[Found]) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for f in found {
        if !names.contains(&f.adapter.name()) {
            names.push(f.adapter.name());
        }
    }
    names
}

/// Every project of the workspace with the adapter that runs it (see [`detect`]).
fn detect_workspace(root: &Path, only: Option<&str>) -> Vec<Found> {
    detect::projects(root, only)
}

/// The workspace root: `root` when given (relative to `cwd`), else found from `cwd` (see
/// [`workspace_root`]).
pub fn resolve(root: Option<&Path>, cwd: &Path) -> Result<PathBuf, EngineError> {
    Ok(root_of(root, cwd)?)
}

/// The workspace a command is about: `root` when given (relative to `cwd`): a directory as
/// it is, a file the project it is in (its nearest ancestor with a project marker); else the
/// nearest ancestor of `cwd` with a project marker — never a directory with none above it,
/// nor the filesystem root or the home directory (every file under them would be scanned and
/// watched). The CLI's `--root` and the MCP tools' `root` both come here.
pub fn workspace_root(root: Option<&Path>, cwd: &Path) -> Result<PathBuf, RootError> {
    root_of(root, cwd)
}

fn root_of(root: Option<&Path>, cwd: &Path) -> Result<PathBuf, RootError> {
    match root {
        // An absolute `root` replaces `cwd`.
        Some(root) => {
            let root = cwd.join(root);
            let dir = if root.is_dir() {
                root.canonicalize().unwrap_or(root)
            } else if root.is_file() {
                // A file names the project it belongs to, as the CLI finds one from a
                // directory inside it.
                let canonical = root.canonicalize().unwrap_or(root);
                let parent = canonical.parent().unwrap_or(&canonical).to_path_buf();
                let found =
                    find_root(&parent).ok_or_else(|| RootError::NoProject(parent.clone()))?;
                if let Some(what) = workspace::too_broad(&found) {
                    return Err(RootError::TooBroad(found, what));
                }
                found
            } else {
                return Err(RootError::NotADirectory(root));
            };
            match workspace::too_broad(&dir) {
                Some(what) => Err(RootError::Refused(dir, what)),
                None => Ok(dir),
            }
        }
        None => {
            let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
            let found = find_root(&cwd).ok_or_else(|| RootError::NoProject(cwd.clone()))?;
            match workspace::too_broad(&found) {
                Some(what) => Err(RootError::TooBroad(found, what)),
                None => Ok(found),
            }
        }
    }
}

/// Which projects run, with the ids each is to re-run. With no ids, every project runs
/// everything; with ids, only projects whose adapter claims some of them run. An id that an
/// adapter owns (see [`Adapter::owns`]) goes to its owners only; an id several projects of one
/// runner claim goes to the one whose directory it lies in (`a/tests/t.py::x` to `a/`).
fn route<'a>(found: &'a [Found], tests: &[String]) -> Vec<(&'a Found, Vec<String>)> {
    if tests.is_empty() {
        return found.iter().map(|f| (f, Vec::new())).collect();
    }
    if let [only] = found {
        return vec![(only, tests.to_vec())];
    }
    let takes = |f: &Found, t: &str| {
        let owned = found.iter().any(|o| o.adapter.owns(t));
        let mine = if owned {
            f.adapter.owns(t)
        } else {
            f.adapter.claims(t)
        };
        if !mine {
            return false;
        }
        // Among projects of one runner that all take it, the deepest directory holding it.
        let inside = |o: &Found| o.rel.as_deref().is_none_or(|r| within(t, r));
        let mut rivals = found
            .iter()
            .filter(|o| o.adapter.name() == f.adapter.name() && o.adapter.claims(t));
        let best = rivals
            .clone()
            .filter(|o| inside(o))
            .max_by_key(|o| o.rel.as_ref().map_or(0, String::len))
            .or_else(|| rivals.next());
        best.is_none_or(|b| std::ptr::eq(b, f))
    };
    found
        .iter()
        .filter_map(|f| {
            let mine: Vec<String> = tests.iter().filter(|t| takes(f, t)).cloned().collect();
            (!mine.is_empty()).then_some((f, mine))
        })
        .collect()
}

/// Whether the id `t` names something under the workspace-relative directory `dir`.
fn within(t: &str, dir: &str) -> bool {
    t.strip_prefix(dir)
        .is_some_and(|rest| rest.starts_with('/'))
}

fn unclaimed<'a>(found: &'a [Found], tests: &'a [String]) -> impl Iterator<Item = String> + 'a {
    let single = found.len() == 1;
    tests
        .iter()
        .filter(move |t| !single && !found.iter().any(|f| f.adapter.claims(t)))
        .cloned()
}

/// pith's base directory, outside every workspace (`pith_store::base_dir`: `$PITH_CACHE_DIR`,
/// else `$XDG_CACHE_HOME/pith`, else `~/.cache/pith`; the temporary directory's `pith-<uid>`
/// where that cannot be written): embedded plugins and run scratch directories go here, beside
/// the workspaces' state, so one variable moves everything pith writes.
pub fn cache_dir() -> Result<PathBuf, EngineError> {
    Ok(pith_store::base_dir()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pith_runner::Adapter;

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

    fn routed(found: &[Found], ids: &[&str]) -> Vec<(&'static str, Vec<String>)> {
        let ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        route(found, &ids)
            .into_iter()
            .map(|(f, t)| (f.adapter.name(), t))
            .collect()
    }

    fn at(rel: Option<&str>, adapter: Fake) -> Found {
        Found {
            dir: PathBuf::from("/ws").join(rel.unwrap_or("")),
            rel: rel.map(str::to_owned),
            adapter: Box::new(adapter),
        }
    }

    #[test]
    fn a_named_root_is_a_directory_as_it_is_or_the_project_of_a_file_and_never_too_broad() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        std::fs::write(ws.join("go.mod"), "module m\n").unwrap();
        std::fs::create_dir_all(ws.join("pkg/sub")).unwrap();
        std::fs::write(ws.join("pkg/sub/a.go"), "package sub\n").unwrap();
        // Relative to the base, or absolute; a directory is taken as named.
        assert_eq!(
            workspace_root(Some(Path::new("pkg")), &ws).unwrap(),
            ws.join("pkg")
        );
        assert_eq!(
            workspace_root(Some(&ws.join("pkg")), Path::new("/elsewhere")).unwrap(),
            ws.join("pkg")
        );
        // A file: the project it belongs to.
        assert_eq!(
            workspace_root(Some(Path::new("pkg/sub/a.go")), &ws).unwrap(),
            ws
        );
        let missing = workspace_root(Some(Path::new("nope")), &ws).unwrap_err();
        assert!(matches!(missing, RootError::NotADirectory(_)), "{missing}");
        // The filesystem root, named or reached by `..`, is never a workspace.
        let e = workspace_root(Some(Path::new("/")), &ws).unwrap_err();
        assert!(
            matches!(e, RootError::Refused(_, "the filesystem root")),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            "/ is the filesystem root: pith will not scan all of it; name a project's directory \
             instead"
        );
        let up: PathBuf = ws.components().skip(1).map(|_| "..").collect();
        let e = workspace_root(Some(&up), &ws).unwrap_err();
        assert!(matches!(e, RootError::Refused(..)), "{e}");
    }

    #[test]
    fn an_id_goes_to_the_project_whose_directory_holds_it() {
        let py = || Fake {
            name: "pytest",
            claims: ".py",
            owns: None,
        };
        let found = vec![at(Some("a"), py()), at(Some("b"), py())];
        let r = route(
            &found,
            &[
                "b/t.py::x".to_owned(),
                "a/t.py::y".to_owned(),
                "c.py::z".to_owned(),
            ],
        );
        let dirs: Vec<(Option<&str>, Vec<String>)> = r
            .iter()
            .map(|(f, t)| (f.rel.as_deref(), t.clone()))
            .collect();
        assert_eq!(
            dirs,
            [
                (
                    Some("a"),
                    vec!["a/t.py::y".to_owned(), "c.py::z".to_owned()]
                ),
                (Some("b"), vec!["b/t.py::x".to_owned()]),
            ]
        );
    }

    #[test]
    fn an_id_two_runners_claim_goes_to_the_one_that_owns_it() {
        // A Go module `calc` beside a GoogleTest suite: `calc.TestAdd` has both shapes.
        let adapters = vec![
            at(
                None,
                Fake {
                    name: "go",
                    claims: ".Test",
                    owns: Some("calc."),
                },
            ),
            at(
                None,
                Fake {
                    name: "ctest",
                    claims: ".",
                    owns: None,
                },
            ),
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
