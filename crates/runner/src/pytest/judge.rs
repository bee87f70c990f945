//! What a finished pytest process and the plugin's records say, as a [`Run`]: counts and
//! failures from the records, pytest's documented exit codes, crashes located by the
//! faulthandler dump, ids pytest could not find.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use pith_model::{ExitMeaning, Failure, Frame, Phase, Run, Status, TestOutcome};

use crate::paths::{PathMap, CODE_CHARS};
use crate::process::{Captured, End};
use crate::verdict::{self, Ending, ExitCodes};
use crate::{text, Context};

use super::command::{without_params, Interpreter, PYTEST_MAJORS};
use super::records::{Outcome, RawFrame, Records, When};
use super::{faults, records};

/// The most read of one process's stack dump.
pub(super) const STACKS_BYTES: u64 = 1 << 20;

/// The thread stacks each process dumped when pith stopped the run (`<report>.<pid>.stacks`).
pub(crate) fn read_stacks(report: &Path) -> String {
    let (Some(dir), Some(name)) = (report.parent(), report.file_name()) else {
        return String::new();
    };
    let prefix = format!("{}.", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return String::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .map(|n| n.to_string_lossy())
                .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".stacks"))
        })
        .collect();
    files.sort();
    let mut out = String::new();
    for f in files {
        // A dump is at most a hundred frames per thread; a bound all the same.
        let mut bytes = Vec::new();
        let read = std::fs::File::open(&f).and_then(|file| {
            std::io::Read::read_to_end(&mut std::io::Read::take(file, STACKS_BYTES), &mut bytes)
        });
        if read.is_ok() {
            let text = String::from_utf8_lossy(&bytes);
            if !text.trim().is_empty() {
                out.push_str(text.trim_end());
                out.push('\n');
            }
        }
    }
    out
}

pub(crate) fn shown(interp: &Interpreter) -> Option<String> {
    interp
        .workspace_venv
        .as_ref()
        .map(|_| interp.display.clone())
}

pub(super) fn runner_missing(hint: String, interpreter: Option<String>) -> Run {
    Run {
        interpreter,
        ..verdict::runner_missing("pytest", hint)
    }
}

/// Node ids as the workspace sees them: pytest writes them relative to its rootdir, which is
/// the workspace root unless the project's configuration lives elsewhere.
pub(super) struct Ids<'a> {
    pub(super) paths: &'a PathMap,
    pub(super) rootdir: Option<PathBuf>,
}

impl Ids<'_> {
    pub(super) fn workspace(&self, nodeid: &str) -> String {
        let Some(rootdir) = &self.rootdir else {
            return nodeid.to_owned();
        };
        let (file, rest) = match nodeid.find("::") {
            Some(i) => nodeid.split_at(i),
            None => (nodeid, ""),
        };
        if file.is_empty() {
            return nodeid.to_owned();
        }
        match self
            .paths
            .relativize(&rootdir.join(file).to_string_lossy(), None)
        {
            Some(rel) => format!("{rel}{rest}"),
            None => nodeid.to_owned(),
        }
    }
}

