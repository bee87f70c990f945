//! The benchmark's scenarios: which fixture, which raw commands an agent would type, and which
//! `pith test --runner` it is compared with; or, for runners that cannot run here, which real
//! report file pith reads in place of the agent reading it.

use std::path::{Path, PathBuf};

/// How a scenario's tests are run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Pytest,
    Cargo,
    Nextest,
    Go,
    Jest,
    Vitest,
    Node,
    Maven,
    Gradle,
    Ctest,
    Bazel,
    /// No live run: the raw side is the agent reading an existing report file, the pith side
    /// `pith test --report` on it.
    Report,
}

/// CMake's configure, build and test steps, as a project's README tells an agent to type them.
/// `-G Ninja` because it is the generator pith's gtest adapter picks when ninja is installed
/// (the bench requires it), so both sides build with the same tool.
const CTEST: &[&[&str]] = &[
    &["cmake", "-S", ".", "-B", "build", "-G", "Ninja"],
    &["cmake", "--build", "build"],
    &["ctest", "--test-dir", "build", "--output-on-failure"],
];

impl Kind {
    /// The runner's default commands, as an agent would type them, run in order while each
    /// succeeds (as `a && b` would); the agent reads all their output. Empty for a report row.
    pub fn raw_commands(self) -> &'static [&'static [&'static str]] {
        match self {
            Kind::Pytest => &[&["python3", "-m", "pytest"]],
            Kind::Cargo => &[&["cargo", "test"]],
            Kind::Nextest => &[&["cargo", "nextest", "run"]],
            Kind::Go => &[&["go", "test", "./..."]],
            Kind::Jest => &[&["npx", "jest"]],
            Kind::Vitest => &[&["npx", "vitest", "run"]],
            Kind::Node => &[&["node", "--test"]],
            Kind::Maven => &[&["mvn", "test"]],
            Kind::Gradle => &[&["gradle", "test"]],
            Kind::Ctest => CTEST,
            Kind::Bazel => &[&["bazel", "test", "//..."]],
            Kind::Report => &[],
        }
    }

