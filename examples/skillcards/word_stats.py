#!/usr/bin/env python3
"""The program behind the word-stats SkillCard (word-stats.v1.0.0.json, next
to this file).

The card's cli binding is

    python3 word_stats.py [--top <top>]

The seller's node runs it in the card's directory, so the program is found
next to the card wherever the daemon runs. It expands <top> from the job
input (no shell: the value is one argument) and also passes the whole input
JSON on stdin. The program prints one JSON document on stdout, which the
buyer checks against the card's outputs_schema.
"""

import argparse
import collections
import json
import re
import sys

MAX_INPUT = 1 << 20


def main() -> int:
    ap = argparse.ArgumentParser(description="count words and sentences of {\"text\": ...} on stdin")
    ap.add_argument("--top", type=int, default=3, help="how many most frequent words to list (1-20)")
    args = ap.parse_args()
    if not 1 <= args.top <= 20:
        print("--top must be 1 to 20", file=sys.stderr)
        return 2
    raw = sys.stdin.read(MAX_INPUT + 1)
    if len(raw) > MAX_INPUT:
        print(f"input is over {MAX_INPUT} bytes", file=sys.stderr)
        return 1
    try:
        job = json.loads(raw)
    except json.JSONDecodeError as e:
        print(f"input is not JSON: {e}", file=sys.stderr)
        return 1
    text = job.get("text") if isinstance(job, dict) else None
    if not isinstance(text, str):
        print('input needs a "text" string', file=sys.stderr)
        return 1
    words = re.findall(r"[A-Za-z0-9']+", text.lower())
    sentences = [s for s in re.split(r"[.!?]+", text) if s.strip()]
    top = collections.Counter(words).most_common(args.top)
    json.dump(
        {
            "words": len(words),
            "sentences": len(sentences),
            "top_words": [{"word": w, "count": c} for w, c in top],
        },
        sys.stdout,
    )
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
