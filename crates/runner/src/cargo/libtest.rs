//! libtest's stable human output as `cargo test` prints it, and cargo's lines around it that
//! say which test binary printed what. Best effort on any text: never panics.
//!
//! pith reads cargo's stdout and stderr as one stream, in the order they were written
//! ([`crate::process::run_lines_merged`]): cargo announces each binary on stderr
//! (`     Running unittests src/lib.rs (target/debug/deps/x-hash)`, `   Doc-tests crate`)
//! before it starts it, so everything up to the next announcement is that binary's
//! ([`Segment`]), and after it ends cargo says how (`error: test failed, to rerun pass ...`,
//! with `process didn't exit successfully: ...` when it did not exit with libtest's 101).
//! An announcement counts only when it names a binary cargo built for this run.
//!
//! A binary's stdout is shared with whatever its tests start: libtest captures `print!`, not
//! a child process's output nor a direct write to the stdout handle, so a test that runs
//! `cargo test` on a fixture, or a tool such as trybuild, puts `running N tests`,
//! `test x ... FAILED`, `failures:` and `test result:` lines of its own into the binary's
//! block. What libtest itself says is told from them by what a child cannot forge
//! ([`Reader`]): the block is opened by the binary's first line, closed by its last
//! `test result:` whose counts add up to the tests it declared, its failures are the
//! `failures:` list just above that line, and result lines those counts do not account for
//! are checked against the tests the binary lists (`--list`) by [`Block::settle`].
//!
//! A block: `running N tests`, then `test NAME ... ok|FAILED|ignored` lines (libtest writes
//! `test NAME ... ` and its verdict separately, so another writer may land between them),
//! then (on failure) `---- NAME stdout ----` sections with each failed test's captured
//! output, the `failures:` list, and `test result: ...`. Every line is read as it comes,
//! never all of it kept: results, and each failed test's output as a bounded head and tail.

use std::collections::{HashMap, HashSet};

use super::capture::HeadTail;
use super::diag;
use crate::text;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    Passed,
    Failed,
    Ignored,
}

/// libtest's closing count: `test result: FAILED. 2 passed; 1 failed; 1 ignored; 0 measured;
/// 0 filtered out; finished in 0.32s`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Totals {
    pub passed: u32,
    pub failed: u32,
    pub ignored: u32,
    pub measured: u32,
}

impl Totals {
    /// Tests the binary ran (the `running N tests` it declared, when it is the binary's own).
    pub fn ran(&self) -> u32 {
        self.passed
            .saturating_add(self.failed)
            .saturating_add(self.ignored)
            .saturating_add(self.measured)
    }
}

/// What one test binary's libtest block says, once read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Block {
    /// `running N tests`.
    pub declared: u32,
    /// Tests in the order they reported.
    pub results: Vec<(String, Outcome)>,
    /// Captured output of failed tests, by name (head and tail when long).
    pub outputs: HashMap<String, String>,
    /// The binary's own `test result:` was printed: it ran to its end.
    pub finished: bool,
    /// The counts of that line.
    pub totals: Option<Totals>,
    /// The `failures:` list just above that line.
    failures: Option<Vec<String>>,
    seen: HashSet<String>,
}

impl Block {
    pub fn reported(&self, name: &str) -> bool {
        self.seen.contains(name)
    }

    fn set_results(&mut self, results: Vec<(String, Outcome)>) {
        self.seen = results.iter().map(|(n, _)| n.clone()).collect();
        self.results = results;
    }

    /// Settles which result lines are the binary's own: the failures are its `failures:`
    /// list; the other lines are kept when they add up to its totals, else only those naming
    /// a test the binary lists (`listed`, asked only then; `None` when it cannot be asked).
    /// An unfinished block has no totals: its lines are kept when nothing can be listed.
    /// Returns where the binary's own count still disagrees with its lines.
    pub fn settle(&mut self, listed: &mut dyn FnMut() -> Option<Vec<String>>) -> Option<String> {
        let Some(totals) = self.totals.filter(|_| self.finished) else {
            let all = std::mem::take(&mut self.results);
            if all.is_empty() {
                return None;
            }
            let kept = match listed() {
                Some(names) => {
                    let names: HashSet<String> = names.into_iter().collect();
                    first_outcomes(all, |n| names.contains(n))
                }
                None => first_outcomes(all, |_| true),
            };
            self.set_results(kept);
            return None;
        };
        let lines = std::mem::take(&mut self.results);
        let listed_once = std::cell::OnceCell::new();
        let mut listing = || listed_once.get_or_init(&mut *listed).as_ref();
        // The binary's failures: its list; without one (lost among other text), its `FAILED`
        // lines, only those naming its tests when they are more than it counted.
        let failed: Vec<String> = match &self.failures {
            Some(list) => list.clone(),
            None if totals.failed == 0 => Vec::new(),
            None => {
                let all = distinct(lines.iter().filter(|(_, o)| *o == Outcome::Failed));
                match listing().filter(|_| all.len() != totals.failed as usize) {
                    Some(names) => all.into_iter().filter(|n| names.contains(n)).collect(),
                    None => all,
                }
            }
        };
        let failed_set: HashSet<&str> = failed.iter().map(String::as_str).collect();
        let others = |keep: &dyn Fn(&str) -> bool| {
            let mut passed = Vec::new();
            let mut ignored = Vec::new();
            for (name, o) in &lines {
                if failed_set.contains(name.as_str()) || !keep(name) {
                    continue;
                }
                let into = match o {
                    Outcome::Passed => &mut passed,
                    Outcome::Ignored => &mut ignored,
                    Outcome::Failed => continue,
                };
                if !into.contains(name) {
                    into.push(name.clone());
                }
            }
            // A name reported both ways (a child's line and the binary's): counted once, where
            // the totals have room for it.
            let room = (totals.passed + totals.measured) as usize;
            let both: Vec<String> = passed
                .iter()
                .filter(|n| ignored.contains(n))
                .cloned()
                .collect();
            for n in both {
                if passed.len() > room {
                    passed.retain(|p| *p != n);
                } else {
                    ignored.retain(|i| *i != n);
                }
            }
            (passed, ignored)
        };
        let agrees = |p: &[String], i: &[String]| {
            p.len() == (totals.passed + totals.measured) as usize
                && i.len() == totals.ignored as usize
                && failed.len() == totals.failed as usize
        };
        let (mut passed, mut ignored) = others(&|_| true);
        if !agrees(&passed, &ignored) {
            if let Some(names) = listing() {
                let names_set: HashSet<&str> = names.iter().map(String::as_str).collect();
                (passed, ignored) = others(&|n| names_set.contains(n));
                // A listed test no line reported stays unreported, whatever the totals leave
                // room for: a count is no test's verdict.
            }
        }
        let disagreement = (!agrees(&passed, &ignored)).then(|| {
            format!(
                "libtest counted {} passed, {} failed, {} ignored; its result lines say {}, {}, {}",
                totals.passed + totals.measured,
                totals.failed,
                totals.ignored,
                passed.len(),
                failed.len(),
                ignored.len()
            )
        });
        // In the order the lines came; the failure list's names no line reported, last.
        let mut results: Vec<(String, Outcome)> = Vec::new();
        let mut placed: HashSet<String> = HashSet::new();
        for (name, _) in &lines {
            if placed.contains(name) {
                continue;
            }
            let o = if failed_set.contains(name.as_str()) {
                Outcome::Failed
            } else if passed.contains(name) {
                Outcome::Passed
            } else if ignored.contains(name) {
                Outcome::Ignored
            } else {
                continue;
            };
            placed.insert(name.clone());
            results.push((name.clone(), o));
        }
        for (names, o) in [
            (&failed, Outcome::Failed),
            (&passed, Outcome::Passed),
            (&ignored, Outcome::Ignored),
        ] {
            for n in names {
                if placed.insert(n.clone()) {
                    results.push((n.clone(), o));
                }
            }
        }
        self.set_results(results);
        self.outputs
            .retain(|name, _| failed_set.contains(name.as_str()));
        disagreement
    }
}

