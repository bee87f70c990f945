//! What a finished runner process and its reports say, as a [`Run`]: the common endings, the
//! runners' exit codes and own words, and the doubts where their account disagrees with the
//! records (never a false green).

use pith_model::{Exit, ExitMeaning, Phase, Run, Status};

use crate::process::Captured;
use crate::verdict::{self as scaffold, Ending};
use std::collections::HashSet;
use std::path::Path;

use crate::{Context, PathMap};

use super::command::Selection;
use super::parse::{self, rel_file, tally, Evidence, Tally};
use super::report::CaseStatus;
use super::{id_file, node, stack, test_id, verdict, Js, Runner, SEP};

impl Js {
    /// What a finished runner process and its reports say, as a [`Run`]: the records tallied,
    /// then the first ending that applies (stopped, killed, a worker died, nothing ran), else
    /// the doubts of the runner's own account and the status they settle on.
    pub(super) fn judge(
        &self,
        ctx: &Context<'_>,
        mut evidence: Evidence,
        captured: &Captured,
        sel: Option<&Selection>,
    ) -> Run {
        let mut run = Run::new(self.name());
        let more_output = std::mem::take(&mut evidence.more_output);
        let j = Judge {
            js: self,
            paths: ctx.paths,
            dir: self.dir.as_path(),
            evidence: &evidence,
            output: scaffold::combined(&[
                &captured.stdout_str(),
                &captured.stderr_str(),
                &more_output,
            ]),
        };
        let t = tally(&mut run, j.paths, j.dir, &evidence.suites, sel);
        run.snapshots_written = evidence.snapshots_written;
        let ending = Ending::of(captured.end);
        if let (Some(sel), Ending::Exited(_)) = (sel, &ending) {
            // The runner ended by itself: what it did not report, it did not find.
            j.not_found(&mut run, &t.seen, sel);
        }
        let code = match ending {
            Ending::Stopped => {
                scaffold::stopped(&mut run, Some(j.running()), j.tail());
                return run;
            }
            Ending::Killed(signal) => {
                j.killed(&mut run, signal);
                return run;
            }
            Ending::Exited(code) => code,
        };
        let meaning = j.exit_meaning(code);
        // The exit is evidence, unless the failure of a test pith did not ask for (a pattern
        // matching more than the ids) explains it.
        if !(code != 0 && t.dropped_failure) {
            run.exit = Some(Exit::new(code, meaning));
        }
        if !evidence.crashed.is_empty() {
            run.status = Some(Status::Crashed);
            j.worker_crashes(&mut run);
            run.tail = j.tail();
            return run;
        }
        j.unhandled_failures(&mut run);
        if !evidence.report {
            j.nothing_ran(&mut run, code);
            return run;
        }
        let thresholds = verdict::threshold_lines(&j.output);
        let judged = Judged {
            runner: self.runner,
            code,
            meaning,
            failing: run.failed > 0 || !run.failures.is_empty(),
            dropped_failure: t.dropped_failure,
            force_exit: self
                .script
                .options(true)
                .iter()
                .any(|w| w == "--test-force-exit"),
            thresholds: &thresholds,
        };
        j.doubt(&mut run, &judged, sel.is_none());
        j.settle(&mut run, &t, &thresholds);
        run
    }
}

impl Js {
    /// Options of the test script pith could not honour join the reason.
    pub(super) fn unhonoured(&self, run: &mut Run) {
        let unhonoured = self.script.unhonoured();
        if unhonoured.is_empty() {
            return;
        }
        let why = format!(
            "pith could not honour {} from the test script",
            unhonoured.join(", ")
        );
        run.reason = Some(match run.reason.take() {
            Some(r) => format!("{r}; {why}"),
            None => why,
        });
    }
}

/// One finished run being judged: the adapter, where its paths are relative to, what was read
/// and what the runner printed.
struct Judge<'a> {
    js: &'a Js,
    paths: &'a PathMap,
    dir: &'a Path,
    evidence: &'a Evidence,
    /// stdout, stderr and what the runner gave pith's reporter, joined.
    output: String,
}

