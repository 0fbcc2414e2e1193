#!/bin/bash
# Reward 1 when /home/hello.txt holds "Hello World" (one trailing newline allowed), else 0.
mkdir -p /logs/verifier
if [ -f /home/hello.txt ] && [ "$(cat /home/hello.txt)" = "Hello World" ]; then
    echo "PASS: /home/hello.txt says Hello World"
    echo 1 > /logs/verifier/reward.txt
else
    echo "FAIL: /home/hello.txt is missing or says something else"
    echo 0 > /logs/verifier/reward.txt
fi
