//! Turns the paths runners print (absolute, `./`-relative to a package, `file://`) into
//! workspace-relative ones, decides which frames are the project's own, and shortens every path
//! from outside the workspace to a stable short form, so no answer carries the machine's layout
//! (an interpreter's prefix, a home directory, a module cache, a temporary directory).
//!
//! The short forms of paths from elsewhere (the first rule that matches wins):
//!
//! | Where                          | Printed                                                          | Answered                           |
//! |--------------------------------|------------------------------------------------------------------|------------------------------------|
//! | Python packages                | `…/lib/python3.11/site-packages/_pytest/python.py`               | `site-packages/_pytest/python.py`  |
//! | (also `dist-packages`)         | `/usr/lib/python3/dist-packages/x/y.py`                          | `dist-packages/x/y.py`             |
//! | Node packages (the last one)   | `…/node_modules/a/node_modules/b/index.js`                       | `node_modules/b/index.js`          |
//! | Cargo registry                 | `~/.cargo/registry/src/index.crates.io-HASH/serde-1.0.1/src/de.rs` | `serde-1.0.1/src/de.rs`          |
//! | Cargo git checkouts            | `~/.cargo/git/checkouts/foo-HASH/REV/src/x.rs`                   | `foo@REV/src/x.rs`                 |
//! | Rust std                       | `/rustc/HASH/library/core/src/x.rs`                              | `library/core/src/x.rs`            |
//! | Go module cache (`GOMODCACHE`) | `/root/go/pkg/mod/github.com/x/y@v1.2.3/z.go`                    | `github.com/x/y@v1.2.3/z.go`       |
//! | Go root (`GOROOT`)             | `/usr/local/go/src/testing/testing.go`                           | `go/src/testing/testing.go`        |
//! | Maven repository               | `~/.m2/repository/org/x/a/1.2/a-1.2.jar`                         | `org.x:a:1.2/a-1.2.jar`            |
//! | Gradle cache                   | `…/caches/modules-2/files-2.1/org.x/a/1.2/HASH/a-1.2.jar`        | `org.x:a:1.2/a-1.2.jar`            |
//! | JDK                            | `/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip`                 | `java-17-openjdk-amd64/lib/src.zip` |
//! | Python stdlib (any interpreter)| `/root/.pyenv/versions/3.11.7/lib/python3.11/json/decoder.py`    | `python3.11/json/decoder.py`       |
//! | Virtualenvs                    | `/home/u/proj-env/.venv/bin/python`                              | `.venv/bin/python`                 |
//! | Home directory (`HOME`)        | `/home/u/notes/x.txt`                                            | `~/notes/x.txt`                    |
//! | Temporary directory            | `/tmp/tmp.AbC/out/report.xml`                                    | `out/report.xml`                   |
//! | Any other existing path        | `/usr/include/c++/11/bits/stl_vector.h`                          | `bits/stl_vector.h`                |
//!
//! A token is a path when it begins with `/` (or `file:///`) after a space, a quote or a bracket
//! and its first segment is a name; it ends at whitespace, a quote, a bracket, a comma or a `:`
//! (a line number follows). Other absolute-looking text (`/api/users`, a regular expression) is
//! left alone unless it exists on this machine.

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
    /// What a relative path is relative to when the caller names nothing else: the root, or
    /// the project's directory for a runner that prints paths relative to it ([`PathMap::based`]).
    base: PathBuf,
    /// Every spelling of the root that may appear in output, longest first, each ending in `/`.
    prefixes: Vec<String>,
    /// The lines of files [`PathMap::fill_code`] has read, shared by its calls (adapters call
    /// it per failure; a thousand failures in one file read it once).
    sources: Arc<Mutex<HashMap<String, Option<Lines>>>>,
    /// Directories from the environment the runners saw, each with its short form: `GOROOT`,
    /// `GOMODCACHE`, `CARGO_HOME`'s registry, the temporary directory, `HOME`; longest first.
    elsewhere: Arc<Vec<(String, Short)>>,
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
            base: root.to_path_buf(),
            prefixes,
            sources: Arc::default(),
            elsewhere: Arc::new(elsewhere_from_env()),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// This map with relative paths taken relative to `dir` (a project below the root whose
    /// runner prints paths relative to itself, as Bazel does its workspace's); answers stay
    /// relative to the root.
    pub fn based(&self, dir: &Path) -> PathMap {
        PathMap {
            base: dir.to_path_buf(),
            ..self.clone()
        }
    }

    /// What relative paths are relative to (see [`PathMap::based`]).
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// The workspace-relative form of `path`, if it lies inside the workspace. Relative paths
    /// are taken relative to `base` (a package directory) or, without one, to the map's base
    /// (the root unless [`PathMap::based`]).
    pub fn relativize(&self, path: &str, base: Option<&Path>) -> Option<String> {
        let path = path.strip_prefix("file://").unwrap_or(path);
        let p = Path::new(path);
        let joined;
        let abs = if p.is_absolute() {
            p
        } else {
            joined = base.unwrap_or(&self.base).join(p);
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
                file: self.short_path(raw.strip_prefix("file://").unwrap_or(raw)),
                line,
                code: None,
                project: false,
            },
        }
    }

    /// The short form of a path from outside the workspace (see the module's table); other
    /// text as it is.
    pub fn short_path(&self, path: &str) -> String {
        if !path.starts_with('/') {
            return path.to_owned();
        }
        self.shorten(path, true).unwrap_or_else(|| path.to_owned())
    }

    /// `path`'s short form, if a rule matches; `known` takes the last rule (any path that
    /// exists here) without asking the file system.
    fn shorten(&self, path: &str, known: bool) -> Option<String> {
        for (dir, short) in self.elsewhere.iter() {
            if let Some(rest) = path.strip_prefix(dir.as_str()) {
                if rest.starts_with('/') || rest.is_empty() {
                    return shape(path).or_else(|| {
                        let rest = rest.trim_start_matches('/');
                        Some(match short {
                            // The directory a test or tool made in it is random; what is
                            // below that may name something (`does-not-exist/Cargo.toml`).
                            Short::Name => match rest.split_once('/') {
                                Some((_, below)) if !below.is_empty() => below.to_owned(),
                                _ => last_segments(path, 1),
                            },
                            Short::Prefix(s) => format!("{s}{rest}"),
                        })
                    });
                }
            }
        }
        shape(path).or_else(|| (known || is_file_path(path)).then(|| last_segments(path, 2)))
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
        if out.contains("file:///") {
            out = out.replace("file:///", "/");
        }
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
        if out.contains('/') {
            out = self.shorten_paths(&out);
        }
        out
    }

    /// Every path token from outside the workspace in `text` in its short form.
    fn shorten_paths(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let starts = bytes[i] == b'/'
                && (i == 0 || is_delimiter(bytes[i - 1]))
                && bytes.get(i + 1).is_some_and(|&b| is_name_start(b));
            if !starts {
                i += 1;
                continue;
            }
            let end = text[i..]
                .find(|c: char| c.is_whitespace() || "\"'`()<>[]{},;:|".contains(c))
                .map_or(text.len(), |n| i + n);
            let token = text[i..end].trim_end_matches(['.', '!', '?']);
            let token_end = i + token.len();
            if let Some(short) = self.shorten(token, false) {
                out.push_str(&text[last..i]);
                out.push_str(&short);
                last = token_end;
            }
            i = end.max(i + 1);
        }
        out.push_str(&text[last..]);
        out
    }
}

