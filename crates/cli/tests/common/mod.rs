//! Harness for the integration tests: copies a fixture project to a temp dir, runs the real
//! `pith` binary on it, and hands back the answer line, its parsed form and the exit code.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub struct Answer {
    /// The answer line exactly as printed, without the trailing newline.
    pub line: String,
    pub json: serde_json::Value,
    pub code: i32,
    pub stderr: String,
}

impl Answer {
    pub fn status(&self) -> &str {
        self.json["status"].as_str().unwrap_or("")
    }

    pub fn bytes(&self) -> usize {
        self.line.len()
    }

    pub fn failures(&self) -> &[serde_json::Value] {
        self.json["failures"].as_array().map_or(&[], Vec::as_slice)
    }

    /// The answer with its only run-to-run variable (the duration) fixed, for snapshots.
    pub fn stable(&self) -> String {
        let mut out = String::new();
        let mut rest = self.line.as_str();
        while let Some(i) = rest.find("\"durationS\":") {
            let (head, tail) = rest.split_at(i + "\"durationS\":".len());
            out.push_str(head);
            out.push('0');
            rest = tail.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        }
        out.push_str(rest);
        out
    }

    /// Failures shown in full, plus those counted in clusters, plus those left out: every
    /// failure the run had must be in exactly one of these.
    pub fn accounted(&self) -> u64 {
        let clustered: u64 = self.json["clusters"].as_array().map_or(0, |c| {
            c.iter().map(|c| c["affected"].as_u64().unwrap()).sum()
        });
        self.failures().len() as u64 + clustered + self.json["moreFailures"].as_u64().unwrap_or(0)
    }

    pub fn assert_budget(&self, budget: usize) {
        assert!(
            self.bytes() <= budget,
            "answer is {} bytes, budget {budget}: {}",
            self.bytes(),
            self.line
        );
    }
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap()
        .to_path_buf()
}

/// A private copy of `tests/fixtures/<name>`, so runs leave nothing in the repository.
pub fn fixture(name: &str) -> tempfile::TempDir {
    let src = repo_root().join("tests/fixtures").join(name);
    assert!(src.is_dir(), "missing fixture {}", src.display());
    let dir = tempfile::Builder::new()
        .prefix("pith-it-")
        .tempdir()
        .unwrap();
    copy_dir(&src, dir.path());
    dir
}

fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == "target" || name == "__pycache__" || name == ".pytest_cache" {
            continue;
        }
        let to = dst.join(&name);
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to);
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
}

/// One cargo target dir for every Rust fixture run by these tests, so each fixture builds once.
pub fn shared_target() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join("pith-it-target");
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
}

pub fn pith(root: &Path, args: &[&str]) -> Answer {
    pith_in(root, root, args)
}

/// Runs `pith test --root ROOT ARGS...` from `cwd`.
pub fn pith_in(cwd: &Path, root: &Path, args: &[&str]) -> Answer {
    let out = pith_command(cwd, root, args).output().expect("run pith");
    answer_of(out, root)
}

/// `pith test --root ROOT ARGS...` from `cwd`, with the harness's cache and cargo target dir.
pub fn pith_command(cwd: &Path, root: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pith"));
    cmd.arg("test")
        .arg("--root")
        .arg(root)
        .args(args)
        .current_dir(cwd)
        .env("CARGO_TARGET_DIR", shared_target())
        .env("XDG_CACHE_HOME", std::env::temp_dir().join("pith-it-cache"));
    without_callers_pith_variables(&mut cmd);
    cmd
}

/// Removes the `PITH_*` variables the harness itself inherited (CI sets `PITH_SAMPLES`), so a
/// fixture that looks for pith's own variables in its tests' world sees only what pith set.
pub fn without_callers_pith_variables(cmd: &mut Command) {
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("PITH") {
            cmd.env_remove(k);
        }
    }
}

