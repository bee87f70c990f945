//! Runs one runner process in its own process group with a deadline, capturing its output in
//! bounded memory. Owns every kill pith does: at the deadline, on Ctrl-C, when the caller
//! cancels, and when pith itself dies (a watchdog process kills the group if pith is killed
//! with SIGKILL), so no test process outlives pith.
//!
//! One thread does everything: it polls both pipes, the deadline and the cancel flag, so a
//! runner that floods its output cannot delay the kill, and what is kept of each stream is
//! bounded ([`HEAD_BYTES`] from its start, [`TAIL_BYTES`] from its end) whatever it prints.
//! A caller that needs all of a structured stream (`go test -json`) takes it line by line; one
//! that must know which process wrote what takes stdout and stderr as one pipe, in the order
//! they were written ([`run_lines_merged`]: cargo announces a test binary on stderr before the
//! binary prints on stdout).

use std::os::fd::{AsRawFd, RawFd};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use std::os::unix::process::{CommandExt, ExitStatusExt};

mod capture;
mod watchdog;

use capture::{Pipe, Stream};
pub use watchdog::reap_watchdogs;
use watchdog::Watchdog;

use pith_model::gain::Printed;

/// How long a runner gets to wind down (write its report, name what was running) after SIGTERM
/// before the group is killed outright.
const GRACE: Duration = Duration::from_secs(3);
/// How long to wait for output pipes after the process ended; a grandchild that escaped the
/// group may hold them open forever.
const PIPE_DRAIN: Duration = Duration::from_secs(2);
/// Bytes of each stream kept from its start: usage errors and the first failure are there.
pub const HEAD_BYTES: usize = 1 << 20;
/// Bytes of each stream kept from its end: summaries, tails and crash dumps are there.
pub const TAIL_BYTES: usize = 4 << 20;
/// The longest line handed to a line sink; the rest of a longer line is dropped.
pub const LINE_BYTES: usize = 1 << 20;
/// Bytes read from one pipe before the deadline is looked at again.
const READ_SLICE: usize = 1 << 20;

/// Where [`run_lines`] hands each line of stdout.
type LineSink<'a> = &'a mut dyn FnMut(&[u8]);

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

impl End {
    /// The exit code, when the process exited by itself.
    pub fn code(self) -> Option<i32> {
        match self {
            End::Exited(c) => Some(c),
            _ => None,
        }
    }
}

#[derive(Debug)]
pub struct Captured {
    /// What was kept of stdout: all of it, or its head and tail around a one-line note of what
    /// was left out (see [`Captured::stdout_dropped`]). Empty when a line sink took stdout.
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Bytes of stdout left out of [`Captured::stdout`].
    pub stdout_dropped: u64,
    pub stderr_dropped: u64,
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

    /// What the runner printed for a person to read: stdout, then stderr (the bytes the
    /// capture dropped counted, not kept). Of a stdout taken line by line, only stderr.
    pub fn printed(&self) -> Printed {
        let mut p = Printed::default();
        add_printed(&mut p, &self.stdout, self.stdout_dropped);
        add_printed(&mut p, &self.stderr, self.stderr_dropped);
        p
    }

    /// [`Captured::printed`] without the lines `pith_own` says pith's own flags made the
    /// runner print (a report's "written to" line naming pith's scratch directory).
    pub fn printed_without(&self, pith_own: &dyn Fn(&str) -> bool) -> Printed {
        let mut p = Printed::default();
        add_printed_without(&mut p, &self.stdout, self.stdout_dropped, pith_own);
        add_printed_without(&mut p, &self.stderr, self.stderr_dropped, pith_own);
        p
    }
}

/// Adds one captured stream to `p`: a dropped middle is counted, and ends what is kept.
fn add_printed(p: &mut Printed, kept: &[u8], dropped: u64) {
    add_printed_without(p, kept, dropped, &|_| false);
}

