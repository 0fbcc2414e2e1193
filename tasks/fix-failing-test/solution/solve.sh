#!/bin/bash
sed -i 's|return sum(values) / (len(values) - 1)|return sum(values) / len(values)|' /app/calc.py
python3 /app/test_calc.py
