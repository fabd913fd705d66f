#!/usr/bin/env bash
# Three swarmwage daemons on this machine: a bootstrap node (also the
# network's relay), a seller and a buyer, on a private network, listening on
# 127.0.0.1 only.
#
#   examples/local-network.sh             # start them, print what to try next, Ctrl-C stops all
#   examples/local-network.sh -- CMD...   # start them, run CMD with SWARMWAGE_REPO set to the
#                                         # buyer's repo, stop them; exits with CMD's exit code
#
# The binary: $SWARMWAGE, else 'swarmwage' on the PATH, else ./swarmwage at the
# repository root (build it: go build -o swarmwage ./cmd/swarmwage).
# Repos go to a temporary directory (or $SWARMWAGE_NET_DIR), removed on exit
# unless KEEP=1. Needs jq and python3 (the seller's exec workers).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
network=${NETWORK:-local}

if [[ -n ${SWARMWAGE:-} ]]; then sw=$SWARMWAGE
elif command -v swarmwage >/dev/null; then sw=$(command -v swarmwage)
elif [[ -x $root/swarmwage ]]; then sw=$root/swarmwage
else
  echo "local-network.sh: no swarmwage binary; build it first: go build -o swarmwage ./cmd/swarmwage" >&2
  exit 1
fi
for tool in jq python3; do
  command -v "$tool" >/dev/null || { echo "local-network.sh: $tool is needed (e.g. apt-get install $tool)" >&2; exit 1; }
done

base=${SWARMWAGE_NET_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/swarmwage-net.XXXXXX")}
mkdir -p "$base"
pids=()

cleanup() {
  local code=$?
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [[ ${KEEP:-0} != 1 ]]; then rm -rf "$base"; else echo "kept the repos in $base" >&2; fi
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# start NAME [init flags...]: init a repo and run its daemon in the background.
start() {
  local name=$1; shift
  local repo=$base/$name
  "$sw" --repo "$repo" init --network "$network" --listen /ip4/127.0.0.1/tcp/0 --api 127.0.0.1:0 "$@" >/dev/null
  if [[ $name == seller ]]; then sell "$repo"; fi
  # The bootstrap node is also the network's relay, for members behind NAT
  # (on one machine nobody is, but this is how a real network starts it).
  local daemon_flags=()
  if [[ $name == bootstrap ]]; then daemon_flags=(--relay-service); fi
  "$sw" --repo "$repo" daemon "${daemon_flags[@]}" >"$base/$name.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 300); do
    if grep -q '^Daemon is ready' "$base/$name.log"; then return 0; fi
    if ! kill -0 "${pids[-1]}" 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "local-network.sh: the $name daemon did not start; its log:" >&2
  cat "$base/$name.log" >&2
  return 1
}

# sell REPO: what the seller lists (offline, before its daemon starts).
sell() {
  local repo=$1
  "$sw" --repo "$repo" sell add --price 0.01 compute.statistics.mean >/dev/null
  "$sw" --repo "$repo" sell add --price 0.02 --handler "exec:python3 '$here/workers/rewrite_casual.py'" text.rewrite.casual >/dev/null
  "$sw" --repo "$repo" sell add --price 0.01 --skillcard "$here/skillcards/word-stats.v1.0.0.json" custom.examples.word-stats >/dev/null
  # A dishonest worker: returns the mean as the median. Buyers catch it.
  "$sw" --repo "$repo" sell add --price 0.01 --handler "exec:python3 '$here/workers/wrong_median.py'" compute.statistics.median >/dev/null
}

start bootstrap
boot=$("$sw" --repo "$base/bootstrap" id --json | jq -r '.addrs[0]')
start seller --bootstrap "$boot"
start buyer --bootstrap "$boot"
"$sw" --repo "$base/buyer" wallet deposit 10 >/dev/null

# Wait until the buyer finds the seller's listings in the DHT.
for cap in compute.statistics.mean text.rewrite.casual custom.examples.word-stats compute.statistics.median; do
  found=0
  for _ in $(seq 1 60); do
    n=$("$sw" --repo "$base/buyer" find --json --timeout 5s "$cap" | jq '.sellers | length')
    if [[ $n -gt 0 ]]; then found=1; break; fi
    sleep 0.5
  done
  if [[ $found != 1 ]]; then
    echo "local-network.sh: the buyer does not find $cap; logs in $base/*.log" >&2
    KEEP=1
    exit 1
  fi
done

if [[ ${1:-} == -- ]]; then
  shift
  SWARMWAGE_REPO=$base/buyer SWARMWAGE=$sw "$@"
  exit $?
fi

cat <<MSG
Three daemons on network '$network' (loopback only); repos and logs in $base
  bootstrap  $boot  (relay: $("$sw" --repo "$base/bootstrap" status --json | jq -r .reachability))
  seller     $("$sw" --repo "$base/seller" id --json | jq -r .peer_id)  sells compute.statistics.mean, text.rewrite.casual, custom.examples.word-stats (SkillCard),
             compute.statistics.median (dishonest)
  buyer      $("$sw" --repo "$base/buyer" id --json | jq -r .peer_id)  has 10 test credits

Try, in another terminal:
  export SWARMWAGE_REPO=$base/buyer
  $sw find compute.statistics.mean
  $sw hire --input-json '{"data":[3,1,4,1,5]}' compute.statistics.mean
  $sw hire --input-json '{"text":"I am unable to attend; however, I would like to assist."}' text.rewrite.casual
  $sw hire --input-json '{"text":"One fish. Two fish. Red fish.","top":1}' custom.examples.word-stats
  $sw hire --input-json '{"data":[1,2,10]}' compute.statistics.median     # exit 5: caught, refunded
  $sw wallet balance
  $sw jobs list
  $sw --repo $base/seller wallet balance
  SWARMWAGE=$sw $here/hire.sh

Ctrl-C stops the three daemons and removes $base (KEEP=1 keeps it).
MSG
wait
