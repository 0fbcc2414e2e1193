"""A shopping cart."""

from shop.pricing import compute_total


class Cart:
    def __init__(self):
        self.lines = []

    def add(self, quantity, price):
        self.lines.append((quantity, price))

    def total(self, discount=0.0):
        return compute_total(self.lines, discount)
