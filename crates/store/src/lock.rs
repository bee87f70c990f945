//! The run lock: one `pith test` at a time per workspace, through `flock` on `run.lock` in the
//! workspace's state directory. The kernel releases it when the holder exits, `kill -9`
//! included, so a dead run never blocks the next one. The holder's pid is written in the file
//! for the Busy answer.

use std::fs::File;
use std::io::{Read, Seek};
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::StoreError;

pub(crate) const LOCK_FILE: &str = "run.lock";
/// How often a waiting run tries again.
const POLL: Duration = Duration::from_millis(25);

/// The held lock; dropping it releases it.
#[derive(Debug)]
pub struct RunLock {
    _file: File,
    /// Another run held it first: what that run did (and what changed meanwhile) is news.
    pub waited: bool,
}

/// The outcome of asking for the lock.
#[derive(Debug)]
pub enum TryLock {
    Held(RunLock),
    /// Another run held it for the whole wait; its pid when it wrote one.
    Busy {
        holder: Option<u32>,
    },
}

/// What the holder writes: its pid, padded to a width no pid exceeds (Linux's largest is
/// seven digits), so a shorter pid over a longer one leaves no digit behind.
fn holder_text(pid: u32) -> String {
    format!("{pid:<10}\n")
}

/// Opens the lock file without following a link: one found there (pith never makes one) is
/// removed and the file made afresh, so the pid is never written wherever it pointed.
fn open(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let attempt = || {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)
    };
    match attempt() {
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            std::fs::remove_file(path)?;
            attempt()
        }
        other => other,
    }
}

pub(crate) fn acquire(dir: &Path, wait: Duration) -> Result<TryLock, StoreError> {
    let path = dir.join(LOCK_FILE);
    let mut file =
        open(&path).map_err(|e| StoreError::io(format!("opening {}", path.display()), e))?;
    let start = Instant::now();
    let mut waited = false;
    loop {
        // SAFETY: flock on a descriptor this function owns; no memory is involved.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc == 0 {
            // Written over in place, never truncated: a pid fits the fixed width, and a file
            // cut to nothing and grown again frees and allocates a block on every run.
            let _ = file.write_all_at(holder_text(std::process::id()).as_bytes(), 0);
            return Ok(TryLock::Held(RunLock {
                _file: file,
                waited,
            }));
        }
        let err = std::io::Error::last_os_error();
        let contended = matches!(
            err.raw_os_error(),
            Some(libc::EWOULDBLOCK) | Some(libc::EINTR)
        );
        if !contended {
            return Err(StoreError::io(format!("locking {}", path.display()), err));
        }
        waited = true;
        if start.elapsed() >= wait {
            let mut text = String::new();
            let _ = file.rewind();
            let _ = file.read_to_string(&mut text);
            return Ok(TryLock::Busy {
                holder: text.trim().parse().ok(),
            });
        }
        std::thread::sleep(
            POLL.min(wait.saturating_sub(start.elapsed()))
                .max(Duration::from_millis(1)),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The holder's pid is what a waiting run reads, even where a longer pid was written
    /// before it (the file is written over, never cut).
    #[test]
    fn a_waiting_run_reads_the_holders_pid_over_a_longer_one() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(LOCK_FILE), "4194304\n").unwrap();
        let TryLock::Held(held) = acquire(dir.path(), Duration::ZERO).unwrap() else {
            panic!("a free lock")
        };
        let text = std::fs::read_to_string(dir.path().join(LOCK_FILE)).unwrap();
        assert_eq!(text.trim(), std::process::id().to_string());
        match acquire(dir.path(), Duration::ZERO).unwrap() {
            TryLock::Busy { holder } => assert_eq!(holder, Some(std::process::id())),
            TryLock::Held(_) => panic!("two holders"),
        }
        drop(held);
        assert!(matches!(
            acquire(dir.path(), Duration::ZERO).unwrap(),
            TryLock::Held(_)
        ));
    }
}
