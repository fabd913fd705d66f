#!/bin/sh
# Echoes the job input it reads on stdin.
cat
