//! Gives `pith --version` the commit it was built from: `PITH_VERSION` is the package version,
//! followed by the short hash of the checkout's `HEAD` when pith is built from a git checkout
//! (`0.1.0 (cd78beb12)`), or the version alone when there is no git (a source tarball, a
//! crates.io download). Re-runs only when `HEAD` moves (the `HEAD` file and the branch it
//! names, loose or packed), not on every edit, so the edit loop never rebuilds for it. Also
//! links pith at a fixed address on Linux ([`not_position_independent`]).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    not_position_independent();
    // A packager that builds outside the checkout can name the commit itself.
    println!("cargo:rerun-if-env-changed=PITH_COMMIT");
    let version = std::env::var("CARGO_PKG_VERSION").expect("cargo sets it");
    let commit = std::env::var("PITH_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(head_commit);
    match commit {
        Some(c) => println!("cargo:rustc-env=PITH_VERSION={version} ({c})"),
        None => println!("cargo:rustc-env=PITH_VERSION={version}"),
    }
}

/// pith is started dozens of times an hour and most of its answers take a few milliseconds, so
/// its start counts. As a position-independent executable it spent 0.3 ms of each start
/// (1.53 against 1.25 ms for `pith --version`, 300 runs each) relocating 26,748 addresses in
/// its tables (the grammars', clap's, the adapters' registries) and copying the pages they sit
/// on; linked at a fixed address, it has 236 left. The cost is address-space randomization of
/// pith's own code, the C it links in included (tree-sitter's grammars, SQLite); the system's
/// libraries keep theirs. pith reads the workspace it is run in, never the network.
fn not_position_independent() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}

/// `HEAD`'s short hash, when this crate is a tracked part of a git checkout (not merely
/// unpacked somewhere inside another repository); watches what moves `HEAD`.
fn head_commit() -> Option<String> {
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    git(&dir, &["ls-files", "--error-unmatch", "Cargo.toml"])?;
    let commit = git(&dir, &["rev-parse", "--short=9", "HEAD"])?;
    // `HEAD` itself (a worktree has its own) and the ref it names, in the common directory.
    let git_dir = PathBuf::from(git(&dir, &["rev-parse", "--absolute-git-dir"])?);
    let common = git(&dir, &["rev-parse", "--git-common-dir"]).map(|c| dir.join(c))?;
    let head = git_dir.join("HEAD");
    watch(&head);
    if let Some(name) = std::fs::read_to_string(&head)
        .ok()
        .and_then(|h| h.strip_prefix("ref: ").map(|r| r.trim().to_owned()))
    {
        watch(&common.join(name));
        watch(&common.join("packed-refs"));
    }
    Some(commit)
}

/// A path cargo should watch; one that does not exist is left out (cargo takes a missing path
/// as changed and would re-run the script on every build).
fn watch(path: &Path) {
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let s = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !s.trim().is_empty()).then(|| s.trim().to_owned())
}
