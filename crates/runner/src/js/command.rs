//! How the runner is started: its program (the project's `node_modules/.bin`), pith's
//! reporter, the argv and environment, and what is selected (files, then name patterns).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{Context, RunnerError};

use super::{id_file, package, Js, Runner, SEP};

/// pith's jest and vitest reporters, each followed by what they share (`pithRecords`): one
/// file each, installed and loaded alone, whatever the project's module resolution.
const JEST_REPORTER: &str = concat!(
    include_str!("pith_jest_reporter.cjs"),
    "\n",
    include_str!("pith_reporter_records.js")
);

const VITEST_REPORTER: &str = concat!(
    include_str!("pith_vitest_reporter.mjs"),
    "\n",
    include_str!("pith_reporter_records.js")
);

/// pith's mocha reporter, written per run into the scratch directory with its records' path
/// and the script's reporter in it (see [`Js::files`]).
const MOCHA_REPORTER: &str = concat!(
    include_str!("pith_mocha_reporter.cjs"),
    "\n",
    include_str!("pith_reporter_records.js")
);

const NODE_REPORTER: &str = include_str!("pith_node_reporter.mjs");

const NODE_EXIT_HOOK: &str = include_str!("pith_node_exit.cjs");

/// Variables a runner sets for the processes it starts: inherited from a caller that is itself
/// a test (a pith run inside a node test, a jest worker), they would make the runner act as a
/// child reporting to a parent that is not there.
pub(super) const RUNNER_ENV: &[&str] = &[
    "NODE_TEST_CONTEXT",
    "JEST_WORKER_ID",
    "VITEST",
    "VITEST_MODE",
    "VITEST_POOL_ID",
    "VITEST_WORKER_ID",
];

/// Where one run's files are.
pub(super) struct Files {
    pub(super) reporter: PathBuf,
    /// The runner's own JSON report (jest, vitest).
    pub(super) json: PathBuf,
    /// pith's reporter's records: beside the JSON report, where the reporters look for them.
    pub(super) events: PathBuf,
    /// node: the exit hook, and where it records files that ended through `process.exit()`.
    pub(super) exit_hook: PathBuf,
    pub(super) exits: PathBuf,
    pub(super) coverage: PathBuf,
}

impl Files {
    /// The reporter's list of traced test files (beside jest's JSON report).
    pub(super) fn traced_index(&self) -> PathBuf {
        PathBuf::from(format!("{}.traced.json", self.json.display()))
    }

    /// The file whose presence asks the reporter to trace (beside jest's JSON report).
    pub(super) fn trace_marker(&self) -> PathBuf {
        PathBuf::from(format!("{}.trace", self.json.display()))
    }
}

/// What a tracing re-run (jest, vitest) collects coverage of, into [`Files::coverage`]: glob
/// patterns relative to the runner's root directory, each naming one changed file.
pub(super) struct Cover {
    pub(super) globs: Vec<String>,
    /// jest: istanbul's instrumentation (babel) rather than V8's coverage, whatever the
    /// version: a run that traces itself takes each test file's coverage as it comes, already
    /// in the source's lines, and V8's precise coverage of every script in each worker (jest's
    /// own included) would cost the whole run more than the files traced.
    pub(super) instrument: bool,
}

impl Js {
    /// The runner's program: jest and vitest from the project's `node_modules/.bin` (or one
    /// above it, where a monorepo hoists them), `node` from PATH. The error is the install hint.
    /// `cache`: pith's cache directory, where a node binary's version is kept once asked.
    pub(super) fn program(&self, cache: &Path) -> Result<PathBuf, String> {
        if let Some(p) = &self.program {
            self.in_range(p, cache)?;
            return Ok(p.clone());
        }
        let node = crate::on_path("node");
        if node.is_none() {
            return Err("node is not installed: install Node.js (https://nodejs.org)".to_owned());
        }
        let name = match self.runner {
            Runner::Node => {
                let node = node.expect("checked above");
                self.in_range(&node, cache)?;
                return Ok(node);
            }
            Runner::Jest => "jest",
            Runner::Vitest => "vitest",
            Runner::Mocha => "mocha",
        };
        let program = self
            .dir
            .ancestors()
            .map(|d| d.join("node_modules").join(".bin").join(name))
            .find(|p| crate::is_executable(p))
            .ok_or_else(|| {
                format!(
                    "{name} is not installed in node_modules: run {}",
                    install_command(&self.dir)
                )
            })?;
        self.in_range(&program, cache)?;
        Ok(program)
    }

    /// The runner beside `program` (jest, vitest, mocha), or `program` itself (node), is in
    /// the range pith observes; else the install hint saying why not.
    fn in_range(&self, program: &Path, cache: &Path) -> Result<(), String> {
        match self.runner {
            Runner::Jest => jest_in_range(program),
            Runner::Vitest => vitest_in_range(program),
            Runner::Mocha => mocha_in_range(program),
            Runner::Node => node_in_range(self.node_version(program, cache)),
        }
    }

