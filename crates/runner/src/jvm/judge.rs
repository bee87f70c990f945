//! What a finished Maven/Gradle process, its reports and the listener's events say, as a
//! [`Run`]: the common endings, a forked JVM that died, a build that failed before the tests,
//! the tool's own totals against the reports. Surefire forwards what a test prints to the
//! console, so the tool's own account is read where a test's output never is: Maven's
//! levelled stdout lines, its failure report after `BUILD FAILURE`, Gradle's first-column
//! lines and its stderr after `FAILURE:` ([`failure_report`], `summary`).

use std::collections::HashSet;

use pith_model::{ExitMeaning, Failure, Phase, Run, Status};

use crate::junit;
use crate::paths::PathMap;
use crate::process::{Captured, End};
use crate::verdict::{self, Ending, ExitCodes};
use crate::{text, Context};

use super::command::{is_class_name, TestId};
use super::parse::{case_id, event_name, Ids, Tally, Written, FORK_CRASH};
use super::stack::Sources;
use super::{build, listener, summary, Tool};

/// What a finished tool printed, stdout then stderr.
pub(super) fn output_of(cap: &Captured) -> String {
    verdict::combined(&[&cap.stdout_str(), &cap.stderr_str()])
}

/// The tool's own account of a failed build, where what a test prints never is: Maven's
/// stdout from its last `BUILD FAILURE` on (Surefire forwards a test's stdout to Maven's
/// before it, its stderr to Maven's stderr), Gradle's stderr from `FAILURE:` on (it shows a
/// test's streams, when asked to, on stdout). Empty for a build that did not fail.
pub(super) fn failure_report(tool: Tool, cap: &Captured) -> String {
    if matches!(cap.end, End::Exited(0)) {
        return String::new();
    }
    let (text, mark) = match tool {
        Tool::Maven => (cap.stdout_str(), "BUILD FAILURE"),
        Tool::Gradle => (cap.stderr_str(), "FAILURE: "),
    };
    let at = text
        .lines()
        .map(|l| text::strip_ansi(l).into_owned())
        .enumerate()
        .filter(|(_, l)| match tool {
            Tool::Maven => l.trim_end() == "[INFO] BUILD FAILURE",
            Tool::Gradle => l.starts_with(mark),
        })
        .map(|(i, _)| i)
        .last();
    match at {
        Some(i) => text.lines().skip(i).collect::<Vec<_>>().join("\n"),
        // A tool that failed without its usual account (killed mid-build, an old version):
        // all it printed.
        None => output_of(cap),
    }
}

/// Console lines Maven and Gradle print that explain nothing about the project: their own
/// stack frames, help links, the fork's command line.
pub(super) fn noise(line: &str) -> bool {
    let l = line.trim_start();
    // Maven's progress and advice (`[INFO] Building x`, `[WARNING] ...`) say nothing of a
    // failure; its `[ERROR]` lines do.
    if l.starts_with("[INFO]") || l.starts_with("[WARNING]") || l.starts_with("[DEBUG]") {
        return true;
    }
    let l = l.strip_prefix("[ERROR]").map_or(l, str::trim_start);
    l.is_empty()
        || l.starts_with("at ")
        || (l.starts_with("...") && l.ends_with("more"))
        || l.starts_with("Command was ")
        || l.starts_with("-> [Help")
        || l.starts_with("[Help ")
        || l.starts_with("To see the full stack trace")
        || l.starts_with("Re-run Maven using")
        || l.starts_with("For more information about the errors")
        || l.starts_with("See dump files")
        || l.starts_with("See ") && l.ends_with("for the individual test results.")
        || l.starts_with("* Try:")
        || l.starts_with("> Run with --")
        || l.starts_with("> Get more help")
        || l.starts_with("Get more help at")
        || l.starts_with("After correcting the problems, you can resume the build")
        || l.starts_with("mvn <args> -rf ")
        // Surefire's exception repeats the line above it; its advice misleads after System.exit.
        || l.starts_with("org.apache.maven.surefire.booter.SurefireBooterForkException")
        || l.starts_with("Error occurred in starting fork")
        // Debian's `gradle` script probes the JVM with `java -version` before every build.
        || l.starts_with("openjdk version \"")
        || l.starts_with("OpenJDK Runtime Environment (build")
        || l.starts_with("OpenJDK 64-Bit Server VM (build")
}

