//! Change memory on real temporary workspaces, with and without a real `git`: exact hunks
//! after edits, deletions, renames and additions; the last pass; the bound; pruning. The line
//! diff's own tests are `lines`'.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::*;
use crate::tests::{open, record};

fn h(start: u32, end: u32) -> Hunk {
    Hunk { start, end }
}

fn change(path: &str, kind: ChangeKind, hunks: &[Hunk]) -> FileChange {
    FileChange {
        path: path.to_owned(),
        kind,
        hunks: hunks.to_vec(),
    }
}

fn write(root: &Path, path: &str, text: &str) {
    let p = root.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn lines(n: u32, tag: &str) -> String {
    (1..=n).map(|i| format!("{tag} line {i}\n")).collect()
}

/// Replaces line `n` (1-based) of a file.
fn edit_line(root: &Path, path: &str, n: usize, text: &str) {
    let old = std::fs::read_to_string(root.join(path)).unwrap();
    let mut v: Vec<String> = old.lines().map(str::to_owned).collect();
    v[n - 1] = text.to_owned();
    std::fs::write(root.join(path), v.join("\n") + "\n").unwrap();
}

fn git(root: &Path, args: &[&str]) {
    let mut c = Command::new("git");
    c.current_dir(root)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args);
    for (k, _) in std::env::vars_os() {
        if k.as_encoded_bytes().starts_with(b"GIT_") {
            c.env_remove(k);
        }
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// A small Python project: `src/a.py` (10 lines), `src/b.py`, `src/c.py` (8 lines each).
fn project(with_git: bool) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    write(&root, "pytest.ini", "[pytest]\n");
    write(&root, "src/a.py", &lines(10, "a"));
    write(&root, "src/b.py", &lines(8, "b"));
    write(&root, "src/c.py", &lines(8, "c"));
    write(&root, "tests/test_a.py", "from src.a import *\n");
    if with_git {
        git(&root, &["init", "-q", "-b", "main"]);
        git(&root, &["add", "-A"]);
        git(&root, &["commit", "-q", "-m", "start"]);
    }
    (dir, root)
}

/// Scans, records a run in which `passing` pass and `failing` fail, and remembers.
fn run(s: &mut Store, failing: &[&str], passing: &[&str]) -> u64 {
    let g = s.scan().unwrap();
    record(s, g, failing, passing);
    s.remember().unwrap();
    g
}

/// The same edits in both worlds: line 3 of a.py changed, b.py deleted, c.py moved to d.py,
/// e.py added; what `changes` must say about them.
fn edit_after_run(root: &Path) -> Vec<FileChange> {
    edit_line(root, "src/a.py", 3, "a = 3  # changed");
    std::fs::remove_file(root.join("src/b.py")).unwrap();
    std::fs::rename(root.join("src/c.py"), root.join("src/d.py")).unwrap();
    write(root, "src/e.py", "e = 1\ne = 2\n");
    vec![
        change("src/a.py", ChangeKind::Modified, &[h(3, 3)]),
        change("src/b.py", ChangeKind::Deleted, &[]),
        change(
            "src/d.py",
            ChangeKind::Renamed {
                from: "src/c.py".into(),
            },
            &[],
        ),
        change("src/e.py", ChangeKind::Added, &[h(1, 2)]),
    ]
}

#[test]
fn changes_since_a_run_are_the_edits_without_git() {
    let (_d, root) = project(false);
    let mut s = open(&root);
    let g = run(&mut s, &[], &["t1"]);
    let expected = edit_after_run(&root);
    s.scan().unwrap();
    let c = s.changes(&Since::Generation(g)).unwrap();
    assert_eq!(c.baseline, Baseline::Run { generation: g });
    assert_eq!(c.files, expected);
    // Asked again: the same answer.
    assert_eq!(s.changes(&Since::Generation(g)).unwrap(), c);
}

#[test]
fn changes_since_a_run_are_the_edits_with_git() {
    let (_d, root) = project(true);
    // Uncommitted at the run: its content at the run is kept, not HEAD's.
    edit_line(&root, "src/a.py", 8, "a = 8  # dirty before the run");
    let mut s = open(&root);
    let g = run(&mut s, &[], &["t1"]);
    let r = s.remember().unwrap();
    assert!(r.head.is_some());
    let mut expected = edit_after_run(&root);
    // A commit after the run changes nothing the answer compares.
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "more"]);
    edit_line(&root, "src/a.py", 5, "a = 5  # uncommitted");
    expected[0].hunks = vec![h(3, 3), h(5, 5)];
    s.scan().unwrap();
    let c = s.changes(&Since::Generation(g)).unwrap();
    assert_eq!(c.baseline, Baseline::Run { generation: g });
    assert_eq!(c.files, expected);
}

