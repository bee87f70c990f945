//! The `dotnet test` command line for a layout: where the TRX reports go and how requested test
//! ids become filters, per platform and test framework.
//!
//! - VSTest: `dotnet test [TARGET] --logger trx;LogFilePrefix=pith --results-directory DIR
//!   --blame [--blame-hang --blame-hang-timeout Ts --blame-hang-dump-type none] [--filter
//!   EXPR]`. `LogFilePrefix` rather than `LogFileName`: with a fixed file name every test
//!   project of a solution overwrites the same report (microsoft/vstest#3026); the prefix gives
//!   each its own file, and every `.trx` in DIR is read. `--blame` makes VSTest name the test
//!   that was running when a test host crashed; `--blame-hang` makes it kill a test host that
//!   made no progress for T and name the test that hung, without a dump (none is read).
//! - MTP, .NET 10 MTP mode (global.json): `dotnet test [--solution|--project TARGET]
//!   --no-ansi --no-progress --report-trx --results-directory DIR [--hangdump --hangdump-timeout
//!   Ts --hangdump-type Mini] [filters]`.
//! - MTP through the VSTest mode's bridge: `dotnet test [TARGET] -- --report-trx
//!   --results-directory DIR [hang options] [filters]` (MTP options go after the extra `--`).
//!
//! MTP's hang options exist only in test projects that have the HangDump extension, and an
//! unknown option fails the whole run, so they are passed only when every test project has it.
//! Its dump type is `Mini`, the smallest every version accepts (`None` is recent).
//!
//! The hang timeout T: see [`hang_timeout`].
//!
//! xUnit v3 on MTP without the TrxReport extension writes its own TRX (`--report-xunit-trx`).
//!
//! Filters: VSTest's expression language (`FullyQualifiedName=A.B.C|...`, values escaped) for
//! VSTest and for NUnit and MSTest on MTP; `--filter-method` for xUnit v3 on MTP. xUnit's
//! fully qualified name has no arguments, so a theory case is selected by its `DisplayName`;
//! MSTest's neither, so its data rows are selected by method and the run keeps just the
//! requested ones (the caller's post-filter).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::project::{Framework, Layout, Platform};
use super::Dotnet;

/// Variables of the caller's shell removed from `dotnet test`'s environment, each because it
/// would falsify what pith reads: an exit code the platform is told to hide (exit codes are
/// evidence), or a test host that waits for a debugger to attach (a hang pith would answer as
/// a timeout). Every other variable is the caller's, as the tests would see it run by hand.
const SCRUBBED_ENV: &[&str] = &[
    "TESTINGPLATFORM_EXITCODE_IGNORE",
    "TESTINGPLATFORM_LAUNCH_ATTACH_DEBUGGER",
    "VSTEST_HOST_DEBUG",
    "VSTEST_RUNNER_DEBUG",
    "VSTEST_DATACOLLECTOR_DEBUG",
];

impl Dotnet {
    /// The hang timeout this workspace's platform is given with `remaining` left before pith's
    /// deadline: none on MTP without the HangDump extension, which has no such option.
    pub(super) fn hang(&self, remaining: Duration) -> Option<Duration> {
        let supported = match self.layout.platform {
            Platform::Vstest | Platform::None => true,
            Platform::Mtp { .. } => self.layout.hang_dump(),
        };
        hang_timeout(remaining).filter(|_| supported)
    }

    /// The full command for `dotnet` at `program`, reports into `results`, running `ids`
    /// (all tests when empty), with `remaining` left before pith's deadline.
    pub fn command(
        &self,
        program: &Path,
        results: &Path,
        ids: &[String],
        remaining: Duration,
    ) -> std::process::Command {
        let mut cmd = crate::base_command(program, &self.dir);
        for var in SCRUBBED_ENV {
            cmd.env_remove(var);
        }
        // What pith reads besides the TRX is console text: the crash and hang lines of VSTest
        // and MTP, and MSBuild's `error CS...` lines. The CLI, MSBuild and VSTest print it in
        // the language this variable names (the user's otherwise), and MSBuild's terminal
        // logger, when forced on, rewrites those lines in place. Both are read by the .NET
        // tooling, never by the runtime: a test host inherits them, but its cultures come from
        // LANG/LC_ALL, which stay the caller's, so a test of culture-dependent formatting or
        // localized resources runs as by hand. Only a test that reads these variables by name
        // would see them.
        cmd.env("DOTNET_CLI_UI_LANGUAGE", "en")
            .env("MSBUILDTERMINALLOGGER", "off");
        if matches!(self.layout.platform, Platform::Vstest | Platform::None) {
            // The blame collector writes its Sequence file to a temporary directory before
            // moving it into the results: there, the scratch directory keeps it from outliving
            // the run, and a file the move did not reach is still found.
            cmd.env("VSTEST_DUMP_TEMP_PATH", results.join("blame"));
        }
        cmd.args(args(&self.layout, results, ids, self.hang(remaining)));
        cmd
    }
}

