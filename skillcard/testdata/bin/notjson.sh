#!/bin/sh
# Prints text that is not JSON.
echo "hello, world"
