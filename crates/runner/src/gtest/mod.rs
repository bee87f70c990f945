//! C/C++: a CMake project's tests under CTest, GoogleTest ones read through gtest's JSON report.
//!
//! The project is configured and built out of tree, then `ctest -V` runs the tests with
//! `GTEST_OUTPUT=json:<scratch>/gtest/` in their environment: every gtest process writes its
//! JSON there (gtest numbers the files when a binary runs once per test, as
//! `gtest_discover_tests` makes it). CTest's own JUnit leaves failure messages empty, so it is
//! not used. Verbose mode streams each test's output as it runs: when a binary crashes (no
//! JSON) or pith kills the run at its deadline, the last `[ RUN ]` without an end names the
//! test; console failure texts stand in for a missing JSON. ctest's output is read line by line
//! as it comes, each JSON report up to [`JSON_BYTES`]: memory stays bounded whatever the tests
//! print.
//!
//! Evidence beyond the records: ctest's exit code (0 all passed, 8 some test failed), its own
//! totals (`1 tests failed out of 3`) against the tests read, each report's totals against its
//! cases, and gtest's closing summary: a gtest binary that exits 0 without it stopped before
//! the end (no report written), and is not green.
//!
//! Build directory: the project's own `build/` when it already is this project's CMake build
//! directory (its `CMakeCache.txt` names this source directory), else one in pith's cache keyed
//! by the project's path. Either way it persists between runs, so builds are incremental; pith
//! never creates anything inside the project.
//!
//! Test ids are gtest's `Suite.Test` (`Inst/Suite.Test/0`, `Suite/0.Test`); a CTest test that
//! is not a gtest one is named by its CTest name. Re-running: ids that are CTest tests (as
//! `gtest_discover_tests` registers them, found through `ctest --show-only=json-v1`) go to
//! `ctest -R '^(...)$'`; the others run inside the whole-binary CTest tests with
//! `GTEST_FILTER`.

mod console;
mod diag;
mod failure;
pub(crate) mod json;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use pith_model::{ExitMeaning, Failure, Phase, Run, Status};

use crate::process::{self, Captured, End};
use crate::verdict::{self, Ending, Outcome, Verdict};
use crate::{text, Adapter, Context, ParseError, PathMap, RunnerError};

use console::{ConsoleEnd, CtestReader, CtestRun, Ended};

const CMAKE_HINT: &str =
    "cmake not found: install CMake (it brings ctest): sudo apt-get install cmake, or https://cmake.org/download";

/// GoogleTest's variables that choose which tests run or reshape how gtest reports them, taken
/// out of the caller's environment: pith selects tests itself and reads gtest's JSON. The rest
/// (`GTEST_SHUFFLE`, `GTEST_DEATH_TEST_STYLE`, `GTEST_BREAK_ON_FAILURE`...) is how the project's
/// tests behave and stays as the caller set it.
const GTEST_REPORTING_ENV: &[&str] = &[
    "GTEST_FILTER",
    "GTEST_ALSO_RUN_DISABLED_TESTS",
    "GTEST_TOTAL_SHARDS",
    "GTEST_SHARD_INDEX",
    "GTEST_SHARD_STATUS_FILE",
    "GTEST_REPEAT",
    "GTEST_FAIL_FAST",
    "GTEST_LIST_TESTS",
    "GTEST_OUTPUT",
    "GTEST_BRIEF",
    "GTEST_COLOR",
    "GTEST_PRINT_TIME",
    "GTEST_PRINT_UTF8",
    "GTEST_STREAM_RESULT_TO",
    "GTEST_FLAGFILE",
];
/// Largest GoogleTest JSON report read; a larger one is not read, and says so.
const JSON_BYTES: u64 = 32 << 20;
/// Largest `ctest --show-only=json-v1` listing read.
const LISTING_BYTES: usize = 64 << 20;

/// CTest in a CMake project.
pub struct Ctest {
    dir: PathBuf,
}

/// The adapters this ecosystem contributes for the project in `dir`: CTest when its
/// `CMakeLists.txt` (or its `test(s)/` one) enables testing or uses GoogleTest.
pub fn detect(dir: &Path) -> Vec<Box<dyn Adapter>> {
    if is_cmake_test_project(dir) {
        vec![Box::new(Ctest::new(dir))]
    } else {
        Vec::new()
    }
}

fn is_cmake_test_project(dir: &Path) -> bool {
    if !dir.join("CMakeLists.txt").is_file() {
        return false;
    }
    [
        "CMakeLists.txt",
        "tests/CMakeLists.txt",
        "test/CMakeLists.txt",
    ]
    .iter()
    .filter_map(|f| std::fs::read_to_string(dir.join(f)).ok())
    .any(|t| {
        let t = t.to_ascii_lowercase();
        ["enable_testing", "include(ctest)", "add_test", "gtest"]
            .iter()
            .any(|k| t.contains(k))
    })
}