/// `dotnet` on PATH, else in `$DOTNET_ROOT` or `~/.dotnet` (where the install script puts it).
pub(super) fn find_dotnet() -> Option<PathBuf> {
    crate::on_path("dotnet").or_else(|| {
        [
            std::env::var_os("DOTNET_ROOT").map(PathBuf::from),
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".dotnet")),
        ]
        .into_iter()
        .flatten()
        .map(|d| d.join("dotnet"))
        .find(|p| crate::is_executable(p))
    })
}

pub(super) fn is_test_id(id: &str) -> bool {
    if id.is_empty() || id != id.trim() || id.contains("::") {
        return false;
    }
    let b = base(id);
    let params = b.len() < id.len();
    let segments: Vec<&str> = b.split('.').collect();
    let ident = |s: &&str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || "_`+<>,".contains(c))
    };
    segments.len() >= 2 && segments.iter().all(ident) && (segments.len() >= 3 || params)
}

/// The arguments after `dotnet`. `hang`: the platform's own hang timeout, when there is one to
/// set ([`hang_timeout`]).
pub fn args(
    layout: &Layout,
    results: &Path,
    ids: &[String],
    hang: Option<Duration>,
) -> Vec<OsString> {
    let mut a: Vec<OsString> = vec!["test".into()];
    let frameworks = layout.frameworks();
    let framework = match frameworks.as_slice() {
        [one] => *one,
        _ => Framework::Unknown,
    };
    match layout.platform {
        Platform::Vstest | Platform::None => {
            if let Some(t) = &layout.target {
                a.push(t.into());
            }
            a.extend(["--logger".into(), "trx;LogFilePrefix=pith".into()]);
            a.push("--results-directory".into());
            a.push(results.into());
            a.push("--blame".into());
            if let Some(t) = hang {
                a.extend([
                    "--blame-hang".into(),
                    "--blame-hang-timeout".into(),
                    seconds(t).into(),
                    "--blame-hang-dump-type".into(),
                    "none".into(),
                ]);
            }
            if let Some(expr) = vstest_filter(framework, ids) {
                a.extend(["--filter".into(), expr.into()]);
            }
        }
        Platform::Mtp { native } => {
            if native {
                if let Some(t) = &layout.target {
                    a.push(if layout.target_is_solution {
                        "--solution".into()
                    } else {
                        "--project".into()
                    });
                    a.push(t.into());
                }
                a.extend(["--no-ansi".into(), "--no-progress".into()]);
            } else {
                if let Some(t) = &layout.target {
                    a.push(t.into());
                }
                a.push("--".into());
            }
            a.push(trx_flag(layout).into());
            a.push("--results-directory".into());
            a.push(results.into());
            if let Some(t) = hang.filter(|_| layout.hang_dump()) {
                a.extend([
                    "--hangdump".into(),
                    "--hangdump-timeout".into(),
                    seconds(t).into(),
                    "--hangdump-type".into(),
                    "Mini".into(),
                ]);
            }
            a.extend(mtp_filter(framework, ids).into_iter().map(OsString::from));
        }
    }
    a
}

/// The hang timeout to give the platform when `remaining` is left before pith's deadline, so
/// that the platform, not pith, stops a hanging test and names it (VSTest's Sequence file,
/// MTP's hang-dump list): pith's own kill leaves no such record.
///
/// Both platforms time inactivity, not the run: T counts from the last test that started or
/// finished, and the build before the first test takes an unknown share of `remaining`. A T
/// just under `remaining` (go's `-timeout` model) would therefore only ever fire for a test
/// that hung in the first seconds. Half of what is left after a margin (a tenth, 5 to 30 s,
/// for the platform to kill the host, write its reports and exit) names every hang that
/// starts in the first half of the budget, which with the default 600 s leaves a 285 s hang
/// threshold: a test that runs longer than that without any other test finishing is stopped
/// and reported timed out. `None` when too little is left for the timeout to mean anything.
pub fn hang_timeout(remaining: Duration) -> Option<Duration> {
    let margin = (remaining / 10).clamp(Duration::from_secs(5), Duration::from_secs(30));
    let t = Duration::from_secs(remaining.saturating_sub(margin).as_secs() / 2);
    (t >= Duration::from_secs(1)).then_some(t)
}

