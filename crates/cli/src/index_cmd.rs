//! `pith symbol` and `pith usages`: one engine answer, one line on stdout. Exit code 0 when
//! something was found, 1 when nothing was (the answer is still printed), 2 when pith could
//! not do its job.

use std::path::PathBuf;
use std::process::ExitCode;

use super::{answered, fail};

pub fn symbol(root: Option<PathBuf>, name: &str, kind: Option<&str>) -> ExitCode {
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => return fail(format!("cannot read the current directory: {e}")),
    };
    answered(pith_engine::answer::symbol(
        root.as_deref(),
        &cwd,
        name,
        kind,
    ))
}

pub fn usages(root: Option<PathBuf>, name: &str) -> ExitCode {
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => return fail(format!("cannot read the current directory: {e}")),
    };
    answered(pith_engine::answer::usages(root.as_deref(), &cwd, name))
}
