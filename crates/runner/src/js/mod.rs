//! JavaScript: a project's declared test command (`npm test`, `pnpm test`, `yarn test`), read in
//! full (`plan`: the `test` script as sh reads it, the scripts it runs by name with their
//! `pre`/`post` hooks, workspace runs, wrappers) and run as its package manager runs it
//! (`exec`). Its runner segments (jest, vitest, node's built-in test runner, mocha, each the
//! project's own, found through the script's `PATH`) run with pith's observation added; every
//! other command runs as written (`verbatim`), and its failure is an answer when it is the
//! command's. A project whose script runs no runner pith knows falls back to the runner its
//! dependencies name (vitest, then jest), alone.
//!
//! jest and vitest write their `--json` reports to the scratch directory; pith's reporter for
//! each (embedded here, written to pith's cache under a content-hash path, loaded by absolute
//! path so no project file can stand in for it) streams starts and results as JSON lines beside
//! it, so a run killed at the deadline or dying in band still tells what finished and what was
//! running. node's test runner is read through pith's own reporter alone, with an exit hook in
//! each test process telling which files ended through `process.exit()`. mocha takes one
//! reporter: pith's, written per run into the scratch directory, runs the project's (the
//! script's `--reporter`, else its `.mocharc.*`'s, else `spec`) inside itself on the same
//! runner and writes jest's records, with mocha's own totals at their end; a failing hook is a
//! setup or teardown record under the test it ran for. Coverage reports the runner writes go
//! to the scratch directory.
//!
//! Observation adds, never changes: no `--ci`, no `CI`, no `--update=none`, no `--no-cache`
//! (see `command` for why each flag pith still adds leaves the outcome alone). A runner writes
//! snapshots as the project's own command has it write them (a new one where jest and vitest
//! write new ones, the script's `-u`), and the run counts what it wrote
//! (`Run::snapshots_written`). vitest's `--reporter` replaces its configuration's reporters:
//! those the configuration names are named again beside pith's.
//!
//! The tests see the caller's environment with what the package manager adds for scripts
//! (`plan`: `PATH`, `npm_lifecycle_event`, `npm_package_*`, ...) and the script's own
//! assignments; pith adds no variable of its own (its reporters find their record files from
//! the report paths pith gives the runner) and removes only the runner's own markers of a
//! parent run (`NODE_TEST_CONTEXT`, `JEST_WORKER_ID`, `VITEST_*`), which would make the runner
//! report to a parent that is not there. Colour is switched off through vitest's `--no-color`
//! (jest and node colour only a terminal) and stripped from all pith reads.
//!
//! The verdict takes the runner's exit code and its own totals as evidence (see `verdict` and
//! `judge`): a run whose report was never written, whose totals count more tests than it
//! reported, or whose files ended through `process.exit()` is not green.
//!
//! Test ids are `<file> > <describe> > ... > <test>` (vitest's own separator), the file
//! workspace-relative; a file alone names all its tests. Tests that share a name are each
//! counted, and an id names all of them. Re-runs give the runner the files (absolute paths,
//! after `--` where the runner has it) and a full-name pattern (jest `-t`, vitest `-t`, node
//! `--test-name-pattern`, mocha `--grep`), every character of the names escaped, then keep only the tests asked
//! for: the patterns can match more (jest's is case-insensitive, node 20's matches each level's
//! own name). An id that starts with `-` is never passed on: it names no test.
//!
//! Tracing (`trace`): under node's runner and mocha each failing test runs again alone under
//! `NODE_V8_COVERAGE`, and V8's block coverage of the changed files tells the lines it ran
//! (`trace`); jest (and vitest with `@vitest/coverage-v8` installed) transform the code, so
//! their own V8 coverage, mapped back through the transforms' source maps, is read instead,
//! one run per test file (`coverage`).
//!
//! Killed at the deadline: jest reports each test as it starts, so the running test is named;
//! vitest batches its test events in the worker, so a test stuck in synchronous code is named by
//! its file; node's child processes send nothing while blocked, so the same holds for node.
//! mocha streams each test's start from its own process (serial mode), so the test is named;
//! in parallel mode a file's events come only when its worker finishes it, so nothing is.

