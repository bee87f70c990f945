//! Token counting with OpenAI's o200k_base encoding: what an agent reading the output pays.

use anyhow::Result;
use tiktoken_rs::CoreBPE;

pub struct Counter(CoreBPE);

impl Counter {
    pub fn new() -> Result<Self> {
        Ok(Self(tiktoken_rs::o200k_base()?))
    }

    /// Tokens in `bytes` read as text (invalid UTF-8 replaced, as a terminal would show it).
    /// Special-token markers in the text count as plain text.
    pub fn count(&self, bytes: &[u8]) -> usize {
        self.0
            .encode_ordinary(&String::from_utf8_lossy(bytes))
            .len()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_o200k_tokens() {
        let c = super::Counter::new().unwrap();
        assert_eq!(c.count(b""), 0);
        assert_eq!(c.count(b"hello world"), 2);
    }
}
