//! Whether a Python project runs its tests with unittest rather than pytest.
//!
//! unittest is the runner when the project says so — it declares `python -m unittest` (in a
//! Makefile, tox.ini, noxfile.py, pyproject.toml, setup.cfg, a justfile or a GitHub workflow:
//! the first such line's arguments are kept), or it is a Django project (`manage.py`) — or
//! when pytest is not importable by the project's interpreter and its tests are unittest's
//! (no test file imports pytest or holds bare `def test_` functions without a `TestCase`). A
//! project configured for pytest (`pytest.ini`, `conftest.py`, a `[tool.pytest…]`,
//! `[tool:pytest]` or tox `[pytest]` section, `-m pytest` declared) stays pytest's: a missing
//! pytest there is RunnerMissing with the hint that installs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::Mode;

/// Files where projects declare how their tests run.
const DECLARING: &[&str] = &[
    "Makefile",
    "makefile",
    "GNUmakefile",
    "tox.ini",
    "noxfile.py",
    "pyproject.toml",
    "setup.cfg",
    "justfile",
];

/// The most read of any one file looked at.
const MAX_READ: u64 = 256 << 10;

fn read(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_READ)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

fn declaring_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = DECLARING.iter().map(|f| dir.join(f)).collect();
    if let Ok(entries) = std::fs::read_dir(dir.join(".github/workflows")) {
        let mut flows: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "yml" || x == "yaml"))
            .collect();
        flows.sort();
        files.extend(flows);
    }
    files
}

/// A declared `python -m unittest` line: its arguments, and the variables assigned before
/// the interpreter on the same command (`PYTHONPATH=src python -m unittest`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Declared {
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// The first `python -m unittest …` the project declares, up to the end of its shell command.
pub fn declares_unittest(dir: &Path) -> Option<Declared> {
    for file in declaring_files(dir) {
        let Some(text) = read(&file) else { continue };
        for line in text.lines() {
            if let Some(at) = line.find("-m unittest") {
                let rest = &line[at + "-m unittest".len()..];
                if rest.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '.') {
                    continue;
                }
                return Some(Declared {
                    args: arguments(rest),
                    env: assignments(&line[..at]),
                });
            }
        }
    }
    None
}

/// The first `manage.py test …` the project declares (a Django project's `--parallel`,
/// `--settings`, `--buffer`, labels), up to the end of its shell command.
pub fn declares_django(dir: &Path) -> Option<Declared> {
    const WORDS: &str = "manage.py test";
    for file in declaring_files(dir) {
        let Some(text) = read(&file) else { continue };
        for line in text.lines() {
            if let Some(at) = line.find(WORDS) {
                let rest = &line[at + WORDS.len()..];
                if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
                    continue;
                }
                // The words before `manage.py`: `python ` or `./` (what runs it) is dropped
                // by `assignments` as the interpreter's word.
                let before = line[..at].trim_end_matches("./");
                return Some(Declared {
                    args: arguments(rest),
                    env: assignments(before),
                });
            }
        }
    }
    None
}

/// `NAME=value` words right before the interpreter's word (`PYTHONPATH=src python3 `), whose
/// value a shell would take literally (relative paths are the project's directory's: make
/// and tox run there).
fn assignments(before: &str) -> Vec<(String, String)> {
    let mut words: Vec<&str> = before.split_whitespace().collect();
    // The interpreter's own word (`python3`, `.venv/bin/python`).
    words.pop();
    let mut out = Vec::new();
    for w in words.iter().rev() {
        let Some((name, value)) = w.split_once('=') else {
            break;
        };
        let plain_name = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if !plain_name || value.contains(['$', '`', '"', '\'', '(', ')']) {
            break;
        }
        out.push((name.to_owned(), value.to_owned()));
    }
    out.reverse();
    out
}

/// A declared command's arguments as words, up to what ends the command (`&&`, `;`, `|`, a
/// redirection, a comment, a closing quote of the string it sits in); words a shell would
/// expand (`$VAR`, `{posargs}`) are left out.
fn arguments(rest: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in rest.split_whitespace() {
        let quoted = word.len() >= 2
            && (word.starts_with('\'') && word.ends_with('\'')
                || word.starts_with('"') && word.ends_with('"'));
        if quoted {
            out.push(word[1..word.len() - 1].to_owned());
            continue;
        }
        if word.starts_with(['&', ';', '|', '>', '<', '#', ')'])
            || word.ends_with(['"', '\'', ','])
            || word.starts_with(['"', '\''])
        {
            break;
        }
        if word.contains(['$', '{', '}', '`', '*', '?']) && !is_pattern_value(&out) {
            continue;
        }
        out.push(word.to_owned());
    }
    out
}

