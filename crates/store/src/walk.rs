//! The workspace walk behind a scan: every file a test could read, which is more than git sees:
//! an ignored `.env`, `local_settings.py` or `fixtures/data.json` is an input too. Skipped are
//! `.git/`, an older pith's `.pith/`, tool caches and generated directories (tagged, or beside the build file
//! whose tool writes them), dependency trees (virtualenvs, `node_modules/`: the walk reports
//! them and `environment` fingerprints them instead), and — only when ignored (`.gitignore` and
//! `.ignore` at every level, `.git/info/exclude`, the global excludes, and the `.gitignore`
//! files of directories above the root inside the repository) — what builds, test runs,
//! editors and package managers write (see [`crate::filter`], which the index's walk shares), so a run's own
//! output never counts as a change. Directories are shared among threads; each file is stat'ed
//! relative to its directory's descriptor (no path lookup), which is most of what a scan of an
//! unchanged workspace costs.

use std::fs::{FileType, Metadata};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;

use crate::filter::{self, Entry};

pub(crate) use crate::filter::Tree;

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
        if let Some((top, git_dir)) = repository(root) {
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
        let global = global_excludes();
        if !global.is_empty() {
            matchers.push((global, String::new()));
        }
        Base { matchers }
    }
}

/// git's global excludes, as [`Gitignore::global`] finds them: `core.excludesFile` from the
/// first of git's global and system configs that names one, else `git/ignore` in the XDG
/// config directory. `global` compiles a regular expression to look for the setting in each
/// config it reads (0.3 ms of CPU on every run, on any machine with a `~/.gitconfig`); a config
/// that never says `excludesfile` cannot name one, so `global` is asked only when one does.
fn global_excludes() -> Gitignore {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let home = std::env::home_dir();
    let xdg = var("XDG_CONFIG_HOME").or_else(|| home.as_ref().map(|h| h.join(".config")));
    let configs = [
        var("GIT_CONFIG_GLOBAL"),
        home.map(|h| h.join(".gitconfig")),
        xdg.as_ref().map(|x| x.join("git/config")),
        Some(var("GIT_CONFIG_SYSTEM").unwrap_or_else(|| PathBuf::from("/etc/gitconfig"))),
    ];
    if configs.iter().flatten().any(|c| names_excludes_file(c)) {
        return Gitignore::global().0;
    }
    match (xdg, std::env::current_dir()) {
        (Some(xdg), Ok(cwd)) => default_excludes(&xdg, cwd),
        _ => Gitignore::empty(),
    }
}

/// Whether the git config at `path` may set `core.excludesFile` (any spelling of its key).
fn names_excludes_file(path: &Path) -> bool {
    const KEY: &[u8] = b"excludesfile";
    std::fs::read(path)
        .is_ok_and(|text| text.windows(KEY.len()).any(|w| w.eq_ignore_ascii_case(KEY)))
}

/// The excludes git reads when no config names a file: `<xdg>/git/ignore`, if there is one.
fn default_excludes(xdg: &Path, cwd: PathBuf) -> Gitignore {
    let path = xdg.join("git/ignore");
    if !path.is_file() {
        return Gitignore::empty();
    }
    let mut b = GitignoreBuilder::new(cwd);
    let _ = b.add(path);
    b.build().unwrap_or_else(|_| Gitignore::empty())
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

/// Directories waiting to be read before another thread joins the walk: a small workspace
/// (most fixtures, a small crate) is walked by the caller alone, where starting a thread
/// would cost more than it saves.
const SPREAD: usize = 4;

/// What every thread of one walk shares.
struct Crew<'a> {
    queue: Queue,
    base: Base,
    v: &'a Visitor<'a>,
    /// Threads that may still join.
    helpers: AtomicUsize,
}

/// Walks `root`, calling `v` back: on the calling thread, joined by others (up to the
/// processors there are, eight at most) while more than [`SPREAD`] directories wait.
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
    let crew = Crew {
        queue,
        base,
        v,
        helpers: AtomicUsize::new(threads - 1),
    };
    std::thread::scope(|s| work(s, &crew));
}

fn work<'s, 'e>(s: &'s std::thread::Scope<'s, 'e>, crew: &'e Crew<'e>) {
    let (queue, base, v) = (&crew.queue, &crew.base, crew.v);
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
        let waiting = match queue.state.lock() {
            Ok(mut st) => {
                st.0.extend(children);
                st.1 -= 1;
                st.0.len()
            }
            Err(_) => 0,
        };
        queue.wake.notify_all();
        let join = waiting > SPREAD
            && crew
                .helpers
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_ok();
        if join {
            s.spawn(move || work(s, crew));
        }
    }
}

