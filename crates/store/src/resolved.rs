//! What the environment's names resolve to — each toolchain's binary on `PATH`, and a file
//! through its links — kept between processes in a small file of the state directory.
//! Resolving fourteen names against a dozen `PATH` directories, and each binary (and each
//! rustup toolchain, pyenv version, …) through its links, is some 300 system calls on every
//! run, most of what measuring the inputs costs; checking that nothing the resolution read has
//! moved is a stat per directory and per file, and the answer is the same.
//!
//! What the check re-reads: each `PATH` directory's stat (a name added, removed or renamed
//! there moves its mtime); each binary found and each file resolved through its links, and
//! what it resolved to (device, inode and mode through links: a link pointed elsewhere, a file
//! replaced, moved or made non-executable shows); each file met under a tool's name that was
//! not an executable (made executable, it would be found). A `PATH` directory whose mtime is
//! within the last two seconds does not vouch for its names (a file system's clock is
//! coarse): the resolution is not kept until it is older.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The file's first line: its format.
const MAGIC: &[u8] = b"pith-resolved 1";
/// How recent a directory's mtime may be and still vouch for its names (nanoseconds).
const SETTLED_NS: i64 = 2_000_000_000;

/// A tool's binary on `PATH`: where `PATH` found it, and that path with its links resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub tool: String,
    pub found: PathBuf,
    pub canonical: PathBuf,
}

/// A `PATH` resolution as kept.
struct OnPath {
    /// Of `PATH`, the tools and each directory's stat (see [`fingerprint`]).
    fingerprint: u64,
    /// The files it depends on beyond the directories, with their [`signature`].
    checks: Vec<(PathBuf, u64)>,
    found: Vec<Found>,
}

/// The resolutions one process makes, answered from the kept ones where they still hold;
/// [`Resolver::keep`] writes them back when any was made anew.
#[derive(Default)]
pub(crate) struct Resolver {
    file: Option<PathBuf>,
    on_path: Option<OnPath>,
    /// Files through their links: the canonical path, the file's [`signature`], and whether
    /// this process asked (only those are kept: a toolchain removed leaves no line behind).
    links: HashMap<PathBuf, (PathBuf, u64, bool)>,
    /// Something was resolved anew, and may be kept.
    changed: bool,
    /// No `PATH` directory changed too recently to be trusted.
    settled: bool,
}

impl Resolver {
    /// The resolutions kept in `file` (none when it is `None`, missing or unreadable).
    pub fn open(file: Option<&Path>) -> Resolver {
        let mut r = Resolver {
            file: file.map(Path::to_path_buf),
            settled: true,
            ..Resolver::default()
        };
        if let Some(text) = file.and_then(|f| std::fs::read(f).ok()) {
            r.parse(&text);
        }
        r
    }

    /// Reads the kept resolutions; a file in any other shape keeps none.
    fn parse(&mut self, text: &[u8]) {
        let mut lines = text.split(|&b| b == b'\n');
        if lines.next() != Some(MAGIC) {
            return;
        }
        let mut on_path: Option<OnPath> = None;
        let mut links = HashMap::new();
        for line in lines.filter(|l| !l.is_empty()) {
            let f: Vec<&[u8]> = line.split(|&b| b == b'\t').collect();
            let path = |i: usize| PathBuf::from(OsStr::from_bytes(f[i]));
            let hex = |i: usize| {
                std::str::from_utf8(f[i])
                    .ok()
                    .and_then(|s| u64::from_str_radix(s, 16).ok())
            };
            match (f[0], f.len(), on_path.as_mut()) {
                (b"P", 2, None) => match hex(1) {
                    Some(fingerprint) => {
                        on_path = Some(OnPath {
                            fingerprint,
                            checks: Vec::new(),
                            found: Vec::new(),
                        })
                    }
                    None => return,
                },
                (b"C", 3, Some(p)) => match hex(2) {
                    Some(sig) => p.checks.push((path(1), sig)),
                    None => return,
                },
                (b"F", 4, Some(p)) => match std::str::from_utf8(f[1]) {
                    Ok(tool) => p.found.push(Found {
                        tool: tool.to_owned(),
                        found: path(2),
                        canonical: path(3),
                    }),
                    Err(_) => return,
                },
                (b"L", 4, _) => match hex(3) {
                    Some(sig) => {
                        links.insert(path(1), (path(2), sig, false));
                    }
                    None => return,
                },
                _ => return,
            }
        }
        self.on_path = on_path;
        self.links = links;
    }

