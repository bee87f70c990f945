//! `pith gain`: what the agent would have read — each answered command's raw runner output,
//! up to the host's truncation limit — against what pith answered, in o200k tokens counted
//! with the embedded tokenizer (never characters ÷ 4), per command, per day and over the
//! whole history. A `pith test` that ran records its runners' printed output and its answer
//! ([`record`]); the counting waits for `pith gain` (the tokenizer takes 0.1–0.3 s to load,
//! which a test run does not pay), or for a run that finds too much waiting.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use pith_model::gain::{Answered, Fidelity, Gain, Printed, Totals, PRINTED_KEPT};
use pith_model::Report;
use pith_store::{Counted, NewGain, Store, StoreError, MARK_CHARS, PENDING_CHARS};
use tiktoken_rs::CoreBPE;

use crate::{resolve, EngineError};

/// Characters of raw output counted per command when neither `--limit` nor
/// `PITH_GAIN_LIMIT` says otherwise: the limit one popular host cuts a command's output at.
pub const DEFAULT_LIMIT: u64 = 30_000;
/// The variable that sets the limit for every `pith gain`.
pub const LIMIT_ENV: &str = "PITH_GAIN_LIMIT";

/// One `pith gain` request.
#[derive(Default, Clone)]
pub struct GainRequest {
    pub root: Option<PathBuf>,
    pub cwd: PathBuf,
    /// Characters of raw output counted per command; else [`LIMIT_ENV`], else
    /// [`DEFAULT_LIMIT`]. At most [`PRINTED_KEPT`], what a run keeps to count.
    pub limit: Option<u64>,
}

impl GainRequest {
    /// The limit in force, between 1 and [`PRINTED_KEPT`].
    pub fn limit(&self) -> u64 {
        let env = || {
            std::env::var(LIMIT_ENV)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
        };
        self.limit
            .or_else(env)
            .filter(|&n| n > 0)
            .unwrap_or(DEFAULT_LIMIT)
            .min(PRINTED_KEPT as u64)
    }
}

/// The history's answered commands, counted at the request's limit.
pub fn gain(req: &GainRequest) -> Result<Gain, EngineError> {
    let root = resolve(req.root.as_deref(), &req.cwd)?;
    let mut store = Store::open(&root)?;
    count_pending(&store)?;
    let rows = store.gains()?;
    let mut gain = summarize(&rows, req.limit());
    gain.warnings = store.take_warnings();
    Ok(gain)
}

/// Records an answered `pith test` that ran (its report recorded in the history): what its
/// runners printed, the answer's line and a red answer's fidelity. Counts what waits when more
/// than [`PENDING_CHARS`] does. Best effort: what goes wrong is a warning.
pub(crate) fn record(
    store: &Store,
    report: &Report,
    json: &str,
    fidelity: Option<Fidelity>,
) -> Option<String> {
    let mut printed = Printed::default();
    for run in &report.runs {
        printed.append(run.printed.clone());
    }
    let at = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let new = NewGain {
        at,
        command: "test",
        status: report.status(),
        printed: &printed,
        answer: json,
        fidelity,
    };
    let recorded = store.record_gain(&new).and_then(|()| {
        if store.pending_gain_chars()? > PENDING_CHARS {
            count_pending(store)?;
        }
        Ok(())
    });
    recorded.err().map(|e| format!("gain not recorded: {e}"))
}

/// Counts every recorded command not counted yet, keeping the counts in place of the texts.
fn count_pending(store: &Store) -> Result<(), StoreError> {
    let pending = store.pending_gains()?;
    if pending.is_empty() {
        return Ok(());
    }
    let Some(counter) = Counter::new() else {
        return Ok(());
    };
    let counted: Vec<(i64, Vec<u32>, u64)> = pending
        .iter()
        .map(|p| (p.id, counter.marks(&p.raw), counter.count(&p.answer)))
        .collect();
    store.set_counted(&counted)
}

