//! The one walk filter: which directories and files are never part of the workspace's own
//! files, shared by the store's walk (the generation) and the index's walk (the symbols), so
//! both see the same files. Version control, an older pith's `.pith/` and dependency trees are
//! never entered; generated directories (tagged, a virtualenv, a CMake build tree: the markers of
//! `pith_model::ecosystem`) and the output directories beside a build file (Maven's `target/`
//! beside `pom.xml`) are skipped whether ignored or not; what tools write under common names
//! (the ecosystems' `ignored_outputs`, [`is_output_file`]) only when ignored, since a tracked
//! `build/` is source.
//! A walker that honours ignore rules by leaving ignored directories out altogether (the
//! index) needs only [`excluded_dir`]; one that keeps ignored inputs (the store) asks
//! [`generated`], [`by_name`] and [`when_ignored`] as it goes.

use std::path::Path;

use pith_model::ecosystem;

/// A dependency tree the walk does not enter, whose state the environment fingerprints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tree {
    /// A virtualenv or conda environment.
    Venv,
    /// A `node_modules/` directory.
    NodeModules,
}

/// A directory the walks leave out, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// Not the workspace's: version control, an older pith's state, a cache, generated output.
    Skip,
    /// A dependency tree (reported, not entered).
    Tree(Tree),
}

/// Whether a directory whose entries `has` is generated, by its own markers (the walk root
/// never is: it is checked by the caller).
pub fn generated(has: impl Fn(&str) -> bool) -> Option<Entry> {
    if !ecosystem::generated_markers().any(&has) {
        return None;
    }
    Some(if ecosystem::environment_markers().any(&has) {
        Entry::Tree(Tree::Venv)
    } else {
        Entry::Skip
    })
}

/// Whether a directory called `name` is left out whatever the ignore rules say: version
/// control, an older pith's state, caches, dependency trees, or one of `outputs` (the output
/// directories of the build files beside it, see [`build_outputs`]).
pub fn by_name(name: &std::ffi::OsStr, outputs: &[&str]) -> Option<Entry> {
    if name == "node_modules" {
        return Some(Entry::Tree(Tree::NodeModules));
    }
    (SKIP_DIRS.iter().any(|s| name == *s) || outputs.iter().any(|o| name == *o))
        .then_some(Entry::Skip)
}

/// Whether an ignored directory called `name` is left out: an environment, or what a tool
/// writes (an ecosystem's `ignored_outputs`, `*.egg-info`). Inputs written there by hand would
/// be missed, so only ignored directories of these names are skipped: a tracked `build/` or
/// `coverage/` (the coverage.py repository's package) is source.
pub fn when_ignored(name: &std::ffi::OsStr) -> Option<Entry> {
    if ecosystem::environment_names().any(|n| name == n) {
        return Some(Entry::Tree(Tree::Venv));
    }
    let s = name.to_string_lossy();
    (ecosystem::is_ignored_output(&s) || s.ends_with(".egg-info")).then_some(Entry::Skip)
}

/// Whether the directory at `path` (not the walk's root) is left out whatever the ignore rules
/// say: by its name, by a build file beside it, or by its own markers. For walkers that see one
/// entry at a time; costs a few `stat`s.
pub fn excluded_dir(path: &Path) -> bool {
    let Some(name) = path.file_name() else {
        return false;
    };
    by_name(name, &[]).is_some()
        || path.parent().is_some_and(|p| is_build_output(p, name))
        || generated(|m| path.join(m).symlink_metadata().is_ok()).is_some()
}

/// Directories that are never source: version control, the state an older pith kept in the
/// workspace, tool caches.
pub const SKIP_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".jj",
    crate::LEGACY_DIR,
    "__pycache__",
    "node_modules",
];
/// Whether `dir/name` is the output directory of a build file in `dir`.
pub fn is_build_output(dir: &Path, name: &std::ffi::OsStr) -> bool {
    let candidates: Vec<&str> = ecosystem::build_outputs()
        .filter(|(_, outputs)| outputs.iter().any(|o| name == *o))
        .map(|(file, _)| file)
        .collect();
    if candidates.is_empty() {
        return false;
    }
    if candidates
        .iter()
        .any(|f| !f.starts_with('*') && dir.join(f).is_file())
    {
        return true;
    }
    candidates.iter().any(|f| f.starts_with('*'))
        && std::fs::read_dir(dir).is_ok_and(|entries| {
            let names: Vec<_> = entries.flatten().map(|e| e.file_name()).collect();
            build_outputs(names.iter().map(|n| n.as_os_str()))
                .iter()
                .any(|o| name == *o)
        })
}

/// The output directories of the build files among `names` (a directory's entries).
pub fn build_outputs<'a>(names: impl Iterator<Item = &'a std::ffi::OsStr>) -> Vec<&'static str> {
    let mut out = Vec::new();
    for name in names {
        let Some(name) = name.to_str() else { continue };
        for (file, dirs) in ecosystem::build_outputs() {
            let matches = match file.strip_prefix('*') {
                Some(suffix) => name.ends_with(suffix),
                None => name == file,
            };
            if matches {
                out.extend_from_slice(dirs);
            }
        }
    }
    out
}

/// The prefixes of the symbolic links a build tool re-makes beside the build files among
/// `names` (a directory's entries): Bazel's `bazel-*` beside `WORKSPACE`.
pub fn output_links<'a>(names: impl Iterator<Item = &'a std::ffi::OsStr>) -> Vec<&'static str> {
    let mut out = Vec::new();
    for name in names {
        for (file, prefix) in ecosystem::output_links() {
            if name == file && !out.contains(&prefix) {
                out.push(prefix);
            }
        }
    }
    out
}

/// Whether an ignored file of this name is one a tool writes (coverage data, logs, compiled
/// bytecode, editor swap files, lint caches) rather than one a test reads.
pub fn is_output_file(name: &str) -> bool {
    const EXACT: &[&str] = &[
        ".coverage",
        "coverage.xml",
        "coverage.json",
        "coverage.out",
        "lcov.info",
        "nohup.out",
        ".DS_Store",
        "Thumbs.db",
        ".eslintcache",
        ".stylelintcache",
        ".phpunit.result.cache",
    ];
    const SUFFIXES: &[&str] = &[
        ".log",
        ".pyc",
        ".pyo",
        ".swp",
        ".swo",
        ".swx",
        "~",
        ".tsbuildinfo",
        ".lcov",
    ];
    EXACT.contains(&name)
        || name.starts_with(".coverage.")
        || name.starts_with(".#")
        || SUFFIXES.iter().any(|s| name.ends_with(s))
}
