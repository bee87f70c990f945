//! The runner's program and whether pith observes it: jest, vitest and mocha from the
//! project's `node_modules/.bin`, node from `PATH`, each held to the versions whose reporter
//! hooks and flags pith relies on; outside them, the install hint says which to install.

use std::path::{Path, PathBuf};

use super::super::{Js, Runner};
use super::RUNNER_ENV;

impl Js {
    /// The runner's program: jest and vitest from the project's `node_modules/.bin` (or one
    /// above it, where a monorepo hoists them), `node` from PATH. The error is the install hint.
    /// `cache`: pith's cache directory, where a node binary's version is kept once asked.
    pub(crate) fn program(&self, cache: &Path) -> Result<PathBuf, String> {
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

    /// The major version of `package` installed beside the runner's program
    /// (`node_modules/.bin/<program>` → `node_modules/<package>/package.json`).
    pub(crate) fn installed_major(program: &Path, package: &str) -> Option<u32> {
        major(&Self::installed_version(program, package)?)
    }

    /// The version of `package` installed beside the runner's program, as its own
    /// `package.json` says it.
    pub(crate) fn installed_version(program: &Path, package: &str) -> Option<String> {
        let pkg = program
            .parent()?
            .parent()?
            .join(package)
            .join("package.json");
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(pkg).ok()?).ok()?;
        Some(v.get("version")?.as_str()?.to_owned())
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
pub(crate) const JEST_MAJORS: std::ops::RangeInclusive<u32> = 27..=30;

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
pub(crate) const NODE_OLDEST: (u32, u32) = (18, 19);

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
pub(crate) const MOCHA_MAJORS: std::ops::RangeInclusive<u32> = 9..=11;

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
pub(crate) const VITEST_MAJORS: std::ops::RangeInclusive<u32> = 1..=4;

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

/// How the project installs its packages, from its lockfile.
pub(crate) fn install_command(dir: &Path) -> &'static str {
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn vitest_outside_1_to_4_is_named_with_the_range() {
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
}
