//! `cargo bench -p pith-store --bench memory`: what change memory costs on a real tree — a
//! copy of `PITH_MEMORY_ROOT` (default: this repository's checkout; `.git/`, `target/` and an
//! older pith's `.pith/` left out), once without git and once made a git repository of one commit: the
//! first `remember`, a second one after editing one file, the bytes kept, and `changes` since
//! the first generation (and since `HEAD`). A benchmark, not a test: it reports, it does not
//! fail on a slow machine.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use pith_store::{Since, Store};

fn main() {
    let source = std::env::var_os("PITH_MEMORY_ROOT").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."),
        PathBuf::from,
    );
    let source = source.canonicalize().expect("the tree to copy");
    for with_git in [false, true] {
        let dir = tempfile::Builder::new()
            .prefix("pith-memory-")
            .tempdir()
            .expect("temp dir");
        let root = dir.path().canonicalize().expect("canonical temp dir");
        copy(&source, &root);
        if with_git {
            git(&root, &["init", "-q"]);
            git(&root, &["add", "-A"]);
            git(&root, &["commit", "-q", "-m", "copy"]);
        }
        measure(&root, if with_git { "git" } else { "no git" });
    }
    prune_cost(true);
    prune_cost(false);
}

/// What pruning change memory adds to each run's `prune`: 200 runs of 1,000 tests (one test
/// failing from run 100 on, so its last pass stays needed), each on a new generation, with
/// and without `remember` after each.
fn prune_cost(remember: bool) {
    use pith_model::{Failure, Outcome, Report, Run, TestOutcome};
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().canonicalize().expect("canonical temp dir");
    std::fs::write(root.join("a.py"), "a = 0\n").expect("write");
    let mut s = Store::open(&root).expect("store");
    let mut times = Vec::new();
    for i in 0..200 {
        std::fs::write(root.join("a.py"), format!("a = {i}\n")).expect("write");
        let g = s.scan().expect("scan");
        let failing = i >= 100;
        let mut run = Run::new("pytest");
        run.outcomes = (0..1000)
            .filter(|t| !(failing && *t == 0))
            .map(|t| TestOutcome::passed(format!("tests/test_m.py::test_{t}"), None))
            .collect();
        run.passed = run.outcomes.len() as u32;
        if failing {
            run.failed = 1;
            run.failures.push(Failure {
                test: "tests/test_m.py::test_0".into(),
                message: "assert 1 == 2".into(),
                ..Failure::default()
            });
        }
        debug_assert!(run.outcomes.iter().all(|o| o.outcome == Outcome::Passed));
        let mut report = Report {
            runs: vec![run],
            ..Report::default()
        };
        s.record(g, "", 0, &mut report).expect("record");
        if remember {
            s.remember().expect("remember");
        }
        let t = Instant::now();
        s.prune(pith_store::Retention::default()).expect("prune");
        times.push(t.elapsed());
    }
    times.sort();
    println!(
        "prune after each of 200 runs of 1,000 tests, {}: median {:.2} ms, max {:.2} ms; \
         files changed since test_0's last pass: {:?}",
        if remember {
            "each remembered"
        } else {
            "none remembered"
        },
        ms(times[times.len() / 2]),
        ms(times[times.len() - 1]),
        s.changes(&Since::Generation(
            s.last_pass("tests/test_m.py::test_0").unwrap().unwrap()
        ))
        .map(|c| c.files.len())
    );
}

fn measure(root: &Path, label: &str) {
    let mut s = Store::open(root).expect("store");
    let t = Instant::now();
    let g1 = s.scan().expect("scan");
    let scan = t.elapsed();
    let t = Instant::now();
    let first = s.remember().expect("remember");
    let first_t = t.elapsed();
    let victim = edit_one(root);
    s.scan().expect("scan");
    let t = Instant::now();
    let second = s.remember().expect("remember");
    let second_t = t.elapsed();
    // A few more edits and remembers: the steady cost of one run's `remember`.
    let mut more = Vec::new();
    for i in 0..5 {
        edit_line(root, &victim, 3 + i);
        s.scan().expect("scan");
        let t = Instant::now();
        s.remember().expect("remember");
        more.push(format!("{:.1}", ms(t.elapsed())));
    }
    let t = Instant::now();
    s.remember().expect("remember");
    let again = t.elapsed();
    println!(
        "{label}: five more edit + remember: {} ms; remember of a generation remembered \
         already: {:.1} ms",
        more.join(", "),
        ms(again)
    );
    let t = Instant::now();
    let changes = s.changes(&Since::Generation(g1)).expect("changes");
    let changes_t = t.elapsed();
    let dir = pith_store::state_dir(root).expect("state directory");
    let db = std::fs::metadata(dir.join("state.db")).map_or(0, |m| m.len())
        + std::fs::metadata(dir.join("state.db-wal")).map_or(0, |m| m.len());
    println!(
        "{label}: scan {:.0} ms; first remember {:.0} ms: {} files kept, {} not, {} KiB",
        ms(scan),
        ms(first_t),
        first.kept,
        first.not_kept,
        first.added_bytes / 1024
    );
    println!(
        "{label}: after editing {victim}: remember {:.1} ms, {} bytes added ({} KiB kept in all); \
         changes since generation {g1}: {:.1} ms, {:?}; database {} KiB",
        ms(second_t),
        second.added_bytes,
        second.total_bytes / 1024,
        ms(changes_t),
        changes.files,
        db / 1024
    );
    if label == "git" {
        let t = Instant::now();
        let head = s.changes(&Since::Git("HEAD".into())).expect("changes");
        println!(
            "{label}: changes since HEAD: {:.1} ms, {} files",
            ms(t.elapsed()),
            head.files.len()
        );
    }
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Changes line 2 of the first Rust source file of the copy (or `README.md`).
fn edit_one(root: &Path) -> String {
    let rel = ["crates/store/src/lib.rs", "README.md"]
        .into_iter()
        .find(|p| root.join(p).is_file())
        .unwrap_or("README.md");
    let path = root.join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut lines: Vec<&str> = text.lines().collect();
    if lines.len() < 2 {
        lines.resize(2, "");
    }
    lines[1] = "// edited by the benchmark";
    std::fs::write(&path, lines.join("\n") + "\n").expect("edit");
    rel.to_owned()
}

fn edit_line(root: &Path, rel: &str, n: usize) {
    let path = root.join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    if lines.len() <= n {
        lines.resize(n + 1, String::new());
    }
    lines[n] = format!("// edit {n}");
    std::fs::write(&path, lines.join("\n") + "\n").expect("edit");
}

fn copy(from: &Path, to: &Path) {
    let mut pack = Command::new("tar")
        .arg("-C")
        .arg(from)
        .args([
            "--exclude=./.git",
            "--exclude=./target",
            "--exclude=./fuzz/target",
            "--exclude=./.pith",
            "-cf",
            "-",
            ".",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("tar");
    let status = Command::new("tar")
        .arg("-C")
        .arg(to)
        .args(["-xf", "-"])
        .stdin(pack.stdout.take().expect("tar output"))
        .status()
        .expect("untar");
    let packed = pack.wait().expect("tar");
    assert!(
        status.success() && packed.success(),
        "copying {}",
        from.display()
    );
}

fn git(root: &Path, args: &[&str]) {
    let mut c = Command::new("git");
    c.current_dir(root)
        .args([
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@example.com",
        ])
        .args(args);
    for (k, _) in std::env::vars_os() {
        if k.as_encoded_bytes().starts_with(b"GIT_") {
            c.env_remove(k);
        }
    }
    assert!(c.status().expect("git").success(), "git {args:?}");
}
