//! What pith knows about each ecosystem, as data: one [`Ecosystem`] per language family, in one
//! table ([`ECOSYSTEMS`]). Every crate that needs a marker, a build output, a source extension
//! or a runner's name reads it here (model depends on nothing), so adding an ecosystem changes
//! one descriptor, not five crates' private lists. The adapters themselves (detection's logic,
//! commands, parsing) stay in `runner`, registered against these descriptors. A language's
//! extensions are the language table's ([`crate::lang`]).

use crate::lang;

/// One ecosystem: the names and files that tell it apart, and what its tools write.
#[derive(Debug)]
pub struct Ecosystem {
    /// The family's name (`rust`, `python`): runners of one family at a directory run the
    /// family's projects below it.
    pub id: &'static str,
    /// Its projects' name for a person ("no test runner found … (looked for Cargo, Python, …
    /// projects)").
    pub name: &'static str,
    /// Binaries on `PATH` its tests run under or its runners are: their identity is an input
    /// of every run (`store`'s environment fingerprints them).
    pub toolchains: &'static [&'static str],
    /// The runner names answers report and `--runner` accepts, in the order they are listed.
    pub runners: &'static [&'static str],
    /// Files or directories whose presence makes a directory a workspace root.
    pub root_markers: &'static [&'static str],
    /// Extensions of project files whose name varies (a .NET solution), also root markers.
    pub root_marker_extensions: &'static [&'static str],
    /// Build files and the output directories beside them that their tool writes (untagged,
    /// so only the build file tells them apart). A build file starting with `*` is a suffix.
    pub build_outputs: &'static [(&'static str, &'static [&'static str])],
    /// Build files and the prefix of the symbolic links their tool makes beside them (Bazel's
    /// `bazel-bin`, `bazel-out`, `bazel-<workspace>`), re-made by every build: not files of
    /// the workspace.
    pub output_links: &'static [(&'static str, &'static str)],
    /// Entries whose presence marks a directory as generated (a virtualenv's `pyvenv.cfg`, a
    /// CMake build tree's `CMakeCache.txt`): never walked, never searched for projects.
    pub generated_markers: &'static [&'static str],
    /// Among [`Ecosystem::generated_markers`], those of an environment tests import from (its
    /// state is fingerprinted instead of walked).
    pub environment_markers: &'static [&'static str],
    /// Ignored directories of these names are environments even without a marker.
    pub environment_names: &'static [&'static str],
    /// Directory names never searched for projects: dependencies, outputs, data of this
    /// ecosystem's tools.
    pub not_searched: &'static [&'static str],
    /// Names of directories this ecosystem's tools write (caches, reports, installed
    /// dependencies): left out of the walks when ignored (a tracked one is source).
    pub ignored_outputs: &'static [&'static str],
    /// Extensions of source files: their edits (not their presence) cannot change which
    /// runners the workspace uses.
    pub source_extensions: &'static [&'static str],
    /// How test code is named, so it ranks after the code it tests.
    pub test_files: TestFiles,
    /// Environment variables detection reads: a change in one may change the runners found.
    pub detection_env: &'static [&'static str],
    /// Source files whose change may change any test, whatever imports them: test
    /// configuration and build scripts (a name, or a prefix ending in `.*`). Files no import
    /// graph reads (lockfiles, build files, data) select every test anyway.
    pub selects_all: &'static [&'static str],
    /// Report formats `--report` reads for this ecosystem's runners, as `report.rs` names them.
    pub reports: &'static [&'static str],
    /// Whether a project of this family below another is run by the one above it.
    pub nesting: Nesting,
    /// How a project declares a workspace of member projects below it: a member climbs to
    /// the nearest ancestor declaring one (what its tool builds, and where paths in its
    /// diagnostics are relative to) when pith finds the workspace from a directory.
    pub workspace: Option<WorkspaceLine>,
    /// This ecosystem's lines of the `runners` guide topic (empty: nothing to say).
    pub guide: &'static str,
}

