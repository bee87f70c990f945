//! Where pith keeps what it writes: outside every workspace, so a project's tree holds nothing
//! of pith's (a licence check, a file watcher, a Docker build context, a packaging glob or
//! `git status --ignored` sees nothing new), and pith edits no project or git file.
//!
//! One base directory holds all of it: each workspace's state (`state/<name>-<hash>/`: the
//! database, the run lock, the code index, the watcher's cookies) and the engine's cache
//! (embedded reporters and plugins, each run's scratch directory), so one variable moves
//! everything. The base is `$PITH_CACHE_DIR`, else `$XDG_CACHE_HOME/pith`, else the user's
//! cache directory (`~/.cache/pith`; `~/Library/Caches/pith` on macOS). Where that cannot be
//! written — a sandbox that allows writes only in the workspace and the temporary directory —
//! the base is `$TMPDIR/pith-<uid>`: a directory in a shared place, so it is made 0700 and used
//! only while it is a real directory owned by this user (never through a link), which keeps
//! everything below it out of other users' reach.
//!
//! A workspace's directory is named after its canonical path: the directory's own name (for a
//! person listing the base) and 16 hex digits of that path's xxh3, a hash fixed by its
//! specification, so every pith version and process finds the same directory. Two workspaces
//! never share one; a workspace that moves starts a new history. The directory is never
//! followed through a link. The base is tagged with `CACHEDIR.TAG` (backup tools skip it, and
//! pith's own walks treat a tagged directory as generated should the base sit inside a
//! workspace), and directories whose workspace is gone are removed after a day unused.

use std::ffi::{OsStr, OsString};
use std::fs::{DirBuilder, OpenOptions};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::StoreError;

/// The variable that puts pith's base directory elsewhere (a CI cache, a scratch disk).
pub const CACHE_ENV: &str = "PITH_CACHE_DIR";
/// Where pith kept its state inside the workspace before: still never walked, never an input
/// of the generation, never read or written.
pub const LEGACY_DIR: &str = ".pith";
/// The base's subdirectory holding one directory per workspace.
const STATES: &str = "state";
/// In each workspace's directory: the workspace's path, for a person and for pruning.
const WORKSPACE_FILE: &str = "workspace";
/// In [`STATES`]: its modification time is the last sweep for stale directories.
const SWEPT: &str = ".swept";
/// A state directory whose workspace is gone is removed once unused this long.
const STALE_AFTER: Duration = Duration::from_secs(24 * 3600);
/// Sweeps for stale directories are this far apart at least.
const SWEEP_EVERY: Duration = Duration::from_secs(3600);
/// The Cache Directory Tagging Specification's tag (https://bford.info/cachedir/).
const TAG: &str = "CACHEDIR.TAG";
const TAG_TEXT: &[u8] = b"Signature: 8a477f597d28d172789f06886806bc55\n\
# This file is a cache directory tag created by pith: its state and caches, all of them\n\
# rebuilt when missing. See https://bford.info/cachedir/\n";

/// The places the base may be, in the order they are tried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Candidates {
    /// `$PITH_CACHE_DIR`, `$XDG_CACHE_HOME/pith` or the user's cache directory; none without
    /// a home.
    preferred: Option<PathBuf>,
    /// `$TMPDIR/pith-<uid>`, shared with other users' temporary files.
    fallback: PathBuf,
}

