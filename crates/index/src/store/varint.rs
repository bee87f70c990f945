//! LEB128 varints, the one encoding of the file table, the postings and the stamps: written
//! by the builder and read back by the segment, so both sides live here.

pub(super) struct Reader<'b> {
    b: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    pub(super) fn new(b: &'b [u8]) -> Self {
        Reader { b, at: 0 }
    }

    /// One LEB128 varint.
    pub(super) fn next(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *self.b.get(self.at)?;
            self.at += 1;
            v |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    pub(super) fn u32(&mut self) -> Option<u32> {
        u32::try_from(self.next()?).ok()
    }

    pub(super) fn bytes(&mut self, len: usize) -> Option<&'b [u8]> {
        let out = self.b.get(self.at..self.at.checked_add(len)?)?;
        self.at += len;
        Some(out)
    }
}

pub(super) fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        let mut b = Vec::new();
        for v in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            put(&mut b, v);
        }
        let mut r = Reader::new(&b);
        for v in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            assert_eq!(r.next(), Some(v));
        }
        assert_eq!(r.next(), None);
    }
}
