//! Rust: cargo-nextest (JUnit report) when installed, else `cargo test` (libtest's stable
//! human output). Both paths read cargo's JSON messages for compile errors and for the test
//! binaries' ids, and both name tests the way nextest does: `<binary_id> <test_name>`, where the
//! binary id is `pkg` (lib or proc-macro), `pkg::bin/NAME`, `pkg::NAME` (`tests/NAME.rs`),
//! `pkg::example/NAME` or `pkg::bench/NAME`, and the test name is libtest's path
//! (`tests::it_works`).
//!
//! Doctests: nextest does not run them, so after a nextest run the workspace's doctests run
//! through `cargo test --doc` (when a library of the workspace has doc examples) into the same
//! answer, as plain `cargo test` would run them; they are named `pkg::doc <libtest name>`
//! (`pkg::doc src/lib.rs - add (line 3)`) and re-run with `cargo test --doc`.
//!
//! `harness = false` targets: such a binary is one test, named by its binary id
//! (`pkg::NAME`), unless it prints libtest's output itself. nextest runs only what a binary
//! lists; one that lists nothing runs through `cargo test --test NAME` after nextest, as plain
//! `cargo test` would run it.
//!
//! Exit codes are evidence (`Run::exit`): cargo's and nextest's documented codes, checked
//! against the records by `Run::status`.
//!
//! The environment is the caller's, so tests see what they would see run by hand: colour is
//! switched off on the command line (`--color never`; cargo passes no colour option to
//! libtest, which colours only a terminal). pith sets `RUST_BACKTRACE=0` in the run (`enrich`
//! then re-runs a few panicking tests with backtraces for their callers' frames) and removes
//! only what would change the output it reads (`NEXTEST_*`, `RUST_TEST_NOCAPTURE`, ...).
//!
//! Everything cargo prints is read in bounded memory: stdout line by line, each failed test's
//! output as its head and tail (its panic comes last), nextest's report through [`xmlcut`].

mod capture;
pub(crate) mod diag;
mod enrich;
pub(crate) mod libtest;
mod manifest;
pub(crate) mod nextest;
pub(crate) mod panic;
mod plain;
pub(crate) mod xmlcut;

use std::collections::HashSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use pith_model::{BuildError, ExitMeaning, Failure, Frame, Run, Status};

use crate::{text, Adapter, Context, RunnerError};

pub use diag::{binary_id, TargetKind};

/// One line telling how to get cargo.
const CARGO_HINT: &str = "install Rust: https://rustup.rs";

/// One line telling how to get nextest, when it was asked for by name.
const NEXTEST_INSTALL_HINT: &str = "install cargo-nextest: cargo install cargo-nextest --locked";

/// Variables of the caller's shell that would change what cargo or libtest print where pith
/// reads it (uncaptured test output, terse or verbose reporting), on top of every `NEXTEST_*`
/// one. (`RUST_LIB_BACKTRACE` would make `Backtrace::capture` pay for symbolizing where pith
/// turned backtraces off.)
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
    let markers = pith_model::ecosystem::RUST.root_markers;
    markers
        .iter()
        .any(|m| root.join(m).is_file())
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

    /// `<binary_id> <test_name>` (binary ids never contain a space), or `pkg::TARGET`, a
    /// whole binary without libtest's harness.
    fn claims(&self, id: &str) -> bool {
        TestId::parse(id).is_some()
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
            if !self.nextest {
                let (part, arts) = plain::run(ctx, &cargo, None)?;
                run.absorb(part);
                enrich::frames(ctx, &cargo, &mut run, &arts);
                return Ok(run);
            }
            let (part, arts, unseen) = nextest::run(ctx, &cargo, None)?;
            run.absorb(part);
            if goes_on(ctx, &run) && !unseen.is_empty() {
                // Harness-less binaries nextest could not list: run as cargo runs them.
                let ids: Vec<TestId> = unseen.iter().filter_map(|b| TestId::parse(b)).collect();
                let (part, _) = plain::run(ctx, &cargo, Some(&ids))?;
                merge(&mut run, part);
            }
            if goes_on(ctx, &run) && has_doc_examples(&arts) {
                merge(&mut run, plain::run_doc(ctx, &cargo)?);
            }
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
        // nextest runs neither doctests nor binaries as a whole: cargo does.
        let (by_cargo, other): (Vec<TestId>, Vec<TestId>) = if self.nextest {
            ids.into_iter().partition(|id| id.is_doc() || id.is_whole())
        } else {
            (Vec::new(), ids)
        };
        if !other.is_empty() {
            let (part, arts) = if self.nextest {
                let (part, arts, _) = nextest::run(ctx, &cargo, Some(&other))?;
                (part, arts)
            } else {
                plain::run(ctx, &cargo, Some(&other))?
            };
            run.absorb(part);
            artifacts.extend(arts);
        }
        if !by_cargo.is_empty() {
            if std::time::Instant::now() < ctx.deadline && run.status != Some(Status::TimedOut) {
                // Doctests are never enriched: their artifacts are not needed.
                let (part, _) = plain::run(ctx, &cargo, Some(&by_cargo))?;
                merge(&mut run, part);
            } else {
                // Never started: said, not dropped.
                run.status = Some(Status::TimedOut);
                run.running.extend(by_cargo.into_iter().map(|id| id.full));
            }
        }
        enrich::frames(ctx, &cargo, &mut run, &artifacts);
        Ok(run)
    }
}