/// Whether the runner of a project runs the projects below it (so they are not run twice).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nesting {
    /// It runs its own family's projects below it: pytest recurses, a Maven or Gradle build
    /// takes its modules, CMake its subdirectories, a solution its projects. (A JavaScript
    /// project's declared command decides for itself: the adapter's `covers`.)
    Family,
    /// As `Family`, but for a project below that declares a workspace of its own (a nested
    /// Cargo workspace is not a member of the one above).
    FamilyButWorkspaces,
    /// Each project is its own: the runner stops at a nested one (Go's `./...` stops at a
    /// nested `go.mod`).
    Own,
    /// It runs every file below it, of every family (Bazel's `//...`): nothing below is a
    /// project of its own.
    Everything,
}

/// A line of a build file that declares a workspace of members (Cargo's `[workspace]` in
/// `Cargo.toml`), as it stands alone on its line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkspaceLine {
    pub file: &'static str,
    pub line: &'static str,
}

/// Test-file naming conventions.
#[derive(Debug)]
pub struct TestFiles {
    /// Directory names that hold tests or their data.
    pub dirs: &'static [&'static str],
    /// A file's stem (up to its first `.`) starting with one of these.
    pub stem_prefixes: &'static [&'static str],
    /// A file's stem ending with one of these.
    pub stem_suffixes: &'static [&'static str],
    /// A file name containing one of these.
    pub name_contains: &'static [&'static str],
}

impl TestFiles {
    pub const NONE: TestFiles = TestFiles {
        dirs: &[],
        stem_prefixes: &[],
        stem_suffixes: &[],
        name_contains: &[],
    };
}

/// An ecosystem that declares nothing: new descriptors start from it (`..BLANK`).
pub const BLANK: Ecosystem = Ecosystem {
    id: "",
    name: "",
    toolchains: &[],
    runners: &[],
    root_markers: &[],
    root_marker_extensions: &[],
    build_outputs: &[],
    output_links: &[],
    generated_markers: &[],
    environment_markers: &[],
    environment_names: &[],
    not_searched: &[],
    ignored_outputs: &[],
    source_extensions: &[],
    test_files: TestFiles::NONE,
    detection_env: &[],
    selects_all: &[],
    reports: &[],
    nesting: Nesting::Family,
    workspace: None,
    guide: "",
};

pub const RUST: Ecosystem = Ecosystem {
    id: "rust",
    name: "Cargo",
    toolchains: &["rustc", "cargo", "cargo-nextest"],
    selects_all: &["build.rs"],
    runners: &["nextest", "cargo"],
    root_markers: &["Cargo.toml"],
    // Cargo's build directory: a build changes thousands of files there, none a test reads
    // as an input of the workspace.
    build_outputs: &[("Cargo.toml", &["target"])],
    not_searched: &["target", "fuzz"],
    source_extensions: lang::RUST.extensions,
    test_files: TestFiles {
        dirs: &["tests"],
        ..TestFiles::NONE
    },
    detection_env: &["CARGO_HOME"],
    guide: "\
- Rust: `cargo test` as the workspace runs it, answered with \
`\"lacks\":\"isolation\"`: a crash or hang takes its whole test binary down; cargo-nextest \
where .config/nextest.toml declares it.
",
    // A member crate belongs to the workspace above it; a nested workspace is its own.
    nesting: Nesting::FamilyButWorkspaces,
    workspace: Some(WorkspaceLine {
        file: "Cargo.toml",
        line: "[workspace]",
    }),
    ..BLANK
};

