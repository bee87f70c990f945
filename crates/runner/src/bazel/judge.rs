//! What one `bazel test` said, as a [`Run`]: each test target's result from the build event
//! stream, its cases from its `test.xml` (GoogleTest's or JUnit's own report) or, where Bazel
//! wrote the file itself (a shell or Python test, a test that crashed or timed out), from its
//! `test.log`; build failures from the failed actions' stderr; and Bazel's own ways to be
//! partial — a target with no status, a stream cut short, an exit that is not green — never
//! green.

use std::path::Path;

use pith_model::{BuildError, ExitMeaning, Failure, Frame, Phase, Run, Status, TestOutcome};

use crate::c_build;
use crate::googletest::{console, failure};
use crate::junit;
use crate::process::Captured;
use crate::verdict::{self, Ending};
use crate::{text, Context, PathMap};

use super::bep::{Attempt, Stream, Target};
use super::command::{of_target, package, selects, split_id};

/// A `test.xml` or `test.log` is read up to this many bytes (the end of a log is kept).
const FILE_BYTES: u64 = 8 << 20;

/// Bazel's documented exit codes (`bazel help test`, "exit codes").
const EXIT_CODES: &verdict::ExitCodes = &[
    (0, ExitMeaning::Passed),
    (1, ExitMeaning::Failed),
    (2, ExitMeaning::UsageError),
    (3, ExitMeaning::Failed),
    (4, ExitMeaning::NoTests),
    (8, ExitMeaning::Interrupted),
];

/// One invocation's run. `requested` are the ids this invocation was for (empty: all).
pub(super) fn judge(
    ctx: &Context<'_>,
    cap: &Captured,
    stream: &Stream,
    requested: &[String],
) -> Run {
    let mut run = Run::new("bazel");
    let paths = ctx.paths;
    let names = workspace_names(stream);
    let console_text = stream.console.join("\n");
    let mut not_run: Vec<String> = Vec::new();
    let mut unreported = 0u32;
    for (label, target) in stream.targets.iter().filter(|(_, t)| t.test) {
        match target.attempts.last() {
            Some(last) => {
                // The verdict is the summary's when Bazel made one (retries of a flaky test).
                let status = target.summary.as_deref().unwrap_or(&last.status);
                if last.cached {
                    run.cached += 1;
                }
                if last.remote {
                    run.remote += 1;
                }
                match status {
                    "PASSED" | "FLAKY" | "FAILED" | "TIMEOUT" => {
                        unreported += target_cases(&mut run, paths, &names, label, target, status);
                    }
                    other => not_run.push(format!("{label} ({})", words(other))),
                }
            }
            None if target.built == Some(false) || target.aborted.is_some() => {
                not_run.push(format!("{label} (not built)"));
            }
            None => not_run.push(format!("{label} (no status)")),
        }
    }
    if unreported > 0 {
        run.selected = Some(run.passed + run.failed + run.skipped + unreported);
    }
    run.build_errors = build_errors(stream, paths);
    if !requested.is_empty() {
        keep_requested(&mut run, requested);
    }
    let tail = || verdict::why_tail(paths, &unroot(&console_text, &names));
    match Ending::of(cap.end) {
        Ending::Stopped => {
            let running: Vec<String> = stream
                .targets
                .iter()
                .filter(|(_, t)| t.test && t.attempts.is_empty() && t.built != Some(false))
                .map(|(l, _)| l.clone())
                .collect();
            verdict::stopped(&mut run, Some(running), tail());
        }
        Ending::Killed(signal) => verdict::killed(&mut run, "bazel", &signal, None, tail()),
        Ending::Exited(code) => {
            let mut reasons: Vec<String> = Vec::new();
            if !not_run.is_empty() && run.build_errors.is_empty() {
                reasons.push(format!(
                    "{} test target{} did not run: {}",
                    not_run.len(),
                    if not_run.len() == 1 { "" } else { "s" },
                    not_run.join(", ")
                ));
            }
            if !stream.complete {
                reasons.push("the build event stream ends before its last event".to_owned());
            }
            if let Some((name, bep_code)) = &stream.finished {
                if *bep_code != code {
                    reasons.push(format!(
                        "bazel exited {code}, its build events say {name} ({bep_code})"
                    ));
                }
            }
            if code == 1 && run.build_errors.is_empty() {
                // A build that failed where no compiler spoke: a BUILD file, or a requested
                // target that does not exist (not found, not a failed build).
                let errors = bazel_errors(&stream.console, paths);
                // Bazel quotes the label it cannot find: `no such target '//a:b'`.
                let quotes = |e: &BuildError, id: &str| {
                    split_id(id).is_some_and(|(t, _)| e.message.contains(&format!("'{t}'")))
                };
                let missing: Vec<&String> = requested
                    .iter()
                    .filter(|r| errors.iter().any(|e| quotes(e, r)))
                    .collect();
                run.build_errors = errors
                    .into_iter()
                    .filter(|e| {
                        !(missing.iter().any(|m| quotes(e, m))
                            || e.message
                                .contains("there were errors parsing the target pattern"))
                    })
                    .collect();
                for m in missing {
                    if !run.not_found.contains(m) {
                        run.not_found.push(m.clone());
                    }
                }
                if run.build_errors.is_empty() && run.not_found.is_empty() {
                    run.status = Some(Status::BuildFailed);
                    run.tail = tail();
                }
            }
            if code == 2 || code > 4 && code != 8 {
                run.status = Some(Status::RunnerFailed);
                run.tail = tail();
            }
            if !reasons.is_empty() {
                for r in reasons {
                    add_reason(&mut run, r);
                }
                run.tail = run.tail.take().or_else(tail);
            }
        }
    }
    run.exit = verdict::exit(cap.end, |code| verdict::meaning(EXIT_CODES, code));
    run
}

