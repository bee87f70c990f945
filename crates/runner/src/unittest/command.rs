//! How unittest is started: pith's runner script written to the cache, the argv (the project's
//! declared arguments, the ids as names) and the environment.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::pytest::command::{prepend, Interpreter};
use crate::RunnerError;

use super::Mode;

/// The runner script's source, written to the cache under a name derived from its content.
pub(super) const SCRIPT: &str = include_str!("pith_unittest.py");

/// Where the script writes its records; it takes the variable out of the tests' environment.
pub(super) const REPORT_ENV: &str = "PITH_REPORT";

/// Set for Django: the script, imported as `--testrunner`'s module, defines its runner.
pub(super) const DJANGO_ENV: &str = "PITH_DJANGO";

/// Marks an argument as a test id for the script, so that no id is read as an option.
pub(super) const ID_PREFIX: &str = "pith-id:";

/// `pith_unittest_<hash>`: no module of the project can be imported in its place.
pub(super) fn script_module() -> String {
    format!("pith_unittest_{:016x}", crate::fnv1a(SCRIPT.bytes()))
}

/// Writes the script to `cache/unittest/<hash>/pith_unittest_<hash>.py` unless it is there.
pub(super) fn install_script(cache: &Path) -> Result<PathBuf, RunnerError> {
    crate::install_embedded(
        cache,
        "unittest",
        &format!("{}.py", script_module()),
        SCRIPT,
    )
}

/// `<python> <script> [declared arguments] [pith-id:<id>...]`, or for Django
/// `<python> manage.py test --testrunner pith_unittest_<hash>.DiscoverRunner [ids]`, in the
/// project's directory. The script sets `sys.path` as `python -m unittest` does (the working
/// directory first). The environment is the caller's, plus where the records go; a workspace
/// virtualenv runs as if activated, as for pytest.
pub(super) fn command(
    dir: &Path,
    mode: &Mode,
    interp: &Interpreter,
    script: &Path,
    report: &Path,
    ids: &[String],
) -> Command {
    let mut cmd = crate::base_command(&interp.program, dir);
    match mode {
        Mode::Plain(declared) => {
            cmd.arg(script).args(&declared.args);
            // What the declared line assigns before the interpreter (`PYTHONPATH=src`).
            cmd.envs(declared.env.iter().map(|(k, v)| (k, v)));
            cmd.args(ids.iter().map(|id| format!("{ID_PREFIX}{id}")));
        }
        Mode::Django(declared) => {
            let runner = format!("{}.DiscoverRunner", script_module());
            cmd.args(["manage.py", "test"])
                .args(django_options(&declared.args, !ids.is_empty()))
                .args(["--testrunner", &runner]);
            cmd.envs(declared.env.iter().map(|(k, v)| (k, v)));
            // Django takes labels after its options; one that looks like an option goes
            // after `--`.
            if !ids.is_empty() {
                cmd.arg("--").args(ids.iter().map(|id| subtest_base(id)));
            }
            let here = script.parent().unwrap_or(script);
            cmd.env(DJANGO_ENV, "1")
                .env("PYTHONPATH", prepend(here, std::env::var_os("PYTHONPATH")));
        }
    }
    cmd.env(REPORT_ENV, report);
    if let Some(venv) = &interp.workspace_venv {
        cmd.env("VIRTUAL_ENV", venv)
            .env("PATH", prepend(&venv.join("bin"), std::env::var_os("PATH")));
    }
    cmd
}

/// `manage.py test`'s options that take a value; `--parallel` and `--shuffle` take one only
/// when it follows (a number, `auto`).
const DJANGO_VALUED: &[&str] = &[
    "--settings",
    "--pythonpath",
    "--testrunner",
    "-v",
    "--verbosity",
    "--tag",
    "--exclude-tag",
    "-k",
    "--durations",
    "-t",
    "--top-level-directory",
    "-p",
    "--pattern",
];

/// The declared `manage.py test` arguments pith passes on: all of them, but with ids to
/// re-run not the declared labels (the ids name the tests), and never the project's own
/// `--testrunner` (pith's subclasses Django's).
fn django_options(declared: &[String], ids: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut words = declared.iter().peekable();
    while let Some(w) = words.next() {
        let (name, inline) = w
            .split_once('=')
            .map_or((w.as_str(), false), |(n, _)| (n, true));
        let value = if inline {
            None
        } else if DJANGO_VALUED.contains(&name) {
            words.next()
        } else if name == "--parallel" || name == "--shuffle" {
            words.next_if(|v| v.as_str() == "auto" || v.parse::<u64>().is_ok())
        } else {
            None
        };
        if name == "--testrunner" || (ids && !w.starts_with('-')) {
            continue;
        }
        out.push(w.clone());
        out.extend(value.cloned());
    }
    out
}

/// A subtest's id re-runs its test: `m.C.t (i=3)` -> `m.C.t`.
pub(super) fn subtest_base(id: &str) -> &str {
    id.split_once(' ').map_or(id, |(base, _)| base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_is_written_once_under_its_hash() {
        let cache = tempfile::tempdir().unwrap();
        let file = install_script(cache.path()).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), SCRIPT);
        assert!(file.ends_with(format!("{}.py", script_module())));
        assert_eq!(install_script(cache.path()).unwrap(), file);
    }

    #[test]
    fn ids_are_names_never_options() {
        let interp = Interpreter {
            program: "python3".into(),
            display: "python3".into(),
            workspace_venv: None,
        };
        let ids = ["-x".to_owned(), "t.T.a (i=1)".to_owned()];
        let plain = Mode::Plain(super::super::Declared {
            args: vec!["discover".into(), "-s".into(), "tests".into()],
            env: vec![("PYTHONPATH".into(), "src".into())],
        });
        let cmd = command(
            Path::new("/p"),
            &plain,
            &interp,
            Path::new("/c/s.py"),
            Path::new("/r"),
            &ids,
        );
        let args: Vec<_> = cmd
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            args,
            [
                "/c/s.py",
                "discover",
                "-s",
                "tests",
                "pith-id:-x",
                "pith-id:t.T.a (i=1)"
            ]
        );
        let cmd = command(
            Path::new("/p"),
            &Mode::Django(super::super::Declared::default()),
            &interp,
            Path::new("/c/s.py"),
            Path::new("/r"),
            &ids,
        );
        let args: Vec<_> = cmd
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(args[..3], ["manage.py", "test", "--testrunner"]);
        assert_eq!(args[4..], ["--", "-x", "t.T.a"]);
    }

    #[test]
    fn declared_django_options_stay_and_labels_give_way_to_ids() {
        let declared: Vec<String> = [
            "--parallel",
            "shop",
            "-v",
            "2",
            "--testrunner",
            "x.Runner",
            "--parallel=4",
            "--shuffle",
            "7",
            "--buffer",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            django_options(&declared, true),
            [
                "--parallel",
                "-v",
                "2",
                "--parallel=4",
                "--shuffle",
                "7",
                "--buffer"
            ]
        );
        assert_eq!(
            django_options(&declared, false),
            [
                "--parallel",
                "shop",
                "-v",
                "2",
                "--parallel=4",
                "--shuffle",
                "7",
                "--buffer"
            ]
        );
        let auto: Vec<String> = ["--parallel", "auto"].map(String::from).to_vec();
        assert_eq!(django_options(&auto, true), ["--parallel", "auto"]);
    }
}
