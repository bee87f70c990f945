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

use std::collections::VecDeque;
use std::io::Read;
use std::os::fd::{AsRawFd, RawFd};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use std::os::unix::process::{CommandExt, ExitStatusExt};

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

/// One of the runner's output pipes, read without blocking.
struct Pipe {
    reader: Box<dyn Read>,
    fd: RawFd,
}

impl Pipe {
    fn new<R: Read + AsRawFd + 'static>(r: R) -> Self {
        let fd = r.as_raw_fd();
        // SAFETY: fcntl on a descriptor this process owns; failure leaves it blocking, which
        // poll still guards (a read is only attempted when poll says data is there).
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
            }
        }
        Pipe {
            reader: Box::new(r),
            fd,
        }
    }
}

/// A pipe and what is kept of it.
struct Stream {
    pipe: Option<Pipe>,
    kept: Bounded,
    /// The line being assembled for a line sink.
    line: Vec<u8>,
    /// The current line passed [`LINE_BYTES`]: the rest of it is skipped.
    line_cut: bool,
    /// Whether a line sink takes this stream (it is then not kept).
    sunk: bool,
}

impl Stream {
    fn new(pipe: Option<Pipe>, sunk: bool) -> Self {
        Stream {
            pipe,
            kept: Bounded::default(),
            line: Vec::new(),
            line_cut: false,
            sunk,
        }
    }

    fn is_open(&self) -> bool {
        self.pipe.is_some()
    }

    fn fd(&self) -> RawFd {
        self.pipe.as_ref().map_or(-1, |p| p.fd)
    }

    /// Reads what is there now, up to [`READ_SLICE`] bytes.
    fn read(&mut self, sink: &mut Option<LineSink<'_>>) {
        let mut buf = [0u8; 64 * 1024];
        let mut taken = 0;
        while taken < READ_SLICE {
            let Some(pipe) = self.pipe.as_mut() else {
                return;
            };
            match pipe.reader.read(&mut buf) {
                Ok(0) => {
                    self.pipe = None;
                    return;
                }
                Ok(n) => {
                    taken += n;
                    match (self.sunk, sink.as_mut()) {
                        (true, Some(sink)) => self.feed(&buf[..n], *sink),
                        _ => self.kept.push(&buf[..n]),
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
                Err(_) => {
                    self.pipe = None;
                    return;
                }
            }
        }
    }

    fn feed(&mut self, mut bytes: &[u8], sink: &mut dyn FnMut(&[u8])) {
        while let Some(i) = bytes.iter().position(|&b| b == b'\n') {
            self.take(&bytes[..i]);
            sink(&self.line);
            self.line.clear();
            self.line_cut = false;
            bytes = &bytes[i + 1..];
        }
        self.take(bytes);
    }

    fn take(&mut self, part: &[u8]) {
        let room = LINE_BYTES.saturating_sub(self.line.len());
        if part.len() > room {
            self.line_cut = true;
        }
        self.line.extend_from_slice(&part[..part.len().min(room)]);
    }

    /// Hands a last line without a newline to the sink.
    fn flush_line(&mut self, sink: &mut dyn FnMut(&[u8])) {
        if self.sunk && (!self.line.is_empty() || self.line_cut) {
            sink(&self.line);
            self.line.clear();
        }
    }
}

/// A stream's bytes in bounded memory: the first [`HEAD_BYTES`] and the last [`TAIL_BYTES`],
/// with a count of what fell between them.
#[derive(Default)]
struct Bounded {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    dropped: u64,
}

impl Bounded {
    fn push(&mut self, mut bytes: &[u8]) {
        if self.head.len() < HEAD_BYTES {
            let n = bytes.len().min(HEAD_BYTES - self.head.len());
            self.head.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
        }
        if bytes.len() >= TAIL_BYTES {
            self.dropped += (self.tail.len() + bytes.len() - TAIL_BYTES) as u64;
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - TAIL_BYTES..]);
            return;
        }
        let over = (self.tail.len() + bytes.len()).saturating_sub(TAIL_BYTES);
        if over > 0 {
            self.tail.drain(..over);
            self.dropped += over as u64;
        }
        self.tail.extend(bytes);
    }

