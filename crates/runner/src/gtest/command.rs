//! How ctest is started: the build directory (the project's own or one in pith's cache), the
//! configure and build steps under a lock, the argv and environment, and the selection (CTest
//! tests by `-R`, the rest by `GTEST_FILTER`, from `ctest --show-only=json-v1`'s listing).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use pith_model::gain::Printed;
use pith_model::{Run, Status};

use crate::process::{self, Captured, End};
use crate::verdict;
use crate::{Context, RunnerError};

use crate::c_build;

use super::Ctest;

/// GoogleTest's variables that reshape how gtest reports, taken out of the caller's
/// environment: pith reads gtest's JSON report (`GTEST_OUTPUT`, which pith sets to its own
/// scratch directory) and its console (colour, brevity, timing, UTF-8, a stream to a socket),
/// and `GTEST_LIST_TESTS` would replace the run with a listing. None of them changes what a
/// test does or whether it passes.
///
/// The rest is how the caller runs the tests and stays, as raw `ctest` would see it:
/// `GTEST_FILTER` (a whole run runs what the caller's filter selects; a run of ids sets its
/// own), `GTEST_ALSO_RUN_DISABLED_TESTS`, `GTEST_REPEAT` (a repetition that fails fails the
/// binary's exit, which a green report cannot outvote), `GTEST_FAIL_FAST`, sharding,
/// `GTEST_SHUFFLE`, `GTEST_DEATH_TEST_STYLE`, `GTEST_BREAK_ON_FAILURE`, `GTEST_FLAGFILE`.
pub(super) const GTEST_REPORTING_ENV: &[&str] = &[
    "GTEST_LIST_TESTS",
    "GTEST_OUTPUT",
    "GTEST_BRIEF",
    "GTEST_COLOR",
    "GTEST_PRINT_TIME",
    "GTEST_PRINT_UTF8",
    "GTEST_STREAM_RESULT_TO",
];

/// Largest `ctest --show-only=json-v1` listing read.
pub(super) const LISTING_BYTES: usize = 64 << 20;

/// The source directory a CMake build directory was configured for.
pub(super) fn cache_home(build: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(build.join("CMakeCache.txt")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("CMAKE_HOME_DIRECTORY:INTERNAL="))
        .map(|s| PathBuf::from(s.trim()))
}

pub(super) fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

pub(super) fn jobs() -> String {
    std::thread::available_parallelism()
        .map_or(2, std::num::NonZeroUsize::get)
        .to_string()
}

/// A gtest id: `Suite.Test` with optional `Prefix/` and `/N` parts, identifier characters only.
pub(super) fn is_test_id(id: &str) -> bool {
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

impl Ctest {
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

    /// Configures (when the build directory is new) and builds. `Some(run)` when that is the
    /// end of it: a build failure, a timeout. What cmake printed is added to `printed`.
    pub(super) fn configure_and_build(
        &self,
        ctx: &Context<'_>,
        cmake: &Path,
        build: &Path,
        printed: &mut Printed,
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
            printed.append(cap.printed());
            if let Some(run) = build_failure(ctx, &cap) {
                // A failed configuration leaves a cache that would not be configured again.
                let _ = std::fs::remove_file(build.join("CMakeCache.txt"));
                return Ok(Some(run));
            }
        }
        let mut cmd = build_command(cmake, &self.dir);
        cmd.arg("--build").arg(build).args(["--parallel", &jobs()]);
        let cap = run_process(cmd, ctx, cmake)?;
        printed.append(cap.printed());
        Ok(build_failure(ctx, &cap))
    }
}

/// cmake or ctest in the caller's environment, less gtest's reporting variables
/// ([`GTEST_REPORTING_ENV`]); pith sets `GTEST_OUTPUT` itself, and `GTEST_FILTER` for a run of
/// ids inside whole binaries.
pub(super) fn command(program: &Path, cwd: &Path) -> Command {
    let mut cmd = crate::base_command(program, cwd);
    for var in GTEST_REPORTING_ENV {
        cmd.env_remove(var);
    }
    cmd
}

