//! One runner command of a `test` script (`jest ...`, `vitest run ...`, `node --test ...`,
//! `node [options] node_modules/.bin/jest ...`): which runner, and what each of its words is to
//! pith. The script as a whole is read by `plan`; this module classifies a command it found to
//! run a runner.
//!
//! The command is honoured: every option is kept, in the order written, the script's own
//! `--ci`, `-u`/`--updateSnapshot`, `--update` and `--test-update-snapshots` included (the
//! runner writes snapshots as the script says), except the few pith sets itself (its reports,
//! watch mode: pith runs once), and options that make the runner run no test (`--listTests`,
//! `--showConfig`) are named so the answer says so instead of dropping them. Options that
//! select tests (name patterns, path filters, `--onlyChanged`, shards) and coverage options
//! apply to full runs only: a re-run of named tests is selected by its ids, and a global
//! coverage threshold cannot judge a subset.

use std::path::Path;

use serde_json::Value;

/// A JavaScript test runner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Runner {
    Jest,
    Vitest,
    Node,
    Mocha,
}

impl Runner {
    pub(crate) const ALL: [Runner; 4] = [Runner::Jest, Runner::Vitest, Runner::Node, Runner::Mocha];

    pub const fn name(self) -> &'static str {
        match self {
            Runner::Jest => "jest",
            Runner::Vitest => "vitest",
            Runner::Node => "node",
            Runner::Mocha => "mocha",
        }
    }
}

/// What the `test` script says beyond the runner's name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Script {
    /// `VAR=value` assignments before the command (also through `cross-env`).
    pub env: Vec<(String, String)>,
    /// node options written before the runner's own script (`node --expose-gc
    /// node_modules/.bin/jest`): pith runs `node <these> <the runner's script>` likewise.
    pub node: Vec<String>,
    /// The runner's words after its name (for `node --test`, every node option and file), in
    /// the order written, each with what it is to pith.
    pub words: Vec<Word>,
}

/// One word of the script after the runner's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    pub role: Role,
}

/// What an option (with its value) or a positional argument of the script is to pith.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Passed on in every run.
    Keep,
    /// Selects tests (a name pattern, `--onlyChanged`, a shard): full runs only.
    Select,
    /// A positional argument (a file, a glob, a path filter): full runs only.
    Path,
    /// Coverage and its thresholds: full runs only.
    Coverage,
    /// pith sets its own (reports, the CI switch) or runs once (watch mode): dropped.
    Managed,
    /// Cannot be honoured (it would write into the project, or run no test): the run is not
    /// green and the answer names it.
    Unhonoured,
}

impl Script {
    /// The words passed on: all kept ones, and in a full run also those that select tests or
    /// configure coverage.
    pub fn args(&self, full: bool) -> Vec<String> {
        self.words
            .iter()
            .filter(|w| match w.role {
                Role::Keep => true,
                Role::Select | Role::Path | Role::Coverage => full,
                Role::Managed | Role::Unhonoured => false,
            })
            .map(|w| w.text.clone())
            .collect()
    }

    /// [`Script::args`] without the positional arguments (node's options, which must come
    /// before its files).
    pub fn options(&self, full: bool) -> Vec<String> {
        self.words
            .iter()
            .filter(|w| match w.role {
                Role::Keep => true,
                Role::Select | Role::Coverage => full,
                Role::Path | Role::Managed | Role::Unhonoured => false,
            })
            .map(|w| w.text.clone())
            .collect()
    }

    /// Options pith could not honour, as written (with their values).
    pub fn unhonoured(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut i = 0;
        while let Some(w) = self.words.get(i) {
            if w.role == Role::Unhonoured {
                let mut text = w.text.clone();
                while let Some(v) = self
                    .words
                    .get(i + 1)
                    .filter(|v| v.role == Role::Unhonoured && !v.text.starts_with('-'))
                {
                    text.push(' ');
                    text.push_str(&v.text);
                    i += 1;
                }
                out.push(text);
            }
            i += 1;
        }
        out
    }

    /// Whether an option the script passes on is `name` (any of its spellings).
    fn has(&self, names: &[&str]) -> bool {
        self.words
            .iter()
            .filter(|w| w.role != Role::Managed && w.role != Role::Unhonoured)
            .any(|w| names.contains(&option_name(&w.text)))
    }

