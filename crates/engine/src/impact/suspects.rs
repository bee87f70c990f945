//! The suspects of a red run: the changed lines (against the last run in which each failing
//! test passed, else git `HEAD`) its failing tests reach, ranked over them all — the graph's
//! reach, overruled by what tracing saw where it looked — and each failure's own best line.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use pith_model::impact::{Baseline, Reach, Suspect, Suspects, Traced};
use pith_model::Report;
use pith_store::{Changes, Since, Store};

use super::change::{baseline_of, behaviour_only, ChangeContext};
use super::reach::{score, Judged, Score};
use super::trace::{retrace, traced_lines, Tracer};

/// Suspects a red answer names at most.
const SUSPECTS: usize = 3;
/// Failing tests whose reach is looked at: the answer shows fewer; past this the biggest
/// causes have spoken.
const FAILURES_TRACED: usize = 64;
/// A suspect's source text is cut here.
const SOURCE_CHARS: usize = 100;

/// Sets the report's suspects and each failure's own: the changed lines (against the last run
/// in which that test passed, else git `HEAD`) that the failing tests reach, best first. A
/// failure in a line that changed is the strongest sign; then a changed file its frames pass
/// through; then nearness in the graph. When that leaves a choice (several changed hunks, none
/// under a frame) or a failing test reaches no change the graph sees, the failing tests run
/// again with line tracing on the changed files (`trace`), and what they executed decides.
/// Nothing when there is nothing to compare with or nothing changed. `mode` may force the
/// traced re-run or forbid it (`pith test --trace`).
pub(crate) fn find_suspects(
    store: &Store,
    ctx: &ChangeContext,
    report: &mut Report,
    mode: crate::Trace,
    trace: Tracer,
) {
    let Some(judged) = judge(store, ctx, report) else {
        return;
    };
    let traced = traced_lines(report, &judged.failures, &judged.changes, mode, trace);
    let tally = settle(
        ctx.root(),
        report,
        judged.failures,
        &judged.changes,
        traced.as_ref().ok(),
    );
    let (ranked, tied) = ranked(tally);
    let lines: Vec<Suspect> = ranked
        .into_iter()
        .take(SUSPECTS)
        .map(|(file, line)| suspect_at(ctx.root(), &file, line))
        .collect();
    if let (false, Some(baseline)) = (lines.is_empty(), judged.baseline) {
        report.suspects = Some(Suspects {
            reach: if traced.is_ok() {
                Reach::Traced
            } else {
                Reach::Static
            },
            baseline,
            lines,
            tied: tied.max(1),
            traceless: traced.err(),
        });
    }
}

/// What the graph says of a red run's failing tests.
struct Judgement {
    /// Each failing test that reaches a change, with the hunks it reaches.
    failures: Vec<Judged>,
    /// The changes, narrowed to code, by the generation of the test's last pass (`None`:
    /// against git `HEAD`); `None` where nothing can be compared.
    changes: HashMap<Option<u64>, Option<Changes>>,
    /// What the first failure with changes measured them against.
    baseline: Option<Baseline>,
}

/// The report's first failing tests judged by the graph; `None` when none failed or there is
/// no graph.
fn judge(store: &Store, ctx: &ChangeContext, report: &Report) -> Option<Judgement> {
    let failing: Vec<(usize, usize)> = report
        .runs
        .iter()
        .enumerate()
        .flat_map(|(r, run)| (0..run.failures.len()).map(move |f| (r, f)))
        .take(FAILURES_TRACED)
        .collect();
    if failing.is_empty() {
        return None;
    }
    let mut out = Judgement {
        failures: Vec::new(),
        changes: HashMap::new(),
        baseline: None,
    };
    for (r, f) in failing {
        let failure = &report.runs[r].failures[f];
        let pass = store.last_pass(&failure.test).ok().flatten();
        let changes = out.changes.entry(pass).or_insert_with(|| {
            let since = pass.map_or_else(|| Since::Git("HEAD".into()), Since::Generation);
            ctx.changes(store, &since)
                .as_ref()
                .as_ref()
                .ok()
                .filter(|c| !matches!(c.baseline, pith_store::Baseline::None))
                .map(|c| behaviour_only(store, &since, ctx.root(), c.clone()))
                .map(|c| match pass {
                    Some(p) => not_undone(store, ctx, p, c),
                    None => c,
                })
        });
        let Some(changes) = changes.as_ref().filter(|c| !c.files.is_empty()) else {
            continue;
        };
        let g = ctx.graph(store).ok()?;
        out.baseline.get_or_insert(baseline_of(&changes.baseline));
        let scored = score(g, changes, failure, &report.runs[r]);
        out.failures.push(Judged {
            run: r,
            failure: f,
            pass,
            scored,
        });
    }
    Some(out)
}

