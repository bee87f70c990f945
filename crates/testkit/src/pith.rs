//! Running the real `pith` binary the way every integration test does: one cache and one cargo
//! target dir for the whole harness, none of the caller's own `PITH_*` variables. The binary's
//! path is given by the test (`env!("CARGO_BIN_EXE_pith")` exists only in the pith package's
//! own tests).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::answer::{answer_of, strings, Answer};

/// The cache directory every test's `pith` shares (`XDG_CACHE_HOME`; a `PITH_CACHE_DIR` of the
/// caller's is removed).
pub fn harness_cache() -> PathBuf {
    std::env::temp_dir().join("pith-it-cache")
}

/// pith's base directory in every test's `pith`: [`harness_cache`]'s `pith/` (`XDG_CACHE_HOME`).
pub fn harness_base() -> PathBuf {
    harness_cache().join("pith")
}

/// Where the harness's `pith` keeps the state of the workspace at `root` (its database, run
/// lock, code index): the store's own answer, for tests that look inside.
pub fn state_dir(root: &Path) -> PathBuf {
    pith_store::state_path(&harness_base(), root)
}

/// One cargo target dir for every Rust fixture run by these tests, so each fixture builds once.
pub fn shared_target() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join("pith-it-target");
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
}

/// Variables of the caller's shell that change what a fixture's run prints, never its verdict,
/// kept out of every run the harness starts so that answers are the same on every machine: a
/// developer's `RUST_BACKTRACE=1` prints the backtraces pith otherwise gets by re-running a
/// few failures. pith leaves them to the tests; the tests about them set them explicitly.
pub const CALLERS_KNOBS: &[&str] = &["RUST_BACKTRACE", "RUST_LIB_BACKTRACE"];

/// `bin` with the harness's cache and nothing else set (the [`CALLERS_KNOBS`] unset): for
/// tests that build their own command line or environment.
pub fn pith_bare(bin: &str) -> Command {
    let mut c = Command::new(bin);
    c.env("XDG_CACHE_HOME", harness_cache())
        .env_remove(pith_store::CACHE_ENV);
    for k in CALLERS_KNOBS {
        c.env_remove(k);
    }
    c
}

/// Takes the [`CALLERS_KNOBS`] out of this test process's own environment, once, for adapter
/// tests, whose runners inherit it. (std's environment functions share one lock with every
/// spawn, so the other test threads see the variables either set or gone.)
pub fn without_callers_knobs() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for k in CALLERS_KNOBS {
            std::env::remove_var(k);
        }
    });
}

/// Removes the `PITH_*` variables the harness itself inherited (CI sets `PITH_SAMPLES`), so a
/// fixture that looks for pith's own variables in its tests' world sees only what pith set.
pub fn without_callers_pith_variables(cmd: &mut Command) {
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("PITH") {
            cmd.env_remove(k);
        }
    }
}

/// The `pith` binary at a path, and `pith test` run with it.
#[derive(Clone, Copy)]
pub struct Pith {
    pub bin: &'static str,
}

impl Pith {
    /// `pith test --root ROOT ARGS...` from `cwd`, with the harness's cache and cargo target dir.
    pub fn command(self, cwd: &Path, root: &Path, args: &[&str]) -> Command {
        let mut cmd = pith_bare(self.bin);
        cmd.arg("test")
            .arg("--root")
            .arg(root)
            .args(args)
            .current_dir(cwd)
            .env("CARGO_TARGET_DIR", shared_target());
        without_callers_pith_variables(&mut cmd);
        cmd
    }

    /// Runs `pith test --root ROOT ARGS...` from `cwd`.
    pub fn test_in(self, cwd: &Path, root: &Path, args: &[&str]) -> Answer {
        let out = self.command(cwd, root, args).output().expect("run pith");
        answer_of(out, root)
    }

    /// Runs `pith test --root ROOT ARGS...` from the root.
    pub fn test(self, root: &Path, args: &[&str]) -> Answer {
        self.test_in(root, root, args)
    }

    /// [`Pith::test`] with `env` set on top of the harness's environment and `unset` removed
    /// from it: the caller's environment is the tests', so it is set on pith's process only.
    pub fn test_with(
        self,
        root: &Path,
        args: &[&str],
        env: &[(&str, &str)],
        unset: &[&str],
    ) -> Answer {
        let mut cmd = self.command(root, root, args);
        for k in unset {
            cmd.env_remove(k);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        answer_of(cmd.output().expect("run pith"), root)
    }

    /// Re-runs the `index`th failure `first` shows, by its id (with `args` before it, e.g.
    /// `--runner`, and `unknown` ids after it): exactly that test runs, and fails again; the
    /// unknown ids are listed in `notFound`. Returns the id.
    pub fn assert_reruns_only(
        self,
        root: &Path,
        args: &[&str],
        first: &Answer,
        index: usize,
        unknown: &[&str],
    ) -> String {
        let id = first.failures()[index]["test"]
            .as_str()
            .unwrap_or_else(|| panic!("no failure {index}: {}", first.line))
            .to_owned();
        let again = self.test(root, &[args, &[id.as_str()], unknown].concat());
        assert_eq!(
            (again.status(), again.code, again.json["failed"].as_u64()),
            ("TestsFailed", 1, Some(1)),
            "{}",
            again.line
        );
        assert!(
            again.json.get("passed").is_none() && again.json.get("skipped").is_none(),
            "only the named test ran: {}",
            again.line
        );
        assert_eq!(again.failures()[0]["test"], id.as_str(), "{}", again.line);
        assert_eq!(
            sorted_strings(&again.json["notFound"]),
            sorted(unknown),
            "{}",
            again.line
        );
        id
    }

    /// Ids that name no test (with `args` before them): `TestsNotFound`, exit 1, each listed in
    /// `notFound` (in any order).
    pub fn assert_not_found(self, root: &Path, args: &[&str], ids: &[&str]) {
        let a = self.test(root, &[args, ids].concat());
        assert_eq!((a.status(), a.code), ("TestsNotFound", 1), "{}", a.line);
        assert_eq!(
            sorted_strings(&a.json["notFound"]),
            sorted(ids),
            "{}",
            a.line
        );
    }
}

fn sorted_strings(v: &serde_json::Value) -> Vec<&str> {
    let mut out = strings(v);
    out.sort_unstable();
    out
}

fn sorted<'a>(ids: &[&'a str]) -> Vec<&'a str> {
    let mut out = ids.to_vec();
    out.sort_unstable();
    out
}
