#[test]
fn four_ways() {
    assert_eq!(money::split(10, 4), vec![3, 3, 2, 2]);
}
