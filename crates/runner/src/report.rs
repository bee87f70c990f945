//! `pith test --report PATH...`: existing report files (CI artifacts, runners pith does not
//! drive) read into the same answer without running anything. The format is told from the
//! content, never from the file name.

use std::path::{Path, PathBuf};

use pith_model::Run;

use crate::{ParseError, PathMap};

/// The report formats pith reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Junit,
    Trx,
    GoJson,
    Jest,
    Vitest,
    Gtest,
}

/// Which format `text` is, from its first bytes and shape. PLACEHOLDER — being written.
pub fn sniff(_text: &str) -> Option<Format> {
    None
}

/// Parses one report of a known format.
pub fn parse(format: Format, text: &str, paths: &PathMap) -> Result<Run, ParseError> {
    match format {
        Format::Junit => crate::junit::parse_report(text, paths),
        Format::Trx => crate::dotnet::parse_trx(text, paths),
        Format::GoJson => crate::go::parse_json(text, paths),
        Format::Jest => crate::js::parse_jest(text, paths),
        Format::Vitest => crate::js::parse_vitest(text, paths),
        Format::Gtest => crate::gtest::parse_json(text, paths),
    }
}

/// Why a report file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: not a report pith knows (JUnit XML, TRX, go test -json, jest/vitest JSON, GoogleTest JSON)")]
    Unknown { path: PathBuf },
    #[error("{path}: {source}")]
    Parse { path: PathBuf, source: ParseError },
}

/// Reads one report file.
pub fn read(path: &Path, paths: &PathMap) -> Result<Run, ReportError> {
    let bytes = std::fs::read(path).map_err(|source| ReportError::Io { path: path.to_path_buf(), source })?;
    let text = String::from_utf8_lossy(&bytes);
    let format = sniff(&text).ok_or_else(|| ReportError::Unknown { path: path.to_path_buf() })?;
    parse(format, &text, paths).map_err(|source| ReportError::Parse { path: path.to_path_buf(), source })
}
