//! Which test modules the project's own `pytest` collects: its `python_files` patterns and
//! `testpaths`, from the configuration file pytest itself would pick in the project's
//! directory (`pytest.ini`, `.pytest.ini`, `pyproject.toml`'s `[tool.pytest.ini_options]` or
//! `[tool.pytest]`, `tox.ini`'s `[pytest]`, `setup.cfg`'s `[tool:pytest]`, the first that
//! has one). A module selected by change is passed to pytest by path, and pytest collects a
//! path it is given whatever those settings say: a module outside `testpaths` (benchmarks, a
//! slow suite kept apart) would run and might fail where the project's `pytest` never runs
//! it; a module named by the project's own pattern (`check_*.py`) would never be selected.
//! Read, not evaluated: a `testpaths` entry with a glob leaves `testpaths` unread.

use std::path::{Path, PathBuf};

/// pytest's default `python_files`.
const DEFAULT_FILES: [&str; 2] = ["test_*.py", "*_test.py"];

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct TestSet {
    files: Vec<String>,
    /// Directories relative to `base` (`tests`), `/`-separated; empty: anywhere.
    paths: Vec<String>,
    /// Where the configuration is, which `testpaths` are relative to.
    base: PathBuf,
}

/// Directories above a project looked at for pytest's configuration.
const ABOVE: usize = 8;

impl TestSet {
    /// The settings in force for a project whose directory is `dir`: the first directory
    /// from it upwards with a configuration file, as pytest finds its rootdir.
    pub(crate) fn of(dir: &Path) -> TestSet {
        let (found, base) = dir
            .ancestors()
            .take(ABOVE + 1)
            .find_map(|d| config_in(d).map(|c| (Some(c), d.to_path_buf())))
            .unwrap_or((None, dir.to_path_buf()));
        let (files, paths) = found.unwrap_or_default();
        TestSet {
            base,
            files: if files.is_empty() {
                DEFAULT_FILES.map(str::to_owned).to_vec()
            } else {
                files
            },
            paths: if paths.iter().any(|p| p.contains(['*', '?', '['])) {
                Vec::new()
            } else {
                paths
                    .into_iter()
                    .map(|p| p.trim_start_matches("./").trim_end_matches('/').to_owned())
                    .filter(|p| !p.is_empty() && p != ".")
                    .collect()
            },
        }
    }

    /// Whether the project's `pytest` collects the module at `path` when run as the
    /// project runs it.
    pub(crate) fn collects(&self, path: &Path) -> bool {
        let Ok(rel) = path.strip_prefix(&self.base) else {
            return false;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        let rel = rel.as_str();
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let named = self
            .files
            .iter()
            .any(|p| crate::wildcard::fnmatch(p.as_bytes(), name.as_bytes()));
        let placed = self.paths.is_empty()
            || self.paths.iter().any(|p| {
                rel == p
                    || rel
                        .strip_prefix(p.as_str())
                        .is_some_and(|r| r.starts_with('/'))
            });
        named && placed
    }
}

/// The `python_files` and `testpaths` of the configuration file pytest would take in `dir`,
/// the first of its kinds that configures pytest (`pytest.ini` does even when empty).
fn config_in(dir: &Path) -> Option<(Vec<String>, Vec<String>)> {
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
    read("pytest.ini")
        .map(|t| ini(&t, "pytest").unwrap_or_default())
        .or_else(|| read(".pytest.ini").map(|t| ini(&t, "pytest").unwrap_or_default()))
        .or_else(|| read("pyproject.toml").and_then(|t| pyproject(&t)))
        .or_else(|| read("tox.ini").and_then(|t| ini(&t, "pytest")))
        .or_else(|| read("setup.cfg").and_then(|t| ini(&t, "tool:pytest")))
}

/// `python_files` and `testpaths` of an INI file's `section`; `None` without the section.
fn ini(text: &str, section: &str) -> Option<(Vec<String>, Vec<String>)> {
    let mut inside = false;
    let mut found = false;
    let mut key: Option<String> = None;
    let (mut files, mut paths) = (Vec::new(), Vec::new());
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') && trimmed.ends_with(']') {
            inside = trimmed[1..trimmed.len() - 1].trim() == section;
            found |= inside;
            key = None;
            continue;
        }
        if !inside || trimmed.is_empty() || trimmed.starts_with(['#', ';']) {
            continue;
        }
        let continuation = line.starts_with([' ', '\t']);
        let values = if continuation {
            trimmed
        } else {
            let Some((k, v)) = trimmed.split_once(['=', ':']) else {
                key = None;
                continue;
            };
            key = Some(k.trim().to_owned());
            v.trim()
        };
        let target = match key.as_deref() {
            Some("python_files") => &mut files,
            Some("testpaths") => &mut paths,
            _ => continue,
        };
        target.extend(values.split_whitespace().map(str::to_owned));
    }
    found.then_some((files, paths))
}

