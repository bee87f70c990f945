//! The real `pith` binary on the C++ fixture projects (CMake + GoogleTest under CTest, built
//! with the machine's toolchain: scripts/setup/cpp.sh), beyond the shared scenarios of
//! `scenarios.rs`: a suite that cannot set up, re-runs by id, the caller's shell.

use crate::common;

use common::{fixture, pith};

fn run(name: &str, extra: &[&str]) -> common::Answer {
    let ws = fixture(&format!("cpp/{name}"));
    pith(ws.path(), extra)
}

#[test]
fn a_suite_that_cannot_set_up_is_a_collection_error() {
    let a = run("suite_setup", &[]);
    assert_eq!((a.status(), a.code), ("CollectionFailed", 1), "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "Db");
    assert_eq!(f["phase"], "collect");
    assert_eq!(f["message"], "database not reachable");
    assert_eq!(a.json["skipped"], 2, "its tests never ran: {}", a.line);
    insta::assert_snapshot!(a.stable());
}

#[test]
fn ids_from_an_answer_rerun_exactly_those_tests() {
    let ws = fixture("cpp/helper50");
    let first = pith(ws.path(), &[]);
    common::assert_reruns_only(ws.path(), &[], &first, 0, &[]);
    common::assert_not_found(ws.path(), &[], &["Sizes/AreaTest.Matches/50"]);
}

#[test]
fn the_callers_reporting_variables_do_not_change_the_answer() {
    let plain = run("single", &[]);
    // gtest's colour, brevity and timing, colour forced: pith reads gtest's JSON and sets its
    // output itself. (A fresh copy: the history of the first would show.)
    let ws = fixture("cpp/single");
    let hostile = common::pith_with(
        ws.path(),
        &[],
        &[
            ("GTEST_COLOR", "yes"),
            ("GTEST_BRIEF", "1"),
            ("GTEST_PRINT_TIME", "0"),
            ("GTEST_OUTPUT", "xml:/dev/null"),
            ("CLICOLOR_FORCE", "1"),
        ],
        &[],
    );
    assert_eq!(plain.stable(), hostile.stable());
}

#[test]
fn the_callers_gtest_filter_reaches_discovery_as_by_hand() {
    // `gtest_discover_tests` lists the binary's tests at build time, under the caller's
    // GTEST_FILTER: configured, built and run by hand in that shell, only Calc.Adds is a CTest
    // test, and it passes. pith builds and runs in the same environment, and answers the same.
    let env: &[(&str, Option<&str>)] = &[("GTEST_FILTER", Some("Calc.Adds"))];
    let ws = fixture("cpp/single");
    for step in [
        &["cmake", "-S", ".", "-B", "build", "-G", "Ninja"][..],
        &["cmake", "--build", "build"],
    ] {
        assert!(common::raw(ws.path(), step, env).green(), "{step:?}");
    }
    let raw = common::raw(ws.path(), &["ctest", "--test-dir", "build"], env);
    assert!(
        raw.green() && raw.output.contains("0 tests failed out of 1"),
        "{}",
        raw.output
    );
    let ws = fixture("cpp/single");
    let a = common::pith_with(ws.path(), &[], &[("GTEST_FILTER", "Calc.Adds")], &[]);
    assert_eq!(
        (a.status(), a.code, a.count("passed")),
        ("TestsPassed", 0, 1),
        "{}",
        a.line
    );
}
