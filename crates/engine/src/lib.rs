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
mod route;
mod run;
pub mod signals;
mod state;
mod symbols;
mod watch;
mod workspace;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use pith_runner::RunnerError;

pub use answer::Answer;
pub use gain::{GainRequest, DEFAULT_LIMIT as DEFAULT_GAIN_LIMIT, LIMIT_ENV as GAIN_LIMIT_ENV};
pub use heartbeat::{Beat, Pulse};
pub use impact::ImpactError;
pub use output::OutputRequest;
/// What pith knows of each ecosystem (the faces read the guide text from it).
pub use pith_model::ecosystem;
pub use state::{FailuresRequest, StatusRequest};
pub use symbols::{Lookups, SymbolError};
pub use watch::Watcher;
pub use workspace::{find_root, too_broad, RootError};

/// Where a run reports what it is doing (one short line at a time); the CLI shows it on a
/// terminal.
pub type Progress = Box<dyn Fn(&str) + Send + Sync>;

/// Default bound on a whole test run.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// The longest a `run_tests` call with the default bound can take: the run, a red run's
/// re-run with tracing (`run::TRACE_LIMIT`), and a minute for the rest (detection, recording,
/// backtraces). `pith init` sets a host's per-server tool timeout to it, so the host waits for
/// pith's own answer, `TimedOut` included, instead of giving up first.
pub const LONGEST_CALL: Duration =
    Duration::from_secs(DEFAULT_TIMEOUT.as_secs() + run::TRACE_LIMIT.as_secs() + 60);

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

/// How long a test run waits for another pith run in the same workspace before answering
/// `Busy`.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(60);

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

pub(crate) fn root_of(root: Option<&Path>, cwd: &Path) -> Result<PathBuf, RootError> {
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
}