impl Judge<'_> {
    /// The end of the runner's output, paths relative.
    fn tail(&self) -> Option<String> {
        stack::tail(&self.output, self.paths, self.dir)
    }

    /// A runner's path as ids carry it.
    fn rel(&self, file: &str) -> String {
        rel_file(self.paths, self.dir, file)
    }

    /// The ids of what was running, each once.
    fn running(&self) -> Vec<String> {
        dedup(
            self.evidence
                .running
                .iter()
                .map(|(file, names)| test_id(&self.rel(file), names)),
        )
    }

    /// A signal killed the runner: what was running fails with it, and the run crashed.
    fn killed(&self, run: &mut Run, signal: String) {
        let why = scaffold::killed_by(self.js.name(), &signal);
        let running = self.running();
        crash_failures(run, &running, &why, Some(signal), Vec::new());
        scaffold::crashed(run, Some(running), self.tail());
    }

    /// What the runner's exit code means, given what it printed and its report.
    fn exit_meaning(&self, code: i32) -> ExitMeaning {
        let (js, evidence) = (self.js, self.evidence);
        // "No tests found" is the runner's word only when no test reported: after one did, a
        // line saying so is what a test printed.
        let words = if evidence.suites.iter().any(|s| !s.cases.is_empty()) {
            ""
        } else {
            self.output.as_str()
        };
        let meaning = verdict::exit_meaning(js.runner, code, words, js.script.failure_exit_code());
        if meaning == ExitMeaning::Failed
            && evidence.json
            && evidence.totals.tests == Some(0)
            && evidence.suites.is_empty()
        {
            // vitest says nothing of an empty run when its JSON reporter is on: its report does.
            return ExitMeaning::NoTests;
        }
        meaning
    }

    /// The runner stopped before running anything: its configuration, a missing environment,
    /// a crash at start-up; or it found no test file (jest then exits before writing its
    /// report when its output is a pipe).
    fn nothing_ran(&self, run: &mut Run, code: i32) {
        let no_files = ["No tests found, exiting with code", "No test files found"]
            .iter()
            .any(|w| self.output.contains(w));
        if code != 0 && !no_files {
            run.status = Some(Status::CollectionFailed);
        }
        // mocha stops a serial run at the first file that does not load, before any reporter.
        let load = (self.js.runner == Runner::Mocha && code != 0)
            .then(|| super::mocha::load_failure(&self.output))
            .flatten();
        if let Some((file, text)) = load {
            let file = self.rel(&file);
            run.failures
                .push(parse::suite_failure(self.paths, self.dir, &file, &text));
            return;
        }
        run.tail = self.tail();
    }

    /// The doubts of the runner's own account become the reason; jest's and vitest's (without
    /// their report) name what was running when the run stopped early. A full run counts what
    /// the runner counted.
    fn doubt(&self, run: &mut Run, judged: &Judged<'_>, full: bool) {
        let evidence = self.evidence;
        let doubts = doubts(judged, evidence, &|f| self.rel(f));
        if full && run.selected.is_none() {
            run.selected = evidence.totals.tests;
        }
        if !doubts.is_empty() {
            run.reason = Some(doubts.join("; "));
            if self.js.runner != Runner::Node && !evidence.json {
                run.running = self.running();
            }
        }
    }

    /// The status the records leave, corrected where they say less than the run did, and the
    /// tail that explains it.
    fn settle(&self, run: &mut Run, t: &Tally, thresholds: &[String]) {
        let status = run.status();
        if t.pending > 0 && status < Status::TestsFailed {
            // Tests that never finished and nothing that says why.
            run.status = Some(Status::Crashed);
            run.tail = self.tail();
        } else if self.evidence.snapshot_failure
            && status <= Status::RunnerFailed
            && run.failed == 0
        {
            run.status = Some(Status::TestsFailed);
            run.tail = self.tail();
        } else if status == Status::RunnerFailed {
            // The runner's own lines that say why: its threshold lines when it printed some
            // (not the coverage table and PASS lines around them), else the lines of its
            // output's end that name an error or failure.
            run.tail = if thresholds.is_empty() {
                scaffold::why_tail(self.paths, &stack::without_pith(&self.output))
            } else {
                let why = crate::tails::tail(&thresholds.join("\n"));
                (!why.is_empty()).then_some(why)
            };
        } else if status == Status::NoTestsRan {
            run.tail = self.tail();
        } else if run.collection_errors() > 0 {
            run.tail = self.load_tail().or_else(|| self.tail());
        }
    }

    /// What the files that did not load printed (else their errors), paths relative.
    fn load_tail(&self) -> Option<String> {
        let evidence = self.evidence;
        let text = match evidence.load_output.trim() {
            "" => evidence
                .suites
                .iter()
                .filter_map(|s| s.error.as_deref())
                .collect::<Vec<_>>()
                .join("\n"),
            printed => printed.to_owned(),
        };
        stack::tail(&text, self.paths, self.dir)
    }

    /// The requested ids no record has, unless a file-level failure explains them (a suite
    /// that failed to load, a worker that died). Only for a runner that ended by itself: what
    /// it did not report, it did not find.
    fn not_found(&self, run: &mut Run, seen: &HashSet<String>, sel: &Selection) {
        for id in &sel.ids {
            let file = id_file(id);
            let explained = run
                .failures
                .iter()
                .any(|f| f.phase == Phase::Collect && f.test == file)
                || self
                    .evidence
                    .crashed
                    .iter()
                    .any(|c| self.rel(&c.file) == file);
            if !seen.contains(id) && !explained {
                run.not_found.push(id.clone());
            }
        }
    }

    /// Each test a dead worker was running (its file when none is named) fails with the
    /// worker's death, located by its native stack when it printed one.
    fn worker_crashes(&self, run: &mut Run) {
        let paths = self.paths;
        for c in &self.evidence.crashed {
            let file = self.rel(&c.file);
            let mut running: Vec<String> = c.tests.iter().map(|n| test_id(&file, n)).collect();
            if running.is_empty() {
                running.push(file.clone());
            }
            let frames = c
                .output
                .as_deref()
                .map(|o| {
                    let mut f = stack::native_frames(o, paths, self.dir);
                    paths.fill_code(&mut f);
                    f
                })
                .unwrap_or_default();
            crash_failures(run, &running, &c.why, c.signal.clone(), frames);
            run.running.extend(running);
        }
    }

    /// Errors no test caught (an unhandled rejection after a test ended) fail the test or file
    /// they name, else the project file at the top of their stack.
    fn unhandled_failures(&self, run: &mut Run) {
        let paths = self.paths;
        for u in &self.evidence.unhandled {
            let p = stack::parse_error(&u.text, paths, self.dir);
            let test = match (&u.path, &u.test) {
                (Some(f), Some(n)) => format!("{}{SEP}{n}", self.rel(f)),
                (Some(f), None) => self.rel(f),
                _ => p
                    .frames
                    .iter()
                    .rev()
                    .find(|f| f.project)
                    .map(|f| f.file.clone())
                    .unwrap_or_else(|| "(unhandled error)".to_owned()),
            };
            run.failures
                .push(parse::failure(paths, test, p, "", Phase::Call));
            run.failed += 1;
        }
    }
}

