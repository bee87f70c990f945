//! The workspace walk behind a scan: every file a test could read, which is more than git sees:
//! an ignored `.env`, `local_settings.py` or `fixtures/data.json` is an input too. Skipped are
//! `.git/`, `.pith/`, tool caches and generated directories (tagged, or beside the build file
//! whose tool writes them), dependency trees (virtualenvs, `node_modules/`: the walk reports
//! them and `environment` fingerprints them instead), and — only when ignored (`.gitignore` and
//! `.ignore` at every level, `.git/info/exclude`, the global excludes, and the `.gitignore`
//! files of directories above the root inside the repository) — what builds, test runs,
//! editors and package managers write ([`OUTPUT_DIRS`], [`is_output_file`]), so a run's own
//! output never counts as a change. Directories are shared among threads; each file is stat'ed
//! relative to its directory's descriptor (no path lookup), which is most of what a scan of an
//! unchanged workspace costs.

use std::fs::{FileType, Metadata};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;

/// Directories that are never source: version control, pith's own state, tool caches.
pub(crate) const SKIP_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".jj",
    crate::STATE_DIR,
    "__pycache__",
    "node_modules",
];
/// Entries whose presence marks a directory as generated: a cache (cargo's `target/`,
/// `.pytest_cache/`, per the Cache Directory Tagging convention), a virtualenv (`pyvenv.cfg`;
/// a conda environment's `conda-meta/`), a CMake build directory.
pub(crate) const GENERATED_MARKERS: &[&str] =
    &["CACHEDIR.TAG", "pyvenv.cfg", "conda-meta", "CMakeCache.txt"];
/// Markers among [`GENERATED_MARKERS`] of a Python environment, which tests import from.
const ENVIRONMENT_MARKERS: &[&str] = &["pyvenv.cfg", "conda-meta"];
/// Ignored directories that hold what a tool wrote, not what a test reads: build and coverage
/// output, tool and editor caches and settings, installed dependencies (their lockfiles are
/// files of the workspace; what an install changes is fingerprinted apart). Inputs written there
/// by hand would be missed, so only ignored directories of these names are skipped: a tracked
/// `build/` or `coverage/` (the coverage.py repository's package) is source.
const OUTPUT_DIRS: &[&str] = &[
    // build and packaging output
    "build",
    "dist",
    "out",
    "_build",
    ".build",
    ".eggs",
    "dist-newstyle",
    ".stack-work",
    "DerivedData",
    // coverage and test reports
    "coverage",
    "htmlcov",
    ".nyc_output",
    "TestResults",
    ".benchmarks",
    // tool caches and the scratch files runs leave
    ".cache",
    ".mypy_cache",
    ".ruff_cache",
    ".pytype",
    ".pyre",
    ".tox",
    ".nox",
    ".next",
    ".nuxt",
    ".svelte-kit",
    ".turbo",
    ".parcel-cache",
    ".angular",
    ".gradle",
    ".kotlin",
    ".dart_tool",
    ".terraform",
    "tmp",
    "temp",
    "log",
    "logs",
    // editors
    ".idea",
    ".vscode",
    ".vs",
    ".fleet",
    // installed dependencies
    "vendor",
    "bower_components",
    "jspm_packages",
    ".yarn",
    ".pnpm-store",
    ".bundle",
    "Pods",
];
/// Ignored directories of these names are virtualenvs even without a `pyvenv.cfg` (one made by
/// an old `virtualenv`).
const VENV_NAMES: &[&str] = &[".venv", "venv"];
/// Build files, and the output directories beside them that their tool writes (tests run by
/// pith among what it writes): Maven's `target/`, Gradle's `build/` and `.gradle/`, .NET's
/// `bin/` and `obj/`. Neither tags its output, and a project without a `.gitignore` would see
/// its generation bumped by every run. A name ending in `*` is a suffix.
const BUILD_OUTPUTS: &[(&str, &[&str])] = &[
    ("pom.xml", &["target"]),
    ("build.gradle", &["build", ".gradle"]),
    ("build.gradle.kts", &["build", ".gradle"]),
    ("settings.gradle", &["build", ".gradle"]),
    ("settings.gradle.kts", &["build", ".gradle"]),
    ("*.csproj", &["bin", "obj"]),
    ("*.fsproj", &["bin", "obj"]),
    ("*.vbproj", &["bin", "obj"]),
];