/// Each name once, with the outcome of its first line, among those `keep` accepts.
fn first_outcomes(
    lines: Vec<(String, Outcome)>,
    keep: impl Fn(&str) -> bool,
) -> Vec<(String, Outcome)> {
    let mut seen = HashSet::new();
    lines
        .into_iter()
        .filter(|(n, _)| keep(n) && seen.insert(n.clone()))
        .collect()
}

fn distinct<'a>(lines: impl Iterator<Item = &'a (String, Outcome)>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (n, _) in lines {
        if !out.contains(n) {
            out.push(n.clone());
        }
    }
    out
}

/// Beyond this much captured output in one run, each further failed test keeps less: a
/// thousand failures logging megabytes each must not add up.
const RETAINED_BUDGET: usize = 32 << 20;
/// Result lines kept per binary: every test's, and a bound on what others print like them.
const MAX_RESULT_LINES: usize = 250_000;
/// `test NAME ... ` lines awaiting their verdict, at most.
const MAX_PENDING: usize = 1000;
/// Lines of a `failures:` list held until its `test result:` line says it was one.
const MAX_LIST_LINES: usize = 100_000;
/// Bounds of one binary's own text (its stderr, what its children printed): a harness-less
/// binary's failure message is there.
const OWN_HEAD: usize = 4 * 1024;
const OWN_TAIL: usize = 12 * 1024;
/// Bounds of the text of the whole stream that is not libtest's (cargo's own lines, the
/// binaries' stderr): tails are made from it.
const REST_HEAD: usize = 1 << 20;
const REST_TAIL: usize = 4 << 20;

