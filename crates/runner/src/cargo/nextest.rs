//! `cargo nextest run` with a tool config that adds a `pith` profile (inheriting the user's
//! default profile) writing a JUnit report into the scratch directory. The project is never
//! edited. The report is read in bounded memory ([`xmlcut`]); cargo's JSON messages on stdout
//! line by line.
//!
//! The report keeps passing tests' output too: a libtest test that reported no result before
//! its process exited 0 (`std::process::exit(0)` in a test) passed for nextest, yet what came
//! after the exit never ran, so it is a failure here, as the binary's death is under plain
//! `cargo test`.
//!
//! What nextest does at pith's deadline (observed with nextest 0.9.151): each test runs in its
//! own process group, so pith's SIGTERM reaches nextest (and cargo) but not the test; nextest
//! then sends SIGTERM to the running tests, waits the profile's `slow-timeout.grace-period`
//! (set to 1s here, under `process::run`'s grace) before SIGKILL, writes the JUnit report with
//! each killed test as a failure "process aborted with signal 15 (SIGTERM)" of type
//! "test abort", and exits 100. A test that aborts by itself gets the same shape with its own
//! signal (SIGABRT, SIGSEGV).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use pith_model::{Exit, ExitMeaning, Failure, Run, Status};

use super::command::TestId;
use super::profile::{self, PROFILE};
use super::{diag, libtest, xmlcut};
use crate::junit;
use crate::process::{Captured, End};
use crate::{text, verdict, Context, RunnerError};

/// nextest's exit codes (nextest-metadata 0.15's `NextestExitCode`; "unknown/unexpected
/// failures will always result in exit code 1"), plus clap's 2 for a command line it rejects.
mod exit {
    pub const OK: i32 = 0;
    pub const USAGE: i32 = 2;
    pub const NO_TESTS_RUN: i32 = 4;
    pub const REQUIRED_VERSION_NOT_MET: i32 = 92;
    pub const INVALID_FILTERSET: i32 = 94;
    pub const EXPERIMENTAL_FEATURE_NOT_ENABLED: i32 = 95;
    pub const SETUP_ERROR: i32 = 96;
    pub const TEST_RUN_FAILED: i32 = 100;
    pub const BUILD_FAILED: i32 = 101;
    pub const CARGO_METADATA_FAILED: i32 = 102;
    pub const TEST_LIST_CREATION_FAILED: i32 = 104;
    pub const SETUP_SCRIPT_FAILED: i32 = 105;
}

/// What a nextest exit code says about the run.
fn exit_of(code: i32) -> Exit {
    let meaning = match code {
        exit::OK => ExitMeaning::Passed,
        exit::NO_TESTS_RUN => ExitMeaning::NoTests,
        exit::TEST_RUN_FAILED
        | exit::BUILD_FAILED
        | exit::TEST_LIST_CREATION_FAILED
        | exit::SETUP_SCRIPT_FAILED
        | exit::CARGO_METADATA_FAILED => ExitMeaning::Failed,
        exit::USAGE
        | exit::INVALID_FILTERSET
        | exit::EXPERIMENTAL_FEATURE_NOT_ENABLED
        | exit::SETUP_ERROR
        | exit::REQUIRED_VERSION_NOT_MET => ExitMeaning::UsageError,
        _ => ExitMeaning::Other,
    };
    Exit::new(code, meaning)
}

const NEXTEST_HINT: &str = "update cargo-nextest: cargo install cargo-nextest --locked";

/// The run, the artifacts cargo built, and the `harness = false` binaries nextest found no
/// test in (it runs only what a binary lists; cargo runs such a binary whole).
pub(super) type Outcome = (Run, Vec<diag::Artifact>, Vec<String>);

