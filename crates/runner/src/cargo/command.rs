//! How cargo is started and what it is asked: the caller's environment, less the one variable
//! that would hide what pith reads (`RUST_TEST_NOCAPTURE`), the test ids split into cargo's
//! target selection, never an option, and the spawn that hands stdout over line by line.

use std::path::Path;
use std::process::Command;

use pith_model::{Run, Status};

use crate::{Context, RunnerError};

/// One line telling how to get cargo.
pub(super) const CARGO_HINT: &str = "install Rust: https://rustup.rs";

/// Variables of the caller's shell taken out of cargo's environment, each because it would
/// hide what pith reads and cannot be undone on the command line: libtest leaves a failed
/// test's output (its panic) uncaptured, out of its `---- NAME stdout ----` block, when
/// `RUST_TEST_NOCAPTURE` is set. Capture decides where a test's output goes, never whether it
/// passes (the Rust rows of `crates/cli/tests/verdicts/` run a suite raw and under pith with it
/// set and compare).
///
/// Everything else is the caller's, as the tests would see it run by hand: `RUST_BACKTRACE`
/// and `RUST_LIB_BACKTRACE` (a test may read them or call `Backtrace::capture`), colour and
/// terminal variables, `CARGO_TERM_*` (cargo's own reporting is pinned by [`CARGO_CONFIG`]
/// instead, which the tests never see).
pub(super) const SCRUBBED_ENV: &[&str] = &["RUST_TEST_NOCAPTURE"];

/// cargo's own reporting, pinned on its command line where the caller's `CARGO_TERM_QUIET` or
/// `CARGO_TERM_VERBOSE` (or `[term]` in a cargo config) would change it: a quiet `cargo test`
/// hands libtest `--quiet` (one character a test, no names), a verbose one reshapes its
/// `Running` lines. A `--config` value outranks the environment and the config files, and
/// changes nothing a build or a test sees.
pub(super) const CARGO_CONFIG: &[&str] = &[
    "--config",
    "term.quiet=false",
    "--config",
    "term.verbose=false",
];

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
    pub(super) fn parse(id: &str) -> Option<TestId> {
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
    pub(super) fn is_whole(&self) -> bool {
        self.test.is_empty()
    }

    /// `pkg::doc <file - item (line N)>`: a doctest (a test target named `doc` has ordinary
    /// test names).
    pub(super) fn is_doc(&self) -> bool {
        self.binary.ends_with("::doc") && is_doctest_name(&self.test)
    }

    /// The package and cargo's target selection for this id's binary.
    pub(super) fn target(&self) -> (String, Vec<String>) {
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
pub(super) fn split_id(id: &str) -> Option<(&str, &str)> {
    let (binary, test) = id.split_once(' ')?;
    let ok = is_binary_id(binary) && !test.trim().is_empty() && !test.starts_with('-');
    ok.then_some((binary, test))
}

/// `pkg`, `pkg::target`, or `pkg::bin/NAME` (also `example/`, `bench/`): no dots, no other
/// slashes, so paths (`tests/a.test.js > x`) and Go import paths are never taken for one.
pub(super) fn is_binary_id(binary: &str) -> bool {
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
pub(super) fn is_doctest_name(name: &str) -> bool {
    name.contains(" - ") && name.contains("(line ")
}

/// cargo (or nextest) in the project's directory, in the caller's environment less
/// [`SCRUBBED_ENV`]. Backtraces are as the caller has them: pith's own need for callers' frames
/// is met after the run (`enrich`), never by changing what the tests see.
pub(super) fn command(cargo: &Path, ctx: &Context<'_>) -> Command {
    let mut cmd = crate::base_command(cargo, ctx.dir);
    set_env(&mut cmd);
    cmd
}

/// What pith changes in the caller's environment for cargo and the tests ([`SCRUBBED_ENV`]).
/// Colour is not among it: it is switched off on cargo's and nextest's command line.
pub(super) fn set_env(cmd: &mut Command) {
    for var in SCRUBBED_ENV {
        cmd.env_remove(var);
    }
}

/// Runs cargo, each stdout line handed to `lines` instead of kept; `Ok(Err(()))` when cargo
/// itself is gone (removed since it was found).
pub(super) fn spawn_lines(
    cmd: Command,
    ctx: &Context<'_>,
    cargo: &Path,
    lines: &mut dyn FnMut(&[u8]),
) -> Result<Result<crate::process::Captured, ()>, RunnerError> {
    spawned(
        crate::process::run_lines(cmd, ctx.deadline, ctx.cancel, lines),
        cargo,
    )
}

/// [`spawn_lines`] with stderr's lines among stdout's, in the order they were written.
pub(super) fn spawn_merged(
    cmd: Command,
    ctx: &Context<'_>,
    cargo: &Path,
    lines: &mut dyn FnMut(&[u8]),
) -> Result<Result<crate::process::Captured, ()>, RunnerError> {
    spawned(
        crate::process::run_lines_merged(cmd, ctx.deadline, ctx.cancel, lines),
        cargo,
    )
}

fn spawned(
    ran: std::io::Result<crate::process::Captured>,
    cargo: &Path,
) -> Result<Result<crate::process::Captured, ()>, RunnerError> {
    match ran {
        Ok(c) => Ok(Ok(c)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Err(())),
        Err(source) => Err(RunnerError::Spawn {
            program: cargo.display().to_string(),
            source,
        }),
    }
}

/// The answer when cargo is not installed.
pub(super) fn cargo_missing(runner: &str) -> Run {
    Run {
        status: Some(Status::RunnerMissing),
        hint: Some(CARGO_HINT.to_owned()),
        ..Run::new(runner)
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
}