/// First directories of absolute paths on build machines and developers' ones.
const ROOTS: &[&str] = &[
    "usr",
    "home",
    "root",
    "tmp",
    "var",
    "opt",
    "etc",
    "mnt",
    "srv",
    "nix",
    "snap",
    "private",
    "Users",
    "Library",
    "System",
    "Applications",
    "ci",
    "builds",
    "build",
    "work",
    "workspace",
    "github",
    "runner",
    "app",
    "src",
    "data",
    "lib",
    "bin",
];

/// Whether an absolute-looking token names a file rather than some other text with slashes
/// (`/api/users/12`): its first directory is a machine's, its name has an extension, or it
/// exists here. Output captured on another machine names paths that do not exist here.
fn is_file_path(path: &str) -> bool {
    let mut segs = path.split('/').filter(|s| !s.is_empty());
    let first = segs.next().unwrap_or("");
    let last = path.rsplit('/').next().unwrap_or("");
    let extension = last.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=8).contains(&ext.len())
            && ext.bytes().all(|b| b.is_ascii_alphanumeric())
    });
    segs.next().is_some() && (ROOTS.contains(&first) || extension) || Path::new(path).exists()
}

/// A byte before which a path token may begin.
fn is_delimiter(b: u8) -> bool {
    b.is_ascii_whitespace() || b"\"'`([{<=,;:|>".contains(&b)
}

