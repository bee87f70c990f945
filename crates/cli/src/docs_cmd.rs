//! `pith completions SHELL` and `pith man`: shell completions and manual pages generated from
//! the command-line definition itself at run time, so they cannot drift from it.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use clap::CommandFactory;

use crate::{fail, Cli};

/// The completion script for SHELL, on stdout.
pub fn completions(shell: clap_complete::Shell) -> ExitCode {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "pith", &mut out);
    write_stdout(&out)
}

/// The manual page of pith, or of one of its commands (`pith-test(1)`), on stdout; with `dir`,
/// every page (`pith.1`, `pith-test.1`, …) written there instead.
pub fn man(command: Option<&str>, dir: Option<&Path>) -> ExitCode {
    let mut cli = Cli::command().disable_help_subcommand(true);
    cli.build();
    let source = format!("pith {}", env!("PITH_VERSION"));
    if let Some(dir) = dir {
        let pages = std::iter::once(cli.clone()).chain(cli.get_subcommands().cloned());
        for page in pages {
            let man = clap_mangen::Man::new(page).source(source.as_str());
            if let Err(e) = man.generate_to(dir) {
                let file = dir.join(man.get_filename());
                return fail(format!("cannot write {}: {e}", file.display()));
            }
        }
        return ExitCode::SUCCESS;
    }
    let page = match command {
        None => cli,
        Some(name) => match cli.find_subcommand(name) {
            Some(sub) => sub.clone(),
            None => {
                let names: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
                return fail(format!(
                    "no command {name}: the commands are {}",
                    names.join(", ")
                ));
            }
        },
    };
    let mut out = Vec::new();
    let man = clap_mangen::Man::new(page).source(source);
    if let Err(e) = man.render(&mut out) {
        return fail(format!("cannot render the manual page: {e}"));
    }
    write_stdout(&out)
}

/// Writes generated text on stdout; a reader that went away (`| head`) is not an error.
fn write_stdout(bytes: &[u8]) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            fail(format!("cannot write to stdout: {e}"))
        }
        _ => ExitCode::SUCCESS,
    }
}
