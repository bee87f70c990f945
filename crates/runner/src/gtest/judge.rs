//! What `ctest -V`'s output and the gtest JSON reports say, as a [`Run`]: the outcomes
//! tallied, the common endings, ctest's exit code and its own totals, gtest's closing summary.

use std::collections::{HashMap, HashSet};

use pith_model::{ExitMeaning, Phase, Run, Status};

use crate::process::Captured;
use crate::verdict::{self, Ending, Outcome, Verdict};
use crate::Context;

use crate::googletest::console::parse_gtest;
use crate::googletest::output_tail;

use super::console::{CtestRun, Ended};
use super::parse::{case_outcome, ctest_outcomes, Reports};
use super::{console, json};

/// What `ctest -V`'s output and the gtest JSON reports say, as a [`Run`].
pub(super) fn judge(
    ctx: &Context<'_>,
    cap: &Captured,
    ct: CtestRun,
    reports: Reports,
    requested: &[String],
) -> Run {
    let Reports {
        cases,
        doubts,
        unreadable,
    } = reports;
    // ctest's own words (its results, totals and list of failures) and what it said on stderr.
    let output = format!("{}\n{}", ctest_words(&ct.last).join("\n"), cap.stderr_str());
    let (outcomes, crash_tail) = outcomes(ctx, &ct, &cases);
    let (mut run, crashed) = tally(outcomes, requested);
    let tail = || verdict::tail(ctx.paths, &output);
    if requested.is_empty() {
        // gtest announces how many tests each process will run: more than reported means a
        // crash or the deadline took some along.
        let announced: u32 = ct.tests.iter().map(|t| announced(&t.output)).sum();
        if announced > run.passed + run.failed + run.skipped {
            run.selected = Some(announced);
        }
    }
    match Ending::of(cap.end) {
        Ending::Stopped => {
            // What the unfinished tests printed says more than ctest's bookkeeping.
            let unfinished = ct
                .tests
                .iter()
                .filter(|t| t.ended.is_none())
                .flat_map(|t| t.output.iter());
            verdict::stopped(
                &mut run,
                None,
                output_tail(ctx.paths, unfinished).or_else(tail),
            );
        }
        Ending::Killed(signal) => verdict::killed(&mut run, "ctest", &signal, None, tail()),
        Ending::Exited(_) if crashed => {
            verdict::crashed(&mut run, None, crash_tail.clone());
        }
        Ending::Exited(code) => {
            if ct.tests.is_empty() && !ct.no_tests && code != 0 {
                // ctest itself failed (no build directory, a broken CTestTestfile).
                run.status = Some(Status::CollectionFailed);
                run.tail = tail();
            }
        }
    }
    run.exit = verdict::exit(cap.end, |code| exit_meaning(code, &ct));
    let (mut reasons, console_whole) = account(ctx, &ct, &mut run);
    reasons.extend(doubts);
    if !console_whole {
        reasons.extend(unreadable);
    }
    if !reasons.is_empty() {
        run.reason = Some(reasons.join("; "));
    }
    if run.tail.is_none() && run.doubt().is_some() {
        run.tail = crash_tail.or_else(tail);
    }
    run
}

/// Every test's outcome, CTest test by CTest test (the JSON's where it has the test), then
/// those only the JSON has; and the tail of the first process that died or left a test
/// unfinished, which says why.
fn outcomes(
    ctx: &Context<'_>,
    ct: &CtestRun,
    cases: &[json::Case],
) -> (Vec<Outcome>, Option<String>) {
    let mut by_id: HashMap<&str, &json::Case> = HashMap::new();
    for c in cases {
        by_id.entry(c.id.as_str()).or_insert(c);
    }
    let mut seen: HashSet<String> = HashSet::new();
    let mut outcomes: Vec<Outcome> = Vec::new();
    let mut crash_tail: Option<String> = None;
    for t in &ct.tests {
        let more = ctest_outcomes(ctx, t, &by_id, &mut seen);
        // A process that died, or left a test unfinished: what it printed last says why.
        let ended_early = |o: &Outcome| {
            o.crashed
                || o.failure
                    .as_ref()
                    .is_some_and(|f| f.kind.as_deref() == Some("exit"))
        };
        if crash_tail.is_none() && more.iter().any(ended_early) {
            crash_tail = output_tail(ctx.paths, t.output.iter());
        }
        outcomes.extend(more);
    }
    // Results only the JSON has (output that could not be attributed). A test that ran prints
    // its `[ RUN ]` in its process's console: when every console is whole and announces its
    // tests, a case that ran and no console announced is another process's report (a child
    // gtest binary a test started inherits GTEST_OUTPUT and writes its own there).
    let consoles_tell = ct.tests.iter().all(|t| {
        let g = parse_gtest(t.output.iter());
        t.output.dropped() == 0 && (!g.gtest || !g.tests.is_empty())
    });
    for c in cases {
        if seen.contains(&c.id) || (consoles_tell && c.verdict != json::Verdict::Skipped) {
            continue;
        }
        seen.insert(c.id.clone());
        outcomes.push(case_outcome(c, ctx.paths));
    }
    (outcomes, crash_tail)
}

