//! One test binary's lines read as they come: its libtest block told from what its tests'
//! children and direct writes put around and inside it (a block opened by the binary's first
//! line, closed by the `test result:` whose counts add up, failed tests' sections captured as
//! bounded heads and tails), and the rest of what it printed. Which result lines are the
//! binary's is left to [`Block::settle`], which needs the whole block.

use std::collections::HashSet;

use super::super::capture::HeadTail;
use super::lines::{running_count, section_header, totals_line, Piece};
use super::{Block, Outcome, Totals};
use crate::text;

/// Beyond this much captured output in one run, each further failed test keeps less: a
/// thousand failures logging megabytes each must not add up.
const RETAINED_BUDGET: usize = 32 << 20;
/// Result lines kept per binary: every test's, and a bound on what others print like them.
const MAX_RESULT_LINES: usize = 250_000;
/// Lines of a `failures:` list held until its `test result:` line says it was one.
const MAX_LIST_LINES: usize = 100_000;
/// Bounds of one binary's own text (its stderr, what its children printed): a harness-less
/// binary's failure message is there.
const OWN_HEAD: usize = 4 * 1024;
const OWN_TAIL: usize = 12 * 1024;

/// Reads one binary's lines: its libtest block, told from what its tests' children and direct
/// writes put around and inside it, and the rest of what it printed.
#[derive(Debug)]
pub struct Reader {
    /// Only a `running N tests` that is the first thing printed opens a block (a harness of
    /// the binary's own may print one of its children's later).
    strict: bool,
    /// Blocks may follow one another (rustdoc: edition 2024's merged doctests, then the
    /// others); they are read as one.
    pub(super) several: bool,
    /// Those read before the current one.
    sealed: Vec<Block>,
    any: bool,
    block: Option<Block>,
    /// Result lines as they came, each (name, outcome) once.
    lines: Vec<(String, Outcome)>,
    line_set: HashSet<(String, Outcome)>,
    /// Names with a `FAILED` line: only their section headers open a section.
    failed: HashSet<String>,
    /// `test NAME ... ` lines whose verdict another writer's text cut off, latest last: a
    /// verdict alone on a line ends the latest (a child's cut line ends before its parent's).
    pending: Vec<String>,
    /// The failed test whose captured output we are inside.
    capturing: Option<(String, HeadTail)>,
    /// Lines after a `failures:` line, until a `test result:` line says they were the list.
    list: Option<Vec<String>>,
    /// The last `test result:` whose counts add up to the declared tests, with the list
    /// above it.
    pub(super) closing: Option<(Totals, Option<Vec<String>>)>,
    /// libtest's own lines read so far: cargo's word on the binary counts only after them.
    structure: u64,
    own: HeadTail,
    retained: usize,
}

impl Reader {
    /// `strict`: the binary has no libtest harness (`harness = false`).
    pub fn new(strict: bool) -> Self {
        Reader {
            strict,
            several: false,
            sealed: Vec::new(),
            any: false,
            block: None,
            lines: Vec::new(),
            line_set: HashSet::new(),
            failed: HashSet::new(),
            pending: Vec::new(),
            capturing: None,
            list: None,
            closing: None,
            structure: 0,
            own: HeadTail::new(OWN_HEAD, OWN_TAIL),
            retained: 0,
        }
    }

    /// One line, without its newline. Returns whether it is text of the binary's own (not
    /// libtest's structure nor a failed test's captured output).
    pub fn line(&mut self, raw: &str) -> bool {
        let clean = text::strip_ansi(raw);
        let mut line = clean.trim_end_matches(['\r', '\n']);
        let mut own = false;
        // libtest writes `test NAME ... `, its verdict and the newline as three writes: another
        // writer's text may follow a verdict on its line, and is read as a line of its own.
        loop {
            let (mine, rest) = self.step(line);
            own |= mine;
            match rest {
                Some(r) if !r.is_empty() => line = r,
                _ => return own,
            }
        }
    }

