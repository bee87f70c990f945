//! The run lock: one `pith test` at a time per workspace, through `flock` on `run.lock` in the
//! workspace's state directory. The kernel releases it when the holder exits, `kill -9`
//! included, so a dead run never blocks the next one. The holder's pid is written in the file
//! for the Busy answer.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
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
            let _ = file.set_len(0);
            let _ = file.rewind();
            let _ = write!(file, "{}", std::process::id());
            let _ = file.flush();
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
