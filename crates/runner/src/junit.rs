//! The generic JUnit XML reader shared by the JVM adapter, `--report` and other adapters.
//! PLACEHOLDER — being written.

/// Reads a JUnit XML report (for `pith test --report`).
pub fn parse_report(_text: &str, _paths: &crate::PathMap) -> Result<pith_model::Run, crate::ParseError> {
    Err(crate::ParseError::Unsupported)
}