impl Candidates {
    /// The candidates as the variables `var` reads say (the process environment in use).
    pub(crate) fn from(var: impl Fn(&str) -> Option<OsString>) -> Candidates {
        let set = |k: &str| var(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        let preferred = match set(CACHE_ENV) {
            // Relative to where pith was started, as a shell would read it.
            Some(dir) => Some(std::path::absolute(&dir).unwrap_or(dir)),
            None => set("XDG_CACHE_HOME")
                // The XDG specification: a relative path is invalid and is ignored.
                .filter(|d| d.is_absolute())
                .map(|d| d.join("pith"))
                .or_else(|| {
                    set("HOME")
                        .filter(|h| h.is_absolute())
                        .map(|h| user_cache(&h).join("pith"))
                }),
        };
        let tmp = set("TMPDIR")
            .filter(|d| d.is_absolute())
            .unwrap_or_else(|| PathBuf::from("/tmp"));
        Candidates {
            preferred,
            // SAFETY: geteuid has no failure and touches no memory.
            fallback: tmp.join(format!("pith-{}", unsafe { libc::geteuid() })),
        }
    }
}

#[cfg(target_os = "macos")]
fn user_cache(home: &Path) -> PathBuf {
    home.join("Library/Caches")
}

#[cfg(not(target_os = "macos"))]
fn user_cache(home: &Path) -> PathBuf {
    home.join(".cache")
}

/// pith's base directory, created, tagged and writable: the preferred one, else the
/// temporary directory's `pith-<uid>`. An error names both and why neither would do.
pub fn base_dir() -> Result<PathBuf, StoreError> {
    // The crate's own tests keep their workspaces' state out of the user's cache; the choice
    // of a base is tested on its own (`Candidates`).
    #[cfg(test)]
    let candidates = Candidates {
        preferred: Some(std::env::temp_dir().join("pith-store-tests")),
        fallback: std::env::temp_dir().join("pith-store-tests-fallback"),
    };
    #[cfg(not(test))]
    let candidates = Candidates::from(|k| std::env::var_os(k));
    candidates.usable()
}

impl Candidates {
    fn usable(&self) -> Result<PathBuf, StoreError> {
        let mut tried = Vec::new();
        if let Some(dir) = &self.preferred {
            match prepare(dir, false) {
                Ok(()) => return Ok(dir.clone()),
                Err(e) => tried.push(format!("{} ({e})", dir.display())),
            }
        }
        match prepare(&self.fallback, true) {
            Ok(()) => Ok(self.fallback.clone()),
            Err(e) => {
                tried.push(format!("{} ({e})", self.fallback.display()));
                Err(StoreError::NoBase(tried.join(", ")))
            }
        }
    }
}

/// Makes `dir` ready to be the base, or says why it cannot be. Opening its tag for writing is
/// the proof that it can be written (a read-only file system, a sandbox's read-only mount, a
/// directory of someone else's all fail there). A `shared` directory (in the temporary
/// directory) is made 0700 and must be a real directory owned by this user.
fn prepare(dir: &Path, shared: bool) -> std::io::Result<()> {
    if shared {
        match DirBuilder::new().mode(0o700).create(dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        let meta = std::fs::symlink_metadata(dir)?;
        if meta.file_type().is_symlink() {
            return Err(std::io::Error::other("a symbolic link"));
        }
        if !meta.is_dir() {
            return Err(std::io::Error::other("not a directory"));
        }
        // SAFETY: as above.
        if meta.uid() != unsafe { libc::geteuid() } {
            return Err(std::io::Error::other("owned by another user"));
        }
        if meta.mode() & 0o077 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
        }
    } else {
        DirBuilder::new().recursive(true).create(dir)?;
    }
    let mut tag = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW)
        .open(dir.join(TAG))?;
    if tag.metadata()?.len() == 0 {
        tag.write_all(TAG_TEXT)?;
    }
    Ok(())
}

/// The name of `root`'s directory under the base's `state/`: the workspace directory's own
/// name (letters, digits, `.`, `_`, `-`; the rest `_`; 40 at most) and the xxh3 of its
/// canonical path in 16 hex digits.
pub fn workspace_key(root: &Path) -> String {
    let canonical = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let hash = xxhash_rust::xxh3::xxh3_64(canonical.as_os_str().as_bytes());
    let name: String = canonical
        .file_name()
        .map(|n| {
            n.to_string_lossy()
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                        c
                    } else {
                        '_'
                    }
                })
                .take(40)
                .collect()
        })
        .filter(|n: &String| !n.is_empty())
        .unwrap_or_else(|| "root".to_owned());
    format!("{name}-{hash:016x}")
}

/// Where the state of the workspace at `root` lives under the base `base`, whether or not it
/// exists yet: what [`state_dir`] creates, for tests and tools that look inside.
pub fn state_path(base: &Path, root: &Path) -> PathBuf {
    base.join(STATES).join(workspace_key(root))
}