#[test]
fn a_run_remembered_with_git_keeps_only_what_differs_from_head() {
    let (_d, root) = project(true);
    edit_line(&root, "src/a.py", 1, "dirty");
    write(&root, "new.py", "x = 1\n");
    let mut s = open(&root);
    s.scan().unwrap();
    let r = s.remember().unwrap();
    assert_eq!((r.kept, r.not_kept), (2, 0), "{r:?}");
    let (_d2, plain) = project(false);
    let mut s2 = open(&plain);
    s2.scan().unwrap();
    let r2 = s2.remember().unwrap();
    assert_eq!((r2.kept, r2.head.is_none()), (5, true), "{r2:?}");
    // A second remember of the same generation adds nothing; an edit adds one file's bytes.
    assert_eq!(s2.remember().unwrap().added_bytes, 0);
    edit_line(&plain, "src/b.py", 2, "b2");
    s2.scan().unwrap();
    let r3 = s2.remember().unwrap();
    assert_eq!(
        r3.added_bytes,
        std::fs::metadata(plain.join("src/b.py")).unwrap().len()
    );
}

#[test]
fn the_last_pass_is_the_baseline_and_earlier_edits_are_not_named() {
    for with_git in [false, true] {
        let (_d, root) = project(with_git);
        let mut s = open(&root);
        run(&mut s, &[], &["t1", "t2"]);
        edit_line(&root, "src/b.py", 1, "b = 'before the last pass'");
        run(&mut s, &[], &["t1", "t2"]);
        edit_line(&root, "src/c.py", 2, "c = 'before the last pass'");
        // t3 fails here: the last green run is the one before.
        let g3 = run(&mut s, &["t3"], &["t1", "t2"]);
        edit_line(&root, "src/a.py", 4, "a = 'broke it'");
        run(&mut s, &["t1"], &["t2", "t3"]);
        edit_line(&root, "src/a.py", 9, "a = 'worse'");
        let g5 = run(&mut s, &["t1"], &["t2", "t3"]);
        assert_eq!(g3, 3);
        assert_eq!(s.last_pass("t1").unwrap(), Some(3));
        assert_eq!(s.last_pass("t2").unwrap(), Some(g5));
        assert_eq!(s.last_pass("never ran").unwrap(), None);
        assert_eq!(s.last_green().unwrap(), Some(2));
        let c = s.changes(&Since::Generation(3)).unwrap();
        assert_eq!(
            c.files,
            vec![change(
                "src/a.py",
                ChangeKind::Modified,
                &[h(4, 4), h(9, 9)]
            )],
            "git: {with_git}"
        );
        // Pruning keeps generation 3 (t1's last pass), 2 (the last green) and the newest;
        // 1 and 4 go.
        s.prune(crate::Retention::default()).unwrap();
        let kept: Vec<i64> = s
            .conn
            .prepare("SELECT generation FROM remembered ORDER BY 1")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(kept, vec![2, 3, 5], "git: {with_git}");
        assert_eq!(s.changes(&Since::Generation(3)).unwrap(), c);
        // Contents only the dropped generations used are gone.
        let orphans: i64 = s
            .conn
            .query_row(
                "SELECT count(*) FROM blobs WHERE hash NOT IN
                     (SELECT hash FROM kept WHERE hash IS NOT NULL)",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(orphans, 0);
    }
}

#[test]
fn beyond_the_bound_a_change_is_unknown_never_unchanged() {
    let (_d, root) = project(false);
    let mut s = open(&root);
    // Room for about one file: the others are not kept.
    s.memory_bytes = 100;
    let g = run(&mut s, &[], &["t1"]);
    edit_line(&root, "src/a.py", 2, "a2");
    edit_line(&root, "src/b.py", 2, "b2");
    edit_line(&root, "src/c.py", 2, "c2");
    s.scan().unwrap();
    let c = s.changes(&Since::Generation(g)).unwrap();
    assert_eq!(c.files.len(), 3, "{c:?}");
    for f in &c.files {
        match f.kind {
            ChangeKind::Modified => assert_eq!(f.hunks, vec![h(2, 2)], "{f:?}"),
            ChangeKind::Unknown => {
                let n = if f.path == "src/a.py" { 10 } else { 8 };
                assert_eq!(f.hunks, vec![h(1, n)], "{f:?}");
            }
            _ => panic!("{f:?}"),
        }
    }
    assert!(c.files.iter().any(|f| f.kind == ChangeKind::Unknown));

    // The next generation needs the room: the older one's contents go, and it answers Unknown.
    let (_d, root) = project(false);
    let mut s = open(&root);
    let g1 = run(&mut s, &[], &["t1"]);
    s.memory_bytes = s.remember().unwrap().total_bytes;
    edit_line(&root, "src/a.py", 2, "a2");
    let g2 = run(&mut s, &[], &["t1"]);
    edit_line(&root, "src/a.py", 7, "a7");
    s.scan().unwrap();
    let old = s.changes(&Since::Generation(g1)).unwrap();
    assert_eq!(
        old.files,
        vec![change("src/a.py", ChangeKind::Unknown, &[h(1, 10)])]
    );
    let new = s.changes(&Since::Generation(g2)).unwrap();
    assert_eq!(
        new.files,
        vec![change("src/a.py", ChangeKind::Modified, &[h(7, 7)])]
    );
}

#[test]
fn an_unremembered_generation_falls_back_to_head_or_to_nothing() {
    let (_d, root) = project(false);
    let mut s = open(&root);
    s.scan().unwrap();
    edit_line(&root, "src/a.py", 2, "a2");
    s.scan().unwrap();
    let c = s.changes(&Since::Generation(1)).unwrap();
    assert_eq!(
        c,
        Changes {
            baseline: Baseline::None,
            files: vec![]
        }
    );
    assert_eq!(s.changes(&Since::Git("HEAD".into())).unwrap(), c);

    let (_d, root) = project(true);
    let mut s = open(&root);
    s.scan().unwrap();
    edit_line(&root, "src/a.py", 2, "a2");
    s.scan().unwrap();
    let c = s.changes(&Since::Generation(1)).unwrap();
    assert_eq!(c.baseline, Baseline::Git { rev: "HEAD".into() });
    assert_eq!(
        c.files,
        vec![change("src/a.py", ChangeKind::Modified, &[h(2, 2)])]
    );
}

#[test]
fn changes_since_a_git_revision() {
    let (_d, root) = project(true);
    // In a subdirectory of the repository: paths are the workspace's, files above left out.
    std::fs::create_dir_all(root.join("app")).unwrap();
    for f in ["pytest.ini", "src", "tests"] {
        std::fs::rename(root.join(f), root.join("app").join(f)).unwrap();
    }
    write(&root, "README", "top\n");
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "move"]);
    let ws = root.join("app");
    edit_line(&ws, "src/a.py", 3, "a3");
    // Lines 6 and 7 deleted: the line after them (the old line 8) is marked.
    let a = std::fs::read_to_string(ws.join("src/a.py")).unwrap();
    let kept: Vec<&str> = a
        .lines()
        .enumerate()
        .filter(|(i, _)| *i != 5 && *i != 6)
        .map(|(_, l)| l)
        .collect();
    std::fs::write(ws.join("src/a.py"), kept.join("\n") + "\n").unwrap();
    std::fs::remove_file(ws.join("src/b.py")).unwrap();
    git(&ws, &["mv", "src/c.py", "src/d.py"]);
    edit_line(&ws, "src/d.py", 8, "c8");
    write(&ws, "src/e.py", "e = 1\n");
    write(&root, "README", "changed above the workspace\n");
    let mut s = open(&ws);
    s.scan().unwrap();
    let c = s.changes(&Since::Git("HEAD".into())).unwrap();
    assert_eq!(c.baseline, Baseline::Git { rev: "HEAD".into() });
    assert_eq!(
        c.files,
        vec![
            change("src/a.py", ChangeKind::Modified, &[h(3, 3), h(6, 6)]),
            change("src/b.py", ChangeKind::Deleted, &[]),
            change(
                "src/d.py",
                ChangeKind::Renamed {
                    from: "src/c.py".into()
                },
                &[h(8, 8)]
            ),
            change("src/e.py", ChangeKind::Added, &[h(1, 1)]),
        ]
    );
    assert!(s.changes(&Since::Git("no-such-rev".into())).is_err());
    assert!(s.changes(&Since::Git("--output=/tmp/x".into())).is_err());
}

