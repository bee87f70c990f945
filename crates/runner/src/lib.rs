//! Test runner adapters. Each adapter detects its runner from the workspace's own files, runs it
//! through its structured output without editing the project, and parses what it wrote into a
//! [`pith_model::Run`]. Adapters never print and never serialize answers.

pub mod bazel;
mod c_build;
pub mod cargo;
pub mod detail;
pub mod diff;
pub mod dotnet;
pub mod fuzzing;
pub mod go;
mod googletest;
pub mod gtest;
pub mod js;
pub mod junit;
pub mod jvm;
pub mod paths;
pub mod process;
pub mod pytest;
pub mod report;
mod scratch;
pub mod tails;
pub mod text;
pub mod unittest;
mod verdict;
mod wildcard;
mod xml;

use std::path::Path;
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use pith_model::ecosystem::{self, Ecosystem};
use pith_model::Run;

pub use paths::PathMap;
pub use scratch::Scratch;

/// Everything an adapter needs for one run.
pub struct Context<'a> {
    /// The workspace root; every path in the answer is relative to it.
    pub root: &'a Path,
    /// The project being run: the workspace root, or a project directory below it (a Cargo
    /// workspace in `rust/`). Runners start there.
    pub dir: &'a Path,
    pub paths: &'a PathMap,
    /// When the whole run must be over; adapters pass it to [`process::run`].
    pub deadline: Instant,
    /// A private, empty directory for this run's report files, made when first looked at;
    /// the engine removes it.
    pub scratch: &'a Scratch,
    /// pith's persistent cache directory (e.g. the embedded pytest plugin is written here).
    pub cache: &'a Path,
    /// Set by another thread to cancel the run.
    pub cancel: Option<&'a AtomicBool>,
    /// The changed files a red run's failing tests are traced through, inside the run, by an
    /// adapter that can do so without a second start (see [`Run::traced`]); `None`: no tracing.
    pub trace: Option<&'a TracePlan>,
}

/// What to trace inside a run: after the run, its first failing tests execute again with line
/// tracing on `files`, in the runner's own process, their verdicts ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TracePlan {
    /// Workspace-relative.
    pub files: Vec<String>,
}

impl TracePlan {
    /// Failing tests traced at most.
    pub const TESTS: usize = 5;
    /// The share of the run's own test time their first runs may have taken: tracing must not
    /// make a red run much longer than the run.
    pub const SHARE: f64 = 0.25;
    /// What they may take whatever the share: a small suite's whole loop is milliseconds.
    pub const FLOOR: std::time::Duration = std::time::Duration::from_millis(500);
}

/// A test runner pith can drive.
pub trait Adapter: Send + Sync {
    /// The runner's name as answers report it.
    fn name(&self) -> &'static str;

    /// Whether `id` is one of this runner's test ids (so a mixed workspace can route re-runs).
    fn claims(&self, id: &str) -> bool;

    /// Whether `id` names something of this workspace's, not merely has this runner's shape
    /// (a Go id under this module's path): when ids of two runners look alike (`calc.TestAdd`
    /// is also a GoogleTest `Suite.Test`), the runner that owns the id takes it alone.
    fn owns(&self, _id: &str) -> bool {
        false
    }

