//! What the reporter's records and the runners' JSON reports say, as one [`Evidence`]: suites
//! and cases, worker deaths, `process.exit()` calls; tallied into counts and failures.

use std::collections::HashSet;
use std::path::Path;

use pith_model::{Failure, Phase, Run, Status};

use crate::PathMap;

use super::command::{Files, Selection};
use super::report::{Case, CaseStatus, Flavour, Suite};
use super::{events, node, read, report, stack, test_id, Js, Runner, SEP};

/// Everything read after a run, before judging it (the whole run's evidence, not one test's
/// `verdict::Outcome`).
#[derive(Debug, Default)]
pub(super) struct Evidence {
    pub(super) suites: Vec<Suite>,
    /// Some result was read: the runner got as far as running tests.
    pub(super) report: bool,
    /// `(file, names)`, names empty for a whole file.
    pub(super) running: Vec<(String, Vec<String>)>,
    /// Files whose test process died, with why, the signal, and the tests running in them.
    pub(super) crashed: Vec<Crash>,
    /// Errors outside any test (vitest).
    pub(super) unhandled: Vec<events::Unhandled>,
    pub(super) snapshot_failure: bool,
    /// Snapshots the runner wrote (its JSON report's count).
    pub(super) snapshots_written: u32,
    /// Output the runner gave pith's reporter rather than its own streams (node's files' stderr).
    pub(super) more_output: String,
    /// What the files that did not load printed, when the runner kept it apart (node).
    pub(super) load_output: String,
    /// The runner wrote its own JSON report (jest, vitest).
    pub(super) json: bool,
    /// pith's reporter recorded the end of the run.
    pub(super) ended: bool,
    /// What the runner's JSON report says of the whole run.
    pub(super) totals: report::Totals,
    /// Records pith's reporter could not write (how many, the first error), or could not be
    /// read back (too long).
    pub(super) faults: Option<(u64, String)>,
    /// vitest's word for how the run ended (`interrupted` when it stopped early).
    pub(super) end_reason: Option<String>,
    /// node: its summary, and how many results it counts that pith received.
    pub(super) node: Option<(node::Summary, u32)>,
    /// node: files whose process ended through `process.exit(0)`, with how many of their
    /// tests node reported and how many started without a result.
    pub(super) exited: Vec<(String, usize, usize)>,
    /// node: what it said outside any test (asynchronous activity after a test, thresholds).
    pub(super) diagnostics: Vec<String>,
}

#[derive(Debug, Clone)]
pub(super) struct Crash {
    pub(super) file: String,
    pub(super) why: String,
    pub(super) signal: Option<String>,
    pub(super) tests: Vec<Vec<String>>,
    /// Frames of the native stack dump are trustworthy (node runs the file untransformed).
    pub(super) output: Option<String>,
}

/// jest's words when a worker process died under a test file.
pub(super) fn worker_death(error: &str) -> Option<(String, Option<String>)> {
    let clean = crate::text::strip_ansi(error);
    let line = clean.lines().map(str::trim).find(|l| {
        l.starts_with("A jest worker process")
            || l.starts_with("Call retries were exceeded")
            || l.contains("child process exceptions, exceeding retry limit")
    })?;
    let signal = line
        .split_once("signal=")
        .map(|(_, s)| {
            s.split(|c: char| c == ',' || c.is_whitespace())
                .next()
                .unwrap_or("")
        })
        .filter(|s| s.starts_with("SIG"))
        .map(str::to_owned);
    let why = match line.split_once(" Operating system logs") {
        Some((head, _)) => head.to_owned(),
        None => line.to_owned(),
    };
    Some((why, signal))
}

/// vitest's words when a worker died (an unhandled error, not a test's).
pub(super) fn vitest_worker_death(text: &str) -> bool {
    [
        "[vitest-pool]",
        "Worker exited unexpectedly",
        "Worker terminated",
        "Channel closed",
        "Worker forks emitted error",
    ]
    .iter()
    .any(|w| text.contains(w))
}

