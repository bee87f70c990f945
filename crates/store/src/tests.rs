//! The store on real temporary workspaces: generations, history, pruning, damage, locking.

use std::path::{Path, PathBuf};
use std::time::Duration;

use pith_model::{Failure, Frame, Report, Run, Status, TestOutcome};

use crate::{Dirty, Retention, Store, TryLock, Watcher};

fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
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

#[test]
fn generation_counts_content_changes_only() {
    let (_d, root) = workspace();
    let mut s = Store::open(&root).unwrap();
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
    let mut again = Store::open(&root).unwrap();
    assert_eq!(again.scan().unwrap(), 5);
}

#[test]
fn ignored_files_state_and_caches_do_not_count() {
    let (_d, root) = workspace();
    std::fs::write(root.join(".gitignore"), "*.log\n/build/\n").unwrap();
    let mut s = Store::open(&root).unwrap();
    let g = s.scan().unwrap();
    std::fs::write(root.join("run.log"), "x").unwrap();
    std::fs::create_dir_all(root.join("build")).unwrap();
    std::fs::write(root.join("build/out.o"), "x").unwrap();
    std::fs::create_dir_all(root.join("src/__pycache__")).unwrap();
    std::fs::write(root.join("src/__pycache__/a.cpython-312.pyc"), "x").unwrap();
    std::fs::create_dir_all(root.join("target/debug")).unwrap();
    std::fs::write(
        root.join("target/CACHEDIR.TAG"),
        "Signature: 8a477f597d28d172789f06886806bc55",
    )
    .unwrap();
    std::fs::write(root.join("target/debug/bin"), "x").unwrap();
    std::fs::create_dir_all(root.join(".venv/bin")).unwrap();
    std::fs::write(root.join(".venv/pyvenv.cfg"), "home = /usr\n").unwrap();
    std::fs::write(root.join(".venv/bin/python"), "x").unwrap();
    assert_eq!(
        s.scan().unwrap(),
        g,
        "only ignored and generated files were written"
    );
    std::fs::write(root.join(".github.yml"), "x").unwrap();
    assert_eq!(s.scan().unwrap(), g + 1, "hidden files are source");
}

#[test]
fn the_state_directory_is_excluded_from_git_once() {
    let (_d, root) = workspace();
    std::fs::create_dir_all(root.join(".git/info")).unwrap();
    std::fs::write(
        root.join(".git/info/exclude"),
        "# git ls-files --others\n*.swp",
    )
    .unwrap();
    Store::open(&root).unwrap();
    Store::open(&root).unwrap();
    let text = std::fs::read_to_string(root.join(".git/info/exclude")).unwrap();
    assert_eq!(text, "# git ls-files --others\n*.swp\n/.pith/\n");
    assert!(!root.join(".gitignore").exists());

    // A project in a subdirectory of the repository gets an anchored path.
    std::fs::create_dir_all(root.join("py")).unwrap();
    Store::open(&root.join("py")).unwrap();
    let text = std::fs::read_to_string(root.join(".git/info/exclude")).unwrap();
    assert!(text.ends_with("/.pith/\n/py/.pith/\n"), "{text}");
}

#[test]
fn a_damaged_or_foreign_database_is_moved_aside_with_one_warning() {
    let (_d, root) = workspace();
    std::fs::create_dir_all(root.join(".pith")).unwrap();
    std::fs::write(
        root.join(".pith/state.db"),
        "this is not a database, it is a text file\n".repeat(200),
    )
    .unwrap();
    let mut s = Store::open(&root).unwrap();
    let w = s.take_warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains(".pith/state.db.corrupt-1") && !w[0].contains('\n'),
        "{w:?}"
    );
    assert_eq!(s.scan().unwrap(), 1);
    assert!(root.join(".pith/state.db.corrupt-1").is_file());
    drop(s);

    // A real SQLite database that is someone else's.
    std::fs::remove_file(root.join(".pith/state.db")).unwrap();
    for side in ["state.db-wal", "state.db-shm"] {
        let _ = std::fs::remove_file(root.join(".pith").join(side));
    }
    let other = rusqlite::Connection::open(root.join(".pith/state.db")).unwrap();
    other
        .execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        .unwrap();
    drop(other);
    let mut s = Store::open(&root).unwrap();
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

fn record(s: &mut Store, generation: u64, failing: &[&str], passing: &[&str]) -> Report {
    let mut r = report(failing, passing);
    s.record(generation, "", 0, &mut r).unwrap();
    r
}