/// What a line (or what follows a verdict on it) says of libtest's result lines, `pending`
/// holding the `test NAME ... ` lines whose verdict is still to come, latest last.
enum Piece<'l> {
    /// A test's verdict, and the text after it on the line (another writer's).
    Verdict(String, Outcome, &'l str),
    /// `test NAME ... ` then another writer's `test X ... `: NAME's verdict comes later, and
    /// what follows is read as a line of its own.
    Then(&'l str),
    /// `test NAME ... ` then another writer's text, which is this text.
    Cut(&'l str),
}

impl<'l> Piece<'l> {
    fn read(line: &'l str, pending: &mut Vec<String>) -> Option<Piece<'l>> {
        let Some((name, after)) = started_line(line) else {
            // A verdict alone (or before another writer's text) ends the latest cut line: a
            // child's cut line ends before its parent's.
            let (o, rest) = verdict_prefix(line).filter(|_| !pending.is_empty())?;
            return pending.pop().map(|name| Piece::Verdict(name, o, rest));
        };
        if let Some((o, rest)) = verdict_prefix(after) {
            pending.retain(|p| *p != name);
            return Some(Piece::Verdict(name, o, rest));
        }
        // A name with ` ... test ` in it is not worth misreading every cut line as one.
        let cut_by_another = started_line(after).is_some();
        if !cut_by_another {
            if let Some((name, o)) = result_line(line) {
                // A name with ` ... ` in it (a harness of the binary's own names its tests).
                return Some(Piece::Verdict(name, o, ""));
            }
        }
        if pending.len() < MAX_PENDING {
            pending.push(name);
        }
        Some(if cut_by_another {
            Piece::Then(after)
        } else {
            Piece::Cut(after)
        })
    }
}

/// Reads one binary's lines: its libtest block, told from what its tests' children and direct
/// writes put around and inside it, and the rest of what it printed.
#[derive(Debug)]
pub struct Reader {
    /// Only a `running N tests` that is the first thing printed opens a block (a harness of
    /// the binary's own may print one of its children's later).
    strict: bool,
    /// Blocks may follow one another (rustdoc: edition 2024's merged doctests, then the
    /// others); they are read as one.
    several: bool,
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
    closing: Option<(Totals, Option<Vec<String>>)>,
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
        if let Some(buf) = self.list.as_mut() {
            if line.is_empty() || (line.starts_with("    ") && !line.trim().is_empty()) {
                buf.push(line.to_owned());
                if buf.len() > MAX_LIST_LINES {
                    self.unlist();
                }
                return (false, None);
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
                return (false, None);
            }
            // Not the binary's list (a child's, or a failed test's output quoting one): text
            // again, and this line is read as any other.
            self.unlist();
        }
        let first = !self.any && !line.trim().is_empty();
        if first {
            self.any = true;
        }
        if self.several && self.closing.is_some() && running_count(line).is_some() {
            self.seal();
        }
        if self.block.is_none() {
            if let Some(n) = running_count(line).filter(|_| first || !self.strict) {
                self.structure += 1;
                self.block = Some(Block {
                    declared: n,
                    ..Block::default()
                });
                return (false, None);
            }
            return (self.own_line(line), None);
        }
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
                return (false, None);
            }
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

/// One binary cargo ran, in the order it ran them: what it printed and how cargo said it
/// ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// `None`: lines no announcement accounts for (cargo told of no binary: a quiet cargo).
    pub who: Option<Announced>,
    pub block: Option<Block>,
    pub failed: Option<Failed>,
    /// What the binary wrote outside libtest's block (its stderr, what its tests' children
    /// printed), head and tail.
    pub own: String,
}

/// Whether an announced binary is one cargo built for this run, and whether it has a libtest
/// harness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    Libtest,
    /// `harness = false`.
    Custom,
    /// Not built for this run: another cargo's (a test's child) words.
    Foreign,
}

/// cargo's merged output read into segments, one per announced binary, line by line.
#[derive(Debug)]
pub struct Stream {
    segments: Vec<Segment>,
    current: Option<Open>,
    rest: HeadTail,
}

/// The segment being read.
#[derive(Debug)]
struct Open {
    who: Option<Announced>,
    reader: Reader,
    /// cargo's word on how the binary ended, and how many of libtest's lines came before it.
    failed: Option<(Failed, u64)>,
    /// cargo's closing summary (`error: 2 targets failed:`) and its list were said.
    summary: bool,
}

impl Default for Stream {
    fn default() -> Self {
        Stream::new()
    }
}

impl Stream {
    pub fn new() -> Self {
        Stream {
            segments: Vec::new(),
            current: None,
            rest: HeadTail::new(REST_HEAD, REST_TAIL),
        }
    }

    /// One line of the stream (cargo's JSON messages are the caller's); `known` says whether
    /// an announced binary is this run's.
    pub fn line(&mut self, raw: &str, known: &dyn Fn(&Announced) -> Known) {
        let clean = text::strip_ansi(raw);
        let line = clean.trim_end_matches(['\r', '\n']);
        if let Some(who) = announcement(line) {
            let k = known(&who);
            if k != Known::Foreign {
                self.close();
                let mut reader = Reader::new(k == Known::Custom);
                reader.several = matches!(who, Announced::Doc(_));
                self.current = Some(Open {
                    who: Some(who),
                    reader,
                    failed: None,
                    summary: false,
                });
                self.rest.push_line(line);
                return;
            }
        }
        if let Some(open) = self.current.as_mut() {
            if let Some(note) = note(line, open) {
                if let Some(f) = note {
                    open.failed = Some((f, open.reader.structure()));
                }
                self.rest.push_line(line);
                return;
            }
        }
        let quiet = self.current.as_ref().is_none_or(|o| o.who.is_none());
        if quiet && running_count(line).is_some() {
            // No announcement at all (a quiet cargo): each block that begins after the last
            // one closed is the next binary's.
            let done = self
                .current
                .as_ref()
                .is_none_or(|o| o.reader.closing.is_some());
            if done {
                self.close();
                self.current = Some(Open {
                    who: None,
                    reader: Reader::new(false),
                    failed: None,
                    summary: false,
                });
            }
        }
        match self.current.as_mut() {
            Some(open) => {
                if open.reader.line(line) {
                    self.rest.push_line(line);
                }
            }
            None => {
                if !line.trim().is_empty() {
                    self.rest.push_line(line);
                }
            }
        }
    }

    fn close(&mut self) {
        let Some(open) = self.current.take() else {
            return;
        };
        let structure = open.reader.structure();
        let (block, own) = open.reader.finish();
        if open.who.is_none() && block.is_none() {
            return;
        }
        // A note libtest's own lines came after was a child's: the binary went on.
        let failed = open
            .failed
            .filter(|(_, at)| *at == structure)
            .map(|(f, _)| f);
        self.segments.push(Segment {
            who: open.who,
            block,
            failed,
            own,
        });
    }

    /// Every segment, and the text that is not libtest's (cargo's own lines, the binaries'
    /// stderr and what their children printed), head and tail.
    pub fn finish(mut self) -> (Vec<Segment>, String) {
        self.close();
        (self.segments, self.rest.into_string())
    }
}

/// cargo's word after a binary ended: `Some(Some(how))` for how it failed, `Some(None)` for
/// the lines around it, `None` for any other line.
fn note(line: &str, open: &mut Open) -> Option<Option<Failed>> {
    if line.starts_with("error: test failed, to rerun pass")
        || line.starts_with("error: doctest failed, to rerun pass")
    {
        return Some(Some(Failed::Reported));
    }
    if let Some((exe, how)) = exit_line(line) {
        let name = std::path::Path::new(&exe).file_name();
        let mine = match &open.who {
            Some(Announced::Exe(e)) => {
                name.is_some() && std::path::Path::new(e).file_name() == name
            }
            Some(Announced::Doc(_)) | None => true,
        };
        return Some(mine.then_some(how));
    }
    if line == "Caused by:" {
        return Some(None);
    }
    if line.starts_with("error: ") && line.contains(" failed:") && line.contains("target") {
        open.summary = true;
        return Some(None);
    }
    if open.summary && line.starts_with("    `") && line.ends_with('`') {
        return Some(None);
    }
    None
}

/// Every segment of `out` as [`Stream`] reads it, every announced binary taken as this run's
/// libtest binary, and the text that is not libtest's.
pub fn parse_all(out: &str) -> (Vec<Segment>, String) {
    let mut s = Stream::new();
    for line in out.lines() {
        if diag::is_message(line) {
            continue;
        }
        s.line(line, &|_| Known::Libtest);
    }
    s.finish()
}

/// The blocks of `out`, as [`parse_all`] reads them.
#[cfg(test)]
pub fn parse(out: &str) -> Vec<Block> {
    parse_all(out)
        .0
        .into_iter()
        .filter_map(|s| s.block)
        .collect()
}

pub fn running_count(line: &str) -> Option<u32> {
    let rest = line.strip_prefix("running ")?;
    let n = rest
        .strip_suffix(" tests")
        .or_else(|| rest.strip_suffix(" test"))?;
    n.parse().ok()
}

/// `---- NAME stdout ----`.
fn section_header(line: &str) -> Option<&str> {
    line.strip_prefix("---- ")?.strip_suffix(" stdout ----")
}

/// `test result: ok. 2 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; ...`.
pub fn totals_line(line: &str) -> Option<Totals> {
    let rest = line.strip_prefix("test result: ")?;
    let (_, counts) = rest.split_once(". ")?;
    let mut t = Totals::default();
    let mut any = false;
    for part in counts.split("; ") {
        let Some((n, what)) = part.trim().split_once(' ') else {
            continue;
        };
        let Ok(n) = n.parse::<u32>() else { continue };
        let slot = match what {
            "passed" => &mut t.passed,
            "failed" => &mut t.failed,
            "ignored" => &mut t.ignored,
            "measured" => &mut t.measured,
            _ => continue,
        };
        *slot = n;
        any = true;
    }
    any.then_some(t)
}

/// A verdict as libtest writes it after `test NAME ... `.
fn verdict(v: &str) -> Option<Outcome> {
    match v.trim() {
        "ok" => Some(Outcome::Passed),
        "FAILED" => Some(Outcome::Failed),
        v if v == "ignored" || v.starts_with("ignored, ") => Some(Outcome::Ignored),
        v if v.starts_with("bench:") => Some(Outcome::Passed),
        _ => None,
    }
}

/// A verdict at the start of `s` and what follows it on the line: `ok` and `FAILED` may be
/// followed by another writer's text; `ignored, REASON` and `bench: ...` run to the end.
fn verdict_prefix(s: &str) -> Option<(Outcome, &str)> {
    if let Some(o) = verdict(s) {
        return Some((o, ""));
    }
    [("ok", Outcome::Passed), ("FAILED", Outcome::Failed)]
        .into_iter()
        .find_map(|(w, o)| s.strip_prefix(w).map(|rest| (o, rest)))
}

/// The name of a test in `test NAME - should panic`-style forms.
fn test_name(name: &str) -> &str {
    let name = name.trim();
    for mode in [" - should panic", " - compile fail", " - compile"] {
        if let Some(n) = name.strip_suffix(mode) {
            return n;
        }
    }
    name
}

/// `test NAME ... ok` and its variants (`FAILED`, `ignored`, `ignored, reason`, a
/// ` - should panic` mode suffix after the name).
pub fn result_line(line: &str) -> Option<(String, Outcome)> {
    let rest = line.strip_prefix("test ")?;
    let (name, v) = rest.rsplit_once(" ... ")?;
    let outcome = verdict(v)?;
    let name = test_name(name);
    (!name.is_empty()).then(|| (name.to_owned(), outcome))
}

/// Where in `lines` (one test process's output) libtest said `name` passed: its
/// `test NAME ... ok`, or the `ok` that ended its `test NAME ... ` after other text.
pub fn passed_at(lines: &[&str], name: &str) -> Option<usize> {
    let mut at = None;
    let mut pending = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let mut l: &str = l;
        while let Some(piece) = Piece::read(l, &mut pending) {
            l = match piece {
                Piece::Verdict(n, o, rest) => {
                    if n == name && o == Outcome::Passed {
                        at = Some(i);
                    } else if n == name {
                        // The process runs this one test: a `FAILED` alone may be the test's own
                        // text, and libtest's `ok` for it may still come.
                        pending.push(n);
                    }
                    rest
                }
                Piece::Then(next) => next,
                Piece::Cut(_) => break,
            };
        }
    }
    at
}

