"""Amounts in cents, parsed from what people type."""


def parse_amount(text):
    """'$3.50' -> 350; a bare number is whole dollars."""
    text = text.strip().lstrip("$")
    if "." in text:
        dollars, cents = text.split(".", 1)
        return int(dollars or "0") * 100 + int(cents.ljust(2, "0")[:2])
    return int(text) * 100


def split_evenly(cents, ways):
    """Shares that add up to the whole, the first ones a cent larger."""
    base, extra = divmod(cents, ways)
    return [base + 1 if i < extra else base for i in range(ways)]
