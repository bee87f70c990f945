//! The verdict corpus: hostile cases, each a tiny project under `tests/fixtures/verdicts/`, run
//! by the real runners through the real `pith` binary (these tests fail without the runners,
//! they never skip). A false green is marked as such on its row: each answered TestsPassed, exit
//! 0, before its fix; the rest are cases pith already answered right and must keep answering
//! right.
//!
//! Each case is a row of its ecosystem's table (`cpp.rs`, `go.rs`, ...), in the shape of the
//! scenario matrix (`scenarios.rs`): the fixture, what `pith test` is given and in which
//! environment, the project's own command run by hand beside it, and the answer expected as
//! data — status, exit code, counts, what the reason, tail and hint say, the ids of the
//! failures, of what was left running, of what was not found, what a failure's message, frame
//! and phase are, the fields that must be absent. A case that asks pith more than once (an id
//! re-run, the tree edited between runs) lists its later runs under `then`, run on the same
//! copy in order. Each row is a test of its own, named after the case; [`check`] runs it and
//! says which row, which run and which expectations failed, with the answer line.
//!
//! What is not a row stays hand-written beside its table, each saying why: runs whose arguments
//! come from the answer before (`state.rs`'s generations), a tree edited by more than writing
//! files, and what is not an answer at all (a refused `--report`, a killed pith, orphans).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::Answer;

/// A table: `const ROWS` of (name, row), and one test per row running it (its doc comment,
/// why the case exists, on the test).
macro_rules! table {
    ($($(#[$doc:meta])* $name:ident => $row:expr;)*) => {
        pub(super) const ROWS: &[(&str, super::Row)] = &[$((stringify!($name), $row)),*];
        $(
            $(#[$doc])*
            #[test]
            fn $name() {
                // A const, so the row's slices live as long as the table's.
                const ROW: super::Row = $row;
                super::check(stringify!($name), &ROW);
            }
        )*
    };
}

mod cpp;
mod go;
mod js;
mod jvm;
mod python;
mod report;
mod rust;
mod state;
mod workspace;

/// Every table, for the guard below.
const TABLES: &[&[(&str, Row)]] = &[
    cpp::ROWS,
    go::ROWS,
    js::ROWS,
    jvm::ROWS,
    python::ROWS,
    report::ROWS,
    rust::ROWS,
    workspace::ROWS,
];

/// The fixtures only hand-written tests run, and which.
const HAND_WRITTEN: &[(&str, &str)] = &[
    ("state/inputs", "state.rs"),
    ("state/edited_mid_run", "state.rs"),
    ("workspace/sigkill", "workspace.rs"),
];

const PASSED: &str = "TestsPassed";
const FAILED: &str = "TestsFailed";
const RUNNER_FAILED: &str = "RunnerFailed";
const BUILD: &str = "BuildFailed";
const COLLECT: &str = "CollectionFailed";
const CRASHED: &str = "Crashed";
const NO_TESTS: &str = "NoTestsRan";
const NOT_FOUND: &str = "TestsNotFound";
const MISSING: &str = "RunnerMissing";

/// The variable the hostile-output fixtures (`*/forged_output`) read to fail one real test.
const RED: &str = common::RED;

/// One case: a run of `pith test` on a copy of a fixture, and the answer expected of it.
/// Everything but the fixture, the status and the exit code is checked only when given.
struct Row {
    /// The fixture under `tests/fixtures/verdicts/`; empty in a `then` run (the same copy).
    fixture: &'static str,
    /// What the copy and the run need before the first run.
    setup: &'static [Setup],
    /// Before this run: files of the copy removed (files or directories), written (path,
    /// text; directories made), and edited (path, text, its replacement: every occurrence,
    /// and there must be one).
    remove: &'static [&'static str],
    write: &'static [(&'static str, &'static str)],
    edit: &'static [(&'static str, &'static str, &'static str)],
    /// What `pith test --root COPY` is given.
    args: &'static [&'static str],
    /// `--report` and this file of the copy, after `args`.
    report: Option<&'static str>,
    /// The caller's environment on top of the harness's: `Some` sets, `None` removes.
    env: Env,
    /// The project's own commands, by hand in the same copy, each with its verdict: what the
    /// answer must agree with.
    raw: &'static [Raw],

    // ---- The answer ----
    status: &'static str,
    code: i32,
    /// The runner the answer names.
    runner: Option<&'static str>,
    /// Counts: absent in the answer reads as 0, so `Some(0)` says absent.
    passed: Option<u64>,
    failed: Option<u64>,
    /// Other counts, the same way: `selected`, `skipped`, `errors`, `snapshotsWritten`.
    counts: &'static [(&'static str, u64)],
    /// Text fields (`reason`, `tail`, `hint`, `masked`), each with what it must say; absent
    /// reads as empty. A field may be named more than once.
    texts: &'static [(&'static str, Text)],
    /// What the whole answer line contains.
    line: &'static [&'static str],
    /// Top-level fields the answer must not have.
    absent: &'static [&'static str],
    /// The ids of the failures shown, in the answer's order.
    failing: Ids,
    /// What given failures say.
    failures: &'static [Failure],
    /// The ids of the tests `flaky` lists, and what given ones say.
    flaky: Ids,
    flaky_attempts: &'static [Failure],
    /// The ids `running` lists (tests that never ended).
    running: Ids,
    /// The ids `notFound` lists.
    not_found: Ids,
    /// The projects run, each as `dir: status`.
    runs: Ids,
    /// Where the build errors are, each its `at`.
    build_errors: Ids,
    /// The answer line is at most this many bytes.
    budget: Option<usize>,
    /// pith's run is over within this many seconds.
    within: Option<u64>,
    /// pith's own peak resident memory (VmHWM) stays under this many MiB.
    peak_mib: Option<u64>,
    /// After the run: files of the copy that must not exist, and what files say.
    gone: &'static [&'static str],
    files: &'static [(&'static str, Text)],

    /// Later runs on the same copy, in order: each a row with no fixture, setup or `then`.
    then: &'static [Row],
}

