//! `pith symbol` and `pith usages`: find the workspace, bring its code index up to date (only
//! changed files are re-parsed) and look the name up. [`crate::answer`] shapes the results;
//! this module decides what was found.

use std::path::{Path, PathBuf};

use pith_index::{Definition, FileUses, IndexError, Kind};

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