/// [`pith`] with `env` set on top of the harness's environment and `unset` removed from it:
/// the caller's environment is the tests', so it is set on pith's process only.
pub fn pith_with(root: &Path, args: &[&str], env: &[(&str, &str)], unset: &[&str]) -> Answer {
    let mut cmd = pith_command(root, root, args);
    for k in unset {
        cmd.env_remove(k);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    answer_of(cmd.output().expect("run pith"), root)
}

/// The strings of a JSON list (none when it is absent), in order.
pub fn strings(v: &serde_json::Value) -> Vec<&str> {
    v.as_array()
        .map(|a| a.iter().filter_map(|x| x.as_str()).collect())
        .unwrap_or_default()
}

/// A finished `pith` process's answer: exactly one line on stdout, clean (see
/// [`assert_clean`]) for the workspace at `root`.
pub fn answer_of(out: std::process::Output, root: &Path) -> Answer {
    let stdout = String::from_utf8(out.stdout).expect("utf-8 answer");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        stdout.ends_with('\n') && stdout.matches('\n').count() == 1,
        "not one line: {stdout:?}\n{stderr}"
    );
    let line = stdout.trim_end_matches('\n').to_owned();
    let json = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
    assert_clean(&line, root);
    Answer {
        line,
        json,
        code: out.status.code().unwrap_or(-1),
        stderr,
    }
}

/// Re-runs the `index`th failure `first` shows, by its id (with `args` before it, e.g.
/// `--runner`, and `unknown` ids after it): exactly that test runs, and fails again; the
/// unknown ids are listed in `notFound`. Returns the id.
pub fn assert_reruns_only(
    root: &Path,
    args: &[&str],
    first: &Answer,
    index: usize,
    unknown: &[&str],
) -> String {
    let id = first.failures()[index]["test"]
        .as_str()
        .unwrap_or_else(|| panic!("no failure {index}: {}", first.line))
        .to_owned();
    let again = pith(root, &[args, &[id.as_str()], unknown].concat());
    assert_eq!(
        (again.status(), again.code, again.json["failed"].as_u64()),
        ("TestsFailed", 1, Some(1)),
        "{}",
        again.line
    );
    assert!(
        again.json.get("passed").is_none() && again.json.get("skipped").is_none(),
        "only the named test ran: {}",
        again.line
    );
    assert_eq!(again.failures()[0]["test"], id.as_str(), "{}", again.line);
    assert_eq!(
        sorted_strings(&again.json["notFound"]),
        sorted(unknown),
        "{}",
        again.line
    );
    id
}

fn sorted_strings(v: &serde_json::Value) -> Vec<&str> {
    let mut out = strings(v);
    out.sort_unstable();
    out
}

fn sorted<'a>(ids: &[&'a str]) -> Vec<&'a str> {
    let mut out = ids.to_vec();
    out.sort_unstable();
    out
}

/// Ids that name no test (with `args` before them): `TestsNotFound`, exit 1, each listed in
/// `notFound` (in any order).
pub fn assert_not_found(root: &Path, args: &[&str], ids: &[&str]) {
    let a = pith(root, &[args, ids].concat());
    assert_eq!((a.status(), a.code), ("TestsNotFound", 1), "{}", a.line);
    assert_eq!(
        sorted_strings(&a.json["notFound"]),
        sorted(ids),
        "{}",
        a.line
    );
}

/// Rules every answer obeys: no colour codes, no absolute workspace paths, no nulls, no
/// empty lists or objects.
pub fn assert_clean(line: &str, root: &Path) {
    assert!(!line.contains('\u{1b}'), "escape code in answer: {line}");
    let root = root.to_string_lossy();
    assert!(
        !line.contains(root.as_ref()),
        "absolute workspace path in answer: {line}"
    );
    if let Ok(canon) = Path::new(root.as_ref()).canonicalize() {
        assert!(
            !line.contains(canon.to_string_lossy().as_ref()),
            "absolute path in answer: {line}"
        );
    }
    let value: serde_json::Value = serde_json::from_str(line).unwrap();
    assert_signal(&value, line);
}

/// No nulls, no empty strings, lists or objects, no zero counts: absent means "nothing".
fn assert_signal(v: &serde_json::Value, line: &str) {
    use serde_json::Value::*;
    match v {
        Null => panic!("null in answer: {line}"),
        String(s) => assert!(!s.is_empty(), "empty string in answer: {line}"),
        Array(a) => {
            assert!(!a.is_empty(), "empty list in answer: {line}");
            a.iter().for_each(|x| assert_signal(x, line));
        }
        Object(o) => {
            assert!(!o.is_empty(), "empty object in answer: {line}");
            for (k, x) in o {
                // Counts and durations alike: a 0 or a 0.0 is no signal.
                assert!(x.as_f64() != Some(0.0), "zero {k} in answer: {line}");
                assert_signal(x, line);
            }
        }
        _ => {}
    }
}