type Env = &'static [(&'static str, Option<&'static str>)];

/// A first run of `pith test` on a copy of `fixture`.
const fn row(fixture: &'static str, status: &'static str, code: i32) -> Row {
    Row {
        fixture,
        setup: &[],
        remove: &[],
        write: &[],
        edit: &[],
        args: &[],
        report: None,
        env: &[],
        raw: &[],
        status,
        code,
        runner: None,
        passed: None,
        failed: None,
        counts: &[],
        texts: &[],
        line: &[],
        absent: &[],
        failing: Ids::Any,
        failures: &[],
        flaky: Ids::Any,
        flaky_attempts: &[],
        running: Ids::Any,
        not_found: Ids::Any,
        runs: Ids::Any,
        build_errors: Ids::Any,
        budget: None,
        within: None,
        peak_mib: None,
        gone: &[],
        files: &[],
        then: &[],
    }
}

/// A later run, with `args`, on the copy the row's runs before it used.
const fn again(args: &'static [&'static str], status: &'static str, code: i32) -> Row {
    Row {
        args,
        ..row("", status, code)
    }
}

/// What a copy and its runs need beyond the fixture.
#[derive(Debug)]
enum Setup {
    /// The shared jest, vitest and node packages (`tests/fixtures/js/node_modules`,
    /// scripts/setup/js.sh) linked in as the copy's `node_modules`.
    NodeModules,
    /// Maven is installed (scripts/setup/jvm.sh): checked first, saying so.
    Maven,
    /// A real Gradle wrapper jar in the copy's `gradle/wrapper/`, as `gradle wrapper` writes it
    /// (made once per run by the installed Gradle, never committed).
    WrapperJar,
    /// A PATH of every program on this one but these: a machine without them.
    PathWithout(&'static [&'static str]),
    /// No .NET SDK here: a PATH whose `dotnet` replays what a real `dotnet test` printed, wrote
    /// and exited with, recorded in the copy's `.replay/` (see [`dotnet_path`]).
    DotnetReplay,
    /// A go environment file (`GOENV`) of these lines, outside the copy.
    GoEnv(&'static str),
}

