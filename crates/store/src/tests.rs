//! The store on real temporary workspaces: generations (files, ignored inputs, the
//! environment outside the workspace), history, pruning, damage, locking, links.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use pith_model::{Failure, Frame, Report, Run, Status, TestOutcome};

use crate::environment::Environment;
use crate::{Dirty, Retention, Store, StoreError, TryLock, Watcher};

/// An environment with no toolchain and no home: the machine's own (which other processes
/// may update while the tests run) never reaches the generation.
fn bare_env() -> Environment {
    env_of(&[
        ("PATH", "/nonexistent-pith-test-path"),
        ("HOME", "/nonexistent-pith-test-home"),
    ])
}

fn env_of(vars: &[(&str, &str)]) -> Environment {
    Environment::from_vars(
        vars.iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v))),
    )
}

/// The store of `root`, in [`bare_env`].
pub(crate) fn open(root: &Path) -> Store {
    let mut s = Store::open(root).unwrap();
    s.env = bare_env();
    s
}

/// The state directory of `root`, as pith finds it (created when missing).
fn state(root: &Path) -> PathBuf {
    crate::state_dir(root).unwrap()
}

/// A temporary workspace; dropping it removes it and its state directory.
struct Workspace {
    _dir: tempfile::TempDir,
    state: PathBuf,
}

impl Drop for Workspace {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.state);
    }
}

fn workspace() -> (Workspace, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let dir = Workspace {
        _dir: dir,
        state: crate::state_path(&crate::base_dir().unwrap(), &root),
    };
    std::fs::write(root.join("pytest.ini"), "[pytest]\n").unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/a.py"), "a = 1\n").unwrap();
    (dir, root)
}

/// Sets a file's mtime to `secs` after the epoch, as `touch -d` would.
fn set_mtime(path: &Path, secs: i64) {
    let times = std::fs::FileTimes::new()
        .set_modified(std::time::UNIX_EPOCH + Duration::from_secs(secs as u64));
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_times(times)
        .unwrap();
}