mod command;
mod coverage;
mod detect;
pub(crate) mod events;
mod exec;
mod judge;
pub(crate) mod mocha;
pub(crate) mod node;
mod package;
mod parse;
mod plan;
mod pm;
mod read;
pub(crate) mod report;
mod shell;
mod stack;
mod test_set;
mod trace;
mod verbatim;
mod verdict;

use std::path::{Path, PathBuf};

use pith_model::Run;

use crate::process;
use crate::verdict as scaffold;
use crate::{Adapter, Context, RunnerError};

use command::Selection;

pub use detect::detect;
pub use package::Runner;
pub use parse::parse_jest;
pub use parse::parse_vitest;
pub use report::sniff;

/// Separates a test id's file and names.
pub const SEP: &str = " > ";

/// Extensions of the files a test id can start with.
const EXTENSIONS: &[&str] = &[".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"];

/// One runner command of a project's declared command: jest, vitest or node's test runner,
/// where and how the script runs it.
#[derive(Debug, Clone)]
pub struct Js {
    runner: Runner,
    /// Where it runs (the package's directory, or where the script `cd`s).
    dir: PathBuf,
    script: package::Script,
    /// What the package manager gives the script's commands (`PATH` with every
    /// `node_modules/.bin`, `npm_lifecycle_event`, ...), then the command's own assignments.
    env: Vec<(String, String)>,
    /// The program the script's `PATH` finds; `None`: looked up as [`Js::program`] does.
    program: Option<PathBuf>,
    /// Wrappers in front of the runner, outermost first (`c8 --100`, `nyc`, `dotenv --`):
    /// each its program and options. Full runs only: a subset is not judged by whole-suite
    /// coverage.
    wrappers: Vec<Vec<String>>,
    /// The package whose script runs it: its runs are answered with this directory.
    home: PathBuf,
    /// The command as the script writes it.
    text: String,
}

impl Js {
    /// The runner's name, as answers report it.
    pub(crate) fn name(&self) -> &'static str {
        self.runner.name()
    }

    /// `runner` in `dir`, as if the `test` script said nothing more.
    pub(crate) fn new(runner: Runner, dir: &Path) -> Self {
        Js {
            runner,
            dir: dir.to_path_buf(),
            script: package::Script::default(),
            env: Vec::new(),
            program: None,
            wrappers: Vec::new(),
            home: dir.to_path_buf(),
            text: runner.name().to_owned(),
        }
    }

    /// Whether the script's own paths for this runner name `file` (absolute): a package's
    /// segments split by directory (`node --test test/unit`, `vitest run src`).
    fn names_file(&self, file: &Path) -> bool {
        let Ok(rel) = file.strip_prefix(&self.dir) else {
            return false;
        };
        let rel = rel.to_string_lossy();
        self.script.paths().iter().any(|p| {
            let p = p.trim_start_matches("./").trim_end_matches('/');
            !p.is_empty()
                && (rel == p
                    || rel.starts_with(&format!("{p}/"))
                    || shell::fnmatch(p, &rel)
                    || (self.runner != Runner::Node && rel.contains(p)))
        })
    }
}

/// A JavaScript project: its declared command (`npm test`, ...) read in full (see `plan`),
/// run as its package manager runs it (see `exec`).
#[derive(Debug, Clone)]
pub struct Project {
    dir: PathBuf,
    plan: plan::Plan,
    /// The first runner of the command: the name the project goes by.
    name: Runner,
}

impl Project {
    /// The project in `dir`, when its declared command runs a runner pith knows.
    pub(crate) fn read(dir: &Path) -> Option<Project> {
        let plan = plan::read(dir)?;
        let name = plan.observed().first()?.runner;
        Some(Project {
            dir: dir.to_path_buf(),
            plan,
            name,
        })
    }

