//! Bazel: `bazel test` read through its build event protocol (`--build_event_json_file`) and
//! each test target's `test.xml` and `test.log`, wherever the tests ran — locally, from a
//! disk or remote cache, on a remote executor: the workspace's `.bazelrc` decides, pith only
//! reads. One answer per workspace, as for any runner; `cached` and `remote` count the test
//! targets whose results came from a cache or a remote executor, so a green from the cache
//! says so.
//!
//! Evidence beyond the records: Bazel's exit code (0 green, 3 tests failed, 1 build failed, 4
//! no tests), the stream's own `buildFinished` code against it, the stream reaching its last
//! event, and every test target having a result: a target with no status, not built, or
//! incomplete is never green. One that passed on a retry of the workspace's own policy
//! (`flaky = True`, `flaky_test_attempts`: Bazel's FLAKY, exit 0) passed, as for every runner
//! that retries, and its failed attempt is listed in `flaky`.
//!
//! The Bazel run is the workspace's own (`bazelisk` when installed, which honours
//! `.bazelversion`, else `bazel`), whose server outlives the command: pith's deadline stops
//! the client, and Bazel cancels the command when its client goes.

mod bep;
mod command;
mod detect;
mod judge;
mod query;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use pith_model::Run;

use crate::{process, verdict, Adapter, Context, RunnerError};

pub use detect::detect;

const HINT: &str =
    "bazel not found: install Bazelisk (https://github.com/bazelbuild/bazelisk), which runs the Bazel .bazelversion names";

/// How long asking Bazel for one package's targets may take: the first query of a workspace
/// starts Bazel's server and loads what the package's BUILD file loads.
const QUERY_LIMIT: Duration = Duration::from_secs(90);

/// A Bazel workspace.
pub struct Bazel {
    dir: PathBuf,
    /// Packages already asked for, by name; `None` when Bazel could not say.
    packages: Mutex<HashMap<String, Option<query::Package>>>,
}

impl Bazel {
    pub fn new(dir: &Path) -> Self {
        Bazel {
            dir: dir.to_path_buf(),
            packages: Mutex::new(HashMap::new()),
        }
    }

    /// The test targets that run `file` (workspace-relative to this workspace); `None` when
    /// Bazel could not say (no Bazel, a BUILD file that does not load, a deadline).
    fn tests_of_file(&self, file: &str) -> Option<Vec<String>> {
        let Some((pkg, label)) = query::label_of(&self.dir, file) else {
            // No package holds it: no target can name it.
            return Some(Vec::new());
        };
        let mut packages = self.packages.lock().unwrap_or_else(|e| e.into_inner());
        let package = packages
            .entry(pkg)
            .or_insert_with_key(|pkg| self.query(pkg));
        package.as_ref().map(|p| p.tests_reaching(&label))
    }

    fn query(&self, pkg: &str) -> Option<query::Package> {
        let cmd = query::command(&program()?, &self.dir, pkg)?;
        let cap = process::run(cmd, Instant::now() + QUERY_LIMIT, None).ok()?;
        // Bazel exits 0 only when the whole package loaded; a cut capture is no answer either.
        if !cap.success() || cap.stdout_dropped > 0 {
            return None;
        }
        query::read(&cap.stdout)
    }
}

impl Bazel {
    /// Whether a test id's package is one of this workspace's (a `BUILD` file there); ids of
    /// other repositories (`@repo//...`) and what is not a label are left to Bazel and the
    /// judge.
    fn package_here(&self, id: &str) -> bool {
        let has_build = |pkg: &str| {
            let dir = self.dir.join(pkg);
            ["BUILD", "BUILD.bazel"]
                .iter()
                .any(|b| dir.join(b).is_file())
        };
        match command::pattern(id) {
            // `//dir/...` needs a package at or below the directory.
            Some((pkg, true)) => package_below(&self.dir.join(pkg)),
            Some((pkg, false)) => has_build(pkg),
            None => command::package(id).is_none_or(has_build),
        }
    }
}

/// Whether a `BUILD` file lies in `dir` or a directory below it (links, hidden directories
/// and Bazel's `bazel-*` output links not followed), breadth first: what `//dir/...` needs to
/// name any target.
fn package_below(dir: &Path) -> bool {
    let mut queue = std::collections::VecDeque::from([dir.to_path_buf()]);
    while let Some(d) = queue.pop_front() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut subdirs = Vec::new();
        for e in entries.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_file() && (name == "BUILD" || name == "BUILD.bazel") {
                return true;
            }
            if kind.is_dir() && !name.starts_with('.') && !name.starts_with("bazel-") {
                subdirs.push(e.path());
            }
        }
        queue.extend(subdirs);
    }
    false
}

/// A build event stream judged as one `bazel test` for `requested` that ended as `end`
/// (the fuzz target's way in, and the judge's tests').
pub(crate) fn judged_stream(
    data: &[u8],
    end: process::End,
    paths: &crate::PathMap,
    requested: &[String],
) -> Run {
    let root = paths.root();
    let scratch = crate::Scratch::given(root);
    let ctx = Context {
        root,
        dir: root,
        paths,
        deadline: Instant::now(),
        scratch: &scratch,
        cache: root,
        cancel: None,
        trace: None,
    };
    let cap = process::Captured {
        stdout: Vec::new(),
        stderr: Vec::new(),
        stdout_dropped: 0,
        stderr_dropped: 0,
        end,
        elapsed: std::time::Duration::ZERO,
    };
    judge::judge(&ctx, &cap, &bep::read(data), requested)
}

