//! Keeping the index up to date: only changed files are re-parsed; edits, deletes and renames
//! show in the next answer; what cannot be indexed (invalid UTF-8 is indexed, binary and
//! oversized files are not) never breaks the rest; the walk survives a symlink loop; the
//! index file is rebuilt when damaged and kept outside the workspace.

use std::path::Path;
use std::time::{Duration, SystemTime};

use pith_index::{index_file, Index, Options};

/// Writes a file dated `age_s` seconds ago (old enough that its mtime is trusted).
fn write(root: &Path, rel: &str, content: impl AsRef<[u8]>, age_s: u64) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, content).unwrap();
    let f = std::fs::File::options().write(true).open(&path).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(age_s))
        .unwrap();
}

/// A temporary workspace; dropping it removes it and the state pith kept for it.
struct Workspace(tempfile::TempDir);

impl Workspace {
    fn path(&self) -> &Path {
        self.0.path()
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        if let Ok(base) = pith_store::base_dir() {
            let _ = std::fs::remove_dir_all(pith_store::state_path(&base, self.path()));
        }
    }
}

fn workspace() -> Workspace {
    let dir = Workspace(tempfile::tempdir().unwrap());
    let root = dir.path();
    write(
        root,
        "src/net.rs",
        "pub fn parse_port(s: &str) -> u16 {\n    s.parse().unwrap()\n}\n",
        3600,
    );
    write(
        root,
        "src/util.rs",
        "pub fn helper() -> u16 {\n    crate::net::parse_port(\"1\")\n}\n",
        3600,
    );
    write(
        root,
        "app/main.py",
        "from util import helper\n\n\ndef main():\n    return helper()\n",
        3600,
    );
    dir
}

fn at(index: &Index, name: &str) -> Vec<String> {
    index
        .definitions(name, None)
        .iter()
        .map(|d| format!("{}:{}", d.file, d.line))
        .collect()
}

fn uses(index: &Index, name: &str) -> Vec<String> {
    index
        .usages(name)
        .iter()
        .flat_map(|f| f.lines.iter().map(move |l| format!("{}:{l}", f.file)))
        .collect()
}

#[test]
fn a_second_open_parses_nothing_and_an_edit_parses_one_file() {
    let dir = workspace();
    let root = dir.path();
    let first = Index::open(root).unwrap();
    assert_eq!(first.stats().parsed, 3);
    assert!(first.stats().saved && index_file(root).unwrap().is_file());

    let again = Index::open(root).unwrap();
    assert_eq!(again.stats().parsed, 0, "{:?}", again.stats());
    assert!(!again.stats().saved, "an unchanged index is not rewritten");
    assert_eq!(at(&again, "parse_port"), ["src/net.rs:1"]);

    write(
        root,
        "src/net.rs",
        "// moved down\npub fn parse_port(s: &str) -> u16 {\n    s.parse().unwrap()\n}\n\npub fn parse_host(s: &str) -> &str {\n    s\n}\n",
        1800,
    );
    let edited = Index::open(root).unwrap();
    assert_eq!(edited.stats().parsed, 1, "{:?}", edited.stats());
    assert_eq!(at(&edited, "parse_port"), ["src/net.rs:2"]);
    assert_eq!(at(&edited, "parse_host"), ["src/net.rs:6"]);
    // Postings of unchanged files were carried over.
    assert_eq!(uses(&edited, "parse_port"), ["src/util.rs:2"]);
    assert_eq!(at(&edited, "main"), ["app/main.py:4"]);
}

#[test]
fn a_deleted_file_leaves_the_index() {
    let dir = workspace();
    let root = dir.path();
    Index::open(root).unwrap();
    std::fs::remove_file(root.join("src/util.rs")).unwrap();
    let index = Index::open(root).unwrap();
    assert_eq!((index.stats().removed, index.stats().parsed), (1, 0));
    assert!(at(&index, "helper").is_empty());
    assert!(uses(&index, "parse_port").is_empty());
    // The Python use of `helper` is a use still.
    assert_eq!(uses(&index, "helper"), ["app/main.py:1", "app/main.py:5"]);
}

#[test]
fn a_renamed_file_moves_its_symbols() {
    let dir = workspace();
    let root = dir.path();
    Index::open(root).unwrap();
    std::fs::rename(root.join("src/net.rs"), root.join("src/network.rs")).unwrap();
    let index = Index::open(root).unwrap();
    assert_eq!((index.stats().removed, index.stats().parsed), (1, 1));
    let defs = index.definitions("parse_port", None);
    assert_eq!(defs.len(), 1);
    assert_eq!(defs[0].file, "src/network.rs");
    assert_eq!(defs[0].container.as_deref(), Some("network"));
}

