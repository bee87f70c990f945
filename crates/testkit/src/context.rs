//! The runner [`Context`] an adapter test hands an adapter: the workspace's path map, a
//! private scratch directory and a cache, kept for as long as the test reads them.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pith_model::impact::Traced;
use pith_model::Run;
use pith_runner::{Adapter, Context, PathMap, Scratch, TracePlan};
use tempfile::TempDir;

/// Everything around an adapter's runs in one workspace: one scratch directory and one cache
/// for all of them, as the test can read what a run left there.
pub struct Runs {
    root: PathBuf,
    dir: PathBuf,
    paths: PathMap,
    _scratch_dir: TempDir,
    scratch: Scratch,
    cache: Cache,
}

enum Cache {
    Own(TempDir),
    Shared(PathBuf),
}

impl Runs {
    /// Runs of the project at the workspace root `root`.
    pub fn new(root: &Path) -> Self {
        Self::in_dir(root, root)
    }

    /// Runs of the project in `dir`, answering for the workspace at `root`.
    pub fn in_dir(root: &Path, dir: &Path) -> Self {
        crate::pith::without_callers_knobs();
        let scratch_dir = tempfile::tempdir().unwrap();
        Runs {
            root: root.to_path_buf(),
            dir: dir.to_path_buf(),
            paths: PathMap::new(root),
            scratch: Scratch::given(scratch_dir.path()),
            _scratch_dir: scratch_dir,
            cache: Cache::Own(tempfile::tempdir().unwrap()),
        }
    }

    /// The same, with `cache` kept across tests (what is compiled into it, once).
    pub fn with_cache(mut self, cache: &Path) -> Self {
        self.cache = Cache::Shared(cache.to_path_buf());
        self
    }

    pub fn scratch(&self) -> &Path {
        self.scratch.path()
    }

    pub fn cache(&self) -> &Path {
        match &self.cache {
            Cache::Own(d) => d.path(),
            Cache::Shared(p) => p,
        }
    }

    /// A context whose deadline is `limit` from now, not cancelled.
    pub fn context(&self, limit: Duration) -> Context<'_> {
        Context {
            root: &self.root,
            dir: &self.dir,
            paths: &self.paths,
            deadline: Instant::now() + limit,
            scratch: &self.scratch,
            cache: self.cache(),
            cancel: None,
            trace: None,
        }
    }

    /// `adapter` run on `ids` with `limit` to go; the adapter itself must not fail.
    pub fn run(&self, adapter: &dyn Adapter, ids: &[&str], limit: Duration) -> Run {
        Self::run_in(adapter, ids, &self.context(limit))
    }

    fn run_in(adapter: &dyn Adapter, ids: &[&str], ctx: &Context<'_>) -> Run {
        let ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        adapter
            .run(ctx, &ids)
            .expect("the adapter itself must not fail")
    }

    /// `adapter` run on `ids` asked to trace its failing tests through `files` inside the run
    /// (`Context::trace`), with `limit` to go.
    pub fn run_traced(
        &self,
        adapter: &dyn Adapter,
        ids: &[&str],
        files: &[&str],
        limit: Duration,
    ) -> Run {
        let plan = TracePlan {
            files: files.iter().map(|s| s.to_string()).collect(),
        };
        let ctx = Context {
            trace: Some(&plan),
            ..self.context(limit)
        };
        Self::run_in(adapter, ids, &ctx)
    }

    /// `adapter`'s traced re-run of `tests` over `files` with `limit` to go; tracing itself
    /// must not fail.
    pub fn trace(
        &self,
        adapter: &dyn Adapter,
        tests: &[&str],
        files: &[&str],
        limit: Duration,
    ) -> Option<Traced> {
        let tests: Vec<String> = tests.iter().map(|s| s.to_string()).collect();
        let files: Vec<String> = files.iter().map(|s| s.to_string()).collect();
        adapter
            .trace(&self.context(limit), &tests, &files)
            .expect("tracing itself must not fail")
    }
}

/// The lines `test` executed of `file` in a trace (none when it executed none of them);
/// panics when `test` was not traced at all.
pub fn traced_lines(traced: &Traced, test: &str, file: &str) -> Vec<u32> {
    let Some(t) = traced.tests.get(test) else {
        panic!("{test} was not traced: {traced:?}");
    };
    t.get(file)
        .map(|l| l.iter().copied().collect())
        .unwrap_or_default()
}