/// Whether the nextest run leaves room, and reason, for the steps after it.
fn goes_on(ctx: &Context<'_>, run: &Run) -> bool {
    let stopped = matches!(
        run.status,
        Some(Status::TimedOut | Status::BuildFailed | Status::RunnerMissing)
    );
    !stopped
        && std::time::Instant::now() < ctx.deadline
        && !ctx
            .cancel
            .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
        && !crate::process::was_interrupted()
}

/// Adds a plain `cargo test` step to a nextest run: its tests ran without nextest's isolation
/// only because nextest cannot run them at all.
fn merge(run: &mut Run, mut part: Run) {
    part.lacks = None;
    let ran_some = part.passed + part.failed + part.skipped > 0;
    let theirs = part.exit;
    let before = run.exit;
    absorb_keeping_tails(run, part);
    // "No tests" was nextest's answer about its own selection, not about the tests the step ran.
    if before.is_some_and(|e| e.meaning == ExitMeaning::NoTests) && ran_some {
        run.exit = theirs;
    }
}

/// [`Run::absorb`], the raw tails of both kept (each explains a failure of its own: two
/// harness-less binaries that failed, a crash and a failing doctest).
fn absorb_keeping_tails(run: &mut Run, mut part: Run) {
    let tail = match (run.tail.take(), part.tail.take()) {
        (Some(a), Some(b)) => Some(text::tail(&format!("{a}\n{b}"))),
        (a, b) => a.or(b),
    };
    run.absorb(part);
    run.tail = tail;
}

/// The binary ids of the test binaries built (`artifacts`) whose manifests say
/// `harness = false`.
fn harness_free(artifacts: &[diag::Artifact]) -> HashSet<String> {
    let mut packages: Vec<(&str, &Path)> = Vec::new();
    for a in artifacts
        .iter()
        .filter(|a| a.test && a.executable.is_some())
    {
        if !packages.contains(&(a.package.as_str(), a.package_dir.as_path())) {
            packages.push((a.package.as_str(), a.package_dir.as_path()));
        }
    }
    let built: HashSet<&str> = artifacts
        .iter()
        .filter(|a| a.test && a.executable.is_some())
        .map(|a| a.binary_id.as_str())
        .collect();
    packages
        .into_iter()
        .flat_map(|(p, d)| manifest::harness_free(p, d))
        .filter(|id| built.contains(id.as_str()))
        .collect()
}

/// Source files looked at, at most, before assuming a library has doc examples.
const DOC_SCAN_FILES: usize = 2000;

