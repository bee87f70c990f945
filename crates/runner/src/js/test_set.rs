//! Which files a project's JavaScript runners run as tests, for `pith select`'s names and
//! counts: each runner segment's own default patterns (jest's `testMatch`, vitest's
//! `include`, node's `--test` search), where the script and the configuration leave them as
//! they are. A configuration or a script that says where tests are (`testMatch`, `include`,
//! paths after the runner) is code pith does not evaluate: there every file named as some
//! runner's test counts, so nothing the runner runs is left out.

use std::path::Path;

use super::package::{self, Runner};
use super::Js;

/// What jest's `?([mc])[jt]s?(x)` and vitest's `?(c|m)[jt]s?(x)` take.
const JS_EXTENSIONS: [&str; 8] = ["js", "jsx", "ts", "tsx", "cjs", "mjs", "cts", "mts"];

/// jest options that move or rename what it runs.
const JEST_WHERE: &[&str] = &[
    "testMatch",
    "testRegex",
    "roots",
    "rootDir",
    "testPathIgnorePatterns",
    "projects",
];

/// vitest options that move or rename what it runs.
const VITEST_WHERE: &[&str] = &["include", "exclude", "dir", "root", "projects", "workspace"];

/// Whether the runner segment `js` runs a file (absolute) as a test file: the segment's
/// configuration read once, for every file asked.
pub(super) fn searcher(js: &Js) -> impl Fn(&Path) -> bool + '_ {
    let told = told_where(js);
    let typecheck = typechecks(js);
    move |file| {
        let Ok(rel) = file.strip_prefix(&js.dir) else {
            return false;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if rel.split('/').any(|d| d == "node_modules" || d == ".git") {
            return false;
        }
        (if told {
            super::is_test_file(&rel)
        } else {
            by_default(js.runner, &rel)
        }) || (typecheck && is_type_test(&rel))
    }
}

/// Whether vitest also runs type tests (`--typecheck`, or its configuration's `typecheck`).
fn typechecks(js: &Js) -> bool {
    js.runner == Runner::Vitest
        && (js
            .script
            .words
            .iter()
            .any(|w| package::option_name(&w.text) == "typecheck")
            || package::vitest_config_mentions(&js.dir, &js.script, &["typecheck"]))
}

/// vitest's `typecheck.include`: `**/*.{test,spec}-d.?(c|m)[jt]s?(x)`.
fn is_type_test(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    JS_EXTENSIONS.contains(&ext)
        && stem
            .rsplit_once('.')
            .is_some_and(|(_, kind)| kind == "test-d" || kind == "spec-d")
}

/// Whether the script or the configuration says where this runner's tests are.
fn told_where(js: &Js) -> bool {
    let options: &[&str] = match js.runner {
        Runner::Jest => JEST_WHERE,
        Runner::Vitest => VITEST_WHERE,
        Runner::Node | Runner::Mocha => &[],
    };
    let on_command_line = js.script.words.iter().any(|w| {
        let name = package::option_name(&w.text);
        options.iter().any(|o| o.eq_ignore_ascii_case(name))
            || matches!(name, "testPathPattern" | "testPathPatterns" | "dir")
    });
    if on_command_line || !js.script.paths().is_empty() {
        return true;
    }
    match js.runner {
        Runner::Jest => JEST_WHERE
            .iter()
            .any(|w| package::config_mentions(&js.dir, &js.script, w)),
        Runner::Vitest => {
            package::vitest_config_mentions(&js.dir, &js.script, VITEST_WHERE)
                || ["ts", "mts", "cts", "js", "mjs", "cjs", "json"]
                    .iter()
                    .any(|e| js.dir.join(format!("vitest.workspace.{e}")).is_file())
        }
        Runner::Node => false,
        // `.mocharc`'s `spec`, `--recursive`, `--extension`: mocha's search has too many
        // knobs to read here.
        Runner::Mocha => true,
    }
}

