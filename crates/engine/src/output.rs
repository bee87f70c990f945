//! The last run's raw output on demand (`pith output`, MCP `get_output`): after a run, what
//! its runners printed is kept in the workspace's state directory (never in the project) with
//! colour and terminal rewrites removed, workspace paths relative, its head and tail within
//! [`HEAD_BYTES`] + [`TAIL_BYTES`] (the middle counted on one line in its place), and each
//! test's own output where its adapter kept it apart; a question selects lines from it
//! (`--test`, `--grep`) and `wire` pages them. The answer's `tail` and `pith failures` are
//! the first resort; this is the last, and never a reason to run again.

use std::path::PathBuf;

use pith_model::output::{Cut, OutputLines, RunOutput, RunView, TestOutput};
use pith_model::Report;
use pith_runner::PathMap;
use pith_store::Store;

use crate::{resolve, EngineError};

/// Bytes of the run's output kept from its start: usage errors, the first failures.
pub const HEAD_BYTES: usize = 128 * 1024;
/// Bytes kept from its end: the last failures, summaries, crash dumps.
pub const TAIL_BYTES: usize = 128 * 1024;
/// Bytes of one test's own output kept, half from its start and half from its end.
pub const TEST_BYTES: usize = 32 * 1024;
/// Bytes of every test's own output together; failing tests' first.
pub const TESTS_BYTES: usize = 256 * 1024;
/// The longest line kept; a longer one (minified code, a base64 blob) is cut, marked `…`.
const LINE_BYTES: usize = 8 * 1024;
/// The longest pattern `--grep` takes, and the most memory its program may use.
const PATTERN_BYTES: usize = 1024;
const REGEX_SIZE: usize = 1 << 20;

/// One `pith output` question.
#[derive(Default, Clone)]
pub struct OutputRequest {
    pub root: Option<PathBuf>,
    pub cwd: PathBuf,
    /// Only the lines that match this regular expression, numbered.
    pub grep: Option<String>,
    /// This test's own output (else the run's lines that name it).
    pub test: Option<String>,
}

/// The lines `req` selects of the last run's output.
pub fn output(req: &OutputRequest) -> Result<OutputLines, EngineError> {
    let pattern = req.grep.as_deref().map(pattern).transpose()?;
    let root = resolve(req.root.as_deref(), &req.cwd)?;
    let store = Store::open(&root)?;
    let Some(run) = store.output()? else {
        return Ok(OutputLines::default());
    };
    Ok(OutputLines {
        run: Some(select(run, req.test.as_deref(), pattern.as_ref())),
    })
}

fn pattern(p: &str) -> Result<regex::Regex, EngineError> {
    if p.len() > PATTERN_BYTES {
        return Err(EngineError::Pattern(format!(
            "longer than {PATTERN_BYTES} bytes"
        )));
    }
    regex::RegexBuilder::new(p)
        .size_limit(REGEX_SIZE)
        .build()
        .map_err(|e| {
            // regex's message spans lines (the pattern, a caret, the reason): the reason is
            // the line that says what to fix.
            let text = e.to_string();
            let why = text.lines().rev().find(|l| !l.trim().is_empty());
            EngineError::Pattern(why.unwrap_or("not a regular expression").trim().to_owned())
        })
}

fn select(run: RunOutput, test: Option<&str>, grep: Option<&regex::Regex>) -> RunView {
    let mut view = RunView {
        generation: run.generation,
        cut: run.cut,
        numbered: grep.is_some(),
        ..RunView::default()
    };
    let numbered = |lines: Vec<String>| -> Vec<(u32, String)> {
        lines
            .into_iter()
            .enumerate()
            .map(|(i, l)| (u32::try_from(i + 1).unwrap_or(u32::MAX), l))
            .collect()
    };
    let mut lines = match test {
        None => numbered(run.lines),
        Some(id) => match run.tests.into_iter().find(|t| t.test == id) {
            Some(own) => {
                view.cut = None;
                numbered(own.text.lines().map(str::to_owned).collect())
            }
            None => {
                let name = short_name(id);
                view.by_name = true;
                view.numbered = true;
                let named: Vec<(u32, String)> = numbered(run.lines)
                    .into_iter()
                    .filter(|(_, l)| l.contains(name))
                    .collect();
                view.unknown_test = named.is_empty();
                named
            }
        },
    };
    if let Some(re) = grep {
        lines.retain(|(_, l)| re.is_match(l));
    }
    view.lines = lines;
    view
}

