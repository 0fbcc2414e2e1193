"""Prints the total of a sample cart."""

import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])

from shop.cart import Cart  # noqa: E402
from shop.pricing import compute_total  # noqa: E402

cart = Cart()
cart.add(2, 10.0)
cart.add(1, 25.0)
assert cart.total() == compute_total(cart.lines)
print(f"Total: {cart.total(discount=0.0666667):.2f}")