/// The word follows `-p`/`--pattern`, whose value is a glob by design.
fn is_pattern_value(out: &[String]) -> bool {
    out.last()
        .is_some_and(|w| w == "-p" || w == "--pattern" || w == "-k")
}

/// Whether the project is configured for pytest.
pub(crate) fn pytest_configured(dir: &Path) -> bool {
    let has =
        |file: &str, section: &str| read(&dir.join(file)).is_some_and(|t| t.contains(section));
    dir.join("pytest.ini").is_file()
        || dir.join("conftest.py").is_file()
        || dir.join("tests/conftest.py").is_file()
        || has("pyproject.toml", "[tool.pytest")
        || has("setup.cfg", "[tool:pytest]")
        || has("tox.ini", "[pytest]")
        || declaring_files(dir)
            .iter()
            .any(|f| read(f).is_some_and(|t| t.contains("-m pytest")))
}

/// Test files written for pytest: one imports it, or holds bare test functions and no
/// `TestCase`.
fn pytest_shaped_tests(dir: &Path) -> bool {
    [dir.to_path_buf(), dir.join("tests"), dir.join("test")]
        .iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flat_map(|entries| entries.flatten())
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.ends_with(".py") && (name.starts_with("test") || name.ends_with("_test.py"))
        })
        .filter_map(|e| read(&e.path()))
        .any(|text| {
            let imports = text.lines().any(|l| {
                let l = l.trim_start();
                l.starts_with("import pytest") || l.starts_with("from pytest ")
            });
            let bare = text.lines().any(|l| l.starts_with("def test"));
            imports || (bare && !text.contains("TestCase"))
        })
}

/// Whether pytest is importable by the interpreter pith would run (the pytest adapter's
/// choice: the active virtualenv, else the project's `.venv`/`venv`, else `python3`). A
/// virtualenv that does not see the system's packages is read from disk; otherwise the
/// interpreter is asked (`importlib.util.find_spec`). When it cannot be told, pytest is
/// assumed, as before unittest was known.
pub(crate) fn pytest_importable(dir: &Path, virtual_env: Option<&Path>) -> bool {
    let venv = virtual_env.map(Path::to_path_buf).or_else(|| {
        [".venv", "venv"]
            .iter()
            .map(|v| dir.join(v))
            .find(|v| v.join("bin/python").exists())
    });
    let program = match &venv {
        Some(v) => {
            if let Some(found) = venv_has_pytest(v) {
                return found;
            }
            v.join("bin/python")
        }
        None => match crate::on_path("python3").or_else(|| crate::on_path("python")) {
            Some(p) => p,
            None => return true,
        },
    };
    let asked = Command::new(program)
        .args([
            "-c",
            "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('pytest') else 3)",
        ])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    !matches!(asked.map(|s| s.code()), Ok(Some(3)))
}

/// A virtualenv's own answer, when it has one: `None` when it also sees the system's packages
/// or `PYTHONPATH` adds others.
fn venv_has_pytest(venv: &Path) -> Option<bool> {
    let cfg = read(&venv.join("pyvenv.cfg"))?;
    let shared = cfg.lines().any(|l| {
        let l = l.replace(' ', "");
        l.eq_ignore_ascii_case("include-system-site-packages=true")
    });
    if shared || std::env::var_os("PYTHONPATH").is_some_and(|p| !p.is_empty()) {
        return None;
    }
    let mut found = false;
    for lib in ["lib", "lib64"] {
        let Ok(entries) = std::fs::read_dir(venv.join(lib)) else {
            continue;
        };
        for e in entries.flatten() {
            let site = e.path().join("site-packages");
            if site.join("pytest").exists() || site.join("_pytest").exists() {
                found = true;
            }
        }
    }
    Some(found)
}