/// The part of a test id a runner prints beside its result: the id's last segment (a
/// function, a method, a subtest), parameters included.
fn short_name(id: &str) -> &str {
    // Parameters may hold any separator: the name ends where they start.
    let base = id.find('[').map_or(id, |i| &id[..i]);
    let start = [" ", "::", "#", "/", "."]
        .iter()
        .filter_map(|sep| base.rfind(sep).map(|i| i + sep.len()))
        .max()
        .unwrap_or(0);
    let name = &id[start..];
    if name.is_empty() {
        id
    } else {
        name
    }
}

/// What of `report` is kept: every run's printed output, scrubbed and bounded, and each test's
/// own output.
pub(crate) fn kept(root: &std::path::Path, report: &Report) -> RunOutput {
    let paths = PathMap::new(root);
    let mut all = Lines::default();
    let several = report.runs.len() > 1;
    for run in &report.runs {
        if several {
            // Which project the lines below come from: pith's line, not the runner's.
            all.line(match &run.dir {
                Some(dir) => format!("[pith: {} in {dir}]", run.runner),
                None => format!("[pith: {}]", run.runner),
            });
        }
        all.text(&paths.scrub(&run.printed.text));
        if run.printed.skipped > 0 {
            all.gap(run.printed.skipped_lines, run.printed.skipped);
        }
        all.text(&paths.scrub(&run.printed.tail));
    }
    let (lines, cut) = all.bounded(HEAD_BYTES, TAIL_BYTES);
    RunOutput {
        generation: report.generation,
        lines,
        cut,
        tests: tests_kept(&paths, report),
    }
}

/// Each test's own output, failing tests first, each within [`TEST_BYTES`] and all within
/// [`TESTS_BYTES`]; a test reported twice (retries, several batches) keeps both, in order; a
/// failing test without any has its failure's text.
fn tests_kept(paths: &PathMap, report: &Report) -> Vec<TestOutput> {
    let failing: std::collections::HashSet<&str> = report
        .runs
        .iter()
        .flat_map(|r| r.failures.iter().chain(&r.flaky))
        .map(|f| f.test.as_str())
        .collect();
    let mut own: Vec<TestOutput> = Vec::new();
    for t in report.runs.iter().flat_map(|r| &r.test_output) {
        match own.iter_mut().find(|o| o.test == t.test) {
            Some(o) => o.text.push_str(&t.text),
            None => own.push(t.clone()),
        }
    }
    // A failing test its adapter kept no output apart for (the runner printed it into a report
    // pith reads, not a stream) has the failure's whole text as the runner reported it.
    for f in report
        .runs
        .iter()
        .flat_map(|r| r.failures.iter().chain(&r.flaky))
    {
        if !own.iter().any(|o| o.test == f.test) {
            let text = f.detail.as_deref().unwrap_or(&f.message);
            own.extend(TestOutput::of_lines(f.test.clone(), text.lines()));
        }
    }
    own.sort_by_key(|t| !failing.contains(t.test.as_str()));
    let mut spent = 0;
    let mut kept = Vec::new();
    for t in own {
        let mut lines = Lines::default();
        lines.text(&paths.scrub(&t.text));
        let (lines, _) = lines.bounded(TEST_BYTES / 2, TEST_BYTES / 2);
        if lines.is_empty() {
            continue;
        }
        let text = lines.join("\n") + "\n";
        spent += text.len() + t.test.len();
        if spent > TESTS_BYTES {
            break;
        }
        kept.push(TestOutput { test: t.test, text });
    }
    kept
}

/// Lines as a terminal would show them, with gaps where bytes were left out.
#[derive(Default)]
struct Lines {
    items: Vec<Item>,
    /// The last line is still open (the text ended without a newline).
    open: bool,
}

enum Item {
    Line(String),
    Gap { lines: u64, bytes: u64 },
}

impl Lines {
    fn line(&mut self, l: String) {
        self.items.push(Item::Line(l));
        self.open = false;
    }

