//! `pith`: thin glue from the command line to the engine. Parses arguments, calls one engine
//! answer function, prints its JSON line on stdout and exits with its code (0 green, 1 the
//! code under test is not green, 2 pith could not do its job).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};

mod docs_cmd;
mod index_cmd;
mod mcp_cmd;
mod state_cmd;

#[derive(Parser)]
#[command(
    name = "pith",
    // The version and the commit it was built from (build.rs).
    version = env!("PITH_VERSION"),
    about = "Small, exact answers about a workspace's tests, for AI coding agents",
    after_help = "pith writes nothing into the workspace: its state (history, run lock, code \
                  index) and caches live in $PITH_CACHE_DIR, else $XDG_CACHE_HOME/pith, else \
                  ~/.cache/pith (~/Library/Caches/pith on macOS), or in the temporary directory's pith-<uid> where that cannot \
                  be written."
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
        /// Run only this runner: nextest, cargo (plain `cargo test`), pytest, unittest, go, jest,
        /// vitest, node, mocha, dotnet, maven, gradle, ctest or bazel.
        #[arg(long, value_name = "NAME")]
        runner: Option<String>,
        /// Read these existing report files instead of running anything (JUnit XML, TRX,
        /// `go test -json`, jest/vitest JSON, GoogleTest JSON; format told from the content).
        #[arg(long, value_name = "PATH", num_args = 1.., conflicts_with_all = ["tests", "runner", "timeout"])]
        report: Vec<PathBuf>,
        /// A generation from an earlier answer: when nothing changed since and the same
        /// selection ran at it, answer `"unchanged":true` with that run's status, not running.
        #[arg(long, value_name = "N", conflicts_with = "report")]
        since: Option<u64>,
        /// Wait at most this many seconds for another pith test in this workspace, then
        /// answer status Busy (exit 2).
        #[arg(long, value_name = "SECS", default_value_t = pith_engine::DEFAULT_WAIT.as_secs())]
        wait: u64,
        /// Run only the test files the changes reach: changes since the last green run (or
        /// `--rev`), followed through the import graph; everything when a change is one the
        /// graph cannot follow (the answer's `changes` says why).
        #[arg(long, conflicts_with_all = ["report", "since", "tests"])]
        changed: bool,
        /// With `--changed`: measure the changes against this git revision.
        #[arg(long, value_name = "REV", requires = "changed")]
        rev: Option<String>,
        /// Re-run a red run's failing tests with line tracing to rank suspects: auto (when the import graph leaves a choice), always, never.
        #[arg(long, value_name = "WHEN", value_enum, default_value_t = TraceWhen::Auto,
              conflicts_with = "report")]
        trace: TraceWhen,
        /// Test ids from an earlier answer: re-run exactly these.
        #[arg(value_name = "TEST_ID")]
        tests: Vec<String>,
    },
    /// The workspace's generation, its last run, files changed since, its runners; one line of
    /// JSON. Exits 0 when answered, whatever the last run's status.
    Status {
        /// Workspace root (default: the nearest ancestor with a project marker).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// A generation from an earlier answer: when nothing changed since, answer just
        /// `{"generation":N,"unchanged":true}`.
        #[arg(long, value_name = "N")]
        since: Option<u64>,
    },
    /// The last run's failures in detail (full messages, every project frame), ten a page;
    /// one line of JSON. Exits 0 when answered.
    Failures {
        /// Workspace root (default: the nearest ancestor with a project marker).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// Every frame, library frames included.
        #[arg(long)]
        stacks: bool,
        /// Which page (the previous answer's `nextPage`).
        #[arg(long, value_name = "N", default_value_t = 1,
              value_parser = clap::value_parser!(u64).range(1..))]
        page: u64,
        /// Only these tests' failures.
        #[arg(value_name = "TEST_ID")]
        tests: Vec<String>,
    },
    /// The last run's raw runner output, without running: what the runners printed (colour
    /// removed, paths relative, head and tail within a bound), a page at a time; one line of
    /// JSON. The last resort after `pith test`'s `tail` and `pith failures`. Exits 0 when
    /// answered.
    Output {
        /// Workspace root (default: the nearest ancestor with a project marker).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// Only the lines matching this regular expression, each with its line number.
        #[arg(long, value_name = "RE")]
        grep: Option<String>,
        /// This test's own output (what it printed, as its runner kept it apart); else the
        /// run's lines that name it.
        #[arg(long, value_name = "ID")]
        test: Option<String>,
        /// Which page (of the previous answer's `pages`).
        #[arg(long, value_name = "N", default_value_t = 1,
              value_parser = clap::value_parser!(u64).range(1..))]
        page: u64,
    },
    /// What pith saved: each answered `pith test`'s raw runner output (what the agent would
    /// have read, up to the host's truncation limit) against pith's answer, in o200k tokens,
    /// per command, per day and in total; regressions and red answers' fidelity included. One
    /// line of JSON.
    Gain {
        /// Workspace root (default: the nearest ancestor with a project marker).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// Characters of each command's raw output counted, where the host cuts it (default
        /// 30000, or PITH_GAIN_LIMIT; at most 150000).
        #[arg(long, value_name = "CHARS", value_parser = clap::value_parser!(u64).range(1..))]
        limit: Option<u64>,
        /// A small table for a person instead of the JSON line.
        #[arg(long)]
        human: bool,
    },
    /// Where NAME is defined: kind, file:line and container of each definition (syntactic).
    Symbol {
        /// A name, or a qualified name: `Config::load`, `pkg.module.func`, `Type.method`.
        name: String,
        /// Only definitions of this kind (function, method, class, struct, enum, interface,
        /// trait, type, module, const, field, …).
        #[arg(long, value_name = "K")]
        kind: Option<String>,
        /// Workspace root (default: the nearest ancestor with a project marker).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
    },
    /// Where NAME is used: file:line sites, or per-file counts when there are many (syntactic).
    Usages {
        /// A name, or a qualified name (`Config::load` keeps only uses written so).
        name: String,
        /// Workspace root (default: the nearest ancestor with a project marker).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
    },
    /// The test files that depend on FILE (the import graph), nearest first; exit 1 when none.
    TestsFor {
        /// A file, relative to the current directory or absolute.
        file: String,
        /// Workspace root (default: the nearest ancestor with a project marker).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
    },
    /// The test files the current changes select: changes since the last green run (or git
    /// revision REV), followed through the import graph; everything, with the reason, when a
    /// change is one the graph cannot follow.
    Select {
        /// Measure the changes against this git revision instead of the last green run.
        #[arg(long, value_name = "REV")]
        rev: Option<String>,
        /// Workspace root (default: the nearest ancestor with a project marker).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
    },
    /// What depends on TARGET, a file or a symbol name: dependent files, where it is defined,
    /// the tests that reach it; exit 1 when unknown.
    Blast {
        /// A file (relative to the current directory, or absolute) or a symbol name.
        target: String,
        /// Workspace root (default: the nearest ancestor with a project marker).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
    },
    /// Serve MCP over stdio: the CLI's answers as tools (run_tests, get_guide, ...).
    Mcp {
        /// Workspace root (default: the nearest ancestor of the current directory with a
        /// project marker).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// One-line tool descriptions, for hosts that also read pith's instructions block.
        #[arg(long)]
        slim: bool,
    },
    /// Wire pith into an agent host: its MCP config and an instructions block (idempotent).
    Init {
        /// amp, antigravity (agy), claude, codex, copilot, cursor, gemini, goose, junie, kiro,
        /// opencode, vscode, windsurf or zed.
        host: String,
        /// Write nothing; print what would be written.
        #[arg(long)]
        print: bool,
        /// Also write the host's config in your home directory (Windsurf's and Goose's MCP
        /// config, which exist only there).
        #[arg(long)]
        user: bool,
        /// Workspace root (default: the nearest ancestor with a project marker).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
    },
    /// Print the shell completion script for SHELL (bash, zsh, fish, powershell, elvish).
    Completions {
        /// The shell to complete in.
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
    /// Print pith's manual page (roff), or that of one command (`pith man test`).
    Man {
        /// A command whose page to print instead (test, status, failures, …).
        #[arg(value_name = "COMMAND")]
        command: Option<String>,
        /// Write every page (pith.1, pith-test.1, …) into this directory instead.
        #[arg(long, value_name = "DIR", conflicts_with = "command")]
        dir: Option<PathBuf>,
    },
}