/// What a finished pytest process and its records say, as a [`Run`].
pub(super) fn judge(
    ctx: &Context<'_>,
    interp: &Interpreter,
    records: &Records,
    captured: &Captured,
    stacks: String,
    ids: &[String],
) -> Run {
    let stderr = captured.stderr_str();
    if !records.any
        && matches!(captured.end, End::Exited(_))
        && (stderr.contains("No module named 'pytest'")
            || stderr.contains("No module named pytest"))
    {
        let d = &interp.display;
        return runner_missing(
            format!("pytest is not installed for {d}: {d} -m pip install pytest"),
            shown(interp),
        );
    }
    if let Some(version) = &records.unsupported {
        let d = &interp.display;
        let (lo, hi) = (PYTEST_MAJORS.start(), PYTEST_MAJORS.end());
        return runner_missing(
            format!(
                "pytest {version} is installed for {d}; pith supports pytest {lo}.0 to {hi}.x: {d} -m pip install 'pytest>={lo},<{}'",
                hi + 1
            ),
            shown(interp),
        );
    }
    let mut j = Judge::new(ctx, records, captured, &stderr, stacks);
    j.run.interpreter = shown(interp);
    for id in &records.unmatched {
        if ids.contains(id) && !j.run.not_found.contains(id) {
            j.run.not_found.push(id.clone());
        }
    }
    let crashed = match Ending::of(captured.end) {
        Ending::Stopped => {
            let (running, tail) = (j.running.clone(), j.tail());
            verdict::stopped(&mut j.run, Some(running), tail);
            false
        }
        Ending::Killed(signal) => j.killed(signal),
        Ending::Exited(code @ (0 | 1 | 5)) if j.normal_end() => j.finished(code),
        Ending::Exited(4) => {
            j.usage_error(ids);
            false
        }
        // pytest stops at a collection error before any test runs ("Interrupted: N errors
        // during collection"): the records of the errors are the whole story, as for a run
        // that went on.
        Ending::Exited(2) if j.normal_end() && j.run.collection_errors() > 0 => false,
        Ending::Exited(code)
            if j.normal_end() && j.running.is_empty() && !(2..=4).contains(&code) =>
        {
            // The session ended and nothing was cut short, but the exit is not pytest's word for
            // this outcome (a plugin's or a session-finish hook's own code): the exit, weighed
            // against the records, makes the verdict.
            false
        }
        Ending::Exited(code) => j.cut_short(code),
    };
    if crashed {
        j.run.tail = j.tail();
    }
    if j.run.tail.is_none() {
        j.run.tail = quiet_tail(&j.run, ctx, records, &j.output);
    }
    j.run
}

/// One pytest process being judged: the run so far, what it printed and the tests its records
/// left running, as workspace ids.
struct Judge<'a, 'c> {
    ctx: &'a Context<'c>,
    records: &'a Records,
    ids: Ids<'a>,
    run: Run,
    /// stdout, stderr and the stack dumps, joined.
    output: String,
    running: Vec<String>,
}

