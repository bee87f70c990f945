//! Private copies of the fixture projects under `tests/fixtures/`, so a run leaves nothing in
//! the repository and no run sees another's leftovers.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use tempfile::TempDir;

/// What a local run leaves in a fixture and a copy must not carry: build outputs, Python
/// caches, the state an older pith kept in the workspace. No fixture tracks a directory of
/// these names.
const LEFTOVERS: [&str; 5] = ["target", "build", "__pycache__", ".pytest_cache", ".pith"];

/// The repository's root directory.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/testkit sits two levels below the root")
        .to_path_buf()
}

/// `tests/fixtures/<rel>` in the repository.
pub fn fixtures_dir(rel: &str) -> PathBuf {
    repo_root().join("tests/fixtures").join(rel)
}

/// A private copy of a fixture project; dropping it removes the copy, and the state the
/// harness's `pith` kept for it (outside the copy).
pub struct Fixture {
    _dir: TempDir,
    root: PathBuf,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(crate::pith::state_dir(&self.root));
    }
}

impl Fixture {
    /// The copy's root directory.
    pub fn path(&self) -> &Path {
        &self.root
    }
}

/// A copy of `tests/fixtures/<rel>` as the root of a fresh temporary directory.
pub fn fixture(rel: &str) -> Fixture {
    let dir = temp();
    let root = dir.path().to_path_buf();
    copy_fixture(rel, &root);
    Fixture { _dir: dir, root }
}

/// A copy of `tests/fixtures/<rel>` in `<fresh temporary directory>/<name>`, for tests whose
/// workspace must not be the temporary directory itself.
pub fn fixture_at(rel: &str, name: &str) -> Fixture {
    let dir = temp();
    let root = dir.path().join(name);
    copy_fixture(rel, &root);
    Fixture { _dir: dir, root }
}

fn temp() -> TempDir {
    tempfile::Builder::new()
        .prefix("pith-it-")
        .tempdir()
        .expect("a temporary directory")
}

fn copy_fixture(rel: &str, to: &Path) {
    let src = fixtures_dir(rel);
    assert!(src.is_dir(), "missing fixture {}", src.display());
    copy_tree(&src, to);
    settle();
}

/// Waits until the copy is older than the file-time clock's current tick, as a project a
/// user runs pith in is. A scan made during a run leaves out what is stamped in the tick the
/// run started in (the run may have written it); a copy made and run within one tick (4 ms
/// on a fast machine) would have its last files found only by the next scan, as a change.
/// The coarse clock lags the precise one by at most one tick (10 ms at the slowest kernel
/// rate), so 12 ms on the precise clock is past it.
fn settle() {
    std::thread::sleep(Duration::from_millis(12));
}

/// Copies the tree at `from` to `to` (files keep their permissions: a stand-in script stays
/// executable), leaving out local runs' leftovers.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        let dest = to.join(&name);
        if e.file_type().unwrap().is_dir() {
            if !LEFTOVERS.iter().any(|l| name == *l) {
                copy_tree(&e.path(), &dest);
            }
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// Writes `text` to `root/rel`, making its directories: a project file of a test's own.
pub fn write_file(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Dates every file under `root` an hour back, so what reads mtimes sees settled files.
pub fn age_tree(root: &Path) {
    for e in std::fs::read_dir(root).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            age_tree(&e.path());
        } else {
            let f = std::fs::File::options().write(true).open(e.path()).unwrap();
            f.set_modified(SystemTime::now() - Duration::from_secs(3600))
                .unwrap();
        }
    }
}

/// `tests/fixtures/js/node_modules`, where scripts/setup/js.sh installs jest and vitest once
/// for every JavaScript fixture; fails saying so when they are not there.
pub fn shared_node_modules() -> PathBuf {
    let p = fixtures_dir("js/node_modules");
    for bin in ["jest", "vitest"] {
        assert!(
            p.join(".bin").join(bin).is_file(),
            "{bin} is not installed for the fixtures: run scripts/setup/js.sh"
        );
    }
    p.canonicalize().unwrap()
}

/// Links the shared runners into the copy at `root` as its `node_modules`.
pub fn link_node_modules(root: &Path) {
    std::os::unix::fs::symlink(shared_node_modules(), root.join("node_modules")).unwrap();
}
