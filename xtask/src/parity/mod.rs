//! `cargo xtask parity`: the differential check of pith against the project's own test command.
//! Each set-up of the corpus (`corpus`), in each variant, runs twice from fresh copies — the raw
//! command a developer types there, and `pith test` — and the harness compares the verdict
//! (green or not), the counts the runner printed, the failing ids (`extract` reads the raw
//! side's lines, pith's side is its answer and `pith failures`), and what each left in the
//! tree (`git status --ignored --porcelain`). `--project DIR --raw CMD` makes the same
//! comparison on a checkout of a public project. The table goes to stdout (and `--table`).

pub mod corpus;
pub mod extract;
mod table;

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::Value;

use corpus::{Setup, Variant};
use extract::Observed;

pub struct Options {
    pub quick: bool,
    /// Substrings of `set-up/variant` to keep; empty keeps all.
    pub only: Vec<String>,
    pub table: Option<PathBuf>,
    /// A checkout to compare instead of the corpus, with its raw commands and runners.
    pub project: Option<PathBuf>,
    pub raw: Vec<String>,
    pub runners: Vec<String>,
    /// With `--project`: edits (`FILE|FROM|TO`) making a second run, "injected".
    pub edits: Vec<String>,
    /// With `--project`: commands run in both copies before either side (`--prepare`).
    pub prepare: Vec<String>,
    /// A built pith to drive instead of building one.
    pub pith: Option<PathBuf>,
    /// Keep the copies (their path is printed), to look at what a side left.
    pub keep: bool,
}

/// One compared run: a set-up's variant (or a public project).
pub struct Row {
    pub setup: String,
    pub variant: String,
    pub raw: RawSide,
    pub pith: PithSide,
    /// Every way the sides differ; empty when they agree.
    pub diffs: Vec<String>,
    /// The raw side did not answer what the corpus expects: the set-up is broken here.
    pub broken: Option<String>,
    /// The known reasons that cover the differences (the variant's own, or the corpus-wide
    /// entries of `known.json` whose pattern a difference contains), each once.
    pub known: Vec<corpus::Known>,
    /// Every difference is covered by a known reason.
    pub covered: bool,
    /// The variant lists a known disagreement (stale when the sides agree).
    pub listed: bool,
    /// The variant's entry covers nothing the corpus-wide entries leave: remove it.
    pub stale: bool,
    /// The variant's own known entry.
    pub own: Option<corpus::Known>,
}

pub struct RawSide {
    pub exit: Option<i32>,
    pub observed: Observed,
    pub wall: Duration,
    pub tree: BTreeSet<String>,
    pub timed_out: bool,
}

pub struct PithSide {
    pub exit: Option<i32>,
    pub status: String,
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
    pub written: u64,
    pub ids: BTreeSet<String>,
    pub wall: Duration,
    pub tree: BTreeSet<String>,
    pub answer: String,
}

impl Row {
    pub fn agrees(&self) -> bool {
        self.diffs.is_empty()
    }
    /// Fails the harness: a disagreement nobody listed, or a broken set-up.
    pub fn fails(&self) -> bool {
        self.broken.is_some() || (!self.agrees() && !self.covered)
    }
}