/// A byte a path's first segment may begin with.
fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"._-~@+".contains(&b) || b >= 0x80
}

/// The last `n` segments of `path`.
fn last_segments(path: &str, n: usize) -> String {
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    segs[segs.len().saturating_sub(n)..].join("/")
}

/// Python virtual environments' directory names.
const VENVS: &[&str] = &[
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "virtualenvs",
    "__pypackages__",
];

/// The short form of a path of a known shape from elsewhere (the module's table, environment
/// aside).
fn shape(path: &str) -> Option<String> {
    let segs: Vec<&str> = path.split('/').collect();
    let n = segs.len();
    let from = |i: usize| segs[i.min(n)..].join("/");
    let seq = |a: &str, b: &str| segs.windows(2).position(|w| w[0] == a && w[1] == b);
    if let Some(i) = segs
        .iter()
        .rposition(|s| matches!(*s, "site-packages" | "dist-packages" | "node_modules"))
    {
        return Some(from(i));
    }
    if let Some(i) = seq("registry", "src").filter(|i| i + 3 < n) {
        return Some(from(i + 3));
    }
    if let Some(i) = seq("git", "checkouts").filter(|i| i + 4 < n) {
        let name = segs[i + 2].rsplit_once('-').map_or(segs[i + 2], |(a, _)| a);
        return Some(format!("{name}@{}/{}", segs[i + 3], from(i + 4)));
    }
    if segs.get(1) == Some(&"rustc") && n > 3 {
        return Some(from(3));
    }
    if let Some(i) = seq("pkg", "mod").filter(|i| i + 2 < n) {
        return Some(from(i + 2));
    }
    if let Some(i) = segs
        .windows(2)
        .position(|w| is_goroot(w[0]) && w[1] == "src")
        .filter(|i| i + 2 < n)
    {
        return Some(format!("go/{}", from(i + 1)));
    }
    if let Some(i) = seq(".m2", "repository") {
        return coordinates(&segs[i + 2..], false);
    }
    if let Some(i) = segs.iter().position(|s| *s == "files-2.1") {
        return coordinates(&segs[i + 1..], true);
    }
    if let Some(i) = seq("lib", "jvm").filter(|i| i + 2 < n) {
        return Some(from(i + 2));
    }
    if let Some(i) = seq("candidates", "java").filter(|i| i + 2 < n) {
        return Some(from(i + 2));
    }
    if let Some(i) = segs
        .windows(2)
        .position(|w| w[0].starts_with("lib") && is_python(w[1]))
        .filter(|i| i + 2 < n)
    {
        return Some(from(i + 1));
    }
    if let Some(i) = segs.iter().rposition(|s| VENVS.contains(s)) {
        return Some(from(i));
    }
    None
}