pub(super) fn output_tail(paths: &PathMap, output: &str) -> Option<String> {
    // Maven prints a fork's crash twice, once per reporting layer: each line once is enough.
    let mut seen: HashSet<&str> = HashSet::new();
    verdict::tail_of_lines(paths, output.lines(), |l| {
        !noise(&text::strip_ansi(l)) && seen.insert(l.trim())
    })
}

/// The forked test JVM ended without finishing (Surefire's wording).
pub(super) fn fork_crashed(output: &str) -> bool {
    FORK_CRASH.iter().any(|p| output.contains(p))
        || output.contains("Process 'Gradle Test Executor")
            && output.contains("finished with non-zero exit value")
}

/// `Process Exit Code: 3` (Surefire) or `finished with non-zero exit value 3` (Gradle).
pub(super) fn fork_exit_code(output: &str) -> Option<i32> {
    output.lines().find_map(|l| {
        let l = l.trim();
        l.split_once("Process Exit Code: ")
            .or_else(|| l.split_once("finished with non-zero exit value "))
            .and_then(|(_, n)| n.trim().parse().ok())
    })
}

/// The classes Surefire lists under `Crashed tests:`.
pub(super) fn crashed_classes(output: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut lines = output.lines().map(|l| {
        let l = text::strip_ansi(l).into_owned();
        let t = l.trim_start();
        t.strip_prefix("[ERROR]")
            .map_or(t, str::trim_start)
            .to_owned()
    });
    while let Some(l) = lines.next() {
        if l == "Crashed tests:" {
            for c in lines.by_ref() {
                let name = c.trim();
                if !is_class_name(name) {
                    break;
                }
                if !out.iter().any(|o| o == name) {
                    out.push(name.to_owned());
                }
            }
        }
    }
    out
}

/// Whether the build tool says the build (not the tests) failed before tests could run.
pub(super) fn compile_failed(output: &str) -> bool {
    output.contains("COMPILATION ERROR")
        || output.contains("Compilation failure")
        || output.contains("Compilation failed")
        || output.contains("Compilation error")
        || output.lines().any(|l| {
            l.split_once("Execution failed for task '")
                .is_some_and(|(_, task)| task.contains(":compile"))
        })
}

pub(super) fn java_missing(output: &str) -> bool {
    output.contains("JAVA_HOME environment variable is not defined correctly")
        || output.contains("JAVA_HOME is not set and no 'java' command")
        || output.contains("JAVA_HOME is set to an invalid directory")
        || output.contains("java: not found")
}

/// Maven and Gradle exit 0 when the build succeeded and 1 when it failed; nothing else is
/// documented. A build that succeeded over failing tests is the project's own setting (see
/// [`MASKED`]), never pith's.
pub(super) const EXIT_CODES: &ExitCodes = &[(0, ExitMeaning::Passed), (1, ExitMeaning::Failed)];

/// What makes Maven and Gradle succeed over failing tests: Surefire's `testFailureIgnore`
/// (its user property `maven.test.failure.ignore`, in a pom, `.mvn/maven.config` or on a
/// profile) and a `Test` task's `ignoreFailures`. The failures stand; the answer says the
/// project's own command would exit 0 over them.
pub(super) const MASKED: [(Tool, &str); 2] = [
    (Tool::Maven, "maven.test.failure.ignore"),
    (Tool::Gradle, "ignoreFailures"),
];