impl<'a, 'c> Judge<'a, 'c> {
    /// The run as the records tally it, with pytest's exit, before its ending is weighed.
    fn new(
        ctx: &'a Context<'c>,
        records: &'a Records,
        captured: &Captured,
        stderr: &str,
        stacks: String,
    ) -> Self {
        let mut run = Run::new("pytest");
        run.exit = verdict::exit(captured.end, exit_meaning);
        let ids = Ids {
            paths: ctx.paths,
            rootdir: records.rootdir.as_ref().map(PathBuf::from),
        };
        tally(&mut run, ctx, records, &ids);
        if records.lost > 0 {
            // The plugin could not write everything: what the records say is not the whole run.
            run.reason = Some(format!(
                "pith's pytest plugin lost {} record(s): {}",
                records.lost,
                ctx.paths
                    .scrub(records.lost_why.as_deref().unwrap_or("write failed"))
            ));
        }
        run.selected = records
            .selected
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX));
        let output = verdict::combined(&[&captured.stdout_str(), stderr, &stacks]);
        let running: Vec<String> = records
            .running()
            .iter()
            .map(|id| ids.workspace(id))
            .collect();
        Judge {
            ctx,
            records,
            ids,
            run,
            output,
            running,
        }
    }

    /// The session reached its end (the plugin recorded it).
    fn normal_end(&self) -> bool {
        self.records.end.is_some()
    }

    fn tail(&self) -> Option<String> {
        output_tail(self.ctx, &self.output)
    }

    /// The running tests fail, each located by the faulthandler dump.
    fn crash(&mut self, why: &str, kind: Option<String>) {
        let (ctx, records, ids, output) = (self.ctx, self.records, &self.ids, &self.output);
        crash_failures(&mut self.run, ctx, records, ids, output, why, kind);
    }

    /// A signal killed pytest: the run crashed (its tail comes with every crash).
    fn killed(&mut self, signal: String) -> bool {
        verdict::crashed(&mut self.run, Some(self.running.clone()), None);
        let why = faults::fatal_error(&self.output)
            .map(str::to_owned)
            .unwrap_or_else(|| verdict::killed_by("pytest", &signal));
        self.crash(&why, Some(signal));
        true
    }

    /// pytest's own word for the outcome (0, 1 or 5) at the session's end; true when a
    /// pytest-xdist worker crashed all the same.
    fn finished(&mut self, code: i32) -> bool {
        let worker_crashes: Vec<String> = self
            .records
            .reports
            .iter()
            .filter(|r| r.when == When::Other && r.outcome == Outcome::Failed)
            .map(|r| self.ids.workspace(&r.id))
            .collect();
        if worker_crashes.is_empty() {
            if code == 5 {
                self.run.status = Some(Status::NoTestsRan);
            }
            return false;
        }
        // pytest-xdist lost a worker: its test is reported failed, but it crashed.
        let running = union(self.running.clone(), worker_crashes);
        verdict::crashed(&mut self.run, Some(running), None);
        let why = faults::fatal_error(&self.output)
            .unwrap_or("the test process died")
            .to_owned();
        self.crash(&why, None);
        true
    }

    /// pytest's usage error (4): the requested ids it could not find, else the tests were
    /// never collected.
    fn usage_error(&mut self, requested: &[String]) {
        self.run.not_found = union(
            std::mem::take(&mut self.run.not_found),
            not_found(&self.output, requested, self.ctx.paths),
        );
        if self.run.not_found.is_empty() {
            // A usage error (bad option in the configuration, a conftest.py that does not
            // import): the tests were never collected.
            self.run.status = Some(Status::CollectionFailed);
            self.run.tail = self.tail();
        } else {
            // pytest's usage error is the ids it could not find, and `notFound` says so
            // already: the exit explains nothing more, and kept it would read "exited 4
            // though no test failed" beside every stale id.
            self.run.exit = None;
        }
    }

    /// Interrupted (2), internal error (3), or a process that left without finishing its
    /// session (a test called os._exit): whatever ran, the run did not end.
    fn cut_short(&mut self, code: i32) -> bool {
        let why = if !self.running.is_empty() {
            format!("the test process exited with code {code} during the test")
        } else if code == 3 {
            "pytest hit an internal error".to_owned()
        } else {
            format!("pytest exited with code {code} before the run ended")
        };
        // The tail comes with every crash.
        verdict::crashed(&mut self.run, Some(self.running.clone()), None);
        self.crash(&why, None);
        true
    }
}

/// The tail of a run no ending above explained: pytest's own words when it disagrees with
/// records that say green, else the collection errors' project entries.
fn quiet_tail(run: &Run, ctx: &Context<'_>, records: &Records, output: &str) -> Option<String> {
    if run.not_found.is_empty() && run.doubt().is_some() {
        // The records say green and pytest does not (a coverage threshold's "FAIL Required test
        // coverage of 90% not reached", a `pytest.exit`): its own words say why, without the
        // coverage table or progress lines around them.
        let why = verdict::why_tail(ctx.paths, output);
        if why.is_some() {
            return why;
        }
    }
    if !records.collect_errors.is_empty() {
        let texts: Vec<&str> = records
            .collect_errors
            .iter()
            .map(|c| c.text.as_str())
            .filter(|t| !t.trim().is_empty())
            .collect();
        return verdict::tail(ctx.paths, &project_entries(&texts.join("\n"), ctx.paths))
            .or_else(|| output_tail(ctx, output));
    }
    None
}

/// What pytest's exit code means, as pytest documents its codes (`pytest.ExitCode`).
pub(super) fn exit_meaning(code: i32) -> ExitMeaning {
    // 3 is an internal error; anything else is a plugin's or the project's own code.
    const CODES: &ExitCodes = &[
        (0, ExitMeaning::Passed),
        (1, ExitMeaning::Failed),
        (2, ExitMeaning::Interrupted),
        (4, ExitMeaning::UsageError),
        (5, ExitMeaning::NoTests),
    ];
    verdict::meaning(CODES, code)
}

