#!/bin/sh
# Prints a JSON object with the number of arguments it got.
echo "{\"ok\": true, \"argc\": $#}"
