//! Rust: the project's own command, `cargo test` (libtest's stable human output), run as it
//! runs in the project's directory — no `--workspace`: a virtual manifest's `default-members`
//! (else every member), a root package alone unless `default-members` says more — or
//! cargo-nextest (its JUnit report) where the workspace declares it (`.config/nextest.toml`,
//! see `detect`) or `--runner nextest` asks for it. Both paths read cargo's JSON messages for
//! compile errors and for the test binaries' ids, and both name tests the way nextest does:
//! `<binary_id> <test_name>`, where the binary id is `pkg` (lib or proc-macro), `pkg::bin/NAME`,
//! `pkg::NAME` (`tests/NAME.rs`), `pkg::example/NAME` or `pkg::bench/NAME`, and the test name
//! is libtest's path (`tests::it_works`).
//!
//! Doctests: nextest does not run them, so after a nextest run the doctests of the packages it
//! ran run through `cargo test --doc` (when such a library has doc examples) into the same
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
//! libtest, which colours only a terminal), and so is cargo's own quiet or verbose reporting
//! (`--config term.*`); backtraces are as the caller set them (`enrich` re-runs a few panicking
//! tests with backtraces for their callers' frames when the run printed none). Removed: only
//! `RUST_TEST_NOCAPTURE` (see `command`), and under nextest the `NEXTEST_*` variables that
//! reshape its reporting (see `nextest`). pith's nextest profile carries the project's own
//! (`profile`).
//!
//! Everything cargo prints is read in bounded memory: stdout line by line, each failed test's
//! output as its head and tail (its panic comes last), nextest's report through [`xmlcut`].
//!
//! Layout: `detect` (the workspace, the runner, harness-less targets, doc examples), `command`
//! (cargo's environment, ids into target selections), `profile` (pith's nextest profile),
//! `nextest_version` (the nextest versions pith supports, checked before a run), and
//! two drives, `plain` and `nextest`, each running its runner and judging its output; `judge`
//! holds what both judge alike (a failed test from its output, compile errors, tails) and
//! `parse` the small readers they share, beside the format readers `libtest`, `diag`, `panic`,
//! `xmlcut` and `manifest`.

mod capture;
mod command;
mod detect;
pub(crate) mod diag;
mod doctest;
mod enrich;
mod judge;
pub(crate) mod libtest;
mod manifest;
pub(crate) mod nextest;
mod nextest_version;
pub(crate) mod panic;
mod parse;
mod plain;
mod profile;
pub(crate) mod xmlcut;

use std::path::Path;

use pith_model::{ExitMeaning, Run, Status};

use crate::{tails, Adapter, Context, RunnerError};

use command::{cargo_missing, TestId};
use detect::{find_cargo, has_doc_examples};

pub use detect::{declares_nextest, detect, nextest_installed, NEXTEST_CONFIG};
pub use diag::{binary_id, TargetKind};

/// One line telling how to get nextest, when it was asked for by name.
const NEXTEST_INSTALL_HINT: &str = "install cargo-nextest: cargo install cargo-nextest --locked";

/// cargo in a workspace with a `Cargo.toml` at its root.
#[derive(Debug, Clone)]
pub struct Cargo {
    nextest: bool,
}

impl Cargo {
    /// An adapter that runs tests through nextest (`true`) or plain `cargo test` (`false`).
    pub fn with_nextest(nextest: bool) -> Self {
        Cargo { nextest }
    }
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

    /// Files of a target `cargo test` runs (see [`manifest::Targets::runs_tests_of`]), each judged by
    /// the manifest of the package holding it.
    fn test_files(
        &self,
        root: &Path,
        _project: Option<&str>,
        files: &[String],
    ) -> Option<Vec<String>> {
        let mut manifests: std::collections::HashMap<std::path::PathBuf, manifest::Targets> =
            Default::default();
        let runs = |f: &&String| {
            let file = root.join(f.as_str());
            let package = file
                .ancestors()
                .skip(1)
                .take_while(|d| d.starts_with(root))
                .find(|d| d.join("Cargo.toml").is_file());
            let Some(package) = package else {
                return true;
            };
            let rel = file.strip_prefix(package).ok();
            let targets = manifests
                .entry(package.to_path_buf())
                .or_insert_with(|| manifest::Targets::read(package));
            rel.is_some_and(|r| targets.runs_tests_of(&r.to_string_lossy().replace('\\', "/")))
        };
        Some(files.iter().filter(runs).cloned().collect())
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
        if self.nextest {
            if let Err(hint) = nextest_version::check(ctx.cache, ctx.deadline) {
                return Ok(Run {
                    status: Some(Status::RunnerMissing),
                    hint: Some(hint),
                    ..Run::new(self.name())
                });
            }
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
        (Some(a), Some(b)) => Some(tails::tail(&format!("{a}\n{b}"))),
        (a, b) => a.or(b),
    };
    run.absorb(part);
    run.tail = tail;
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
