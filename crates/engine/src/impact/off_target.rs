//! Changed source files no test reaches (`pith status`'s `offTarget`): edits the suite
//! cannot vouch for, named before a green run is mistaken for proof.

use std::path::Path;

use pith_store::{ChangeKind, Since, Store};

use super::change::graph_of;

/// Changed source files (since the last green run, else against git `HEAD`) that no test
/// reaches: the graph places them, they are not tests, and no test depends on them. Best
/// effort: a status never fails for it.
pub(crate) fn off_target(store: &Store, root: &Path) -> Vec<String> {
    let since = match store.last_green() {
        Ok(Some(g)) => Since::Generation(g),
        Ok(None) => Since::Git("HEAD".into()),
        Err(_) => return Vec::new(),
    };
    let Ok(changes) = store.changes(&since) else {
        return Vec::new();
    };
    let edited: Vec<&str> = changes
        .files
        .iter()
        .filter(|c| !matches!(c.kind, ChangeKind::Deleted))
        .map(|c| c.path.as_str())
        .filter(|p| !pith_model::ecosystem::is_test_path(p))
        .collect();
    if edited.is_empty() {
        return Vec::new();
    }
    let Ok(g) = graph_of(store, root) else {
        return Vec::new();
    };
    edited
        .into_iter()
        .filter(|p| {
            g.places(p) && !pith_model::ecosystem::selects_all(p.rsplit('/').next().unwrap_or(p))
        })
        .filter(|p| g.tests_of(p).is_empty())
        .map(str::to_owned)
        .collect()
}
