//! `cargo xtask`: the project's own maintenance tasks. This module owns the command line and
//! dispatch: `bench`, pith's token and wall-time benchmark, `memory`, pith's peak memory
//! under a flood of runner output, `impact`, change memory, reach and test selection on
//! injected bugs, and `parity`, pith's verdicts against the projects' own test commands.

mod bench;
mod impact;
mod impact_public;
mod lookups;
mod memory;
mod parity;
mod report;
mod scenario;
mod targets;
mod tokens;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

const USAGE: &str = "\
usage: cargo xtask bench [--runs N] [--scenario NAME]... [--markdown-out FILE] [--answers-out DIR]
                         [--record-baseline] [--green]
       cargo xtask memory
       cargo xtask impact [--bug NAME]... [--public DIR] [--markdown-out FILE]
       cargo xtask lookups [--files N] [--per-dir N] [--markdown-out FILE]
       cargo xtask parity [--quick] [--only PATTERN]... [--table FILE] [--pith BIN] [--keep]
       cargo xtask parity --project DIR --raw 'COMMAND'... [--runner NAME]... [--edit 'FILE|FROM|TO']...
                          [--prepare 'CMD']... [--table FILE]

Runs each fixture's test runner as an agent would type it (for CTest: cmake's configure,
build and ctest, outputs concatenated and times added), and `pith test` on the same
workspace, and prints a markdown table of output size (bytes, o200k_base tokens) and median
wall time. A second table has the report rows: real public reports ($PITH_SAMPLES, else
../shared/samples: TRX, JUnit XML) read by `pith test --report` against the file itself, for
runners that cannot run here (.NET). The tables go to stdout; progress goes to stderr.

  --runs N             timed pairs of a raw and a pith run, the raw one first (default 5)
  --scenario NAME      only scenarios whose name contains NAME (repeatable)
  --markdown-out FILE  also write the table to FILE
  --answers-out DIR    also write each scenario's answer to DIR/NAME.json (compare answers
                       across a change, durationS aside)
  --record-baseline    re-record xtask/baseline/answers.json from this run's red answers (for
                       the scenarios run; the others' entries stay): do it deliberately, when
                       an answer is meant to show other ids or places
  --green              only each runner's green run, and its target: `pith test` within 1.10×
                       of the declared command's wall time (the median of the ratios of the
                       pairs' runs, each pith run against the command's run just before it);
                       exit 1 on a row over it. Unless --runs says, a row takes 21 pairs, and
                       more while its pairs have taken under 30 s (at most 101): a short
                       runner's ratio then moves about a percent with the machine's noise,
                       not five

