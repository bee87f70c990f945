#[test]
fn cents_of_a_dollar() {
    assert_eq!(money::cents("1.00"), Some(100));
}