pub fn run(opts: &Options) -> Result<()> {
    let root = crate::bench::repo_root();
    let started = Instant::now();
    let known;
    let (setups, public) = match &opts.project {
        Some(dir) => {
            known = corpus::load_known(&root)?;
            (vec![project_setup(dir, opts)?], true)
        }
        None => {
            let all = corpus::load(&root)?;
            known = corpus::load_known(&root)?;
            let picked: Vec<Setup> = all.into_iter().filter(|s| !opts.quick || s.quick).collect();
            (picked, false)
        }
    };
    let mut work: Vec<(&Setup, &Variant)> = setups
        .iter()
        .flat_map(|s| s.variants.iter().map(move |v| (s, v)))
        .filter(|(s, v)| {
            opts.only.is_empty()
                || opts
                    .only
                    .iter()
                    .any(|p| format!("{}/{}", s.name, v.name).contains(p.as_str()))
        })
        .collect();
    if work.is_empty() {
        bail!("no set-up matches {:?}", opts.only);
    }
    work.sort_by(|a, b| (&a.0.name, &a.1.name).cmp(&(&b.0.name, &b.1.name)));
    check_tools(&root, &work)?;
    let pith = match &opts.pith {
        Some(p) => p
            .canonicalize()
            .with_context(|| format!("{}", p.display()))?,
        None => crate::bench::build_pith_as(&root, false)?,
    };
    let tmp = tempfile::Builder::new().prefix("pith-parity-").tempdir()?;
    let base = tmp.path().to_path_buf();
    eprintln!(
        "parity: {} run(s) of {} set-up(s) ({:?}) in {}",
        work.len(),
        setups.len(),
        corpus::by_ecosystem(&setups),
        base.display()
    );
    let mut rows = Vec::new();
    for (i, (setup, variant)) in work.iter().enumerate() {
        eprintln!(
            "parity: [{}/{}] {} {}: {}",
            i + 1,
            work.len(),
            setup.name,
            variant.name,
            setup.about
        );
        let mut row = compare_one(&root, &pith, &base, setup, variant, i, public)?;
        cover(&mut row, &known);
        eprintln!(
            "parity:   raw {} in {:.1}s, pith {} in {:.1}s: {}",
            table::raw_cell(&row.raw),
            row.raw.wall.as_secs_f64(),
            table::pith_cell(&row.pith),
            row.pith.wall.as_secs_f64(),
            table::verdict_cell(&row)
        );
        rows.push(row);
    }
    let elapsed = started.elapsed();
    let mut text = table::markdown(&rows, elapsed, opts.quick, public);
    // A corpus-wide entry no difference needed any more: the lane's fix landed.
    if opts.only.is_empty() && !opts.quick && !public {
        for k in known.iter().filter(|k| {
            !rows
                .iter()
                .any(|r| r.diffs.iter().any(|d| k.covers(&r.setup, d)))
        }) {
            text.push_str(&format!(
                "Stale known entry (no difference matches it now: remove it): `{}` — {}\n",
                k.diff, k.follow_up
            ));
        }
    }
    print!("{text}");
    if let Some(path) = &opts.table {
        fs::write(path, &text).with_context(|| format!("writing {}", path.display()))?;
    }
    if opts.keep {
        let kept = tmp.keep();
        eprintln!("parity: copies kept in {}", kept.display());
    }
    let failing: Vec<&Row> = rows.iter().filter(|r| r.fails()).collect();
    if !failing.is_empty() {
        bail!(
            "{} run(s) disagree with no known reason or are broken: {}",
            failing.len(),
            failing
                .iter()
                .map(|r| format!("{}/{}", r.setup, r.variant))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(())
}

/// `--project DIR --raw CMD`: a checkout compared as it is, one variant, green or red as the
/// raw run says (nothing is expected of it).
fn project_setup(dir: &Path, opts: &Options) -> Result<Setup> {
    if opts.raw.is_empty() {
        bail!("--project needs --raw 'COMMAND' (repeatable: run in order)");
    }
    let dir = dir
        .canonicalize()
        .with_context(|| format!("{}", dir.display()))?;
    let raw = opts
        .raw
        .iter()
        .map(|r| corpus::split_words(r))
        .collect::<Result<Vec<_>>>()?;
    let runners = if opts.runners.is_empty() {
        guess_runners(&dir, &raw)
    } else {
        opts.runners.clone()
    };
    let name = dir
        .file_name()
        .map_or("project".into(), |n| n.to_string_lossy().into_owned());
    Ok(Setup {
        name: format!("public/{name}"),
        dir,
        about: String::new(),
        raw,
        runners,
        env: None,
        after: Vec::new(),
        before: opts
            .prepare
            .iter()
            .map(|r| corpus::split_words(r))
            .collect::<Result<Vec<_>>>()?,
        pith_args: Vec::new(),
        quick: false,
        timeout: 1800,
        variants: {
            let mut v = vec![Variant {
                name: "as published".into(),
                expect_green: true,
                masked: false,
                edits: Vec::new(),
                known: None,
            }];
            if !opts.edits.is_empty() {
                let edits = opts
                    .edits
                    .iter()
                    .map(|e| {
                        let parts: Vec<&str> = e.splitn(3, '|').collect();
                        match parts[..] {
                            [file, from, to] => Ok(corpus::Edit {
                                file: file.to_string(),
                                from: from.replace("\\n", "\n"),
                                to: to.replace("\\n", "\n"),
                            }),
                            _ => bail!("--edit wants FILE|FROM|TO, not {e:?}"),
                        }
                    })
                    .collect::<Result<Vec<_>>>()?;
                v.push(Variant {
                    name: "injected".into(),
                    expect_green: false,
                    masked: false,
                    edits,
                    known: None,
                });
            }
            v
        },
    })
}

/// The runners whose lines a public project's raw output is read with, from its command and,
/// for a package script, the scripts it declares.
fn guess_runners(dir: &Path, raw: &[Vec<String>]) -> Vec<String> {
    let mut found = BTreeSet::new();
    let scripts = fs::read_to_string(dir.join("package.json")).unwrap_or_default();
    for argv in raw {
        let word = argv[0].rsplit('/').next().unwrap_or(&argv[0]);
        match word {
            "pytest" | "python" | "python3" | "tox" => {
                found.insert("pytest");
            }
            "cargo" => {
                found.insert("cargo");
            }
            "go" => {
                found.insert("go");
            }
            "mvn" | "mvnw" => {
                found.insert("maven");
            }
            "gradle" | "gradlew" => {
                found.insert("gradle");
            }
            "ctest" => {
                found.insert("ctest");
            }
            "bazel" | "bazelisk" => {
                found.insert("bazel");
            }
            "npm" | "npx" | "pnpm" | "yarn" | "node" | "jest" | "vitest" | "mocha" => {
                for (needle, runner) in [("jest", "jest"), ("vitest", "vitest"), ("mocha", "mocha")]
                {
                    if scripts.contains(needle) || word == runner {
                        found.insert(runner);
                    }
                }
                if scripts.contains("--test") || word == "node" {
                    found.insert("node");
                }
            }
            _ => {}
        }
    }
    found.into_iter().map(str::to_string).collect()
}

/// Every program the chosen runs start, present before anything runs: a missing tool fails
/// the harness with the setup script to run, never a row that agrees because both sides failed.
fn check_tools(root: &Path, work: &[(&Setup, &Variant)]) -> Result<()> {
    let mut missing = BTreeSet::new();
    for (s, _) in work {
        for argv in s.raw.iter().chain(&s.after) {
            let p = &argv[0];
            if !p.contains('/') && !on_path(p) && !env_has(root, s, p) {
                missing.insert(format!("{p} (for {})", s.name));
            }
        }
        if let Some(env) = &s.env {
            let dir = corpus::env_dir(root, env);
            let installed = if env.starts_with("py-") {
                dir.join("venv/bin/python").is_file()
            } else {
                dir.join("node_modules").is_dir()
            };
            if !installed {
                missing.insert(format!(
                    "the tool set {env} (for {}): run {}",
                    s.name,
                    corpus::env_setup(env)
                ));
            }
        }
    }
    if !missing.is_empty() {
        bail!(
            "missing: {}; scripts/setup/*.sh install them",
            missing.into_iter().collect::<Vec<_>>().join("; ")
        );
    }
    Ok(())
}

fn env_has(root: &Path, s: &Setup, program: &str) -> bool {
    s.env.as_ref().is_some_and(|env| {
        let dir = corpus::env_dir(root, env);
        dir.join("venv/bin").join(program).is_file()
            || dir.join("node_modules/.bin").join(program).is_file()
    })
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(program).is_file()))
}

