//! The benchmark run: builds the release pith, copies each scenario's fixture to a temp area,
//! runs the raw command and `pith test` on it side by side (warm-up, then alternating timed
//! runs), and hands the measurements to `report`. Only the table goes to stdout.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::report::{self, Row, Side};
use crate::scenario::{self, Kind, Scenario};
use crate::tokens::Counter;

pub struct Options {
    /// Timed runs per side.
    pub runs: usize,
    /// Substrings of scenario names to keep; empty keeps all.
    pub filters: Vec<String>,
    pub markdown_out: Option<PathBuf>,
}

/// Pith may add at most this much to the runner's own wall time.
const WALL_TARGET: f64 = 1.10;

pub fn run(opts: &Options) -> Result<()> {
    let root = repo_root();
    let scenarios: Vec<Scenario> = scenario::all()
        .into_iter()
        .filter(|s| scenario::selected(&s.name, &opts.filters))
        .collect();
    if scenarios.is_empty() {
        bail!("no scenario name contains any of {:?}", opts.filters);
    }
    let pith = build_pith(&root)?;
    let nextest = scenarios.iter().any(|s| s.kind == Kind::Nextest) && nextest_installed();
    let counter = Counter::new()?;
    let tmp = tempfile::Builder::new().prefix("pith-bench-").tempdir()?;
    let target_dir = tmp.path().join("cargo-target");
    eprintln!("bench: working in {}", tmp.path().display());

    let mut rows = Vec::new();
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
        // One copy per fixture: a Rust fixture's cargo and nextest rows share its build.
        let work = tmp.path().join("work").join(&s.source);
        if !work.exists() {
            copy_dir(&source, &work).with_context(|| format!("copying {}", s.source))?;
            if s.kind.needs_node_modules() {
                // The JS fixtures share one installed tree (scripts/setup/js.sh).
                let modules = root.join("tests/fixtures/js/node_modules");
                std::os::unix::fs::symlink(&modules, work.join("node_modules"))
                    .with_context(|| format!("linking node_modules into {}", s.source))?;
            }
        }
        let env: Vec<(&str, &Path)> = if s.kind.builds_rust() {
            vec![("CARGO_TARGET_DIR", &target_dir)]
        } else {
            Vec::new()
        };
        rows.push(measure(s, &work, &pith, &env, opts.runs, &counter)?);
    }

    let table = report::markdown_table(&rows);
    print!("{table}");
    if let Some(path) = &opts.markdown_out {
        fs::write(path, &table).with_context(|| format!("writing {}", path.display()))?;
    }
    for r in rows
        .iter()
        .filter(|r| r.note.is_none() && r.wall_ratio() > WALL_TARGET)
    {
        eprintln!(
            "bench: {}: pith takes {:.2}× the runner's wall time (target ≤ {WALL_TARGET:.2}×)",
            r.scenario,
            r.wall_ratio()
        );
    }
    Ok(())
}

/// One scenario: a warm-up of each side, then `runs` timed runs alternating raw and pith.
fn measure(
    s: &Scenario,
    work: &Path,
    pith: &Path,
    env: &[(&str, &Path)],
    runs: usize,
    counter: &Counter,
) -> Result<Row> {
    let raw_argv: Vec<OsString> = s.kind.raw_argv().iter().map(OsString::from).collect();
    let mut pith_argv: Vec<OsString> =
        vec![pith.into(), "test".into(), "--root".into(), work.into()];
    if let Some(runner) = s.kind.pith_runner() {
        pith_argv.extend(["--runner".into(), runner.into()]);
    }

    eprintln!("bench: {}: warm-up", s.name);
    run_once(&raw_argv, work, env)?;
    run_once(&pith_argv, work, env)?;
    let (mut raw, mut pith_runs) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for i in 1..=runs {
        eprintln!("bench: {}: run {i}/{runs}", s.name);
        raw.push(run_once(&raw_argv, work, env)?);
        pith_runs.push(run_once(&pith_argv, work, env)?);
    }

    // Sizes come from the first timed run of each side: warm, like every later one.
    let raw_text = [raw[0].stdout.as_slice(), raw[0].stderr.as_slice()].concat();
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
    let walls = |runs: &[Sample]| report::median(&runs.iter().map(|r| r.wall).collect::<Vec<_>>());
    Ok(Row {
        scenario: s.name.clone(),
        raw: Side {
            bytes: raw_text.len(),
            tokens: counter.count(&raw_text),
            wall: walls(&raw),
        },
        pith: Side {
            bytes: answer.stdout.len(),
            tokens: counter.count(&answer.stdout),
            wall: walls(&pith_runs),
        },
        note,
    })
}

struct Sample {
    wall: Duration,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    code: Option<i32>,
}

/// Runs `argv` (never through a shell) in `cwd`, capturing its output and wall time.
fn run_once(argv: &[OsString], cwd: &Path, env: &[(&str, &Path)]) -> Result<Sample> {
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

/// Whether a variable of the caller's environment is kept from the measured commands.
fn stripped(name: &str) -> bool {
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
        )
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the repository root")
        .to_path_buf()
}

/// Builds `target/release/pith` (cargo's own output goes to stderr) and returns its path.
fn build_pith(root: &Path) -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!("bench: cargo build --release -p pith");
    let status = Command::new(cargo)
        .args(["build", "--release", "-p", "pith"])
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::from(std::io::stderr()))
        .status()
        .context("running cargo build")?;
    if !status.success() {
        bail!("cargo build --release -p pith failed ({status})");
    }
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), |d| root.join(d));
    let pith = target.join("release").join("pith");
    if !pith.is_file() {
        bail!("{} does not exist after the build", pith.display());
    }
    Ok(pith)
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

/// Copies a fixture, leaving out build and cache directories a developer's run may have left.
fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if matches!(
            name.to_str(),
            Some("target" | "__pycache__" | ".pytest_cache" | ".pith")
        ) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_skips_build_and_cache_dirs() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src");
        fs::create_dir_all(src.join("tests/__pycache__")).unwrap();
        fs::create_dir_all(src.join("target/debug")).unwrap();
        fs::write(src.join("tests/test_a.py"), "def test_a(): pass\n").unwrap();
        fs::write(src.join("tests/__pycache__/x.pyc"), "").unwrap();
        let dst = tmp.path().join("dst/deep");
        copy_dir(&src, &dst).unwrap();
        assert!(dst.join("tests/test_a.py").is_file());
        assert!(!dst.join("tests/__pycache__").exists());
        assert!(!dst.join("target").exists());
    }

    #[test]
    fn strips_cargo_run_vars_and_caller_knobs_only() {
        assert!(stripped("CARGO_PKG_NAME"));
        assert!(stripped("CARGO_MANIFEST_DIR"));
        assert!(stripped("RUST_BACKTRACE"));
        assert!(!stripped("CARGO_HOME"));
        assert!(!stripped("CARGO_TARGET_DIR"));
        assert!(!stripped("PATH"));
    }
}
