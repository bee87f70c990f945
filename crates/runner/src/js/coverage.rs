//! Tracing for jest (and vitest): which lines of the changed script files the failing tests
//! executed, read from the runner's own coverage. Both transform every module (babel-jest,
//! vite), so V8's offsets are not the source's and `NODE_V8_COVERAGE` cannot be mapped; their
//! coverage maps V8's ranges back through each transform's source map (jest's
//! `--coverageProvider=v8`, vitest's `@vitest/coverage-v8`) and writes istanbul's
//! `coverage-final.json`, which is read here.
//!
//! One run per test file, its failing tests selected together by full name: coverage is the
//! file's (jest collects it around each test file, not each test), and a start costs most of a
//! run (a warm jest run of one small test file: ~0.7 s plain, ~1 s with coverage), so the
//! tests of one file share what their run executed rather than each paying a start. Files stay
//! apart rather than sharing one run: a helper's tests in three files each execute a different
//! part of it, and that difference is what ranks the changed line they all ran first. At most
//! [`MAX_TESTS`] tests, so at most that many runs, one after another.
//!
//! The runner's configuration may hide a changed file from coverage or judge it: the re-run
//! names the changed files as the only ones to cover, overrides the exclusions with one that
//! matches nothing, and keeps thresholds from failing it (jest) or rewriting the configuration
//! (vitest's `autoUpdate`). Reports go to the scratch directory. vitest is traced only when
//! `@vitest/coverage-v8` is installed: pith installs nothing into a project.
//!
//! A changed file the coverage still does not hold may have run unseen: a test file (neither
//! runner covers those), a setup file, a file outside jest's root directory (a sibling package
//! of a monorepo: jest's V8 coverage drops those) or its `roots`. The traced tests' own test
//! file changed: those tests are left out of the trace (the engine keeps their static reach).
//! Any other such file, unless it is merely another test's file: the trace is `None` and the
//! static reach stands, so changes in two JavaScript projects of one workspace leave both
//! static.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use pith_model::impact::{Lines, Traced};
use serde_json::Value;

use crate::process;
use crate::{Context, PathMap, RunnerError};

use super::command::{glob_literal, Cover, Files, Selection};
use super::trace::{Script, MAX_BYTES, MAX_TESTS};
use super::{id_file, is_test_file, is_test_id, package, Js, Runner, EXTENSIONS};

impl Js {
    /// See [`crate::Adapter::trace`]: jest (and vitest with `@vitest/coverage-v8`), one run per
    /// test file.
    pub(super) fn trace_coverage(
        &self,
        ctx: &Context<'_>,
        tests: &[String],
        files: &[String],
    ) -> Result<Option<Traced>, RunnerError> {
        let Ok(program) = self.program(ctx.cache) else {
            return Ok(None);
        };
        if self.runner == Runner::Vitest && !vitest_coverage_installed(&self.dir) {
            return Ok(None);
        }
        let scripts: Vec<Script> = files
            .iter()
            .filter(|f| EXTENSIONS.iter().any(|e| f.ends_with(e)))
            .filter_map(|f| Script::read(ctx.root, f))
            .collect();
        if scripts.is_empty() {
            return Ok(None);
        }
        let cover = self.cover_of(&scripts);
        let mut groups: Vec<(String, Vec<String>)> = Vec::new();
        for id in tests.iter().filter(|id| is_test_id(id)).take(MAX_TESTS) {
            let file = id_file(&Selection::normal(id)).to_owned();
            match groups.iter_mut().find(|(f, _)| *f == file) {
                Some((_, g)) => g.push(id.clone()),
                None => groups.push((file, vec![id.clone()])),
            }
        }
        let mut traced = Traced::default();
        for (_, group) in groups {
            if Instant::now() >= ctx.deadline {
                break;
            }
            let (sel, _) = Selection::of(&group, ctx.root);
            if sel.files.is_empty() {
                continue;
            }
            let run_files = self.files(ctx)?;
            let _ = std::fs::remove_dir_all(&run_files.coverage);
            let cmd = self.command(ctx, &program, &run_files, Some(&sel), Some(&cover));
            // The verdict is not the answer's: only the coverage, and which tests ran, are read.
            let Ok(captured) = process::run(cmd, ctx.deadline, ctx.cancel) else {
                continue;
            };
            let report = run_files.coverage.join("coverage-final.json");
            let Some(found) = read_final(&report, &scripts, ctx.paths) else {
                continue;
            };
            let unseen: Vec<&Script> = scripts
                .iter()
                .filter(|s| {
                    !found.present.contains(&s.file)
                        && (!is_test_file(&s.file) || sel.files.contains(&s.file))
                })
                .collect();
            if unseen.iter().any(|s| !sel.files.contains(&s.file)) {
                // Unseen by every run alike (a setup file, a configuration, a file outside the
                // runner's root, in another package or project): nothing traced.
                return Ok(None);
            }
            if !unseen.is_empty() {
                // This file's own tests changed: its tests keep the static reach, the others
                // are traced.
                continue;
            }
            let run = self.judge(ctx, self.read(&run_files), &captured, Some(&sel));
            for id in group {
                if !run.not_found.contains(&Selection::normal(&id)) {
                    traced.tests.insert(id, found.lines.clone());
                }
            }
        }
        Ok((!traced.tests.is_empty()).then_some(traced))
    }
}

