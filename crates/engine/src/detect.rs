//! Finds every project of every ecosystem under the workspace root, so no suite is left unrun:
//! sibling packages with no marker above them, Go modules side by side, a nested Cargo
//! workspace, a Python package beside a Rust crate. A project nested in one its ecosystem's
//! runner already runs (a Cargo member, a Maven module, a package pytest recurses into) is not
//! run twice. A project whose declared command decides for the projects below it says so
//! (`Adapter::covers`): a JavaScript root covers the workspace packages its command runs or
//! leaves out on purpose (`npm test -w a` leaves `b` out: it is not run on its own either),
//! and those its own runners search (jest and vitest search the whole tree); a package no part
//! of the root's command reaches runs on its own, so a root cannot hide it.

use std::path::{Path, PathBuf};

use pith_model::ecosystem::{self, Nesting};
use pith_runner::Adapter;

use crate::workspace::declares;

/// How deep below the root projects are looked for: deeper ones are generated or vendored far
/// more often than they are a suite of the workspace's.
const MAX_DEPTH: usize = 6;

/// A project found, with the adapter that runs it.
pub(crate) struct Found {
    /// Absolute.
    pub dir: PathBuf,
    /// Workspace-relative; `None` at the root.
    pub rel: Option<String>,
    pub adapter: Box<dyn Adapter>,
}

/// Every project under `root`, the root's first, then by path; `only` keeps one runner.
pub(crate) fn projects(root: &Path, only: Option<&str>) -> Vec<Found> {
    let mut found: Vec<Found> = Vec::new();
    for dir in project_dirs(root) {
        // Below a runner that runs every file (Bazel's `//...`) whatever would be found is
        // its own already: nothing to detect there, where detecting may start a process (a
        // Python directory without pytest's configuration asks its interpreter for pytest).
        if found
            .iter()
            .any(|f| runs_every_file(f.adapter.name()) && dir.starts_with(&f.dir))
        {
            continue;
        }
        let rel = dir
            .strip_prefix(root)
            .ok()
            .map(|r| r.to_string_lossy().into_owned())
            .filter(|r| !r.is_empty());
        let adapters = if rel.is_none() {
            pith_runner::detect(&dir, only)
        } else {
            pith_runner::detect_nested(&dir, only)
        };
        for adapter in adapters {
            if found.iter().any(|f| {
                dir.starts_with(&f.dir)
                    && f.adapter
                        .covers(adapter.name(), &dir)
                        .unwrap_or_else(|| covers(f.adapter.name(), &f.dir, adapter.name(), &dir))
            }) {
                continue;
            }
            found.push(Found {
                dir: dir.clone(),
                rel: rel.clone(),
                adapter,
            });
        }
    }
    found
}

/// The projects a run runs: every one found, or the named runner's; an unknown runner, or
/// none found, is the user's error, one line.
pub(crate) fn select_runners(
    root: &Path,
    only: Option<&str>,
) -> Result<Vec<Found>, crate::EngineError> {
    if let Some(name) = only.filter(|n| !pith_runner::RUNNER_NAMES.contains(n)) {
        return Err(crate::EngineError::UnknownRunner(name.to_owned()));
    }
    let found = projects(root, only);
    if !found.is_empty() {
        return Ok(found);
    }
    let all = projects(root, None);
    match only {
        Some(name) if !all.is_empty() => Err(crate::EngineError::RunnerNotDetected {
            name: name.to_owned(),
            root: root.to_path_buf(),
            detected: names_of(&all).join(", "),
        }),
        _ => Err(crate::EngineError::NoRunner(root.to_path_buf())),
    }
}

/// The names of the runners found, each once, in the order found.
pub(crate) fn names_of(found: &[Found]) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for f in found {
        if !names.contains(&f.adapter.name()) {
            names.push(f.adapter.name());
        }
    }
    names
}

/// Directories to look for projects in: the root, then every directory below it that the
/// workspace walks see (ignores honoured, and the one walk filter's `excluded_dir`: version
/// control, dependency trees, generated directories, the output beside a build file) and no
/// ecosystem rules out as a place projects keep data or tools rather than suites (Go's
/// `testdata`, test fixtures, examples, cargo-fuzz's `fuzz/` crate, whose targets need a
/// nightly toolchain and run under a fuzzer, not a test runner), breadth first and sorted, so
/// an ancestor comes before what it may cover.
fn project_dirs(root: &Path) -> Vec<PathBuf> {
    let walk = ignore::WalkBuilder::new(root)
        .max_depth(Some(MAX_DEPTH))
        .hidden(true)
        .parents(true)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(true)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| {
            e.depth() == 0
                || (e.file_type().is_some_and(|t| t.is_dir())
                    && !ecosystem::is_not_searched(&e.file_name().to_string_lossy())
                    && !pith_store::filter::excluded_dir(e.path()))
        })
        .build();
    let mut dirs: Vec<(usize, PathBuf)> = walk
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_dir()))
        .map(|e| (e.depth(), e.into_path()))
        .collect();
    dirs.sort();
    dirs.into_iter().map(|(_, d)| d).collect()
}

