def total(items, discount=0):
    """Sum of price * quantity, less a percentage discount."""
    gross = sum(price * qty for price, qty in items)
    return round(gross * (100 - discount) / 100, 2)