    /// Whether the script says anything of coverage (`--coverage`, `--collectCoverageFrom`,
    /// thresholds...): then pith leaves its coverage alone.
    pub fn mentions_coverage(&self) -> bool {
        self.words
            .iter()
            .any(|w| w.role == Role::Coverage || w.text.to_ascii_lowercase().contains("coverage"))
    }

    /// Whether the script names reporters of its own (jest `--reporters`, vitest
    /// `--reporter`): pith adds its own to them.
    pub fn has_reporters(&self) -> bool {
        self.has(&["reporters", "reporter"])
    }

    /// The exit code jest uses for failed tests when the script sets one
    /// (`--testFailureExitCode`).
    pub fn failure_exit_code(&self) -> Option<i32> {
        let i = self
            .words
            .iter()
            .position(|w| option_name(&w.text) == "testFailureExitCode")?;
        let w = &self.words[i].text;
        let value = match w.split_once('=') {
            Some((_, v)) => v,
            None => self.words.get(i + 1)?.text.as_str(),
        };
        value.trim().parse().ok()
    }

    /// node: how many `--test-reporter` and `--test-reporter-destination` options the script
    /// passes on.
    pub fn node_reporters(&self) -> (usize, usize) {
        let kept = self.options(true);
        let count = |name: &str| {
            kept.iter()
                .filter(|w| w.starts_with('-') && option_name(w) == name)
                .count()
        };
        (count("test-reporter"), count("test-reporter-destination"))
    }

    /// mocha: the reporter the script names (`--reporter spec`, `-R dot`), which pith's
    /// reporter runs inside itself (mocha takes one).
    pub fn mocha_reporter(&self) -> Option<String> {
        let i = self
            .words
            .iter()
            .rposition(|w| matches!(option_name(&w.text), "reporter" | "R"))?;
        match self.words[i].text.split_once('=') {
            Some((_, v)) => Some(v.to_owned()),
            None => self.words.get(i + 1).map(|w| w.text.clone()),
        }
    }

    /// The positional arguments (node's files and globs).
    pub fn paths(&self) -> Vec<String> {
        self.words
            .iter()
            .filter(|w| w.role == Role::Path)
            .map(|w| w.text.clone())
            .collect()
    }
}

/// An option's name without dashes, `no-` and value: `--no-coverage=x` → `coverage`.
pub(crate) fn option_name(word: &str) -> &str {
    if !word.starts_with('-') {
        return "";
    }
    let name = word.trim_start_matches('-');
    let name = name.split('=').next().unwrap_or(name);
    name.strip_prefix("no-").unwrap_or(name)
}

/// Whether jest's configuration for `dir` declares reporters of its own: the `--config` the
/// script names (a file, or JSON given inline), else `jest.config.*`, else `package.json`'s
/// `jest` key. A configuration file is code, so a mention of `reporters` in it counts.
pub fn config_has_reporters(dir: &Path, script: &Script) -> bool {
    match config_text(dir, script) {
        Config::Text(t) => t.contains("reporters"),
        Config::Package(jest) => jest.get("reporters").is_some(),
        Config::Unreadable | Config::Absent => false,
    }
}

/// The reporters vitest's configuration names (`test.reporters` in the `--config` file the
/// script names, else `vitest.config.*`, else `vite.config.*`), as `--reporter` values, each
/// with the options the command line can carry (`outputFile`): vitest's `--reporter` replaces
/// the configuration's, so pith, adding its own, names them again. Only literal names are
/// read; a list built by code is not, and such a configuration loses its reporters to pith's
/// (its tests and verdict are the same; its reporters' output is not written).
pub fn vitest_config_reporters(dir: &Path, script: &Script) -> Vec<String> {
    let named = config_option(script).flatten();
    let text = match named {
        Some(v) => std::fs::read_to_string(dir.join(v)).ok(),
        None => ["vitest", "vite"]
            .iter()
            .flat_map(|base| {
                ["ts", "mts", "cts", "js", "mjs", "cjs"].map(|e| format!("{base}.config.{e}"))
            })
            .find_map(|f| std::fs::read_to_string(dir.join(f)).ok()),
    };
    text.map(|t| reporters_in(&t)).unwrap_or_default()
}