    /// The kept bytes, with a line saying how many were left out between head and tail.
    fn finish(self) -> (Vec<u8>, u64) {
        let mut out = self.head;
        if self.dropped > 0 {
            // The cut lands mid-line: the note gets lines of its own.
            out.extend_from_slice(
                format!("\n[pith: {} bytes of output left out]\n", self.dropped).as_bytes(),
            );
        }
        out.extend(self.tail);
        (out, self.dropped)
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

/// A process that kills the runner's group if pith dies without doing so itself (SIGKILL, a
/// crash): it waits on a pipe only pith can write to; end-of-file means pith is gone. Started
/// from pith before the runner starts, not from the runner, so the tests never see it; it
/// learns the group to guard through the pipe once the runner has started.
///
/// It is a process that shares pith's memory (`clone` with `CLONE_VM`) and runs on a small
/// stack of its own: starting it copies nothing, where a fork copies pith's page tables, takes
/// every malloc lock and leaves each page pith writes next to fault and copy (about 1% of a
/// small crate's green run). It runs only raw system calls, never libc or Rust's runtime, so
/// it touches no memory but that stack, not even `errno`. Released, it is not waited for: it
/// is reaped by [`reap_watchdogs`] once the run is answered, or when the next one starts.
struct Watchdog {
    pid: libc::pid_t,
    fd: RawFd,
    guarding: bool,
    stack: Stack,
}

/// The watchdog's stack: mapped by pith, unmapped only once the watchdog is reaped.
struct Stack(*mut libc::c_void);

// SAFETY: the mapping is owned by whoever holds the `Stack`, and only unmapped by it.
unsafe impl Send for Stack {}

/// Bytes of the watchdog's stack: its whole life is a handful of system calls.
const WATCHDOG_STACK: usize = 64 * 1024;

/// Watchdogs released but not yet reaped, with their stacks.
static RELEASED: std::sync::Mutex<Vec<(libc::pid_t, Stack)>> = std::sync::Mutex::new(Vec::new());

impl Watchdog {
    fn start() -> Option<Watchdog> {
        if !raw::SUPPORTED {
            return None;
        }
        reap_released();
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: pipe2 writes two descriptors into `fds`.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return None;
        }
        let [read_end, write_end] = fds;
        // SAFETY: a fresh anonymous mapping, checked below.
        let stack = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                WATCHDOG_STACK,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                -1,
                0,
            )
        };
        let close_both = || {
            // SAFETY: closing descriptors this process owns.
            unsafe {
                libc::close(read_end);
                libc::close(write_end);
            }
        };
        if stack == libc::MAP_FAILED {
            close_both();
            return None;
        }
        // Born with the signals a terminal or a host sends blocked: Ctrl-C reaches pith's whole
        // group, and pith kills the runner itself then; a host that stops pith's group must
        // not take the watchdog along before it has a group of its own.
        // SAFETY: sigset operations on local sets; the mask is this thread's, restored below.
        let pid = unsafe {
            let mut block: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut block);
            for sig in [libc::SIGINT, libc::SIGHUP, libc::SIGTERM, libc::SIGQUIT] {
                libc::sigaddset(&mut block, sig);
            }
            libc::pthread_sigmask(libc::SIG_BLOCK, &block, &mut old);
            // SAFETY: the child runs `watchdog_main` on `stack`'s top, which nothing else
            // uses until the child is reaped; it shares this memory and touches only that
            // stack (see the type's comment).
            let pid = libc::clone(
                watchdog_main,
                stack.cast::<u8>().add(WATCHDOG_STACK).cast(),
                libc::CLONE_VM | libc::SIGCHLD,
                read_end as isize as *mut libc::c_void,
            );
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            pid
        };
        if pid == -1 {
            close_both();
            // SAFETY: the mapping made above, used by nothing.
            unsafe { libc::munmap(stack, WATCHDOG_STACK) };
            return None;
        }
        // SAFETY: the read end belongs to the watchdog now.
        unsafe { libc::close(read_end) };
        Some(Watchdog {
            pid,
            fd: write_end,
            guarding: false,
            stack: Stack(stack),
        })
    }

    /// The runner's group started: from now on, pith's death kills it. Four bytes, one write
    /// (atomic on a pipe).
    fn guard(&mut self, pgid: libc::pid_t) {
        let bytes = pgid.to_ne_bytes();
        // SAFETY: writing our own buffer to our own descriptor.
        let wrote = unsafe { libc::write(self.fd, bytes.as_ptr().cast(), bytes.len()) };
        self.guarding = wrote == bytes.len() as isize;
    }

    /// The run is over and its group handled (or it never started): the watchdog leaves
    /// without killing anything, as soon as it reads the pipe; nothing here waits for that.
    fn release(&mut self) {
        if self.fd < 0 {
            return;
        }
        // SAFETY: write/close on our own descriptor.
        unsafe {
            if self.guarding {
                libc::write(self.fd, b"x".as_ptr().cast(), 1);
            }
            libc::close(self.fd);
        }
        self.fd = -1;
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.release();
        RELEASED.lock().unwrap_or_else(|p| p.into_inner()).push((
            self.pid,
            std::mem::replace(&mut self.stack, Stack(std::ptr::null_mut())),
        ));
        reap_released();
    }
}