    fn text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let from = self.items.len().saturating_sub(1);
        // The newline ending the text ends its last line; it starts none.
        let body = text.strip_suffix('\n').unwrap_or(text);
        for (i, raw) in body.split('\n').enumerate() {
            match (i, self.items.last_mut()) {
                (0, Some(Item::Line(l))) if self.open => l.push_str(raw),
                _ => self.items.push(Item::Line(raw.to_owned())),
            }
        }
        self.open = !text.ends_with('\n');
        for item in &mut self.items[from..] {
            if let Item::Line(l) = item {
                if l.contains('\r') || l.len() > LINE_BYTES {
                    *l = shown(l);
                }
            }
        }
    }

    fn gap(&mut self, lines: u64, bytes: u64) {
        self.items.push(Item::Gap { lines, bytes });
        self.open = false;
    }

    /// The lines within `head` bytes from the start and `tail` from the end, every gap (its
    /// own and the middle left out) on one line standing in for it.
    fn bounded(self, head: usize, tail: usize) -> (Vec<String>, Option<Cut>) {
        let size = |i: &Item| match i {
            Item::Line(l) => l.len() + 1,
            Item::Gap { .. } => 0,
        };
        let total: usize = self.items.iter().map(size).sum();
        let mut items = self.items;
        if total > head + tail {
            let mut h = 0;
            let mut spent = 0;
            while h < items.len() && spent + size(&items[h]) <= head {
                spent += size(&items[h]);
                h += 1;
            }
            let mut t = items.len();
            spent = 0;
            while t > h && spent + size(&items[t - 1]) <= tail {
                spent += size(&items[t - 1]);
                t -= 1;
            }
            let (mut lines, mut bytes) = (0, 0);
            for item in items.drain(h..t) {
                match item {
                    Item::Line(l) => {
                        lines += 1;
                        bytes += l.len() as u64 + 1;
                    }
                    Item::Gap { lines: n, bytes: b } => {
                        lines += n;
                        bytes += b;
                    }
                }
            }
            items.insert(h, Item::Gap { lines, bytes });
        }
        let mut cut: Option<Cut> = None;
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Item::Line(l) => out.push(l),
                Item::Gap { lines, bytes } => {
                    let c = cut.get_or_insert(Cut {
                        line: u32::try_from(out.len() + 1).unwrap_or(u32::MAX),
                        ..Cut::default()
                    });
                    c.lines += lines;
                    c.bytes += bytes;
                    out.push(match lines {
                        0 => format!("[pith: {bytes} bytes left out]"),
                        n => format!("[pith: {n} lines ({bytes} bytes) left out]"),
                    });
                }
            }
        }
        (out, cut)
    }
}

/// A line as a terminal leaves it: what follows its last carriage return (progress bars
/// rewrite their line), backspaces applied (the next character overwrites: a test printing
/// `%c` of a small number, a man page's bold), no other control character, within
/// [`LINE_BYTES`].
fn shown(l: &str) -> String {
    let l = l.strip_suffix('\r').unwrap_or(l);
    let l = l.rsplit('\r').next().unwrap_or(l);
    let overwritten;
    let l = if l.chars().any(|c| c.is_control() && c != '\t') {
        overwritten = overwrite(l);
        overwritten.as_str()
    } else {
        l
    };
    if l.len() <= LINE_BYTES {
        return l.to_owned();
    }
    let mut end = LINE_BYTES;
    while !l.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &l[..end])
}