/// Whether `dir/name` is the output directory of a build file in `dir`.
pub(crate) fn is_build_output(dir: &Path, name: &std::ffi::OsStr) -> bool {
    let candidates: Vec<&str> = BUILD_OUTPUTS
        .iter()
        .filter(|(_, outputs)| outputs.iter().any(|o| name == *o))
        .map(|(file, _)| *file)
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
fn build_outputs<'a>(names: impl Iterator<Item = &'a std::ffi::OsStr>) -> Vec<&'static str> {
    let mut out = Vec::new();
    for name in names {
        let Some(name) = name.to_str() else { continue };
        for (file, dirs) in BUILD_OUTPUTS {
            let matches = match file.strip_prefix('*') {
                Some(suffix) => name.ends_with(suffix),
                None => name == *file,
            };
            if matches {
                out.extend_from_slice(dirs);
            }
        }
    }
    out
}

/// Whether an ignored file of this name is one a tool writes (coverage data, logs, compiled
/// bytecode, editor swap files, lint caches) rather than one a test reads.
fn is_output_file(name: &str) -> bool {
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

/// A dependency tree the walk does not enter, whose state the environment fingerprints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tree {
    /// A virtualenv or conda environment.
    Venv,
    /// A `node_modules/` directory.
    NodeModules,
}

/// One file the walk found.
pub(crate) struct Found<'a> {
    /// Workspace-relative, `/`-separated.
    pub rel: &'a str,
    pub meta: Metadata,
    pub file_type: FileType,
}

/// The ignore rules in force in a directory: its own files' rules, then its parents'.
struct Rules {
    /// The directory the rules' patterns are relative to, workspace-relative (`""` is the root).
    dir: String,
    matcher: Gitignore,
    parent: Option<Arc<Rules>>,
}

/// Rules from outside the tree: ancestors' `.gitignore` files, `info/exclude`, the global
/// excludes; each with the path from its base to the workspace root (`"sub/"`, or `""`).
struct Base {
    matchers: Vec<(Gitignore, String)>,
}

impl Base {
    fn load(root: &Path) -> Base {
        let mut matchers = Vec::new();
        if let Some((top, git_dir)) = crate::exclude::repository(root) {
            let prefix_of = |dir: &Path| -> String {
                let below = root.strip_prefix(dir).unwrap_or(Path::new(""));
                let s = below.to_string_lossy();
                if s.is_empty() {
                    String::new()
                } else {
                    format!("{s}/")
                }
            };
            // Directories between the repository's top and the root, deepest first.
            for dir in root.ancestors().skip(1) {
                if !dir.starts_with(&top) {
                    break;
                }
                if let Some(m) = matcher(dir, &[".gitignore", ".ignore"]) {
                    matchers.push((m, prefix_of(dir)));
                }
            }
            let mut b = GitignoreBuilder::new(&top);
            if b.add(git_dir.join("info/exclude")).is_none() {
                if let Ok(m) = b.build() {
                    if !m.is_empty() {
                        matchers.push((m, prefix_of(&top)));
                    }
                }
            }
        }
        let (global, _) = Gitignore::global();
        if !global.is_empty() {
            matchers.push((global, String::new()));
        }
        Base { matchers }
    }
}

/// The matcher of `dir`'s ignore files among `names` (later files take precedence), if any.
fn matcher(dir: &Path, names: &[&str]) -> Option<Gitignore> {
    let mut b = GitignoreBuilder::new(dir);
    let mut any = false;
    for name in names {
        let path = dir.join(name);
        if path.is_file() {
            any = true;
            let _ = b.add(path);
        }
    }
    let m = b.build().ok()?;
    (any && !m.is_empty()).then_some(m)
}

fn ignored(rules: Option<&Arc<Rules>>, base: &Base, rel: &str, is_dir: bool) -> bool {
    let mut node = rules;
    while let Some(r) = node {
        let sub = if r.dir.is_empty() {
            rel
        } else {
            rel.strip_prefix(r.dir.as_str())
                .and_then(|s| s.strip_prefix('/'))
                .unwrap_or(rel)
        };
        match r.matcher.matched(sub, is_dir) {
            Match::Ignore(_) => return true,
            Match::Whitelist(_) => return false,
            Match::None => {}
        }
        node = r.parent.as_ref();
    }
    for (m, prefix) in &base.matchers {
        let m = if prefix.is_empty() {
            m.matched(rel, is_dir)
        } else {
            m.matched(format!("{prefix}{rel}"), is_dir)
        };
        match m {
            Match::Ignore(_) => return true,
            Match::Whitelist(_) => return false,
            Match::None => {}
        }
    }
    false
}

/// A directory to read.
struct Job {
    abs: PathBuf,
    /// Workspace-relative with a trailing `/`, `""` for the root.
    prefix: String,
    rules: Option<Arc<Rules>>,
    /// The directory is ignored (so is all it holds: git cannot re-include below it).
    ignored: bool,
}

struct Queue {
    /// Directories to read, and how many are being read now.
    state: Mutex<(Vec<Job>, usize)>,
    wake: Condvar,
}