    /// The first executable of each of `tools` in `dirs` (in order; `path_var` is `PATH`
    /// itself), from what was kept when nothing it depended on moved.
    pub fn on_path(&mut self, dirs: &[PathBuf], path_var: &OsStr, tools: &[&str]) -> Vec<Found> {
        let (fingerprint, settled) = fingerprint(dirs, path_var, tools);
        self.settled &= settled;
        if let Some(kept) = &self.on_path {
            let holds = kept.fingerprint == fingerprint
                && kept.checks.iter().all(|(p, sig)| signature(p) == *sig)
                && kept
                    .found
                    .iter()
                    .all(|f| signature(&f.canonical) == signature(&f.found));
            if holds {
                return kept.found.clone();
            }
        }
        let (found, checks) = on_path_live(dirs, tools);
        self.on_path = Some(OnPath {
            fingerprint,
            checks,
            found: found.clone(),
        });
        self.changed = true;
        found
    }

    /// `path` with its links resolved (itself when that fails); `None` when it does not exist.
    pub fn canonical(&mut self, path: &Path) -> Option<PathBuf> {
        let sig = signature(path);
        if sig == 0 {
            return None;
        }
        if let Some((canonical, kept, asked)) = self.links.get_mut(path) {
            if *kept == sig && signature(canonical) == sig {
                *asked = true;
                return Some(canonical.clone());
            }
        }
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.links
            .insert(path.to_path_buf(), (canonical.clone(), sig, true));
        self.changed = true;
        Some(canonical)
    }

    /// Writes what was resolved back, when anything was resolved anew and every `PATH`
    /// directory was settled: a new file renamed over the old one (a reader sees one or the
    /// other). Best effort; a path that would not fit the format is not kept.
    pub fn keep(self) {
        let Some(file) = self
            .file
            .as_deref()
            .filter(|_| self.changed && self.settled)
        else {
            return;
        };
        let fits = |p: &Path| {
            !p.as_os_str()
                .as_bytes()
                .iter()
                .any(|&b| b == b'\n' || b == b'\t')
        };
        let mut out = MAGIC.to_vec();
        out.push(b'\n');
        if let Some(OnPath {
            fingerprint: fp,
            checks,
            found,
        }) = &self.on_path
        {
            let all_fit = checks.iter().all(|(p, _)| fits(p))
                && found.iter().all(|f| fits(&f.found) && fits(&f.canonical));
            if all_fit {
                out.extend_from_slice(format!("P\t{fp:016x}\n").as_bytes());
                for (p, sig) in checks {
                    line(&mut out, "C", &[p.as_os_str()], &format!("{sig:016x}"));
                }
                for f in found {
                    line(
                        &mut out,
                        "F",
                        &[
                            OsStr::new(&f.tool),
                            f.found.as_os_str(),
                            f.canonical.as_os_str(),
                        ],
                        "",
                    );
                }
            }
        }
        for (p, (canonical, sig, _)) in self.links.iter().filter(|(_, l)| l.2) {
            if fits(p) && fits(canonical) {
                let paths = [p.as_os_str(), canonical.as_os_str()];
                line(&mut out, "L", &paths, &format!("{sig:016x}"));
            }
        }
        let tmp = file.with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&tmp, &out).is_ok() && std::fs::rename(&tmp, file).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

/// One line of the file: its kind, its fields, a last field when not empty.
fn line(out: &mut Vec<u8>, kind: &str, fields: &[&OsStr], last: &str) {
    out.extend_from_slice(kind.as_bytes());
    for f in fields {
        out.push(b'\t');
        out.extend_from_slice(f.as_bytes());
    }
    if !last.is_empty() {
        out.push(b'\t');
        out.extend_from_slice(last.as_bytes());
    }
    out.push(b'\n');
}

/// The fingerprint of `PATH`'s value, the tools asked for and each directory's stat, and
/// whether every directory is old enough to vouch for its names.
fn fingerprint(dirs: &[PathBuf], path_var: &OsStr, tools: &[&str]) -> (u64, bool) {
    let now = crate::clock::now_ns();
    let mut settled = true;
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(path_var.as_bytes());
    for tool in tools {
        h.update(b"\0");
        h.update(tool.as_bytes());
    }
    for d in dirs {
        h.update(b"\0");
        h.update(d.as_os_str().as_bytes());
        match std::fs::metadata(d) {
            Ok(m) => {
                // A name added or removed moves the mtime (and the ctime with it).
                settled &= crate::clock::mtime_ns(&m) < now - SETTLED_NS;
                let stamp = crate::clock::stamp(&m);
                for n in [m.dev(), m.ino(), stamp as u64, u64::from(m.mode())] {
                    h.update(&n.to_le_bytes());
                }
            }
            Err(_) => h.update(b"\0absent"),
        }
    }
    (h.digest(), settled)
}

/// A file's identity as a resolution depends on it: device, inode and mode, through links;
/// 0 when it does not exist (or cannot be read).
fn signature(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| signature_of(&m))
}