/// The cases of one test target that ran (or came from a cache), into the run: of each run
/// and shard, its last attempt.
fn target_cases(
    run: &mut Run,
    paths: &PathMap,
    names: &[String],
    label: &str,
    t: &Target,
    status: &str,
) -> u32 {
    let mut finals: Vec<&Attempt> = Vec::new();
    for a in &t.attempts {
        match finals
            .iter_mut()
            .find(|f| (f.run, f.shard) == (a.run, a.shard))
        {
            Some(f) if f.attempt <= a.attempt => *f = a,
            Some(_) => {}
            None => finals.push(a),
        }
    }
    // Bazel's own count of the target's attempts (runs × shards × attempts) against the
    // results it streamed.
    // (A result from the cache comes as its last attempt alone.)
    let cached = t.attempts.iter().any(|a| a.cached);
    if let Some(n) = t
        .runs_counted
        .filter(|&n| n as usize > t.attempts.len() && !cached)
    {
        add_reason(
            run,
            format!(
                "{label}: Bazel counted {n} runs, its build events report {}",
                t.attempts.len()
            ),
        );
    }
    let mut unreported = 0;
    for last in finals {
        // A run or shard that passed only on a retry of the project's own policy (`flaky =
        // True`, `flaky_test_attempts`: Bazel's FLAKY, exit 0) passed, as for every runner
        // that retries: its last attempt is the counts, and the failed attempt before it is
        // listed in `flaky`, never silently green.
        let failed_before = t
            .attempts
            .iter()
            .filter(|a| (a.run, a.shard) == (last.run, last.shard) && a.attempt < last.attempt)
            .filter(|a| a.status != "PASSED")
            .max_by_key(|a| a.attempt);
        if let Some(failed) = failed_before.filter(|_| last.status == "PASSED") {
            let mut attempt = Run::new("bazel");
            shard_cases(&mut attempt, paths, names, label, failed, "FAILED");
            run.flaky.extend(attempt.failures);
        }
        // A shard's own status where the target's summary is green or red as a whole.
        let status = if matches!(status, "PASSED" | "FLAKY") {
            status
        } else {
            last.status.as_str()
        };
        unreported += shard_cases(run, paths, names, label, last, status);
    }
    let flaky_shown = run.flaky.iter().any(|f| of_target(&f.test, label));
    if status == "FLAKY" && !flaky_shown {
        // Bazel says it passed only on a retry, and the attempt that failed is not in the
        // stream (a cached result, which Bazel replays as its last attempt): listed all the
        // same, by its target.
        run.flaky.push(Failure {
            test: label.to_owned(),
            message: "it failed, then passed on a retry (Bazel's FLAKY)".to_owned(),
            kind: Some("flaky".to_owned()),
            ..Failure::default()
        });
    }
    unreported
}

/// The cases of one shard's last attempt; how many tests its framework announced and never
/// reported.
fn shard_cases(
    run: &mut Run,
    paths: &PathMap,
    names: &[String],
    label: &str,
    last: &Attempt,
    status: &str,
) -> u32 {
    // The log is read only where it is the evidence (a failure's why, a case list from the
    // console): a green target with a report never needs it, and every file opened after the
    // runner ends is wall time the agent waits for.
    let read_log = || {
        last.log
            .as_deref()
            .map(|p| unroot(&read_end(p), names))
            .unwrap_or_default()
    };
    let report = last
        .xml
        .as_deref()
        .filter(|p| p.is_file())
        .and_then(|p| std::fs::File::open(p).ok())
        .and_then(|f| junit::read_from(std::io::Read::take(f, FILE_BYTES)).ok());
    // Bazel's own report says only how the process exited (`exited with error code 139`).
    let (report, code) = match report {
        Some(r) if generated(&r, label) => (None, exit_code(&r)),
        other => (other, None),
    };
    let passed = matches!(status, "PASSED" | "FLAKY");
    if let Some(report) = report {
        from_report(run, paths, label, &report);
        if !passed && run_failures_of(run, label) == 0 {
            // The target failed with every case passing: its process failed after them.
            target_failure(run, paths, label, code, status, &read_log());
        }
        if let Some(d) = report.disagreement() {
            add_reason(run, format!("{label}: {d}"));
        }
        if !report.complete {
            // Its writer stopped mid-way: cases after the cut never reported.
            add_reason(run, format!("{label}: its test.xml ends early"));
        }
        return 0;
    }
    let log = read_log();
    let body = log_body(&log);
    let gtest = console::parse_gtest(body.iter().copied());
    if gtest.gtest {
        return from_console(run, paths, label, &gtest, code, status, &log);
    }
    if passed {
        run.passed += 1;
        run.outcomes.push(TestOutcome::passed(label, None));
    } else {
        target_failure(run, paths, label, code, status, &log);
    }
    0
}

/// A skipped case, kept by id so a selection can leave out those it did not ask for.
fn skipped(run: &mut Run, id: String) {
    run.skipped += 1;
    run.outcomes.push(TestOutcome {
        test: id,
        outcome: pith_model::Outcome::Skipped,
        duration: None,
    });
}

fn run_failures_of(run: &Run, label: &str) -> usize {
    run.failures
        .iter()
        .filter(|f| of_target(&f.test, label))
        .count()
}

