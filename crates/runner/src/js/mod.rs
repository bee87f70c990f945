//! JavaScript: jest, vitest and node's built-in test runner, each the project's own (jest and
//! vitest from its `node_modules/.bin`, `node` from PATH), chosen from `package.json`, run with
//! the options of its `test` script (see `package`).
//!
//! jest and vitest write their `--json` reports to the scratch directory; pith's reporter for
//! each (embedded here, written to pith's cache under a content-hash path, loaded by absolute
//! path so no project file can stand in for it) streams starts and results as JSON lines beside
//! it, so a run killed at the deadline or dying in band still tells what finished and what was
//! running. node's test runner is read through pith's own reporter alone, with an exit hook in
//! each test process telling which files ended through `process.exit()`. Nothing is written
//! into the project: jest runs with `--ci` and vitest with `--update=none` (or `CI=1` before
//! vitest 4), so missing snapshots fail instead of being written, and coverage reports go to
//! the scratch directory.
//!
//! The tests see the caller's environment: pith adds no variable (its reporters find their
//! record files from the report paths pith gives the runner) and removes only the runner's own
//! markers of a parent run (`NODE_TEST_CONTEXT`, `JEST_WORKER_ID`, `VITEST_*`), which would
//! make the runner report to a parent that is not there. Colour is switched off through
//! vitest's `--no-color` (jest and node colour only a terminal) and stripped from all pith reads.
//!
//! The verdict takes the runner's exit code and its own totals as evidence (see `verdict` and
//! `judge`): a run whose report was never written, whose totals count more tests than it
//! reported, or whose files ended through `process.exit()` is not green.
//!
//! Test ids are `<file> > <describe> > ... > <test>` (vitest's own separator), the file
//! workspace-relative; a file alone names all its tests. Tests that share a name are each
//! counted, and an id names all of them. Re-runs give the runner the files (absolute paths,
//! after `--` where the runner has it) and a full-name pattern (jest `-t`, vitest `-t`, node
//! `--test-name-pattern`), every character of the names escaped, then keep only the tests asked
//! for: the patterns can match more (jest's is case-insensitive, node 20's matches each level's
//! own name). An id that starts with `-` is never passed on: it names no test.
//!
//! Killed at the deadline: jest reports each test as it starts, so the running test is named;
//! vitest batches its test events in the worker, so a test stuck in synchronous code is named by
//! its file; node's child processes send nothing while blocked, so the same holds for node.

pub(crate) mod events;
pub(crate) mod node;
mod package;
mod read;
pub(crate) mod report;
mod stack;
mod verdict;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use pith_model::{Exit, ExitMeaning, Failure, Phase, Run, Status};

use crate::process::{self, Captured, End};
use crate::verdict::{self as scaffold, Ending};
use crate::{Adapter, Context, PathMap, RunnerError};

pub use package::Runner;
pub use report::sniff;

use report::{CaseStatus, Flavour, Suite};

const JEST_REPORTER: &str = include_str!("pith_jest_reporter.cjs");
const VITEST_REPORTER: &str = include_str!("pith_vitest_reporter.mjs");
const NODE_REPORTER: &str = include_str!("pith_node_reporter.mjs");
const NODE_EXIT_HOOK: &str = include_str!("pith_node_exit.cjs");
/// Separates a test id's file and names.
pub const SEP: &str = " > ";
/// Extensions of the files a test id can start with.
const EXTENSIONS: &[&str] = &[".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"];

/// Variables a runner sets for the processes it starts: inherited from a caller that is itself
/// a test (a pith run inside a node test, a jest worker), they would make the runner act as a
/// child reporting to a parent that is not there.
const RUNNER_ENV: &[&str] = &[
    "NODE_TEST_CONTEXT",
    "JEST_WORKER_ID",
    "VITEST",
    "VITEST_MODE",
    "VITEST_POOL_ID",
    "VITEST_WORKER_ID",
];

/// A JavaScript project's runner.
#[derive(Debug, Clone)]
pub struct Js {
    runner: Runner,
    dir: PathBuf,
    script: package::Script,
}

/// The adapters this ecosystem contributes for the project in `dir`: at most one, the runner its
/// `package.json` names.
pub fn detect(dir: &Path) -> Vec<Box<dyn Adapter>> {
    match package::read(dir) {
        Some((runner, script)) => vec![Box::new(Js {
            runner,
            dir: dir.to_path_buf(),
            script,
        })],
        None => Vec::new(),
    }
}

impl Js {
    /// An adapter for `runner` in `dir`, as if the `test` script said nothing more.
    pub fn new(runner: Runner, dir: &Path) -> Self {
        Js {
            runner,
            dir: dir.to_path_buf(),
            script: package::Script::default(),
        }
    }
}

/// A test id: `file > names...`.
pub fn test_id(file: &str, names: &[String]) -> String {
    let mut id = file.to_owned();
    for n in names {
        id.push_str(SEP);
        id.push_str(n);
    }
    id
}

/// The file part of an id.
fn id_file(id: &str) -> &str {
    id.split_once(SEP).map_or(id, |(f, _)| f)
}

/// Whether `id` is a JavaScript test id: a script file, then optional names.
pub fn is_test_id(id: &str) -> bool {
    let file = id_file(id);
    !file.contains("::")
        && !file.starts_with('-')
        && EXTENSIONS
            .iter()
            .any(|e| file.len() > e.len() && file.ends_with(e))
}

/// Where one run's files are.
struct Files {
    reporter: PathBuf,
    /// The runner's own JSON report (jest, vitest).
    json: PathBuf,
    /// pith's reporter's records: beside the JSON report, where the reporters look for them.
    events: PathBuf,
    /// node: the exit hook, and where it records files that ended through `process.exit()`.
    exit_hook: PathBuf,
    exits: PathBuf,
    coverage: PathBuf,
}

