#!/usr/bin/env python3
"""Attribute a bench hire CPU profile to the steps of a hire.
usage: python3 docs/hire-cost.py BINARY DIR/cpu.pprof HIRES
(the profile of "swarmwage bench hire --n HIRES --profile DIR", the binary
that wrote it).
Each sample goes to the first step (in the order below) one of whose
patterns matches a frame of its stack."""
import re, subprocess, sys
from collections import defaultdict
binp, prof, hires = sys.argv[1], sys.argv[2], int(sys.argv[3])
steps = [
 ("storage: badger write/sync/flush/compaction (background)", r"badger/v4\.\(\*DB\)\.doWrites|badger/v4\.\(\*levelsController\)|flushMemtable|handleMemTableFlush|badger/v4\.\(\*DB\)\.updateSize|badger/v4/table\."),
 ("route (candidates, find cache)", r"market\.\(\*(Market|Buyer)\)\.(candidates|findCached|sellerByID)"),
 ("quote (buyer quote + seller handleQuote)", r"market\.\(\*(Market|Buyer)\)\.(quote|cachedQuote|keepQuote)$|market\.\(\*seller\)\.handleQuote"),
 ("verify (input + output checks)", r"market\.check$|verify\.Verify$|verify\.VerifyWithSchema|verify\.ValidateInput|market\.checkHireInput|market\.validateInput"),
 ("receipts/job records (market jobs store, counterparties, latency)", r"market\.\(\*jobs\)\.|market\.\(\*Market\)\.updateJob|rememberCounterparty|recordLatency|market\.\(\*latencies\)|recordAttempts|SaveEvents|[Rr]eceipt"),
 ("lock (buyer Lock, seller checkJob/PrepareAccept/AcceptLock)", r"escrow\.\(\*Escrow\)\.Lock$|market\.\(\*seller\)\.checkJob|escrow\.\(\*Escrow\)\.(AcceptLock|PrepareAccept)|escrow\.\(\*Accepting\)\.Accept$|market\.\(\*seller\)\.accept$|market\.DecodeJobRequest"),
 ("settle (buyer decision: Decide or Release/Refund; settle msg both sides, outbox)", r"escrow\.\(\*Escrow\)\.(Decide|Refund)|market\.\(\*Buyer\)\.(decide|refundDelivered)|escrow\.\(\*Escrow\)\.Release|market\.\(\*(Market|Buyer)\)\.sendSettle|market\.\(\*shared\)\.followEscrow|market\.\(\*Market\)\.sendSettle|market\.\(\*seller\)\.handleSettle|market\.\(\*Market\)\.followEscrow|market\.\(\*Market\)\.decidedLoop|escrow\.\(\*Escrow\)\.ApplySettle|escrow\.\(\*Escrow\)\.notify"),
 ("delivery (seller Deliver or AcceptDelivered, buyer RecordDelivery)", r"escrow\.\(\*Escrow\)\.RecordDelivery|escrow\.\(\*Escrow\)\.Deliver|escrow\.\(\*Accepting\)\.AcceptDelivered|market\.\(\*seller\)\.(finish|finishTaken|acceptDelivered)"),
 ("job stream (buyer runJob/postJob, seller handleJob/runJob)", r"market\.\(\*(Market|Buyer)\)\.(runJob|postJob|runHire|run)$|market\.\(\*Market\)\.runJob|market\.\(\*Market\)\.postJob|market\.\(\*seller\)\.handleJob|market\.\(\*seller\)\.runJob|market\.\(\*agentClient\)|market\.\(\*Market\)\.runHire"),
 ("transport (libp2p streams, yamux, tls, http server)", r"libp2p|yamux|crypto/tls|net/http|multistream|internal/poll|net\.\(\*conn\)"),
 ("other swarmwage", r"swarmwage"),
 ("runtime/GC/scheduler", r"^runtime\.|^gcBgMarkWorker|runtime/"),
]
comp = [(n, re.compile(p)) for n, p in steps]
out = subprocess.run(["go", "tool", "pprof", "-traces", binp, prof], capture_output=True, text=True).stdout
blocks = out.split("-----------+-------------------------------------------------------")[1:]
tot = defaultdict(float); node = defaultdict(lambda: defaultdict(float)); total = 0.0
def secs(v):
    m = re.match(r"([\d.]+)(ms|s|us)", v); x = float(m.group(1))
    return x/1000 if m.group(2) == "ms" else (x/1e6 if m.group(2) == "us" else x)
for b in blocks:
    lines = [l for l in b.strip("\n").split("\n") if l.strip()]
    lab = "-"; frames = []; val = None
    for l in lines:
        s = l.strip()
        if s.startswith("node:"):
            lab = s.split()[-1]; continue
        m = re.match(r"^\s+([\d.]+(?:ms|s|us))\s+(.*)$", l)
        if m and val is None:
            val = secs(m.group(1)); frames.append(m.group(2).strip())
        elif val is not None:
            frames.append(s)
    if val is None: continue
    total += val
    for n, r in comp:
        if any(r.search(f) for f in frames):
            tot[n] += val; node[n][lab] += val; break
    else:
        tot["unattributed"] += val; node["unattributed"][lab] += val
print(f"total {total:.2f}s CPU for {hires} hires = {total/hires*1000:.2f} ms/hire")
print(f"{'step':80s} {'ms/hire':>8s} {'%':>5s}  buyer/seller/none ms")
for n, _ in steps + [("unattributed", "")]:
    if n not in tot: continue
    d = node[n]
    print(f"{n:80s} {tot[n]/hires*1000:8.3f} {100*tot[n]/total:5.1f}  {d.get('buyer',0)/hires*1000:.3f}/{d.get('seller',0)/hires*1000:.3f}/{d.get('-',0)/hires*1000:.3f}")