    /// Runs the tests named in `tests` (all tests when empty) and reports what happened.
    /// Expected outcomes of the code under test (failures, compile errors, crashes, timeouts,
    /// a missing runner) are a [`Run`], never an error; an error means pith itself failed.
    fn run(&self, ctx: &Context<'_>, tests: &[String]) -> Result<Run, RunnerError>;

    /// [`Adapter::run`], one run per part of the project's declared command that answers on
    /// its own (a JavaScript test script of several runners, a workspace's packages): what the
    /// engine calls. A run whose `dir` is set is answered with that directory
    /// (workspace-relative); `None`, with the project's.
    fn run_all(&self, ctx: &Context<'_>, tests: &[String]) -> Result<Vec<Run>, RunnerError> {
        Ok(vec![self.run(ctx, tests)?])
    }

    /// Whether this project's declared command decides for the project of `runner` found at
    /// `dir` below it (runs it, or leaves it out on purpose): `Some(true)`, it is not run on
    /// its own; `Some(false)`, it is. `None` leaves it to the engine's rule for the runner's
    /// family.
    fn covers(&self, _runner: &str, _dir: &Path) -> Option<bool> {
        None
    }

    /// The ids that run exactly the test files `files` (workspace-relative, inside this
    /// project, whose directory is `project`, workspace-relative, `None` at the root), for
    /// `pith test --changed`. `None` when this runner cannot select by file: the engine then
    /// runs the whole project.
    fn ids_for_files(&self, _project: Option<&str>, _files: &[String]) -> Option<Vec<String>> {
        None
    }

    /// Of `files` (workspace-relative, inside this project, whose directory is `project`,
    /// files the import graph takes for tests by their names and directories), those the
    /// project's declared command runs as tests: what `pith select`, `tests-for` and `blast`
    /// name and count, so a helper under `tests/`, a class Surefire excludes or a module
    /// outside `testpaths` is no test of the suite. `None` when this runner cannot tell by
    /// file: every one counts. `root` is the workspace's.
    fn test_files(
        &self,
        _root: &Path,
        _project: Option<&str>,
        _files: &[String],
    ) -> Option<Vec<String>> {
        None
    }

    /// How far a run in progress is, for a heartbeat to a waiting client: a counter of the
    /// tests done so far, read from what this runner writes into `scratch` as it goes.
    /// `None` when it writes nothing pith can count before it ends.
    fn progress(&self, _scratch: &Path) -> Option<Counter> {
        None
    }

    /// Whether [`Adapter::trace`] can trace at all (an answer says `unsupported` when not).
    fn can_trace(&self) -> bool {
        false
    }

    /// Whether this runner traces its failing tests within the run itself when the engine
    /// passes a [`TracePlan`] (`Context::trace`): the engine then works the plan out before
    /// the run; for the others it needs nothing of the workspace's state before the run.
    fn traces_in_run(&self) -> bool {
        false
    }

    /// Re-runs `tests` (a handful of failing ones) with line tracing limited to `files`
    /// (workspace-relative) and tells which of their lines each test executed. `None` when
    /// this runner cannot trace cheaply (an instrumented rebuild): the engine then uses the
    /// static reach. The re-run's verdict is not the answer's: it only traces.
    fn trace(
        &self,
        _ctx: &Context<'_>,
        _tests: &[String],
        _files: &[String],
    ) -> Result<Option<pith_model::impact::Traced>, RunnerError> {
        Ok(None)
    }
}

/// The tests a run in progress has done so far (see [`Adapter::progress`]).
pub type Counter = Box<dyn Fn() -> u64 + Send + Sync>;

#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    #[error("could not start {program}: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("{context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
}

/// A report that could not be parsed: malformed, truncated, or not this format. Parsers return
/// this; they never panic.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    #[error("malformed report: {0}")]
    Malformed(String),
    #[error("report format not supported yet")]
    Unsupported,
}

impl RunnerError {
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        RunnerError::Io {
            context: context.into(),
            source,
        }
    }
}

/// Names `--runner` accepts, derived from the ecosystem descriptors.
pub use pith_model::ecosystem::RUNNER_NAMES;

/// What a detection is asked: `only` keeps just the named runner; `nested` is a directory
/// below the workspace root, where a weak sign of a project is not enough.
#[derive(Debug, Clone, Copy)]
pub struct Probe<'a> {
    pub only: Option<&'a str>,
    pub nested: bool,
}