/// What a finished Maven/Gradle process, its reports and the listener's events say.
pub(super) fn judge(
    ctx: &Context<'_>,
    tool: Tool,
    cap: &Captured,
    output: &str,
    reports: &[Written],
    events: &[listener::Event],
    requested: Option<&[TestId]>,
) -> Run {
    let mut j = Judge::read(ctx, tool, output, reports, events, requested);
    j.run.exit = verdict::exit(cap.end, |c| verdict::meaning(EXIT_CODES, c));
    // A failed compilation and a crashed fork fail the build, and the tool says so in its
    // account of the failure: not in what a test printed that reads like it.
    let report = failure_report(tool, cap);
    let build_failed = compile_failed(&report);
    if build_failed {
        j.run.build_errors = build::parse(output, ctx.paths);
    }
    match Ending::of(cap.end) {
        Ending::Stopped => {
            let (running, tail) = (std::mem::take(&mut j.running), j.tail());
            verdict::stopped(&mut j.run, Some(running), tail);
        }
        Ending::Killed(signal) => {
            let why = verdict::killed_by(tool.name(), &signal);
            let running = std::mem::take(&mut j.running);
            crash_failures(&mut j.run, ctx, j.ids, running, &[], &why, Some(signal));
            let tail = j.tail();
            verdict::crashed(&mut j.run, None, tail);
        }
        Ending::Exited(_) if fork_crashed(&report) => {
            let running = std::mem::take(&mut j.running);
            fork_crash(&mut j.run, ctx, j.ids, running, &report, output);
        }
        Ending::Exited(_) if build_failed => {
            j.run.status = Some(Status::BuildFailed);
            if j.run.build_errors.is_empty() {
                j.run.tail = j.tail();
            }
            // Nothing ran that was asked for: the ids are not missing, the build is.
            j.unmatched.clear();
        }
        Ending::Exited(code) => {
            // Maven logs its own lines on stdout, and a test's stderr goes to its stderr.
            let log = match tool {
                Tool::Maven => cap.stdout_str(),
                Tool::Gradle => output.to_owned(),
            };
            j.exited(code, reports.is_empty() && events.is_empty(), &log)
        }
    }
    j.finish()
}

/// One Maven/Gradle run being judged: the run as the reports and events tally it, and what
/// else they say.
struct Judge<'a, 'c> {
    ctx: &'a Context<'c>,
    tool: Tool,
    /// What the tool printed, stdout then stderr.
    output: &'a str,
    ids: Ids,
    run: Run,
    /// Every case the reports and events account for: the tool's own totals count them all.
    seen: summary::Totals,
    /// Where a report's own totals disagree with its cases.
    reason: Option<String>,
    /// The wanted tests the listener saw start and not finish.
    running: Vec<String>,
    /// The requested ids nothing answered.
    unmatched: Vec<String>,
    /// The traces of classes that failed to load, paths relative.
    load_tail: String,
}

impl<'a, 'c> Judge<'a, 'c> {
    /// The reports, then the listener's events for the classes no report accounts for, and
    /// the reports that could not be read, tallied into a run.
    fn read(
        ctx: &'a Context<'c>,
        tool: Tool,
        output: &'a str,
        reports: &[Written],
        events: &[listener::Event],
        requested: Option<&[TestId]>,
    ) -> Self {
        let mut run = Run::new(tool.name());
        let ids = match tool {
            Tool::Maven => Ids::Surefire,
            Tool::Gradle => Ids::Verbatim,
        };
        let mut t = Tally::new(&mut run, ctx.paths, ids, requested);
        let Read {
            reported,
            unreadable,
            mut seen,
            reason,
        } = read_reports(&mut t, reports);
        // Tests whose class wrote no report: the listener saw them (and they count among what
        // the tool ran).
        for e in events.iter().filter(|e| !reported.contains(&e.class)) {
            t.event(e);
            if let Some((status, _)) = &e.finished {
                seen.run += 1;
                seen.failed += u64::from(status != "SUCCESSFUL" && status != "ABORTED");
            }
        }
        let running: Vec<String> = events
            .iter()
            .filter(|e| e.finished.is_none())
            .filter(|e| {
                let name = event_name(ids, &e.name);
                t.wanted(&e.class, &name)
            })
            .map(|e| case_id(ids, &e.class, &event_name(ids, &e.name)))
            .collect();
        for (w, why) in &unreadable {
            unreadable_failure(&mut t, ctx, w, why);
        }
        let unmatched = t.unmatched();
        let load_tail = crate::tails::tail(&ctx.paths.scrub(&t.load_traces.join("\n")));
        Judge {
            ctx,
            tool,
            output,
            ids,
            run,
            seen,
            reason,
            running,
            unmatched,
            load_tail,
        }
    }

