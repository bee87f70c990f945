//! The .NET adapter without a .NET SDK (none is installed here): detection and the test
//! platform from fixture project files we wrote, the `dotnet test` command lines and filters
//! built for them, what a run does when `dotnet` is missing, the TRX reader on our own reports
//! (tests/fixtures/reports/trx) and, where the external corpus is, on the real report samples
//! (`trx/` in it), each against a workspace holding the source files its stack traces name
//! (tests/fixtures/reports/trx-workspace, tests/fixtures/dotnet/traces) so the suffix mapping
//! runs for real, and whole runs that hang, replayed by a stand-in `dotnet` from the files a
//! real one leaves (tests/fixtures/dotnet/runs), through the adapter as it runs `dotnet`.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use pith_model::{Phase, Run, Status};
use pith_runner::dotnet::{self, Dotnet, Framework, Platform};
use pith_runner::PathMap;
use pith_testkit::Runs;

fn fixtures() -> PathBuf {
    pith_testkit::fixtures_dir("dotnet")
}

// Where the external corpus of real reports is, if anywhere.
#[allow(dead_code)]
mod samples {
    include!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/reports/samples.rs"
    ));
}

/// The public TRX samples of the external corpus (`trx/` in it).
const SAMPLES: [&str; 7] = [
    "xunit-dotnet.trx",
    "xunit-v3-mtp.trx",
    "empty.trx",
    "empty-test-definitions.trx",
    "mstest-pickles.trx",
    "nunit-netcoreapp3.1.trx",
    "xunit-netcoreapp3.1.trx",
];

/// Whether the external corpus is here; the tests over it return early when it is not.
fn corpus() -> bool {
    samples::dir().is_some()
}

/// A sample of the corpus; only called once `corpus()` said it is here.
fn sample(name: &str) -> String {
    samples::read(&format!("trx/{name}")).expect("the corpus is here")
}

/// Our own TRX reports (tests/fixtures/reports/trx), modelled on the shapes the samples show.
const OURS: [&str; 7] = [
    "xunit-vstest.trx",
    "xunit-v3-mtp.trx",
    "xunit-v2-integration.trx",
    "nunit-vstest.trx",
    "mstest-legacy.trx",
    "empty.trx",
    "empty-definitions.trx",
];

fn reports() -> PathBuf {
    pith_testkit::fixtures_dir("reports")
}

fn ours(name: &str) -> String {
    let path = reports().join("trx").join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The workspace holding the source files our reports' stack traces name.
fn our_workspace() -> PathMap {
    PathMap::new(&reports().join("trx-workspace"))
}

fn parse_ours(name: &str) -> Run {
    dotnet::parse_trx(&ours(name), &our_workspace()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Every TRX text: ours, and the corpus's where it is.
fn every_report() -> &'static [String] {
    static ALL: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let mut all: Vec<String> = OURS.iter().map(|n| ours(n)).collect();
        if corpus() {
            all.extend(SAMPLES.iter().map(|n| sample(n)));
        }
        all
    })
}

/// The workspace holding the source files the samples' stack traces name.
fn traces() -> PathMap {
    PathMap::new(&fixtures().join("traces"))
}

/// A sample of the corpus, read against `traces()`.
fn parse(name: &str) -> Run {
    dotnet::parse_trx(&sample(name), &traces()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn failure<'a>(run: &'a Run, test: &str) -> &'a pith_model::Failure {
    run.failures
        .iter()
        .find(|f| f.test == test)
        .unwrap_or_else(|| panic!("no failure {test} in {run:#?}"))
}

fn frames(f: &pith_model::Failure) -> Vec<String> {
    f.project_frames()
        .map(|fr| format!("{} {}", fr.location(), fr.code.as_deref().unwrap_or("")))
        .collect()
}

fn adapter(name: &str) -> Dotnet {
    Dotnet::new(&fixtures().join(name)).unwrap_or_else(|| panic!("no .NET workspace in {name}"))
}