/// What [`doubts`] weighs besides the records.
pub(super) struct Judged<'a> {
    pub(super) runner: Runner,
    pub(super) code: i32,
    pub(super) meaning: ExitMeaning,
    /// Some test or file failed in the records kept.
    pub(super) failing: bool,
    /// A test pith did not ask for failed (a pattern matched more than the ids).
    pub(super) dropped_failure: bool,
    /// The script runs node with `--test-force-exit`.
    pub(super) force_exit: bool,
    /// The runner's own lines saying a coverage threshold was not met.
    pub(super) thresholds: &'a [String],
}

/// Where the runner's own account says the run is not green though no test failed, one line
/// each, in this order: a coverage threshold, a run that stopped before its end, totals that
/// count more than was reported or a failed verdict with no failure, node's summary, files
/// that ended through `process.exit()`, records pith's reporter could not write. `rel` makes a
/// runner's path workspace-relative.
pub(super) fn doubts(
    j: &Judged<'_>,
    evidence: &Evidence,
    rel: &dyn Fn(&str) -> String,
) -> Vec<String> {
    let mut doubts: Vec<String> = Vec::new();
    if j.code != 0 && !j.failing {
        doubts.extend(threshold_doubt(j.thresholds));
    }
    doubts.extend(early_end(j, evidence, rel));
    if evidence.end_reason.as_deref() == Some("interrupted") && !j.failing {
        doubts.push(format!("{} interrupted the run", j.runner.name()));
    }
    totals_doubts(j, evidence, &mut doubts);
    if let Some((summary, counted)) = evidence.node {
        node_doubts(j, evidence, &summary, counted, &mut doubts);
    }
    for (file, reported, unfinished) in &evidence.exited {
        if *reported == 0 || *unfinished > 0 {
            doubts.push(format!(
                "{} ended through process.exit(0) before node reported its tests",
                rel(file)
            ));
        }
    }
    if let Some((n, e)) = evidence.faults.as_ref().filter(|_| !evidence.json) {
        doubts.push(format!(
            "pith's reporter lost {n} records: {}",
            crate::text::first_line(e)
        ));
    }
    doubts
}

