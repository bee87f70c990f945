import pytest
from shop.cart import total


def test_empty():
    assert total([]) == 0


def test_two_lines():
    assert total([(2.5, 2), (1.0, 3)]) == 8.0


@pytest.mark.parametrize("discount,expected", [(0, 10.0), (10, 9.0), (50, 5.0)])
def test_discount(discount, expected):
    assert total([(5.0, 2)], discount) == expected


@pytest.mark.skip(reason="currency support comes later")
def test_currency():
    pass