pub const PYTHON: Ecosystem = Ecosystem {
    id: "python",
    name: "Python",
    toolchains: &["python3", "python"],
    selects_all: &["conftest.py", "setup.py", "noxfile.py"],
    runners: &["pytest", "unittest"],
    root_markers: &[
        "pyproject.toml",
        "setup.py",
        "setup.cfg",
        "pytest.ini",
        "tox.ini",
        // A Django project's root.
        "manage.py",
    ],
    generated_markers: &["pyvenv.cfg", "conda-meta"],
    environment_markers: &["pyvenv.cfg", "conda-meta"],
    environment_names: &[".venv", "venv"],
    not_searched: &["venv", "env", "site-packages", "__pycache__"],
    ignored_outputs: &[
        ".eggs",
        "htmlcov",
        ".benchmarks",
        ".mypy_cache",
        ".ruff_cache",
        ".pytype",
        ".pyre",
        ".tox",
        ".nox",
    ],
    source_extensions: lang::PYTHON.extensions,
    test_files: TestFiles {
        dirs: &["tests"],
        stem_prefixes: &["test_"],
        stem_suffixes: &["_test"],
        ..TestFiles::NONE
    },
    detection_env: &["VIRTUAL_ENV"],
    guide: "\
- Python: pytest with pith's own plugin, under the project's interpreter (an active \
virtualenv, else .venv/ or venv/, else python3; named in `interpreter`). Works with \
pytest-xdist.
",
    ..BLANK
};

pub const GO: Ecosystem = Ecosystem {
    id: "go",
    name: "Go",
    toolchains: &["go"],
    runners: &["go"],
    root_markers: &["go.mod"],
    not_searched: &["testdata"],
    source_extensions: lang::GO.extensions,
    test_files: TestFiles {
        dirs: &["testdata"],
        stem_suffixes: &["_test"],
        ..TestFiles::NONE
    },
    reports: &["go test -json"],
    nesting: Nesting::Own,
    ..BLANK
};

/// One ecosystem runs the tests of both languages.
const JS_SOURCES: [&str; 8] = concat(lang::JAVASCRIPT.extensions, lang::TYPESCRIPT.extensions);

pub const JS: Ecosystem = Ecosystem {
    id: "js",
    name: "JavaScript",
    toolchains: &["node", "npm"],
    selects_all: &[
        "jest.config.*",
        "jest.setup.*",
        "vitest.config.*",
        "vitest.workspace.*",
        "vite.config.*",
        "babel.config.*",
        "webpack.config.*",
        "setupTests.*",
        ".mocharc.*",
    ],
    runners: &["jest", "vitest", "node", "mocha"],
    root_markers: &["package.json"],
    not_searched: &["node_modules", "__fixtures__"],
    ignored_outputs: &[
        ".nyc_output",
        ".next",
        ".nuxt",
        ".svelte-kit",
        ".turbo",
        ".parcel-cache",
        ".angular",
        "bower_components",
        "jspm_packages",
        ".yarn",
        ".pnpm-store",
    ],
    source_extensions: &JS_SOURCES,
    test_files: TestFiles {
        dirs: &["__tests__", "spec"],
        name_contains: &[".test.", ".spec."],
        ..TestFiles::NONE
    },
    reports: &["jest/vitest JSON"],
    ..BLANK
};

/// Extensions of .NET solution files: `dotnet test` runs every test project they list.
pub const DOTNET_SOLUTION_EXTENSIONS: &[&str] = &["sln", "slnx", "slnf"];
/// Extensions of .NET project files.
pub const DOTNET_PROJECT_EXTENSIONS: &[&str] = &["csproj", "fsproj", "vbproj"];
const DOTNET_MARKER_EXTENSIONS: [&str; 6] =
    concat(DOTNET_SOLUTION_EXTENSIONS, DOTNET_PROJECT_EXTENSIONS);

// F# and Visual Basic beside C#: pith reads no source of theirs, so the language table has
// no row for them.
const DOTNET_SOURCES: [&str; 3] = concat(lang::CSHARP.extensions, &["fs", "vb"]);

pub const DOTNET: Ecosystem = Ecosystem {
    id: "dotnet",
    name: ".NET",
    toolchains: &["dotnet"],
    runners: &["dotnet"],
    root_marker_extensions: &DOTNET_MARKER_EXTENSIONS,
    build_outputs: &[
        ("*.csproj", &["bin", "obj"]),
        ("*.fsproj", &["bin", "obj"]),
        ("*.vbproj", &["bin", "obj"]),
    ],
    ignored_outputs: &["TestResults", ".vs"],
    source_extensions: &DOTNET_SOURCES,
    test_files: TestFiles {
        stem_suffixes: &["Test", "Tests"],
        ..TestFiles::NONE
    },
    reports: &["TRX"],
    ..BLANK
};