    /// The `--runner` pith is told to use, if any.
    pub fn pith_runner(self) -> Option<&'static str> {
        match self {
            Kind::Pytest | Kind::Report => None,
            Kind::Cargo => Some("cargo"),
            Kind::Nextest => Some("nextest"),
            Kind::Go => Some("go"),
            Kind::Jest => Some("jest"),
            Kind::Vitest => Some("vitest"),
            Kind::Node => Some("node"),
            Kind::Maven => Some("maven"),
            Kind::Gradle => Some("gradle"),
            Kind::Ctest => Some("ctest"),
            Kind::Bazel => Some("bazel"),
        }
    }

    /// Whether the fixture uses the JS fixtures' shared, installed `node_modules`.
    pub fn needs_node_modules(self) -> bool {
        matches!(self, Kind::Jest | Kind::Vitest | Kind::Node)
    }

    /// Whether the scenario builds Rust (and so shares the bench's CARGO_TARGET_DIR).
    pub fn builds_rust(self) -> bool {
        matches!(self, Kind::Cargo | Kind::Nextest)
    }

    /// Whether raw and pith each get their own copy of the fixture. pith's gtest adapter builds
    /// in a project's own `build/` once that is the project's CMake build directory, so on a
    /// shared copy it would adopt the tree the raw side configured and never configure itself.
    /// Bazel shares one: a developer has one workspace and one Bazel server, whose cache
    /// serves `bazel test` and `pith test` alike (pith's flags are not build options, so the
    /// server keeps its analysis across the two), and a failing test is never cached, so each
    /// side runs it. Two copies meant two servers on two cores, each one's work after its
    /// command landing in the other's: the green row read 1.12× and 1.15× so, 1.08–1.13× in
    /// four runs on one (2026-12-07, warm).
    pub fn separate_copies(self) -> bool {
        matches!(self, Kind::Ctest)
    }

    /// Untimed pairs before the timed ones. One builds what the edit loop finds built. Bazel's
    /// server is a JVM that compiles its own hot paths over its first few dozen commands: a
    /// fresh one takes 300 ms for the green fixture's `bazel test //...` at first and 125–145
    /// ms after 40, and while it compiles it keeps both cores of a small machine busy, so
    /// whatever else runs then (pith's own work) is charged twice. A developer's server has
    /// been up for hours (Bazel keeps an idle one three hours), so its row is timed warm.
    pub fn warm_up_pairs(self) -> usize {
        match self {
            Kind::Bazel => 40,
            _ => 1,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    /// The fixture directory, relative to the repository root: the workspace both sides run in.
    pub source: String,
    pub kind: Kind,
    /// For a report row: the report file, read by the agent or by pith.
    pub report: Option<PathBuf>,
    /// For a run that hangs: the deadline, in seconds, given to pith as `--timeout` and to the
    /// raw side as `timeout(1)`, as an agent would bound a command it knows may not end.
    pub timeout: Option<u32>,
}

impl Scenario {
    /// The raw side's commands: the runner's own, each under `timeout(1)` when the row has a
    /// deadline (`-k` because a runner that ignores SIGTERM must not hold the bench).
    pub fn raw_commands(&self) -> Vec<Vec<String>> {
        self.kind
            .raw_commands()
            .iter()
            .map(|argv| {
                let mut cmd = Vec::new();
                if let Some(t) = self.timeout {
                    cmd.extend(["timeout".into(), "-k".into(), "5".into(), t.to_string()]);
                }
                cmd.extend(argv.iter().map(|a| a.to_string()));
                cmd
            })
            .collect()
    }
}

/// The scenarios every live ecosystem has, under the same fixture names.
const SCENARIOS: [&str; 4] = ["green", "single", "helper50", "distinct100"];

/// Where a shape exists: its fixture's directory under `tests/fixtures/`, the row label, the
/// runner.
type Place = (&'static str, &'static str, Kind);

/// The answer shapes of issue 14 (answers on real suites): per shape, the fixture directories
/// (under `tests/fixtures/`) of every ecosystem that has it, their row label, and the deadline
/// of a shape that hangs. A Rust fixture gets a cargo and a nextest row, but for the shape that
/// is a hang under plain `cargo test`.
const SHAPES: &[(&str, &[Place], Option<u32>)] = &[
    (
        "shape_same7",
        &[
            ("python", "python", Kind::Pytest),
            ("rust", "rust", Kind::Cargo),
            ("go", "go", Kind::Go),
            ("js/jest", "jest", Kind::Jest),
            ("js/vitest", "vitest", Kind::Vitest),
            ("java/maven", "maven", Kind::Maven),
            ("cpp", "ctest", Kind::Ctest),
        ],
        None,
    ),
    (
        "shape_helper_values",
        &[
            ("python", "python", Kind::Pytest),
            ("rust", "rust", Kind::Cargo),
            ("go", "go", Kind::Go),
            ("js/jest", "jest", Kind::Jest),
        ],
        None,
    ),
    (
        "shape_lib30",
        &[
            ("python", "python", Kind::Pytest),
            ("rust", "rust", Kind::Cargo),
            ("go", "go", Kind::Go),
            ("js/jest", "jest", Kind::Jest),
            ("java/maven", "maven", Kind::Maven),
        ],
        None,
    ),
    (
        "shape_cargo_hang",
        &[("rust", "rust", Kind::Cargo)],
        Some(10),
    ),
    (
        "shape_std_panic",
        &[("rust", "rust", Kind::Cargo), ("go", "go", Kind::Go)],
        None,
    ),
    (
        "shape_long_equal",
        &[
            ("rust", "rust", Kind::Cargo),
            ("python", "python", Kind::Pytest),
            ("js/jest", "jest", Kind::Jest),
        ],
        None,
    ),
    ("shape_repanic", &[("go", "go", Kind::Go)], None),
    ("shape_macro_error", &[("cpp", "ctest", Kind::Ctest)], None),
    (
        "shape_crash_late",
        &[
            ("cpp", "ctest", Kind::Ctest),
            ("python", "python", Kind::Pytest),
        ],
        None,
    ),
    (
        "shape_tail_blocks",
        &[("python", "python", Kind::Pytest)],
        None,
    ),
    (
        "shape_vitest_timeout_loads",
        &[("js/vitest", "vitest", Kind::Vitest)],
        Some(20),
    ),
];

/// The workspace report rows run in: it holds the source files the TRX samples' stack traces
/// name, so pith maps their frames as it would in the project that wrote them. The JUnit
/// samples name no file here; for them it is just a workspace.
const REPORT_ROOT: &str = "tests/fixtures/dotnet/traces";

/// Every scenario, in table order; report rows for the samples under `samples` (the real
/// public reports of `$PITH_SAMPLES`) when given.
pub fn all(samples: Option<&Path>) -> Vec<Scenario> {
    let mut out = Vec::new();
    let live = |name: String, source: String, kind| Scenario {
        name,
        source,
        kind,
        report: None,
        timeout: None,
    };
    for name in SCENARIOS {
        out.push(live(
            format!("python/{name}"),
            format!("tests/fixtures/python/{name}"),
            Kind::Pytest,
        ));
    }
    for name in SCENARIOS {
        for (kind, label) in [(Kind::Cargo, "cargo test"), (Kind::Nextest, "nextest")] {
            out.push(live(
                format!("rust/{name} ({label})"),
                format!("tests/fixtures/rust/{name}"),
                kind,
            ));
        }
    }
    // The other runners: one row per fixture scenario, raw command against `pith test`.
    for (dir, label, kind) in [
        ("go", "go", Kind::Go),
        ("js/jest", "jest", Kind::Jest),
        ("js/vitest", "vitest", Kind::Vitest),
        ("js/node", "node", Kind::Node),
        ("java/maven", "maven", Kind::Maven),
        ("cpp", "ctest", Kind::Ctest),
        ("bazel", "bazel", Kind::Bazel),
    ] {
        for name in SCENARIOS {
            out.push(live(
                format!("{label}/{name}"),
                format!("tests/fixtures/{dir}/{name}"),
                kind,
            ));
        }
    }
    // Gradle (Debian's, no wrapper): the fixtures it has.
    for name in ["green", "single"] {
        out.push(live(
            format!("gradle/{name}"),
            format!("tests/fixtures/java/gradle/{name}"),
            Kind::Gradle,
        ));
    }
    out.push(live(
        "examples/demo".into(),
        "examples/demo".into(),
        Kind::Pytest,
    ));
    out.extend(shapes());
    if let Some(samples) = samples {
        for (dir, ext) in [("trx", "trx"), ("junit", "xml")] {
            for file in files_with_ext(&samples.join(dir), ext) {
                let Some(name) = file.file_name().map(|n| n.to_string_lossy().into_owned()) else {
                    continue;
                };
                out.push(Scenario {
                    name: format!("{dir}/{name}"),
                    source: REPORT_ROOT.into(),
                    kind: Kind::Report,
                    report: Some(file),
                    timeout: None,
                });
            }
        }
    }
    out
}

/// The shape rows, shape by shape.
fn shapes() -> Vec<Scenario> {
    let mut out = Vec::new();
    for &(shape, places, timeout) in SHAPES {
        for &(dir, label, kind) in places {
            let source = format!("tests/fixtures/{dir}/{shape}");
            let mut row = |name: String, kind| {
                out.push(Scenario {
                    name,
                    source: source.clone(),
                    kind,
                    report: None,
                    timeout,
                })
            };
            if kind == Kind::Cargo {
                row(format!("{label}/{shape} (cargo test)"), Kind::Cargo);
                if shape != "shape_cargo_hang" {
                    row(format!("{label}/{shape} (nextest)"), Kind::Nextest);
                }
            } else {
                row(format!("{label}/{shape}"), kind);
            }
        }
    }
    out
}

/// The files directly in `dir` ending in `.ext`, sorted; none when `dir` cannot be read.
fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    files
}

