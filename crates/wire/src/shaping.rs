//! Fits a red `pith test` answer under [`ANSWER_CEILING`]: causes biggest first, each either
//! one failure in full (the member with the smallest test id, so the answer does not change
//! with completion order) with the cause's `affected` count and, when few, the other members'
//! ids, or past those a cluster (message, place, `affected`, ids when few); the failures in
//! neither are counted in `moreFailures`. Every part that can grow (source lines, frames,
//! cluster ids, clusters, failures in full, the tail, the project list) gives way in a fixed
//! order. Whatever gives way is counted, never dropped silently: a shown failure keeps its id,
//! the first line of its message and its deepest project frame. The tests that passed on a
//! retry (`flaky`) give way before any failure: first their source lines, then the entries
//! from the last (counted in `moreFlaky`).

use std::collections::HashMap;

use pith_model::cause::{Anchor, Cause};
use pith_model::{Failure, Status};

use crate::test_answer::{failure_out, ClusterOut, TestAnswer};
use crate::{first_line, ANSWER_CEILING};

/// Up to this many causes, each has a failure in full.
const ALL_IN_FULL: usize = 8;
/// Above [`ALL_IN_FULL`] causes, the biggest this many have a failure in full.
const IN_FULL: usize = 3;
/// Project frames per failure, deepest first in the answer.
const FRAMES: usize = 4;
/// Clusters shown at most; the budget may show fewer.
const CLUSTERS: usize = 5;
/// A cluster lists its members' ids up to this many; a bigger one is counted.
const CLUSTER_IDS: usize = 8;
/// A cluster's message is its first line, cut here: it names the cause.
const CLUSTER_ERROR_CHARS: usize = 120;
/// A shown message's first line is cut here when even one failure in full does not fit.
const SHORT_MESSAGE_CHARS: usize = 160;
/// The last cut of a shown message's first line: what no answer goes below.
const TERSE_MESSAGE_CHARS: usize = 100;
/// Header text is cut to this when even [`SHORT_MESSAGE_CHARS`] does not fit.
const TERSE_CHARS: usize = 60;
/// The last cut of a header line, when everything else has given way and the answer is still
/// over: a build error keeps its place and code and the start of its message.
const BARE_CHARS: usize = 24;
/// The bytes a raw tail keeps when failures compete for the answer: enough for the lines that
/// explain an end (a signal, a threshold), not a page of log.
const TAIL_SHARE: usize = 320;
/// Projects `runs` keeps, projects not green first, before failures give way.
const RUNS_WHEN_FULL: usize = 3;
/// A shown id is cut here only when nothing else is left to trim.
const ID_CHARS: usize = 200;

/// Failures of one cause, the representative first.
pub(crate) struct Group<'a> {
    cause: Cause,
    members: Vec<&'a Failure>,
}

impl Group<'_> {
    fn representative(&self) -> &Failure {
        self.members[0]
    }
    /// Where the cause sits: the place outside the tests it shares, else where its
    /// representative broke.
    fn at(&self) -> Option<String> {
        match &self.cause.anchor {
            Anchor::Place(p) => Some(p.clone()),
            _ => self
                .representative()
                .top_project_frame()
                .map(|f| f.location()),
        }
    }
}

/// The failures grouped by cause: members by test id, groups biggest first, ties by their
/// representative's id.
pub(crate) fn by_cause<'a>(failures: &[&'a Failure]) -> Vec<Group<'a>> {
    let mut index: HashMap<Cause, usize> = HashMap::new();
    let mut groups: Vec<Group> = Vec::new();
    for f in failures {
        let cause = f.cause();
        let i = *index.entry(cause.clone()).or_insert_with(|| {
            groups.push(Group {
                cause,
                members: Vec::new(),
            });
            groups.len() - 1
        });
        groups[i].members.push(f);
    }
    let mut groups = join_placeless(groups);
    for g in &mut groups {
        g.members.sort_by(|a, b| natural(&a.test, &b.test));
    }
    groups.sort_by(|a, b| {
        b.members
            .len()
            .cmp(&a.members.len())
            .then_with(|| natural(&a.representative().test, &b.representative().test))
    });
    groups
}