/// The project's own command, typed by hand (never through a shell), and what it must do.
struct Raw {
    /// The directory of the copy it runs in (`""`: the root).
    dir: &'static str,
    argv: &'static [&'static str],
    /// On top of the harness's environment and the setup's, as [`Row::env`].
    env: Env,
    exit: Exit,
    /// What its output (stdout, then stderr) contains, and does not.
    has: &'static [&'static str],
    lacks: &'static [&'static str],
    /// In a fresh copy of the workspace as it is, so pith never sees what it leaves (Maven's
    /// `target/`).
    copy: bool,
    /// After pith's run rather than before: CTest's `build/`, which pith would build in if it
    /// found it configured.
    after: bool,
}

/// `argv` by hand in the copy's root, before pith, its exit `exit`.
const fn by_hand(argv: &'static [&'static str], exit: Exit) -> Raw {
    Raw {
        dir: "",
        argv,
        env: &[],
        exit,
        has: &[],
        lacks: &[],
        copy: false,
        after: false,
    }
}

#[derive(Debug, Clone, Copy)]
enum Exit {
    /// Exit code 0.
    Green,
    /// Anything else (a signal too).
    Red,
    Code(i32),
}

/// What a text must say.
#[derive(Debug, Clone, Copy)]
enum Text {
    /// Anything.
    Any,
    Is(&'static str),
    Has(&'static str),
    Lacks(&'static str),
    Starts(&'static str),
    Ends(&'static str),
    /// A frame's place: its first word (before the source line) is exactly this.
    At(&'static str),
}

/// What a list of ids must be.
#[derive(Debug, Clone, Copy)]
enum Ids {
    /// Anything.
    Any,
    /// Exactly these, in this order.
    Exactly(&'static [&'static str]),
    /// Exactly these, in any order.
    Set(&'static [&'static str]),
    /// `failing` only: exactly these in any order, counting the other members of a shown
    /// failure's cause (its `others`) with it: every failing id the answer names.
    All(&'static [&'static str]),
    /// These among others.
    Includes(&'static [&'static str]),
    /// This one first.
    First(&'static str),
    /// This many.
    Count(usize),
}

/// What one failure (or flaky attempt) says.
struct Failure {
    which: Which,
    message: Text,
    /// Its first (deepest) frame.
    frame: Text,
    phase: Option<&'static str>,
}

#[derive(Debug, Clone, Copy)]
enum Which {
    /// The one of this id (there must be one; the first, if several share it).
    Test(&'static str),
    /// The `n`th shown.
    Nth(usize),
    /// Every one shown (there must be one).
    Each,
    /// One of those shown, whichever.
    Some,
}

/// The failure of `test`: it is shown.
const fn fail(test: &'static str) -> Failure {
    Failure {
        which: Which::Test(test),
        message: Text::Any,
        frame: Text::Any,
        phase: None,
    }
}

/// The `n`th failure shown.
const fn nth(n: usize) -> Failure {
    Failure {
        which: Which::Nth(n),
        ..fail("")
    }
}

/// One of the failures shown, whichever.
const fn some() -> Failure {
    Failure {
        which: Which::Some,
        ..fail("")
    }
}

/// Every failure shown.
const fn each() -> Failure {
    Failure {
        which: Which::Each,
        ..fail("")
    }
}

/// Runs the row `name`: a copy of its fixture set up, then each of its runs in order. A run's
/// failed expectations are said together, with the answer; the runs after it do not start.
fn check(name: &str, row: &Row) {
    assert!(!row.fixture.is_empty(), "{name}: a row names its fixture");
    let _alone = one_at_a_time(row.fixture);
    let ws = common::fixture(&format!("verdicts/{}", row.fixture));
    let root = ws.path();
    let mut made = Made::default();
    for s in row.setup {
        made.set_up(s, root);
    }
    let runs: Vec<&Row> = std::iter::once(row).chain(row.then).collect();
    for (i, run) in runs.iter().enumerate() {
        if i > 0 {
            assert!(
                run.fixture.is_empty() && run.setup.is_empty() && run.then.is_empty(),
                "{name}: a later run has no fixture, setup or runs of its own"
            );
        }
        let args = args_of(run, root);
        let what = format!(
            "verdict row {name} ({}), run {} of {}: `pith test{}`",
            row.fixture,
            i + 1,
            runs.len(),
            args.iter().map(|a| format!(" {a}")).collect::<String>(),
        );
        edit_tree(&what, run, root);
        let mut misses = Vec::new();
        for raw in run.raw.iter().filter(|r| !r.after) {
            raw_check(raw, root, &made.env, &mut misses);
        }
        let (a, took, peak) = pith(run, root, &args, &made.env);
        answer_misses(run, &a, root, took, peak, &mut misses);
        for raw in run.raw.iter().filter(|r| r.after) {
            raw_check(raw, root, &made.env, &mut misses);
        }
        if !misses.is_empty() {
            let stderr = match a.stderr.trim() {
                "" => String::new(),
                s => format!("\nstderr: {}", s.chars().take(4000).collect::<String>()),
            };
            panic!(
                "{what}\n{}\nanswer: {}{stderr}",
                misses
                    .iter()
                    .map(|m| format!("  - {m}"))
                    .collect::<Vec<_>>()
                    .join("\n"),
                a.line
            );
        }
    }
}

/// Rows of one fixture run one at a time, as the cases of one hand-written test did. The Rust
/// fixtures' copies share the harness's cargo target dir, where two copies of one crate build to
/// the same files (cargo hashes a path package by its place in its workspace): run side by side,
/// one run's rebuild took the library away from the other's doctests.
fn one_at_a_time(fixture: &'static str) -> std::sync::MutexGuard<'static, ()> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static LOCKS: OnceLock<Mutex<HashMap<&str, &'static Mutex<()>>>> = OnceLock::new();
    let mut locks = LOCKS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let lock = *locks
        .entry(fixture)
        .or_insert_with(|| Box::leak(Box::default()));
    drop(locks);
    // A row that failed holding it poisoned nothing the next one reads.
    lock.lock().unwrap_or_else(|e| e.into_inner())
}

/// What the setup made and must outlive the row: temporary directories, and the variables
/// its runs (pith's and the raw commands) get.
#[derive(Default)]
struct Made {
    keep: Vec<tempfile::TempDir>,
    env: Vec<(String, String)>,
}

impl Made {
    fn set_up(&mut self, setup: &Setup, root: &Path) {
        match setup {
            Setup::NodeModules => common::link_node_modules(root),
            Setup::Maven => assert!(
                Command::new("mvn")
                    .arg("-v")
                    .output()
                    .is_ok_and(|o| o.status.success()),
                "Maven is not installed: run scripts/setup/jvm.sh"
            ),
            Setup::WrapperJar => {
                std::fs::copy(
                    wrapper_jar(),
                    root.join("gradle/wrapper/gradle-wrapper.jar"),
                )
                .unwrap();
            }
            Setup::PathWithout(hidden) => {
                let (bin, path) = path_without(hidden);
                self.keep.push(bin);
                self.env.push(("PATH".into(), path));
            }
            Setup::DotnetReplay => {
                let (bin, path) = dotnet_path(root);
                self.keep.push(bin);
                self.env.push(("PATH".into(), path));
            }
            Setup::GoEnv(lines) => {
                let dir = tempfile::tempdir().unwrap();
                let conf = dir.path().join("env");
                std::fs::write(&conf, lines).unwrap();
                self.env
                    .push(("GOENV".into(), conf.to_string_lossy().into_owned()));
                self.keep.push(dir);
            }
        }
    }
}

/// The run's arguments, `--report` with its file's path in the copy last.
fn args_of(run: &Row, root: &Path) -> Vec<String> {
    let mut args: Vec<String> = run.args.iter().map(|a| a.to_string()).collect();
    if let Some(file) = run.report {
        args.push("--report".into());
        args.push(root.join(file).to_string_lossy().into_owned());
    }
    args
}

/// The tree a run sees: what it removes, writes and edits.
fn edit_tree(what: &str, run: &Row, root: &Path) {
    for rel in run.remove {
        let p = root.join(rel);
        match p.is_dir() {
            true => std::fs::remove_dir_all(&p),
            false => std::fs::remove_file(&p),
        }
        .unwrap_or_else(|e| panic!("{what}: remove {rel}: {e}"));
    }
    for (rel, text) in run.write {
        pith_testkit::write_file(root, rel, text);
    }
    for (rel, from, to) in run.edit {
        let p = root.join(rel);
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{what}: {rel}: {e}"));
        assert!(text.contains(from), "{what}: {rel} has no {from:?}");
        std::fs::write(&p, text.replace(from, to)).unwrap();
    }
}

/// Runs pith for `run`: its answer, how long it took, and its peak memory when the row asks.
fn pith(
    run: &Row,
    root: &Path,
    args: &[String],
    setup: &[(String, String)],
) -> (Answer, Duration, Option<u64>) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut cmd = common::pith_command(root, root, &args);
    for (k, v) in setup {
        cmd.env(k, v);
    }
    for (k, v) in run.env {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let start = Instant::now();
    let (out, peak) = match run.peak_mib {
        None => (cmd.output().expect("run pith"), None),
        Some(_) => {
            let (out, peak) = with_peak_rss(cmd);
            (out, Some(peak))
        }
    };
    let took = start.elapsed();
    (common::answer_of(out, root), took, peak)
}

/// Runs `cmd` to its end, polling its peak resident memory (VmHWM, bytes) from /proc.
fn with_peak_rss(mut cmd: Command) -> (Output, u64) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run pith");
    let status = format!("/proc/{}/status", child.id());
    // Read both streams on threads so a full pipe never blocks pith.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let read_out = std::thread::spawn(move || {
        let mut s = Vec::new();
        std::io::Read::read_to_end(&mut out, &mut s).unwrap();
        s
    });
    let read_err = std::thread::spawn(move || {
        let mut s = Vec::new();
        std::io::Read::read_to_end(&mut err, &mut s).unwrap();
        s
    });
    let mut peak_kb = 0u64;
    let status = loop {
        if let Ok(text) = std::fs::read_to_string(&status) {
            if let Some(kb) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak_kb = peak_kb.max(kb);
            }
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = Output {
        status,
        stdout: read_out.join().unwrap(),
        stderr: read_err.join().unwrap(),
    };
    (out, peak_kb * 1024)
}

/// Runs a raw command and says where it disagrees with what the row expects of it.
fn raw_check(raw: &Raw, root: &Path, setup: &[(String, String)], misses: &mut Vec<String>) {
    let copy = raw.copy.then(|| {
        let dir = tempfile::tempdir().unwrap();
        pith_testkit::copy_tree(root, dir.path());
        dir
    });
    let base = copy.as_ref().map_or(root, |d| d.path());
    let mut env: Vec<(&str, Option<&str>)> = setup
        .iter()
        .map(|(k, v)| (k.as_str(), Some(v.as_str())))
        .collect();
    env.extend_from_slice(raw.env);
    let got = common::raw(&base.join(raw.dir), raw.argv, &env);
    let exit_ok = match raw.exit {
        Exit::Green => got.green(),
        Exit::Red => !got.green(),
        Exit::Code(c) => got.code == Some(c),
    };
    let has: Vec<&&str> = raw
        .has
        .iter()
        .filter(|h| !got.output.contains(*h))
        .collect();
    let lacks: Vec<&&str> = raw
        .lacks
        .iter()
        .filter(|l| got.output.contains(*l))
        .collect();
    if !exit_ok || !has.is_empty() || !lacks.is_empty() {
        misses.push(format!(
            "by hand, `{}` in ./{}: want {:?}{}{}, got exit {:?}:\n{}",
            raw.argv.join(" "),
            raw.dir,
            raw.exit,
            match has.is_empty() {
                true => String::new(),
                false => format!(", output containing {has:?}"),
            },
            match lacks.is_empty() {
                true => String::new(),
                false => format!(", output without {lacks:?}"),
            },
            got.code,
            got.output
        ));
    }
}

/// Says where the answer (and the copy after it) disagrees with the run's expectations.
fn answer_misses(
    run: &Row,
    a: &Answer,
    root: &Path,
    took: Duration,
    peak: Option<u64>,
    misses: &mut Vec<String>,
) {
    let mut miss = |m: String| misses.push(m);
    if (a.status(), a.code) != (run.status, run.code) {
        miss(format!(
            "status: want {} (exit {}), got {} (exit {})",
            run.status,
            run.code,
            a.status(),
            a.code
        ));
    }
    if let Some(runner) = run.runner {
        if a.json["runner"] != runner {
            miss(format!("runner: want {runner}, got {}", a.json["runner"]));
        }
    }
    let counts = [("passed", run.passed), ("failed", run.failed)];
    let counts = counts
        .iter()
        .filter_map(|(k, n)| n.map(|n| (*k, n)))
        .chain(run.counts.iter().copied());
    for (key, want) in counts {
        if a.count(key) != want {
            miss(format!("{key}: want {want}, got {}", a.json[key]));
        }
    }
    for (key, text) in run.texts {
        if let Some(m) = text.miss(a.text(key)) {
            miss(format!("{key}: {m}"));
        }
    }
    for want in run.line {
        if !a.line.contains(want) {
            miss(format!("the answer line: want it to contain {want:?}"));
        }
    }
    for key in run.absent {
        if let Some(v) = a.json.get(key) {
            miss(format!("{key}: want it absent, got {v}"));
        }
    }
    let listed = |key: &str, field: &str| -> Vec<String> {
        a.json[key]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| match field {
                "" => e.as_str().unwrap_or_default().to_owned(),
                "dir" => format!(
                    "{}: {}",
                    e["dir"].as_str().unwrap_or_default(),
                    e["status"].as_str().unwrap_or_default()
                ),
                f => e[f].as_str().unwrap_or_default().to_owned(),
            })
            .collect()
    };
    // Every failing id the answer names: each failure shown, and the other members of its
    // cause.
    let named: Vec<String> = a
        .failures()
        .iter()
        .flat_map(|f| {
            let others = f["others"].as_array().into_iter().flatten();
            std::iter::once(&f["test"]).chain(others)
        })
        .filter_map(|t| t.as_str().map(str::to_owned))
        .collect();
    let lists = [
        ("failures", run.failing, listed("failures", "test")),
        ("flaky", run.flaky, listed("flaky", "test")),
        ("running", run.running, listed("running", "")),
        ("notFound", run.not_found, listed("notFound", "")),
        ("runs", run.runs, listed("runs", "dir")),
        ("buildErrors", run.build_errors, listed("buildErrors", "at")),
    ];
    for (key, ids, got) in lists {
        let named = match key {
            "failures" => &named,
            _ => &got,
        };
        if let Some(m) = ids.miss(&got, named) {
            miss(format!("{key}: {m}"));
        }
    }
    failure_misses("failure", a.failures(), run.failures, &mut miss);
    let flaky = a.json["flaky"].as_array().map_or(&[][..], Vec::as_slice);
    failure_misses("flaky", flaky, run.flaky_attempts, &mut miss);
    if let Some(budget) = run.budget {
        if a.bytes() > budget {
            miss(format!("bytes: want at most {budget}, got {}", a.bytes()));
        }
    }
    if let Some(s) = run.within {
        if took >= Duration::from_secs(s) {
            miss(format!("time: want under {s} s, took {took:?}"));
        }
    }
    if let (Some(mib), Some(peak)) = (run.peak_mib, peak) {
        eprintln!("pith's peak RSS: {} MiB", peak >> 20);
        if peak >= mib << 20 {
            miss(format!(
                "pith's peak RSS: want under {mib} MiB, got {} MiB",
                peak >> 20
            ));
        }
    }
    for rel in run.gone {
        if root.join(rel).exists() {
            miss(format!(
                "{rel}: want no such file after the run, it is there"
            ));
        }
    }
    for (rel, text) in run.files {
        let got = std::fs::read_to_string(root.join(rel));
        let m = match &got {
            Ok(got) => text.miss(got),
            Err(e) => Some(format!("unreadable: {e}")),
        };
        if let Some(m) = m {
            miss(format!("file {rel}: {m}"));
        }
    }
}

/// Says where the failures (or flaky attempts) `shown` disagree with `want`.
fn failure_misses(
    kind: &str,
    shown: &[serde_json::Value],
    want: &[Failure],
    miss: &mut impl FnMut(String),
) {
    for w in want {
        let picked: Vec<&serde_json::Value> = match w.which {
            Which::Test(id) => shown.iter().find(|f| f["test"] == id).into_iter().collect(),
            Which::Nth(n) => shown.get(n).into_iter().collect(),
            Which::Each | Which::Some => shown.iter().collect(),
        };
        if picked.is_empty() {
            miss(format!("{kind} {:?}: none shown", w.which));
            continue;
        }
        let says: Vec<Vec<String>> = picked.iter().map(|f| w.misses(f)).collect();
        let name = |f: &serde_json::Value| match w.which {
            Which::Test(id) => id.to_owned(),
            _ => format!("{:?} ({})", w.which, f["test"]),
        };
        match w.which {
            Which::Some if says.iter().any(Vec::is_empty) => {}
            Which::Some => miss(format!(
                "{kind}: none of those shown fits: {}",
                picked
                    .iter()
                    .zip(&says)
                    .map(|(f, m)| format!("{} {}", f["test"], m.join(", ")))
                    .collect::<Vec<_>>()
                    .join("; ")
            )),
            _ => {
                for (f, says) in picked.iter().zip(says) {
                    for m in says {
                        miss(format!("{kind} {} {m}", name(f)));
                    }
                }
            }
        }
    }
}

impl Failure {
    /// What is wrong with the failure `f`, if anything.
    fn misses(&self, f: &serde_json::Value) -> Vec<String> {
        let frames = common::frames(f);
        let checks = [
            (
                "message",
                self.message,
                f["message"].as_str().unwrap_or_default(),
            ),
            (
                "frame",
                self.frame,
                frames.first().copied().unwrap_or_default(),
            ),
        ];
        let mut out: Vec<String> = checks
            .into_iter()
            .filter_map(|(field, text, got)| text.miss(got).map(|m| format!("{field}: {m}")))
            .collect();
        if let Some(phase) = self.phase {
            if f["phase"] != phase {
                out.push(format!("phase: want {phase}, got {}", f["phase"]));
            }
        }
        out
    }
}

impl Text {
    /// What is wrong with `got`, if anything.
    fn miss(self, got: &str) -> Option<String> {
        let (ok, want) = match self {
            Text::Any => (true, String::new()),
            Text::Is(w) => (got == w, format!("want {w:?}")),
            Text::Has(w) => (got.contains(w), format!("want it to contain {w:?}")),
            Text::Lacks(w) => (!got.contains(w), format!("want it without {w:?}")),
            Text::Starts(w) => (got.starts_with(w), format!("want it to start with {w:?}")),
            Text::Ends(w) => (got.ends_with(w), format!("want it to end with {w:?}")),
            Text::At(w) => (
                got.split(' ').next() == Some(w),
                format!("want it at {w:?}"),
            ),
        };
        (!ok).then(|| format!("{want}, got {got:?}"))
    }
}

impl Ids {
    /// What is wrong with the ids `got` (`named`: with the other members of their causes),
    /// if anything.
    fn miss(self, got: &[String], named: &[String]) -> Option<String> {
        fn sorted<'a>(v: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
            let mut v: Vec<&str> = v.into_iter().collect();
            v.sort_unstable();
            v
        }
        let ok = match self {
            Ids::Any => true,
            Ids::Exactly(w) => got.iter().map(String::as_str).eq(w.iter().copied()),
            Ids::Set(w) => sorted(got.iter().map(String::as_str)) == sorted(w.iter().copied()),
            Ids::All(w) => sorted(named.iter().map(String::as_str)) == sorted(w.iter().copied()),
            Ids::Includes(w) => w.iter().all(|w| got.iter().any(|g| g == w)),
            Ids::First(w) => got.first().is_some_and(|g| g == w),
            Ids::Count(n) => got.len() == n,
        };
        let got = match self {
            Ids::All(_) => named,
            _ => got,
        };
        (!ok).then(|| format!("want {self:?}, got {got:?}"))
    }
}

