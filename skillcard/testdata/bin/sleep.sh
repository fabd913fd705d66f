#!/bin/sh
# Never finishes; its child holds stdout open too.
sleep 30 &
sleep 30
