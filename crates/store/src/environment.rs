//! What a test run reads from outside the workspace's files, fingerprinted by `stat` alone (no
//! process is started, no file outside the workspace is read): the toolchains on `PATH` (each
//! ecosystem's `toolchains`: `rustc`, `go`, `node`, `python3`, `mvn`, `bazel`, …: the resolved
//! binary's path, size, mtime and inode), the package directories of the Python in use, virtualenvs
//! (the active one and those in the workspace: `pyvenv.cfg`, the interpreter, the `site-packages`
//! listing), `node_modules/` (its listing and the package managers' own records of an install),
//! rustup's and pyenv's selection. These are the generation's "inputs" beside its files: a package
//! install or a toolchain update bumps it. Each input is keyed by what it is and where, so every
//! process re-measures every input ever seen, whichever `PATH` it has: two processes with different
//! toolchains never undo each other's measurements.
//!
//! An input that exists but cannot be measured is a change every time (when unsure, run).
//!
//! Also here: the identity of the process environment (its variables, less the few a shell
//! changes on its own), which the history keys runs by: a replay or a flaky verdict needs the
//! same variables, since the tests see them.

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::resolved::{Found, Resolver};
use crate::walk::Tree;

/// Variables a shell or terminal sets on its own, which no test reads to decide an outcome;
/// keeping them out of the identity keeps replays across shells. `PITH_*` configures pith.
const VOLATILE: &[&str] = &[
    "_",
    "PWD",
    "OLDPWD",
    "SHLVL",
    "COLUMNS",
    "LINES",
    "PS1",
    "PS2",
    "PS4",
    "PROMPT_COMMAND",
    "HISTFILE",
    "HISTSIZE",
    "HISTFILESIZE",
    "HISTCONTROL",
    "TERM_SESSION_ID",
    "ITERM_SESSION_ID",
    "WINDOWID",
    "TMUX_PANE",
    "STY",
    "KITTY_WINDOW_ID",
    "WEZTERM_PANE",
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "SSH_CLIENT",
    "SSH_CONNECTION",
    "SSH_TTY",
    "GPG_TTY",
    "XDG_SESSION_ID",
];

/// The process environment as the fingerprints use it, captured once (tests substitute it).
#[derive(Debug, Clone, Default)]
pub(crate) struct Environment {
    vars: Vec<(OsString, OsString)>,
    /// [`identity`] of the variables.
    pub identity: i64,
    /// Where what the names resolve to is kept between processes (see [`crate::resolved`]).
    resolved: Option<PathBuf>,
}

impl Environment {
    pub fn from_process() -> Environment {
        Environment::from_vars(std::env::vars_os())
    }

    pub fn from_vars(vars: impl IntoIterator<Item = (OsString, OsString)>) -> Environment {
        let mut vars: Vec<(OsString, OsString)> = vars.into_iter().collect();
        vars.sort();
        let identity = identity(&vars);
        Environment {
            vars,
            identity,
            resolved: None,
        }
    }

    /// Keeps what the names resolve to in `file` between processes.
    pub fn keeping_resolutions_in(self, file: PathBuf) -> Environment {
        Environment {
            resolved: Some(file),
            ..self
        }
    }

    /// A variable's value, when set and not empty.
    fn var(&self, name: &str) -> Option<&OsStr> {
        self.vars
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_os_str())
            .filter(|v| !v.is_empty())
    }

    fn home(&self) -> Option<PathBuf> {
        self.var("HOME").map(PathBuf::from)
    }

    /// A key as an answer shows it: the home directory as `~`.
    pub fn display(&self, key: &str) -> String {
        if let Some(home) = self.home() {
            let home = home.to_string_lossy();
            let home = home.trim_end_matches('/');
            if let Some((kind, path)) = key.split_once(':') {
                if let Some(rest) = path.strip_prefix(home) {
                    if rest.is_empty() || rest.starts_with('/') {
                        return format!("{kind}:~{rest}");
                    }
                }
            }
        }
        key.to_owned()
    }
}

