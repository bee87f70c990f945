//! `pith mcp` (serve MCP over stdio until the client goes) and `pith init <host>` (wire pith
//! into an agent host). Exit codes: 0 done, 2 pith could not do its job. `pith mcp` writes
//! nothing but protocol on stdout; `pith init` reports one line per file it considered.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::fail;

use pith_init::{self as init, Scope};

pub fn mcp(root: Option<PathBuf>, slim: bool) -> ExitCode {
    match pith_mcp::serve(pith_mcp::Options { root, slim }) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(format!("mcp: {e}")),
    }
}

pub fn init(host: &str, print: bool, user: bool, root: Option<PathBuf>) -> ExitCode {
    let Some(host) = init::host(host) else {
        return fail(format!(
            "unknown host {host:?} (hosts: {})",
            init::host_names()
        ));
    };
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => return fail(format!("cannot read the current directory: {e}")),
    };
    let root = match pith_engine::resolve(root.as_deref(), &cwd) {
        Ok(root) => root,
        Err(e) => return fail(e.to_string()),
    };
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    let mut out = std::io::stdout().lock();
    let mut failed = false;
    for planned in init::plan(host, &root, home.as_deref(), pith_engine::LONGEST_CALL) {
        // A file that cannot be merged is left as it is and said; the others are written.
        let p = match planned {
            Ok(p) => p,
            Err(e) => {
                eprintln!("pith: {e}");
                failed = true;
                continue;
            }
        };
        let held_back = p.scope == Scope::User && !user;
        let state = match (p.old.is_some(), p.changes()) {
            (_, false) => "unchanged",
            (false, true) => "new",
            (true, true) => "changed",
        };
        let line = if print {
            let note = if held_back {
                ", written only with --user"
            } else {
                ""
            };
            let body = if p.changes() { p.new.as_str() } else { "" };
            format!("==> {} ({state}{note})\n{body}", p.shown)
        } else if held_back {
            eprintln!(
                "pith: {} reads MCP servers only from {}; `pith init {} --user` adds pith there \
                 (`--print` shows the entry)",
                host.title, p.shown, host.name
            );
            continue;
        } else if p.changes() {
            if let Err(e) = init::write(&p) {
                eprintln!("pith: {e}");
                failed = true;
                continue;
            }
            format!("wrote {}\n", p.shown)
        } else {
            format!("unchanged {}\n", p.shown)
        };
        if out.write_all(line.as_bytes()).is_err() {
            break;
        }
    }
    if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}