/// A jest run that traces its own failing test files (see `pith_jest_reporter.cjs`): the
/// coverage it collects, and the changed scripts it maps.
pub(super) struct InRun {
    pub(super) cover: Cover,
    scripts: Vec<Script>,
}

impl Js {
    /// The glob per changed script for the runner's coverage: relative to the project's real
    /// directory (the scripts' paths are real) and to the directory of the configuration file
    /// the script names, which is jest's root unless it says otherwise.
    fn cover_of(&self, scripts: &[Script]) -> Cover {
        let dir = std::fs::canonicalize(&self.dir).unwrap_or_else(|_| self.dir.clone());
        let mut bases = vec![dir];
        if self.runner == Runner::Jest {
            let config = package::config_file(&self.dir, &self.script)
                .and_then(|f| std::fs::canonicalize(f).ok());
            bases.extend(config.and_then(|f| f.parent().map(Path::to_path_buf)));
        }
        Cover {
            globs: globs(&bases, scripts),
            instrument: false,
        }
    }

    /// Whether this run traces its own failing test files, and of what: jest 28 or later
    /// (each test file's result comes to the reporter's `onTestFileResult` with its own
    /// coverage, istanbul's instrumentation of the changed files alone, the way `jest
    /// --coverage` runs by default), asked by the engine (`Context::trace`), with
    /// changed scripts among the files, in a project whose configuration and script say
    /// nothing of coverage (its own coverage, thresholds and reports would then be pith's to
    /// change: such a project is traced in a second start, as before).
    pub(super) fn in_run(&self, ctx: &Context<'_>, program: &Path) -> Option<InRun> {
        let plan = ctx.trace?;
        if self.runner != Runner::Jest
            || Self::installed_major(program, "jest").is_none_or(|m| m < 28)
            || self.script.mentions_coverage()
            || package::config_mentions(&self.dir, &self.script, "coverage")
        {
            return None;
        }
        let scripts: Vec<Script> = plan
            .files
            .iter()
            .filter(|f| EXTENSIONS.iter().any(|e| f.ends_with(e)))
            .filter_map(|f| Script::read(ctx.root, f))
            .collect();
        if scripts.is_empty() {
            return None;
        }
        let cover = Cover {
            instrument: true,
            ..self.cover_of(&scripts)
        };
        Some(InRun { cover, scripts })
    }