pub(super) fn run(
    ctx: &Context<'_>,
    cargo: &Path,
    selection: Option<&[TestId]>,
) -> Result<Outcome, RunnerError> {
    let scratch = absolute(ctx.scratch);
    let junit_path = scratch.join("nextest-junit.xml");
    let config = scratch.join("nextest-pith.toml");
    let chosen = std::env::var("NEXTEST_PROFILE").ok();
    let text = profile::tool_config(ctx.dir, chosen.as_deref(), &junit_path);
    std::fs::write(&config, text)
        .map_err(|e| RunnerError::io(format!("writing {}", config.display()), e))?;

    let mut ids: Vec<TestId> = selection.map(<[TestId]>::to_vec).unwrap_or_default();
    let mut not_found: Vec<String> = Vec::new();
    let mut elapsed = std::time::Duration::ZERO;
    let mut printed = pith_model::gain::Printed::default();
    loop {
        let _ = std::fs::remove_file(&junit_path);
        let cmd = nextest_command(ctx, cargo, &config, selection.map(|_| ids.as_slice()));
        let mut msgs = diag::Messages::default();
        let cap = match super::command::spawn_lines(cmd, ctx, cargo, &mut |line: &[u8]| {
            let line = String::from_utf8_lossy(line);
            if !msgs.line(&line) {
                msgs.printed.line(&line);
            }
        })? {
            Ok(c) => c,
            Err(()) => {
                return Ok((
                    super::command::cargo_missing("nextest"),
                    Vec::new(),
                    Vec::new(),
                ))
            }
        };
        elapsed += cap.elapsed;
        let stderr = cap.stderr_str();

        // nextest refuses a filterset naming a binary id it does not know: those ids are not
        // found, and the rest run again (the build is fresh by then).
        // Likewise cargo for a package `-p` names that the workspace does not have.
        let refusal = selection
            .and_then(|_| refused(&cap, &stderr, &ids))
            .or_else(|| selection.and_then(|_| unknown_packages(&cap, &stderr, &ids)));
        if let Some((keep, gone)) = refusal {
            if !gone.is_empty() && std::time::Instant::now() < ctx.deadline {
                printed.append(cap.printed());
                not_found.extend(gone.into_iter().map(|id| id.full));
                ids = keep;
                if ids.is_empty() {
                    let mut run = Run::new("nextest");
                    run.not_found = not_found;
                    run.duration = elapsed;
                    return Ok((run, Vec::new(), Vec::new()));
                }
                continue;
            }
        }

        // A file with no JUnit element in it is no report: judged as a missing one.
        let report = xmlcut::read(&junit_path).and_then(|x: String| junit::read(&x).ok());
        let requested = selection.map(|_| ids.as_slice());
        let customs = super::detect::harness_free(&msgs.artifacts);
        let mut run = judge(
            ctx,
            &cap,
            &stderr,
            &msgs,
            report.as_ref(),
            requested,
            &customs,
        );
        not_found.append(&mut run.not_found);
        run.not_found = not_found;
        run.duration = elapsed;
        printed.append(std::mem::take(&mut msgs.printed));
        printed.append(cap.printed());
        run.printed = printed;
        let unseen = match &report {
            Some(r) if selection.is_none() => unseen(r, &run, customs),
            _ => Vec::new(),
        };
        return Ok((run, msgs.artifacts, unseen));
    }
}

/// `cargo nextest run` with pith's profile from the tool config at `config`, over the packages
/// `cargo nextest run` selects in the project's directory (no `--workspace`: the default
/// members, as cargo's); with `ids`, only those tests, even where the profile's default filter
/// leaves them out.
fn nextest_command(
    ctx: &Context<'_>,
    cargo: &Path,
    config: &Path,
    ids: Option<&[TestId]>,
) -> Command {
    let mut cmd = super::command::command(cargo, ctx);
    for (k, _) in std::env::vars_os() {
        if k.to_str()
            .is_some_and(|k| k.starts_with("NEXTEST_") && !is_policy(k))
        {
            cmd.env_remove(&k);
        }
    }
    cmd.args(["nextest", "run", "--no-fail-fast"])
        .arg("--tool-config-file")
        .arg(format!("pith:{}", config.display()))
        .args(["--profile", PROFILE, "--cargo-message-format", "json"])
        .args(["--color", "never"]);
    if let Some(ids) = ids {
        // Each id's package by name, as `cargo nextest run -p PKG` is typed: a member the
        // workspace's default members leave out runs when asked for by id, and nothing else
        // is built.
        let mut packages: Vec<String> = Vec::new();
        for id in ids {
            let (pkg, _) = id.target();
            if !packages.contains(&pkg) {
                packages.push(pkg);
            }
        }
        for pkg in &packages {
            cmd.arg("-p").arg(pkg);
        }
        // A test asked for by id runs even if the profile's default filter leaves it out.
        cmd.arg("--ignore-default-filter");
        for id in ids {
            cmd.arg("-E").arg(filterset(id));
        }
    }
    cmd
}

