#!/bin/bash
echo "Hello World" > /home/hello.txt
