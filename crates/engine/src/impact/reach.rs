//! What the graph says of a red run: for each failing test, the changed hunks it reaches
//! (through its frames' files, its id's file, and what they import, transitively) and how
//! strongly it points at each: a frame on the changed line first, then a changed file its
//! frames pass through, then nearness in the graph.

use std::collections::{BTreeSet, HashMap};

use pith_index::Graph;
use pith_model::{Failure, Run};
use pith_store::{ChangeKind, Changes};

/// A hunk longer than this is a rewrite or a new file: weaker evidence than a few lines.
const LONG_HUNK: u32 = 20;

/// One failure's place in the report, the generation of its test's last pass (the key of its
/// changes), and what the graph says of each changed hunk it reaches.
pub(super) struct Judged {
    pub run: usize,
    pub failure: usize,
    pub pass: Option<u64>,
    pub scored: Vec<((String, u32), Score)>,
}

/// What one failure says of one changed line: whether a frame is on it, and how strongly
/// the failure points at it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Score {
    pub hit: bool,
    pub score: u32,
}

/// Every changed hunk `failure` (of `run`) reaches, at its best line, with its strength.
pub(super) fn score(
    g: &Graph,
    changes: &Changes,
    failure: &Failure,
    run: &Run,
) -> Vec<((String, u32), Score)> {
    let reach = reach_of(g, failure, run);
    let mut out = Vec::new();
    for change in &changes.files {
        if matches!(change.kind, ChangeKind::Deleted) {
            continue;
        }
        let Some(&distance) = reach.get(change.path.as_str()) else {
            continue;
        };
        let frames: Vec<u32> = failure
            .project_frames()
            .filter(|fr| fr.file == change.path)
            .map(|fr| fr.line)
            .collect();
        let is_test = pith_model::ecosystem::is_test_path(&change.path);
        for h in &change.hunks {
            let on = frames
                .iter()
                .copied()
                .find(|l| (h.start..=h.end).contains(l));
            let mut score = 64 / (1 + distance);
            if !frames.is_empty() {
                score += 64;
            }
            if h.end - h.start >= LONG_HUNK {
                score /= 2;
            }
            if is_test && on.is_none() {
                score /= 2;
            }
            let line = on.unwrap_or(h.start);
            out.push((
                (change.path.clone(), line),
                Score {
                    hit: on.is_some(),
                    score: score.max(1),
                },
            ));
        }
    }
    out
}

/// The files a failing test reaches and how far: every file its project frames name (the
/// test's own, the code it ran through) at distance 0, the test id's file when it names one
/// (read in its runner's syntax, and in the run's directory too),
/// and what they depend on.
fn reach_of(g: &Graph, failure: &Failure, run: &Run) -> HashMap<String, u32> {
    let mut entries: BTreeSet<String> =
        failure.project_frames().map(|fr| fr.file.clone()).collect();
    if let Some(file) = pith_runner::test_file(&run.runner, &failure.test) {
        entries.insert(file.to_owned());
        if let Some(d) = run.dir.as_deref() {
            entries.insert(format!("{d}/{file}"));
        }
    }
    let mut reach: HashMap<String, u32> = HashMap::new();
    for e in entries.iter().filter(|e| g.places(e)) {
        reach.entry(e.clone()).or_insert(0);
        for (dep, d) in g.dependencies(e) {
            let slot = reach.entry(dep).or_insert(d);
            *slot = (*slot).min(d);
        }
    }
    reach
}