/// `go`, `go1.22.1`, `go-1.22`: a Go root's directory name.
fn is_goroot(s: &str) -> bool {
    s == "go" || s.starts_with("go1.") || s.starts_with("go-1")
}

/// `python3.11`, `python3`, `pypy3.10`: an interpreter's library directory name.
fn is_python(s: &str) -> bool {
    ["python", "pypy"].iter().any(|p| {
        s.strip_prefix(p)
            .is_some_and(|v| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit() || c == '.'))
    })
}

/// `group:artifact:version/file` from a Maven repository's `org/x/a/1.2/a-1.2.jar` (the group
/// in segments) or a Gradle cache's `org.x/a/1.2/HASH/a-1.2.jar` (`hashed`).
fn coordinates(segs: &[&str], hashed: bool) -> Option<String> {
    if hashed {
        let [group, artifact, version, rest @ ..] = segs else {
            return None;
        };
        let file = rest.get(1..).map(|r| r.join("/")).unwrap_or_default();
        return Some(
            format!("{group}:{artifact}:{version}/{file}")
                .trim_end_matches('/')
                .to_owned(),
        );
    }
    // The version is the last directory; the artifact before it; the group before that.
    if segs.len() < 4 {
        return Some(segs.join("/"));
    }
    let (dirs, file) = segs.split_at(segs.len() - 1);
    let (group, av) = dirs.split_at(dirs.len() - 2);
    Some(format!(
        "{}:{}:{}/{}",
        group.join("."),
        av[0],
        av[1],
        file[0]
    ))
}

