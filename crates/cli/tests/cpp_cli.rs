//! The real `pith` binary on the C++ fixture projects (CMake + GoogleTest under CTest, built
//! with the machine's toolchain: scripts/setup/cpp.sh), beyond the shared scenarios of
//! `scenarios.rs`: a suite that cannot set up, re-runs by id, the caller's shell.

mod common;

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
fn the_callers_shell_does_not_change_the_answer() {
    let plain = run("single", &[]);
    // A filter that hides the failure, disabled tests switched on, colour forced: pith sets
    // the tests' environment itself. (A fresh copy: the history of the first would show.)
    let ws = fixture("cpp/single");
    let hostile = common::pith_with(
        ws.path(),
        &[],
        &[
            ("GTEST_FILTER", "Calc.Adds"),
            ("GTEST_ALSO_RUN_DISABLED_TESTS", "1"),
            ("GTEST_COLOR", "yes"),
            ("GTEST_BRIEF", "1"),
            ("CLICOLOR_FORCE", "1"),
        ],
        &[],
    );
    assert_eq!(plain.stable(), hostile.stable());
}