    /// What the reporter traced of the failing test files: each failing test gets its file's
    /// lines; the traced files are those jest's coverage holds (a file outside its root, or a
    /// test file, is not: the static reach stands for it).
    pub(super) fn read_in_run(
        &self,
        ctx: &Context<'_>,
        files: &Files,
        in_run: &InRun,
        run: &pith_model::Run,
    ) -> Option<Traced> {
        let index = std::fs::read(files.traced_index()).ok()?;
        let Value::Array(entries) = serde_json::from_slice::<Value>(&index).ok()? else {
            return None;
        };
        let all = read_final(
            &files.coverage.join("coverage-final.json"),
            &in_run.scripts,
            ctx.paths,
        )?;
        let mut traced = Traced {
            files: all.present,
            ..Traced::default()
        };
        for e in &entries {
            let (Some(path), Some(file)) = (
                e.get("path").and_then(Value::as_str),
                e.get("file").and_then(Value::as_str),
            ) else {
                continue;
            };
            let Some(test_file) = ctx.paths.relativize(path, None) else {
                continue;
            };
            let Some(found) = read_final(Path::new(file), &in_run.scripts, ctx.paths) else {
                continue;
            };
            for f in run
                .failures
                .iter()
                .filter(|f| id_file(&f.test) == test_file)
            {
                traced.tests.insert(f.test.clone(), found.lines.clone());
            }
        }
        (!traced.tests.is_empty()).then_some(traced)
    }
}

/// Whether `@vitest/coverage-v8` is resolvable from the project directory `dir` (a
/// `node_modules` in it or above it): without it, vitest asks to install it instead of running,
/// and pith installs nothing into a project.
fn vitest_coverage_installed(dir: &Path) -> bool {
    dir.ancestors().any(|d| {
        d.join("node_modules/@vitest/coverage-v8/package.json")
            .is_file()
    })
}

/// The globs naming `scripts` relative to the runner's root directory, which pith does not
/// read (a configuration may set `rootDir`, as NestJS's does with `src`): each file relative
/// to each of `bases` it is in (real directories: the project's, the named configuration
/// file's), and every tail of its workspace-relative path, for a root below the project. A
/// tail that names another file too only adds that file to the report, where nothing asks for
/// it. A file outside the root matches none of them, and is missing from the report.
fn globs(bases: &[PathBuf], scripts: &[Script]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |g: String| {
        if !out.contains(&g) {
            out.push(g);
        }
    };
    for s in scripts {
        for base in bases {
            if let Some(rel) = relative(&s.path, base) {
                add(glob_literal(&rel));
            }
        }
        let parts: Vec<&str> = s.file.split('/').collect();
        for i in 0..parts.len() {
            add(glob_literal(&parts[i..].join("/")));
        }
    }
    out
}

/// `path` relative to `base`, both real: `None` outside `base`. jest's V8 coverage never holds a
/// file outside its root directory (it drops them before any glob), yet a `../` glob would
/// have its pass over untested files report one with every count at zero, as if it never ran.
fn relative(path: &Path, base: &Path) -> Option<String> {
    let rel = path.strip_prefix(base).ok()?;
    let s = rel.to_str()?;
    (!s.is_empty()).then(|| s.to_owned())
}

/// What `coverage-final.json` says of the traced files.
#[derive(Debug, Default)]
pub(super) struct Found {
    /// The code lines of each file that ran.
    pub(super) lines: Lines,
    /// The files the report holds, run or not (with `collectCoverageFrom`, jest reports the
    /// files it covers even when no test loaded them).
    pub(super) present: BTreeSet<String>,
}

