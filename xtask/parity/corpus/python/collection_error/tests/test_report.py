from shop.cart import total


def test_report_line():
    assert f"{total([(1.0, 1)]):.2f}" == "1.00"
