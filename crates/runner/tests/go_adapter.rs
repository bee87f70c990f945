//! The go adapter against real fixture modules (tests/fixtures/go) with the installed Go (these
//! tests fail without it, they never skip), and `parse_json` on saved streams from another
//! machine: ours (tests/fixtures/reports/go) and, where the external corpus is, a real one.
//! Each run copies its fixture to a temp dir, so nothing lands in the repository.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pith_model::{BuildError, Exit, ExitMeaning, Failure, Frame, Phase, Run, Status};
use pith_runner::{go, PathMap};
use pith_testkit::{Fixture, Runs};

fn fixture(name: &str) -> Fixture {
    pith_testkit::fixture_at(&format!("go/{name}"), name)
}

/// A module written on the spot: `files` are (path, content).
fn module(files: &[(&str, &str)]) -> Module {
    let dir = tempfile::Builder::new()
        .prefix("pith-go-")
        .tempdir()
        .unwrap();
    let root = dir.path().join("m");
    for (path, content) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    Module { _dir: dir, root }
}

struct Module {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Module {
    fn path(&self) -> &Path {
        &self.root
    }
}

fn run_in(root: &Path, tests: &[&str], deadline: Duration) -> Run {
    assert!(
        pith_runner::on_path("go").is_some(),
        "go is not installed: https://go.dev/dl/"
    );
    let adapters = go::detect(root);
    assert_eq!(adapters.len(), 1, "a go.mod makes a go project");
    let run = Runs::new(root).run(adapters[0].as_ref(), tests, deadline);
    assert_eq!(run.runner, "go");
    assert_hygiene(&run, root);
    run
}

fn run(name: &str, tests: &[&str]) -> Run {
    run_in(fixture(name).path(), tests, Duration::from_secs(300))
}

/// Paths leave the adapter workspace-relative, text without the workspace's absolute path.
fn assert_hygiene(run: &Run, root: &Path) {
    let root = root.to_string_lossy();
    for f in &run.failures {
        assert!(!f.message.contains(root.as_ref()), "{f:?}");
        assert!(
            !f.detail.as_deref().unwrap_or("").contains(root.as_ref()),
            "{f:?}"
        );
        for fr in f.frames.iter().filter(|fr| fr.project) {
            assert!(!fr.file.starts_with('/'), "{fr:?}");
        }
    }
    if let Some(t) = &run.tail {
        assert!(!t.contains(root.as_ref()), "{t}");
    }
    for e in &run.build_errors {
        assert!(!e.message.contains(root.as_ref()), "{e:?}");
    }
}

fn failure<'a>(run: &'a Run, test: &str) -> &'a Failure {
    run.failures
        .iter()
        .find(|f| f.test == test)
        .unwrap_or_else(|| panic!("no failure {test}: {:#?}", run.failures))
}

/// Project frames, outermost first, as `file:line code`.
fn frames(f: &Failure) -> Vec<String> {
    f.project_frames()
        .map(|fr| match &fr.code {
            Some(c) => format!("{} {c}", fr.location()),
            None => fr.location(),
        })
        .collect()
}

#[test]
fn green() {
    let run = run("green", &[]);
    assert_eq!(run.status(), Status::TestsPassed);
    assert_eq!((run.passed, run.failed, run.skipped), (2, 0, 0));
    assert!(run.failures.is_empty() && run.tail.is_none());
    let ids: Vec<&str> = run.outcomes.iter().map(|o| o.test.as_str()).collect();
    assert_eq!(
        ids,
        [
            "example.com/green.TestAdd",
            "example.com/green.TestAddNegative"
        ]
    );
}

/// A heartbeat on another thread counts the tests `go test -json` says ended, as it says so.
#[test]
fn progress_counts_the_tests_that_ended() {
    let ws = fixture("green");
    let adapters = go::detect(ws.path());
    let runs = Runs::new(ws.path());
    let progress = adapters[0]
        .progress(runs.scratch())
        .expect("go counts its tests");
    assert_eq!(progress(), 0);
    let run = runs.run(adapters[0].as_ref(), &[], Duration::from_secs(300));
    assert_eq!(run.passed, 2);
    assert_eq!(progress(), 2);
}