/// Maven's build file: its directory is a Maven project.
pub const MAVEN_BUILD_FILES: &[&str] = &["pom.xml"];
/// Gradle's build and settings files: any one makes its directory a Gradle project.
pub const GRADLE_BUILD_FILES: &[&str] = &[
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
];
const JVM_MARKERS: [&str; 5] = concat(MAVEN_BUILD_FILES, GRADLE_BUILD_FILES);

pub const JVM: Ecosystem = Ecosystem {
    id: "jvm",
    name: "JVM",
    toolchains: &["java", "mvn", "gradle"],
    runners: &["maven", "gradle"],
    root_markers: &JVM_MARKERS,
    build_outputs: &[
        ("pom.xml", &["target"]),
        ("build.gradle", &["build", ".gradle"]),
        ("build.gradle.kts", &["build", ".gradle"]),
        ("settings.gradle", &["build", ".gradle"]),
        ("settings.gradle.kts", &["build", ".gradle"]),
    ],
    not_searched: &["target", "build"],
    ignored_outputs: &[".gradle", ".kotlin"],
    // Not the table's Java, Kotlin and Scala: `kts` is left out, since Gradle's build scripts
    // (`build.gradle.kts`) are written in it and an edit to one may change the runners;
    // Groovy, whose source pith does not read, is in.
    source_extensions: &["java", "kt", "scala", "groovy"],
    test_files: TestFiles {
        dirs: &["test"],
        stem_suffixes: &["Test", "Tests"],
        ..TestFiles::NONE
    },
    reports: &["JUnit XML"],
    ..BLANK
};

pub const CPP: Ecosystem = Ecosystem {
    id: "cpp",
    name: "CMake",
    toolchains: &["cmake", "ctest"],
    runners: &["ctest"],
    root_markers: &["CMakeLists.txt"],
    generated_markers: &["CMakeCache.txt"],
    not_searched: &["build"],
    // Narrower than the table's C and C++ (no `c++`, `h++`, `ipp`, `inl`, `tcc`): kept as it
    // was, since this list also routes a changed file to its CMake project (the engine's
    // `route.rs`), and widening that is a change of selection, not of where a list lives.
    source_extensions: &["c", "cc", "cpp", "cxx", "h", "hh", "hpp", "hxx"],
    test_files: TestFiles {
        dirs: &["test", "tests"],
        stem_suffixes: &["_test"],
        ..TestFiles::NONE
    },
    reports: &["GoogleTest JSON"],
    ..BLANK
};

pub const BAZEL: Ecosystem = Ecosystem {
    id: "bazel",
    name: "Bazel",
    toolchains: &["bazelisk", "bazel"],
    // A Bazel workspace's own settings: any of them may change any test's result.
    selects_all: &[
        ".bazelrc",
        ".bazelversion",
        "WORKSPACE",
        "WORKSPACE.bazel",
        "MODULE.bazel",
    ],
    runners: &["bazel"],
    root_markers: &["MODULE.bazel", "WORKSPACE.bazel", "WORKSPACE"],
    output_links: &[
        ("MODULE.bazel", "bazel-"),
        ("WORKSPACE.bazel", "bazel-"),
        ("WORKSPACE", "bazel-"),
    ],
    source_extensions: &["bzl"],
    guide: "\
- Bazel: `bazel test` as the workspace's .bazelrc says; ids `//pkg:t`, `//pkg:t#Suite.Test`; \
`cached`/`remote` count targets from a cache / a remote executor.
",
    nesting: Nesting::Everything,
    ..BLANK
};

/// `a` then `b` as one array: one descriptor list is often two named ones an adapter reads
/// apart (Maven's and Gradle's build files). `N` must be their total length (checked at
/// compile time).
const fn concat<const N: usize>(a: &[&'static str], b: &[&'static str]) -> [&'static str; N] {
    assert!(a.len() + b.len() == N);
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < a.len() { a[i] } else { b[i - a.len()] };
        i += 1;
    }
    out
}