/// `changes` (since generation `pass`, a test's last pass) without the lines that are again
/// what they were at the last green run of everything: a change made and undone since the
/// test passed — the previous bug put back right — is no suspect. A green run of a few tests
/// vouches for nothing else (the bug may have been there, untested). Hunks are numbered by the
/// working tree's lines in both change sets, so a hunk is kept where it meets one of the
/// green run's.
fn not_undone(store: &Store, ctx: &ChangeContext, pass: u64, mut changes: Changes) -> Changes {
    let Ok(Some(green)) = store.last_full_green() else {
        return changes;
    };
    if green == pass {
        return changes;
    }
    let since = Since::Generation(green);
    let since_green = ctx.changes(store, &since);
    let Some(since_green) = since_green
        .as_ref()
        .as_ref()
        .ok()
        .filter(|c| matches!(c.baseline, pith_store::Baseline::Run { .. }))
    else {
        return changes;
    };
    // Measured as syntax too: a comment added since the green run is no change from it, and
    // a line the comment's hunk happens to meet is not kept for it.
    let since_green = behaviour_only(store, &since, ctx.root(), since_green.clone());
    changes.files.retain_mut(|change| {
        let Some(green) = since_green.files.iter().find(|g| g.path == change.path) else {
            // The whole file is as it was at the last green run.
            return false;
        };
        if change.hunks.is_empty() || green.hunks.is_empty() {
            return true;
        }
        change.hunks.retain_mut(|h| {
            let met = green
                .hunks
                .iter()
                .filter(|g| g.start <= h.end && h.start <= g.end)
                .map(|g| (g.start.max(h.start), g.end.min(h.end)))
                .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)));
            match met {
                Some((start, end)) => {
                    (h.start, h.end) = (start, end);
                    true
                }
                None => false,
            }
        });
        !change.hunks.is_empty()
    });
    changes
}

/// Sets each failure's own suspect, what tracing saw overruling the graph where it looked,
/// and tallies every changed line's evidence over all the failures.
pub(super) fn settle(
    root: &Path,
    report: &mut Report,
    judged: Vec<Judged>,
    changes: &HashMap<Option<u64>, Option<Changes>>,
    traced: Option<&Traced>,
) -> BTreeMap<(String, u32), Tally> {
    let mut tally: BTreeMap<(String, u32), Tally> = BTreeMap::new();
    for Judged {
        run: r,
        failure: f,
        pass,
        mut scored,
    } in judged
    {
        let test = &report.runs[r].failures[f].test;
        let runner = &report.runs[r].runner;
        let lines = traced.and_then(|t| Some(t).zip(lines_of(t, runner, test)));
        if let Some((t, lines)) = &lines {
            let changes = changes.get(&pass).and_then(Option::as_ref);
            scored = retrace(root, scored, lines, t, changes);
        }
        let own_trace = traced.is_none() || lines.is_some();
        if let Some((file, line)) = own_suspect(&scored, own_trace) {
            report.runs[r].failures[f].suspect = Some(suspect_at(root, file, *line));
            // Every line as strong as its best has this failure's vote: it cannot tell them
            // apart, and neither can the run.
            let best = scored.iter().map(|(_, s)| *s).max();
            for (key, _) in scored.iter().filter(|(_, s)| Some(*s) == best) {
                tally.entry(key.clone()).or_default().votes += 1;
            }
        }
        for (key, s) in scored {
            let t = tally.entry(key).or_default();
            t.hits += s.hit as u32;
            t.score += s.score;
            t.tests += 1;
        }
    }
    tally
}