/// The embedded o200k_base tokenizer.
struct Counter(CoreBPE);

impl Counter {
    fn new() -> Option<Self> {
        crate::o200k::tokenizer().map(Counter)
    }

    /// Tokens of `text` (special-token markers count as plain text).
    fn count(&self, text: &str) -> u64 {
        self.0.encode_ordinary(text).len() as u64
    }

    /// `text`'s length in characters, then the tokens that end within its first
    /// `k ·` [`MARK_CHARS`] characters for k = 1, 2, … up to its length, then all its tokens:
    /// what [`tokens_at`] reads any limit from.
    fn marks(&self, text: &str) -> Vec<u32> {
        let bytes = text.as_bytes();
        let chars = text.chars().count();
        let mut marks = vec![clamp32(chars as u64)];
        let tokens = self.0.encode_ordinary(text);
        let (mut end, mut seen_chars, mut counted) = (0usize, 0usize, 0u64);
        for t in &tokens {
            let len = self.0.decode_bytes(&[*t]).map_or(0, |b| b.len());
            let next = (end + len).min(bytes.len());
            seen_chars += bytes[end..next]
                .iter()
                .filter(|&&b| b & 0xC0 != 0x80)
                .count();
            end = next;
            // A token that ends inside a character has not given all of it.
            let whole = seen_chars - usize::from(end < bytes.len() && bytes[end] & 0xC0 == 0x80);
            while (marks.len() * MARK_CHARS) <= chars && whole > (marks.len()) * MARK_CHARS {
                marks.push(clamp32(counted));
            }
            counted += 1;
        }
        while marks.len() * MARK_CHARS <= chars {
            marks.push(clamp32(counted));
        }
        marks.push(clamp32(counted));
        marks
    }
}

fn clamp32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Tokens of the first `limit` characters of a raw output counted into `marks` (see
/// [`Counter::marks`]): exact at each mark and for a limit past the text, linear between two
/// marks (never above the later one).
fn tokens_at(marks: &[u32], limit: u64) -> u64 {
    let Some((&chars, rest)) = marks.split_first() else {
        return 0;
    };
    let Some(&total) = rest.last() else {
        return 0;
    };
    let (chars, total) = (u64::from(chars), u64::from(total));
    if limit >= chars {
        return total;
    }
    let mark = MARK_CHARS as u64;
    let k = limit / mark;
    let at = |i: u64| -> u64 {
        // Mark i (1-based) is rest[i - 1]; mark 0 is the empty prefix.
        if i == 0 {
            0
        } else {
            rest.get(i as usize - 1).map_or(total, |&m| u64::from(m))
        }
    };
    let (lo_pos, lo) = (k * mark, at(k));
    let (hi_pos, hi) = if (k + 1) * mark <= chars {
        ((k + 1) * mark, at(k + 1))
    } else {
        (chars, total)
    };
    if hi_pos <= lo_pos {
        return lo;
    }
    lo + (hi.saturating_sub(lo)) * (limit - lo_pos) / (hi_pos - lo_pos)
}

/// The counted rows at `limit`: the total, each day (UTC), each command, the newest first.
fn summarize(rows: &[Counted], limit: u64) -> Gain {
    let mut gain = Gain {
        limit,
        ..Gain::default()
    };
    for row in rows.iter().rev() {
        let a = Answered {
            at: row.at,
            command: row.command.clone(),
            status: row.status,
            raw_chars: row.raw_chars,
            raw_tokens: tokens_at(&row.marks, limit),
            answer_tokens: row.answer_tokens,
            fidelity: row.fidelity,
        };
        gain.total.add(&a, limit);
        let day = a.at / 86_400;
        match gain.days.last_mut() {
            Some((d, t)) if *d == day => t.add(&a, limit),
            _ => {
                let mut t = Totals::default();
                t.add(&a, limit);
                gain.days.push((day, t));
            }
        }
        gain.commands.push(a);
    }
    gain
}

#[cfg(test)]
mod tests;