    /// The version `program --version` prints (`v18.19.0`), asked as the script would run it
    /// (its directory and environment: a version manager's shim picks the project's node by
    /// them). node's own answer is kept in `cache` per binary, so a run pays for the question
    /// once per installed node; a shim or wrapper script, whose answer may change with the
    /// project, is asked every time. None when it does not say.
    fn node_version(&self, program: &Path, cache: &Path) -> Option<String> {
        let ask = || {
            let mut cmd = crate::base_command(program, &self.dir);
            for var in RUNNER_ENV {
                cmd.env_remove(var);
            }
            cmd.envs(self.env.iter().map(|(k, v)| (k, v)))
                .arg("--version");
            // A shim that never answers must not hold the run: it is asked as a runner is, in
            // a group of its own, for ten seconds at most.
            let limit = std::time::Instant::now() + std::time::Duration::from_secs(10);
            let out = crate::process::run(cmd, limit, None)
                .ok()
                .filter(|c| c.success())?;
            let text = out.stdout_str();
            let version = text.trim().strip_prefix('v')?;
            node_minor(version)?;
            Some(version.to_owned())
        };
        match node_itself(program) {
            Some(real) => crate::kept_answer(cache, "node-version", &real, ask),
            None => ask(),
        }
    }

    /// Where this run's files go, pith's reporter installed and the records of an earlier
    /// run removed; for node, the exit hook written with the path it records to.
    pub(super) fn files(&self, ctx: &Context<'_>) -> Result<Files, RunnerError> {
        let (file, content) = match self.runner {
            Runner::Jest => ("pith_jest_reporter.cjs", JEST_REPORTER),
            Runner::Vitest => ("pith_vitest_reporter.mjs", VITEST_REPORTER),
            Runner::Node => ("pith_node_reporter.mjs", NODE_REPORTER),
            Runner::Mocha => ("pith_mocha_reporter.cjs", MOCHA_REPORTER),
        };
        let events = ctx.scratch.join(format!("{}.events.jsonl", self.name()));
        let reporter = if self.runner == Runner::Mocha {
            // Written per run, carrying the records' path and the script's reporter: mocha
            // passes its reporter options on to the project's reporter, so none of pith's.
            let json = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "null".to_owned());
            let named = self.script.mocha_reporter();
            let text = MOCHA_REPORTER
                .replace("'__PITH_EVENTS__'", &json(&events.to_string_lossy()))
                .replace(
                    "'__PITH_PROJECT_REPORTER__'",
                    &named.as_deref().map_or_else(|| "null".to_owned(), json),
                );
            let path = ctx.scratch.join(file);
            std::fs::write(&path, text)
                .map_err(|e| RunnerError::io(format!("writing {}", path.display()), e))?;
            path
        } else {
            crate::install_embedded(ctx.cache, "js", file, content)?
        };
        let files = Files {
            reporter,
            events,
            json: ctx.scratch.join(format!("{}.json", self.name())),
            exit_hook: ctx.scratch.join("pith_node_exit.cjs"),
            exits: ctx.scratch.join("node-exits.jsonl"),
            coverage: ctx.scratch.join("coverage"),
        };
        let (marker, index) = (files.trace_marker(), files.traced_index());
        for f in [&files.events, &files.json, &files.exits, &marker, &index] {
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
        Ok(files)
    }

    /// The major version of `package` installed beside the runner's program
    /// (`node_modules/.bin/<program>` → `node_modules/<package>/package.json`).
    pub(super) fn installed_major(program: &Path, package: &str) -> Option<u32> {
        major(&Self::installed_version(program, package)?)
    }

