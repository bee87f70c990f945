//! JVM: Maven Surefire and Gradle JUnit XML reports.
//! PLACEHOLDER — being written.

use std::path::Path;

use crate::Adapter;

/// The adapters this ecosystem contributes for the project in `dir`.
pub fn detect(_dir: &Path) -> Vec<Box<dyn Adapter>> {
    Vec::new()
}