    fn tail(&self) -> Option<String> {
        output_tail(self.ctx.paths, self.output)
    }

    /// The tool exited by itself, neither a fork crash nor a compile error: a build that
    /// failed before any test (`nothing_ran`), or after them, or the tests' own verdict, and
    /// the tool's totals against the reports.
    fn exited(&mut self, code: i32, nothing_ran: bool, log: &str) {
        let output = self.output;
        let tests_failed = self.run.failed > 0
            || output.contains("There are test failures")
            || output.contains("There were failing tests")
            || output.contains("There were test failures");
        let no_match = output.contains("No tests found for given includes");
        if code != 0 && !tests_failed && !no_match && nothing_ran {
            // Not the tests: a dependency that does not resolve, a broken build file.
            self.run.status = Some(Status::BuildFailed);
            self.run.tail = self.tail();
            self.unmatched.clear();
        } else if code != 0 && self.run.failed == 0 && self.run.failures.is_empty() {
            // Tests ran and none failed, yet the build failed after them (a coverage
            // check, a plugin bound to the test phase): the exit says not green.
            self.run.tail = self.tail();
        } else if self.run.collection_errors() > 0 {
            self.run.tail = if self.load_tail.is_empty() {
                self.tail()
            } else {
                Some(self.load_tail.clone())
            };
        }
        // The tool's own count of what it ran and failed must match the reports.
        let said = match self.tool {
            Tool::Maven => summary::surefire(log),
            Tool::Gradle => summary::gradle(log),
        };
        if self.reason.is_none() {
            self.reason =
                said.and_then(|said| summary::disagreement(self.tool.name(), said, self.seen));
        }
        if self.tool == Tool::Gradle && code == 0 && !output.contains("There were failing tests") {
            passed_on_retry(&mut self.run);
        }
        // The build succeeded over failing tests: the project hides them from its exit.
        if code == 0 && (self.run.failed > 0 || !self.run.failures.is_empty()) {
            self.run.masked = MASKED
                .iter()
                .find(|(t, _)| *t == self.tool)
                .map(|(_, why)| (*why).to_owned());
        }
        // The project's tests were never found: not "no tests", a load failure, which the
        // build's own success does not hide (no setting of the project's masks it: the
        // launcher only logged it), and which the record says whole (no tail).
        if nothing_ran {
            if let Some(f) = engine_failed(self.ctx, self.tool, output) {
                self.run.failures.push(f);
            }
        }
    }

    /// The run with its reason, and the requested ids nothing answered as not found.
    fn finish(mut self) -> Run {
        if self.reason.is_some() {
            self.run.reason = self.reason.take();
            if self.run.tail.is_none() {
                self.run.tail = self.tail();
            }
        }
        // A test that was running when the run ended was found, whatever became of it.
        let run = &self.run;
        let not_found = self
            .unmatched
            .into_iter()
            .filter(|id| !run.running.contains(id) && !run.failures.iter().any(|f| &f.test == id))
            .collect();
        Run {
            not_found,
            ..self.run
        }
    }
}

/// Gradle writes each execution of a retried test as a testcase of its own (the test-retry
/// plugin, without `mergeReruns`, which writes Surefire's `<flakyFailure>` instead): in a build
/// that succeeded without Gradle's word for ignored failures, a test that failed and also
/// passed passed on a retry. It counts once, passed, with its first failed execution in
/// `flaky`.
fn passed_on_retry(run: &mut Run) {
    let passed: HashSet<String> = run
        .outcomes
        .iter()
        .filter(|o| o.outcome == pith_model::Outcome::Passed)
        .map(|o| o.test.clone())
        .collect();
    let (retried, kept): (Vec<Failure>, Vec<Failure>) = std::mem::take(&mut run.failures)
        .into_iter()
        .partition(|f| f.phase == Phase::Call && passed.contains(&f.test));
    run.failures = kept;
    run.failed = run.failed.saturating_sub(retried.len() as u32);
    for f in retried {
        if !run.flaky.iter().any(|o| o.test == f.test) {
            run.flaky.push(f);
        }
    }
}