/// An ecosystem's detection: the adapters for the project in a directory (none: not one).
pub type Detect = fn(&Path, Probe<'_>) -> Vec<Box<dyn Adapter>>;

/// Every ecosystem pith drives, with its detection, in the order detection tries them (the
/// order of an answer's runs). Adding an ecosystem: an adapter module, a descriptor in
/// `pith_model::ecosystem`, and one line here.
pub const REGISTRY: &[(&Ecosystem, Detect)] = &[
    // First: a Bazel workspace runs every project inside it (the engine's `covers`).
    (&ecosystem::BAZEL, |d, _| bazel::detect(d)),
    (&ecosystem::RUST, detect_cargo),
    (&ecosystem::PYTHON, detect_python),
    (&ecosystem::GO, |d, _| go::detect(d)),
    (&ecosystem::JS, |d, _| js::detect(d)),
    (&ecosystem::JVM, |d, _| jvm::detect(d)),
    (&ecosystem::DOTNET, |d, _| dotnet::detect(d)),
    (&ecosystem::CPP, |d, _| gtest::detect(d)),
];

/// Rust: plain `cargo test`, or nextest where the project declares it (see `cargo::detect`),
/// unless `--runner` names one.
fn detect_cargo(dir: &Path, probe: Probe<'_>) -> Vec<Box<dyn Adapter>> {
    let Some(found) = cargo::detect(dir) else {
        return Vec::new();
    };
    vec![match probe.only {
        Some("nextest") => Box::new(cargo::Cargo::with_nextest(true)),
        Some("cargo") => Box::new(cargo::Cargo::with_nextest(false)),
        _ => Box::new(found),
    }]
}

/// Python: pytest, or unittest where the project runs it (see `unittest::prefers_unittest`);
/// `--runner unittest` runs unittest in any Python project.
fn detect_python(dir: &Path, probe: Probe<'_>) -> Vec<Box<dyn Adapter>> {
    let found = if probe.nested {
        pytest::detect_strict(dir).or_else(|| {
            // A Django project or a declared `-m unittest` below the root, without test files
            // of pytest's naming (Django's `tests.py`).
            let declared =
                dir.join("manage.py").is_file() || unittest::declares_unittest(dir).is_some();
            declared.then(|| pytest::detect(dir)).flatten()
        })
    } else {
        pytest::detect(dir)
    };
    let Some(found) = found else {
        return Vec::new();
    };
    let venv = found.virtual_env().map(Path::to_path_buf);
    let mode = match probe.only {
        Some("pytest") => None,
        Some("unittest") => Some(
            unittest::prefers_unittest(dir, venv.as_deref()).unwrap_or_else(|| {
                unittest::Mode::Plain(unittest::declares_unittest(dir).unwrap_or_default())
            }),
        ),
        _ => unittest::prefers_unittest(dir, venv.as_deref()),
    };
    match mode {
        Some(mode) => vec![Box::new(unittest::Unittest::new(venv, dir, mode))],
        None => vec![Box::new(found)],
    }
}

/// The runners this workspace uses, in a fixed order. `only` keeps just the named one (for
/// Rust, `nextest` or `cargo` also picks the path, whatever is installed).
pub fn detect(root: &Path, only: Option<&str>) -> Vec<Box<dyn Adapter>> {
    detect_in(root, only, false)
}

/// [`detect`] for a directory below the workspace root: a weak sign of a project (a stray
/// `test_*.py` file, a `pyproject.toml` that configures no tests) is not enough there.
pub fn detect_nested(dir: &Path, only: Option<&str>) -> Vec<Box<dyn Adapter>> {
    detect_in(dir, only, true)
}

fn detect_in(root: &Path, only: Option<&str>, nested: bool) -> Vec<Box<dyn Adapter>> {
    detect_with(REGISTRY, root, Probe { only, nested })
}

/// Detection over `registry` (a test registers an ecosystem of its own this way).
pub fn detect_with(
    registry: &[(&Ecosystem, Detect)],
    root: &Path,
    probe: Probe<'_>,
) -> Vec<Box<dyn Adapter>> {
    let only = probe.only;
    let mut found: Vec<Box<dyn Adapter>> = Vec::new();
    for (_, detect) in registry
        .iter()
        .filter(|(eco, _)| only.is_none_or(|n| eco.runners.contains(&n)))
    {
        found.extend(
            detect(root, probe)
                .into_iter()
                .filter(|a| only.is_none_or(|n| n == a.name())),
        );
        // A runner that runs every file here (Bazel, listed first) runs whatever else would
        // be found: nothing more to detect, where detecting may start a process.
        if found.iter().any(|a| ecosystem::runs_every_file(a.name())) {
            break;
        }
    }
    found
}

/// The workspace-relative file a test id starts with, when it names one, read in its runner's
/// id syntax (`tests/test_x.py::t`, `tests/a.test.ts > suite > t`, a report's
/// `src/test/java/demo/CalcTest.java`): where the engine starts a failing test's reach.
pub fn test_file<'i>(runner: &str, id: &'i str) -> Option<&'i str> {
    let family = ecosystem::by_runner(runner).map(|e| e.id);
    let file = if family == Some(ecosystem::PYTHON.id) {
        pytest::id_file(id)
    } else if family == Some(ecosystem::JS.id) {
        js::id_file(id)
    } else {
        // Others' ids name a file only as a report's path might: whatever comes before a
        // name's separator.
        let file = id.split("::").next().unwrap_or(id);
        file.split(" > ").next().unwrap_or(file)
    }
    .trim();
    let named = file.contains('.') && !file.contains(' ') && file.contains('/');
    (named || file.ends_with(".py")).then_some(file)
}

