//! Which runner a command's words start (`jest`, `node_modules/.bin/vitest`, `node --test`,
//! `node [options] <jest's script>`) and each of its words classified in order, as the
//! [`Script`] pith runs it with. What each option is comes from `options`.

use super::options::{
    jest_role, mocha_role, node_role, takes_value, vitest_role, NODE_VALUE_OPTIONS,
};
use super::{option_name, Role, Runner, Script, Word};

/// The runner a script runs, with what it adds: the first command of its list that runs one
/// (for tests: the adapter reads scripts whole, see `plan`).
#[cfg(test)]
pub fn from_script(script: &str) -> Option<(Runner, Script)> {
    super::super::shell::parse(script, &|_| None)
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

/// The runner a command's words start, after the prefixes that only set its environment or
/// find its program (`A=b`, `cross-env`, `npx`, `env`, `yarn jest`).
#[cfg(test)]
fn command(words: &[String]) -> Option<(Runner, Script)> {
    let mut env: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    while let Some(w) = words.get(i) {
        match w.split_once('=') {
            Some((var, value)) if super::super::shell::is_name(var) => {
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

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,200}") {
            let _ = from_script(&s);
        }
    }
}
