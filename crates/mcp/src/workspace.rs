//! Which workspace each tool call answers about, and what the server keeps for each one.
//!
//! A call's `root` argument decides when given: protocol 2026-07-28 deprecates the client's
//! roots, and servers take directories as tool parameters
//! (<https://modelcontextprotocol.io/specification/2026-07-28/deprecated>). It is read as the
//! CLI reads `--root` (`pith_engine::workspace_root`): absolute, or relative to the default
//! workspace (else the server's directory); a file stands for the project it is in; never the
//! filesystem root or the home directory.
//!
//! Without it, the default: `--root` when given; else the client's roots (`roots/list`, asked
//! once the session starts when the client declares the capability, and again on
//! `roots/list_changed`); else the project found from the server's directory the way the CLI
//! finds it. Never a directory with no project marker above it, the filesystem root or the home
//! directory: without a workspace, tools answer in band with the fix.
//!
//! Each workspace is opened on first use and kept with its file watcher and its code index, at
//! most [`KEPT`] at a time, the least recently used dropped (its watcher stopped, its index
//! freed; its state on disk stays, so it reopens as it was).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pith_engine::{Lookups, RootError, Watcher};
use serde_json::{Map, Value};

/// How long a tool call waits for the client's roots before answering from the server's
/// directory.
const ROOTS_WAIT: Duration = Duration::from_secs(10);

/// The most workspaces kept open at once. Each holds an inotify instance (its watcher: one
/// watch per directory) and a code index in memory. Linux allows 128 instances per user by
/// default (`fs.inotify.max_user_instances`), shared with every editor and other server the
/// user runs; 8 leaves room for a dozen pith servers, and is more than an agent's session
/// moves between (a project, the library it uses, a scratch checkout).
pub(crate) const KEPT: usize = 8;

/// The argument every tool that answers about a workspace takes.
pub(crate) const ROOT_ARG: &str = "root";

/// The workspaces the server answers for: the default one and those calls named.
pub(crate) struct Workspaces {
    /// `--root`: then the client's roots are not asked.
    explicit: bool,
    /// The server's directory: a relative `root` is taken from it when there is no default.
    cwd: PathBuf,
    state: Mutex<State>,
    /// True once the default is decided (roots answered, or none to ask).
    settled: tokio::sync::watch::Sender<bool>,
}

struct State {
    /// The default workspace root, or why there is none (one line naming the fix).
    default: Result<PathBuf, String>,
    /// The open workspaces, least recently used first.
    open: Vec<Arc<Workspace>>,
}

/// One workspace the server answers for.
pub(crate) struct Workspace {
    pub(crate) root: PathBuf,
    /// Its file watcher, once started; until then, and without one, answers scan.
    watcher: Mutex<Option<Arc<Watcher>>>,
    /// Its code index, kept between lookups.
    pub(crate) lookups: Lookups,
}

impl Workspace {
    /// What a tool that reads no workspace is handed.
    pub(crate) fn none() -> Workspace {
        Workspace {
            root: PathBuf::new(),
            watcher: Mutex::new(None),
            lookups: Lookups::new(),
        }
    }

