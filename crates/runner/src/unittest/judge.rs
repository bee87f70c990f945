//! What a finished unittest process and the script's records say, as a [`Run`]: outcomes from
//! the records (subtests, expected failures and unexpected successes as unittest counts them,
//! class and module fixtures as setup/teardown failures, modules that did not import as load
//! errors), unittest's exit status weighed against them, and the endings every runner shares
//! (a signal, an exit in the middle of the run, pith's deadline): never a false green.

use std::collections::HashSet;

use pith_model::output::TestOutput;
use pith_model::{ExitMeaning, Failure, Phase, Run, Status, TestOutcome};

use crate::process::Captured;
use crate::pytest::faults;
use crate::pytest::judge::failure;
use crate::pytest::records::Detail;
use crate::verdict::{self, Ending, ExitCodes};
use crate::{text, Context};

use super::command::subtest_base;
use super::records::{Outcome, Records};

pub(super) fn runner_missing(hint: String, interpreter: Option<String>) -> Run {
    Run {
        interpreter,
        ..verdict::runner_missing("unittest", hint)
    }
}

/// `unittest.main`'s exit status: 0 when `wasSuccessful()`, else 1; 5 when no test ran
/// (Python 3.12+). Anything else is not unittest's word.
fn exit_meaning(code: i32) -> ExitMeaning {
    const CODES: &ExitCodes = &[
        (0, ExitMeaning::Passed),
        (1, ExitMeaning::Failed),
        (5, ExitMeaning::NoTests),
    ];
    verdict::meaning(CODES, code)
}

pub(super) fn judge(
    ctx: &Context<'_>,
    records: &Records,
    captured: &Captured,
    stacks: &str,
    asked: &[String],
) -> Run {
    let mut run = Run::new("unittest");
    run.exit = verdict::exit(captured.end, exit_meaning);
    tally(&mut run, ctx, records);
    for id in &records.unmatched {
        // Named back as they were asked (a subtest's id re-ran its test).
        let given: Vec<&String> = asked.iter().filter(|a| subtest_base(a) == id).collect();
        if given.is_empty() {
            run.not_found.push(id.clone());
        }
        run.not_found.extend(given.into_iter().cloned());
    }
    if records.fixtures.is_empty() && records.loads.is_empty() {
        // A class or module fixture that failed leaves its tests unrun, as unittest counts
        // them; otherwise every test the suite held must have told its outcome.
        run.selected = records
            .selected
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX));
    }
    let output = verdict::combined(&[&captured.stdout_str(), &captured.stderr_str(), stacks]);
    let running = records.running();
    let running_ids: Vec<String> = running.iter().map(|(id, _)| id.clone()).collect();
    let located = |file: &Option<String>| {
        let rel = file
            .as_deref()
            .and_then(|f| ctx.paths.relativize(f, None))?;
        faults::frames_for(&output, &rel, ctx.paths)
    };
    match Ending::of(captured.end) {
        Ending::Stopped => {
            verdict::stopped(&mut run, Some(running_ids), None);
            for (id, file) in &running {
                fail(
                    &mut run,
                    id,
                    "timed out: pith stopped the run",
                    None,
                    located(file),
                );
            }
            run.tail = tail(ctx, &output);
        }
        Ending::Killed(signal) => {
            verdict::crashed(&mut run, Some(running_ids), None);
            let why = faults::fatal_error(&output)
                .map(str::to_owned)
                .unwrap_or_else(|| verdict::killed_by("unittest", &signal));
            for (id, file) in &running {
                fail(&mut run, id, &why, Some(signal.clone()), located(file));
            }
            if running.is_empty() {
                run.tail = tail(ctx, &output);
            }
        }
        Ending::Exited(code) if records.end.is_none() => {
            // unittest always tells its tally before it exits: a process that left without it
            // was cut short (`os._exit`, `sys.exit` in module code, a crash of the script).
            if running.is_empty() {
                run.status = Some(Status::RunnerFailed);
                run.reason = Some(format!("unittest exited {code} before the run ended"));
            } else {
                verdict::crashed(&mut run, Some(running_ids), None);
                let why = format!("the test process exited with code {code} during the test");
                for (id, file) in &running {
                    fail(&mut run, id, &why, None, located(file));
                }
            }
            run.tail = tail(ctx, &output);
        }
        Ending::Exited(code) => {
            let end = records.end.unwrap_or_default();
            if !end.ok && run.failures.is_empty() {
                run.reason = Some(format!(
                    "unittest found the run unsuccessful (exited {code}) though no test failed"
                ));
                run.tail = tail(ctx, &output);
            }
        }
    }
    run
}

/// A test that its process's end took with it fails, located by the stack dump.
fn fail(
    run: &mut Run,
    id: &str,
    why: &str,
    kind: Option<String>,
    frames: Option<Vec<pith_model::Frame>>,
) {
    if run.failures.iter().any(|f| f.test == id) {
        return;
    }
    run.failures.push(Failure {
        test: id.to_owned(),
        message: text::first_line(why),
        kind,
        frames: frames.unwrap_or_default(),
        phase: Phase::Call,
        ..Failure::default()
    });
    run.failed += 1;
}

fn tail(ctx: &Context<'_>, output: &str) -> Option<String> {
    verdict::tail(ctx.paths, &faults::compact(output, ctx.paths))
}

/// Counts and failures from the records: each failing test or subtest, fixture and unexpected
/// success is a failure (as unittest's `failures`, `errors` and `unexpectedSuccesses` count
/// them); skips and expected failures are skipped; a test passed when its only outcome is a
/// pass.
fn tally(run: &mut Run, ctx: &Context<'_>, records: &Records) {
    let failing: HashSet<&str> = records
        .results
        .iter()
        .filter(|r| {
            matches!(
                r.outcome,
                Outcome::Failed | Outcome::Error | Outcome::UnexpectedSuccess
            )
        })
        .map(|r| r.test.as_str())
        .collect();
    for r in &records.results {
        match r.outcome {
            Outcome::Passed if !failing.contains(r.test.as_str()) => {
                run.passed += 1;
                run.outcomes.push(TestOutcome::passed(r.id.clone(), None));
            }
            Outcome::Passed => {}
            Outcome::Skipped | Outcome::ExpectedFailure => run.skipped += 1,
            Outcome::Failed | Outcome::Error => {
                run.failed += 1;
                own_output(run, &r.id, r.out.as_deref());
                run.failures
                    .push(failure(ctx, r.id.clone(), &r.detail, Phase::Call));
            }
            Outcome::UnexpectedSuccess => {
                run.failed += 1;
                let detail = Detail {
                    kind: Some("UnexpectedSuccess".to_owned()),
                    msg: "unexpected success: the test is marked expectedFailure and passed"
                        .to_owned(),
                    ..Detail::default()
                };
                own_output(run, &r.id, r.out.as_deref());
                run.failures
                    .push(failure(ctx, r.id.clone(), &detail, Phase::Call));
            }
        }
    }
    for f in &records.fixtures {
        let phase = if f.teardown {
            Phase::Teardown
        } else {
            Phase::Setup
        };
        run.failed += 1;
        own_output(run, &f.id, f.out.as_deref());
        run.failures
            .push(failure(ctx, f.id.clone(), &f.detail, phase));
    }
    for l in &records.loads {
        run.failures
            .push(failure(ctx, l.id.clone(), &l.detail, Phase::Collect));
    }
}

/// A failing test's own text, kept apart for `pith output --test`.
fn own_output(run: &mut Run, id: &str, out: Option<&str>) {
    let lines = out.unwrap_or_default().lines();
    run.test_output.extend(TestOutput::of_lines(id, lines));
}