/// `test NAME ... ` followed by no verdict (another writer's text, or nothing yet): the name
/// and what followed.
fn started_line(line: &str) -> Option<(String, &str)> {
    let rest = line.strip_prefix("test ")?;
    let (name, after) = rest.split_once(" ... ")?;
    let name = test_name(name);
    (!name.is_empty() && !name.contains(" ... ")).then(|| (name.to_owned(), after))
}

/// One binary cargo announced, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Announced {
    /// `Running ... (PATH)`: the executable as cargo displayed it (often relative).
    Exe(String),
    /// `Doc-tests CRATE`.
    Doc(String),
}

/// How cargo said a test binary ended, when it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failed {
    /// `error: test failed` and nothing more: libtest's own exit code, 101.
    Reported,
    /// ``process didn't exit successfully: `EXE` (exit status: N)``.
    Status(i32),
    /// `` ... (signal: 6, SIGABRT: process abort signal)``: the signal's name.
    Signal(String),
}

/// `     Running unittests src/lib.rs (target/debug/deps/x-hash)` (older cargo printed just the
/// path) or `   Doc-tests crate`, in cargo's right-aligned status column.
fn announcement(line: &str) -> Option<Announced> {
    if let Some(rest) = line.strip_prefix("     Running ") {
        let rest = rest.trim();
        let exe = match (rest.rfind(" ("), rest.ends_with(')')) {
            (Some(i), true) => &rest[i + 2..rest.len() - 1],
            _ => rest,
        };
        let exe = exe.trim_matches('`');
        return (!exe.is_empty()).then(|| Announced::Exe(exe.to_owned()));
    }
    let name = line.strip_prefix("   Doc-tests ")?.trim();
    (!name.is_empty()).then(|| Announced::Doc(name.to_owned()))
}