/// Whether `name` is selected: no filters selects everything, else any filter is a substring.
pub fn selected(name: &str, filters: &[String]) -> bool {
    filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rust_fixture_has_a_cargo_and_a_nextest_row() {
        let all = all(None);
        let shapes = shapes();
        assert_eq!(all.len(), 4 + 2 * 4 + 7 * 4 + 2 + 1 + shapes.len());
        let green: Vec<_> = all
            .iter()
            .filter(|s| s.source.ends_with("rust/green"))
            .collect();
        assert_eq!(green.len(), 2);
        assert!(green.iter().all(|s| s.kind.builds_rust()));
    }

    #[test]
    fn every_scenario_has_its_fixture() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        for s in all(None) {
            assert!(
                root.join(&s.source).is_dir(),
                "{} has no fixture at {}",
                s.name,
                s.source
            );
        }
        assert!(root.join(REPORT_ROOT).is_dir());
    }

    #[test]
    fn shape_rows_cover_each_ecosystem_and_bound_the_hangs() {
        let shapes = shapes();
        let names: Vec<&str> = shapes.iter().map(|s| s.name.as_str()).collect();
        for name in [
            "python/shape_same7",
            "rust/shape_same7 (cargo test)",
            "rust/shape_same7 (nextest)",
            "go/shape_same7",
            "jest/shape_same7",
            "vitest/shape_same7",
            "maven/shape_same7",
            "ctest/shape_same7",
            "go/shape_repanic",
            "ctest/shape_macro_error",
            "python/shape_tail_blocks",
        ] {
            assert!(names.contains(&name), "{name} missing from {names:?}");
        }
        // The cargo hang is plain `cargo test`'s: no nextest row.
        assert!(names.contains(&"rust/shape_cargo_hang (cargo test)"));
        assert!(!names.iter().any(|n| n.contains("cargo_hang (nextest)")));
        let hangs: Vec<&Scenario> = shapes.iter().filter(|s| s.timeout.is_some()).collect();
        assert_eq!(hangs.len(), 2);
        for s in hangs {
            let raw = s.raw_commands();
            assert!(raw.iter().all(|argv| argv[0] == "timeout"), "{raw:?}");
        }
        let plain = shapes.iter().find(|s| s.timeout.is_none()).unwrap();
        assert_eq!(plain.raw_commands()[0][0], plain.kind.raw_commands()[0][0]);
    }

    #[test]
    fn ctest_is_configure_build_test_and_gets_its_own_copies() {
        let ctest: Vec<_> = all(None)
            .into_iter()
            .filter(|s| s.name.starts_with("ctest/") && !s.name.contains("/shape_"))
            .collect();
        assert_eq!(ctest.len(), 4);
        assert!(ctest.iter().all(|s| s.kind.separate_copies()));
        let steps = Kind::Ctest.raw_commands();
        assert_eq!(steps.len(), 3);
        assert_eq!(steps[2][0], "ctest");
        assert!(Kind::Pytest.raw_commands().len() == 1 && !Kind::Pytest.separate_copies());
    }

    #[test]
    fn report_rows_come_from_the_samples_directory() {
        let tmp = tempfile::tempdir().unwrap();
        for f in ["trx/b.trx", "trx/a.trx", "trx/notes.md", "junit/x.xml"] {
            let path = tmp.path().join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let reports: Vec<_> = all(Some(tmp.path()))
            .into_iter()
            .filter(|s| s.kind == Kind::Report)
            .collect();
        let names: Vec<_> = reports.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["trx/a.trx", "trx/b.trx", "junit/x.xml"]);
        assert!(reports
            .iter()
            .all(|s| s.report.as_ref().is_some_and(|r| r.is_file())));
        assert!(Kind::Report.raw_commands().is_empty());
        // A samples directory that is not there adds nothing.
        assert_eq!(all(Some(&tmp.path().join("none"))).len(), all(None).len());
    }

    #[test]
    fn every_runner_has_a_green_row() {
        let all = all(None);
        for green in [
            "python/green",
            "rust/green (cargo test)",
            "rust/green (nextest)",
            "go/green",
            "jest/green",
            "vitest/green",
            "node/green",
            "maven/green",
            "gradle/green",
            "ctest/green",
            "bazel/green",
        ] {
            assert!(
                all.iter().any(|s| s.name == green),
                "{green} missing from the scenarios"
            );
        }
        assert_eq!(Kind::Gradle.raw_commands(), &[&["gradle", "test"][..]]);
        assert_eq!(Kind::Cargo.warm_up_pairs(), 1);
        assert!(Kind::Bazel.warm_up_pairs() > 1);
        assert!(!Kind::Bazel.separate_copies());
    }

    #[test]
    fn filters_are_substrings() {
        let f = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(selected("rust/green (nextest)", &[]));
        assert!(selected("rust/green (nextest)", &f(&["rust/green"])));
        assert!(selected("rust/green (nextest)", &f(&["demo", "nextest"])));
        assert!(!selected("python/green", &f(&["rust/"])));
    }
}