impl Adapter for Js {
    fn name(&self) -> &'static str {
        self.runner.name()
    }

    fn claims(&self, id: &str) -> bool {
        is_test_id(id)
    }

    fn run(&self, ctx: &Context<'_>, tests: &[String]) -> Result<Run, RunnerError> {
        let program = match self.program() {
            Ok(p) => p,
            Err(hint) => return Ok(missing(self.runner, hint)),
        };
        let (sel, not_found) = match tests {
            [] => (None, Vec::new()),
            ids => {
                let (sel, gone) = Selection::of(ids, ctx.root);
                (Some(sel), gone)
            }
        };
        if sel.as_ref().is_some_and(|s| s.files.is_empty()) {
            return Ok(Run {
                not_found,
                ..Run::new(self.name())
            });
        }
        let (file, content) = match self.runner {
            Runner::Jest => ("pith_jest_reporter.cjs", JEST_REPORTER),
            Runner::Vitest => ("pith_vitest_reporter.mjs", VITEST_REPORTER),
            Runner::Node => ("pith_node_reporter.mjs", NODE_REPORTER),
        };
        let json = ctx.scratch.join(format!("{}.json", self.name()));
        let files = Files {
            reporter: crate::install_embedded(ctx.cache, "js", file, content)?,
            events: ctx.scratch.join(format!("{}.events.jsonl", self.name())),
            json,
            exit_hook: ctx.scratch.join("pith_node_exit.cjs"),
            exits: ctx.scratch.join("node-exits.jsonl"),
            coverage: ctx.scratch.join("coverage"),
        };
        for f in [&files.events, &files.json, &files.exits] {
            let _ = std::fs::remove_file(f);
        }
        if self.runner == Runner::Node {
            // The hook carries the path it records to: nothing in the tests' environment.
            let dest = serde_json::to_string(&files.exits.to_string_lossy())
                .unwrap_or_else(|_| "\"\"".to_owned());
            let hook = NODE_EXIT_HOOK.replace("\"__PITH_EXITS__\"", &dest);
            std::fs::write(&files.exit_hook, hook).map_err(|e| {
                RunnerError::io(format!("writing {}", files.exit_hook.display()), e)
            })?;
        }
        let cmd = self.command(ctx, &program, &files, sel.as_ref());
        let captured = match process::run(cmd, ctx.deadline, ctx.cancel) {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(missing(
                    self.runner,
                    format!("{} could not be started: {e}", program.display()),
                ))
            }
            Err(source) => {
                return Err(RunnerError::Spawn {
                    program: program.display().to_string(),
                    source,
                })
            }
        };
        let outcome = match self.runner {
            Runner::Node => node_outcome(&files),
            Runner::Jest | Runner::Vitest => {
                let flavour = if self.runner == Runner::Jest {
                    Flavour::Jest
                } else {
                    Flavour::Vitest
                };
                outcome(flavour, &files)
            }
        };
        let mut run = self.judge(ctx, outcome, &captured, sel.as_ref());
        let unhonoured = self.script.unhonoured();
        if !unhonoured.is_empty() {
            let why = format!(
                "pith could not honour {} from the test script",
                unhonoured.join(", ")
            );
            run.reason = Some(match run.reason.take() {
                Some(r) => format!("{r}; {why}"),
                None => why,
            });
        }
        let mut all = not_found;
        all.append(&mut run.not_found);
        run.not_found = all;
        run.duration = captured.elapsed;
        Ok(run)
    }
}

fn missing(runner: Runner, hint: String) -> Run {
    scaffold::runner_missing(runner.name(), hint)
}

impl Js {
    /// The runner's program: jest and vitest from the project's `node_modules/.bin` (or one
    /// above it, where a monorepo hoists them), `node` from PATH. The error is the install hint.
    fn program(&self) -> Result<PathBuf, String> {
        let node = crate::on_path("node");
        if node.is_none() {
            return Err("node is not installed: install Node.js (https://nodejs.org)".to_owned());
        }
        let name = match self.runner {
            Runner::Node => return Ok(node.expect("checked above")),
            Runner::Jest => "jest",
            Runner::Vitest => "vitest",
        };
        self.dir
            .ancestors()
            .map(|d| d.join("node_modules").join(".bin").join(name))
            .find(|p| crate::is_executable(p))
            .ok_or_else(|| {
                format!(
                    "{name} is not installed in node_modules: run {}",
                    install_command(&self.dir)
                )
            })
    }