fn add_printed_without(
    p: &mut Printed,
    kept: &[u8],
    dropped: u64,
    pith_own: &dyn Fn(&str) -> bool,
) {
    let text = String::from_utf8_lossy(kept);
    if text.lines().any(pith_own) {
        let kept: String = text
            .split_inclusive('\n')
            .filter(|l| !pith_own(l.trim_end_matches(['\n', '\r'])))
            .collect();
        p.push(&kept);
    } else {
        p.push(&text);
    }
    if dropped > 0 {
        p.dropped(dropped);
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
    cmd: Command,
    deadline: Instant,
    cancel: Option<&AtomicBool>,
) -> std::io::Result<Captured> {
    run_with(cmd, deadline, cancel, None, false)
}

/// [`run`], handing every line of stdout (without its newline, cut at [`LINE_BYTES`]) to
/// `lines` as it arrives instead of keeping it: for structured streams that must be read
/// whole (`go test -json`, cargo's JSON messages) in bounded memory.
pub fn run_lines(
    cmd: Command,
    deadline: Instant,
    cancel: Option<&AtomicBool>,
    lines: &mut dyn FnMut(&[u8]),
) -> std::io::Result<Captured> {
    run_with(cmd, deadline, cancel, Some(lines), false)
}

/// [`run_lines`] with the runner's stderr on the same pipe as its stdout, so every line comes
/// in the order the runner and its children wrote it: for a runner that says on stderr which
/// process the following stdout lines belong to (cargo announces each test binary there
/// before it starts it). [`Captured::stderr`] is then empty.
pub fn run_lines_merged(
    cmd: Command,
    deadline: Instant,
    cancel: Option<&AtomicBool>,
    lines: &mut dyn FnMut(&[u8]),
) -> std::io::Result<Captured> {
    run_with(cmd, deadline, cancel, Some(lines), true)
}

fn run_with(
    mut cmd: Command,
    deadline: Instant,
    cancel: Option<&AtomicBool>,
    mut lines: Option<LineSink<'_>>,
    merged: bool,
) -> std::io::Result<Captured> {
    let start = Instant::now();
    cmd.stdin(Stdio::null()).process_group(0);
    let shared = if merged {
        let (reader, writer) = std::io::pipe()?;
        cmd.stdout(writer.try_clone()?).stderr(writer);
        Some(reader)
    } else {
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        None
    };
    // The watchdog starts before the runner, so no moment of the run is unguarded.
    // Without one, the runner's leader at least dies with pith, at the price of a start
    // through fork (see `die_with_this_thread`) instead of a spawn that shares pith's memory.
    let mut watchdog = Watchdog::start();
    if watchdog.is_none() {
        die_with_this_thread(&mut cmd);
    }
    let spawned = cmd.spawn();
    // The command holds the pipe's write end: dropped, the read end ends when the runner and
    // everything that inherited it have closed theirs.
    drop(cmd);
    let mut child = spawned?;
    let mut group = Group::new(child.id() as libc::pid_t);
    if let Some(w) = watchdog.as_mut() {
        w.guard(group.pgid);
    }
    // Readable when the runner exits: the loop wakes at once instead of at its next tick (a
    // test run is often a few tens of milliseconds, and every one of them is the agent's).
    let pidfd = pidfd_open(group.pgid);

    let out_pipe = match shared {
        Some(reader) => Some(Pipe::new(reader)),
        None => child.stdout.take().map(Pipe::new),
    };
    let mut out = Stream::new(out_pipe, lines.is_some());
    let mut err = Stream::new(child.stderr.take().map(Pipe::new), false);
    loop {
        let now = Instant::now();
        if group.status.is_none() {
            let stop = if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) || was_interrupted() {
                Some(End::Cancelled)
            } else if now >= deadline {
                Some(End::TimedOut)
            } else {
                None
            };
            group.stop(stop, now);
            group.reap(&mut child)?;
        }
        let open = out.is_open() || err.is_open();
        if group.done(open) {
            break;
        }
        // Wake for output, or in time to look at the process, the deadline and the flags.
        let wait = group.wait(now, deadline);
        let exit_fd = match (&pidfd, group.status) {
            (Some(fd), None) => fd.as_raw_fd(),
            _ => -1,
        };
        if open || exit_fd >= 0 {
            poll(&[out.fd(), err.fd(), exit_fd], wait);
        } else {
            // No pidfd (a kernel before 5.3): look again soon.
            std::thread::sleep(
                wait.min(Duration::from_millis(2))
                    .max(Duration::from_millis(1)),
            );
        }
        out.read(&mut lines);
        err.read(&mut None);
    }
    if let Some(w) = watchdog.as_mut() {
        w.release();
    }
    let end = group.end()?;
    if let Some(sink) = lines.as_mut() {
        out.flush_line(sink);
    }
    let (stdout, stdout_dropped) = out.kept.finish();
    let (stderr, stderr_dropped) = err.kept.finish();
    Ok(Captured {
        stdout,
        stderr,
        stdout_dropped,
        stderr_dropped,
        end,
        elapsed: start.elapsed(),
    })
}