/// cmake configuring or building (no test runs under it): compilers in the C locale, so
/// diagnostics quote with `'` and read the same on every machine, and without colour. The
/// tests themselves keep the caller's locale and colour settings.
pub(super) fn build_command(program: &Path, cwd: &Path) -> Command {
    let mut cmd = command(program, cwd);
    cmd.env("LC_ALL", "C").env("CMAKE_COLOR_DIAGNOSTICS", "OFF");
    cmd
}

pub(super) fn run_process(
    cmd: Command,
    ctx: &Context<'_>,
    program: &Path,
) -> Result<Captured, RunnerError> {
    process::run(cmd, ctx.deadline, ctx.cancel).map_err(|source| RunnerError::Spawn {
        program: program.display().to_string(),
        source,
    })
}

/// What a configure or build step's failure says; `None` when it succeeded.
pub(super) fn build_failure(ctx: &Context<'_>, cap: &Captured) -> Option<Run> {
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
            let errors = c_build::errors(&output, ctx.paths);
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
pub(super) struct BuildLock {
    pub(super) _file: std::fs::File,
}

impl BuildLock {
    /// `None`: still held by another run at the deadline.
    pub(super) fn acquire(
        ctx: &Context<'_>,
        build: &Path,
    ) -> Result<Option<BuildLock>, RunnerError> {
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
pub(super) struct Listed {
    pub(super) name: String,
    /// The `--gtest_filter=` it runs with (`gtest_discover_tests` gives each test one).
    pub(super) filter: Option<String>,
}

pub(super) fn list_tests(
    ctx: &Context<'_>,
    ctest: &Path,
    build: &Path,
) -> Result<Vec<Listed>, RunnerError> {
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

pub(super) fn parse_listing(text: &str) -> Vec<Listed> {
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
pub(super) struct Selection {
    /// CTest tests to run (`-R`).
    pub(super) ctest_names: Vec<String>,
    /// gtest ids to run inside whole-binary CTest tests (`GTEST_FILTER`).
    pub(super) inside_binaries: Vec<String>,
    pub(super) not_found: Vec<String>,
}

/// Which CTest tests run the requested ids. An id that is a CTest test's name, or its
/// `--gtest_filter`, selects that test; other gtest ids are looked for in the CTest tests that
/// run a whole binary.
pub(super) fn select(listed: &[Listed], ids: &[String]) -> Selection {
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
pub(super) fn regex_escape(s: &str) -> String {
    crate::text::escape_chars(s, |c| !(c.is_ascii_alphanumeric() || c == '_'))
}

/// What runs the requested tests: the CTest tests by `-R`, the gtest ids inside whole-binary
/// ones by `GTEST_FILTER`; all of them when both are `None`.
#[derive(Debug, Default)]
pub(super) struct Filters {
    pub(super) regex: Option<String>,
    pub(super) gtest: Option<String>,
}

impl Selection {
    pub(super) fn filters(&self) -> Filters {
        let regex = format!(
            "^({})$",
            self.ctest_names
                .iter()
                .map(|n| regex_escape(n))
                .collect::<Vec<_>>()
                .join("|")
        );
        Filters {
            regex: Some(regex),
            gtest: (!self.inside_binaries.is_empty()).then(|| self.inside_binaries.join(":")),
        }
    }
}

/// `ctest -V` over the build directory `build`, in parallel, each gtest process writing its
/// JSON report into `json_dir`.
pub(super) fn ctest_command(
    ctest: &Path,
    dir: &Path,
    build: &Path,
    json_dir: &Path,
    filters: &Filters,
) -> Command {
    let mut cmd = command(ctest, dir);
    cmd.arg("--test-dir")
        .arg(build)
        .args(["-V", "--parallel", &jobs()]);
    if let Some(r) = &filters.regex {
        cmd.arg("-R").arg(r);
    }
    let mut out_spec = json_dir.to_path_buf().into_os_string();
    out_spec.push("/");
    let mut spec = std::ffi::OsString::from("json:");
    spec.push(out_spec);
    // Colour is not switched off here: ctest's pipe is no terminal, so gtest prints none,
    // and what pith reads is stripped of escapes anyway.
    cmd.env("GTEST_OUTPUT", spec);
    if let Some(f) = &filters.gtest {
        cmd.env("GTEST_FILTER", f);
    }
    cmd
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
}