/// Where one `bazel test` writes its build event stream: a file of its own directly in pith's
/// cache directory, not in the run's scratch directory, which Bazel alone would use: making
/// and removing that directory took 0.17 + 0.19 ms of every run's wait (the file system frees
/// a directory's block on removal, and on a disk mounted with `discard` waits for the device),
/// a file's removal 0.03 ms. Named by this process and a count, so runs in other processes
/// and concurrent ones in this one (the MCP server) never share one; a file of that name left
/// by a process that died is removed before Bazel starts, so it is never read as this run's.
/// Removed when dropped.
struct EventFile(PathBuf);

impl EventFile {
    fn new(cache: &Path) -> EventFile {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        EventFile::at(cache.join(format!("bazel-events-{}-{n}.json", std::process::id())))
    }

    fn at(path: PathBuf) -> EventFile {
        let _ = std::fs::remove_file(&path);
        EventFile(path)
    }
}

impl Drop for EventFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The Bazel to run: Bazelisk (it reads `.bazelversion`) or Bazel itself.
fn program() -> Option<PathBuf> {
    crate::on_path("bazelisk").or_else(|| crate::on_path("bazel"))
}

impl Adapter for Bazel {
    fn name(&self) -> &'static str {
        "bazel"
    }

    /// Labels (`//pkg:target`), cases in them (`//pkg:target#Suite.Test`) and target
    /// patterns (`//pkg/...`, `//pkg:all`).
    fn claims(&self, id: &str) -> bool {
        command::split_id(id).is_some()
    }

    /// A label or target pattern of this workspace: its package directory is here.
    fn owns(&self, id: &str) -> bool {
        command::pattern(id)
            .map(|(pkg, _)| pkg)
            .or_else(|| command::package(id))
            .is_some_and(|pkg| self.dir.join(pkg).is_dir())
    }

    /// The test targets whose package's rules reach each file, as Bazel's query reports
    /// them (globs, macros and filegroups included); `None`, so the whole workspace runs,
    /// when Bazel cannot say.
    fn ids_for_files(&self, project: Option<&str>, files: &[String]) -> Option<Vec<String>> {
        let mut ids: Vec<String> = Vec::new();
        for file in files {
            let rel = match project {
                Some(p) => file.strip_prefix(p)?.strip_prefix('/')?,
                None => file.as_str(),
            };
            for id in self.tests_of_file(rel)? {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
        }
        Some(ids)
    }

    fn run(&self, ctx: &Context<'_>, tests: &[String]) -> Result<Run, RunnerError> {
        let Some(bazel) = program() else {
            return Ok(verdict::runner_missing("bazel", HINT.to_owned()));
        };
        let start = Instant::now();
        // Bazel prints paths relative to its workspace, which may lie below pith's root.
        let based = ctx.paths.based(&self.dir);
        let ctx = &Context {
            paths: &based,
            ..*ctx
        };
        // A label whose package has no BUILD file here is not found; Bazel would call it an
        // error of the whole command.
        let (tests, absent): (Vec<String>, Vec<String>) =
            tests.iter().cloned().partition(|t| self.package_here(t));
        let tests = tests.as_slice();
        // Nothing left of what was asked runs nothing: an empty plan would be `//...`.
        let plan = if tests.is_empty() && !absent.is_empty() {
            Vec::new()
        } else {
            command::plan(tests)
        };
        let mut whole = Run::new("bazel");
        let bad: Vec<String> = tests
            .iter()
            .filter(|t| command::split_id(t).is_none())
            .cloned()
            .collect();
        for (i, inv) in plan.iter().enumerate() {
            let bep = EventFile::new(ctx.cache);
            let cmd = command::command(&bazel, &self.dir, &bep.0, inv);
            let cap = process::run(cmd, ctx.deadline, ctx.cancel).map_err(|source| {
                RunnerError::Spawn {
                    program: bazel.display().to_string(),
                    source,
                }
            })?;
            let stream = match std::fs::File::open(&bep.0) {
                Ok(f) => bep::read(f),
                Err(_) => bep::Stream::default(),
            };
            drop(bep);
            let asked: Vec<String> = tests
                .iter()
                .filter(|t| {
                    command::split_id(t)
                        .is_some_and(|(target, _)| inv.targets.iter().any(|x| x == target))
                })
                .cloned()
                .collect();
            let mut run = judge::judge(ctx, &cap, &stream, &asked);
            run.printed = cap.printed();
            let stopped = run
                .status
                .is_some_and(|s| s == pith_model::Status::TimedOut);
            if i == 0 {
                whole = run;
            } else {
                whole.absorb(run);
            }
            if stopped {
                break;
            }
        }
        whole.not_found.extend(bad);
        whole.not_found.extend(absent);
        whole.duration = start.elapsed();
        Ok(whole)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_file_is_its_own_never_a_leftover_and_gone_when_dropped() {
        let cache = tempfile::tempdir().unwrap();
        let (a, b) = (EventFile::new(cache.path()), EventFile::new(cache.path()));
        assert_ne!(
            a.0, b.0,
            "two invocations in one process never share a file"
        );
        assert_eq!(a.0.parent(), Some(cache.path()));
        std::fs::write(&a.0, "{}").unwrap();
        drop((a, b));
        assert!(std::fs::read_dir(cache.path()).unwrap().next().is_none());
        // What a process that died left under the same name is gone before Bazel starts.
        let name = cache.path().join("bazel-events-1-0.json");
        std::fs::write(&name, "stale").unwrap();
        let c = EventFile::at(name.clone());
        assert!(!name.exists(), "a leftover of the same name is removed");
        std::fs::write(&c.0, "{}").unwrap();
        drop(c);
        assert!(!name.exists());
    }
}