/// Runner families (the ecosystem's id): one family's runner at a directory runs the family's
/// projects below it.
fn family(runner: &str) -> &str {
    ecosystem::by_runner(runner).map_or(runner, |e| e.id)
}

pub(crate) use ecosystem::runs_every_file;

/// Whether the runner `outer` at `outer_dir` already runs what `inner` found at `dir`, as
/// the family's descriptor says ([`ecosystem::Nesting`]). (Below a runner that runs every
/// file nothing is detected at all: see [`projects`].)
fn covers(outer: &str, outer_dir: &Path, inner: &str, dir: &Path) -> bool {
    if family(outer) != family(inner) || !dir.starts_with(outer_dir) {
        return false;
    }
    let Some(eco) = ecosystem::by_runner(inner) else {
        return true;
    };
    match eco.nesting {
        Nesting::Own => false,
        Nesting::FamilyButWorkspaces => !eco.workspace.is_some_and(|w| declares(dir, w)),
        Nesting::Family | Nesting::Everything => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn found(root: &Path) -> Vec<(String, Option<String>)> {
        projects(root, None)
            .into_iter()
            .map(|f| (f.adapter.name().to_owned(), f.rel))
            .collect()
    }

    #[test]
    fn sibling_projects_without_a_marker_above_all_run() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        write(root, "a/pytest.ini", "[pytest]\n");
        write(root, "a/test_a.py", "def test_a(): pass\n");
        write(root, "b/tests/test_b.py", "def test_b(): pass\n");
        write(root, "svc/one/go.mod", "module one\n");
        write(root, "svc/two/go.mod", "module two\n");
        let f = found(root);
        assert!(f.contains(&("pytest".into(), Some("a".into()))), "{f:?}");
        assert!(f.contains(&("pytest".into(), Some("b".into()))), "{f:?}");
        assert!(f.contains(&("go".into(), Some("svc/one".into()))), "{f:?}");
        assert!(f.contains(&("go".into(), Some("svc/two".into()))), "{f:?}");
    }

    #[test]
    fn a_bazel_workspace_runs_every_project_inside_it() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        write(root, "WORKSPACE", "workspace(name = \"w\")\n");
        write(root, "pyproject.toml", "[project]\nname = \"w\"\n");
        write(root, "py/tests/test_a.py", "def test_a(): pass\n");
        write(root, "go/go.mod", "module m\n");
        write(
            root,
            "rs/Cargo.toml",
            "[workspace]\n[package]\nname = \"x\"\n",
        );
        assert_eq!(found(root), vec![("bazel".to_owned(), None)]);
        // `--runner` still reaches one of them alone.
        let only: Vec<String> = projects(root, Some("pytest"))
            .into_iter()
            .map(|f| f.adapter.name().to_owned())
            .collect();
        assert_eq!(only, ["pytest"]);
        // Beside a Bazel workspace in a subdirectory, the rest of the tree is not its.
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        write(root, "bz/MODULE.bazel", "module(name = \"bz\")\n");
        write(root, "bz/py/pytest.ini", "[pytest]\n");
        write(root, "svc/go.mod", "module svc\n");
        let f = found(root);
        assert!(f.contains(&("bazel".into(), Some("bz".into()))), "{f:?}");
        assert!(f.contains(&("go".into(), Some("svc".into()))), "{f:?}");
        assert!(!f.iter().any(|(r, _)| r == "pytest"), "{f:?}");
    }

    #[test]
    fn nested_projects_a_runner_already_runs_are_not_run_twice() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        write(
            root,
            "Cargo.toml",
            "[workspace]\nmembers = [\"crates/a\"]\n",
        );
        write(root, "crates/a/Cargo.toml", "[package]\nname = \"a\"\n");
        write(
            root,
            "tools/x/Cargo.toml",
            "[workspace]\n[package]\nname = \"x\"\n",
        );
        write(root, "conftest.py", "");
        write(root, "pkg/sub/conftest.py", "");
        write(root, "pkg/sub/test_s.py", "");
        write(root, "go.mod", "module m\n");
        write(root, "inner/go.mod", "module m/inner\n");
        // Data, not suites.
        write(root, "testdata/x/go.mod", "module x\n");
        write(root, "tests/fixtures/p/pytest.ini", "");
        write(root, "examples/demo/pytest.ini", "");
        let f = found(root);
        let rust: Vec<_> = f.iter().filter(|(n, _)| family(n) == "rust").collect();
        assert_eq!(rust.len(), 2, "{f:?}");
        assert_eq!(rust[1].1.as_deref(), Some("tools/x"));
        assert_eq!(f.iter().filter(|(n, _)| n == "pytest").count(), 1, "{f:?}");
        let go: Vec<_> = f.iter().filter(|(n, _)| n == "go").collect();
        assert_eq!(go.len(), 2, "{f:?}");
        assert_eq!(go[1].1.as_deref(), Some("inner"));
    }

    #[test]
    fn a_javascript_root_covers_what_its_declared_command_runs() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        write(
            root,
            "packages/a/package.json",
            r#"{"scripts":{"test":"jest"}}"#,
        );
        write(
            root,
            "packages/b/package.json",
            r#"{"scripts":{"test":"node --test"}}"#,
        );
        let root_script = |test: &str| {
            write(
                root,
                "package.json",
                &format!(r#"{{"workspaces":["packages/*"],"scripts":{{"test":"{test}"}}}}"#),
            );
            found(root)
        };
        // The root runs every package: they are its.
        assert_eq!(
            root_script("npm test --workspaces"),
            [("jest".to_owned(), None)]
        );
        // It runs one on purpose: the other is left out, not run on its own.
        assert_eq!(root_script("npm test -w a"), [("jest".to_owned(), None)]);
        // Its own runner never reaches them: each package runs on its own.
        assert_eq!(
            root_script("node --test test/"),
            [
                ("node".to_owned(), None),
                ("jest".to_owned(), Some("packages/a".to_owned())),
                ("node".to_owned(), Some("packages/b".to_owned())),
            ]
        );
        // jest at the root searches the whole tree: it runs them (as `npm test` does).
        assert_eq!(root_script("tsc && jest"), [("jest".to_owned(), None)]);
    }

    #[test]
    fn members_cargo_test_leaves_out_are_not_projects_of_their_own() {
        // `cargo test` at the root runs the default members (a virtual manifest) or the root
        // package alone: a member it leaves out is the workspace's to leave out, not a project
        // pith would run beside it.
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        write(
            root,
            "Cargo.toml",
            "[workspace]\nmembers = [\"crates/core\", \"crates/bench\"]\ndefault-members = [\"crates/core\"]\n",
        );
        write(
            root,
            "crates/core/Cargo.toml",
            "[package]\nname = \"core\"\n",
        );
        write(
            root,
            "crates/bench/Cargo.toml",
            "[package]\nname = \"bench\"\n",
        );
        let f = found(root);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].1, None);
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        write(
            root,
            "Cargo.toml",
            "[package]\nname = \"app\"\n\n[workspace]\nmembers = [\"tools/gen\"]\n",
        );
        write(root, "tools/gen/Cargo.toml", "[package]\nname = \"gen\"\n");
        let f = found(root);
        assert_eq!(f.len(), 1, "{f:?}");
    }

    #[test]
    fn ignored_and_generated_directories_are_not_searched() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        write(root, ".gitignore", "scratch/\n");
        write(root, "scratch/go.mod", "module s\n");
        write(root, ".venv/pyvenv.cfg", "");
        write(root, "env2/pyvenv.cfg", "");
        write(root, "env2/lib/test_x.py", "");
        write(root, ".hidden/go.mod", "module h\n");
        // What a .NET build copied beside its project file, not ignored: the walk filter's.
        write(root, "tool/Tool.vbproj", "<Project/>");
        write(root, "tool/bin/Debug/web/go.mod", "module w\n");
        assert!(found(root).is_empty(), "{:?}", found(root));
    }

    #[test]
    fn a_python_file_deep_in_the_tree_is_not_a_project_without_tests() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        write(root, "Cargo.toml", "[package]\nname = \"r\"\n");
        // A maturin binding's pyproject.toml: no pytest configuration, no test files.
        write(
            root,
            "bindings/py/pyproject.toml",
            "[project]\nname = \"r\"\n",
        );
        let f = found(root);
        assert_eq!(f.len(), 1, "{f:?}");
    }
}