impl Js {
    /// What the runner's reports and pith's records say of the run.
    pub(super) fn read(&self, files: &Files) -> Evidence {
        match self.runner {
            Runner::Node => read_node(files),
            Runner::Jest => read_reports(Flavour::Jest, files),
            Runner::Vitest => read_reports(Flavour::Vitest, files),
            // pith's mocha reporter writes jest's records, and mocha's totals at their end.
            Runner::Mocha => read_reports(Flavour::Jest, files),
        }
    }
}

/// jest or vitest: the JSON report when the runner wrote one, else the streamed records; the
/// records also tell what was running.
pub(super) fn read_reports(flavour: Flavour, files: &Files) -> Evidence {
    let mut ev = events::Events::default();
    let too_long = read::each_line(&files.events, |l| ev.line(l, flavour));
    let json = read::json_capped(&files.json);
    let mut out = from_records(flavour, json.as_deref(), ev);
    if too_long > 0 && out.faults.is_none() {
        out.faults = Some((too_long, "a record was too long to read".to_owned()));
    }
    out
}

/// [`read_reports`] from the JSON report's text and the records already read: the report's
/// suites (else the records'), then the workers that died under them.
pub(super) fn from_records(flavour: Flavour, json: Option<&str>, ev: events::Events) -> Evidence {
    let mut out = Evidence {
        ended: ev.ended,
        faults: ev.faults.clone(),
        end_reason: ev.end_reason.clone(),
        ..Evidence::default()
    };
    match json.map(|j| report::parse_json(j, flavour)) {
        Some(Ok(r)) => {
            out.suites = r.suites;
            out.snapshot_failure = r.snapshot_failure;
            out.snapshots_written = r.snapshots_written;
            out.totals = r.totals;
            out.report = true;
            out.json = true;
            keep_error_types(&mut out.suites, &ev, flavour);
            if flavour == Flavour::Vitest {
                keep_diffs(&mut out.suites, &ev);
            }
        }
        _ => {
            out.suites = ev.suites.clone();
            out.report = ev.any;
            out.totals = ev.totals.unwrap_or_default();
        }
    }
    jest_worker_deaths(&mut out, &ev);
    let (deaths, others): (Vec<_>, Vec<_>) = ev
        .unhandled
        .iter()
        .cloned()
        .partition(|u| vitest_worker_death(&u.text));
    if let Some(d) = deaths.first() {
        vitest_worker_deaths(&mut out, &ev, d);
    }
    out.unhandled = others;
    out.running = ev.running();
    out
}

/// vitest's report drops the error types of files that failed to load; its records keep them.
/// Its report also gives a test's error as its stack alone, whose first line can be words from
/// before the message was set (a timeout's `Error: STACK_TRACE_ERROR`): the record of the same
/// test, whose first line is the error's own, is taken where the first lines differ.
fn keep_error_types(suites: &mut [Suite], ev: &events::Events, flavour: Flavour) {
    for s in suites.iter_mut().filter(|_| flavour == Flavour::Vitest) {
        let Some(rec) = ev.suites.iter().find(|x| x.file == s.file) else {
            continue;
        };
        for c in s.cases.iter_mut().filter(|c| !c.messages.is_empty()) {
            let same =
                |r: &&report::Case| r.names == c.names && r.messages.len() == c.messages.len();
            if let Some(r) = rec.cases.iter().find(same) {
                let first = |m: &str| crate::text::first_line(&crate::text::strip_ansi(m));
                if first(&r.messages[0]) != first(&c.messages[0]) {
                    c.messages = r.messages.clone();
                }
            }
        }
    }
    for s in suites {
        if let (Some(_), Some(e)) = (
            &s.error,
            ev.suites
                .iter()
                .find(|x| x.file == s.file)
                .and_then(|x| x.error.clone()),
        ) {
            s.error = Some(e);
        }
    }
}

