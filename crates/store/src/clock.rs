//! File times and the clock as the store records them: nanoseconds since the epoch in an
//! `i64`, the unit of every stamp the scan, the inputs and the resolver keep.

use std::os::unix::fs::MetadataExt;
use std::time::{SystemTime, UNIX_EPOCH};

/// A file's modification time.
pub(crate) fn mtime_ns(m: &std::fs::Metadata) -> i64 {
    m.mtime().saturating_mul(1_000_000_000) + m.mtime_nsec()
}

/// The later of a file's mtime and ctime.
pub(crate) fn stamp(m: &std::fs::Metadata) -> i64 {
    mtime_ns(m).max(m.ctime().saturating_mul(1_000_000_000) + m.ctime_nsec())
}

/// The real-time clock now.
pub(crate) fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64)
}