/// Every ecosystem, in the order [`RUNNER_NAMES`] lists their runners. (The order detection
/// tries them in, which is the order of an answer's runs, is the runner crate's registry.)
pub const ECOSYSTEMS: &[&Ecosystem] = &[&RUST, &PYTHON, &GO, &JS, &DOTNET, &JVM, &CPP, &BAZEL];

/// What belongs to no one ecosystem.
pub mod common {
    /// Root markers of any project: a repository.
    pub const ROOT_MARKERS: &[&str] = &[".git"];
    /// Entries marking a directory generated whatever made it: the Cache Directory Tagging
    /// convention (cargo's `target/`, `.pytest_cache/`).
    pub const GENERATED_MARKERS: &[&str] = &["CACHEDIR.TAG"];
    /// Directory names never searched for projects: outputs, vendored code, data, examples.
    pub const NOT_SEARCHED: &[&str] = &[
        "build",
        "dist",
        "out",
        "vendor",
        "third_party",
        "fixtures",
        "test-fixtures",
        "examples",
    ];
    /// Ignored directories of these names hold what a tool wrote (build output, coverage, caches,
    /// editor settings, installed dependencies), whatever the ecosystem, or of ecosystems pith
    /// runs no tests of.
    pub const IGNORED_OUTPUTS: &[&str] = &[
        "build",
        "dist",
        "out",
        "_build",
        ".build",
        "dist-newstyle",
        ".stack-work",
        "DerivedData",
        "coverage",
        ".cache",
        ".dart_tool",
        ".terraform",
        "tmp",
        "temp",
        "log",
        "logs",
        ".idea",
        ".vscode",
        ".fleet",
        "vendor",
        ".bundle",
        "Pods",
    ];
    /// Extensions of files that are text, not configuration, in languages pith runs no tests
    /// of, or documentation.
    pub const SOURCE_EXTENSIONS: &[&str] = &["rb", "php", "swift", "m", "md", "rst", "txt"];
    /// Directories of test data whatever the language.
    pub const TEST_DIRS: &[&str] = &["fixtures"];
    /// Variables every detection reads: where tools are installed, the home they configure.
    pub const DETECTION_ENV_FIRST: &[&str] = &["PATH"];
    pub const DETECTION_ENV_LAST: &[&str] = &["HOME"];
}

/// Whether `runner` builds and runs whatever its workspace holds, in any language: a Bazel
/// workspace's tests of every language are its targets, and `//...` runs them.
pub fn runs_every_file(runner: &str) -> bool {
    by_runner(runner).is_some_and(|e| e.nesting == Nesting::Everything)
}

/// The ecosystem whose runner is `name`.
pub fn by_runner(name: &str) -> Option<&'static Ecosystem> {
    ECOSYSTEMS
        .iter()
        .copied()
        .find(|e| e.runners.contains(&name))
}

const RUNNER_COUNT: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < ECOSYSTEMS.len() {
        n += ECOSYSTEMS[i].runners.len();
        i += 1;
    }
    n
};

const RUNNER_ARRAY: [&str; RUNNER_COUNT] = {
    let mut out = [""; RUNNER_COUNT];
    let (mut i, mut k) = (0, 0);
    while i < ECOSYSTEMS.len() {
        let mut j = 0;
        while j < ECOSYSTEMS[i].runners.len() {
            out[k] = ECOSYSTEMS[i].runners[j];
            j += 1;
            k += 1;
        }
        i += 1;
    }
    out
};

/// Names `--runner` accepts: every ecosystem's runners, in [`ECOSYSTEMS`]' order.
pub const RUNNER_NAMES: &[&str] = &RUNNER_ARRAY;

/// Every descriptor's entries of one field, in [`ECOSYSTEMS`]' order, after `first`.
fn all<T: Copy + 'static>(
    first: &'static [T],
    field: impl Fn(&'static Ecosystem) -> &'static [T],
) -> impl Iterator<Item = T> {
    first.iter().copied().chain(
        ECOSYSTEMS
            .iter()
            .flat_map(move |e| field(e).iter().copied()),
    )
}

