//! XML as pith's readers take it (JUnit, TRX): any byte stream as valid UTF-8, and entity
//! references resolved without ever expanding a document's own (billion laughs).

use quick_xml::events::BytesRef;

/// What an entity reference in a text stands for: only character references and XML's five
/// entities, so a DTD's own entities (billion laughs) are never expanded; nothing for others.
pub(crate) fn entity_text(r: &BytesRef<'_>) -> String {
    match r.resolve_char_ref() {
        Ok(Some(c)) => c.to_string(),
        Ok(None) => quick_xml::escape::resolve_predefined_entity(r)
            .unwrap_or("")
            .to_owned(),
        Err(_) => String::new(),
    }
}

/// A byte stream as valid UTF-8: invalid sequences become U+FFFD (as `from_utf8_lossy` would),
/// a sequence split across reads is joined. The XML reader requires UTF-8; a test's output in
/// a report need not be.
pub(crate) struct Lossy<R> {
    inner: R,
    /// Converted bytes not yet handed out, from `pos`.
    ready: Vec<u8>,
    pos: usize,
    /// An incomplete sequence at the end of the last read.
    carry: Vec<u8>,
    done: bool,
}

impl<R: std::io::Read> Lossy<R> {
    pub(crate) fn new(inner: R) -> Self {
        Lossy {
            inner,
            ready: Vec::new(),
            pos: 0,
            carry: Vec::new(),
            done: false,
        }
    }

    fn fill(&mut self) -> std::io::Result<()> {
        let mut chunk = std::mem::take(&mut self.carry);
        let start = chunk.len();
        chunk.resize(start + 64 * 1024, 0);
        let n = loop {
            match self.inner.read(&mut chunk[start..]) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                other => break other?,
            }
        };
        chunk.truncate(start + n);
        self.ready.clear();
        self.pos = 0;
        if n == 0 {
            self.done = true;
            self.ready
                .extend_from_slice(String::from_utf8_lossy(&chunk).as_bytes());
            return Ok(());
        }
        let mut rest: &[u8] = &chunk;
        loop {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    self.ready.extend_from_slice(s.as_bytes());
                    break;
                }
                Err(e) => {
                    let (good, bad) = rest.split_at(e.valid_up_to());
                    self.ready.extend_from_slice(good);
                    match e.error_len() {
                        Some(len) => {
                            self.ready.extend_from_slice("\u{fffd}".as_bytes());
                            rest = &bad[len..];
                        }
                        None => {
                            self.carry = bad.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

impl<R: std::io::Read> std::io::Read for Lossy<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.pos >= self.ready.len() {
            if self.done {
                return Ok(0);
            }
            self.fill()?;
        }
        let n = out.len().min(self.ready.len() - self.pos);
        out[..n].copy_from_slice(&self.ready[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}