/// go's exit code is part of the run: 0 on a green run, 1 when a test failed.
#[test]
fn the_exit_code_is_evidence() {
    let green = run("green", &[]);
    assert_eq!(green.exit, Some(Exit::new(0, ExitMeaning::Passed)));
    assert_eq!(green.doubt(), None);
    let red = run("single", &[]);
    assert_eq!(red.exit, Some(Exit::new(1, ExitMeaning::Failed)));
    assert_eq!(red.doubt(), None, "the failure explains the exit");
}

/// A module below the workspace root (the engine runs every go.mod in its own directory):
/// go runs there, ids are the module's import paths, paths are workspace-relative.
#[test]
fn a_module_below_the_workspace_root_answers_in_workspace_paths() {
    let ws = tempfile::Builder::new()
        .prefix("pith-go-")
        .tempdir()
        .unwrap();
    let dir = ws.path().join("svc/shop");
    pith_testkit::copy_tree(&pith_testkit::fixtures_dir("go/multi"), &dir);
    let runs = Runs::in_dir(ws.path(), &dir);
    let ctx = runs.context(Duration::from_secs(300));
    let adapters = go::detect(&dir);
    assert!(adapters[0].owns("example.com/shop/cart.TestMelon"));
    let run = adapters[0].run(&ctx, &[]).unwrap();
    assert_hygiene(&run, ws.path());
    assert_eq!((run.passed, run.failed), (2, 2), "{run:#?}");
    let pear = failure(&run, "example.com/shop/price.TestPear");
    assert_eq!(
        pear.top_project_frame().map(Frame::location).as_deref(),
        Some("svc/shop/price/price_test.go:13")
    );
    let melon = failure(&run, "example.com/shop/cart.TestMelon");
    let at: Vec<String> = melon.project_frames().map(Frame::location).collect();
    assert_eq!(at[0], "svc/shop/cart/cart_test.go:12", "{at:?}");
    let again = adapters[0]
        .run(&ctx, &["example.com/shop/price.TestPear".to_owned()])
        .unwrap();
    assert_eq!((again.passed, again.failed), (0, 1), "{again:#?}");
}

#[test]
fn a_fatalf_keeps_its_expected_and_actual_lines_in_the_detail() {
    let run = run("detail_fatalf", &[]);
    let f = failure(&run, "example.com/detail.TestNewer");
    assert_eq!(f.message, "1.10.0 >= 1.9.0");
    assert_eq!(
        f.detail.as_deref(),
        Some("1.10.0 >= 1.9.0\nexpected: true\nactual: false")
    );
    assert_eq!(
        frames(f),
        ["version_test.go:8 t.Fatalf(\"%s >= %s\\nexpected: %t\\nactual: %t\", a, b, true, got)"]
    );
}

#[test]
fn a_panic_keeps_its_lines_before_the_goroutine_dump() {
    let run = run("single", &[]);
    let f = failure(&run, "example.com/single.TestMeanOfNothing");
    assert_eq!(f.detail, None, "go's [recovered] notes say nothing more");
    let m = module(&[
        ("go.mod", "module example.com/m\n\ngo 1.22\n"),
        (
            "m_test.go",
            "package m\n\nimport \"testing\"\n\nfunc TestBoom(t *testing.T) {\n\tpanic(\"bad config:\\n  port: -1\\n  host: empty\")\n}\n",
        ),
    ]);
    let run = run_in(m.path(), &[], Duration::from_secs(300));
    let f = failure(&run, "example.com/m.TestBoom");
    assert_eq!(f.message, "panic: bad config:");
    assert_eq!(
        f.detail.as_deref(),
        Some("panic: bad config:\nport: -1\nhost: empty")
    );
}

