//! Reading the work tree's files as change memory sees them: never through a link (a file is
//! compared as itself, not as what a link points at), never blocking on a FIFO, and bounded,
//! so a huge file costs a streamed count of its lines rather than its contents in memory.
//! Keeping, comparing and git all look at a file as it is now, the same way.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::DIFF_LIMIT;

/// A file's content, read without following a link, when at most `limit` bytes.
pub(super) fn read_limited(root: &Path, path: &str, limit: u64) -> Option<Vec<u8>> {
    let f = std::fs::File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(root.join(path))
        .ok()?;
    if !f.metadata().ok()?.is_file() {
        return None;
    }
    let mut data = Vec::new();
    f.take(limit + 1).read_to_end(&mut data).ok()?;
    (data.len() as u64 <= limit).then_some(data)
}

/// How many lines a file has now, counted as it streams by (any size); 0 when it cannot be
/// read as a regular file.
pub(crate) fn file_lines(root: &Path, path: &str) -> u32 {
    let Ok(mut f) = std::fs::File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(root.join(path))
    else {
        return 0;
    };
    if !f.metadata().is_ok_and(|m| m.is_file()) {
        return 0;
    }
    let mut buf = vec![0u8; 64 * 1024];
    let (mut lines, mut last) = (0u64, b'\n');
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
                last = buf[n - 1];
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    let lines = lines + u64::from(last != b'\n');
    u32::try_from(lines).unwrap_or(u32::MAX)
}

/// A file's current content, up to the diff limit.
pub(crate) fn read_current(root: &Path, path: &str) -> Option<Vec<u8>> {
    read_limited(root, path, DIFF_LIMIT)
}