/// Members without a project frame join the group of the same kind and message template that
/// has a place (the biggest, when several): a runner gives a place only to failures it re-ran
/// with backtraces (plain cargo, nextest: one member of each cause), so 28 panics inside the
/// standard library and the one re-run beside them are one cause, at the re-run's place.
fn join_placeless(groups: Vec<Group>) -> Vec<Group> {
    let (placeless, mut placed): (Vec<Group>, Vec<Group>) = groups
        .into_iter()
        .partition(|g| g.cause.anchor == Anchor::Nowhere);
    for g in placeless {
        let home = placed
            .iter_mut()
            .filter(|p| p.cause.kind == g.cause.kind && p.cause.template == g.cause.template)
            .max_by_key(|p| p.members.len());
        match home {
            Some(p) => p.members.extend(g.members),
            None => placed.push(g),
        }
    }
    placed
}

/// Test ids in the order a person reads them: numbers by value (`case[2]` before `case[10]`),
/// the rest by character.
fn natural(a: &str, b: &str) -> std::cmp::Ordering {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a.first(), b.first()) {
            (None, None) => return std::cmp::Ordering::Equal,
            (None, Some(_)) => return std::cmp::Ordering::Less,
            (Some(_), None) => return std::cmp::Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let digits = |s: &[u8]| s.iter().take_while(|c| c.is_ascii_digit()).count();
                let (da, db) = (digits(a), digits(b));
                let trim = |s: &[u8]| {
                    let zeros = s.iter().take_while(|&&c| c == b'0').count();
                    s[zeros..].to_vec()
                };
                let (na, nb) = (trim(&a[..da]), trim(&b[..db]));
                let by_value = na.len().cmp(&nb.len()).then_with(|| na.cmp(&nb));
                if by_value != std::cmp::Ordering::Equal {
                    return by_value;
                }
                // Equal values: `01` after `1`, so the order stays total.
                let by_width = da.cmp(&db);
                if by_width != std::cmp::Ordering::Equal {
                    return by_width;
                }
                (a, b) = (&a[da..], &b[db..]);
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(y);
                }
                (a, b) = (&a[1..], &b[1..]);
            }
        }
    }
}

/// How much of a shown failure's message is kept.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Message {
    /// As the adapter gave it (its first lines, cut at its own bound).
    Whole,
    FirstLine,
    Short,
    Terse,
}

/// One setting of every knob the shaping turns; [`Plan::next`] is the trimming ladder.
#[derive(Clone, Copy, Debug)]
struct Plan {
    /// Groups with a failure in full (the first `shown`).
    shown: usize,
    /// Project frames kept per shown failure, and how many of them keep their source line.
    frames: usize,
    code: usize,
    /// Shown failures (the first, biggest causes) that keep their deepest frame's source line
    /// once `code` is down to that one line.
    lines_kept: usize,
    message: Message,
    clusters: usize,
    ids: bool,
    /// Ids past [`ID_CHARS`] are cut: the very last resort, for ids that alone overflow.
    short_ids: bool,
    /// Suspects kept, and how many of them keep their source line; whether failures and
    /// clusters keep their own.
    suspects: usize,
    suspect_code: usize,
    own_suspects: bool,
    /// The first suspects the evidence cannot tell apart: the fewest kept.
    tied: usize,
}

impl Plan {
    fn first(groups: usize, tied: usize) -> Self {
        Plan {
            shown: if groups <= ALL_IN_FULL {
                groups
            } else {
                IN_FULL
            },
            frames: FRAMES,
            code: FRAMES,
            lines_kept: usize::MAX,
            message: Message::Whole,
            clusters: CLUSTERS,
            ids: true,
            short_ids: false,
            suspects: usize::MAX,
            suspect_code: usize::MAX,
            own_suspects: true,
            tied: tied.max(1),
        }
    }