pub(super) fn union(mut a: Vec<String>, b: Vec<String>) -> Vec<String> {
    for x in b {
        if !a.contains(&x) {
            a.push(x);
        }
    }
    a
}

/// Counts, failures and collection errors from the records.
pub(super) fn tally(run: &mut Run, ctx: &Context<'_>, records: &Records, ids: &Ids<'_>) {
    #[derive(Default)]
    struct State {
        passed: bool,
        failed: bool,
        skipped: bool,
        /// Setup, call and teardown together, when the plugin measured them.
        time: Option<Duration>,
    }
    let mut order: Vec<String> = Vec::new();
    let mut states: HashMap<String, State> = HashMap::new();
    let mut seen: HashSet<(String, Phase)> = HashSet::new();
    for r in &records.reports {
        let id = ids.workspace(&r.id);
        let st = states.entry(id.clone()).or_insert_with(|| {
            order.push(id.clone());
            State::default()
        });
        if let Some(d) = r.dur {
            st.time = Some(st.time.unwrap_or_default().saturating_add(d));
        }
        match (r.when, r.outcome) {
            (when, Outcome::Failed) => {
                st.failed = true;
                let phase = match when {
                    When::Setup => Phase::Setup,
                    When::Teardown => Phase::Teardown,
                    When::Call | When::Other => Phase::Call,
                };
                if seen.insert((id.clone(), phase)) {
                    let own = r.out.as_deref().unwrap_or_default().lines();
                    run.test_output
                        .extend(pith_model::output::TestOutput::of_lines(id.clone(), own));
                    run.failures.push(failure(ctx, id, &r.detail, phase));
                }
            }
            (_, Outcome::Skipped) => st.skipped = true,
            (When::Call, Outcome::Passed) => st.passed = true,
            _ => {}
        }
    }
    for id in &order {
        let st = &states[id];
        if st.failed {
            run.failed += 1;
        } else if st.skipped {
            run.skipped += 1;
        } else if st.passed {
            run.passed += 1;
            run.outcomes.push(TestOutcome::passed(id.clone(), st.time));
            // Passed on a retry of the project's own policy (pytest-rerunfailures): green,
            // and listed with its first failed attempt.
            if let Some(r) = records.reruns.iter().find(|r| ids.workspace(&r.id) == *id) {
                let phase = match r.when {
                    When::Setup => Phase::Setup,
                    When::Teardown => Phase::Teardown,
                    When::Call | When::Other => Phase::Call,
                };
                run.flaky.push(failure(ctx, id.clone(), &r.detail, phase));
            }
        }
    }
    for c in &records.collect_errors {
        let mut f = failure(ctx, ids.workspace(&c.id), &c.detail, Phase::Collect);
        if f.test.is_empty() {
            f.test = f
                .top_project_frame()
                .map(|fr| fr.file.clone())
                .unwrap_or_else(|| "(collection)".to_owned());
        }
        if seen.insert((f.test.clone(), Phase::Collect)) {
            run.failures.push(f);
        }
    }
}

pub(crate) fn failure(
    ctx: &Context<'_>,
    test: String,
    d: &records::Detail,
    phase: Phase,
) -> Failure {
    let mut message = text::first_line(&ctx.paths.scrub(&d.msg));
    if message.is_empty() {
        message = d.kind.clone().unwrap_or_else(|| "failed".to_owned());
    }
    // Long operands are told by where they first differ, not by their first characters.
    if let Some(at) = d
        .operands
        .as_ref()
        .and_then(|(l, r)| crate::diff::first_difference(l, r))
    {
        let kind = d.kind.as_deref().unwrap_or("AssertionError");
        message = text::first_line(&ctx.paths.scrub(&format!("{kind}: left != right, {at}")));
    }
    let mut f = Failure {
        test,
        message,
        kind: d.kind.clone(),
        frames: frames(ctx.paths, &d.frames),
        phase,
        ..Failure::default()
    };
    let inside = |file: &str| ctx.paths.relativize(file, None).is_some();
    let chain = ctx
        .paths
        .scrub(&chain_in_project(&d.chain, inside).join("\n"));
    let full = if chain.is_empty() {
        d.msg.clone()
    } else {
        format!("{}\n{}", d.msg, chain)
    };
    crate::detail::fill(&mut f, ctx.paths, &full);
    f
}