    /// Whether the project's command reaches the JavaScript project in `dir` below it: runs
    /// it as a workspace package, leaves it out of a workspace run on purpose, or runs a
    /// runner above it that searches its tree (jest and vitest search the whole tree; node
    /// without paths does, with paths only below them).
    fn reaches(&self, dir: &Path) -> bool {
        if self.plan.members.iter().any(|m| m == dir) {
            return true;
        }
        self.plan.observed().iter().any(|js| {
            let Ok(rel) = dir.strip_prefix(&js.dir) else {
                return false;
            };
            let rel = rel.to_string_lossy();
            let paths = js.script.paths();
            match js.runner {
                Runner::Jest | Runner::Vitest | Runner::Mocha => true,
                Runner::Node => {
                    paths.is_empty()
                        || paths.iter().any(|p| {
                            let p = p.trim_start_matches("./").trim_end_matches('/');
                            let stem = p
                                .split(['*', '?', '['])
                                .next()
                                .unwrap_or("")
                                .trim_end_matches('/');
                            stem.is_empty() || rel == stem || rel.starts_with(&format!("{stem}/"))
                        })
                }
            }
        })
    }
}

/// A test id: `file > names...`.
pub fn test_id(file: &str, names: &[String]) -> String {
    let mut id = file.to_owned();
    for n in names {
        id.push_str(SEP);
        id.push_str(n);
    }
    id
}

/// The file part of an id.
pub(crate) fn id_file(id: &str) -> &str {
    id.split_once(SEP).map_or(id, |(f, _)| f)
}

/// Whether `id` is a JavaScript test id: a script file, then optional names.
pub fn is_test_id(id: &str) -> bool {
    let file = id_file(id);
    !file.contains("::")
        && !file.starts_with('-')
        && EXTENSIONS
            .iter()
            .any(|e| file.len() > e.len() && file.ends_with(e))
}

/// Whether the workspace-relative script file `f` is named as jest, vitest and node:test find
/// test files by default.
fn is_test_file(f: &str) -> bool {
    let name = f.rsplit('/').next().unwrap_or(f);
    let stem = name.split('.').next().unwrap_or(name);
    is_test_id(f)
        && (name.contains(".test.")
            || name.contains(".spec.")
            || stem == "test"
            || stem.starts_with("test-")
            || stem.ends_with("-test")
            || stem.ends_with("_test")
            || f.contains("__tests__/")
            || f.starts_with("test/")
            || f.contains("/test/"))
}

impl Js {
    /// Runs the runner (its wrappers too in a full run) with pith's observation and judges
    /// what it did; with the exit status sh would see, `None` when pith stopped it.
    pub(crate) fn observe(
        &self,
        ctx: &Context<'_>,
        tests: &[String],
    ) -> Result<(Run, Option<i32>), RunnerError> {
        let program = match self.program(ctx.cache) {
            Ok(p) => p,
            // sh's word for a program it cannot find.
            Err(hint) => return Ok((missing(self.runner, hint), Some(127))),
        };
        let (sel, not_found) = match tests {
            [] => (None, Vec::new()),
            ids => {
                let (sel, gone) = Selection::of(ids, ctx.root);
                (Some(sel), gone)
            }
        };
        if sel.as_ref().is_some_and(|s| s.files.is_empty()) {
            let run = Run {
                not_found,
                ..Run::new(self.name())
            };
            return Ok((run, Some(0)));
        }
        let files = self.files(ctx)?;
        let in_run = self.in_run(ctx, &program).filter(|_| {
            // The reporter traces only when it finds this beside its report.
            std::fs::write(files.trace_marker(), b"").is_ok()
        });
        let cover = in_run.as_ref().map(|r| &r.cover);
        let cmd = self.command(ctx, &program, &files, sel.as_ref(), cover);
        let captured = match process::run(cmd, ctx.deadline, ctx.cancel) {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let run = missing(
                    self.runner,
                    format!("{} could not be started: {e}", program.display()),
                );
                return Ok((run, Some(127)));
            }
            Err(source) => {
                return Err(RunnerError::Spawn {
                    program: program.display().to_string(),
                    source,
                })
            }
        };
        let mut run = self.judge(ctx, self.read(&files), &captured, sel.as_ref());
        if let Some(r) = &in_run {
            run.traced = self.read_in_run(ctx, &files, r, &run);
        }
        self.unhonoured(&mut run);
        let mut all = not_found;
        all.append(&mut run.not_found);
        run.not_found = all;
        run.duration = captured.elapsed;
        // Where the runner wrote pith's report is pith's line, not the run's.
        run.printed = captured.printed_without(&stack::of_pith);
        let status = (!verbatim::stopped(captured.end)).then(|| verbatim::sh_status(captured.end));
        Ok((run, status))
    }
}

