#!/bin/sh
# Prints without end.
while :; do echo "{\"padding\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}"; done
