#[test]
fn counts_words() {
    assert_eq!(parser::words("x y"), 2);
}
