//! Whether a directory is a JavaScript project whose test script runs jest, vitest or node's
//! test runner.

use std::path::Path;

use crate::Adapter;

use super::{package, Js};

/// The adapters this ecosystem contributes for the project in `dir`: at most one, the runner its
/// `package.json` names.
pub fn detect(dir: &Path) -> Vec<Box<dyn Adapter>> {
    match package::read(dir) {
        Some((runner, script)) => vec![Box::new(Js {
            runner,
            dir: dir.to_path_buf(),
            script,
        })],
        None => Vec::new(),
    }
}