/// `285s`: whole seconds, a form both platforms' timespan parsers accept.
fn seconds(t: Duration) -> String {
    format!("{}s", t.as_secs())
}

/// MTP's TRX option: the TrxReport extension's, unless every test project is xUnit v3 without
/// that extension (xUnit v3 writes TRX itself).
fn trx_flag(layout: &Layout) -> &'static str {
    let xunit_own = layout.test_projects.iter().all(|p| {
        p.framework() == Framework::XunitV3
            && !p
                .packages
                .iter()
                .any(|k| k.eq_ignore_ascii_case("Microsoft.Testing.Extensions.TrxReport"))
    });
    if xunit_own && !layout.test_projects.is_empty() {
        "--report-xunit-trx"
    } else {
        "--report-trx"
    }
}

/// `Ns.Class.Method(i: 3)` → `Ns.Class.Method`.
pub fn base(id: &str) -> &str {
    match id.find('(') {
        Some(i) => id[..i].trim_end(),
        None => id,
    }
}

/// A fully qualified name: dotted, no spaces (display names chosen by the test author are not).
fn qualified(base: &str) -> bool {
    base.contains('.') && !base.contains(char::is_whitespace)
}

/// One VSTest filter clause per id, OR-ed.
pub fn vstest_filter(framework: Framework, ids: &[String]) -> Option<String> {
    if ids.is_empty() {
        return None;
    }
    let mut clauses: Vec<String> = Vec::new();
    for id in ids {
        let b = base(id);
        let clause = match framework {
            Framework::Xunit | Framework::XunitV3 if b != id || !qualified(b) => {
                format!("DisplayName={}", escape(id))
            }
            Framework::Nunit => format!("FullyQualifiedName={}", escape(id)),
            _ => format!("FullyQualifiedName={}", escape(b)),
        };
        if !clauses.contains(&clause) {
            clauses.push(clause);
        }
    }
    Some(clauses.join("|"))
}

/// MTP filter arguments. Nothing when an id cannot be expressed (an xUnit v3 display name
/// chosen by the author): then everything runs and the caller keeps the requested ids.
pub fn mtp_filter(framework: Framework, ids: &[String]) -> Vec<String> {
    if ids.is_empty() {
        return Vec::new();
    }
    match framework {
        Framework::XunitV3 => {
            if !ids.iter().all(|id| qualified(base(id))) {
                return Vec::new();
            }
            let mut methods: Vec<String> = Vec::new();
            for id in ids {
                let b = base(id).to_owned();
                if !methods.contains(&b) {
                    methods.push(b);
                }
            }
            std::iter::once("--filter-method".to_owned())
                .chain(methods)
                .collect()
        }
        Framework::Nunit | Framework::Mstest => vstest_filter(framework, ids)
            .map(|e| vec!["--filter".to_owned(), e])
            .unwrap_or_default(),
        Framework::Xunit | Framework::Unknown => Vec::new(),
    }
}

