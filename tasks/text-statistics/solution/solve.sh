#!/bin/bash
python3 - <<'PY'
import json

text = open("/app/poem.txt", encoding="utf-8").read()
stats = {"lines": text.count("\n"), "words": len(text.split()), "chars": len(text)}
json.dump(stats, open("/app/stats.json", "w"))
print(stats)
PY