/// Frames of each chained exception the detail shows: the deepest in the project.
const CHAIN_FRAMES: usize = 3;

/// The plugin's chain text (paths as the interpreter gave them) with each exception's frames
/// cut to its deepest [`CHAIN_FRAMES`] inside the workspace (`inside` tells a frame's file):
/// a frame from elsewhere (the interpreter's, site-packages') is not the agent's to open.
fn chain_in_project(chain: &str, inside: impl Fn(&str) -> bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut frames: Vec<&str> = Vec::new();
    let flush = |out: &mut Vec<String>, frames: &mut Vec<&str>| {
        let start = frames.len().saturating_sub(CHAIN_FRAMES);
        out.extend(frames.drain(..).skip(start).map(str::to_owned));
    };
    for l in chain.lines() {
        let Some(frame) = l.strip_prefix("  ") else {
            flush(&mut out, &mut frames);
            out.push(l.to_owned());
            continue;
        };
        if inside(frame_file(frame)) {
            frames.push(l);
        }
    }
    flush(&mut out, &mut frames);
    out
}

/// The file of a chain's frame line, `path:line code`: the text before the first `:line`
/// followed by a space or the end (the code may hold colons of its own).
fn frame_file(frame: &str) -> &str {
    for (i, _) in frame.match_indices(':') {
        let rest = &frame[i + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && rest[digits..].chars().next().is_none_or(|c| c == ' ') {
            return &frame[..i];
        }
    }
    frame
}

pub(super) fn frames(paths: &PathMap, raw: &[RawFrame]) -> Vec<Frame> {
    raw.iter()
        .map(|f| {
            let mut frame = faults::frame_at(paths, &f.path, f.line);
            let code = f.code.trim();
            if !code.is_empty() && code.chars().count() <= CODE_CHARS {
                frame.code = Some(code.to_owned());
            }
            frame
        })
        .collect()
}

/// A crash takes the running tests with it: each becomes a failure located by the
/// faulthandler dump (or keeps the one pytest-xdist reported, given the dump's frames).
pub(super) fn crash_failures(
    run: &mut Run,
    ctx: &Context<'_>,
    records: &Records,
    ids: &Ids<'_>,
    output: &str,
    why: &str,
    kind: Option<String>,
) {
    for test in run.running.clone() {
        let located = || faults::frames_for(output, faults::node_file(&test), ctx.paths);
        if let Some(f) = run.failures.iter_mut().find(|f| f.test == test) {
            if f.frames.is_empty() {
                f.frames = located().unwrap_or_default();
            }
            continue;
        }
        let phase = {
            let mine = records
                .reports
                .iter()
                .filter(|r| ids.workspace(&r.id) == test);
            let whens: Vec<When> = mine.map(|r| r.when).collect();
            if whens.contains(&When::Call) {
                Phase::Teardown
            } else if whens.contains(&When::Setup) {
                Phase::Call
            } else {
                Phase::Setup
            }
        };
        run.failures.push(Failure {
            test: test.clone(),
            message: text::first_line(why),
            kind: kind.clone(),
            frames: located().unwrap_or_default(),
            phase,
            ..Failure::default()
        });
        run.failed += 1;
    }
}

/// The end of what pytest printed (stdout, then stderr), faulthandler dumps cut to the frames
/// that locate the problem, paths relative.
pub(super) fn output_tail(ctx: &Context<'_>, output: &str) -> Option<String> {
    verdict::tail(ctx.paths, &faults::compact(output, ctx.paths))
}

/// A pytest traceback in its short style (`path:12: in func` followed by indented source)
/// without the entries outside the project: importing a module passes through a dozen frames
/// of importlib and pytest's assertion rewriter before reaching the line at fault.
pub(super) fn project_entries(text: &str, paths: &PathMap) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut skipping = false;
    for line in text.lines() {
        if skipping && line.starts_with(char::is_whitespace) {
            continue;
        }
        skipping = false;
        if let Some(file) = entry_file(line) {
            let project = if file.starts_with('/') {
                paths
                    .relativize(file, None)
                    .is_some_and(|rel| PathMap::is_project(&rel))
            } else {
                !file.starts_with('<') && PathMap::is_project(file)
            };
            if !project {
                skipping = true;
                continue;
            }
        }
        out.push(line);
    }
    out.join("\n")
}