/// vitest's report gives a failed test's stack only; its records add the diff of expected and
/// received (and keep the stack): a failed test's messages are taken from its record.
fn keep_diffs(suites: &mut [Suite], ev: &events::Events) {
    for s in suites {
        let Some(rec) = ev.suites.iter().find(|x| x.file == s.file) else {
            continue;
        };
        for c in s
            .cases
            .iter_mut()
            .filter(|c| c.status == CaseStatus::Failed)
        {
            let richer = rec.cases.iter().find(|r| {
                r.names == c.names && r.status == CaseStatus::Failed && !r.messages.is_empty()
            });
            if let Some(r) = richer {
                c.messages = r.messages.clone();
            }
        }
    }
}

/// A file whose error is jest's word of a dead worker is a crash, not a file that failed to
/// load: with the tests that were running in it.
fn jest_worker_deaths(out: &mut Evidence, ev: &events::Events) {
    for s in &mut out.suites {
        if let Some((why, signal)) = s.error.as_deref().and_then(worker_death) {
            s.error = None;
            out.crashed.push(Crash {
                file: s.file.clone(),
                why,
                signal,
                tests: ev.unfinished(&s.file),
                output: None,
            });
        }
    }
}

/// vitest's dead worker (`death`, an error outside any test) crashed the files it was running:
/// started without ending, or with tests that never finished.
fn vitest_worker_deaths(out: &mut Evidence, ev: &events::Events, death: &events::Unhandled) {
    let why = match stack::split_kind(&crate::text::first_line(&death.text)) {
        (Some("Error"), rest) => rest.to_owned(),
        (_, _) => crate::text::first_line(&death.text),
    };
    let mut files: Vec<String> = ev
        .running()
        .into_iter()
        .map(|(f, _)| f)
        .chain(
            out.suites
                .iter()
                .filter(|s| s.cases.iter().any(|c| c.status == CaseStatus::Pending))
                .map(|s| s.file.clone()),
        )
        .collect();
    files.dedup();
    for file in files {
        if !out.crashed.iter().any(|c| c.file == file) {
            out.crashed.push(Crash {
                tests: ev.unfinished(&file),
                file,
                why: why.clone(),
                signal: None,
                output: None,
            });
        }
    }
}

pub(super) fn read_node(files: &Files) -> Evidence {
    let mut p = node::Parser::default();
    let too_long = read::each_line(&files.events, |l| p.line(l));
    let mut exits: Vec<(String, i64)> = Vec::new();
    read::each_line(&files.exits, |l| exits.extend(node::exit_record(l)));
    node_from_records(p.ev, &exits, too_long)
}

