#!/usr/bin/env bash
# build.sh: compiles contracts/*.sol with the pinned solcjs (package-lock.json)
# into contracts/artifacts/<Name>.json and regenerates the Go bindings with the
# pinned abigen:
#
#   SwarmwageEscrow, TestStablecoin -> escrow/evm/contract (package contract)
#   test/HostileTokens.sol          -> escrow/evm/internal/hostile (tests only)
#
# Usage: contracts/build.sh           rebuild in place
#        contracts/build.sh --check   rebuild into a temp dir; exit 1 if the
#                                     committed artifacts or bindings differ
# Needs node and npm (installs the pinned tools with 'npm ci' when missing) and Go.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

abigen_pkg=github.com/ethereum/go-ethereum/cmd/abigen@v1.17.10
check=false
case "${1:-}" in
  "") ;;
  --check) check=true ;;
  *) echo "usage: contracts/build.sh [--check]" >&2; exit 2 ;;
esac

# One install at a time: tests of several packages may need the tools at once
# (escrow/evm/evmtest takes the same lock).
(
  flock 9
  [[ -f node_modules/solc/package.json ]] || npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
) 9>.install.lock

artifacts=artifacts
bindings=../escrow/evm/contract
hostile=../escrow/evm/internal/hostile
if $check; then
  tmp=$(mktemp -d)
  artifacts=$tmp/artifacts bindings=$tmp/contract hostile=$tmp/hostile
fi
mkdir -p "$artifacts" "$bindings" "$hostile"

# The pinned abigen, built once for the six bindings below ('go run' would
# link it again for each).
tools=$(mktemp -d)
trap 'rm -rf "$tools" ${tmp:+"$tmp"}' EXIT
GOBIN=$tools go install "$abigen_pkg"
abigen=("$tools/abigen")

node compile.cjs "$artifacts" SwarmwageEscrow.sol TestStablecoin.sol test/HostileTokens.sol

# bind NAME PKG OUTFILE: Go binding of one artifact (ABI, and bytecode for Deploy).
bind() {
  local name=$1 pkg=$2 out=$3 work
  work=$(mktemp -d)
  node -e '
    const a = require(process.argv[1]);
    const fs = require("fs");
    fs.writeFileSync(process.argv[2] + "/abi.json", JSON.stringify(a.abi));
    fs.writeFileSync(process.argv[2] + "/bin.hex", a.bytecode.replace(/^0x/, ""));
  ' "$(cd "$artifacts" && pwd)/$name.json" "$work"
  "${abigen[@]}" --abi "$work/abi.json" --bin "$work/bin.hex" --pkg "$pkg" --type "$name" --out "$out"
  rm -rf "$work"
}
bind SwarmwageEscrow contract "$bindings/escrow.go"
bind TestStablecoin contract "$bindings/stablecoin.go"
for t in FalseToken NoReturnToken ReentrantToken FeeToken; do
  bind "$t" hostile "$hostile/$(tr '[:upper:]' '[:lower:]' <<<"$t").go"
done

if $check; then
  status=0
  diff -ru artifacts "$artifacts" || status=1
  for f in "$bindings"/*.go; do diff -u "../escrow/evm/contract/$(basename "$f")" "$f" || status=1; done
  for f in "$hostile"/*.go; do diff -u "../escrow/evm/internal/hostile/$(basename "$f")" "$f" || status=1; done
  if ((status)); then
    echo "contracts/build.sh --check: committed artifacts or bindings differ from the source; run contracts/build.sh" >&2
    exit 1
  fi
  echo "contracts/build.sh --check: artifacts and bindings match the source"
fi