#[test]
fn a_file_modified_just_now_is_read_again_next_time() {
    // Its mtime may not change on a second write within the clock's granularity, so it is
    // not trusted until it is old enough.
    let dir = workspace();
    let root = dir.path();
    write(root, "src/fresh.rs", "fn fresh() {}\n", 0);
    Index::open(root).unwrap();
    let next = Index::open(root).unwrap();
    assert_eq!(next.stats().parsed, 1);
    assert_eq!(at(&next, "fresh"), ["src/fresh.rs:1"]);
}

#[test]
fn invalid_utf8_is_indexed_around() {
    let dir = workspace();
    let root = dir.path();
    write(
        root,
        "app/latin1.py",
        b"# caf\xe9 \xff\xfe\ndef before():\n    return '\xe9t\xe9'\n\n\ndef after():\n    return before()\n",
        3600,
    );
    let index = Index::open(root).unwrap();
    assert_eq!(at(&index, "before"), ["app/latin1.py:2"]);
    assert_eq!(at(&index, "after"), ["app/latin1.py:6"]);
    assert_eq!(uses(&index, "before"), ["app/latin1.py:7"]);
}

#[test]
fn binary_and_oversized_files_are_skipped() {
    let dir = workspace();
    let root = dir.path();
    // A 20 MB generated file: never read, let alone parsed.
    let mut big = String::with_capacity(21 << 20);
    let mut i = 0;
    while big.len() < 20 << 20 {
        big.push_str(&format!(
            "pub fn generated_{i}() -> u32 {{ parse_port(\"{i}\") }}\n"
        ));
        i += 1;
    }
    write(root, "src/generated.rs", &big, 3600);
    write(
        root,
        "src/blob.rs",
        b"fn in_binary() {}\n\0\0\x01\x02",
        3600,
    );
    let index = Index::open(root).unwrap();
    assert_eq!(index.stats().skipped, 2, "{:?}", index.stats());
    assert!(at(&index, "generated_1").is_empty());
    assert!(at(&index, "in_binary").is_empty());
    assert_eq!(uses(&index, "parse_port"), ["src/util.rs:2"]);
    let size = std::fs::metadata(index_file(root).unwrap()).unwrap().len();
    assert!(size < 64 * 1024, "index is {size} bytes");
    // Skipped files are remembered, not re-read on every open.
    assert_eq!(Index::open(root).unwrap().stats().parsed, 0);
}

#[cfg(unix)]
#[test]
fn a_symlink_loop_does_not_trap_the_walk() {
    let dir = workspace();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src/loop")).unwrap();
    std::os::unix::fs::symlink("..", root.join("src/loop/up")).unwrap();
    std::os::unix::fs::symlink(".", root.join("src/loop/here")).unwrap();
    std::os::unix::fs::symlink("../net.rs", root.join("src/loop/net_link.rs")).unwrap();
    let index = Index::open(root).unwrap();
    assert_eq!(
        index.stats().files,
        3,
        "links are not followed: {:?}",
        index.stats()
    );
    assert_eq!(at(&index, "parse_port"), ["src/net.rs:1"]);
}

#[test]
fn ignored_files_and_dependency_directories_are_not_indexed() {
    let dir = workspace();
    let root = dir.path();
    write(root, ".gitignore", "generated/\n", 3600);
    write(
        root,
        "generated/out.py",
        "def ignored_fn():\n    pass\n",
        3600,
    );
    write(
        root,
        "web/node_modules/dep/index.js",
        "function depFn() {}\n",
        3600,
    );
    write(
        root,
        "target/CACHEDIR.TAG",
        "Signature: 8a477f597d28d172789f06886806bc55\n",
        3600,
    );
    write(
        root,
        "target/debug/build/out.rs",
        "fn build_output() {}\n",
        3600,
    );
    let index = Index::open(root).unwrap();
    assert!(at(&index, "ignored_fn").is_empty());
    assert!(at(&index, "depFn").is_empty());
    assert!(at(&index, "build_output").is_empty());
    assert_eq!(index.stats().files, 3);
}

