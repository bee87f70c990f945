//! What is kept of the runner's output: each pipe read without blocking, into bounded memory
//! (the first [`HEAD_BYTES`] and the last [`TAIL_BYTES`] of a stream) or line by line to a sink.

use std::collections::VecDeque;
use std::io::Read;
use std::os::fd::{AsRawFd, RawFd};

use super::{LineSink, HEAD_BYTES, LINE_BYTES, READ_SLICE, TAIL_BYTES};

/// One of the runner's output pipes, read without blocking.
pub(super) struct Pipe {
    reader: Box<dyn Read>,
    fd: RawFd,
}

impl Pipe {
    pub(super) fn new<R: Read + AsRawFd + 'static>(r: R) -> Self {
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
pub(super) struct Stream {
    pipe: Option<Pipe>,
    pub(super) kept: Bounded,
    /// The line being assembled for a line sink.
    line: Vec<u8>,
    /// The current line passed [`LINE_BYTES`]: the rest of it is skipped.
    line_cut: bool,
    /// Whether a line sink takes this stream (it is then not kept).
    sunk: bool,
}

impl Stream {
    pub(super) fn new(pipe: Option<Pipe>, sunk: bool) -> Self {
        Stream {
            pipe,
            kept: Bounded::default(),
            line: Vec::new(),
            line_cut: false,
            sunk,
        }
    }

    pub(super) fn is_open(&self) -> bool {
        self.pipe.is_some()
    }

    pub(super) fn fd(&self) -> RawFd {
        self.pipe.as_ref().map_or(-1, |p| p.fd)
    }

    /// Reads what is there now, up to [`READ_SLICE`] bytes.
    pub(super) fn read(&mut self, sink: &mut Option<LineSink<'_>>) {
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

    pub(super) fn feed(&mut self, mut bytes: &[u8], sink: &mut dyn FnMut(&[u8])) {
        while let Some(i) = bytes.iter().position(|&b| b == b'\n') {
            self.take(&bytes[..i]);
            sink(&self.line);
            self.line.clear();
            self.line_cut = false;
            bytes = &bytes[i + 1..];
        }
        self.take(bytes);
    }

    pub(super) fn take(&mut self, part: &[u8]) {
        let room = LINE_BYTES.saturating_sub(self.line.len());
        if part.len() > room {
            self.line_cut = true;
        }
        self.line.extend_from_slice(&part[..part.len().min(room)]);
    }

    /// Hands a last line without a newline to the sink.
    pub(super) fn flush_line(&mut self, sink: &mut dyn FnMut(&[u8])) {
        if self.sunk && (!self.line.is_empty() || self.line_cut) {
            sink(&self.line);
            self.line.clear();
        }
    }
}

/// A stream's bytes in bounded memory: the first [`HEAD_BYTES`] and the last [`TAIL_BYTES`],
/// with a count of what fell between them.
#[derive(Default)]
pub(super) struct Bounded {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    dropped: u64,
}

impl Bounded {
    pub(super) fn push(&mut self, mut bytes: &[u8]) {
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
    pub(super) fn finish(self) -> (Vec<u8>, u64) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
