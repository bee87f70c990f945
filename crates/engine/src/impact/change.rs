//! A run's changes, derived once and shared by its steps: the change set against each
//! baseline asked (the last green run, a test's last pass, a git revision), the workspace's
//! import graph, and the last green run. `--changed` selection, the trace plan and the
//! suspects all ask; each answer is computed the first time and read after. Also the graph's
//! keeping in the store between runs, and what a baseline is called in an answer.

use std::cell::OnceCell;
use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;

use pith_index::Graph;
use pith_model::impact::Baseline;
use pith_store::{ChangeKind, Changes, FileChange, Hunk, Since, Store};

/// A change set, or why it could not be had.
pub(crate) type ChangeSet = Rc<Result<Changes, String>>;

/// The change context of one run (see the module's doc). The store is passed to each call
/// rather than held, as the run records into it between the calls.
pub(crate) struct ChangeContext<'r> {
    root: &'r Path,
    last_green: OnceCell<Result<Option<u64>, String>>,
    /// Each change set asked for, against what it was measured.
    sets: std::cell::RefCell<Vec<(Since, ChangeSet)>>,
    graph: OnceCell<Result<Graph, String>>,
}

impl<'r> ChangeContext<'r> {
    pub fn new(root: &'r Path) -> Self {
        ChangeContext {
            root,
            last_green: OnceCell::new(),
            sets: std::cell::RefCell::default(),
            graph: OnceCell::new(),
        }
    }

    pub fn root(&self) -> &'r Path {
        self.root
    }

    /// The generation of the last green run, if any.
    pub fn last_green(&self, store: &Store) -> Result<Option<u64>, String> {
        self.last_green
            .get_or_init(|| store.last_green().map_err(|e| e.to_string()))
            .clone()
    }

    /// What changed since `since` (the working tree as of the store's generation).
    pub fn changes(&self, store: &Store, since: &Since) -> ChangeSet {
        if let Some((_, set)) = self.sets.borrow().iter().find(|(s, _)| s == since) {
            return Rc::clone(set);
        }
        let set = Rc::new(store.changes(since).map_err(|e| e.to_string()));
        self.sets
            .borrow_mut()
            .push((since.clone(), Rc::clone(&set)));
        set
    }

    /// The import graph (see [`graph_of`]).
    pub fn graph(&self, store: &Store) -> Result<&Graph, &str> {
        self.graph
            .get_or_init(|| graph_of(store, self.root).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(String::as_str)
    }

    /// After the run: the test loads it observed join a graph made before it (observing adds
    /// edges; what was observed before stays observed).
    pub fn observe_again(&mut self, store: &Store) {
        if let (Some(Ok(g)), Ok(loads)) = (self.graph.get_mut(), store.observed_loads()) {
            g.observe(&loads);
        }
    }
}

/// Which graphs the store keeps: this pith's, so another version's resolvers never answer.
pub(super) const GRAPH_KEY: &str = concat!("import-graph ", env!("CARGO_PKG_VERSION"));

/// The import graph of the workspace as of the store's generation (which the caller has just
/// refreshed): the one kept for that generation, else built from the files and kept. The
/// store's walk and the graph's are one filter, so an edit the graph would read is a new
/// generation; a status polled with nothing changed reads no source again.
pub(super) fn graph_of(store: &Store, root: &Path) -> Result<Graph, pith_index::IndexError> {
    let mut g = static_graph_of(store, root)?;
    // What runs saw test files load by computed names, for the test files as they are now:
    // kept apart from the cached graph, which depends on the files alone.
    if let Ok(loads) = store.observed_loads() {
        g.observe(&loads);
    }
    Ok(g)
}

fn static_graph_of(store: &Store, root: &Path) -> Result<Graph, pith_index::IndexError> {
    let generation = store.generation().ok();
    if let Some(g) = generation
        .and_then(|g| store.cached_graph(GRAPH_KEY, g).ok().flatten())
        .and_then(|bytes| Graph::from_bytes(&bytes))
    {
        return Ok(g);
    }
    let g = Graph::build(root)?;
    if let Some(generation) = generation {
        // Best effort: a busy database only costs the next call another build.
        let _ = store.cache_graph(GRAPH_KEY, generation, &g.to_bytes());
    }
    Ok(g)
}

/// A git revision pith passes on: never an option, never empty.
pub(super) fn is_revision(r: &str) -> bool {
    !r.is_empty() && !r.starts_with('-') && !r.contains(char::is_whitespace)
}