/// The lines of `scripts` that istanbul's report at `path` says ran: for each statement run
/// at least once, its start line, when that line holds code. The start line only: a statement
/// spans the lines of what it contains (vitest 4 reports real statements, so an `if` spans its
/// whole body), and those ran only if their own statements say so. jest's V8 provider
/// (`v8-to-istanbul`) writes one statement per source line instead, blank and comment lines
/// included (they take the count of the function around them), hence the code lines of
/// [`Script`]. `None` when the report is missing, too big or not a JSON object.
pub(super) fn read_final(path: &Path, scripts: &[Script], paths: &PathMap) -> Option<Found> {
    if std::fs::metadata(path).ok()?.len() > MAX_BYTES {
        return None;
    }
    let Value::Object(doc) = serde_json::from_slice::<Value>(&std::fs::read(path).ok()?).ok()?
    else {
        return None;
    };
    let mut found = Found::default();
    for (key, entry) in &doc {
        let Some(script) = scripts.iter().find(|s| names(key, s, paths)) else {
            continue;
        };
        let (Some(map), Some(counts)) = (
            entry.get("statementMap").and_then(Value::as_object),
            entry.get("s").and_then(Value::as_object),
        ) else {
            // Not istanbul's shape: the file is not known to be covered.
            continue;
        };
        found.present.insert(script.file.clone());
        let code: BTreeSet<u32> = script.lines.iter().map(|(l, _)| *l).collect();
        let ran = found.lines.entry(script.file.clone()).or_default();
        for (id, count) in counts {
            if count.as_u64().is_none_or(|n| n == 0) {
                continue;
            }
            let start = map
                .get(id)
                .and_then(|st| st.get("start"))
                .and_then(|st| st.get("line"))
                .and_then(Value::as_u64)
                .and_then(|l| u32::try_from(l).ok());
            if let Some(line) = start.filter(|l| code.contains(l)) {
                ran.insert(line);
            }
        }
        if ran.is_empty() {
            found.lines.remove(&script.file);
        }
    }
    Some(found)
}