/// One set-up's variant: both sides from fresh copies, then the comparison.
fn compare_one(
    root: &Path,
    pith: &Path,
    base: &Path,
    setup: &Setup,
    variant: &Variant,
    index: usize,
    public: bool,
) -> Result<Row> {
    let slug = format!("{index:03}-{}", setup.name.replace('/', "-"));
    // Both copies end in the same directory name: tools name things after it (Bazel's
    // `bazel-<dir>` link, a package's default name).
    let leaf = setup.name.rsplit('/').next().unwrap_or("project");
    let dirs = [
        base.join(&slug).join("raw").join(leaf),
        base.join(&slug).join("pith").join(leaf),
    ];
    for dir in &dirs {
        prepare(root, setup, variant, dir, public)?;
    }
    let env = environment(root, setup, &base.join(&slug));
    for dir in &dirs {
        for argv in &setup.before {
            let out = run_bounded(argv, dir, &env, Duration::from_secs(setup.timeout), true)?;
            if out.code != Some(0) {
                bail!(
                    "--prepare {argv:?} failed in {}:\n{}",
                    dir.display(),
                    tail(&out.text, 15)
                );
            }
        }
    }
    let deadline = Duration::from_secs(setup.timeout);

    // The raw side: each command in order, stopping at the first that fails.
    let mut text = String::new();
    let mut exit = Some(0);
    let mut raw_wall = Duration::ZERO;
    let mut timed_out = false;
    for argv in &setup.raw {
        let out = run_bounded(argv, &dirs[0], &env, deadline, true)?;
        raw_wall += out.wall;
        text.push_str(&out.text);
        exit = out.code;
        timed_out |= out.timed_out;
        if out.code != Some(0) {
            break;
        }
    }
    let observed = extract::observe(&setup.runners, &text, &dirs[0]);

    // pith's side: `pith test` as an agent types it, then every page of `pith failures`.
    let mut argv = vec![pith.display().to_string(), "test".into()];
    argv.extend(setup.pith_args.iter().cloned());
    // pith's own deadline is the harness's: the group is killed a minute later at the latest.
    argv.extend(["--timeout".into(), setup.timeout.to_string()]);
    let out = run_bounded(
        &argv,
        &dirs[1],
        &env,
        deadline + Duration::from_secs(60),
        false,
    )?;
    let answer = out.stdout.trim().to_string();
    let mut pith_side = read_answer(&answer, out.code, out.wall);
    if answer.is_empty() {
        let said = out
            .text
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        pith_side.status = format!("no answer: {}", said.chars().take(90).collect::<String>());
    }
    if pith_side.failed > 0 || !pith_side.ids.is_empty() {
        pith_side.ids = failing_ids(pith, &dirs[1], &env).unwrap_or(pith_side.ids);
    }

    for dir in &dirs {
        for argv in &setup.after {
            let _ = run_bounded(argv, dir, &env, Duration::from_secs(120), true);
        }
    }
    let raw_tree = tree(&dirs[0])?;
    pith_side.tree = tree(&dirs[1])?;
    let raw_side = RawSide {
        exit,
        observed,
        wall: raw_wall,
        tree: raw_tree,
        timed_out,
    };
    let mut diffs = differences(setup, &raw_side, &pith_side, variant.masked);
    if variant.masked
        && raw_side.observed.failed.unwrap_or(0) == 0
        && raw_side.observed.ids.is_empty()
    {
        diffs.push("masked: the raw run printed no failing test".to_string());
    }
    let broken = if public {
        None
    } else if raw_side.timed_out {
        Some("the raw run timed out".to_string())
    } else if (raw_side.exit == Some(0)) != variant.expect_green {
        Some(format!(
            "the raw run is {} (exit {}), the corpus expects {}: the set-up is broken here; raw output's tail:\n{}",
            if raw_side.exit == Some(0) { "green" } else { "red" },
            code(raw_side.exit),
            if variant.expect_green { "green" } else { "red" },
            tail(&text, 15)
        ))
    } else {
        None
    };
    if let Some(b) = &broken {
        eprintln!("parity:   BROKEN: {b}");
    }
    if !diffs.is_empty() && std::env::var_os("PARITY_VERBOSE").is_some() {
        eprintln!(
            "parity:   raw tail:\n{}\nparity:   pith: {}\n{}",
            tail(&text, 30),
            pith_side.answer,
            tail(&out.text, 10)
        );
    }
    Ok(Row {
        setup: setup.name.clone(),
        variant: variant.name.clone(),
        raw: raw_side,
        pith: pith_side,
        diffs,
        broken,
        known: Vec::new(),
        covered: false,
        listed: variant.known.is_some(),
        stale: false,
        own: variant.known.clone(),
    })
}