#[test]
fn a_damaged_index_is_rebuilt() {
    let dir = workspace();
    let root = dir.path();
    Index::open(root).unwrap();
    let file = index_file(root).unwrap();
    let mut bytes = std::fs::read(&file).unwrap();
    let half = bytes.len() / 2;
    bytes.truncate(half);
    std::fs::write(&file, &bytes).unwrap();
    let index = Index::open(root).unwrap();
    assert_eq!(index.stats().parsed, 3);
    assert_eq!(at(&index, "parse_port"), ["src/net.rs:1"]);
    std::fs::write(&file, b"not an index").unwrap();
    assert_eq!(Index::open(root).unwrap().stats().parsed, 3);
}

/// The index lives in the workspace's state directory, outside it: the workspace and its
/// repository's files are as they were (no `.pith/`, no `.git/info/exclude` line).
#[test]
fn the_index_is_kept_outside_the_workspace() {
    let dir = workspace();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".git/info")).unwrap();
    let exclude = "# git ls-files --others\n*.tmp";
    std::fs::write(root.join(".git/info/exclude"), exclude).unwrap();
    let listing = |root: &Path| {
        let mut names: Vec<_> = std::fs::read_dir(root)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        names
    };
    let before = listing(root);
    let index = Index::open(root).unwrap();
    assert!(index.stats().saved);
    let file = index_file(root).unwrap();
    assert!(file.is_file() && !file.starts_with(root));
    assert_eq!(listing(root), before);
    assert_eq!(
        std::fs::read_to_string(root.join(".git/info/exclude")).unwrap(),
        exclude
    );
    assert!(!root.join(".gitignore").exists());
    assert_eq!(Index::open(root).unwrap().stats().parsed, 0, "read back");
}

#[test]
fn without_persistence_nothing_is_written() {
    let dir = workspace();
    let root = dir.path();
    let index = Index::open_with(
        root,
        &Options {
            persist: false,
            threads: 1,
        },
    )
    .unwrap();
    assert_eq!(at(&index, "helper"), ["src/util.rs:1"]);
    assert!(!index.stats().saved);
    assert!(!index_file(root).unwrap().exists());
    assert!(!root.join(".pith").exists());
}

#[test]
fn a_missing_root_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let err = Index::open(&dir.path().join("nope")).err().unwrap();
    assert!(err.to_string().contains("is not a directory"), "{err}");
}

/// Dates every directory under `root` (and `root`) an hour back, as an old checkout's are.
fn age_dirs(root: &Path) {
    for e in std::fs::read_dir(root).unwrap().flatten() {
        if e.file_type().unwrap().is_dir() {
            age_dirs(&e.path());
        }
    }
    let d = std::fs::File::open(root).unwrap();
    d.set_modified(SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
}

#[test]
fn without_a_changed_directory_the_walk_is_skipped_and_edits_still_show() {
    let dir = workspace();
    let root = dir.path();
    assert!(Index::open(root).unwrap().stats().walked);
    // Directories just created are not trusted yet; once settled, they are.
    age_dirs(root);
    assert!(Index::open(root).unwrap().stats().walked);
    let warm = Index::open(root).unwrap();
    assert!(!warm.stats().walked, "{:?}", warm.stats());
    assert_eq!(warm.stats().parsed, 0);

    // Editing a file in place changes no directory: still no walk, the edit is seen.
    write(
        root,
        "src/util.rs",
        "pub fn helper2() -> u16 {\n    7\n}\n",
        1800,
    );
    let edited = Index::open(root).unwrap();
    assert!(!edited.stats().walked);
    assert_eq!(edited.stats().parsed, 1);
    assert_eq!(at(&edited, "helper2"), ["src/util.rs:1"]);
    assert!(uses(&edited, "parse_port").is_empty());

    // A new file changes its directory: walked, found.
    write(root, "src/extra.rs", "fn extra() {}\n", 1800);
    let added = Index::open(root).unwrap();
    assert!(added.stats().walked);
    assert_eq!(at(&added, "extra"), ["src/extra.rs:1"]);

    // So does a deletion.
    age_dirs(root);
    Index::open(root).unwrap();
    std::fs::remove_file(root.join("src/extra.rs")).unwrap();
    let removed = Index::open(root).unwrap();
    assert!(removed.stats().walked);
    assert_eq!(removed.stats().removed, 1);
    assert!(at(&removed, "extra").is_empty());
}

#[test]
fn an_ignore_file_change_is_noticed_without_a_directory_change() {
    let dir = workspace();
    let root = dir.path();
    write(root, ".gitignore", "# nothing yet\n", 3600);
    Index::open(root).unwrap();
    age_dirs(root);
    Index::open(root).unwrap();
    assert!(!Index::open(root).unwrap().stats().walked);
    // Rewritten in place (same directory entries): the ignore file's own stamp changes.
    write(root, ".gitignore", "app/\n", 1800);
    let index = Index::open(root).unwrap();
    assert!(index.stats().walked);
    assert!(at(&index, "main").is_empty(), "app/ is ignored now");
    assert_eq!(index.stats().removed, 1);
}

/// A `.pith` an older pith left, even a symbolic link, is never written or read through,
/// wherever it points; and a state directory that is a link is not either: the index is then
/// answered from memory.
#[test]
fn a_linked_state_directory_is_not_followed() {
    let ws = workspace();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), ws.path().join(".pith")).unwrap();
    let index = Index::open(ws.path()).unwrap();
    assert_eq!(at(&index, "parse_port"), ["src/net.rs:1"]);
    assert!(index.stats().saved);
    assert_eq!(
        std::fs::read_dir(elsewhere.path()).unwrap().count(),
        0,
        "nothing written through the link"
    );

    let ws = workspace();
    let state = pith_store::state_path(&pith_store::base_dir().unwrap(), ws.path());
    std::fs::create_dir_all(state.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), &state).unwrap();
    let index = Index::open(ws.path()).unwrap();
    assert_eq!(at(&index, "parse_port"), ["src/net.rs:1"]);
    assert!(!index.stats().saved);
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    std::fs::remove_file(&state).unwrap();
}

