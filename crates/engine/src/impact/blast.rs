//! What depends on a file or a symbol (`pith blast`): the files that import it, and theirs,
//! nearest first, and which of them are tests the runners run; and how a file named on the
//! command line is named in the workspace.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pith_index::Graph;
use pith_model::impact::Blast;

use super::ImpactError;
use crate::symbols::SymbolError;

/// `pith blast TARGET`: what depends on a file, or on a symbol (the files that use it, and
/// theirs).
pub fn blast(root: Option<&Path>, cwd: &Path, target: &str) -> Result<Blast, ImpactError> {
    let root = workspace(root, cwd)?;
    let g = Graph::build(&root)?;
    let as_file = relative(&root, cwd, target).ok().filter(|f| g.places(f));
    let mut blast = Blast {
        target: target.trim().to_owned(),
        ..Blast::default()
    };
    let mut reached: BTreeMap<String, u32> = BTreeMap::new();
    match as_file {
        Some(file) => {
            blast.target = file.clone();
            for (f, d) in g.dependents(&file) {
                reached.insert(f, d);
            }
        }
        None => {
            let index = pith_index::Index::open(&root)?;
            let defs = index.definitions(target.trim(), None);
            let uses = index.usages(target.trim());
            if defs.is_empty() && uses.is_empty() {
                blast.unknown = true;
                return Ok(blast);
            }
            blast.symbols = defs
                .iter()
                .map(|d| format!("{}:{}", d.file, d.line))
                .collect();
            for u in &uses {
                reached.entry(u.file.clone()).or_insert(1);
                for (f, d) in g.dependents(&u.file) {
                    let slot = reached.entry(f).or_insert(d + 1);
                    *slot = (*slot).min(d + 1);
                }
            }
        }
    }
    let mut files: Vec<(String, u32)> = reached.into_iter().collect();
    files.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)));
    let tests = files
        .iter()
        .filter(|(f, _)| g.is_test(f))
        .map(|(f, _)| f.clone())
        .collect();
    let found = crate::detect::projects(&root, None);
    blast.tests = super::suite::Suite::new(&root, &found).keep(tests);
    blast.files = files.into_iter().map(|(f, _)| f).collect();
    Ok(blast)
}

pub(super) fn workspace(root: Option<&Path>, cwd: &Path) -> Result<PathBuf, ImpactError> {
    crate::root_of(root, cwd).map_err(|e| ImpactError::Symbol(SymbolError::Root(e)))
}

/// `file` as the workspace names it: relative to the root, `/`-separated, from an absolute
/// path or one relative to `cwd` — or to the root, as answers name files, when that is where
/// it exists.
pub(super) fn relative(root: &Path, cwd: &Path, file: &str) -> Result<String, ImpactError> {
    let given = Path::new(file.trim());
    let full = if given.is_absolute() {
        given.to_path_buf()
    } else if !cwd.join(given).exists() && root.join(given).exists() {
        root.join(given)
    } else {
        cwd.join(given)
    };
    let mut parts: Vec<String> = Vec::new();
    for c in full.components() {
        match c {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    let root_parts: Vec<String> = root
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(p) => Some(p.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    if parts.len() <= root_parts.len() || parts[..root_parts.len()] != root_parts[..] {
        return Err(ImpactError::Outside(file.trim().to_owned()));
    }
    Ok(parts[root_parts.len()..].join("/"))
}
