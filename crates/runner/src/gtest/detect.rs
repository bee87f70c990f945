//! Whether a directory is a CMake project with tests.

use std::path::Path;

use crate::Adapter;

use super::Ctest;

/// The adapters this ecosystem contributes for the project in `dir`: CTest when its
/// `CMakeLists.txt` (or its `test(s)/` one) enables testing or uses GoogleTest.
pub fn detect(dir: &Path) -> Vec<Box<dyn Adapter>> {
    if is_cmake_test_project(dir) {
        vec![Box::new(Ctest::new(dir))]
    } else {
        Vec::new()
    }
}

pub(super) fn is_cmake_test_project(dir: &Path) -> bool {
    let markers = pith_model::ecosystem::CPP.root_markers;
    if !markers.iter().any(|m| dir.join(m).is_file()) {
        return false;
    }
    [
        "CMakeLists.txt",
        "tests/CMakeLists.txt",
        "test/CMakeLists.txt",
    ]
    .iter()
    .filter_map(|f| std::fs::read_to_string(dir.join(f)).ok())
    .any(|t| {
        let t = t.to_ascii_lowercase();
        ["enable_testing", "include(ctest)", "add_test", "gtest"]
            .iter()
            .any(|k| t.contains(k))
    })
}
