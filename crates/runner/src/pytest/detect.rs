//! Whether a directory is a pytest project: its configuration files, or Python test files
//! where a Python project's markers are.

use std::path::{Path, PathBuf};

use super::Pytest;

/// Files that make a directory a Python project: the ecosystem's markers, and a `conftest.py`
/// (a pytest tree without packaging).
fn is_project_file(dir: &Path) -> bool {
    let markers = pith_model::ecosystem::PYTHON.root_markers.iter();
    markers
        .chain(&["conftest.py"])
        .any(|f| dir.join(f).is_file())
}

/// A Python project at `dir`, with the virtualenv active in pith's environment.
pub fn detect(dir: &Path) -> Option<Pytest> {
    is_python_project(dir).then(|| {
        Pytest::new(
            std::env::var_os("VIRTUAL_ENV")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
        )
        .in_dir(dir)
    })
}

/// [`detect`], requiring signs of pytest tests rather than of any Python package: pytest's own
/// configuration, a `conftest.py`, or test files in the directory or its `tests/`.
pub fn detect_strict(dir: &Path) -> Option<Pytest> {
    has_pytest_tests(dir).then(|| detect(dir)).flatten()
}

pub(super) fn has_pytest_tests(dir: &Path) -> bool {
    let configured = |file: &str, section: &str| {
        std::fs::read_to_string(dir.join(file)).is_ok_and(|t| t.contains(section))
    };
    dir.join("pytest.ini").is_file()
        || dir.join("conftest.py").is_file()
        || configured("pyproject.toml", "[tool.pytest")
        || configured("setup.cfg", "[tool:pytest]")
        || configured("tox.ini", "[pytest]")
        || has_test_files(dir)
        || has_test_files(&dir.join("tests"))
}

pub(super) fn is_python_project(root: &Path) -> bool {
    is_project_file(root) || has_test_files(root) || has_test_files(&root.join("tests"))
}

pub(super) fn has_test_files(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let name = e.file_name();
        let name = name.to_string_lossy();
        name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_python_projects() {
        let d = tempfile::tempdir().unwrap();
        assert!(detect(d.path()).is_none());
        std::fs::create_dir(d.path().join("tests")).unwrap();
        std::fs::write(d.path().join("tests/helpers.py"), "").unwrap();
        assert!(detect(d.path()).is_none());
        std::fs::write(d.path().join("tests/check_test.py"), "").unwrap();
        assert!(detect(d.path()).is_some());
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("setup.cfg"), "").unwrap();
        assert!(detect(d.path()).is_some());
    }
}
