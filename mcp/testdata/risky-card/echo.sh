#!/bin/sh
# Prints the arguments of a SkillCard cli binding as JSON (the card's input
# schema allows only lowercase letters, so no escaping is needed).
printf '{"args":["%s","%s"]}\n' "$1" "$2"
