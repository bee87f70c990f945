//! Which cargo-nextest `cargo nextest` starts, and whether pith supports its version: one
//! outside the range is answered RunnerMissing before anything is passed to it.
//!
//! The range is 0.9.143 to 0.9.x. nextest has published only the 0.9 series (0.9.0 is its first
//! release on crates.io), whose public API — options, machine-readable output, configuration
//! keys — is append-only: "within a version series (currently 0.9.x) … new options or keys may
//! be added, but existing keys will continue to be as they were"
//! (<https://nexte.st/docs/stability/>). So every 0.9.N release is what a minor release is
//! elsewhere, and the oldest one pith supports is the first to accept all it passes (nextest's
//! changelog, <https://nexte.st/CHANGELOG>): `--cargo-message-format` came in 0.9.123,
//! `junit.report-skipped` (the ignored tests pith counts as `cargo test` does) in 0.9.143.
//! Nothing pith passes differs across the range, so the version decides only whether pith
//! runs nextest at all. A 0.10 may drop what 0.9 accepts: it is outside the range until tested.
//!
//! The version costs a process (`cargo-nextest nextest --version`, a few ms) once per binary:
//! it is kept in pith's cache under the binary's path and file identity (size, modification
//! and change times, inode), so reinstalling nextest, even at the same path, asks again.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::detect::cargo_home;

/// The oldest 0.9.N pith supports (see the module documentation).
pub(super) const OLDEST_PATCH: u64 = 143;

/// The range as docs/runners.md and a refusal say it.
pub(super) const RANGE: &str = "0.9.143 to 0.9.x";

/// How long `--version` may take before the version is taken for unknown.
const ASK_LIMIT: Duration = Duration::from_secs(10);

/// `Err` with the install hint of a RunnerMissing answer when the cargo-nextest that `cargo
/// nextest` would start is outside pith's range. A version pith cannot read is taken for a
/// supported one: the run then says what nextest made of it.
pub(super) fn check(cache: &Path, deadline: Instant) -> Result<(), String> {
    let Some(bin) = binary() else {
        return Ok(());
    };
    match version(cache, &bin, deadline) {
        Some(v) if !in_range(&v) => Err(format!(
            "cargo-nextest {v} is installed; pith supports cargo-nextest {RANGE}: \
             cargo install cargo-nextest --version ^0.9.{OLDEST_PATCH} --locked"
        )),
        _ => Ok(()),
    }
}

/// Whether a version (`0.9.151`, `0.9.140-b.2`) is in pith's range.
fn in_range(version: &str) -> bool {
    let core = version.split(['-', '+']).next().unwrap_or(version);
    let mut parts = core.split('.').map(str::parse::<u64>);
    matches!(
        (parts.next(), parts.next(), parts.next()),
        (Some(Ok(0)), Some(Ok(9)), Some(Ok(p))) if p >= OLDEST_PATCH
    )
}

/// The `cargo-nextest` cargo starts for `cargo nextest`: the first on PATH, with cargo's own
/// bin directory searched first unless PATH names it (cargo's subcommand search, which lets
/// PATH order it: <https://github.com/rust-lang/cargo/issues/11020>).
fn binary() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    if let Some(home_bin) = cargo_home().map(|h| h.join("bin")) {
        if !dirs.contains(&home_bin) {
            dirs.insert(0, home_bin);
        }
    }
    dirs.into_iter()
        .map(|d| d.join("cargo-nextest"))
        .find(|p| crate::is_executable(p))
}

/// The version of the cargo-nextest at `bin`, from pith's cache or asked.
fn version(cache: &Path, bin: &Path, deadline: Instant) -> Option<String> {
    crate::kept_answer(cache, "nextest-version", bin, || ask(bin, deadline))
}

/// `cargo-nextest nextest --version`'s first line is `cargo-nextest 0.9.151 (6b3f99457
/// 2026-11-02)` in every 0.9 release.
fn ask(bin: &Path, deadline: Instant) -> Option<String> {
    let mut cmd = Command::new(bin);
    cmd.args(["nextest", "--version"]);
    let limit = deadline.min(Instant::now() + ASK_LIMIT);
    let cap = crate::process::run(cmd, limit, None).ok()?;
    if !cap.success() {
        return None;
    }
    parse(&cap.stdout_str())
}

fn parse(out: &str) -> Option<String> {
    let mut words = out.lines().next()?.split_whitespace();
    (words.next()? == "cargo-nextest").then_some(())?;
    let v = words.next()?;
    v.starts_with(|c: char| c.is_ascii_digit())
        .then(|| v.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_range_is_the_0_9_series_from_143() {
        for v in ["0.9.143", "0.9.151", "0.9.1000", "0.9.150-rc.1"] {
            assert!(in_range(v), "{v}");
        }
        for v in [
            "0.9.142",
            "0.9.55",
            "0.9.140-b.2",
            "0.10.0",
            "1.0.0",
            "0.8.200",
            "x",
        ] {
            assert!(!in_range(v), "{v}");
        }
    }

    #[test]
    fn the_version_line_is_read() {
        assert_eq!(
            parse("cargo-nextest 0.9.151 (6b3f99457 2026-11-02)\nrelease: 0.9.151\n").as_deref(),
            Some("0.9.151")
        );
        assert_eq!(parse("cargo-nextest-0.9\n"), None);
        assert_eq!(parse("error: unknown\n"), None);
    }

    #[test]
    fn a_version_is_asked_once_per_binary() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("cargo-nextest");
        let count = dir.path().join("count");
        let script = |v: &str| {
            format!(
                "#!/bin/sh\necho x >> '{}'\necho 'cargo-nextest {v} (abc 2026-01-01)'\n",
                count.display()
            )
        };
        std::fs::write(&bin, script("0.9.140")).unwrap();
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        let cache = dir.path().join("cache");
        let deadline = Instant::now() + Duration::from_secs(30);
        let asked = || std::fs::read_to_string(&count).unwrap().lines().count();
        assert_eq!(version(&cache, &bin, deadline).as_deref(), Some("0.9.140"));
        assert_eq!(version(&cache, &bin, deadline).as_deref(), Some("0.9.140"));
        assert_eq!(asked(), 1);
        // Reinstalled at the same path: asked again.
        std::thread::sleep(Duration::from_millis(20));
        let tmp = dir.path().join("new");
        std::fs::write(&tmp, script("0.9.151")).unwrap();
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::rename(&tmp, &bin).unwrap();
        assert_eq!(version(&cache, &bin, deadline).as_deref(), Some("0.9.151"));
        assert_eq!(asked(), 2);
    }
}