/// The file of a short-style traceback entry header, `path:12: in func`.
pub(super) fn entry_file(line: &str) -> Option<&str> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let (head, _) = line.split_once(": in ")?;
    let (file, lineno) = head.rsplit_once(':')?;
    (!file.is_empty() && !lineno.is_empty() && lineno.bytes().all(|b| b.is_ascii_digit()))
        .then_some(file)
}

/// Requested ids pytest said match nothing. pytest names a missing file as given and a missing
/// test by its absolute path without the parameter part; both map back to the requested id.
/// When none maps back, pytest's own words are returned.
pub(super) fn not_found(output: &str, ids: &[String], paths: &PathMap) -> Vec<String> {
    let mut reported: Vec<String> = Vec::new();
    for line in output.lines() {
        let l = line.trim();
        let l = l.strip_prefix("ERROR:").map_or(l, str::trim_start);
        let arg = l
            .strip_prefix("file or directory not found: ")
            .or_else(|| l.strip_prefix("not found: "))
            .or_else(|| l.strip_prefix("found no collectors for "))
            .or_else(|| {
                l.strip_prefix("module or package not found: ")
                    .map(|r| r.trim_end_matches(" (missing __init__.py?)"))
            });
        if let Some(arg) = arg.map(str::trim).filter(|a| !a.is_empty()) {
            let arg = normal_id(&paths.scrub(arg));
            if !reported.contains(&arg) {
                reported.push(arg);
            }
        }
    }
    let normal: Vec<String> = ids.iter().map(|id| normal_id(id)).collect();
    // A parametrized id was given to pytest as its function: the function is missing.
    let missing = |id: &str| reported.iter().any(|r| r == id || r == without_params(id));
    let matched: Vec<String> = ids
        .iter()
        .zip(&normal)
        .filter(|(_, n)| missing(n))
        .map(|(id, _)| id.clone())
        .collect();
    if matched.is_empty() {
        reported
    } else {
        matched
    }
}