    /// The version of `package` installed beside the runner's program, as its own
    /// `package.json` says it.
    pub(super) fn installed_version(program: &Path, package: &str) -> Option<String> {
        let pkg = program
            .parent()?
            .parent()?
            .join(package)
            .join("package.json");
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(pkg).ok()?).ok()?;
        Some(v.get("version")?.as_str()?.to_owned())
    }

    /// The runner's command: the launcher, pith's reporter and report paths, the script's own
    /// options and environment, and the selection; with `cover` (a selection's tracing re-run,
    /// jest and vitest), the coverage of those files instead of none.
    pub(super) fn command(
        &self,
        ctx: &Context<'_>,
        program: &Path,
        files: &Files,
        sel: Option<&Selection>,
        cover: Option<&Cover>,
    ) -> Command {
        let mut cmd = self.launcher(program, sel.is_none());
        for var in RUNNER_ENV {
            cmd.env_remove(var);
        }
        // What the package manager gives the script (`PATH`, `npm_lifecycle_event`, ...),
        // then the command's own assignments: what the tests see under `npm test`.
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        // Absolute paths: never read as options.
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
                // Every jest in pith's range (27 and later) has the V8 provider.
                let cover = cover.map(|c| JestCover {
                    globs: &c.globs,
                    v8: !c.instrument,
                });
                self.jest_args(&mut cmd, files, sel, cover.as_ref(), &targets)
            }
            Runner::Vitest => {
                let major = Self::installed_major(program, "vitest");
                self.vitest_args(&mut cmd, files, sel, cover, &targets, major);
            }
            Runner::Node => self.node_args(&mut cmd, files, sel, &targets),
            Runner::Mocha => self.mocha_args(&mut cmd, files, sel, &targets),
        }
        for (k, v) in &self.script.env {
            cmd.env(k, v);
        }
        cmd
    }

    /// The program, or node running it with the script's node options (`node --expose-gc
    /// node_modules/.bin/jest`); in a full run behind the script's wrappers (`c8 --100`), so
    /// their checks and exit code stay the command's.
    fn launcher(&self, program: &Path, full: bool) -> Command {
        let mut argv: Vec<std::ffi::OsString> = Vec::new();
        if full {
            for w in &self.wrappers {
                argv.extend(w.iter().map(Into::into));
            }
        }
        match (self.runner, self.script.node.is_empty()) {
            (Runner::Jest | Runner::Vitest | Runner::Mocha, false) => {
                let node = crate::on_path("node").unwrap_or_else(|| PathBuf::from("node"));
                argv.push(node.into());
                argv.extend(self.script.node.iter().map(Into::into));
                argv.push(program.into());
            }
            _ => argv.push(program.into()),
        }
        let mut c = crate::base_command(&argv[0], &self.dir);
        c.args(&argv[1..]);
        c
    }

    /// jest: its JSON report and pith's reporter; a selection by path, then by full name.
    fn jest_args(
        &self,
        cmd: &mut Command,
        files: &Files,
        sel: Option<&Selection>,
        cover: Option<&JestCover<'_>>,
        targets: &[String],
    ) {
        // Each flag observes only: `--json`/`--outputFile` write jest's report where pith reads
        // it, `--testLocationInResults` adds each test's line to it, `--no-watchman` crawls
        // with node instead of starting a watchman daemon (the same files are found), and
        // `--coverageDirectory` puts the coverage the script asks for in pith's scratch (its
        // thresholds still judge). No `--ci`: jest decides it as it does for the project (its
        // `CI` detection), so a new snapshot is written as `npm test` writes it.
        cmd.args(self.script.args(sel.is_none()))
            .args(["--json", "--testLocationInResults", "--no-watchman"])
            .arg(format!("--outputFile={}", files.json.display()))
            .arg(format!("--coverageDirectory={}", files.coverage.display()));
        let reporter = format!("--reporters={}", files.reporter.display());
        if self.script.has_reporters() {
            cmd.arg(reporter);
        } else if !package::config_has_reporters(&self.dir, &self.script) {
            // jest's `--reporters` replaces the configuration's: where the project configures
            // its own, they run as configured and pith reads the JSON alone.
            cmd.arg("--reporters=default").arg(reporter);
        }
        match (sel, cover) {
            (_, Some(cover)) => jest_cover(cmd, cover),
            // A re-run of some tests is not judged by whole-suite coverage thresholds.
            (Some(_), None) => {
                cmd.arg("--coverage=false");
            }
            (None, None) => {}
        }
        if let Some(sel) = sel {
            if let Some(p) = sel.full_name_pattern() {
                cmd.arg(format!("--testNamePattern={p}"));
            }
            cmd.arg("--runTestsByPath").arg("--").args(targets);
        }
    }

    /// vitest: its JSON report and pith's reporter; a selection by full name, then the files.
    fn vitest_args(
        &self,
        cmd: &mut Command,
        files: &Files,
        sel: Option<&Selection>,
        cover: Option<&Cover>,
        targets: &[String],
        major: Option<u32>,
    ) {
        // Each flag observes only: the JSON report and pith's reporter (beside the reporters
        // the configuration or the script names: vitest's `--reporter` replaces the
        // configuration's, so those are named again), each test's location, no colour in what
        // pith reads, coverage reports in pith's scratch. No `CI`, no `--update`: vitest
        // decides snapshots as it does for the project. No `--no-cache`: the cache orders the
        // files (failed and slow first) as the project's runs do. Every one of these flags is
        // accepted by vitest 1.0 and later, but the location: see [`vitest_location_flag`].
        cmd.arg("run").args(self.script.args(sel.is_none()));
        if !self.script.has_reporters() {
            let configured = package::vitest_config_reporters(&self.dir, &self.script);
            // Named nowhere: vitest's default, which prints what a person reads of the run
            // (`pith output` hands it back, `pith gain` weighs it).
            if configured.is_empty() {
                cmd.arg("--reporter=default");
            }
            for r in configured {
                cmd.arg(format!("--reporter={r}"));
            }
        }
        cmd.arg("--reporter=json")
            .arg(format!("--outputFile.json={}", files.json.display()))
            .arg(format!("--reporter={}", files.reporter.display()));
        if vitest_location_flag(major) {
            cmd.arg("--includeTaskLocation");
        }
        cmd.arg("--no-color").arg(format!(
            "--coverage.reportsDirectory={}",
            files.coverage.display()
        ));
        if let Some(sel) = sel {
            match cover {
                None => {
                    cmd.arg(vitest_off("coverage.enabled", major));
                }
                Some(cover) => vitest_cover(cmd, cover, major),
            }
            if let Some(p) = sel.full_name_pattern() {
                cmd.arg(format!(
                    "--testNamePattern={}",
                    vitest_name_pattern(&p, major)
                ));
            }
            cmd.args(targets);
        }
    }

    /// node: the script's options, pith's exit hook and reporter; a selection by name
    /// pattern, then the files, else the script's own paths.
    fn node_args(
        &self,
        cmd: &mut Command,
        files: &Files,
        sel: Option<&Selection>,
        targets: &[String],
    ) {
        cmd.args(self.script.options(sel.is_none()));
        // node takes a destination for each reporter when there are several: the script's
        // reporters without one keep node's default, stdout; pith's goes to its records.
        let (reporters, destinations) = self.script.node_reporters();
        for _ in destinations..reporters {
            cmd.arg("--test-reporter-destination=stdout");
        }
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
                cmd.args(targets);
            }
            None => {
                cmd.args(self.script.paths());
            }
        }
    }
}

