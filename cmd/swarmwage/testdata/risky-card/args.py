#!/usr/bin/env python3
# Prints the arguments it was given as JSON: what a SkillCard's cli binding
# passed, word for word.
import json
import sys

print(json.dumps({"args": sys.argv[1:]}))
