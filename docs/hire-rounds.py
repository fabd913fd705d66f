#!/usr/bin/env python3
"""Compare two swarmwage binaries' hires, in turns (issue 25's measure).

    python3 docs/hire-rounds.py REF_BINARY BINARY [ROUNDS]

Each round runs, for REF_BINARY then BINARY, `bench hire -n 300
--concurrency 1 --json` (the p50 of one hire at a time) and `bench hire -n
2000 --concurrency 32 --json` (hires a second with 32 in flight). It prints
every round and, at the end, the medians and their ratios (BINARY over
REF_BINARY), and each round's own ratios: the machine drifts over minutes,
so only figures taken in the same window compare. The reference of issue
25 is the first release, built from git history:

    git worktree add /tmp/ref0d 0d56478
    (cd /tmp/ref0d && go build -o /tmp/swarmwage-0d56478 ./cmd/swarmwage)
    go build -o /tmp/swarmwage ./cmd/swarmwage
    python3 docs/hire-rounds.py /tmp/swarmwage-0d56478 /tmp/swarmwage 5

Run it from a directory other than a checkout's root if the binaries should
not find contracts/ (they do not need it for credits).
"""
import json
import statistics
import subprocess
import sys


def bench(binary, n, concurrency):
    out = subprocess.run([binary, "bench", "hire", "-n", str(n), "--concurrency", str(concurrency), "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    ref, new = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) == 4 else 5
    p50 = {ref: [], new: []}
    rate = {ref: [], new: []}
    for r in range(1, rounds + 1):
        for b in (ref, new):
            p50[b].append(bench(b, 300, 1)["p50_ms"])
            rate[b].append(bench(b, 2000, 32)["hires_per_s"])
        print(f"round {r}: p50 {p50[ref][-1]:.2f} / {p50[new][-1]:.2f} ms, "
              f"32 in flight {rate[ref][-1]:.0f} / {rate[new][-1]:.0f} hires/s", flush=True)
    med = lambda b, d: statistics.median(d[b])
    print(f"p50 medians: {med(ref, p50):.2f} ms / {med(new, p50):.2f} ms, ratio {med(new, p50) / med(ref, p50):.2f}")
    print(f"hires/s medians: {med(ref, rate):.0f} / {med(new, rate):.0f}, ratio {med(new, rate) / med(ref, rate):.2f}")
    print("per round p50 ratio:", [round(n / r, 2) for r, n in zip(p50[ref], p50[new])])
    print("per round hires/s ratio:", [round(n / r, 2) for r, n in zip(rate[ref], rate[new])])


if __name__ == "__main__":
    main()