#[test]
fn history_says_new_failing_for_flaky_and_recovered() {
    let (_d, root) = workspace();
    let mut s = Store::open(&root).unwrap();
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

#[test]
fn the_last_run_of_a_selection_is_found() {
    let (_d, root) = workspace();
    let mut s = Store::open(&root).unwrap();
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
    let mut s = Store::open(&root).unwrap();
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
fn pruning_never_waits_for_a_writer() {
    let (_d, root) = workspace();
    let mut s = Store::open(&root).unwrap();
    record(&mut s, 1, &[], &["t::a"]);
    record(&mut s, 1, &[], &["t::a"]);
    let other = rusqlite::Connection::open(root.join(".pith/state.db")).unwrap();
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
    let s = Store::open(&root).unwrap();
    let TryLock::Held(held) = s.lock_run(Duration::ZERO).unwrap() else {
        panic!("free lock")
    };
    assert!(!held.waited, "nobody held it");
    let other = Store::open(&root).unwrap();
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
    Store::open(&root).unwrap().scan().unwrap();
    for i in 0..20 {
        std::fs::write(root.join(format!("src/f{i}.py")), format!("{i}\n")).unwrap();
    }
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let root = root.clone();
            std::thread::spawn(move || Store::open(&root).unwrap().scan().unwrap())
        })
        .collect();
    let gens: Vec<u64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert!(gens.iter().all(|&g| g == 2), "{gens:?}");
}

#[test]
fn a_refresh_with_a_watcher_looks_only_at_what_changed() {
    let (_d, root) = workspace();
    let watcher = Watcher::start(&root).unwrap();
    let mut s = Store::open(&root).unwrap();
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
        !dirty.paths.iter().any(|p| p.starts_with(".pith")),
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
    let mut s = Store::open(&root).unwrap();
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
            !dirty.paths.iter().any(|p| p.starts_with(".pith")),
            "cookies are not changes: {dirty:?}"
        );
        assert_eq!(s.refresh(dirty).unwrap(), 2 + i);
    }
    // With nothing changed, a synced take is empty: no cookie is left behind to be seen.
    let dirty = watcher.take_synced();
    assert_eq!(dirty, Dirty::default());
    let left: Vec<_> = std::fs::read_dir(root.join(crate::STATE_DIR))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("sync-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
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
    let _s = Store::open(&root).unwrap();
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
    let mut s = Store::open(&root).unwrap();
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
    let _java = Store::open(&root.join("java")).unwrap();
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
    let wal = root.join(crate::STATE_DIR).join("state.db-wal");
    let mut largest = 0;
    for i in 0..300 {
        let mut s = Store::open(&root).unwrap();
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
    let mut s = Store::open(&root).unwrap();
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
    std::fs::create_dir_all(root.join(".pith")).unwrap();
    let old = rusqlite::Connection::open(root.join(".pith/state.db")).unwrap();
    old.execute_batch(crate::db::MIGRATIONS[0]).unwrap();
    old.execute_batch("PRAGMA user_version = 1; PRAGMA application_id = 1885959272;")
        .unwrap();
    old.execute("UPDATE meta SET value = 7 WHERE key = 'generation'", [])
        .unwrap();
    drop(old);
    let mut s = Store::open(&root).unwrap();
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
fn ignore_rules_nest_like_git() {
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path().canonicalize().unwrap();
    // The repository's top ignores *.bak; the workspace is its `app/` directory.
    std::fs::create_dir_all(top.join(".git/info")).unwrap();
    std::fs::write(top.join(".git/info/exclude"), "secret.txt\n").unwrap();
    std::fs::write(top.join(".gitignore"), "*.bak\n").unwrap();
    let root = top.join("app");
    std::fs::create_dir_all(root.join("sub/deeper")).unwrap();
    std::fs::write(root.join("main.py"), "x\n").unwrap();
    std::fs::write(root.join("sub/.gitignore"), "*.tmp\n!keep.tmp\n").unwrap();
    let mut s = Store::open(&root).unwrap();
    let g = s.scan().unwrap();
    for ignored in ["a.bak", "secret.txt", "sub/x.tmp", "sub/deeper/y.tmp"] {
        std::fs::write(root.join(ignored), "x").unwrap();
        assert_eq!(s.scan().unwrap(), g, "{ignored} is ignored");
    }
    std::fs::write(root.join("x.tmp"), "x").unwrap();
    assert_eq!(s.scan().unwrap(), g + 1, "sub/.gitignore covers only sub/");
    std::fs::write(root.join("sub/keep.tmp"), "x").unwrap();
    assert_eq!(s.scan().unwrap(), g + 2, "a negated pattern re-includes");
}

#[test]
fn a_database_without_the_tables_its_version_says_is_moved_aside() {
    let (_d, root) = workspace();
    drop(Store::open(&root).unwrap());
    let conn = rusqlite::Connection::open(root.join(".pith/state.db")).unwrap();
    conn.execute_batch("DROP TABLE detected").unwrap();
    drop(conn);
    let mut s = Store::open(&root).unwrap();
    let w = s.take_warnings();
    assert!(
        w.len() == 1 && w[0].contains("tables its version says"),
        "{w:?}"
    );
    assert_eq!(s.scan().unwrap(), 1);
}