    pub(crate) fn watcher(&self) -> Option<Arc<Watcher>> {
        self.watcher
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl Workspaces {
    /// The default workspace from `--root`, else (for now) the one found from `cwd`; its
    /// watcher starts in the background.
    pub(crate) fn new(root: Option<PathBuf>, cwd: PathBuf) -> Arc<Workspaces> {
        let explicit = root.is_some();
        let found = pith_engine::workspace_root(root.as_deref(), &cwd)
            .map_err(|e| no_workspace(&e, &cwd, explicit));
        let ws = Arc::new(Workspaces {
            explicit,
            cwd,
            state: Mutex::new(State {
                default: found.clone(),
                open: Vec::new(),
            }),
            settled: tokio::sync::watch::Sender::new(explicit),
        });
        if let Ok(root) = found {
            ws.open(root);
        }
        ws
    }

    /// Whether the client's roots decide the default (no `--root`).
    pub(crate) fn follows_roots(&self) -> bool {
        !self.explicit
    }

    /// Nothing more to wait for: the default stays the one found from the server's directory.
    pub(crate) fn settle(&self) {
        self.settled.send_replace(true);
    }

    /// The client's roots are changing: calls wait for the new ones (when the client follows
    /// roots).
    pub(crate) fn unsettle(&self) {
        if !self.explicit {
            self.settled.send_replace(false);
        }
    }

    /// The client's roots (`file://` URIs): the first that is a directory pith may adopt
    /// becomes the default; with none, the one found from the server's directory stays.
    pub(crate) fn adopt(&self, uris: &[String]) {
        let chosen = uris.iter().find_map(|uri| {
            let dir = file_path(uri)?;
            let dir = dir.canonicalize().ok().filter(|d| d.is_dir())?;
            match pith_engine::too_broad(&dir) {
                Some(what) => {
                    eprintln!(
                        "pith: not adopting the client's root {}: {what}",
                        dir.display()
                    );
                    None
                }
                None => Some(dir),
            }
        });
        if let Some(root) = chosen {
            self.lock().default = Ok(root.clone());
            self.open(root);
        }
        self.settle();
    }

    /// The workspace a call is about, its `root` argument taken out of `args`: the one it
    /// names, else the default once decided (waiting for the client's roots up to
    /// [`ROOTS_WAIT`]). Every tool that answers about a workspace comes here, so each takes
    /// `root` alike. The error is the one line the call answers.
    pub(crate) async fn for_call(
        &self,
        args: &mut Map<String, Value>,
    ) -> Result<Arc<Workspace>, String> {
        let named = named_root(args)?;
        let root = match named {
            // An absolute path needs no default to be decided.
            Some(named) if named.is_absolute() => self.named(&named, &self.cwd)?,
            named => {
                let mut settled = self.settled.subscribe();
                let _ = tokio::time::timeout(ROOTS_WAIT, settled.wait_for(|s| *s)).await;
                let default = self.lock().default.clone();
                match named {
                    Some(named) => {
                        let base = default.unwrap_or_else(|_| self.cwd.clone());
                        self.named(&named, &base)?
                    }
                    None => default?,
                }
            }
        };
        Ok(self.open(root))
    }

    /// The workspace a call's `root` names, relative to `base`.
    fn named(&self, named: &Path, base: &Path) -> Result<PathBuf, String> {
        pith_engine::workspace_root(Some(named), base).map_err(|e| bad_root(&e, base))
    }

    /// The open workspace at `root`, now the most recently used; opened (its watcher started)
    /// when it is not, the least recently used dropped past [`KEPT`].
    fn open(&self, root: PathBuf) -> Arc<Workspace> {
        let mut state = self.lock();
        if let Some(i) = state.open.iter().position(|w| w.root == root) {
            let ws = state.open.remove(i);
            state.open.push(Arc::clone(&ws));
            return ws;
        }
        let ws = Arc::new(Workspace {
            root,
            watcher: Mutex::new(None),
            lookups: Lookups::new(),
        });
        watch(&ws);
        state.open.push(Arc::clone(&ws));
        if state.open.len() > KEPT {
            // A call still answering about it keeps it until it is done.
            state.open.remove(0);
        }
        ws
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    #[cfg(test)]
    pub(crate) fn default_root(&self) -> Result<PathBuf, String> {
        self.lock().default.clone()
    }
}

/// A call's `root` argument, taken out of `args` (the tool itself never sees it).
pub(crate) fn named_root(args: &mut Map<String, Value>) -> Result<Option<PathBuf>, String> {
    match args.remove(ROOT_ARG) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.is_empty() => Ok(Some(PathBuf::from(s))),
        Some(_) => Err(format!(
            "{ROOT_ARG} must be a non-empty string: a project's directory"
        )),
    }
}

/// Starts the watcher on a thread of its own (watching a large tree takes a while, and the
/// handshake must not wait for it); kept only while the workspace is. A workspace that cannot
/// be watched is scanned on each question instead, as the CLI does.
fn watch(ws: &Arc<Workspace>) {
    let kept = Arc::downgrade(ws);
    let root = ws.root.clone();
    std::thread::spawn(move || match Watcher::start(&root) {
        Ok(w) => {
            if let Some(ws) = kept.upgrade() {
                *ws.watcher.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(w));
            }
        }
        Err(e) => eprintln!("pith: answering without a file watcher: {e}"),
    });
}

/// The fix every "no workspace" answer names.
const FIX: &str = "pass `root` (a project's directory), or start the server with `pith mcp \
                   --root DIR` (or from inside the project), or from a client that offers its \
                   workspace roots";

/// Why the server has no default workspace, as a tool answers it: the engine's reason with
/// the server's own fix.
fn no_workspace(e: &RootError, cwd: &Path, explicit: bool) -> String {
    match e {
        RootError::NoProject(_) if !explicit => format!(
            "no workspace: the server's directory {} is in no project (no project marker in it \
             or above) and the client offered no roots; {FIX}",
            cwd.display()
        ),
        RootError::TooBroad(dir, what) if !explicit => format!(
            "no workspace: the project found from the server's directory is {}, {what}, which \
             pith will not scan; {FIX}",
            dir.display()
        ),
        _ => e.to_string(),
    }
}

/// Why a call's `root` names no workspace, one line with the fix.
fn bad_root(e: &RootError, base: &Path) -> String {
    const FIX: &str = "pass a project's directory as `root`";
    match e {
        RootError::NotADirectory(path) => format!(
            "root {} does not exist; {FIX}, absolute or relative to {}",
            path.display(),
            base.display()
        ),
        RootError::NoProject(dir) => format!(
            "root: no project at or above {} (no project marker); {FIX}",
            dir.display()
        ),
        RootError::TooBroad(dir, what) => format!(
            "root: the project found from it is {}, {what}, which pith will not scan; {FIX}",
            dir.display()
        ),
        RootError::Refused(dir, what) => format!(
            "root {} is {what}, which pith will not scan; {FIX}",
            dir.display()
        ),
    }
}

/// The path of a `file://` URI (percent-decoded); `None` for any other scheme.
fn file_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file://host/path`: only the local host.
    let path = match rest.find('/') {
        Some(0) => rest,
        Some(i) if &rest[..i] == "localhost" => &rest[i..],
        _ => return None,
    };
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        if let (b'%', Some(b)) = (bytes[i], hex) {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(file_path("file:///a/b%20c"), Some(PathBuf::from("/a/b c")));
        assert_eq!(file_path("file://localhost/x"), Some(PathBuf::from("/x")));
        assert_eq!(file_path("file:///a%2"), Some(PathBuf::from("/a%2")));
        assert_eq!(file_path("https://example.com/x"), None);
        assert_eq!(file_path("file://other-host/x"), None);
    }