/// The literal reporter names of a `reporters:` key in configuration code.
fn reporters_in(text: &str) -> Vec<String> {
    let Some(at) = text.find("reporters") else {
        return Vec::new();
    };
    let rest = text[at + "reporters".len()..].trim_start();
    let Some(rest) = rest.strip_prefix(':') else {
        return Vec::new();
    };
    let rest = rest.trim_start();
    if let Some((name, _)) = string_literal(rest) {
        return vec![name];
    }
    let Some(mut rest) = rest.strip_prefix('[') else {
        return Vec::new();
    };
    let mut out = Vec::new();
    loop {
        rest = rest.trim_start().trim_start_matches(',').trim_start();
        if rest.starts_with(']') || rest.is_empty() {
            return out;
        }
        if let Some((name, after)) = string_literal(rest) {
            out.push(name);
            rest = after;
        } else if let Some(tuple) = rest.strip_prefix('[') {
            // `['junit', { outputFile: 'x.xml' }]`: the name; its options stay the config's.
            let Some((name, after)) = string_literal(tuple.trim_start()) else {
                return Vec::new();
            };
            out.push(name);
            let Some(end) = after.find(']') else {
                return Vec::new();
            };
            rest = &after[end + 1..];
        } else {
            // A reporter built by code: the list cannot be named on the command line.
            return Vec::new();
        }
    }
}

fn string_literal(s: &str) -> Option<(String, &str)> {
    let q = s.chars().next().filter(|c| matches!(c, '\'' | '"' | '`'))?;
    let end = s[1..].find(q)?;
    let name = &s[1..=end];
    (!name.contains('\n') && !name.contains("${")).then(|| (name.to_owned(), &s[end + 2..]))
}

/// Whether jest's configuration mentions `word` anywhere, case aside: a reading that errs
/// towards yes (a configuration file pith cannot read does).
pub fn config_mentions(dir: &Path, script: &Script, word: &str) -> bool {
    let word = word.to_ascii_lowercase();
    let mentions = |text: &str| text.to_ascii_lowercase().contains(&word);
    match config_text(dir, script) {
        Config::Text(t) => mentions(&t),
        Config::Package(jest) => mentions(&jest.to_string()),
        Config::Unreadable => true,
        Config::Absent => false,
    }
}

/// jest's configuration as pith reads it: the file or inline JSON the script names (`--config`),
/// else the first `jest.config.*`, else `package.json`'s `jest`.
enum Config {
    Text(String),
    Package(Value),
    /// Named but not readable.
    Unreadable,
    Absent,
}