/// Bazel wrote the file itself: one case named after the target's path, the log inside.
fn generated(r: &junit::Report, label: &str) -> bool {
    let cases: Vec<&junit::Case> = r.cases().collect();
    cases.is_empty() || cases.len() == 1 && cases[0].name == target_path(label)
}

/// A label's package path and name as Bazel names its output directories: `//a/b:t` is
/// `a/b/t`, `//:t` (the root package) is `t`, `//a/b` is `a/b/b`.
fn target_path(label: &str) -> String {
    let rest = label.split_once("//").map_or(label, |(_, p)| p);
    match rest.split_once(':') {
        Some(("", name)) => name.to_owned(),
        Some((pkg, name)) => format!("{pkg}/{name}"),
        None => {
            let name = rest.rsplit('/').next().unwrap_or(rest);
            format!("{rest}/{name}")
        }
    }
}

/// A test framework's own report: every case under `label#`.
fn from_report(run: &mut Run, paths: &PathMap, label: &str, report: &junit::Report) {
    for case in report.cases() {
        let case_id = if case.classname.is_empty() {
            case.name.clone()
        } else if case.classname.contains('.') {
            // JUnit: the class's full name, `#`, the method (the JVM adapters' address).
            format!("{}#{}", case.classname, case.name)
        } else {
            format!("{}.{}", case.classname, case.name)
        };
        let id = format!("{label}#{case_id}");
        run.test_output.extend(case.own_output(&id));
        match case.outcome {
            junit::Outcome::Passed => {
                run.passed += 1;
                run.outcomes
                    .push(TestOutcome::passed(&id, duration(case.time)));
            }
            junit::Outcome::Skipped => skipped(run, id),
            junit::Outcome::Failed | junit::Outcome::Errored => {
                run.failed += 1;
                let fault = case.fault.clone().unwrap_or_default();
                let text = if fault.text.trim().is_empty() {
                    fault.message.clone().unwrap_or_default()
                } else {
                    fault.text.clone()
                };
                let f = if failure::parse(&text).location.is_some() {
                    failure::failure(id, &[text], paths)
                } else {
                    generic_failure(id, paths, &fault, &text)
                };
                run.failures.push(f);
            }
        }
    }
}

/// A JUnit failure (or any other framework's): its message's first line, the type, the
/// frames its stack trace names.
fn generic_failure(id: String, paths: &PathMap, fault: &junit::Fault, text: &str) -> Failure {
    let message = fault
        .message
        .as_deref()
        .filter(|m| !m.trim().is_empty())
        .map_or_else(|| text::first_line(text), text::first_line);
    let frames = frames_in(paths, text, package(&id).unwrap_or(""));
    let mut f = Failure {
        test: id,
        message: paths.scrub(&message),
        kind: fault.type_name.clone().filter(|t| !t.is_empty()),
        frames,
        ..Failure::default()
    };
    paths.fill_code(&mut f.frames);
    crate::detail::fill(&mut f, paths, text);
    f
}

/// What a GoogleTest binary printed into its log (Bazel wrote the report: the binary crashed
/// or timed out before its own): its cases, the one it was in when it died.
fn from_console(
    run: &mut Run,
    paths: &PathMap,
    label: &str,
    g: &console::Console,
    code: Option<i32>,
    status: &str,
    log: &str,
) -> u32 {
    let id = |name: &str| format!("{label}#{name}");
    let mut failed_any = false;
    for (name, end) in &g.tests {
        match end {
            Some(console::ConsoleEnd::Ok) => {
                run.passed += 1;
                run.outcomes.push(TestOutcome::passed(id(name), None));
            }
            Some(console::ConsoleEnd::Skipped) => skipped(run, id(name)),
            Some(console::ConsoleEnd::Failed) => {
                let texts: Vec<String> = g
                    .failures
                    .iter()
                    .filter(|(t, _)| t == name)
                    .map(|(_, text)| text.clone())
                    .collect();
                run.failed += 1;
                run.failures.push(failure::failure(id(name), &texts, paths));
                failed_any = true;
            }
            None => {
                // The case it was in when its process ended.
                run.failed += 1;
                let mut f = ended_failure(paths, id(name), code, status, log);
                if status == "TIMEOUT" {
                    run.running.push(f.test.clone());
                } else if f.kind.as_deref().is_some_and(|k| k.starts_with("SIG")) {
                    run.status = Some(Status::Crashed);
                }
                f.frames.clear();
                run.failures.push(f);
                failed_any = true;
            }
        }
    }
    if !failed_any && !matches!(status, "PASSED" | "FLAKY") {
        target_failure(run, paths, label, code, status, log);
    }
    // gtest announces how many tests it will run: fewer ended means the process took the
    // rest along.
    let body = log_body(log);
    let announced = body.iter().find_map(|l| {
        let rest = l.strip_prefix("[==========] Running ")?;
        rest.split_whitespace().next()?.parse::<u32>().ok()
    });
    let unreported = announced.map_or(0, |n| n.saturating_sub(g.tests.len() as u32));
    if run.tail.is_none() && g.tests.iter().any(|(_, end)| end.is_none()) {
        // What the process printed last, without gtest's banners: the test it died in.
        run.tail = crate::googletest::output_tail(paths, body.into_iter());
    }
    unreported
}

