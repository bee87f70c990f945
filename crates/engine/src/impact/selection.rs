//! Which tests a change selects: `pith select`, `pith tests-for`, and the plan of
//! `pith test --changed` — the tests whose files reach a changed file in the import graph,
//! those the graph cannot vouch for (dynamic imports), and what failed last time; or
//! everything, with the reason, when a change is one the graph cannot follow (a build or
//! test-config file, a deleted or renamed file, a file it does not read).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use pith_index::Graph;
use pith_model::impact::{Baseline, FileTests, Selection};
use pith_model::RunSummary;
use pith_store::{ChangeKind, Changes, FileChange, Since, Store};

use super::blast::{relative, workspace};
use super::change::{graph_of, is_revision, ChangeContext};
use super::suite::Suite;
use super::ImpactError;
use crate::detect::Found;
use crate::route::{route, route_files};
use crate::{ChangedSince, EngineError};

/// `pith tests-for FILE`: the test files that depend on `file`, nearest first.
pub fn tests_for_file(
    root: Option<&Path>,
    cwd: &Path,
    file: &str,
) -> Result<FileTests, ImpactError> {
    let root = workspace(root, cwd)?;
    let rel = relative(&root, cwd, file)?;
    let g = Graph::build(&root)?;
    if !g.places(&rel) {
        return Ok(FileTests {
            file: rel,
            tests: Vec::new(),
            unplaced: true,
        });
    }
    let found = crate::detect::projects(&root, None);
    let tests = g.tests_of(&rel).into_iter().map(|(t, _)| t).collect();
    Ok(FileTests {
        tests: Suite::new(&root, &found).keep(tests),
        file: rel,
        unplaced: false,
    })
}

/// `pith select`: the test files the changes select — since git revision `rev` when given,
/// else since the last green run, else the uncommitted changes against git `HEAD`.
pub fn select(
    root: Option<&Path>,
    cwd: &Path,
    rev: Option<&str>,
) -> Result<Selection, ImpactError> {
    if let Some(r) = rev.filter(|r| !is_revision(r)) {
        // Never an option to git, whatever it looks like.
        return Err(ImpactError::BadRevision(r.to_owned()));
    }
    let root = workspace(root, cwd)?;
    let mut store = Store::open(&root)?;
    store.scan()?;
    let found = crate::detect::projects(&root, None);
    selection_in(&store, &root, rev, &Suite::new(&root, &found))
}

/// The selection in a scanned store.
fn selection_in(
    store: &Store,
    root: &Path,
    rev: Option<&str>,
    suite: &Suite,
) -> Result<Selection, ImpactError> {
    let (since, asked) = measured_from(rev, store.last_green()?);
    let changes = store.changes(&since)?;
    let g = graph_of(store, root)?;
    let names = Names::of(store, root, &since, &g, &changes);
    Ok(selection_of(&g, &changes, asked, Some(&names), Some(suite)))
}

/// The selection a run's changes make (see [`selection_in`]), from the run's change context.
fn selection_by(
    store: &Store,
    ctx: &ChangeContext,
    rev: Option<&str>,
    suite: &Suite,
) -> Result<Selection, String> {
    let (since, asked) = measured_from(rev, ctx.last_green(store)?);
    let changes = ctx.changes(store, &since);
    let changes = changes.as_ref().as_ref()?;
    let g = ctx.graph(store)?;
    let names = Names::of(store, ctx.root(), &since, g, changes);
    Ok(selection_of(g, changes, asked, Some(&names), Some(suite)))
}

/// Files naming a touched name past which a change selects by file: each costs a walk of
/// the graph.
const NAMING_FILES: usize = 200;

/// What each changed source file's hunks touch by name (`pith_index::touched_names`), so a
/// change to one function of a module selects the tests that can reach that function, not
/// every test that imports the module. A file is left out — every test reaching it selected
/// — where its language has no grammar, its content then is unknown, or the change touches
/// code that runs on load.
pub(super) struct Names<'r> {
    root: &'r Path,
    touched: HashMap<String, pith_index::Touched>,
}

