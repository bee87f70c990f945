//! The verdict corpus of `pith test --report`: each report under
//! tests/fixtures/verdicts/report/<case>/ read by the real `pith` binary, asserting the verdict
//! (status, exit code, the fields that prove it), and the files `--report` must refuse at
//! once, without blocking or reading without end: a FIFO, `/dev/zero`, a directory, a socket,
//! a file over the size limit. Those are pith failing to do its job: exit 2, one line on
//! stderr, nothing on stdout. The false greens this slice fixed are marked.

use super::*;
use super::{Ids::*, Text::*};

use std::time::{Duration, Instant};

/// The report `file` of `fixture`, read.
const fn report(fixture: &'static str, file: &'static str, status: &'static str, code: i32) -> Row {
    Row {
        report: Some(file),
        ..row(fixture, status, code)
    }
}

table! {
    // ---- JUnit XML: the report's own counts and suite-level faults ----

    /// Fixed (was TestsPassed): the suite counts an error no test case shows.
    a_suite_that_counts_an_error_its_cases_do_not_show_is_not_green => Row {
        passed: Some(2),
        texts: &[(
            "reason",
            Is("suite demo.DbTest counts 1 failed or errored tests, its test cases show 0"),
        )],
        ..report("report/junit_suite_errors", "report.xml", RUNNER_FAILED, 1)
    };

    /// Fixed (was TestsPassed): the root `<testsuites>` counts more tests and a failure.
    root_totals_above_the_cases_are_not_green => Row {
        texts: &[(
            "reason",
            Is("the report counts 1 failed or errored tests, its test cases show 0"),
        )],
        ..report("report/junit_root_counts", "report.xml", RUNNER_FAILED, 1)
    };

    /// Fixed (was TestsPassed): a suite-level `<error>` (a class's setup failed) is a failure
    /// named by its class; the counts agree, so no reason.
    a_suite_level_error_is_a_failure_of_its_class => Row {
        failing: First("demo.DbTest"),
        failures: &[Failure {
            message: Is("IllegalStateException: no database"),
            phase: Some("setup"),
            ..fail("demo.DbTest")
        }],
        absent: &["reason"],
        ..report("report/junit_suite_error_element", "report.xml", FAILED, 1)
    };

    /// Fixed (was TestsPassed): Surefire's fork crash in the suite's error output.
    a_fork_crash_in_the_suite_output_is_a_failure => Row {
        failing: First("demo.ExitTest"),
        failures: &[Failure {
            message: Starts("The forked VM terminated without properly saying goodbye"),
            ..fail("demo.ExitTest")
        }],
        ..report("report/junit_fork_crash", "report.xml", FAILED, 1)
    };

    /// Already right: entities are never expanded; the report reads as the little it is.
    an_entity_bomb_reads_small_and_fast => Row {
        within: Some(10),
        failing: First("demo.LolTest#laughs"),
        // Under 400 bytes.
        budget: Some(399),
        ..report("report/junit_billion_laughs", "report.xml", FAILED, 1)
    };

    /// Already right: a report cut off before its end is never green.
    a_truncated_report_is_crashed => Row {
        texts: &[("tail", Has("ends early"))],
        ..report("report/junit_truncated", "report.xml", CRASHED, 1)
    };

    reports_whose_counts_agree_are_green_junit => Row {
        passed: Some(2),
        ..report("report/junit_green", "report.xml", PASSED, 0)
    };

    reports_whose_counts_agree_are_green_trx => Row {
        passed: Some(2),
        ..report("report/trx_green", "report.trx", PASSED, 0)
    };

    // ---- TRX: the summary, counters and run infos ----

    /// Fixed (was TestsPassed): the summary says Failed, no result failed.
    a_trx_whose_summary_failed_is_not_green => Row {
        texts: &[("reason", Is("the TRX says the run Failed though no test failed"))],
        ..report("report/trx_outcome_failed", "report.trx", RUNNER_FAILED, 1)
    };

    /// Fixed (was TestsPassed): the counters count a failure no result shows.
    a_trx_whose_counters_count_a_failure_is_not_green => Row {
        texts: &[("reason", Is("the TRX counts 1 failed tests, its results show 0"))],
        ..report("report/trx_counters", "report.trx", RUNNER_FAILED, 1)
    };

    /// Fixed (was TestsPassed): an error run info (an adapter that could not load a test
    /// assembly) is not green.
    a_trx_with_an_error_run_info_is_not_green => Row {
        texts: &[
            (
                "reason",
                Starts("the TRX reports an error: An exception occurred while invoking executor"),
            ),
            ("tail", Has("Calc.Fixtures")),
        ],
        ..report("report/trx_run_info_error", "report.trx", RUNNER_FAILED, 1)
    };
}

// ---- Files --report must refuse at once ----
//
// Hand-written: these check no answer. A refusal is exit 2, nothing on stdout and one line on
// stderr, for a file each test makes (a FIFO, a socket, a sparse file) or a path of the system.

/// `--report` refused `file`: exit 2, nothing on stdout, one line on stderr that says why
/// (containing `why`), within ten seconds.
fn assert_refused(file: &Path, why: &str) {
    let ws = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let out = common::bare()
        .arg("test")
        .arg("--root")
        .arg(ws.path())
        .arg("--report")
        .arg(file)
        .current_dir(ws.path())
        .output()
        .expect("run pith");
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

/// Real TRX files of the external corpus (dorny/test-reporter's xUnit run: 5 failing, two of
/// one cause, beside a raw tail of xUnit's `[FAIL]` lines; EnricoMi's xUnit v2 sample: 3
/// failing of 3 causes): every failing test is named — messages are cut and the tail yields
/// before an id goes (the first named 1 of 5, the second 1 of 3, before).
#[test]
fn real_trx_answers_name_every_failing_test_within_the_ceiling() {
    let Some(dir) = crate::common::samples::dir() else {
        return;
    };
    for (file, failing) in [("xunit-dotnet.trx", 5), ("xunit-netcoreapp3.1.trx", 3)] {
        let (line, json) = crate::common::report_answer(&dir.join("trx").join(file));
        assert!(line.len() <= pith_wire::ANSWER_CEILING, "{line}");
        let named: usize = json["failures"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|f| 1 + f["others"].as_array().map_or(0, Vec::len))
            .sum::<usize>()
            + json["clusters"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| c["tests"].as_array().map_or(0, Vec::len))
                .sum::<usize>();
        assert_eq!(named, failing, "{file}: {line}");
    }
}