/// Every ecosystem's toolchains, in [`ECOSYSTEMS`]' order.
pub fn toolchains() -> impl Iterator<Item = &'static str> {
    all(&[], |e| e.toolchains)
}

/// The projects pith looks for, for a person: `Cargo, Python, … and Bazel`.
pub fn project_names() -> String {
    let names: Vec<&str> = ECOSYSTEMS.iter().map(|e| e.name).collect();
    match names.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Whether a directory holding `name` (a file or directory) is a project root.
pub fn is_root_marker(name: &str) -> bool {
    all(common::ROOT_MARKERS, |e| e.root_markers).any(|m| m == name)
}

/// Whether a file with this extension makes its directory a project root.
pub fn is_root_marker_extension(ext: &str) -> bool {
    all(&[], |e| e.root_marker_extensions).any(|m| m == ext)
}

/// Every root marker (exact names).
pub fn root_markers() -> impl Iterator<Item = &'static str> {
    all(common::ROOT_MARKERS, |e| e.root_markers)
}

/// Entries whose presence marks a directory as generated, all ecosystems'.
pub fn generated_markers() -> impl Iterator<Item = &'static str> {
    all(common::GENERATED_MARKERS, |e| e.generated_markers)
}

/// Markers of an environment tests import from (a virtualenv).
pub fn environment_markers() -> impl Iterator<Item = &'static str> {
    all(&[], |e| e.environment_markers)
}

/// Names that make an ignored directory an environment.
pub fn environment_names() -> impl Iterator<Item = &'static str> {
    all(&[], |e| e.environment_names)
}

/// Build files and the output directories their tools write beside them.
pub fn build_outputs() -> impl Iterator<Item = (&'static str, &'static [&'static str])> {
    all(&[], |e| e.build_outputs)
}

/// Every descriptor's output links (build file, link name prefix).
pub fn output_links() -> impl Iterator<Item = (&'static str, &'static str)> {
    all(&[], |e| e.output_links)
}

/// Whether an ignored directory of this name holds what a tool wrote.
pub fn is_ignored_output(name: &str) -> bool {
    all(common::IGNORED_OUTPUTS, |e| e.ignored_outputs).any(|n| n == name)
}

/// Whether a directory of this name is never searched for projects.
pub fn is_not_searched(name: &str) -> bool {
    all(common::NOT_SEARCHED, |e| e.not_searched).any(|n| n == name)
}

/// Whether files of this extension (compared without case) are source, not configuration.
pub fn is_source_extension(ext: &str) -> bool {
    all(common::SOURCE_EXTENSIONS, |e| e.source_extensions).any(|s| ext.eq_ignore_ascii_case(s))
}

/// The environment variables detection reads, in a fixed order (they key its cache).
pub fn detection_env() -> impl Iterator<Item = &'static str> {
    all(common::DETECTION_ENV_FIRST, |e| e.detection_env)
        .chain(common::DETECTION_ENV_LAST.iter().copied())
}

/// Whether a path looks like test code (or fixtures) by any ecosystem's conventions.
/// Whether a change to a file of this name may change any test (see
/// [`Ecosystem::selects_all`]).
pub fn selects_all(name: &str) -> bool {
    ECOSYSTEMS
        .iter()
        .flat_map(|e| e.selects_all)
        .any(|p| match p.strip_suffix(".*") {
            Some(stem) => name
                .strip_prefix(stem)
                .is_some_and(|rest| rest.starts_with('.')),
            None => name == *p,
        })
}

