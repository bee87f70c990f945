//! The watchdog: a process that kills the runner's group if pith dies without doing so itself,
//! started without a fork (it shares pith's memory and runs raw system calls on a stack of its
//! own), released once the run is handled and reaped afterwards.

use std::os::fd::RawFd;
use std::time::{Duration, Instant};

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
pub(super) struct Watchdog {
    pid: libc::pid_t,
    fd: RawFd,
    guarding: bool,
    stack: Stack,
}

/// The watchdog's stack: mapped by pith, unmapped only once the watchdog is reaped.
pub(super) struct Stack(*mut libc::c_void);

// SAFETY: the mapping is owned by whoever holds the `Stack`, and only unmapped by it.
unsafe impl Send for Stack {}

/// Bytes of the watchdog's stack: its whole life is a handful of system calls.
const WATCHDOG_STACK: usize = 64 * 1024;

/// Watchdogs released but not yet reaped, with their stacks.
static RELEASED: std::sync::Mutex<Vec<(libc::pid_t, Stack)>> = std::sync::Mutex::new(Vec::new());

impl Watchdog {
    pub(super) fn start() -> Option<Watchdog> {
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
    pub(super) fn guard(&mut self, pgid: libc::pid_t) {
        let bytes = pgid.to_ne_bytes();
        // SAFETY: writing our own buffer to our own descriptor.
        let wrote = unsafe { libc::write(self.fd, bytes.as_ptr().cast(), bytes.len()) };
        self.guarding = wrote == bytes.len() as isize;
    }

    /// The run is over and its group handled (or it never started): the watchdog leaves
    /// without killing anything, as soon as it reads the pipe; nothing here waits for that.
    pub(super) fn release(&mut self) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::process::Command;
    use std::thread;

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
}
