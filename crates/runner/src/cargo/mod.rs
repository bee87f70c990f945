//! Rust: cargo-nextest (JUnit) when installed, else `cargo test` (libtest's stable output).
//! PLACEHOLDER — being written.

use std::path::Path;

pub struct Cargo;

pub fn detect(_root: &Path) -> Option<Cargo> {
    None
}

impl crate::Adapter for Cargo {
    fn name(&self) -> &'static str {
        "cargo"
    }
    fn claims(&self, _id: &str) -> bool {
        false
    }
    fn run(
        &self,
        _ctx: &crate::Context<'_>,
        _tests: &[String],
    ) -> Result<pith_model::Run, crate::RunnerError> {
        unimplemented!()
    }
}