/// The target itself failed (a shell or Python test, or a process that failed outside any
/// case): one failure named by its label.
fn target_failure(
    run: &mut Run,
    paths: &PathMap,
    label: &str,
    code: Option<i32>,
    status: &str,
    log: &str,
) {
    let f = ended_failure(paths, label.to_owned(), code, status, log);
    if f.kind.as_deref().is_some_and(|k| k.starts_with("SIG")) {
        run.status = Some(Status::Crashed);
    }
    run.failed += 1;
    run.failures.push(f);
}

/// How a test's process ended, from its status and its log: a timeout, a signal (an exit
/// code above 128), else the log's last telling line, with the frames the log names.
fn ended_failure(
    paths: &PathMap,
    test: String,
    code: Option<i32>,
    status: &str,
    log: &str,
) -> Failure {
    let body = log_body(log);
    let (message, kind) = if status == "TIMEOUT" {
        (
            "timed out (Bazel's test timeout)".to_owned(),
            Some("timeout".to_owned()),
        )
    } else if let Some(sig) = code
        .filter(|c| *c > 128 && *c < 160)
        .map(|c| crate::process::signal_name(c - 128))
    {
        (format!("crashed with {sig}"), Some(sig))
    } else {
        let told = body
            .iter()
            .rev()
            .map(|l| l.trim())
            .find(|l| {
                !l.is_empty() && !l.starts_with("[==========]") && !l.starts_with("[----------]")
            })
            .map(|l| paths.scrub(l));
        (
            told.unwrap_or_else(|| match code {
                Some(c) => format!("exited with code {c}"),
                None => "failed".to_owned(),
            }),
            None,
        )
    };
    let whole = body.join("\n");
    let frames = frames_in(paths, &whole, package(&test).unwrap_or(""));
    let mut f = Failure {
        test,
        message,
        kind,
        frames,
        phase: Phase::Call,
        ..Failure::default()
    };
    paths.fill_code(&mut f.frames);
    crate::detail::fill(&mut f, paths, &whole);
    f
}