/// Whether the report's key (an absolute path) is `script`: its workspace-relative form, or
/// the same real file.
fn names(key: &str, script: &Script, paths: &PathMap) -> bool {
    paths.relativize(key, None).as_deref() == Some(script.file.as_str())
        || std::fs::canonicalize(key).is_ok_and(|p| p == script.path)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRICE: &str = "// the price of one thing\nfunction discount(a) {\n  if (a > 100) {\n    return a * 0.9;\n  }\n\n  return a - 1;\n}\n";

    /// What jest 30 wrote (v8 provider) for `PRICE` after `discount(10)`, cut to its lines.
    fn report(path: &str) -> String {
        let counts = [1, 1, 1, 0, 0, 1, 1, 1];
        let map: Vec<String> = (0..counts.len())
            .map(|i| {
                format!(
                    r#""{i}": {{"start": {{"line": {}, "column": 0}}, "end": {{"line": {}, "column": 3}}}}"#,
                    i + 1,
                    i + 1
                )
            })
            .collect();
        let s: Vec<String> = counts
            .iter()
            .enumerate()
            .map(|(i, c)| format!(r#""{i}": {c}"#))
            .collect();
        format!(
            r#"{{"{path}": {{"path": "{path}", "all": false, "statementMap": {{{}}}, "s": {{{}}}, "fnMap": {{}}, "f": {{}}}}}}"#,
            map.join(", "),
            s.join(", ")
        )
    }

    fn setup() -> (tempfile::TempDir, Script, PathMap) {
        let ws = tempfile::tempdir().unwrap();
        std::fs::create_dir(ws.path().join("src")).unwrap();
        std::fs::write(ws.path().join("src/price.js"), PRICE).unwrap();
        let script = Script::read(ws.path(), "src/price.js").unwrap();
        let paths = PathMap::new(ws.path());
        (ws, script, paths)
    }

    #[test]
    fn statements_that_ran_give_their_code_lines() {
        let (ws, script, paths) = setup();
        let path = ws.path().join("src/price.js");
        let out = ws.path().join("coverage-final.json");
        std::fs::write(&out, report(&path.display().to_string())).unwrap();
        let found = read_final(&out, std::slice::from_ref(&script), &paths).unwrap();
        let got: Vec<u32> = found.lines["src/price.js"].iter().copied().collect();
        // The comment (1) and the blank line (6) ran as far as V8 says, but hold no code.
        assert_eq!(got, [2, 3, 7, 8]);
        assert!(found.present.contains("src/price.js"));
    }

    #[test]
    fn malformed_reports_are_read_as_nothing_never_a_panic() {
        let (ws, script, paths) = setup();
        let path = ws.path().join("src/price.js").display().to_string();
        let out = ws.path().join("coverage-final.json");
        let scripts = std::slice::from_ref(&script);
        for bad in ["", "{", "[]", "null", "{\"a\": 1}"] {
            std::fs::write(&out, bad).unwrap();
            let found = read_final(&out, scripts, &paths);
            assert!(found.is_none_or(|f| f.present.is_empty()), "{bad}");
        }
        let shapes = [
            format!(r#"{{"{path}": 7}}"#),
            format!(r#"{{"{path}": {{"statementMap": [], "s": {{}}}}}}"#),
        ];
        for bad in &shapes {
            std::fs::write(&out, bad).unwrap();
            let found = read_final(&out, scripts, &paths).unwrap();
            assert!(found.present.is_empty(), "{bad}");
        }
        // Known shape, odd values: counts that are not numbers, ids with no statement, lines
        // that are not lines.
        let odd = format!(
            r#"{{"{path}": {{"statementMap": {{"0": {{"start": {{"line": -2}}}}, "1": {{"start": {{"line": 99999999999}}}}, "2": {{}}, "3": {{"start": {{"line": 3}}}}}}, "s": {{"0": 1, "1": 1, "2": 1, "3": "x", "4": 5}}}}}}"#
        );
        std::fs::write(&out, odd).unwrap();
        let found = read_final(&out, scripts, &paths).unwrap();
        assert!(found.present.contains("src/price.js"));
        assert!(found.lines.is_empty(), "{:?}", found.lines);
        assert!(read_final(&ws.path().join("missing.json"), scripts, &paths).is_none());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// Arbitrary text, and a real report cut short or with one character changed.
        #[test]
        fn never_panics(junk in "(?s).{0,300}", cut in 0usize..2000, at in 0usize..2000, c: char) {
            let (ws, script, paths) = setup();
            let out = ws.path().join("coverage-final.json");
            let scripts = std::slice::from_ref(&script);
            std::fs::write(&out, &junk).unwrap();
            let _ = read_final(&out, scripts, &paths);
            let good = report(&ws.path().join("src/price.js").display().to_string());
            let chars: Vec<char> = good.chars().collect();
            let cut: String = chars[..cut.min(chars.len())].iter().collect();
            std::fs::write(&out, cut).unwrap();
            let _ = read_final(&out, scripts, &paths);
            let mut changed = chars.clone();
            let i = at % changed.len();
            changed[i] = c;
            std::fs::write(&out, changed.into_iter().collect::<String>()).unwrap();
            let _ = read_final(&out, scripts, &paths);
        }
    }

    #[test]
    fn files_are_named_from_every_root_the_runner_may_have() {
        let ws = tempfile::tempdir().unwrap();
        for f in ["web/src/a (1).js", "lib/b.js"] {
            let p = ws.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x;\n").unwrap();
        }
        let scripts: Vec<Script> = ["web/src/a (1).js", "lib/b.js"]
            .iter()
            .map(|f| Script::read(ws.path(), f).unwrap())
            .collect();
        let real = ws.path().canonicalize().unwrap();
        let bases = [
            real.join("web"),
            real.join("web/config"),
            real.parent().unwrap().into(),
        ];
        let got = globs(&bases, &scripts);
        let top = real.file_name().unwrap().to_str().unwrap();
        assert_eq!(
            got,
            [
                r"src/a \(1\).js".to_owned(),
                format!(r"{top}/web/src/a \(1\).js"),
                r"web/src/a \(1\).js".to_owned(),
                r"a \(1\).js".to_owned(),
                format!("{top}/lib/b.js"),
                "lib/b.js".to_owned(),
                "b.js".to_owned(),
            ]
        );
    }
}