impl<'r> Names<'r> {
    pub(super) fn of(
        store: &Store,
        root: &'r Path,
        since: &Since,
        g: &Graph,
        changes: &Changes,
    ) -> Self {
        let narrowable: Vec<&FileChange> = changes
            .files
            .iter()
            .filter(|c| matches!(c.kind, ChangeKind::Modified) && !c.hunks.is_empty())
            .filter(|c| g.places(&c.path) && !g.is_test(&c.path))
            .collect();
        let mut touched = HashMap::new();
        if narrowable.is_empty() {
            return Names { root, touched };
        }
        let paths: Vec<&str> = narrowable.iter().map(|c| c.path.as_str()).collect();
        let then = store.contents_at(since, &paths).unwrap_or_default();
        for c in narrowable {
            let (Some(old), Ok(new)) = (then.get(&c.path), std::fs::read(root.join(&c.path)))
            else {
                continue;
            };
            let (Ok(old), Ok(new)) = (std::str::from_utf8(old), std::str::from_utf8(&new)) else {
                continue;
            };
            let hunks: Vec<(u32, u32)> = c.hunks.iter().map(|h| (h.start, h.end)).collect();
            if let Some(t) = pith_index::touched_names(&c.path, old, new, &hunks) {
                if !t.whole {
                    touched.insert(c.path.clone(), t);
                }
            }
        }
        Names { root, touched }
    }

    /// The tests a change to `file` selects, with their distance, when its touched names
    /// narrow them: those that reach a file depending on `file` that names a touched name (a
    /// test itself, or code between it and `file`: whatever calls a function names it, or
    /// names what in `file` reaches it). `None`: every test that reaches the file — also
    /// when so many files name one that narrowing would cost more than it saves.
    fn tests(&self, g: &Graph, file: &str) -> Option<Vec<(String, u32)>> {
        tests_naming(self.root, g, file, &self.touched.get(file)?.names)
    }
}

/// The tests that reach a file depending on `file` that names one of `names` (see
/// [`Names::tests`]), with their distance; `None` past [`NAMING_FILES`] naming files.
pub(super) fn tests_naming(
    root: &Path,
    g: &Graph,
    file: &str,
    names: &std::collections::BTreeSet<String>,
) -> Option<Vec<(String, u32)>> {
    let mut out = Vec::new();
    if names.is_empty() {
        return Some(out);
    }
    let mut naming = 0;
    for (dependent, d) in g.dependents(file) {
        let uses = std::fs::read(root.join(&dependent)).map_or(pith_index::Use::Uses, |bytes| {
            pith_index::use_of(&dependent, &String::from_utf8_lossy(&bytes), names)
        });
        if uses != pith_index::Use::Uses {
            continue;
        }
        naming += 1;
        if naming > NAMING_FILES {
            return None;
        }
        if only_go_tests(root, &dependent) {
            // Its package's other files reach it by being in the package, not by using it:
            // nothing can call a test function.
            out.push((dependent, d));
            continue;
        }
        out.extend(g.tests_of(&dependent).into_iter().map(|(t, e)| (t, d + e)));
    }
    Some(out)
}

/// Whether `file` is a Go test file that declares nothing but test functions (`Test…`,
/// `Example…`, `Fuzz…`, `Benchmark…`, `TestMain`) and imports: nothing in its package can
/// use it. One that declares a helper, a method, a type, a variable or a constant may be used
/// by its package's other test files (an `export_test.go`), and its reach stands. Read as
/// gofmt lays Go out: a declaration starts at the line's first column.
fn only_go_tests(root: &Path, file: &str) -> bool {
    if !file.ends_with("_test.go") {
        return false;
    }
    let Ok(text) = std::fs::read_to_string(root.join(file)) else {
        return false;
    };
    !text.lines().any(|line| {
        ["var", "const", "type"].iter().any(|k| {
            line.strip_prefix(k)
                .is_some_and(|r| r.starts_with([' ', '(']))
        }) || line.strip_prefix("func ").is_some_and(|rest| {
            !["Test", "Example", "Fuzz", "Benchmark"]
                .iter()
                .any(|p| rest.starts_with(p))
        })
    })
}