#[test]
fn single_panic_through_a_helper() {
    let run = run("single", &[]);
    assert_eq!(run.status(), Status::TestsFailed);
    assert_eq!((run.passed, run.failed, run.skipped), (2, 1, 1));
    assert_eq!(run.failures.len(), 1);
    let f = failure(&run, "example.com/single.TestMeanOfNothing");
    assert_eq!(f.message, "panic: runtime error: integer divide by zero");
    assert_eq!(f.kind.as_deref(), Some("panic"));
    assert_eq!(
        frames(f),
        [
            "stats_test.go:27 checkMean(t, []int{}, 0)",
            "stats_test.go:7 if got := Mean(xs); got != want {",
            "stats.go:10 return total / len(xs)",
        ]
    );
    // Library frames are kept, outside the project.
    assert!(f
        .frames
        .iter()
        .any(|fr| !fr.project && fr.file.ends_with("testing.go")));
}

#[test]
fn subtests_keep_their_full_names() {
    let run = run("subtests", &[]);
    assert_eq!(run.status(), Status::TestsFailed);
    // Leaves are counted; a parent failing only through a subtest is not a failure of its own.
    assert_eq!((run.passed, run.failed), (4, 3));
    let ids: Vec<&str> = run.failures.iter().map(|f| f.test.as_str()).collect();
    assert_eq!(
        ids,
        [
            "example.com/subtests.TestTitle/two_words",
            "example.com/subtests.TestWords",
            "example.com/subtests.TestWords/split/double_space",
        ]
    );
    let f = failure(&run, "example.com/subtests.TestTitle/two_words");
    assert_eq!(
        f.message,
        "Title(\"hello world\") = \"Hello world\", want \"Hello World\""
    );
    assert_eq!(
        frames(f),
        ["words_test.go:15 t.Errorf(\"Title(%q) = %q, want %q\", c.in, got, c.want)"]
    );
    assert_eq!(
        failure(&run, "example.com/subtests.TestWords").message,
        "Words(\"\") is not empty"
    );
    assert!(run
        .outcomes
        .iter()
        .any(|o| o.test == "example.com/subtests.TestTitle/already/title"));
}

#[test]
fn fifty_failures_from_one_helper_share_their_location() {
    let run = run("helper50", &[]);
    assert_eq!((run.passed, run.failed), (1, 50));
    assert_eq!(run.failures.len(), 50);
    for f in &run.failures {
        assert!(
            f.test.starts_with("example.com/helper50.TestArea/side_"),
            "{f:?}"
        );
        assert_eq!(
            f.top_project_frame().map(Frame::location).as_deref(),
            Some("shapes_test.go:18")
        );
    }
    assert_eq!(run.failures[0].message, "area of side 3 = 6, want 9");
}

#[test]
fn hundred_distinct_failures() {
    let run = run("distinct100", &[]);
    assert_eq!(run.failed, 100);
    let mut at: Vec<String> = run
        .failures
        .iter()
        .map(|f| f.top_project_frame().unwrap().location())
        .collect();
    at.sort();
    at.dedup();
    assert_eq!(at.len(), 100);
    assert_eq!(run.failures[0].message, "case 1: Identity(1) = 1, want 2");
}

#[test]
fn build_errors_are_deduplicated_across_importers() {
    let run = run("compile_error", &[]);
    assert_eq!(run.status(), Status::BuildFailed);
    assert_eq!(
        run.build_errors,
        [BuildError {
            file: Some("calc/calc.go".into()),
            line: Some(6),
            code: None,
            message: "invalid operation: n * \"2\" (mismatched types int and untyped string)"
                .into(),
        }]
    );
    // The package that built still ran, and passed: it does not make the run green.
    assert_eq!(run.passed, 1);
}

#[test]
fn vet_findings_are_build_errors_with_their_code() {
    let run = run("vet", &[]);
    assert_eq!(run.status(), Status::BuildFailed);
    assert_eq!(run.build_errors.len(), 1, "{:?}", run.build_errors);
    let e = &run.build_errors[0];
    assert_eq!(e.code.as_deref(), Some("vet"));
    assert_eq!(
        (e.file.as_deref(), e.line),
        (Some("greet_test.go"), Some(9))
    );
    assert!(e.message.starts_with("fmt.Printf format %d"), "{e:?}");
}