/// Attributes each difference to a known reason: the variant's own entry covers them all;
/// otherwise each needs a corpus-wide entry whose pattern it contains.
fn cover(row: &mut Row, known: &[corpus::KnownDiff]) {
    let mut rest = 0;
    for d in &row.diffs {
        match known.iter().find(|k| k.covers(&row.setup, d)) {
            Some(k) => {
                let reason = corpus::Known {
                    reason: k.reason.clone(),
                    follow_up: k.follow_up.clone(),
                };
                if !row.known.iter().any(|r| r.reason == reason.reason) {
                    row.known.push(reason);
                }
            }
            None => rest += 1,
        }
    }
    // The variant's own entry covers what the corpus-wide ones leave; with nothing left it
    // is stale (the lane's fix landed, or the entry was wrong).
    row.covered = rest == 0 || row.listed;
    row.stale = row.listed && rest == 0;
    if row.listed && rest > 0 {
        row.known.extend(row.own.clone());
    }
}

fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

fn code(c: Option<i32>) -> String {
    c.map_or("signal".into(), |c| c.to_string())
}

/// A fresh copy of the set-up with the variant's edits, committed to a new git repository (so
/// `git status` says what a run left), its tool set linked in (ignored by its .gitignore).
fn prepare(root: &Path, setup: &Setup, variant: &Variant, dir: &Path, public: bool) -> Result<()> {
    fs::create_dir_all(dir)?;
    copy_tree(&setup.dir, dir, (!public).then_some(corpus::MANIFEST))?;
    for e in &variant.edits {
        let path = dir.join(&e.file);
        let text = fs::read_to_string(&path).with_context(|| format!("{}", path.display()))?;
        if text.matches(&e.from).count() != 1 {
            bail!(
                "{} {}: {:?} does not occur exactly once in {}",
                setup.name,
                variant.name,
                e.from,
                e.file
            );
        }
        fs::write(&path, text.replacen(&e.from, &e.to, 1))?;
    }
    if !(public && dir.join(".git").exists()) {
        let git = |args: &[&str]| -> Result<()> {
            let out = Command::new("git")
                .args([
                    "-c",
                    "user.name=parity",
                    "-c",
                    "user.email=parity@localhost",
                    "-c",
                    "commit.gpgsign=false",
                    "-c",
                    "init.defaultBranch=main",
                ])
                .args(args)
                .current_dir(dir)
                .stdin(Stdio::null())
                .output()?;
            if !out.status.success() {
                bail!(
                    "git {args:?} in {}: {}",
                    dir.display(),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            Ok(())
        };
        git(&["init", "-q"])?;
        git(&["add", "-A"])?;
        git(&["commit", "-q", "-m", "set-up", "--allow-empty"])?;
    }
    if let Some(env) = &setup.env {
        if corpus::node_env(env) {
            let modules = corpus::env_dir(root, env).join("node_modules");
            std::os::unix::fs::symlink(&modules, dir.join("node_modules"))?;
        }
    }
    Ok(())
}

/// Copies a set-up or a checkout, links kept as links; `skip` is the set-up's manifest (the
/// harness's, not the project's), left out at the top.
fn copy_tree(from: &Path, to: &Path, skip: Option<&str>) -> Result<()> {
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if skip.is_some_and(|s| name == s) {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        let kind = entry.file_type()?;
        if kind.is_dir() {
            fs::create_dir_all(&dst)?;
            copy_tree(&src, &dst, None)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(&src)?, &dst)?;
        } else {
            fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}

/// The environment both sides run in: the caller's, less what `cargo run` set for the xtask,
/// the caller's own knobs (as the bench strips them) and every CI marker (a developer's shell:
/// CI-keyed behaviour is a set-up's subject, not an accident of where the harness runs); the
/// set-up's virtualenv active; pith's state in a directory of the run's own.
fn environment(root: &Path, setup: &Setup, scratch: &Path) -> Vec<(OsString, Option<OsString>)> {
    let mut env: Vec<(OsString, Option<OsString>)> = Vec::new();
    for (name, _) in std::env::vars_os() {
        let Some(n) = name.to_str() else { continue };
        if crate::bench::stripped(n) || ci_marker(n) || n.starts_with("PITH_") {
            env.push((name.clone(), None));
        }
    }
    if let Some(e) = setup.env.as_ref().filter(|e| e.starts_with("py-")) {
        let venv = root.join(corpus::ENVS).join(e).join("venv");
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![venv.join("bin")];
        dirs.extend(std::env::split_paths(&path));
        if let Ok(joined) = std::env::join_paths(dirs) {
            env.push(("PATH".into(), Some(joined)));
        }
        env.push(("VIRTUAL_ENV".into(), Some(venv.into_os_string())));
    }
    env.push((
        "PITH_CACHE_DIR".into(),
        Some(scratch.join("pith-cache").into_os_string()),
    ));
    // npm's update check asks the registry: no network a run depends on.
    env.push(("NPM_CONFIG_UPDATE_NOTIFIER".into(), Some("false".into())));
    env
}

fn ci_marker(name: &str) -> bool {
    matches!(
        name,
        "CI" | "CONTINUOUS_INTEGRATION"
            | "GITHUB_ACTIONS"
            | "GITLAB_CI"
            | "BUILDKITE"
            | "CIRCLECI"
            | "TRAVIS"
            | "TF_BUILD"
            | "JENKINS_URL"
            | "BUILD_NUMBER"
            | "RUN_ID"
    )
}

struct Output {
    code: Option<i32>,
    stdout: String,
    /// stdout then stderr.
    text: String,
    wall: Duration,
    timed_out: bool,
}

/// Runs argv (never a shell) in its own process group, output to files (no pipe to fill), the
/// group killed at the deadline and after the leader exits (nothing a run leaves running
/// outlives its row, except a daemon that left the group: Bazel's server, stopped by `after`).
/// `merged`: stderr into the same file as stdout, in the order written (a raw side, read as a
/// terminal shows it: cargo's `Running` lines on stderr name the binary of the results on
/// stdout); otherwise `stdout` is stdout alone (pith's answer).
fn run_bounded(
    argv: &[String],
    cwd: &Path,
    env: &[(OsString, Option<OsString>)],
    deadline: Duration,
    merged: bool,
) -> Result<Output> {
    let scratch = tempfile::tempdir()?;
    let (out_path, err_path) = (scratch.path().join("out"), scratch.path().join("err"));
    let out_file = fs::File::create(&out_path)?;
    let err_file = if merged {
        out_file.try_clone()?
    } else {
        fs::File::create(&err_path)?
    };
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..])
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(out_file)
        .stderr(err_file)
        .process_group(0);
    for (k, v) in env {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .with_context(|| format!("starting {:?} in {}", argv, cwd.display()))?;
    let pid = child.id();
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break s;
        }
        if start.elapsed() > deadline {
            timed_out = true;
            kill_group(pid);
            break child.wait()?;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let wall = start.elapsed();
    kill_group(pid);
    let stdout = String::from_utf8_lossy(&fs::read(&out_path)?).into_owned();
    let stderr = if merged {
        String::new()
    } else {
        String::from_utf8_lossy(&fs::read(&err_path)?).into_owned()
    };
    Ok(Output {
        code: status.code(),
        text: format!("{stdout}{stderr}"),
        stdout,
        wall,
        timed_out,
    })
}

fn kill_group(pid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// pith's answer line read for what the comparison needs.
fn read_answer(answer: &str, exit: Option<i32>, wall: Duration) -> PithSide {
    let v: Value = serde_json::from_str(answer).unwrap_or(Value::Null);
    let n = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    let mut ids = BTreeSet::new();
    for f in v
        .get("failures")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(t) = f.get("test").and_then(Value::as_str) {
            ids.insert(t.to_string());
        }
        for o in f
            .get("others")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(t) = o.as_str() {
                ids.insert(t.to_string());
            }
        }
    }
    for c in v
        .get("clusters")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for t in c
            .get("tests")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(t) = t.as_str() {
                ids.insert(t.to_string());
            }
        }
    }
    PithSide {
        exit,
        status: v
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or(if answer.is_empty() {
                "no answer"
            } else {
                "unreadable"
            })
            .to_string(),
        passed: n("passed"),
        failed: n("failed") + n("errors"),
        skipped: n("skipped"),
        written: n("snapshotsWritten"),
        ids,
        wall,
        tree: BTreeSet::new(),
        answer: answer.to_string(),
    }
}