    /// One line or what follows a verdict on it: whether it is the binary's own text, and
    /// what remains of the line to read.
    fn step<'l>(&mut self, line: &'l str) -> (bool, Option<&'l str>) {
        if self.list.is_some() && self.in_list(line) {
            return (false, None);
        }
        let first = !self.any && !line.trim().is_empty();
        if first {
            self.any = true;
        }
        if self.several && self.closing.is_some() && running_count(line).is_some() {
            self.seal();
        }
        if self.block.is_none() {
            return (self.before_block(line, first), None);
        }
        self.in_block(line)
    }

    /// A line after a `failures:` line: whether it was read as the list, or as the
    /// `test result:` line that says it was one.
    fn in_list(&mut self, line: &str) -> bool {
        let Some(buf) = self.list.as_mut() else {
            return false;
        };
        if line.is_empty() || (line.starts_with("    ") && !line.trim().is_empty()) {
            buf.push(line.to_owned());
            if buf.len() > MAX_LIST_LINES {
                self.unlist();
            }
            return true;
        }
        let closing = totals_line(line)
            .filter(|t| self.block.as_ref().is_some_and(|b| b.declared == t.ran()));
        if let Some(t) = closing {
            let buf = self.list.take().unwrap_or_default();
            let names = buf
                .iter()
                .map(|l| l.trim())
                .filter(|l| !l.is_empty())
                .map(str::to_owned)
                .collect();
            self.structure += 1;
            self.flush();
            self.closed(t, Some(names));
            return true;
        }
        // Not the binary's list (a child's, or a failed test's output quoting one): text
        // again, and this line is read as any other.
        self.unlist();
        false
    }

    /// A line before the block opened: whether it is the binary's own text.
    fn before_block(&mut self, line: &str, first: bool) -> bool {
        if let Some(n) = running_count(line).filter(|_| first || !self.strict) {
            self.structure += 1;
            self.block = Some(Block {
                declared: n,
                ..Block::default()
            });
            return false;
        }
        self.own_line(line)
    }

    /// A line inside the block, as [`Reader::step`] answers.
    fn in_block<'l>(&mut self, line: &'l str) -> (bool, Option<&'l str>) {
        if self.opens_section(line) {
            return (false, None);
        }
        if line == "failures:" {
            self.list = Some(Vec::new());
            return (false, None);
        }
        // Inside a failed test's section the line is its captured output, and may be libtest's
        // all the same: a section header can be a child's (its failing test's name reported
        // by a line of its own), and the binary's results go on after it. Result lines are
        // read wherever they are; [`Block::settle`] keeps those that are the binary's.
        let captured = match self.capturing.as_mut() {
            Some((_, out)) => {
                out.push_line(line);
                true
            }
            None => false,
        };
        if let Some(t) = totals_line(line) {
            // Inside a section: the binary's own closing line when its list was lost among
            // other text, a quoted one otherwise (the binary's own, later, replaces it).
            self.structure += 1;
            self.closed(t, None);
            return (false, None);
        }
        if let Some(piece) = Piece::read(line, &mut self.pending) {
            self.structure += 1;
            match piece {
                Piece::Verdict(name, o, rest) => {
                    self.result(name, o);
                    return (false, Some(rest));
                }
                Piece::Then(next) => return (false, Some(next)),
                Piece::Cut(after) => return (!captured && self.own_line(after), None),
            }
        }
        if captured
            || (line.starts_with("test ")
                && line.ends_with(" has been running for over 60 seconds"))
        {
            return (false, None);
        }
        (self.own_line(line), None)
    }

    /// A failed test's section header: the section's lines are its captured output, kept
    /// smaller once the run has kept much.
    fn opens_section(&mut self, line: &str) -> bool {
        if let Some(name) = section_header(line) {
            if self.failed.contains(name) {
                self.structure += 1;
                self.flush();
                let cap = if self.retained > RETAINED_BUDGET {
                    HeadTail::new(2 * 1024, 14 * 1024)
                } else {
                    HeadTail::for_test()
                };
                self.capturing = Some((name.to_owned(), cap));
                return true;
            }
        }
        false
    }

    fn own_line(&mut self, line: &str) -> bool {
        if line.trim().is_empty() {
            return false;
        }
        self.own.push_line(line);
        true
    }

    fn result(&mut self, name: String, outcome: Outcome) {
        if self.lines.len() >= MAX_RESULT_LINES || self.line_set.contains(&(name.clone(), outcome))
        {
            return;
        }
        if outcome == Outcome::Failed {
            self.failed.insert(name.clone());
        }
        self.line_set.insert((name.clone(), outcome));
        self.lines.push((name, outcome));
    }

    /// A `test result:` line: the binary's closing one when its counts add up to the tests it
    /// declared (the last such line wins: the binary prints its own after everything it ran).
    fn closed(&mut self, t: Totals, list: Option<Vec<String>>) {
        if self.block.as_ref().is_some_and(|b| b.declared == t.ran()) {
            self.closing = Some((t, list));
        }
    }

    /// What followed a `failures:` line was not the list: it is text again.
    fn unlist(&mut self) {
        let Some(buf) = self.list.take() else {
            return;
        };
        match self.capturing.as_mut() {
            Some((_, out)) => {
                out.push_line("failures:");
                for l in &buf {
                    out.push_line(l);
                }
            }
            None => {
                for l in buf.iter().filter(|l| !l.trim().is_empty()) {
                    self.own.push_line(l);
                }
            }
        }
    }

    fn flush(&mut self) {
        if let Some((name, out)) = self.capturing.take() {
            self.retained += out.len();
            if let Some(b) = self.block.as_mut() {
                b.outputs.insert(name, out.into_string());
            }
        }
    }

    /// libtest's own lines read so far.
    pub fn structure(&self) -> u64 {
        self.structure
    }

    /// Ends the current block: what its lines said is kept, and the next block starts afresh.
    fn seal(&mut self) {
        self.unlist();
        self.flush();
        let Some(mut block) = self.block.take() else {
            return;
        };
        block.results = std::mem::take(&mut self.lines);
        block.seen = block.results.iter().map(|(n, _)| n.clone()).collect();
        if let Some((t, list)) = self.closing.take() {
            block.finished = true;
            block.totals = Some(t);
            block.failures = list;
        }
        self.line_set.clear();
        self.failed.clear();
        self.pending.clear();
        self.sealed.push(block);
    }

    /// The block (if the binary printed one) and the binary's own text.
    pub fn finish(mut self) -> (Option<Block>, String) {
        self.seal();
        let own = std::mem::replace(&mut self.own, HeadTail::new(0, 0)).into_string();
        let mut blocks = std::mem::take(&mut self.sealed).into_iter();
        let Some(mut all) = blocks.next() else {
            return (None, own);
        };
        for b in blocks {
            all.join(b);
        }
        (Some(all), own)
    }
}

impl Block {
    /// Adds the block that followed this one in the same process (rustdoc prints two).
    fn join(&mut self, b: Block) {
        let list = |x: &Block| match (&x.failures, x.totals) {
            (Some(l), _) => Some(l.clone()),
            (None, Some(t)) if t.failed == 0 => Some(Vec::new()),
            _ => None,
        };
        self.failures = match (list(self), list(&b)) {
            (Some(mut a), Some(c)) => {
                a.extend(c);
                Some(a)
            }
            _ => None,
        };
        self.totals = match (self.totals, b.totals) {
            (Some(a), Some(c)) => Some(Totals {
                passed: a.passed + c.passed,
                failed: a.failed + c.failed,
                ignored: a.ignored + c.ignored,
                measured: a.measured + c.measured,
            }),
            _ => None,
        };
        self.declared = self.declared.saturating_add(b.declared);
        self.finished &= b.finished;
        self.seen.extend(b.seen);
        self.results.extend(b.results);
        self.outputs.extend(b.outputs);
    }
}
