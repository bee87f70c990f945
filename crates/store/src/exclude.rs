//! Keeps `.pith/` out of git through the repository's own `.git/info/exclude` (never the
//! project's `.gitignore`): one anchored line, added once, best effort.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Adds `/<path to root>/.pith/` to the enclosing repository's `info/exclude` unless a line
/// already says it (or excludes every `.pith/`). Does nothing outside a git repository;
/// failures are silent (a missing line costs an untracked directory in `git status`, not
/// correctness). The code index, which also writes into `.pith/`, calls it too.
pub fn keep_out_of_git(root: &Path) {
    let Some((top, git_dir)) = repository(root) else {
        return;
    };
    let Ok(rel) = root.strip_prefix(&top) else {
        return;
    };
    let mut pattern = String::from("/");
    for part in rel.components() {
        pattern.push_str(&part.as_os_str().to_string_lossy());
        pattern.push('/');
    }
    pattern.push_str(crate::STATE_DIR);
    pattern.push('/');
    let info = git_dir.join("info");
    let file = info.join("exclude");
    // A link here (an unpacked archive can carry one; a clone cannot) is not written through.
    let link = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
    if link(&info) || link(&file) {
        return;
    }
    let existing = std::fs::read_to_string(&file).unwrap_or_default();
    if existing.lines().any(|l| {
        let l = l.trim();
        l == pattern || l == pattern.trim_end_matches('/') || l == ".pith/" || l == ".pith"
    }) {
        return;
    }
    if std::fs::create_dir_all(&info).is_err() {
        return;
    }
    use std::os::unix::fs::OpenOptionsExt;
    let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&file)
    else {
        return;
    };
    let sep = if existing.is_empty() || existing.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    let _ = writeln!(f, "{sep}{pattern}");
}

/// The work tree's top directory and the directory holding its `info/exclude` (the common
/// git directory, for a linked work tree).
pub(crate) fn repository(root: &Path) -> Option<(PathBuf, PathBuf)> {
    let top = root.ancestors().find(|d| d.join(".git").exists())?;
    let dot_git = top.join(".git");
    if dot_git.is_dir() {
        return Some((top.to_path_buf(), dot_git));
    }
    // A linked work tree or submodule: `.git` is a file saying `gitdir: <dir>`.
    let text = std::fs::read_to_string(&dot_git).ok()?;
    let dir = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    let git_dir = top.join(dir);
    let common = match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(c) => git_dir.join(c.trim()),
        Err(_) => git_dir,
    };
    Some((top.to_path_buf(), common))
}
