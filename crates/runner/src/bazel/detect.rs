//! A Bazel workspace: `MODULE.bazel`, `WORKSPACE.bazel` or `WORKSPACE` at its root (the
//! descriptor's root markers).

use std::path::Path;

use pith_model::ecosystem;

use crate::Adapter;

use super::Bazel;

pub fn detect(dir: &Path) -> Vec<Box<dyn Adapter>> {
    if ecosystem::BAZEL
        .root_markers
        .iter()
        .any(|m| dir.join(m).is_file())
    {
        vec![Box::new(Bazel::new(dir))]
    } else {
        Vec::new()
    }
}