/// [`signature`] of a stat already taken (through links).
fn signature_of(m: &std::fs::Metadata) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for n in [m.dev(), m.ino(), u64::from(m.mode())] {
        h.update(&n.to_le_bytes());
    }
    h.digest() | 1
}

/// Resolves every tool; also returns the paths whose [`signature`] the result depends on
/// beyond the directories': each binary found and each non-executable file under a tool's name.
fn on_path_live(dirs: &[PathBuf], tools: &[&str]) -> (Vec<Found>, Vec<(PathBuf, u64)>) {
    let mut found = Vec::new();
    let mut checks = Vec::new();
    for tool in tools {
        for d in dirs {
            let p = d.join(tool);
            let Ok(m) = std::fs::metadata(&p) else {
                continue;
            };
            checks.push((p.clone(), signature_of(&m)));
            if m.is_file() && m.permissions().mode() & 0o111 != 0 {
                let canonical = std::fs::canonicalize(&p).unwrap_or_else(|_| p.clone());
                found.push(Found {
                    tool: (*tool).to_owned(),
                    found: p,
                    canonical,
                });
                break;
            }
        }
    }
    (found, checks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    /// Stamps `path` (a file or a directory) well in the past, as a settled one is.
    fn settle(path: &Path) {
        let then = SystemTime::now() - Duration::from_secs(60);
        std::fs::File::open(path)
            .and_then(|f| f.set_modified(then))
            .unwrap();
    }

    fn tool(dir: &Path, name: &str, mode: u32) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        p
    }

    struct Bed {
        tmp: tempfile::TempDir,
        dirs: Vec<PathBuf>,
        file: PathBuf,
    }

    /// What one process resolved, and whether the kept file answered all of it.
    struct Resolved {
        found: Vec<Found>,
        canonical: Option<PathBuf>,
        kept: bool,
    }

    impl Bed {
        fn new() -> Bed {
            let tmp = tempfile::tempdir().unwrap();
            let dirs: Vec<PathBuf> = ["a", "b"].iter().map(|d| tmp.path().join(d)).collect();
            for d in &dirs {
                std::fs::create_dir(d).unwrap();
            }
            let file = tmp.path().join("resolved");
            Bed { tmp, dirs, file }
        }

        fn settle(&self) {
            for d in &self.dirs {
                settle(d);
            }
        }

        /// One process's resolutions (`PATH`'s tools, and `link` through its links) through
        /// the kept file, checked against a resolution without it.
        fn resolve(&self, link: &Path) -> Resolved {
            let tools = ["go", "node", "cargo"];
            let var = std::env::join_paths(&self.dirs).unwrap();
            let mut r = Resolver::open(Some(&self.file));
            let found = r.on_path(&self.dirs, &var, &tools);
            let canonical = r.canonical(link);
            let kept = !r.changed;
            r.keep();
            let mut live = Resolver::open(None);
            assert_eq!(
                found,
                live.on_path(&self.dirs, &var, &tools),
                "PATH answered otherwise"
            );
            assert_eq!(canonical, live.canonical(link), "a link answered otherwise");
            Resolved {
                found,
                canonical,
                kept,
            }
        }

        fn tools(&self) -> Resolved {
            self.resolve(&self.tmp.path().join("none"))
        }
    }

    fn names(found: &[Found]) -> Vec<(String, PathBuf)> {
        found
            .iter()
            .map(|f| (f.tool.clone(), f.found.clone()))
            .collect()
    }

    #[test]
    fn a_settled_path_is_answered_from_the_kept_file_until_something_moves() {
        let bed = Bed::new();
        let go = tool(&bed.dirs[1], "go", 0o755);
        bed.settle();
        assert!(!bed.tools().kept, "nothing kept yet");
        let r = bed.tools();
        assert!(r.kept, "a settled PATH was resolved again");
        assert_eq!(names(&r.found), [("go".to_owned(), go)]);

        // A tool added in front of it: its directory moved.
        let first = tool(&bed.dirs[0], "go", 0o755);
        bed.settle();
        let r = bed.tools();
        assert!(!r.kept);
        assert_eq!(names(&r.found), [("go".to_owned(), first)]);
        assert!(bed.tools().kept);
    }

    #[test]
    fn a_directory_that_just_changed_is_not_trusted() {
        let bed = Bed::new();
        tool(&bed.dirs[0], "node", 0o755);
        bed.tools();
        assert!(
            !bed.tools().kept,
            "kept while a directory's stamp was fresh"
        );
    }

    #[test]
    fn a_file_made_executable_or_not_is_seen() {
        let bed = Bed::new();
        let shadow = tool(&bed.dirs[0], "node", 0o644);
        let behind = tool(&bed.dirs[1], "node", 0o755);
        bed.settle();
        bed.tools();
        let r = bed.tools();
        assert!(r.kept);
        assert_eq!(names(&r.found), [("node".to_owned(), behind.clone())]);
        // chmod moves no directory's mtime.
        std::fs::set_permissions(&shadow, std::fs::Permissions::from_mode(0o755)).unwrap();
        let r = bed.tools();
        assert!(!r.kept);
        assert_eq!(names(&r.found), [("node".to_owned(), shadow.clone())]);
        std::fs::set_permissions(&shadow, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(names(&bed.tools().found), [("node".to_owned(), behind)]);
    }

    #[test]
    fn a_link_pointed_elsewhere_is_resolved_again() {
        let bed = Bed::new();
        let elsewhere = bed.tmp.path().join("toolchains");
        std::fs::create_dir(&elsewhere).unwrap();
        let v1 = tool(&elsewhere, "cargo-1", 0o755);
        let v2 = tool(&elsewhere, "cargo-2", 0o755);
        // The link lives in a directory off PATH (as /etc/alternatives does): retargeting it
        // moves no PATH directory.
        let alt = elsewhere.join("current");
        std::os::unix::fs::symlink(&v1, &alt).unwrap();
        std::os::unix::fs::symlink(&alt, bed.dirs[0].join("cargo")).unwrap();
        bed.settle();
        bed.resolve(&alt);
        let r = bed.resolve(&alt);
        assert!(r.kept);
        assert_eq!(r.found[0].canonical, v1.canonicalize().unwrap());
        assert_eq!(r.canonical, Some(v1.canonicalize().unwrap()));
        std::fs::remove_file(&alt).unwrap();
        std::os::unix::fs::symlink(&v2, &alt).unwrap();
        let r = bed.resolve(&alt);
        assert!(!r.kept);
        assert_eq!(r.found[0].canonical, v2.canonicalize().unwrap());
        assert_eq!(r.canonical, Some(v2.canonicalize().unwrap()));
        assert!(bed.resolve(&alt).kept);
    }

    #[test]
    fn a_file_moved_away_under_its_link_is_resolved_again() {
        let bed = Bed::new();
        let versions = bed.tmp.path().join("versions");
        std::fs::create_dir(&versions).unwrap();
        let old = versions.join("3.12");
        std::fs::create_dir(&old).unwrap();
        let python = tool(&old, "python", 0o755);
        let link = bed.tmp.path().join("python");
        std::os::unix::fs::symlink(&python, &link).unwrap();
        bed.settle();
        bed.resolve(&link);
        assert!(bed.resolve(&link).kept);
        // The same file (the same inode) under another name, the link following it.
        let new = versions.join("3.12.1");
        std::fs::rename(&old, &new).unwrap();
        std::fs::remove_file(&link).unwrap();
        std::os::unix::fs::symlink(new.join("python"), &link).unwrap();
        let r = bed.resolve(&link);
        assert!(!r.kept);
        assert_eq!(
            r.canonical,
            Some(new.join("python").canonicalize().unwrap())
        );
        std::fs::remove_file(&link).unwrap();
        assert_eq!(bed.resolve(&link).canonical, None);
    }

    #[test]
    fn another_path_or_a_damaged_file_resolves_anew() {
        let bed = Bed::new();
        tool(&bed.dirs[1], "go", 0o755);
        bed.settle();
        bed.tools();
        assert!(bed.tools().kept);
        let only_a = [bed.dirs[0].clone()];
        let var = std::env::join_paths(&only_a).unwrap();
        let mut r = Resolver::open(Some(&bed.file));
        assert!(r.on_path(&only_a, &var, &["go"]).is_empty());
        assert!(r.changed);
        for junk in [
            "",
            "pith-resolved 1\nP\tzz\n",
            "pith-resolved 1\nF\tgo\t/x\t/y\n",
        ] {
            std::fs::write(&bed.file, junk).unwrap();
            assert!(!bed.tools().kept, "{junk:?} answered");
        }
    }
}