/// What a selection measures the changes against: git revision `rev` when given, else the
/// last green run, else git `HEAD`; and what the answer calls it.
fn measured_from(rev: Option<&str>, last_green: Option<u64>) -> (Since, Baseline) {
    match (rev, last_green) {
        (Some(r), _) => (Since::Git(r.to_owned()), Baseline::Git),
        (None, Some(g)) => (Since::Generation(g), Baseline::LastGreen),
        (None, None) => (Since::Git("HEAD".into()), Baseline::Git),
    }
}
/// What `pith test --changed` runs: the selection, and per project the ids of its selected
/// test files (empty: the whole project, for a runner that cannot select by file); `routed`
/// is `None` when everything runs.
pub(crate) struct Planned {
    pub selection: Selection,
    pub routed: Option<Vec<(usize, Vec<String>)>>,
    /// Nothing changed since the last green run and no test is failing: that run's answer
    /// stands, and nothing runs.
    pub stands: Option<RunSummary>,
}

impl Planned {
    /// The history's key for what ran: never the plain "everything" of a run without ids.
    pub fn key(&self) -> String {
        let mut key = String::from("changed");
        for (i, ids) in self.routed.iter().flatten() {
            key.push('\u{1f}');
            key.push_str(&i.to_string());
            for id in ids {
                key.push('\u{1e}');
                key.push_str(id);
            }
        }
        key
    }
}

/// Plans `pith test --changed`. Without the workspace state there is nothing to measure the
/// changes from: everything runs, and the answer says why.
pub(crate) fn plan(
    store: Option<&Store>,
    ctx: &ChangeContext,
    since: &ChangedSince,
    found: &[Found],
) -> Result<Planned, EngineError> {
    let rev = match since {
        ChangedSince::LastGreen => None,
        ChangedSince::Rev(r) => Some(r.as_str()),
    };
    if let Some(r) = rev.filter(|r| !is_revision(r)) {
        return Err(EngineError::BadRevision(r.to_owned()));
    }
    let Some(store) = store else {
        return Ok(Planned {
            selection: Selection {
                all: Some("no workspace state to measure changes from".into()),
                ..Selection::default()
            },
            routed: None,
            stands: None,
        });
    };
    let selection = match selection_by(store, ctx, rev, &Suite::new(ctx.root(), found)) {
        Ok(s) => s,
        Err(e) => Selection {
            all: Some(format!("changes unknown: {e}")),
            ..Selection::default()
        },
    };
    if selection.all.is_some() {
        return Ok(Planned {
            selection,
            routed: None,
            stands: None,
        });
    }
    let mut routed = route_files(&selection.tests, found);
    // What failed last time runs again, whatever the changes reach: a fix is verified by the
    // run that follows it (a revert leaves nothing changed since the last green run). So
    // does what is still failing from before (a run of a few tests since left it out), where
    // its test file is still there to run it from.
    let mut failing: Vec<String> = store
        .failures(&[])
        .map(|d| d.failures.into_iter().map(|f| f.test).collect())
        .unwrap_or_default();
    for id in store.failing_tests(FAILING_AGAIN).unwrap_or_default() {
        if !failing.contains(&id) && still_there(ctx.root(), found, &id) {
            failing.push(id);
        }
    }
    let again = if failing.is_empty() {
        Vec::new()
    } else {
        route(found, &failing)
    };
    for (project, ids) in again {
        let Some(i) = found.iter().position(|f| std::ptr::eq(f, project)) else {
            continue;
        };
        match routed.iter_mut().find(|(j, _)| *j == i) {
            // An empty list runs the whole project already.
            Some((_, list)) if list.is_empty() => {}
            Some((_, list)) => list.extend(
                ids.into_iter()
                    .filter(|id| !list.contains(id))
                    .collect::<Vec<_>>(),
            ),
            None => routed.push((i, ids)),
        }
    }
    routed.sort_by_key(|(i, _)| *i);
    let mut selection = selection;
    selection.failing = failing.len();
    let stands = if routed.is_empty() {
        standing(store, &selection)
    } else {
        None
    };
    Ok(Planned {
        selection,
        routed: Some(routed),
        stands,
    })
}

/// Tests on the failing list run again by `--changed` at most.
const FAILING_AGAIN: usize = 200;

/// Whether a test on the failing list can still be run: its id names a test file that is
/// still in the project that would run it (an id naming no file cannot be told from one
/// renamed or deleted since, and is left to a full run).
fn still_there(root: &Path, found: &[Found], id: &str) -> bool {
    route(found, std::slice::from_ref(&id.to_owned()))
        .into_iter()
        .any(|(project, ids)| {
            !ids.is_empty()
                && pith_runner::test_file(project.adapter.name(), id).is_some_and(|file| {
                    let dir = project
                        .rel
                        .as_deref()
                        .map_or(root.to_path_buf(), |r| root.join(r));
                    dir.join(file).is_file() || root.join(file).is_file()
                })
        })
}

