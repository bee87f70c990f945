//! `pith`: thin glue from the command line to the engine. Parses arguments, calls one engine
//! function, prints its answer as one line of JSON on stdout, and maps the answer's status to
//! the exit code (0 green, 1 the code under test is not green, 2 pith could not do its job).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "pith",
    version,
    about = "Small, exact answers about a workspace's tests, for AI coding agents"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the workspace's tests through their runner; print one line of JSON.
    Test {
        /// Workspace root (default: the nearest ancestor with a project marker).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// Kill the run (its whole process group) after this many seconds.
        #[arg(long, value_name = "SECS", default_value_t = pith_engine::DEFAULT_TIMEOUT.as_secs(),
              value_parser = clap::value_parser!(u64).range(1..))]
        timeout: u64,
        /// Run only this runner: nextest, cargo (plain `cargo test`) or pytest.
        #[arg(long, value_name = "NAME")]
        runner: Option<String>,
        /// Read these existing report files instead of running anything (JUnit XML, TRX,
        /// `go test -json`, jest/vitest JSON, GoogleTest JSON; format told from the content).
        #[arg(long, value_name = "PATH", num_args = 1.., conflicts_with_all = ["tests", "runner", "timeout"])]
        report: Vec<PathBuf>,
        /// Test ids from an earlier answer: re-run exactly these.
        #[arg(value_name = "TEST_ID")]
        tests: Vec<String>,
    },
}

/// Exit code when pith could not do its job.
const EXIT_PITH_FAILED: u8 = 2;
/// Exit code when pith itself was interrupted (the shell convention for SIGINT).
const EXIT_INTERRUPTED: u8 = 130;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Test { root, report, .. } if !report.is_empty() => reports(root, &report),
        Command::Test {
            root,
            timeout,
            runner,
            tests,
            ..
        } => test(root, timeout, runner, tests),
    }
}

fn test(
    root: Option<PathBuf>,
    timeout: u64,
    runner: Option<String>,
    tests: Vec<String>,
) -> ExitCode {
    pith_runner::process::install_signal_handlers();
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => return fail(format!("cannot read the current directory: {e}")),
    };
    let progress: Option<Box<dyn Fn(&str) + Send + Sync>> = std::io::stderr()
        .is_terminal()
        .then(|| Box::new(|runner: &str| eprintln!("pith: running {runner}…")) as _);
    let req = pith_engine::TestRequest {
        root,
        cwd,
        timeout: Some(Duration::from_secs(timeout)),
        tests,
        runner,
        cancel: None,
        progress,
    };
    let result = pith_engine::run_tests(&req);
    if pith_runner::process::was_interrupted() {
        return ExitCode::from(EXIT_INTERRUPTED);
    }
    match result {
        Ok(report) => answer(&report),
        Err(e) => fail(e.to_string()),
    }
}

fn reports(root: Option<PathBuf>, files: &[PathBuf]) -> ExitCode {
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => return fail(format!("cannot read the current directory: {e}")),
    };
    match pith_engine::read_reports(root.as_deref(), &cwd, files) {
        Ok(report) => answer(&report),
        Err(e) => fail(e.to_string()),
    }
}

/// Prints a report's answer and turns its status into the exit code.
fn answer(report: &pith_model::Report) -> ExitCode {
    print_line(&pith_wire::to_json(&pith_wire::test_answer(report)));
    ExitCode::from(report.status().exit_code() as u8)
}

fn fail(message: String) -> ExitCode {
    eprintln!("pith: {message}");
    ExitCode::from(EXIT_PITH_FAILED)
}

/// Prints the answer; a reader that went away (`pith test | head -c 10`) is not an error.
fn print_line(line: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{line}").and_then(|()| out.flush()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("pith: cannot write the answer: {e}");
        }
    }
}
