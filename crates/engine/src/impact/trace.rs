//! What tracing says of a red run: the files a run traces in itself (its plan), and the
//! changed lines the failing tests executed — taken from the run when it traced them, else
//! from a second start of a few failing tests when the graph leaves a choice — and how that
//! overrules the graph's word on the hunks of the files traced.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use pith_model::impact::{Traced, Traceless};
use pith_model::Report;
use pith_store::{ChangeKind, Changes, Since, Store};

use super::change::ChangeContext;
use super::reach::{Judged, Score};

/// Re-runs some of a run's failing tests with line tracing on the given files (the run's
/// index in the report, test ids, workspace-relative files); else why not.
pub(crate) type Tracer<'a> = &'a dyn Fn(usize, &[String], &[String]) -> Result<Traced, Traceless>;

/// Failing tests re-run with tracing at most, per project: the answer shows a few.
pub(super) const TESTS_TRACED: usize = 5;

/// Changed files traced inside a run at most: past it, the run is not traced (a red run then
/// traces in a second start, when worth it).
const PLANNED_FILES: usize = 200;

/// What a run traces in itself, should it be red: the files changed since the last green run
/// (else the uncommitted changes against git `HEAD`), those that exist. The failing tests
/// usually last passed there; one that passed longer ago is traced again after the run if
/// its own changes reach further. `None` when nothing changed or too much did.
pub(crate) fn trace_plan(store: &Store, ctx: &ChangeContext) -> Option<pith_runner::TracePlan> {
    let root = ctx.root();
    let mut files: Vec<String> = match ctx.last_green(store).ok()? {
        Some(g) => {
            let (count, files) = store.changed_since(g, PLANNED_FILES + 1).ok()?;
            if count > PLANNED_FILES as u64 {
                return None;
            }
            files
        }
        None => {
            let changes = ctx.changes(store, &Since::Git("HEAD".into()));
            let changes = changes.as_ref().as_ref().ok()?;
            changes.files.iter().map(|c| c.path.clone()).collect()
        }
    };
    files.retain(|f| root.join(f).is_file());
    files.sort();
    files.dedup();
    (!files.is_empty() && files.len() <= PLANNED_FILES).then_some(pith_runner::TracePlan { files })
}

