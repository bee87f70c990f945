//! Whether a directory holds .NET test projects.

use std::path::Path;

use crate::Adapter;

use super::{Dotnet, Platform};

/// The adapters this ecosystem contributes for the project in `dir`: one, when `dir` holds a
/// solution or project file and some project under it is a test project.
pub fn detect(dir: &Path) -> Vec<Box<dyn Adapter>> {
    match Dotnet::new(dir) {
        Some(d) if d.platform() != Platform::None => vec![Box::new(d)],
        _ => Vec::new(),
    }
}
