//! `package.json`: which test runner a JavaScript project uses, and what its `test` script adds
//! to the runner's command (environment assignments like `NODE_OPTIONS=...`, node options
//! before the runner, and every option of the runner itself). pith runs the runner itself,
//! never the script through a shell.
//!
//! The script is honoured: every option is kept, in the order written, except the few pith
//! sets itself (its reports, watch mode), and options pith cannot honour without editing the
//! project or never running the tests (`--updateSnapshot`, `--listTests`) are named so the
//! answer says so instead of dropping them. Options that select tests (name patterns, path
//! filters, `--onlyChanged`, shards) and coverage options apply to full runs only: a re-run of
//! named tests is selected by its ids, and a global coverage threshold cannot judge a subset.

use std::path::Path;

use serde_json::Value;

/// A JavaScript test runner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Runner {
    Jest,
    Vitest,
    Node,
}

impl Runner {
    pub const fn name(self) -> &'static str {
        match self {
            Runner::Jest => "jest",
            Runner::Vitest => "vitest",
            Runner::Node => "node",
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

/// The project's runner and its script, from `dir/package.json`. The `test` script decides when
/// it names a runner; else vitest, then jest, as a dependency.
pub fn read(dir: &Path) -> Option<(Runner, Script)> {
    let bytes = std::fs::read(dir.join("package.json")).ok()?;
    let v: Value = serde_json::from_slice(&bytes).ok()?;
    let scripts = v.get("scripts");
    let script_text = |name: &str| {
        scripts
            .and_then(|s| s.get(name))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    if let Some(test) = script_text("test") {
        if let Some(found) = from_script(&test) {
            return Some(found);
        }
        // `npm run test:unit`, `yarn test:unit`: one level down.
        for seg in segments(&test) {
            let words = tokens(seg);
            let target = match words.iter().map(String::as_str).collect::<Vec<_>>()[..] {
                ["npm" | "pnpm" | "bun", "run", t, ..] | ["yarn" | "pnpm", t, ..] => Some(t),
                _ => None,
            };
            if let Some(found) = target.and_then(&script_text).and_then(|s| from_script(&s)) {
                return Some(found);
            }
        }
    }
    let has = |dep: &str| {
        ["devDependencies", "dependencies"]
            .iter()
            .any(|k| v.get(k).and_then(|d| d.get(dep)).is_some())
    };
    if has("vitest") {
        Some((Runner::Vitest, Script::default()))
    } else if has("jest") {
        Some((Runner::Jest, Script::default()))
    } else {
        None
    }
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

/// The runner a script runs, with what it adds: the first command segment that runs one.
pub fn from_script(script: &str) -> Option<(Runner, Script)> {
    segments(script)
        .into_iter()
        .find_map(|seg| command(&tokens(seg)))
}

/// Command segments of a shell line, split at `&&`, `||`, `;` and `|`, quotes respected.
fn segments(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut quote) = (0, None::<char>);
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        match quote {
            Some(q) if c == q => quote = None,
            // An escaped character never ends a quote or a segment.
            Some('"') | None if c == '\\' => i += 1,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == ';' || c == '|' || (c == '&' && bytes.get(i + 1) == Some(&b'&')) => {
                out.push(&s[start..i]);
                if bytes.get(i + 1) == Some(&bytes[i]) {
                    i += 1;
                }
                start = i + 1;
            }
            None => {}
        }
        i += 1;
    }
    out.push(&s[start..]);
    out
}

/// Shell-like words: whitespace-separated, quotes removed, backslash escapes as the shell reads
/// them (any character outside quotes; `"`, `\\`, `$` and `` ` `` inside double quotes; none
/// inside single quotes): `--coverageThreshold="{ \"global\": 1 }"` is one word of JSON.
fn tokens(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) if c == q => quote = None,
            Some('"') if c == '\\' && matches!(chars.peek(), Some('"' | '\\' | '$' | '`')) => {
                cur.extend(chars.next());
            }
            None if c == '\\' && chars.peek().is_some() => {
                cur.extend(chars.next());
            }
            Some(_) => cur.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                any = true;
            }
            None if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            None => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Which runner a program word is: `jest`, `node_modules/.bin/vitest`, `node`.
fn runner_word(w: &str) -> Option<Runner> {
    let base = w.rsplit('/').next().unwrap_or(w);
    match base {
        "jest" | "jest.js" => Some(Runner::Jest),
        "vitest" | "vitest.mjs" => Some(Runner::Vitest),
        "node" => Some(Runner::Node),
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

fn command(words: &[String]) -> Option<(Runner, Script)> {
    let mut script = Script::default();
    let mut i = 0;
    while let Some(w) = words.get(i) {
        match w.split_once('=') {
            Some((var, value))
                if !var.is_empty()
                    && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !var.starts_with(|c: char| c.is_ascii_digit()) =>
            {
                script.env.push((var.to_owned(), value.to_owned()));
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
        "test-reporter" | "test-reporter-destination" | "test" => Role::Managed,
        _ if name.starts_with("watch") => Role::Managed,
        "test-update-snapshots" | "inspect-brk" | "inspect-wait" => Role::Unhonoured,
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
        | "coverageDirectory"
        | "ci" => Role::Managed,
        "updateSnapshot" | "u" | "listTests" | "showConfig" | "clearCache" | "init" | "version"
        | "v" | "help" | "h" | "collectTests" => Role::Unhonoured,
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

/// What a vitest option is to pith.
fn vitest_role(word: &str, name: &str) -> Role {
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
        "update" | "u" => {
            let value = word.split_once('=').map(|(_, v)| v);
            if matches!(value, Some("none" | "false")) {
                Role::Managed
            } else {
                Role::Unhonoured
            }
        }
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
            Runner::Vitest => vitest_role(w, name),
            Runner::Node => node_role(w),
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
    fn escaped_quotes_stay_in_their_word() {
        assert_eq!(
            tokens(
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
        assert_eq!(
            segments(r#"a "x \" && y" && b \; c"#),
            [r#"a "x \" && y" "#, r" b \; c"]
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
        assert_eq!(sc.options(true), s(&["--import", "tsx"]));
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
                "--passWithNoTests",
                "tests/unit",
            ])
        );
        assert_eq!(sc.unhonoured(), s(&["-u"]));
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
                "--test-coverage-lines=90"
            ])
        );
        assert_eq!(sc.paths(), s(&["test/"]));
        assert_eq!(sc.unhonoured(), s(&["--test-update-snapshots"]));
        let (_, sc) = from_script("jest --listTests -u").unwrap();
        assert_eq!(sc.unhonoured(), s(&["--listTests", "-u"]));
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

    #[test]
    fn package_json_decides() {
        let d = tempfile::tempdir().unwrap();
        assert!(read(d.path()).is_none());
        let write = |body: &str| std::fs::write(d.path().join("package.json"), body).unwrap();
        write(r#"{"devDependencies":{"jest":"^29"}}"#);
        assert_eq!(read(d.path()).map(|x| x.0), Some(Runner::Jest));
        write(r#"{"devDependencies":{"jest":"^29","vitest":"^3"}}"#);
        assert_eq!(read(d.path()).map(|x| x.0), Some(Runner::Vitest));
        write(
            r#"{"scripts":{"test":"npm run unit","unit":"node --test"},"devDependencies":{"vitest":"^3"}}"#,
        );
        assert_eq!(read(d.path()).map(|x| x.0), Some(Runner::Node));
        write(r#"{"scripts":{"test":"echo no tests"}}"#);
        assert!(read(d.path()).is_none());
        write("{not json");
        assert!(read(d.path()).is_none());
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,200}") {
            let _ = from_script(&s);
        }
    }
}
