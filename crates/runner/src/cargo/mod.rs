//! Rust: cargo-nextest (JUnit report) when installed, else `cargo test` (libtest's stable
//! human output). Both paths read cargo's JSON messages for compile errors and for the test
//! binaries' ids, and both name tests the way nextest does: `<binary_id> <test_name>`, where the
//! binary id is `pkg` (lib or proc-macro), `pkg::bin/NAME`, `pkg::NAME` (`tests/NAME.rs`),
//! `pkg::example/NAME` or `pkg::bench/NAME`, and the test name is libtest's path
//! (`tests::it_works`).
//!
//! Doctests: nextest does not run them, so a nextest run reports none. Plain `cargo test` runs
//! them and names them `pkg::doc <libtest name>` (`pkg::doc src/lib.rs - add (line 3)`); such
//! ids are re-run with `cargo test --doc` even when nextest is installed.
//!
//! Backtraces: the tests run with `RUST_BACKTRACE=0`, so a panic's frame is its location only;
//! `enrich` then re-runs a few panicking tests with backtraces for their callers' frames.

mod diag;
mod enrich;
mod libtest;
mod nextest;
mod panic;
mod plain;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use pith_model::{BuildError, Failure, Frame, Run, Status};

use crate::{text, Adapter, Context, RunnerError};

pub use diag::{binary_id, TargetKind};

/// One line telling how to get cargo.
const CARGO_HINT: &str = "install Rust: https://rustup.rs";

/// One line telling how to get nextest, when it was asked for by name.
const NEXTEST_INSTALL_HINT: &str = "install cargo-nextest: cargo install cargo-nextest --locked";

/// Variables of the caller's shell that would change what cargo or the tests print, on top of
/// every `NEXTEST_*` one. (`RUST_LIB_BACKTRACE` would make `Backtrace::capture` pay for
/// symbolizing where pith turned backtraces off.)
const SCRUBBED_ENV: &[&str] = &[
    "RUST_TEST_NOCAPTURE",
    "RUST_LIB_BACKTRACE",
    "CARGO_TERM_QUIET",
    "CARGO_TERM_VERBOSE",
];

/// cargo in a workspace with a `Cargo.toml` at its root.
#[derive(Debug, Clone)]
pub struct Cargo {
    nextest: bool,
}

/// A Rust workspace at `root`; nextest is used when `cargo-nextest` is installed.
pub fn detect(root: &Path) -> Option<Cargo> {
    root.join("Cargo.toml")
        .is_file()
        .then(|| Cargo::with_nextest(nextest_installed()))
}

impl Cargo {
    /// An adapter that runs tests through nextest (`true`) or plain `cargo test` (`false`).
    pub fn with_nextest(nextest: bool) -> Self {
        Cargo { nextest }
    }
}

/// Whether `cargo-nextest` is on PATH or in cargo's own bin directory (where cargo looks for
/// subcommands too). A file lookup, no process.
pub fn nextest_installed() -> bool {
    crate::on_path("cargo-nextest").is_some()
        || cargo_home().is_some_and(|h| crate::is_executable(&h.join("bin").join("cargo-nextest")))
}

fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
}

fn find_cargo() -> Option<PathBuf> {
    crate::on_path("cargo").or_else(|| {
        cargo_home()
            .map(|h| h.join("bin").join("cargo"))
            .filter(|p| crate::is_executable(p))
    })
}

impl Adapter for Cargo {
    fn name(&self) -> &'static str {
        if self.nextest {
            "nextest"
        } else {
            "cargo"
        }
    }

    /// `<binary_id> <test_name>`: binary ids never contain a space.
    fn claims(&self, id: &str) -> bool {
        split_id(id).is_some()
    }

    fn run(&self, ctx: &Context<'_>, tests: &[String]) -> Result<Run, RunnerError> {
        let Some(cargo) = find_cargo() else {
            return Ok(cargo_missing(self.name()));
        };
        if self.nextest && !nextest_installed() {
            return Ok(Run {
                status: Some(Status::RunnerMissing),
                hint: Some(NEXTEST_INSTALL_HINT.to_owned()),
                ..Run::new(self.name())
            });
        }
        let mut run = Run::new(self.name());
        if tests.is_empty() {
            let (part, arts) = if self.nextest {
                nextest::run(ctx, &cargo, None)?
            } else {
                plain::run(ctx, &cargo, None)?
            };
            run.absorb(part);
            enrich::frames(ctx, &cargo, &mut run, &arts);
            return Ok(run);
        }
        let mut ids: Vec<TestId> = Vec::new();
        for t in tests {
            match TestId::parse(t) {
                Some(id) if !ids.contains(&id) => ids.push(id),
                Some(_) => {}
                None => run.not_found.push(t.clone()),
            }
        }
        let mut artifacts: Vec<diag::Artifact> = Vec::new();
        let (doc, other): (Vec<TestId>, Vec<TestId>) = if self.nextest {
            ids.into_iter().partition(TestId::is_doc)
        } else {
            (Vec::new(), ids)
        };
        if !other.is_empty() {
            let (part, arts) = if self.nextest {
                nextest::run(ctx, &cargo, Some(&other))?
            } else {
                plain::run(ctx, &cargo, Some(&other))?
            };
            run.absorb(part);
            artifacts.extend(arts);
        }
        if !doc.is_empty() && std::time::Instant::now() < ctx.deadline {
            // Doctests are never enriched: their artifacts are not needed.
            let (mut part, _) = plain::run(ctx, &cargo, Some(&doc))?;
            // Only the doctests ran without nextest: the rest kept its isolation.
            part.lacks = None;
            run.absorb(part);
        }
        enrich::frames(ctx, &cargo, &mut run, &artifacts);
        Ok(run)
    }
}