    /// The next smaller answer, in the order noise goes: source lines on outer frames, outer
    /// frames, message lines past the first, then the first line's length (prose goes before
    /// any failing test's id: a 400-character sentence never costs the answer the tests it
    /// failed), cluster ids, clusters from the smallest, suspects past the tied first ones,
    /// the deepest frame's source line (the smallest cause's first), failures in full from
    /// the smallest cause (they join the clusters or the count, and what went for them may
    /// come back); last the suspects' source lines, each failure's own suspect, the suspects
    /// tied with the best (never the best) and long ids.
    fn next(&mut self) -> bool {
        if self.code > 1 {
            self.code = 1;
        } else if self.frames > 2 {
            self.frames = 2;
        } else if self.frames > 1 {
            self.frames = 1;
        } else if self.message == Message::Whole {
            self.message = Message::FirstLine;
        } else if self.message == Message::FirstLine {
            self.message = Message::Short;
        } else if self.message == Message::Short {
            self.message = Message::Terse;
        } else if self.ids {
            self.ids = false;
        } else if self.suspect_code > self.tied {
            self.suspect_code = self.tied;
        } else if self.clusters > 0 {
            self.clusters -= 1;
        } else if self.suspects > self.tied {
            self.suspects = self.tied;
        } else if self.lines_kept > 0 {
            self.lines_kept = self.lines_kept.min(self.shown) - 1;
        } else if self.shown > 1 {
            // One failure fewer frees room: what went for it may come back.
            self.shown -= 1;
            self.clusters = CLUSTERS;
            self.code = 1;
            self.lines_kept = usize::MAX;
        } else if self.suspect_code > 0 {
            self.suspect_code = 0;
        } else if self.own_suspects {
            self.own_suspects = false;
        } else if self.suspects > 1 {
            // Tied suspects stay until here: past this only one failure is left to give way.
            self.suspects = 1;
        } else if !self.short_ids {
            self.short_ids = true;
        } else {
            return false;
        }
        true
    }
}

/// Fills the answer's failures, clusters and left-out count from `failures`, then trims the
/// whole answer until it fits [`ANSWER_CEILING`]: green projects in `runs` go first (they are
/// counted), then the tests that passed on a retry ([`trim_flaky`]), then the failures' ladder
/// ([`Plan::next`]), then the lists that have no other bound ([`give_way`]). The raw tail gets what is left, at least [`TAIL_SHARE`] when it is that long.
pub(crate) fn shape(
    answer: &mut TestAnswer,
    failures: &[&Failure],
    suspects: &[String],
    tied: usize,
) {
    let groups = by_cause(failures);
    let suspects = Suspects {
        all: suspects,
        first: answer_first(suspects),
    };
    let tail = answer.tail.take();
    let reserve = tail.as_ref().map_or(0, |t| (t.len() + 12).min(TAIL_SHARE));
    let before = (reserve > 0).then(|| answer.clone());
    let mut plan = fit(answer, &groups, failures.len(), &suspects, tied, reserve);
    if let Some(mut without) = before.filter(|_| named(answer) < failures.len()) {
        // Ids go before prose: when the tail's share costs failing tests their names, the
        // tail gets what is left after them.
        let other = fit(&mut without, &groups, failures.len(), &suspects, tied, 0);
        if named(&without) > named(answer) {
            (*answer, plan) = (without, other);
        }
    }
    answer.tail = tail.and_then(|t| fit_tail(&t, ANSWER_CEILING.saturating_sub(size(answer))));
    give_back(answer, &groups, failures.len(), plan, &suspects);
}

/// Trims the answer down the ladder until it fits [`ANSWER_CEILING`] less `reserve`.
fn fit(
    answer: &mut TestAnswer,
    groups: &[Group],
    total: usize,
    suspects: &Suspects,
    tied: usize,
    reserve: usize,
) -> Plan {
    let room = ANSWER_CEILING - reserve;
    let mut plan = Plan::first(groups.len(), tied);
    loop {
        render(answer, groups, total, plan);
        suspects.render(answer, groups, plan);
        if size(answer) <= room
            || !(drop_green_run(answer)
                || trim_flaky(answer)
                || drop_run_past(answer, RUNS_WHEN_FULL)
                || (!groups.is_empty() && plan.next())
                || give_way(answer))
        {
            return plan;
        }
    }
}