#[test]
fn a_panic_fails_its_test_and_stops_the_package() {
    let run = run("panic", &[]);
    assert_eq!(run.status(), Status::TestsFailed);
    assert_eq!((run.passed, run.failed), (1, 1));
    let f = failure(&run, "example.com/panic.TestPopEmpty");
    assert_eq!(
        f.message,
        "panic: runtime error: index out of range [0] with length 0"
    );
    assert_eq!(
        frames(f),
        [
            "queue_test.go:15 drain(&q)",
            "queue_test.go:20 q.Pop()",
            "queue.go:13 v := q.items[0]",
        ]
    );
}

#[test]
fn a_recovered_and_repanicked_panic_is_answered_where_it_began() {
    // The test recovers the library's panic and panics again with it: go prints
    // `[recovered, repanicked]`, and the trace below the runtime's `panic(` names the library
    // line. The test's `panic(ex)` line stays, as an outer frame.
    let run = run("repanic", &[]);
    assert_eq!((run.passed, run.failed), (1, 1));
    let f = failure(&run, "example.com/repanic.TestThird");
    assert_eq!(
        f.message,
        "panic: runtime error: index out of range [2] with length 2"
    );
    assert_eq!(
        frames(f),
        [
            "parse_test.go:14 panic(ex)",
            "parse_test.go:17 Field(\"a,b\", 2)",
            "parse.go:8 return fields[i]",
        ]
    );
}

#[test]
fn packages_map_base_names_and_frames_cross_them() {
    let run = run("multi", &[]);
    assert_eq!((run.passed, run.failed), (2, 2));
    let pear = failure(&run, "example.com/shop/price.TestPear");
    assert_eq!(pear.message, "pear costs 75, want 70");
    assert_eq!(
        frames(pear),
        ["price/price_test.go:13 t.Errorf(\"pear costs %d, want 70\", got)"]
    );
    let melon = failure(&run, "example.com/shop/cart.TestMelon");
    let at: Vec<String> = melon.project_frames().map(Frame::location).collect();
    assert_eq!(
        at,
        [
            "cart/cart_test.go:12",
            "cart/cart.go:10",
            "price/price.go:9",
            "internal/money/money.go:11",
        ]
    );
    assert_eq!(melon.message, "panic: money: bad amount \"x.00\"");
}

#[test]
fn no_tests_is_not_green() {
    let run = run("empty", &[]);
    assert_eq!(run.status(), Status::NoTestsRan);
    assert_eq!((run.passed, run.failed, run.skipped), (0, 0, 0));
}

#[test]
fn crashes_name_the_test_that_died() {
    let run = run("crash", &[]);
    assert_eq!(run.status(), Status::Crashed);
    let mut running = run.running.clone();
    running.sort();
    assert_eq!(
        running,
        [
            "example.com/crash/exit.TestExits",
            "example.com/crash/kill.TestKilled"
        ]
    );
    let exit = failure(&run, "example.com/crash/exit.TestExits");
    assert_eq!(
        exit.message,
        "the test binary exited before the test finished"
    );
    assert_eq!(
        frames(exit),
        ["exit/exit_test.go:11 func TestExits(t *testing.T) {"]
    );
    let kill = failure(&run, "example.com/crash/kill.TestKilled");
    assert_eq!(kill.message, "signal: killed");
    assert_eq!(kill.kind.as_deref(), Some("SIGKILL"));
    assert_eq!(run.failed, 2);
    assert_eq!(run.passed, 1);
    assert!(run.tail.as_deref().unwrap().contains("signal: killed"));
}

#[test]
fn a_package_that_fails_before_its_tests_is_a_collection_error() {
    let run = run("badinit", &[]);
    assert_eq!(run.status(), Status::CollectionFailed);
    assert_eq!(run.failed, 0);
    let init = failure(&run, "example.com/badinit/initpanic");
    assert_eq!(init.phase, Phase::Collect);
    assert_eq!(init.message, "panic: assignment to entry in nil map");
    let at: Vec<String> = init.project_frames().map(Frame::location).collect();
    assert_eq!(
        at,
        ["initpanic/init_test.go:6", "initpanic/init_test.go:10"]
    );
    let main = failure(&run, "example.com/badinit/mainfail");
    assert_eq!(main.phase, Phase::Collect);
    assert_eq!(main.message, "database not reachable");
    assert!(run.tail.is_some());
}