/// The first threshold line names the cause; the tail has them all.
fn threshold_doubt(thresholds: &[String]) -> Option<String> {
    let first = thresholds.first()?;
    Some(match thresholds.len() - 1 {
        0 => first.clone(),
        more => format!("{first} (and {more} more)"),
    })
}

/// jest and vitest write their report when the run ends: without it, and without the
/// reporter's end record, the runner stopped before its end (a test called `process.exit()`).
fn early_end(j: &Judged<'_>, evidence: &Evidence, rel: &dyn Fn(&str) -> String) -> Option<String> {
    if j.runner == Runner::Node
        || evidence.json
        || evidence.ended
        || j.meaning == ExitMeaning::NoTests
    {
        return None;
    }
    let (name, code) = (j.runner.name(), j.code);
    Some(match evidence.running.first() {
        Some((file, names)) => format!(
            "{name} exited {code} before its run ended, while {} was running",
            test_id(&rel(file), names)
        ),
        None => format!("{name} exited {code} before its run ended: it wrote no report"),
    })
}

/// jest's and vitest's totals against the records: more tests, more files that failed to run
/// or more failures than reported, a failed verdict nothing explains, an interrupted run.
fn totals_doubts(j: &Judged<'_>, evidence: &Evidence, doubts: &mut Vec<String>) {
    let name = j.runner.name();
    let tot = &evidence.totals;
    // Tests, not the hooks that failed for them (mocha counts those among its failures only).
    let recorded: usize = evidence
        .suites
        .iter()
        .flat_map(|s| &s.cases)
        .filter(|c| c.phase == Phase::Call)
        .count();
    if let Some(n) = tot.tests.filter(|&n| n as usize > recorded) {
        doubts.push(format!("{name} counted {n} tests but reported {recorded}"));
    }
    let file_errors =
        evidence.suites.iter().filter(|s| s.error.is_some()).count() + evidence.crashed.len();
    if let Some(n) = tot.runtime_errors.filter(|&n| n as usize > file_errors) {
        doubts.push(format!(
            "{name} counted {n} test files that failed to run but reported {file_errors}"
        ));
    }
    let failed_recorded = evidence
        .suites
        .iter()
        .flat_map(|s| &s.cases)
        .filter(|c| c.status == CaseStatus::Failed)
        .count();
    if let Some(n) = tot.failed.filter(|&n| n as usize > failed_recorded) {
        doubts.push(format!(
            "{name} counted {n} failed tests but reported {failed_recorded}"
        ));
    }
    if tot.success == Some(false)
        && j.meaning != ExitMeaning::NoTests
        && !j.failing
        && !evidence.snapshot_failure
        && j.thresholds.is_empty()
        && file_errors == 0
        && !j.dropped_failure
    {
        doubts.push(format!(
            "{name} reported success:false with no failing test"
        ));
    }
    if tot.interrupted && !j.failing {
        doubts.push(format!("{name} reported the run as interrupted"));
    }
}

/// node's summary against the results received (`counted`), and what node said outside any
/// test when it failed the run with no failure.
fn node_doubts(
    j: &Judged<'_>,
    evidence: &Evidence,
    summary: &node::Summary,
    counted: u32,
    doubts: &mut Vec<String>,
) {
    let (code, failing) = (j.code, j.failing);
    match summary.tests {
        Some(n) if n > counted => {
            doubts.push(format!("node counted {n} tests but reported {counted}"))
        }
        // `--test-force-exit` may end node before its reporter wrote the summary.
        None if code == 0 && !j.force_exit => {
            doubts.push(format!("node exited {code} without its summary"));
        }
        _ => {}
    }
    let node_failed = summary.fail.unwrap_or(0) + summary.cancelled.unwrap_or(0);
    if node_failed > 0 && !failing && !j.dropped_failure {
        doubts.push(format!(
            "node counted {node_failed} failed tests, none reported"
        ));
    }
    if !failing && code != 0 {
        doubts.extend(evidence.diagnostics.first().cloned());
    }
}

fn dedup(ids: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for id in ids {
        if !out.contains(&id) {
            out.push(id);
        }
    }
    out
}

