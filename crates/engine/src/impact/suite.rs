//! The suite as the projects' runners run it: of the files the import graph takes for tests
//! (by name and directory: every file under `tests/`, helpers included), those some
//! project's declared command runs as tests (`Adapter::test_files`: Surefire's includes,
//! pytest's `testpaths`, jest's and vitest's search, Cargo's targets, Go's build
//! constraints). What `select`, `tests-for` and `blast` name and count, so they agree with
//! what `pith test --changed` runs.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use crate::detect::Found;
use crate::route::is_source_of;

/// The projects whose runners decide which files are tests.
pub(crate) struct Suite<'f> {
    root: &'f Path,
    found: &'f [Found],
}

impl<'f> Suite<'f> {
    pub(crate) fn new(root: &'f Path, found: &'f [Found]) -> Self {
        Suite { root, found }
    }

    /// Of `files` (workspace-relative test files by the graph), those a runner runs, in
    /// their order. Each file is asked of the deepest project holding it whose ecosystem it
    /// is a source of, then of the next one out while a project's runner leaves it out (a
    /// root runner may search a nested package's tree). A runner that cannot tell by file
    /// counts it; so does a file no project holds (nothing to say it is not a test); a file
    /// every holder leaves out is none.
    pub(crate) fn keep(&self, files: Vec<String>) -> Vec<String> {
        if self.found.is_empty() || files.is_empty() {
            return files;
        }
        let holders: Vec<Vec<usize>> = files.iter().map(|f| self.holders(f)).collect();
        let mut kept: Vec<Option<bool>> = holders
            .iter()
            .map(|h| h.is_empty().then_some(true))
            .collect();
        for round in 0.. {
            let mut asked: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
            for (i, h) in holders.iter().enumerate() {
                if kept[i].is_some() {
                    continue;
                }
                match h.get(round) {
                    Some(&p) => asked.entry(p).or_default().push(i),
                    None => kept[i] = Some(false),
                }
            }
            if asked.is_empty() {
                break;
            }
            for (p, idx) in asked {
                let project = &self.found[p];
                let names: Vec<String> = idx.iter().map(|&i| files[i].clone()).collect();
                let runs = project
                    .adapter
                    .test_files(self.root, project.rel.as_deref(), &names);
                let runs: Option<HashSet<String>> = runs.map(|r| r.into_iter().collect());
                for i in idx {
                    if runs.as_ref().is_none_or(|r| r.contains(&files[i])) {
                        kept[i] = Some(true);
                    }
                }
            }
        }
        files
            .into_iter()
            .zip(kept)
            .filter_map(|(f, k)| k.unwrap_or(true).then_some(f))
            .collect()
    }

    /// The projects holding `file` whose ecosystem it is a source of, deepest first.
    fn holders(&self, file: &str) -> Vec<usize> {
        let mut out: Vec<usize> = (0..self.found.len())
            .filter(|&i| {
                let p = &self.found[i];
                p.rel
                    .as_deref()
                    .is_none_or(|r| file.strip_prefix(r).is_some_and(|x| x.starts_with('/')))
                    && is_source_of(p, file)
            })
            .collect();
        out.sort_by_key(|&i| std::cmp::Reverse(self.found[i].rel.as_ref().map_or(0, String::len)));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One workspace, a project of each runner, each with files the graph takes for tests
    /// that its runner never runs beside those it does.
    fn polyglot() -> tempfile::TempDir {
        let ws = tempfile::tempdir().unwrap();
        let files = [
            (
                "rs/Cargo.toml",
                "[package]\nname = \"rs\"\nversion = \"0.1.0\"\n",
            ),
            (
                "rs/src/lib.rs",
                "pub fn f() {}\n#[cfg(test)]\nmod tests {}\n",
            ),
            ("rs/tests/it.rs", "mod common;\n#[test]\nfn t() {}\n"),
            ("rs/tests/common/mod.rs", "pub fn two() {}\n"),
            ("go/go.mod", "module example.com/calc\n\ngo 1.21\n"),
            ("go/calc_test.go", "package calc\n"),
            ("go/db_test.go", "//go:build integration\n\npackage calc\n"),
            ("go/fs_windows_test.go", "package calc\n"),
            ("go/testdata/x_test.go", "package x\n"),
            (
                "web/package.json",
                r#"{"scripts":{"test":"vitest run"},"devDependencies":{"vitest":"^3"}}"#,
            ),
            ("web/test/add.test.ts", "import './helpers';\n"),
            ("web/test/helpers.ts", "export const two = 2;\n"),
            ("web/test/types.test-d.ts", "\n"),
            (
                "py/pyproject.toml",
                "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n",
            ),
            ("py/tests/test_a.py", "def test_a():\n    pass\n"),
            ("py/tests/helpers.py", "X = 1\n"),
            ("py/benchmarks/test_speed.py", "def test_s():\n    pass\n"),
            ("tests/loose_test.txt", ""),
        ];
        for (path, text) in files {
            let p = ws.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        ws
    }

    #[test]
    fn only_files_a_runner_runs_are_tests_of_the_suite() {
        let ws = polyglot();
        let root = ws.path();
        let found = crate::detect::projects(root, None);
        let names: Vec<&str> = found.iter().map(|f| f.adapter.name()).collect();
        for runner in ["go", "vitest", "pytest"] {
            assert!(names.contains(&runner), "{names:?}");
        }
        assert!(
            names.contains(&"cargo") || names.contains(&"nextest"),
            "{names:?}"
        );
        let asked: Vec<String> = [
            "rs/src/lib.rs",
            "rs/tests/it.rs",
            "rs/tests/common/mod.rs",
            "go/calc_test.go",
            "go/db_test.go",
            "go/fs_windows_test.go",
            "go/testdata/x_test.go",
            "web/test/add.test.ts",
            "web/test/helpers.ts",
            "web/test/types.test-d.ts",
            "py/tests/test_a.py",
            "py/tests/helpers.py",
            "py/benchmarks/test_speed.py",
            // No project holds it: nothing says it is no test.
            "tests/loose_test.txt",
        ]
        .map(String::from)
        .to_vec();
        let kept = Suite::new(root, &found).keep(asked.clone());
        let expected = [
            "rs/src/lib.rs",
            "rs/tests/it.rs",
            "go/calc_test.go",
            "web/test/add.test.ts",
            "py/tests/test_a.py",
            "tests/loose_test.txt",
        ];
        let mut expected: Vec<String> = expected.into_iter().map(String::from).collect();
        let mut got = kept.clone();
        expected.sort();
        got.sort();
        assert_eq!(got, expected);
        // Nothing found: nothing to judge by.
        assert_eq!(Suite::new(root, &[]).keep(asked.clone()), asked);
    }
}
