//! The answer to `pith gain`: what the agent would have read (the runners' output, up to the
//! host's truncation limit) against what pith answered, in o200k tokens: over the whole
//! history, per day, and per answered command, the latest first; regressions (an answer
//! larger than its raw output) counted and shown as negative savings; each red answer's
//! fidelity beside its savings. `--human` prints the same answer as a small table
//! ([`gain_table`]). Also here: a red `pith test` answer's [`fidelity`], judged on the answer's
//! shape against the report it came from.

use std::collections::HashSet;

use pith_model::gain::{Answered, Fidelity, Gain, Totals};
use pith_model::Report;
use serde::Serialize;

use crate::test_answer::TestAnswer;

/// Days listed at most, the newest first; the rest are counted (and in the total).
pub const GAIN_DAYS: usize = 7;
/// Answered commands listed at most, the newest first; the rest are counted.
pub const GAIN_COMMANDS: usize = 10;
/// The whole `pith gain` answer, its lists full: a report asked for now and then, not a step
/// of the edit loop, so it may be larger than a test answer; its lists are what bound it.
pub const GAIN_BUDGET: usize = 4_000;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GainAnswer {
    /// Characters of each command's raw output counted: the host's truncation limit.
    pub limit: u64,
    /// The whole history.
    #[serde(flatten)]
    pub total: TotalsOut,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub days: Vec<DayOut>,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more_days: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub last: Vec<CommandOut>,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more_commands: usize,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TotalsOut {
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub commands: u64,
    /// o200k tokens of the runners' output, each cut at the limit.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub raw_tokens: u64,
    /// o200k tokens of pith's answers.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub answer_tokens: u64,
    /// `rawTokens - answerTokens`: regressions subtract.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub saved_tokens: i64,
    /// Commands whose raw output was longer than the limit (counted up to it).
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub truncated: u64,
    /// Commands whose answer was larger than their raw output.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub regressions: u64,
    /// What the regressions cost, in tokens.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub regression_tokens: u64,
    /// Red answers (with failing tests), and those that kept every failing test's id and
    /// deepest project frame (absent: none).
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub red: u64,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub red_complete: u64,
}

impl From<&Totals> for TotalsOut {
    fn from(t: &Totals) -> Self {
        TotalsOut {
            commands: t.commands,
            raw_tokens: t.raw_tokens,
            answer_tokens: t.answer_tokens,
            saved_tokens: t.saved(),
            truncated: t.truncated,
            regressions: t.regressions,
            regression_tokens: t.regression_tokens,
            red: t.red,
            red_complete: t.red_complete,
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DayOut {
    /// `YYYY-MM-DD`, UTC.
    pub day: String,
    #[serde(flatten)]
    pub totals: TotalsOut,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandOut {
    /// `YYYY-MM-DDTHH:MMZ`.
    pub at: String,
    pub command: String,
    pub status: &'static str,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub raw_tokens: u64,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub answer_tokens: u64,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub saved_tokens: i64,
    /// The raw output was longer than the limit: only its first `limit` characters count.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// The answer was larger than the raw output.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub regression: bool,
    /// A red answer's fidelity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<KeptOut>,
}

/// Of the run's failing tests, how many the answer named, and of those with a project frame,
/// how many it showed the deepest one of.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeptOut {
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub failing: u32,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub ids: u32,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub frames: u32,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub frames_kept: u32,
}

/// Shapes the history's gain into the `pith gain` answer.
pub fn gain_answer(gain: &Gain) -> GainAnswer {
    let command = |a: &Answered| CommandOut {
        at: timestamp(a.at),
        command: a.command.clone(),
        status: a.status.name(),
        raw_tokens: a.raw_tokens,
        answer_tokens: a.answer_tokens,
        saved_tokens: a.saved(),
        truncated: a.truncated(gain.limit),
        regression: a.saved() < 0,
        kept: a.fidelity.map(|f| KeptOut {
            failing: f.failing,
            ids: f.ids_kept,
            frames: f.frames,
            frames_kept: f.frames_kept,
        }),
    };
    GainAnswer {
        limit: gain.limit,
        total: (&gain.total).into(),
        days: gain
            .days
            .iter()
            .take(GAIN_DAYS)
            .map(|(d, t)| DayOut {
                day: date(*d),
                totals: t.into(),
            })
            .collect(),
        more_days: gain.days.len().saturating_sub(GAIN_DAYS),
        last: gain
            .commands
            .iter()
            .take(GAIN_COMMANDS)
            .map(command)
            .collect(),
        more_commands: gain.commands.len().saturating_sub(GAIN_COMMANDS),
    }
}

/// The answer as a small table for a person: the total, each day, the latest commands.
pub fn gain_table(a: &GainAnswer) -> String {
    let mut out = format!(
        "pith gain: raw runner output counted up to {} characters, in o200k tokens\n\n",
        a.limit
    );
    let header = format!(
        "{:<17} {:>8} {:>9} {:>8} {:>9} {:>6} {:>11}\n",
        "", "commands", "raw", "answered", "saved", "saved%", "regressions"
    );
    let row = |name: &str, t: &TotalsOut| {
        format!(
            "{:<17} {:>8} {:>9} {:>8} {:>9} {:>6} {:>11}\n",
            name,
            t.commands,
            t.raw_tokens,
            t.answer_tokens,
            t.saved_tokens,
            percent(t.saved_tokens, t.raw_tokens),
            t.regressions
        )
    };
    out.push_str(&header);
    out.push_str(&row("total", &a.total));
    for d in &a.days {
        out.push_str(&row(&d.day, &d.totals));
    }
    if a.more_days > 0 {
        out.push_str(&format!("({} earlier days in the total)\n", a.more_days));
    }
    if a.total.red > 0 {
        out.push_str(&format!(
            "red answers that kept every failing test's id and deepest frame: {} of {}\n",
            a.total.red_complete, a.total.red
        ));
    }
    if a.last.is_empty() {
        return out;
    }
    out.push_str(&format!(
        "\n{:<17} {:<7} {:<13} {:>9} {:>8} {:>9}  kept (ids, frames)\n",
        "latest", "command", "status", "raw", "answered", "saved"
    ));
    for c in &a.last {
        let raw = if c.truncated {
            format!("{}*", c.raw_tokens)
        } else {
            c.raw_tokens.to_string()
        };
        let saved = if c.regression {
            format!("{} !", c.saved_tokens)
        } else {
            c.saved_tokens.to_string()
        };
        let kept = c.kept.as_ref().map_or(String::new(), |k| {
            format!("{}/{}, {}/{}", k.ids, k.failing, k.frames_kept, k.frames)
        });
        let line = format!(
            "{:<17} {:<7} {:<13} {:>9} {:>8} {:>9}  {}",
            c.at.replace('T', " ").trim_end_matches('Z'),
            c.command,
            c.status,
            raw,
            c.answer_tokens,
            saved,
            kept
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if a.more_commands > 0 {
        out.push_str(&format!(
            "({} earlier commands in the total)\n",
            a.more_commands
        ));
    }
    let mut legend = Vec::new();
    if a.last.iter().any(|c| c.truncated) {
        legend.push("* raw output longer than the limit, counted up to it");
    }
    if a.last.iter().any(|c| c.regression) {
        legend.push("! the answer was larger than the raw output");
    }
    if !legend.is_empty() {
        out.push_str(&legend.join("; "));
        out.push('\n');
    }
    out
}

fn percent(saved: i64, raw: u64) -> String {
    if raw == 0 {
        return "-".to_owned();
    }
    format!("{:.0}%", saved as f64 * 100.0 / raw as f64)
}

/// The fidelity of a red `pith test` answer: of every failing test in `report`, whether
/// `answer` names it (shown in full, among a failure's `others`, in a cluster's `tests`) and
/// shows its deepest project frame's `file:line` (a shown frame, a cluster's `at`, an `others`
/// or `tests` place). `None` when the report has no failing test.
pub fn fidelity(report: &Report, answer: &TestAnswer) -> Option<Fidelity> {
    let mut ids: HashSet<&str> = HashSet::new();
    let mut places: Vec<&str> = Vec::new();
    for f in &answer.failures {
        ids.insert(&f.test);
        ids.extend(f.others.iter().map(String::as_str));
        places.extend(f.frames.iter().map(String::as_str));
        places.extend(f.others_at.iter().map(String::as_str));
    }
    for c in &answer.clusters {
        ids.extend(c.tests.iter().map(String::as_str));
        places.extend(c.at.as_deref());
        places.extend(c.tests_at.iter().map(String::as_str));
    }
    // A shown place is `file:line` or a frame's `file:line code`.
    let shown = |at: &str| {
        places.iter().any(|p| {
            p.strip_prefix(at)
                .is_some_and(|r| r.is_empty() || r.starts_with(' '))
        })
    };
    let mut seen: HashSet<&str> = HashSet::new();
    let mut fid = Fidelity::default();
    for f in report.runs.iter().flat_map(|r| &r.failures) {
        if !seen.insert(&f.test) {
            continue;
        }
        fid.failing += 1;
        fid.ids_kept += u32::from(ids.contains(f.test.as_str()));
        if let Some(frame) = f.top_project_frame() {
            fid.frames += 1;
            fid.frames_kept += u32::from(shown(&frame.location()));
        }
    }
    (fid.failing > 0).then_some(fid)
}

/// `YYYY-MM-DD` of a day number (days since the Unix epoch).
fn date(day: u64) -> String {
    let (y, m, d) = civil(day as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `YYYY-MM-DDTHH:MMZ` of a Unix time.
fn timestamp(secs: u64) -> String {
    let (day, rest) = (secs / 86_400, secs % 86_400);
    format!("{}T{:02}:{:02}Z", date(day), rest / 3600, rest % 3600 / 60)
}

/// The proleptic Gregorian date of a day number (Howard Hinnant's `civil_from_days`).
fn civil(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_calendar_days() {
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(date(19_723), "2024-01-01");
        assert_eq!(date(19_782), "2024-02-29");
        assert_eq!(timestamp(1_764_661_500), "2025-12-02T07:45Z");
    }
}
