#!/bin/bash
# Partial credit: one key per count in reward.json (1 right, 0 wrong or missing); the reward is their mean.
mkdir -p /logs/verifier
python3 - <<'PY'
import json

text = open("/app/poem.txt", encoding="utf-8").read()
expected = {"lines": text.count("\n"), "words": len(text.split()), "chars": len(text)}
try:
    answer = json.load(open("/app/stats.json", encoding="utf-8"))
except (OSError, ValueError) as exc:
    print(f"FAIL: /app/stats.json unreadable: {exc}")
    answer = {}
scores = {key: 1.0 if isinstance(answer, dict) and answer.get(key) == value else 0.0 for key, value in expected.items()}
print("expected", expected, "got", answer, "scores", scores)
json.dump(scores, open("/logs/verifier/reward.json", "w"))
PY
