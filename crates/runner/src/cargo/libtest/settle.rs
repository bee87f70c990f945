//! Which of a block's result lines are the binary's own, once the block is read: the reader
//! keeps every line it saw (a child's or a direct write look the same), and only the binary's
//! closing counts, its `failures:` list and, when they disagree, its `--list` can tell them
//! apart. Apart from the reader because it weighs a whole block, never a line.

use std::collections::HashSet;

use super::{Block, Outcome, Totals};

impl Block {
    /// Settles which result lines are the binary's own: the failures are its `failures:`
    /// list; the other lines are kept when they add up to its totals, else only those naming
    /// a test the binary lists (`listed`, asked only then; `None` when it cannot be asked).
    /// An unfinished block has no totals: its lines are kept when nothing can be listed.
    /// Returns where the binary's own count still disagrees with its lines.
    pub fn settle(&mut self, listed: &mut dyn FnMut() -> Option<Vec<String>>) -> Option<String> {
        let Some(totals) = self.totals.filter(|_| self.finished) else {
            self.settle_unfinished(listed);
            return None;
        };
        let lines = std::mem::take(&mut self.results);
        let listed_once = std::cell::OnceCell::new();
        let mut listing = || listed_once.get_or_init(&mut *listed).as_ref();
        let failed = self.own_failures(&lines, totals, &mut listing);
        let failed_set: HashSet<&str> = failed.iter().map(String::as_str).collect();
        let agrees = |p: &[String], i: &[String]| {
            p.len() == (totals.passed + totals.measured) as usize
                && i.len() == totals.ignored as usize
                && failed.len() == totals.failed as usize
        };
        let (mut passed, mut ignored) = others(&lines, &failed_set, totals, &|_| true);
        if !agrees(&passed, &ignored) {
            if let Some(names) = listing() {
                let names_set: HashSet<&str> = names.iter().map(String::as_str).collect();
                (passed, ignored) = others(&lines, &failed_set, totals, &|n| names_set.contains(n));
                // A listed test no line reported stays unreported, whatever the totals leave
                // room for: a count is no test's verdict.
            }
        }
        let why =
            (!agrees(&passed, &ignored)).then(|| disagreement(totals, &passed, &failed, &ignored));
        self.set_results(in_order(&lines, &failed_set, &failed, &passed, &ignored));
        self.outputs
            .retain(|name, _| failed_set.contains(name.as_str()));
        why
    }

    /// A block without its closing counts: each name once, only those the binary lists when
    /// it can be asked.
    fn settle_unfinished(&mut self, listed: &mut dyn FnMut() -> Option<Vec<String>>) {
        let all = std::mem::take(&mut self.results);
        if all.is_empty() {
            return;
        }
        let kept = match listed() {
            Some(names) => {
                let names: HashSet<String> = names.into_iter().collect();
                first_outcomes(all, |n| names.contains(n))
            }
            None => first_outcomes(all, |_| true),
        };
        self.set_results(kept);
    }

    /// The binary's failures: its list; without one (lost among other text), its `FAILED`
    /// lines, only those naming its tests when they are more than it counted.
    fn own_failures<'a>(
        &self,
        lines: &[(String, Outcome)],
        totals: Totals,
        listing: &mut dyn FnMut() -> Option<&'a Vec<String>>,
    ) -> Vec<String> {
        match &self.failures {
            Some(list) => list.clone(),
            None if totals.failed == 0 => Vec::new(),
            None => {
                let all = distinct(lines.iter().filter(|(_, o)| *o == Outcome::Failed));
                match listing().filter(|_| all.len() != totals.failed as usize) {
                    Some(names) => all.into_iter().filter(|n| names.contains(n)).collect(),
                    None => all,
                }
            }
        }
    }
}

/// The passed and the ignored names of `lines` that `keep` accepts, the failures left out.
fn others(
    lines: &[(String, Outcome)],
    failed_set: &HashSet<&str>,
    totals: Totals,
    keep: &dyn Fn(&str) -> bool,
) -> (Vec<String>, Vec<String>) {
    let mut passed = Vec::new();
    let mut ignored = Vec::new();
    for (name, o) in lines {
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
}

/// Where the binary's own count disagrees with the lines kept.
fn disagreement(
    totals: Totals,
    passed: &[String],
    failed: &[String],
    ignored: &[String],
) -> String {
    format!(
        "libtest counted {} passed, {} failed, {} ignored; its result lines say {}, {}, {}",
        totals.passed + totals.measured,
        totals.failed,
        totals.ignored,
        passed.len(),
        failed.len(),
        ignored.len()
    )
}

/// The settled results in the order the lines came; the failure list's names no line
/// reported, last.
fn in_order(
    lines: &[(String, Outcome)],
    failed_set: &HashSet<&str>,
    failed: &[String],
    passed: &[String],
    ignored: &[String],
) -> Vec<(String, Outcome)> {
    let mut results: Vec<(String, Outcome)> = Vec::new();
    let mut placed: HashSet<String> = HashSet::new();
    for (name, _) in lines {
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
        (failed, Outcome::Failed),
        (passed, Outcome::Passed),
        (ignored, Outcome::Ignored),
    ] {
        for n in names {
            if placed.insert(n.clone()) {
                results.push((n.clone(), o));
            }
        }
    }
    results
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