impl Js {
    /// mocha: the script's options (its configuration file stays mocha's to read), pith's
    /// reporter, which runs the project's inside itself; a selection by full title (`--grep`,
    /// anchored and escaped: mocha matches it against each test's titles joined by spaces),
    /// then the files. Nothing else: `--bail`, `--forbid-only`, `--exit`, `--parallel`,
    /// `--require` and the rest are the script's and its `.mocharc`'s, as `npm test` runs them.
    /// mocha adds a `.mocharc`'s `spec` to the files given (it concatenates them), so a
    /// selection may load more files than asked: the pattern still runs only the tests named,
    /// and what else reports is dropped as unasked for. A `.mocharc` that sets `fgrep` or
    /// `invert` changes what the pattern selects; pith does not override it.
    fn mocha_args(
        &self,
        cmd: &mut Command,
        files: &Files,
        sel: Option<&Selection>,
        targets: &[String],
    ) {
        cmd.args(self.script.args(sel.is_none()));
        cmd.arg("--reporter").arg(&files.reporter);
        if let Some(sel) = sel {
            if let Some(p) = sel.full_name_pattern() {
                cmd.arg(format!("--grep={p}"));
            }
            cmd.args(targets);
        }
    }
}

/// The jest majors pith observes (docs/runners.md): every option pith passes (`--json`,
/// `--outputFile`, `--testLocationInResults`, `--no-watchman`, `--reporters`, `--coverage*`,
/// `--collectCoverageFrom`, `--testNamePattern`, `--runTestsByPath`) is in jest-cli's options
/// from 27.0 (checked in 27.0.6's `args.js`), and 27's reporter dispatcher already calls the
/// hooks pith's reporter answers (`onTestFileStart`, `onTestCaseResult`, `onTestFileResult`);
/// the scenario rows run 27.0.6 and 30.5.2. jest 26 and older lack `onTestCaseResult` (27.0's
/// changelog), so a run killed at its deadline would not say which tests finished; a major
/// newer than pith knows may have moved an option.
pub(super) const JEST_MAJORS: std::ops::RangeInclusive<u32> = 27..=30;

/// The jest beside `program` is one pith observes; else why not, as [`vitest_in_range`]. Its
/// version is `jest`'s package, else `jest-cli`'s (a project may depend on the CLI alone).
fn jest_in_range(program: &Path) -> Result<(), String> {
    let Some(version) = Js::installed_version(program, "jest")
        .or_else(|| Js::installed_version(program, "jest-cli"))
    else {
        return Ok(());
    };
    match major(&version) {
        Some(m) if JEST_MAJORS.contains(&m) => Ok(()),
        _ => Err(format!(
            "jest {version} is installed; pith supports jest {}.0 to {}.x: install one of those (npm install -D jest@{})",
            JEST_MAJORS.start(),
            JEST_MAJORS.end(),
            JEST_MAJORS.end()
        )),
    }
}

