//! The graph's files as a list, for the queries that look at all of them (the suite a
//! selection is measured against, the tests with dynamic imports that every change selects).

use super::Graph;

impl Graph {
    /// Every file the walk found, sorted.
    pub fn files(&self) -> impl Iterator<Item = &str> + '_ {
        self.paths.iter().map(String::as_str)
    }

    /// Whether `file` is test code (by its path, or by its content for Rust).
    pub fn is_test(&self, file: &str) -> bool {
        self.id(file).is_some_and(|i| self.test[i as usize])
    }
}