/// The state directory of the workspace at `root` (absolute, canonical), created when missing:
/// `<base>/state/<name>-<hash>/`. One that is a symbolic link (or anything but a directory) is
/// an error: pith never reads or writes through it, wherever it points.
pub fn state_dir(root: &Path) -> Result<PathBuf, StoreError> {
    Ok(open_in(&base_dir()?, root)?.0)
}

/// [`state_dir`] under the base `base`, and whether this call made it.
pub(crate) fn open_in(base: &Path, root: &Path) -> Result<(PathBuf, bool), StoreError> {
    let states = base.join(STATES);
    let made = |dir: &Path| match DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(StoreError::io(format!("creating {}", dir.display()), e)),
    };
    made(&states)?;
    let dir = state_path(base, root);
    let created = made(&dir)?;
    match std::fs::symlink_metadata(&dir) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(StoreError::Link(dir.display().to_string()))
        }
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(StoreError::io(
                format!("using {}", dir.display()),
                std::io::Error::other("not a directory"),
            ))
        }
        Err(e) => return Err(StoreError::io(format!("using {}", dir.display()), e)),
    }
    if created {
        // A person listing the base, and the sweep, can tell whose state this is.
        if let Ok(mut f) = OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(dir.join(WORKSPACE_FILE))
        {
            let canonical = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
            let _ = f.write_all(canonical.as_os_str().as_bytes());
        }
        sweep(&states, SystemTime::now());
    }
    Ok((dir, created))
}

/// Removes the state directories (of `states`) whose workspace no longer exists and which no
/// pith used for [`STALE_AFTER`], at most once every [`SWEEP_EVERY`]: a temporary workspace's
/// state does not outlive it for long, and a workspace that is only out of reach for a while
/// (an unmounted disk) keeps its history. Best effort; a directory without pith's record of
/// its workspace, or whose run lock is held, is left alone.
pub(crate) fn sweep(states: &Path, now: SystemTime) {
    let stamp = states.join(SWEPT);
    let recent = std::fs::symlink_metadata(&stamp)
        .and_then(|m| m.modified())
        .is_ok_and(|t| now.duration_since(t).is_ok_and(|d| d < SWEEP_EVERY));
    if recent {
        return;
    }
    let touched = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&stamp)
        .and_then(|f| f.set_modified(now));
    if touched.is_err() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(states) else {
        return;
    };
    for entry in entries.flatten() {
        // The entry itself, never followed.
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let dir = entry.path();
        if stale(&dir, now) && !locked(&dir) {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// Whether the state directory `dir` names a workspace that is gone and was last used
/// [`STALE_AFTER`] before `now`.
fn stale(dir: &Path, now: SystemTime) -> bool {
    let Ok(workspace) = std::fs::read(dir.join(WORKSPACE_FILE)) else {
        return false;
    };
    let workspace = Path::new(OsStr::from_bytes(&workspace));
    if workspace.as_os_str().is_empty()
        || !matches!(std::fs::symlink_metadata(workspace), Err(e) if e.kind() == std::io::ErrorKind::NotFound)
    {
        return false;
    }
    let used = ["", "state.db", "state.db-wal", "run.lock", "index.bin"]
        .iter()
        .filter_map(|f| std::fs::symlink_metadata(dir.join(f)).ok()?.modified().ok())
        .max();
    used.is_some_and(|t| now.duration_since(t).is_ok_and(|d| d >= STALE_AFTER))
}

/// Whether a pith run holds `dir`'s run lock now.
fn locked(dir: &Path) -> bool {
    use std::os::fd::AsRawFd;
    let Ok(file) = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(dir.join(crate::lock::LOCK_FILE))
    else {
        return false;
    };
    // SAFETY: flock on a descriptor this function owns; released when it closes.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) != 0 }
}

/// Moves what an older pith kept in the workspace's `.pith/` out of it, into the state
/// directory `dir` (the database and its history, unless `dir` has one already; the lock, the
/// code index and cookies are rebuilt), and removes the old directory: it is in the project's
/// tree, where a licence check or a packaging glob finds it (commons-csv's RAT check failed the
/// user's own `mvn test` on `.pith/run.lock`). Only pith's own files go: a `.pith` that is a
/// link, that holds anything pith never wrote, whose database is not pith's, or whose old run
/// lock is held (an older pith at work) is left as it is, and never read. A one-line note says
/// what was done, or — on the state directory's first use (`first`), so not on every command
/// — why not; `None` when there is no `.pith/`.
pub(crate) fn migrate(root: &Path, dir: &Path, first: bool) -> Option<String> {
    let legacy = root.join(LEGACY_DIR);
    let meta = std::fs::symlink_metadata(&legacy).ok()?;
    let left = |why: &str| {
        first.then(|| {
            format!(
            "the {LEGACY_DIR}/ an older pith left in the workspace is {why}: pith no longer uses \
             it (its state is in {}); remove it if it is not the project's",
            dir.display()
        )
        })
    };
    if meta.file_type().is_symlink() {
        return left("a symbolic link");
    }
    if !meta.is_dir() {
        return left("not a directory");
    }
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&legacy).ok()?.flatten() {
        let name = entry.file_name();
        let ours = name.to_str().is_some_and(is_legacy_file)
            && entry.file_type().is_ok_and(|t| t.is_file());
        if !ours {
            return left("not pith's alone");
        }
        names.push(name);
    }
    let db = legacy.join("state.db");
    if db.exists() && !is_pith_database(&db) {
        return left("not pith's alone");
    }
    // Held while moving: an older pith that starts meanwhile waits, one at work is not
    // disturbed.
    let lock = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(legacy.join(crate::lock::LOCK_FILE));
    if let Ok(lock) = &lock {
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor this function owns; released when it closes.
        if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return left("in use by an older pith");
        }
    }
    let fresh = !dir.join("state.db").exists();
    let mut moved = false;
    if fresh && db.exists() {
        for f in ["state.db", "state.db-wal"] {
            let from = legacy.join(f);
            if from.exists() && move_file(&from, &dir.join(f)).is_err() {
                // Half a database is none: start afresh rather than read it.
                let _ = std::fs::remove_file(dir.join("state.db"));
                return left("not movable out of the workspace");
            }
        }
        moved = true;
    }
    for name in &names {
        let _ = std::fs::remove_file(legacy.join(name));
    }
    drop(lock);
    if std::fs::remove_dir(&legacy).is_err() {
        return left("still there");
    }
    Some(format!(
        "moved the {}state an older pith kept in the workspace's {LEGACY_DIR}/ to {} and removed \
         {LEGACY_DIR}/",
        if moved { "history and " } else { "" },
        dir.display()
    ))
}