/// Whether the watchdog `pid` has exited and is reaped now (its stack then unmapped).
fn reaped(pid: libc::pid_t, stack: &Stack) -> bool {
    let mut status = 0;
    // SAFETY: waitpid on our own child, without waiting.
    let gone = match unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } {
        0 => false,
        // Reaped now, or by someone else (ECHILD): either way it runs no more.
        _ => true,
    };
    if gone {
        // SAFETY: the mapping made for this watchdog, whose process no longer exists.
        unsafe { libc::munmap(stack.0, WATCHDOG_STACK) };
    }
    gone
}

/// Reaps the watchdogs released earlier that have left since; whether none is left.
fn reap_released() -> bool {
    let mut released = RELEASED.lock().unwrap_or_else(|p| p.into_inner());
    released.retain(|(pid, stack)| !reaped(*pid, stack));
    released.is_empty()
}

/// Reaps the watchdogs of the runs that ended, waiting up to [`REAP_WAIT`] for one that has
/// not left yet (it leaves as soon as it reads the pipe, so by the time a run is recorded it
/// has). For a process that ends next: a child it leaves unreaped would go to init, and an
/// init that never reaps (a container's own program as its first process) keeps every one.
pub fn reap_watchdogs() {
    let until = Instant::now() + REAP_WAIT;
    loop {
        if reap_released() || Instant::now() >= until {
            return;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// How long [`reap_watchdogs`] waits for a released watchdog to leave.
const REAP_WAIT: Duration = Duration::from_millis(50);

/// The watchdog's whole life, in the cloned child: the group to guard, then a byte (pith
/// handled the run) or end-of-file (pith is gone). A pipe that ends before naming a group
/// guarded nothing. Raw system calls only (see [`Watchdog`]).
extern "C" fn watchdog_main(arg: *mut libc::c_void) -> libc::c_int {
    let read_end = arg as usize;
    // Only the pipe stays open: the runner's output pipes and pith's stdout (the MCP channel)
    // must not be held by the watchdog.
    if read_end > 0 {
        raw::syscall3(libc::SYS_close_range as usize, 0, read_end - 1, 0);
    }
    if raw::syscall3(
        libc::SYS_close_range as usize,
        read_end + 1,
        u32::MAX as usize,
        0,
    ) != 0
    {
        for fd in read_end + 1..4096 {
            raw::syscall3(libc::SYS_close as usize, fd, 0, 0);
        }
    }
    // A group of its own: a host that kills pith's whole process group (the MCP SDKs stop a
    // server so, SIGTERM then SIGKILL) must not take the watchdog along with it.
    raw::syscall3(libc::SYS_setpgid as usize, 0, 0, 0);
    let mut pgid = [0u8; 4];
    if raw::read_full(read_end, &mut pgid) == pgid.len() {
        let mut byte = [0u8; 1];
        if raw::read_full(read_end, &mut byte) == 0 {
            let group = libc::pid_t::from_ne_bytes(pgid);
            raw::syscall3(
                libc::SYS_kill as usize,
                group.wrapping_neg() as isize as usize,
                libc::SIGKILL as usize,
                0,
            );
        }
    }
    raw::syscall3(libc::SYS_exit_group as usize, 0, 0, 0);
    0
}

/// System calls without libc, for the watchdog, which shares pith's memory and thread-local
/// storage: libc's wrappers write `errno` there, and its blocking calls mark pith's thread
/// for cancellation.
mod raw {
    /// Whether this architecture has the system calls below; elsewhere there is no watchdog.
    pub(super) const SUPPORTED: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

    /// A system call with three arguments; the kernel's result (negative: an error number).
    pub(super) fn syscall3(nr: usize, a: usize, b: usize, c: usize) -> isize {
        let ret: isize;
        // SAFETY: a system call touches only what its arguments name; every caller passes
        // descriptors, numbers, or a buffer on its own stack with its length.
        #[cfg(target_arch = "x86_64")]
        unsafe {
            std::arch::asm!(
                "syscall",
                inlateout("rax") nr as isize => ret,
                in("rdi") a,
                in("rsi") b,
                in("rdx") c,
                lateout("rcx") _,
                lateout("r11") _,
                options(nostack),
            );
        }
        // SAFETY: as above.
        #[cfg(target_arch = "aarch64")]
        unsafe {
            std::arch::asm!(
                "svc 0",
                in("x8") nr,
                inlateout("x0") a as isize => ret,
                in("x1") b,
                in("x2") c,
                options(nostack),
            );
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            let _ = (nr, a, b, c);
            ret = -(libc::ENOSYS as isize);
        }
        ret
    }

    /// Reads into `buf` until it is full or the pipe ends; how many bytes came.
    pub(super) fn read_full(fd: usize, buf: &mut [u8]) -> usize {
        let mut got = 0;
        while got < buf.len() {
            let rest = &mut buf[got..];
            match syscall3(
                libc::SYS_read as usize,
                fd,
                rest.as_mut_ptr() as usize,
                rest.len(),
            ) {
                n if n == -(libc::EINTR as isize) => continue,
                n if n > 0 => got += n as usize,
                _ => break,
            }
        }
        got
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

    fn sleeper() -> std::process::Child {
        Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .unwrap()
    }

    /// Waits for the watchdog `pid` to exit and returns its exit status, reaping it here.
    fn exit_status_of(pid: libc::pid_t) -> i32 {
        let mut status = 0;
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        assert!(
            libc::WIFEXITED(status),
            "the watchdog did not exit: {status:#x}"
        );
        libc::WEXITSTATUS(status)
    }

    #[test]
    fn the_watchdog_leaves_quietly_after_a_normal_run() {
        let mut group = sleeper();
        let mut w = Watchdog::start().unwrap();
        w.guard(group.id() as libc::pid_t);
        w.release();
        assert_eq!(exit_status_of(w.pid), 0);
        drop(w);
        thread::sleep(Duration::from_millis(200));
        assert!(
            group.try_wait().unwrap().is_none(),
            "the watchdog killed a live run"
        );
        group.kill().unwrap();
        group.wait().unwrap();
    }

    #[test]
    fn the_watchdog_kills_the_group_when_pith_is_gone() {
        let mut group = sleeper();
        let mut w = Watchdog::start().unwrap();
        w.guard(group.id() as libc::pid_t);
        // What pith's death does: the write end closes without a word.
        unsafe { libc::close(w.fd) };
        w.fd = -1;
        assert_eq!(exit_status_of(w.pid), 0);
        let deadline = Instant::now() + Duration::from_secs(5);
        while group.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "the group outlived pith");
            thread::sleep(Duration::from_millis(20));
        }
    }

    #[test]
    fn a_watchdog_whose_run_never_started_leaves_quietly() {
        let mut w = Watchdog::start().unwrap();
        // pith gone (or the spawn failed) before a group was named.
        unsafe { libc::close(w.fd) };
        w.fd = -1;
        assert_eq!(exit_status_of(w.pid), 0);
    }

    /// The watchdog is in a process group of its own and holds no descriptor but its pipe:
    /// a host that stops pith's group leaves it, and it keeps no runner pipe open.
    #[test]
    fn the_watchdog_holds_only_its_pipe_in_a_group_of_its_own() {
        let w = Watchdog::start().unwrap();
        let fds = Instant::now() + Duration::from_secs(5);
        let held = loop {
            let held: Vec<String> = std::fs::read_dir(format!("/proc/{}/fd", w.pid))
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            if held.len() == 1 || Instant::now() > fds {
                break held;
            }
            thread::sleep(Duration::from_millis(5));
        };
        assert_eq!(held.len(), 1, "descriptors held: {held:?}");
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", w.pid)).unwrap();
        // pid (comm) state ppid pgrp: the fields after the command's closing parenthesis.
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let pgrp: libc::pid_t = after.split(' ').nth(2).unwrap().parse().unwrap();
        assert_eq!(pgrp, w.pid);
        let mut w = w;
        w.release();
        assert_eq!(exit_status_of(w.pid), 0);
    }

    /// A process that ends after a run leaves no watchdog behind for init to reap.
    #[test]
    fn reaping_the_watchdogs_leaves_none_behind() {
        let pids: Vec<libc::pid_t> = (0..5)
            .map(|_| {
                let mut w = Watchdog::start().unwrap();
                w.guard(i32::MAX);
                w.pid
            })
            .collect();
        reap_watchdogs();
        for pid in pids {
            assert!(
                !std::path::Path::new(&format!("/proc/{pid}")).exists(),
                "watchdog {pid} left unreaped"
            );
        }
    }

    /// Dropping a watchdog does not wait for it, and leaves no zombie behind: what the drop
    /// could not reap, the next start does.
    #[test]
    fn released_watchdogs_are_reaped_by_the_next_start() {
        let pids: Vec<libc::pid_t> = (0..20)
            .map(|_| {
                let w = Watchdog::start().unwrap();
                w.pid
            })
            .collect();
        let deadline = Instant::now() + Duration::from_secs(10);
        for pid in pids {
            while std::path::Path::new(&format!("/proc/{pid}")).exists() {
                assert!(Instant::now() < deadline, "watchdog {pid} was never reaped");
                drop(Watchdog::start());
                thread::sleep(Duration::from_millis(5));
            }
        }
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
    fn bounded_keeps_head_and_tail_exactly() {
        let mut b = Bounded::default();
        let data: Vec<u8> = (0..(HEAD_BYTES + TAIL_BYTES + 1000))
            .map(|i| (i % 251) as u8)
            .collect();
        for chunk in data.chunks(7777) {
            b.push(chunk);
        }
        let (out, dropped) = b.finish();
        assert_eq!(dropped, 1000);
        assert_eq!(&out[..HEAD_BYTES], &data[..HEAD_BYTES]);
        assert_eq!(
            &out[out.len() - TAIL_BYTES..],
            &data[data.len() - TAIL_BYTES..]
        );
        let mut small = Bounded::default();
        small.push(b"abc");
        assert_eq!(small.finish(), (b"abc".to_vec(), 0));
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