/// `l` with its backspaces moving the cursor back and the other control characters (tab
/// aside) dropped.
fn overwrite(l: &str) -> String {
    let mut shown: Vec<char> = Vec::with_capacity(l.len());
    let mut at: usize = 0;
    for c in l.chars() {
        match c {
            '\u{8}' => at = at.saturating_sub(1),
            c if c.is_control() && c != '\t' => {}
            c => {
                if at < shown.len() {
                    shown[at] = c;
                } else {
                    shown.push(c);
                }
                at += 1;
            }
        }
    }
    shown.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_keeps_what_a_terminal_shows_of_its_control_characters() {
        assert_eq!(shown("got 2 expected 1\u{8}"), "got 2 expected 1");
        assert_eq!(shown("ab\u{8}c\u{7}d"), "acd");
        assert_eq!(shown("a\u{8}\u{8}\u{8}xyz"), "xyz");
        assert_eq!(shown("col\tumn\u{0}"), "col\tumn");
    }
    use pith_model::Run;

    fn run_printing(text: &str) -> Run {
        let mut run = Run::new("cargo");
        run.printed.push(text);
        run
    }

    #[test]
    fn kept_output_is_scrubbed_and_rewritten_lines_show_their_last_state() {
        let root = std::path::Path::new("/ws/proj");
        let report = Report {
            runs: vec![run_printing(
                "\u{1b}[31mFAIL\u{1b}[0m /ws/proj/src/lib.rs:3\n\n 10%\r 50%\r100%\nwindows\r\n\nlast",
            )],
            generation: Some(4),
            ..Report::default()
        };
        let out = kept(root, &report);
        assert_eq!(
            out.lines,
            ["FAIL src/lib.rs:3", "", "100%", "windows", "", "last"]
        );
        assert_eq!((out.generation, out.cut), (Some(4), None));
    }

    #[test]
    fn a_long_output_keeps_its_head_and_tail_and_says_what_it_left_out() {
        let mut run = Run::new("pytest");
        for i in 0..40_000 {
            run.printed.line(&format!("line {i:05} of the output"));
        }
        let report = Report {
            runs: vec![run],
            ..Report::default()
        };
        let out = kept(std::path::Path::new("/ws"), &report);
        let bytes: usize = out.lines.iter().map(|l| l.len() + 1).sum();
        assert!(bytes <= HEAD_BYTES + TAIL_BYTES + 100, "{bytes}");
        assert_eq!(out.lines[0], "line 00000 of the output");
        assert_eq!(out.lines.last().unwrap(), "line 39999 of the output");
        let cut = out.cut.unwrap();
        let kept_lines = out.lines.len() as u64 - 1;
        assert_eq!(cut.lines + kept_lines, 40_000);
        // The printed text's own gap (past its kept prefix) and the bound's are one.
        assert_eq!(
            out.lines.iter().filter(|l| l.starts_with("[pith:")).count(),
            1
        );
        let marker = &out.lines[cut.line as usize - 1];
        assert_eq!(
            marker,
            &format!("[pith: {} lines ({} bytes) left out]", cut.lines, cut.bytes)
        );
        assert_eq!(cut.bytes, cut.lines * 25);
    }

    #[test]
    fn several_projects_are_told_apart_and_tests_own_output_is_kept_failing_first() {
        let mut a = run_printing("a says\n");
        a.dir = Some("a".into());
        a.test_output = vec![
            TestOutput {
                test: "passing".into(),
                text: "fine\n".into(),
            },
            TestOutput {
                test: "failing".into(),
                text: "\u{1b}[1m/ws/a/x.py\u{1b}[0m broke\n".into(),
            },
        ];
        a.failures = vec![pith_model::Failure {
            test: "failing".into(),
            ..Default::default()
        }];
        let b = run_printing("b says");
        let report = Report {
            runs: vec![a, b],
            ..Report::default()
        };
        let out = kept(std::path::Path::new("/ws"), &report);
        assert_eq!(
            out.lines,
            ["[pith: cargo in a]", "a says", "[pith: cargo]", "b says"]
        );
        let ids: Vec<&str> = out.tests.iter().map(|t| t.test.as_str()).collect();
        assert_eq!(ids, ["failing", "passing"]);
        assert_eq!(out.tests[0].text, "a/x.py broke\n");
    }

    #[test]
    fn a_test_without_output_of_its_own_is_found_by_name_and_grep_numbers_lines() {
        let run = RunOutput {
            lines: vec![
                "test tests::adds ... ok".into(),
                "test tests::subtracts ... FAILED".into(),
                "---- tests::subtracts stdout ----".into(),
            ],
            tests: vec![TestOutput {
                test: "crate tests::adds".into(),
                text: "own 1\nown 2\n".into(),
            }],
            ..RunOutput::default()
        };
        let own = select(run.clone(), Some("crate tests::adds"), None);
        assert_eq!(own.lines, [(1, "own 1".into()), (2, "own 2".into())]);
        assert!(!own.by_name && !own.numbered);

        let named = select(run.clone(), Some("crate tests::subtracts"), None);
        assert!(named.by_name && named.numbered);
        assert_eq!(named.lines.iter().map(|l| l.0).collect::<Vec<_>>(), [2, 3]);

        let re = pattern("FAIL|own 2").unwrap();
        let grep = select(run.clone(), None, Some(&re));
        assert_eq!(grep.lines, [(2, "test tests::subtracts ... FAILED".into())]);
        let both = select(run.clone(), Some("crate tests::adds"), Some(&re));
        assert_eq!(both.lines, [(2, "own 2".into())]);

        assert!(select(run, Some("nothing_like_it"), None).unknown_test);
        assert!(matches!(pattern("(unclosed"), Err(EngineError::Pattern(_))));
    }

    #[test]
    fn a_tests_short_name_is_what_runners_print_beside_it() {
        for (id, name) in [
            ("tests/test_a.py::test_b[x/y-1.5]", "test_b[x/y-1.5]"),
            ("crate::bin tests::it_works", "it_works"),
            ("example.com/m/pkg/TestX/sub", "sub"),
            ("com.acme.CalcTest#adds", "adds"),
            ("Suite.Case", "Case"),
            ("plain", "plain"),
        ] {
            assert_eq!(short_name(id), name, "{id}");
        }
    }
}