#[test]
fn go_timeout_names_the_running_test() {
    let f = fixture("hang");
    // Build first so the deadline measures the tests, not the compiler.
    let warm = run_in(
        f.path(),
        &[
            "example.com/hang/quick.TestFast",
            "example.com/hang/slow.TestQuick",
        ],
        Duration::from_secs(300),
    );
    assert_eq!(warm.status(), Status::TestsPassed);
    let start = Instant::now();
    let run = run_in(f.path(), &[], Duration::from_secs(15));
    assert!(
        start.elapsed() < Duration::from_secs(25),
        "not stopped in time"
    );
    assert_eq!(run.status(), Status::TimedOut);
    assert_eq!(
        run.running,
        ["example.com/hang/slow.TestSleepsForever/inner"]
    );
    assert_eq!(run.passed, 2, "the tests that finished count: {run:?}");
    // go's own timeout fired first (its -timeout is set below pith's deadline): the test
    // failed at the line it was stuck on.
    let f = failure(&run, "example.com/hang/slow.TestSleepsForever/inner");
    assert!(f.message.starts_with("test timed out after "), "{f:?}");
    assert_eq!(
        f.top_project_frame().map(Frame::location).as_deref(),
        Some("slow/slow_test.go:13")
    );
}

#[test]
fn a_deadline_keeps_build_errors_and_failures_already_reported() {
    // One package does not compile, the other fails a test and then hangs: the TimedOut
    // answer keeps the build error and the failure.
    let f = fixture("timeout_loads");
    // Compiled first (go's build cache): the deadline measures the tests, not a compiler
    // slowed by a loaded machine.
    let _ = std::process::Command::new("go")
        .args(["test", "-count=1", "-run", "^$", "./..."])
        .current_dir(f.path())
        .output();
    let run = run_in(f.path(), &[], Duration::from_secs(15));
    assert_eq!(run.status(), Status::TimedOut, "{run:#?}");
    assert_eq!(
        run.running,
        ["example.com/timeout_loads/hang.TestSleeps"],
        "{run:#?}"
    );
    assert_eq!(run.build_errors.len(), 1, "{run:#?}");
    assert_eq!(
        run.build_errors[0].file.as_deref(),
        Some("broken/broken_test.go")
    );
    let f = failure(&run, "example.com/timeout_loads/hang.TestFails");
    assert_eq!(f.message, "got 2, want 3");
}

#[test]
fn pith_deadline_names_the_running_test() {
    // A TestMain that switches go's own alarm off: only pith's deadline stops it.
    let f = module(&[
        ("go.mod", "module example.com/noalarm\n\ngo 1.22\n"),
        (
            "main_test.go",
            "package noalarm\n\nimport (\n\t\"flag\"\n\t\"os\"\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestMain(m *testing.M) {\n\tflag.Parse()\n\tflag.Set(\"test.timeout\", \"0\")\n\tos.Exit(m.Run())\n}\n\nfunc TestStuck(t *testing.T) {\n\ttime.Sleep(time.Hour)\n}\n",
        ),
    ]);
    let warm = run_in(
        f.path(),
        &["example.com/noalarm.TestNone"],
        Duration::from_secs(300),
    );
    assert_eq!(warm.status(), Status::TestsNotFound);
    let run = run_in(f.path(), &[], Duration::from_secs(4));
    assert_eq!(run.status(), Status::TimedOut);
    assert_eq!(run.running, ["example.com/noalarm.TestStuck"]);
}