pub fn is_test_path(path: &str) -> bool {
    let mut parts = path.split('/');
    let file = parts.next_back().unwrap_or("");
    let stem = file.split('.').next().unwrap_or(file);
    let tf = |f: fn(&'static TestFiles) -> &'static [&'static str]| {
        ECOSYSTEMS
            .iter()
            .flat_map(move |e| f(&e.test_files).iter().copied())
    };
    parts.any(|d| common::TEST_DIRS.contains(&d) || tf(|t| t.dirs).any(|x| x == d))
        || tf(|t| t.stem_prefixes).any(|p| stem.starts_with(p))
        || tf(|t| t.stem_suffixes).any(|s| stem.ends_with(s))
        || tf(|t| t.name_contains).any(|c| file.contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_extensions_are_the_language_tables_but_where_said() {
        use std::collections::BTreeSet;
        let set = |xs: &[&'static str]| xs.iter().copied().collect::<BTreeSet<_>>();
        let of = |ls: &[&lang::Descriptor]| -> BTreeSet<&'static str> {
            ls.iter()
                .flat_map(|l| l.extensions.iter().copied())
                .collect()
        };
        assert_eq!(set(RUST.source_extensions), of(&[&lang::RUST]));
        assert_eq!(set(PYTHON.source_extensions), of(&[&lang::PYTHON]));
        assert_eq!(set(GO.source_extensions), of(&[&lang::GO]));
        assert_eq!(
            JS.source_extensions,
            ["js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts"]
        );
        assert_eq!(DOTNET.source_extensions, ["cs", "fs", "vb"]);
        let mut jvm = of(&[&lang::JAVA, &lang::KOTLIN, &lang::SCALA]);
        jvm.remove("kts");
        jvm.insert("groovy");
        assert_eq!(set(JVM.source_extensions), jvm);
        let mut cpp = of(&[&lang::C, &lang::CPP]);
        for x in ["c++", "h++", "ipp", "inl", "tcc"] {
            assert!(cpp.remove(x), "{x}");
        }
        assert_eq!(set(CPP.source_extensions), cpp);
    }

    #[test]
    fn runner_names_are_unique_and_listed_in_table_order() {
        assert_eq!(
            RUNNER_NAMES,
            [
                "nextest", "cargo", "pytest", "unittest", "go", "jest", "vitest", "node", "mocha",
                "dotnet", "maven", "gradle", "ctest", "bazel"
            ]
        );
        for n in RUNNER_NAMES {
            assert_eq!(RUNNER_NAMES.iter().filter(|m| *m == n).count(), 1, "{n}");
            assert!(by_runner(n).is_some());
        }
    }

    #[test]
    fn the_projects_looked_for_read_as_a_list() {
        assert_eq!(
            project_names(),
            "Cargo, Python, Go, JavaScript, .NET, JVM, CMake and Bazel"
        );
        assert!(toolchains().any(|t| t == "bazel") && toolchains().any(|t| t == "cargo"));
    }

    #[test]
    fn ids_are_unique_and_every_ecosystem_has_a_runner_and_a_marker() {
        for e in ECOSYSTEMS {
            assert_eq!(ECOSYSTEMS.iter().filter(|o| o.id == e.id).count(), 1);
            assert!(!e.runners.is_empty(), "{}", e.id);
            // What the "no runner" line names and what the environment fingerprints come
            // from here: an ecosystem without them would be missing from both.
            assert!(!e.name.is_empty(), "{}", e.id);
            assert!(project_names().contains(e.name), "{}", e.id);
            assert!(!e.toolchains.is_empty(), "{}", e.id);
            assert!(
                !e.root_markers.is_empty() || !e.root_marker_extensions.is_empty(),
                "{}",
                e.id
            );
            for m in e.environment_markers {
                assert!(e.generated_markers.contains(m), "{m}");
            }
        }
    }

    /// The rule as the index wrote it before the conventions moved into the descriptors.
    fn is_test_path_before(path: &str) -> bool {
        let mut parts = path.split('/');
        let file = parts.next_back().unwrap_or("");
        let stem = file.split('.').next().unwrap_or(file);
        parts.any(|d| {
            matches!(
                d,
                "test" | "tests" | "__tests__" | "testdata" | "fixtures" | "spec"
            )
        }) || stem.starts_with("test_")
            || stem.ends_with("_test")
            || stem.ends_with("Test")
            || stem.ends_with("Tests")
            || file.contains(".test.")
            || file.contains(".spec.")
    }

    #[test]
    fn test_paths_are_told_as_before() {
        let dirs = [
            "",
            "src/",
            "test/",
            "tests/",
            "__tests__/",
            "testdata/",
            "fixtures/",
        ];
        let more = ["spec/", "specs/", "a/tests/b/", "x.test/", "testing/"];
        let files = [
            "a.rs",
            "test_a.py",
            "a_test.go",
            "ATest.java",
            "ATests.cs",
            "a.test.ts",
            "a.spec.js",
            "test.py",
            "tests.rs",
            "contest.py",
            "a_tests.py",
            "Attest.kt",
            "a.tests.ts",
            "x.spec",
            "test_",
            "_test.go",
            "Test.java",
            "latest.rs",
        ];
        for d in dirs.iter().chain(&more) {
            for f in files {
                let p = format!("{d}{f}");
                assert_eq!(is_test_path(&p), is_test_path_before(&p), "{p}");
            }
        }
    }

    #[test]
    fn test_configuration_and_build_scripts_select_everything() {
        for name in [
            "conftest.py",
            "build.rs",
            "jest.config.js",
            "vitest.config.mts",
            "setup.py",
        ] {
            assert!(selects_all(name), "{name}");
        }
        for name in [
            "jest.configure.js",
            "test_build.rs",
            "config.py",
            "jest",
            "vitest.config",
        ] {
            assert!(!selects_all(name), "{name}");
        }
    }

    #[test]
    fn test_paths_follow_every_ecosystems_conventions() {
        for p in [
            "tests/a.rs",
            "pkg/test_x.py",
            "x_test.go",
            "src/a.test.ts",
            "src/__tests__/a.js",
            "FooTest.java",
            "FooTests.cs",
            "data/fixtures/a.py",
        ] {
            assert!(is_test_path(p), "{p}");
        }
        for p in ["src/lib.rs", "pkg/x.py", "src/Foo.java", "contest.py"] {
            assert!(!is_test_path(p), "{p}");
        }
    }

    #[test]
    fn every_project_file_is_a_marker_with_its_outputs() {
        for f in MAVEN_BUILD_FILES.iter().chain(GRADLE_BUILD_FILES) {
            assert!(is_root_marker(f), "{f}");
            assert!(build_outputs().any(|(b, _)| b == *f), "{f}");
        }
        for x in DOTNET_SOLUTION_EXTENSIONS {
            assert!(is_root_marker_extension(x), "{x}");
        }
        for x in DOTNET_PROJECT_EXTENSIONS {
            assert!(is_root_marker_extension(x), "{x}");
            let pattern = format!("*.{x}");
            assert!(build_outputs().any(|(b, _)| b == pattern), "{x}");
        }
    }

    #[test]
    fn ignored_outputs_are_the_list_the_store_kept_before() {
        // The store's one list before it was split over the descriptors.
        let before = [
            "build",
            "dist",
            "out",
            "_build",
            ".build",
            ".eggs",
            "dist-newstyle",
            ".stack-work",
            "DerivedData",
            "coverage",
            "htmlcov",
            ".nyc_output",
            "TestResults",
            ".benchmarks",
            ".cache",
            ".mypy_cache",
            ".ruff_cache",
            ".pytype",
            ".pyre",
            ".tox",
            ".nox",
            ".next",
            ".nuxt",
            ".svelte-kit",
            ".turbo",
            ".parcel-cache",
            ".angular",
            ".gradle",
            ".kotlin",
            ".dart_tool",
            ".terraform",
            "tmp",
            "temp",
            "log",
            "logs",
            ".idea",
            ".vscode",
            ".vs",
            ".fleet",
            "vendor",
            "bower_components",
            "jspm_packages",
            ".yarn",
            ".pnpm-store",
            ".bundle",
            "Pods",
        ];
        let mut now: Vec<&str> = all(common::IGNORED_OUTPUTS, |e| e.ignored_outputs).collect();
        now.sort_unstable();
        let mut was = before.to_vec();
        was.sort_unstable();
        assert_eq!(now, was);
        assert!(is_ignored_output(".tox") && is_ignored_output("Pods"));
        assert!(!is_ignored_output("src") && !is_ignored_output("target"));
    }
}