#[test]
fn a_rename_with_edits_is_paired_by_its_lines_without_git() {
    let (_d, root) = project(false);
    let mut s = open(&root);
    let g = run(&mut s, &[], &["t1"]);
    std::fs::rename(root.join("src/b.py"), root.join("src/bb.py")).unwrap();
    edit_line(&root, "src/bb.py", 5, "moved and edited");
    // Too different to be c.py's move: a deletion and an addition.
    std::fs::remove_file(root.join("src/c.py")).unwrap();
    write(&root, "src/z.py", &lines(8, "z"));
    s.scan().unwrap();
    let c = s.changes(&Since::Generation(g)).unwrap();
    assert_eq!(
        c.files,
        vec![
            change(
                "src/bb.py",
                ChangeKind::Renamed {
                    from: "src/b.py".into()
                },
                &[h(5, 5)]
            ),
            change("src/c.py", ChangeKind::Deleted, &[]),
            change("src/z.py", ChangeKind::Added, &[h(1, 8)]),
        ]
    );
}

#[test]
fn binary_big_non_utf8_links_and_edits_undone_are_handled() {
    let (_d, root) = project(false);
    std::fs::write(root.join("data.bin"), b"\0\x01\x02\nabc\n").unwrap();
    std::os::unix::fs::symlink("/etc/hostname", root.join("link.txt")).unwrap();
    std::fs::write(root.join("latin1.py"), b"x = '\xe9'\ny = 1\nz = 2\n").unwrap();
    write(&root, "big.txt", &lines(30_000, "big"));
    let mut s = open(&root);
    let g = run(&mut s, &[], &["t1"]);
    std::fs::write(root.join("data.bin"), b"\0\x01\x03\nabc\n").unwrap();
    std::fs::write(root.join("latin1.py"), b"x = '\xe9'\ny = 1\nz = '\xff'\n").unwrap();
    edit_line(&root, "big.txt", 5, "edited");
    edit_line(&root, "src/a.py", 2, "a2");
    s.scan().unwrap();
    edit_line(&root, "src/a.py", 2, "a line 2");
    s.scan().unwrap();
    let c = s.changes(&Since::Generation(g)).unwrap();
    // a.py is as it was; data.bin (binary) and big.txt (over 256 KiB) were not kept; text
    // that is not UTF-8 is compared as bytes.
    assert_eq!(
        c.files,
        vec![
            change("big.txt", ChangeKind::Unknown, &[h(1, 30_000)]),
            change("data.bin", ChangeKind::Unknown, &[h(1, 2)]),
            change("latin1.py", ChangeKind::Modified, &[h(3, 3)]),
        ]
    );
}

