//! What pith knows about a change's reach that no runner says: the changed lines a red run's
//! failing tests reach (`Suspects`), and the impact answers (the tests of a file, the tests a
//! change selects, a file's or symbol's blast radius). The engine fills them from the store's
//! change memory and the index's import graph; `wire` shapes them.

/// How pith knew which code the failing tests execute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reach {
    /// The import graph: the test's files depend, transitively, on the changed file.
    #[default]
    Static,
    /// The failing tests re-ran with line tracing on the changed files.
    Traced,
}

impl Reach {
    pub fn name(self) -> &'static str {
        match self {
            Reach::Static => "static",
            Reach::Traced => "traced",
        }
    }
}

/// Why a red answer's suspects come from the import graph alone, in one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Traceless {
    /// `pith test --trace never`.
    Off,
    /// The graph left no choice: a frame on a changed line, or one changed hunk.
    Unneeded,
    /// The runner has no line tracing pith can use (Rust, Gradle, .NET, C++, Bazel).
    Unsupported,
    /// The trace ran and saw none of the failing tests (no coverage provider, a coverage
    /// agent of the project's own in the way, a re-run past its time limit).
    Empty,
}

impl Traceless {
    pub fn name(self) -> &'static str {
        match self {
            Traceless::Off => "off",
            Traceless::Unneeded => "unneeded",
            Traceless::Unsupported => "unsupported",
            Traceless::Empty => "empty",
        }
    }
}

/// What the changed lines were compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Baseline {
    /// The files as of the last run in which the failing test passed.
    LastPass,
    /// The files as of the last green run.
    LastGreen,
    /// A git revision: `HEAD` (the uncommitted changes) when pith has no passing run to
    /// compare with, or the revision asked for.
    Git,
}

impl Baseline {
    pub fn name(self) -> &'static str {
        match self {
            Baseline::LastPass => "lastPass",
            Baseline::LastGreen => "lastGreen",
            Baseline::Git => "git",
        }
    }
}

/// A changed line the failing tests reach: where to look first.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Suspect {
    pub file: String,
    pub line: u32,
    /// The line's text now, trimmed (empty for a deleted line's neighbour past the end).
    pub source: String,
}

impl Suspect {
    pub fn location(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// A red run's suspects, best first, and how they were found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suspects {
    pub reach: Reach,
    pub baseline: Baseline,
    pub lines: Vec<Suspect>,
    /// How many of the first `lines` the evidence cannot tell apart (at least 1): an answer
    /// that sheds suspects keeps all of these.
    pub tied: usize,
    /// With a static reach, why nothing was traced.
    pub traceless: Option<Traceless>,
}

/// A green run's changed lines that no test reaches: proven by nothing, though green.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untested {
    pub reach: Reach,
    /// One line a hunk, first changes first; every hunk no test reaches is counted in `count`.
    pub lines: Vec<Suspect>,
    pub count: usize,
}

/// The tests that depend on one file (`pith tests-for`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileTests {
    pub file: String,
    /// Test files, nearest first (the file itself when it is a test).
    pub tests: Vec<String>,
    /// The graph cannot place the file (not a source file it reads): every test may read it.
    pub unplaced: bool,
}

/// The tests a change selects (`pith select`, `pith test --changed`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Selection {
    /// What the changes were measured against; `None` when there was nothing to compare with.
    pub baseline: Option<Baseline>,
    /// The changed files, sorted.
    pub changed: Vec<String>,
    /// The selected test files, nearest the changes first; with `all`, empty.
    pub tests: Vec<String>,
    /// Every test is selected, and why (a build file changed, a file the graph cannot place,
    /// no baseline).
    pub all: Option<String>,
    /// Test files in the workspace.
    pub suite: usize,
    /// `pith test --changed`: the last run's failing tests, run again whatever the changes
    /// reach.
    pub failing: usize,
}

/// What depends on a file or a symbol (`pith blast`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Blast {
    pub target: String,
    /// Files that depend on the target (for a symbol: the files that use it and theirs),
    /// nearest first, tests included.
    pub files: Vec<String>,
    /// For a symbol: where it is defined, `file:line`; for a file: the symbols it defines.
    pub symbols: Vec<String>,
    /// The test files among `files`, nearest first.
    pub tests: Vec<String>,
    /// The target is not a file the graph places nor a symbol the index knows.
    pub unknown: bool,
}

/// Lines executed, per workspace-relative file.
pub type Lines = std::collections::BTreeMap<String, std::collections::BTreeSet<u32>>;

/// What running some tests again with line tracing found: for each test id, the lines of the
/// traced files it executed (a test that executed none of them has an empty map; a test the
/// re-run did not report is absent).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Traced {
    pub tests: std::collections::BTreeMap<String, Lines>,
    /// The files that were traced, workspace-relative: a file outside them tells nothing
    /// (not executed and not traced look alike in `tests`). Empty: the caller knows them.
    pub files: std::collections::BTreeSet<String>,
    /// The lines each traced file's import ran (module code, class bodies), where the process
    /// imported it before the traced tests ran: they executed for every test whose files
    /// import it, with no trace event to say so.
    pub imported: Lines,
    /// Per traced file whose tracer sees only some of its lines (go's coverage counts the
    /// statements in function bodies, not a package-level `const` or `var`), every line it
    /// could see: a changed line outside them is unread, not unexecuted, and the graph's word
    /// on it stands. A traced file not here had every line seen.
    pub seen: Lines,
}

/// Modules the tests of one test file loaded by a name computed at run time (`importlib`,
/// `__import__`): the edges an import graph cannot see, as a run saw them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Loads {
    /// The test file, workspace-relative.
    pub test: String,
    /// The files of the modules it loaded, workspace-relative, sorted.
    pub modules: Vec<String>,
    /// Whether the run saw the whole file: every test in it ran and passed (a failing test may
    /// stop before its load). Only a whole observation replaces an earlier one.
    pub whole: bool,
}