impl Job {
    /// The ignore rules below this directory, whose `.gitignore` or `.ignore` is there: its
    /// own over its parents' (theirs alone when it cannot be read).
    fn rules_here(&self) -> Option<Arc<Rules>> {
        match matcher(&self.abs, &[".gitignore", ".ignore"]) {
            Some(m) => Some(Arc::new(Rules {
                dir: self.prefix.trim_end_matches('/').to_owned(),
                matcher: m,
                parent: self.rules.clone(),
            })),
            None => self.rules.clone(),
        }
    }
}

/// Whether the filter's verdict keeps the walk out of directory `rel`; a dependency tree is
/// reported first.
fn kept_out(verdict: Option<Entry>, rel: &str, v: &Visitor<'_>) -> bool {
    match verdict {
        Some(Entry::Tree(t)) => {
            (v.tree)(rel, t);
            true
        }
        Some(_) => true,
        None => false,
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
    if !is_root && kept_out(filter::generated(has), job.prefix.trim_end_matches('/'), v) {
        return Vec::new();
    }
    let rules = if has(".gitignore") || has(".ignore") {
        job.rules_here()
    } else {
        job.rules.clone()
    };
    let outputs = filter::build_outputs(names.iter().map(|n| n.as_os_str()));
    let links = filter::output_links(names.iter().map(|n| n.as_os_str()));
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
            if kept_out(filter::by_name(name, &outputs), &rel, v) {
                continue;
            }
            let ignored = job.ignored || ignored(rules.as_ref(), base, &rel, true);
            if ignored && kept_out(filter::when_ignored(name), &rel, v) {
                continue;
            }
            children.push(Job {
                abs: job.abs.join(name),
                prefix: format!("{rel}/"),
                rules: rules.clone(),
                ignored,
            });
        } else if ft.is_file() || ft.is_symlink() {
            if ft.is_symlink() && links.iter().any(|p| name.to_string_lossy().starts_with(p)) {
                continue;
            }
            // Only a name tools write needs the ignore rules' verdict.
            if filter::is_output_file(&name.to_string_lossy())
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

/// The work tree's top directory and the directory holding its `info/exclude` (the common
/// git directory, for a linked work tree).
fn repository(root: &Path) -> Option<(PathBuf, PathBuf)> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file once, whether the walk stays on one thread or others join it.
    #[test]
    fn every_file_is_reported_once_by_one_thread_or_several() {
        for dirs in [1, 3, 60] {
            let tmp = tempfile::tempdir().unwrap();
            let mut expected = Vec::new();
            for d in 0..dirs {
                let dir = tmp.path().join(format!("d{d}")).join("inner");
                std::fs::create_dir_all(&dir).unwrap();
                for f in 0..3 {
                    std::fs::write(dir.join(format!("f{f}.txt")), "x").unwrap();
                    expected.push(format!("d{d}/inner/f{f}.txt"));
                }
            }
            let seen = Mutex::new(Vec::new());
            let file = |f: Found<'_>| seen.lock().unwrap().push(f.rel.to_owned());
            let v = Visitor {
                wanted: &|_| true,
                file: &file,
                tree: &|_, _| {},
            };
            walk(tmp.path(), &v);
            let mut seen = seen.into_inner().unwrap();
            seen.sort();
            expected.sort();
            assert_eq!(seen, expected, "{dirs} directories");
        }
    }

    /// A config names an excludes file only where it says `excludesfile`, in any case; with
    /// none, the XDG directory's `git/ignore` is the global excludes, and nothing without it.
    #[test]
    fn global_excludes_are_found_as_git_finds_them() {
        let tmp = tempfile::tempdir().unwrap();
        let config = tmp.path().join("gitconfig");
        std::fs::write(&config, "[user]\n\tname = x\n[core]\n\teditor = vi\n").unwrap();
        assert!(!names_excludes_file(&config));
        std::fs::write(&config, "[core]\n\texcludesFile = ~/.gi\n").unwrap();
        assert!(names_excludes_file(&config));
        assert!(!names_excludes_file(&tmp.path().join("absent")));

        let xdg = tmp.path().join("xdg");
        assert!(default_excludes(&xdg, tmp.path().into()).is_empty());
        std::fs::create_dir_all(xdg.join("git")).unwrap();
        std::fs::write(xdg.join("git/ignore"), "*.log\n").unwrap();
        let m = default_excludes(&xdg, tmp.path().into());
        assert!(m.matched("a/b.log", false).is_ignore());
        assert!(!m.matched("a/b.txt", false).is_ignore());
        // Whatever this machine's configs say, the same rules as the crate's own search.
        let (ours, theirs) = (global_excludes(), Gitignore::global().0);
        assert_eq!(
            (ours.num_ignores(), ours.num_whitelists()),
            (theirs.num_ignores(), theirs.num_whitelists())
        );
    }
}
