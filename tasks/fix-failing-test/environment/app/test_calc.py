"""Plain-python tests for calc.py: run with `python3 test_calc.py`."""

import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])

from calc import add, mean  # noqa: E402

assert add(2, 3) == 5, "add(2, 3) should be 5"
assert mean([2, 4, 6]) == 4, f"mean([2, 4, 6]) should be 4, got {mean([2, 4, 6])}"
assert mean([5]) == 5, "mean([5]) should be 5"
print("all tests passed")