/// `python_files` and `testpaths` of `[tool.pytest.ini_options]` (strings or lists), else of
/// pytest 9's `[tool.pytest]`; `None` without either table.
fn pyproject(text: &str) -> Option<(Vec<String>, Vec<String>)> {
    let doc: toml_edit::DocumentMut = text.parse().ok()?;
    let pytest = doc.get("tool")?.get("pytest")?;
    let table = pytest.get("ini_options").unwrap_or(pytest);
    let list = |key: &str| -> Vec<String> {
        match table.get(key) {
            Some(v) if v.is_str() => v
                .as_str()
                .unwrap_or("")
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
            Some(v) => v
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
            None => Vec::new(),
        }
    };
    Some((list("python_files"), list("testpaths")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wildcard::fnmatch;

    /// The test set of a project made of `files`, and a check of a path relative to it.
    struct Project(tempfile::TempDir, TestSet);

    impl Project {
        fn collects(&self, rel: &str) -> bool {
            self.1.collects(&self.0.path().join(rel))
        }
    }

    impl std::fmt::Debug for Project {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            self.1.fmt(f)
        }
    }

    fn set(files: &[(&str, &str)]) -> Project {
        let d = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let p = d.path().join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let set = TestSet::of(d.path());
        Project(d, set)
    }

    #[test]
    fn defaults_without_a_configuration() {
        let s = set(&[]);
        assert!(s.collects("tests/test_money.py"));
        assert!(s.collects("money_test.py"));
        assert!(!s.collects("tests/helpers.py"));
        assert!(s.collects("benchmarks/test_speed.py"));
    }

    #[test]
    fn testpaths_and_python_files_from_each_file_pytest_reads() {
        let toml = "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\npython_files = [\"check_*.py\", \"test_*.py\"]\n";
        for s in [
            set(&[("pyproject.toml", toml)]),
            set(&[("pytest.ini", "[pytest]\ntestpaths = tests\npython_files =\n    check_*.py\n    test_*.py\n")]),
            set(&[("tox.ini", "[tox]\nenvlist = py3\n[pytest]\ntestpaths = tests\npython_files = check_*.py test_*.py\n")]),
            set(&[("setup.cfg", "[metadata]\nname = x\n[tool:pytest]\ntestpaths = tests\npython_files = check_*.py test_*.py\n")]),
            set(&[("pyproject.toml", "[tool.pytest]\ntestpaths = [\"tests\"]\npython_files = [\"check_*.py\", \"test_*.py\"]\n")]),
        ] {
            assert!(s.collects("tests/check_money.py"), "{s:?}");
            assert!(s.collects("tests/unit/test_money.py"), "{s:?}");
            assert!(!s.collects("benchmarks/test_speed.py"), "{s:?}");
            assert!(!s.collects("tests/money_test.py"), "{s:?}");
        }
    }

    #[test]
    fn the_first_file_with_a_configuration_wins() {
        // An empty pytest.ini is the configuration: defaults, whatever pyproject says.
        let s = set(&[
            ("pytest.ini", ""),
            (
                "pyproject.toml",
                "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n",
            ),
        ]);
        assert!(s.collects("benchmarks/test_speed.py"));
        // A pyproject without pytest's table gives way to tox.ini's.
        let s = set(&[
            ("pyproject.toml", "[project]\nname = \"x\"\n"),
            ("tox.ini", "[pytest]\ntestpaths = tests\n"),
        ]);
        assert!(!s.collects("benchmarks/test_speed.py"));
        // A configuration above the project (its rootdir): testpaths relative to it.
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("tox.ini"),
            "[pytest]\ntestpaths = pkg/tests\n",
        )
        .unwrap();
        std::fs::create_dir_all(d.path().join("pkg")).unwrap();
        let inner = TestSet::of(&d.path().join("pkg"));
        assert!(inner.collects(&d.path().join("pkg/tests/test_a.py")));
        assert!(!inner.collects(&d.path().join("pkg/bench/test_a.py")));
        // A glob in testpaths is not read: anywhere.
        let s = set(&[("pytest.ini", "[pytest]\ntestpaths = tests/*/unit\n")]);
        assert!(s.collects("benchmarks/test_speed.py"));
    }

    #[test]
    fn fnmatch_as_pytest() {
        assert!(fnmatch(b"test_*.py", b"test_a.py"));
        assert!(fnmatch(b"*_test.py", b"a_test.py"));
        assert!(fnmatch(b"test_[ab].py", b"test_b.py"));
        assert!(!fnmatch(b"test_[!ab].py", b"test_b.py"));
        assert!(!fnmatch(b"test_*.py", b"tests.py"));
    }

    proptest::proptest! {
        #[test]
        fn never_panics(text in "(\\[pytest\\]|\\[tool:pytest\\]|testpaths|python_files|=|:| |\\n|\\t|\\*|\\[|!|\\]|x)*", name in "[a-z_\\[\\]!*?]{0,12}") {
            let _ = ini(&text, "pytest");
            let _ = pyproject(&text);
            let _ = fnmatch(text.as_bytes(), name.as_bytes());
        }
    }
}