/// The hash of the variables (sorted) that a test could read, [`VOLATILE`] ones left out.
fn identity(vars: &[(OsString, OsString)]) -> i64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for (k, v) in vars {
        let name = k.to_string_lossy();
        if VOLATILE.contains(&name.as_ref()) || name.starts_with("PITH_") {
            continue;
        }
        h.update(k.as_encoded_bytes());
        h.update(b"=");
        h.update(v.as_encoded_bytes());
        h.update(b"\0");
    }
    h.digest() as i64
}

/// One measured input: its key (`kind:path`) and its fingerprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Input {
    pub key: String,
    pub hash: i64,
    /// The latest mtime or ctime among what was measured (nanoseconds).
    pub stamp: i64,
}

/// The kinds of input, as key prefixes.
const TOOLCHAIN: &str = "toolchain:";
const PACKAGES: &str = "packages:";
const VENV: &str = "venv:";
const NODE_MODULES: &str = "node_modules:";

/// Measures the inputs `known` from earlier scans (any process's) and those this process's
/// environment resolves to. An input that is gone is left out (its row becomes a tombstone).
pub(crate) fn measure_all<'a>(
    root: &Path,
    env: &Environment,
    known: impl Iterator<Item = &'a str>,
) -> Vec<Input> {
    let mut keys: BTreeSet<String> = known.map(str::to_owned).collect();
    let mut resolver = Resolver::open(env.resolved.as_deref());
    resolve(root, env, &mut resolver, &mut keys);
    resolver.keep();
    keys.into_iter()
        .filter_map(|key| {
            let (hash, stamp) = measure(root, &key)?;
            Some(Input { key, hash, stamp })
        })
        .collect()
}

/// Adds the dependency trees the walk met (workspace-relative) to `inputs`, unless measured.
pub(crate) fn measure_trees(root: &Path, trees: &[(String, Tree)], inputs: &mut Vec<Input>) {
    for (rel, tree) in trees {
        let key = tree_key(rel, *tree);
        if inputs.iter().any(|i| i.key == key) {
            continue;
        }
        if let Some((hash, stamp)) = measure(root, &key) {
            inputs.push(Input { key, hash, stamp });
        }
    }
}

fn tree_key(rel: &str, tree: Tree) -> String {
    match tree {
        Tree::Venv => format!("{VENV}{rel}"),
        Tree::NodeModules => format!("{NODE_MODULES}{rel}"),
    }
}

/// Adds the inputs this process's environment selects: the toolchains on `PATH` and what
/// they bring, the active virtualenv or conda environment, `JAVA_HOME`, rustup and pyenv.
fn resolve(root: &Path, env: &Environment, r: &mut Resolver, keys: &mut BTreeSet<String>) {
    toolchains(root, env, r, keys);
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(dir) = env.var(var) {
            keys.insert(venv_key(root, Path::new(dir)));
        }
    }
    if let Some(java_home) = env.var("JAVA_HOME") {
        add_file(r, keys, &Path::new(java_home).join("bin/java"));
    }
    let home = env.home();
    rustup(env, home.as_deref(), r, keys);
    pyenv(env, home.as_deref(), r, keys);
}

/// The first of each toolchain on `PATH` (every ecosystem's, `ecosystem::toolchains`), and
/// what it brings.
fn toolchains(root: &Path, env: &Environment, r: &mut Resolver, keys: &mut BTreeSet<String>) {
    let Some(path_var) = env.var("PATH") else {
        return;
    };
    let dirs: Vec<PathBuf> = std::env::split_paths(path_var)
        .filter(|d| d.is_absolute())
        .collect();
    let tools: Vec<&str> = pith_model::ecosystem::toolchains().collect();
    for Found {
        tool,
        found,
        canonical,
    } in &r.on_path(&dirs, path_var, &tools)
    {
        keys.insert(format!("{TOOLCHAIN}{}", canonical.display()));
        match tool.as_str() {
            "python3" | "python" => python(root, env, found, canonical, keys),
            "dotnet" => {
                // The SDKs and runtimes beside the host, chosen by `global.json`.
                if let Some(dir) = canonical.parent() {
                    for sub in ["sdk", "shared"] {
                        add_dir(keys, &dir.join(sub));
                    }
                }
            }
            _ => {}
        }
    }
}

