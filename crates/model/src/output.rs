//! The last run's raw output as `pith output` reads it back: what the runners printed, colour
//! removed and workspace paths relative, its head and tail within a bound (the middle
//! counted), and each test's own output where the runner kept it apart. The engine builds it
//! after a run, the store keeps it (one per workspace, replaced by the next run), `wire`
//! pages it.

/// What a test printed itself (its captured stdout and stderr, its log), apart from the
/// runner's own lines, as its adapter separated it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TestOutput {
    /// The runner's id of the test, as in [`crate::Failure::test`].
    pub test: String,
    /// Its lines, as printed (the engine removes colour and paths before keeping it).
    pub text: String,
}

impl TestOutput {
    /// A test's output from its lines (without their newlines); `None` when they say nothing.
    pub fn of_lines<'a>(
        test: impl Into<String>,
        lines: impl IntoIterator<Item = &'a str>,
    ) -> Option<TestOutput> {
        let mut text = String::new();
        // Blank lines before the first line that says something say nothing.
        for l in lines.into_iter().skip_while(|l| l.trim().is_empty()) {
            text.push_str(l.strip_suffix('\n').unwrap_or(l));
            text.push('\n');
        }
        let end = text.trim_end().len();
        text.truncate(end);
        text.push('\n');
        (end > 0).then(|| TestOutput {
            test: test.into(),
            text,
        })
    }
}

/// Where the kept output left lines out, and how much.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cut {
    /// The line (from 1) that stands in for what was left out.
    pub line: u32,
    /// Lines left out, where known (a capture's own dropped bytes are counted in bytes only).
    pub lines: u64,
    pub bytes: u64,
}

/// One run's output, as kept.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunOutput {
    /// The generation the run tested.
    pub generation: Option<u64>,
    /// Every kept line of what the runners printed, in order.
    pub lines: Vec<String>,
    /// Set when the middle was left out.
    pub cut: Option<Cut>,
    /// Each test's own output, where its adapter knows it.
    pub tests: Vec<TestOutput>,
}

/// The lines `pith output` answers with, before paging.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OutputLines {
    /// `None`: no run was kept yet.
    pub run: Option<RunView>,
}

/// What one question selected of a kept run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunView {
    pub generation: Option<u64>,
    /// The selected lines, each with its number (from 1) in what it was taken from.
    pub lines: Vec<(u32, String)>,
    /// The question filtered the lines (`--grep`): each is shown with its number.
    pub numbered: bool,
    /// The question named a test whose own output was not kept apart: these are the run's
    /// lines that name it.
    pub by_name: bool,
    /// The question named a test that has neither own output nor a line naming it.
    pub unknown_test: bool,
    /// The run's output (not a test's) left its middle out.
    pub cut: Option<Cut>,
}
