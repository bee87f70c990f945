//! The queries answered from the code index and its import graph — `pith symbol`, `pith
//! usages`, `pith tests-for`, `pith select`, `pith blast`: one engine answer, one line on
//! stdout. Exit code 0 when something was found, 1 when nothing was (the answer is still
//! printed), 2 when pith could not do its job.

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
    with_cwd(|cwd| answered(pith_engine::answer::usages(root.as_deref(), cwd, name)))
}

pub fn tests_for(root: Option<PathBuf>, file: &str) -> ExitCode {
    with_cwd(|cwd| answered(pith_engine::answer::tests_for(root.as_deref(), cwd, file)))
}

pub fn select(root: Option<PathBuf>, rev: Option<&str>) -> ExitCode {
    with_cwd(|cwd| answered(pith_engine::answer::select(root.as_deref(), cwd, rev)))
}

pub fn blast(root: Option<PathBuf>, target: &str) -> ExitCode {
    with_cwd(|cwd| answered(pith_engine::answer::blast(root.as_deref(), cwd, target)))
}

fn with_cwd(f: impl FnOnce(&std::path::Path) -> ExitCode) -> ExitCode {
    match std::env::current_dir() {
        Ok(d) => f(&d),
        Err(e) => fail(format!("cannot read the current directory: {e}")),
    }
}