/// Whether a library of the workspace (one built for testing) may have doctests: its source
/// tree has a code fence, an indented code block in a doc comment, or docs included from a
/// file. A quick look that may say yes wrongly (that costs one `cargo test --doc`), never no.
fn has_doc_examples(artifacts: &[diag::Artifact]) -> bool {
    let tested: HashSet<&Path> = artifacts
        .iter()
        .filter(|a| a.test)
        .map(|a| a.package_dir.as_path())
        .collect();
    let mut roots: Vec<&Path> = Vec::new();
    for a in artifacts {
        if a.doctest && tested.contains(a.package_dir.as_path()) {
            if let Some(dir) = a.src_path.as_deref().and_then(Path::parent) {
                if !roots.contains(&dir) {
                    roots.push(dir);
                }
            }
        }
    }
    let mut budget = DOC_SCAN_FILES;
    roots
        .into_iter()
        .any(|d| doc_examples_under(d, &mut budget))
}

fn doc_examples_under(dir: &Path, budget: &mut usize) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    for e in entries.flatten() {
        let path = e.path();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            if doc_examples_under(&path, budget) {
                return true;
            }
        } else if path.extension().is_some_and(|x| x == "rs") {
            if *budget == 0 {
                return true;
            }
            *budget -= 1;
            match std::fs::read(&path) {
                Ok(bytes) if has_doc_example(&String::from_utf8_lossy(&bytes)) => return true,
                Ok(_) => {}
                Err(_) => return true,
            }
        }
    }
    false
}

/// Whether Rust source may hold a doctest: a fence (```` ``` ```` or `~~~`), docs included
/// from a file (`#![doc = include_str!("../README.md")]`), or a doc comment line indented as a
/// Markdown code block.
fn has_doc_example(src: &str) -> bool {
    src.lines().any(|l| {
        let t = l.trim_start();
        if t.contains("```") || t.contains("~~~") {
            return true;
        }
        if t.contains("doc") && t.contains("include_str!") {
            return true;
        }
        ["///", "//!"].iter().any(|m| {
            t.strip_prefix(m)
                .is_some_and(|rest| rest.starts_with("     ") && !rest.trim().is_empty())
        })
    })
}

/// A requested test id, split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TestId {
    pub full: String,
    pub binary: String,
    pub test: String,
}

impl TestId {
    /// `<binary_id> <test_name>`, or a whole binary `pkg::TARGET` (never a bare `pkg`: too
    /// many ids of other runners look like one word).
    fn parse(id: &str) -> Option<TestId> {
        if let Some((binary, test)) = split_id(id) {
            return Some(TestId {
                full: id.to_owned(),
                binary: binary.to_owned(),
                test: test.to_owned(),
            });
        }
        (id.contains("::") && is_binary_id(id)).then(|| TestId {
            full: id.to_owned(),
            binary: id.to_owned(),
            test: String::new(),
        })
    }