/// The lines a failing test executed: its own trace; else that of a traced instance of the
/// same parametrized test (`test_x[a]` for `test_x[b]`), which runs the same code but for its
/// arguments; else what the traced tests of its test file executed together. A trace re-runs
/// the first few failures only, and their lines are better evidence than the graph's reach:
/// a line none of them ran (a new function nothing calls) is no suspect for the rest either.
/// `None` when no test of its file was traced: the graph's word stands.
pub(super) fn lines_of<'t>(
    traced: &'t Traced,
    runner: &str,
    test: &str,
) -> Option<std::borrow::Cow<'t, pith_model::impact::Lines>> {
    use std::borrow::Cow;
    if let Some(own) = traced.tests.get(test) {
        return Some(Cow::Borrowed(own));
    }
    if let Some((family, _)) = test.split_once('[') {
        let sibling = traced
            .tests
            .iter()
            .find(|(id, _)| id.split_once('[').is_some_and(|(f, _)| f == family));
        if let Some((_, lines)) = sibling {
            return Some(Cow::Borrowed(lines));
        }
    }
    let file = pith_runner::test_file(runner, test)?;
    let mut union = pith_model::impact::Lines::new();
    let mut any = false;
    for (_, lines) in traced
        .tests
        .iter()
        .filter(|(id, _)| pith_runner::test_file(runner, id) == Some(file))
    {
        any = true;
        for (f, l) in lines {
            union.entry(f.clone()).or_default().extend(l);
        }
    }
    any.then_some(Cow::Owned(union))
}

/// The changed lines, best first, and how many of the first [`SUSPECTS`] the evidence cannot
/// tell apart. Equal evidence keeps its order by place, only so that answers are stable:
/// `tied` says that it is no ranking.
pub(super) fn ranked(tally: BTreeMap<(String, u32), Tally>) -> (Vec<(String, u32)>, usize) {
    let mut ranked: Vec<((String, u32), Tally)> = tally.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let tied = ranked
        .iter()
        .take(SUSPECTS)
        .take_while(|(_, t)| Some(t) == ranked.first().map(|(_, t)| t))
        .count();
    (ranked.into_iter().map(|(key, _)| key).collect(), tied)
}

/// A changed line's evidence over every failing test: how many failures name it as their
/// own best suspect (so the run's first suspect is the one most failures point at, and the
/// run's list and each failure's agree), then how many failing tests reach it (a line every
/// failure reaches over one that a single failure's frame happens to be on), then frames on
/// it, then total strength.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Tally {
    votes: u32,
    hits: u32,
    score: u32,
    tests: u32,
}

impl Ord for Tally {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.votes, self.tests, self.hits, self.score).cmp(&(o.votes, o.tests, o.hits, o.score))
    }
}

impl PartialOrd for Tally {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

/// A failure's own suspect: its best changed line. In a traced run, a failure that was not
/// traced itself (`own_trace` false) names none but one a frame is on: the graph's guess is
/// weaker than what the traced tests ran, which the run's suspects already say.
pub(super) fn own_suspect(
    scored: &[((String, u32), Score)],
    own_trace: bool,
) -> Option<(&String, &u32)> {
    scored
        .iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .filter(|(_, s)| own_trace || s.hit)
        .map(|((f, l), _)| (f, l))
}

pub(super) fn suspect_at(root: &Path, file: &str, line: u32) -> Suspect {
    let source = std::fs::read(root.join(file))
        .ok()
        .and_then(|bytes| {
            String::from_utf8_lossy(&bytes)
                .lines()
                .nth(line.saturating_sub(1) as usize)
                .map(|l| cut(l.trim(), SOURCE_CHARS))
        })
        .unwrap_or_default();
    Suspect {
        file: file.to_owned(),
        line,
        source,
    }
}

fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}
