//! o200k_base, the tokenizer `pith gain` counts with, built from a 0.9 MB embedding of its
//! vocabulary instead of `tiktoken-rs`'s 3.6 MB base64 text, which alone put the shipped
//! binary over its 20 MB target. Every o200k token past the 256 single bytes is the
//! concatenation of two tokens of lower rank, so a token is stored as that pair of ranks, 18
//! bits each: `assets/o200k_base.pairs` is the 256 bytes of ranks 0–255, then the pairs of
//! ranks 256 onwards packed 36 bits each, least significant bit first. A test rebuilds the
//! file from `tiktoken-rs`'s own vocabulary and compares every byte (`PITH_BLESS=1` rewrites
//! it), so the counts are o200k's exactly.

use rustc_hash::FxHashMap;
use tiktoken_rs::{CoreBPE, Rank, ENDOFPROMPT, ENDOFTEXT, O200K_BASE_PAT_STR};

static PAIRS: &[u8] = include_bytes!("../assets/o200k_base.pairs");

/// Ordinary tokens in o200k_base (ranks 0 to 199,997); 199,999 and 200,018 are special.
const TOKENS: usize = 199_998;
const RANK_BITS: u32 = 18;

/// The tokenizer, or `None` when the embedded vocabulary is damaged (a build problem, which
/// the test below catches; `pith gain` then counts nothing rather than counting wrong).
pub(crate) fn tokenizer() -> Option<CoreBPE> {
    tokenizer_from(PAIRS)
}

fn tokenizer_from(blob: &[u8]) -> Option<CoreBPE> {
    let tokens = decode(blob)?;
    let encoder: FxHashMap<Vec<u8>, Rank> = tokens.into_iter().zip(0..).collect();
    // A token twice would make `CoreBPE::new` panic (its encoder and decoder disagree).
    if encoder.len() != TOKENS {
        return None;
    }
    let mut special = FxHashMap::default();
    special.insert(ENDOFTEXT.to_string(), 199_999);
    special.insert(ENDOFPROMPT.to_string(), 200_018);
    CoreBPE::new(encoder, special, O200K_BASE_PAT_STR).ok()
}

/// Every ordinary token's bytes, in rank order.
fn decode(blob: &[u8]) -> Option<Vec<Vec<u8>>> {
    let (bytes, packed) = blob.split_at_checked(256)?;
    if packed.len() != ((TOKENS - 256) * 2 * RANK_BITS as usize).div_ceil(8) {
        return None;
    }
    let mut tokens: Vec<Vec<u8>> = bytes.iter().map(|b| vec![*b]).collect();
    let mut bits = Bits {
        bytes: packed,
        at: 0,
    };
    for rank in 256..TOKENS {
        let (left, right) = (bits.take()?, bits.take()?);
        if left >= rank || right >= rank {
            return None;
        }
        let token = [tokens[left].as_slice(), tokens[right].as_slice()].concat();
        tokens.push(token);
    }
    Some(tokens)
}

struct Bits<'a> {
    bytes: &'a [u8],
    /// The next bit to read.
    at: usize,
}

impl Bits<'_> {
    fn take(&mut self) -> Option<usize> {
        let mut value = 0usize;
        for i in 0..RANK_BITS as usize {
            let bit = self.at + i;
            let byte = *self.bytes.get(bit / 8)?;
            value |= usize::from((byte >> (bit % 8)) & 1) << i;
        }
        self.at += RANK_BITS as usize;
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    /// The embedding of `tokens` (rank order): each token split at its longest left part that
    /// is a token, both parts of lower rank.
    fn encode(tokens: &[Vec<u8>]) -> Vec<u8> {
        let rank: HashMap<&[u8], usize> = tokens
            .iter()
            .enumerate()
            .map(|(r, t)| (t.as_slice(), r))
            .collect();
        let mut out: Vec<u8> = tokens[..256].iter().map(|t| t[0]).collect();
        let (mut acc, mut held) = (0u64, 0u32);
        for (r, token) in tokens.iter().enumerate().skip(256) {
            let (left, right) = (1..token.len())
                .rev()
                .find_map(|k| {
                    let (l, rt) = (*rank.get(&token[..k])?, *rank.get(&token[k..])?);
                    (l < r && rt < r).then_some((l, rt))
                })
                .expect("every o200k token is two of lower rank");
            acc |= ((left | right << RANK_BITS) as u64) << held;
            held += 2 * RANK_BITS;
            while held >= 8 {
                out.push(acc as u8);
                acc >>= 8;
                held -= 8;
            }
        }
        if held > 0 {
            out.push(acc as u8);
        }
        out
    }

    #[test]
    fn the_embedded_vocabulary_is_o200k_base_byte_for_byte() {
        let reference = tiktoken_rs::o200k_base().unwrap();
        let tokens: Vec<Vec<u8>> = (0..TOKENS as Rank)
            .map(|r| reference.decode_bytes(&[r]).unwrap())
            .collect();
        let expected = encode(&tokens);
        if std::env::var_os("PITH_BLESS").is_some() {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/o200k_base.pairs");
            std::fs::write(path, &expected).unwrap();
        }
        assert!(
            PAIRS == expected.as_slice(),
            "assets/o200k_base.pairs is stale: PITH_BLESS=1 rewrites it"
        );
        assert_eq!(decode(PAIRS).unwrap(), tokens);
    }

    #[test]
    fn it_counts_as_tiktoken_does() {
        let ours = tokenizer().unwrap();
        let theirs = tiktoken_rs::o200k_base().unwrap();
        for text in [
            "FAILED tests/test_cart.py::test_total - assert 41 == 42",
            "  --> src/lib.rs:12:5\n   |\n12 |     let x = 1;\n",
            "日本語のテキスト and émojis 🎉 <|endoftext|> mixed\r\n\t  spaces",
        ] {
            assert_eq!(
                ours.encode_ordinary(text),
                theirs.encode_ordinary(text),
                "{text}"
            );
        }
    }

    #[test]
    fn a_damaged_embedding_gives_no_tokenizer_and_no_panic() {
        assert!(decode(&PAIRS[..PAIRS.len() - 1]).is_none());
        assert!(decode(&[]).is_none());
        let mut wrong = PAIRS.to_vec();
        // The first pair's left rank made 256: not lower than its own rank.
        wrong[256] = 0;
        wrong[257] = 1;
        wrong[258] &= !0b11;
        assert!(decode(&wrong).is_none());
        // Two ranks with the same byte: decodable, but no tokenizer (and no panic).
        let mut twice = PAIRS.to_vec();
        twice[1] = twice[0];
        assert!(decode(&twice).is_some());
        assert!(tokenizer_from(&twice).is_none());
    }
}