/// The oldest node whose test runner pith observes (docs/runners.md): node 18.19 and newer.
/// `--test-reporter` and `--test-reporter-destination` exist from 18.15 (its release notes,
/// <https://nodejs.org/blog/release/v18.15.0>), but until 18.18 node reports a test file that
/// did not load or whose process died without the `file` its other events carry (seen on
/// 18.18.2; 18.15.0 and 18.17.0 fail the same way): pith could not say which file failed, and
/// a load error or a crash would answer RunnerFailed. Older nodes have no reporters at all.
/// The scenario rows run 18.19.0 (`node_v18_*`) and the node installed.
pub(super) const NODE_OLDEST: (u32, u32) = (18, 19);

/// A node pith observes, by the version it printed; else why not, as [`vitest_in_range`]. A
/// version pith could not read is taken for a current one.
fn node_in_range(version: Option<String>) -> Result<(), String> {
    let Some(version) = version else {
        return Ok(());
    };
    match node_minor(&version) {
        Some(v) if v >= NODE_OLDEST => Ok(()),
        _ => Err(format!(
            "node {version} is installed; pith supports node {}.{} and newer: install one of those (https://nodejs.org)",
            NODE_OLDEST.0, NODE_OLDEST.1
        )),
    }
}

/// `18.19.0` as (18, 19).
fn node_minor(version: &str) -> Option<(u32, u32)> {
    let mut parts = version.trim().split('.');
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

/// The node binary `program` is, links followed: the one whose answer may be kept (see
/// [`crate::kept_answer`]); None for a shim or wrapper script, whose answer is not its own.
fn node_itself(program: &Path) -> Option<std::path::PathBuf> {
    use std::io::Read;
    let real = std::fs::canonicalize(program).ok()?;
    // A version manager's shim can be a binary too (volta's `volta-shim`), choosing its node
    // per project: only node itself answers for every project that runs it.
    let name = real.file_name()?.to_str()?;
    if name != "node" && name != "nodejs" {
        return None;
    }
    let mut magic = [0u8; 4];
    std::fs::File::open(&real)
        .ok()?
        .read_exact(&mut magic)
        .ok()?;
    (&magic == b"\x7fELF").then_some(real)
}

/// The mocha majors pith observes (docs/runners.md): 9 to 11, each serializing a test's
/// `titlePath()` for reporters in parallel mode and exporting the `loadOptions` pith's reporter
/// reads the project's reporter with (checked on 9.2.2 and 11.8.0, the scenario rows'); a
/// major newer than pith knows may have moved either.
pub(super) const MOCHA_MAJORS: std::ops::RangeInclusive<u32> = 9..=11;

/// The mocha beside `program` is one pith observes; else why not, as [`vitest_in_range`].
fn mocha_in_range(program: &Path) -> Result<(), String> {
    let Some(version) = Js::installed_version(program, "mocha") else {
        return Ok(());
    };
    match major(&version) {
        Some(m) if MOCHA_MAJORS.contains(&m) => Ok(()),
        _ => Err(format!(
            "mocha {version} is installed; pith supports mocha {}.0 to {}.x: install one of those (npm install -D mocha@{})",
            MOCHA_MAJORS.start(),
            MOCHA_MAJORS.end(),
            MOCHA_MAJORS.end()
        )),
    }
}

/// The vitest majors pith observes (docs/runners.md): the reporter hooks pith's reporter uses
/// exist from 1.0 (the task hooks, through 2.x) or 3.0 (the test-module hooks, 3 and 4), and
/// every flag pith passes is accepted from 1.0. vitest 0.x's reporter and CLI differ, and a
/// major newer than pith knows may reject what it passes.
pub(super) const VITEST_MAJORS: std::ops::RangeInclusive<u32> = 1..=4;

/// The vitest beside `program` is one pith observes; else why not, as the install hint of a
/// `RunnerMissing` answer: never a run with flags it would reject. A version pith cannot read
/// (no `package.json` beside the program) is taken for a current one.
fn vitest_in_range(program: &Path) -> Result<(), String> {
    let Some(version) = Js::installed_version(program, "vitest") else {
        return Ok(());
    };
    match major(&version) {
        Some(m) if VITEST_MAJORS.contains(&m) => Ok(()),
        _ => Err(format!(
            "vitest {version} is installed; pith supports vitest {}.0 to {}.x: upgrade it (npm install -D vitest@{})",
            VITEST_MAJORS.start(),
            VITEST_MAJORS.end(),
            VITEST_MAJORS.end()
        )),
    }
}

/// A version's major number (`2.1.9` → 2, `4.0.0-beta.3` → 4).
fn major(version: &str) -> Option<u32> {
    version.trim().split('.').next()?.parse().ok()
}

/// `--includeTaskLocation` is a CLI flag from vitest 3.0 (its `cli-config` options); vitest 1.4
/// to 2.x have it as a configuration option alone and stop at the flag ("Unknown option"),
/// 1.0 to 1.3 have no location at all. pith reads each failure's place from its stack, so
/// where the flag is missing nothing is lost: the location is left out rather than set in the
/// project's configuration. An unknown version is taken for a current one.
/// <https://github.com/vitest-dev/vitest/releases/tag/v1.4.0> (the option),
/// <https://vitest.dev/config/includetasklocation>.
fn vitest_location_flag(major: Option<u32>) -> bool {
    major.is_none_or(|m| m >= 3)
}

/// A boolean option of vitest's switched off. vitest 1 passes `--x=false` on as the string
/// `"false"`, which is true (`--coverage.enabled=false` loads the coverage provider); its
/// argument parser (cac) reads `--no-x` as false, the form used there. vitest 2 and later type
/// their options and take `--x=false`.
fn vitest_off(option: &str, major: Option<u32>) -> String {
    if major == Some(1) {
        format!("--no-{option}")
    } else {
        format!("--{option}=false")
    }
}

/// The full-name pattern as the vitest at hand matches it: vitest 1's full names start with
/// its unnamed default suite (`" price dollars"`), so a space may lead.
fn vitest_name_pattern(pattern: &str, major: Option<u32>) -> String {
    match (major, pattern.strip_prefix('^')) {
        (Some(1), Some(rest)) => format!("^ ?{rest}"),
        _ => pattern.to_owned(),
    }
}

/// jest's coverage of the traced files alone, whatever the configuration says of coverage: V8's
/// (no instrumentation; jest maps it back through each transform's source map) or, where the
/// run traces itself, babel's and istanbul's instrumentation, as istanbul's
/// JSON, with no thresholds to judge and no ignore pattern that could hide a traced file (the
/// one given matches no path).
fn jest_cover(cmd: &mut Command, cover: &JestCover<'_>) {
    cmd.args([
        "--coverage",
        "--coverageReporters=json",
        "--coverageThreshold={}",
        "--coveragePathIgnorePatterns=^$",
    ]);
    if cover.v8 {
        cmd.arg("--coverageProvider=v8");
    }
    // One option per glob: every jest reads repeated options as a list.
    for g in cover.globs {
        cmd.arg(format!("--collectCoverageFrom={g}"));
    }
}

/// What a jest tracing re-run covers: the globs, and whether through V8.
struct JestCover<'a> {
    globs: &'a [String],
    v8: bool,
}

