//! `pith status`, `pith failures`, `pith output` and `pith gain`: answers from the workspace state (kept
//! outside the workspace, in pith's state directory), without running anything. They exit 0 when answered (a red last run included: the
//! verdict is in the answer, and `pith test` is the command whose exit code is the verdict), 2
//! when pith cannot read the workspace state.

use std::path::PathBuf;
use std::process::ExitCode;

use super::{answered, fail};

pub(crate) fn status(root: Option<PathBuf>, since: Option<u64>) -> ExitCode {
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => return fail(format!("cannot read the current directory: {e}")),
    };
    let req = pith_engine::StatusRequest {
        root,
        cwd,
        since,
        watcher: None,
    };
    answered(pith_engine::answer::status(&req))
}

pub(crate) fn failures(
    root: Option<PathBuf>,
    stacks: bool,
    page: u64,
    tests: Vec<String>,
) -> ExitCode {
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => return fail(format!("cannot read the current directory: {e}")),
    };
    let req = pith_engine::FailuresRequest { root, cwd, tests };
    let page = usize::try_from(page).unwrap_or(usize::MAX);
    answered(pith_engine::answer::failures(&req, page, stacks))
}

pub(crate) fn output(
    root: Option<PathBuf>,
    grep: Option<String>,
    test: Option<String>,
    page: u64,
) -> ExitCode {
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => return fail(format!("cannot read the current directory: {e}")),
    };
    let req = pith_engine::OutputRequest {
        root,
        cwd,
        grep,
        test,
    };
    let page = usize::try_from(page).unwrap_or(usize::MAX);
    answered(pith_engine::answer::output(&req, page))
}

pub(crate) fn gain(root: Option<PathBuf>, limit: Option<u64>, human: bool) -> ExitCode {
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => return fail(format!("cannot read the current directory: {e}")),
    };
    let req = pith_engine::GainRequest { root, cwd, limit };
    answered(pith_engine::answer::gain(&req, human))
}
