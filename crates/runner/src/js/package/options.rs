//! Each runner's options as pith reads them: which take the next word as their value (each
//! runner's own argument parser decides), and what each is to pith ([`Role`]): kept, a
//! selection or coverage for full runs only, pith's own, or one it cannot honour.

use super::{option_name, Role, Runner};

/// node options whose value is the next word.
pub(super) const NODE_VALUE_OPTIONS: &[&str] = &[
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

/// What a node option is to pith.
pub(super) fn node_role(word: &str) -> Role {
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
pub(super) fn jest_role(name: &str) -> Role {
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
pub(super) fn mocha_role(name: &str) -> Role {
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
pub(super) fn vitest_role(name: &str) -> Role {
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
pub(super) fn takes_value(runner: Runner, word: &str, name: &str) -> bool {
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
