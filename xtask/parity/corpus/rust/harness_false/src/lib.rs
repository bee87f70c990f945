pub fn words(text: &str) -> usize {
    text.split_whitespace().count()
}