/// What the reports say, read into the tally.
struct Read<'w> {
    /// The classes and suites the reports account for.
    reported: HashSet<String>,
    /// Reports that could not be read, or end early, and why.
    unreadable: Vec<(&'w Written, String)>,
    /// Every case the reports hold, whatever was asked for: the tool's own totals count them all.
    seen: summary::Totals,
    /// Where a report's own totals disagree with its cases.
    reason: Option<String>,
}

fn read_reports<'w>(t: &mut Tally<'_, '_>, reports: &'w [Written]) -> Read<'w> {
    let mut reported: HashSet<String> = HashSet::new();
    let mut unreadable: Vec<(&Written, String)> = Vec::new();
    let mut seen = summary::Totals::default();
    let mut reason: Option<String> = None;
    for w in reports {
        match &w.parsed {
            Ok(report) => {
                for s in &report.suites {
                    t.suite(s, Some(&w.module));
                    for c in &s.cases {
                        reported.insert(c.classname.clone());
                    }
                    reported.insert(s.name.clone());
                    // Executions, as Gradle's console line counts merged reruns (Surefire's
                    // counts each test once, never more).
                    seen.run += s.cases.iter().map(junit::Case::executions).sum::<u64>();
                    seen.failed += s
                        .cases
                        .iter()
                        .map(junit::Case::failed_executions)
                        .sum::<u64>()
                        + s.faults.len() as u64;
                }
                if !report.complete {
                    unreadable.push((w, "the report ends early".to_owned()));
                }
                if reason.is_none() {
                    reason = report.disagreement();
                }
            }
            Err(e) => unreadable.push((w, e.to_string())),
        }
    }
    Read {
        reported,
        unreadable,
        seen,
        reason,
    }
}

/// A report that could not be read is a collection failure of its class (named by its file
/// `TEST-<class>.xml`), else of the file.
fn unreadable_failure(t: &mut Tally<'_, '_>, ctx: &Context<'_>, w: &Written, why: &str) {
    let class = w
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .and_then(|n| {
            n.strip_prefix("TEST-")
                .and_then(|s| s.strip_suffix(".xml"))
                .map(str::to_owned)
        })
        .unwrap_or_default();
    let module = Some(w.module.as_path());
    let test = if is_class_name(&class) {
        t.class_id(&class, module)
    } else {
        ctx.paths
            .relativize(&w.file.to_string_lossy(), None)
            .unwrap_or_else(|| class.clone())
    };
    t.run.failures.push(Failure {
        test,
        message: text::first_line(&format!("its test report could not be read: {why}")),
        phase: Phase::Collect,
        ..Failure::default()
    });
}

/// A JUnit Platform engine that could not discover the project's tests: the launcher logs it
/// (`WARNING: TestEngine with ID 'junit-jupiter' failed to discover tests`, then the
/// exception) and runs nothing, and the build succeeds with `Tests run: 0`. Surefire 2.22's
/// provider brings the 1.3 launcher, which JUnit Jupiter 5.12 and newer cannot discover with
/// ("OutputDirectoryCreator not available; probably due to unaligned versions of the
/// junit-platform-engine and junit-platform-launcher jars"). A collection failure of the build
/// file, with the engine and the exception's first line.
fn engine_failed(ctx: &Context<'_>, tool: Tool, output: &str) -> Option<Failure> {
    let (engine, kind, said) = engine_failure(output)?;
    let build_file = match tool {
        Tool::Maven => pith_model::ecosystem::MAVEN_BUILD_FILES,
        Tool::Gradle => pith_model::ecosystem::GRADLE_BUILD_FILES,
    }
    .iter()
    .map(|f| ctx.dir.join(f))
    .find(|p| p.is_file())
    .unwrap_or_else(|| ctx.dir.to_path_buf());
    let test = ctx
        .paths
        .relativize(&build_file.to_string_lossy(), None)
        .unwrap_or_else(|| tool.name().to_owned());
    let what = if kind.is_empty() {
        said
    } else {
        format!("{kind}: {said}")
    };
    Some(Failure {
        test,
        message: text::first_line(&format!(
            "JUnit's {engine} engine failed to discover tests: {what}"
        )),
        kind: (!kind.is_empty()).then_some(kind),
        phase: Phase::Collect,
        ..Failure::default()
    })
}