/// Whether a `NEXTEST_*` variable of the caller's is how the tests are run, kept: the retries
/// and the threads (which decide, for a flaky test or tests that contend, what passes) and the
/// experimental features switched on (setup scripts run before the tests). The rest reshape
/// nextest's console (status levels, output shown, progress), which pith does not read, or
/// would reshape what it does read or clash with its command line (`NEXTEST_NO_CAPTURE`,
/// `NEXTEST_FAIL_FAST`, `NEXTEST_MAX_FAIL`), or are what an outer nextest set for the test it
/// runs (`NEXTEST_RUN_ID`, `NEXTEST_EXECUTION_MODE`...): each is removed. `NEXTEST_PROFILE` is
/// read: its profile is carried into pith's ([`profile`]).
fn is_policy(name: &str) -> bool {
    matches!(name, "NEXTEST_RETRIES" | "NEXTEST_TEST_THREADS")
        || name.starts_with("NEXTEST_EXPERIMENTAL_")
}

/// When nextest refused the run because a filterset names a binary it does not know: the
/// ids it kept and those it rejected.
fn refused(cap: &Captured, stderr: &str, ids: &[TestId]) -> Option<(Vec<TestId>, Vec<TestId>)> {
    if cap.end != End::Exited(exit::INVALID_FILTERSET)
        || !stderr.contains("didn't match any binary")
    {
        return None;
    }
    let rejected = rejected_filtersets(stderr);
    Some(
        ids.iter()
            .cloned()
            .partition(|id| !rejected.contains(&filterset(id))),
    )
}

/// When cargo refused the build because `-p` named a package the workspace does not have
/// (``error: package ID specification `ghost` did not match any packages``): the ids it kept
/// and those of the unknown packages.
fn unknown_packages(
    cap: &Captured,
    stderr: &str,
    ids: &[TestId],
) -> Option<(Vec<TestId>, Vec<TestId>)> {
    if matches!(cap.end, End::Exited(0)) {
        return None;
    }
    let unknown: HashSet<String> = unknown_package_names(stderr);
    if unknown.is_empty() {
        return None;
    }
    Some(
        ids.iter()
            .cloned()
            .partition(|id| !unknown.contains(&id.target().0)),
    )
}

/// The packages cargo says no workspace member is.
fn unknown_package_names(stderr: &str) -> HashSet<String> {
    stderr
        .lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("error: package ID specification `")?;
            let (pkg, tail) = rest.split_once('`')?;
            tail.contains("did not match any packages")
                .then(|| pkg.to_owned())
        })
        .collect()
}