/// rustup's shims in `~/.cargo/bin` never change; its settings and toolchains do.
fn rustup(env: &Environment, home: Option<&Path>, r: &mut Resolver, keys: &mut BTreeSet<String>) {
    let rustup = env
        .var("RUSTUP_HOME")
        .map(PathBuf::from)
        .or_else(|| home.map(|h| h.join(".rustup")));
    if let Some(rustup) = rustup.filter(|d| d.is_dir()) {
        add_file(r, keys, &rustup.join("settings.toml"));
        if let Ok(entries) = std::fs::read_dir(rustup.join("toolchains")) {
            for e in entries.flatten() {
                add_file(r, keys, &e.path().join("bin/rustc"));
            }
        }
    }
}

/// pyenv's shims are scripts: its global version file selects among its versions, each with
/// its own interpreter and packages (the project's `.python-version` is a file of the
/// workspace).
fn pyenv(env: &Environment, home: Option<&Path>, r: &mut Resolver, keys: &mut BTreeSet<String>) {
    let pyenv = env
        .var("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| home.map(|h| h.join(".pyenv")));
    if let Some(pyenv) = pyenv.filter(|d| d.is_dir()) {
        add_file(r, keys, &pyenv.join("version"));
        add_dir(keys, &pyenv.join("versions"));
        if let Ok(entries) = std::fs::read_dir(pyenv.join("versions")) {
            for e in entries.flatten() {
                let prefix = e.path();
                add_file(r, keys, &prefix.join("bin/python"));
                for v in pythons(&prefix) {
                    add_dir(keys, &prefix.join("lib").join(&v).join("site-packages"));
                    add_user_site(env, &v, keys);
                }
            }
        }
    }
}

/// The `python3.*` (or `python2.*`) library directories of an installation prefix.
fn pythons(prefix: &Path) -> Vec<String> {
    std::fs::read_dir(prefix.join("lib"))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("python3.") || n.starts_with("python2."))
                .collect()
        })
        .unwrap_or_default()
}

/// The Python interpreter found on `PATH`: a virtualenv's (its `bin/` on `PATH`), or an
/// installation whose package directories tests import from.
fn python(
    root: &Path,
    env: &Environment,
    found: &Path,
    canonical: &Path,
    keys: &mut BTreeSet<String>,
) {
    if let Some(venv) = found.parent().and_then(Path::parent) {
        if venv.join("pyvenv.cfg").is_file() {
            keys.insert(venv_key(root, venv));
            return;
        }
    }
    let Some(prefix) = canonical.parent().and_then(Path::parent) else {
        return;
    };
    let name = canonical
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let versions: Vec<String> = if name.starts_with("python3.") {
        vec![name]
    } else {
        // An unversioned binary: every version of its prefix.
        pythons(prefix)
    };
    add_dir(keys, &prefix.join("lib/python3/dist-packages"));
    for v in &versions {
        for dir in [
            prefix.join("lib").join(v).join("site-packages"),
            prefix.join("lib").join(v).join("dist-packages"),
            prefix.join("local/lib").join(v).join("dist-packages"),
            prefix.join("local/lib").join(v).join("site-packages"),
        ] {
            add_dir(keys, &dir);
        }
        add_user_site(env, v, keys);
    }
}

/// The user's own packages for Python version `v` (`python3.12`): `pip install --user`.
fn add_user_site(env: &Environment, v: &str, keys: &mut BTreeSet<String>) {
    let base = env
        .var("PYTHONUSERBASE")
        .map(PathBuf::from)
        .or_else(|| env.home().map(|h| h.join(".local")));
    if let Some(base) = base {
        add_dir(keys, &base.join("lib").join(v).join("site-packages"));
    }
}

/// A virtualenv's key: workspace-relative when it is inside the workspace, so the walk's
/// and the environment's names for it agree.
fn venv_key(root: &Path, dir: &Path) -> String {
    match dir.strip_prefix(root) {
        Ok(rel) if !rel.as_os_str().is_empty() => format!("{VENV}{}", rel.display()),
        _ => format!("{VENV}{}", dir.display()),
    }
}

fn add_file(r: &mut Resolver, keys: &mut BTreeSet<String>, path: &Path) {
    if let Some(canonical) = r.canonical(path) {
        keys.insert(format!("{TOOLCHAIN}{}", canonical.display()));
    }
}