    /// A whole binary (`pkg::TARGET`): runs as cargo runs it, arguments and all.
    fn is_whole(&self) -> bool {
        self.test.is_empty()
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

/// An id is never an option: neither part may begin with `-` (no package, target or test
/// name does), so nothing from an id reaches cargo, nextest or libtest as one.
fn split_id(id: &str) -> Option<(&str, &str)> {
    let (binary, test) = id.split_once(' ')?;
    let ok = is_binary_id(binary) && !test.trim().is_empty() && !test.starts_with('-');
    ok.then_some((binary, test))
}

/// `pkg`, `pkg::target`, or `pkg::bin/NAME` (also `example/`, `bench/`): no dots, no other
/// slashes, so paths (`tests/a.test.js > x`) and Go import paths are never taken for one.
fn is_binary_id(binary: &str) -> bool {
    let name = |s: &str| {
        !s.is_empty()
            && !s.starts_with('-')
            && s.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
    };
    match binary.split_once("::") {
        None => name(binary),
        Some((pkg, target)) => {
            let target = ["bin/", "example/", "bench/"]
                .iter()
                .find_map(|k| target.strip_prefix(k))
                .unwrap_or(target);
            name(pkg) && name(target)
        }
    }
}

/// rustdoc names doctests `FILE - ITEM (line N)`.
fn is_doctest_name(name: &str) -> bool {
    name.contains(" - ") && name.contains("(line ")
}

/// The file and line of a doctest's block, from its id (`pkg::doc src/lib.rs - add (line 3)`).
fn doctest_block(id: &str) -> Option<(&str, u32)> {
    let (_, name) = split_id(id)?;
    if !is_doctest_name(name) {
        return None;
    }
    let (file, _) = name.split_once(" - ")?;
    let line = name
        .rsplit_once("(line ")?
        .1
        .trim_end_matches(')')
        .trim()
        .parse()
        .ok()?;
    Some((file, line))
}

/// cargo (or nextest) in the project's directory with the environment pith sets, backtraces off:
/// symbolizing one costs ~200 ms per test process, and nextest runs each test in its own.
fn command(cargo: &Path, ctx: &Context<'_>) -> Command {
    let mut cmd = crate::base_command(cargo, ctx.dir);
    set_env(&mut cmd);
    cmd.env("RUST_BACKTRACE", "0");
    cmd
}

/// What pith changes in the caller's environment for cargo and the tests: only what would
/// change the output pith reads (`RUST_BACKTRACE` aside, which each caller sets). Colour is
/// not among it: it is switched off on cargo's and nextest's command line.
fn set_env(cmd: &mut Command) {
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("NEXTEST_") {
            cmd.env_remove(&k);
        }
    }
    for var in SCRUBBED_ENV {
        cmd.env_remove(var);
    }
}

/// Runs cargo, each stdout line handed to `lines` instead of kept; `Ok(Err(()))` when cargo
/// itself is gone (removed since it was found).
fn spawn_lines(
    cmd: Command,
    ctx: &Context<'_>,
    cargo: &Path,
    lines: &mut dyn FnMut(&[u8]),
) -> Result<Result<crate::process::Captured, ()>, RunnerError> {
    match crate::process::run_lines(cmd, ctx.deadline, ctx.cancel, lines) {
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
/// That root is the project's directory (`rust/` under a workspace of several projects) unless
/// it lies above it; the package directory's ancestors are tried when the file is not under the
/// project's directory.
fn locate(ctx: &Context<'_>, file: &str, line: u32, pkg_dir: Option<&Path>) -> Frame {
    if Path::new(file).is_absolute() {
        return ctx.paths.frame(file, line, None);
    }
    if ctx.dir.join(file).exists() {
        return ctx.paths.frame(file, line, Some(ctx.dir));
    }
    if let Some(dir) = pkg_dir {
        for base in dir.ancestors() {
            if base.join(file).exists() {
                return ctx.paths.frame(file, line, Some(base));
            }
        }
    }
    ctx.paths.frame(file, line, Some(ctx.dir))
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
    let note = should_panic_note(output);
    let Some(p) = panic::parse(output) else {
        if let Some((message, at)) = note {
            let mut frames: Vec<Frame> = at
                .map(|(file, line)| locate(ctx, &file, line, pkg_dir))
                .into_iter()
                .collect();
            ctx.paths.fill_code(&mut frames);
            return Failure {
                test,
                message: ctx.paths.scrub(&message),
                frames,
                ..Failure::default()
            };
        }
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
    let block = doctest_block(&test);
    if let Some((file, _)) = block {
        frames.retain(|f| !f.file.ends_with(file));
    }
    ctx.paths.fill_code(&mut frames);
    if let Some((file, line)) = block {
        // rustdoc numbers a doctest's panic within the program it wraps the block in (its
        // prelude lines included; rust-lang/rust#73469), not within the file: `src/lib.rs:7`
        // for a block at line 67. The block's own line is the place to open (its source line,
        // the fence, says nothing).
        frames.push(locate(ctx, file, line, pkg_dir));
    }
    // A `#[should_panic(expected)]` test that panicked otherwise: libtest's note says what was
    // wrong, the panic says where.
    let mut message = match note {
        Some((m, _)) => ctx.paths.scrub(&m),
        None => ctx.paths.scrub(&p.message),
    };
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

/// libtest's notes on a `#[should_panic]` test, as a message and the test's location when
/// given: `note: test did not panic as expected at src/lib.rs:16:8`, or `note: panic did not
/// contain expected string` followed by `panic message: ...` and `expected substring: ...`.
fn should_panic_note(output: &str) -> Option<(String, Option<(String, u32)>)> {
    let mut lines = output.lines().map(str::trim);
    while let Some(l) = lines.next() {
        if let Some(rest) = l.strip_prefix("note: test did not panic as expected") {
            let at = rest
                .trim()
                .strip_prefix("at ")
                .and_then(panic::parse_location);
            return Some(("test did not panic as expected".to_owned(), at));
        }
        if l.starts_with("note: panic did not contain expected string") {
            let parts: Vec<&str> = lines
                .by_ref()
                .take(2)
                .filter(|p| p.starts_with("panic message:") || p.starts_with("expected substring:"))
                .collect();
            let m = if parts.is_empty() {
                "panic did not contain expected string".to_owned()
            } else {
                format!(
                    "panic did not contain expected string ({})",
                    parts.join(", ")
                )
            };
            return Some((m, None));
        }
    }
    None
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
    crate::verdict::tail_of_lines(ctx.paths, s.lines(), |l| !is_progress(l))
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
mod doctest_tests {
    use super::*;

    #[test]
    fn a_doctest_is_located_at_its_block() {
        assert_eq!(
            doctest_block("itoa::doc src/lib.rs - Buffer (line 67)"),
            Some(("src/lib.rs", 67))
        );
        assert_eq!(
            doctest_block("a::doc src/x y.rs - m::f (line 3)"),
            Some(("src/x y.rs", 3))
        );
        assert_eq!(doctest_block("a tests::it_works"), None);
        assert_eq!(doctest_block("a::doc src/lib.rs - f (line x)"), None);
    }
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
        // A whole binary without libtest's harness.
        assert!(c.claims("hf::custom"));
        assert!(c.claims("hf::bin/tool"));
        assert!(!c.claims("hf"));
        assert!(!c.claims("tests/test_x.py::test_a[1 2]"));
        assert!(!c.claims("pkg.TestX"));
        assert!(!c.claims(" x"));
        assert!(!c.claims("a "));
        // An id is never an option.
        for id in [
            "-x",
            "--help",
            "-x y",
            "pkg --help",
            "pkg -x",
            "-p::x",
            "p::-x",
            "--exact a",
        ] {
            assert!(!c.claims(id), "{id}");
            assert!(TestId::parse(id).is_none(), "{id}");
        }
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
        // Whole binaries.
        assert_eq!(
            t("a::custom"),
            ("a".into(), vec!["--test".into(), "custom".into()])
        );
        assert!(TestId::parse("a::custom").unwrap().is_whole());
        assert!(!TestId::parse("a::custom x").unwrap().is_whole());
        assert!(!TestId::parse("a::doc src/lib.rs - f (line 3)")
            .unwrap()
            .is_whole());
    }

    #[test]
    fn doc_examples_are_spotted_cheaply() {
        assert!(has_doc_example(
            "/// ```\n/// assert!(true);\n/// ```\npub fn f() {}"
        ));
        assert!(has_doc_example("//! ~~~\n"));
        assert!(has_doc_example("#![doc = include_str!(\"../README.md\")]"));
        assert!(has_doc_example("///\n///     let x = 1;\npub fn f() {}"));
        assert!(!has_doc_example(
            "/// Adds.\n///\n/// - one\n///   two\npub fn f() {}"
        ));
        assert!(!has_doc_example(
            "pub fn double(x: u32) -> u32 {\n    x * 2\n}\n"
        ));
    }

    #[test]
    fn should_panic_notes_become_the_message() {
        let (m, at) =
            should_panic_note("note: test did not panic as expected at src/lib.rs:16:8").unwrap();
        assert_eq!(m, "test did not panic as expected");
        assert_eq!(at, Some(("src/lib.rs".into(), 16)));
        let out = "thread 't' panicked at src/lib.rs:13:26:\nbang\nnote: panic did not contain expected string\n      panic message: \"bang\"\n expected substring: \"boom\"\n";
        let (m, _) = should_panic_note(out).unwrap();
        assert_eq!(
            m,
            "panic did not contain expected string (panic message: \"bang\", expected substring: \"boom\")"
        );
        assert!(should_panic_note("thread 't' panicked at src/lib.rs:1:1:\nboom").is_none());
    }

    #[test]
    fn toml_strings_are_escaped() {
        assert_eq!(toml_str(OsStr::new("/a \"b\"\\c")), r#""/a \"b\"\\c""#);
    }
}