    #[test]
    fn a_client_root_replaces_the_directorys_project_but_not_the_home_directory() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        std::fs::write(a.path().join("pytest.ini"), "").unwrap();
        let ws = Workspaces::new(None, a.path().to_path_buf());
        let a_root = a.path().canonicalize().unwrap();
        assert_eq!(ws.default_root(), Ok(a_root.clone()));
        ws.adopt(&["file:///".to_owned()]);
        assert_eq!(ws.default_root(), Ok(a_root));
        let uri = format!("file://{}", b.path().display());
        ws.adopt(&[uri]);
        assert_eq!(ws.default_root(), Ok(b.path().canonicalize().unwrap()));
    }

    fn args(root: Value) -> Map<String, Value> {
        let mut args = Map::new();
        args.insert(ROOT_ARG.into(), root);
        args.insert("tests".into(), Value::Array(Vec::new()));
        args
    }

    fn for_call(ws: &Workspaces, root: Value) -> Result<Arc<Workspace>, String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let mut args = args(root);
        let found = runtime.block_on(ws.for_call(&mut args));
        // The tool sees its own arguments only.
        assert!(!args.contains_key(ROOT_ARG) && args.contains_key("tests"));
        found
    }

    #[test]
    fn a_calls_root_is_taken_from_the_default_and_opened_once() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        for p in ["a", "b/src"] {
            std::fs::create_dir_all(base.join(p)).unwrap();
        }
        std::fs::write(base.join("pytest.ini"), "").unwrap();
        std::fs::write(base.join("b/go.mod"), "module b\n").unwrap();
        std::fs::write(base.join("b/src/x.go"), "package src\n").unwrap();
        let ws = Workspaces::new(None, base.clone());
        ws.settle();
        let default = for_call(&ws, Value::Null).unwrap();
        assert_eq!(default.root, base);
        // Relative to the default workspace; a file names its project.
        let a = for_call(&ws, "a".into()).unwrap();
        assert_eq!(a.root, base.join("a"));
        let b = for_call(&ws, "b/src/x.go".into()).unwrap();
        assert_eq!(b.root, base.join("b"));
        let again = for_call(&ws, base.join("b").to_str().unwrap().into()).unwrap();
        assert!(Arc::ptr_eq(&b, &again), "opened once");

        let e = for_call(&ws, "/".into()).err().unwrap();
        assert_eq!(
            e,
            "root / is the filesystem root, which pith will not scan; pass a project's \
             directory as `root`"
        );
        let e = for_call(&ws, "nope".into()).err().unwrap();
        assert!(
            e.starts_with("root ") && e.contains("does not exist"),
            "{e}"
        );
        let e = for_call(&ws, 5.into()).err().unwrap();
        assert_eq!(e, "root must be a non-empty string: a project's directory");
    }

    #[test]
    fn past_the_bound_the_least_recently_used_workspace_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let ws = Workspaces::new(None, base.clone());
        ws.settle();
        let open = |name: &str| {
            std::fs::create_dir_all(base.join(name)).unwrap();
            for_call(&ws, name.into()).unwrap()
        };
        let first = Arc::downgrade(&open("p0"));
        let second = Arc::downgrade(&open("p1"));
        for i in 2..KEPT {
            open(&format!("p{i}"));
        }
        // Used again: now the most recent, so the next one past the bound drops `p1`.
        open("p0");
        open("past");
        assert!(first.upgrade().is_some(), "p0 was used last but one");
        // Its watcher's thread holds it for a moment when it sets the watcher it started.
        let until = std::time::Instant::now() + Duration::from_secs(10);
        while second.upgrade().is_some() && std::time::Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(
            second.upgrade().is_none(),
            "p1 dropped, its watcher with it"
        );
        assert_eq!(ws.lock().open.len(), KEPT);
        // Named again, it opens anew.
        assert_eq!(open("p1").root, base.join("p1"));
    }
}