fn config_text(dir: &Path, script: &Script) -> Config {
    if let Some(value) = config_option(script) {
        return match value {
            Some(v) if v.trim_start().starts_with('{') => Config::Text(v),
            Some(v) => {
                std::fs::read_to_string(dir.join(v)).map_or(Config::Unreadable, Config::Text)
            }
            None => Config::Absent,
        };
    }
    for ext in ["js", "ts", "mjs", "cjs", "cts", "mts", "json"] {
        if let Ok(text) = std::fs::read_to_string(dir.join(format!("jest.config.{ext}"))) {
            return Config::Text(text);
        }
    }
    std::fs::read(dir.join("package.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .and_then(|mut v| v.get_mut("jest").map(Value::take))
        .map_or(Config::Absent, Config::Package)
}

/// What the script's jest `--config` (`-c`) says: `None` without one, `Some(None)` when it has
/// no value.
fn config_option(script: &Script) -> Option<Option<String>> {
    let words = &script.words;
    let i = words
        .iter()
        .position(|w| matches!(option_name(&w.text), "config" | "c"))?;
    Some(match words[i].text.split_once('=') {
        Some((_, v)) => Some(v.to_owned()),
        None => words.get(i + 1).map(|w| w.text.clone()),
    })
}

/// The configuration file the script names with `--config`, relative to `dir` (not inline
/// JSON): jest's root directory is its directory unless it says otherwise.
pub fn config_file(dir: &Path, script: &Script) -> Option<std::path::PathBuf> {
    let v = config_option(script)??;
    (!v.trim_start().starts_with('{')).then(|| dir.join(v))
}

/// The runner a script runs, with what it adds: the first command of its list that runs one
/// (for tests: the adapter reads scripts whole, see `plan`).
#[cfg(test)]
pub fn from_script(script: &str) -> Option<(Runner, Script)> {
    super::shell::parse(script, &|_| None)
        .into_iter()
        .find_map(|c| command(&c.words.into_iter().map(|w| w.text).collect::<Vec<_>>()))
}

/// Which runner a program word is: `jest`, `node_modules/.bin/vitest`, `node`.
fn runner_word(w: &str) -> Option<Runner> {
    let base = w.rsplit('/').next().unwrap_or(w);
    match base {
        "jest" | "jest.js" => Some(Runner::Jest),
        "vitest" | "vitest.mjs" => Some(Runner::Vitest),
        "node" => Some(Runner::Node),
        "mocha" | "_mocha" | "mocha.js" => Some(Runner::Mocha),
        _ => None,
    }
}

/// node options whose value is the next word.
const NODE_VALUE_OPTIONS: &[&str] = &[
    "import",
    "require",
    "r",
    "loader",
    "experimental-loader",
    "test-concurrency",
    "test-timeout",
    "test-name-pattern",
    "test-skip-pattern",
    "test-reporter",
    "test-reporter-destination",
    "test-shard",
    "test-coverage-include",
    "test-coverage-exclude",
    "test-coverage-lines",
    "test-coverage-branches",
    "test-coverage-functions",
    "test-isolation",
    "test-global-setup",
    "env-file",
    "env-file-if-exists",
    "conditions",
    "C",
    "input-type",
    "max-old-space-size",
    "stack-size",
    "title",
    "watch-path",
    "localstorage-file",
];

/// jest options whose value is the next word (yargs string, number and array options; an
/// array option is taken to hold one value).
const JEST_VALUE_OPTIONS: &[&str] = &[
    "cacheDirectory",
    "changedSince",
    "collectCoverageFrom",
    "config",
    "c",
    "coverageDirectory",
    "coverageThreshold",
    "filter",
    "globalSetup",
    "globalTeardown",
    "globals",
    "haste",
    "maxWorkers",
    "w",
    "moduleNameMapper",
    "outputFile",
    "preset",
    "prettierPath",
    "resolver",
    "rootDir",
    "runner",
    "shard",
    "testEnvironment",
    "env",
    "testEnvironmentOptions",
    "testFailureExitCode",
    "testNamePattern",
    "t",
    "testResultsProcessor",
    "testRunner",
    "testSequencer",
    "transform",
    "coveragePathIgnorePatterns",
    "coverageReporters",
    "ignoreProjects",
    "moduleDirectories",
    "moduleFileExtensions",
    "modulePathIgnorePatterns",
    "modulePaths",
    "projects",
    "reporters",
    "roots",
    "selectProjects",
    "setupFiles",
    "setupFilesAfterEnv",
    "snapshotSerializers",
    "testMatch",
    "testPathIgnorePatterns",
    "testPathPatterns",
    "testPathPattern",
    "testRegex",
    "transformIgnorePatterns",
    "unmockedModulePathPatterns",
    "watchPathIgnorePatterns",
    "coverageProvider",
    "notifyMode",
    "maxConcurrency",
    "openHandlesTimeout",
    "seed",
    "testTimeout",
    "workerGracefulExitTimeout",
];

/// vitest's boolean options (mri takes the next word as the value of any other option).
const VITEST_BOOLEAN_OPTIONS: &[&str] = &[
    "watch",
    "w",
    "ui",
    "open",
    "hideSkippedTests",
    "coverage",
    "isolate",
    "globals",
    "dom",
    "fileParallelism",
    "passWithNoTests",
    "logHeapUsage",
    "detectAsyncLeaks",
    "allowOnly",
    "dangerouslyIgnoreUnhandledErrors",
    "expandSnapshotDiff",
    "disableConsoleIntercept",
    "typecheck",
    "cache",
    "printConsoleTrace",
    "includeTaskLocation",
    "run",
    "color",
    "clearScreen",
    "standalone",
    "clearCache",
    "strictTags",
    "unstubEnvs",
    "unstubGlobals",
    "clearMocks",
    "mockReset",
    "restoreMocks",
    "bail",
];

/// Leaves of vitest's dotted options (`--coverage.enabled`) that take no value.
const VITEST_BOOLEAN_LEAVES: &[&str] = &[
    "enabled",
    "all",
    "clean",
    "cleanOnRerun",
    "reportOnFailure",
    "allowExternal",
    "skipFull",
    "perFile",
    "autoUpdate",
    "100",
    "excludeAfterRemap",
    "ignoreEmptyLines",
    "headless",
    "concurrent",
    "shuffle",
    "only",
    "ignoreSourceErrors",
];

/// The runner a command's words start, after the prefixes that only set its environment or
/// find its program (`A=b`, `cross-env`, `npx`, `env`, `yarn jest`).
#[cfg(test)]
fn command(words: &[String]) -> Option<(Runner, Script)> {
    let mut env: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    while let Some(w) = words.get(i) {
        match w.split_once('=') {
            Some((var, value)) if super::shell::is_name(var) => {
                env.push((var.to_owned(), value.to_owned()));
                i += 1;
            }
            _ if matches!(w.as_str(), "cross-env" | "npx" | "env" | "exec" | "--") => i += 1,
            _ if matches!(w.as_str(), "yarn" | "pnpm" | "bun")
                && words.get(i + 1).is_some_and(|n| runner_word(n).is_some()) =>
            {
                i += 1
            }
            _ => break,
        }
    }
    let (runner, mut script) = runner_command(&words[i..])?;
    script.env = env;
    Some((runner, script))
}

/// The runner `words` run, their first word naming it (`jest`, `vitest`,
/// `node_modules/.bin/jest`, `node --test`, `node [options] <jest's script>`), with what the
/// rest says; `None` when they run no runner pith knows (`node server.js`).
pub(crate) fn runner_command(words: &[String]) -> Option<(Runner, Script)> {
    let mut script = Script::default();
    let mut i = 0;
    let mut runner = runner_word(words.get(i)?)?;
    i += 1;
    let rest = &words[i..];
    if runner == Runner::Node {
        // `node [opts] node_modules/.bin/jest ...` runs jest under node options.
        let mut j = 0;
        let mut testing = false;
        let mut node_words: Vec<Word> = Vec::new();
        while let Some(w) = rest.get(j) {
            if w == "--test" {
                testing = true;
            } else if w.starts_with('-') {
                let name = option_name(w);
                let takes = !w.contains('=') && NODE_VALUE_OPTIONS.contains(&name);
                let role = node_role(w);
                node_words.push(Word {
                    text: w.clone(),
                    role,
                });
                if takes {
                    if let Some(v) = rest.get(j + 1) {
                        node_words.push(Word {
                            text: v.clone(),
                            role,
                        });
                        j += 1;
                    }
                }
            } else if let Some(r) = runner_word(w).filter(|r| *r != Runner::Node) {
                runner = r;
                script.node = node_words
                    .iter()
                    .filter(|w| w.role != Role::Managed)
                    .map(|w| w.text.clone())
                    .collect();
                runner_args(r, &rest[j + 1..], &mut script);
                return Some((runner, script));
            } else if testing {
                node_words.push(Word {
                    text: w.clone(),
                    role: Role::Path,
                });
            } else {
                // `node script.js`: not a test runner.
                return None;
            }
            j += 1;
        }
        if !testing {
            return None;
        }
        script.words = node_words;
        return Some((runner, script));
    }
    runner_args(runner, rest, &mut script);
    Some((runner, script))
}

/// What a node option is to pith.
fn node_role(word: &str) -> Role {
    let name = option_name(word);
    match name {
        "test" => Role::Managed,
        _ if name.starts_with("watch") => Role::Managed,
        "inspect-brk" | "inspect-wait" => Role::Unhonoured,
        "test-name-pattern" | "test-only" | "test-shard" => Role::Select,
        "experimental-test-coverage" => Role::Coverage,
        _ if name.starts_with("test-coverage-") => Role::Coverage,
        _ => Role::Keep,
    }
}

/// What a jest option is to pith.
fn jest_role(name: &str) -> Role {
    match name {
        "json"
        | "outputFile"
        | "testLocationInResults"
        | "watchman"
        | "watch"
        | "watchAll"
        | "coverageDirectory" => Role::Managed,
        "listTests" | "showConfig" | "clearCache" | "init" | "version" | "v" | "help" | "h"
        | "collectTests" => Role::Unhonoured,
        "testNamePattern" | "t" | "testPathPatterns" | "testPathPattern" | "onlyChanged" | "o"
        | "changedSince" | "lastCommit" | "findRelatedTests" | "onlyFailures" | "f" | "shard"
        | "filter" | "runTestsByPath" => Role::Select,
        "coverage"
        | "collectCoverage"
        | "coverageThreshold"
        | "collectCoverageFrom"
        | "coverageReporters"
        | "coverageProvider"
        | "coveragePathIgnorePatterns" => Role::Coverage,
        _ => Role::Keep,
    }
}

/// What a mocha option is to pith. Its reporter is pith's, which runs the script's inside
/// itself ([`Script::mocha_reporter`]); `--reporter-option` stays, for the project's reporter.
fn mocha_role(name: &str) -> Role {
    match name {
        "reporter" | "R" | "watch" | "w" | "watch-files" | "watch-ignore" => Role::Managed,
        "list-reporters" | "list-interfaces" | "help" | "h" | "version" | "V" | "dry-run"
        | "inspect-brk" => Role::Unhonoured,
        "grep" | "g" | "fgrep" | "f" | "invert" | "i" => Role::Select,
        "spec" => Role::Path,
        _ => Role::Keep,
    }
}

/// mocha options whose value is the next word (its `run` command's string, number and array
/// options: <https://mochajs.org/#command-line-usage>).
const MOCHA_VALUE_OPTIONS: &[&str] = &[
    "config",
    "package",
    "reporter",
    "R",
    "reporter-option",
    "reporter-options",
    "O",
    "require",
    "r",
    "ui",
    "u",
    "timeout",
    "t",
    "timeouts",
    "slow",
    "s",
    "grep",
    "g",
    "fgrep",
    "f",
    "retries",
    "jobs",
    "j",
    "extension",
    "file",
    "ignore",
    "exclude",
    "spec",
    "watch-files",
    "watch-ignore",
    "node-option",
    "n",
    "global",
    "globals",
];

/// What a vitest option is to pith.
fn vitest_role(name: &str) -> Role {
    let top = name.split('.').next().unwrap_or(name);
    match top {
        "outputFile"
        | "watch"
        | "w"
        | "ui"
        | "open"
        | "api"
        | "standalone"
        | "clearScreen"
        | "run"
        | "color"
        | "includeTaskLocation" => Role::Managed,
        "reporter" | "reporters" => Role::Keep,
        "mergeReports" | "listTags" | "inspectBrk" | "clearCache" => Role::Unhonoured,
        "testNamePattern" | "t" | "changed" | "shard" | "related" | "tagsFilter" => Role::Select,
        "coverage" if name == "coverage.reportsDirectory" => Role::Managed,
        "coverage" => Role::Coverage,
        _ => Role::Keep,
    }
}

/// Whether a runner option written without `=` takes the next word as its value.
fn takes_value(runner: Runner, word: &str, name: &str) -> bool {
    if word.contains('=') || word.starts_with("--no-") {
        return false;
    }
    match runner {
        Runner::Jest => JEST_VALUE_OPTIONS.contains(&name),
        Runner::Vitest => match name.rsplit_once('.') {
            Some((_, leaf)) => !VITEST_BOOLEAN_LEAVES.contains(&leaf),
            None => !VITEST_BOOLEAN_OPTIONS.contains(&name),
        },
        Runner::Node => NODE_VALUE_OPTIONS.contains(&name),
        Runner::Mocha => MOCHA_VALUE_OPTIONS.contains(&name),
    }
}

/// The runner's own words, each classified, in order.
fn runner_args(runner: Runner, rest: &[String], script: &mut Script) {
    let mut i = 0;
    let mut positional_only = false;
    while let Some(w) = rest.get(i) {
        i += 1;
        if positional_only || !w.starts_with('-') || w == "-" {
            // vitest's first word may be its command: `run` is what pith runs; `watch` and
            // `dev` watch (pith runs once); `bench`, `list`, `init` run no test.
            let role = match (runner, w.as_str(), i == 1) {
                (Runner::Vitest, "run" | "watch" | "dev", true) => Role::Managed,
                (Runner::Vitest, "bench" | "list" | "init" | "typecheck", true) => Role::Unhonoured,
                _ => Role::Path,
            };
            script.words.push(Word {
                text: w.clone(),
                role,
            });
            continue;
        }
        if w == "--" {
            positional_only = true;
            script.words.push(Word {
                text: w.clone(),
                role: Role::Path,
            });
            continue;
        }
        let name = option_name(w);
        let role = match runner {
            Runner::Jest => jest_role(name),
            Runner::Vitest => vitest_role(name),
            Runner::Node => node_role(w),
            Runner::Mocha => mocha_role(name),
        };
        script.words.push(Word {
            text: w.clone(),
            role,
        });
        if takes_value(runner, w, name) {
            if let Some(v) = rest.get(i).filter(|v| !v.starts_with('-')) {
                script.words.push(Word {
                    text: v.clone(),
                    role,
                });
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn mocha_words_are_kept_but_its_reporter_and_watch() {
        let (r, sc) = from_script(
            "mocha --reporter spec --check-leaks -r ./setup.js --parallel --bail --exit -O foo=bar 'test/**/*.spec.js' --grep slow",
        )
        .unwrap();
        assert_eq!(r, Runner::Mocha);
        assert_eq!(sc.mocha_reporter().as_deref(), Some("spec"));
        assert_eq!(
            sc.args(true),
            s(&[
                "--check-leaks",
                "-r",
                "./setup.js",
                "--parallel",
                "--bail",
                "--exit",
                "-O",
                "foo=bar",
                "test/**/*.spec.js",
                "--grep",
                "slow"
            ])
        );
        assert_eq!(
            sc.args(false),
            s(&[
                "--check-leaks",
                "-r",
                "./setup.js",
                "--parallel",
                "--bail",
                "--exit",
                "-O",
                "foo=bar"
            ])
        );
        let (_, sc) = from_script("node_modules/.bin/_mocha -R=dot --watch").unwrap();
        assert_eq!(sc.mocha_reporter().as_deref(), Some("dot"));
        assert!(sc.args(true).is_empty());
        assert_eq!(from_script("mocha").unwrap().1.mocha_reporter(), None);
    }

    #[test]
    fn escaped_quotes_stay_in_their_word() {
        let words = |s: &str| -> Vec<String> {
            crate::js::shell::parse(s, &|_| None)
                .into_iter()
                .flat_map(|c| c.words)
                .map(|w| w.text)
                .collect()
        };
        assert_eq!(
            words(
                r#"jest --coverageThreshold="{ \"global\": { \"lines\": 100} }" a\ b 'c\d' "e\f""#
            ),
            s(&[
                "jest",
                r#"--coverageThreshold={ "global": { "lines": 100} }"#,
                "a b",
                r"c\d",
                r"e\f"
            ])
        );
        // dayjs's test script.
        let (r, sc) = from_script(
            r#"cross-env TZ=Europe/Paris npm run test-tz && jest --coverage --coverageThreshold="{ \"global\": { \"lines\": 100} }""#,
        )
        .unwrap();
        assert_eq!(r, Runner::Jest);
        assert!(sc
            .words
            .iter()
            .any(|w| w.text == r#"--coverageThreshold={ "global": { "lines": 100} }"#));
    }

    #[test]
    fn scripts_name_their_runner() {
        let (r, sc) =
            from_script("NODE_OPTIONS=--experimental-vm-modules jest --config jest.unit.js")
                .unwrap();
        assert_eq!(r, Runner::Jest);
        assert_eq!(
            sc.env,
            [(
                "NODE_OPTIONS".to_owned(),
                "--experimental-vm-modules".to_owned()
            )]
        );
        assert_eq!(sc.args(true), s(&["--config", "jest.unit.js"]));
        let (r, sc) = from_script("tsc --noEmit && vitest run --project unit src/").unwrap();
        assert_eq!(r, Runner::Vitest);
        assert_eq!(sc.args(true), s(&["--project", "unit", "src/"]));
        assert_eq!(sc.args(false), s(&["--project", "unit"]));
        let (r, sc) =
            from_script("node --import tsx --test --test-reporter=spec 'test/**/*.test.ts'")
                .unwrap();
        assert_eq!(r, Runner::Node);
        assert_eq!(
            sc.options(true),
            s(&["--import", "tsx", "--test-reporter=spec"])
        );
        assert_eq!(sc.node_reporters(), (1, 0));
        assert_eq!(sc.paths(), s(&["test/**/*.test.ts"]));
        // node options before the runner's script stay node's own, not the tests' environment.
        let (r, sc) = from_script(
            "cross-env TZ=UTC node --experimental-vm-modules node_modules/jest/bin/jest.js",
        )
        .unwrap();
        assert_eq!(r, Runner::Jest);
        assert_eq!(sc.env, [("TZ".to_owned(), "UTC".to_owned())]);
        assert_eq!(sc.node, s(&["--experimental-vm-modules"]));
        assert_eq!(from_script("node server.js"), None);
        assert_eq!(
            from_script("echo \"Error: no test specified\" && exit 1"),
            None
        );
        assert_eq!(from_script("npx jest").map(|x| x.0), Some(Runner::Jest));
    }

    #[test]
    fn options_that_change_the_verdict_are_kept() {
        let (_, sc) = from_script(
            "jest --coverage --bail --ci --detectOpenHandles --passWithNoTests --maxWorkers 2 \
             --json --outputFile=out.json --watch --reporters default --reporters jest-junit \
             -t adds src/ --testFailureExitCode 3 --coverageDirectory cov",
        )
        .unwrap();
        assert_eq!(
            sc.args(true),
            s(&[
                "--coverage",
                "--bail",
                "--ci",
                "--detectOpenHandles",
                "--passWithNoTests",
                "--maxWorkers",
                "2",
                "--reporters",
                "default",
                "--reporters",
                "jest-junit",
                "-t",
                "adds",
                "src/",
                "--testFailureExitCode",
                "3",
            ])
        );
        // A re-run of named tests: no selection of the script's, no coverage threshold.
        assert_eq!(
            sc.args(false),
            s(&[
                "--bail",
                "--ci",
                "--detectOpenHandles",
                "--passWithNoTests",
                "--maxWorkers",
                "2",
                "--reporters",
                "default",
                "--reporters",
                "jest-junit",
                "--testFailureExitCode",
                "3",
            ])
        );
        assert!(sc.has_reporters());
        assert_eq!(sc.failure_exit_code(), Some(3));
        assert!(sc.unhonoured().is_empty());

        let (_, sc) = from_script(
            "vitest run --coverage --coverage.thresholds.lines 90 --bail 1 --reporter=verbose \
             --outputFile=junit.xml -u --passWithNoTests tests/unit",
        )
        .unwrap();
        assert_eq!(
            sc.args(true),
            s(&[
                "--coverage",
                "--coverage.thresholds.lines",
                "90",
                "--bail",
                "1",
                "--reporter=verbose",
                "-u",
                "--passWithNoTests",
                "tests/unit",
            ])
        );
        // The script's own `-u` is honoured: the runner writes as `npm test` has it write.
        assert!(sc.unhonoured().is_empty());
        assert!(sc.has_reporters());

        let (_, sc) = from_script(
            "node --test --test-only --experimental-test-coverage --test-coverage-lines=90 \
             --test-reporter spec --watch --test-update-snapshots test/",
        )
        .unwrap();
        assert_eq!(
            sc.options(true),
            s(&[
                "--test-only",
                "--experimental-test-coverage",
                "--test-coverage-lines=90",
                "--test-reporter",
                "spec",
                "--test-update-snapshots"
            ])
        );
        assert_eq!(sc.paths(), s(&["test/"]));
        assert!(sc.unhonoured().is_empty());
        let (_, sc) = from_script("jest --listTests -u").unwrap();
        assert_eq!(sc.unhonoured(), s(&["--listTests"]));
    }

    #[test]
    fn reporters_in_the_configuration_are_seen() {
        let d = tempfile::tempdir().unwrap();
        let plain = Script::default();
        std::fs::write(
            d.path().join("package.json"),
            r#"{"jest":{"reporters":["default"]}}"#,
        )
        .unwrap();
        assert!(config_has_reporters(d.path(), &plain));
        std::fs::write(d.path().join("package.json"), r#"{"jest":{}}"#).unwrap();
        assert!(!config_has_reporters(d.path(), &plain));
        std::fs::write(
            d.path().join("jest.config.js"),
            "module.exports = { reporters: ['default', 'jest-junit'] };",
        )
        .unwrap();
        assert!(config_has_reporters(d.path(), &plain));
        let (_, named) = from_script("jest --config other.config.js").unwrap();
        std::fs::write(d.path().join("other.config.js"), "module.exports = {};").unwrap();
        assert!(!config_has_reporters(d.path(), &named));
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,200}") {
            let _ = from_script(&s);
        }
    }
}