/// The names an older pith wrote in `.pith/`.
fn is_legacy_file(name: &str) -> bool {
    matches!(
        name,
        "state.db" | "state.db-wal" | "state.db-shm" | "run.lock" | "index.bin"
    ) || name.starts_with("state.db.corrupt-")
        || name.starts_with("sync-")
        || (name.starts_with("index.bin.") && name.ends_with(".tmp"))
}

/// Whether the file at `path` is an SQLite database with pith's application id — or, since
/// pith's connections leave their writes in the WAL until a checkpoint, one whose header has no
/// application id yet and a WAL beside it (read without SQLite, which would write beside it).
/// A foreign file taken for pith's loses nothing: opening moves it aside, kept.
fn is_pith_database(path: &Path) -> bool {
    use std::io::Read;
    let mut header = [0u8; 72];
    let read = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .and_then(|mut f| f.read_exact(&mut header));
    if read.is_err() || !header.starts_with(b"SQLite format 3\0") {
        return false;
    }
    match i32::from_be_bytes([header[68], header[69], header[70], header[71]]) {
        crate::db::APPLICATION_ID => true,
        0 => std::fs::symlink_metadata(path.with_file_name("state.db-wal"))
            .is_ok_and(|m| m.is_file()),
        _ => false,
    }
}