/// ``process didn't exit successfully: `EXE ARGS` (exit status: 1)`` or
/// ``(signal: 6, SIGABRT: process abort signal)``: the executable and how it ended.
fn exit_line(line: &str) -> Option<(String, Failed)> {
    const MARK: &str = "process didn't exit successfully: `";
    let i = line.find(MARK)?;
    let rest = &line[i + MARK.len()..];
    let (cmd, why) = rest.rsplit_once("` (")?;
    let exe = cmd.split(' ').next().unwrap_or(cmd).to_owned();
    if let Some(code) = why.strip_prefix("exit status: ") {
        let code = code.trim_end_matches(')').trim().parse().ok()?;
        return Some((exe, Failed::Status(code)));
    }
    let sig = why.strip_prefix("signal: ")?;
    // `6, SIGABRT: process abort signal)`
    let name = sig
        .split([',', ')'])
        .nth(1)
        .and_then(|s| s.split(':').next())
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map_or_else(
            || format!("signal {}", sig.split(',').next().unwrap_or("?")),
            str::to_owned,
        );
    Some((exe, Failed::Signal(name)))
}

/// `--list --format terse` output: `NAME: test` lines.
pub fn list(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| l.trim_end().strip_suffix(": test"))
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SINGLE: &str = r#"{"reason":"compiler-artifact","package_id":"path+file:///tmp/exp/single#0.1.0"}
{"reason":"build-finished","success":true}

running 4 tests
test tests::adds_negative ... ok
test tests::adds ... ok
test tests::slow ... ignored
test tests::off_by_one ... FAILED

failures:

---- tests::off_by_one stdout ----

thread 'tests::off_by_one' (12237) panicked at src/lib.rs:11:5:
assertion `left == right` failed
  left: 4
 right: 5
stack backtrace:
   4: single::check_sum
             at ./src/lib.rs:11:5
note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.


failures:
    tests::off_by_one

test result: FAILED. 2 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.32s


running 1 test
test src/lib.rs - add (line 3) ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.19s

