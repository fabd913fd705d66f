#!/bin/sh
# Fails with a reason on stderr.
echo "boom: count out of range" >&2
exit 3
