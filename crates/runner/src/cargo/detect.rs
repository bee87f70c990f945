//! Whether a directory is a cargo workspace and which runner it gets (plain `cargo test`, the
//! command every cargo project declares, unless the project declares nextest), where cargo is,
//! and what the built test targets hold that changes how they run: targets without libtest's
//! harness (from their manifests) and libraries with doc examples.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{diag, manifest, Cargo};

/// A Rust workspace at `root`, run as its project runs it: `cargo test`, or nextest where the
/// project declares it ([`declares_nextest`]) and `cargo-nextest` is installed.
///
/// nextest is not a drop-in for `cargo test`: it runs each test in a process of its own, so
/// tests that share process state (a global set once, a logger initialised in every test, a
/// test that depends on another having run first) pass under one and fail under the other.
/// Only a project that declares nextest has said its tests are meant to run that way. Where
/// it declares nextest but nextest is not installed, `cargo test` is what a developer there
/// types, and what pith runs.
pub fn detect(root: &Path) -> Option<Cargo> {
    let markers = pith_model::ecosystem::RUST.root_markers;
    markers
        .iter()
        .any(|m| root.join(m).is_file())
        .then(|| Cargo::with_nextest(declares_nextest(root) && nextest_installed()))
}

/// nextest's own configuration file, relative to the Cargo workspace root.
pub const NEXTEST_CONFIG: &str = ".config/nextest.toml";

/// Whether the Cargo workspace at `root` declares nextest as its runner: nextest's repository
/// configuration ([`NEXTEST_CONFIG`]) is there.
pub fn declares_nextest(root: &Path) -> bool {
    root.join(NEXTEST_CONFIG).is_file()
}

/// Whether `cargo-nextest` is on PATH or in cargo's own bin directory (where cargo looks for
/// subcommands too). A file lookup, no process.
pub fn nextest_installed() -> bool {
    crate::on_path("cargo-nextest").is_some()
        || cargo_home().is_some_and(|h| crate::is_executable(&h.join("bin").join("cargo-nextest")))
}

pub(super) fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
}

pub(super) fn find_cargo() -> Option<PathBuf> {
    crate::on_path("cargo").or_else(|| {
        cargo_home()
            .map(|h| h.join("bin").join("cargo"))
            .filter(|p| crate::is_executable(p))
    })
}

/// The binary ids of the test binaries built (`artifacts`) whose manifests say
/// `harness = false`.
pub(super) fn harness_free(artifacts: &[diag::Artifact]) -> HashSet<String> {
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
pub(super) const DOC_SCAN_FILES: usize = 2000;

/// Whether a library of the workspace (one built for testing) may have doctests: its source
/// tree has a code fence, an indented code block in a doc comment, or docs included from a
/// file. A quick look that may say yes wrongly (that costs one `cargo test --doc`), never no.
pub(super) fn has_doc_examples(artifacts: &[diag::Artifact]) -> bool {
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

pub(super) fn doc_examples_under(dir: &Path, budget: &mut usize) -> bool {
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
pub(super) fn has_doc_example(src: &str) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
