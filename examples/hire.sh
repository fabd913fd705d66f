#!/usr/bin/env bash
# Hire from a script: a loop of 'swarmwage hire --json', the output read
# with jq, and a branch per exit code (README, "Exit codes"):
#   0 delivered, verified and released     3 no seller at or under --max-price
#   4 the job failed at the seller (refund) 5 verification failed (refund)
#   2 bad input or usage                    1 anything else
#
# Run it against a buyer whose daemon runs, e.g. with examples/local-network.sh:
#   examples/local-network.sh -- examples/hire.sh
# or with SWARMWAGE_REPO pointing at your buyer's repo. $SWARMWAGE is the binary
# (default: swarmwage on the PATH). $MAX_PRICE caps each hire (default 0.05).
set -euo pipefail

sw=${SWARMWAGE:-swarmwage}
max_price=${MAX_PRICE:-0.05}
released=0 no_seller=0 job_failed=0 verification_failed=0 spent_micro=0

# hire CAP INPUT [MAX_PRICE]: one hire, reported by exit code.
hire() {
  local cap=$1 input=$2 max=${3:-$max_price} out code
  set +e
  out=$("$sw" hire --json --max-price "$max" --timeout 30s --input-json "$input" "$cap" 2>/dev/null)
  code=$?
  set -e
  case $code in
    0)
      released=$((released + 1))
      # Prices are decimal strings; add them up in micro-credits, as the ledger does.
      spent_micro=$((spent_micro + $(jq '.price | tonumber * 1000000 | round' <<<"$out")))
      printf '%-26s ok      %s  (paid %s to %s…, job %s)\n' "$cap" "$(jq -c .output <<<"$out")" \
        "$(jq -r .price <<<"$out")" "$(jq -r '.seller[0:12]' <<<"$out")" "$(jq -r .job_id <<<"$out")"
      ;;
    3)
      no_seller=$((no_seller + 1))
      printf '%-26s none    no seller at or under %s credits; nothing was paid\n' "$cap" "$max"
      ;;
    4)
      job_failed=$((job_failed + 1))
      printf '%-26s failed  the seller failed the job, escrow %s: %s\n' "$cap" \
        "$(jq -r .escrow.state <<<"$out")" "$(jq -r '.error // "" | .[0:100]' <<<"$out")"
      ;;
    5)
      verification_failed=$((verification_failed + 1))
      printf '%-26s caught  output failed checks %s, escrow %s\n' "$cap" \
        "$(jq -r '[.verification.checks[] | select(.passed | not) | .name] | join(",")' <<<"$out")" \
        "$(jq -r .escrow.state <<<"$out")"
      ;;
    2)
      echo "hire.sh: $cap: bad input $input (exit 2)" >&2
      exit 2
      ;;
    *)
      echo "hire.sh: $cap: swarmwage hire failed (exit $code); is the daemon running? 'swarmwage daemon'" >&2
      exit 1
      ;;
  esac
}

# The loop: a few data sets for the mean.
for data in '[1,2,3,4]' '[2.5,3.5]' '[10,20,30,40,50]'; do
  hire compute.statistics.mean "{\"data\":$data}"
done
# A rewrite through the seller's Python exec worker; then one it rejects.
hire text.rewrite.casual '{"text":"I am writing regarding the meeting; however, I cannot attend."}'
hire text.rewrite.casual '{"text":"   "}'
# A SkillCard sold with a cli binding (examples/skillcards/).
hire custom.examples.word-stats '{"text":"One fish. Two fish. Red fish. Blue fish.","top":1}'
# A dishonest seller (see examples/workers/wrong_median.py): caught, refunded.
hire compute.statistics.median '{"data":[1,2,10]}'
# A price nobody asks.
hire compute.statistics.mean '{"data":[1]}' 0.000001

spent=$(jq -n "$spent_micro / 1000000")
echo "released=$released no_seller=$no_seller job_failed=$job_failed verification_failed=$verification_failed spent=$spent"
