//! The benchmark run: builds the release pith, copies each scenario's fixture to a temp area,
//! runs the raw commands and `pith test` on it side by side (warm-up, then timed pairs, the
//! raw run first), or for a report row has pith read the report file, and hands the
//! measurements to `report`. Only the tables go to stdout.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::report::{self, RawKind, Row, Side};
use crate::scenario::{self, Kind, Scenario};
use crate::targets;
use crate::tokens::Counter;

pub struct Options {
    /// Timed runs per side (the least, when `budget` is set).
    pub runs: usize,
    /// Timed pairs go on past `runs`, up to [`MAX_PAIRS`], until the row's pairs have taken
    /// this long: a short runner's median ratio is then read from enough pairs that the
    /// machine's noise (±5–10% a run here) moves it by about a percent, not five.
    pub budget: Option<Duration>,
    /// Substrings of scenario names to keep; empty keeps all.
    pub filters: Vec<String>,
    pub markdown_out: Option<PathBuf>,
    /// Where each scenario's answer (its first timed run's stdout) is written as `NAME.json`:
    /// a refactoring's answers compared byte for byte, `durationS` aside.
    pub answers_out: Option<PathBuf>,
    /// Re-record the baseline of ids and places (`targets::BASELINE`) from this run's red
    /// answers, for the scenarios run, instead of only checking against it.
    pub record_baseline: bool,
    /// Only each runner's green run, and the green overhead is a target the bench fails on.
    pub green: bool,
}

/// Pith may add at most this much to the runner's own wall time.
const WALL_TARGET: f64 = 1.10;

/// The most timed pairs a row takes under a [`Options::budget`].
pub const MAX_PAIRS: usize = 101;

/// `--green` without `--runs`: at least this many pairs a row, more while [`GREEN_BUDGET`]
/// lasts (a 60 ms `cargo test` row takes [`MAX_PAIRS`], a 2.5 s `mvn test` row this many).
pub const GREEN_MIN_PAIRS: usize = 21;
pub const GREEN_BUDGET: Duration = Duration::from_secs(30);