/// How many failing tests the answer names: shown ones, the others of their causes, and the
/// clusters' listed members.
fn named(answer: &TestAnswer) -> usize {
    answer
        .failures
        .iter()
        .map(|f| 1 + f.others.len())
        .sum::<usize>()
        + answer.clusters.iter().map(|c| c.tests.len()).sum::<usize>()
}

/// The run's suspects (`file:line source`, best first) and the first one's place, which a
/// failure or cluster repeats only when its own differs.
struct Suspects<'a> {
    all: &'a [String],
    first: Option<String>,
}

/// `file:line` of a `file:line source` suspect.
fn answer_first(suspects: &[String]) -> Option<String> {
    suspects.first().map(|s| {
        s.split_once(' ')
            .map_or(s.as_str(), |(at, _)| at)
            .to_owned()
    })
}

impl Suspects<'_> {
    /// The suspects the plan keeps, and each shown failure's and cluster's own suspect
    /// where it differs from the run's first.
    fn render(&self, answer: &mut TestAnswer, groups: &[Group], plan: Plan) {
        answer.suspects = self
            .all
            .iter()
            .take(plan.suspects)
            .enumerate()
            .map(|(i, s)| match s.split_once(' ') {
                Some((at, _)) if i >= plan.suspect_code => at.to_owned(),
                _ => s.clone(),
            })
            .collect();
        if answer.suspects.is_empty() {
            // A green answer's `reach` is its untested lines'.
            if answer.untested.is_empty() {
                answer.reach = None;
            }
            answer.traceless = None;
            answer.baseline = None;
            return;
        }
        let own = |g: &Group| {
            if !plan.own_suspects {
                return None;
            }
            g.representative()
                .suspect
                .as_ref()
                .map(|s| s.location())
                .filter(|at| Some(at) != self.first.as_ref())
        };
        let shown = plan.shown.min(groups.len());
        for (out, g) in answer.failures.iter_mut().zip(&groups[..shown]) {
            out.suspect = own(g);
        }
        for (out, g) in answer.clusters.iter_mut().zip(&groups[shown..]) {
            out.suspect = own(g);
        }
    }
}

/// The tail's share was held back for a tail that took less: suspects tied with the best,
/// then clusters the ladder let go come back, one at a time, while the whole answer still
/// fits.
fn give_back(
    answer: &mut TestAnswer,
    groups: &[Group],
    total: usize,
    mut plan: Plan,
    suspects: &Suspects,
) {
    // The suspects tied with the best come back first; the clusters only after them.
    if plan.suspects < plan.tied.min(suspects.all.len()) {
        let kept = answer.clone();
        plan.suspects = plan.tied;
        render(answer, groups, total, plan);
        suspects.render(answer, groups, plan);
        if size(answer) > ANSWER_CEILING {
            *answer = kept;
            return;
        }
    }
    while plan.clusters < CLUSTERS && plan.shown + answer.clusters.len() < groups.len() {
        let before = (answer.clusters.clone(), answer.more_failures);
        plan.clusters += 1;
        render(answer, groups, total, plan);
        suspects.render(answer, groups, plan);
        if size(answer) > ANSWER_CEILING {
            (answer.clusters, answer.more_failures) = before;
            return;
        }
    }
}

/// Drops the last project in `runs` that is green or ran nothing, counting it in `moreRuns`.
fn drop_green_run(answer: &mut TestAnswer) -> bool {
    let quiet = |r: &crate::test_answer::RunOut| {
        r.status == Status::TestsPassed.name() || r.status == Status::NoTestsRan.name()
    };
    match answer.runs.iter().rposition(quiet) {
        Some(i) => {
            answer.runs.remove(i);
            answer.more_runs += 1;
            true
        }
        None => false,
    }
}

/// The tests that passed on a retry give way before any failure: their frames' source lines
/// first, then the entries from the last, each counted in `moreFlaky`.
fn trim_flaky(answer: &mut TestAnswer) -> bool {
    let mut cut = false;
    for fr in answer.flaky.iter_mut().flat_map(|f| f.frames.iter_mut()) {
        if let Some((at, _)) = fr.split_once(' ') {
            *fr = at.to_owned();
            cut = true;
        }
    }
    if cut {
        return true;
    }
    match answer.flaky.pop() {
        Some(_) => {
            answer.more_flaky += 1;
            true
        }
        None => false,
    }
}

