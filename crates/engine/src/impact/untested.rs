//! A green run's unproven lines: the changes since the last green run of everything that no
//! test reaches — in a file no test imports, or in a definition no file between a test and
//! it names (nor anything in its file that reaches it). Green is true of what ran; these
//! lines ran under no test, and an agent that just wrote them should know.

use std::collections::HashMap;
use std::path::Path;

use pith_index::Graph;
use pith_model::impact::{Reach, Suspect, Untested};
use pith_store::{ChangeKind, FileChange, Since, Store};

use super::change::{contents_then, narrowed, ChangeContext};
use super::selection::tests_naming;
use super::suspects::suspect_at;

/// Lines an answer names; the rest are counted.
const SHOWN: usize = 3;
/// Hunks of one file looked at one by one; past it the file's reach is judged as a whole.
const HUNKS: usize = 24;

/// The changed lines since the last green run of everything (called before this run at
/// `generation` is recorded) that no test reaches, by the import graph and the names each
/// change touches; `None` when there are none, nothing changed since, or there is no such
/// run to compare with — a green run with nothing changed costs one query.
pub(crate) fn untested(store: &Store, ctx: &ChangeContext, generation: u64) -> Option<Untested> {
    let since = match store.last_full_green().ok()? {
        Some(g) if g < generation => Since::Generation(g),
        _ => return None,
    };
    let root = ctx.root();
    let changes = ctx.changes(store, &since);
    let changes = changes.as_ref().as_ref().ok()?;
    if changes.files.is_empty() || matches!(changes.baseline, pith_store::Baseline::None) {
        return None;
    }
    let then = contents_then(store, &since, changes);
    let changes = narrowed(&then, root, changes.clone());
    let g = ctx.graph(store).ok()?;
    // A test that imports by a computed name no run has seen it load may reach anything (an
    // added file: even one that was seen): nothing can be said unreached.
    let added = changes
        .files
        .iter()
        .any(|c| matches!(c.kind, ChangeKind::Added));
    if !g.dynamic_tests(added).is_empty() {
        return None;
    }
    let mut lines = Vec::new();
    for change in &changes.files {
        lines.extend(unreached(&then, root, g, change));
    }
    if lines.is_empty() {
        return None;
    }
    let count = lines.len();
    lines.truncate(SHOWN);
    Some(Untested {
        reach: Reach::Static,
        lines,
        count,
    })
}

/// The first line of each hunk of `change` that no test reaches; `then`: the baseline's
/// contents of the changed files.
fn unreached(
    then: &HashMap<String, Vec<u8>>,
    root: &Path,
    g: &Graph,
    change: &FileChange,
) -> Vec<Suspect> {
    let path = change.path.as_str();
    let source = matches!(change.kind, ChangeKind::Modified | ChangeKind::Added)
        && !change.hunks.is_empty()
        && g.places(path)
        && !g.is_test(path)
        && !pith_model::ecosystem::selects_all(path.rsplit('/').next().unwrap_or(path));
    if !source {
        return Vec::new();
    }
    let at = |h: &pith_store::Hunk| suspect_at(root, path, h.start);
    if g.tests_of(path).is_empty() {
        return change.hunks.iter().map(at).collect();
    }
    if change.hunks.len() > HUNKS {
        return Vec::new();
    }
    let old = match change.kind {
        ChangeKind::Added => Some(""),
        _ => then.get(path).and_then(|b| std::str::from_utf8(b).ok()),
    };
    let (Some(old), Ok(new)) = (old, std::fs::read_to_string(root.join(path))) else {
        return Vec::new();
    };
    let Some(reading) = pith_index::read_change(path, old, &new) else {
        return Vec::new();
    };
    change
        .hunks
        .iter()
        .filter(|h| {
            let t = reading.touched(&[(h.start, h.end)]);
            !t.whole
                && !t.names.is_empty()
                && tests_naming(root, g, path, &t.names).is_some_and(|tests| tests.is_empty())
        })
        .map(at)
        .collect()
}