pub fn run(opts: &Options) -> Result<()> {
    let root = repo_root();
    let samples = samples_dir(&root);
    let scenarios: Vec<Scenario> = scenario::all(samples.as_deref())
        .into_iter()
        .filter(|s| scenario::selected(&s.name, &opts.filters))
        .filter(|s| !opts.green || report::is_green_row(&s.name))
        .collect();
    if scenarios.is_empty() {
        bail!("no scenario name contains any of {:?}", opts.filters);
    }
    let pith = build_pith(&root)?;
    let nextest = scenarios.iter().any(|s| s.kind == Kind::Nextest) && nextest_installed();
    let cmake_missing = ["cmake", "ctest", "ninja"]
        .into_iter()
        .filter(|p| !on_path(p))
        .collect::<Vec<_>>();
    let counter = Counter::new()?;
    let tmp = tempfile::Builder::new().prefix("pith-bench-").tempdir()?;
    let target_dir = tmp.path().join("cargo-target");
    // pith's gtest adapter builds in its cache directory: one inside the temp area starts it
    // with no build of its own and leaves nothing behind in the caller's cache.
    let xdg_cache = tmp.path().join("xdg-cache");
    eprintln!("bench: working in {}", tmp.path().display());

    let mut rows = Vec::new();
    // Per row: pith's answers, for the targets.
    let mut answers: Vec<Answered> = Vec::new();
    // Per row: the raw side as typed, its spread and pairs, for the green overhead table.
    let mut typed: Vec<report::Declared> = Vec::new();
    for s in &scenarios {
        let source = root.join(&s.source);
        if !source.is_dir() {
            eprintln!(
                "bench: skipping {}: {} does not exist yet",
                s.name, s.source
            );
            continue;
        }
        if s.kind == Kind::Nextest && !nextest {
            eprintln!(
                "bench: skipping {}: `cargo nextest` is not installed",
                s.name
            );
            continue;
        }
        if s.kind == Kind::Ctest && !cmake_missing.is_empty() {
            eprintln!(
                "bench: skipping {}: {} not on PATH (scripts/setup/cpp.sh)",
                s.name,
                cmake_missing.join(", ")
            );
            continue;
        }
        if s.kind == Kind::Bazel && !on_path("bazel") {
            eprintln!(
                "bench: skipping {}: bazel not on PATH (scripts/setup/bazel.sh)",
                s.name
            );
            continue;
        }
        // One copy per fixture (a Rust fixture's cargo and nextest rows share its build), or
        // one per side where sharing would let one side profit from the other's work.
        let work = tmp.path().join("work");
        let (raw_dir, pith_dir) = if s.kind.separate_copies() {
            (
                work.join("raw").join(&s.source),
                work.join("pith").join(&s.source),
            )
        } else {
            (work.join(&s.source), work.join(&s.source))
        };
        for dir in [&raw_dir, &pith_dir] {
            if !dir.exists() {
                copy_fixture(&root, s, dir)?;
            }
        }
        let env: Vec<(&str, &Path)> = if s.kind.builds_rust() {
            vec![("CARGO_TARGET_DIR", &target_dir)]
        } else if s.kind == Kind::Ctest {
            vec![("XDG_CACHE_HOME", &xdg_cache)]
        } else {
            Vec::new()
        };
        let (row, answered, spread, pairs) = match &s.report {
            Some(file) => {
                let (row, answered) =
                    measure_report(s, file, &pith_dir, &pith, opts.runs, &counter)?;
                (row, answered, 0.0, opts.runs)
            }
            None => {
                let dirs = Dirs {
                    raw: &raw_dir,
                    pith: &pith_dir,
                };
                measure(s, dirs, &pith, &env, opts, &counter)?
            }
        };
        if let Some(dir) = &opts.answers_out {
            fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            let file = dir.join(format!("{}.json", s.name.replace('/', "-")));
            fs::write(&file, &answered.first)
                .with_context(|| format!("writing {}", file.display()))?;
        }
        rows.push(row);
        answers.push(answered);
        typed.push(report::Declared {
            command: s
                .kind
                .raw_commands()
                .iter()
                .map(|argv| argv.join(" "))
                .collect::<Vec<_>>()
                .join(" && "),
            spread,
            pairs,
        });
    }

    let mut table = report::markdown_table(&rows);
    let with_commands: Vec<(&Row, report::Declared)> = rows.iter().zip(typed).collect();
    let green = report::green_table(&with_commands);
    if !green.is_empty() {
        table.push_str(&format!(
            "\n### Green overhead (`pith test` against the declared command, in pairs side by side, the command first)\n\n{green}"
        ));
    }
    print!("{table}");
    if let Some(path) = &opts.markdown_out {
        fs::write(path, &table).with_context(|| format!("writing {}", path.display()))?;
    }
    for r in rows.iter().filter(|r| {
        r.raw_kind == RawKind::Run
            && r.note.is_none()
            && r.wall_ratio() > WALL_TARGET
            && !report::is_green_row(&r.scenario)
    }) {
        eprintln!(
            "bench: {}: pith takes {:.2}× the runner's wall time (target ≤ {WALL_TARGET:.2}×)",
            r.scenario,
            r.wall_ratio()
        );
    }
    let over = report::green_misses(&rows);
    if opts.green {
        // The focused run: the green overhead is its target.
        if !green.is_empty() {
            println!(
                "\n- every green run within {:.2}× of its declared command: {} of {} over",
                report::GREEN_WALL_TARGET,
                over.len(),
                rows.iter().filter(|r| r.note.is_none()).count()
            );
        }
        for line in &over {
            println!("  - MISS {line}");
        }
        let problems: Vec<&Row> = rows.iter().filter(|r| r.note.is_some()).collect();
        for r in &problems {
            println!(
                "  - MISS {}: {}",
                r.scenario,
                r.note.as_deref().unwrap_or("")
            );
        }
        if !over.is_empty() || !problems.is_empty() {
            bail!(
                "{} green run(s) over {:.2}× or not green: see the MISS lines",
                over.len() + problems.len(),
                report::GREEN_WALL_TARGET
            );
        }
        return Ok(());
    }
    for line in &over {
        eprintln!("bench: {line}");
    }
    check_targets(&root, &rows, &answers, opts.record_baseline)
}