impl Ctest {
    pub fn new(dir: &Path) -> Self {
        Ctest {
            dir: dir.to_path_buf(),
        }
    }

    /// Where this project is built: see the module documentation.
    pub fn build_dir(&self, cache: &Path) -> PathBuf {
        let own = self.dir.join("build");
        if cache_home(&own).is_some_and(|home| same_dir(&home, &self.dir)) {
            return own;
        }
        let canon = self.dir.canonicalize().unwrap_or_else(|_| self.dir.clone());
        let name: String = canon
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .take(40)
            .collect();
        cache.join("ctest").join(format!(
            "{name}-{:016x}",
            crate::fnv1a(canon.to_string_lossy().bytes())
        ))
    }
}

/// The source directory a CMake build directory was configured for.
fn cache_home(build: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(build.join("CMakeCache.txt")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("CMAKE_HOME_DIRECTORY:INTERNAL="))
        .map(|s| PathBuf::from(s.trim()))
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

fn jobs() -> String {
    std::thread::available_parallelism()
        .map_or(2, std::num::NonZeroUsize::get)
        .to_string()
}

/// A gtest id: `Suite.Test` with optional `Prefix/` and `/N` parts, identifier characters only.
fn is_test_id(id: &str) -> bool {
    let Some((suite, test)) = id.split_once('.') else {
        return false;
    };
    let part = |s: &str| {
        !s.is_empty()
            && !s.starts_with('/')
            && !s.ends_with('/')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '/')
    };
    part(suite) && part(test) && !test.contains('.')
}

impl Adapter for Ctest {
    fn name(&self) -> &'static str {
        "ctest"
    }

    /// GoogleTest ids (`Suite.Test`, `Inst/Suite.Test/0`, `Suite/0.Test`).
    fn claims(&self, id: &str) -> bool {
        is_test_id(id)
    }

    fn run(&self, ctx: &Context<'_>, tests: &[String]) -> Result<Run, RunnerError> {
        let (Some(cmake), Some(ctest)) = (crate::on_path("cmake"), crate::on_path("ctest")) else {
            return Ok(Run {
                status: Some(Status::RunnerMissing),
                hint: Some(CMAKE_HINT.to_owned()),
                ..Run::new("ctest")
            });
        };
        let start = Instant::now();
        let build = self.build_dir(ctx.cache);
        let _lock = match BuildLock::acquire(ctx, &build)? {
            Some(l) => l,
            None => {
                return Ok(Run {
                    status: Some(Status::TimedOut),
                    tail: Some(format!(
                        "another pith run kept the build directory {} busy until the deadline",
                        build.display()
                    )),
                    ..Run::new("ctest")
                })
            }
        };
        if let Some(run) = self.configure_and_build(ctx, &cmake, &build)? {
            return Ok(Run {
                duration: start.elapsed(),
                ..run
            });
        }

        let mut gtest_filter: Option<String> = None;
        let mut regex: Option<String> = None;
        if !tests.is_empty() {
            let listed = list_tests(ctx, &ctest, &build)?;
            let sel = select(&listed, tests);
            if sel.ctest_names.is_empty() {
                return Ok(Run {
                    not_found: sel.not_found,
                    duration: start.elapsed(),
                    ..Run::new("ctest")
                });
            }
            regex = Some(format!(
                "^({})$",
                sel.ctest_names
                    .iter()
                    .map(|n| regex_escape(n))
                    .collect::<Vec<_>>()
                    .join("|")
            ));
            if !sel.inside_binaries.is_empty() {
                gtest_filter = Some(sel.inside_binaries.join(":"));
            }
        }

        let json_dir = ctx.scratch.join("gtest");
        std::fs::create_dir_all(&json_dir)
            .map_err(|e| RunnerError::io(format!("creating {}", json_dir.display()), e))?;
        let mut cmd = command(&ctest, &self.dir);
        cmd.arg("--test-dir")
            .arg(&build)
            .args(["-V", "--parallel", &jobs()]);
        if let Some(r) = &regex {
            cmd.arg("-R").arg(r);
        }
        let mut out_spec = json_dir.clone().into_os_string();
        out_spec.push("/");
        let mut spec = std::ffi::OsString::from("json:");
        spec.push(out_spec);
        // Colour is not switched off here: ctest's pipe is no terminal, so gtest prints none,
        // and what pith reads is stripped of escapes anyway.
        cmd.env("GTEST_OUTPUT", spec);
        if let Some(f) = &gtest_filter {
            cmd.env("GTEST_FILTER", f);
        }
        let mut reader = CtestReader::default();
        let cap = process::run_lines(cmd, ctx.deadline, ctx.cancel, &mut |l| {
            reader.line(&String::from_utf8_lossy(l))
        })
        .map_err(|source| RunnerError::Spawn {
            program: ctest.display().to_string(),
            source,
        })?;
        let reports = read_json_dir(&json_dir);
        // Every requested id the run did not report is not found, whatever the selection said.
        let mut run = judge(ctx, &cap, reader.finish(), reports, tests);
        run.duration = start.elapsed();
        Ok(run)
    }
}