/// The tests pith's reporters wrote as ended so far, in the run's scratch directory and the
/// directories of the segments after the first (`js-N`).
fn progress(scratch: &Path) -> Option<crate::Counter> {
    let scratch = scratch.to_path_buf();
    Some(Box::new(move || {
        let mut dirs = vec![scratch.clone()];
        if let Ok(entries) = std::fs::read_dir(&scratch) {
            dirs.extend(
                entries
                    .flatten()
                    .filter(|e| e.file_name().to_string_lossy().starts_with("js-"))
                    .map(|e| e.path()),
            );
        }
        dirs.iter()
            .flat_map(|d| Runner::ALL.map(|r| d.join(format!("{}.events.jsonl", r.name()))))
            .map(|f| std::fs::read(f).map_or(0, |b| tests_done(&b)))
            .sum()
    }))
}

impl Adapter for Project {
    fn name(&self) -> &'static str {
        self.name.name()
    }

    /// jest collects each test file's coverage of the changed files in the run (see
    /// `coverage::Cover::in_run`); a workspace's packages are planned only as they run.
    fn traces_in_run(&self) -> bool {
        !self.plan.members.is_empty()
            || self
                .plan
                .observed()
                .iter()
                .any(|js| js.runner == Runner::Jest)
    }

    fn claims(&self, id: &str) -> bool {
        is_test_id(id)
    }

    /// A test file's path is its own id: the runner runs every test in it. Only files named
    /// as jest, vitest and node:test find tests by default: a helper beside them matches no
    /// test, and the files importing it are selected with it.
    fn ids_for_files(&self, _project: Option<&str>, files: &[String]) -> Option<Vec<String>> {
        Some(files.iter().filter(|f| is_test_file(f)).cloned().collect())
    }

    /// Files some runner segment of the declared command runs as tests (see `test_set`).
    fn test_files(
        &self,
        root: &Path,
        _project: Option<&str>,
        files: &[String],
    ) -> Option<Vec<String>> {
        let segments = self.plan.observed();
        let searchers: Vec<_> = segments.iter().map(|js| test_set::searcher(js)).collect();
        let runs = |f: &&String| {
            let file = root.join(f.as_str());
            searchers.iter().any(|runs| runs(&file))
        };
        Some(files.iter().filter(runs).cloned().collect())
    }

    /// The tests pith's reporters saw end, as they write them (see [`tests_done`]).
    fn progress(&self, scratch: &Path) -> Option<crate::Counter> {
        progress(scratch)
    }

    /// The project's command's runs merged into one (the engine asks [`Adapter::run_all`]).
    fn run(&self, ctx: &Context<'_>, tests: &[String]) -> Result<Run, RunnerError> {
        let mut runs = self.run_all(ctx, tests)?.into_iter();
        let mut first = runs.next().unwrap_or_else(|| Run::new(self.name()));
        for r in runs {
            first.absorb(r);
        }
        Ok(first)
    }

    /// All of it: the declared command as its package manager runs it, one run per runner
    /// segment and per failing command (see `exec`). Named tests: only the runner segments
    /// that own them, each in its package with its environment, no wrapper and no other
    /// command (a subset is not judged by whole-suite coverage or a type check).
    fn run_all(&self, ctx: &Context<'_>, tests: &[String]) -> Result<Vec<Run>, RunnerError> {
        if tests.is_empty() {
            return exec::run_plan(ctx, &self.dir, &self.plan);
        }
        let segments = self.plan.observed();
        let (owned, left) = exec::owners(&segments, tests, ctx.root);
        let mut runs = Vec::new();
        for (n, (js, ids)) in owned.into_iter().enumerate() {
            let scratch = crate::Scratch::given(if n == 0 {
                ctx.scratch.to_path_buf()
            } else {
                let d = ctx.scratch.join(format!("js-{n}"));
                std::fs::create_dir_all(&d)
                    .map_err(|e| RunnerError::io(format!("creating {}", d.display()), e))?;
                d
            });
            let sub = Context {
                dir: &js.dir,
                scratch: &scratch,
                ..*ctx
            };
            let (mut run, _) = js.observe(&sub, &ids)?;
            run.dir = verbatim::dir_of(&js.home, &self.dir, ctx.root);
            runs.push(run);
        }
        if !left.is_empty() {
            match runs.first_mut() {
                Some(r) => r.not_found.extend(left),
                None => runs.push(Run {
                    not_found: left,
                    ..Run::new(self.name())
                }),
            }
        }
        Ok(runs)
    }

    fn can_trace(&self) -> bool {
        true
    }

    /// The failing tests' own segment traces them (see [`Js`]'s).
    fn trace(
        &self,
        ctx: &Context<'_>,
        tests: &[String],
        files: &[String],
    ) -> Result<Option<pith_model::impact::Traced>, RunnerError> {
        let segments = self.plan.observed();
        let (owned, _) = exec::owners(&segments, tests, ctx.root);
        let mut traced: Option<pith_model::impact::Traced> = None;
        for (js, ids) in owned {
            let sub = Context {
                dir: &js.dir,
                ..*ctx
            };
            if let Some(t) = js.trace_tests(&sub, &ids, files)? {
                match &mut traced {
                    Some(all) => {
                        all.tests.extend(t.tests);
                        all.files.extend(t.files);
                        all.imported.extend(t.imported);
                    }
                    None => traced = Some(t),
                }
            }
        }
        Ok(traced)
    }

    fn covers(&self, runner: &str, dir: &Path) -> Option<bool> {
        (pith_model::ecosystem::by_runner(runner).map(|e| e.id)
            == pith_model::ecosystem::by_runner(self.name()).map(|e| e.id))
        .then(|| self.reaches(dir))
    }
}

