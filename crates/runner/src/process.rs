//! Runs one runner process in its own process group with a deadline, capturing its output.
//! Owns every kill pith does: at the deadline, on Ctrl-C, or when the caller cancels, the whole
//! group goes, so no test process outlives pith.

use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use std::os::unix::process::{CommandExt, ExitStatusExt};

/// How long a runner gets to wind down (write its report, name what was running) after SIGTERM
/// before the group is killed outright.
const GRACE: Duration = Duration::from_secs(3);
/// How long to wait for output pipes after the process ended; a grandchild that escaped the
/// group may hold them open forever.
const PIPE_DRAIN: Duration = Duration::from_secs(2);

/// How the process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Exited(i32),
    /// Killed by this signal, not by pith.
    Signaled(i32),
    /// pith killed it at the deadline.
    TimedOut,
    /// pith killed it because its caller was interrupted or cancelled.
    Cancelled,
}

#[derive(Debug)]
pub struct Captured {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub end: End,
    pub elapsed: Duration,
}

impl Captured {
    pub fn stdout_str(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
    pub fn stderr_str(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
    pub fn success(&self) -> bool {
        self.end == End::Exited(0)
    }
}

/// Set when pith itself receives SIGINT/SIGTERM/SIGHUP; every running group is then killed.
fn interrupted() -> &'static Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// Routes pith's own termination signals to the runner groups it started. Call once at start-up
/// of a process that runs tests; without it, Ctrl-C would leave the runner (in its own group)
/// running.
pub fn install_signal_handlers() {
    for sig in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        let _ = signal_hook::flag::register(sig, Arc::clone(interrupted()));
    }
}

/// Whether pith was asked to stop.
pub fn was_interrupted() -> bool {
    interrupted().load(Ordering::Relaxed)
}

/// Runs `cmd` to completion or until `deadline`, in a new process group, stdin closed.
/// `cancel`, when set by another thread, kills the group as well.
pub fn run(
    mut cmd: Command,
    deadline: Instant,
    cancel: Option<&AtomicBool>,
) -> std::io::Result<Captured> {
    let start = Instant::now();
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = cmd.spawn()?;
    let pgid = child.id() as libc::pid_t;

    let stdout = Arc::new(Mutex::new(Vec::new()));
    let stderr = Arc::new(Mutex::new(Vec::new()));
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let mut readers = 0;
    if let Some(out) = child.stdout.take() {
        readers += 1;
        spawn_reader(out, Arc::clone(&stdout), done_tx.clone());
    }
    if let Some(err) = child.stderr.take() {
        readers += 1;
        spawn_reader(err, Arc::clone(&stderr), done_tx.clone());
    }
    drop(done_tx);

    let (exit_tx, exit_rx) = mpsc::channel::<std::io::Result<ExitStatus>>();
    thread::spawn(move || {
        let _ = exit_tx.send(child.wait());
    });

    let mut killed: Option<End> = None;
    let status = loop {
        let now = Instant::now();
        let stop = if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) || was_interrupted() {
            Some(End::Cancelled)
        } else if now >= deadline {
            Some(End::TimedOut)
        } else {
            None
        };
        if let (Some(why), None) = (stop, killed) {
            killed = Some(why);
            signal_group(pgid, libc::SIGTERM);
            match exit_rx.recv_timeout(GRACE) {
                Ok(status) => break status,
                Err(_) => {
                    signal_group(pgid, libc::SIGKILL);
                    break exit_rx
                        .recv()
                        .unwrap_or_else(|_| Err(std::io::Error::other("waiter lost")));
                }
            }
        }
        let wait = deadline
            .saturating_duration_since(now)
            .min(Duration::from_millis(100));
        match exit_rx.recv_timeout(wait.max(Duration::from_millis(1))) {
            Ok(status) => break status,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => break Err(std::io::Error::other("waiter lost")),
        }
    };
    // Whatever the leader left behind in its group (workers, test processes) goes too.
    signal_group(pgid, libc::SIGKILL);

    let drain_until = Instant::now() + PIPE_DRAIN;
    for _ in 0..readers {
        if done_rx
            .recv_timeout(drain_until.saturating_duration_since(Instant::now()))
            .is_err()
        {
            break;
        }
    }
    let status = status?;
    let end = killed.unwrap_or_else(|| match (status.code(), status.signal()) {
        (Some(code), _) => End::Exited(code),
        (None, Some(sig)) => End::Signaled(sig),
        (None, None) => End::Exited(-1),
    });
    let take =
        |b: &Arc<Mutex<Vec<u8>>>| std::mem::take(&mut *b.lock().unwrap_or_else(|e| e.into_inner()));
    Ok(Captured {
        stdout: take(&stdout),
        stderr: take(&stderr),
        end,
        elapsed: start.elapsed(),
    })
}

fn spawn_reader(
    mut src: impl Read + Send + 'static,
    sink: Arc<Mutex<Vec<u8>>>,
    done: mpsc::Sender<()>,
) {
    thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            match src.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => sink
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        let _ = done.send(());
    });
}

fn signal_group(pgid: libc::pid_t, sig: libc::c_int) {
    // SAFETY: killpg only sends a signal; a stale group id yields ESRCH, which is fine.
    unsafe {
        libc::killpg(pgid, sig);
    }
}

/// A human name for a signal number, for messages (`SIGSEGV`).
pub fn signal_name(sig: i32) -> String {
    match sig {
        libc::SIGSEGV => "SIGSEGV".into(),
        libc::SIGABRT => "SIGABRT".into(),
        libc::SIGKILL => "SIGKILL".into(),
        libc::SIGTERM => "SIGTERM".into(),
        libc::SIGBUS => "SIGBUS".into(),
        libc::SIGILL => "SIGILL".into(),
        libc::SIGFPE => "SIGFPE".into(),
        libc::SIGINT => "SIGINT".into(),
        other => format!("signal {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.arg("-c").arg(script);
        c
    }

    #[test]
    fn captures_both_streams_and_code() {
        let out = run(
            sh("echo out; echo err >&2; exit 3"),
            Instant::now() + Duration::from_secs(10),
            None,
        )
        .unwrap();
        assert_eq!(out.stdout_str(), "out\n");
        assert_eq!(out.stderr_str(), "err\n");
        assert_eq!(out.end, End::Exited(3));
    }

    #[test]
    fn reports_death_by_signal() {
        let out = run(
            sh("kill -SEGV $$"),
            Instant::now() + Duration::from_secs(10),
            None,
        )
        .unwrap();
        assert_eq!(out.end, End::Signaled(libc::SIGSEGV));
    }

    #[test]
    fn deadline_kills_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("grandchild-survived");
        // The grandchild ignores nothing special; if the group were not killed it would write
        // the marker after the parent is gone.
        let script = format!("(sleep 3; touch {}) & sleep 30", marker.display());
        let out = run(
            sh(&script),
            Instant::now() + Duration::from_millis(300),
            None,
        )
        .unwrap();
        assert_eq!(out.end, End::TimedOut);
        assert!(out.elapsed < Duration::from_secs(10));
        thread::sleep(Duration::from_secs(4));
        assert!(
            !marker.exists(),
            "a process of the group outlived the deadline"
        );
    }

    #[test]
    fn cancel_flag_stops_the_run() {
        let flag = AtomicBool::new(true);
        let out = run(
            sh("sleep 30"),
            Instant::now() + Duration::from_secs(60),
            Some(&flag),
        )
        .unwrap();
        assert_eq!(out.end, End::Cancelled);
    }
}
