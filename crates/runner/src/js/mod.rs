//! JavaScript: jest, vitest and node's built-in test runner.
//! PLACEHOLDER — being written.

use std::path::Path;

use crate::Adapter;

/// The adapters this ecosystem contributes for the project in `dir`.
pub fn detect(_dir: &Path) -> Vec<Box<dyn Adapter>> {
    Vec::new()
}

/// Reads an existing report (for `pith test --report`).
pub fn parse_jest(_text: &str, _paths: &crate::PathMap) -> Result<pith_model::Run, crate::ParseError> {
    Err(crate::ParseError::Unsupported)
}

/// Reads an existing report (for `pith test --report`).
pub fn parse_vitest(_text: &str, _paths: &crate::PathMap) -> Result<pith_model::Run, crate::ParseError> {
    Err(crate::ParseError::Unsupported)
}
