//! The .NET adapter without a .NET SDK (none is installed here): detection and the test
//! platform from fixture project files we wrote, the `dotnet test` command lines and filters
//! built for them, what a run does when `dotnet` is missing, and the TRX reader on the real
//! report samples (`$PITH_SAMPLES/trx`) against a workspace holding the source files their
//! stack traces name (tests/fixtures/dotnet/traces), so the suffix mapping runs for real.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pith_model::{Phase, Run, Status};
use pith_runner::dotnet::{self, Dotnet, Framework, Platform};
use pith_runner::{Context, PathMap};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/dotnet")
}

/// The real report samples: `$PITH_SAMPLES`, else `<repo>/../shared/samples`.
fn samples() -> PathBuf {
    let dir = std::env::var_os("PITH_SAMPLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/samples"));
    assert!(
        dir.join("trx").is_dir(),
        "report samples not found at {} (set PITH_SAMPLES)",
        dir.display()
    );
    dir
}

const SAMPLES: [&str; 7] = [
    "xunit-dotnet.trx",
    "xunit-v3-mtp.trx",
    "empty.trx",
    "empty-test-definitions.trx",
    "mstest-pickles.trx",
    "nunit-netcoreapp3.1.trx",
    "xunit-netcoreapp3.1.trx",
];

fn sample(name: &str) -> String {
    let bytes = std::fs::read(samples().join("trx").join(name)).unwrap();
    String::from_utf8_lossy(&bytes).into_owned()
}

fn traces() -> PathMap {
    PathMap::new(&fixtures().join("traces"))
}

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
        ],
        "the only solution in the directory: dotnet test picks it"
    );
    assert_eq!(
        args(
            &d,
            &[
                "Calc.Tests.CalculatorTests.Adds",
                "Calc.Tests.CalculatorTests.AddsPairs(a: 2, b: 2, want: 5)"
            ]
        )[6..],
        [
            "--filter",
            r"FullyQualifiedName=Calc.Tests.CalculatorTests.Adds|DisplayName=Calc.Tests.CalculatorTests.AddsPairs\(a: 2, b: 2, want: 5\)"
        ]
    );
    let n = adapter("nunit");
    assert_eq!(
        args(&n, &["Calc.Tests.CalculatorTests.Adds(2,2,5)"])[6..],
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
    let cmd = d.command(Path::new("/opt/dotnet/dotnet"), Path::new("/scratch"), &[]);
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
    assert_eq!(get("NO_COLOR"), Some(Some("1".into())));
}

#[test]
fn missing_dotnet_is_runner_missing_with_a_hint() {
    if pith_runner::on_path("dotnet").is_some() {
        // This machine has an SDK: the run is real, and must not claim the runner is missing.
        return;
    }
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
        let paths = PathMap::new(&root);
        let scratch = tempfile::tempdir().unwrap();
        let cache = tempfile::tempdir().unwrap();
        let ctx = Context {
            root: &root,
            paths: &paths,
            deadline: Instant::now() + Duration::from_secs(60),
            scratch: scratch.path(),
            cache: cache.path(),
            cancel: None,
        };
        let run = adapters[0].run(&ctx, &[]).unwrap();
        assert_eq!(run.status(), Status::RunnerMissing, "{name}: {run:#?}");
        let h = run.hint.unwrap();
        assert!(h.contains(hint), "{name}: {h}");
        assert!(h.contains("https://dot.net/download") && !h.contains('\n'));
    }
}

#[test]
fn every_sample_parses() {
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
fn xunit_vstest_sample() {
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
fn xunit_v3_mtp_sample_maps_deterministic_paths() {
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
fn nunit_sample_ids_join_class_and_case() {
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
fn xunit_v2_and_mstest_samples() {
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
    let text = sample("xunit-dotnet.trx");
    let cut = &text[..text.len() / 2];
    assert!(dotnet::parse_trx(cut, &traces()).is_err());
    assert!(dotnet::parse_trx("<testsuites/>", &traces()).is_err());
    assert!(dotnet::parse_trx("", &traces()).is_err());
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn on_truncations_of_every_sample(cut in 0usize..30000, which in 0usize..7) {
            let text = sample(SAMPLES[which]);
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
        fn on_bytes_spliced_into_a_sample(at in 0usize..20000, junk in proptest::collection::vec(any::<u8>(), 0..64)) {
            let text = sample("xunit-v3-mtp.trx");
            let mut bytes = text.into_bytes();
            let at = at.min(bytes.len());
            bytes.splice(at..at, junk);
            let _ = dotnet::parse_trx(&String::from_utf8_lossy(&bytes), &traces());
        }
    }
}
