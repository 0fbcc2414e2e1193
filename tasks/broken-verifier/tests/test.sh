#!/bin/bash
# Broken on purpose: it checks the file but then writes a reward nobody can parse.
mkdir -p /logs/verifier
if [ "$(cat /app/done.txt 2>/dev/null)" = "done" ]; then
    echo "the file is right, but this verifier reports its reward wrongly"
fi
echo "passed-ish" > /logs/verifier/reward.txt
