//! Which workspace the server's tools answer about, and its file watcher.
//!
//! `--root` decides when given. Otherwise the client's roots do (`roots/list`, asked once the
//! session starts when the client declares the capability, and again on
//! `roots/list_changed`), else the project found from the server's directory the way the CLI
//! finds it. Never a directory with no project marker above it, the filesystem root or the
//! home directory: without a workspace, tools answer in band with the fix.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pith_engine::{RootError, Watcher};

/// How long a tool call waits for the client's roots before answering from the server's
/// directory.
const ROOTS_WAIT: Duration = Duration::from_secs(10);

pub(crate) struct Workspace {
    /// `--root`: then the client's roots are not asked.
    explicit: bool,
    state: Mutex<State>,
    /// True once the workspace is decided (roots answered, or none to ask).
    settled: tokio::sync::watch::Sender<bool>,
}

struct State {
    /// The workspace root, or why there is none (one line naming the fix).
    root: Result<PathBuf, String>,
    /// The watcher on `root`, once started.
    watcher: Option<Arc<Watcher>>,
}

impl Workspace {
    /// The workspace from `--root`, else (for now) the one found from `cwd`; its watcher starts
    /// in the background.
    pub(crate) fn new(root: Option<PathBuf>, cwd: PathBuf) -> Arc<Workspace> {
        let explicit = root.is_some();
        let found = pith_engine::workspace_root(root.as_deref(), &cwd)
            .map_err(|e| no_workspace(&e, &cwd, explicit));
        let ws = Arc::new(Workspace {
            explicit,
            state: Mutex::new(State {
                root: found.clone(),
                watcher: None,
            }),
            settled: tokio::sync::watch::Sender::new(explicit),
        });
        if let Ok(root) = found {
            watch(&ws, root);
        }
        ws
    }

    /// Whether the client's roots decide (no `--root`).
    pub(crate) fn follows_roots(&self) -> bool {
        !self.explicit
    }

    /// Nothing more to wait for: the workspace stays the one found from the server's
    /// directory.
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
    /// becomes the workspace; with none, the one found from the server's directory stays.
    pub(crate) fn adopt(self: &Arc<Self>, uris: &[String]) {
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
            let changed = {
                let mut state = self.lock();
                let changed = state.root.as_ref().ok() != Some(&root);
                if changed {
                    state.root = Ok(root.clone());
                    state.watcher = None;
                }
                changed
            };
            if changed {
                watch(self, root);
            }
        }
        self.settle();
    }

    /// The workspace root and its watcher (when it has started), once decided: waits for the
    /// client's roots up to [`ROOTS_WAIT`].
    pub(crate) async fn current(&self) -> Result<(PathBuf, Option<Arc<Watcher>>), String> {
        let mut settled = self.settled.subscribe();
        let _ = tokio::time::timeout(ROOTS_WAIT, settled.wait_for(|s| *s)).await;
        let state = self.lock();
        let root = state.root.clone()?;
        Ok((root, state.watcher.clone()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    #[cfg(test)]
    pub(crate) fn root(&self) -> Result<PathBuf, String> {
        self.lock().root.clone()
    }
}

/// Starts the watcher on `root` on a thread of its own (watching a large tree takes a while,
/// and the handshake must not wait for it); kept only while `root` is still the workspace. A
/// workspace that cannot be watched is scanned on each question instead, as the CLI does.
fn watch(ws: &Arc<Workspace>, root: PathBuf) {
    let ws = Arc::clone(ws);
    std::thread::spawn(move || match Watcher::start(&root) {
        Ok(w) => {
            let mut state = ws.lock();
            if state.root.as_ref().ok() == Some(&root) {
                state.watcher = Some(Arc::new(w));
            }
        }
        Err(e) => eprintln!("pith: answering without a file watcher: {e}"),
    });
}

/// Why the server has no workspace, as a tool answers it: the engine's reason with the
/// server's own fix.
fn no_workspace(e: &RootError, cwd: &Path, explicit: bool) -> String {
    const FIX: &str = "start the server with `pith mcp --root DIR` (or from inside the \
                       project), or from a client that offers its workspace roots";
    match e {
        RootError::NotADirectory(_) => e.to_string(),
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
        let ws = Workspace::new(None, a.path().to_path_buf());
        let a_root = a.path().canonicalize().unwrap();
        assert_eq!(ws.root(), Ok(a_root.clone()));
        ws.adopt(&["file:///".to_owned()]);
        assert_eq!(ws.root(), Ok(a_root));
        let uri = format!("file://{}", b.path().display());
        ws.adopt(&[uri]);
        assert_eq!(ws.root(), Ok(b.path().canonicalize().unwrap()));
    }
}
