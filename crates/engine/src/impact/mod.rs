//! What a change reaches, from the store's change memory and the index's import graph: the
//! suspects of a red run (changed lines its failing tests reach), the tests of a file, the
//! tests the current changes select, and a file's or symbol's blast radius. The graph is
//! static: a test reaches a file when the test's files depend on it, transitively. Where the
//! graph cannot see (a file it does not read, a build or test-config file, a deleted file, a
//! test with dynamic imports), selection errs towards running more, never fewer.
//!
//! A run's changes are derived once ([`ChangeContext`]): selection, the trace plan and the
//! suspects read them. The suspects are the graph's reach ([`reach`]), overruled by what
//! tracing saw ([`trace`]), ranked ([`suspects`]); a green run's changes that no test reaches
//! are named ([`untested`]).

mod blast;
mod change;
mod off_target;
mod reach;
mod selection;
mod suite;
mod suspects;
mod trace;
mod untested;

pub use blast::blast;
pub(crate) use change::ChangeContext;
pub(crate) use off_target::off_target;
pub(crate) use selection::plan;
pub use selection::{select, tests_for_file};
pub(crate) use suspects::find_suspects;
pub(crate) use trace::trace_plan;
pub(crate) use untested::untested;

use crate::symbols::SymbolError;

/// Expected failures of an impact query, each one clear line.
#[derive(Debug, thiserror::Error)]
pub enum ImpactError {
    #[error(transparent)]
    Symbol(#[from] SymbolError),
    #[error(transparent)]
    Index(#[from] pith_index::IndexError),
    #[error(transparent)]
    State(#[from] pith_store::StoreError),
    #[error("{0} is outside the workspace")]
    Outside(String),
    #[error("{0:?} is not a git revision")]
    BadRevision(String),
}

#[cfg(test)]
mod tests;