/// A requested test id, split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TestId {
    pub full: String,
    pub binary: String,
    pub test: String,
}

impl TestId {
    fn parse(id: &str) -> Option<TestId> {
        let (binary, test) = split_id(id)?;
        Some(TestId {
            full: id.to_owned(),
            binary: binary.to_owned(),
            test: test.to_owned(),
        })
    }

    /// `pkg::doc <file - item (line N)>`: a doctest (a test target named `doc` has ordinary
    /// test names).
    fn is_doc(&self) -> bool {
        self.binary.ends_with("::doc") && is_doctest_name(&self.test)
    }

    /// The package and cargo's target selection for this id's binary.
    fn target(&self) -> (String, Vec<String>) {
        let Some((pkg, rest)) = self.binary.split_once("::") else {
            return (self.binary.clone(), vec!["--lib".into()]);
        };
        let args = if self.is_doc() {
            vec!["--doc".into()]
        } else if let Some(n) = rest.strip_prefix("bin/") {
            vec!["--bin".into(), n.into()]
        } else if let Some(n) = rest.strip_prefix("example/") {
            vec!["--example".into(), n.into()]
        } else if let Some(n) = rest.strip_prefix("bench/") {
            vec!["--bench".into(), n.into()]
        } else {
            vec!["--test".into(), rest.into()]
        };
        (pkg.to_owned(), args)
    }
}

fn split_id(id: &str) -> Option<(&str, &str)> {
    let (binary, test) = id.split_once(' ')?;
    let name = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
    };
    // `pkg`, `pkg::target`, or `pkg::bin/NAME` (also `example/`, `bench/`): no dots, no other
    // slashes, so paths (`tests/a.test.js > x`) and Go import paths are never taken for one.
    let ok = match binary.split_once("::") {
        None => name(binary),
        Some((pkg, target)) => {
            let target = ["bin/", "example/", "bench/"]
                .iter()
                .find_map(|k| target.strip_prefix(k))
                .unwrap_or(target);
            name(pkg) && name(target)
        }
    };
    (ok && !test.trim().is_empty()).then_some((binary, test))
}

/// rustdoc names doctests `FILE - ITEM (line N)`.
fn is_doctest_name(name: &str) -> bool {
    name.contains(" - ") && name.contains("(line ")
}

/// cargo (or nextest) in the workspace root with the environment pith sets, backtraces off:
/// symbolizing one costs ~200 ms per test process, and nextest runs each test in its own.
fn command(cargo: &Path, ctx: &Context<'_>) -> Command {
    let mut cmd = crate::base_command(cargo, ctx.dir);
    set_env(&mut cmd);
    cmd.env("RUST_BACKTRACE", "0");
    cmd
}

/// The environment pith sets for cargo and the tests, whatever the caller's shell has
/// (`RUST_BACKTRACE` aside, which each caller sets).
fn set_env(cmd: &mut Command) {
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("NEXTEST_") {
            cmd.env_remove(&k);
        }
    }
    for var in SCRUBBED_ENV {
        cmd.env_remove(var);
    }
    cmd.env("CARGO_TERM_COLOR", "never")
        .env("CARGO_TERM_PROGRESS_WHEN", "never");
}

/// Runs cargo; `Ok(Err(()))` when cargo itself is gone (removed since it was found).
fn spawn(
    cmd: Command,
    ctx: &Context<'_>,
    cargo: &Path,
) -> Result<Result<crate::process::Captured, ()>, RunnerError> {
    match crate::process::run(cmd, ctx.deadline, ctx.cancel) {
        Ok(c) => Ok(Ok(c)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Err(())),
        Err(source) => Err(RunnerError::Spawn {
            program: cargo.display().to_string(),
            source,
        }),
    }
}