fn add_dir(keys: &mut BTreeSet<String>, path: &Path) {
    if path.is_dir() {
        keys.insert(format!("{PACKAGES}{}", path.display()));
    }
}

/// A fingerprint that differs from every other: what an input that cannot be measured gets,
/// so it counts as changed each time.
fn unknown() -> i64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&now.to_le_bytes());
    h.update(&std::process::id().to_le_bytes());
    h.update(&NEXT.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    h.digest() as i64
}

/// Folds stat results into one fingerprint.
struct Stats {
    hasher: xxhash_rust::xxh3::Xxh3,
    /// Something that exists could not be measured.
    unreadable: bool,
    /// The latest stamp (mtime or ctime) of what was measured.
    stamp: i64,
}

impl Stats {
    fn new() -> Stats {
        Stats {
            hasher: xxhash_rust::xxh3::Xxh3::new(),
            unreadable: false,
            stamp: 0,
        }
    }

    fn meta(&mut self, m: &std::fs::Metadata) {
        for n in [
            m.dev(),
            m.ino(),
            m.size(),
            m.mtime() as u64,
            m.mtime_nsec() as u64,
            u64::from(m.mode()),
        ] {
            self.hasher.update(&n.to_le_bytes());
        }
        self.stamp = self.stamp.max(crate::clock::stamp(m));
    }

    /// Adds `path`'s stat (following links); an absent path adds that it is absent. Returns
    /// whether it exists.
    fn stat(&mut self, path: &Path) -> bool {
        self.hasher.update(path.as_os_str().as_encoded_bytes());
        match std::fs::metadata(path) {
            Ok(m) => {
                self.meta(&m);
                true
            }
            Err(e) if is_absent(&e) => {
                self.hasher.update(b"\0absent");
                false
            }
            Err(_) => {
                self.unreadable = true;
                false
            }
        }
    }

    fn finish(self) -> (i64, i64) {
        let hash = if self.unreadable {
            unknown()
        } else {
            self.hasher.digest() as i64
        };
        (hash, self.stamp)
    }
}

fn is_absent(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ENOTDIR)
}

/// The path an input's key measures.
pub(crate) fn key_path(root: &Path, key: &str) -> Option<PathBuf> {
    let (_, path) = key.split_at(key.find(':')? + 1);
    Some(root.join(path)) // an absolute path stays as it is
}

/// One input's fingerprint and latest stamp, `None` when it is gone.
pub(crate) fn measure(root: &Path, key: &str) -> Option<(i64, i64)> {
    let (kind, _) = key.split_at(key.find(':')? + 1);
    let path = key_path(root, key)?;
    let mut s = Stats::new();
    match kind {
        TOOLCHAIN | PACKAGES => {
            if !s.stat(&path) && !s.unreadable {
                return None;
            }
        }
        VENV => {
            if !s.stat(&path) && !s.unreadable {
                return None;
            }
            s.stat(&path.join("pyvenv.cfg"));
            s.stat(&path.join("conda-meta"));
            // The interpreter the venv links to: a Python upgraded or removed under it.
            s.stat(&path.join("bin/python"));
            match std::fs::read_dir(path.join("lib")) {
                Ok(entries) => {
                    let mut names: Vec<OsString> = entries
                        .flatten()
                        .map(|e| e.file_name())
                        .filter(|n| n.to_string_lossy().starts_with("python"))
                        .collect();
                    names.sort();
                    for n in names {
                        s.stat(&path.join("lib").join(n).join("site-packages"));
                    }
                }
                Err(e) if is_absent(&e) => {}
                Err(_) => s.unreadable = true,
            }
        }
        NODE_MODULES => {
            if !s.stat(&path) && !s.unreadable {
                return None;
            }
            // What npm, yarn and pnpm write on every install.
            for record in [
                ".package-lock.json",
                ".yarn-integrity",
                ".yarn-state.yml",
                ".modules.yaml",
            ] {
                s.stat(&path.join(record));
            }
        }
        // A kind this pith does not know (a newer one wrote it): gone, as far as it can tell.
        _ => return None,
    }
    Some(s.finish())
}
