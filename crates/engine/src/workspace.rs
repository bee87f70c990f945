//! Finds the workspace a command is about: the nearest ancestor with a project marker, climbing
//! further to the workspace root above a member project (a Cargo workspace's, above a member
//! crate). The markers and the workspace declarations are the ecosystems'
//! (`pith_model::ecosystem`).

use std::path::{Path, PathBuf};

use pith_model::ecosystem;

/// Why a command has no workspace to work on, each one clear line naming the fix.
#[derive(Debug, thiserror::Error)]
pub enum RootError {
    #[error("{0} is neither a directory nor a file")]
    NotADirectory(PathBuf),
    #[error(
        "no project at or above {0} (no .git, Cargo.toml, pyproject.toml, package.json, go.mod \
         or other project marker): run pith inside a project, or pass --root DIR"
    )]
    NoProject(PathBuf),
    #[error(
        "the project found from here is {0}, {1}: pith will not scan all of it; run pith inside \
         a project, or pass --root DIR"
    )]
    TooBroad(PathBuf, &'static str),
    #[error("{0} is {1}: pith will not scan all of it; name a project's directory instead")]
    Refused(PathBuf, &'static str),
}

/// Whether `dir` is a directory no project is taken to be unless named: the filesystem root
/// or the home directory (a `.git` of dotfiles there is not a project of tests).
pub fn too_broad(dir: &Path) -> Option<&'static str> {
    if dir.parent().is_none() {
        return Some("the filesystem root");
    }
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty())?;
    let home = Path::new(&home);
    let home = home.canonicalize().unwrap_or_else(|_| home.to_path_buf());
    (dir == home).then_some("your home directory")
}

/// The workspace root for `start`, if any ancestor (or `start` itself) has a marker.
pub fn find_root(start: &Path) -> Option<PathBuf> {
    let nearest = start.ancestors().find(|d| is_project_dir(d))?;
    for decl in ecosystem::ECOSYSTEMS.iter().filter_map(|e| e.workspace) {
        if nearest.join(decl.file).is_file() {
            // A member project: the workspace root above it is what its tool builds and where
            // paths in diagnostics are relative to.
            if let Some(ws) = nearest.ancestors().skip(1).find(|d| declares(d, decl)) {
                return Some(ws.to_path_buf());
            }
        }
    }
    Some(nearest.to_path_buf())
}

fn is_project_dir(dir: &Path) -> bool {
    ecosystem::root_markers().any(|m| dir.join(m).exists())
        || std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                e.path()
                    .extension()
                    .and_then(|x| x.to_str())
                    .is_some_and(ecosystem::is_root_marker_extension)
            })
}

/// Whether `dir`'s build file declares a workspace as `decl` says.
pub(crate) fn declares(dir: &Path, decl: ecosystem::WorkspaceLine) -> bool {
    std::fs::read_to_string(dir.join(decl.file))
        .is_ok_and(|s| s.lines().any(|l| l.trim() == decl.line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_messages_markers_are_markers() {
        for m in [
            ".git",
            "Cargo.toml",
            "pyproject.toml",
            "package.json",
            "go.mod",
        ] {
            assert!(ecosystem::root_markers().any(|r| r == m), "{m}");
        }
    }

    #[test]
    fn the_filesystem_root_is_too_broad() {
        assert_eq!(too_broad(Path::new("/")), Some("the filesystem root"));
        assert_eq!(too_broad(&std::env::temp_dir().join("x")), None);
    }

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