fn args(d: &Dotnet, ids: &[&str]) -> Vec<String> {
    let ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
    let cmd = d.command(
        Path::new("/opt/dotnet/dotnet"),
        Path::new("/scratch/trx"),
        &ids,
        Duration::from_secs(600),
    );
    assert_eq!(cmd.get_program(), OsStr::new("/opt/dotnet/dotnet"));
    cmd.get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

#[test]
fn detects_the_test_platform_from_project_files() {
    let vstest = adapter("vstest");
    assert_eq!(vstest.platform(), Platform::Vstest);
    assert_eq!(vstest.frameworks(), [Framework::Xunit]);
    assert_eq!(
        vstest.test_projects(),
        [PathBuf::from("tests/Calc.Tests/Calc.Tests.csproj")],
        "the library is not a test project"
    );
    assert_eq!(adapter("mtp").platform(), Platform::Mtp { native: true });
    assert_eq!(adapter("mtp").frameworks(), [Framework::XunitV3]);
    assert_eq!(
        adapter("bridge").platform(),
        Platform::Mtp { native: false }
    );
    assert_eq!(adapter("bridge").frameworks(), [Framework::Mstest]);
    // EnableNUnitRunner alone does not take VSTest's `dotnet test` off VSTest.
    assert_eq!(adapter("nunit").platform(), Platform::Vstest);
    assert_eq!(adapter("library").platform(), Platform::None);

    assert_eq!(dotnet::detect(&fixtures().join("vstest")).len(), 1);
    assert!(
        dotnet::detect(&fixtures().join("library")).is_empty(),
        "no test project, no runner: a C# tool in another project's repo must not turn it red"
    );
    assert!(dotnet::detect(&fixtures().join("vstest/src")).is_empty());
    assert!(dotnet::detect(&fixtures().join("traces")).is_empty());
}

#[test]
fn vstest_command_writes_trx_to_scratch_and_filters_by_name() {
    let d = adapter("vstest");
    assert_eq!(
        args(&d, &[]),
        [
            "test",
            "--logger",
            "trx;LogFilePrefix=pith",
            "--results-directory",
            "/scratch/trx",
            "--blame",
            "--blame-hang",
            "--blame-hang-timeout",
            "285s",
            "--blame-hang-dump-type",
            "none",
        ],
        "the only solution in the directory: dotnet test picks it; vstest stops a test \
         that hangs for half the 600 s pith has left, less a margin, and names it"
    );
    assert_eq!(
        args(
            &d,
            &[
                "Calc.Tests.CalculatorTests.Adds",
                "Calc.Tests.CalculatorTests.AddsPairs(a: 2, b: 2, want: 5)"
            ]
        )[11..],
        [
            "--filter",
            r"FullyQualifiedName=Calc.Tests.CalculatorTests.Adds|DisplayName=Calc.Tests.CalculatorTests.AddsPairs\(a: 2, b: 2, want: 5\)"
        ]
    );
    let n = adapter("nunit");
    assert_eq!(
        args(&n, &["Calc.Tests.CalculatorTests.Adds(2,2,5)"])[11..],
        [
            "--filter",
            r"FullyQualifiedName=Calc.Tests.CalculatorTests.Adds\(2,2,5\)"
        ]
    );
}

#[test]
fn mtp_commands_per_mode() {
    let native = adapter("mtp");
    assert_eq!(
        args(&native, &["Calc.Tests.CalculatorTests.Adds"]),
        [
            "test",
            "--no-ansi",
            "--no-progress",
            "--report-xunit-trx",
            "--results-directory",
            "/scratch/trx",
            "--filter-method",
            "Calc.Tests.CalculatorTests.Adds",
        ]
    );
    let bridge = adapter("bridge");
    assert_eq!(
        args(&bridge, &["Calc.Tests.CalculatorTests.Adds (2,2,5)"]),
        [
            "test",
            "--",
            "--report-trx",
            "--results-directory",
            "/scratch/trx",
            "--filter",
            "FullyQualifiedName=Calc.Tests.CalculatorTests.Adds",
        ],
        "MSTest data rows: selected by method (the run keeps the requested row)"
    );
}

#[test]
fn the_callers_shell_does_not_reach_dotnet() {
    let d = adapter("vstest");
    let cmd = d.command(
        Path::new("/opt/dotnet/dotnet"),
        Path::new("/scratch"),
        &[],
        Duration::from_secs(600),
    );
    let envs: Vec<(String, Option<String>)> = cmd
        .get_envs()
        .map(|(k, v)| {
            (
                k.to_string_lossy().into_owned(),
                v.map(|v| v.to_string_lossy().into_owned()),
            )
        })
        .collect();
    let get = |k: &str| envs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    assert_eq!(get("MSBUILDTERMINALLOGGER"), Some(Some("off".into())));
    assert_eq!(get("DOTNET_CLI_UI_LANGUAGE"), Some(Some("en".into())));
    // The blame collector's temporary Sequence file stays inside the run's scratch space.
    assert_eq!(
        get("VSTEST_DUMP_TEMP_PATH"),
        Some(Some("/scratch/blame".into()))
    );
    // An exit code the platform is told to hide, a host that waits for a debugger: removed.
    assert_eq!(get("TESTINGPLATFORM_EXITCODE_IGNORE"), Some(None));
    assert_eq!(get("VSTEST_HOST_DEBUG"), Some(None));
    // Nothing else: the test host sees the caller's colour, telemetry and banner settings.
    let others: Vec<&(String, Option<String>)> = envs
        .iter()
        .filter(|(k, v)| {
            v.is_some()
                && ![
                    "MSBUILDTERMINALLOGGER",
                    "DOTNET_CLI_UI_LANGUAGE",
                    "VSTEST_DUMP_TEMP_PATH",
                ]
                .contains(&k.as_str())
        })
        .collect();
    assert!(others.is_empty(), "{others:?}");
    let removed: Vec<&str> = envs
        .iter()
        .filter(|(_, v)| v.is_none())
        .map(|(k, _)| k.as_str())
        .collect();
    assert!(
        !removed.contains(&"NO_COLOR") && !removed.contains(&"TERM"),
        "{removed:?}"
    );
}

#[test]
fn an_id_that_looks_like_an_option_never_reaches_dotnet() {
    let runs = Runs::new(&fixtures().join("vstest"));
    let ctx = runs.context(Duration::from_secs(60));
    // `dotnet` cannot start: had it been run, the answer would be RunnerMissing.
    let run = adapter("vstest")
        .run_with(
            Path::new("/nonexistent/dotnet"),
            &ctx,
            &["-x".into(), "--help".into()],
        )
        .unwrap();
    assert_eq!(run.status(), Status::TestsNotFound, "{run:#?}");
    assert_eq!(run.not_found, ["-x", "--help"]);
    // Metacharacters in a theory case's name stay inside the one filter argument, escaped.
    let d = adapter("vstest");
    let a = args(
        &d,
        &[r#"Calc.Tests.CalculatorTests.Echoes(s: "a|b&c=(d)")"#],
    );
    assert_eq!(
        a[11..],
        [
            "--filter",
            r#"DisplayName=Calc.Tests.CalculatorTests.Echoes\(s: "a\|b\&c\=\(d\)"\)"#
        ]
    );
}

#[test]
fn missing_dotnet_is_runner_missing_with_a_hint() {
    // A `dotnet` that cannot be started, whatever this machine has installed.
    let absent = Path::new("/nonexistent/dotnet");
    for (name, hint) in [
        ("vstest", "install the .NET SDK, tests run on vstest"),
        (
            "mtp",
            "install the .NET 10 SDK or later (global.json selects Microsoft.Testing.Platform), tests run on mtp",
        ),
        ("nunit", "install the .NET SDK 8.0.400 (global.json)"),
    ] {
        let root = fixtures().join(name);
        let adapters = pith_runner::detect(&root, Some("dotnet"));
        assert_eq!(adapters.len(), 1, "{name}");
        let runs = Runs::new(&root);
        let run = adapter(name)
            .run_with(absent, &runs.context(Duration::from_secs(60)), &[])
            .unwrap();
        assert_eq!(run.status(), Status::RunnerMissing, "{name}: {run:#?}");
        let h = run.hint.unwrap();
        assert!(h.contains(hint), "{name}: {h}");
        assert!(h.contains("https://dot.net/download") && !h.contains('\n'));
    }
}

/// A stand-in for `dotnet` replaying the recorded run `tests/fixtures/dotnet/runs/<run>`: it
/// copies the run's `results/` into the `--results-directory` it is given, prints its
/// `console.txt`, records its arguments next to that directory, then exits with the run's
/// code, or waits for pith's deadline when the run `hangs`.
fn fake_dotnet(dir: &Path, run: &str) -> PathBuf {
    let recorded = fixtures().join("runs").join(run);
    assert!(recorded.is_dir(), "no recorded run {run}");
    let script = format!(
        r#"#!/bin/sh
run='{}'
results=
prev=
for a in "$@"; do
  if [ "$prev" = "--results-directory" ]; then results=$a; fi
  prev=$a
done
[ -n "$results" ] || exit 90
printf '%s\n' "$@" > "$results/../argv.txt"
if [ -d "$run/results" ]; then cp -R "$run/results/." "$results/"; fi
cat "$run/console.txt"
if [ -f "$run/hangs" ]; then exec sleep 60; fi
exit "$(cat "$run/exit")"
"#,
        recorded.display()
    );
    let path = dir.join("dotnet");
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The recorded `run` replayed through the adapter on the fixture workspace `workspace`, with
/// `budget` before pith's deadline: the run and the arguments `dotnet` was given.
fn replay(workspace: &str, run: &str, budget: Duration, ids: &[&str]) -> (Run, Vec<String>) {
    let root = fixtures().join(workspace);
    let d = adapter(workspace);
    let runs = Runs::new(&root);
    let bin = tempfile::tempdir().unwrap();
    let program = fake_dotnet(bin.path(), run);
    let ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
    let run = d.run_with(&program, &runs.context(budget), &ids).unwrap();
    let argv = std::fs::read_to_string(runs.scratch().join("argv.txt")).unwrap_or_default();
    (run, argv.lines().map(str::to_owned).collect())
}

/// The value after `flag` in `argv`.
fn option<'a>(argv: &'a [String], flag: &str) -> Option<&'a str> {
    let i = argv.iter().position(|a| a == flag)?;
    argv.get(i + 1).map(String::as_str)
}

/// `27s` → 27.
fn secs(v: &str) -> u64 {
    v.strip_suffix('s')
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("not whole seconds: {v}"))
}