/// The answer targets, after the table: prints their section (recording the baseline first
/// when asked) and fails the bench when any is missed, so that a change that breaks one is
/// seen at the end of the run, not only in a table's numbers.
fn check_targets(root: &Path, rows: &[Row], answered: &[Answered], record: bool) -> Result<()> {
    let texts: Vec<String> = answered
        .iter()
        .map(|a| String::from_utf8_lossy(&a.first).into_owned())
        .collect();
    let answers: Vec<targets::Answer> = rows
        .iter()
        .zip(answered)
        .zip(&texts)
        .map(|((row, a), text)| targets::Answer {
            scenario: &row.scenario,
            red: a.code == Some(1),
            bytes: row.pith.bytes,
            tokens: row.pith.tokens,
            text,
            problem: row.note.as_deref(),
        })
        .collect();
    let path = root.join(targets::BASELINE);
    let mut baseline = targets::load(&path)?;
    if record {
        let mut recorded = 0;
        for (a, all) in answers.iter().zip(answered) {
            if !a.red || a.problem.is_some() {
                continue;
            }
            let every: Vec<String> = all
                .every
                .iter()
                .map(|t| String::from_utf8_lossy(t).into_owned())
                .collect();
            if let Some(facts) = targets::baseline_facts(&every) {
                baseline.insert(a.scenario.to_string(), facts);
                recorded += 1;
            }
        }
        targets::save(&path, &baseline)?;
        eprintln!(
            "bench: recorded {recorded} red answers' ids and places in {}",
            path.display()
        );
    }
    let summary = targets::check(&answers, &baseline);
    print!("{}", summary.text);
    if summary.misses > 0 {
        bail!(
            "{} answer target(s) missed: see the MISS lines of the Targets section",
            summary.misses
        );
    }
    Ok(())
}

/// Where each side of a live row runs: one copy of the fixture, or one each.
#[derive(Clone, Copy)]
struct Dirs<'a> {
    raw: &'a Path,
    pith: &'a Path,
}

/// Copies a scenario's fixture to `dir`, linking in what it needs that a copy lacks.
fn copy_fixture(root: &Path, s: &Scenario, dir: &Path) -> Result<()> {
    copy_dir(&root.join(&s.source), dir).with_context(|| format!("copying {}", s.source))?;
    if s.kind.needs_node_modules() {
        // The JS fixtures share one installed tree (scripts/setup/js.sh).
        let modules = root.join("tests/fixtures/js/node_modules");
        std::os::unix::fs::symlink(&modules, dir.join("node_modules"))
            .with_context(|| format!("linking node_modules into {}", s.source))?;
    }
    Ok(())
}