#[test]
fn ids_rerun_exactly_those_tests() {
    let f = fixture("subtests");
    let one = run_in(
        f.path(),
        &["example.com/subtests.TestTitle/two_words"],
        Duration::from_secs(300),
    );
    assert_eq!((one.passed, one.failed), (0, 1), "{one:?}");
    assert_eq!(
        one.failures[0].test,
        "example.com/subtests.TestTitle/two_words"
    );

    // A subtest whose name holds a slash, one with regexp metacharacters, a nested one, and
    // two at different depths in one package.
    let mixed = run_in(
        f.path(),
        &[
            "example.com/subtests.TestTitle/already/title",
            "example.com/subtests.TestWords/split/double_space",
            "example.com/subtests.TestTitle/plain_word",
        ],
        Duration::from_secs(300),
    );
    assert_eq!((mixed.passed, mixed.failed), (2, 1), "{mixed:?}");
    assert!(mixed.not_found.is_empty(), "{mixed:?}");

    let missing = run_in(
        f.path(),
        &[
            "example.com/subtests.TestNope",
            "example.com/subtests.TestTitle/no_such_case",
            "example.com/elsewhere.TestX",
            "example.com/subtests.TestTitle/empty",
        ],
        Duration::from_secs(300),
    );
    assert_eq!(missing.status(), Status::TestsNotFound, "{missing:?}");
    let mut nf = missing.not_found.clone();
    nf.sort();
    assert_eq!(
        nf,
        [
            "example.com/elsewhere.TestX",
            "example.com/subtests.TestNope",
            "example.com/subtests.TestTitle/no_such_case",
        ]
    );
    assert_eq!(missing.passed, 1);

    // A package alone runs all of it.
    let whole = run_in(
        fixture("multi").path(),
        &["example.com/shop/price"],
        Duration::from_secs(300),
    );
    assert_eq!((whole.passed, whole.failed), (1, 1), "{whole:?}");
}

#[test]
fn examples_and_silent_failures_point_at_their_function() {
    let f = module(&[
        ("go.mod", "module example.com/ex\n\ngo 1.22\n"),
        (
            "ex.go",
            "package ex\n\n// Hello greets.\nfunc Hello() string { return \"hello\" }\n",
        ),
        (
            "ex_test.go",
            "package ex\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\nfunc ExampleHello() {\n\tfmt.Println(Hello())\n\t// Output: Hello\n}\n\nfunc TestSilent(t *testing.T) {\n\tt.Fail()\n}\n",
        ),
    ]);
    let run = run_in(f.path(), &[], Duration::from_secs(300));
    assert_eq!((run.status(), run.failed), (Status::TestsFailed, 2));
    let ex = failure(&run, "example.com/ex.ExampleHello");
    assert_eq!(ex.message, r#"got "hello", want "Hello""#);
    assert_eq!(frames(ex), ["ex_test.go:8 func ExampleHello() {"]);
    let silent = failure(&run, "example.com/ex.TestSilent");
    assert_eq!(silent.message, "failed without a message");
    assert_eq!(
        frames(silent),
        ["ex_test.go:13 func TestSilent(t *testing.T) {"]
    );
    // Re-run by id, the example included.
    let again = run_in(
        f.path(),
        &["example.com/ex.ExampleHello"],
        Duration::from_secs(300),
    );
    assert_eq!((again.failed, again.passed), (1, 0));
}

#[test]
fn too_old_a_go_is_runner_missing() {
    let f = module(&[
        ("go.mod", "module example.com/future\n\ngo 1.999\n"),
        (
            "a_test.go",
            "package future\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n",
        ),
    ]);
    let run = run_in(f.path(), &[], Duration::from_secs(120));
    assert_eq!(run.status(), Status::RunnerMissing);
    let hint = run.hint.unwrap();
    assert!(hint.starts_with("go.mod requires go >= 1.999"), "{hint}");
}

#[test]
fn a_broken_go_mod_is_not_green() {
    let f = module(&[
        (
            "go.mod",
            "module example.com/broken\n\ngo 1.22\n\nrequire (\n",
        ),
        (
            "a_test.go",
            "package broken\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n",
        ),
    ]);
    let run = run_in(f.path(), &[], Duration::from_secs(120));
    assert_eq!(run.status(), Status::BuildFailed, "{run:?}");
    assert_eq!(
        run.build_errors[0].file.as_deref(),
        Some("go.mod"),
        "{run:?}"
    );
}

// Where the external corpus of real reports is, if anywhere.
#[allow(dead_code)]
mod samples {
    include!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/reports/samples.rs"
    ));
}

