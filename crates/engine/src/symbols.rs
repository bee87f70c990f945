//! `pith symbol` and `pith usages`: find the workspace, bring its code index up to date (only
//! changed files are re-parsed) and look the name up. [`crate::answer`] shapes the results;
//! this module decides what was found.
//!
//! A long-running face keeps the index in memory between lookups ([`Lookups`]) and brings it
//! up to date from its file watcher's changes: with nothing changed a lookup reads no file.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use pith_index::{Definition, FileUses, Index, IndexError, Kind};

use crate::watch::Watcher;

/// Expected failures of a symbol query, each one clear line.
#[derive(Debug, thiserror::Error)]
pub enum SymbolError {
    #[error(transparent)]
    Root(#[from] crate::RootError),
    #[error("no symbol name given")]
    EmptyName,
    #[error("unknown kind {kind} (known: {known})")]
    UnknownKind { kind: String, known: String },
    #[error(transparent)]
    Index(#[from] IndexError),
}

/// Definitions of `name` (plain or qualified: `Config::load`, `pkg.mod.func`), best first,
/// optionally only of one kind (`function`, `class`, … or a keyword such as `fn`, `def`).
pub fn find_symbol(
    root: Option<&Path>,
    cwd: &Path,
    name: &str,
    kind: Option<&str>,
) -> Result<Vec<Definition>, SymbolError> {
    let kind = kind.map(parse_kind).transpose()?;
    let index = open(root, cwd, name)?;
    Ok(index.definitions(name.trim(), kind))
}

/// Uses of `name` grouped by file; a qualified name keeps only uses written with that
/// qualifier.
pub fn find_usages(
    root: Option<&Path>,
    cwd: &Path,
    name: &str,
) -> Result<Vec<FileUses>, SymbolError> {
    let index = open(root, cwd, name)?;
    Ok(index.usages(name.trim()))
}

/// The code index a long-running face keeps between lookups, for one workspace at a time.
#[derive(Default)]
pub struct Lookups {
    kept: Mutex<Option<(PathBuf, Index)>>,
}

impl Lookups {
    pub fn new() -> Lookups {
        Lookups::default()
    }

    /// Runs `f` on the index of `root`: the one kept, refreshed from what `watcher` (on
    /// `root`) saw change since the last lookup; opened anew (and kept) without a watcher, for
    /// another workspace, or when the watcher cannot vouch for every change.
    pub(crate) fn with<T>(
        &self,
        root: &Path,
        watcher: Option<&Watcher>,
        f: impl FnOnce(&Index) -> T,
    ) -> Result<T, SymbolError> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let changes = watcher
            .filter(|w| w.root() == root)
            .map(Watcher::take_synced_index);
        let index = match (kept.take(), changes) {
            (Some((at, index)), Some(dirty)) if at == root && !dirty.full => {
                // Kept in memory only: writing the whole index for each edit would cost more
                // than the edit's own parse; the CLI re-parses what changed since the file.
                let options = pith_index::Options {
                    persist: false,
                    ..pith_index::Options::default()
                };
                index.refreshed(root, &dirty.paths, &options)?
            }
            _ => Index::open(root)?,
        };
        let answer = f(&index);
        *kept = Some((root.to_path_buf(), index));
        Ok(answer)
    }
}

/// [`find_symbol`] on the index `lookups` keeps for `root`.
pub fn find_symbol_kept(
    root: &Path,
    name: &str,
    kind: Option<&str>,
    lookups: &Lookups,
    watcher: Option<&Watcher>,
) -> Result<Vec<Definition>, SymbolError> {
    let kind = kind.map(parse_kind).transpose()?;
    if name.trim().is_empty() {
        return Err(SymbolError::EmptyName);
    }
    lookups.with(root, watcher, |index| index.definitions(name.trim(), kind))
}

/// [`find_usages`] on the index `lookups` keeps for `root`.
pub fn find_usages_kept(
    root: &Path,
    name: &str,
    lookups: &Lookups,
    watcher: Option<&Watcher>,
) -> Result<Vec<FileUses>, SymbolError> {
    if name.trim().is_empty() {
        return Err(SymbolError::EmptyName);
    }
    lookups.with(root, watcher, |index| index.usages(name.trim()))
}

fn parse_kind(kind: &str) -> Result<Kind, SymbolError> {
    Kind::parse(kind).ok_or_else(|| SymbolError::UnknownKind {
        kind: kind.to_owned(),
        known: Kind::ALL
            .iter()
            .map(|k| k.name())
            .collect::<Vec<_>>()
            .join(", "),
    })
}

fn open(root: Option<&Path>, cwd: &Path, name: &str) -> Result<pith_index::Index, SymbolError> {
    if name.trim().is_empty() {
        return Err(SymbolError::EmptyName);
    }
    let root = workspace(root, cwd)?;
    Ok(pith_index::Index::open(&root)?)
}

/// The workspace, as every query finds it.
fn workspace(root: Option<&Path>, cwd: &Path) -> Result<PathBuf, SymbolError> {
    Ok(crate::root_of(root, cwd)?)
}
