"""Prices of a cart's lines."""


def compute_total(lines, discount=0.0):
    """The sum of quantity x unit price over the lines, less a fractional discount."""
    gross = sum(quantity * price for quantity, price in lines)
    return round(gross * (1 - discount), 2)