/// The harness-less binaries (`customs`) nextest listed no test in, when it got to run tests
/// at all: not when nothing ran, nor when the deadline came.
fn unseen(report: &junit::Report, run: &Run, customs: HashSet<String>) -> Vec<String> {
    if matches!(
        run.status,
        Some(
            Status::TimedOut
                | Status::BuildFailed
                | Status::CollectionFailed
                | Status::RunnerMissing
        )
    ) {
        return Vec::new();
    }
    let listed: HashSet<&str> = report.cases().map(binary_id).collect();
    let mut u: Vec<String> = customs
        .into_iter()
        .filter(|c| !listed.contains(c.as_str()))
        .collect();
    u.sort();
    u
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The expressions nextest echoes under "operator didn't match any binary IDs" (it checks
/// binary ids against the workspace's targets before building):
/// ` 1 │ binary_id(=ghost) & test(=tests::x)`.
fn rejected_filtersets(stderr: &str) -> HashSet<String> {
    stderr
        .lines()
        .filter_map(|l| l.split_once('│').map(|(_, e)| e.trim().to_owned()))
        .filter(|e| !e.is_empty())
        .collect()
}

/// `binary_id(=X) & test(=Y)`, both escaped for nextest's equality matcher.
fn filterset(id: &TestId) -> String {
    format!(
        "binary_id(={}) & test(={})",
        escape_matcher(&id.binary),
        escape_matcher(&id.test)
    )
}

fn escape_matcher(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ')' => out.push_str("\\)"),
            ',' => out.push_str("\\,"),
            '/' => out.push_str("\\/"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out
}

/// nextest's binary id: the `classname` of its test cases (the suite's name in older reports).
fn binary_id(case: &junit::Case) -> &str {
    if case.classname.is_empty() {
        &case.suite
    } else {
        &case.classname
    }
}

/// nextest's test id: binary id, a space, the test name.
fn case_id(case: &junit::Case) -> String {
    format!("{} {}", binary_id(case), case.name)
}

/// The failure type nextest gives a test its `slow-timeout` terminated.
const TIMEOUT: &str = "test timeout";

/// The signal a `test abort` failure names (`process aborted with signal 6 (SIGABRT)`).
fn abort_signal(f: &junit::Fault) -> Option<String> {
    let msg = f.message.as_deref().unwrap_or(&f.text);
    let aborted = f.type_name.as_deref().is_some_and(|k| k.contains("abort"))
        || msg.contains("aborted with signal");
    if !aborted {
        return None;
    }
    let sig = msg
        .split(|c: char| !(c.is_ascii_alphanumeric()))
        .find(|w| w.starts_with("SIG") && w.len() > 3)
        .map(str::to_owned);
    Some(sig.unwrap_or_else(|| "signal".to_owned()))
}

/// How many tests nextest set out to run: `Starting 3 tests across 1 binary (1 test skipped)`.
pub(crate) fn starting_count(stderr: &str) -> Option<u32> {
    stderr.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix("Starting ")?;
        let (n, rest) = rest.split_once(' ')?;
        rest.starts_with("test").then(|| n.parse().ok()).flatten()
    })
}

/// Tests nextest's own output names as killed by a termination signal:
/// `     SIGTERM [   5.842s] (2/2) hang tests::sleeps_forever`.
pub(crate) fn killed_in_stderr(stderr: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in stderr.lines() {
        let t = line.trim();
        let Some(rest) = ["SIGTERM", "SIGKILL", "SIGINT", "SIGHUP"]
            .iter()
            .find_map(|s| t.strip_prefix(s))
        else {
            continue;
        };
        let Some((_, rest)) = rest.split_once("] ") else {
            continue;
        };
        let rest = rest.trim_start();
        let rest = match rest.strip_prefix('(') {
            Some(r) => r.split_once(") ").map_or("", |(_, x)| x),
            None => rest,
        };
        if super::command::split_id(rest).is_some() && !out.iter().any(|o| o == rest) {
            out.push(rest.to_owned());
        }
    }
    out
}

fn is_termination(sig: &str) -> bool {
    matches!(sig, "SIGTERM" | "SIGKILL" | "SIGINT" | "SIGHUP")
}

/// A passing libtest test whose process ended before libtest reported it: its output began
/// (`running 1 test`) but libtest never gave the test its verdict and then its closing count.
/// Lines the test or its children printed like them do not count: only a closing line after
/// this test's own `ok`, adding up to what libtest declared.
fn stopped_early(case: &junit::Case) -> bool {
    let lines: Vec<&str> = case.stdout.lines().collect();
    let Some(declared) = lines.iter().find_map(|l| libtest::running_count(l)) else {
        return false;
    };
    let Some(at) = libtest::passed_at(&lines, &case.name) else {
        return true;
    };
    !lines[at..]
        .iter()
        .any(|l| libtest::totals_line(l).is_some_and(|t| t.ran() == declared))
}

/// Where the report's own counts disagree with the cases it lists.
fn totals_disagree(report: &junit::Report) -> Option<String> {
    if !report.complete {
        return Some("nextest's JUnit report is incomplete".to_owned());
    }
    for s in &report.suites {
        let failed = s
            .cases
            .iter()
            .filter(|c| matches!(c.outcome, junit::Outcome::Failed | junit::Outcome::Errored))
            .count() as u32;
        let listed = s.cases.len() as u32;
        if s.tests.is_some_and(|t| t != listed) {
            return Some(format!(
                "nextest's report counts {} tests in {}, lists {listed}",
                s.tests.unwrap_or(0),
                s.name
            ));
        }
        let declared = s.failures.unwrap_or(0) + s.errors.unwrap_or(0);
        if (s.failures.is_some() || s.errors.is_some()) && declared != failed {
            return Some(format!(
                "nextest's report counts {declared} failures in {}, lists {failed}",
                s.name
            ));
        }
    }
    None
}

/// What nextest's stderr, cargo's messages and the JUnit report say, as a [`Run`].
fn judge(
    ctx: &Context<'_>,
    cap: &Captured,
    stderr: &str,
    msgs: &diag::Messages,
    report: Option<&junit::Report>,
    requested: Option<&[TestId]>,
    customs: &HashSet<String>,
) -> Run {
    let mut run = Run::new("nextest");
    run.selected = starting_count(stderr);
    run.exit = cap.end.code().map(exit_of);
    let killed = matches!(cap.end, End::TimedOut | End::Cancelled);
    let pkg_dirs: HashMap<&str, &Path> = msgs
        .artifacts
        .iter()
        .map(|a| (a.binary_id.as_str(), a.package_dir.as_path()))
        .collect();

    let (seen, crash_tails) =
        tally_cases(&mut run, ctx, report, requested, customs, &pkg_dirs, killed);
    if killed && report.is_none() {
        run.running = killed_in_stderr(stderr);
    }
    if !killed {
        run.reason = report.and_then(totals_disagree);
    }

    let errors = super::judge::build_errors(ctx, &msgs.errors);
    let build_failed = !errors.is_empty() || msgs.build_success == Some(false);
    run.build_errors = errors;
    let tail = || super::judge::tail_of(ctx, stderr);

    if killed {
        verdict::stopped(&mut run, None, tail());
    } else if build_failed || cap.end == End::Exited(exit::BUILD_FAILED) {
        run.status = Some(Status::BuildFailed);
        if run.build_errors.is_empty() {
            run.tail = tail();
        }
    } else if exit_status(&mut run, cap.end, report.is_some(), requested, &tail) {
        return run;
    }
    if !crash_tails.is_empty() && !killed {
        run.status = Some(
            run.status
                .map_or(Status::Crashed, |s| s.max(Status::Crashed)),
        );
        run.tail = super::judge::tail_of(ctx, &crash_tails.join("\n"));
    }
    if run.reason.is_some() && run.tail.is_none() {
        run.tail = tail();
    }
    if let Some(req) = requested {
        if !killed && !build_failed {
            run.not_found = req
                .iter()
                .filter(|id| !seen.contains(&id.full))
                .map(|id| id.full.clone())
                .collect();
        }
    }
    run
}

/// Counts and failures from the report's cases (those requested, with a selection): a test
/// that passed on a retry passed (listed in `flaky` with its failed attempt), a test whose process exited 0 before libtest reported it fails, a test killed
/// by pith's own signal at the deadline is running. Also the ids seen and the output of tests
/// that died of a signal. Kept whole (84 lines): one match over a case's outcome, each arm
/// one rule, read best side by side.
fn tally_cases(
    run: &mut Run,
    ctx: &Context<'_>,
    report: Option<&junit::Report>,
    requested: Option<&[TestId]>,
    customs: &HashSet<String>,
    pkg_dirs: &HashMap<&str, &Path>,
    killed: bool,
) -> (HashSet<String>, Vec<String>) {
    let mut seen: HashSet<String> = HashSet::new();
    let mut crash_tails: Vec<String> = Vec::new();
    for case in report.iter().flat_map(|r| r.cases()) {
        let id = case_id(case);
        // With a selection, the report also lists ignored tests that were not asked for.
        if requested.is_some_and(|req| !req.iter().any(|r| r.full == id)) {
            continue;
        }
        seen.insert(id.clone());
        run.test_output.extend(case.own_output(&id));
        let pkg_dir = pkg_dirs.get(binary_id(case)).copied();
        match case.outcome {
            junit::Outcome::Skipped => run.skipped += 1,
            junit::Outcome::Passed if case.flaky() => {
                // Passed on a retry of the project's own `retries`: green, listed with its
                // failed attempt.
                run.passed += 1;
                let retry = case
                    .retries
                    .iter()
                    .find(|r| r.element.is_flaky())
                    .cloned()
                    .unwrap_or_default();
                let f = output_failure(ctx, id, &retry, &retry.stderr, &retry.stdout, pkg_dir);
                run.flaky.push(f);
            }
            junit::Outcome::Passed if !customs.contains(binary_id(case)) && stopped_early(case) => {
                run.failed += 1;
                run.failures.push(Failure {
                    test: id,
                    message: "test process exited 0 before libtest reported the test (process::exit in a test?)"
                        .to_owned(),
                    kind: Some("exit".to_owned()),
                    ..Failure::default()
                });
            }
            junit::Outcome::Passed => {
                run.passed += 1;
                run.outcomes.push(pith_model::TestOutcome::passed(id, None));
            }
            junit::Outcome::Failed | junit::Outcome::Errored => {
                let fault = case.fault.clone().unwrap_or_default();
                match abort_signal(&fault) {
                    Some(sig) if killed && is_termination(&sig) => run.running.push(id),
                    Some(sig) => {
                        run.failed += 1;
                        let message = fault
                            .message
                            .as_deref()
                            .map(text::first_line)
                            .filter(|m| !m.is_empty())
                            .unwrap_or_else(|| format!("aborted: {sig}"));
                        run.failures.push(Failure {
                            test: id,
                            message: ctx.paths.scrub(&message),
                            kind: Some(sig),
                            ..Failure::default()
                        });
                        crash_tails.push(format!("{}\n{}\n{}", case.stdout, case.stderr, message));
                    }
                    None => {
                        run.failed += 1;
                        let mut f =
                            output_failure(ctx, id, &fault, &case.stderr, &case.stdout, pkg_dir);
                        if fault.type_name.as_deref() == Some(TIMEOUT) && f.kind.is_none() {
                            // The project's own `slow-timeout` (`terminate-after`) ended it: its
                            // output, cut short, says nothing of why.
                            f.message = "timed out: the nextest profile's slow-timeout \
                                         (terminate-after) ended it"
                                .to_owned();
                            f.kind = Some("timeout".to_owned());
                        }
                        run.failures.push(f);
                    }
                }
            }
        }
    }
    (seen, crash_tails)
}

/// What nextest's exit code says when the run was neither stopped nor a build failure:
/// the statuses its documented codes mean and the tail that says why. `true` when the
/// filterset could not be applied, which is the whole answer.
fn exit_status(
    run: &mut Run,
    end: End,
    has_report: bool,
    requested: Option<&[TestId]>,
    tail: &dyn Fn() -> Option<String>,
) -> bool {
    match end {
        End::Exited(exit::OK | exit::NO_TESTS_RUN) => {}
        End::Exited(exit::TEST_RUN_FAILED) if has_report => {}
        End::Exited(exit::TEST_RUN_FAILED) => {
            // Failed, but the report is missing: say so rather than guess.
            run.status = Some(Status::TestsFailed);
            run.tail = tail();
        }
        End::Exited(exit::INVALID_FILTERSET) if requested.is_some() => {
            // The filterset could not be applied: nothing requested was run.
            run.not_found = requested
                .unwrap_or_default()
                .iter()
                .map(|id| id.full.clone())
                .collect();
            run.tail = tail();
            return true;
        }
        End::Exited(exit::REQUIRED_VERSION_NOT_MET) => {
            run.status = Some(Status::RunnerMissing);
            run.hint = Some(NEXTEST_HINT.to_owned());
            run.tail = tail();
        }
        End::Exited(exit::TEST_LIST_CREATION_FAILED) => {
            // A test binary could not list its tests (one without libtest's harness that
            // does not answer `--list`, or that failed doing so): none of them ran.
            run.status = Some(Status::CollectionFailed);
            run.tail = tail();
        }
        End::Exited(exit::CARGO_METADATA_FAILED | exit::SETUP_SCRIPT_FAILED) => {
            // The project could not be set up to run (a bad manifest, a failing setup
            // script): no test ran, the output says why.
            run.status = Some(Status::BuildFailed);
            run.tail = tail();
        }
        End::Signaled(_) => verdict::crashed(run, None, tail()),
        _ => {
            // nextest itself could not do its job (a configuration it rejects, an internal
            // error): never green, and its own words say why. `Run::status` judges the
            // exit against the records.
            run.tail = tail();
        }
    }
    false
}

/// A failed test from a JUnit fault: the panic in its stderr (else in the fault's text, else
/// stdout), or the fault's message.
fn output_failure(
    ctx: &Context<'_>,
    id: String,
    fault: &junit::Fault,
    stderr: &str,
    stdout: &str,
    pkg_dir: Option<&Path>,
) -> Failure {
    let all = format!("{stderr}\n{}\n{stdout}", fault.text);
    let fallback = fault.message.as_deref().or(Some(fault.text.as_str()));
    super::judge::failure(ctx, id, &all, pkg_dir, fallback)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// nextest 0.9.151, `single` fixture (backtrace shortened).
    const SINGLE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="nextest-run" tests="4" skipped="1" failures="1" errors="0" uuid="f23db813-4a77-4f21-9566-1358e71a81f0" timestamp="2026-11-29T22:45:59.570+00:00" time="0.211">
    <testsuite name="single" tests="4" skipped="1" errors="0" failures="1">
        <testcase name="tests::adds" classname="single" timestamp="2026-11-29T22:45:59.570+00:00" time="0.011"/>
        <testcase name="tests::slow" classname="single" time="0.000">
            <skipped message="Skipped: test does not match the run-ignored option"/>
        </testcase>
        <testcase name="tests::adds_negative" classname="single" timestamp="2026-11-29T22:45:59.570+00:00" time="0.022"/>
        <testcase name="tests::off_by_one" classname="single" timestamp="2026-11-29T22:45:59.581+00:00" time="0.198">
            <failure message="thread &apos;tests::off_by_one&apos; (18914) panicked at src/lib.rs:11:5" type="test failure with exit code 101">thread &apos;tests::off_by_one&apos; (18914) panicked at src/lib.rs:11:5:
assertion `left == right` failed
  left: 4
 right: 5
stack backtrace:
   3: core::panicking::assert_failed::&lt;i32, i32&gt;
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs:394:5
   4: single::check_sum
             at ./src/lib.rs:11:5
note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.</failure>
            <system-out>
running 1 test
test tests::off_by_one ... FAILED

test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 3 filtered out; finished in 0.18s

</system-out>
            <system-err>
thread &apos;tests::off_by_one&apos; (18914) panicked at src/lib.rs:11:5:
assertion `left == right` failed
  left: 4
 right: 5
stack backtrace:
   3: core::panicking::assert_failed::&lt;i32, i32&gt;
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs:394:5
</system-err>
        </testcase>
    </testsuite>
</testsuites>"#;

    /// nextest 0.9.151: a test that called `std::process::abort()`.
    const ABORT: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="nextest-run" tests="2" skipped="0" failures="1" errors="0" uuid="5e541c10-088c-4ff7-9bae-43099a5e4868" timestamp="2026-11-29T22:46:03.890+00:00" time="0.043">
    <testsuite name="crash" tests="2" skipped="0" errors="0" failures="1">
        <testcase name="tests::fine" classname="crash" timestamp="2026-11-29T22:46:03.891+00:00" time="0.036"/>
        <testcase name="tests::aborts" classname="crash" timestamp="2026-11-29T22:46:03.891+00:00" time="0.038">
            <failure message="process aborted with signal 6 (SIGABRT)" type="test abort">process aborted with signal 6 (SIGABRT)</failure>
            <system-out>
running 1 test
</system-out>
            <system-err></system-err>
        </testcase>
    </testsuite>
</testsuites>"#;

    /// A retried test (nextest's documented shape): flaky, then one that failed every try.
    const RETRIES: &str = r#"<testsuites><testsuite name="b::api">
<testcase name="flaky_one" classname="b::api"><flakyFailure message="first try" type="test failure"><stackTrace>boom</stackTrace><system-err>thread 'flaky_one' panicked at crates/b/tests/api.rs:3:5:
first try failed
</system-err></flakyFailure></testcase>
<testcase name="always" classname="b::api"><failure message="m" type="test failure">last</failure><rerunFailure message="r" type="test failure"><system-out>retry out</system-out></rerunFailure><system-out>final out</system-out><system-err>final err</system-err></testcase>
</testsuite></testsuites>"#;

    #[test]
    fn nextest_reports_read_through_the_shared_reader() {
        let r = junit::read(SINGLE).unwrap();
        assert!(r.complete);
        let cases: Vec<&junit::Case> = r.cases().collect();
        let ids: Vec<String> = cases.iter().map(|c| case_id(c)).collect();
        assert_eq!(
            ids,
            [
                "single tests::adds",
                "single tests::slow",
                "single tests::adds_negative",
                "single tests::off_by_one"
            ]
        );
        assert_eq!(cases[1].outcome, junit::Outcome::Skipped);
        let c = cases[3];
        assert_eq!(c.outcome, junit::Outcome::Failed);
        let f = c.fault.as_ref().unwrap();
        assert_eq!(
            f.message.as_deref(),
            Some("thread 'tests::off_by_one' (18914) panicked at src/lib.rs:11:5")
        );
        assert_eq!(abort_signal(f), None);
        assert!(f.text.contains("assert_failed::<i32, i32>"));
        assert!(c
            .stderr
            .contains("thread 'tests::off_by_one' (18914) panicked at src/lib.rs:11:5:\n"));
        assert!(c.stdout.contains("running 1 test"));
        assert!(!c.stdout.contains("panicked"));

        let r = junit::read(ABORT).unwrap();
        let cases: Vec<&junit::Case> = r.cases().collect();
        assert_eq!(cases.len(), 2);
        let f = cases[1].fault.as_ref().unwrap();
        assert_eq!(abort_signal(f).as_deref(), Some("SIGABRT"));

        let r = junit::read(RETRIES).unwrap();
        let cases: Vec<&junit::Case> = r.cases().collect();
        let flaky = cases[0];
        assert_eq!(flaky.outcome, junit::Outcome::Passed);
        assert!(flaky.flaky());
        assert_eq!(flaky.retries[0].text, "boom");
        assert!(flaky.retries[0].stderr.contains("first try failed"));
        assert_eq!(flaky.stderr, "");
        let always = cases[1];
        assert_eq!(always.outcome, junit::Outcome::Failed);
        assert!(!always.flaky());
        assert_eq!(always.retries[0].stdout, "retry out");
        assert_eq!(always.stdout, "final out");
        assert_eq!(always.fault.as_ref().unwrap().text, "last");
    }

    #[test]
    fn starting_line_gives_the_selection() {
        let err =
            "   Compiling x\n    Starting 3 tests across 1 binary (1 test skipped)\n  PASS x\n";
        assert_eq!(starting_count(err), Some(3));
        assert_eq!(
            starting_count("    Starting 1 test across 2 binaries"),
            Some(1)
        );
        assert_eq!(starting_count("Starting nothing"), None);
    }

    #[test]
    fn filtersets_are_escaped() {
        let id = TestId::parse("p::bin/cli tests::a").unwrap();
        assert_eq!(filterset(&id), r"binary_id(=p::bin\/cli) & test(=tests::a)");
        assert_eq!(escape_matcher("a,b)c\\"), r"a\,b\)c\\");
    }

    #[test]
    fn rejected_expressions_from_stderr() {
        let err = "  error: operator didn't match any binary IDs\n   \u{256d}\u{2500}\u{2500}\n 1 \u{2502} binary_id(=ghost) & test(=tests::x)\n   \u{b7}           \u{2500}\u{252c}\n   \u{2570}\u{2500}\u{2500}\n\nerror: failed to parse filterset\n";
        let r = rejected_filtersets(err);
        assert!(r.contains("binary_id(=ghost) & test(=tests::x)"));
        assert!(!r.contains("binary_id(=single) & test(=tests::adds)"));
    }

    #[test]
    fn abort_signals() {
        let f = junit::Fault {
            message: Some("process aborted with signal 6 (SIGABRT)".into()),
            type_name: Some("test abort".into()),
            ..Default::default()
        };
        assert_eq!(abort_signal(&f).as_deref(), Some("SIGABRT"));
        let f = junit::Fault {
            message: Some("thread 'x' panicked at src/lib.rs:1:1".into()),
            type_name: Some("test failure with exit code 101".into()),
            ..Default::default()
        };
        assert_eq!(abort_signal(&f), None);
    }

    #[test]
    fn killed_tests_from_stderr() {
        let err = "        PASS [   0.010s] (1/2) hang tests::quick\n  Cancelling due to signal: 1 test still running\n     SIGTERM [   5.842s] (2/2) hang tests::sleeps_forever\n  stdout ───\n     SIGTERM [   5.842s] (2/2) hang tests::sleeps_forever\n     SIGTERM [   1.000s] b::api x\n";
        assert_eq!(
            killed_in_stderr(err),
            vec![
                "hang tests::sleeps_forever".to_owned(),
                "b::api x".to_owned()
            ]
        );
    }

    #[test]
    fn packages_cargo_does_not_know_are_read_from_its_error() {
        let err = "error: package ID specification `ghost` did not match any packages\n\
                   error: command `cargo test --no-run` exited with code 101\n";
        let names = unknown_package_names(err);
        assert_eq!(names.len(), 1);
        assert!(names.contains("ghost"));
        assert!(unknown_package_names("error: could not compile `a`\n").is_empty());
    }

    #[test]
    fn the_callers_test_policy_stays_and_reporting_goes() {
        for kept in [
            "NEXTEST_RETRIES",
            "NEXTEST_TEST_THREADS",
            "NEXTEST_EXPERIMENTAL_SETUP_SCRIPTS",
        ] {
            assert!(is_policy(kept), "{kept}");
        }
        for gone in [
            "NEXTEST_PROFILE",
            "NEXTEST_NO_CAPTURE",
            "NEXTEST_FAIL_FAST",
            "NEXTEST_MAX_FAIL",
            "NEXTEST_STATUS_LEVEL",
            "NEXTEST_HIDE_PROGRESS_BAR",
            "NEXTEST_RUN_ID",
            "NEXTEST_EXECUTION_MODE",
        ] {
            assert!(!is_policy(gone), "{gone}");
        }
    }
}