/// Our own saved stream (tests/fixtures/reports/go), modelled on what real ones show.
fn our_stream() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/reports/go/saved-stream.json");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn saved_stream_of_ours_from_another_machine() {
    // GOPATH-less packages (`_/home/ci/src/ledger/money`) from another machine, a shell trace
    // line and the test binary's link warning (build output of a build that passed) ahead of
    // the events, package-level output, table-driven subtests.
    let text = our_stream();
    let ws = tempfile::tempdir().unwrap();
    let run = go::parse_json(&text, &PathMap::new(ws.path())).unwrap();
    assert_eq!(run.status(), Status::TestsFailed, "{run:#?}");
    assert_eq!((run.passed, run.failed, run.skipped), (6, 4, 2), "{run:#?}");
    assert!(run.build_errors.is_empty(), "{run:#?}");
    let f = failure(&run, "money.TestRoundHalfUp");
    assert_eq!(f.message, "RoundHalfUp(2.505) = 2.50, want 2.51");
    assert_eq!(frames(f), ["money_test.go:27"]);
    // A subtest whose own name holds ` / `; the parent that failed only through its subtests
    // is not a failure of its own.
    assert!(run
        .failures
        .iter()
        .any(|f| f.test == "money.TestConvert/10_/_3_EUR"));
    assert!(!run.failures.iter().any(|f| f.test == "money.TestConvert"));
    for f in &run.failures {
        assert!(!f.test.contains("/home/"), "{f:?}");
    }

    // In a workspace that has the file where the package was, the base names land there.
    let ws = tempfile::tempdir().unwrap();
    let dir = ws.path().join("ledger/money");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("money_test.go"), "package money\n").unwrap();
    let run = go::parse_json(&text, &PathMap::new(ws.path())).unwrap();
    let f = failure(&run, "money.TestRoundHalfUp");
    assert_eq!(frames(f), ["ledger/money/money_test.go:27"]);
}

/// The same over the external corpus's stream, where it is.
#[test]
fn saved_stream_from_another_machine() {
    let Some(text) = samples::read("go/go-test.json") else {
        return;
    };
    let ws = tempfile::tempdir().unwrap();
    let run = go::parse_json(&text, &PathMap::new(ws.path())).unwrap();
    assert_eq!(run.status(), Status::TestsFailed);
    assert_eq!((run.passed, run.failed, run.skipped), (5, 5, 1));
    let f = failure(&run, "go.TestFailing");
    assert_eq!(f.message, "expected 1+1 = 3, got 2");
    assert_eq!(frames(f), ["calculator_test.go:19"]);
    assert!(run
        .failures
        .iter()
        .any(|f| f.test == "go.TestCases/1_/_2_=_1"));
    for f in &run.failures {
        assert!(!f.test.contains("/home/"), "{f:?}");
    }

    // In a workspace that has the file where the package was, the base names land there.
    let ws = tempfile::tempdir().unwrap();
    let dir = ws.path().join("reports/go");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("calculator_test.go"), "package go\n").unwrap();
    let run = go::parse_json(&text, &PathMap::new(ws.path())).unwrap();
    let f = failure(&run, "go.TestFailing");
    assert_eq!(frames(f), ["reports/go/calculator_test.go:19"]);
}

#[test]
fn saved_streams_that_are_not_streams_are_errors() {
    let paths = PathMap::new(Path::new("/ws"));
    assert!(go::parse_json("", &paths).is_err());
    assert!(go::parse_json("<testsuites/>", &paths).is_err());
    assert!(go::parse_json("{\"not\":\"an event\"}\n", &paths).is_err());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    fn parse_json_never_panics_on_truncations(cut in 0usize..13_000, sample in proptest::bool::ANY) {
        // Our stream, or the corpus's where it is.
        let text = sample
            .then(|| samples::read("go/go-test.json"))
            .flatten()
            .unwrap_or_else(our_stream);
        let mut end = cut.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let paths = PathMap::new(Path::new("/ws"));
        if let Ok(run) = go::parse_json(&text[..end], &paths) {
            if end < text.len() - 1 {
                proptest::prop_assert!(!run.status().is_green());
            }
        }
    }

    #[test]
    fn parse_json_never_panics_on_garbage(s in "(?s).{0,2000}") {
        let _ = go::parse_json(&s, &PathMap::new(Path::new("/ws")));
    }
}
