//! Whether a directory is a JavaScript project whose declared test command runs jest, vitest or
//! node's test runner (see `plan`).

use std::path::Path;

use crate::Adapter;

use super::Project;

/// The adapters this ecosystem contributes for the project in `dir`: at most one, its declared
/// command.
pub fn detect(dir: &Path) -> Vec<Box<dyn Adapter>> {
    match Project::read(dir) {
        Some(p) => vec![Box::new(p)],
        None => Vec::new(),
    }
}
