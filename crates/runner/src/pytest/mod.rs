//! Python: pytest with pith's embedded plugin.
//! PLACEHOLDER — being written.

use std::path::Path;

pub struct Pytest;

pub fn detect(_root: &Path) -> Option<Pytest> {
    None
}

impl crate::Adapter for Pytest {
    fn name(&self) -> &'static str {
        "pytest"
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