/// One scenario: a warm-up of each side (one pair, more where a runner's server warms itself:
/// [`Kind::warm_up_pairs`]), then timed pairs of a raw and a pith run, as many as
/// `opts` says ([`Options::runs`], [`Options::budget`]). The raw run always goes first, so
/// each run follows one of the other side: alternating which goes first made a side follow
/// itself every other pair, and where a run warms its own copy (Gradle's daemon, pytest's
/// imports) the pairs' ratios split into two clusters whose median is whichever one noise
/// favours (python 1.17×, gradle 1.20× in one run; 1.00–1.08× in fixed order). The warm-up
/// is also where a cold build happens (cargo's, CMake's configure and build), so the timed
/// runs are the edit loop's: an already-built tree, nothing changed. Returns the row, pith's
/// answers, the raw side's [`report::spread`], and how many pairs were timed.
fn measure(
    s: &Scenario,
    dirs: Dirs<'_>,
    pith: &Path,
    env: &[(&str, &Path)],
    opts: &Options,
    counter: &Counter,
) -> Result<(Row, Answered, f64, usize)> {
    let raw_cmds: Vec<Vec<OsString>> = s
        .raw_commands()
        .into_iter()
        .map(|argv| argv.into_iter().map(OsString::from).collect())
        .collect();
    let mut pith_argv: Vec<OsString> = vec![
        pith.into(),
        "test".into(),
        "--root".into(),
        dirs.pith.into(),
    ];
    if let Some(runner) = s.kind.pith_runner() {
        pith_argv.extend(["--runner".into(), runner.into()]);
    }
    if let Some(t) = s.timeout {
        pith_argv.extend(["--timeout".into(), t.to_string().into()]);
    }

    eprintln!("bench: {}: warm-up", s.name);
    let mut warm = None;
    for _ in 0..s.kind.warm_up_pairs() {
        run_raw(&raw_cmds, dirs.raw, env)?;
        warm.get_or_insert(run_once(&pith_argv, dirs.pith, env)?);
    }
    let warm = warm.context("no warm-up run")?;
    let (mut raw, mut pith_runs) = (Vec::new(), Vec::new());
    let started = Instant::now();
    let more = |done: usize| {
        done < opts.runs
            || opts
                .budget
                .is_some_and(|b| done < MAX_PAIRS && started.elapsed() < b)
    };
    while more(raw.len()) {
        eprintln!("bench: {}: pair {}", s.name, raw.len() + 1);
        raw.push(run_raw(&raw_cmds, dirs.raw, env)?);
        pith_runs.push(run_once(&pith_argv, dirs.pith, env)?);
    }
    let pairs = raw.len();
    if raw_cmds.len() > 1 {
        // A configure step is what an agent may leave out once the tree is configured: what
        // the rest costs says how much of the row's ratio is that step.
        let rest: Vec<Duration> = raw.iter().map(|r| r.steps.iter().skip(1).sum()).collect();
        eprintln!(
            "bench: {}: raw steps (median): {}; all but the first {} ms",
            s.name,
            step_medians(&raw_cmds, &raw),
            report::median(&rest).as_millis()
        );
    }

    // Sizes come from the first timed run of each side: warm, like every later one.
    let answer = &pith_runs[0];
    let note = report::answer_problem(
        raw[0].code,
        answer.code,
        &String::from_utf8_lossy(&answer.stdout),
    );
    if let Some(note) = &note {
        eprintln!(
            "bench: {}: {note}; pith's stderr:\n{}",
            s.name,
            String::from_utf8_lossy(&answer.stderr).trim_end()
        );
    }
    let raw_walls: Vec<Duration> = raw.iter().map(RawRun::wall).collect();
    let pith_walls: Vec<Duration> = pith_runs.iter().map(|r| r.wall).collect();
    let row = Row {
        scenario: s.name.clone(),
        raw: side(counter, &raw[0].text, report::median(&raw_walls)),
        pith: side(counter, &answer.stdout, report::median(&pith_walls)),
        note,
        raw_kind: RawKind::Run,
        pair_ratio: report::pair_ratio(&raw_walls, &pith_walls),
    };
    Ok((
        row,
        Answered::of(&warm, &pith_runs),
        report::spread(&raw_walls),
        pairs,
    ))
}