/// The engine that failed to discover tests, the simple name of the exception it logged (when
/// the next line names one) and that line's message.
fn engine_failure(output: &str) -> Option<(String, String, String)> {
    let mut lines = output
        .lines()
        .map(|l| text::strip_ansi(l).trim().to_owned());
    let engine = lines.by_ref().find_map(|l| {
        let rest = l.split_once("TestEngine with ID '")?.1;
        let (id, tail) = rest.split_once('\'')?;
        tail.starts_with(" failed to discover tests")
            .then(|| id.to_owned())
    })?;
    let cause = lines.find(|l| !l.is_empty()).unwrap_or_default();
    Some(match cause.split_once(": ") {
        Some((class, msg)) if is_class_name(class) => (
            engine,
            class.rsplit('.').next().unwrap_or(class).to_owned(),
            msg.to_owned(),
        ),
        _ => (engine, String::new(), cause),
    })
}

/// The forked test JVM ended during a test (`System.exit`, a crash): the run crashed, and the
/// tests it was running (else the classes Surefire names) fail.
/// `report` is the tool's account of the failure (where the crash is read); `output` all it
/// printed (the tail: the test's last words before the JVM died are there).
fn fork_crash(
    run: &mut Run,
    ctx: &Context<'_>,
    ids: Ids,
    running: Vec<String>,
    report: &str,
    output: &str,
) {
    let why = match fork_exit_code(report) {
        Some(code) => format!(
            "the test JVM exited with code {code} during this test (System.exit or a crash)"
        ),
        None => "the test JVM ended during this test (System.exit or a crash)".to_owned(),
    };
    let classes = if running.is_empty() {
        crashed_classes(report)
    } else {
        Vec::new()
    };
    crash_failures(
        run,
        ctx,
        ids,
        running,
        &classes,
        &why,
        Some("JVM exit".to_owned()),
    );
    verdict::crashed(run, None, output_tail(ctx.paths, output));
}