#[test]
fn a_committed_file_too_big_to_diff_is_unknown_with_git() {
    let (_d, root) = project(true);
    write(&root, "data/big.csv", &lines(700_000, "row"));
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "data"]);
    let mut s = open(&root);
    let g = run(&mut s, &[], &["t1"]);
    edit_line(&root, "data/big.csv", 7, "edited");
    edit_line(&root, "src/a.py", 7, "edited");
    s.scan().unwrap();
    let c = s.changes(&Since::Generation(g)).unwrap();
    assert_eq!(
        c.files,
        vec![
            change("data/big.csv", ChangeKind::Unknown, &[h(1, 700_000)]),
            change("src/a.py", ChangeKind::Modified, &[h(7, 7)]),
        ]
    );
}

#[test]
fn a_repository_without_commits_keeps_every_file() {
    let (_d, root) = project(false);
    git(&root, &["init", "-q"]);
    let mut s = open(&root);
    s.scan().unwrap();
    assert_eq!(
        s.changes(&Since::Generation(1)).unwrap().baseline,
        Baseline::None,
        "no HEAD to fall back to"
    );
    let r = s.remember().unwrap();
    assert_eq!((r.head, r.kept), (None, 5));
    edit_line(&root, "src/c.py", 4, "c4");
    s.scan().unwrap();
    assert_eq!(
        s.changes(&Since::Generation(1)).unwrap().files,
        vec![change("src/c.py", ChangeKind::Modified, &[h(4, 4)])]
    );
}

/// What a file held at a run, for comparing it as more than lines: the kept content, else
/// the run's `HEAD` where the file was clean then, else a git revision's; nothing where it
/// did not exist or is not known.
#[test]
fn the_contents_a_run_saw_are_read_back_kept_or_from_its_head() {
    for with_git in [false, true] {
        let (_d, root) = project(with_git);
        edit_line(&root, "src/a.py", 2, "a = 2  # dirty at the run");
        let mut s = open(&root);
        let g = run(&mut s, &[], &["t1"]);
        let a_then = std::fs::read(root.join("src/a.py")).unwrap();
        let b_then = std::fs::read(root.join("src/b.py")).unwrap();
        edit_line(&root, "src/a.py", 3, "a = 3");
        edit_line(&root, "src/b.py", 3, "b = 3");
        write(&root, "src/new.py", "n = 1\n");
        s.scan().unwrap();
        let got = s
            .contents_at(
                &Since::Generation(g),
                &["src/a.py", "src/b.py", "src/new.py"],
            )
            .unwrap();
        assert_eq!(got.get("src/a.py"), Some(&a_then), "git {with_git}");
        assert_eq!(got.get("src/b.py"), Some(&b_then), "git {with_git}");
        assert!(!got.contains_key("src/new.py"), "git {with_git}");
        if with_git {
            let head = s
                .contents_at(&Since::Git("HEAD".into()), &["src/a.py"])
                .unwrap();
            assert_eq!(
                head.get("src/a.py").map(Vec::as_slice),
                Some(lines(10, "a").as_bytes())
            );
        } else {
            // Never remembered and no git: nothing to read.
            assert!(s
                .contents_at(&Since::Generation(g + 50), &["src/a.py"])
                .unwrap()
                .is_empty());
        }
    }
}