pub(super) fn normal_id(id: &str) -> String {
    let mut s = id.trim();
    while let Some(rest) = s.strip_prefix("./") {
        s = rest;
    }
    s.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pytest::command::Selection;

    #[test]
    fn not_found_maps_back_to_requested_ids() {
        let paths = PathMap::new(Path::new("/ws"));
        let ids: Vec<String> = [
            "tests/t.py::gone[3]",
            "./tests/nope.py::x",
            "tests/t.py::ok",
            "tests/t.py::TestC::gone",
        ]
        .map(String::from)
        .to_vec();
        let out = "\nno tests ran in 0.01s\nERROR: not found: /ws/tests/t.py::gone\n(no match in any of [<Module t.py>])\n\nERROR: file or directory not found: ./tests/nope.py::x\n\nERROR: not found: /ws/tests/t.py::TestC::gone\n";
        assert_eq!(
            not_found(out, &ids, &paths),
            vec![
                "tests/t.py::gone[3]".to_string(),
                "./tests/nope.py::x".to_string(),
                "tests/t.py::TestC::gone".to_string(),
            ]
        );
        // The function is missing: so are its parametrizations.
        let both: Vec<String> = ["a.py::t", "a.py::t[9]"].map(String::from).to_vec();
        assert_eq!(
            not_found("ERROR: not found: /ws/a.py::t\n", &both, &paths),
            both
        );
        // Nothing requested matches: pytest's own words.
        assert_eq!(
            not_found("ERROR: file or directory not found: docs\n", &[], &paths),
            vec!["docs".to_string()]
        );
        assert!(not_found("all good\n", &ids, &paths).is_empty());
    }

    #[test]
    fn exit_codes_mean_what_pytest_documents() {
        assert_eq!(exit_meaning(0), ExitMeaning::Passed);
        assert_eq!(exit_meaning(1), ExitMeaning::Failed);
        assert_eq!(exit_meaning(2), ExitMeaning::Interrupted);
        assert_eq!(exit_meaning(3), ExitMeaning::Other);
        assert_eq!(exit_meaning(4), ExitMeaning::UsageError);
        assert_eq!(exit_meaning(5), ExitMeaning::NoTests);
        assert_eq!(exit_meaning(7), ExitMeaning::Other);
        assert_eq!(exit_meaning(-1), ExitMeaning::Other);
    }

    #[test]
    fn collection_tracebacks_keep_the_project_entries() {
        let paths = PathMap::new(Path::new("/ws"));
        let text = "ImportError while importing test module '/ws/tests/t.py'.\nTraceback:\n/usr/lib/python3.11/importlib/__init__.py:126: in import_module\n    return _bootstrap._gcd_import(name[level:], package, level)\n           ^^^^^^^^^^\n<frozen importlib._bootstrap>:1204: in _gcd_import\n    ???\ntests/t.py:2: in <module>\n    import foo\n/ws/.venv/lib/python3.11/site-packages/foo.py:1: in <module>\n    raise X\nE   ModuleNotFoundError: No module named 'bar'";
        assert_eq!(
            project_entries(text, &paths),
            "ImportError while importing test module '/ws/tests/t.py'.\nTraceback:\ntests/t.py:2: in <module>\n    import foo\nE   ModuleNotFoundError: No module named 'bar'"
        );
        assert_eq!(entry_file("a.py:3: in f"), Some("a.py"));
        assert_eq!(entry_file("E   a.py:x: in f"), None);
        assert_eq!(entry_file("  a.py:3: in f"), None);
    }

    proptest::proptest! {
        #[test]
        fn text_parsers_never_panic(s in "(?s).{0,400}", id in "[a-z/]{0,8}(\\.py)?(::[a-z\\[\\]:-]{0,8}){0,3}") {
            let paths = PathMap::new(Path::new("/ws"));
            let _ = project_entries(&s, &paths);
            let _ = not_found(&s, std::slice::from_ref(&id), &paths);
            let _ = without_params(&id);
            let _ = Selection::of(std::slice::from_ref(&id)).env();
            let _ = Ids { paths: &paths, rootdir: Some("/ws/x".into()) }.workspace(&id);
        }
    }

    #[test]
    fn ids_follow_the_rootdir() {
        let paths = PathMap::new(Path::new("/ws"));
        let same = Ids {
            paths: &paths,
            rootdir: Some("/ws".into()),
        };
        assert_eq!(
            same.workspace("tests/t.py::T::t[a/b]"),
            "tests/t.py::T::t[a/b]"
        );
        let sub = Ids {
            paths: &paths,
            rootdir: Some("/ws/py".into()),
        };
        assert_eq!(sub.workspace("tests/t.py::t"), "py/tests/t.py::t");
        let above = Ids {
            paths: &paths,
            rootdir: Some("/".into()),
        };
        assert_eq!(above.workspace("ws/tests/t.py::t"), "tests/t.py::t");
        let outside = Ids {
            paths: &paths,
            rootdir: Some("/elsewhere".into()),
        };
        assert_eq!(outside.workspace("t.py::t"), "t.py::t");
        assert_eq!(outside.workspace(""), "");
    }
}