/// The runner's own search, unconfigured, over `rel` (relative to where it runs).
fn by_default(runner: Runner, rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    match runner {
        // `**/__tests__/**/*.?([mc])[jt]s?(x)`, `**/?(*.)+(spec|test).?([mc])[jt]s?(x)`.
        Runner::Jest => {
            JS_EXTENSIONS.contains(&ext)
                && (rel.split('/').rev().skip(1).any(|d| d == "__tests__")
                    || stem
                        .rsplit('.')
                        .next()
                        .is_some_and(|last| repeats_of(last, &["spec", "test"])))
        }
        // `**/*.{test,spec}.?(c|m)[jt]s?(x)`.
        Runner::Vitest => {
            JS_EXTENSIONS.contains(&ext)
                && stem
                    .rsplit_once('.')
                    .is_some_and(|(_, kind)| kind == "test" || kind == "spec")
        }
        // `**/*.test.?(c|m)js`, `**/*-test.?(c|m)js`, `**/*_test.?(c|m)js`,
        // `**/test-*.?(c|m)js`, `**/test.?(c|m)js`, `**/test/**/*.?(c|m)js` (and TypeScript's
        // extensions where node strips types).
        Runner::Node => {
            matches!(ext, "js" | "cjs" | "mjs" | "ts" | "cts" | "mts")
                && (stem.ends_with(".test")
                    || stem.ends_with("-test")
                    || stem.ends_with("_test")
                    || stem.starts_with("test-")
                    || stem == "test"
                    || rel.split('/').rev().skip(1).any(|d| d == "test"))
        }
        Runner::Mocha => super::is_test_file(rel),
    }
}

/// Whether `word` is one or more of `parts` end to end (jest's `+(spec|test)`).
fn repeats_of(word: &str, parts: &[&str]) -> bool {
    let mut rest = word;
    while !rest.is_empty() {
        match parts.iter().find(|p| rest.starts_with(**p)) {
            Some(p) => rest = &rest[p.len()..],
            None => return false,
        }
    }
    !word.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_runner_searches_as_it_does_unconfigured() {
        let jest = |f| by_default(Runner::Jest, f);
        assert!(jest("src/cart.test.ts"));
        assert!(jest("src/__tests__/cart.tsx"));
        assert!(jest("test.js"));
        assert!(jest("a/b.spec.jsx"));
        assert!(
            !jest("test/helpers.js"),
            "jest does not run test/ by its name"
        );
        assert!(jest("src/cart.test.mjs"));
        assert!(!jest("src/cart.test.json"), "not in testMatch's extensions");
        assert!(!jest("src/__tests__.js"));
        assert!(!jest("src/contest.js"));

        let vitest = |f| by_default(Runner::Vitest, f);
        assert!(vitest("src/cart.test.ts"));
        assert!(vitest("test/cart.spec.mts"));
        assert!(!vitest("test/types.test-d.ts"), "typecheck only");
        assert!(!vitest("test/helpers.ts"));
        assert!(!vitest("src/__tests__/cart.ts"));

        let node = |f| by_default(Runner::Node, f);
        assert!(node("test/helpers.js"));
        assert!(node("lib/cart.test.mjs"));
        assert!(node("lib/cart-test.js"));
        assert!(node("test.cjs"));
        assert!(!node("lib/cart.js"));
        assert!(!node("lib/cart.spec.js"));
    }

    #[test]
    fn a_configuration_that_says_where_counts_every_test_name() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("package.json"),
            r#"{"jest":{"testMatch":["**/test/**/*.js"]}}"#,
        )
        .unwrap();
        let js = Js::new(Runner::Jest, d.path());
        let runs = |js: &Js, f: &Path| searcher(js)(f);
        assert!(runs(&js, &d.path().join("test/helpers.js")));
        assert!(!runs(&js, &d.path().join("node_modules/x/test/a.js")));
        std::fs::write(d.path().join("package.json"), r#"{"jest":{}}"#).unwrap();
        assert!(!runs(&js, &d.path().join("test/helpers.js")));
        assert!(runs(&js, &d.path().join("test/cart.test.js")));
        assert!(!runs(&js, Path::new("/elsewhere/cart.test.js")));

        let vitest = Js::new(Runner::Vitest, d.path());
        assert!(!runs(&vitest, &d.path().join("test/helpers.ts")));
        std::fs::write(
            d.path().join("vitest.config.ts"),
            "export default { test: { include: ['test/**/*.ts'] } }",
        )
        .unwrap();
        assert!(runs(&vitest, &d.path().join("test/helpers.ts")));
        std::fs::remove_file(d.path().join("vitest.config.ts")).unwrap();

        // Said on the command line.
        let (_, script) =
            package::classify::from_script("jest --roots packages/core/test").unwrap();
        let rooted = Js {
            script,
            ..Js::new(Runner::Jest, d.path())
        };
        assert!(runs(&rooted, &d.path().join("test/helpers.js")));

        // Type tests run under `--typecheck` only, wherever they are.
        assert!(!runs(&vitest, &d.path().join("src/types.test-d.ts")));
        let (_, script) = package::classify::from_script("vitest run --typecheck").unwrap();
        let typed = Js {
            script,
            ..Js::new(Runner::Vitest, d.path())
        };
        assert!(runs(&typed, &d.path().join("src/types.test-d.ts")));
        assert!(runs(&typed, &d.path().join("test/index.spec-d.mts")));
        assert!(!runs(&typed, &d.path().join("test/helpers.ts")));
    }
}
