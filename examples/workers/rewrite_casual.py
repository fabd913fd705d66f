#!/usr/bin/env python3
"""A swarmwage exec worker for text.rewrite.casual.

The seller's node runs this program once per job, without a shell:

    swarmwage sell add --price 0.02 \
        --handler 'exec:python3 examples/workers/rewrite_casual.py' text.rewrite.casual

Contract (README, "Run a seller"): the job's input JSON arrives on stdin,
here {"text": "..."}; the program prints one JSON document on stdout, here
{"text": "..."}, and exits 0. Anything else (a non-zero exit, no JSON, a
timeout) fails the job and the buyer is refunded. stderr is kept for the
error message. The buyer verifies the output against the capability's output
schema (swarmwage caps show text.rewrite.casual) before paying.

Only the standard library: rule-based, so the output is the same every run.
"""

import json
import re
import sys

# Formal phrase -> casual phrase, applied word-boundary aware and case-preserving.
REPLACEMENTS = [
    (r"\bgreetings\b", "hey"),
    (r"\bdo not\b", "don't"),
    (r"\bdoes not\b", "doesn't"),
    (r"\bdid not\b", "didn't"),
    (r"\bcannot\b", "can't"),
    (r"\bwill not\b", "won't"),
    (r"\bis not\b", "isn't"),
    (r"\bare not\b", "aren't"),
    (r"\bI am\b", "I'm"),
    (r"\bit is\b", "it's"),
    (r"\bwe are\b", "we're"),
    (r"\byou are\b", "you're"),
    (r"\bthey are\b", "they're"),
    (r"\bI would\b", "I'd"),
    (r"\bwould like to\b", "want to"),
    (r"\bhowever\b", "but"),
    (r"\bfurthermore\b", "also"),
    (r"\bmoreover\b", "plus"),
    (r"\btherefore\b", "so"),
    (r"\bnevertheless\b", "still"),
    (r"\bregarding\b", "about"),
    (r"\bmake a purchase\b", "buy something"),
    (r"\bassistance\b", "help"),
    (r"\bassist\b", "help"),
    (r"\bcommence\b", "start"),
    (r"\butilize\b", "use"),
    (r"\bapproximately\b", "about"),
    (r"\bsufficient\b", "enough"),
    (r"\bplease be advised that\s*", ""),
    (r"\bkind regards\b", "cheers"),
]

MAX_INPUT = 1 << 20  # bytes; the seller caps inputs too, this is a second guard


def keep_case(src: str, dst: str) -> str:
    if not dst:
        return dst
    if src[:1].isupper():
        return dst[:1].upper() + dst[1:]
    return dst


def casual(text: str) -> str:
    out = text
    for pattern, repl in REPLACEMENTS:
        out = re.sub(pattern, lambda m, r=repl: keep_case(m.group(0), r), out, flags=re.IGNORECASE)
    # A casual text ends on a lighter note than a full stop after a greeting.
    out = re.sub(r"^(Hey)[,.]", r"\1!", out)
    return out.strip() or text.strip()


def main() -> int:
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
    if not isinstance(text, str) or not text.strip():
        print('input needs a non-empty "text" string', file=sys.stderr)
        return 1
    json.dump({"text": casual(text)}, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