/// The lines the test printed: its log without Bazel's header (`exec ${PAGER...`,
/// `Executing tests from //x:y`, the dashes) and timeout footer.
fn log_body(log: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = log.lines().collect();
    if let Some(i) = lines
        .iter()
        .position(|l| l.starts_with("Executing tests from "))
    {
        let skip = if lines.get(i + 1).is_some_and(|l| l.starts_with("-----")) {
            i + 2
        } else {
            i + 1
        };
        lines.drain(..skip);
    }
    // Bazel's wrapper, not the test: its banners, and the shell's report of the test process
    // it ran dying (`[1]   Segmentation fault  ( "${TEST_PATH}" "$@" 2>&1 ) 0<&0`), printed
    // or not as the shell sees the death; the answer's message already names the signal.
    lines.retain(|l| {
        !(l.starts_with("-- Test timed out at ")
            || l.starts_with("exec ${PAGER")
            || l.contains(r#""${TEST_PATH}" "$@""#))
    });
    lines
}

/// The exit code Bazel's own report gives (`<error message="exited with error code 139">`).
fn exit_code(r: &junit::Report) -> Option<i32> {
    r.cases().find_map(|c| {
        let m = c.fault.as_ref()?.message.as_deref()?;
        m.strip_prefix("exited with error code ")?
            .trim()
            .parse()
            .ok()
    })
}

/// `File "x.py", line 5` (Python), `x.sh: line 5:` (bash) and `at p.C.m(C.java:12)` (JVM)
/// locations in a text, outermost first, only those of files in the workspace. A JVM frame
/// names only its file: it is looked for where the class's package puts it, in the target's
/// package `pkg` (Bazel's own layout: `java/com/x/C.java` in package `java/com/x`) or below
/// it in Maven's layout.
fn frames_in(paths: &PathMap, text: &str, pkg: &str) -> Vec<Frame> {
    let mut frames: Vec<Frame> = Vec::new();
    let mut jvm: Vec<Frame> = Vec::new();
    // A frame's file relative to the root, a JVM candidate's relative to Bazel's workspace.
    let exists = |rel: &str| paths.root().join(rel).is_file();
    let in_workspace = |rel: &str| paths.base().join(rel).is_file();
    for line in text.lines() {
        let t = line.trim();
        if let Some((call, inner)) = t
            .strip_prefix("at ")
            .and_then(|r| r.split_once('('))
            .map(|(call, r)| (call, r.trim_end_matches(')')))
        {
            let Some((file, n)) = failure::file_line(inner) else {
                continue;
            };
            // `calc.CalcTest.divides`: the class's package is all but the last two parts.
            let parts: Vec<&str> = call.split('.').collect();
            let dirs = parts[..parts.len().saturating_sub(2)].join("/");
            let in_class_dir = if dirs.is_empty() {
                file.clone()
            } else {
                format!("{dirs}/{file}")
            };
            let pkg_dir = if pkg.is_empty() {
                String::new()
            } else {
                format!("{pkg}/")
            };
            let found = [
                format!("{pkg_dir}{file}"),
                format!("{pkg_dir}{in_class_dir}"),
                format!("{pkg_dir}src/test/java/{in_class_dir}"),
                format!("{pkg_dir}src/main/java/{in_class_dir}"),
                in_class_dir.clone(),
            ]
            .into_iter()
            .find(|c| in_workspace(c));
            if let Some(rel) = found {
                jvm.push(paths.frame(&rel, n, None));
            }
            continue;
        }
        let found = if let Some(rest) = t.strip_prefix("File \"") {
            rest.split_once("\", line ").and_then(|(file, n)| {
                let n = n.split(|c: char| !c.is_ascii_digit()).next()?;
                Some((file.to_owned(), n.parse::<u32>().ok()?))
            })
        } else if let Some((file, rest)) = t.split_once(": line ") {
            let n = rest
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap_or("");
            n.parse::<u32>().ok().map(|n| (file.to_owned(), n))
        } else {
            None
        };
        if let Some((file, n)) = found {
            let frame = paths.frame(&file, n, None);
            if frame.project && Path::new(&frame.file).is_relative() && exists(&frame.file) {
                frames.push(frame);
            }
        }
    }
    // A JVM stack is innermost first.
    frames.extend(jvm.into_iter().rev());
    frames
}

/// Requested ids only: a case asked for by `//t#case`, or every case of a target asked for
/// whole. What was asked and not reported is not found.
fn keep_requested(run: &mut Run, requested: &[String]) {
    let wanted = |id: &str| {
        requested
            .iter()
            .any(|r| r == id || (!r.contains('#') && selects(r, id)))
    };
    let before_failures = run.failures.len();
    run.failures.retain(|f| wanted(&f.test));
    let dropped_failures = before_failures - run.failures.len();
    let count = |run: &Run, o: pith_model::Outcome| {
        run.outcomes.iter().filter(|x| x.outcome == o).count() as u32
    };
    let (passed, skipped) = (
        count(run, pith_model::Outcome::Passed),
        count(run, pith_model::Outcome::Skipped),
    );
    run.outcomes.retain(|o| wanted(&o.test));
    run.passed = run
        .passed
        .saturating_sub(passed - count(run, pith_model::Outcome::Passed));
    run.skipped = run
        .skipped
        .saturating_sub(skipped - count(run, pith_model::Outcome::Skipped));
    run.failed = run.failed.saturating_sub(dropped_failures as u32);
    run.running
        .retain(|r| wanted(r) || requested.iter().any(|q| of_target(q, r)));
    let reported: Vec<&str> = run
        .outcomes
        .iter()
        .map(|o| o.test.as_str())
        .chain(run.failures.iter().map(|f| f.test.as_str()))
        .collect();
    run.not_found = requested
        .iter()
        .filter(|r| !reported.iter().any(|id| selects(r, id)))
        .cloned()
        .collect();
    if !run.running.is_empty() || run.status.is_some() {
        run.not_found
            .retain(|r| !run.running.iter().any(|x| r.starts_with(x.as_str())));
    }
}

/// Compiler errors from the failed actions' stderr (gcc, clang, javac alike), each once.
fn build_errors(stream: &Stream, paths: &PathMap) -> Vec<BuildError> {
    let mut out: Vec<BuildError> = Vec::new();
    for a in &stream.failed_actions {
        let text = [a.stderr.as_deref(), a.stdout.as_deref()]
            .into_iter()
            .flatten()
            .map(read_end)
            .collect::<Vec<_>>()
            .join("\n");
        for e in c_build::errors(&text, paths) {
            if !out.contains(&e) {
                out.push(e);
            }
        }
    }
    if out.is_empty() && !stream.failed_actions.is_empty() {
        // The stderr files are gone (a later build overwrote them): the console has the same
        // compiler lines.
        out = c_build::errors(&stream.console.join("\n"), paths);
    }
    out
}

/// Bazel's own `ERROR: /ws/pkg/BUILD:3:11: message` lines (loading and analysis failures).
fn bazel_errors(console: &[String], paths: &PathMap) -> Vec<BuildError> {
    let mut out: Vec<BuildError> = Vec::new();
    for line in console {
        let Some(rest) = line.strip_prefix("ERROR: ") else {
            continue;
        };
        let located = rest.split_once(": ").and_then(|(loc, msg)| {
            let mut parts = loc.rsplitn(3, ':');
            let (a, b, file) = (parts.next()?, parts.next()?, parts.next()?);
            let line: u32 = if file.contains('/') && a.parse::<u32>().is_ok() {
                b.parse().ok()?
            } else {
                return None;
            };
            Some((paths.relativize(file, None)?, line, msg))
        });
        let e = match located {
            Some((file, line, msg)) => BuildError {
                file: Some(file),
                line: Some(line),
                code: None,
                message: text::first_line(&paths.scrub(msg)),
            },
            None if rest.starts_with("Build did NOT complete")
                || rest.starts_with("Couldn't start the build") =>
            {
                continue
            }
            None => BuildError {
                message: text::first_line(&paths.scrub(rest)),
                ..BuildError::default()
            },
        };
        if !out.contains(&e) {
            out.push(e);
        }
    }
    out
}

fn add_reason(run: &mut Run, reason: String) {
    run.reason = Some(match run.reason.take() {
        Some(r) => format!("{r}; {reason}"),
        None => reason,
    });
}

fn duration(seconds: Option<f64>) -> Option<std::time::Duration> {
    seconds
        .filter(|s| *s >= 0.0 && s.is_finite())
        .map(std::time::Duration::from_secs_f64)
}

/// Bazel's status names as words.
fn words(status: &str) -> String {
    status.to_ascii_lowercase().replace('_', " ")
}

/// The names the workspace goes by under Bazel's trees: the execution root's last segment
/// (the workspace's name), and the unnamed workspace's `__main__` / `_main`.
fn workspace_names(stream: &Stream) -> Vec<String> {
    let mut names = vec!["__main__".to_owned(), "_main".to_owned()];
    if let Some(name) = stream
        .exec_root
        .as_deref()
        .and_then(|r| r.trim_end_matches('/').rsplit('/').next())
        .filter(|n| !n.is_empty())
    {
        names.insert(0, name.to_owned());
    }
    names
}

/// `text` with every path into a copy of the workspace Bazel made (`…/execroot/NAME/`,
/// `…/x.runfiles/NAME/`, a sandbox's execroot) cut back to workspace-relative.
pub(super) fn unroot(text: &str, names: &[String]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'outer: while !rest.is_empty() {
        // The earliest marker in what is left.
        let mut best: Option<(usize, usize)> = None;
        for name in names {
            for pat in [format!("/execroot/{name}/"), format!(".runfiles/{name}/")] {
                if let Some(i) = rest.find(&pat) {
                    if best.is_none_or(|(b, _)| i < b) {
                        best = Some((i, pat.len()));
                    }
                }
            }
        }
        let Some((at, len)) = best else {
            out.push_str(rest);
            break 'outer;
        };
        // The path token the marker is in starts after the last delimiter before it.
        let start = rest[..at]
            .rfind(|c: char| {
                c.is_whitespace() || matches!(c, '"' | '\'' | '(' | '=' | '[' | '<' | '>')
            })
            .map_or(0, |i| i + 1);
        if !rest[start..at].starts_with('/') {
            out.push_str(&rest[..at + len]);
            rest = &rest[at + len..];
            continue;
        }
        out.push_str(&rest[..start]);
        rest = &rest[at + len..];
        // Inside the execroot, the binaries' trees hold runfiles: cut through those too.
        if rest.starts_with("bazel-out/") {
            let token_end = rest
                .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ')' | ':'))
                .unwrap_or(rest.len());
            if let Some(name_at) = names.iter().find_map(|n| {
                let pat = format!(".runfiles/{n}/");
                rest[..token_end].find(&pat).map(|i| i + pat.len())
            }) {
                rest = &rest[name_at..];
            }
        }
    }
    out
}