/// [`read_node`] from the records read: the reporter's, the exit hook's (file, exit code),
/// and how many lines were too long to read.
pub(super) fn node_from_records(
    ev: node::NodeEvents,
    exits: &[(String, i64)],
    too_long: u64,
) -> Evidence {
    let mut exited: Vec<(String, usize, usize)> = Vec::new();
    for (file, code) in exits {
        if *code == 0 && !exited.iter().any(|(f, _, _)| f == file) {
            let reported = ev
                .suites
                .iter()
                .find(|s| s.file == *file)
                .map_or(0, |s| s.cases.len());
            exited.push((file.clone(), reported, ev.unfinished_in(file)));
        }
    }
    let running = ev.running();
    let crashed = ev
        .crashed
        .iter()
        .map(|(file, sig)| Crash {
            file: file.clone(),
            why: format!("the test process died of {sig}"),
            signal: Some(sig.clone()),
            tests: running
                .iter()
                .filter(|(f, n)| f == file && !n.is_empty())
                .map(|(_, n)| n.clone())
                .collect(),
            output: Some(ev.stderr_of(file)),
        })
        .collect();
    let more_output = ev
        .stderr
        .iter()
        .map(|(_, s)| s.as_str())
        .chain(ev.diagnostics.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join("\n");
    let load_output = ev
        .suites
        .iter()
        .filter(|s| s.error.is_some())
        .map(|s| {
            // node prints where in its own loader it threw first: the error says more.
            let err = ev.stderr_of(&s.file);
            match err.lines().next() {
                Some(first) if first.starts_with("node:") => match err.find("\n\n") {
                    Some(i) => err[i + 2..].to_owned(),
                    None => err,
                },
                _ => err,
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    Evidence {
        suites: ev.suites.clone(),
        report: ev.any,
        ended: ev.summary.tests.is_some(),
        running,
        crashed,
        more_output,
        load_output,
        faults: (too_long > 0).then(|| (too_long, "a record was too long to read".to_owned())),
        node: Some((ev.summary, ev.counted)),
        exited,
        diagnostics: ev.diagnostics.clone(),
        ..Evidence::default()
    }
}

/// Counts and failures of `suites`, keeping only what `sel` asked for. Returns the ids and files
/// seen, whether a result was dropped as unasked for while failing, and the tests that never
/// finished.
pub(super) struct Tally {
    pub(super) seen: HashSet<String>,
    pub(super) dropped_failure: bool,
    pub(super) pending: u32,
}

pub(super) fn tally(
    run: &mut Run,
    paths: &PathMap,
    dir: &Path,
    suites: &[Suite],
    sel: Option<&Selection>,
) -> Tally {
    let mut t = Tally {
        seen: HashSet::new(),
        dropped_failure: false,
        pending: 0,
    };
    // Files in path order, whatever order the workers finished them in: answers are stable.
    let mut order: Vec<(String, &Suite)> = suites
        .iter()
        .map(|s| (rel_file(paths, dir, &s.file), s))
        .collect();
    order.sort_by(|a, b| a.0.cmp(&b.0));
    for (file, suite) in order {
        if sel.is_some_and(|s| !s.files.contains(&file)) {
            t.dropped_failure |=
                suite.error.is_some() || suite.cases.iter().any(|c| c.status == CaseStatus::Failed);
            continue;
        }
        t.seen.insert(file.clone());
        if let Some(err) = &suite.error {
            run.failures.push(suite_failure(paths, dir, &file, err));
        }
        for case in &suite.cases {
            // A failure no file holds (mocha's root hook plugin): its names alone.
            let id = if file.is_empty() {
                case.names.join(SEP)
            } else {
                test_id(&file, &case.names)
            };
            if sel.is_some_and(|s| !s.wants(&id, &file)) {
                t.dropped_failure |= case.status == CaseStatus::Failed;
                continue;
            }
            t.seen.insert(id.clone());
            match case.status {
                CaseStatus::Passed => {
                    run.passed += 1;
                    // Passed on a retry of the project's own policy: green, and listed with
                    // its failed attempt.
                    if let Some(f) = retried_attempt(paths, dir, &id, case) {
                        run.flaky.push(f);
                    }
                    // The history's record of a pass: flaky, recovered, and the last pass
                    // that suspects compare with.
                    run.outcomes.push(pith_model::TestOutcome::passed(id, None));
                }
                CaseStatus::Skipped => run.skipped += 1,
                CaseStatus::Pending => t.pending += 1,
                CaseStatus::Failed => {
                    // A hook's failure (mocha) counts as the runner counts it: one failure.
                    run.failed += 1;
                    let mut f = case_failure(paths, dir, id, &case.messages);
                    f.phase = case.phase;
                    run.failures.push(f);
                }
            }
        }
    }
    if t.pending > 0 {
        run.selected = Some(run.passed + run.failed + run.skipped + t.pending);
    }
    t
}

/// The failed attempt of a test that passed on a retry (vitest's `retry`, jest's
/// `retryTimes`): its first error when the runner kept it, else what the runner counted
/// (jest keeps no error of a retried attempt without `logErrorsBeforeRetry`).
fn retried_attempt(paths: &PathMap, dir: &Path, id: &str, case: &Case) -> Option<Failure> {
    if !case.messages.is_empty() {
        return Some(case_failure(paths, dir, id.to_owned(), &case.messages));
    }
    (case.retried > 0).then(|| Failure {
        test: id.to_owned(),
        message: format!(
            "failed {} attempt{}, then passed on a retry (the runner kept no error)",
            case.retried,
            if case.retried == 1 { "" } else { "s" }
        ),
        kind: Some("retry".to_owned()),
        ..Failure::default()
    })
}

/// A file path as ids carry it: workspace-relative when inside the workspace.
pub(super) fn rel_file(paths: &PathMap, dir: &Path, raw: &str) -> String {
    paths
        .relativize(raw, Some(dir))
        .unwrap_or_else(|| raw.to_owned())
}

pub(super) fn case_failure(
    paths: &PathMap,
    dir: &Path,
    test: String,
    messages: &[String],
) -> Failure {
    let p = stack::parse_error(messages.first().map_or("", String::as_str), paths, dir);
    failure(paths, test, p, "failed", Phase::Call)
}

/// A failure of `test` from its parsed error, the frames with their code; `fallback` when the
/// error has no message.
pub(super) fn failure(
    paths: &PathMap,
    test: String,
    p: stack::Parsed,
    fallback: &str,
    phase: Phase,
) -> Failure {
    let mut frames = p.frames;
    paths.fill_code(&mut frames);
    let mut f = Failure {
        test,
        message: if p.message.is_empty() {
            fallback.to_owned()
        } else {
            p.message
        },
        kind: p.kind,
        frames,
        phase,
        ..Failure::default()
    };
    crate::detail::fill(&mut f, paths, &p.detail);
    f
}

/// A test file that failed as a whole (did not load, holds no test): its reason and where.
pub(super) fn suite_failure(paths: &PathMap, dir: &Path, file: &str, error: &str) -> Failure {
    let clean = crate::text::strip_ansi(error).into_owned();
    let text = match clean.find("Test suite failed to run") {
        Some(i) => jest_suite_reason(&clean[i..]),
        None => clean.clone(),
    };
    let mut p = stack::parse_error(&text, paths, dir);
    if !p.frames.iter().any(|f| f.project) {
        p.frames.extend(syntax_location(&clean, paths, dir));
    }
    let why = "the test file failed to load";
    failure(paths, file.to_owned(), p, why, Phase::Collect)
}

/// jest's "Test suite failed to run" block as an error text: the reason (for a syntax error,
/// the `SyntaxError:` line under "Details:", not jest's advice), then the block's frames.
pub(super) fn jest_suite_reason(block: &str) -> String {
    let lines: Vec<&str> = block.lines().skip(1).collect();
    let mut reason = lines
        .iter()
        .map(|l| l.trim())
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if reason.starts_with("Jest encountered an unexpected token") {
        if let Some(i) = lines.iter().position(|l| l.trim() == "Details:") {
            if let Some(d) = lines[i + 1..]
                .iter()
                .map(|l| l.trim())
                .find(|l| !l.is_empty())
            {
                reason = d;
            }
        }
    }
    let mut out = vec![reason.to_owned()];
    out.extend(
        lines
            .iter()
            .filter(|l| stack::frame_location(l).is_some())
            .map(|l| (*l).to_owned()),
    );
    out.join("\n")
}

/// Where a parse error is: babel's `SyntaxError: /abs/file.js: Unexpected token (2:10)`, or
/// vite's `At file: /tests/a.test.js:3:10` (relative to the project root).
pub(super) fn syntax_location(
    text: &str,
    paths: &PathMap,
    dir: &Path,
) -> Option<pith_model::Frame> {
    for l in text.lines().map(str::trim) {
        if let Some(rest) = l.strip_prefix("At file: ") {
            let (file, line) = stack::location(rest.trim())?;
            let joined = dir.join(file.trim_start_matches('/'));
            let f = paths.frame(&joined.to_string_lossy(), line, None);
            if f.project {
                return Some(f);
            }
        }
        if let (Some(_), body) = stack::split_kind(l) {
            if let (Some((file, _)), Some(open)) = (body.split_once(": "), body.rfind(" (")) {
                let line = body[open + 2..]
                    .split(':')
                    .next()
                    .and_then(|n| n.parse::<u32>().ok());
                if let (Some(line), true) = (line, file.starts_with('/')) {
                    let f = paths.frame(file, line, Some(dir));
                    if f.project {
                        return Some(f);
                    }
                }
            }
        }
    }
    None
}

/// Reads a jest `--json` report (for `pith test --report`).
pub fn parse_jest(text: &str, paths: &PathMap) -> Result<Run, crate::ParseError> {
    parse_report(text, paths, Runner::Jest)
}

/// Reads a vitest JSON report (for `pith test --report`).
pub fn parse_vitest(text: &str, paths: &PathMap) -> Result<Run, crate::ParseError> {
    parse_report(text, paths, Runner::Vitest)
}

pub(super) fn parse_report(
    text: &str,
    paths: &PathMap,
    runner: Runner,
) -> Result<Run, crate::ParseError> {
    let flavour = match runner {
        Runner::Vitest => Flavour::Vitest,
        _ => Flavour::Jest,
    };
    let mut r = report::parse_json(text, flavour)?;
    for s in &mut r.suites {
        if let Some((why, _)) = s.error.as_deref().and_then(worker_death) {
            // A dead worker is not a file that failed to load.
            s.error = Some(format!("Error: {why}"));
        }
    }
    let mut run = Run::new(runner.name());
    let root = paths.root().to_path_buf();
    let t = tally(&mut run, paths, &root, &r.suites, None);
    if t.pending > 0 && run.status() < Status::TestsFailed {
        run.status = Some(Status::Crashed);
    }
    if r.snapshot_failure && run.status() == Status::TestsPassed {
        run.status = Some(Status::TestsFailed);
    }
    // The report's own totals are evidence too.
    let name = runner.name();
    let recorded: usize = r.suites.iter().map(|s| s.cases.len()).sum();
    let failing = run.failed > 0 || !run.failures.is_empty();
    if run.selected.is_none() {
        run.selected = r.totals.tests;
    }
    if let Some(n) = r.totals.tests.filter(|&n| n as usize > recorded) {
        run.reason = Some(format!("{name} counted {n} tests but reported {recorded}"));
    } else if r.totals.success == Some(false) && !failing && !r.snapshot_failure {
        run.reason = Some(format!(
            "{name} reported success:false with no failing test"
        ));
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::is_test_id;

    #[test]
    fn worker_deaths_are_recognized() {
        let msg = "  ● Test suite failed to run\n\n    A jest worker process (pid=561) was terminated by another process: signal=SIGABRT, exitCode=null. Operating system logs may contain more information on why this occurred.\n\n      at ChildProcessWorker._onExit (node_modules/jest-worker/build/index.js:964:23)\n";
        assert_eq!(
            worker_death(msg),
            Some((
                "A jest worker process (pid=561) was terminated by another process: signal=SIGABRT, exitCode=null.".to_owned(),
                Some("SIGABRT".to_owned())
            ))
        );
        assert_eq!(worker_death("Cannot find module 'x'"), None);
        assert!(vitest_worker_death(
            "Error: [vitest-pool]: Worker forks emitted error."
        ));
    }

    #[test]
    fn jest_suite_blocks_give_the_reason() {
        let paths = PathMap::new(Path::new("/ws"));
        let f = suite_failure(
            &paths,
            Path::new("/ws"),
            "j/load.test.js",
            "  ● Test suite failed to run\n\n    Cannot find module './nope' from 'j/load.test.js'\n\n    > 1 | const x = require('./nope');\n        |           ^\n\n      at Resolver._throwModNotFoundError (node_modules/jest-resolve/build/index.js:1031:11)\n      at Object.require (j/load.test.js:1:11)\n",
        );
        assert_eq!(
            f.message,
            "Cannot find module './nope' from 'j/load.test.js'"
        );
        assert_eq!(f.phase, Phase::Collect);
        assert_eq!(
            f.top_project_frame().map(|f| f.location()).as_deref(),
            Some("j/load.test.js:1")
        );
        let syn = suite_failure(
            &paths,
            Path::new("/ws"),
            "j/syn.test.js",
            "  ● Test suite failed to run\n\n    Jest encountered an unexpected token\n\n    Jest failed to parse a file.\n\n    Details:\n\n    SyntaxError: /ws/j/syn.test.js: Unexpected token (2:10)\n\n      at constructor (node_modules/@babel/parser/src/parse-error.ts:96:45)\n",
        );
        assert_eq!(
            syn.message,
            "SyntaxError: j/syn.test.js: Unexpected token (2:10)"
        );
        assert_eq!(syn.kind.as_deref(), Some("SyntaxError"));
        assert_eq!(
            syn.top_project_frame().map(|f| f.location()).as_deref(),
            Some("j/syn.test.js:2")
        );
        let vite = suite_failure(
            &paths,
            Path::new("/ws"),
            "v/syn.test.js",
            "Parse failure: Expression expected\nAt file: /v/syn.test.js:3:10",
        );
        assert_eq!(vite.message, "Parse failure: Expression expected");
        assert_eq!(
            vite.top_project_frame().map(|f| f.location()).as_deref(),
            Some("v/syn.test.js:3")
        );
    }

    #[test]
    fn reports_parse_into_runs() {
        let paths = PathMap::new(Path::new("/ws"));
        let text = r#"{"numRuntimeErrorTestSuites":0,"testResults":[{"name":"/ws/a.test.js","status":"failed","message":"","assertionResults":[
            {"ancestorTitles":["sum"],"title":"adds","status":"failed","failureMessages":["Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 4\nReceived: 5\n    at Object.toBe (/ws/a.test.js:4:23)"]},
            {"ancestorTitles":[],"title":"ok","status":"passed","failureMessages":[]}]}]}"#;
        let run = parse_jest(text, &paths).unwrap();
        assert_eq!((run.passed, run.failed), (1, 1));
        assert_eq!(run.failures[0].test, "a.test.js > sum > adds");
        assert_eq!(
            run.failures[0].message,
            "expect(received).toBe(expected) (Expected: 4, Received: 5)"
        );
        assert_eq!(run.status(), Status::TestsFailed);
        assert!(parse_vitest("not json", &paths).is_err());
        // A saved report whose own totals count more than it lists is not green.
        let short = r#"{"numTotalTests":2,"success":true,"testResults":[{"name":"/ws/a.test.js","status":"passed","message":"","assertionResults":[
            {"ancestorTitles":[],"title":"ok","status":"passed","failureMessages":[]}]}]}"#;
        let run = parse_vitest(short, &paths).unwrap();
        assert_eq!(run.status(), Status::RunnerFailed);
        assert_eq!(
            run.doubt().as_deref(),
            Some("vitest counted 2 tests but reported 1")
        );
    }

    proptest::proptest! {
        #[test]
        fn report_parsers_never_panic(s in "(?s).{0,400}") {
            let paths = PathMap::new(Path::new("/ws"));
            let _ = parse_jest(&s, &paths);
            let _ = parse_vitest(&s, &paths);
            let _ = worker_death(&s);
            let _ = jest_suite_reason(&s);
            let _ = syntax_location(&s, &paths, Path::new("/ws"));
            let _ = from_records(Flavour::Vitest, Some(&s), events::parse(&s, Flavour::Vitest));
            let _ = node_from_records(node::parse(&s), &[(s.clone(), 0)], 0);
            let _ = is_test_id(&s);
        }
    }
}