/// VSTest filter values escape the operators and grouping characters with a backslash.
pub fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if matches!(c, '\\' | '(' | ')' | '&' | '|' | '=' | '!' | '~') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn claims_dotnet_ids_only() {
        assert!(is_test_id("Ns.CalcTests.Adds"));
        assert!(is_test_id("Ns.CalcTests.IsEven(i: 3)"));
        assert!(is_test_id("CalcTests.IsEven(False)"));
        assert!(is_test_id("Ns.Outer+Inner.Generic`1.M"));
        assert!(!is_test_id("Sum.Adds"), "a GoogleTest id");
        assert!(!is_test_id("Inst/Suite.Test/0"));
        assert!(!is_test_id("tests/test_x.py::test_a"));
        assert!(!is_test_id("mycrate tests::it_works"));
        assert!(!is_test_id("Should be even(i: 3)"));
        assert!(!is_test_id(""));
    }

    use super::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn vstest_filters_per_framework() {
        let req = ids(&[
            "Ns.CalcTests.Adds",
            "Ns.CalcTests.IsEven(i: 3)",
            "Should be even(i: 3)",
        ]);
        assert_eq!(
            vstest_filter(Framework::Xunit, &req).unwrap(),
            r"FullyQualifiedName=Ns.CalcTests.Adds|DisplayName=Ns.CalcTests.IsEven\(i: 3\)|DisplayName=Should be even\(i: 3\)"
        );
        assert_eq!(
            vstest_filter(Framework::Nunit, &ids(&["Ns.T.Theory(False)", "Ns.T.A"])).unwrap(),
            r"FullyQualifiedName=Ns.T.Theory\(False\)|FullyQualifiedName=Ns.T.A"
        );
        // MSTest data rows: by method, once.
        assert_eq!(
            vstest_filter(
                Framework::Mstest,
                &ids(&["Ns.T.Add (1,2)", "Ns.T.Add (2,2)"])
            )
            .unwrap(),
            "FullyQualifiedName=Ns.T.Add"
        );
        assert_eq!(escape(r"a|b&c=d!e~f\g"), r"a\|b\&c\=d\!e\~f\\g");
        assert_eq!(vstest_filter(Framework::Xunit, &[]), None);
    }

    fn layout(platform: Platform, packages: &[&str]) -> Layout {
        Layout {
            target: None,
            target_is_solution: false,
            test_projects: vec![super::super::project::Project {
                path: "T.Tests.csproj".into(),
                packages: packages.iter().map(|p| p.to_string()).collect(),
                sdks: vec!["Microsoft.NET.Sdk".into()],
                props: Vec::new(),
            }],
            platform,
            sdk_version: None,
            shared_packages: Vec::new(),
        }
    }

    fn argv(layout: &Layout, hang: Option<u64>) -> Vec<String> {
        args(layout, Path::new("/r"), &[], hang.map(Duration::from_secs))
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn hang_options_per_platform() {
        let vstest = layout(Platform::Vstest, &["Microsoft.NET.Test.Sdk", "xunit"]);
        assert_eq!(
            argv(&vstest, Some(285)),
            [
                "test",
                "--logger",
                "trx;LogFilePrefix=pith",
                "--results-directory",
                "/r",
                "--blame",
                "--blame-hang",
                "--blame-hang-timeout",
                "285s",
                "--blame-hang-dump-type",
                "none",
            ]
        );
        assert_eq!(argv(&vstest, None).last().unwrap(), "--blame");

        let with_dump = layout(
            Platform::Mtp { native: true },
            &["xunit.v3", "Microsoft.Testing.Extensions.HangDump"],
        );
        assert_eq!(
            argv(&with_dump, Some(27)),
            [
                "test",
                "--no-ansi",
                "--no-progress",
                "--report-xunit-trx",
                "--results-directory",
                "/r",
                "--hangdump",
                "--hangdump-timeout",
                "27s",
                "--hangdump-type",
                "Mini",
            ]
        );
        let bridge = layout(
            Platform::Mtp { native: false },
            &[
                "MSTest",
                "Microsoft.Testing.Extensions.TrxReport",
                "Microsoft.Testing.Extensions.HangDump",
            ],
        );
        assert_eq!(
            argv(&bridge, Some(27)),
            [
                "test",
                "--",
                "--report-trx",
                "--results-directory",
                "/r",
                "--hangdump",
                "--hangdump-timeout",
                "27s",
                "--hangdump-type",
                "Mini",
            ]
        );
        // Without the extension the option does not exist: it would fail the run.
        let without = layout(Platform::Mtp { native: true }, &["xunit.v3"]);
        assert!(!argv(&without, Some(27)).iter().any(|a| a.contains("hang")));
    }

    #[test]
    fn hang_timeout_is_half_the_budget_after_a_margin() {
        let secs = |s: u64| hang_timeout(Duration::from_secs(s)).map(|d| d.as_secs());
        assert_eq!(secs(600), Some(285));
        assert_eq!(secs(60), Some(27));
        assert_eq!(secs(3600), Some(1785));
        assert_eq!(secs(12), Some(3));
        assert_eq!(secs(6), None);
        assert_eq!(secs(0), None);
        assert_eq!(seconds(Duration::from_millis(27_900)), "27s");
    }

    #[test]
    fn mtp_filters_per_framework() {
        assert_eq!(
            mtp_filter(
                Framework::XunitV3,
                &ids(&["Ns.T.A", "Ns.T.B(x: 1)", "Ns.T.B(x: 2)"])
            ),
            ["--filter-method", "Ns.T.A", "Ns.T.B"]
        );
        assert!(mtp_filter(Framework::XunitV3, &ids(&["Custom name"])).is_empty());
        assert_eq!(
            mtp_filter(Framework::Mstest, &ids(&["Ns.T.A"])),
            ["--filter", "FullyQualifiedName=Ns.T.A"]
        );
        assert!(mtp_filter(Framework::Unknown, &ids(&["Ns.T.A"])).is_empty());
    }
}
