//! The git side of change memory: whether the workspace is in a work tree, its `HEAD`, which
//! files equal `HEAD`, blobs of a commit, and `git diff` against a revision parsed into hunks.
//! Git runs with argv only, without the `GIT_*` variables that would point it elsewhere, with
//! no pager and no optional locks (an agent's own `git` is never kept waiting).

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::files::file_lines;
use super::lines::{merge, whole};
use super::{ChangeKind, FileChange, Hunk};
use crate::StoreError;

/// The work tree around a workspace root.
pub(crate) struct Repo {
    root: PathBuf,
    /// The workspace's path inside the repository, `/`-terminated (`""` at the top).
    prefix: String,
    /// The commit `HEAD` named when the repository was found.
    head: Option<String>,
}

fn command(root: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("git");
    c.current_dir(root)
        .args(["--no-pager", "-c", "core.quotepath=off"])
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    for (k, _) in std::env::vars_os() {
        if k.as_encoded_bytes().starts_with(b"GIT_") {
            c.env_remove(k);
        }
    }
    c.env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0");
    c
}

/// Git's standard output when it succeeded.
fn output(root: &Path, args: &[&str]) -> Option<Vec<u8>> {
    let out = command(root, args).stdout(Stdio::piped()).output().ok()?;
    out.status.success().then_some(out.stdout)
}

/// Several git commands run at once (each walks the work tree: together they take the time
/// of the slowest), their outputs in order.
fn outputs<const N: usize>(root: &Path, commands: [&[&str]; N]) -> [Option<Vec<u8>>; N] {
    let children = commands.map(|args| command(root, args).stdout(Stdio::piped()).spawn().ok());
    children.map(|child| {
        let out = child?.wait_with_output().ok()?;
        out.status.success().then_some(out.stdout)
    })
}

fn nul_separated(bytes: &[u8]) -> impl Iterator<Item = String> + '_ {
    bytes
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
}

impl Repo {
    /// The work tree containing `root`, when there is one and git runs.
    pub(crate) fn find(root: &Path) -> Option<Repo> {
        // One process answers all three; without a commit it fails after the first two.
        let out = command(
            root,
            &[
                "rev-parse",
                "--is-inside-work-tree",
                "--show-prefix",
                "--verify",
                "-q",
                "HEAD^{commit}",
            ],
        )
        .stdout(Stdio::piped())
        .output()
        .ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines();
        if lines.next()? != "true" {
            return None;
        }
        let prefix = lines.next().unwrap_or("").to_owned();
        let head = lines
            .next()
            .map(str::trim)
            .filter(|id| out.status.success() && !id.is_empty())
            .map(str::to_owned);
        Some(Repo {
            root: root.to_path_buf(),
            prefix,
            head,
        })
    }

    /// The commit `HEAD` names; none in a repository without commits.
    pub(crate) fn head(&self) -> Option<String> {
        self.head.clone()
    }

    /// Workspace-relative paths of the files whose working-tree content is `HEAD`'s: in the
    /// index and not reported by `git diff HEAD` (which compares contents, not stats).
    pub(crate) fn clean(&self) -> Option<HashSet<String>> {
        let [tracked, dirty] = outputs(
            &self.root,
            [
                &["ls-files", "-z", "--", "."],
                &[
                    "diff",
                    "--name-only",
                    "-z",
                    "--relative",
                    "--no-renames",
                    "--no-ext-diff",
                    "--ignore-submodules",
                    "HEAD",
                    "--",
                ],
            ],
        );
        let (tracked, dirty) = (tracked?, dirty?);
        let dirty: HashSet<String> = nul_separated(&dirty).collect();
        Some(
            nul_separated(&tracked)
                .filter(|p| !dirty.contains(p))
                .collect(),
        )
    }