/// Drops the last project in `runs` when more than `keep` are listed.
fn drop_run_past(answer: &mut TestAnswer, keep: usize) -> bool {
    if answer.runs.len() <= keep {
        return false;
    }
    answer.runs.pop();
    answer.more_runs += 1;
    true
}

/// One more item of a list without a bound of its own goes (counted), or a long line of the
/// header is cut, first to [`SHORT_MESSAGE_CHARS`] then to [`TERSE_CHARS`]; then advice
/// (`hint`, `lacks`, `interpreter`) goes; last, header lines are cut to [`BARE_CHARS`]. False
/// when nothing is left to give.
fn give_way(answer: &mut TestAnswer) -> bool {
    if answer.runs.pop().is_some() {
        answer.more_runs += 1;
    } else if answer.build_errors.len() > 1 {
        answer.build_errors.pop();
        answer.more_build_errors += 1;
    } else if answer.running.len() > 1 {
        answer.running.pop();
        answer.more_running += 1;
    } else if answer.not_found.len() > 1 {
        answer.not_found.pop();
        answer.more_not_found += 1;
    } else if cut_longest(answer, SHORT_MESSAGE_CHARS) || cut_longest(answer, TERSE_CHARS) {
        // One line was cut; the next pass measures again.
    } else if answer.running.pop().is_some() {
        answer.more_running += 1;
    } else if answer.not_found.pop().is_some() {
        answer.more_not_found += 1;
    } else if answer.hint.take().is_none()
        && answer.lacks.take().is_none()
        && answer.interpreter.take().is_none()
        && !first_mask_only(answer)
        && !cut_longest(answer, BARE_CHARS)
    {
        return false;
    }
    true
}

/// Several projects' `masked` reasons become the first one, marked as cut: that the command
/// hides failures stays said.
fn first_mask_only(answer: &mut TestAnswer) -> bool {
    let Some((first, rest)) = answer.masked.as_deref().and_then(|m| m.split_once("; ")) else {
        return false;
    };
    // Already cut to its first reason: nothing more gives way here (else the ladder loops).
    if rest == "…" {
        return false;
    }
    answer.masked = Some(format!("{first}; …"));
    true
}

/// Cuts the first line of the header's text longer than `max` characters.
fn cut_longest(answer: &mut TestAnswer, max: usize) -> bool {
    let long = [
        &mut answer.reason,
        &mut answer.masked,
        &mut answer.hint,
        &mut answer.lacks,
        &mut answer.interpreter,
    ]
    .into_iter()
    .flatten()
    .chain(answer.build_errors.iter_mut().map(|e| &mut e.message))
    .chain(answer.running.iter_mut())
    .chain(answer.not_found.iter_mut())
    // A cut line is its first characters and `…`: one more than the bound.
    .find(|s| s.chars().count() > max + 1);
    match long {
        Some(s) => {
            *s = crate::cut(s, max);
            true
        }
        None => false,
    }
}

fn render(answer: &mut TestAnswer, groups: &[Group], total: usize, plan: Plan) {
    let listed = |g: &Group| plan.ids && g.members.len() <= CLUSTER_IDS;
    answer.failures = groups[..plan.shown]
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let code = if i < plan.lines_kept { plan.code } else { 0 };
            let mut out = failure_out(g.representative(), plan.frames, code);
            if plan.short_ids {
                out.test = crate::cut(&out.test, ID_CHARS);
            }
            out.message = match plan.message {
                Message::Whole => out.message,
                Message::FirstLine => first_line(&out.message).to_owned(),
                Message::Short => crate::cut(first_line(&out.message), SHORT_MESSAGE_CHARS),
                Message::Terse => crate::cut(first_line(&out.message), TERSE_MESSAGE_CHARS),
            };
            if g.members.len() > 1 {
                out.affected = g.members.len();
                if listed(g) {
                    out.others = g.members[1..].iter().map(|f| f.test.clone()).collect();
                    out.others_at = places(
                        &g.members[1..],
                        g.representative().top_project_frame().map(|f| f.location()),
                    );
                }
            }
            out
        })
        .collect();
    let cluster_chars = if plan.message == Message::Terse {
        TERSE_MESSAGE_CHARS
    } else {
        CLUSTER_ERROR_CHARS
    };
    answer.clusters = groups[plan.shown..]
        .iter()
        .take(plan.clusters)
        .map(|g| {
            let at = g.at();
            let (tests, tests_at) = if listed(g) {
                let ids = g.members.iter().map(|f| f.test.clone()).collect();
                (ids, places(&g.members, at.clone()))
            } else {
                (Vec::new(), Vec::new())
            };
            ClusterOut {
                error: crate::cut(first_line(&g.representative().message), cluster_chars),
                at,
                affected: g.members.len(),
                tests,
                tests_at,
                suspect: None,
            }
        })
        .collect();
    let accounted: usize = groups[..(plan.shown + answer.clusters.len())]
        .iter()
        .map(|g| g.members.len())
        .sum();
    answer.more_failures = total - accounted;
    hoist(answer);
}