/// Each raw step's median wall time, for the table's note on what a sequence's time is made of.
fn step_medians(cmds: &[Vec<OsString>], runs: &[RawRun]) -> String {
    cmds.iter()
        .enumerate()
        .map(|(i, argv)| {
            let walls: Vec<Duration> = runs
                .iter()
                .filter_map(|r| r.steps.get(i).copied())
                .collect();
            let argv: Vec<String> = argv
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            format!(
                "`{}` {} ms",
                argv.join(" "),
                report::median(&walls).as_millis()
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A report row: the raw side is the report file as the agent would read it; pith reads it
/// with `pith test --report` in `workspace` (warm-up, then `runs` timed runs).
fn measure_report(
    s: &Scenario,
    file: &Path,
    workspace: &Path,
    pith: &Path,
    runs: usize,
    counter: &Counter,
) -> Result<(Row, Answered)> {
    let text = fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let argv: Vec<OsString> = vec![
        pith.into(),
        "test".into(),
        "--root".into(),
        workspace.into(),
        "--report".into(),
        file.into(),
    ];
    eprintln!("bench: {}: warm-up", s.name);
    let warm = run_once(&argv, workspace, &[])?;
    let mut samples = Vec::with_capacity(runs);
    for i in 1..=runs {
        eprintln!("bench: {}: run {i}/{runs}", s.name);
        samples.push(run_once(&argv, workspace, &[])?);
    }
    let answer = &samples[0];
    let note = report::malformed_answer(answer.code, &String::from_utf8_lossy(&answer.stdout));
    if let Some(note) = &note {
        eprintln!(
            "bench: {}: {note}; pith's stderr:\n{}",
            s.name,
            String::from_utf8_lossy(&answer.stderr).trim_end()
        );
    }
    let walls: Vec<Duration> = samples.iter().map(|r| r.wall).collect();
    let row = Row {
        scenario: s.name.clone(),
        raw: side(counter, &text, Duration::ZERO),
        pith: side(counter, &answer.stdout, report::median(&walls)),
        note,
        raw_kind: RawKind::Report,
        pair_ratio: None,
    };
    Ok((row, Answered::of(&warm, &samples)))
}

/// pith's answers for one row.
struct Answered {
    /// The first timed run's: the one the row's sizes and the targets are about.
    first: Vec<u8>,
    code: Option<i32>,
    /// Every run's, the warm-up's included: which failures a capped answer shows may vary
    /// from run to run (the order tests finish in), so a baseline keeps what they all show.
    every: Vec<Vec<u8>>,
}

impl Answered {
    fn of(warm: &Sample, timed: &[Sample]) -> Self {
        Self {
            first: timed[0].stdout.clone(),
            code: timed[0].code,
            every: std::iter::once(warm)
                .chain(timed)
                .map(|r| r.stdout.clone())
                .collect(),
        }
    }
}

pub(crate) struct Sample {
    pub(crate) wall: Duration,
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: Vec<u8>,
    pub(crate) code: Option<i32>,
}

/// The raw side once.
struct RawRun {
    /// Each command's wall time, in order.
    steps: Vec<Duration>,
    /// What the agent reads: each command's stdout, then its stderr, command after command.
    text: Vec<u8>,
    /// The exit code of the last command run.
    code: Option<i32>,
}

impl RawRun {
    fn wall(&self) -> Duration {
        self.steps.iter().sum()
    }
}

/// Runs the raw commands in order while each succeeds, as `a && b && c` typed by an agent would.
fn run_raw(cmds: &[Vec<OsString>], cwd: &Path, env: &[(&str, &Path)]) -> Result<RawRun> {
    let mut run = RawRun {
        steps: Vec::with_capacity(cmds.len()),
        text: Vec::new(),
        code: Some(0),
    };
    for argv in cmds {
        let sample = run_once(argv, cwd, env)?;
        run.steps.push(sample.wall);
        run.text.extend(sample.stdout);
        run.text.extend(sample.stderr);
        run.code = sample.code;
        if sample.code != Some(0) {
            break;
        }
    }
    Ok(run)
}

/// Runs `argv` (never through a shell) in `cwd`, capturing its output and wall time.
pub(crate) fn run_once(argv: &[OsString], cwd: &Path, env: &[(&str, &Path)]) -> Result<Sample> {
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..])
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Runs happen in a default environment: not what `cargo run` set for the xtask, nor the
    // caller's own knobs (RUST_BACKTRACE=1 alone would multiply the raw output).
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(stripped) {
            cmd.env_remove(name);
        }
    }
    for (name, value) in env {
        cmd.env(name, value);
    }
    let start = Instant::now();
    let out = cmd
        .output()
        .with_context(|| format!("running {}", argv[0].to_string_lossy()))?;
    Ok(Sample {
        wall: start.elapsed(),
        stdout: out.stdout,
        stderr: out.stderr,
        code: out.status.code(),
    })
}

/// Whether a variable of the caller's environment is kept from the measured commands (the
/// parity harness strips the same).
pub(crate) fn stripped(name: &str) -> bool {
    name.starts_with("CARGO_PKG_")
        || matches!(
            name,
            "CARGO_MANIFEST_DIR"
                | "CARGO_MANIFEST_PATH"
                | "CARGO_CRATE_NAME"
                | "CARGO_BIN_NAME"
                | "CARGO_PRIMARY_PACKAGE"
                | "RUST_BACKTRACE"
                | "RUST_LIB_BACKTRACE"
                | "PYTEST_ADDOPTS"
                | "CARGO_TERM_COLOR"
                | "FORCE_COLOR"
                | "CLICOLOR_FORCE"
                | "PY_COLORS"
                | "CTEST_OUTPUT_ON_FAILURE"
                | "CTEST_PARALLEL_LEVEL"
                | "CMAKE_BUILD_PARALLEL_LEVEL"
                | "CMAKE_GENERATOR"
        )
        // Both would change what gtest runs or prints; pith drops them too.
        || name.starts_with("GTEST_")
}

pub(crate) fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the repository root")
        .to_path_buf()
}

/// Builds `target/release/pith` (cargo's own output goes to stderr) and returns its path.
pub(crate) fn build_pith(root: &Path) -> Result<PathBuf> {
    build_pith_as(root, true)
}