/// The last green run, when a selection that runs nothing stands on it: measured from that
/// run, nothing changed since that any test reaches (no file, or only files no test reaches:
/// a function nothing calls yet; and nothing the tests read outside them: a toolchain, a
/// virtualenv, installed packages), and no test on the failing list (a run of a few tests
/// since may have left out one that still fails).
fn standing(store: &Store, selection: &Selection) -> Option<RunSummary> {
    let quiet = selection.tests.is_empty()
        && selection.all.is_none()
        && selection.baseline == Some(Baseline::LastGreen);
    if !quiet || store.failing_count().ok()? > 0 {
        return None;
    }
    let green = store.last_green_run().ok().flatten()?;
    if store.input_changed_since(green.generation).ok()?.is_some() {
        return None;
    }
    Some(green)
}

/// The selection for `changes` on graph `g`: the tests that reach a changed file, plus every
/// test the graph cannot vouch for (dynamic imports); or everything, with the reason, when a
/// change is one the graph cannot follow. With `suite`, only files a runner runs as tests
/// are named and counted.
pub(super) fn selection_of(
    g: &Graph,
    changes: &Changes,
    asked: Baseline,
    names: Option<&Names>,
    suite: Option<&Suite>,
) -> Selection {
    let all: Vec<String> = g
        .files()
        .filter(|f| g.is_test(f))
        .map(str::to_owned)
        .collect();
    let runnable: Option<HashSet<String>> =
        suite.map(|s| s.keep(all.clone()).into_iter().collect());
    let mut sel = Selection {
        changed: changes.files.iter().map(|c| c.path.clone()).collect(),
        suite: runnable.as_ref().map_or(all.len(), HashSet::len),
        ..Selection::default()
    };
    let baseline = match &changes.baseline {
        pith_store::Baseline::None => {
            sel.all = Some("nothing to compare with: no green run and no git".into());
            return sel;
        }
        pith_store::Baseline::Run { .. } => asked,
        pith_store::Baseline::Git { .. } => Baseline::Git,
    };
    sel.baseline = Some(baseline);
    let mut picked: BTreeMap<String, u32> = BTreeMap::new();
    for c in &changes.files {
        if let Some(why) = selects_all(g, &c.path, &c.kind) {
            sel.all = Some(why);
            return sel;
        }
        let tests = names
            .and_then(|n| n.tests(g, &c.path))
            .unwrap_or_else(|| g.tests_of(&c.path));
        for (t, d) in tests {
            let slot = picked.entry(t).or_insert(d);
            *slot = (*slot).min(d);
        }
    }
    if !changes.files.is_empty() {
        // The known hole: a test that imports by a name computed at run time (or reaches code
        // that does) may reach anything; it runs whenever anything changed, unless a run saw
        // what it loads (those loads are edges now). A new file is one no such observation
        // can vouch for.
        let added = changes
            .files
            .iter()
            .any(|c| matches!(c.kind, ChangeKind::Added));
        for t in g.dynamic_tests(added) {
            picked.entry(t).or_insert(u32::MAX);
        }
    }
    let mut tests: Vec<(String, u32)> = picked
        .into_iter()
        .filter(|(t, _)| runnable.as_ref().is_none_or(|r| r.contains(t)))
        .collect();
    tests.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)));
    sel.tests = tests.into_iter().map(|(t, _)| t).collect();
    sel
}

/// Why a change to `path` must select every test, if it must.
fn selects_all(g: &Graph, path: &str, kind: &ChangeKind) -> Option<String> {
    let name = path.rsplit('/').next().unwrap_or(path);
    match kind {
        ChangeKind::Deleted => return Some(format!("{path} deleted")),
        ChangeKind::Renamed { from } => return Some(format!("{from} renamed")),
        _ => {}
    }
    if pith_model::ecosystem::selects_all(name) {
        return Some(format!("{path} changed (build or test configuration)"));
    }
    if !g.places(path) {
        return Some(format!("{path} changed (not source pith can follow)"));
    }
    None
}