Every run that includes green rows ends its tables with the Green overhead table: per runner,
the declared command against `pith test` on the same copy. Outside --green an over-target row
is a warning on stderr (wall times move with the machine's load), not a failure.

After the tables, a Targets section checks pith's red answers (exit 1): each ≤ 800 B, their
median ≤ 120 o200k tokens, and every test id and deepest-frame `file:line` the baseline
recorded for a scenario still somewhere in its answer. Each miss is a MISS line; any miss
makes the bench exit non-zero.

`memory` runs `pith test` on projects whose one test prints 100 MB, or prints without end
under `--timeout 5`, and prints pith's own peak RSS (VmHWM), wall time and status per runner.

`impact` injects each bug of tests/fixtures/impact_bugs.json into a fresh copy of its fixture
project (Python, JavaScript, Go, Rust, Java), once committed to git and once without git, after
a green `pith test` and an earlier bug made, run red and undone, beside the project's harmless
edits, and prints one row per bug: the failing test files `pith select` holds
(recall), the selection's share of the suite, the injected line's rank among the red run's
`suspects` and how many name a harmless or undone line, the wall time of the full run and of `pith test --changed` (both warm), and the
wall time of a red full run with `--trace always` over one with `--trace never` (— where the
runner traced nothing); then the test files each fixture's graph marks dynamic. Exit 1 on a
missed target: recall below 100%, a failure of the full run `--changed` does not fail, a
median selection above 25% of the suite, the injected line first of fewer than 80% or in the
top 3 of fewer than 95% of wrong-result bugs, a suspect on an undone line, tracing above 1.3× (median), a verdict tracing changed.
`--bug NAME` keeps the rows whose `eco/kind` contains NAME. `--public DIR` measures the public
projects of tests/fixtures/impact_public.json instead (each at its pinned commit, cloned from
DIR/<owner>+<name>/repo, DIR/<owner>+<name> or DIR/<name>, set up by its listed commands,
git only; rows `owner/name/kind`). With XTASK_KEEP set, the copies stay in the temp directory
it names.

`lookups` generates a Python tree of --files files (100000), --per-dir to a directory (100),
and times `find_usages` in `pith mcp` (the index kept in memory, following the file watcher):
its first call, warm on the unchanged tree, and right after a one-file edit, beside
`pith usages` from the CLI. Exit 1 when the warm lookup is not under 50 ms.

`parity` runs each set-up of xtask/parity/corpus (a small project shaped like real ones, in a
green and/or red variant) twice, each from a fresh copy committed to a new git repository: the
raw command a developer types there (its parity.json `raw`, argv, no shell) and `pith test`. It
compares the verdict (green or not), the counts the runner printed, the failing ids (each
runner's printed names read by xtask's own small readers) and `git status --ignored
--porcelain` after each side, and prints a markdown table. Both sides run without CI markers
(a developer's shell) and with pith's state in a scratch directory. Exit 1 on a disagreement
the corpus does not list as known (with its reason and follow-up), or on a set-up whose raw
run does not answer what the corpus expects (a tool missing, a broken fixture).
  --quick            only the set-ups marked quick (scripts/quick.sh and CI)
  --only PATTERN     only runs whose `eco/set-up/variant` contains PATTERN (repeatable)
  --table FILE       also write the table to FILE
  --pith BIN         drive this pith instead of building target/debug/pith
  --keep             keep the copies (their directory is printed)
  --project DIR      compare a checkout (a public project, as published) instead: copied
                     twice, `--raw` run in one (repeatable, in order), `pith test` in the other
  --runner NAME      the runners whose lines the raw output is read with (default: guessed
                     from the command and package.json)
  --edit F|FROM|TO   with --project: a second run with this edit (an injected bug beside a
                     harmless edit; repeatable; \n in FROM/TO is a newline)
  --prepare 'CMD'    with --project: run in both copies before either side, untimed (the
                     configure step a developer ran once: `cmake -S . -B build -D...`)
  PARITY_VERBOSE=1   print both sides' output on each disagreement
";

fn main() -> ExitCode {
    match run(std::env::args().skip(1)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(mut args: impl Iterator<Item = String>) -> Result<()> {
    match args.next().as_deref() {
        Some("bench") => bench::run(&parse_bench_args(args)?),
        Some("memory") => memory::run(&bench::build_pith(&bench::repo_root())?),
        Some("impact") => impact::run(&parse_impact_args(args)?),
        Some("lookups") => lookups::run(&parse_lookups_args(args)?),
        Some("parity") => parity::run(&parse_parity_args(args)?),
        Some("-h" | "--help") => {
            eprint!("{USAGE}");
            Ok(())
        }
        Some(other) => bail!("unknown task {other:?}\n\n{USAGE}"),
        None => bail!("no task given\n\n{USAGE}"),
    }
}

fn parse_bench_args(mut args: impl Iterator<Item = String>) -> Result<bench::Options> {
    let mut opts = bench::Options {
        runs: 5,
        budget: None,
        filters: Vec::new(),
        markdown_out: None,
        answers_out: None,
        record_baseline: false,
        green: false,
    };
    let mut runs_given = false;
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().with_context(|| format!("{flag} needs a value"));
        match arg.as_str() {
            "--runs" => {
                let v = value("--runs")?;
                opts.runs = v
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .with_context(|| format!("--runs wants a positive integer, not {v:?}"))?;
                runs_given = true;
            }
            "--green" => opts.green = true,
            "--scenario" => opts.filters.push(value("--scenario")?),
            "--markdown-out" => opts.markdown_out = Some(PathBuf::from(value("--markdown-out")?)),
            "--answers-out" => opts.answers_out = Some(PathBuf::from(value("--answers-out")?)),
            "--record-baseline" => opts.record_baseline = true,
            "-h" | "--help" => {
                eprint!("{USAGE}");
                std::process::exit(0);
            }
            other => bail!("unknown option {other:?}\n\n{USAGE}"),
        }
    }
    if opts.green && !runs_given {
        opts.runs = bench::GREEN_MIN_PAIRS;
        opts.budget = Some(bench::GREEN_BUDGET);
    }
    Ok(opts)
}

fn parse_lookups_args(mut args: impl Iterator<Item = String>) -> Result<lookups::Options> {
    let mut opts = lookups::Options {
        files: 100_000,
        per_dir: 100,
        markdown_out: None,
    };
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().with_context(|| format!("{flag} needs a value"));
        let mut count = |flag: &str| -> Result<usize> {
            let v = value(flag)?;
            v.parse()
                .ok()
                .filter(|&n| n > 0)
                .with_context(|| format!("{flag} wants a positive integer, not {v:?}"))
        };
        match arg.as_str() {
            "--files" => opts.files = count("--files")?,
            "--per-dir" => opts.per_dir = count("--per-dir")?,
            "--markdown-out" => opts.markdown_out = Some(PathBuf::from(value("--markdown-out")?)),
            "-h" | "--help" => {
                eprint!("{USAGE}");
                std::process::exit(0);
            }
            other => bail!("unknown option {other:?}\n\n{USAGE}"),
        }
    }
    Ok(opts)
}

fn parse_impact_args(mut args: impl Iterator<Item = String>) -> Result<impact::Options> {
    let mut opts = impact::Options {
        filters: Vec::new(),
        markdown_out: None,
        public: None,
    };
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().with_context(|| format!("{flag} needs a value"));
        match arg.as_str() {
            "--bug" => opts.filters.push(value("--bug")?),
            "--public" => opts.public = Some(PathBuf::from(value("--public")?)),
            "--markdown-out" => opts.markdown_out = Some(PathBuf::from(value("--markdown-out")?)),
            "-h" | "--help" => {
                eprint!("{USAGE}");
                std::process::exit(0);
            }
            other => bail!("unknown option {other:?}\n\n{USAGE}"),
        }
    }
    Ok(opts)
}

fn parse_parity_args(mut args: impl Iterator<Item = String>) -> Result<parity::Options> {
    let mut opts = parity::Options {
        quick: false,
        only: Vec::new(),
        table: None,
        project: None,
        raw: Vec::new(),
        runners: Vec::new(),
        edits: Vec::new(),
        prepare: Vec::new(),
        pith: None,
        keep: false,
    };
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().with_context(|| format!("{flag} needs a value"));
        match arg.as_str() {
            "--quick" => opts.quick = true,
            "--only" => opts.only.push(value("--only")?),
            "--table" => opts.table = Some(PathBuf::from(value("--table")?)),
            "--project" => opts.project = Some(PathBuf::from(value("--project")?)),
            "--raw" => opts.raw.push(value("--raw")?),
            "--edit" => opts.edits.push(value("--edit")?),
            "--prepare" => opts.prepare.push(value("--prepare")?),
            "--runner" => {
                let r = value("--runner")?;
                if !parity::corpus::RUNNERS.contains(&r.as_str()) {
                    bail!("--runner {r:?}: one of {:?}", parity::corpus::RUNNERS);
                }
                opts.runners.push(r);
            }
            "--pith" => opts.pith = Some(PathBuf::from(value("--pith")?)),
            "--keep" => opts.keep = true,
            "-h" | "--help" => {
                eprint!("{USAGE}");
                std::process::exit(0);
            }
            other => bail!("unknown option {other:?}\n\n{USAGE}"),
        }
    }
    if opts.project.is_none()
        && (!opts.raw.is_empty() || !opts.runners.is_empty() || !opts.edits.is_empty())
    {
        bail!("--raw, --runner and --edit go with --project");
    }
    Ok(opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<bench::Options> {
        parse_bench_args(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn defaults_and_options() {
        let o = parse(&[]).unwrap();
        assert_eq!((o.runs, o.filters.len(), o.markdown_out), (5, 0, None));
        let o = parse(&["--runs", "3", "--scenario", "rust/", "--scenario", "demo"]).unwrap();
        assert_eq!(o.runs, 3);
        assert_eq!(o.filters, ["rust/", "demo"]);
        assert!(!o.record_baseline);
        assert!(parse(&["--record-baseline"]).unwrap().record_baseline);
        assert!(parse(&["--runs", "0"]).is_err());
        assert!(parse(&["--runs"]).is_err());
        assert!(parse(&["--bogus"]).is_err());
        let g = parse(&["--green"]).unwrap();
        assert!(g.green && g.runs == bench::GREEN_MIN_PAIRS && g.budget.is_some());
        let fixed = parse(&["--green", "--runs", "3"]).unwrap();
        assert!(fixed.runs == 3 && fixed.budget.is_none());
    }

    #[test]
    fn parity_options() {
        let p = |a: &[&str]| parse_parity_args(a.iter().map(|s| s.to_string()));
        let o = p(&["--quick", "--only", "js/", "--table", "t.md"]).unwrap();
        assert!(o.quick && o.project.is_none());
        assert_eq!(o.only, ["js/"]);
        let o = p(&["--project", "d", "--raw", "npm test", "--runner", "jest"]).unwrap();
        assert_eq!((o.raw.len(), o.runners.len()), (1, 1));
        assert!(p(&["--raw", "npm test"]).is_err());
        assert!(p(&["--project", "d", "--runner", "ava"]).is_err());
    }
}