/// Renames `from` to `to`, or copies it across file systems.
fn move_file(from: &Path, to: &Path) -> std::io::Result<()> {
    match std::fs::rename(from, to) {
        Err(e) if e.raw_os_error() == Some(libc::EXDEV) => {
            std::fs::copy(from, to)?;
            std::fs::remove_file(from)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let pairs: Vec<(String, OsString)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        move |k| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    }

    fn uid() -> u32 {
        unsafe { libc::geteuid() }
    }

    #[test]
    fn the_base_is_pith_cache_dir_then_xdg_then_the_home_cache() {
        let all = [
            ("PITH_CACHE_DIR", "/ci/cache"),
            ("XDG_CACHE_HOME", "/x"),
            ("HOME", "/home/u"),
            ("TMPDIR", "/scratch"),
        ];
        let c = Candidates::from(vars(&all));
        assert_eq!(c.preferred.as_deref(), Some(Path::new("/ci/cache")));
        assert_eq!(
            c.fallback,
            PathBuf::from(format!("/scratch/pith-{}", uid()))
        );
        let c = Candidates::from(vars(&all[1..]));
        assert_eq!(c.preferred.as_deref(), Some(Path::new("/x/pith")));
        let c = Candidates::from(vars(&all[2..]));
        let home_cache = if cfg!(target_os = "macos") {
            "/home/u/Library/Caches/pith"
        } else {
            "/home/u/.cache/pith"
        };
        assert_eq!(c.preferred.as_deref(), Some(Path::new(home_cache)));
        // Empty values are unset; a relative XDG_CACHE_HOME is invalid (the specification).
        let c = Candidates::from(vars(&[
            ("PITH_CACHE_DIR", ""),
            ("XDG_CACHE_HOME", "rel"),
            ("HOME", "/home/u"),
        ]));
        assert_eq!(c.preferred.as_deref(), Some(Path::new(home_cache)));
        assert_eq!(c.fallback, PathBuf::from(format!("/tmp/pith-{}", uid())));
        // No home at all: the temporary directory only.
        assert_eq!(Candidates::from(vars(&[])).preferred, None);
        // A relative PITH_CACHE_DIR is read from where pith started.
        let c = Candidates::from(vars(&[("PITH_CACHE_DIR", "cache")]));
        assert_eq!(
            c.preferred,
            Some(std::env::current_dir().unwrap().join("cache"))
        );
    }

    #[test]
    fn an_unwritable_base_falls_back_to_a_private_temporary_directory() {
        let t = tempfile::tempdir().unwrap();
        // A file where a directory would be: no user, root included, can write below it.
        std::fs::write(t.path().join("file"), "").unwrap();
        let c = Candidates {
            preferred: Some(t.path().join("file/pith")),
            fallback: t.path().join("pith-fallback"),
        };
        assert_eq!(c.usable().unwrap(), c.fallback);
        let meta = std::fs::metadata(&c.fallback).unwrap();
        assert_eq!(meta.mode() & 0o777, 0o700);
        assert!(std::fs::read(c.fallback.join(TAG))
            .unwrap()
            .starts_with(b"Signature: 8a477f597d28d172789f06886806bc55"));
        // A writable preferred base is used, and tagged.
        let c = Candidates {
            preferred: Some(t.path().join("home/.cache/pith")),
            fallback: t.path().join("unused"),
        };
        assert_eq!(c.usable().unwrap(), t.path().join("home/.cache/pith"));
        assert!(t.path().join("home/.cache/pith").join(TAG).is_file());
        assert!(!t.path().join("unused").exists());
    }

    #[test]
    fn a_shared_fallback_is_never_a_link_and_always_private() {
        let t = tempfile::tempdir().unwrap();
        let elsewhere = t.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        let fallback = t.path().join("pith-0");
        std::os::unix::fs::symlink(&elsewhere, &fallback).unwrap();
        let c = Candidates {
            preferred: None,
            fallback: fallback.clone(),
        };
        let err = c.usable().unwrap_err().to_string();
        assert!(err.contains("a symbolic link"), "{err}");
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
        // A file there is no directory.
        std::fs::remove_file(&fallback).unwrap();
        std::fs::write(&fallback, "").unwrap();
        assert!(c.usable().is_err());
        // One of ours left open to others is closed again.
        std::fs::remove_file(&fallback).unwrap();
        std::fs::create_dir(&fallback).unwrap();
        std::fs::set_permissions(&fallback, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert_eq!(c.usable().unwrap(), fallback);
        let mode = std::fs::metadata(&fallback).unwrap().mode();
        assert_eq!(mode & 0o777, 0o700);
    }

    #[test]
    fn a_shared_fallback_owned_by_someone_else_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let fallback = t.path().join("pith-x");
        std::fs::create_dir(&fallback).unwrap();
        // Only root can hand a directory to someone else; as anyone else, the tempdir is
        // ours and the check is shown by a directory made by root (`/`).
        let theirs = if uid() == 0 {
            std::os::unix::fs::chown(&fallback, Some(65534), None).unwrap();
            fallback.clone()
        } else {
            PathBuf::from("/")
        };
        let c = Candidates {
            preferred: None,
            fallback: theirs,
        };
        let err = c.usable().unwrap_err().to_string();
        assert!(err.contains("owned by another user"), "{err}");
    }

    #[test]
    fn a_workspace_key_is_its_name_and_a_stable_hash_of_its_path() {
        let p = Path::new("/nonexistent-pith/proj ects/my app");
        // xxh3_64 of the path's bytes, as the reference implementation (xxHash's
        // `XXH3_64bits`) gives them: fixed by its specification, so every pith version finds
        // the same directory.
        assert_eq!(workspace_key(p), "my_app-a676444cbadcd3d1");
        assert_eq!(workspace_key(Path::new("/")), "root-474292953285562e");
        assert_ne!(
            workspace_key(Path::new("/a/my app")),
            workspace_key(p),
            "the same name elsewhere is another workspace"
        );
        // Spellings of one directory are one workspace.
        let t = tempfile::tempdir().unwrap();
        let ws = t.path().join("ws");
        std::fs::create_dir(&ws).unwrap();
        std::os::unix::fs::symlink(&ws, t.path().join("link")).unwrap();
        assert_eq!(workspace_key(&t.path().join("link")), workspace_key(&ws));
        assert_eq!(workspace_key(&ws.join("..").join("ws")), workspace_key(&ws));
    }

    #[test]
    fn a_state_directory_is_made_once_and_never_through_a_link() {
        let base = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path().canonicalize().unwrap();
        let (first, created) = open_in(base.path(), &root).unwrap();
        assert!(created);
        assert_eq!(first, state_path(base.path(), &root));
        assert_eq!(
            std::fs::read(first.join(WORKSPACE_FILE)).unwrap(),
            root.as_os_str().as_bytes()
        );
        assert_eq!(open_in(base.path(), &root).unwrap(), (first.clone(), false));
        std::fs::remove_dir_all(&first).unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), &first).unwrap();
        match open_in(base.path(), &root) {
            Err(e @ StoreError::Link(_)) => assert!(e.to_string().contains("symbolic link")),
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("used a state directory through a link"),
        }
        assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    }

    #[test]
    fn the_state_of_a_workspace_gone_for_a_day_is_swept() {
        let base = tempfile::tempdir().unwrap();
        let states = base.path().join(STATES);
        let live = tempfile::tempdir().unwrap();
        let gone = tempfile::tempdir().unwrap();
        let gone_root = gone.path().canonicalize().unwrap();
        let (kept, _) = open_in(base.path(), live.path()).unwrap();
        let (dropped, _) = open_in(base.path(), &gone_root).unwrap();
        drop(gone);
        let held = tempfile::tempdir().unwrap();
        let (held_dir, _) = open_in(base.path(), held.path()).unwrap();
        let lock = crate::lock::acquire(&held_dir, Duration::ZERO).unwrap();
        drop(held);
        // Not ours: no record of a workspace.
        std::fs::create_dir(states.join("someone-else")).unwrap();

        // Gone, but used within the day: kept.
        let now = SystemTime::now();
        let _ = std::fs::remove_file(states.join(SWEPT));
        sweep(&states, now);
        assert!(dropped.is_dir());
        // A day later: swept, unless live, held or not pith's; but not twice within the hour.
        let later = now + STALE_AFTER + Duration::from_secs(60);
        sweep(&states, later - Duration::from_secs(1800));
        assert!(dropped.is_dir(), "not a day yet");
        sweep(&states, later);
        assert!(dropped.is_dir(), "the last sweep was half an hour before");
        let _ = std::fs::remove_file(states.join(SWEPT));
        sweep(&states, later);
        assert!(!dropped.exists());
        assert!(kept.is_dir());
        assert!(held_dir.is_dir(), "a held run lock is a pith at work");
        assert!(states.join("someone-else").is_dir());
        drop(lock);
    }
}
