//! The command-line contract that does not depend on a runner: exit code 2 with one clear
//! line when pith cannot do its job, argument errors, a closed stdout.

use crate::common;

use std::process::{Command, Stdio};

fn pith() -> Command {
    common::bare()
}

#[test]
fn a_directory_without_a_runner_exits_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = pith()
        .args(["test", "--root"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("pith: no test runner found"), "{err}");
    // The families looked for are the registry's, Bazel's included.
    assert!(err.contains("(looked for Cargo, Python,"), "{err}");
    assert!(
        err.trim_end().ends_with(", CMake and Bazel projects)"),
        "{err}"
    );
}

#[test]
fn bad_arguments_exit_2() {
    for args in [
        &["test", "--timeout", "0"][..],
        &["test", "--runner", "maven"],
        &["test", "--root", "/no/such/dir"],
        &["frobnicate"],
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("pytest.ini"), "[pytest]\n").unwrap();
        let out = pith().args(args).current_dir(dir.path()).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn a_runner_the_workspace_does_not_use_is_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pytest.ini"), "[pytest]\n").unwrap();
    let out = pith()
        .args(["test", "--runner", "cargo", "--root"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("runner cargo not found") && err.contains("detected: pytest"),
        "{err}"
    );
}

#[test]
fn a_closed_stdout_is_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("test_one.py"),
        "def test_one():\n    assert True\n",
    )
    .unwrap();
    let mut child = pith()
        .args(["test", "--root"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_missing_runner_is_runner_missing_with_a_hint_and_exit_2() {
    // A Rust workspace on a machine whose PATH and CARGO_HOME hold no cargo.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"x\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    let bare = tempfile::tempdir().unwrap();
    let out = pith()
        .args(["test", "--root"])
        .arg(dir.path())
        .env("PATH", bare.path())
        .env("CARGO_HOME", bare.path())
        .env("HOME", bare.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = String::from_utf8(out.stdout).unwrap();
    let json: serde_json::Value = serde_json::from_str(line.trim_end()).unwrap();
    assert_eq!(json["status"], "RunnerMissing");
    assert!(json["hint"].as_str().unwrap().contains("rustup"), "{line}");

    // nextest asked for by name but not installed.
    let out = pith()
        .args(["test", "--runner", "nextest", "--root"])
        .arg(dir.path())
        .env("CARGO_HOME", bare.path())
        .env("PATH", format!("{}:/usr/bin:/bin", cargo_dir().display()))
        .output()
        .unwrap();
    let line = String::from_utf8(out.stdout).unwrap();
    assert!(
        line.contains("\"status\":\"RunnerMissing\"")
            && line.contains("cargo install cargo-nextest"),
        "{line}"
    );
    assert_eq!(out.status.code(), Some(2), "{line}");
}

#[test]
fn version_names_the_commit_it_was_built_from() {
    let out = pith().arg("--version").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let line = String::from_utf8(out.stdout).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    // Built from a git checkout (as here, and in CI): the short hash of HEAD; without git, the
    // version alone (build.rs).
    let head = Command::new("git")
        .args(["rev-parse", "--short=9", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8(o.stdout).unwrap().trim().to_owned());
    match head {
        Some(h) => assert_eq!(line, format!("pith {version} ({h})\n")),
        None => assert_eq!(line, format!("pith {version}\n")),
    }
}

#[test]
fn the_runner_option_names_every_runner() {
    // The help is what an agent reads to pick `--runner`: a runner left out of it is one the
    // agent never tries.
    let out = pith().args(["test", "--help"]).output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let line = help
        .split("--runner <NAME>")
        .nth(1)
        .and_then(|rest| rest.split("\n      --").next())
        .unwrap_or_else(|| panic!("{help}"));
    for e in pith_model::ecosystem::ECOSYSTEMS {
        for runner in e.runners {
            assert!(
                line.contains(runner),
                "--runner's help lacks {runner}: {line}"
            );
        }
    }
}

#[test]
fn completions_for_each_shell_name_the_commands() {
    for (shell, marker) in [
        ("bash", "_pith()"),
        ("zsh", "#compdef pith"),
        ("fish", "complete -c pith"),
        ("powershell", "Register-ArgumentCompleter"),
        ("elvish", "edit:completion:arg-completer[pith]"),
    ] {
        let out = pith().args(["completions", shell]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        assert!(script.contains(marker), "{shell}: {script}");
        for command in ["test", "failures", "tests-for", "completions"] {
            assert!(script.contains(command), "{shell}: no {command}");
        }
    }
    // bash loads it: the completion is registered for the pith command.
    let out = pith().args(["completions", "bash"]).output().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pith.bash");
    std::fs::write(&file, &out.stdout).unwrap();
    let loaded = Command::new("bash")
        .arg("-c")
        .arg(format!("source {} && complete -p pith", file.display()))
        .output()
        .unwrap();
    let registered = String::from_utf8(loaded.stdout).unwrap();
    assert!(registered.contains("-F _pith pith"), "{registered}");
    // An unknown shell is an argument error.
    let out = pith().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn man_pages_are_rendered_from_the_cli() {
    let out = pith().arg("man").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH pith 1"), "{page}");
    assert!(page.contains("pith\\-test(1)"), "{page}");
    let out = pith().args(["man", "test"]).output().unwrap();
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH pith-test 1"), "{page}");
    assert!(
        page.contains(concat!("\"pith ", env!("CARGO_PKG_VERSION"))),
        "{page}"
    );
    assert!(page.contains("\\-\\-changed"), "{page}");
    let out = pith().args(["man", "frobnicate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("pith: no command frobnicate"), "{err}");
    // Every page into a directory.
    let dir = tempfile::tempdir().unwrap();
    let out = pith()
        .args(["man", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    for name in [
        "pith.1",
        "pith-test.1",
        "pith-failures.1",
        "pith-completions.1",
    ] {
        assert!(dir.path().join(name).is_file(), "{name}");
    }
}

/// A directory holding `cargo` but not `cargo-nextest`, made of a symlink to the real cargo.
fn cargo_dir() -> std::path::PathBuf {
    let real = std::env::var_os("PATH")
        .and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("cargo"))
                .find(|c| c.is_file())
        })
        .expect("cargo on PATH");
    let dir = std::env::temp_dir().join(format!("pith-it-cargo-only-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join("cargo");
    if !link.exists() {
        std::os::unix::fs::symlink(real, link).unwrap();
    }
    dir
}

#[test]
fn every_command_refuses_a_directory_in_no_project_and_the_home_directory() {
    let nowhere = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    // A dotfiles repository: a marker, but the home directory is no project to scan.
    std::fs::create_dir_all(home.path().join(".git")).unwrap();
    std::fs::create_dir_all(home.path().join("notes")).unwrap();
    for (cwd, says) in [
        (
            nowhere.path().to_path_buf(),
            "pith: no project at or above ",
        ),
        (home.path().join("notes"), "your home directory"),
    ] {
        for args in [
            &["status"][..],
            &["failures"],
            &["symbol", "main"],
            &["usages", "main"],
            &["test"],
            &["select"],
            &["tests-for", "a.py"],
            &["blast", "main"],
            &["init", "claude"],
        ] {
            let out = pith()
                .args(args)
                .current_dir(&cwd)
                .env("HOME", home.path())
                .output()
                .unwrap();
            let err = String::from_utf8(out.stderr).unwrap();
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(out.stdout.is_empty(), "{args:?}");
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(
                err.contains(says) && err.contains("--root DIR"),
                "{args:?}: {err}"
            );
        }
        assert!(!common::state_dir(&cwd).exists());
        assert!(!common::state_dir(home.path()).exists());
        assert!(!home.path().join(".mcp.json").exists());
    }
    // Named with --root, the same directory is the workspace.
    let out = pith()
        .args(["status", "--root"])
        .arg(nowhere.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A file named with --root stands for the project it is in: the same answer.
    std::fs::create_dir_all(nowhere.path().join("src")).unwrap();
    std::fs::write(nowhere.path().join("pytest.ini"), "").unwrap();
    std::fs::write(nowhere.path().join("src/a.py"), "").unwrap();
    let status = |root: &std::path::Path| {
        let out = pith()
            .args(["status", "--root"])
            .arg(root)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        out.stdout
    };
    assert_eq!(
        status(&nowhere.path().join("src/a.py")),
        status(nowhere.path())
    );
    // Named, the home directory and the filesystem root are still refused.
    for (root, says) in [
        (home.path(), "your home directory"),
        (std::path::Path::new("/"), "the filesystem root"),
    ] {
        let out = pith()
            .args(["status", "--root"])
            .arg(root)
            .env("HOME", home.path())
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(
            err,
            format!(
                "pith: {} is {says}: pith will not scan all of it; name a project's directory \
                 instead\n",
                root.canonicalize().unwrap().display()
            )
        );
    }
    assert!(!common::state_dir(home.path()).exists());
}