/// `pith test --trace`: when a red run re-runs its failing tests with line tracing.
#[derive(Clone, Copy, clap::ValueEnum)]
enum TraceWhen {
    Auto,
    Always,
    Never,
}

impl From<TraceWhen> for pith_engine::Trace {
    fn from(t: TraceWhen) -> Self {
        match t {
            TraceWhen::Auto => pith_engine::Trace::Auto,
            TraceWhen::Always => pith_engine::Trace::Always,
            TraceWhen::Never => pith_engine::Trace::Never,
        }
    }
}

/// Exit code when pith could not do its job.
const EXIT_PITH_FAILED: u8 = 2;
/// Exit code when pith itself was interrupted (the shell convention for SIGINT).
const EXIT_INTERRUPTED: u8 = 130;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Mcp { root, slim } => mcp_cmd::mcp(root, slim),
        Command::Init {
            host,
            print,
            user,
            root,
        } => mcp_cmd::init(&host, print, user, root),
        Command::Symbol { name, kind, root } => index_cmd::symbol(root, &name, kind.as_deref()),
        Command::Usages { name, root } => index_cmd::usages(root, &name),
        Command::TestsFor { file, root } => index_cmd::tests_for(root, &file),
        Command::Select { rev, root } => index_cmd::select(root, rev.as_deref()),
        Command::Blast { target, root } => index_cmd::blast(root, &target),
        Command::Test { root, report, .. } if !report.is_empty() => reports(root, &report),
        Command::Test {
            root,
            timeout,
            runner,
            tests,
            since,
            wait,
            changed,
            rev,
            trace,
            ..
        } => {
            let changed = changed.then_some(match rev {
                Some(r) => pith_engine::ChangedSince::Rev(r),
                None => pith_engine::ChangedSince::LastGreen,
            });
            let req = Requested {
                root,
                timeout,
                runner,
                tests,
                changed,
                trace: trace.into(),
            };
            test(req, since, wait)
        }
        Command::Status { root, since } => state_cmd::status(root, since),
        Command::Failures {
            root,
            stacks,
            page,
            tests,
        } => state_cmd::failures(root, stacks, page, tests),
        Command::Output {
            root,
            grep,
            test,
            page,
        } => state_cmd::output(root, grep, test, page),
        Command::Completions { shell } => docs_cmd::completions(shell),
        Command::Man { command, dir } => docs_cmd::man(command.as_deref(), dir.as_deref()),
        Command::Gain { root, limit, human } => state_cmd::gain(root, limit, human),
    }
}

