#!/bin/bash
# Reward 1 when compute_total is gone from every file, order_total exists, and main.py still prints the total.
mkdir -p /logs/verifier
fail() { echo "FAIL: $1"; echo 0 > /logs/verifier/reward.txt; exit 0; }
cd /app || fail "no /app"
if grep -rn --include='*.py' compute_total /app; then fail "compute_total is still mentioned"; fi
grep -q 'def order_total' shop/pricing.py || fail "shop/pricing.py does not define order_total"
output=$(python3 main.py) || fail "main.py fails"
[ "$output" = "Total: 42.00" ] || fail "main.py printed '$output'"
python3 -c 'import sys; sys.path.insert(0, "/app"); from shop.pricing import order_total; assert order_total([(3, 2.0)]) == 6.0' \
    || fail "order_total gives wrong totals"
echo PASS
echo 1 > /logs/verifier/reward.txt
