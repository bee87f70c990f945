//! URL slugs.

/// Lower-cases and joins words with dashes.
///
/// ```
/// assert_eq!(slug::slugify("Hello World"), "hello-world");
/// ```
pub fn slugify(text: &str) -> String {
    text.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join("-")
}

#[cfg(test)]
mod tests {
    #[test]
    fn single_word() {
        assert_eq!(super::slugify("Rust"), "rust");
    }
}