/// Each test that was running when the JVM died becomes a failure; lacking the listener's
/// events, each class Surefire says crashed does.
pub(super) fn crash_failures(
    run: &mut Run,
    ctx: &Context<'_>,
    _ids: Ids,
    running: Vec<String>,
    classes: &[String],
    why: &str,
    kind: Option<String>,
) {
    let mut sources = Sources::new(ctx.paths);
    let named: Vec<String> = if running.is_empty() {
        classes
            .iter()
            .map(|c| {
                let simple = c.rsplit('.').next().unwrap_or(c);
                ["java", "kt", "groovy", "scala"]
                    .iter()
                    .find_map(|ext| sources.find(c, &format!("{simple}.{ext}"), None))
                    .unwrap_or_else(|| c.clone())
            })
            .collect()
    } else {
        running.clone()
    };
    let how = verdict::Stopped {
        message: &text::first_line(why),
        kind: kind.as_deref(),
        frames: &[],
    };
    verdict::fail_running(run, &named, &how);
    run.running = named;
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::jvm::class_of_path;

    #[test]
    fn crash_output_names_classes_and_code() {
        let out = "[ERROR] The forked VM terminated without properly saying goodbye. VM crash or System.exit called?\n[ERROR] Command was /bin/sh -c cd '/ws' && java -jar x.jar\n[ERROR] Process Exit Code: 3\n[ERROR] Crashed tests:\n[ERROR] demo.ExitTest\n[ERROR] org.apache.maven.surefire.booter.SurefireBooterForkException: The forked VM terminated\n[ERROR] Crashed tests:\n[ERROR] demo.ExitTest\n[ERROR] \tat org.apache.maven.plugin.surefire.booterclient.ForkStarter.fork(ForkStarter.java:643)\n";
        assert!(fork_crashed(out));
        assert_eq!(fork_exit_code(out), Some(3));
        assert_eq!(crashed_classes(out), ["demo.ExitTest"]);
        let tail = output_tail(&PathMap::new(Path::new("/ws")), out).unwrap();
        assert!(!tail.contains("ForkStarter"), "{tail}");
        assert!(!tail.contains("Command was"), "{tail}");
        assert!(tail.contains("Process Exit Code: 3"), "{tail}");
    }

    #[test]
    fn debian_gradle_jvm_probe_is_not_in_tails() {
        // Debian's Gradle 4.4.1 script, a build script that does not compile.
        let out = "openjdk version \"17.0.15\" 2025-04-15\nOpenJDK Runtime Environment (build 17.0.15+6-Debian-1deb12u1)\nOpenJDK 64-Bit Server VM (build 17.0.15+6-Debian-1deb12u1, mixed mode, sharing)\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\nA problem occurred evaluating root project 'x'.\n";
        let tail = output_tail(&PathMap::new(Path::new("/ws")), out).unwrap();
        assert!(
            !tail.contains("openjdk") && !tail.contains("OpenJDK"),
            "{tail}"
        );
        assert!(tail.contains("A problem occurred evaluating"), "{tail}");
    }

    #[test]
    fn an_engine_that_could_not_discover_is_named_with_its_exception() {
        // Surefire 2.22.2 with JUnit Jupiter 5.14: what the forked JVM logs on Maven's stderr.
        let out = "[INFO] Tests run: 0, Failures: 0, Errors: 0, Skipped: 0\nDec 06, 2026 2:55:36 PM org.junit.platform.launcher.core.DefaultLauncher handleThrowable\nWARNING: TestEngine with ID 'junit-jupiter' failed to discover tests\norg.junit.platform.commons.JUnitException: OutputDirectoryCreator not available; probably due to unaligned versions of the junit-platform-engine and junit-platform-launcher jars on the classpath/module path.\n\tat org.junit.jupiter.engine.JupiterTestEngine.discover(JupiterTestEngine.java:68)\n";
        let (engine, kind, said) = engine_failure(out).unwrap();
        assert_eq!(
            (engine.as_str(), kind.as_str()),
            ("junit-jupiter", "JUnitException")
        );
        assert!(
            said.starts_with("OutputDirectoryCreator not available"),
            "{said}"
        );
        assert_eq!(engine_failure("[INFO] Tests run: 0\nBUILD SUCCESS\n"), None);
        let bare =
            engine_failure("WARNING: TestEngine with ID 'spek' failed to discover tests\nboom\n")
                .unwrap();
        assert_eq!(bare, ("spek".to_owned(), String::new(), "boom".to_owned()));
    }

    #[test]
    fn compile_failures_are_told_from_test_failures() {
        assert!(compile_failed("[ERROR] COMPILATION ERROR : \n"));
        assert!(compile_failed(
            "* What went wrong:\nExecution failed for task ':app:compileTestJava'.\n"
        ));
        assert!(!compile_failed(
            "> Task :compileJava\n* What went wrong:\nExecution failed for task ':test'.\n"
        ));
        assert!(java_missing(
            "Error: JAVA_HOME is not set and no 'java' command could be found in your PATH."
        ));
    }

    proptest::proptest! {
        #[test]
        fn id_and_output_helpers_never_panic(s in "(?s).{0,300}") {
            let _ = TestId::parse(&s).map(|t| (t.method_base().map(str::to_owned), t.wants("a.B", &s)));
            let _ = class_of_path(&s);
            let _ = crashed_classes(&s);
            let _ = fork_exit_code(&s);
            let _ = engine_failure(&s);
            let _ = output_tail(&PathMap::new(Path::new("/ws")), &s);
        }
    }
}