impl Ctest {
    /// Configures (when the build directory is new) and builds. `Some(run)` when that is the
    /// end of it: a build failure, a timeout.
    fn configure_and_build(
        &self,
        ctx: &Context<'_>,
        cmake: &Path,
        build: &Path,
    ) -> Result<Option<Run>, RunnerError> {
        let home = cache_home(build);
        if home.as_ref().is_some_and(|h| !same_dir(h, &self.dir)) {
            // A cache directory left by another project of the same hash: start over.
            let _ = std::fs::remove_dir_all(build);
        }
        if home.is_none() || !build.join("CMakeCache.txt").is_file() {
            std::fs::create_dir_all(build)
                .map_err(|e| RunnerError::io(format!("creating {}", build.display()), e))?;
            let mut cmd = build_command(cmake, &self.dir);
            cmd.arg("-S").arg(&self.dir).arg("-B").arg(build);
            if std::env::var_os("CMAKE_GENERATOR").is_none() && crate::on_path("ninja").is_some() {
                cmd.args(["-G", "Ninja"]);
            }
            let cap = run_process(cmd, ctx, cmake)?;
            if let Some(run) = build_failure(ctx, &cap) {
                // A failed configuration leaves a cache that would not be configured again.
                let _ = std::fs::remove_file(build.join("CMakeCache.txt"));
                return Ok(Some(run));
            }
        }
        let mut cmd = build_command(cmake, &self.dir);
        cmd.arg("--build").arg(build).args(["--parallel", &jobs()]);
        let cap = run_process(cmd, ctx, cmake)?;
        Ok(build_failure(ctx, &cap))
    }
}

/// cmake or ctest in the caller's environment, less gtest's selection and reporting variables
/// ([`GTEST_REPORTING_ENV`]), which pith sets itself where it needs them.
fn command(program: &Path, cwd: &Path) -> Command {
    let mut cmd = crate::base_command(program, cwd);
    for var in GTEST_REPORTING_ENV {
        cmd.env_remove(var);
    }
    cmd
}

/// cmake configuring or building (no test runs under it): compilers in the C locale, so
/// diagnostics quote with `'` and read the same on every machine, and without colour. The
/// tests themselves keep the caller's locale and colour settings.
fn build_command(program: &Path, cwd: &Path) -> Command {
    let mut cmd = command(program, cwd);
    cmd.env("LC_ALL", "C").env("CMAKE_COLOR_DIAGNOSTICS", "OFF");
    cmd
}

fn run_process(cmd: Command, ctx: &Context<'_>, program: &Path) -> Result<Captured, RunnerError> {
    process::run(cmd, ctx.deadline, ctx.cancel).map_err(|source| RunnerError::Spawn {
        program: program.display().to_string(),
        source,
    })
}

/// What a configure or build step's failure says; `None` when it succeeded.
fn build_failure(ctx: &Context<'_>, cap: &Captured) -> Option<Run> {
    let output = verdict::stdout_stderr(cap);
    let tail = || verdict::tail(ctx.paths, &output);
    match cap.end {
        End::Exited(0) => None,
        End::TimedOut | End::Cancelled => Some(Run {
            status: Some(Status::TimedOut),
            tail: tail(),
            ..Run::new("ctest")
        }),
        _ => {
            let errors = diag::errors(&output, ctx.paths);
            Some(Run {
                status: Some(Status::BuildFailed),
                tail: errors.is_empty().then(tail).flatten(),
                build_errors: errors,
                ..Run::new("ctest")
            })
        }
    }
}

/// An exclusive lock on a build directory, so two pith runs on one project do not build into
/// it at once. Held until dropped.
struct BuildLock {
    _file: std::fs::File,
}

