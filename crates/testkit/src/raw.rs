//! The project's own command run by hand, as a developer types it, beside `pith test` on the
//! same copy: what pith answers is checked against what that command says (its exit code, the
//! words it prints), never against what pith's own code expects.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::pith::{shared_target, without_callers_pith_variables, CALLERS_KNOBS};

/// What the raw command did.
#[derive(Debug)]
pub struct Raw {
    /// Its exit code (`None`: a signal ended it).
    pub code: Option<i32>,
    /// stdout, then stderr.
    pub output: String,
}

impl Raw {
    /// Whether the command said green: exit code 0.
    pub fn green(&self) -> bool {
        self.code == Some(0)
    }
}

/// Runs `argv` (never through a shell) in `dir` in the harness's environment (the one cargo
/// target dir `pith test` gets there, none of the caller's `PITH_*` variables nor its
/// [`CALLERS_KNOBS`]), with `env` set (`Some`) or removed (`None`) on top, as the caller's
/// shell would have them for both.
pub fn raw(dir: &Path, argv: &[&str], env: &[(&str, Option<&str>)]) -> Raw {
    let mut cmd = Command::new(argv[0]);
    cmd.args(&argv[1..])
        .current_dir(dir)
        .stdin(Stdio::null())
        .env("CARGO_TARGET_DIR", shared_target());
    without_callers_pith_variables(&mut cmd);
    for k in CALLERS_KNOBS {
        cmd.env_remove(k);
    }
    for (k, v) in env {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{argv:?} does not run: {e}"));
    let mut output = String::from_utf8_lossy(&out.stdout).into_owned();
    output.push_str(&String::from_utf8_lossy(&out.stderr));
    Raw {
        code: out.status.code(),
        output,
    }
}
