from decimal import Decimal

import pytest

from cart.pricing import cart_total, line_total


def test_line_total():
    assert line_total(Decimal("2.50"), 4) == Decimal("10.00")


def test_negative_quantity_is_rejected():
    with pytest.raises(ValueError):
        line_total(Decimal("1.00"), -1)


@pytest.mark.parametrize("lines", [[], [(Decimal("1.00"), 0)]])
def test_empty_cart_costs_nothing(lines):
    assert cart_total(lines) == Decimal("0.00")


def test_total_without_discount():
    assert cart_total([(Decimal("3.00"), 2), (Decimal("1.50"), 1)]) == Decimal("7.50")


def test_total_with_discount():
    assert cart_total([(Decimal("10.00"), 2)], discount_percent=10) == Decimal("18.00")