"#;

    /// `cargo test` of a crate whose tests print runner lines past libtest's capture (cargo
    /// 1.95, stdout and stderr merged; backtraces cut): one test writes a whole libtest block
    /// and a cargo announcement straight to its stdout and stderr, another runs `cargo test`
    /// on a crate of its own with its output inherited, and `real_failure` fails.
    const FORGED: &str = include_str!("testdata/forged_merged.txt");

    fn forge_known(who: &Announced) -> Known {
        match who {
            Announced::Exe(e) if e.ends_with("forge-7d50b91e3e2a08b5") => Known::Libtest,
            Announced::Doc(d) if d == "forge" => Known::Libtest,
            _ => Known::Foreign,
        }
    }

    fn stream(text: &str, known: &dyn Fn(&Announced) -> Known) -> (Vec<Segment>, String) {
        let mut s = Stream::new();
        for line in text.lines() {
            if !diag::is_message(line) {
                s.line(line, known);
            }
        }
        s.finish()
    }

    fn names(b: &Block, o: Outcome) -> Vec<&str> {
        b.results
            .iter()
            .filter(|(_, x)| *x == o)
            .map(|(n, _)| n.as_str())
            .collect()
    }

    const FORGE_TESTS: [&str; 4] = [
        "tests::adds",
        "tests::prints_forged_lines",
        "tests::real_failure",
        "tests::runs_a_child_cargo_test",
    ];

    #[test]
    fn blocks_of_single() {
        let b = parse(SINGLE);
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].declared, 4);
        assert!(b[0].finished);
        assert_eq!(
            b[0].totals,
            Some(Totals {
                passed: 2,
                failed: 1,
                ignored: 1,
                measured: 0
            })
        );
        assert_eq!(
            b[0].results,
            vec![
                ("tests::adds_negative".into(), Outcome::Passed),
                ("tests::adds".into(), Outcome::Passed),
                ("tests::slow".into(), Outcome::Ignored),
                ("tests::off_by_one".into(), Outcome::Failed),
            ]
        );
        let out = &b[0].outputs["tests::off_by_one"];
        assert!(out.contains("panicked at src/lib.rs:11:5:"));
        assert!(out.contains("at ./src/lib.rs:11:5"));
        assert!(!out.contains("test result"));
        assert_eq!(
            b[1].results,
            vec![("src/lib.rs - add (line 3)".into(), Outcome::Passed)]
        );
        // Lines that add up to the totals are settled without asking the binary.
        let mut b0 = b[0].clone();
        let asked = std::cell::Cell::new(false);
        assert_eq!(
            b0.settle(&mut || {
                asked.set(true);
                None
            }),
            None
        );
        assert!(!asked.get());
        assert_eq!(b0.results, b[0].results);
    }

    #[test]
    fn forged_and_child_lines_are_not_the_binarys() {
        let (segs, rest) = stream(FORGED, &forge_known);
        assert_eq!(segs.len(), 2, "{segs:#?}");
        assert_eq!(
            segs[0].who,
            Some(Announced::Exe(
                "target/debug/deps/forge-7d50b91e3e2a08b5".into()
            ))
        );
        assert_eq!(segs[0].failed, Some(Failed::Reported));
        assert_eq!(segs[1].who, Some(Announced::Doc("forge".into())));
        assert_eq!(segs[1].failed, None);
        let mut b = segs[0].block.clone().unwrap();
        assert_eq!(b.declared, 4);
        assert!(b.finished);
        let mut asked = 0;
        let why = b.settle(&mut || {
            asked += 1;
            Some(FORGE_TESTS.iter().map(|s| s.to_string()).collect())
        });
        assert_eq!((why, asked), (None, 1));
        assert_eq!(names(&b, Outcome::Failed), ["tests::real_failure"]);
        assert_eq!(
            names(&b, Outcome::Passed),
            [
                "tests::adds",
                "tests::prints_forged_lines",
                "tests::runs_a_child_cargo_test"
            ]
        );
        let out = &b.outputs["tests::real_failure"];
        assert!(out.contains("real failure"), "{out}");
        assert!(!out.contains("child failure"), "{out}");
        assert_eq!(b.outputs.len(), 1);
        // The forged block's first line is the binary's own text.
        assert!(rest.contains("running 2 tests"), "{rest}");
    }

    #[test]
    fn without_a_list_the_totals_still_say_which_lines_disagree() {
        let (segs, _) = stream(FORGED, &forge_known);
        let mut b = segs[0].block.clone().unwrap();
        let why = b.settle(&mut || None);
        assert_eq!(
            why.as_deref(),
            Some("libtest counted 3 passed, 1 failed, 0 ignored; its result lines say 5, 1, 0")
        );
    }

    #[test]
    fn a_green_binary_is_not_failed_by_a_childs_failure() {
        // The same run with `real_failure` passing: libtest's own word is `ok`.
        let green = FORGED
            .replace(
                "test tests::real_failure ... FAILED",
                "test tests::real_failure ... ok",
            )
            .replace(
                "test result: FAILED. 3 passed; 1 failed; 0 ignored",
                "test result: ok. 4 passed; 0 failed; 0 ignored",
            );
        let cut = green
            .find("\nfailures:\n\n---- tests::real_failure")
            .unwrap();
        let end = green.find("test result: ok. 4 passed").unwrap();
        let green = format!("{}\n\n{}", &green[..cut], &green[end..]).replace(
            "error: test failed, to rerun pass `--lib`\n   Doc-tests",
            "   Doc-tests",
        );
        let (segs, _) = stream(&green, &forge_known);
        // The child's `error: test failed` came before libtest's last lines: not the binary's.
        assert_eq!(segs[0].failed, None);
        let mut b = segs[0].block.clone().unwrap();
        let why = b.settle(&mut || Some(FORGE_TESTS.iter().map(|s| s.to_string()).collect()));
        assert_eq!(why, None);
        assert!(names(&b, Outcome::Failed).is_empty(), "{:?}", b.results);
        assert_eq!(names(&b, Outcome::Passed).len(), 4);
    }

    #[test]
    fn a_verdict_cut_off_by_another_writer_still_counts() {
        let text = "     Running unittests src/lib.rs (target/debug/deps/forge-7d50b91e3e2a08b5)\n\nrunning 2 tests\ntest tests::adds ... error: test failed, to rerun pass `--lib`\nok\ntest tests::real_failure ... ok\n\ntest result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";
        let (segs, _) = stream(text, &forge_known);
        assert_eq!(segs[0].failed, None, "a note inside a line is text");
        let mut b = segs[0].block.clone().unwrap();
        assert_eq!(b.settle(&mut || None), None);
        assert_eq!(
            names(&b, Outcome::Passed),
            ["tests::adds", "tests::real_failure"]
        );
        // The verdict and its newline are two writes too: a line of another writer's may
        // follow the verdict on its line (seen with two test threads).
        let glued = text.replace(
            "ok\ntest tests::real_failure",
            "oktest forged::c ... FAILED\n\ntest tests::real_failure",
        );
        let (segs, _) = stream(&glued, &forge_known);
        let mut b = segs[0].block.clone().unwrap();
        let why = b.settle(&mut || Some(vec!["tests::adds".into(), "tests::real_failure".into()]));
        assert_eq!(why, None);
        assert_eq!(
            b.results,
            vec![
                ("tests::adds".into(), Outcome::Passed),
                ("tests::real_failure".into(), Outcome::Passed)
            ]
        );
        // Another writer's whole result line may land between `test NAME ... ` and its
        // verdict (seen on a loaded machine): it is its own, and the verdict is still NAME's.
        let cut = text.replace(
            "error: test failed, to rerun pass `--lib`\nok\n",
            "test forged::c ... FAILED\nok\n",
        );
        let (segs, _) = stream(&cut, &forge_known);
        let mut b = segs[0].block.clone().unwrap();
        assert_eq!(b.settle(&mut || None), None, "{b:?}");
        assert_eq!(
            names(&b, Outcome::Passed),
            ["tests::adds", "tests::real_failure"]
        );
        // Both cut: the later verdict ends the later name.
        let both = text.replace(
            "error: test failed, to rerun pass `--lib`\nok\n",
            "test forged::c ... \nFAILED\nok\n",
        );
        let (segs, _) = stream(&both, &forge_known);
        let b = segs[0].block.clone().unwrap();
        assert!(
            b.results.contains(&("forged::c".into(), Outcome::Failed)),
            "{b:?}"
        );
        assert!(
            b.results.contains(&("tests::adds".into(), Outcome::Passed)),
            "{b:?}"
        );
    }

    #[test]
    fn a_single_tests_pass_is_found_past_another_writers_lines() {
        let at = |text: &str| passed_at(&text.lines().collect::<Vec<_>>(), "t::a");
        assert_eq!(at("running 1 test\ntest t::a ... ok"), Some(1));
        assert_eq!(at("running 1 test\ntest t::a ... \nforged\nok"), Some(3));
        assert_eq!(
            at("running 1 test\ntest t::a ... test x ... FAILED\nok"),
            Some(2)
        );
        assert_eq!(
            at("running 1 test\ntest t::a ... \ntest x ... ok\nok"),
            Some(3)
        );
        assert_eq!(at("running 1 test\ntest t::a ... \nFAILED"), None);
        assert_eq!(at("running 1 test\ntest t::a ... \nFAILED\nok"), Some(3));
        assert_eq!(at("running 1 test\ntest t::a ... \ntest x ... \nok"), None);
    }

    #[test]
    fn a_harness_free_binary_keeps_its_own_text_and_exit_status() {
        // cargo 1.95, a `harness = false` test target that printed and exited 1.
        let err = "   Compiling hf v0.1.0 (/tmp/hx/hf)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.82s
     Running unittests src/lib.rs (/tmp/hx/target/debug/deps/hf-85be204453b0bec0)

running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

     Running tests/custom.rs (/tmp/hx/target/debug/deps/custom-9cf0d708cf5a86a1)
Running my own checks
running 3 tests of mine
custom check failed: expected 2, got 1
error: test failed, to rerun pass `--test custom`

Caused by:
  process didn't exit successfully: `/tmp/hx/target/debug/deps/custom-9cf0d708cf5a86a1` (exit status: 1)
   Doc-tests hf

running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

error: 1 target failed:
    `--test custom`
";
        let known = |w: &Announced| match w {
            Announced::Exe(e) if e.contains("custom-") => Known::Custom,
            _ => Known::Libtest,
        };
        let (segs, rest) = stream(err, &known);
        assert_eq!(segs.len(), 3, "{segs:#?}");
        assert!(segs[0].block.as_ref().is_some_and(|b| b.finished));
        assert_eq!(segs[1].failed, Some(Failed::Status(1)));
        assert_eq!(segs[1].block, None);
        assert_eq!(
            segs[1].own,
            "Running my own checks\nrunning 3 tests of mine\ncustom check failed: expected 2, got 1\n"
        );
        assert_eq!(segs[2].who, Some(Announced::Doc("hf".into())));
        assert_eq!(segs[2].own, "");
        assert!(rest.contains("error: 1 target failed:"), "{rest}");
    }

    #[test]
    fn crashed_binary() {
        let text = "     Running unittests src/lib.rs (target/debug/deps/crash-13c7f3b4a2d242ba)\n\nrunning 2 tests\ntest tests::fine ... ok\nerror: test failed, to rerun pass `--lib`\n\nCaused by:\n  process didn't exit successfully: `/tmp/exp/crash/target/debug/deps/crash-13c7f3b4a2d242ba` (signal: 6, SIGABRT: process abort signal)\n     Running unittests src/main.rs (target/debug/deps/next-1)\n\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";
        let (segs, _) = stream(text, &|_| Known::Libtest);
        assert_eq!(segs.len(), 2);
        let b = segs[0].block.as_ref().unwrap();
        assert!(!b.finished);
        assert_eq!(b.results.len(), 1);
        assert_eq!(segs[0].failed, Some(Failed::Signal("SIGABRT".into())));
        assert!(segs[1].block.as_ref().unwrap().finished);
        assert_eq!(
            exit_line("process didn't exit successfully: `x --exact a` (exit status: 3)"),
            Some(("x".into(), Failed::Status(3)))
        );
        // A child's exit line names another executable: not this binary's end.
        let child = text.replace(
            "`/tmp/exp/crash/target/debug/deps/crash-13c7f3b4a2d242ba`",
            "`/tmp/other/target/debug/deps/child-99`",
        );
        let (segs, _) = stream(&child, &|_| Known::Libtest);
        assert_eq!(segs[0].failed, Some(Failed::Reported));
    }

    #[test]
    fn edition_2024_doctests_are_two_blocks_of_one_binary() {
        // rustdoc 1.95: merged doctests, then those that cannot be merged.
        let text = "   Doc-tests ed24\n\nrunning 4 tests\ntest src/lib.rs - add (line 1) ... ok\ntest src/lib.rs - add (line 17) ... ignored\ntest src/lib.rs - add (line 5) ... ok\ntest src/lib.rs - add (line 13) - should panic ... ok\n\ntest result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.33s\n\n\nrunning 1 test\ntest src/lib.rs - add (line 9) - compile fail ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.07s\n\nall doctests ran in 1.46s; merged doctests compilation took 1.06s\n";
        let (segs, _) = stream(text, &|_| Known::Libtest);
        assert_eq!(segs.len(), 1);
        let mut b = segs[0].block.clone().unwrap();
        assert_eq!((b.declared, b.finished), (5, true));
        assert_eq!(b.settle(&mut || None), None);
        assert_eq!(names(&b, Outcome::Passed).len(), 4);
        assert_eq!(names(&b, Outcome::Ignored), ["src/lib.rs - add (line 17)"]);
        // A test binary prints one block: a second one is a child's.
        let exe = text.replace(
            "   Doc-tests ed24",
            "     Running unittests src/lib.rs (target/debug/deps/ed24-1)",
        );
        let (segs, _) = stream(&exe, &|_| Known::Libtest);
        assert_eq!(segs[0].block.as_ref().unwrap().declared, 4);
    }

    #[test]
    fn a_quiet_cargo_announces_nothing_and_each_block_is_a_binary() {
        let (segs, _) = parse_all(SINGLE);
        assert_eq!(segs.len(), 2);
        assert!(segs.iter().all(|s| s.who.is_none()));
    }

    #[test]
    fn a_long_log_before_a_panic_keeps_the_panic() {
        let mut s =
            String::from("running 1 test\ntest t ... FAILED\n\nfailures:\n\n---- t stdout ----\n");
        for i in 0..6000 {
            s.push_str(&format!("log line {i} {}\n", "x".repeat(40)));
        }
        s.push_str("\nthread 't' (1) panicked at src/lib.rs:15:9:\nthe real reason\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\nfailures:\n    t\n\ntest result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n");
        let b = parse(&s);
        let out = &b[0].outputs["t"];
        assert!(out.len() < 80 * 1024, "{}", out.len());
        assert!(out.starts_with("log line 0 "), "{out}");
        let p = crate::cargo::panic::parse(out).expect("the panic is kept");
        assert_eq!(p.message, "the real reason");
        assert_eq!(p.location, Some(("src/lib.rs".into(), 15)));
    }

    #[test]
    fn a_failed_tests_output_quoting_a_block_stays_its_output() {
        // A test that ran `cargo test` in a child, captured it, and failed showing it.
        let out = "running 2 tests\ntest a ... FAILED\ntest b ... ok\n\nfailures:\n\n---- a stdout ----\nchild said:\nrunning 1 test\ntest inner ... FAILED\n\nfailures:\n    inner\n\ntest result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\nrunning 5 tests\n\nthread 'a' panicked at src/lib.rs:9:5:\nthe child failed\n\n\nfailures:\n    a\n\ntest result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n";
        let mut b = parse(out).remove(0);
        assert!(b.finished);
        let o = b.outputs["a"].clone();
        assert!(
            o.contains("child said:") && o.contains("the child failed"),
            "{o}"
        );
        let why = b.settle(&mut || Some(vec!["a".into(), "b".into()]));
        assert_eq!(why, None);
        assert_eq!(
            b.results,
            vec![("a".into(), Outcome::Failed), ("b".into(), Outcome::Passed)]
        );
    }

    #[test]
    fn an_unfinished_block_keeps_only_listed_names() {
        let out = "running 3 tests\ntest a ... ok\ntest ghost ... FAILED\n";
        let mut b = parse(out).remove(0);
        assert!(!b.finished);
        assert_eq!(b.settle(&mut || Some(vec!["a".into(), "b".into()])), None);
        assert_eq!(b.results, vec![("a".into(), Outcome::Passed)]);
        assert!(!b.reported("ghost"));
    }

    #[test]
    fn result_line_variants() {
        assert_eq!(
            result_line("test a::b - should panic ... ok"),
            Some(("a::b".into(), Outcome::Passed))
        );
        assert_eq!(
            result_line("test a ... ignored, needs network"),
            Some(("a".into(), Outcome::Ignored))
        );
        assert_eq!(
            result_line("test src/lib.rs - f (line 3) - compile fail ... ok"),
            Some(("src/lib.rs - f (line 3)".into(), Outcome::Passed))
        );
        assert_eq!(result_line("test result: ok. 1 passed"), None);
        assert_eq!(
            result_line("test a has been running for over 60 seconds"),
            None
        );
        assert_eq!(
            totals_line("test result: FAILED. 2 passed; 1 failed; 3 ignored; 0 measured; 5 filtered out; finished in 0.32s"),
            Some(Totals { passed: 2, failed: 1, ignored: 3, measured: 0 })
        );
        assert_eq!(totals_line("test result: ok"), None);
    }

    #[test]
    fn terse_list() {
        assert_eq!(
            list("tests::quick: test\ntests::sleeps_forever: test\nbench_x: bench\n"),
            vec![
                "tests::quick".to_owned(),
                "tests::sleeps_forever".to_owned()
            ]
        );
    }

    #[test]
    fn captured_output_mentioning_failures_header_keeps_other_tests() {
        let out = "running 2 tests\ntest a ... FAILED\ntest b ... FAILED\n\nfailures:\n\n---- a stdout ----\nhello\n---- b stdout ----\nworld\n\nfailures:\n    a\n    b\n\ntest result: FAILED. 0 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out\n";
        let b = parse(out);
        assert_eq!(b[0].outputs["a"].trim(), "hello");
        assert_eq!(b[0].outputs["b"].trim(), "world");
        assert!(b[0].finished);
    }

    proptest! {
        #[test]
        fn never_panics_on_garbage(s in "(?s).{0,2000}") {
            for mut b in parse(&s) {
                let _ = b.settle(&mut || None);
            }
            let _ = stream(&s, &|_| Known::Custom);
            let _ = list(&s);
        }

        #[test]
        fn never_panics_on_truncation(cut in 0usize..1500) {
            let s: String = SINGLE.chars().take(cut).collect();
            for mut b in parse(&s) {
                prop_assert!(b.results.len() <= 4);
                let _ = b.settle(&mut || Some(vec!["tests::adds".into()]));
            }
        }

        #[test]
        fn never_panics_on_shaped_garbage(a in "[a-z:\\- .()]{0,40}", b in "(?s).{0,200}", n in 0u32..5) {
            let s = format!("running {n} tests\ntest {a} ... {b}\n---- {a} stdout ----\n{b}\nfailures:\n    {a}\ntest result: FAILED. {n} passed; 0 failed; 0 ignored; 0 measured\n");
            for mut blk in parse(&s) {
                let _ = blk.settle(&mut || Some(vec![a.clone()]));
            }
            let _ = stream(&format!("     Running {a}\nprocess didn't exit successfully: `{a}` (signal: {b}"), &|_| Known::Libtest);
            let _ = exit_line(&format!("process didn't exit successfully: `{a}` (exit status: {b}"));
        }
    }
}