/// What a walk calls back with.
pub(crate) struct Visitor<'a> {
    /// Prunes the walk to part of the tree (a directory is entered when it or a path under it
    /// is wanted).
    pub wanted: &'a (dyn Fn(&str) -> bool + Sync),
    /// Every file (and symlink) kept.
    pub file: &'a (dyn Fn(Found<'_>) + Sync),
    /// Every dependency tree met (workspace-relative), which the walk does not enter.
    pub tree: &'a (dyn Fn(&str, Tree) + Sync),
}

/// Walks `root` on several threads, calling `v` back.
pub(crate) fn walk(root: &Path, v: &Visitor<'_>) {
    let base = Base::load(root);
    let queue = Queue {
        state: Mutex::new((
            vec![Job {
                abs: root.to_path_buf(),
                prefix: String::new(),
                rules: None,
                ignored: false,
            }],
            0,
        )),
        wake: Condvar::new(),
    };
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    std::thread::scope(|s| {
        for _ in 1..threads {
            s.spawn(|| work(&queue, &base, v));
        }
        work(&queue, &base, v);
    });
}

fn work(queue: &Queue, base: &Base, v: &Visitor<'_>) {
    loop {
        let job = {
            let Ok(mut st) = queue.state.lock() else {
                return;
            };
            loop {
                if let Some(job) = st.0.pop() {
                    st.1 += 1;
                    break Some(job);
                }
                if st.1 == 0 {
                    break None;
                }
                st = match queue.wake.wait(st) {
                    Ok(g) => g,
                    Err(_) => return,
                };
            }
        };
        let Some(job) = job else {
            queue.wake.notify_all();
            return;
        };
        let children = read(&job, base, v);
        if let Ok(mut st) = queue.state.lock() {
            st.0.extend(children);
            st.1 -= 1;
        }
        queue.wake.notify_all();
    }
}

/// Reads one directory: visits its files, returns its subdirectories to read.
fn read(job: &Job, base: &Base, v: &Visitor<'_>) -> Vec<Job> {
    let Ok(entries) = std::fs::read_dir(&job.abs) else {
        return Vec::new();
    };
    let entries: Vec<std::fs::DirEntry> = entries.flatten().collect();
    let is_root = job.prefix.is_empty();
    let names: Vec<std::ffi::OsString> = entries.iter().map(|e| e.file_name()).collect();
    let has = |n: &str| names.iter().any(|e| e == n);
    if !is_root && GENERATED_MARKERS.iter().any(|m| has(m)) {
        if ENVIRONMENT_MARKERS.iter().any(|m| has(m)) {
            (v.tree)(job.prefix.trim_end_matches('/'), Tree::Venv);
        }
        return Vec::new();
    }
    let rules = if has(".gitignore") || has(".ignore") {
        match matcher(&job.abs, &[".gitignore", ".ignore"]) {
            Some(m) => Some(Arc::new(Rules {
                dir: job.prefix.trim_end_matches('/').to_owned(),
                matcher: m,
                parent: job.rules.clone(),
            })),
            None => job.rules.clone(),
        }
    } else {
        job.rules.clone()
    };
    let outputs = build_outputs(names.iter().map(|n| n.as_os_str()));
    let mut children = Vec::new();
    let mut rel = job.prefix.clone();
    for (e, name) in entries.iter().zip(&names) {
        let Ok(ft) = e.file_type() else {
            continue;
        };
        rel.truncate(job.prefix.len());
        rel.push_str(&name.to_string_lossy());
        if !(v.wanted)(&rel) {
            continue;
        }
        if ft.is_dir() {
            if name == "node_modules" {
                (v.tree)(&rel, Tree::NodeModules);
                continue;
            }
            if SKIP_DIRS.iter().any(|s| name == *s) || outputs.iter().any(|o| name == *o) {
                continue;
            }
            let ignored = job.ignored || ignored(rules.as_ref(), base, &rel, true);
            if ignored {
                if VENV_NAMES.iter().any(|n| name == *n) {
                    (v.tree)(&rel, Tree::Venv);
                    continue;
                }
                let s = name.to_string_lossy();
                if OUTPUT_DIRS.contains(&s.as_ref()) || s.ends_with(".egg-info") {
                    continue;
                }
            }
            children.push(Job {
                abs: job.abs.join(name),
                prefix: format!("{rel}/"),
                rules: rules.clone(),
                ignored,
            });
        } else if ft.is_file() || ft.is_symlink() {
            // Only a name tools write needs the ignore rules' verdict.
            if is_output_file(&name.to_string_lossy())
                && (job.ignored || ignored(rules.as_ref(), base, &rel, false))
            {
                continue;
            }
            // Relative to the directory's descriptor: no path lookup.
            let Ok(meta) = e.metadata() else {
                continue;
            };
            (v.file)(Found {
                rel: &rel,
                meta,
                file_type: ft,
            });
        }
    }
    children
}