/// A file's text, its last [`FILE_BYTES`] when longer; empty when unreadable.
fn read_end(path: &Path) -> String {
    use std::io::{Read, Seek, SeekFrom};
    // A regular file only: a path in the stream could name a device or a pipe.
    if !path.is_file() {
        return String::new();
    }
    let Ok(mut f) = std::fs::File::open(path) else {
        return String::new();
    };
    let len = f.metadata().map_or(0, |m| m.len());
    if len > FILE_BYTES {
        let _ = f.seek(SeekFrom::Start(len - FILE_BYTES));
    }
    let mut buf = Vec::new();
    let _ = f.take(FILE_BYTES).read_to_end(&mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::End;

    fn judged(bep: &str, end: End, requested: &[&str]) -> Run {
        let paths = PathMap::new(&std::env::temp_dir());
        let requested: Vec<String> = requested.iter().map(|s| s.to_string()).collect();
        super::super::judged_stream(bep.as_bytes(), end, &paths, &requested)
    }

    const PASSED_TARGET: &str = r#"{"id":{"targetConfigured":{"label":"//a:t"}},"configured":{"targetKind":"sh_test rule"}}
{"id":{"targetCompleted":{"label":"//a:t"}},"completed":{"success":true}}
{"id":{"testResult":{"label":"//a:t","run":1,"shard":1,"attempt":1}},"testResult":{"status":"PASSED","cachedLocally":true}}
{"id":{"testSummary":{"label":"//a:t"}},"testSummary":{"overallStatus":"PASSED"}}
"#;
    const FINISHED: &str = r#"{"id":{"buildFinished":{}},"finished":{"exitCode":{"name":"SUCCESS","code":0}}}
{"id":{"progress":{"opaqueCount":9}},"progress":{},"lastMessage":true}
"#;

    #[test]
    fn green_needs_every_test_target_a_result() {
        let run = judged(&format!("{PASSED_TARGET}{FINISHED}"), End::Exited(0), &[]);
        assert_eq!(run.status(), Status::TestsPassed);
        assert_eq!((run.passed, run.cached, run.remote), (1, 1, 0));

        let no_status = r#"{"id":{"targetConfigured":{"label":"//b:t"}},"configured":{"targetKind":"cc_test rule"}}
{"id":{"testResult":{"label":"//b:t","run":1,"shard":1,"attempt":1}},"testResult":{"status":"NO_STATUS"}}
"#;
        let run = judged(
            &format!("{PASSED_TARGET}{no_status}{FINISHED}"),
            End::Exited(0),
            &[],
        );
        assert_ne!(run.status(), Status::TestsPassed, "{run:?}");
        assert!(
            run.doubt().unwrap().contains("//b:t (no status)"),
            "{:?}",
            run.doubt()
        );

        let never = r#"{"id":{"targetConfigured":{"label":"//c:t"}},"configured":{"targetKind":"py_test rule","testSize":"SMALL"}}
"#;
        let run = judged(
            &format!("{PASSED_TARGET}{never}{FINISHED}"),
            End::Exited(0),
            &[],
        );
        assert_ne!(run.status(), Status::TestsPassed);
    }

    #[test]
    fn a_stream_cut_short_or_an_exit_it_contradicts_is_not_green() {
        let run = judged(PASSED_TARGET, End::Exited(0), &[]);
        assert_ne!(run.status(), Status::TestsPassed);
        assert!(run.doubt().unwrap().contains("before its last event"));

        let run = judged(&format!("{PASSED_TARGET}{FINISHED}"), End::Exited(3), &[]);
        assert_ne!(run.status(), Status::TestsPassed, "bazel's exit 3 is red");

        let interrupted = FINISHED.replace(
            r#""name":"SUCCESS","code":0"#,
            r#""name":"INTERRUPTED","code":8"#,
        );
        let run = judged(
            &format!("{PASSED_TARGET}{interrupted}"),
            End::Exited(0),
            &[],
        );
        assert!(
            run.doubt().unwrap().contains("INTERRUPTED (8)"),
            "{:?}",
            run.doubt()
        );
    }

    #[test]
    fn a_failed_build_without_a_compiler_message_says_bazels_error() {
        let bep = r#"{"id":{"progress":{}},"progress":{"stderr":"ERROR: /nowhere/pkg/BUILD:3:1: name 'cc_tset' is not defined\n"}}
{"id":{"buildFinished":{}},"finished":{"exitCode":{"name":"BUILD_FAILURE","code":1}}}
{"id":{"progress":{}},"progress":{},"lastMessage":true}
"#;
        let run = judged(bep, End::Exited(1), &[]);
        assert_eq!(run.status(), Status::BuildFailed);
        assert_eq!(run.build_errors.len(), 1);
        assert!(run.build_errors[0].message.contains("cc_tset"));
    }

    #[test]
    fn stopped_at_the_deadline_names_the_test_targets_still_running() {
        let bep = r#"{"id":{"targetConfigured":{"label":"//h:t"}},"configured":{"targetKind":"cc_test rule"}}
{"id":{"targetCompleted":{"label":"//h:t"}},"completed":{"success":true}}
"#;
        let run = judged(&format!("{PASSED_TARGET}{bep}"), End::TimedOut, &[]);
        assert_eq!(run.status(), Status::TimedOut);
        assert_eq!(run.running, vec!["//h:t".to_owned()]);
    }

    #[test]
    fn a_shard_without_its_result_is_not_green() {
        // (Not from the cache, which replays the last attempt alone.)
        let summary = PASSED_TARGET
            .replace(
                r#""overallStatus":"PASSED""#,
                r#""overallStatus":"PASSED","totalRunCount":2"#,
            )
            .replace(r#","cachedLocally":true"#, "");
        let run = judged(&format!("{summary}{FINISHED}"), End::Exited(0), &[]);
        assert_ne!(run.status(), Status::TestsPassed, "{run:?}");
        assert!(
            run.doubt().unwrap().contains("Bazel counted 2 runs"),
            "{:?}",
            run.doubt()
        );
    }

    #[test]
    fn a_junit_report_gives_its_cases_under_the_label() {
        let dir = tempfile::tempdir().unwrap();
        let xml = dir.path().join("test.xml");
        std::fs::write(
            &xml,
            r#"<?xml version="1.0"?>
<testsuites><testsuite name="calc.CalcTest" tests="2" failures="1" errors="0">
<testcase name="adds" classname="calc.CalcTest" time="0.01"/>
<testcase name="divides" classname="calc.CalcTest" time="0.02"><failure message="expected:&lt;2&gt; but was:&lt;3&gt;" type="java.lang.AssertionError">java.lang.AssertionError: expected:&lt;2&gt; but was:&lt;3&gt;
	at calc.CalcTest.divides(CalcTest.java:14)</failure></testcase>
</testsuite></testsuites>"#,
        )
        .unwrap();
        let bep = format!(
            r#"{{"id":{{"targetConfigured":{{"label":"//java:calc_test"}}}},"configured":{{"targetKind":"java_test rule"}}}}
{{"id":{{"testResult":{{"label":"//java:calc_test","run":1,"shard":1,"attempt":1}}}},"testResult":{{"status":"FAILED","testActionOutput":[{{"name":"test.xml","uri":"file://{}"}}]}}}}
{{"id":{{"buildFinished":{{}}}},"finished":{{"exitCode":{{"name":"TESTS_FAILED","code":3}}}}}}
{{"id":{{"progress":{{}}}},"progress":{{}},"lastMessage":true}}
"#,
            xml.display()
        );
        let root = std::env::temp_dir();
        let src = tempfile::tempdir_in(&root).unwrap();
        let pkg = src.path().strip_prefix(&root).unwrap().join("java");
        std::fs::create_dir_all(root.join(&pkg)).unwrap();
        std::fs::write(root.join(&pkg).join("CalcTest.java"), "x\n".repeat(20)).unwrap();
        let label = format!("//{}:calc_test", pkg.display());
        let bep = bep.replace("//java:calc_test", &label);
        let run = judged(&bep, End::Exited(3), &[]);
        assert_eq!((run.passed, run.failed), (1, 1), "{run:?}");
        let f = &run.failures[0];
        assert_eq!(f.test, format!("{label}#calc.CalcTest#divides"));
        assert_eq!(
            f.frames
                .iter()
                .map(|f| format!("{}:{}", f.file, f.line))
                .collect::<Vec<_>>(),
            [format!("{}/CalcTest.java:14", pkg.display())]
        );
        assert_eq!(f.message, "expected:<2> but was:<3>");
        assert_eq!(f.kind.as_deref(), Some("java.lang.AssertionError"));
        assert_eq!(run.outcomes[0].test, format!("{label}#calc.CalcTest#adds"));
        // A report cut off mid-way is never green, whatever its cases say.
        let full = std::fs::read_to_string(&xml).unwrap();
        std::fs::write(
            &xml,
            &full[..full.find("<testcase name=\"divides\"").unwrap()],
        )
        .unwrap();
        let run = judged(&bep, End::Exited(3), &[]);
        assert!(
            run.doubt().unwrap().contains("ends early"),
            "{:?}",
            run.doubt()
        );
        std::fs::write(&xml, full).unwrap();
        // Asked for one case, the rest of the report is left out.
        let run = judged(
            &bep,
            End::Exited(3),
            &[&format!("{label}#calc.CalcTest#adds")],
        );
        assert_eq!((run.passed, run.failed), (1, 0), "{run:?}");
    }

    #[test]
    fn a_remote_executor_is_said() {
        let remote = PASSED_TARGET.replace(
            r#""cachedLocally":true"#,
            r#""executionInfo":{"strategy":"remote"}"#,
        );
        let run = judged(&format!("{remote}{FINISHED}"), End::Exited(0), &[]);
        assert_eq!((run.cached, run.remote), (0, 1));
        assert_eq!(run.status(), Status::TestsPassed);
    }

    fn names() -> Vec<String> {
        vec!["green".to_owned(), "__main__".to_owned()]
    }

    #[test]
    fn paths_into_bazels_copies_become_workspace_relative() {
        let t = r#"  File "/root/.cache/bazel/_bazel_root/ab/execroot/green/bazel-out/k8-fastbuild/bin/py/calc_test.runfiles/green/py/calc_test.py", line 5, in test_x"#;
        assert_eq!(
            unroot(t, &names()),
            r#"  File "py/calc_test.py", line 5, in test_x"#
        );
        let t = "/root/.cache/bazel/_bazel_root/ab/sandbox/processwrapper-sandbox/3/execroot/green/src/calc.cc:3:36: error: x";
        assert_eq!(unroot(t, &names()), "src/calc.cc:3:36: error: x");
        let t = "see /x/y.runfiles/green/scripts/check.sh: line 4: boom and /x/execroot/green/a.c";
        assert_eq!(
            unroot(t, &names()),
            "see scripts/check.sh: line 4: boom and a.c"
        );
        assert_eq!(
            unroot("no/execroot/green/here", &names()),
            "no/execroot/green/here"
        );
        assert_eq!(unroot("", &names()), "");
    }

    #[test]
    fn target_paths_as_bazel_names_them() {
        assert_eq!(target_path("//a/b:t"), "a/b/t");
        assert_eq!(target_path("//:cctest"), "cctest");
        assert_eq!(target_path("//a/b"), "a/b/b");
        assert_eq!(target_path("@r//x:y"), "x/y");
    }

    #[test]
    fn the_log_body_drops_bazels_header() {
        let log = "exec ${PAGER:-/usr/bin/less} \"$0\" || exit 1\nExecuting tests from //t:x\n-----\nhello\n-- Test timed out at 2026 --\n";
        assert_eq!(log_body(log), vec!["hello"]);
        assert_eq!(log_body("plain"), vec!["plain"]);
    }

    #[test]
    fn frames_come_from_tracebacks_shells_and_stacks_inside_the_workspace() {
        let ws = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(ws.path().join("py")).unwrap();
        std::fs::write(ws.path().join("py/t.py"), "a\nb\nc\n").unwrap();
        std::fs::write(ws.path().join("check.sh"), "x\ny\n").unwrap();
        let paths = PathMap::new(ws.path());
        let text = "Traceback:\n  File \"py/t.py\", line 3, in f\n  File \"/usr/lib/python3.11/x.py\", line 9\ncheck.sh: line 2: false\n  at p.T.m(Nowhere.java:4)";
        let f = frames_in(&paths, text, "");
        assert_eq!(
            f.iter()
                .map(|f| format!("{}:{}", f.file, f.line))
                .collect::<Vec<_>>(),
            vec!["py/t.py:3", "check.sh:2"]
        );
    }

    #[test]
    fn bazels_own_errors_are_located_in_build_files() {
        let ws = tempfile::tempdir().unwrap();
        let paths = PathMap::new(ws.path());
        let console = vec![
            format!(
                "ERROR: {}/pkg/BUILD:5:8: no such target '//pkg:nope'",
                ws.path().display()
            ),
            "ERROR: Build did NOT complete successfully".to_owned(),
            "ERROR: Skipping '//x:y': no such package".to_owned(),
        ];
        let e = bazel_errors(&console, &paths);
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].file.as_deref(), Some("pkg/BUILD"));
        assert_eq!(e[0].line, Some(5));
        assert_eq!(e[0].message, "no such target '//pkg:nope'");
        assert!(e[1].file.is_none());
    }

    #[test]
    fn only_requested_ids_are_kept_the_rest_not_found() {
        let mut run = Run::new("bazel");
        run.passed = 2;
        run.failed = 1;
        run.outcomes = vec![
            TestOutcome::passed("//a:t#S.One", None),
            TestOutcome::passed("//b:t#S.Two", None),
        ];
        run.failures = vec![Failure {
            test: "//a:t#S.Bad".into(),
            ..Failure::default()
        }];
        keep_requested(
            &mut run,
            &["//a:t#S.Bad".into(), "//b:t".into(), "//c:t#Gone".into()],
        );
        assert_eq!(run.passed, 1);
        assert_eq!(run.failed, 1);
        assert_eq!(run.not_found, vec!["//c:t#Gone".to_owned()]);
    }

    #[test]
    fn the_wrappers_report_of_a_dying_test_is_not_the_tests_output() {
        let log = "exec ${PAGER:-/usr/bin/less} \"$0\" || exit 1\nExecuting tests from //tests:crash_test\n-----\n[ RUN      ] Crash.Segfaults\n[1]   Segmentation fault      ( \"${TEST_PATH}\" \"$@\" 2>&1 ) 0<&0\n";
        assert_eq!(log_body(log), ["[ RUN      ] Crash.Segfaults"]);
    }
}
