//! Turns the paths runners print (absolute, `./`-relative to a package, `file://`) into
//! workspace-relative ones, and decides which frames are the project's own.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use pith_model::Frame;

use crate::text::strip_ansi;

/// Directories inside a workspace that hold other people's code or build output: frames there
/// are not the project's.
const FOREIGN_DIRS: &[&str] = &[
    "site-packages",
    "dist-packages",
    "node_modules",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "__pypackages__",
    "target",
    ".cargo",
];

/// Longest source line a frame carries.
pub const CODE_CHARS: usize = 80;

/// Maps paths into the workspace. Cheap to clone; build one per run.
#[derive(Debug, Clone)]
pub struct PathMap {
    root: PathBuf,
    /// Every spelling of the root that may appear in output, longest first, each ending in `/`.
    prefixes: Vec<String>,
    /// The lines of files [`PathMap::fill_code`] has read, shared by its calls (adapters call
    /// it per failure; a thousand failures in one file read it once).
    sources: Arc<Mutex<HashMap<String, Option<Lines>>>>,
}

/// A source file's lines (`None` in the map: unreadable).
type Lines = Arc<Vec<String>>;

impl PathMap {
    pub fn new(root: &Path) -> Self {
        let mut prefixes = Vec::new();
        let mut add = |p: &Path| {
            let mut s = p.to_string_lossy().into_owned();
            if !s.ends_with('/') {
                s.push('/');
            }
            if !prefixes.contains(&s) {
                prefixes.push(s);
            }
        };
        add(root);
        if let Ok(c) = root.canonicalize() {
            add(&c);
        }
        prefixes.sort_by_key(|p| std::cmp::Reverse(p.len()));
        PathMap {
            root: root.to_path_buf(),
            prefixes,
            sources: Arc::default(),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The workspace-relative form of `path`, if it lies inside the workspace. Relative paths
    /// are taken relative to `base` (a package directory) or, without one, to the root.
    pub fn relativize(&self, path: &str, base: Option<&Path>) -> Option<String> {
        let path = path.strip_prefix("file://").unwrap_or(path);
        let p = Path::new(path);
        let joined;
        let abs = if p.is_absolute() {
            p
        } else {
            joined = base.unwrap_or(&self.root).join(p);
            &joined
        };
        let normal = normalize(abs);
        let s = normal.to_string_lossy();
        self.prefixes
            .iter()
            .find_map(|pre| s.strip_prefix(pre.as_str()))
            .filter(|rest| !rest.is_empty())
            .map(str::to_owned)
    }

    /// Whether a workspace-relative path is the project's own code rather than a vendored
    /// environment or build output inside the workspace.
    pub fn is_project(rel: &str) -> bool {
        !rel.split('/').any(|c| FOREIGN_DIRS.contains(&c))
    }

    /// A frame from a raw path and line: project frames become workspace-relative.
    pub fn frame(&self, raw: &str, line: u32, base: Option<&Path>) -> Frame {
        match self.relativize(raw, base) {
            Some(rel) => Frame {
                project: Self::is_project(&rel),
                file: rel,
                line,
                code: None,
            },
            None => Frame {
                file: raw.to_owned(),
                line,
                code: None,
                project: false,
            },
        }
    }

    /// Fills in the source line of project frames that lack one, reading each file once per
    /// map. Lines longer than [`CODE_CHARS`] are left out: a long line costs more than it tells.
    pub fn fill_code(&self, frames: &mut [Frame]) {
        for f in frames
            .iter_mut()
            .filter(|f| f.project && f.code.is_none() && f.line > 0)
        {
            let lines = self.source_lines(&f.file);
            f.code = lines
                .as_deref()
                .and_then(|l| l.get(f.line as usize - 1))
                .map(|l| l.trim())
                .filter(|l| !l.is_empty() && l.chars().count() <= CODE_CHARS)
                .map(str::to_owned);
        }
    }

    /// The lines of a workspace-relative file, read on first use.
    fn source_lines(&self, file: &str) -> Option<Lines> {
        let mut sources = self.sources.lock().unwrap_or_else(|e| e.into_inner());
        sources
            .entry(file.to_owned())
            .or_insert_with(|| {
                let bytes = std::fs::read(self.root.join(file)).ok()?;
                Some(Arc::new(
                    String::from_utf8_lossy(&bytes)
                        .lines()
                        .map(str::to_owned)
                        .collect(),
                ))
            })
            .clone()
    }

    /// Free text (messages, diagnostics, tails) with colour removed and every absolute path
    /// inside the workspace made relative.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = strip_ansi(text).into_owned();
        for pre in &self.prefixes {
            if out.contains(pre.as_str()) {
                out = out.replace(pre.as_str(), "");
            }
            // The root itself, not followed by a separator (e.g. "rootdir: /ws").
            let bare = pre.trim_end_matches('/');
            if !bare.is_empty() && out.contains(bare) {
                out = replace_bare(&out, bare);
            }
        }
        out
    }
}

/// Replaces `root` where it stands as a whole path (followed by a non-path character) by `.`.
fn replace_bare(text: &str, root: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(root) {
        let after = &rest[i + root.len()..];
        let whole = after
            .chars()
            .next()
            .is_none_or(|c| !(c.is_alphanumeric() || "_-.".contains(c)));
        out.push_str(&rest[..i]);
        out.push_str(if whole { "." } else { root });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Lexical normalization: removes `.` and folds `..` without touching the file system (the
/// path may come from another machine).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> PathMap {
        PathMap::new(Path::new("/ws/proj"))
    }

    #[test]
    fn absolute_inside_root() {
        assert_eq!(
            map().relativize("/ws/proj/src/lib.rs", None).as_deref(),
            Some("src/lib.rs")
        );
        assert_eq!(map().relativize("/ws/projx/src/lib.rs", None), None);
        assert_eq!(map().relativize("/ws/proj", None), None);
    }

    #[test]
    fn package_relative_uses_base() {
        let base = Path::new("/ws/proj/crates/a");
        assert_eq!(
            map().relativize("./src/lib.rs", Some(base)).as_deref(),
            Some("crates/a/src/lib.rs")
        );
        assert_eq!(
            map().relativize("../b/src/x.rs", Some(base)).as_deref(),
            Some("crates/b/src/x.rs")
        );
        assert_eq!(
            map().relativize("src/lib.rs", None).as_deref(),
            Some("src/lib.rs")
        );
    }

    #[test]
    fn foreign_dirs_are_not_project() {
        assert!(PathMap::is_project("src/lib.rs"));
        assert!(!PathMap::is_project(
            ".venv/lib/python3.11/site-packages/_pytest/x.py"
        ));
        assert!(!PathMap::is_project("node_modules/jest/x.js"));
        let f = map().frame("/rustc/abc/library/core/src/panicking.rs", 7, None);
        assert!(!f.project);
        assert_eq!(f.file, "/rustc/abc/library/core/src/panicking.rs");
    }

    #[test]
    fn fill_code_reads_short_project_lines() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("a.py"),
            format!("x = 1\n    assert x == 2  \n{}\n", "y".repeat(200)),
        )
        .unwrap();
        let m = PathMap::new(dir.path());
        let mut frames = vec![
            Frame::project("a.py", 2),
            Frame::project("a.py", 3),
            Frame::project("a.py", 9),
        ];
        m.fill_code(&mut frames);
        assert_eq!(frames[0].code.as_deref(), Some("assert x == 2"));
        assert_eq!(frames[1].code, None);
        assert_eq!(frames[2].code, None);
    }

    #[test]
    fn scrub_relativizes_free_text() {
        let m = map();
        assert_eq!(
            m.scrub(
                "\u{1b}[31mE   File \"/ws/proj/tests/t.py\", line 3\u{1b}[0m; rootdir: /ws/proj"
            ),
            "E   File \"tests/t.py\", line 3; rootdir: ."
        );
        assert_eq!(m.scrub("/ws/projx/a"), "/ws/projx/a");
    }
}