/// A real Gradle wrapper jar, as `gradle wrapper` writes it into a project, made once per run
/// by the installed Gradle (never committed to the repository).
fn wrapper_jar() -> PathBuf {
    static JAR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    JAR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("pith-it-wrapper-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("settings.gradle"), "").unwrap();
        // The daemon this starts stops two minutes after, not three hours.
        std::fs::write(
            dir.join("gradle.properties"),
            "org.gradle.daemon.idletimeout=120000\n",
        )
        .unwrap();
        let out = Command::new("gradle")
            .args(["wrapper", "--offline", "-q"])
            .current_dir(&dir)
            .output()
            .expect("Gradle is not installed: run scripts/setup/jvm.sh");
        let jar = dir.join("gradle/wrapper/gradle-wrapper.jar");
        assert!(
            out.status.success() && jar.is_file(),
            "gradle wrapper: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        jar
    })
    .clone()
}

/// A PATH of every program on this one but `hidden`: a machine without them.
fn path_without(hidden: &[&str]) -> (tempfile::TempDir, String) {
    let bin = tempfile::tempdir().unwrap();
    let path = std::env::var_os("PATH").unwrap();
    for dir in std::env::split_paths(&path) {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name();
            if hidden.iter().any(|h| name == *h) || bin.path().join(&name).exists() {
                continue;
            }
            let _ = std::os::unix::fs::symlink(e.path(), bin.path().join(&name));
        }
    }
    let p = bin.path().to_string_lossy().into_owned();
    (bin, p)
}