/// Tests ended so far in a reporter's records: jest's and vitest's `case` records as they
/// stream (jest before 29.6 writes them only as each file ends, marked `final`, and 29.6 and
/// later write them again then: the larger count of the two), node's `test:pass` and
/// `test:fail` events (suites count too: a heartbeat's figure, not a verdict's).
fn tests_done(records: &[u8]) -> u64 {
    let (mut streamed, mut last, mut node) = (0u64, 0u64, 0u64);
    for line in records.split(|&b| b == b'\n') {
        if line.starts_with(br#"{"e":"case""#) {
            if line.ends_with(br#""final":true}"#) {
                last += 1;
            } else {
                streamed += 1;
            }
        } else if line.starts_with(br#"{"type":"test:pass""#)
            || line.starts_with(br#"{"type":"test:fail""#)
        {
            node += 1;
        }
    }
    streamed.max(last) + node
}

fn missing(runner: Runner, hint: String) -> Run {
    scaffold::runner_missing(runner.name(), hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_done_count_each_test_once_whichever_way_it_was_written() {
        let case = |final_: bool| {
            let end = if final_ { r#","final":true}"# } else { "}" };
            format!(r#"{{"e":"case","status":"passed","path":"/a.test.js","names":["x"]{end}"#)
        };
        // jest 29.6+: streamed, then the file's list again at its end.
        let jest = [case(false), case(false), case(true), case(true)].join("\n");
        assert_eq!(tests_done(jest.as_bytes()), 2);
        // Older jest: only the list at each file's end; a file still running adds nothing.
        let old = [r#"{"e":"file","path":"/a.test.js"}"#.to_owned(), case(true)].join("\n");
        assert_eq!(tests_done(old.as_bytes()), 1);
        let node = "{\"type\":\"test:pass\",\"data\":{}}\n{\"type\":\"test:fail\",\"data\":{}}\n{\"type\":\"test:start\"}";
        assert_eq!(tests_done(node.as_bytes()), 2);
        assert_eq!(tests_done(b"not json\n"), 0);
    }

    #[test]
    fn ids_are_files_then_names() {
        assert_eq!(
            test_id("tests/a.test.js", &["sum".into(), "adds".into()]),
            "tests/a.test.js > sum > adds"
        );
        for id in [
            "tests/a.test.js > sum > adds",
            "a.spec.ts",
            "src/x.test.mjs > it works",
            "t.cjs > a::b",
            "my dir/a.js > x",
        ] {
            assert!(is_test_id(id), "{id}");
        }
        for id in [
            "tests/test_a.py::test_x",
            "mycrate tests::it_works",
            "mycrate::api tests::x",
            ".js",
            "a.json > x",
            "",
        ] {
            assert!(!is_test_id(id), "{id}");
        }
    }
}
