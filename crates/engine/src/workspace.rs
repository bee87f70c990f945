//! Finds the workspace a command is about: the nearest ancestor with a project marker, climbing
//! further to a Cargo workspace root when the nearest one is a member crate.

use std::path::{Path, PathBuf};

/// Files or directories whose presence makes a directory a project root.
const MARKERS: &[&str] = &[
    "Cargo.toml",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "pytest.ini",
    "tox.ini",
    "package.json",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "CMakeLists.txt",
    ".git",
];

/// Project files whose name varies: a .NET solution or project.
const MARKER_EXTENSIONS: &[&str] = &["sln", "csproj", "fsproj"];

/// The workspace root for `start`, if any ancestor (or `start` itself) has a marker.
pub fn find_root(start: &Path) -> Option<PathBuf> {
    let nearest = start.ancestors().find(|d| is_project_dir(d))?;
    if nearest.join("Cargo.toml").is_file() {
        // A member crate: the workspace root above it is what cargo builds and where paths
        // in diagnostics are relative to.
        if let Some(ws) = nearest.ancestors().skip(1).find(|d| is_cargo_workspace(d)) {
            return Some(ws.to_path_buf());
        }
    }
    Some(nearest.to_path_buf())
}

fn is_project_dir(dir: &Path) -> bool {
    MARKERS.iter().any(|m| dir.join(m).exists())
        || std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                e.path()
                    .extension()
                    .is_some_and(|x| MARKER_EXTENSIONS.iter().any(|m| x == *m))
            })
}

fn is_cargo_workspace(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("Cargo.toml"))
        .is_ok_and(|s| s.lines().any(|l| l.trim() == "[workspace]"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_marker_wins_and_members_climb_to_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("Cargo.toml"),
            "[workspace]\nmembers = [\"crates/a\"]\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("crates/a/src")).unwrap();
        std::fs::write(
            root.join("crates/a/Cargo.toml"),
            "[package]\nname = \"a\"\n",
        )
        .unwrap();
        assert_eq!(find_root(&root.join("crates/a/src")).as_deref(), Some(root));

        std::fs::create_dir_all(root.join("py/pkg")).unwrap();
        std::fs::write(root.join("py/pyproject.toml"), "").unwrap();
        assert_eq!(find_root(&root.join("py/pkg")), Some(root.join("py")));

        std::fs::create_dir_all(root.join("dotnet/src/App")).unwrap();
        std::fs::write(root.join("dotnet/App.sln"), "").unwrap();
        assert_eq!(
            find_root(&root.join("dotnet/src/App")),
            Some(root.join("dotnet"))
        );
    }
}