/// vitest's coverage of the traced files alone through `@vitest/coverage-v8` (the caller checks
/// it is installed), as istanbul's JSON: written although the tests fail (they do: they are
/// the failing ones), with no exclusion but one that matches no path. Thresholds stay (they decide only the exit code,
/// which is ignored) but never update the configuration file (`autoUpdate` writes to it).
fn vitest_cover(cmd: &mut Command, cover: &Cover, major: Option<u32>) {
    cmd.args([
        "--coverage.enabled=true",
        "--coverage.provider=v8",
        "--coverage.reporter=json",
        "--coverage.reportOnFailure=true",
    ]);
    cmd.arg(vitest_off("coverage.thresholds.autoUpdate", major))
        .arg("--coverage.exclude=/__pith_excludes_nothing__");
    for g in &cover.globs {
        cmd.arg(format!("--coverage.include={g}"));
    }
}

/// A path as a glob matching only itself (jest's and vitest's picomatch): every character
/// that means something in a glob escaped.
pub(super) fn glob_literal(path: &str) -> String {
    crate::text::escape_chars(path, |c| "\\*?[]{}()!+@,".contains(c))
}

/// How the project installs its packages, from its lockfile.
pub(super) fn install_command(dir: &Path) -> &'static str {
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
pub(super) struct Selection {
    /// Every requested id, normalized.
    pub(super) ids: Vec<String>,
    /// Their files, workspace-relative, each once.
    pub(super) files: Vec<String>,
    /// Files asked for whole.
    pub(super) whole: Vec<String>,
    /// The names of each id that names a test.
    pub(super) names: Vec<Vec<String>>,
}

