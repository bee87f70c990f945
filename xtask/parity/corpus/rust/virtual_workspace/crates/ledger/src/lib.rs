//! A ledger of shares.
pub fn shares(total: &str, parts: u64) -> Vec<u64> {
    money::split(money::cents(total).expect("an amount"), parts)
}
