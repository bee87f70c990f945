//! The verdict corpus of `pith test --report`: each report under
//! tests/fixtures/verdicts/report/<case>/ read by the real `pith` binary, asserting the verdict
//! (status, exit code, the fields that prove it), and the files `--report` must refuse at
//! once, without blocking or reading without end: a FIFO, `/dev/zero`, a directory, a socket,
//! a file over the size limit. Those are pith failing to do its job: exit 2, one line on
//! stderr, nothing on stdout. The false greens this slice fixed are marked.

use crate::common;

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use common::{answer_of, fixture};

/// `pith test --root WS --report FILE...`.
fn report_run(ws: &Path, files: &[&Path]) -> Output {
    common::bare()
        .arg("test")
        .arg("--root")
        .arg(ws)
        .arg("--report")
        .args(files)
        .current_dir(ws)
        .output()
        .expect("run pith")
}

/// The answer to the report of `case`.
fn answer(case: &str, file: &str) -> common::Answer {
    let ws = fixture(&format!("verdicts/report/{case}"));
    let out = report_run(ws.path(), &[&ws.path().join(file)]);
    answer_of(out, ws.path())
}

/// `--report` refused `file`: exit 2, nothing on stdout, one line on stderr that says why
/// (containing `why`), within a second.
fn assert_refused(file: &Path, why: &str) {
    let ws = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let out = report_run(ws.path(), &[file]);
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "took {:?}",
        start.elapsed()
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("pith: ") && stderr.contains(why),
        "{stderr}"
    );
}

// ---- JUnit XML: the report's own counts and suite-level faults ----

/// Fixed (was TestsPassed): the suite counts an error no test case shows.
#[test]
fn a_suite_that_counts_an_error_its_cases_do_not_show_is_not_green() {
    let a = answer("junit_suite_errors", "report.xml");
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!(a.json["passed"], 2, "{}", a.line);
    assert_eq!(
        a.json["reason"],
        "suite demo.DbTest counts 1 failed or errored tests, its test cases show 0",
        "{}",
        a.line
    );
}

/// Fixed (was TestsPassed): the root `<testsuites>` counts more tests and a failure.
#[test]
fn root_totals_above_the_cases_are_not_green() {
    let a = answer("junit_root_counts", "report.xml");
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!(
        a.json["reason"], "the report counts 1 failed or errored tests, its test cases show 0",
        "{}",
        a.line
    );
}

/// Fixed (was TestsPassed): a suite-level `<error>` (a class's setup failed) is a failure
/// named by its class.
#[test]
fn a_suite_level_error_is_a_failure_of_its_class() {
    let a = answer("junit_suite_error_element", "report.xml");
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "demo.DbTest", "{}", a.line);
    assert_eq!(
        f["message"], "IllegalStateException: no database",
        "{}",
        a.line
    );
    assert_eq!(f["phase"], "setup", "{}", a.line);
    assert!(
        a.json.get("reason").is_none(),
        "the counts agree: {}",
        a.line
    );
}

/// Fixed (was TestsPassed): Surefire's fork crash in the suite's error output.
#[test]
fn a_fork_crash_in_the_suite_output_is_a_failure() {
    let a = answer("junit_fork_crash", "report.xml");
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "demo.ExitTest", "{}", a.line);
    assert!(
        f["message"].as_str().is_some_and(
            |m| m.starts_with("The forked VM terminated without properly saying goodbye")
        ),
        "{}",
        a.line
    );
}

/// Already right: entities are never expanded; the report reads as the little it is.
#[test]
fn an_entity_bomb_reads_small_and_fast() {
    let start = Instant::now();
    let a = answer("junit_billion_laughs", "report.xml");
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    assert_eq!(a.failures()[0]["test"], "demo.LolTest#laughs", "{}", a.line);
    assert!(a.line.len() < 400, "{}", a.line);
}

/// Already right: a report cut off before its end is never green.
#[test]
fn a_truncated_report_is_crashed() {
    let a = answer("junit_truncated", "report.xml");
    assert_eq!((a.status(), a.code), ("Crashed", 1), "{}", a.line);
    assert!(
        a.json["tail"]
            .as_str()
            .is_some_and(|t| t.contains("ends early")),
        "{}",
        a.line
    );
}

#[test]
fn reports_whose_counts_agree_are_green() {
    let a = answer("junit_green", "report.xml");
    assert_eq!(
        (a.status(), a.code, &a.json["passed"]),
        ("TestsPassed", 0, &2.into()),
        "{}",
        a.line
    );
    let a = answer("trx_green", "report.trx");
    assert_eq!(
        (a.status(), a.code, &a.json["passed"]),
        ("TestsPassed", 0, &2.into()),
        "{}",
        a.line
    );
}

// ---- TRX: the summary, counters and run infos ----

/// Fixed (was TestsPassed): the summary says Failed, no result failed.
#[test]
fn a_trx_whose_summary_failed_is_not_green() {
    let a = answer("trx_outcome_failed", "report.trx");
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!(
        a.json["reason"], "the TRX says the run Failed though no test failed",
        "{}",
        a.line
    );
}

/// Fixed (was TestsPassed): the counters count a failure no result shows.
#[test]
fn a_trx_whose_counters_count_a_failure_is_not_green() {
    let a = answer("trx_counters", "report.trx");
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert_eq!(
        a.json["reason"], "the TRX counts 1 failed tests, its results show 0",
        "{}",
        a.line
    );
}

/// Fixed (was TestsPassed): an error run info (an adapter that could not load a test
/// assembly) is not green.
#[test]
fn a_trx_with_an_error_run_info_is_not_green() {
    let a = answer("trx_run_info_error", "report.trx");
    assert_eq!((a.status(), a.code), ("RunnerFailed", 1), "{}", a.line);
    assert!(
        a.json["reason"].as_str().is_some_and(|r| r.starts_with(
            "the TRX reports an error: An exception occurred while invoking executor"
        )),
        "{}",
        a.line
    );
    assert!(
        a.json["tail"]
            .as_str()
            .is_some_and(|t| t.contains("Calc.Fixtures")),
        "{}",
        a.line
    );
}

// ---- Files --report must refuse at once ----

/// Fixed (blocked forever): a FIFO with no writer.
#[test]
fn a_fifo_is_refused_at_once() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("report.xml");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    assert_refused(&fifo, "not a regular file (a FIFO)");
}

/// Fixed (read until memory ran out): a device that never ends.
#[test]
fn dev_zero_is_refused() {
    assert_refused(
        Path::new("/dev/zero"),
        "not a regular file (a character device)",
    );
}

#[test]
fn a_directory_and_a_socket_are_refused() {
    let d = tempfile::tempdir().unwrap();
    assert_refused(d.path(), "not a regular file (a directory)");
    let sock = d.path().join("report.sock");
    let _l = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    assert_refused(&sock, "not a regular file (a socket)");
}

/// A file over the limit is refused before any of it is read (a sparse file: no disk used).
#[test]
fn a_report_over_the_size_limit_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let big = d.path().join("report.xml");
    std::fs::File::create(&big)
        .unwrap()
        .set_len((256 << 20) + 1)
        .unwrap();
    assert_refused(&big, "over the 256 MB --report reads");
}

#[test]
fn a_missing_report_is_one_line() {
    let d = tempfile::tempdir().unwrap();
    assert_refused(&d.path().join("absent.xml"), "absent.xml");
}