    /// The installed vitest's major version, from its `package.json`.
    fn vitest_major(program: &Path) -> Option<u32> {
        let pkg = program
            .parent()?
            .parent()?
            .join("vitest")
            .join("package.json");
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(pkg).ok()?).ok()?;
        v.get("version")?.as_str()?.split('.').next()?.parse().ok()
    }

    fn command(
        &self,
        ctx: &Context<'_>,
        program: &Path,
        files: &Files,
        sel: Option<&Selection>,
    ) -> Command {
        // `node --expose-gc node_modules/.bin/jest`: node with those options runs the runner.
        let mut cmd = match (self.runner, self.script.node.is_empty()) {
            (Runner::Jest | Runner::Vitest, false) => {
                let node = crate::on_path("node").unwrap_or_else(|| PathBuf::from("node"));
                let mut c = crate::base_command(node, &self.dir);
                c.args(&self.script.node).arg(program);
                c
            }
            _ => crate::base_command(program, &self.dir),
        };
        for var in RUNNER_ENV {
            cmd.env_remove(var);
        }
        let full = sel.is_none();
        let targets: Vec<String> = sel
            .map(|s| {
                s.files
                    .iter()
                    .map(|f| ctx.root.join(f).to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        match self.runner {
            Runner::Jest => {
                cmd.args(self.script.args(full))
                    .args(["--ci", "--json", "--testLocationInResults", "--no-watchman"])
                    .arg(format!("--outputFile={}", files.json.display()))
                    .arg(format!("--coverageDirectory={}", files.coverage.display()));
                let reporter = format!("--reporters={}", files.reporter.display());
                if self.script.has_reporters() {
                    cmd.arg(reporter);
                } else if !package::config_has_reporters(&self.dir, &self.script) {
                    // jest's `--reporters` replaces the configuration's: where the project
                    // configures its own, they run as configured and pith reads the JSON alone.
                    cmd.arg("--reporters=default").arg(reporter);
                }
                if let Some(sel) = sel {
                    // A re-run of some tests is not judged by whole-suite coverage thresholds.
                    cmd.arg("--coverage=false");
                    if let Some(p) = sel.full_name_pattern() {
                        cmd.arg(format!("--testNamePattern={p}"));
                    }
                    cmd.arg("--runTestsByPath").arg("--").args(&targets);
                }
            }
            Runner::Vitest => {
                cmd.arg("run")
                    .args(self.script.args(full))
                    .arg("--reporter=json")
                    .arg(format!("--outputFile.json={}", files.json.display()))
                    .arg(format!("--reporter={}", files.reporter.display()))
                    .args(["--includeTaskLocation", "--no-cache", "--no-color"])
                    .arg(format!(
                        "--coverage.reportsDirectory={}",
                        files.coverage.display()
                    ));
                if Self::vitest_major(program).is_some_and(|m| m >= 4) {
                    cmd.arg("--update=none");
                } else {
                    // Before vitest 4 only CI mode keeps new snapshots from being written.
                    cmd.env("CI", "1");
                }
                if let Some(sel) = sel {
                    cmd.arg("--coverage.enabled=false");
                    if let Some(p) = sel.full_name_pattern() {
                        cmd.arg(format!("--testNamePattern={p}"));
                    }
                    // Absolute paths: never read as options.
                    cmd.args(&targets);
                }
            }
            Runner::Node => {
                let words = self.script.options(full);
                let paths = self.script.paths();
                cmd.args(&words);
                cmd.arg("--require").arg(&files.exit_hook);
                cmd.arg("--test")
                    .arg(format!("--test-reporter={}", files.reporter.display()))
                    .arg(format!(
                        "--test-reporter-destination={}",
                        files.events.display()
                    ));
                match sel {
                    Some(sel) => {
                        if let Some(p) = sel.node_pattern() {
                            cmd.arg(format!("--test-name-pattern={p}"));
                        }
                        cmd.args(&targets);
                    }
                    None => {
                        cmd.args(&paths);
                    }
                }
            }
        }
        for (k, v) in &self.script.env {
            cmd.env(k, v);
        }
        cmd
    }
}

/// How the project installs its packages, from its lockfile.
fn install_command(dir: &Path) -> &'static str {
    let has = |f: &str| dir.ancestors().any(|d| d.join(f).is_file());
    if has("pnpm-lock.yaml") {
        "pnpm install"
    } else if has("yarn.lock") {
        "yarn install"
    } else if has("bun.lockb") || has("bun.lock") {
        "bun install"
    } else {
        "npm install"
    }
}

/// Requested ids, split for the runner.
#[derive(Debug, Clone, Default)]
struct Selection {
    /// Every requested id, normalized.
    ids: Vec<String>,
    /// Their files, workspace-relative, each once.
    files: Vec<String>,
    /// Files asked for whole.
    whole: Vec<String>,
    /// The names of each id that names a test.
    names: Vec<Vec<String>>,
}

impl Selection {
    /// The selection, and the ids whose file is not in the workspace.
    fn of(ids: &[String], root: &Path) -> (Selection, Vec<String>) {
        let mut sel = Selection::default();
        let mut gone = Vec::new();
        for raw in ids {
            let id = raw.trim().trim_start_matches("./").to_owned();
            let file = id_file(&id).to_owned();
            // An id is never an option, whatever file it might also name.
            if file.starts_with('-') || !root.join(&file).is_file() {
                gone.push(raw.clone());
                continue;
            }
            if sel.ids.contains(&id) {
                continue;
            }
            match id.split_once(SEP) {
                None => sel.whole.push(file.clone()),
                Some((_, rest)) => sel.names.push(rest.split(SEP).map(str::to_owned).collect()),
            }
            if !sel.files.contains(&file) {
                sel.files.push(file);
            }
            sel.ids.push(id);
        }
        (sel, gone)
    }

    fn wants(&self, id: &str, file: &str) -> bool {
        self.whole.iter().any(|w| w == file) || self.ids.iter().any(|i| i == id)
    }

    /// jest's and vitest's `-t`: the full names (levels joined by a space); a level whose title
    /// holds ` > ` was split, so either joint matches. None when a whole file is asked for.
    fn full_name_pattern(&self) -> Option<String> {
        if !self.whole.is_empty() || self.names.is_empty() {
            return None;
        }
        let alts: Vec<String> = self
            .names
            .iter()
            .map(|n| {
                n.iter()
                    .map(|x| escape(x))
                    .collect::<Vec<_>>()
                    .join("(?: | > )")
            })
            .collect();
        Some(format!("^(?:{})$", alts.join("|")))
    }

    /// node's `--test-name-pattern`: node 20 matches each level's own name (a suite or parent
    /// test must match for its children to run), later nodes the full name; both are in.
    fn node_pattern(&self) -> Option<String> {
        if !self.whole.is_empty() || self.names.is_empty() {
            return None;
        }
        let mut alts: Vec<String> = Vec::new();
        for n in &self.names {
            for part in n.iter().map(|x| escape(x)).chain([n
                .iter()
                .map(|x| escape(x))
                .collect::<Vec<_>>()
                .join(" ")])
            {
                if !alts.contains(&part) {
                    alts.push(part);
                }
            }
        }
        Some(format!("^(?:{})$", alts.join("|")))
    }
}

/// A string as a literal in a JavaScript regular expression.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\^$.*+?()[]{}|/".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Everything read after a run, before judging it.
#[derive(Debug, Default)]
struct Outcome {
    suites: Vec<Suite>,
    /// Some result was read: the runner got as far as running tests.
    report: bool,
    /// `(file, names)`, names empty for a whole file.
    running: Vec<(String, Vec<String>)>,
    /// Files whose test process died, with why, the signal, and the tests running in them.
    crashed: Vec<Crash>,
    /// Errors outside any test (vitest).
    unhandled: Vec<events::Unhandled>,
    snapshot_failure: bool,
    /// Output the runner gave pith's reporter rather than its own streams (node's files' stderr).
    more_output: String,
    /// What the files that did not load printed, when the runner kept it apart (node).
    load_output: String,
    /// The runner wrote its own JSON report (jest, vitest).
    json: bool,
    /// pith's reporter recorded the end of the run.
    ended: bool,
    /// What the runner's JSON report says of the whole run.
    totals: report::Totals,
    /// Records pith's reporter could not write (how many, the first error), or could not be
    /// read back (too long).
    faults: Option<(u64, String)>,
    /// vitest's word for how the run ended (`interrupted` when it stopped early).
    end_reason: Option<String>,
    /// node: its summary, and how many results it counts that pith received.
    node: Option<(node::Summary, u32)>,
    /// node: files whose process ended through `process.exit(0)`, with how many of their
    /// tests node reported and how many started without a result.
    exited: Vec<(String, usize, usize)>,
    /// node: what it said outside any test (asynchronous activity after a test, thresholds).
    diagnostics: Vec<String>,
}

#[derive(Debug, Clone)]
struct Crash {
    file: String,
    why: String,
    signal: Option<String>,
    tests: Vec<Vec<String>>,
    /// Frames of the native stack dump are trustworthy (node runs the file untransformed).
    output: Option<String>,
}

/// jest's words when a worker process died under a test file.
fn worker_death(error: &str) -> Option<(String, Option<String>)> {
    let clean = crate::text::strip_ansi(error);
    let line = clean.lines().map(str::trim).find(|l| {
        l.starts_with("A jest worker process")
            || l.starts_with("Call retries were exceeded")
            || l.contains("child process exceptions, exceeding retry limit")
    })?;
    let signal = line
        .split_once("signal=")
        .map(|(_, s)| {
            s.split(|c: char| c == ',' || c.is_whitespace())
                .next()
                .unwrap_or("")
        })
        .filter(|s| s.starts_with("SIG"))
        .map(str::to_owned);
    let why = match line.split_once(" Operating system logs") {
        Some((head, _)) => head.to_owned(),
        None => line.to_owned(),
    };
    Some((why, signal))
}

/// vitest's words when a worker died (an unhandled error, not a test's).
fn vitest_worker_death(text: &str) -> bool {
    [
        "[vitest-pool]",
        "Worker exited unexpectedly",
        "Worker terminated",
        "Channel closed",
        "Worker forks emitted error",
    ]
    .iter()
    .any(|w| text.contains(w))
}

/// jest or vitest: the JSON report when the runner wrote one, else the streamed records; the
/// records also tell what was running.
fn outcome(flavour: Flavour, files: &Files) -> Outcome {
    let mut ev = events::Events::default();
    let too_long = read::each_line(&files.events, |l| ev.line(l, flavour));
    let json = read::json_capped(&files.json);
    let mut out = from_records(flavour, json.as_deref(), ev);
    if too_long > 0 && out.faults.is_none() {
        out.faults = Some((too_long, "a record was too long to read".to_owned()));
    }
    out
}

/// [`outcome`] from the JSON report's text and the records already read.
fn from_records(flavour: Flavour, json: Option<&str>, ev: events::Events) -> Outcome {
    let mut out = Outcome {
        ended: ev.ended,
        faults: ev.faults.clone(),
        end_reason: ev.end_reason.clone(),
        ..Outcome::default()
    };
    match json.map(|j| report::parse_json(j, flavour)) {
        Some(Ok(r)) => {
            out.suites = r.suites;
            out.snapshot_failure = r.snapshot_failure;
            out.totals = r.totals;
            out.report = true;
            out.json = true;
            // vitest's report drops the error types of files that failed to load; its
            // records keep them.
            for s in &mut out.suites {
                if let (Some(_), Some(e)) = (
                    &s.error,
                    ev.suites
                        .iter()
                        .find(|x| x.file == s.file)
                        .and_then(|x| x.error.clone()),
                ) {
                    s.error = Some(e);
                }
            }
        }
        _ => {
            out.suites = ev.suites.clone();
            out.report = ev.any;
        }
    }
    for s in &mut out.suites {
        if let Some((why, signal)) = s.error.as_deref().and_then(worker_death) {
            s.error = None;
            out.crashed.push(Crash {
                file: s.file.clone(),
                why,
                signal,
                tests: ev.unfinished(&s.file),
                output: None,
            });
        }
    }
    let (deaths, others): (Vec<_>, Vec<_>) = ev
        .unhandled
        .iter()
        .cloned()
        .partition(|u| vitest_worker_death(&u.text));
    if let Some(d) = deaths.first() {
        // The files the dead worker was running: started without ending, or with tests that
        // never finished.
        let why = match stack::split_kind(&crate::text::first_line(&d.text)) {
            (Some("Error"), rest) => rest.to_owned(),
            (_, _) => crate::text::first_line(&d.text),
        };
        let mut files: Vec<String> = ev
            .running()
            .into_iter()
            .map(|(f, _)| f)
            .chain(
                out.suites
                    .iter()
                    .filter(|s| s.cases.iter().any(|c| c.status == CaseStatus::Pending))
                    .map(|s| s.file.clone()),
            )
            .collect();
        files.dedup();
        for file in files {
            if !out.crashed.iter().any(|c| c.file == file) {
                out.crashed.push(Crash {
                    tests: ev.unfinished(&file),
                    file,
                    why: why.clone(),
                    signal: None,
                    output: None,
                });
            }
        }
    }
    out.unhandled = others;
    out.running = ev.running();
    out
}

fn node_outcome(files: &Files) -> Outcome {
    let mut p = node::Parser::default();
    let too_long = read::each_line(&files.events, |l| p.line(l));
    let mut exits: Vec<(String, i64)> = Vec::new();
    read::each_line(&files.exits, |l| exits.extend(node::exit_record(l)));
    node_from_records(p.ev, &exits, too_long)
}

/// [`node_outcome`] from the records read: the reporter's, the exit hook's (file, exit code),
/// and how many lines were too long to read.
fn node_from_records(ev: node::NodeEvents, exits: &[(String, i64)], too_long: u64) -> Outcome {
    let mut exited: Vec<(String, usize, usize)> = Vec::new();
    for (file, code) in exits {
        if *code == 0 && !exited.iter().any(|(f, _, _)| f == file) {
            let reported = ev
                .suites
                .iter()
                .find(|s| s.file == *file)
                .map_or(0, |s| s.cases.len());
            exited.push((file.clone(), reported, ev.unfinished_in(file)));
        }
    }
    let running = ev.running();
    let crashed = ev
        .crashed
        .iter()
        .map(|(file, sig)| Crash {
            file: file.clone(),
            why: format!("the test process died of {sig}"),
            signal: Some(sig.clone()),
            tests: running
                .iter()
                .filter(|(f, n)| f == file && !n.is_empty())
                .map(|(_, n)| n.clone())
                .collect(),
            output: Some(ev.stderr_of(file)),
        })
        .collect();
    let more_output = ev
        .stderr
        .iter()
        .map(|(_, s)| s.as_str())
        .chain(ev.diagnostics.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join("\n");
    let load_output = ev
        .suites
        .iter()
        .filter(|s| s.error.is_some())
        .map(|s| {
            // node prints where in its own loader it threw first: the error says more.
            let err = ev.stderr_of(&s.file);
            match err.lines().next() {
                Some(first) if first.starts_with("node:") => match err.find("\n\n") {
                    Some(i) => err[i + 2..].to_owned(),
                    None => err,
                },
                _ => err,
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    Outcome {
        suites: ev.suites.clone(),
        report: ev.any,
        ended: ev.summary.tests.is_some(),
        running,
        crashed,
        more_output,
        load_output,
        faults: (too_long > 0).then(|| (too_long, "a record was too long to read".to_owned())),
        node: Some((ev.summary, ev.counted)),
        exited,
        diagnostics: ev.diagnostics.clone(),
        ..Outcome::default()
    }
}

/// Counts and failures of `suites`, keeping only what `sel` asked for. Returns the ids and files
/// seen, whether a result was dropped as unasked for while failing, and the tests that never
/// finished.
struct Tally {
    seen: HashSet<String>,
    dropped_failure: bool,
    pending: u32,
}

fn tally(
    run: &mut Run,
    paths: &PathMap,
    dir: &Path,
    suites: &[Suite],
    sel: Option<&Selection>,
) -> Tally {
    let mut t = Tally {
        seen: HashSet::new(),
        dropped_failure: false,
        pending: 0,
    };
    // Files in path order, whatever order the workers finished them in: answers are stable.
    let mut order: Vec<(String, &Suite)> = suites
        .iter()
        .map(|s| (rel_file(paths, dir, &s.file), s))
        .collect();
    order.sort_by(|a, b| a.0.cmp(&b.0));
    for (file, suite) in order {
        if sel.is_some_and(|s| !s.files.contains(&file)) {
            t.dropped_failure |=
                suite.error.is_some() || suite.cases.iter().any(|c| c.status == CaseStatus::Failed);
            continue;
        }
        t.seen.insert(file.clone());
        if let Some(err) = &suite.error {
            run.failures.push(suite_failure(paths, dir, &file, err));
        }
        for case in &suite.cases {
            let id = test_id(&file, &case.names);
            if sel.is_some_and(|s| !s.wants(&id, &file)) {
                t.dropped_failure |= case.status == CaseStatus::Failed;
                continue;
            }
            t.seen.insert(id.clone());
            match case.status {
                CaseStatus::Passed => run.passed += 1,
                CaseStatus::Skipped => run.skipped += 1,
                CaseStatus::Pending => t.pending += 1,
                CaseStatus::Failed => {
                    run.failed += 1;
                    run.failures
                        .push(case_failure(paths, dir, id, &case.messages));
                }
            }
        }
    }
    if t.pending > 0 {
        run.selected = Some(run.passed + run.failed + run.skipped + t.pending);
    }
    t
}

/// A file path as ids carry it: workspace-relative when inside the workspace.
fn rel_file(paths: &PathMap, dir: &Path, raw: &str) -> String {
    paths
        .relativize(raw, Some(dir))
        .unwrap_or_else(|| raw.to_owned())
}

fn case_failure(paths: &PathMap, dir: &Path, test: String, messages: &[String]) -> Failure {
    let p = stack::parse_error(messages.first().map_or("", String::as_str), paths, dir);
    let mut frames = p.frames;
    paths.fill_code(&mut frames);
    Failure {
        test,
        message: if p.message.is_empty() {
            "failed".to_owned()
        } else {
            p.message
        },
        kind: p.kind,
        frames,
        phase: Phase::Call,
        ..Failure::default()
    }
}

/// A test file that failed as a whole (did not load, holds no test): its reason and where.
fn suite_failure(paths: &PathMap, dir: &Path, file: &str, error: &str) -> Failure {
    let clean = crate::text::strip_ansi(error).into_owned();
    let text = match clean.find("Test suite failed to run") {
        Some(i) => jest_suite_reason(&clean[i..]),
        None => clean.clone(),
    };
    let p = stack::parse_error(&text, paths, dir);
    let mut frames = p.frames;
    if !frames.iter().any(|f| f.project) {
        frames.extend(syntax_location(&clean, paths, dir));
    }
    paths.fill_code(&mut frames);
    Failure {
        test: file.to_owned(),
        message: if p.message.is_empty() {
            "the test file failed to load".to_owned()
        } else {
            p.message
        },
        kind: p.kind,
        frames,
        phase: Phase::Collect,
        ..Failure::default()
    }
}

/// jest's "Test suite failed to run" block as an error text: the reason (for a syntax error,
/// the `SyntaxError:` line under "Details:", not jest's advice), then the block's frames.
fn jest_suite_reason(block: &str) -> String {
    let lines: Vec<&str> = block.lines().skip(1).collect();
    let mut reason = lines
        .iter()
        .map(|l| l.trim())
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if reason.starts_with("Jest encountered an unexpected token") {
        if let Some(i) = lines.iter().position(|l| l.trim() == "Details:") {
            if let Some(d) = lines[i + 1..]
                .iter()
                .map(|l| l.trim())
                .find(|l| !l.is_empty())
            {
                reason = d;
            }
        }
    }
    let mut out = vec![reason.to_owned()];
    out.extend(
        lines
            .iter()
            .filter(|l| stack::frame_location(l).is_some())
            .map(|l| (*l).to_owned()),
    );
    out.join("\n")
}

/// Where a parse error is: babel's `SyntaxError: /abs/file.js: Unexpected token (2:10)`, or
/// vite's `At file: /tests/a.test.js:3:10` (relative to the project root).
fn syntax_location(text: &str, paths: &PathMap, dir: &Path) -> Option<pith_model::Frame> {
    for l in text.lines().map(str::trim) {
        if let Some(rest) = l.strip_prefix("At file: ") {
            let (file, line) = stack::location(rest.trim())?;
            let joined = dir.join(file.trim_start_matches('/'));
            let f = paths.frame(&joined.to_string_lossy(), line, None);
            if f.project {
                return Some(f);
            }
        }
        if let (Some(_), body) = stack::split_kind(l) {
            if let (Some((file, _)), Some(open)) = (body.split_once(": "), body.rfind(" (")) {
                let line = body[open + 2..]
                    .split(':')
                    .next()
                    .and_then(|n| n.parse::<u32>().ok());
                if let (Some(line), true) = (line, file.starts_with('/')) {
                    let f = paths.frame(file, line, Some(dir));
                    if f.project {
                        return Some(f);
                    }
                }
            }
        }
    }
    None
}

impl Js {
    /// What a finished runner process and its reports say, as a [`Run`].
    fn judge(
        &self,
        ctx: &Context<'_>,
        mut outcome: Outcome,
        captured: &Captured,
        sel: Option<&Selection>,
    ) -> Run {
        let mut run = Run::new(self.name());
        let (paths, dir) = (ctx.paths, self.dir.as_path());
        let t = tally(&mut run, paths, dir, &outcome.suites, sel);
        if let Some(sel) = sel {
            for id in &sel.ids {
                let file = id_file(id);
                let explained = run
                    .failures
                    .iter()
                    .any(|f| f.phase == Phase::Collect && f.test == file)
                    || outcome
                        .crashed
                        .iter()
                        .any(|c| rel_file(paths, dir, &c.file) == file);
                if !t.seen.contains(id) && !explained && captured.end_is_normal() {
                    run.not_found.push(id.clone());
                }
            }
        }
        let output = scaffold::combined(&[
            &captured.stdout_str(),
            &captured.stderr_str(),
            &std::mem::take(&mut outcome.more_output),
        ]);
        let tail = || stack::tail(&output, paths, dir);
        let id_of =
            |(file, names): &(String, Vec<String>)| test_id(&rel_file(paths, dir, file), names);
        let running = || dedup(outcome.running.iter().map(id_of));
        let code = match Ending::of(captured.end) {
            Ending::Stopped => {
                scaffold::stopped(&mut run, Some(running()), tail());
                return run;
            }
            Ending::Killed(signal) => {
                let why = scaffold::killed_by(self.name(), &signal);
                let running = running();
                crash_failures(&mut run, &running, &why, Some(signal), Vec::new());
                scaffold::crashed(&mut run, Some(running), tail());
                return run;
            }
            Ending::Exited(code) => code,
        };
        // The exit is evidence, unless the failure of a test pith did not ask for (a pattern
        // matching more than the ids) explains it.
        let mut meaning =
            verdict::exit_meaning(self.runner, code, &output, self.script.failure_exit_code());
        if meaning == ExitMeaning::Failed
            && outcome.json
            && outcome.totals.tests == Some(0)
            && outcome.suites.is_empty()
        {
            // vitest says nothing of an empty run when its JSON reporter is on: its report does.
            meaning = ExitMeaning::NoTests;
        }
        if !(code != 0 && t.dropped_failure) {
            run.exit = Some(Exit::new(code, meaning));
        }
        if !outcome.crashed.is_empty() {
            run.status = Some(Status::Crashed);
            for c in &outcome.crashed {
                let file = rel_file(paths, dir, &c.file);
                let mut running: Vec<String> = c.tests.iter().map(|n| test_id(&file, n)).collect();
                if running.is_empty() {
                    running.push(file.clone());
                }
                let frames = c
                    .output
                    .as_deref()
                    .map(|o| {
                        let mut f = stack::native_frames(o, paths, dir);
                        paths.fill_code(&mut f);
                        f
                    })
                    .unwrap_or_default();
                crash_failures(&mut run, &running, &c.why, c.signal.clone(), frames);
                run.running.extend(running);
            }
            run.tail = tail();
            return run;
        }
        for u in &outcome.unhandled {
            let p = stack::parse_error(&u.text, paths, dir);
            let test = match (&u.path, &u.test) {
                (Some(f), Some(n)) => format!("{}{SEP}{n}", rel_file(paths, dir, f)),
                (Some(f), None) => rel_file(paths, dir, f),
                _ => p
                    .frames
                    .iter()
                    .rev()
                    .find(|f| f.project)
                    .map(|f| f.file.clone())
                    .unwrap_or_else(|| "(unhandled error)".to_owned()),
            };
            let mut frames = p.frames;
            paths.fill_code(&mut frames);
            run.failures.push(Failure {
                test,
                message: p.message,
                kind: p.kind,
                frames,
                phase: Phase::Call,
                ..Failure::default()
            });
            run.failed += 1;
        }
        if !outcome.report {
            // The runner stopped before running anything: its configuration, a missing
            // environment, a crash at start-up; or it found no test file (jest then exits
            // before writing its report when its output is a pipe).
            let no_files = ["No tests found, exiting with code", "No test files found"]
                .iter()
                .any(|w| output.contains(w));
            if code != 0 && !no_files {
                run.status = Some(Status::CollectionFailed);
            }
            run.tail = tail();
            return run;
        }
        let full = sel.is_none();
        let thresholds = verdict::threshold_lines(&output);
        let judged = Judged {
            runner: self.runner,
            code,
            meaning,
            failing: run.failed > 0 || !run.failures.is_empty(),
            dropped_failure: t.dropped_failure,
            force_exit: self
                .script
                .options(true)
                .iter()
                .any(|w| w == "--test-force-exit"),
            thresholds: &thresholds,
        };
        let doubts = doubts(&judged, &outcome, &|f| rel_file(paths, dir, f));
        if full && run.selected.is_none() {
            run.selected = outcome.totals.tests;
        }
        if !doubts.is_empty() {
            run.reason = Some(doubts.join("; "));
            if self.runner != Runner::Node && !outcome.json {
                // What was running when the run stopped early.
                run.running = dedup(outcome.running.iter().map(id_of));
            }
        }
        let status = run.status();
        if t.pending > 0 && status < Status::TestsFailed {
            // Tests that never finished and nothing that says why.
            run.status = Some(Status::Crashed);
            run.tail = tail();
        } else if outcome.snapshot_failure && status <= Status::RunnerFailed && run.failed == 0 {
            run.status = Some(Status::TestsFailed);
            run.tail = tail();
        } else if status == Status::RunnerFailed {
            // The runner's own lines that say why: its threshold lines when it printed some
            // (not the coverage table and PASS lines around them), else the lines of its
            // output's end that name an error or failure.
            run.tail = if thresholds.is_empty() {
                scaffold::why_tail(paths, &output)
            } else {
                let why = crate::text::tail(&thresholds.join("\n"));
                (!why.is_empty()).then_some(why)
            };
        } else if status == Status::NoTestsRan {
            run.tail = tail();
        } else if run.collection_errors() > 0 {
            let texts: Vec<&str> = outcome
                .suites
                .iter()
                .filter_map(|s| s.error.as_deref())
                .collect();
            let evidence = match outcome.load_output.trim() {
                "" => texts.join("\n"),
                printed => printed.to_owned(),
            };
            run.tail = stack::tail(&evidence, paths, dir).or_else(tail);
        }
        run
    }
}

/// What [`doubts`] weighs besides the records.
struct Judged<'a> {
    runner: Runner,
    code: i32,
    meaning: ExitMeaning,
    /// Some test or file failed in the records kept.
    failing: bool,
    /// A test pith did not ask for failed (a pattern matched more than the ids).
    dropped_failure: bool,
    /// The script runs node with `--test-force-exit`.
    force_exit: bool,
    /// The runner's own lines saying a coverage threshold was not met.
    thresholds: &'a [String],
}

/// Where the runner's own account says the run is not green though no test failed, one line
/// each: a run that stopped before its end, totals that count more than was reported, a failed
/// verdict with no failure, files that ended through `process.exit()`, records pith's reporter
/// could not write. `rel` makes a runner's path workspace-relative.
fn doubts(j: &Judged<'_>, outcome: &Outcome, rel: &dyn Fn(&str) -> String) -> Vec<String> {
    let name = j.runner.name();
    let (code, failing) = (j.code, j.failing);
    let mut doubts: Vec<String> = Vec::new();
    if code != 0 && !failing {
        // The first threshold line names the cause; the tail has them all.
        if let Some(first) = j.thresholds.first() {
            match j.thresholds.len() - 1 {
                0 => doubts.push(first.clone()),
                more => doubts.push(format!("{first} (and {more} more)")),
            }
        }
    }
    if j.runner != Runner::Node
        && !outcome.json
        && !outcome.ended
        && j.meaning != ExitMeaning::NoTests
    {
        // jest and vitest write their report when the run ends: without it, and without the
        // reporter's end record, the runner stopped before its end (a test called
        // `process.exit()`).
        doubts.push(match outcome.running.first() {
            Some((file, names)) => format!(
                "{name} exited {code} before its run ended, while {} was running",
                test_id(&rel(file), names)
            ),
            None => format!("{name} exited {code} before its run ended: it wrote no report"),
        });
    }
    if outcome.end_reason.as_deref() == Some("interrupted") && !failing {
        doubts.push(format!("{name} interrupted the run"));
    }
    let tot = &outcome.totals;
    let recorded: usize = outcome.suites.iter().map(|s| s.cases.len()).sum();
    if let Some(n) = tot.tests.filter(|&n| n as usize > recorded) {
        doubts.push(format!("{name} counted {n} tests but reported {recorded}"));
    }
    let file_errors =
        outcome.suites.iter().filter(|s| s.error.is_some()).count() + outcome.crashed.len();
    if let Some(n) = tot.runtime_errors.filter(|&n| n as usize > file_errors) {
        doubts.push(format!(
            "{name} counted {n} test files that failed to run but reported {file_errors}"
        ));
    }
    let failed_recorded = outcome
        .suites
        .iter()
        .flat_map(|s| &s.cases)
        .filter(|c| c.status == CaseStatus::Failed)
        .count();
    if let Some(n) = tot.failed.filter(|&n| n as usize > failed_recorded) {
        doubts.push(format!(
            "{name} counted {n} failed tests but reported {failed_recorded}"
        ));
    }
    if tot.success == Some(false)
        && j.meaning != ExitMeaning::NoTests
        && !failing
        && !outcome.snapshot_failure
        && j.thresholds.is_empty()
        && file_errors == 0
        && !j.dropped_failure
    {
        doubts.push(format!(
            "{name} reported success:false with no failing test"
        ));
    }
    if tot.interrupted && !failing {
        doubts.push(format!("{name} reported the run as interrupted"));
    }
    if let Some((summary, counted)) = outcome.node {
        match summary.tests {
            Some(n) if n > counted => {
                doubts.push(format!("node counted {n} tests but reported {counted}"))
            }
            // `--test-force-exit` may end node before its reporter wrote the summary.
            None if code == 0 && !j.force_exit => {
                doubts.push(format!("node exited {code} without its summary"));
            }
            _ => {}
        }
        let node_failed = summary.fail.unwrap_or(0) + summary.cancelled.unwrap_or(0);
        if node_failed > 0 && !failing && !j.dropped_failure {
            doubts.push(format!(
                "node counted {node_failed} failed tests, none reported"
            ));
        }
        if !failing && code != 0 {
            doubts.extend(outcome.diagnostics.first().cloned());
        }
    }
    for (file, reported, unfinished) in &outcome.exited {
        if *reported == 0 || *unfinished > 0 {
            doubts.push(format!(
                "{} ended through process.exit(0) before node reported its tests",
                rel(file)
            ));
        }
    }
    if let Some((n, e)) = outcome.faults.as_ref().filter(|_| !outcome.json) {
        doubts.push(format!(
            "pith's reporter lost {n} records: {}",
            crate::text::first_line(e)
        ));
    }
    doubts
}

trait EndExt {
    fn end_is_normal(&self) -> bool;
}

impl EndExt for Captured {
    /// The runner ended by itself: what it did not report, it did not find.
    fn end_is_normal(&self) -> bool {
        matches!(self.end, End::Exited(_))
    }
}

fn dedup(ids: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for id in ids {
        if !out.contains(&id) {
            out.push(id);
        }
    }
    out
}

/// Each test running when its process died is a failure (unless it already is one).
fn crash_failures(
    run: &mut Run,
    running: &[String],
    why: &str,
    kind: Option<String>,
    frames: Vec<pith_model::Frame>,
) {
    let how = scaffold::Stopped {
        message: &crate::text::first_line(why),
        kind: kind.as_deref(),
        frames: &frames,
    };
    scaffold::fail_running(run, running, &how);
}

/// Reads a jest `--json` report (for `pith test --report`).
pub fn parse_jest(text: &str, paths: &PathMap) -> Result<Run, crate::ParseError> {
    parse_report(text, paths, Runner::Jest)
}

/// Reads a vitest JSON report (for `pith test --report`).
pub fn parse_vitest(text: &str, paths: &PathMap) -> Result<Run, crate::ParseError> {
    parse_report(text, paths, Runner::Vitest)
}

fn parse_report(text: &str, paths: &PathMap, runner: Runner) -> Result<Run, crate::ParseError> {
    let flavour = match runner {
        Runner::Vitest => Flavour::Vitest,
        _ => Flavour::Jest,
    };
    let mut r = report::parse_json(text, flavour)?;
    for s in &mut r.suites {
        if let Some((why, _)) = s.error.as_deref().and_then(worker_death) {
            // A dead worker is not a file that failed to load.
            s.error = Some(format!("Error: {why}"));
        }
    }
    let mut run = Run::new(runner.name());
    let root = paths.root().to_path_buf();
    let t = tally(&mut run, paths, &root, &r.suites, None);
    if t.pending > 0 && run.status() < Status::TestsFailed {
        run.status = Some(Status::Crashed);
    }
    if r.snapshot_failure && run.status() == Status::TestsPassed {
        run.status = Some(Status::TestsFailed);
    }
    // The report's own totals are evidence too.
    let name = runner.name();
    let recorded: usize = r.suites.iter().map(|s| s.cases.len()).sum();
    let failing = run.failed > 0 || !run.failures.is_empty();
    if run.selected.is_none() {
        run.selected = r.totals.tests;
    }
    if let Some(n) = r.totals.tests.filter(|&n| n as usize > recorded) {
        run.reason = Some(format!("{name} counted {n} tests but reported {recorded}"));
    } else if r.totals.success == Some(false) && !failing && !r.snapshot_failure {
        run.reason = Some(format!(
            "{name} reported success:false with no failing test"
        ));
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_files_then_names() {
        assert_eq!(
            test_id("tests/a.test.js", &["sum".into(), "adds".into()]),
            "tests/a.test.js > sum > adds"
        );
        for id in [
            "tests/a.test.js > sum > adds",
            "a.spec.ts",
            "src/x.test.mjs > it works",
            "t.cjs > a::b",
            "my dir/a.js > x",
        ] {
            assert!(is_test_id(id), "{id}");
        }
        for id in [
            "tests/test_a.py::test_x",
            "mycrate tests::it_works",
            "mycrate::api tests::x",
            ".js",
            "a.json > x",
            "",
        ] {
            assert!(!is_test_id(id), "{id}");
        }
    }

    #[test]
    fn selections_make_patterns() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.test.js"), "").unwrap();
        let ids: Vec<String> = [
            "./a.test.js > sum > adds (1+1)",
            "a.test.js > top",
            "gone.test.js > x",
        ]
        .map(String::from)
        .to_vec();
        let (sel, gone) = Selection::of(&ids, d.path());
        assert_eq!(gone, ["gone.test.js > x"]);
        assert_eq!(sel.files, ["a.test.js"]);
        assert_eq!(
            sel.full_name_pattern().unwrap(),
            r"^(?:sum(?: | > )adds \(1\+1\)|top)$"
        );
        assert_eq!(
            sel.node_pattern().unwrap(),
            r"^(?:sum|adds \(1\+1\)|sum adds \(1\+1\)|top)$"
        );
        assert!(sel.wants("a.test.js > top", "a.test.js"));
        assert!(!sel.wants("a.test.js > other", "a.test.js"));
        let (whole, _) = Selection::of(&["a.test.js".to_owned()], d.path());
        assert_eq!(whole.full_name_pattern(), None);
        assert!(whole.wants("a.test.js > anything", "a.test.js"));
    }

    #[test]
    fn worker_deaths_are_recognized() {
        let msg = "  ● Test suite failed to run\n\n    A jest worker process (pid=561) was terminated by another process: signal=SIGABRT, exitCode=null. Operating system logs may contain more information on why this occurred.\n\n      at ChildProcessWorker._onExit (node_modules/jest-worker/build/index.js:964:23)\n";
        assert_eq!(
            worker_death(msg),
            Some((
                "A jest worker process (pid=561) was terminated by another process: signal=SIGABRT, exitCode=null.".to_owned(),
                Some("SIGABRT".to_owned())
            ))
        );
        assert_eq!(worker_death("Cannot find module 'x'"), None);
        assert!(vitest_worker_death(
            "Error: [vitest-pool]: Worker forks emitted error."
        ));
    }

    #[test]
    fn jest_suite_blocks_give_the_reason() {
        let paths = PathMap::new(Path::new("/ws"));
        let f = suite_failure(
            &paths,
            Path::new("/ws"),
            "j/load.test.js",
            "  ● Test suite failed to run\n\n    Cannot find module './nope' from 'j/load.test.js'\n\n    > 1 | const x = require('./nope');\n        |           ^\n\n      at Resolver._throwModNotFoundError (node_modules/jest-resolve/build/index.js:1031:11)\n      at Object.require (j/load.test.js:1:11)\n",
        );
        assert_eq!(
            f.message,
            "Cannot find module './nope' from 'j/load.test.js'"
        );
        assert_eq!(f.phase, Phase::Collect);
        assert_eq!(
            f.top_project_frame().map(|f| f.location()).as_deref(),
            Some("j/load.test.js:1")
        );
        let syn = suite_failure(
            &paths,
            Path::new("/ws"),
            "j/syn.test.js",
            "  ● Test suite failed to run\n\n    Jest encountered an unexpected token\n\n    Jest failed to parse a file.\n\n    Details:\n\n    SyntaxError: /ws/j/syn.test.js: Unexpected token (2:10)\n\n      at constructor (node_modules/@babel/parser/src/parse-error.ts:96:45)\n",
        );
        assert_eq!(
            syn.message,
            "SyntaxError: j/syn.test.js: Unexpected token (2:10)"
        );
        assert_eq!(syn.kind.as_deref(), Some("SyntaxError"));
        assert_eq!(
            syn.top_project_frame().map(|f| f.location()).as_deref(),
            Some("j/syn.test.js:2")
        );
        let vite = suite_failure(
            &paths,
            Path::new("/ws"),
            "v/syn.test.js",
            "Parse failure: Expression expected\nAt file: /v/syn.test.js:3:10",
        );
        assert_eq!(vite.message, "Parse failure: Expression expected");
        assert_eq!(
            vite.top_project_frame().map(|f| f.location()).as_deref(),
            Some("v/syn.test.js:3")
        );
    }

    #[test]
    fn reports_parse_into_runs() {
        let paths = PathMap::new(Path::new("/ws"));
        let text = r#"{"numRuntimeErrorTestSuites":0,"testResults":[{"name":"/ws/a.test.js","status":"failed","message":"","assertionResults":[
            {"ancestorTitles":["sum"],"title":"adds","status":"failed","failureMessages":["Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 4\nReceived: 5\n    at Object.toBe (/ws/a.test.js:4:23)"]},
            {"ancestorTitles":[],"title":"ok","status":"passed","failureMessages":[]}]}]}"#;
        let run = parse_jest(text, &paths).unwrap();
        assert_eq!((run.passed, run.failed), (1, 1));
        assert_eq!(run.failures[0].test, "a.test.js > sum > adds");
        assert_eq!(
            run.failures[0].message,
            "expect(received).toBe(expected) (Expected: 4, Received: 5)"
        );
        assert_eq!(run.status(), Status::TestsFailed);
        assert!(parse_vitest("not json", &paths).is_err());
        // A saved report whose own totals count more than it lists is not green.
        let short = r#"{"numTotalTests":2,"success":true,"testResults":[{"name":"/ws/a.test.js","status":"passed","message":"","assertionResults":[
            {"ancestorTitles":[],"title":"ok","status":"passed","failureMessages":[]}]}]}"#;
        let run = parse_vitest(short, &paths).unwrap();
        assert_eq!(run.status(), Status::RunnerFailed);
        assert_eq!(
            run.doubt().as_deref(),
            Some("vitest counted 2 tests but reported 1")
        );
    }

    fn judged(runner: Runner, code: i32, thresholds: &[String]) -> Judged<'_> {
        Judged {
            runner,
            code,
            meaning: verdict::exit_meaning(runner, code, "", None),
            failing: false,
            dropped_failure: false,
            force_exit: false,
            thresholds,
        }
    }

    fn passed(file: &str, n: usize) -> Suite {
        Suite {
            file: file.to_owned(),
            cases: (0..n)
                .map(|i| report::Case {
                    names: vec![format!("t{i}")],
                    status: CaseStatus::Passed,
                    messages: Vec::new(),
                })
                .collect(),
            error: None,
        }
    }

    #[test]
    fn the_runners_own_account_is_checked_against_the_records() {
        let rel = |f: &str| f.trim_start_matches("/ws/").to_owned();
        let complete = Outcome {
            suites: vec![passed("/ws/a.test.js", 3)],
            json: true,
            ended: true,
            totals: report::Totals {
                success: Some(true),
                tests: Some(3),
                failed: Some(0),
                runtime_errors: Some(0),
                interrupted: false,
            },
            ..Outcome::default()
        };
        assert!(doubts(&judged(Runner::Jest, 0, &[]), &complete, &rel).is_empty());
        let lost = Outcome {
            totals: report::Totals {
                tests: Some(5),
                failed: Some(1),
                success: Some(false),
                ..complete.totals
            },
            ..Outcome::default()
        };
        let lost = Outcome {
            suites: complete.suites.clone(),
            json: true,
            ended: true,
            ..lost
        };
        assert_eq!(
            doubts(&judged(Runner::Jest, 1, &[]), &lost, &rel),
            [
                "jest counted 5 tests but reported 3",
                "jest counted 1 failed tests but reported 0",
                "jest reported success:false with no failing test"
            ]
        );
        let threshold = [
            "Jest: Coverage for lines (50%) does not meet \"global\" threshold (90%)".to_owned(),
        ];
        assert_eq!(
            doubts(&judged(Runner::Jest, 1, &threshold), &complete, &rel),
            [threshold[0].as_str()]
        );
        // No report and no end record: the run stopped early.
        let stopped = Outcome {
            suites: vec![passed("/ws/a.test.js", 1)],
            running: vec![("/ws/a.test.js".to_owned(), vec!["two".to_owned()])],
            faults: Some((2, "EBADF: bad file descriptor".to_owned())),
            ..Outcome::default()
        };
        assert_eq!(
            doubts(&judged(Runner::Jest, 0, &[]), &stopped, &rel),
            [
                "jest exited 0 before its run ended, while a.test.js > two was running",
                "pith's reporter lost 2 records: EBADF: bad file descriptor"
            ]
        );
    }

    #[test]
    fn nodes_summary_and_early_exits_are_checked() {
        let rel = |f: &str| f.trim_start_matches("/ws/").to_owned();
        let summary = node::Summary {
            tests: Some(4),
            pass: Some(4),
            fail: Some(0),
            ..node::Summary::default()
        };
        let run = Outcome {
            suites: vec![passed("/ws/b.test.js", 1)],
            report: true,
            ended: true,
            node: Some((summary, 2)),
            exited: vec![("/ws/a.test.js".to_owned(), 0, 0)],
            ..Outcome::default()
        };
        assert_eq!(
            doubts(&judged(Runner::Node, 0, &[]), &run, &rel),
            [
                "node counted 4 tests but reported 2",
                "a.test.js ended through process.exit(0) before node reported its tests"
            ]
        );
        // A file that reported its tests before `--test-force-exit` ended it is complete.
        let forced = Outcome {
            node: Some((node::Summary::default(), 2)),
            exited: vec![("/ws/a.test.js".to_owned(), 2, 0)],
            ..run
        };
        let j = Judged {
            force_exit: true,
            ..judged(Runner::Node, 0, &[])
        };
        assert!(doubts(&j, &forced, &rel).is_empty());
    }

    #[test]
    fn ids_that_start_with_a_dash_name_nothing() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("-x.test.js"), "").unwrap();
        let ids = ["-x.test.js".to_owned(), "--help".to_owned()];
        let (sel, gone) = Selection::of(&ids, d.path());
        assert!(sel.files.is_empty());
        assert_eq!(gone, ids);
        assert!(!is_test_id("--config.test.js"));
    }

    proptest::proptest! {
        #[test]
        fn report_parsers_never_panic(s in "(?s).{0,400}") {
            let paths = PathMap::new(Path::new("/ws"));
            let _ = parse_jest(&s, &paths);
            let _ = parse_vitest(&s, &paths);
            let _ = worker_death(&s);
            let _ = jest_suite_reason(&s);
            let _ = syntax_location(&s, &paths, Path::new("/ws"));
            let _ = from_records(Flavour::Vitest, Some(&s), events::parse(&s, Flavour::Vitest));
            let _ = node_from_records(node::parse(&s), &[(s.clone(), 0)], 0);
            let _ = is_test_id(&s);
        }
    }
}
