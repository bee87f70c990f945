//! What `pith gain` weighs: what a runner printed for a person to read (the output an agent
//! would have read had it run the runner itself), against what pith answered instead, in
//! o200k tokens, per answered command, per day and over the whole history.

use crate::Status;

/// Characters of a run's printed output kept for counting: the most any `--limit` counts.
/// 150,000 is the largest output limit one popular host can be set to; its default is 30,000.
pub const PRINTED_KEPT: usize = 150_000;

/// Bytes of what was printed past [`Printed::text`] kept from its end, for `pith output`:
/// summaries, the last failures and crash dumps are there.
pub const PRINTED_TAIL: usize = 128 * 1024;

/// What a runner printed for a person to read: its plain output (stdout, then stderr), or, of
/// a structured stream (`go test -json`, cargo's JSON messages), the text it carries for a
/// person. The first [`PRINTED_KEPT`] characters are kept; `chars` counts all of them (the
/// bytes a bounded capture dropped count as characters: past the limit either way).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Printed {
    pub text: String,
    pub chars: u64,
    /// What came after `text` (after its limit or a gap in the capture), its last
    /// [`PRINTED_TAIL`] bytes or so, from a line's start: `pith output`'s tail. `pith gain`
    /// counts `chars`, never this.
    pub tail: String,
    /// Bytes printed after `text` that neither it nor `tail` keeps (the middle).
    pub skipped: u64,
    /// Of them, the lines `tail` let go (a capture's dropped bytes are not counted in lines).
    pub skipped_lines: u64,
}

impl Printed {
    /// Adds text as printed.
    pub fn push(&mut self, s: &str) {
        let n = s.chars().count();
        let kept = self.chars.min(PRINTED_KEPT as u64) as usize;
        let room = PRINTED_KEPT - kept;
        if n <= room {
            self.text.push_str(s);
        } else {
            let end = s.char_indices().nth(room).map_or(s.len(), |(i, _)| i);
            self.text.push_str(&s[..end]);
            self.push_tail(&s[end..]);
        }
        self.chars += n as u64;
    }

    /// Keeps `s` at the end of [`Printed::tail`], letting its oldest lines go past twice the
    /// bound (so the cost of letting go is paid once per [`PRINTED_TAIL`] bytes, not per push).
    fn push_tail(&mut self, s: &str) {
        self.tail.push_str(s);
        if self.tail.len() <= 2 * PRINTED_TAIL {
            return;
        }
        let mut cut = self.tail.len() - PRINTED_TAIL;
        while !self.tail.is_char_boundary(cut) {
            cut += 1;
        }
        // From a line's start, unless the last line alone is longer than the bound.
        if let Some(nl) = self.tail[cut..].find('\n') {
            if nl + 1 < self.tail.len() - cut {
                cut += nl + 1;
            }
        }
        self.skipped += cut as u64;
        self.skipped_lines += self.tail[..cut].matches('\n').count() as u64;
        self.tail.drain(..cut);
    }

    /// Adds one line and its newline.
    pub fn line(&mut self, s: &str) {
        self.push(s);
        self.push("\n");
    }

    /// Counts characters that were printed but not kept by the capture (its bounded middle):
    /// nothing can be appended after them.
    pub fn dropped(&mut self, n: u64) {
        self.skipped += n;
        self.count_dropped(n);
    }

    /// Counts `n` characters not kept in `text`, closing it.
    fn count_dropped(&mut self, n: u64) {
        self.chars += n;
        // What follows a gap is not the text's continuation: the kept text stops here.
        let kept = self.text.chars().count() as u64;
        if self.chars > kept && kept < PRINTED_KEPT as u64 {
            self.chars = self.chars.max(PRINTED_KEPT as u64 + 1);
        }
    }

    /// Appends another part's output (a second project, batch or attempt).
    pub fn append(&mut self, other: Printed) {
        let complete = other.chars == other.text.chars().count() as u64;
        self.push(&other.text);
        if !complete {
            self.count_dropped(other.chars - other.text.chars().count() as u64);
        }
        self.skipped += other.skipped;
        self.skipped_lines += other.skipped_lines;
        self.push_tail(&other.tail);
    }

    /// Whether more was printed than is kept.
    pub fn is_cut(&self) -> bool {
        self.chars > self.text.chars().count() as u64
    }
}

/// Whether a red answer kept, of every failing test the run reported, its id and its deepest
/// project frame (`file:line`): the facts `cargo xtask bench` holds answers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Fidelity {
    /// Failing tests the run reported.
    pub failing: u32,
    /// Of them, those whose id the answer shows.
    pub ids_kept: u32,
    /// Failing tests with a project frame.
    pub frames: u32,
    /// Of them, those whose deepest project frame the answer shows.
    pub frames_kept: u32,
}

impl Fidelity {
    /// Every id and every deepest frame kept.
    pub fn complete(&self) -> bool {
        self.ids_kept == self.failing && self.frames_kept == self.frames
    }
}

