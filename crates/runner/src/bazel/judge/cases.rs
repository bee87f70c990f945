//! A test target's cases, into the run: of each run and shard its last attempt, read from the
//! framework's own `test.xml`, else (where Bazel wrote the report itself) from what a
//! GoogleTest binary printed into its log, else the target as one test; a retry that passed is
//! flaky, never silently green. Per target, below the walk over the targets and Bazel's exit
//! (the judge's door), which only adds up what each target says.

use pith_model::{Failure, Run, Status, TestOutcome};

use super::super::bep::{Attempt, Target};
use super::super::command::of_target;
use super::add_reason;
use super::failure::{ended_failure, generic_failure, target_failure};
use super::files::{log_body, read_end, unroot, FILE_BYTES};
use crate::googletest::{console, failure};
use crate::{junit, PathMap};

/// The cases of one test target that ran (or came from a cache), into the run: of each run
/// and shard, its last attempt.
pub(super) fn target_cases(
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

fn duration(seconds: Option<f64>) -> Option<std::time::Duration> {
    seconds
        .filter(|s| *s >= 0.0 && s.is_finite())
        .map(std::time::Duration::from_secs_f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_paths_as_bazel_names_them() {
        assert_eq!(target_path("//a/b:t"), "a/b/t");
        assert_eq!(target_path("//:cctest"), "cctest");
        assert_eq!(target_path("//a/b"), "a/b/b");
        assert_eq!(target_path("@r//x:y"), "x/y");
    }
}