/// A scan beside a run records what was there when the run started; what changed after it
/// (an edit, a new file, a removal, a file renamed into place with an old mtime) is the next
/// scan's change, so the run's generation never holds content the run may not have read.
#[test]
fn a_scan_during_a_run_leaves_what_came_after_its_start_to_the_next_scan() {
    let (_d, root) = workspace();
    for dir in ["docs", "lib"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    std::fs::write(root.join("docs/gone.md"), "x\n").unwrap();
    std::fs::write(root.join("lib/old.py"), "old\n").unwrap();
    let outside = tempfile::tempdir().unwrap();
    let staged = outside.path().join("c.py");
    std::fs::write(&staged, "c\n").unwrap();
    set_mtime(&staged, 1_000_000);
    let mut s = open(&root);
    assert_eq!(s.scan().unwrap(), 1);

    // Before the run: what it reads.
    std::fs::write(root.join("src/a.py"), "a = 2\n").unwrap();
    std::fs::remove_file(root.join("docs/gone.md")).unwrap();
    // Longer than a tick of the clock file times are stamped with.
    std::thread::sleep(Duration::from_millis(40));
    let start = crate::RunStart::now();
    std::fs::write(root.join("src/b.py"), "b\n").unwrap();
    std::fs::remove_file(root.join("lib/old.py")).unwrap();
    std::fs::rename(&staged, root.join("src/c.py")).unwrap();

    assert_eq!(s.scan_during(start).unwrap(), 2);
    assert_eq!(
        s.changed_since(1, 10).unwrap(),
        (2, vec!["docs/gone.md".to_owned(), "src/a.py".to_owned()]),
        "only what came before the start"
    );
    assert_eq!(s.scan().unwrap(), 3, "the rest is the next scan's change");
    assert_eq!(
        s.changed_since(2, 10).unwrap(),
        (
            3,
            vec![
                "lib/old.py".to_owned(),
                "src/b.py".to_owned(),
                "src/c.py".to_owned()
            ]
        )
    );
    assert_eq!(s.scan_during(crate::RunStart::now()).unwrap(), 3);

    // A dangling link made before the run is recorded as a scan before it would.
    std::os::unix::fs::symlink("nowhere", root.join("src/dangling")).unwrap();
    std::thread::sleep(Duration::from_millis(40));
    assert_eq!(s.scan_during(crate::RunStart::now()).unwrap(), 4);
    assert_eq!(s.scan().unwrap(), 4);
}

#[test]
fn generation_counts_content_changes_only() {
    let (_d, root) = workspace();
    let mut s = open(&root);
    assert_eq!(s.generation().unwrap(), 0);
    assert_eq!(s.scan().unwrap(), 1);
    assert_eq!(s.scan().unwrap(), 1, "nothing changed");

    set_mtime(&root.join("src/a.py"), 1_000_000);
    assert_eq!(s.scan().unwrap(), 1, "a touch is not a change");

    std::fs::write(root.join("src/a.py"), "a = 2\n").unwrap();
    assert_eq!(s.scan().unwrap(), 2, "same size, new content");
    std::fs::write(root.join("src/b.py"), "b\n").unwrap();
    assert_eq!(s.scan().unwrap(), 3);
    assert_eq!(
        s.changed_since(1, 10).unwrap(),
        (2, vec!["src/b.py".to_owned(), "src/a.py".to_owned()])
    );
    std::fs::remove_file(root.join("src/b.py")).unwrap();
    assert_eq!(s.scan().unwrap(), 4, "a deletion is a change");
    assert_eq!(
        s.changed_since(3, 10).unwrap(),
        (1, vec!["src/b.py".to_owned()])
    );
    std::fs::write(root.join("src/b.py"), "b\n").unwrap();
    assert_eq!(s.scan().unwrap(), 5, "and so is coming back");

    // Durable: another process (connection) sees the same generation.
    drop(s);
    let mut again = open(&root);
    assert_eq!(again.scan().unwrap(), 5);
}

#[test]
fn outputs_caches_and_dependency_trees_do_not_count() {
    let (_d, root) = workspace();
    std::fs::write(
        root.join(".gitignore"),
        "*.log\n/build/\n.coverage\n/coverage.xml\n/htmlcov/\n.venv/\nnode_modules/\n",
    )
    .unwrap();
    let write = |rel: &str, text: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    // Dependency trees exist before the first scan: making one is a change (below).
    write(".venv/pyvenv.cfg", "home = /usr/bin\n");
    write(
        ".venv/lib/python3.12/site-packages/pkg/__init__.py",
        "x = 1\n",
    );
    write("web/node_modules/left-pad/index.js", "module.exports = 1\n");
    write("web/node_modules/.package-lock.json", "{}\n");
    let mut s = open(&root);
    let g = s.scan().unwrap();
    write("run.log", "x");
    write("build/out.o", "x");
    write(".coverage", "x");
    write("coverage.xml", "<coverage/>");
    write("htmlcov/index.html", "x");
    write("src/__pycache__/a.cpython-312.pyc", "x");
    write(
        "target/CACHEDIR.TAG",
        "Signature: 8a477f597d28d172789f06886806bc55",
    );
    write("target/debug/bin", "x");
    write(
        ".venv/lib/python3.12/site-packages/pkg/__init__.py",
        "x = 2\n",
    );
    write(
        ".venv/lib/python3.12/site-packages/pkg/__pycache__/m.pyc",
        "x",
    );
    write("web/node_modules/left-pad/index.js", "module.exports = 2\n");
    assert_eq!(
        s.scan().unwrap(),
        g,
        "only output, caches and files inside dependency trees were written"
    );
    std::fs::write(root.join(".github.yml"), "x").unwrap();
    assert_eq!(s.scan().unwrap(), g + 1, "hidden files are source");
    // A tool's output name that is not ignored is somebody's source.
    write("docs/coverage.xml", "<mine/>");
    assert_eq!(s.scan().unwrap(), g + 2);
}

#[test]
fn ignored_inputs_count() {
    let (_d, root) = workspace();
    std::fs::write(
        root.join(".gitignore"),
        "data.json\n.env\nlocal_settings.py\n/fixtures/\n",
    )
    .unwrap();
    std::fs::write(root.join("data.json"), r#"{"price": 3}"#).unwrap();
    std::fs::write(root.join(".env"), "MODE=a\n").unwrap();
    std::fs::create_dir_all(root.join("fixtures/big")).unwrap();
    std::fs::write(root.join("fixtures/big/rows.csv"), "a,b\n").unwrap();
    let mut s = open(&root);
    let g = s.scan().unwrap();
    std::fs::write(root.join("data.json"), r#"{"price": 4}"#).unwrap();
    assert_eq!(s.scan().unwrap(), g + 1, "an ignored data file is an input");
    assert_eq!(
        s.changed_since(g, 10).unwrap(),
        (1, vec!["data.json".to_owned()])
    );
    std::fs::write(root.join(".env"), "MODE=b\n").unwrap();
    assert_eq!(s.scan().unwrap(), g + 2);
    std::fs::write(root.join("local_settings.py"), "DEBUG = True\n").unwrap();
    assert_eq!(s.scan().unwrap(), g + 3, "a new ignored file too");
    std::fs::write(root.join("fixtures/big/rows.csv"), "a,c\n").unwrap();
    assert_eq!(s.scan().unwrap(), g + 4, "inside an ignored directory too");
    set_mtime(&root.join("data.json"), 1_000_000);
    assert_eq!(s.scan().unwrap(), g + 4, "a touch is still not a change");
}

#[test]
fn a_file_read_through_a_link_counts_when_its_target_changes() {
    let (_d, root) = workspace();
    let outside = tempfile::tempdir().unwrap();
    let data = outside.path().join("data.json");
    std::fs::write(&data, "[1]").unwrap();
    std::os::unix::fs::symlink(&data, root.join("data.json")).unwrap();
    let mut s = open(&root);
    let g = s.scan().unwrap();
    assert_eq!(s.scan().unwrap(), g);
    std::fs::write(&data, "[1, 2]").unwrap();
    assert_eq!(
        s.scan().unwrap(),
        g + 1,
        "the target's stat is part of the link's"
    );
}

#[test]
fn a_big_file_is_fingerprinted_by_its_stat() {
    let (_d, root) = workspace();
    let big = root.join("weights.bin");
    std::fs::write(&big, vec![7u8; (8 << 20) + 1]).unwrap();
    let mut s = open(&root);
    let g = s.scan().unwrap();
    set_mtime(&big, 1_000_000);
    assert_eq!(
        s.scan().unwrap(),
        g + 1,
        "not read again: its new mtime is a change"
    );
    assert_eq!(s.scan().unwrap(), g + 1);
}

/// A virtualenv at `dir` for Python 3.12, its interpreter a link to `python`.
fn make_venv(dir: &Path, python: &Path) {
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    std::fs::create_dir_all(dir.join("lib/python3.12/site-packages/pkg")).unwrap();
    std::fs::write(dir.join("pyvenv.cfg"), "home = /usr/bin\n").unwrap();
    std::os::unix::fs::symlink(python, dir.join("bin/python")).unwrap();
}

/// An executable file (a stand-in for a toolchain binary) with `text`, replaced whole as an
/// installer does (a new file renamed over the old one).
fn install(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let tmp = path.with_extension("new");
    std::fs::write(&tmp, text).unwrap();
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

#[test]
fn a_package_installed_in_a_workspace_virtualenv_counts() {
    let (_d, root) = workspace();
    let tools = tempfile::tempdir().unwrap();
    let python = tools.path().join("python3.12");
    install(&python, "#!/bin/sh\n");
    make_venv(&root.join(".venv"), &python);
    let mut s = open(&root);
    let g = s.scan().unwrap();
    let site = root.join(".venv/lib/python3.12/site-packages");
    std::fs::write(site.join("pkg/mod.py"), "edited\n").unwrap();
    assert_eq!(s.scan().unwrap(), g, "files inside the tree are not walked");

    std::fs::create_dir_all(site.join("requests-2.32.0.dist-info")).unwrap();
    assert_eq!(s.scan().unwrap(), g + 1, "a package installed");
    assert_eq!(
        s.changed_since(g, 10).unwrap(),
        (1, vec!["venv:.venv".to_owned()])
    );
    assert_eq!(s.scan().unwrap(), g + 1);

    // The Python under the venv upgraded in place.
    install(&python, "#!/bin/sh\n# 3.12.9\n");
    assert_eq!(s.scan().unwrap(), g + 2, "its interpreter changed");

    // A watcher's refresh with nothing dirty still measures it (its events are dropped).
    std::fs::remove_dir(site.join("requests-2.32.0.dist-info")).unwrap();
    assert_eq!(s.refresh(Dirty::default()).unwrap(), g + 3);
    std::fs::remove_dir_all(root.join(".venv")).unwrap();
    assert_eq!(
        s.refresh(Dirty::default()).unwrap(),
        g + 4,
        "a venv removed"
    );
    assert_eq!(s.scan().unwrap(), g + 4);
}

#[test]
fn an_install_into_node_modules_counts() {
    let (_d, root) = workspace();
    std::fs::create_dir_all(root.join("node_modules/jest")).unwrap();
    std::fs::write(root.join("node_modules/.package-lock.json"), "{}").unwrap();
    let mut s = open(&root);
    let g = s.scan().unwrap();
    std::fs::write(root.join("node_modules/jest/index.js"), "x").unwrap();
    assert_eq!(s.scan().unwrap(), g);
    std::fs::write(root.join("node_modules/.package-lock.json"), "{\"v\": 2}").unwrap();
    assert_eq!(s.scan().unwrap(), g + 1, "npm recorded an install");
    std::fs::create_dir_all(root.join("node_modules/vitest")).unwrap();
    assert_eq!(s.scan().unwrap(), g + 2, "a package added");
}

#[test]
fn the_active_virtualenv_and_the_toolchains_on_path_count() {
    let (_d, root) = workspace();
    let machine = tempfile::tempdir().unwrap();
    let m = machine.path().canonicalize().unwrap();
    let bin = m.join("bin");
    install(&bin.join("python3.12"), "#!/bin/sh\n");
    std::os::unix::fs::symlink("python3.12", bin.join("python3")).unwrap();
    install(&bin.join("node"), "node 20\n");
    std::fs::create_dir_all(m.join("lib/python3.12/site-packages")).unwrap();
    let home = m.join("home");
    std::fs::create_dir_all(home.join(".local/lib/python3.12/site-packages")).unwrap();
    let venv = m.join("venvs/app");
    make_venv(&venv, &bin.join("python3.12"));
    let path = bin.to_str().unwrap();
    let env = env_of(&[
        ("PATH", path),
        ("HOME", home.to_str().unwrap()),
        ("VIRTUAL_ENV", venv.to_str().unwrap()),
    ]);
    let mut s = open(&root);
    s.env = env.clone();
    let g = s.scan().unwrap();
    assert_eq!(s.scan().unwrap(), g, "measuring changes nothing");

    install(&bin.join("node"), "node 22\n");
    assert_eq!(s.scan().unwrap(), g + 1, "a toolchain binary replaced");
    let (_, changed) = s.changed_since(g, 10).unwrap();
    assert_eq!(
        changed,
        [format!("toolchain:{}", bin.join("node").display())]
    );

    std::fs::create_dir_all(m.join("lib/python3.12/site-packages/numpy")).unwrap();
    assert_eq!(s.scan().unwrap(), g + 2, "the installation's packages");
    std::fs::create_dir_all(home.join(".local/lib/python3.12/site-packages/attrs")).unwrap();
    assert_eq!(s.scan().unwrap(), g + 3, "the user's packages");
    let (_, changed) = s.changed_since(g + 2, 10).unwrap();
    assert_eq!(
        changed,
        ["packages:~/.local/lib/python3.12/site-packages"],
        "the home directory is shown as ~"
    );
    std::fs::create_dir_all(venv.join("lib/python3.12/site-packages/six")).unwrap();
    assert_eq!(s.scan().unwrap(), g + 4, "the active virtualenv's packages");

    // Another process with another PATH measures its own toolchain and re-measures the first
    // one's: both agree the generation stands.
    let other_bin = m.join("other/bin");
    install(&other_bin.join("node"), "node 18\n");
    let mut other = open(&root);
    other.env = env_of(&[("PATH", other_bin.to_str().unwrap())]);
    assert_eq!(other.scan().unwrap(), g + 5, "a toolchain not seen before");
    assert_eq!(s.scan().unwrap(), g + 5);
    assert_eq!(other.scan().unwrap(), g + 5);
    std::fs::remove_file(bin.join("node")).unwrap();
    assert_eq!(
        other.scan().unwrap(),
        g + 6,
        "a toolchain uninstalled, seen by any process"
    );
}

#[test]
fn rustup_and_pyenv_selection_counts() {
    let (_d, root) = workspace();
    let home = tempfile::tempdir().unwrap();
    let h = home.path().canonicalize().unwrap();
    install(
        &h.join(".rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/rustc"),
        "1.80",
    );
    std::fs::write(
        h.join(".rustup/settings.toml"),
        "default_toolchain = \"stable\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(h.join(".pyenv/versions/3.12.1/lib/python3.12/site-packages")).unwrap();
    install(&h.join(".pyenv/versions/3.12.1/bin/python"), "3.12.1");
    std::fs::write(h.join(".pyenv/version"), "3.12.1\n").unwrap();
    let mut s = open(&root);
    s.env = env_of(&[("HOME", h.to_str().unwrap())]);
    let g = s.scan().unwrap();
    install(
        &h.join(".rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/rustc"),
        "1.81",
    );
    assert_eq!(s.scan().unwrap(), g + 1, "rustup update");
    install(
        &h.join(".rustup/toolchains/nightly-x86_64-unknown-linux-gnu/bin/rustc"),
        "1.83",
    );
    assert_eq!(s.scan().unwrap(), g + 2, "a toolchain installed");
    std::fs::write(
        h.join(".rustup/settings.toml"),
        "default_toolchain = \"nightly\"\n",
    )
    .unwrap();
    assert_eq!(s.scan().unwrap(), g + 3, "rustup default");
    std::fs::write(h.join(".pyenv/version"), "3.11.9\n").unwrap();
    assert_eq!(s.scan().unwrap(), g + 4, "pyenv global");
    std::fs::create_dir_all(h.join(".pyenv/versions/3.12.1/lib/python3.12/site-packages/pytest"))
        .unwrap();
    assert_eq!(
        s.scan().unwrap(),
        g + 5,
        "a package installed into a pyenv version"
    );
    install(&h.join(".pyenv/versions/3.12.1/bin/python"), "3.12.2");
    assert_eq!(s.scan().unwrap(), g + 6, "a pyenv version rebuilt");
    // In the workspace, the toolchain files are files: ignored or not, they count.
    std::fs::write(root.join(".gitignore"), ".python-version\n").unwrap();
    let g = s.scan().unwrap();
    std::fs::write(root.join(".python-version"), "3.12\n").unwrap();
    std::fs::write(root.join("rust-toolchain.toml"), "[toolchain]\n").unwrap();
    assert_eq!(s.scan().unwrap(), g + 1);
}

#[test]
fn an_input_that_cannot_be_measured_is_a_change_every_time() {
    let (_d, root) = workspace();
    let outside = tempfile::tempdir().unwrap();
    let venv = outside.path().join("venv");
    std::fs::create_dir_all(&venv).unwrap();
    std::fs::write(venv.join("pyvenv.cfg"), "home = /usr/bin\n").unwrap();
    // `lib` is a link to itself: it exists, and it cannot be read.
    std::os::unix::fs::symlink("lib", venv.join("lib")).unwrap();
    let mut s = open(&root);
    s.env = env_of(&[("VIRTUAL_ENV", venv.to_str().unwrap())]);
    let g = s.scan().unwrap();
    assert_eq!(s.scan().unwrap(), g + 1, "when unsure, run");
    assert_eq!(s.scan().unwrap(), g + 2);
    std::fs::remove_file(venv.join("lib")).unwrap();
    std::fs::create_dir_all(venv.join("lib/python3.12/site-packages")).unwrap();
    assert_eq!(s.scan().unwrap(), g + 3);
    assert_eq!(s.scan().unwrap(), g + 3, "readable again: stable again");
}

#[test]
fn a_state_directory_that_is_a_link_is_never_followed() {
    let (_d, root) = workspace();
    let dir = crate::state_path(&crate::base_dir().unwrap(), &root);
    std::fs::create_dir_all(dir.parent().unwrap()).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("elsewhere");
    std::fs::create_dir_all(&target).unwrap();
    // Even a link to a directory of the workspace itself is refused.
    std::fs::create_dir_all(root.join("inside")).unwrap();
    for to in [target.clone(), root.join("inside")] {
        std::os::unix::fs::symlink(&to, &dir).unwrap();
        match Store::open(&root) {
            Err(e @ StoreError::Link(_)) => {
                let text = e.to_string();
                assert!(
                    text.starts_with(&format!("{} is a symbolic link", dir.display())),
                    "{text}"
                );
            }
            Err(e) => panic!("{e}"),
            Ok(_) => panic!(
                "opened a state directory through a link to {}",
                to.display()
            ),
        }
        assert!(crate::state_dir(&root).is_err());
        let watcher = Watcher::start(&root).unwrap();
        watcher.take_synced();
        assert!(watcher.take_synced().full, "no cookie: every take scans");
        assert_eq!(
            std::fs::read_dir(&to).unwrap().count(),
            0,
            "nothing written there"
        );
        std::fs::remove_file(&dir).unwrap();
    }
    // A state directory that is a file is no state directory either.
    std::fs::write(&dir, "x").unwrap();
    assert!(Store::open(&root).is_err());
    std::fs::remove_file(&dir).unwrap();
}

/// A `.pith/` an older pith left in the workspace (its database, lock, index, a cookie) is
/// moved out: the history goes to the state directory, the rest is rebuilt, the directory is
/// removed (a licence check in the project's build no longer finds `.pith/run.lock`), with one
/// note.
#[test]
fn an_older_pith_state_in_the_workspace_is_moved_out_with_its_history() {
    // What an older pith left: a database with a recorded run, WAL included.
    let (_o, older) = workspace();
    let mut s = open(&older);
    s.scan().unwrap();
    record(&mut s, 1, &["t::a"], &["t::b"]);
    drop(s);
    let (_d, root) = workspace();
    let legacy = root.join(".pith");
    std::fs::create_dir_all(&legacy).unwrap();
    for f in ["state.db", "state.db-wal"] {
        std::fs::copy(state(&older).join(f), legacy.join(f)).unwrap();
    }
    for f in ["run.lock", "index.bin", "sync-12-0", "state.db.corrupt-1"] {
        std::fs::write(legacy.join(f), "x").unwrap();
    }
    let mut s = open(&root);
    let w = s.take_warnings();
    assert!(
        w.len() == 1 && w[0].starts_with("moved the history and state an older pith kept"),
        "{w:?}"
    );
    assert!(!legacy.exists(), "removed from the workspace");
    let last = s.last_run().unwrap().expect("the history came along");
    assert_eq!(last.failed, 1);
    assert_eq!(
        s.scan().unwrap(),
        1,
        "the same files as the history's: its generation carries on"
    );
    drop(s);
    assert!(open(&root).take_warnings().is_empty(), "said once");

    // A `.pith/` with no database (an older pith's index alone) goes too.
    std::fs::create_dir_all(&legacy).unwrap();
    std::fs::write(legacy.join("index.bin"), "x").unwrap();
    let w = open(&root).take_warnings();
    assert!(
        w[0].starts_with("moved the state an older pith kept"),
        "{w:?}"
    );
    assert!(!legacy.exists());
}

/// A `.pith` that may not be an older pith's alone — a link (a repository can ship one),
/// a file pith never writes beside its own, a database that is not pith's — or one an older pith
/// is using (its run lock held) is left as it is and never read, written or walked: no reason
/// to fail, and said once, on the state directory's first use.
#[test]
fn a_pith_directory_that_may_not_be_pith_s_alone_is_left_alone() {
    let outside = tempfile::tempdir().unwrap();
    for (case, why) in [
        ("link", "a symbolic link"),
        ("foreign file", "not pith's alone"),
        ("foreign database", "not pith's alone"),
        ("held", "in use by an older pith"),
    ] {
        let (_d, root) = workspace();
        let legacy = root.join(".pith");
        let mut _held = None;
        match case {
            "link" => std::os::unix::fs::symlink(outside.path(), &legacy).unwrap(),
            "foreign file" => {
                std::fs::create_dir_all(&legacy).unwrap();
                std::fs::write(legacy.join("run.lock"), "1").unwrap();
                std::fs::write(legacy.join("notes.md"), "mine\n").unwrap();
            }
            "foreign database" => {
                std::fs::create_dir_all(&legacy).unwrap();
                let other = rusqlite::Connection::open(legacy.join("state.db")).unwrap();
                other.execute_batch("CREATE TABLE t (x);").unwrap();
            }
            _ => {
                std::fs::create_dir_all(&legacy).unwrap();
                _held = Some(crate::lock::acquire(&legacy, Duration::ZERO).unwrap());
            }
        }
        let listing = || -> Vec<(String, Vec<u8>)> {
            let mut all: Vec<_> = std::fs::read_dir(&legacy)
                .unwrap()
                .flatten()
                .map(|e| {
                    let name = e.file_name().into_string().unwrap();
                    (name, std::fs::read(e.path()).unwrap_or_default())
                })
                .collect();
            all.sort();
            all
        };
        let before = listing();
        let mut s = open(&root);
        let w = s.take_warnings();
        assert!(
            w.len() == 1 && w[0].contains(why) && w[0].contains("remove it if it is not"),
            "{case}: {w:?}"
        );
        let g = s.scan().unwrap();
        s.record(g, "", 0, &mut report(&["t::a"], &[])).unwrap();
        let TryLock::Held(_lock) = s.lock_run(Duration::ZERO).unwrap() else {
            panic!("free lock")
        };
        if case != "link" {
            std::fs::write(legacy.join("new.txt"), "x").unwrap();
            assert_eq!(s.scan().unwrap(), g, "{case}: .pith/ is never an input");
            std::fs::remove_file(legacy.join("new.txt")).unwrap();
        }
        assert_eq!(listing(), before, "{case}: untouched");
        drop(s);
        assert!(open(&root).take_warnings().is_empty(), "{case}: said once");
    }
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[test]
fn links_inside_the_state_directory_are_not_written_through() {
    let (_d, root) = workspace();
    let outside = tempfile::tempdir().unwrap();
    let precious = outside.path().join("precious.db");
    let other = rusqlite::Connection::open(&precious).unwrap();
    other
        .execute_batch("CREATE TABLE keep (x); INSERT INTO keep VALUES (1);")
        .unwrap();
    drop(other);
    let before = std::fs::read(&precious).unwrap();
    let dir = state(&root);
    std::os::unix::fs::symlink(&precious, dir.join("state.db")).unwrap();
    let lock_target = outside.path().join("lock");
    std::fs::write(&lock_target, "mine\n").unwrap();
    std::os::unix::fs::symlink(&lock_target, dir.join("run.lock")).unwrap();

    let mut s = open(&root);
    let w = s.take_warnings();
    assert!(
        w.len() == 1 && w[0].contains("state.db is a symbolic link") && w[0].contains("corrupt-1"),
        "{w:?}"
    );
    assert_eq!(s.scan().unwrap(), 1);
    let TryLock::Held(lock) = s.lock_run(Duration::ZERO).unwrap() else {
        panic!("free lock")
    };
    drop(lock);
    assert!(!dir
        .join("state.db")
        .symlink_metadata()
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(!dir
        .join("run.lock")
        .symlink_metadata()
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read(&precious).unwrap(),
        before,
        "the link's target is untouched"
    );
    assert_eq!(std::fs::read_to_string(&lock_target).unwrap(), "mine\n");
    assert!(
        !outside.path().join("precious.db-wal").exists(),
        "no WAL beside the target"
    );
    drop(s);

    // A link beside the database: the set is moved aside.
    let wal_target = outside.path().join("wal");
    std::fs::write(&wal_target, "").unwrap();
    let wal = dir.join("state.db-wal");
    let _ = std::fs::remove_file(&wal);
    std::os::unix::fs::symlink(&wal_target, &wal).unwrap();
    let mut s = open(&root);
    let w = s.take_warnings();
    assert!(w.len() == 1 && w[0].contains("state.db-wal"), "{w:?}");
    s.scan().unwrap();
    assert_eq!(std::fs::read(&wal_target).unwrap(), b"", "never written");
}

#[test]
fn flaky_needs_the_same_inputs() {
    let (_d, root) = workspace();
    let mut s = open(&root);
    // Passed, then failed at another generation: what the change did.
    record(&mut s, 1, &[], &["t::a"]);
    let r = record(&mut s, 2, &["t::a"], &[]);
    let f = &r.runs[0].failures[0];
    assert!(!f.flaky && f.new, "{f:?}");
    // Passed at generation 3 in one environment, failed at 3 in another: not flaky either.
    record(&mut s, 3, &[], &["t::a"]);
    s.env = env_of(&[("PATH", "/nonexistent-pith-test-path"), ("FEATURE", "on")]);
    let r = record(&mut s, 3, &["t::a"], &[]);
    let f = &r.runs[0].failures[0];
    assert!(!f.flaky && f.new, "{f:?}");
    // The same generation and environment as a pass: flaky.
    s.env = bare_env();
    let r = record(&mut s, 3, &["t::a"], &[]);
    assert!(r.runs[0].failures[0].flaky);
}

#[test]
fn a_replay_needs_the_same_environment() {
    let (_d, root) = workspace();
    let mut s = open(&root);
    let mut r = report(&[], &["t::a"]);
    s.record(1, "", 0, &mut r).unwrap();
    assert!(s.last_run_of("").unwrap().is_some());
    s.env = env_of(&[("DATABASE_URL", "postgres://other")]);
    assert!(
        s.last_run_of("").unwrap().is_none(),
        "another environment never ran"
    );
    // Variables a shell changes on its own do not make another environment.
    s.env = env_of(&[
        ("PATH", "/nonexistent-pith-test-path"),
        ("HOME", "/nonexistent-pith-test-home"),
        ("OLDPWD", "/somewhere"),
        ("SHLVL", "3"),
        ("PITH_HISTORY_RUNS", "5"),
    ]);
    assert!(s.last_run_of("").unwrap().is_some());
}

/// pith's state is outside the workspace: opening, scanning, recording, locking and a synced
/// watcher leave the workspace's tree and its repository's files as they were (no `.pith/`,
/// no `.git/info/exclude` line), and two workspaces never share a state directory.
#[test]
fn nothing_of_the_state_is_in_the_workspace_or_its_repository() {
    let (_d, root) = workspace();
    std::fs::create_dir_all(root.join(".git/info")).unwrap();
    let exclude = "# git ls-files --others\n*.swp";
    std::fs::write(root.join(".git/info/exclude"), exclude).unwrap();
    std::fs::create_dir_all(root.join("py")).unwrap();
    let tree = |root: &Path| -> Vec<PathBuf> {
        let mut all = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                if e.file_type().unwrap().is_dir() {
                    stack.push(e.path());
                }
                all.push(e.path());
            }
        }
        all.sort();
        all
    };
    let before = tree(&root);
    let mut s = open(&root);
    s.scan().unwrap();
    record(&mut s, 1, &["t::a"], &["t::b"]);
    let TryLock::Held(lock) = s.lock_run(Duration::ZERO).unwrap() else {
        panic!("free lock")
    };
    drop(lock);
    let watcher = Watcher::start(&root).unwrap();
    watcher.take_synced();
    assert!(!watcher.take_synced().full, "the cookie was seen");
    let mut sub = open(&root.join("py"));
    sub.scan().unwrap();
    // Two workspaces, two locks: one held does not hold the other.
    let TryLock::Held(_held) = s.lock_run(Duration::ZERO).unwrap() else {
        panic!("free lock")
    };
    assert!(matches!(
        sub.lock_run(Duration::ZERO).unwrap(),
        TryLock::Held(_)
    ));
    assert!(matches!(
        open(&root).lock_run(Duration::ZERO).unwrap(),
        TryLock::Busy { .. }
    ));
    assert_eq!(tree(&root), before);
    assert_eq!(
        std::fs::read_to_string(root.join(".git/info/exclude")).unwrap(),
        exclude
    );
    let (here, there) = (state(&root), state(&root.join("py")));
    assert_ne!(here, there);
    assert!(!here.starts_with(&root) && here.join("state.db").is_file());
    assert!(there.join("state.db").is_file());
}

#[test]
fn a_damaged_or_foreign_database_is_moved_aside_with_one_warning() {
    let (_d, root) = workspace();
    let dir = state(&root);
    std::fs::write(
        dir.join("state.db"),
        "this is not a database, it is a text file\n".repeat(200),
    )
    .unwrap();
    let mut s = open(&root);
    let w = s.take_warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    let aside = dir.join("state.db.corrupt-1");
    assert!(
        w[0].contains(&aside.display().to_string()) && !w[0].contains('\n'),
        "{w:?}"
    );
    assert_eq!(s.scan().unwrap(), 1);
    assert!(aside.is_file());
    drop(s);

    // A real SQLite database that is someone else's.
    std::fs::remove_file(dir.join("state.db")).unwrap();
    for side in ["state.db-wal", "state.db-shm"] {
        let _ = std::fs::remove_file(dir.join(side));
    }
    let other = rusqlite::Connection::open(dir.join("state.db")).unwrap();
    other
        .execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        .unwrap();
    drop(other);
    let mut s = open(&root);
    let w = s.take_warnings();
    assert!(
        w[0].contains("not pith's database") && w[0].contains("corrupt-2"),
        "{w:?}"
    );
    assert_eq!(s.scan().unwrap(), 1);
}

fn failure(test: &str) -> Failure {
    Failure {
        test: test.into(),
        message: "AssertionError: assert 1 == 2".into(),
        kind: Some("AssertionError".into()),
        frames: vec![
            Frame {
                file: "/usr/lib/python3/site.py".into(),
                line: 3,
                code: None,
                project: false,
            },
            Frame {
                code: Some("assert f() == 2".into()),
                ..Frame::project("tests/test_a.py", 7)
            },
        ],
        detail: Some("AssertionError: assert 1 == 2\n +  where 1 = f()".into()),
        ..Failure::default()
    }
}

/// A pytest report: `failing` fail, `passing` pass.
fn report(failing: &[&str], passing: &[&str]) -> Report {
    let run = Run {
        passed: passing.len() as u32,
        failed: failing.len() as u32,
        failures: failing.iter().map(|t| failure(t)).collect(),
        outcomes: passing
            .iter()
            .map(|t| TestOutcome::passed(*t, Some(Duration::from_millis(12))))
            .collect(),
        ..Run::new("pytest")
    };
    Report {
        runs: vec![run],
        duration: Duration::from_millis(1500),
        ..Report::default()
    }
}

pub(crate) fn record(s: &mut Store, generation: u64, failing: &[&str], passing: &[&str]) -> Report {
    let mut r = report(failing, passing);
    s.record(generation, "", 0, &mut r).unwrap();
    r
}

#[test]
fn history_says_new_failing_for_flaky_and_recovered() {
    let (_d, root) = workspace();
    let mut s = open(&root);
    let first = record(&mut s, 1, &["t::a"], &["t::b", "t::c"]);
    let f = &first.runs[0].failures[0];
    assert!(
        !f.new && f.failing_for == 0 && !f.flaky,
        "no history, nothing to say: {f:?}"
    );

    let second = record(&mut s, 2, &["t::a", "t::b"], &["t::c"]);
    let fs = &second.runs[0].failures;
    assert_eq!((fs[0].failing_for, fs[0].new), (2, false));
    assert!(fs[1].new && fs[1].failing_for == 0);

    // Same content (generation 2), b passes now: recovered; then fails again: flaky.
    let third = record(&mut s, 2, &["t::a"], &["t::b", "t::c"]);
    assert_eq!(third.recovered, 1);
    assert_eq!(third.runs[0].failures[0].failing_for, 3);
    let fourth = record(&mut s, 2, &["t::b"], &["t::a", "t::c"]);
    let b = &fourth.runs[0].failures[0];
    assert!(b.flaky && !b.new && b.failing_for == 0, "{b:?}");
    assert_eq!(fourth.recovered, 1, "a passes again");

    let last = s.last_run().unwrap().unwrap();
    assert_eq!(
        (
            last.generation,
            last.status,
            last.passed,
            last.failed,
            last.recovered
        ),
        (2, Status::TestsFailed, 2, 1, 1)
    );
    assert_eq!(last.duration, Duration::from_millis(1500));

    let details = s.failures(&[]).unwrap();
    assert_eq!(details.failures.len(), 1);
    let f = &details.failures[0];
    assert_eq!(f, b, "stored whole, frames included");
    let named = s
        .failures(&["t::b".into(), "t::a".into(), "t::zzz".into()])
        .unwrap();
    assert_eq!(named.failures.len(), 1);
    assert_eq!(named.not_failing, vec!["t::a".to_owned()]);
    assert_eq!(named.not_found, vec!["t::zzz".to_owned()]);
}

/// A test that passed on the runner's own retry passed: the history records a pass (it leaves
/// the failing list, a recovery), and `pith failures` has no failure of it.
#[test]
fn a_test_that_passed_on_a_retry_is_recorded_as_passed() {
    let (_d, root) = workspace();
    let mut s = open(&root);
    record(&mut s, 1, &["t::a"], &["t::b"]);
    let mut r = report(&[], &["t::b"]);
    r.runs[0].flaky = vec![failure("t::a")];
    r.runs[0].passed += 1;
    s.record(1, "", 0, &mut r).unwrap();
    assert_eq!(r.recovered, 1, "t::a passed, on a retry");
    let last = s.last_run().unwrap().unwrap();
    assert_eq!(
        (last.status, last.passed, last.failed),
        (Status::TestsPassed, 2, 0)
    );
    let details = s.failures(&["t::a".into()]).unwrap();
    assert!(details.failures.is_empty(), "{details:?}");
    assert_eq!(details.not_failing, ["t::a"]);
}

#[test]
fn the_last_run_of_a_selection_is_found() {
    let (_d, root) = workspace();
    let mut s = open(&root);
    let mut r = report(&[], &["t::a"]);
    s.record(1, "pytest\u{1f}t::a", 1, &mut r).unwrap();
    let mut r = report(&["t::b"], &["t::a"]);
    s.record(1, "", 0, &mut r).unwrap();
    let sel = s.last_run_of("pytest\u{1f}t::a").unwrap().unwrap();
    assert_eq!((sel.status, sel.requested), (Status::TestsPassed, 1));
    assert_eq!(
        s.last_run_of("").unwrap().unwrap().status,
        Status::TestsFailed
    );
    assert!(s.last_run_of("other").unwrap().is_none());
    assert_eq!(s.runner_info("pytest").unwrap().name, "pytest");
}

#[test]
fn pruning_keeps_the_newest_runs_within_both_bounds() {
    let (_d, root) = workspace();
    let mut s = open(&root);
    for g in 1..=6 {
        record(&mut s, g, &["t::a"], &["t::b"]);
    }
    let limit = Retention {
        runs: 3,
        bytes: u64::MAX,
    };
    assert!(s.prune(limit).unwrap());
    assert_eq!(s.run_count().unwrap(), 3);
    assert!(!s.prune(limit).unwrap(), "nothing more to prune");
    // The streak only sees what is kept.
    let r = record(&mut s, 7, &["t::a"], &[]);
    assert_eq!(r.runs[0].failures[0].failing_for, 4);

    // A byte bound below one run's size keeps just the latest run.
    let big: Vec<String> = (0..400)
        .map(|i| format!("t::passing_test_with_a_long_name_{i}"))
        .collect();
    let big: Vec<&str> = big.iter().map(String::as_str).collect();
    record(&mut s, 8, &[], &big);
    record(&mut s, 9, &["t::a"], &big);
    assert!(s
        .prune(Retention {
            runs: 100,
            bytes: 64 << 10,
        })
        .unwrap());
    assert_eq!(s.run_count().unwrap(), 1);
    assert_eq!(s.last_run().unwrap().unwrap().generation, 9);
}

#[test]
fn a_history_at_its_bound_is_pruned_an_eighth_at_a_time_not_every_run() {
    let (_d, root) = workspace();
    let mut s = open(&root);
    let limit = Retention {
        runs: 16,
        bytes: u64::MAX,
    };
    for g in 1..=18 {
        record(&mut s, g, &[], &["t::a"]);
        assert!(
            !s.prune(limit).unwrap(),
            "run {g}: within the bound and its slack"
        );
    }
    assert_eq!(s.run_count().unwrap(), 18);
    record(&mut s, 19, &[], &["t::a"]);
    assert!(s.prune(limit).unwrap(), "past the slack");
    assert_eq!(s.run_count().unwrap(), 16, "back down to the bound");
    assert_eq!(s.last_run().unwrap().unwrap().generation, 19);
}

#[test]
fn a_run_recorded_pruned_sees_the_history_before_it_then_keeps_within_the_bound() {
    let (_d, root) = workspace();
    let mut s = open(&root);
    for g in 1..=3 {
        record(&mut s, g, &["t::a"], &[]);
    }
    let one = Retention {
        runs: 1,
        bytes: u64::MAX,
    };
    let mut r = report(&["t::a"], &["t::b"]);
    s.record_pruned(4, "", 0, &mut r, one).unwrap();
    assert_eq!(
        r.runs[0].failures[0].failing_for, 4,
        "annotated before the prune"
    );
    assert_eq!(
        s.run_count().unwrap(),
        1,
        "one transaction, pruned to the bound"
    );
    assert_eq!(s.last_run().unwrap().unwrap().generation, 4);
    let mut next = report(&["t::a"], &[]);
    s.record_pruned(5, "", 0, &mut next, one).unwrap();
    assert_eq!(next.runs[0].failures[0].failing_for, 2);
    assert_eq!(s.run_count().unwrap(), 1, "a bound of one has no slack");
}

#[test]
fn a_prune_that_fails_is_undone_alone_and_the_run_is_kept() {
    let (_d, root) = workspace();
    let mut s = open(&root);
    for g in 1..=3 {
        record(&mut s, g, &["t::a"], &[]);
    }
    // The prune deletes the old runs' results, then fails on the runs themselves.
    let db = state(&root).join("state.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "CREATE TRIGGER keep_runs BEFORE DELETE ON runs BEGIN SELECT RAISE(ABORT, 'kept'); END",
    )
    .unwrap();
    let results = || -> i64 {
        conn.query_row("SELECT count(*) FROM results", [], |r| r.get(0))
            .unwrap()
    };
    assert_eq!(results(), 3);
    let one = Retention {
        runs: 1,
        bytes: u64::MAX,
    };
    let mut s = open(&root);
    s.record_pruned(4, "", 0, &mut report(&["t::a"], &[]), one)
        .unwrap();
    assert_eq!(s.run_count().unwrap(), 4, "the run is recorded");
    assert_eq!(results(), 4, "no result of a kept run was deleted");
}

#[test]
fn statements_prepared_ahead_record_the_same_run() {
    let (_d, root) = workspace();
    let mut s = open(&root);
    record(&mut s, 1, &["t::a"], &["t::b"]);
    s.prepare_to_record();
    let mut r = report(&["t::a"], &["t::b"]);
    s.record_pruned(2, "", 0, &mut r, Retention::default())
        .unwrap();
    assert_eq!(r.runs[0].failures[0].failing_for, 2);
    let last = s.last_run().unwrap().unwrap();
    assert_eq!((last.generation, last.passed, last.failed), (2, 1, 1));
}

#[test]
fn pruning_never_waits_for_a_writer() {
    let (_d, root) = workspace();
    let mut s = open(&root);
    record(&mut s, 1, &[], &["t::a"]);
    record(&mut s, 1, &[], &["t::a"]);
    let other = rusqlite::Connection::open(state(&root).join("state.db")).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let start = std::time::Instant::now();
    let limit = Retention {
        runs: 1,
        bytes: u64::MAX,
    };
    assert!(!s.prune(limit).unwrap());
    assert!(start.elapsed() < Duration::from_secs(1));
    other.execute_batch("ROLLBACK").unwrap();
    assert!(s.prune(limit).unwrap());
}

#[test]
fn a_second_run_waits_then_is_busy_and_a_released_lock_is_free() {
    let (_d, root) = workspace();
    let s = open(&root);
    let TryLock::Held(held) = s.lock_run(Duration::ZERO).unwrap() else {
        panic!("free lock")
    };
    assert!(!held.waited, "nobody held it");
    let other = open(&root);
    match other.lock_run(Duration::from_millis(100)).unwrap() {
        TryLock::Busy { holder } => assert_eq!(holder, Some(std::process::id())),
        TryLock::Held(_) => panic!("flock is per open file: the second must be refused"),
    }
    drop(held);
    assert!(matches!(
        other.lock_run(Duration::ZERO).unwrap(),
        TryLock::Held(_)
    ));
}

#[test]
fn concurrent_scans_bump_once() {
    let (_d, root) = workspace();
    open(&root).scan().unwrap();
    for i in 0..20 {
        std::fs::write(root.join(format!("src/f{i}.py")), format!("{i}\n")).unwrap();
    }
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let root = root.clone();
            std::thread::spawn(move || open(&root).scan().unwrap())
        })
        .collect();
    let gens: Vec<u64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert!(gens.iter().all(|&g| g == 2), "{gens:?}");
}

#[test]
fn a_refresh_with_a_watcher_looks_only_at_what_changed() {
    let (_d, root) = workspace();
    let watcher = Watcher::start(&root).unwrap();
    let mut s = open(&root);
    assert_eq!(
        s.refresh(watcher.take()).unwrap(),
        1,
        "the first refresh scans all"
    );
    assert_eq!(s.refresh(Dirty::default()).unwrap(), 1);
    // Nothing dirty means nothing is looked at: a change the watcher is not told of is not
    // seen (a scan would see it).
    std::fs::write(root.join("unseen.py"), "u\n").unwrap();
    assert_eq!(s.refresh(Dirty::default()).unwrap(), 1);
    std::fs::remove_file(root.join("unseen.py")).unwrap();
    let _ = watcher.take();

    std::fs::write(root.join("src/a.py"), "a = 3\n").unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let mut dirty = Dirty::default();
    while std::time::Instant::now() < deadline {
        let d = watcher.take();
        dirty.paths.extend(d.paths);
        dirty.full |= d.full;
        if dirty.paths.contains("src/a.py") {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(dirty.paths.contains("src/a.py"), "{dirty:?}");
    assert!(
        !dirty.paths.iter().any(|p| p.contains("sync-")),
        "{dirty:?}"
    );
    assert_eq!(s.refresh(dirty).unwrap(), 2);

    // A scoped refresh sees a new file, a deletion and a new directory.
    std::fs::create_dir_all(root.join("pkg")).unwrap();
    std::fs::write(root.join("pkg/m.py"), "m\n").unwrap();
    let scoped = Dirty {
        paths: ["pkg".to_owned()].into_iter().collect(),
        full: false,
    };
    assert_eq!(s.refresh(scoped).unwrap(), 3);
    std::fs::remove_file(root.join("src/a.py")).unwrap();
    let scoped = Dirty {
        paths: ["src/a.py".to_owned()].into_iter().collect(),
        full: false,
    };
    assert_eq!(s.refresh(scoped).unwrap(), 4);
    assert_eq!(s.scan().unwrap(), 4, "a full scan agrees");
}

#[test]
fn a_synced_take_sees_every_change_made_before_it_without_waiting_for_events() {
    let (_d, root) = workspace();
    let mut s = open(&root);
    let watcher = Watcher::start(&root).unwrap();
    assert!(
        watcher.take_synced().full,
        "the first take asks for a full scan"
    );
    assert_eq!(s.scan().unwrap(), 1);
    for i in 0..20 {
        // Asked right after the write: the cookie makes the take wait for its event.
        std::fs::write(root.join("src/a.py"), format!("a = {i}\n")).unwrap();
        let dirty = watcher.take_synced();
        assert!(!dirty.full, "{dirty:?}");
        assert!(dirty.paths.contains("src/a.py"), "edit {i}: {dirty:?}");
        assert!(
            !dirty.paths.iter().any(|p| p.contains("sync-")),
            "cookies are not changes: {dirty:?}"
        );
        assert_eq!(s.refresh(dirty).unwrap(), 2 + i);
    }
    // With nothing changed, a synced take is empty: no cookie is left behind to be seen.
    let dirty = watcher.take_synced();
    assert_eq!(dirty, Dirty::default());
    let left: Vec<_> = std::fs::read_dir(state(&root).join("sync"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("sync-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_watcher_that_could_not_watch_a_new_directory_asks_for_a_scan_ever_after() {
    let (_d, root) = workspace();
    let mut s = open(&root);
    // As at the kernel's limit: the first directory made after start cannot be watched.
    let watcher = Watcher::start_with(&root, Some(0)).unwrap();
    assert!(watcher.take_synced().full);
    let g = s.scan().unwrap();
    std::fs::write(root.join("src/a.py"), "a = 5\n").unwrap();
    let dirty = watcher.take_synced();
    assert!(!dirty.full && watcher.failure().is_none(), "{dirty:?}");
    assert_eq!(s.refresh(dirty).unwrap(), g + 1);

    std::fs::create_dir(root.join("pkg")).unwrap();
    let dirty = watcher.take_synced();
    assert!(dirty.full, "{dirty:?}");
    assert!(watcher.failure().unwrap().contains("could not be watched"));
    // An empty directory is no input.
    assert_eq!(s.refresh(dirty).unwrap(), g + 1);
    // A change in the directory no watch covers: every later question scans, and sees it.
    for i in 0..3 {
        std::fs::write(root.join(format!("pkg/m{i}.py")), "m = 1\n").unwrap();
        let dirty = watcher.take_synced();
        assert!(dirty.full, "{dirty:?}");
        assert_eq!(s.refresh(dirty).unwrap(), g + 2 + i);
    }
    assert!(watcher.take().full);
}

#[test]
fn the_watcher_ignores_tool_caches_and_generated_directories() {
    let (_d, root) = workspace();
    std::fs::create_dir_all(root.join("target/debug")).unwrap();
    std::fs::write(
        root.join("target/CACHEDIR.TAG"),
        "Signature: 8a477f597d28d172789f06886806bc55\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("web/node_modules/x")).unwrap();
    let _s = open(&root);
    let watcher = Watcher::start(&root).unwrap();
    let _ = watcher.take_synced();
    std::fs::write(root.join("target/debug/out.o"), "o").unwrap();
    std::fs::write(root.join("web/node_modules/x/i.js"), "x").unwrap();
    std::fs::write(root.join("src/a.py"), "a = 9\n").unwrap();
    let dirty = watcher.take_synced();
    assert_eq!(
        dirty.paths.into_iter().collect::<Vec<_>>(),
        ["src/a.py"],
        "only the source edit"
    );
}

#[test]
fn bazels_convenience_links_beside_its_workspace_file_are_not_files() {
    let (_d, root) = workspace();
    let out = tempfile::tempdir().unwrap();
    std::fs::write(root.join("WORKSPACE"), "workspace(name = \"w\")\n").unwrap();
    std::fs::create_dir_all(root.join("bazel-rules")).unwrap();
    std::fs::write(root.join("bazel-rules/defs.bzl"), "x\n").unwrap();
    let mut s = open(&root);
    let g = s.scan().unwrap();
    // A build makes its links (and every later build makes them again).
    for link in ["bazel-bin", "bazel-out", "bazel-w"] {
        std::os::unix::fs::symlink(out.path(), root.join(link)).unwrap();
    }
    assert_eq!(
        s.scan().unwrap(),
        g,
        "Bazel's links are not the workspace's files"
    );
    std::fs::remove_file(root.join("bazel-out")).unwrap();
    assert_eq!(s.scan().unwrap(), g);
    // A real file or directory of such a name is source, and so is a link of the project's
    // own where no Bazel workspace file is beside it.
    std::fs::write(root.join("bazel-rules/defs.bzl"), "y\n").unwrap();
    assert_eq!(s.scan().unwrap(), g + 1);
    std::fs::write(root.join("bazel-notes.txt"), "a file, not a link\n").unwrap();
    assert_eq!(s.scan().unwrap(), g + 2);
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::os::unix::fs::symlink(root.join("bazel-notes.txt"), root.join("sub/bazel-link")).unwrap();
    assert_eq!(s.scan().unwrap(), g + 3);
}

#[test]
fn build_output_beside_its_build_file_is_not_source() {
    let (_d, root) = workspace();
    for (file, out) in [
        ("java/pom.xml", "java/target/classes/A.class"),
        (
            "kt/build.gradle.kts",
            "kt/build/test-results/test/TEST-A.xml",
        ),
        ("kt/build.gradle.kts", "kt/.gradle/8.5/fileHashes/x.bin"),
        ("cs/App.Tests.csproj", "cs/obj/project.assets.json"),
        ("cs/App.Tests.csproj", "cs/bin/Debug/App.dll"),
        ("cpp/CMakeLists.txt", "cpp/out/CMakeCache.txt"),
    ] {
        let p = root.join(file);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "x\n").unwrap();
        let o = root.join(out);
        std::fs::create_dir_all(o.parent().unwrap()).unwrap();
        std::fs::write(&o, "x\n").unwrap();
    }
    // A `build/` that no build file claims is somebody's source.
    std::fs::create_dir_all(root.join("py/build")).unwrap();
    std::fs::write(root.join("py/build/helpers.py"), "x\n").unwrap();
    let mut s = open(&root);
    let g = s.scan().unwrap();
    for out in [
        "java/target/classes/A.class",
        "kt/build/test-results/test/TEST-A.xml",
        "kt/.gradle/8.5/fileHashes/x.bin",
        "cs/obj/project.assets.json",
        "cs/bin/Debug/App.dll",
        "cpp/out/CMakeCache.txt",
        "cpp/out/more.o",
    ] {
        std::fs::write(root.join(out), "changed by a build\n").unwrap();
    }
    assert_eq!(s.scan().unwrap(), g, "a build's output is not a change");
    std::fs::write(root.join("py/build/helpers.py"), "y\n").unwrap();
    assert_eq!(s.scan().unwrap(), g + 1);

    // The watcher drops the same events at the top level.
    let _java = open(&root.join("java"));
    let watcher = Watcher::start(&root.join("java")).unwrap();
    let _ = watcher.take_synced();
    std::fs::write(root.join("java/target/classes/A.class"), "again\n").unwrap();
    std::fs::write(root.join("java/pom.xml"), "edited\n").unwrap();
    let dirty = watcher.take_synced();
    assert!(!dirty.full, "{dirty:?}");
    assert_eq!(dirty.paths.into_iter().collect::<Vec<_>>(), ["pom.xml"]);
}

#[test]
fn the_wal_stays_bounded_across_short_lived_writers() {
    // Each `pith status` is a process of its own, and none checkpoints when it closes.
    let (_d, root) = workspace();
    let wal = state(&root).join("state.db-wal");
    let mut largest = 0;
    for i in 0..300 {
        let mut s = open(&root);
        std::fs::write(root.join("src/a.py"), format!("a = {i}\n{}", "x".repeat(i))).unwrap();
        assert_eq!(s.scan().unwrap(), i as u64 + 1);
        drop(s);
        largest = largest.max(std::fs::metadata(&wal).map_or(0, |m| m.len()));
    }
    assert!(largest > 0, "the WAL is kept between processes");
    assert!(
        largest <= crate::db::WAL_LIMIT + 64 * 1024,
        "the WAL grew to {largest} bytes"
    );
}

#[test]
fn detected_runners_are_kept_until_a_file_near_the_top_changes() {
    let (_d, root) = workspace();
    std::fs::create_dir_all(root.join("a/b/c")).unwrap();
    std::fs::write(root.join("a/b/c/deep.py"), "x\n").unwrap();
    let mut s = open(&root);
    let g = s.scan().unwrap();
    assert_eq!(s.cached_runners("k").unwrap(), None);
    s.cache_runners("k", g, &["nextest".into(), "pytest".into()])
        .unwrap();
    assert_eq!(
        s.cached_runners("k").unwrap(),
        Some(vec!["nextest".to_owned(), "pytest".to_owned()])
    );
    assert_eq!(
        s.cached_runners("other").unwrap(),
        None,
        "another environment"
    );
    std::fs::write(root.join("a/b/c/deep.py"), "y\n").unwrap();
    std::fs::write(root.join("src/a.py"), "edited = True\n").unwrap();
    s.scan().unwrap();
    assert!(
        s.cached_runners("k").unwrap().is_some(),
        "deep files and edited source files mark no project"
    );
    std::fs::write(root.join("a/b/package.json"), "{}\n").unwrap();
    let g = s.scan().unwrap();
    assert_eq!(
        s.cached_runners("k").unwrap(),
        None,
        "a marker may have appeared"
    );
    s.cache_runners("k", g, &["jest".into()]).unwrap();
    std::fs::write(root.join("a/b/package.json"), "{\"x\": 1}\n").unwrap();
    let g = s.scan().unwrap();
    assert_eq!(
        s.cached_runners("k").unwrap(),
        None,
        "a configuration changed"
    );
    s.cache_runners("k", g, &["jest".into()]).unwrap();
    std::fs::remove_file(root.join("src/a.py")).unwrap();
    s.scan().unwrap();
    assert_eq!(
        s.cached_runners("k").unwrap(),
        None,
        "a file near the top went away"
    );
}

#[test]
fn an_older_schema_is_migrated_in_place() {
    let (_d, root) = workspace();
    let old = rusqlite::Connection::open(state(&root).join("state.db")).unwrap();
    old.execute_batch(crate::db::MIGRATIONS[0]).unwrap();
    old.execute_batch("PRAGMA user_version = 1; PRAGMA application_id = 1885959272;")
        .unwrap();
    old.execute("UPDATE meta SET value = 7 WHERE key = 'generation'", [])
        .unwrap();
    drop(old);
    let mut s = open(&root);
    assert!(s.take_warnings().is_empty());
    assert_eq!(s.generation().unwrap(), 7, "kept");
    s.cache_runners("k", 7, &["pytest".into()]).unwrap();
    let version: i64 = s
        .conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version as usize, crate::db::MIGRATIONS.len());
}

#[test]
fn failures_recorded_before_the_detail_column_still_read() {
    let (_d, root) = workspace();
    let old = rusqlite::Connection::open(state(&root).join("state.db")).unwrap();
    for step in &crate::db::MIGRATIONS[..4] {
        old.execute_batch(step).unwrap();
    }
    old.execute_batch(
        "PRAGMA user_version = 4; PRAGMA application_id = 1885959272;
         INSERT INTO runs (id, generation, selection, requested, status, runner, passed, failed,
             skipped, errors, recovered, duration_ms, started)
         VALUES (1, 3, '', 0, 'testsFailed', 'pytest', 0, 1, 0, 0, 0, 10, 0);
         INSERT INTO tests (id, name) VALUES (1, 't::a');
         INSERT INTO results (run_id, test_id, phase, outcome, seq, message)
         VALUES (1, 1, 2, 1, 0, 'AssertionError: assert 1 == 2');",
    )
    .unwrap();
    drop(old);
    let s = open(&root);
    let details = s.failures(&[]).unwrap();
    assert_eq!(details.failures.len(), 1);
    let f = &details.failures[0];
    assert_eq!(
        (f.message.as_str(), f.detail.as_deref()),
        ("AssertionError: assert 1 == 2", None)
    );
}

#[test]
fn ignore_rules_nest_like_git() {
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path().canonicalize().unwrap();
    // The repository's top ignores *.log; the workspace is its `app/` directory.
    std::fs::create_dir_all(top.join(".git/info")).unwrap();
    std::fs::write(top.join(".git/info/exclude"), "dist/\nsecret.txt\n").unwrap();
    std::fs::write(top.join(".gitignore"), "*.log\n").unwrap();
    let root = top.join("app");
    std::fs::create_dir_all(root.join("sub/deeper")).unwrap();
    std::fs::create_dir_all(root.join("dist")).unwrap();
    std::fs::write(root.join("main.py"), "x\n").unwrap();
    std::fs::write(root.join("sub/.gitignore"), "*.swp\n!keep.swp\n").unwrap();
    let mut s = open(&root);
    let g = s.scan().unwrap();
    // Output names, ignored by the rules above the root, below it, or in info/exclude.
    for output in ["a.log", "dist/bundle.js", "sub/x.swp", "sub/deeper/y.swp"] {
        std::fs::write(root.join(output), "x").unwrap();
        assert_eq!(s.scan().unwrap(), g, "{output} is ignored output");
    }
    std::fs::write(root.join("x.swp"), "x").unwrap();
    assert_eq!(s.scan().unwrap(), g + 1, "sub/.gitignore covers only sub/");
    std::fs::write(root.join("sub/keep.swp"), "x").unwrap();
    assert_eq!(s.scan().unwrap(), g + 2, "a negated pattern re-includes");
    std::fs::write(root.join("secret.txt"), "x").unwrap();
    assert_eq!(s.scan().unwrap(), g + 3, "an ignored input is an input");
}

#[test]
fn schema_probes_that_passed_are_skipped_until_the_schema_changes() {
    let (_d, root) = workspace();
    drop(open(&root));
    let db = state(&root).join("state.db");
    let probed = |conn: &rusqlite::Connection| -> Vec<(String, i64)> {
        conn.prepare("SELECT key, value FROM meta WHERE key LIKE 'schema probed %'")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let conn = rusqlite::Connection::open(&db).unwrap();
    let schema: i64 = conn
        .pragma_query_value(None, "schema_version", |r| r.get(0))
        .unwrap();
    let rows = probed(&conn);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0].1, schema);
    // A table changed by hand moves the schema's version: the next open probes, and a
    // table that is still whole passes again.
    conn.execute_batch("CREATE TABLE extra (x INTEGER)")
        .unwrap();
    drop(conn);
    let mut s = open(&root);
    assert!(s.take_warnings().is_empty());
    drop(s);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let now: i64 = conn
        .pragma_query_value(None, "schema_version", |r| r.get(0))
        .unwrap();
    assert!(now > schema);
    assert_eq!(probed(&conn)[0].1, now);
}

#[test]
fn a_database_without_the_tables_its_version_says_is_moved_aside() {
    let (_d, root) = workspace();
    drop(open(&root));
    let conn = rusqlite::Connection::open(state(&root).join("state.db")).unwrap();
    conn.execute_batch("DROP TABLE detected").unwrap();
    drop(conn);
    let mut s = open(&root);
    let w = s.take_warnings();
    assert!(
        w.len() == 1 && w[0].contains("tables its version says"),
        "{w:?}"
    );
    assert_eq!(s.scan().unwrap(), 1);
}

#[test]
fn a_log_checkpointed_beside_the_runner_is_begun_anew_there() {
    // The first write to an emptied WAL syncs its header: made beside the runner, the run's
    // record after it writes to a log already begun.
    let (_d, root) = workspace();
    let wal = state(&root).join("state.db-wal");
    let size = || std::fs::metadata(&wal).map_or(0, |m| m.len());
    let mut s = open(&root);
    let mut i = 0;
    while size() <= crate::db::WAL_LIMIT / 2 {
        i += 1;
        std::fs::write(root.join("src/a.py"), format!("a = {i}\n{}", "x".repeat(i))).unwrap();
        s.scan().unwrap();
    }
    let generation = s.generation().unwrap();
    s.prepare_to_record();
    let begun = size();
    assert!(
        begun > 0 && begun < 64 * 1024,
        "the log was emptied and begun anew: {begun} bytes"
    );
    assert_eq!(s.generation().unwrap(), generation, "nothing changed");
    drop(s);
    // Another connection at work keeps the log: nothing is checkpointed, nothing written.
    let s = open(&root);
    std::fs::write(root.join("src/a.py"), "a = 0\n").unwrap();
    let reader = rusqlite::Connection::open(state(&root).join("state.db")).unwrap();
    reader
        .execute_batch("BEGIN; SELECT count(*) FROM meta;")
        .unwrap();
    let before = size();
    s.prepare_to_record();
    assert_eq!(size(), before);
    reader.execute_batch("COMMIT").unwrap();
}
