//! `pith symbol` and `pith usages`: one engine call, the answer shaped by `pith_wire`, one line
//! on stdout. Exit code 0 when something was found, 1 when nothing was (the answer is still
//! printed), 2 when pith could not do its job.

use std::path::PathBuf;
use std::process::ExitCode;

use super::{fail, print_line};

const EXIT_FOUND: u8 = 0;
const EXIT_NOTHING_FOUND: u8 = 1;

pub fn symbol(root: Option<PathBuf>, name: &str, kind: Option<&str>) -> ExitCode {
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => return fail(format!("cannot read the current directory: {e}")),
    };
    let defs = match pith_engine::find_symbol(root.as_deref(), &cwd, name, kind) {
        Ok(defs) => defs,
        Err(e) => return fail(e.to_string()),
    };
    let shaped: Vec<pith_wire::SymbolDef> =
        defs.iter().map(pith_engine::Definition::shaped).collect();
    let answer = pith_wire::symbol_answer(name.trim(), &shaped);
    print_line(&pith_wire::to_json(&answer));
    exit(answer.found())
}

pub fn usages(root: Option<PathBuf>, name: &str) -> ExitCode {
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => return fail(format!("cannot read the current directory: {e}")),
    };
    let files = match pith_engine::find_usages(root.as_deref(), &cwd, name) {
        Ok(files) => files,
        Err(e) => return fail(e.to_string()),
    };
    let shaped: Vec<pith_wire::UsesInFile> =
        files.iter().map(pith_engine::FileUses::shaped).collect();
    let answer = pith_wire::usages_answer(name.trim(), &shaped);
    print_line(&pith_wire::to_json(&answer));
    exit(answer.count() > 0)
}

fn exit(found: bool) -> ExitCode {
    ExitCode::from(if found {
        EXIT_FOUND
    } else {
        EXIT_NOTHING_FOUND
    })
}