/// The answer when cargo is not installed.
fn cargo_missing(runner: &str) -> Run {
    Run {
        status: Some(Status::RunnerMissing),
        hint: Some(CARGO_HINT.to_owned()),
        ..Run::new(runner)
    }
}

/// Where a path rustc printed relative to the cargo workspace root lives in pith's workspace.
/// That is pith's root unless the cargo workspace root lies above it; the package directory's
/// ancestors are tried when the file is not under pith's root.
fn locate(ctx: &Context<'_>, file: &str, line: u32, pkg_dir: Option<&Path>) -> Frame {
    if Path::new(file).is_absolute() || ctx.root.join(file).exists() {
        return ctx.paths.frame(file, line, None);
    }
    if let Some(dir) = pkg_dir {
        for base in dir.ancestors() {
            if base.join(file).exists() {
                return ctx.paths.frame(file, line, Some(base));
            }
        }
    }
    ctx.paths.frame(file, line, None)
}

/// Compile errors as the model wants them: located in the workspace, first line only, without
/// duplicates (a lib and its test harness compile the same file).
fn build_errors(ctx: &Context<'_>, diags: &[diag::Diagnostic]) -> Vec<BuildError> {
    let mut out: Vec<BuildError> = Vec::new();
    for d in diags {
        let frames: Vec<Frame> = d
            .spans
            .iter()
            .map(|(f, l)| locate(ctx, f, *l, d.package_dir.as_deref()))
            .collect();
        let at = frames.iter().find(|f| f.project);
        let e = BuildError {
            file: at.map(|f| f.file.clone()),
            line: at.map(|f| f.line),
            code: d.code.clone(),
            message: text::first_line(&ctx.paths.scrub(&d.message)),
        };
        if !out.contains(&e) {
            out.push(e);
        }
    }
    out
}

/// A failed test from its captured output: the panic's message and frames, or else the first
/// line of what it printed (a test returning `Err` prints `Error: ...`).
fn failure(
    ctx: &Context<'_>,
    test: String,
    output: &str,
    pkg_dir: Option<&Path>,
    fallback: Option<&str>,
) -> Failure {
    let Some(p) = panic::parse(output) else {
        let mut message = text::first_line(&ctx.paths.scrub(output));
        if message.is_empty() || message.starts_with("running ") {
            message = fallback
                .map(|f| text::first_line(&ctx.paths.scrub(f)))
                .unwrap_or_default();
        }
        if message.is_empty() {
            message = "failed".to_owned();
        }
        return Failure {
            test,
            message,
            ..Failure::default()
        };
    };
    let mut frames = backtrace_frames(ctx, &p.frames, pkg_dir);
    // Without a backtrace the panic's location is the one frame, in the project or not (so
    // `enrich` can tell a re-run panicked at the same place); with one, the location is added
    // only when the backtrace names no project frame.
    if let Some(at) = panic_location(ctx, &p, pkg_dir) {
        if frames.is_empty() || (at.project && !frames.iter().any(|f| f.project)) {
            frames.push(at);
        }
    }
    ctx.paths.fill_code(&mut frames);
    let mut message = ctx.paths.scrub(&p.message);
    if message.is_empty() {
        message = "panicked".to_owned();
    }
    Failure {
        test,
        message: text::cut_chars(&message, text::MESSAGE_CHARS).into_owned(),
        kind: Some("panic".to_owned()),
        frames,
        ..Failure::default()
    }
}

/// Where a panic happened, located like its frames.
fn panic_location(ctx: &Context<'_>, p: &panic::Panic, pkg_dir: Option<&Path>) -> Option<Frame> {
    let (file, line) = p.location.as_ref()?;
    Some(locate(ctx, file, *line, pkg_dir))
}

/// Backtrace frames, outermost first. `./src/x.rs` is relative to the package directory (the
/// test binary's cwd). The libtest harness closure around each test is dropped: it points at
/// the `fn` line of the test, which the test's own frame already names.
fn backtrace_frames(
    ctx: &Context<'_>,
    raw: &[panic::RawFrame],
    pkg_dir: Option<&Path>,
) -> Vec<Frame> {
    let mut out = Vec::new();
    for (i, f) in raw.iter().enumerate() {
        let Some(file) = &f.file else { continue };
        if i > 0 {
            if let Some(outer) = f.symbol.strip_suffix("::{{closure}}") {
                if raw[i - 1].symbol == outer {
                    continue;
                }
            }
        }
        let frame = if file.starts_with("./") || file.starts_with("../") {
            ctx.paths.frame(file, f.line, pkg_dir)
        } else if Path::new(file).is_absolute() {
            ctx.paths.frame(file, f.line, None)
        } else {
            // A relative path without `./`: as rustc was given it (workspace-relative).
            locate(ctx, file, f.line, pkg_dir)
        };
        out.push(frame);
    }
    out.reverse();
    out
}