    /// The contents of `paths` (workspace-relative) in `commit`; a path git does not have
    /// there (or cannot name in its batch protocol) is left out.
    pub(crate) fn blobs(&self, commit: &str, paths: &[&str]) -> HashMap<String, Vec<u8>> {
        let mut found = HashMap::new();
        let Ok(mut child) = command(&self.root, &["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
        else {
            return found;
        };
        let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return found;
        };
        let mut stdout = BufReader::new(stdout);
        // One object asked, one answered: git flushes each answer, so nothing piles up.
        for path in paths {
            if path.contains('\n') {
                continue;
            }
            if writeln!(stdin, "{commit}:{}{path}", self.prefix).is_err() || stdin.flush().is_err()
            {
                break;
            }
            let mut header = String::new();
            if stdout.read_line(&mut header).unwrap_or(0) == 0 {
                break;
            }
            let mut parts = header.split_whitespace();
            let (_, kind, size) = (parts.next(), parts.next(), parts.next());
            let Some(size) = size.and_then(|s| s.parse::<u64>().ok()) else {
                continue; // "<name> missing" or "ambiguous"
            };
            let mut data = Vec::new();
            let mut body = (&mut stdout).take(size);
            // A content too big to diff is read past, not into memory: it stays unknown.
            let read = if size > super::DIFF_LIMIT {
                std::io::copy(&mut body, &mut std::io::sink()).ok()
            } else {
                body.read_to_end(&mut data).ok().map(|n| n as u64)
            };
            if read != Some(size) {
                break;
            }
            let mut newline = [0u8; 1];
            if stdout.read_exact(&mut newline).is_err() {
                break;
            }
            if kind == Some("blob") && size <= super::DIFF_LIMIT {
                found.insert((*path).to_owned(), data);
            }
        }
        drop(stdin);
        let _ = child.wait();
        found
    }

    /// Untracked, unignored files, workspace-relative.
    pub(crate) fn untracked(&self) -> Option<Vec<String>> {
        let out = output(
            &self.root,
            &[
                "ls-files",
                "-z",
                "--others",
                "--exclude-standard",
                "--",
                ".",
            ],
        )?;
        Some(nul_separated(&out).collect())
    }

    /// What differs between `rev` and the working tree (renames found), workspace-relative,
    /// untracked files not included. An error names a revision git does not know.
    pub(crate) fn diff(&self, rev: &str) -> Result<Vec<FileChange>, StoreError> {
        if rev.starts_with('-') || rev.is_empty() {
            return Err(bad_rev(rev));
        }
        let common = [
            "diff",
            "-M",
            "--relative",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--ignore-submodules",
        ];
        let with = |extra: &'static [&'static str]| {
            let mut args: Vec<&str> = common.to_vec();
            args.extend_from_slice(extra);
            args.extend_from_slice(&[rev, "--"]);
            args
        };
        let (names, patch) = (with(&["--name-status", "-z"]), with(&["-U0"]));
        let [names, patch] = outputs(&self.root, [&names, &patch]);
        let (Some(names), Some(patch)) = (names, patch) else {
            return Err(bad_rev(rev));
        };
        let mut files = parse_name_status(&names);
        let sections = split_patch(&patch);
        let zipped = sections.len() == files.len();
        for (i, f) in files.iter_mut().enumerate() {
            let section = if zipped { Some(sections[i]) } else { None };
            f.hunks = self.hunks_of(f, section);
        }
        Ok(files)
    }

    /// A file's hunks from its patch section, or the whole file when the patch cannot say
    /// (binary content, or sections that could not be matched to names).
    fn hunks_of(&self, f: &FileChange, section: Option<&[u8]>) -> Vec<Hunk> {
        if f.kind == ChangeKind::Deleted {
            return Vec::new();
        }
        let lines = || file_lines(&self.root, &f.path);
        let Some(section) = section else {
            return whole(lines());
        };
        let text = String::from_utf8_lossy(section);
        if text
            .lines()
            .any(|l| l.starts_with("Binary files ") || l.starts_with("GIT binary patch"))
        {
            return whole(lines());
        }
        let mut last: Option<u32> = None;
        let mut hunks = Vec::new();
        for l in text.lines().filter(|l| l.starts_with("@@ ")) {
            let Some((start, count)) = new_range(l) else {
                return whole(lines());
            };
            if count == 0 {
                let n = *last.get_or_insert_with(lines);
                let at = start.saturating_add(1).min(n.max(1));
                hunks.push(Hunk { start: at, end: at });
            } else {
                hunks.push(Hunk {
                    start,
                    end: start.saturating_add(count - 1),
                });
            }
        }
        merge(hunks)
    }
}

fn bad_rev(rev: &str) -> StoreError {
    StoreError::io(
        format!("git diff {rev:?}"),
        std::io::Error::other("git could not compare with this revision"),
    )
}

/// `+c,d` of a `@@ -a,b +c,d @@` header (`d` is 1 when left out).
fn new_range(header: &str) -> Option<(u32, u32)> {
    let plus = header.split(' ').find(|p| p.starts_with('+'))?;
    let mut it = plus[1..].splitn(2, ',');
    let start = it.next()?.parse().ok()?;
    let count = match it.next() {
        Some(c) => c.parse().ok()?,
        None => 1,
    };
    Some((start, count))
}

/// `--name-status -z` entries as changes without hunks yet.
fn parse_name_status(bytes: &[u8]) -> Vec<FileChange> {
    let mut fields = bytes
        .split(|&b| b == 0)
        .map(|p| String::from_utf8_lossy(p).into_owned());
    let mut files = Vec::new();
    while let Some(status) = fields.next() {
        if status.is_empty() {
            continue;
        }
        let Some(path) = fields.next() else { break };
        let (path, kind) = match status.as_bytes()[0] {
            b'A' => (path, ChangeKind::Added),
            b'D' => (path, ChangeKind::Deleted),
            b'R' | b'C' => {
                let Some(to) = fields.next() else { break };
                (to, ChangeKind::Renamed { from: path })
            }
            _ => (path, ChangeKind::Modified),
        };
        files.push(FileChange {
            path,
            kind,
            hunks: Vec::new(),
        });
    }
    files
}

/// The patch cut into one section per file, in order.
fn split_patch(patch: &[u8]) -> Vec<&[u8]> {
    let mut starts = Vec::new();
    let mut at = 0;
    while at < patch.len() {
        let rest = &patch[at..];
        if rest.starts_with(b"diff --git ") || rest.starts_with(b"diff --cc ") {
            starts.push(at);
        }
        match rest.iter().position(|&b| b == b'\n') {
            Some(i) => at += i + 1,
            None => break,
        }
    }
    starts
        .iter()
        .enumerate()
        .map(|(i, &s)| &patch[s..starts.get(i + 1).copied().unwrap_or(patch.len())])
        .collect()
}
