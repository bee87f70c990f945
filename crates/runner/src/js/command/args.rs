//! The runner's command line: the launcher (the script's wrappers and node options in front),
//! the environment the script gives, pith's reporter and report paths beside the script's own
//! options, the selection of a re-run and a tracing run's coverage, for each runner as the
//! version at hand takes them.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Context;

use super::super::{package, Js, Runner};
use super::files::{Cover, Files};
use super::selection::Selection;
use super::RUNNER_ENV;

impl Js {
    /// The runner's command: the launcher, pith's reporter and report paths, the script's own
    /// options and environment, and the selection; with `cover` (a selection's tracing re-run,
    /// jest and vitest), the coverage of those files instead of none.
    pub(crate) fn command(
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn what_each_vitest_is_given_follows_its_version() {
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
}