impl Selection {
    /// The selection, and the ids whose file is not in the workspace.
    pub(super) fn of(ids: &[String], root: &Path) -> (Selection, Vec<String>) {
        let mut sel = Selection::default();
        let mut gone = Vec::new();
        for raw in ids {
            let id = Self::normal(raw);
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

    /// An id as the selection holds it: trimmed, without a leading `./`.
    pub(super) fn normal(raw: &str) -> String {
        raw.trim().trim_start_matches("./").to_owned()
    }

    pub(super) fn wants(&self, id: &str, file: &str) -> bool {
        self.whole.iter().any(|w| w == file) || self.ids.iter().any(|i| i == id)
    }

    /// jest's and vitest's `-t`: the full names (levels joined by a space); a level whose title
    /// holds ` > ` was split, so either joint matches. None when a whole file is asked for.
    pub(super) fn full_name_pattern(&self) -> Option<String> {
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
    pub(super) fn node_pattern(&self) -> Option<String> {
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
pub(super) fn escape(s: &str) -> String {
    crate::text::escape_chars(s, |c| "\\^$.*+?()[]{}|/".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::is_test_id;

    #[test]
    fn jest_coverage_takes_one_option_per_glob_and_v8_unless_instrumented() {
        let globs = ["src/a.js".to_owned(), "lib/b.js".to_owned()];
        let args = |v8| {
            let mut cmd = Command::new("jest");
            jest_cover(&mut cmd, &JestCover { globs: &globs, v8 });
            cmd.get_args()
                .map(|a| a.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
        };
        let instrumented = args(false);
        assert!(instrumented
            .iter()
            .all(|a| !a.starts_with("--coverageProvider")));
        assert_eq!(
            instrumented
                .iter()
                .filter(|a| a.starts_with("--collectCoverageFrom="))
                .collect::<Vec<_>>(),
            [
                "--collectCoverageFrom=src/a.js",
                "--collectCoverageFrom=lib/b.js"
            ]
        );
        assert!(args(true).contains(&"--coverageProvider=v8".to_owned()));
    }

    #[test]
    fn jest_outside_27_to_30_is_named_with_the_range() {
        let d = tempfile::tempdir().unwrap();
        let bin = d.path().join("node_modules/.bin/jest");
        std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
        // No package.json beside it: taken for a current one.
        assert_eq!(jest_in_range(&bin), Ok(()));
        // A project that depends on jest-cli alone: its version.
        let cli = d.path().join("node_modules/jest-cli");
        std::fs::create_dir_all(&cli).unwrap();
        std::fs::write(cli.join("package.json"), r#"{"version": "26.6.3"}"#).unwrap();
        assert!(jest_in_range(&bin).is_err());
        std::fs::create_dir_all(d.path().join("node_modules/jest")).unwrap();
        let pkg = d.path().join("node_modules/jest/package.json");
        for (version, ok) in [
            ("22.4.3", false),
            ("26.6.3", false),
            ("27.0.6", true),
            ("29.7.0", true),
            ("30.5.2", true),
            ("31.0.0", false),
        ] {
            std::fs::write(&pkg, format!(r#"{{"version": "{version}"}}"#)).unwrap();
            assert_eq!(
                Js::installed_major(&bin, "jest"),
                major(version),
                "{version}"
            );
            let r = jest_in_range(&bin);
            assert_eq!(r.is_ok(), ok, "{version}: {r:?}");
            if let Err(hint) = r {
                assert!(
                    hint.starts_with(&format!(
                        "jest {version} is installed; pith supports jest 27.0 to 30.x"
                    )),
                    "{hint}"
                );
            }
        }
        assert_eq!(Js::installed_major(&bin, "vitest"), None);
    }

    #[test]
    fn what_each_vitest_is_given_follows_its_version() {
        let d = tempfile::tempdir().unwrap();
        let bin = d.path().join("node_modules/.bin/vitest");
        std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
        std::fs::create_dir_all(d.path().join("node_modules/vitest")).unwrap();
        let pkg = d.path().join("node_modules/vitest/package.json");
        // No package.json beside it: taken for a current one.
        assert_eq!(vitest_in_range(&bin), Ok(()));
        for (version, ok) in [
            ("0.34.6", false),
            ("1.0.0", true),
            ("2.1.9", true),
            ("3.0.0", true),
            ("4.1.12", true),
            ("5.0.0-beta.1", false),
        ] {
            std::fs::write(&pkg, format!(r#"{{"version": "{version}"}}"#)).unwrap();
            let r = vitest_in_range(&bin);
            assert_eq!(r.is_ok(), ok, "{version}: {r:?}");
            if let Err(hint) = r {
                assert!(
                    hint.starts_with(&format!(
                        "vitest {version} is installed; pith supports vitest 1.0 to 4.x"
                    )),
                    "{hint}"
                );
            }
        }
        // The location flag from vitest 3 (CLI), else none; booleans off as each parses them.
        let flag: Vec<bool> = [None, Some(1), Some(2), Some(3), Some(4)]
            .into_iter()
            .map(vitest_location_flag)
            .collect();
        assert_eq!(flag, [true, false, false, true, true]);
        assert_eq!(
            vitest_off("coverage.enabled", Some(1)),
            "--no-coverage.enabled"
        );
        assert_eq!(
            vitest_off("coverage.enabled", Some(2)),
            "--coverage.enabled=false"
        );
        assert_eq!(
            vitest_off("coverage.enabled", None),
            "--coverage.enabled=false"
        );
        assert_eq!(
            vitest_name_pattern("^(?:a(?: | > )b)$", Some(1)),
            "^ ?(?:a(?: | > )b)$"
        );
        assert_eq!(vitest_name_pattern("^(?:a)$", Some(2)), "^(?:a)$");
    }

    #[test]
    fn mocha_outside_9_to_11_is_named_with_the_range() {
        let d = tempfile::tempdir().unwrap();
        let bin = d.path().join("node_modules/.bin/mocha");
        std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
        std::fs::create_dir_all(d.path().join("node_modules/mocha")).unwrap();
        let pkg = d.path().join("node_modules/mocha/package.json");
        assert_eq!(mocha_in_range(&bin), Ok(()));
        for (version, ok) in [
            ("8.4.0", false),
            ("9.2.2", true),
            ("10.8.2", true),
            ("11.8.0", true),
            ("12.0.3", false),
        ] {
            std::fs::write(&pkg, format!(r#"{{"version": "{version}"}}"#)).unwrap();
            let r = mocha_in_range(&bin);
            assert_eq!(r.is_ok(), ok, "{version}: {r:?}");
            if let Err(hint) = r {
                assert!(
                    hint.starts_with(&format!(
                        "mocha {version} is installed; pith supports mocha 9.0 to 11.x"
                    )),
                    "{hint}"
                );
            }
        }
    }

    #[test]
    fn node_before_18_19_is_named_with_the_range() {
        assert_eq!(node_in_range(None), Ok(()));
        for (version, ok) in [
            ("16.20.2", false),
            ("18.15.0", false),
            ("18.18.2", false),
            ("18.19.0", true),
            ("18.20.8", true),
            ("20.20.2", true),
            ("24.1.0", true),
            ("18", false),
        ] {
            let r = node_in_range(Some(version.to_owned()));
            assert_eq!(r.is_ok(), ok, "{version}: {r:?}");
            if let Err(hint) = r {
                assert!(
                    hint.starts_with(&format!(
                        "node {version} is installed; pith supports node 18.19 and newer"
                    )),
                    "{hint}"
                );
            }
        }
    }

    /// node's version is asked of the program, in the script's directory and environment; a
    /// script (a version manager's shim) is asked every time, a node binary once.
    #[test]
    fn node_version_is_asked_and_kept_only_for_a_binary() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let cache = d.path().join("cache");
        let shim = d.path().join("node");
        let write = |version: &str| {
            std::fs::write(
                &shim,
                format!(
                    "#!/bin/sh\n[ \"$1\" = --version ] && [ \"$PITH_T\" = 1 ] && echo v{version}\n"
                ),
            )
            .unwrap();
            std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
        };
        let mut js = Js::new(Runner::Node, d.path());
        js.env.push(("PITH_T".to_owned(), "1".to_owned()));
        write("16.20.2");
        assert_eq!(js.node_version(&shim, &cache).as_deref(), Some("16.20.2"));
        write("18.19.0");
        assert_eq!(js.node_version(&shim, &cache).as_deref(), Some("18.19.0"));
        assert!(!cache.exists(), "a shim's answer is not kept");
        // What does not print a version is taken for a current node.
        js.env.clear();
        assert_eq!(js.node_version(&shim, &cache), None);

        // node itself: asked once, then its kept answer is the one given.
        let node = crate::on_path("node").expect("node is on PATH (scripts/setup/js.sh)");
        let asked = js
            .node_version(&node, &cache)
            .expect("node prints its version");
        let real = node_itself(&node).expect("node is an ELF binary named node");
        let mut again = false;
        let kept = crate::kept_answer(&cache, "node-version", &real, || {
            again = true;
            None
        });
        assert_eq!(kept.as_deref(), Some(asked.as_str()));
        assert!(!again, "node's answer was not kept");
        assert_eq!(node_itself(&shim), None);
        // A binary shim (volta's) picks its node per project: asked every time, like a script.
        let binary_shim = d.path().join("volta-shim");
        std::fs::copy(&node, &binary_shim).unwrap();
        let linked = d.path().join("bin");
        std::fs::create_dir(&linked).unwrap();
        std::os::unix::fs::symlink(&binary_shim, linked.join("node")).unwrap();
        assert_eq!(node_itself(&linked.join("node")), None);
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
    fn ids_that_start_with_a_dash_name_nothing() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("-x.test.js"), "").unwrap();
        let ids = ["-x.test.js".to_owned(), "--help".to_owned()];
        let (sel, gone) = Selection::of(&ids, d.path());
        assert!(sel.files.is_empty());
        assert_eq!(gone, ids);
        assert!(!is_test_id("--config.test.js"));
    }
}