/// The end of some raw output, paths relative; `None` when there is nothing to say.
fn tail_of(ctx: &Context<'_>, s: &str) -> Option<String> {
    let kept: Vec<&str> = s.lines().filter(|l| !is_progress(l)).collect();
    let t = text::tail(&ctx.paths.scrub(&kept.join("\n")));
    (!t.is_empty()).then_some(t)
}

/// cargo's and nextest's progress lines: they say the build and the passing tests went fine,
/// which is never why a run ended badly, and would push the explanation out of the tail.
fn is_progress(line: &str) -> bool {
    let t = line.trim_start();
    const PREFIXES: &[&str] = &[
        "Compiling ",
        "Finished ",
        "Fresh ",
        "Checking ",
        "Blocking waiting",
        "Nextest run ID",
        "Starting ",
        "PASS [",
        "SKIP [",
        "SLOW [",
        "Running ",
        "Doc-tests ",
        "────",
    ];
    PREFIXES.iter().any(|p| t.starts_with(p)) || t.starts_with("test ") && t.ends_with(" ... ok")
}

/// TOML basic string.
fn toml_str(s: &OsStr) -> String {
    let mut out = String::from("\"");
    for c in s.to_string_lossy().chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_of_other_runners_are_not_rust_ids() {
        for id in [
            "single tests::off_by_one",
            "b::api public_api_fails",
            "x::bin/tool t::a",
            "pkg::doc src/lib.rs - add (line 3)",
        ] {
            assert!(split_id(id).is_some(), "{id}");
        }
        for id in [
            "tests/a.test.js > price > dollars",
            "example.com/m/pkg.TestX",
            "tests/t.py::test_x",
            "Suite.Test x",
            "::x y",
            "pkg ",
        ] {
            assert!(split_id(id).is_none(), "{id}");
        }
    }

    #[test]
    fn progress_lines_are_not_evidence() {
        for l in [
            "   Compiling hang v0.1.0 (.)",
            "        PASS [   0.025s] (1/2) hang tests::quick",
            "test a::b ... ok",
            "────────────",
        ] {
            assert!(is_progress(l), "{l}");
        }
        for l in [
            "     SIGTERM [   3.597s] (2/2) hang tests::sleeps_forever",
            "error: test run failed",
            "test a::b ... FAILED",
        ] {
            assert!(!is_progress(l), "{l}");
        }
    }

    #[test]
    fn claims_rust_ids_only() {
        let c = Cargo::with_nextest(false);
        assert!(c.claims("single tests::adds"));
        assert!(c.claims("b::api public_api"));
        assert!(c.claims("p::bin/cli tests::x"));
        assert!(c.claims("single::doc src/lib.rs - add (line 3)"));
        assert!(!c.claims("tests/test_x.py::test_a[1 2]"));
        assert!(!c.claims("tests::it_works"));
        assert!(!c.claims(" x"));
        assert!(!c.claims("a "));
    }

    #[test]
    fn ids_map_to_cargo_targets() {
        let t = |id: &str| TestId::parse(id).unwrap().target();
        assert_eq!(t("a x"), ("a".into(), vec!["--lib".into()]));
        assert_eq!(
            t("a::api x"),
            ("a".into(), vec!["--test".into(), "api".into()])
        );
        assert_eq!(
            t("a::bin/cli x"),
            ("a".into(), vec!["--bin".into(), "cli".into()])
        );
        assert_eq!(
            t("a::example/demo x"),
            ("a".into(), vec!["--example".into(), "demo".into()])
        );
        assert_eq!(
            t("a::bench/b x"),
            ("a".into(), vec!["--bench".into(), "b".into()])
        );
        assert_eq!(
            t("a::doc src/lib.rs - f (line 3)"),
            ("a".into(), vec!["--doc".into()])
        );
        // A test target named `doc`.
        assert_eq!(
            t("a::doc it_works"),
            ("a".into(), vec!["--test".into(), "doc".into()])
        );
    }

    #[test]
    fn toml_strings_are_escaped() {
        assert_eq!(toml_str(OsStr::new("/a \"b\"\\c")), r#""/a \"b\"\\c""#);
    }
}