/// Every failing id of pith's last run, from `pith failures`' pages (the answer itself shows
/// only some in full).
fn failing_ids(
    pith: &Path,
    dir: &Path,
    env: &[(OsString, Option<OsString>)],
) -> Option<BTreeSet<String>> {
    let mut ids = BTreeSet::new();
    let mut page = 1u64;
    loop {
        let argv = vec![
            pith.display().to_string(),
            "failures".into(),
            "--page".into(),
            page.to_string(),
        ];
        let out = run_bounded(&argv, dir, env, Duration::from_secs(60), false).ok()?;
        if out.code != Some(0) {
            return None;
        }
        let v: Value = serde_json::from_str(out.stdout.trim()).ok()?;
        for f in v
            .get("failures")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(t) = f.get("test").and_then(Value::as_str) {
                ids.insert(t.to_string());
            }
        }
        match v.get("nextPage").and_then(Value::as_u64) {
            Some(next) if next > page && page < 100 => page = next,
            _ => return Some(ids),
        }
    }
}

/// `git status --ignored --porcelain` of a copy: each changed, untracked or ignored entry.
fn tree(dir: &Path) -> Result<BTreeSet<String>> {
    let out = Command::new("git")
        .args(["status", "--ignored", "--porcelain"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .context("git status")?;
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect())
}

/// Every way pith's side differs from the raw one: verdict, counts the runner printed (all of
/// them unless the runner stopped early), failing ids as each runner names them (a subset when
/// it stopped early), and the tree.
fn differences(setup: &Setup, raw: &RawSide, pith: &PithSide, masked: bool) -> Vec<String> {
    let mut diffs = Vec::new();
    // A masked command exits 0 over failing tests: the verdict is the tests' own.
    let raw_green = raw.exit == Some(0) && !masked;
    if masked && !pith.answer.contains("\"masked\"") {
        diffs.push("masked: the answer does not say the command itself exits 0".to_string());
    }
    match pith.exit {
        Some(0) if !raw_green => diffs.push(format!(
            "verdict: raw red (exit {}), pith green ({})",
            code(raw.exit),
            pith.status
        )),
        Some(1) if raw_green => {
            diffs.push(format!("verdict: raw green, pith red ({})", pith.status))
        }
        Some(0 | 1) => {}
        other => diffs.push(format!(
            "verdict: raw {} (exit {}), pith could not answer (exit {}, {})",
            if raw_green { "green" } else { "red" },
            code(raw.exit),
            code(other),
            pith.status
        )),
    }
    let o = &raw.observed;
    if !o.stopped_early {
        for (what, raw_n, pith_n) in [
            ("passed", o.passed, pith.passed),
            ("failed", o.failed, pith.failed),
            ("skipped", o.skipped, pith.skipped),
            ("snapshots written", o.written, pith.written),
        ] {
            if let Some(r) = raw_n {
                if r != pith_n {
                    diffs.push(format!("{what}: raw {r}, pith {pith_n}"));
                }
            }
        }
    }
    let norm = |id: &str| -> String {
        if setup.runners.iter().any(|r| r == "bazel") {
            extract::bazel_id(id)
        } else if setup.runners.iter().any(|r| r == "maven" || r == "gradle") {
            extract::jvm_id(id)
        } else if setup.runners.iter().any(|r| r == "cargo" || r == "nextest") {
            cargo_pith_id(id)
        } else if setup.runners.iter().any(|r| r == "ctest") {
            extract::gtest_param_id(id)
        } else {
            id.to_string()
        }
    };
    let mut raw_ids: BTreeSet<String> = o.ids.iter().map(|i| norm(i)).collect();
    let mut pith_ids: BTreeSet<String> = pith.ids.iter().map(|i| norm(i)).collect();
    if setup.runners.iter().any(|r| r == "go") {
        raw_ids = extract::go_leaves(&raw_ids);
        pith_ids = extract::go_leaves(&pith_ids);
    }
    let missing: Vec<&String> = raw_ids
        .iter()
        .filter(|r| !pith_ids.iter().any(|p| same_id(r, p)))
        .collect();
    let extra: Vec<&String> = pith_ids
        .iter()
        .filter(|p| !raw_ids.iter().any(|r| same_id(r, p)))
        .collect();
    if !missing.is_empty() {
        diffs.push(format!("failing ids pith lacks: {}", list(&missing)));
    }
    if !extra.is_empty() && !o.stopped_early {
        diffs.push(format!("failing ids only pith names: {}", list(&extra)));
    }
    let only_pith: Vec<&String> = pith.tree.difference(&raw.tree).collect();
    let only_raw: Vec<&String> = raw.tree.difference(&pith.tree).collect();
    if !only_pith.is_empty() {
        diffs.push(format!("tree: pith left {}", list(&only_pith)));
    }
    if !only_raw.is_empty() {
        diffs.push(format!(
            "tree: pith lacks what raw left: {}",
            list(&only_raw)
        ));
    }
    diffs
}

/// Ids name the same test: equal, or one is the other under a directory or package prefix (a
/// runner prints names relative to its package, Surefire simple class names).
fn same_id(raw: &str, pith: &str) -> bool {
    if raw == pith {
        return true;
    }
    let (long, short) = if pith.len() > raw.len() {
        (pith, raw)
    } else {
        (raw, pith)
    };
    long.ends_with(short)
        && matches!(
            long.as_bytes()[long.len() - short.len() - 1],
            b'/' | b'.' | b' ' | b':'
        )
}

/// pith's cargo id (`package tests::x`, `package::binary tests::x`, `package::bin/name x`) as
/// the raw reader names it: the test binary's crate name, the test's path.
fn cargo_pith_id(id: &str) -> String {
    let Some((binary, path)) = id.split_once(' ') else {
        return id.to_string();
    };
    let binary = binary.rsplit("::").next().unwrap_or(binary);
    let binary = binary.rsplit('/').next().unwrap_or(binary);
    extract::cargo_id(binary, path)
}

fn list(items: &[&String]) -> String {
    const SHOWN: usize = 4;
    let mut s = items
        .iter()
        .take(SHOWN)
        .map(|i| format!("`{i}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > SHOWN {
        s.push_str(&format!(" and {} more", items.len() - SHOWN));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(runners: &[&str]) -> Setup {
        corpus::parse(
            "x/y",
            Path::new("/x"),
            &format!(
                r#"{{"about":"a","raw":[["a"]],"runners":{},"variants":{{"g":{{"expect":"green"}}}}}}"#,
                serde_json::to_string(runners).unwrap()
            ),
        )
        .unwrap()
    }

    fn raw(exit: i32, o: Observed) -> RawSide {
        RawSide {
            exit: Some(exit),
            observed: o,
            wall: Duration::ZERO,
            tree: BTreeSet::new(),
            timed_out: false,
        }
    }

    fn pith(exit: i32, answer: &str) -> PithSide {
        read_answer(answer, Some(exit), Duration::ZERO)
    }

    #[test]
    fn a_false_green_a_false_red_and_exit_2_disagree() {
        let s = setup(&["jest"]);
        let d = differences(
            &s,
            &raw(1, Observed::default()),
            &pith(0, r#"{"status":"TestsPassed","passed":2}"#),
            false,
        );
        assert!(d[0].starts_with("verdict: raw red"), "{d:?}");
        let d = differences(
            &s,
            &raw(0, Observed::default()),
            &pith(
                1,
                r#"{"status":"TestsFailed","failed":1,"failures":[{"test":"a > b"}]}"#,
            ),
            false,
        );
        assert!(
            d.iter().any(|x| x.starts_with("verdict: raw green")),
            "{d:?}"
        );
        assert!(
            d.iter().any(|x| x.contains("only pith names: `a > b`")),
            "{d:?}"
        );
        let d = differences(
            &s,
            &raw(1, Observed::default()),
            &pith(2, r#"{"status":"NoTestsRan"}"#),
            false,
        );
        assert!(d[0].contains("could not answer"), "{d:?}");
        // A masked command: exit 0 over failures is red, and the answer must say `masked`.
        let d = differences(
            &s,
            &raw(0, Observed::default()),
            &pith(1, r#"{"status":"TestsFailed","failed":1}"#),
            true,
        );
        assert_eq!(
            d,
            ["masked: the answer does not say the command itself exits 0"]
        );
        let d = differences(
            &s,
            &raw(0, Observed::default()),
            &pith(
                1,
                r#"{"status":"TestsFailed","failed":1,"masked":"|| true"}"#,
            ),
            true,
        );
        assert!(d.is_empty(), "{d:?}");
    }

    #[test]
    fn counts_ids_and_trees_compare_unless_the_runner_stopped_early() {
        let s = setup(&["cargo"]);
        let mut o = Observed {
            passed: Some(1),
            failed: Some(1),
            ..Observed::default()
        };
        o.ids.insert("my_lib tests::bad".into());
        let answer = r#"{"status":"TestsFailed","passed":3,"failed":2,"failures":[{"test":"my-lib tests::bad"},{"test":"my-lib::api other"}]}"#;
        let d = differences(&s, &raw(101, o.clone()), &pith(1, answer), false);
        assert!(d.contains(&"passed: raw 1, pith 3".to_string()), "{d:?}");
        assert!(
            d.iter().any(|x| x.contains("only pith names: `api other`")),
            "{d:?}"
        );
        o.stopped_early = true;
        assert!(differences(&s, &raw(101, o.clone()), &pith(1, answer), false).is_empty());
        let mut p = pith(1, answer);
        p.tree.insert("?? .pith/".into());
        let d = differences(&s, &raw(101, o), &p, false);
        assert_eq!(d, ["tree: pith left `?? .pith/`"]);
    }

    #[test]
    fn ids_match_under_a_prefix_only_at_a_boundary() {
        assert!(same_id("CalcTest#adds", "demo.CalcTest#adds"));
        assert!(same_id(
            "tests/a.test.js > x",
            "packages/a/tests/a.test.js > x"
        ));
        assert!(!same_id("CalcTest#adds", "demo.XCalcTest#adds"));
        assert_eq!(
            cargo_pith_id("b::api public_api_fails"),
            "api public_api_fails"
        );
        assert_eq!(
            cargo_pith_id("my-app::bin/my-app tests::x"),
            "my_app tests::x"
        );
        let s = setup(&["go"]);
        let mut o = Observed::default();
        for id in ["m.TestA", "m.TestA/sub"] {
            o.ids.insert(id.into());
        }
        let d = differences(
            &s,
            &raw(1, o),
            &pith(
                1,
                r#"{"status":"TestsFailed","failed":1,"failures":[{"test":"m.TestA/sub"}]}"#,
            ),
            false,
        );
        assert!(d.is_empty(), "{d:?}");
    }

    #[test]
    fn a_runner_is_guessed_from_the_command_and_the_scripts() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(
            tmp.path().join("package.json"),
            r#"{"scripts":{"test":"tsc && vitest run"}}"#,
        )
        .unwrap();
        let argv = |s: &str| corpus::split_words(s).unwrap();
        assert_eq!(guess_runners(tmp.path(), &[argv("npm test")]), ["vitest"]);
        assert_eq!(guess_runners(tmp.path(), &[argv("mvn -B test")]), ["maven"]);
        assert_eq!(
            guess_runners(
                tmp.path(),
                &[argv("cmake --build b"), argv("ctest --test-dir b")]
            ),
            ["ctest"]
        );
    }

    #[test]
    fn a_bounded_run_is_killed_at_its_deadline_with_its_group() {
        let tmp = tempfile::tempdir().unwrap();
        let argv: Vec<String> = ["sh", "-c", "sleep 30 & echo started; wait"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let out = run_bounded(&argv, tmp.path(), &[], Duration::from_millis(300), true).unwrap();
        assert!(out.timed_out);
        assert!(out.wall < Duration::from_secs(10));
        assert_eq!(out.stdout, "started\n");
    }
}
