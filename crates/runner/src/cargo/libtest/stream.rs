//! cargo's merged output cut into segments, one per binary it announced: cargo's own lines
//! around the binaries (`     Running ...`, `   Doc-tests ...`, how a binary ended), and each
//! binary's lines handed to its [`Reader`]. Apart from the reader because these lines are
//! cargo's, not libtest's, and a test's child may forge them too.

use super::super::capture::HeadTail;
use super::lines::running_count;
use super::reader::Reader;
use super::Block;
use crate::text;

/// Bounds of the text of the whole stream that is not libtest's (cargo's own lines, the
/// binaries' stderr): tails are made from it.
const REST_HEAD: usize = 1 << 20;
const REST_TAIL: usize = 4 << 20;

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
pub(super) fn exit_line(line: &str) -> Option<(String, Failed)> {
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