/// The short form of paths under a directory from the environment.
#[derive(Debug, Clone, Copy)]
enum Short {
    /// What follows the directory, after this prefix.
    Prefix(&'static str),
    /// What is below the directory made in it (a temporary directory's names mean nothing).
    Name,
}

/// Directories from the environment whose paths leak the machine's layout, each with the form
/// its paths take: `GOROOT` as `go/`, `GOMODCACHE` as module paths, `HOME` as `~/`, the
/// temporary directory as what is below the directory made in it. Longest first.
fn elsewhere_from_env() -> Vec<(String, Short)> {
    let mut dirs = Vec::new();
    let mut add = |var: &str, short: Short| {
        if let Some(v) = std::env::var_os(var) {
            let v = v.to_string_lossy().trim_end_matches('/').to_owned();
            if v.len() > 1 && v.starts_with('/') {
                dirs.push((v, short));
            }
        }
    };
    add("GOROOT", Short::Prefix("go/"));
    add("GOMODCACHE", Short::Prefix(""));
    add("HOME", Short::Prefix("~/"));
    add("TMPDIR", Short::Name);
    let tmp = std::env::temp_dir()
        .to_string_lossy()
        .trim_end_matches('/')
        .to_owned();
    for t in [tmp, "/tmp".to_owned(), "/var/tmp".to_owned()] {
        if t.len() > 1 && !dirs.iter().any(|(d, _)| *d == t) {
            dirs.push((t, Short::Name));
        }
    }
    dirs.sort_by_key(|(d, _)| std::cmp::Reverse(d.len()));
    dirs
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
    fn a_based_map_reads_relative_paths_from_its_project_and_answers_from_the_root() {
        let m = map().based(Path::new("/ws/proj/bazel"));
        assert_eq!(
            m.relativize("tests/a.cc", None).as_deref(),
            Some("bazel/tests/a.cc")
        );
        assert_eq!(m.frame("tests/a.cc", 5, None).file, "bazel/tests/a.cc");
        assert_eq!(
            m.relativize("/ws/proj/src/x.rs", None).as_deref(),
            Some("src/x.rs")
        );
        assert_eq!(m.root(), Path::new("/ws/proj"));
        assert_eq!(m.scrub("at /ws/proj/bazel/a.cc:3"), "at bazel/a.cc:3");
        assert_eq!(map().base(), Path::new("/ws/proj"));
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
        assert_eq!(f.file, "library/core/src/panicking.rs");
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

    #[test]
    fn paths_from_elsewhere_take_their_short_form() {
        let m = map();
        for (raw, short) in [
            ("/root/.pyenv/versions/3.11.7/lib/python3.11/json/decoder.py", "python3.11/json/decoder.py"),
            ("/usr/lib/python3.12/unittest/case.py", "python3.12/unittest/case.py"),
            ("/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/_pytest/python.py", "site-packages/_pytest/python.py"),
            ("/usr/lib/python3/dist-packages/yaml/x.py", "dist-packages/yaml/x.py"),
            ("/ws/env/.venv/bin/python", ".venv/bin/python"),
            ("/root/.cargo/registry/src/index.crates.io-6f17d22bba15001f/serde-1.0.1/src/de.rs", "serde-1.0.1/src/de.rs"),
            ("/root/.cargo/git/checkouts/foo-1a2b3c4d5e6f/a1b2c3d/src/x.rs", "foo@a1b2c3d/src/x.rs"),
            ("/rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/core/src/x.rs", "library/core/src/x.rs"),
            ("/x/node_modules/a/node_modules/b/index.js", "node_modules/b/index.js"),
            ("/root/go/pkg/mod/github.com/x/y@v1.2.3/z.go", "github.com/x/y@v1.2.3/z.go"),
            ("/usr/local/go/src/testing/testing.go", "go/src/testing/testing.go"),
            ("/root/sdk/go1.22.1/src/runtime/panic.go", "go/src/runtime/panic.go"),
            ("/root/.m2/repository/org/apache/commons/commons-lang3/3.12.0/commons-lang3-3.12.0.jar", "org.apache.commons:commons-lang3:3.12.0/commons-lang3-3.12.0.jar"),
            ("/root/.gradle/caches/modules-2/files-2.1/org.x/a/1.2/0abc/a-1.2.jar", "org.x:a:1.2/a-1.2.jar"),
            ("/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip", "java-17-openjdk-amd64/lib/src.zip"),
            ("/tmp/.tmpAbC/report.xml", "report.xml"),
            ("/tmp/.tmpAbC/does-not-exist/Cargo.toml", "does-not-exist/Cargo.toml"),
            ("/usr/bin/env", "bin/env"),
            ("/ci/Calc.Tests/bin/Debug/net8.0/Calc.Tests.dll", "net8.0/Calc.Tests.dll"),
            ("/builds/x/y/global.json", "y/global.json"),
        ] {
            assert_eq!(m.short_path(raw), short, "{raw}");
            assert_eq!(m.frame(raw, 3, None).file, short, "{raw}");
            assert_eq!(
                m.scrub(&format!("  File \"{raw}\", line 3, in f")),
                format!("  File \"{short}\", line 3, in f")
            );
            assert_eq!(m.scrub(&format!("at ({raw}:3:7)")), format!("at ({short}:3:7)"));
        }
        let home = std::env::var("HOME").unwrap_or_default();
        if home.len() > 1 && !home.starts_with("/tmp") {
            assert_eq!(
                m.scrub(&format!("see {home}/notes/x.txt")),
                "see ~/notes/x.txt"
            );
        }
        // Text that only looks like a path, and paths inside the workspace, stay.
        for keep in [
            "GET /api/users/12 failed",
            "matches /^ab+c$/",
            "a/b",
            "1 / 2",
            "http://x.com/a/b",
        ] {
            assert_eq!(m.scrub(keep), keep);
        }
        assert_eq!(m.scrub("file:///ws/proj/src/a.js:3"), "src/a.js:3");
    }

    proptest::proptest! {
        /// Any text: no panic (path tokens are cut at character boundaries).
        #[test]
        fn scrub_never_panics(s in "(?s)[ a-z/.:\"'()\\-]{0,200}|(?s).{0,200}") {
            let _ = map().scrub(&s);
        }
    }
}
