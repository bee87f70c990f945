//! Money amounts in cents.

/// Parses `"12.34"` into cents.
pub fn cents(text: &str) -> Option<u64> {
    let (whole, frac) = text.split_once('.').unwrap_or((text, "0"));
    let frac = format!("{frac:0<2}");
    Some(whole.parse::<u64>().ok()? * 100 + frac[..2].parse::<u64>().ok()?)
}

/// Splits `total` cents into `parts` shares, the remainder on the first ones.
pub fn split(total: u64, parts: u64) -> Vec<u64> {
    let (each, rest) = (total / parts, total % parts);
    (0..parts).map(|i| each + u64::from(i < rest)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_whole_and_fraction() {
        assert_eq!(cents("12.34"), Some(1234));
        assert_eq!(cents("7"), Some(700));
        assert_eq!(cents("0.5"), Some(50));
    }

    #[test]
    fn split_keeps_the_total() {
        assert_eq!(split(100, 3), vec![34, 33, 33]);
    }

    #[test]
    #[ignore = "needs the exchange-rate service"]
    fn converts_currencies() {}
}
