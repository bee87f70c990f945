//! `pith status` and `pith failures`: answers from the workspace state in `.pith/`, without
//! running anything. Both exit 0 when answered (a red last run included: the verdict is in the
//! answer, and `pith test` is the command whose exit code is the verdict), 2 when pith cannot
//! read the workspace state.

use std::path::PathBuf;
use std::process::ExitCode;

use super::{fail, print_line};

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
    match pith_engine::status(&req) {
        Ok(state) => {
            warn(&state.warnings);
            print_line(&pith_wire::to_json(&pith_wire::status_answer(&state)));
            ExitCode::SUCCESS
        }
        Err(e) => fail(e.to_string()),
    }
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
    match pith_engine::failures(&req) {
        Ok(details) => {
            warn(&details.warnings);
            let page = usize::try_from(page).unwrap_or(usize::MAX);
            let answer = pith_wire::failures_answer(&details, page, stacks);
            print_line(&pith_wire::to_json(&answer));
            ExitCode::SUCCESS
        }
        Err(e) => fail(e.to_string()),
    }
}

/// The engine's one-line warnings (a damaged state database moved aside), on stderr.
pub(crate) fn warn(warnings: &[String]) {
    for w in warnings {
        eprintln!("pith: {w}");
    }
}