/// A PATH whose `dotnet` replays the run recorded in the copy's `.replay/`: prints
/// `console.txt`, copies `results/` into the `--results-directory` it is given, records its
/// arguments (`argv.txt`) and environment (`env.txt`) there, and exits with `exit`.
fn dotnet_path(root: &Path) -> (tempfile::TempDir, String) {
    let replay = root.join(".replay");
    let bin = tempfile::tempdir().unwrap();
    let script = format!(
        r#"#!/bin/sh
replay='{}'
results=
prev=
for a in "$@"; do
  if [ "$prev" = "--results-directory" ]; then results=$a; fi
  prev=$a
done
printf '%s\n' "$@" > "$replay/argv.txt"
env > "$replay/env.txt"
if [ -n "$results" ] && [ -d "$replay/results" ]; then cp -R "$replay/results/." "$results/"; fi
cat "$replay/console.txt"
exit "$(cat "$replay/exit")"
"#,
        replay.display()
    );
    let dotnet = bin.path().join("dotnet");
    std::fs::write(&dotnet, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&dotnet, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    (bin, path)
}

/// Every verdict fixture is some row's, or a hand-written test's: none is left behind
/// unchecked, and every row's fixture is there.
#[test]
fn every_verdict_fixture_is_run() {
    let dir = common::repo_root().join("tests/fixtures/verdicts");
    let rows: Vec<&str> = TABLES
        .iter()
        .flat_map(|t| t.iter().map(|(_, r)| r.fixture))
        .collect();
    let mut unrun = Vec::new();
    for eco in std::fs::read_dir(&dir).unwrap().flatten() {
        for case in std::fs::read_dir(eco.path()).unwrap().flatten() {
            if !case.path().is_dir() {
                continue;
            }
            let rel = format!(
                "{}/{}",
                eco.file_name().to_string_lossy(),
                case.file_name().to_string_lossy()
            );
            if !rows.contains(&rel.as_str()) && !HAND_WRITTEN.iter().any(|(f, _)| *f == rel) {
                unrun.push(rel);
            }
        }
    }
    unrun.sort();
    assert!(unrun.is_empty(), "verdict fixtures no row runs: {unrun:?}");
    for (name, row) in TABLES.iter().flat_map(|t| t.iter()) {
        assert!(
            dir.join(row.fixture).is_dir(),
            "{name}: no fixture {}",
            row.fixture
        );
    }
}