/// What `pith test` was asked to run, before the engine's request is made of it.
struct Requested {
    root: Option<PathBuf>,
    timeout: u64,
    runner: Option<String>,
    tests: Vec<String>,
    changed: Option<pith_engine::ChangedSince>,
    trace: pith_engine::Trace,
}

fn test(asked: Requested, since: Option<u64>, wait: u64) -> ExitCode {
    let Requested {
        root,
        timeout,
        runner,
        tests,
        changed,
        trace,
    } = asked;
    pith_engine::signals::install();
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => return fail(format!("cannot read the current directory: {e}")),
    };
    let progress: Option<pith_engine::Progress> = std::io::stderr()
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
        beat: None,
        changed,
        trace,
    };
    let state = pith_engine::StateOptions {
        since,
        wait: Some(Duration::from_secs(wait)),
        watcher: None,
    };
    let result = pith_engine::answer::test(&req, &state);
    if pith_engine::signals::interrupted() {
        return ExitCode::from(EXIT_INTERRUPTED);
    }
    answered(result)
}

fn reports(root: Option<PathBuf>, files: &[PathBuf]) -> ExitCode {
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => return fail(format!("cannot read the current directory: {e}")),
    };
    answered(pith_engine::answer::reports(root.as_deref(), &cwd, files))
}

/// Prints an answer (its warnings on stderr) and ends with its exit code; an error is pith's
/// own failure (exit 2).
fn answered<E: std::fmt::Display>(result: Result<pith_engine::Answer, E>) -> ExitCode {
    match result {
        Ok(answer) => {
            for w in &answer.warnings {
                eprintln!("pith: {w}");
            }
            print_line(&answer.json);
            ExitCode::from(answer.exit)
        }
        Err(e) => fail(e.to_string()),
    }
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
