#[test]
fn three_ways() {
    assert_eq!(ledger::shares("1.00", 3), vec![34, 33, 33]);
}

#[test]
fn one_way() {
    assert_eq!(ledger::shares("2.50", 1), vec![250]);
}