/// The outcomes counted into a run, kept to the requested tests when some were (those not
/// reported are not found); and whether a test's process died under it.
fn tally(outcomes: Vec<Outcome>, requested: &[String]) -> (Run, bool) {
    let mut run = Run::new("ctest");
    let mut found: Vec<String> = Vec::new();
    let mut crashed = false;
    for o in outcomes {
        let collect = o
            .failure
            .as_ref()
            .is_some_and(|f| f.phase == Phase::Collect);
        if !requested.is_empty() {
            // A suite that failed to set up answers for the requested tests of that suite.
            let suite_of = |r: &String| r.split_once('.').is_some_and(|(s, _)| s == o.id);
            if !(requested.contains(&o.id) || collect && requested.iter().any(suite_of)) {
                continue;
            }
            found.push(o.id.clone());
        }
        crashed |= o.crashed;
        match o.verdict {
            Verdict::Passed => run.passed += 1,
            Verdict::Skipped => run.skipped += 1,
            // Collection errors are counted apart from failed tests.
            Verdict::Failed if collect => {}
            Verdict::Failed => run.failed += 1,
            Verdict::Running => run.running.push(o.id.clone()),
        }
        if let Some(f) = o.failure {
            run.failures.push(f);
        }
    }
    if !requested.is_empty() {
        run.not_found = requested
            .iter()
            .filter(|r| !found.contains(r))
            .cloned()
            .collect();
    }
    (run, crashed)
}

/// Where ctest's own totals and gtest's closing summaries disagree with what pith read, one
/// line each, and whether every gtest process's console is whole (it says all its report would
/// have). A binary that exited 0 before gtest's end gives the tail when there is none yet.
fn account(ctx: &Context<'_>, ct: &CtestRun, run: &mut Run) -> (Vec<String>, bool) {
    let mut reasons: Vec<String> = Vec::new();
    if let Some((failed, total)) = ct.totals {
        let (read_failed, read_total) = ct.counted();
        if (failed, total) != (read_failed, read_total) {
            reasons.push(format!(
                "ctest counted {failed} failed of {total} tests; pith read {read_failed} of {read_total}"
            ));
        }
    }
    let mut unfinished: Vec<&str> = Vec::new();
    // Every gtest process ran to its summary with an end for each test it started: its console
    // says all its report would have.
    let mut console_whole = true;
    for t in &ct.tests {
        // A gtest binary that exited 0 without gtest's closing summary stopped before its end
        // (`_exit` in a tear-down, a destructor), where gtest writes its report; a test it left
        // running is a failure already.
        let g = parse_gtest(t.output.iter());
        console_whole &= !g.gtest || g.finished && g.tests.iter().all(|(_, end)| end.is_some());
        if t.ended == Some(Ended::Passed)
            && g.gtest
            && !g.finished
            && g.tests.iter().all(|(_, end)| end.is_some())
        {
            unfinished.push(&t.name);
        }
    }
    if !unfinished.is_empty() {
        reasons.push(format!(
            "{} exited 0 before GoogleTest's end (no summary, no report)",
            unfinished.join(", ")
        ));
        if run.tail.is_none() {
            let lines = ct
                .tests
                .iter()
                .filter(|t| unfinished.contains(&t.name.as_str()))
                .flat_map(|t| t.output.iter());
            run.tail = output_tail(ctx.paths, lines);
        }
    }
    (reasons, console_whole)
}

/// ctest's own lines worth a tail: results, totals, the lists of tests that failed or did not
/// run; not its bookkeeping (build directory paths, timings, hints).
pub(super) fn ctest_words(lines: &[String]) -> Vec<&str> {
    const NOISE: &[&str] = &[
        "Internal ctest changing into directory",
        "Start ",
        "UpdateCTestConfiguration",
        "Test project ",
        "Constructing a list of tests",
        "Done constructing a list of tests",
        "Updating test list for fixtures",
        "Added ",
        "Checking test dependency graph",
        "Total Test time",
        "Output from these tests are in",
        "Use \"--rerun-failed",
        "Errors while running CTest",
    ];
    lines
        .iter()
        .map(|l| l.trim_end())
        .filter(|l| {
            let t = l.trim_start();
            let numbered = t
                .strip_prefix("test ")
                .is_some_and(|n| n.trim().parse::<u32>().is_ok());
            !(t.is_empty() || numbered || NOISE.iter().any(|n| t.starts_with(n)))
        })
        .collect()
}

/// What ctest's exit code says: 0 every test passed (or none was found); 8 some test failed
/// (ctest's "tests failed" bit); anything else is ctest's own failure.
pub(super) fn exit_meaning(code: i32, ct: &CtestRun) -> ExitMeaning {
    match code {
        0 if ct.no_tests => ExitMeaning::NoTests,
        0 => ExitMeaning::Passed,
        8 => ExitMeaning::Failed,
        _ => ExitMeaning::Other,
    }
}

/// The test count in gtest's banner (`[==========] Running 3 tests from 1 test suite.`); a
/// CTest test that is not a gtest binary counts as one.
pub(super) fn announced(output: &console::Output) -> u32 {
    output
        .iter()
        .find_map(|l| {
            let rest = l.strip_prefix("[==========] Running ")?;
            rest.split_whitespace().next()?.parse().ok()
        })
        .unwrap_or(1)
}