fn changed(paths: &[&str]) -> std::collections::BTreeSet<String> {
    paths.iter().map(|p| p.to_string()).collect()
}

#[test]
fn an_index_kept_in_memory_is_refreshed_from_the_changes_a_watcher_saw() {
    let dir = workspace();
    let root = dir.path();
    let opts = Options::default();
    let index = Index::open(root).unwrap();
    assert_eq!(at(&index, "parse_port"), ["src/net.rs:1"]);

    // Nothing changed: nothing is looked at.
    let index = index.refreshed(root, &changed(&[]), &opts).unwrap();
    assert_eq!((index.stats().parsed, index.stats().walked), (0, false));

    // An edit to a known file: that file alone is parsed, no walk.
    write(
        root,
        "src/net.rs",
        "pub fn parse_host(s: &str) -> &str {\n    s\n}\n",
        3600,
    );
    let index = index
        .refreshed(root, &changed(&["src/net.rs"]), &opts)
        .unwrap();
    assert_eq!((index.stats().parsed, index.stats().walked), (1, false));
    assert!(at(&index, "parse_port").is_empty());
    assert_eq!(at(&index, "parse_host"), ["src/net.rs:1"]);
    assert_eq!(uses(&index, "parse_port"), ["src/util.rs:2"]);

    // A file that is not source changes nothing.
    write(root, "README.md", "# x\n", 3600);
    let index = index
        .refreshed(root, &changed(&["README.md"]), &opts)
        .unwrap();
    assert_eq!((index.stats().parsed, index.stats().walked), (0, false));

    // A deleted known file is dropped without a walk.
    std::fs::remove_file(root.join("app/main.py")).unwrap();
    let index = index
        .refreshed(root, &changed(&["app/main.py"]), &opts)
        .unwrap();
    assert_eq!((index.stats().removed, index.stats().walked), (1, false));
    assert!(uses(&index, "helper")
        .iter()
        .all(|u| !u.starts_with("app/")));

    // A new source file, a new directory, a removed directory: which files there are may have
    // changed, so the workspace is walked.
    write(root, "src/new.rs", "pub fn fresh() {}\n", 3600);
    let index = index
        .refreshed(root, &changed(&["src/new.rs"]), &opts)
        .unwrap();
    assert!(index.stats().walked);
    assert_eq!(at(&index, "fresh"), ["src/new.rs:1"]);
    write(root, "lib/deep/more.py", "def deeper():\n    pass\n", 3600);
    let index = index.refreshed(root, &changed(&["lib"]), &opts).unwrap();
    assert!(index.stats().walked);
    assert_eq!(at(&index, "deeper"), ["lib/deep/more.py:1"]);
    std::fs::remove_dir_all(root.join("lib")).unwrap();
    let index = index.refreshed(root, &changed(&["lib"]), &opts).unwrap();
    assert!(index.stats().walked);
    assert!(at(&index, "deeper").is_empty());

    // The refreshed index is what the next open reads.
    drop(index);
    let reopened = Index::open(root).unwrap();
    assert_eq!(at(&reopened, "parse_host"), ["src/net.rs:1"]);
}