const HUNG: &str = "Hang.Tests.HangTests.WaitsFor(hours: 1)";

fn sequence_fixture() -> String {
    let path = fixtures().join(
        "runs/blame-hang/results/runner_buildhost_2025-05-12_10_31_07/In/buildhost/Sequence_5c3e1f0a9b2d4e6f8a1b2c3d4e5f6a7b.xml",
    );
    String::from_utf8(std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn the_blame_sequence_file_is_read_and_a_cut_one_refused() {
    let text = sequence_fixture();
    let entries = dotnet::parse_sequence(&text).unwrap();
    let names: Vec<(&str, Option<bool>)> = entries
        .iter()
        .map(|e| (e.display.as_str(), e.completed))
        .collect();
    assert_eq!(
        names,
        [
            ("Hang.Tests.HangTests.Adds", Some(true)),
            (HUNG, Some(false))
        ]
    );
    assert_eq!(entries[1].name, "Hang.Tests.HangTests.WaitsFor");
    assert_eq!(
        entries[1].source,
        "/work/hang/tests/Hang.Tests/bin/Debug/net8.0/Hang.Tests.dll"
    );
    // Cut before its end, the file may be missing the very test that was running.
    for at in [0, 3, 40, text.len() / 2, text.len() - 1] {
        assert!(dotnet::parse_sequence(&text[..at]).is_err(), "cut at {at}");
    }
    assert!(matches!(
        dotnet::parse_sequence(&ours("xunit-vstest.trx")),
        Err(dotnet::SequenceError::NotASequence)
    ));
}

#[test]
fn a_test_vstest_stops_for_hanging_is_named_and_timed_out() {
    // 61 s left: vstest is told to stop a test after 27 s without progress.
    let (run, argv) = replay("hang", "blame-hang", Duration::from_secs(61), &[]);
    assert_eq!(
        argv[..4],
        [
            "test",
            "--logger",
            "trx;LogFilePrefix=pith",
            "--results-directory"
        ]
    );
    assert!(argv.iter().any(|a| a == "--blame-hang"), "{argv:?}");
    assert_eq!(option(&argv, "--blame-hang-dump-type"), Some("none"));
    let t = secs(option(&argv, "--blame-hang-timeout").unwrap());
    assert!((25..=27).contains(&t), "{argv:?}");

    assert_eq!(run.status(), Status::TimedOut, "{run:#?}");
    // The Sequence file's display name; vstest's console line names the same test by its
    // fully qualified name, `Hang.Tests.HangTests.WaitsFor`, which is not a second test.
    assert_eq!(run.running, [HUNG], "{run:#?}");
    assert_eq!((run.passed, run.failed, run.skipped), (2, 1, 0), "{run:#?}");
    let f = failure(&run, HUNG);
    assert_eq!(f.kind.as_deref(), Some("timeout"));
    assert!(
        f.message.contains(&format!("no test finished for {t}s"))
            && f.message.contains("vstest's blame-hang"),
        "{}",
        f.message
    );
    assert!(
        run.build_errors.is_empty(),
        "MSB4181 is the aborted run, not the build"
    );
    assert!(run.hint.is_none(), "the test is named: {run:#?}");
    let tail = run.tail.as_deref().unwrap();
    assert!(
        tail.contains("The specified inactivity time of 27 seconds"),
        "{tail}"
    );

    // Asked for by id, the hung test was found though no report has its result.
    let (run, argv) = replay("hang", "blame-hang", Duration::from_secs(61), &[HUNG]);
    assert_eq!(
        option(&argv, "--filter"),
        Some(r"DisplayName=Hang.Tests.HangTests.WaitsFor\(hours: 1\)")
    );
    assert_eq!(run.status(), Status::TimedOut);
    assert_eq!(run.running, [HUNG]);
    assert!(run.not_found.is_empty(), "{run:#?}");
    assert_eq!((run.passed, run.failed), (0, 1), "{run:#?}");
}

#[test]
fn the_deadline_reads_what_an_earlier_hang_stop_left() {
    // Hang.Tests was stopped and named; Slow.Tests still runs when pith's deadline comes.
    let (run, _) = replay("hang", "deadline-after-blame", Duration::from_secs(4), &[]);
    assert_eq!(run.status(), Status::TimedOut, "{run:#?}");
    assert_eq!(run.running, [HUNG], "{run:#?}");
    assert_eq!(failure(&run, HUNG).kind.as_deref(), Some("timeout"));
    assert_eq!(run.passed, 1, "Adds, from Hang.Tests' report: {run:#?}");
    assert!(run.hint.is_none());
}

#[test]
fn the_deadline_with_nothing_named_says_how_to_have_it_named() {
    // 8 s left: vstest is told 1 s, but nothing has been stopped when pith's deadline comes.
    let (run, argv) = replay("hang", "deadline", Duration::from_secs(8), &[]);
    assert_eq!(
        option(&argv, "--blame-hang-timeout"),
        Some("1s"),
        "{argv:?}"
    );
    assert_eq!(run.status(), Status::TimedOut, "{run:#?}");
    assert!(
        run.running.is_empty() && run.failures.is_empty(),
        "{run:#?}"
    );
    let hint = run.hint.as_deref().unwrap();
    assert!(
        hint.contains("no running test named")
            && hint.contains("after 1s without progress")
            && hint.contains("longer --timeout"),
        "{hint}"
    );
    assert!(run
        .tail
        .as_deref()
        .unwrap()
        .contains("Starting test execution"));

    // Too little time left for a hang timeout at all: none is passed, and the hint says why.
    let (run, argv) = replay("hang", "deadline", Duration::from_secs(3), &[]);
    assert!(
        !argv.iter().any(|a| a.starts_with("--blame-hang")),
        "{argv:?}"
    );
    assert_eq!(run.status(), Status::TimedOut);
    let hint = run.hint.as_deref().unwrap();
    assert!(hint.contains("too little time"), "{hint}");
}

#[test]
fn a_test_the_hang_dump_stops_is_named_on_mtp() {
    let (run, argv) = replay("hang_mtp", "mtp-hang", Duration::from_secs(61), &[]);
    assert_eq!(
        argv[..4],
        ["test", "--no-ansi", "--no-progress", "--report-xunit-trx"]
    );
    assert!(argv.iter().any(|a| a == "--hangdump"), "{argv:?}");
    assert_eq!(option(&argv, "--hangdump-type"), Some("Mini"));
    let t = secs(option(&argv, "--hangdump-timeout").unwrap());
    assert!((25..=27).contains(&t), "{argv:?}");

    assert_eq!(run.status(), Status::TimedOut, "{run:#?}");
    assert_eq!(run.running, [HUNG], "{run:#?}");
    let f = failure(&run, HUNG);
    assert_eq!(f.kind.as_deref(), Some("timeout"));
    assert!(
        f.message.contains("the HangDump extension"),
        "{}",
        f.message
    );
}

#[test]
fn mtp_without_the_hang_dump_names_the_package_to_add() {
    // No hang option is passed (mtp_commands_per_mode): one the test app does not have fails
    // the run. Whatever pith's budget, nothing can name the test; the answer says what would.
    let (run, _) = replay("mtp", "mtp-deadline", Duration::from_secs(3), &[]);
    assert_eq!(run.status(), Status::TimedOut, "{run:#?}");
    assert!(run.running.is_empty());
    assert_eq!(
        run.hint.as_deref(),
        Some("no running test named: Microsoft.Testing.Platform names a hanging test only with the Microsoft.Testing.Extensions.HangDump package; add it to Calc.Tests.csproj")
    );
}

#[test]
fn every_report_of_ours_parses() {
    for name in OURS {
        let run = parse_ours(name);
        assert_eq!(run.runner, "dotnet");
        let tail_ok = run.tail.as_ref().is_none_or(|t| t.len() <= 1500);
        assert!(tail_ok, "{name}");
    }
    // No Results at all; empty Results and TestDefinitions.
    for name in ["empty.trx", "empty-definitions.trx"] {
        let run = parse_ours(name);
        assert_eq!(run.status(), Status::NoTestsRan, "{name}: {run:#?}");
    }
}

#[test]
fn every_sample_parses() {
    if !corpus() {
        return;
    }
    for name in SAMPLES {
        let run = parse(name);
        assert_eq!(run.runner, "dotnet");
        let tail_ok = run.tail.as_ref().is_none_or(|t| t.len() <= 1500);
        assert!(tail_ok, "{name}");
    }
    for name in ["empty.trx", "empty-test-definitions.trx"] {
        let run = parse(name);
        assert_eq!(run.status(), Status::NoTestsRan, "{name}: {run:#?}");
    }
}

#[test]
fn xunit_vstest_report() {
    let run = parse_ours("xunit-vstest.trx");
    assert_eq!((run.passed, run.failed, run.skipped), (3, 4, 1), "{run:#?}");
    assert_eq!(run.status(), Status::TestsFailed);

    let f = failure(&run, "Ledger.Tests.MoneyTests.Rounds_Half_Up");
    assert_eq!(
        f.message,
        "Assert.Equal() Failure (Expected: 251, Actual: 250)"
    );
    assert_eq!(f.kind.as_deref(), Some("Assert.Equal"));
    // C:\agent\_work\3\s\tests\Ledger.Tests\MoneyTests.cs:line 16, found here by its longest
    // suffix.
    assert_eq!(
        frames(f),
        ["tests/Ledger.Tests/MoneyTests.cs:16 Assert.Equal(251, new Money(2505).RoundHalfEven(10));"]
    );

    let f = failure(&run, "Ledger.Tests.MoneyTests.Split_By_Zero");
    assert_eq!(
        f.message,
        "System.DivideByZeroException : Attempted to divide by zero."
    );
    assert_eq!(f.kind.as_deref(), Some("System.DivideByZeroException"));
    assert_eq!(
        frames(f),
        [
            "tests/Ledger.Tests/MoneyTests.cs:22 var parts = new Money(100).Split(0);",
            "src/Ledger/Money.cs:9 var share = Cents / parts;",
        ],
        "outermost first"
    );

    // Theory cases keep their display names; one the author chose stays as it is.
    failure(&run, "Ledger.Tests.MoneyTests.Is_Positive(cents: -5)");
    let custom = failure(&run, "Balance never negative(start: -1)");
    assert_eq!(
        custom.message,
        "Assert.True() Failure (Expected: True, Actual: False)"
    );
}

#[test]
fn xunit_vstest_sample() {
    if !corpus() {
        return;
    }
    let run = parse("xunit-dotnet.trx");
    assert_eq!((run.passed, run.failed, run.skipped), (5, 5, 1), "{run:#?}");
    assert_eq!(run.status(), Status::TestsFailed);

    let f = failure(&run, "DotnetTests.XUnitTests.CalculatorTests.Failing_Test");
    assert_eq!(f.message, "Assert.Equal() Failure (Expected: 3, Actual: 2)");
    assert_eq!(f.kind.as_deref(), Some("Assert.Equal"));
    // C:\Users\Michal\...\reports\dotnet\DotnetTests.XUnitTests\CalculatorTests.cs:line 27,
    // found here by its longest suffix.
    assert_eq!(
        frames(f),
        ["reports/dotnet/DotnetTests.XUnitTests/CalculatorTests.cs:27 Assert.Equal(3, sum);"]
    );

    let f = failure(
        &run,
        "DotnetTests.XUnitTests.CalculatorTests.Exception_In_TargetTest",
    );
    assert_eq!(
        f.message,
        "System.DivideByZeroException : Attempted to divide by zero."
    );
    assert_eq!(f.kind.as_deref(), Some("System.DivideByZeroException"));
    assert_eq!(
        frames(f),
        [
            "reports/dotnet/DotnetTests.XUnitTests/CalculatorTests.cs:33 _calc.Div(1, 0);",
            "reports/dotnet/DotnetTests.Unit/Calculator.cs:9 return a / b;",
        ],
        "outermost first"
    );

    // Parametrized cases keep their display names; one the author chose stays as it is.
    failure(
        &run,
        "DotnetTests.XUnitTests.CalculatorTests.Is_Even_Number(i: 3)",
    );
    let custom = failure(&run, "Should be even number(i: 3)");
    assert_eq!(
        custom.message,
        "Assert.True() Failure (Expected: True, Actual: False)"
    );
}

#[test]
fn xunit_v3_mtp_report_maps_deterministic_paths() {
    let run = parse_ours("xunit-v3-mtp.trx");
    assert_eq!((run.passed, run.failed, run.skipped), (2, 2, 1), "{run:#?}");
    let f = failure(&run, "Ledger.V3Tests.ClockTests.Parses_Iso_Dates");
    assert_eq!(
        f.message,
        "Assert.Equal() Failure: Values differ (Expected: 29, Actual: 1)"
    );
    // /_/tests/Ledger.V3Tests/ClockTests.cs:line 18
    assert_eq!(
        frames(f),
        ["tests/Ledger.V3Tests/ClockTests.cs:18 Assert.Equal(29, date.AddDays(1).Day);"]
    );
    // The runtime's own frames stay, outside the project.
    assert!(f.frames.iter().any(|fr| !fr.project
        && fr
            .file
            .starts_with("System.RuntimeMethodHandle.InvokeMethod")));
    // A class cleanup failure is a result of its own, without an error: teardown, "failed".
    let cleanup = failure(
        &run,
        "[Test Class Cleanup Failure (Ledger.V3Tests.ClockTests.Parses_Iso_Dates)]",
    );
    assert_eq!(cleanup.phase, Phase::Teardown);
    assert_eq!(cleanup.message, "failed");
}

#[test]
fn xunit_v3_mtp_sample_maps_deterministic_paths() {
    if !corpus() {
        return;
    }
    let run = parse("xunit-v3-mtp.trx");
    assert_eq!((run.passed, run.failed, run.skipped), (1, 3, 0), "{run:#?}");
    let f = failure(&run, "DotnetTests.XUnitV3Tests.FixtureTests.Failing_Test");
    assert_eq!(
        f.message,
        "Assert.Null() Failure: Value is not null (Expected: null, Actual: Fixture { })"
    );
    // /_/reports/dotnet/DotnetTests.XUnitV3Tests/FixtureTests.cs:line 25
    assert_eq!(
        frames(f),
        ["reports/dotnet/DotnetTests.XUnitV3Tests/FixtureTests.cs:25 Assert.Null(fixture);"]
    );
    // The runtime's own frames stay, outside the project.
    assert!(f.frames.iter().any(|fr| !fr.project
        && fr
            .file
            .starts_with("System.RuntimeMethodHandle.InvokeMethod")));
    let cleanup = failure(
        &run,
        "[Test Class Cleanup Failure (DotnetTests.XUnitV3Tests.FixtureTests.Failing_Test)]",
    );
    assert_eq!(cleanup.phase, Phase::Teardown);
    assert_eq!(cleanup.message, "failed");
}

#[test]
fn nunit_report_ids_join_class_and_case() {
    let run = parse_ours("nunit-vstest.trx");
    assert_eq!((run.passed, run.failed, run.skipped), (3, 3, 1), "{run:#?}");
    let f = failure(&run, "Ledger.NUnit.RatesTests.Rejects_Unknown_Currency");
    assert_eq!(f.message, "Expected: True, But was: False");
    assert_eq!(
        frames(f),
        ["tests/Ledger.NUnit/RatesTests.cs:18 Assert.That(known.Contains(\"XXX\"), Is.True);"]
    );
    // A case's arguments, quotes and all, after the class.
    let f = failure(&run, "Ledger.NUnit.RatesTests.Converts(\"EUR\",2)");
    assert_eq!(f.message, "Expected: 2m, But was: 1.9m");
    let f = failure(&run, "Ledger.NUnit.RatesTests.Loads_Rates_File");
    assert_eq!(f.kind.as_deref(), Some("System.IO.FileNotFoundException"));
    // The longest existing suffix wins over the decoy Rates.cs at the root.
    assert_eq!(
        frames(f),
        [
            "tests/Ledger.NUnit/RatesTests.cs:31 var rates = Rates.Load(\"rates.csv\");",
            "src/Ledger/Rates.cs:10 foreach (var line in File.ReadLines(path))",
        ]
    );
}

#[test]
fn nunit_sample_ids_join_class_and_case() {
    if !corpus() {
        return;
    }
    let run = parse("nunit-netcoreapp3.1.trx");
    assert_eq!((run.passed, run.failed, run.skipped), (2, 3, 1), "{run:#?}");
    let f = failure(&run, "SampleProject.NUnit.TestServiceTests.FailTest");
    assert_eq!(f.message, "Expected: True, But was: False");
    assert_eq!(
        frames(f),
        ["SampleProject/SampleProject.Tests.NUnit/TestServiceTests.cs:61 Assert.That(false, Is.True);"]
    );
    failure(
        &run,
        "SampleProject.NUnit.TestServiceTests.TestTheory(False)",
    );
    let f = failure(
        &run,
        "SampleProject.NUnit.TestServiceTests.TestThrowingException",
    );
    assert_eq!(f.message, "System.Exception : Pretty good exception");
    // The longest existing suffix wins over the decoy TestService.cs at the root.
    assert_eq!(
        frames(f),
        [
            "SampleProject/SampleProject.Tests.NUnit/TestServiceTests.cs:50 service.GetException();",
            "SampleProject/SampleProject/TestService.cs:19 throw new Exception(\"Pretty good exception\");",
        ]
    );
}

#[test]
fn xunit_v2_and_mstest_reports() {
    let run = parse_ours("xunit-v2-integration.trx");
    assert_eq!((run.passed, run.failed, run.skipped), (1, 2, 1), "{run:#?}");
    let f = failure(&run, "Ledger.Integration.ImportTests.Imports_Legacy_File");
    // Its test file is not in this workspace; Rates.cs is.
    assert_eq!(
        frames(f),
        ["src/Ledger/Rates.cs:20 throw new InvalidDataException(\"missing header row\");"]
    );
    failure(
        &run,
        "Ledger.Integration.ImportTests.Accepts_Encoding(name: \"latin1\")",
    );

    let run = parse_ours("mstest-legacy.trx");
    // Timeout fails; Inconclusive is not a pass.
    assert_eq!((run.passed, run.failed, run.skipped), (2, 2, 1), "{run:#?}");
    let f = failure(&run, "Ledger.Specs.CheckoutFeature.RefundTwice");
    assert_eq!(
        f.message,
        "Test method Ledger.Specs.CheckoutFeature.RefundTwice threw exception: Ledger.Specs.Support.RefundRejectedException: refund already issued"
    );
    assert_eq!(
        f.kind.as_deref(),
        Some("Ledger.Specs.Support.RefundRejectedException")
    );
    // None of its files is here: every frame is a library frame.
    assert!(f.project_frames().next().is_none(), "{f:#?}");
    assert_eq!(
        f.frames.last().unwrap().file,
        "E:\\ci\\checkout-specs\\Ledger.Specs\\CheckoutSteps.cs"
    );
    let timeout = failure(&run, "Ledger.Specs.CheckoutFeature.ApplyExpiredCoupon");
    assert_eq!(timeout.message, "timed out");
    assert_eq!(timeout.kind.as_deref(), Some("Timeout"));
}

#[test]
fn xunit_v2_and_mstest_samples() {
    if !corpus() {
        return;
    }
    let run = parse("xunit-netcoreapp3.1.trx");
    assert_eq!((run.passed, run.failed, run.skipped), (2, 3, 1), "{run:#?}");
    let f = failure(
        &run,
        "SampleProject.xUnit.TestServiceTests.TestThrowingException",
    );
    // Its test file is not in this workspace; TestService.cs is.
    assert_eq!(
        frames(f),
        ["SampleProject/SampleProject/TestService.cs:19 throw new Exception(\"Pretty good exception\");"]
    );
    failure(
        &run,
        "SampleProject.xUnit.TestServiceTests.TestTheory(expected: False)",
    );

    let run = parse("mstest-pickles.trx");
    assert_eq!((run.passed, run.failed, run.skipped), (3, 1, 0), "{run:#?}");
    let f = failure(
        &run,
        "Pickles.TestHarness.MSTest.AdditionFeature.FailToAddTwoNumbers",
    );
    assert_eq!(
        f.message,
        "Test method Pickles.TestHarness.MSTest.AdditionFeature.FailToAddTwoNumbers threw exception: Should.Core.Exceptions.NotEqualException: Assert.NotEqual() Failure"
    );
    assert_eq!(
        f.kind.as_deref(),
        Some("Should.Core.Exceptions.NotEqualException")
    );
    // None of its files is here: every frame is a library frame.
    assert!(f.project_frames().next().is_none(), "{f:#?}");
    assert_eq!(
        f.frames.last().unwrap().file,
        "C:\\dev\\pickles-results-harness\\Pickles.TestHarness\\Pickles.TestHarness.MSTest\\Steps.cs"
    );
}

#[test]
fn truncated_and_foreign_documents_are_errors() {
    let mut texts = vec![ours("xunit-vstest.trx")];
    if corpus() {
        texts.push(sample("xunit-dotnet.trx"));
    }
    for text in texts {
        let mut half = text.len() / 2;
        while !text.is_char_boundary(half) {
            half -= 1;
        }
        assert!(dotnet::parse_trx(&text[..half], &our_workspace()).is_err());
    }
    assert!(dotnet::parse_trx("<testsuites/>", &traces()).is_err());
    assert!(dotnet::parse_trx("", &traces()).is_err());
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn on_truncations_of_every_report(cut in 0usize..30000, which in 0usize..14) {
            let all = every_report();
            let text = &all[which % all.len()];
            let mut at = cut.min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let _ = dotnet::parse_trx(&text[..at], &traces());
        }

        #[test]
        fn on_garbage(s in "(?s).{0,600}") {
            let _ = dotnet::parse_trx(&s, &traces());
            let wrapped = format!(
                "<TestRun xmlns=\"http://microsoft.com/schemas/VisualStudio/TeamTest/2010\"><Results><UnitTestResult testId=\"a\" testName=\"A.B.C\" outcome=\"Failed\"><Output><ErrorInfo><Message>{s}</Message><StackTrace>   at A.B.C() in {s}:line 3</StackTrace></ErrorInfo></Output></UnitTestResult></Results></TestRun>"
            );
            let _ = dotnet::parse_trx(&wrapped, &traces());
        }

        #[test]
        fn on_cuts_and_splices_of_a_sequence_file(at in 0usize..2000, junk in proptest::collection::vec(any::<u8>(), 0..32)) {
            let text = sequence_fixture();
            let mut cut = at.min(text.len());
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            let _ = dotnet::parse_sequence(&text[..cut]);
            let mut bytes = text.into_bytes();
            let at = at.min(bytes.len());
            bytes.splice(at..at, junk);
            let _ = dotnet::parse_sequence(&String::from_utf8_lossy(&bytes));
        }

        #[test]
        fn on_bytes_spliced_into_a_report(at in 0usize..20000, junk in proptest::collection::vec(any::<u8>(), 0..64), which in 0usize..14) {
            let all = every_report();
            let mut bytes = all[which % all.len()].clone().into_bytes();
            let at = at.min(bytes.len());
            bytes.splice(at..at, junk);
            let _ = dotnet::parse_trx(&String::from_utf8_lossy(&bytes), &traces());
        }
    }
}

#[test]
fn the_detail_is_the_whole_message_and_the_inner_exceptions() {
    let xunit = parse_ours("xunit-vstest.trx");
    let f = failure(&xunit, "Ledger.Tests.MoneyTests.Rounds_Half_Up");
    assert_eq!(
        f.detail.as_deref(),
        Some("Assert.Equal() Failure\nExpected: 251\nActual:   250")
    );
    let one_line = failure(&xunit, "Ledger.Tests.MoneyTests.Split_By_Zero");
    assert_eq!(one_line.detail, None, "the message says it all");
    let mstest = parse_ours("mstest-legacy.trx");
    let f = failure(&mstest, "Ledger.Specs.CheckoutFeature.RefundTwice");
    assert_eq!(
        f.detail.as_deref(),
        Some("Test method Ledger.Specs.CheckoutFeature.RefundTwice threw exception:\nLedger.Specs.Support.RefundRejectedException: refund already issued")
    );
    // xUnit's shape of an exception with an inner one: the inner's words in the message, its
    // stack after the marker.
    let trx = ours("xunit-vstest.trx")
        .replacen(
            "<Message>System.DivideByZeroException : Attempted to divide by zero.",
            "<Message>System.InvalidOperationException : could not split&#xD;\n---- System.DivideByZeroException : Attempted to divide by zero.",
            1,
        );
    let stack_at = trx.find("Attempted to divide by zero.").unwrap();
    let stack_start =
        trx[stack_at..].find("<StackTrace>").unwrap() + stack_at + "<StackTrace>".len();
    let mut trx = trx;
    trx.insert_str(
        stack_start,
        "   at Ledger.Money.Split(Int32 parts) in /build/src/Ledger/Money.cs:line 30&#xD;\n----- Inner Stack Trace -----&#xD;\n   at System.Decimal.op_Division(Decimal d1, Decimal d2)&#xD;\n   at Ledger.Money.Share(Int32 parts) in /build/src/Ledger/Money.cs:line 41&#xD;\n",
    );
    let run = dotnet::parse_trx(&trx, &our_workspace()).unwrap();
    let f = failure(&run, "Ledger.Tests.MoneyTests.Split_By_Zero");
    let detail = f.detail.as_deref().unwrap();
    assert!(
        detail.starts_with("System.InvalidOperationException : could not split\n---- System.DivideByZeroException : Attempted to divide by zero.\n\n"),
        "{detail}"
    );
    assert!(
        detail.contains("----- Inner Stack Trace -----\n   at Ledger.Money.Share(Int32 parts) in Ledger/Money.cs:line 41"),
        "{detail}"
    );
    assert!(
        !detail.contains("op_Division"),
        "framework frames stay out: {detail}"
    );
}