/// The lines the failing tests executed in the changed files, when tracing is worth its run:
/// no failure's frame is on a changed line already, and the graph leaves more than one
/// changed hunk, or a failing test reaches none. Each project's first failing tests run again.
/// `Always` skips the "worth it" test (to measure what tracing costs), `Never` traces nothing.
/// Without lines, why: the answer says it.
pub(super) fn traced_lines(
    report: &Report,
    judged: &[Judged],
    memo: &HashMap<Option<u64>, Option<Changes>>,
    mode: crate::Trace,
    trace: Tracer,
) -> Result<Traced, Traceless> {
    if matches!(mode, crate::Trace::Never) {
        return Err(Traceless::Off);
    }
    if judged.is_empty() {
        return Err(Traceless::Unneeded);
    }
    // What the runs traced in themselves costs nothing more: taken whenever it is there.
    let mut all = Traced::default();
    for j in judged {
        let run = &report.runs[j.run];
        let test = &run.failures[j.failure].test;
        if let Some(lines) = run.traced.as_ref().and_then(|t| t.tests.get(test)) {
            all.tests.insert(test.clone(), lines.clone());
        }
    }
    for t in report.runs.iter().filter_map(|r| r.traced.as_ref()) {
        all.files.extend(t.files.iter().cloned());
        merge(&mut all.imported, &t.imported);
        merge(&mut all.seen, &t.seen);
    }
    let wanted = match mode {
        crate::Trace::Auto => worth_tracing(judged),
        crate::Trace::Always => true,
        crate::Trace::Never => false,
    };
    let files: Vec<String> = memo
        .values()
        .flatten()
        .flat_map(|c| &c.files)
        .filter(|c| !matches!(c.kind, ChangeKind::Deleted))
        .map(|c| c.path.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    // A second start only for what the run did not trace: its tests, or files beyond its own.
    let covered = |j: &&Judged| {
        let test = &report.runs[j.run].failures[j.failure].test;
        let mine = memo.get(&j.pass).and_then(Option::as_ref);
        all.tests.contains_key(test)
            && mine.is_none_or(|c| {
                c.files
                    .iter()
                    .filter(|c| !matches!(c.kind, ChangeKind::Deleted))
                    .all(|c| all.files.contains(&c.path))
            })
    };
    // Why nothing was traced, should nothing be: the graph was enough, else the best excuse
    // of those the re-runs gave (one that ran and saw nothing over one that cannot run).
    let mut why = Traceless::Unneeded;
    if wanted && !files.is_empty() {
        let mut by_run: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        // The tests the changes broke (they passed before) first: a test that never passed
        // under pith may fail for reasons of its own, and the re-run holds only a few.
        let mut order: Vec<&Judged> = judged.iter().filter(|j| !covered(j)).collect();
        order.sort_by_key(|j| j.pass.is_none());
        for j in order {
            let tests = by_run.entry(j.run).or_default();
            if tests.len() < TESTS_TRACED {
                tests.push(report.runs[j.run].failures[j.failure].test.clone());
            }
        }
        for (r, tests) in by_run {
            match trace(r, &tests, &files) {
                Ok(t) => {
                    all.tests.extend(t.tests);
                    all.files.extend(files.iter().cloned());
                    merge(&mut all.imported, &t.imported);
                    merge(&mut all.seen, &t.seen);
                }
                Err(Traceless::Empty) => why = Traceless::Empty,
                Err(other) if why == Traceless::Unneeded => why = other,
                Err(_) => {}
            }
        }
    }
    if all.tests.is_empty() {
        Err(why)
    } else {
        Ok(all)
    }
}

fn merge(into: &mut pith_model::impact::Lines, from: &pith_model::impact::Lines) {
    for (file, lines) in from {
        into.entry(file.clone()).or_default().extend(lines);
    }
}

/// The first line of a Python hunk (`start..=end`) that ran as more than a definition: a
/// `def`, `class` or decorator line runs when the module (or the enclosing code) defines it,
/// whether or not anything calls it, so it counts only when the block it opens ran in a test
/// (`ran`: its body's lines; a class, a method's). Any other line counts when it ran in a
/// test or on import (`imported`).
fn python_executed(
    text: &str,
    start: u32,
    end: u32,
    ran: Option<&BTreeSet<u32>>,
    imported: Option<&BTreeSet<u32>>,
) -> Option<u32> {
    let lines: Vec<&str> = text.lines().collect();
    let line_at = |n: u32| {
        lines
            .get(n.saturating_sub(1) as usize)
            .copied()
            .unwrap_or("")
    };
    let header = |n: u32| {
        let t = line_at(n).trim_start();
        t.starts_with("def ")
            || t.starts_with("async def ")
            || t.starts_with("class ")
            || t.starts_with('@')
    };
    let indent = |l: &str| l.len() - l.trim_start().len();
    let any_in = |set: Option<&BTreeSet<u32>>, from: u32, to: u32| {
        set.and_then(|s| s.range(from..=to).find(|&&n| !header(n)).copied())
    };
    for n in start..=end {
        if !header(n) {
            if ran.is_some_and(|s| s.contains(&n)) || imported.is_some_and(|s| s.contains(&n)) {
                return Some(n);
            }
            continue;
        }
        // The block the header opens: the lines after it indented deeper (blank ones too),
        // past any further decorator or the `def` a decorator stands on.
        let mut first = n + 1;
        while first <= lines.len() as u32 && header(first) {
            first += 1;
        }
        let own = indent(line_at(n));
        let mut last = first;
        while last < lines.len() as u32 {
            let next = line_at(last + 1);
            if !next.trim().is_empty() && indent(next) <= own {
                break;
            }
            last += 1;
        }
        if any_in(ran, first, last).is_some() {
            return Some(n);
        }
    }
    None
}

/// Whether the static reach leaves a choice tracing can settle: no failure's frame is on a
/// changed line, and there is more than one changed hunk or a failing test reaches none.
fn worth_tracing(judged: &[Judged]) -> bool {
    let nailed = judged.iter().any(|j| j.scored.iter().any(|(_, s)| s.hit));
    let hunks: BTreeSet<&(String, u32)> = judged
        .iter()
        .flat_map(|j| j.scored.iter().map(|(k, _)| k))
        .collect();
    let unreached = judged.iter().any(|j| j.scored.is_empty());
    !nailed && (hunks.len() > 1 || unreached)
}

/// A traced test's evidence: a changed hunk it executed counts, at its first executed line,
/// above anything the graph says (a hunk of import-time code counts as executed by a test
/// that reaches its file: the import ran it before tracing began); one in a file it was
/// traced through but did not execute does not count at all, but for a deleted line's mark
/// (a single blank line, which nothing executes); one in a file the trace did not cover keeps
/// the graph's word.
pub(super) fn retrace(
    root: &Path,
    scored: Vec<((String, u32), Score)>,
    lines: &pith_model::impact::Lines,
    trace: &Traced,
    changes: Option<&Changes>,
) -> Vec<((String, u32), Score)> {
    let traced = &trace.files;
    let Some(changes) = changes else {
        return scored;
    };
    // A file that was not traced tells nothing: the graph's word on it stands.
    let mut out: Vec<((String, u32), Score)> = scored
        .iter()
        .filter(|((f, _), _)| !traced.contains(f))
        .cloned()
        .collect();
    for change in changes
        .files
        .iter()
        .filter(|c| !matches!(c.kind, ChangeKind::Deleted) && traced.contains(&c.path))
    {
        let ran = lines.get(&change.path);
        // Its import ran these before any test was traced, for the tests that import it.
        let reached = scored.iter().any(|((f, _), _)| *f == change.path);
        let imported = trace.imported.get(&change.path).filter(|_| reached);
        let seen = trace.seen.get(&change.path);
        let mut text: Option<String> = None;
        let python = change.path.ends_with(".py");
        for h in &change.hunks {
            if seen.is_some_and(|s| s.range(h.start..=h.end).next().is_none()) {
                // Lines the tracer cannot see (a Go `const`): unread, so the graph's word on
                // the hunk stands.
                out.extend(
                    scored
                        .iter()
                        .filter(|((f, l), _)| *f == change.path && (h.start..=h.end).contains(l))
                        .cloned(),
                );
                continue;
            }
            let executed = if python {
                let text = text.get_or_insert_with(|| {
                    std::fs::read_to_string(root.join(&change.path)).unwrap_or_default()
                });
                python_executed(text, h.start, h.end, ran, imported)
            } else {
                ran.and_then(|l| l.range(h.start..=h.end).next().copied())
                    .or_else(|| imported.and_then(|l| l.range(h.start..=h.end).next().copied()))
            };
            if let Some(line) = executed {
                let hit = scored
                    .iter()
                    .any(|((f, l), s)| *f == change.path && *l == line && s.hit);
                out.push((
                    (change.path.clone(), line),
                    Score {
                        hit,
                        score: 256 + u32::from(hit) * 64,
                    },
                ));
            } else if h.start == h.end {
                // A deleted line shows as the blank line after it, which no trace executes:
                // there the graph's word stands.
                let text = text.get_or_insert_with(|| {
                    std::fs::read_to_string(root.join(&change.path)).unwrap_or_default()
                });
                let blank = text
                    .lines()
                    .nth(h.start.saturating_sub(1) as usize)
                    .is_some_and(|l| l.trim().is_empty());
                let kept = scored
                    .iter()
                    .find(|((f, l), _)| *f == change.path && *l == h.start);
                if let (true, Some(entry)) = (blank, kept) {
                    out.push(entry.clone());
                }
            }
        }
    }
    out
}