impl BuildLock {
    /// `None`: still held by another run at the deadline.
    fn acquire(ctx: &Context<'_>, build: &Path) -> Result<Option<BuildLock>, RunnerError> {
        use std::os::unix::io::AsRawFd;
        let dir = ctx.cache.join("ctest");
        std::fs::create_dir_all(&dir)
            .map_err(|e| RunnerError::io(format!("creating {}", dir.display()), e))?;
        let path = dir.join(format!(
            "{:016x}.lock",
            crate::fnv1a(build.to_string_lossy().bytes())
        ));
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| RunnerError::io(format!("opening {}", path.display()), e))?;
        loop {
            // SAFETY: flock on a file descriptor we own; no memory is involved.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
                return Ok(Some(BuildLock { _file: file }));
            }
            if Instant::now() >= ctx.deadline || process::was_interrupted() {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// One CTest test as `ctest --show-only=json-v1` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Listed {
    name: String,
    /// The `--gtest_filter=` it runs with (`gtest_discover_tests` gives each test one).
    filter: Option<String>,
}

fn list_tests(ctx: &Context<'_>, ctest: &Path, build: &Path) -> Result<Vec<Listed>, RunnerError> {
    let mut cmd = command(ctest, build);
    cmd.arg("--test-dir").arg(build).arg("--show-only=json-v1");
    // The listing is one JSON document, read whole up to a bound: past it, nothing is listed
    // and every id is not found, never a wrong selection.
    let mut text: Vec<u8> = Vec::new();
    let mut over = false;
    process::run_lines(cmd, ctx.deadline, ctx.cancel, &mut |l| {
        if text.len() + l.len() < LISTING_BYTES {
            text.extend_from_slice(l);
            text.push(b'\n');
        } else {
            over = true;
        }
    })
    .map_err(|source| RunnerError::Spawn {
        program: ctest.display().to_string(),
        source,
    })?;
    if over {
        return Ok(Vec::new());
    }
    Ok(parse_listing(&String::from_utf8_lossy(&text)))
}

fn parse_listing(text: &str) -> Vec<Listed> {
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(text) else {
        return Vec::new();
    };
    doc.get("tests")
        .and_then(|t| t.as_array())
        .map(|tests| {
            tests
                .iter()
                .filter_map(|t| {
                    let name = t.get("name")?.as_str()?.to_owned();
                    let filter = t
                        .get("command")
                        .and_then(|c| c.as_array())
                        .and_then(|args| {
                            args.iter()
                                .filter_map(|a| a.as_str())
                                .find_map(|a| a.strip_prefix("--gtest_filter="))
                        })
                        .map(str::to_owned);
                    Some(Listed { name, filter })
                })
                .collect()
        })
        .unwrap_or_default()
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Selection {
    /// CTest tests to run (`-R`).
    ctest_names: Vec<String>,
    /// gtest ids to run inside whole-binary CTest tests (`GTEST_FILTER`).
    inside_binaries: Vec<String>,
    not_found: Vec<String>,
}

/// Which CTest tests run the requested ids. An id that is a CTest test's name, or its
/// `--gtest_filter`, selects that test; other gtest ids are looked for in the CTest tests that
/// run a whole binary.
fn select(listed: &[Listed], ids: &[String]) -> Selection {
    let mut sel = Selection::default();
    let add = |names: &mut Vec<String>, n: &str| {
        if !names.iter().any(|x| x == n) {
            names.push(n.to_owned());
        }
    };
    let whole: Vec<&Listed> = listed.iter().filter(|l| l.filter.is_none()).collect();
    for id in ids {
        if let Some(t) = listed
            .iter()
            .find(|l| &l.name == id || l.filter.as_deref() == Some(id.as_str()))
        {
            add(&mut sel.ctest_names, &t.name);
        } else if is_test_id(id) && !whole.is_empty() {
            for w in &whole {
                add(&mut sel.ctest_names, &w.name);
            }
            add(&mut sel.inside_binaries, id);
        } else {
            sel.not_found.push(id.clone());
        }
    }
    sel
}

/// CTest's regular expressions: every character that is not a letter, digit or `_` escaped.
fn regex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for c in s.chars() {
        if !(c.is_ascii_alphanumeric() || c == '_') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The GoogleTest reports the run wrote: their cases, one line for each that could not be read
/// whole (too large) or whose totals disagree with its cases, and one for each that is no
/// report at all.
#[derive(Default)]
struct Reports {
    cases: Vec<json::Case>,
    doubts: Vec<String>,
    /// Reports that are not JSON: a binary that died while writing, or two that wrote the same
    /// file at once (gtest picks a free name when it starts, not when it writes). A doubt only
    /// when the console does not account for every test on its own.
    unreadable: Vec<String>,
}

fn read_json_dir(dir: &Path) -> Reports {
    use std::io::Read;
    let mut out = Reports::default();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    for f in files {
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut bytes = Vec::new();
        // Regular files only, and no more than the bound: a report is data pith reads, not a
        // stream it waits on.
        let read = std::fs::File::open(&f).and_then(|file| {
            if !file.metadata()?.is_file() {
                return Err(std::io::Error::other("not a regular file"));
            }
            file.take(JSON_BYTES + 1).read_to_end(&mut bytes)
        });
        match read {
            Err(_) => continue,
            Ok(n) if n as u64 > JSON_BYTES => {
                out.doubts.push(format!(
                    "the GoogleTest report {name} is larger than {} MB and was not read",
                    JSON_BYTES >> 20
                ));
                continue;
            }
            Ok(_) => {}
        }
        match json::parse_report(&String::from_utf8_lossy(&bytes)) {
            Ok(r) => {
                if let Some(d) = r.disagreement() {
                    out.doubts.push(format!("{name}: {d}"));
                }
                out.cases.extend(r.cases);
            }
            Err(_) => out
                .unreadable
                .push(format!("the GoogleTest report {name} is unreadable")),
        }
    }
    out
}

/// ctest's words for a test process's death, as signal names.
fn signal_of(word: &str) -> String {
    match word {
        "SegFault" => "SIGSEGV".to_owned(),
        "Child aborted" | "Subprocess aborted" => "SIGABRT".to_owned(),
        "Illegal" => "SIGILL".to_owned(),
        "Numerical" => "SIGFPE".to_owned(),
        "Bus error" => "SIGBUS".to_owned(),
        "Interrupt" => "SIGINT".to_owned(),
        other => other.to_owned(),
    }
}

/// The first line of a test's output worth showing as its failure message.
fn output_message(lines: &console::Output) -> Option<String> {
    lines
        .iter()
        .map(|l| l.trim())
        .find(|l| !l.is_empty() && !l.starts_with("Running main()") && !l.starts_with('['))
        .map(text::first_line)
}

/// Outcomes of one CTest test: its gtest tests (JSON first, the console where the JSON is
/// missing), its suite failures, or the CTest test itself when it ran no gtest test.
fn ctest_outcomes(
    ctx: &Context<'_>,
    t: &console::CtestTest,
    by_id: &HashMap<&str, &json::Case>,
    seen: &mut HashSet<String>,
) -> Vec<Outcome> {
    let g = console::parse_gtest(t.output.iter());
    let mut out: Vec<Outcome> = Vec::new();
    for (id, end) in &g.tests {
        if !seen.insert(id.clone()) {
            continue;
        }
        if let Some(case) = by_id.get(id.as_str()) {
            out.push(case_outcome(case, ctx.paths));
            continue;
        }
        out.push(match end {
            Some(ConsoleEnd::Ok) => Outcome::new(id, Verdict::Passed),
            Some(ConsoleEnd::Skipped) => Outcome::new(id, Verdict::Skipped),
            Some(ConsoleEnd::Failed) => {
                let texts: Vec<String> = g
                    .failures
                    .iter()
                    .filter(|(f, _)| f == id)
                    .map(|(_, t)| t.clone())
                    .collect();
                Outcome::failed(failure::failure(id.clone(), &texts, ctx.paths))
            }
            None => match &t.ended {
                None => Outcome::new(id, Verdict::Running),
                Some(Ended::Crashed(word)) => {
                    let sig = signal_of(word);
                    let mut o = Outcome::failed(Failure {
                        test: id.clone(),
                        message: format!("crashed with {sig}"),
                        kind: Some(sig),
                        ..Failure::default()
                    });
                    o.crashed = true;
                    o
                }
                Some(Ended::Timeout) => Outcome::failed(Failure {
                    test: id.clone(),
                    message: "timed out (the CTest TIMEOUT of this test)".to_owned(),
                    kind: Some("timeout".to_owned()),
                    ..Failure::default()
                }),
                Some(_) => Outcome::failed(Failure {
                    test: id.clone(),
                    message: "the test process exited during this test".to_owned(),
                    kind: Some("exit".to_owned()),
                    ..Failure::default()
                }),
            },
        });
    }
    for suite in &g.failed_suites {
        let mut f = failure::failure(suite.clone(), &g.outside, ctx.paths);
        f.phase = Phase::Collect;
        if g.outside.is_empty() {
            f.message = "SetUpTestSuite or TearDownTestSuite failed".to_owned();
        }
        out.push(Outcome::failed(f));
    }
    if g.tests.is_empty() && g.failed_suites.is_empty() {
        // A CTest test that ran no gtest test: a plain test, or a gtest binary that stopped
        // before its first test.
        let name = &t.name;
        let message = || {
            g.outside
                .first()
                .map(|o| failure::message(&failure::parse(o).body))
                .filter(|m| !m.is_empty())
                .or_else(|| output_message(&t.output))
        };
        let o = match &t.ended {
            Some(Ended::Passed) if g.gtest => return out,
            Some(Ended::Passed) => Outcome::new(name, Verdict::Passed),
            Some(Ended::Skipped | Ended::Disabled) => Outcome::new(name, Verdict::Skipped),
            Some(Ended::NotRun(why)) => Outcome::failed(Failure {
                test: name.clone(),
                message: output_message(&t.output).unwrap_or_else(|| {
                    format!(
                        "not run: {}",
                        if why.is_empty() {
                            "CTest could not start it"
                        } else {
                            why
                        }
                    )
                }),
                phase: Phase::Collect,
                ..Failure::default()
            }),
            Some(Ended::Failed(why)) => Outcome::failed(Failure {
                test: name.clone(),
                message: message()
                    .or_else(|| (!why.is_empty()).then(|| why.clone()))
                    .unwrap_or_else(|| "failed".to_owned()),
                // A gtest binary that failed before running any test never loaded its tests.
                phase: if g.gtest { Phase::Collect } else { Phase::Call },
                ..Failure::default()
            }),
            Some(Ended::Crashed(word)) => {
                let sig = signal_of(word);
                let mut o = Outcome::failed(Failure {
                    test: name.clone(),
                    message: format!("crashed with {sig}"),
                    kind: Some(sig),
                    ..Failure::default()
                });
                o.crashed = true;
                o
            }
            Some(Ended::Timeout) => Outcome::failed(Failure {
                test: name.clone(),
                message: "timed out (the CTest TIMEOUT of this test)".to_owned(),
                kind: Some("timeout".to_owned()),
                ..Failure::default()
            }),
            None => Outcome::new(name, Verdict::Running),
        };
        out.push(o);
        return out;
    }
    // CTest says the process failed but no gtest test did (a sanitizer at exit, a crash in a
    // destructor): never green.
    let bad_end = matches!(t.ended, Some(Ended::Failed(_) | Ended::Crashed(_)));
    if bad_end && !out.iter().any(|o| o.verdict == Verdict::Failed) {
        let crashed = matches!(t.ended, Some(Ended::Crashed(_)));
        let message = match &t.ended {
            Some(Ended::Crashed(word)) => {
                format!("crashed with {} after its tests ended", signal_of(word))
            }
            _ => output_message(&t.output)
                .unwrap_or_else(|| "the test process failed after its tests passed".to_owned()),
        };
        let mut o = Outcome::failed(Failure {
            test: t.name.clone(),
            message,
            kind: Some("exit".to_owned()),
            ..Failure::default()
        });
        o.crashed = crashed;
        out.push(o);
    }
    out
}

fn case_outcome(case: &json::Case, paths: &PathMap) -> Outcome {
    match case.verdict {
        json::Verdict::Passed => Outcome::new(&case.id, Verdict::Passed),
        json::Verdict::Skipped => Outcome::new(&case.id, Verdict::Skipped),
        json::Verdict::Failed => {
            Outcome::failed(failure::failure(case.id.clone(), &case.failures, paths))
        }
    }
}

/// What `ctest -V`'s output and the gtest JSON reports say, as a [`Run`].
fn judge(
    ctx: &Context<'_>,
    cap: &Captured,
    ct: CtestRun,
    reports: Reports,
    requested: &[String],
) -> Run {
    let Reports {
        cases,
        doubts,
        unreadable,
    } = reports;
    // ctest's own words (its results, totals and list of failures) and what it said on stderr.
    let output = format!("{}\n{}", ctest_words(&ct.last).join("\n"), cap.stderr_str());
    let mut by_id: HashMap<&str, &json::Case> = HashMap::new();
    for c in &cases {
        by_id.entry(c.id.as_str()).or_insert(c);
    }
    let mut seen: HashSet<String> = HashSet::new();
    let mut outcomes: Vec<Outcome> = Vec::new();
    let mut crash_tail: Option<String> = None;
    for t in &ct.tests {
        let more = ctest_outcomes(ctx, t, &by_id, &mut seen);
        // A process that died, or left a test unfinished: what it printed last says why.
        let ended_early = |o: &Outcome| {
            o.crashed
                || o.failure
                    .as_ref()
                    .is_some_and(|f| f.kind.as_deref() == Some("exit"))
        };
        if crash_tail.is_none() && more.iter().any(ended_early) {
            crash_tail = output_tail(ctx.paths, t.output.iter());
        }
        outcomes.extend(more);
    }
    // Results only the JSON has (output that could not be attributed).
    for c in &cases {
        if seen.insert(c.id.clone()) {
            outcomes.push(case_outcome(c, ctx.paths));
        }
    }

    let mut run = Run::new("ctest");
    let mut found: Vec<String> = Vec::new();
    let mut crashed = false;
    for o in outcomes {
        let collect = o
            .failure
            .as_ref()
            .is_some_and(|f| f.phase == Phase::Collect);
        if !requested.is_empty() {
            // A suite that failed to set up answers for the requested tests of that suite.
            let suite_of = |r: &String| r.split_once('.').is_some_and(|(s, _)| s == o.id);
            if !(requested.contains(&o.id) || collect && requested.iter().any(suite_of)) {
                continue;
            }
            found.push(o.id.clone());
        }
        crashed |= o.crashed;
        match o.verdict {
            Verdict::Passed => run.passed += 1,
            Verdict::Skipped => run.skipped += 1,
            // Collection errors are counted apart from failed tests.
            Verdict::Failed if collect => {}
            Verdict::Failed => run.failed += 1,
            Verdict::Running => run.running.push(o.id.clone()),
        }
        if let Some(f) = o.failure {
            run.failures.push(f);
        }
    }
    if !requested.is_empty() {
        run.not_found = requested
            .iter()
            .filter(|r| !found.contains(r))
            .cloned()
            .collect();
    }
    let tail = || verdict::tail(ctx.paths, &output);
    if requested.is_empty() {
        // gtest announces how many tests each process will run: more than reported means a
        // crash or the deadline took some along.
        let announced: u32 = ct.tests.iter().map(|t| announced(&t.output)).sum();
        if announced > run.passed + run.failed + run.skipped {
            run.selected = Some(announced);
        }
    }
    match Ending::of(cap.end) {
        Ending::Stopped => {
            // What the unfinished tests printed says more than ctest's bookkeeping.
            let unfinished = ct
                .tests
                .iter()
                .filter(|t| t.ended.is_none())
                .flat_map(|t| t.output.iter());
            verdict::stopped(
                &mut run,
                None,
                output_tail(ctx.paths, unfinished).or_else(tail),
            );
        }
        Ending::Killed(signal) => {
            let tail = tail().or_else(|| Some(verdict::killed_by("ctest", &signal)));
            verdict::crashed(&mut run, None, tail);
        }
        Ending::Exited(_) if crashed => {
            verdict::crashed(&mut run, None, crash_tail.clone());
        }
        Ending::Exited(code) => {
            if ct.tests.is_empty() && !ct.no_tests && code != 0 {
                // ctest itself failed (no build directory, a broken CTestTestfile).
                run.status = Some(Status::CollectionFailed);
                run.tail = tail();
            }
        }
    }
    run.exit = verdict::exit(cap.end, |code| exit_meaning(code, &ct));
    let mut reasons: Vec<String> = Vec::new();
    if let Some((failed, total)) = ct.totals {
        let (read_failed, read_total) = ct.counted();
        if (failed, total) != (read_failed, read_total) {
            reasons.push(format!(
                "ctest counted {failed} failed of {total} tests; pith read {read_failed} of {read_total}"
            ));
        }
    }
    let mut unfinished: Vec<&str> = Vec::new();
    // Every gtest process ran to its summary with an end for each test it started: its console
    // says all its report would have.
    let mut console_whole = true;
    for t in &ct.tests {
        // A gtest binary that exited 0 without gtest's closing summary stopped before its end
        // (`_exit` in a tear-down, a destructor), where gtest writes its report; a test it left
        // running is a failure already.
        let g = console::parse_gtest(t.output.iter());
        console_whole &= !g.gtest || g.finished && g.tests.iter().all(|(_, end)| end.is_some());
        if t.ended == Some(Ended::Passed)
            && g.gtest
            && !g.finished
            && g.tests.iter().all(|(_, end)| end.is_some())
        {
            unfinished.push(&t.name);
        }
    }
    if !unfinished.is_empty() {
        reasons.push(format!(
            "{} exited 0 before GoogleTest's end (no summary, no report)",
            unfinished.join(", ")
        ));
        if run.tail.is_none() {
            let lines = ct
                .tests
                .iter()
                .filter(|t| unfinished.contains(&t.name.as_str()))
                .flat_map(|t| t.output.iter());
            run.tail = output_tail(ctx.paths, lines);
        }
    }
    reasons.extend(doubts);
    if !console_whole {
        reasons.extend(unreadable);
    }
    if !reasons.is_empty() {
        run.reason = Some(reasons.join("; "));
    }
    if run.tail.is_none() && run.doubt().is_some() {
        run.tail = crash_tail.or_else(tail);
    }
    run
}

/// ctest's own lines worth a tail: results, totals, the lists of tests that failed or did not
/// run; not its bookkeeping (build directory paths, timings, hints).
fn ctest_words(lines: &[String]) -> Vec<&str> {
    const NOISE: &[&str] = &[
        "Internal ctest changing into directory",
        "Start ",
        "UpdateCTestConfiguration",
        "Test project ",
        "Constructing a list of tests",
        "Done constructing a list of tests",
        "Updating test list for fixtures",
        "Added ",
        "Checking test dependency graph",
        "Total Test time",
        "Output from these tests are in",
        "Use \"--rerun-failed",
        "Errors while running CTest",
    ];
    lines
        .iter()
        .map(|l| l.trim_end())
        .filter(|l| {
            let t = l.trim_start();
            let numbered = t
                .strip_prefix("test ")
                .is_some_and(|n| n.trim().parse::<u32>().is_ok());
            !(t.is_empty() || numbered || NOISE.iter().any(|n| t.starts_with(n)))
        })
        .collect()
}

/// What ctest's exit code says: 0 every test passed (or none was found); 8 some test failed
/// (ctest's "tests failed" bit); anything else is ctest's own failure.
fn exit_meaning(code: i32, ct: &CtestRun) -> ExitMeaning {
    match code {
        0 if ct.no_tests => ExitMeaning::NoTests,
        0 => ExitMeaning::Passed,
        8 => ExitMeaning::Failed,
        _ => ExitMeaning::Other,
    }
}

/// The end of what tests printed, without gtest's banners and separators (`Running main()`,
/// `[----------]`, `[==========]`): what is left is the tests' own lines and their words.
fn output_tail<'a>(paths: &PathMap, lines: impl Iterator<Item = &'a str>) -> Option<String> {
    verdict::tail_of_lines(paths, lines, |l| {
        !(l.starts_with("Running main() from")
            || l.starts_with("Note: Google Test filter")
            || l.starts_with("[----------]")
            || l.starts_with("[==========]"))
    })
}

/// The test count in gtest's banner (`[==========] Running 3 tests from 1 test suite.`); a
/// CTest test that is not a gtest binary counts as one.
fn announced(output: &console::Output) -> u32 {
    output
        .iter()
        .find_map(|l| {
            let rest = l.strip_prefix("[==========] Running ")?;
            rest.split_whitespace().next()?.parse().ok()
        })
        .unwrap_or(1)
}

/// Reads an existing GoogleTest JSON report (for `pith test --report`).
pub fn parse_json(text: &str, paths: &PathMap) -> Result<Run, ParseError> {
    let cases = json::parse(text)?;
    let mut run = Run::new("gtest");
    for c in &cases {
        let o = case_outcome(c, paths);
        match o.verdict {
            Verdict::Passed => run.passed += 1,
            Verdict::Skipped => run.skipped += 1,
            _ => run.failed += 1,
        }
        run.failures.extend(o.failure);
        // A report from elsewhere may say anything: a time no Duration holds counts as none.
        run.duration = run
            .duration
            .saturating_add(Duration::try_from_secs_f64(c.seconds).unwrap_or_default());
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_gtest_ids_only() {
        for id in [
            "Sum.Ok",
            "Nums/P.Even/0",
            "Ty/0.Zero",
            "Inst/Suite.Test/foo_bar",
        ] {
            assert!(is_test_id(id), "{id}");
        }
        for id in [
            "Ns.Class.Method",
            "tests/test_x.py::test_a",
            "mycrate tests::it_works",
            "Sum.",
            ".Ok",
            "Sum",
            "A.B(1)",
            "/A.B",
        ] {
            assert!(!is_test_id(id), "{id}");
        }
    }

    #[test]
    fn ids_select_ctest_tests_or_run_inside_whole_binaries() {
        let listed = parse_listing(
            r#"{"kind":"ctestInfo","version":{"major":1,"minor":0},"tests":[
  {"name":"Sum.Ok","command":["/b/t","--gtest_filter=Sum.Ok","--gtest_also_run_disabled_tests"]},
  {"name":"Ty.Zero<int>","command":["/b/t","--gtest_filter=Ty/0.Zero"]},
  {"name":"whole","command":["/b/w"]}]}"#,
        );
        assert_eq!(listed.len(), 3);
        let ids: Vec<String> = ["Sum.Ok", "Ty/0.Zero", "W.B", "not a test", "whole"]
            .map(String::from)
            .to_vec();
        let sel = select(&listed, &ids);
        assert_eq!(sel.ctest_names, ["Sum.Ok", "Ty.Zero<int>", "whole"]);
        assert_eq!(sel.inside_binaries, ["W.B"]);
        assert_eq!(sel.not_found, ["not a test"]);
        assert_eq!(regex_escape("Ty.Zero<int>"), r"Ty\.Zero\<int\>");
        assert!(parse_listing("garbage").is_empty());
    }

    #[test]
    fn build_dir_is_the_projects_own_only_when_configured_for_it() {
        let ws = tempfile::tempdir().unwrap();
        let cache = tempfile::tempdir().unwrap();
        let c = Ctest::new(ws.path());
        let in_cache = c.build_dir(cache.path());
        assert!(in_cache.starts_with(cache.path().join("ctest")));
        assert_eq!(in_cache, c.build_dir(cache.path()), "stable across runs");
        std::fs::create_dir(ws.path().join("build")).unwrap();
        std::fs::write(
            ws.path().join("build/CMakeCache.txt"),
            "CMAKE_HOME_DIRECTORY:INTERNAL=/somewhere/else\n",
        )
        .unwrap();
        assert_eq!(
            c.build_dir(cache.path()),
            in_cache,
            "a copied build dir is not ours"
        );
        std::fs::write(
            ws.path().join("build/CMakeCache.txt"),
            format!("CMAKE_HOME_DIRECTORY:INTERNAL={}\n", ws.path().display()),
        )
        .unwrap();
        assert_eq!(c.build_dir(cache.path()), ws.path().join("build"));
    }
}
