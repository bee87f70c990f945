"""Prices and discounts."""

from decimal import Decimal


def line_total(unit_price: Decimal, quantity: int) -> Decimal:
    if quantity < 0:
        raise ValueError(f"quantity must be non-negative, got {quantity}")
    return unit_price * quantity


def apply_discount(total: Decimal, percent: int) -> Decimal:
    # The bug: the discount is added instead of subtracted.
    return total + total * Decimal(percent) / 100


def cart_total(lines: list[tuple[Decimal, int]], discount_percent: int = 0) -> Decimal:
    subtotal = sum((line_total(p, q) for p, q in lines), Decimal(0))
    return apply_discount(subtotal, discount_percent).quantize(Decimal("0.01"))