/// Each test running when its process died is a failure (unless it already is one).
fn crash_failures(
    run: &mut Run,
    running: &[String],
    why: &str,
    kind: Option<String>,
    frames: Vec<pith_model::Frame>,
) {
    let how = scaffold::Stopped {
        message: &crate::text::first_line(why),
        kind: kind.as_deref(),
        frames: &frames,
    };
    scaffold::fail_running(run, running, &how);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::report::{self, Suite};

    fn judged(runner: Runner, code: i32, thresholds: &[String]) -> Judged<'_> {
        Judged {
            runner,
            code,
            meaning: verdict::exit_meaning(runner, code, "", None),
            failing: false,
            dropped_failure: false,
            force_exit: false,
            thresholds,
        }
    }

    fn passed(file: &str, n: usize) -> Suite {
        Suite {
            file: file.to_owned(),
            cases: (0..n)
                .map(|i| report::Case {
                    names: vec![format!("t{i}")],
                    status: CaseStatus::Passed,
                    messages: Vec::new(),
                    retried: 0,
                    phase: Phase::Call,
                })
                .collect(),
            error: None,
        }
    }

    #[test]
    fn the_runners_own_account_is_checked_against_the_records() {
        let rel = |f: &str| f.trim_start_matches("/ws/").to_owned();
        let complete = Evidence {
            suites: vec![passed("/ws/a.test.js", 3)],
            json: true,
            ended: true,
            totals: report::Totals {
                success: Some(true),
                tests: Some(3),
                failed: Some(0),
                runtime_errors: Some(0),
                interrupted: false,
            },
            ..Evidence::default()
        };
        assert!(doubts(&judged(Runner::Jest, 0, &[]), &complete, &rel).is_empty());
        let lost = Evidence {
            totals: report::Totals {
                tests: Some(5),
                failed: Some(1),
                success: Some(false),
                ..complete.totals
            },
            ..Evidence::default()
        };
        let lost = Evidence {
            suites: complete.suites.clone(),
            json: true,
            ended: true,
            ..lost
        };
        assert_eq!(
            doubts(&judged(Runner::Jest, 1, &[]), &lost, &rel),
            [
                "jest counted 5 tests but reported 3",
                "jest counted 1 failed tests but reported 0",
                "jest reported success:false with no failing test"
            ]
        );
        let threshold = [
            "Jest: Coverage for lines (50%) does not meet \"global\" threshold (90%)".to_owned(),
        ];
        assert_eq!(
            doubts(&judged(Runner::Jest, 1, &threshold), &complete, &rel),
            [threshold[0].as_str()]
        );
        // No report and no end record: the run stopped early.
        let stopped = Evidence {
            suites: vec![passed("/ws/a.test.js", 1)],
            running: vec![("/ws/a.test.js".to_owned(), vec!["two".to_owned()])],
            faults: Some((2, "EBADF: bad file descriptor".to_owned())),
            ..Evidence::default()
        };
        assert_eq!(
            doubts(&judged(Runner::Jest, 0, &[]), &stopped, &rel),
            [
                "jest exited 0 before its run ended, while a.test.js > two was running",
                "pith's reporter lost 2 records: EBADF: bad file descriptor"
            ]
        );
    }

    #[test]
    fn nodes_summary_and_early_exits_are_checked() {
        let rel = |f: &str| f.trim_start_matches("/ws/").to_owned();
        let summary = node::Summary {
            tests: Some(4),
            pass: Some(4),
            fail: Some(0),
            ..node::Summary::default()
        };
        let run = Evidence {
            suites: vec![passed("/ws/b.test.js", 1)],
            report: true,
            ended: true,
            node: Some((summary, 2)),
            exited: vec![("/ws/a.test.js".to_owned(), 0, 0)],
            ..Evidence::default()
        };
        assert_eq!(
            doubts(&judged(Runner::Node, 0, &[]), &run, &rel),
            [
                "node counted 4 tests but reported 2",
                "a.test.js ended through process.exit(0) before node reported its tests"
            ]
        );
        // A file that reported its tests before `--test-force-exit` ended it is complete.
        let forced = Evidence {
            node: Some((node::Summary::default(), 2)),
            exited: vec![("/ws/a.test.js".to_owned(), 2, 0)],
            ..run
        };
        let j = Judged {
            force_exit: true,
            ..judged(Runner::Node, 0, &[])
        };
        assert!(doubts(&j, &forced, &rel).is_empty());
    }
}