/// The unittest mode a Python project at `dir` runs in, or `None` when it is pytest's.
pub fn prefers_unittest(dir: &Path, virtual_env: Option<&Path>) -> Option<Mode> {
    if pytest_configured(dir) {
        return None;
    }
    if dir.join("manage.py").is_file()
        && read(&dir.join("manage.py")).is_some_and(|t| t.contains("django"))
    {
        return Some(Mode::Django(declares_django(dir).unwrap_or_default()));
    }
    if let Some(args) = declares_unittest(dir) {
        return Some(Mode::Plain(args));
    }
    if pytest_shaped_tests(dir) || pytest_importable(dir, virtual_env) {
        return None;
    }
    Some(Mode::Plain(Declared::default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn declared_arguments_stop_where_the_command_does() {
        assert_eq!(
            arguments(" discover -s tests -p 'x*.py'"),
            ["discover", "-s", "tests", "-p", "x*.py"]
        );
        assert_eq!(arguments(" -v\""), Vec::<String>::new());
        assert_eq!(
            arguments(" discover -s tests && flake8"),
            ["discover", "-s", "tests"]
        );
        assert_eq!(arguments(" {posargs} -v"), ["-v"]);
        assert_eq!(arguments(" -p *_test.py"), ["-p", "*_test.py"]);
        assert!(arguments("").is_empty());
    }

    #[test]
    fn the_project_says_which_runner() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "Makefile",
            "test:\n\tPYTHONPATH=src X=1 python -m unittest discover -s tests -v\n",
        );
        let declared = Declared {
            args: ["discover", "-s", "tests", "-v"].map(String::from).to_vec(),
            env: vec![
                ("PYTHONPATH".into(), "src".into()),
                ("X".into(), "1".into()),
            ],
        };
        assert_eq!(
            prefers_unittest(d.path(), None),
            Some(Mode::Plain(declared))
        );
        assert!(assignments("cd x && A=$B python3 ").is_empty());
        assert!(assignments("\tpython3 ").is_empty());
        write(d.path(), "Makefile", "test:\n\tpython -m unittest_extra\n");
        assert_eq!(declares_unittest(d.path()), None);
        // pytest's configuration wins over everything.
        write(d.path(), "manage.py", "import django\n");
        assert_eq!(
            prefers_unittest(d.path(), None),
            Some(Mode::Django(Declared::default()))
        );
        write(
            d.path(),
            "tox.ini",
            "[testenv]\ncommands =\n    DJANGO_TEST_PROCESSES=3 python manage.py test --parallel {posargs}\n",
        );
        assert_eq!(
            prefers_unittest(d.path(), None),
            Some(Mode::Django(Declared {
                args: vec!["--parallel".into()],
                env: vec![("DJANGO_TEST_PROCESSES".into(), "3".into())],
            }))
        );
        write(
            d.path(),
            "tox.ini",
            "[testenv]\ncommands = ./manage.py test -v 2 shop\n",
        );
        assert_eq!(
            declares_django(d.path()).map(|d| d.args),
            Some(["-v", "2", "shop"].map(String::from).to_vec())
        );
        std::fs::remove_file(d.path().join("tox.ini")).unwrap();
        write(d.path(), "pytest.ini", "[pytest]\n");
        assert_eq!(prefers_unittest(d.path(), None), None);
    }

    #[test]
    fn pytest_style_tests_stay_pytests() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "tests/test_a.py", "def test_a():\n    assert 1\n");
        assert!(pytest_shaped_tests(d.path()));
        write(
            d.path(),
            "tests/test_a.py",
            "import unittest\nclass T(unittest.TestCase):\n    def test_a(self): pass\n",
        );
        assert!(!pytest_shaped_tests(d.path()));
        write(d.path(), "tests/test_b.py", "import pytest\n");
        assert!(pytest_shaped_tests(d.path()));
    }

    #[test]
    fn a_virtualenv_tells_from_its_packages() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "pyvenv.cfg",
            "home = /usr/bin\ninclude-system-site-packages = false\n",
        );
        std::fs::create_dir_all(d.path().join("lib/python3.11/site-packages")).unwrap();
        if std::env::var_os("PYTHONPATH").is_none() {
            assert_eq!(venv_has_pytest(d.path()), Some(false));
            std::fs::create_dir_all(d.path().join("lib/python3.11/site-packages/_pytest")).unwrap();
            assert_eq!(venv_has_pytest(d.path()), Some(true));
        }
        write(
            d.path(),
            "pyvenv.cfg",
            "include-system-site-packages = true\n",
        );
        assert_eq!(venv_has_pytest(d.path()), None);
    }
}