/// Where each member broke (its deepest project frame), when not every one broke at `common`.
fn places(members: &[&Failure], common: Option<String>) -> Vec<String> {
    let at: Option<Vec<String>> = members
        .iter()
        .map(|f| f.top_project_frame().map(|fr| fr.location()))
        .collect();
    match at {
        // A member without a place leaves the list out: it would not line up with the ids.
        Some(at) if at.iter().any(|a| Some(a) != common.as_ref()) => at,
        _ => Vec::new(),
    }
}

/// Flags every shown failure shares are said once, on the answer: eight `"new":true` are one.
fn hoist(answer: &mut TestAnswer) {
    let shown = &mut answer.failures;
    answer.new = shown.len() > 1 && shown.iter().all(|f| f.new);
    let first = shown.first().map_or(0, |f| f.failing_for);
    answer.failing_for =
        if shown.len() > 1 && first > 0 && shown.iter().all(|f| f.failing_for == first) {
            first
        } else {
            0
        };
    for f in shown.iter_mut() {
        f.new &= !answer.new;
        if answer.failing_for > 0 {
            f.failing_for = 0;
        }
    }
}

/// The end of a raw tail within `room` bytes of the answer (`,"tail":"…"`, escapes
/// included): whole lines from the end, marked `…` when lines went; a last line longer than
/// the room keeps its end, where an error usually is. Nothing when too little is left to say
/// anything.
pub(crate) fn fit_tail(tail: &str, room: usize) -> Option<String> {
    let cost = |s: &str| ",\"tail\":".len() + crate::to_json(&s).len();
    if cost(tail) <= room {
        return Some(tail.to_owned());
    }
    if room < 60 {
        return None;
    }
    let lines: Vec<&str> = tail.lines().collect();
    for start in 1..lines.len() {
        let kept = format!("…\n{}", lines[start..].join("\n"));
        if cost(&kept) <= room {
            return Some(kept);
        }
    }
    // The last line alone is too long: its end, shortened until it fits.
    let last = lines.last().copied().unwrap_or("");
    let mut start = last.len().saturating_sub(room / 2);
    loop {
        while !last.is_char_boundary(start) {
            start += 1;
        }
        let kept = format!("…{}", &last[start..]);
        if cost(&kept) <= room || start >= last.len() {
            return (cost(&kept) <= room).then_some(kept);
        }
        start += (last.len() - start).div_ceil(4);
    }
}

/// The answer's bytes as sent.
pub(crate) fn size(answer: &TestAnswer) -> usize {
    crate::to_json(answer).len()
}

#[cfg(test)]
mod tests {
    use super::natural;

    #[test]
    fn ids_sort_by_their_numbers_value() {
        let mut ids = [
            "area(int)[10]",
            "area(int)[1]",
            "area(int)[2]",
            "case_01",
            "case_1",
            "b",
        ];
        ids.sort_by(|a, b| natural(a, b));
        assert_eq!(
            ids,
            [
                "area(int)[1]",
                "area(int)[2]",
                "area(int)[10]",
                "b",
                "case_1",
                "case_01"
            ]
        );
    }
}