/// Builds pith, `--release` or debug (what the test suite builds too), and returns its path.
pub(crate) fn build_pith_as(root: &Path, release: bool) -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut args = vec!["build", "-p", "pith"];
    if release {
        args.insert(1, "--release");
    }
    eprintln!("xtask: cargo {}", args.join(" "));
    let status = Command::new(cargo)
        .args(&args)
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::from(std::io::stderr()))
        .status()
        .context("running cargo build")?;
    if !status.success() {
        bail!("cargo {} failed ({status})", args.join(" "));
    }
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), |d| root.join(d));
    let pith = target
        .join(if release { "release" } else { "debug" })
        .join("pith");
    if !pith.is_file() {
        bail!("{} does not exist after the build", pith.display());
    }
    Ok(pith)
}

/// The real public report samples: `$PITH_SAMPLES` as the test suite reads it, else
/// `<repo>/../shared/samples`; `None` (and no report rows) when neither is there.
fn samples_dir(root: &Path) -> Option<PathBuf> {
    let dir = std::env::var_os("PITH_SAMPLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/samples"));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "bench: no report samples at {} (set PITH_SAMPLES): no report rows",
            dir.display()
        );
        None
    }
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(program).is_file()))
}

fn nextest_installed() -> bool {
    Command::new("cargo")
        .args(["nextest", "--version"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Copies a fixture, leaving out build and cache directories a developer's run may have left
/// (a `build/` only when it is a CMake build directory: pith would adopt it).
pub(crate) fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if matches!(
            name.to_str(),
            Some("target" | "__pycache__" | ".pytest_cache" | ".pith")
        ) || (name == "build" && entry.path().join("CMakeCache.txt").is_file())
        {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_dir(&src, &dst)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(&src)?, &dst)?;
        } else {
            fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}

/// One side's row cells: the size of what it printed, and its median wall time.
fn side(counter: &Counter, text: &[u8], wall: Duration) -> Side {
    Side {
        bytes: text.len(),
        tokens: counter.count(text),
        wall,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_skips_build_and_cache_dirs() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src");
        fs::create_dir_all(src.join("tests/__pycache__")).unwrap();
        fs::create_dir_all(src.join("target/debug")).unwrap();
        fs::create_dir_all(src.join("build")).unwrap();
        fs::write(src.join("build/CMakeCache.txt"), "").unwrap();
        fs::create_dir_all(src.join("lib/build")).unwrap();
        fs::write(src.join("tests/test_a.py"), "def test_a(): pass\n").unwrap();
        fs::write(src.join("tests/__pycache__/x.pyc"), "").unwrap();
        let dst = tmp.path().join("dst/deep");
        copy_dir(&src, &dst).unwrap();
        assert!(dst.join("tests/test_a.py").is_file());
        assert!(!dst.join("tests/__pycache__").exists());
        assert!(!dst.join("target").exists());
        assert!(!dst.join("build").exists());
        assert!(dst.join("lib/build").is_dir());
    }

    #[test]
    fn raw_commands_run_in_order_until_one_fails() {
        let tmp = tempfile::tempdir().unwrap();
        let argv = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        let cmds = [
            argv(&["echo", "one"]),
            argv(&["ls", "no-such-file"]),
            argv(&["echo", "never"]),
        ];
        let run = run_raw(&cmds, tmp.path(), &[]).unwrap();
        assert_eq!(run.steps.len(), 2);
        assert_ne!(run.code, Some(0));
        let text = String::from_utf8_lossy(&run.text);
        assert!(
            text.starts_with("one\n") && text.contains("no-such-file"),
            "{text}"
        );
        assert!(!text.contains("never"));
        assert_eq!(run.wall(), run.steps[0] + run.steps[1]);
        let ok = run_raw(&cmds[..1], tmp.path(), &[]).unwrap();
        assert_eq!((ok.code, ok.steps.len()), (Some(0), 1));
    }

    #[test]
    fn strips_cargo_run_vars_and_caller_knobs_only() {
        assert!(stripped("CARGO_PKG_NAME"));
        assert!(stripped("CARGO_MANIFEST_DIR"));
        assert!(stripped("RUST_BACKTRACE"));
        assert!(stripped("GTEST_FILTER") && stripped("CMAKE_GENERATOR"));
        assert!(!stripped("CARGO_HOME"));
        assert!(!stripped("CARGO_TARGET_DIR"));
        assert!(!stripped("PATH"));
    }
}