/// What a change set was measured against, as an answer names it.
pub(super) fn baseline_of(b: &pith_store::Baseline) -> Baseline {
    match b {
        pith_store::Baseline::Run { .. } => Baseline::LastPass,
        _ => Baseline::Git,
    }
}

/// `changes` (measured against `since`) with each hunk narrowed to what can change behaviour.
/// A file of a language the index parses is compared with its content then as syntax
/// (`pith_index::behaviour_changes`): comments, docstrings, whitespace and line breaks the
/// language ignores are no change, and a file with no other change is dropped. Any other
/// file, or one whose content then is not known or that does not parse, keeps its line
/// hunks without the lines that are only comments ([`code_only`]).
pub(super) fn behaviour_only(
    store: &Store,
    since: &Since,
    root: &Path,
    changes: Changes,
) -> Changes {
    let then = contents_then(store, since, &changes);
    narrowed(&then, root, changes)
}

/// Where a changed file's content at the baseline is kept under: its path, or the one it
/// was renamed from.
pub(super) fn old_path(c: &FileChange) -> Option<&str> {
    match &c.kind {
        ChangeKind::Modified => Some(&c.path),
        ChangeKind::Renamed { from } => Some(from),
        _ => None,
    }
}

/// What the changed files with hunks held at the baseline `since`, by [`old_path`].
pub(super) fn contents_then(
    store: &Store,
    since: &Since,
    changes: &Changes,
) -> HashMap<String, Vec<u8>> {
    let ask: Vec<&str> = changes
        .files
        .iter()
        .filter(|c| !c.hunks.is_empty())
        .filter_map(old_path)
        .collect();
    store.contents_at(since, &ask).unwrap_or_default()
}

/// [`behaviour_only`] with the baseline's contents (`then`, see [`contents_then`]) read.
pub(super) fn narrowed(then: &HashMap<String, Vec<u8>>, root: &Path, changes: Changes) -> Changes {
    let mut out = Changes {
        baseline: changes.baseline,
        files: Vec::with_capacity(changes.files.len()),
    };
    for mut change in changes.files {
        let compared = old_path(&change)
            .filter(|_| !change.hunks.is_empty())
            .and_then(|old| then.get(old))
            .and_then(|old| {
                let new = std::fs::read(root.join(&change.path)).ok()?;
                pith_index::behaviour_changes(
                    &change.path,
                    std::str::from_utf8(old).ok()?,
                    std::str::from_utf8(&new).ok()?,
                )
            });
        match compared {
            Some(lines) if lines.is_empty() => continue,
            Some(lines) => {
                change.hunks = lines
                    .into_iter()
                    .map(|(start, end)| Hunk { start, end })
                    .collect();
            }
            None => narrow_to_code(root, &mut change),
        }
        out.files.push(change);
    }
    out
}

/// `changes` with each hunk narrowed to its lines of code: a hunk of comments and blank lines
/// alone runs nothing and is no suspect (an edited comment beside a bug must not outrank it),
/// but for a single blank line, which is how a deleted line often shows (the line after it).
/// A file that cannot be read, or of a language whose comments pith does not know, is kept.
#[cfg(test)]
pub(super) fn code_only(root: &Path, mut changes: Changes) -> Changes {
    for change in &mut changes.files {
        narrow_to_code(root, change);
    }
    changes
}

/// One file's hunks narrowed to its lines of code (see [`code_only`]).
fn narrow_to_code(root: &Path, change: &mut FileChange) {
    if change.hunks.is_empty() || matches!(change.kind, ChangeKind::Deleted) {
        return;
    }
    let Some(markers) = pith_model::lang::comment_markers(&change.path) else {
        return;
    };
    let Ok(bytes) = std::fs::read(root.join(&change.path)) else {
        return;
    };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    let is_code = |n: u32| {
        let line = lines
            .get(n.saturating_sub(1) as usize)
            .map_or("", |l| l.trim());
        // A line past the end is a deletion's neighbour: where the removed code was.
        n as usize > lines.len()
            || (!line.is_empty() && line != "*" && !markers.iter().any(|m| line.starts_with(m)))
    };
    let blank = |n: u32| {
        lines
            .get(n.saturating_sub(1) as usize)
            .is_some_and(|l| l.trim().is_empty())
    };
    change.hunks.retain_mut(|h| {
        // A pure deletion is the one line after it, often a blank one: where code was.
        if h.start == h.end && blank(h.start) {
            return true;
        }
        let Some(start) = (h.start..=h.end).find(|&n| is_code(n)) else {
            return false;
        };
        let end = (start..=h.end).rev().find(|&n| is_code(n)).unwrap_or(start);
        (h.start, h.end) = (start, end);
        true
    });
}