/// A runner command in `cwd`. The environment is the caller's: the tests see what they would
/// see run by hand, so pith never changes an outcome (a test of colour handling passes or
/// fails as it does without pith). Colour is stripped from what pith reads
/// ([`text::strip_ansi`]) or switched off through the runner's own reporter options; adapters
/// remove only the variables that would hide what pith reads and that no option undoes
/// (`RUST_TEST_NOCAPTURE`, nextest's reporting `NEXTEST_*`), or that describe another process
/// (pytest-xdist's worker variables), each said where it is removed. What the caller chose
/// for the run (`PYTEST_ADDOPTS`, GOFLAGS, `NEXTEST_RETRIES`, GoogleTest's repeat and filter)
/// stays.
pub fn base_command(program: impl AsRef<std::ffi::OsStr>, cwd: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.current_dir(cwd);
    cmd
}

/// Whether `program` is an executable file on PATH.
pub fn on_path(program: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| is_executable(p))
}

pub fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// FNV-1a: a stable name for content (the cache directory of an embedded file, a build
/// directory per workspace) that does not change between builds of pith, as std's hasher may.
pub(crate) fn fnv1a(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Writes a file pith embeds (a pytest plugin, a JS reporter) to `cache/<kind>/<hash>/<name>`
/// unless it is already there, and returns its path. The write is atomic, so concurrent runs
/// never load half a file; the content's hash in the path keeps versions of pith apart.
pub(crate) fn install_embedded(
    cache: &Path,
    kind: &str,
    name: &str,
    content: &str,
) -> Result<std::path::PathBuf, RunnerError> {
    let dir = cache
        .join(kind)
        .join(format!("{:016x}", fnv1a(content.bytes())));
    let file = dir.join(name);
    if std::fs::read(&file).is_ok_and(|b| b == content.as_bytes()) {
        return Ok(file);
    }
    write_whole(&file, content.as_bytes())
        .map_err(|e| RunnerError::io(format!("writing {}", file.display()), e))?;
    Ok(file)
}

/// What the binary at `bin` says of itself (its version), kept in pith's cache under `kind`
/// per binary: its path and file identity (size, modification and change times, inode), so a
/// reinstall, even at the same path, asks again. `ask` runs only when nothing is kept; what it
/// cannot tell (`None`) is not kept.
pub(crate) fn kept_answer(
    cache: &Path,
    kind: &str,
    bin: &Path,
    ask: impl FnOnce() -> Option<String>,
) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    const MAGIC: &str = "pith kept answer v1";
    let Ok(meta) = std::fs::metadata(bin) else {
        return ask();
    };
    let identity = format!(
        "{}\0{}\0{}.{}\0{}.{}\0{}",
        bin.display(),
        meta.len(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
        meta.ino()
    );
    let file = cache
        .join(kind)
        .join(format!("{:016x}", fnv1a(identity.bytes())));
    let kept = std::fs::read_to_string(&file).ok().and_then(|t| {
        let (magic, rest) = t.split_once('\n')?;
        let (id, v) = rest.split_once('\n')?;
        (magic == MAGIC && id == identity).then(|| v.trim().to_owned())
    });
    if kept.is_some() {
        return kept;
    }
    let answer = ask()?;
    let _ = write_whole(&file, format!("{MAGIC}\n{identity}\n{answer}\n").as_bytes());
    Some(answer)
}

/// Writes `file` whole (its directory made first) through a temporary file renamed over it:
/// a concurrent run, or another thread of a long-lived server, reads all of it or the file it
/// replaces, never half of either. What pith keeps in its cache is written so.
pub(crate) fn write_whole(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else {
        return Err(std::io::Error::other("not a file path"));
    };
    std::fs::create_dir_all(dir)?;
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(
        ".{}.{}.{n}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let written = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, file));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod registry_tests {
    use super::*;
    use pith_model::ecosystem::ECOSYSTEMS;

    #[test]
    fn every_ecosystem_is_registered_once() {
        for e in ECOSYSTEMS {
            let n = REGISTRY
                .iter()
                .filter(|(r, _)| std::ptr::eq(*r, *e))
                .count();
            assert_eq!(n, 1, "{}", e.id);
        }
        assert_eq!(REGISTRY.len(), ECOSYSTEMS.len());
    }

    /// A trivial ecosystem: `make check` in a directory with a `Makefile`.
    struct Make;

    impl Adapter for Make {
        fn name(&self) -> &'static str {
            "make"
        }
        fn claims(&self, _id: &str) -> bool {
            false
        }
        fn run(&self, _ctx: &Context<'_>, _tests: &[String]) -> Result<Run, RunnerError> {
            Ok(Run::default())
        }
    }

    const MAKE: Ecosystem = Ecosystem {
        id: "make",
        runners: &["make"],
        root_markers: &["Makefile"],
        ..ecosystem::BLANK
    };

    #[test]
    fn a_new_ecosystem_is_one_descriptor_and_one_registration_line() {
        let mut registry = REGISTRY.to_vec();
        // The one line an ecosystem adds to REGISTRY:
        registry.push((&MAKE, |d, _| {
            if d.join("Makefile").is_file() {
                vec![Box::new(Make)]
            } else {
                Vec::new()
            }
        }));
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("Makefile"), "check:\n").unwrap();
        let probe = |only| Probe {
            only,
            nested: false,
        };
        let names = |only| -> Vec<&str> {
            detect_with(&registry, d.path(), probe(only))
                .iter()
                .map(|a| a.name())
                .collect()
        };
        assert_eq!(names(None), ["make"]);
        assert_eq!(names(Some("make")), ["make"]);
        assert!(names(Some("pytest")).is_empty());
        assert!(detect(d.path(), None).is_empty());
    }

    /// Bazel runs every file of its workspace: once it is found at a directory, nothing else
    /// there is detected (Python's detection of a directory without pytest's configuration
    /// starts its interpreter), unless `--runner` names another.
    #[test]
    fn nothing_is_detected_beside_a_runner_that_runs_every_file() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("MODULE.bazel"), "").unwrap();
        std::fs::write(d.path().join("test_calc.py"), "def test_one():\n    pass\n").unwrap();
        let names =
            |only| -> Vec<&str> { detect(d.path(), only).iter().map(|a| a.name()).collect() };
        assert_eq!(names(None), ["bazel"]);
        assert_eq!(names(Some("pytest")), ["pytest"]);
        std::fs::remove_file(d.path().join("MODULE.bazel")).unwrap();
        assert_eq!(
            names(None),
            ["pytest"],
            "Python's detection itself is unchanged"
        );
    }

    #[test]
    fn a_test_id_names_its_file_in_its_runners_syntax() {
        let cases = [
            (
                "pytest",
                "tests/test_x.py::TestX::test_y[a > b]",
                Some("tests/test_x.py"),
            ),
            ("pytest", "test_top.py::test_a", Some("test_top.py")),
            ("unittest", "tests.test_x.TestX.test_y", None),
            (
                "vitest",
                "tests/a.test.ts > suite > Foo::bar",
                Some("tests/a.test.ts"),
            ),
            ("jest", "src/sum.test.js > adds", Some("src/sum.test.js")),
            (
                "maven",
                "src/test/java/demo/CalcTest.java",
                Some("src/test/java/demo/CalcTest.java"),
            ),
            ("cargo", "tests::adds", None),
            (
                "go",
                "example.com/m/pkg.TestAdd",
                Some("example.com/m/pkg.TestAdd"),
            ),
        ];
        for (runner, id, file) in cases {
            assert_eq!(test_file(runner, id), file, "{runner} {id}");
        }
    }
}