/// One answered command, counted.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Answered {
    /// When it was answered, in seconds since the Unix epoch.
    pub at: u64,
    /// The command: `test`.
    pub command: String,
    pub status: Status,
    /// Characters the runner printed, all of them.
    pub raw_chars: u64,
    /// o200k tokens of the runner's output, up to the limit: what the agent would have read.
    pub raw_tokens: u64,
    /// o200k tokens of pith's answer.
    pub answer_tokens: u64,
    /// A red answer's fidelity; `None` for an answer without failing tests.
    pub fidelity: Option<Fidelity>,
}

impl Answered {
    /// The raw output was longer than the limit: only its first part is counted.
    pub fn truncated(&self, limit: u64) -> bool {
        self.raw_chars > limit
    }

    /// Tokens saved; negative when the answer was larger than the output (a regression).
    pub fn saved(&self) -> i64 {
        self.raw_tokens as i64 - self.answer_tokens as i64
    }
}

/// Several answered commands added up.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Totals {
    pub commands: u64,
    pub raw_tokens: u64,
    pub answer_tokens: u64,
    /// Commands whose raw output was longer than the limit.
    pub truncated: u64,
    /// Commands whose answer was larger than their raw output.
    pub regressions: u64,
    /// Tokens the regressions cost (their answers beyond their raw output).
    pub regression_tokens: u64,
    /// Red answers with a fidelity, and of them those that kept every id and deepest frame.
    pub red: u64,
    pub red_complete: u64,
}

impl Totals {
    pub fn add(&mut self, a: &Answered, limit: u64) {
        self.commands += 1;
        self.raw_tokens += a.raw_tokens;
        self.answer_tokens += a.answer_tokens;
        self.truncated += u64::from(a.truncated(limit));
        if a.saved() < 0 {
            self.regressions += 1;
            self.regression_tokens += a.saved().unsigned_abs();
        }
        if let Some(f) = a.fidelity {
            self.red += 1;
            self.red_complete += u64::from(f.complete());
        }
    }

    /// Tokens saved in all, regressions subtracted.
    pub fn saved(&self) -> i64 {
        self.raw_tokens as i64 - self.answer_tokens as i64
    }
}

/// What `pith gain` knows: the history's answered commands, counted at one limit.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Gain {
    /// Characters of raw output counted per command (the host's truncation limit).
    pub limit: u64,
    /// The whole history.
    pub total: Totals,
    /// Per day (days since the Unix epoch, UTC), newest first.
    pub days: Vec<(u64, Totals)>,
    /// Every answered command, newest first.
    pub commands: Vec<Answered>,
    /// One-line warnings for a human; never part of the answer.
    pub warnings: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_keeps_a_bounded_prefix_and_counts_everything() {
        let mut p = Printed::default();
        p.line("héllo");
        assert_eq!((p.text.as_str(), p.chars), ("héllo\n", 6));
        p.push(&"x".repeat(PRINTED_KEPT));
        assert_eq!(p.text.chars().count(), PRINTED_KEPT);
        assert_eq!(p.chars, PRINTED_KEPT as u64 + 6);
        assert!(p.is_cut());
    }

    #[test]
    fn what_comes_past_the_kept_text_keeps_its_end_and_counts_the_middle() {
        let mut p = Printed::default();
        p.push(&"h".repeat(PRINTED_KEPT));
        for i in 0..100_000 {
            p.line(&format!("line {i:06}"));
        }
        assert_eq!(p.text.len(), PRINTED_KEPT);
        assert!(p.tail.len() <= 2 * PRINTED_TAIL && p.tail.len() >= PRINTED_TAIL);
        assert!(p.tail.starts_with("line ") && p.tail.ends_with("line 099999\n"));
        let kept = p.tail.lines().count() as u64;
        assert_eq!(p.skipped_lines + kept, 100_000);
        assert_eq!(p.skipped + p.tail.len() as u64, 100_000 * 12);

        // Appended to another part, the tail follows and the middle still counts.
        let mut whole = Printed::default();
        whole.line("first part");
        whole.append(p.clone());
        assert!(whole
            .tail
            .ends_with(&p.tail[p.tail.len() - PRINTED_TAIL / 2..]));
        assert!(whole.skipped >= p.skipped);
        assert!(whole.text.starts_with("first part\nhhh"));
    }

    #[test]
    fn a_gap_in_the_capture_ends_the_kept_text() {
        let mut p = Printed::default();
        p.push("head");
        p.dropped(10);
        p.push("tail");
        assert_eq!(p.text, "head");
        assert!(p.chars > PRINTED_KEPT as u64);
        assert_eq!((p.tail.as_str(), p.skipped), ("tail", 10));
    }

    #[test]
    fn a_regression_is_a_negative_saving_and_counted() {
        let a = Answered {
            raw_tokens: 10,
            answer_tokens: 25,
            raw_chars: 40_000,
            fidelity: Some(Fidelity {
                failing: 2,
                ids_kept: 2,
                frames: 1,
                frames_kept: 0,
            }),
            ..Answered::default()
        };
        let mut t = Totals::default();
        t.add(&a, 30_000);
        assert_eq!(a.saved(), -15);
        assert_eq!(
            (
                t.regressions,
                t.regression_tokens,
                t.truncated,
                t.red,
                t.red_complete
            ),
            (1, 15, 1, 1, 0)
        );
        assert_eq!(t.saved(), -15);
    }
}