/// Where no watchdog could be started: the runner's leader gets SIGKILL when the thread that
/// starts it ends (Linux's `PR_SET_PDEATHSIG`). That thread stays in [`run_with`] until the
/// leader is reaped, so this fires only when pith dies. It needs code between fork and exec,
/// which makes the start a full fork of pith (about a millisecond on a small VM, on every
/// run's critical path), hence only as the fallback.
fn die_with_this_thread(cmd: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: getpid has no preconditions.
        let parent = unsafe { libc::getpid() };
        // SAFETY: between fork and exec the closure calls only async-signal-safe functions
        // (prctl, getppid, _exit) and allocates nothing.
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // pith died before the request took effect: do not start orphaned.
                if libc::getppid() != parent {
                    libc::_exit(137);
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cmd;
}

/// The runner's process group as [`run_with`]'s loop sees it: whether and when pith asked it
/// to end, and the leader's exit once reaped.
struct Group {
    pgid: libc::pid_t,
    /// pith stopped it, and why.
    killed: Option<End>,
    /// When SIGTERM went, until SIGKILL follows.
    termed_at: Option<Instant>,
    status: Option<ExitStatus>,
    /// Until when the pipes are read after the leader exited.
    drain_until: Option<Instant>,
}

impl Group {
    fn new(pgid: libc::pid_t) -> Self {
        Group {
            pgid,
            killed: None,
            termed_at: None,
            status: None,
            drain_until: None,
        }
    }

    /// Asks the group to end the first time there is a reason to (`stop`), and kills it
    /// outright once its [`GRACE`] is over.
    fn stop(&mut self, stop: Option<End>, now: Instant) {
        if let (Some(why), None) = (stop, self.killed) {
            self.killed = Some(why);
            self.termed_at = Some(now);
            signal_group(self.pgid, libc::SIGTERM);
        }
        if self.termed_at.is_some_and(|t| now >= t + GRACE) {
            signal_group(self.pgid, libc::SIGKILL);
            self.termed_at = None;
        }
    }

    /// Takes the leader's exit status when it has exited.
    fn reap(&mut self, child: &mut std::process::Child) -> std::io::Result<()> {
        if let Some(s) = child.try_wait()? {
            // Whatever the leader left behind in its group (workers, test processes) goes
            // too.
            signal_group(self.pgid, libc::SIGKILL);
            self.status = Some(s);
            self.drain_until = Some(Instant::now() + PIPE_DRAIN);
        }
        Ok(())
    }

    /// The leader exited and its pipes are closed (`open` false) or were drained long enough.
    fn done(&self, open: bool) -> bool {
        self.status.is_some() && (!open || self.drain_until.is_some_and(|d| Instant::now() >= d))
    }

    /// How long the loop may wait for output: until the deadline at the most while nothing
    /// has ended.
    fn wait(&self, now: Instant, deadline: Instant) -> Duration {
        let wait = Duration::from_millis(50);
        if self.status.is_none() && self.killed.is_none() {
            wait.min(deadline.saturating_duration_since(now))
        } else {
            wait
        }
    }

    /// How the process ended: pith's reason when it stopped it, else its exit status.
    fn end(self) -> std::io::Result<End> {
        let status = self
            .status
            .ok_or_else(|| std::io::Error::other("runner status lost"))?;
        Ok(self
            .killed
            .unwrap_or_else(|| match (status.code(), status.signal()) {
                (Some(code), _) => End::Exited(code),
                (None, Some(sig)) => End::Signaled(sig),
                (None, None) => End::Exited(-1),
            }))
    }
}

/// A descriptor that becomes readable when process `pid` (our child) exits; `None` where the
/// kernel has no `pidfd_open`.
fn pidfd_open(pid: libc::pid_t) -> Option<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    // SAFETY: a non-negative result is a descriptor this process now owns, and only here.
    (fd >= 0).then(|| unsafe { std::os::fd::OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Waits until one of `fds` (negative ones ignored) is readable or closed, or `wait` passes.
fn poll(fds: &[RawFd], wait: Duration) {
    let mut pfds: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let ms = wait.as_millis().clamp(1, 1000) as libc::c_int;
    // SAFETY: `pfds` is a valid array of `pfds.len()` pollfd structs for the whole call.
    unsafe {
        libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, ms);
    }
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
    use std::thread;

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
    fn merged_streams_keep_the_order_they_were_written_in() {
        // Each line flushed before the next is written, alternating streams, as cargo
        // announces a binary on stderr before the binary prints on stdout.
        let mut lines = Vec::new();
        let out = run_lines_merged(
            sh("for i in 1 2 3; do echo out$i; echo err$i >&2; done; exit 4"),
            Instant::now() + Duration::from_secs(10),
            None,
            &mut |l| lines.push(String::from_utf8_lossy(l).into_owned()),
        )
        .unwrap();
        assert_eq!(lines, ["out1", "err1", "out2", "err2", "out3", "err3"]);
        assert!(out.stderr.is_empty() && out.stdout.is_empty());
        assert_eq!(out.end, End::Exited(4));
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
    fn a_flood_of_output_is_kept_bounded_and_the_deadline_holds() {
        // ~40 MB in, then silence until the deadline.
        let start = Instant::now();
        let out = run(
            sh("head -c 40000000 /dev/zero | tr '\\0' x; echo; echo last line; sleep 30"),
            Instant::now() + Duration::from_secs(3),
            None,
        )
        .unwrap();
        assert_eq!(out.end, End::TimedOut);
        assert!(
            start.elapsed() < Duration::from_secs(9),
            "{:?}",
            start.elapsed()
        );
        assert!(
            out.stdout.len() <= HEAD_BYTES + TAIL_BYTES + 64,
            "{}",
            out.stdout.len()
        );
        assert_eq!(
            out.stdout_dropped as usize,
            40_000_000 + 1 + "last line\n".len() - HEAD_BYTES - TAIL_BYTES
        );
        let text = out.stdout_str();
        assert!(text.starts_with("xxx"));
        assert!(
            text.ends_with("x\nlast line\n"),
            "{}",
            &text[text.len() - 40..]
        );
        assert!(text.contains("bytes of output left out]"));
    }

    #[test]
    fn a_line_sink_sees_every_line_and_nothing_is_kept() {
        let mut seen: Vec<String> = Vec::new();
        let out = run_lines(
            sh("i=0; while [ $i -lt 2000 ]; do echo line $i; i=$((i+1)); done; printf tail; echo err >&2"),
            Instant::now() + Duration::from_secs(20),
            None,
            &mut |l| seen.push(String::from_utf8_lossy(l).into_owned()),
        )
        .unwrap();
        assert_eq!(out.end, End::Exited(0));
        assert_eq!(seen.len(), 2001);
        assert_eq!(seen[1999], "line 1999");
        assert_eq!(seen[2000], "tail");
        assert!(out.stdout.is_empty());
        assert_eq!(out.stderr_str(), "err\n");
    }

    #[test]
    fn without_a_watchdog_the_leader_dies_with_the_thread_that_started_it() {
        let mut child = thread::spawn(|| {
            let mut cmd = Command::new("sleep");
            cmd.arg("30");
            die_with_this_thread(&mut cmd);
            cmd.spawn().unwrap()
        })
        .join()
        .unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(libc::SIGKILL));
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
