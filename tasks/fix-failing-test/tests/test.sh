#!/bin/bash
# Reward 1 when the original tests pass, the tests are unchanged and calc.mean is right on fresh inputs.
mkdir -p /logs/verifier
cd /app || { echo 0 > /logs/verifier/reward.txt; exit 0; }
expected='assert mean([2, 4, 6]) == 4, f"mean([2, 4, 6]) should be 4, got {mean([2, 4, 6])}"'
if ! grep -qF "$expected" test_calc.py; then
    echo "FAIL: test_calc.py was changed"
    echo 0 > /logs/verifier/reward.txt
    exit 0
fi
if python3 test_calc.py && python3 -c 'from calc import mean; assert mean([1, 2, 3, 4]) == 2.5; assert mean([-3, 3]) == 0'; then
    echo "PASS"
    echo 1 > /logs/verifier/reward.txt
else
    echo "FAIL: the tests still fail"
    echo 0 > /logs/verifier/reward.txt
fi
