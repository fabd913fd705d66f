#!/usr/bin/env bash
# refresh.sh builds the QuickJS that package sandbox embeds for JavaScript
# jobs, from the pinned Debian quickjs source and wasi-libc
# (sandbox/wasi/SOURCES) with clang-19 at -O2, its guest main.c next to
# this script, then wasm-opt -O2; and rewrites quickjs.wasm.zst, SHA256
# (of quickjs.wasm, which the sandbox checks at load), VERSION and
# LICENSE next to this script.
#
# Usage: sandbox/javascript/refresh.sh   (REFRESH_SOURCES=DIR takes the
# source archives from DIR instead of apt-get source; JOBS=N for make)
#
# Reproducible: the same pinned sources and toolchain give the same bytes
# (SOURCE_DATE_EPOCH, -ffile-prefix-map, no debug info).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../wasi/common.sh
source "$here/../wasi/common.sh"
work="${REFRESH_WORK:-$(mktemp -d)}"
[[ -n "${REFRESH_WORK:-}" ]] || trap 'rm -rf "$work"' EXIT

check_toolchain
[[ -d "$work/sysroot/lib/wasm32-wasi" ]] || build_sysroot
wasm_opt_install

read -r qjs_version _ < <(pinned src quickjs)
qjs="$work/quickjs"
rm -rf "$qjs"
unpack "$(fetch_source quickjs)" "$qjs"
# QuickJS builds for WASI as for Emscripten: no computed goto (wasm has no
# indirect branch), no Atomics (no threads), no malloc_usable_size. dtoa.c
# includes setjmp.h, which it does not use and this wasi-libc lacks.
sed -i -e 's/^#if defined(EMSCRIPTEN)$/#if defined(EMSCRIPTEN) || defined(__wasi__)/' \
	-e 's/^#elif defined(EMSCRIPTEN)$/#elif defined(EMSCRIPTEN) || defined(__wasi__)/' \
	-e '/define to include Atomics/,/#endif/ s/!defined(EMSCRIPTEN)/!defined(EMSCRIPTEN) \&\& !defined(__wasi__)/' \
	"$qjs/quickjs.c"
sed -i -e 's|^#include <setjmp.h>$||' "$qjs/dtoa.c"
cp "$here/main.c" "$qjs/sandbox_main.c"

cc=("$work/sdk/bin/clang" --sysroot="$work/sysroot" -O2 -fwrapv -D_GNU_SOURCE
	-DCONFIG_VERSION="\"$(cat "$qjs/VERSION")\"" -ffile-prefix-map="$work/=" -I"$qjs")
objs=()
for f in quickjs libregexp libunicode cutils dtoa sandbox_main; do
	"${cc[@]}" -c "$qjs/$f.c" -o "$qjs/$f.o" 2> >(grep -v -e 'warning:' -e '^ ' -e '^[0-9]* warning' >&2 || true)
	objs+=("$qjs/$f.o")
done
# A 1 MiB shadow stack first in memory, so an overflow traps instead of
# writing over data; main.c keeps QuickJS's own limit below it.
"${cc[@]}" -z stack-size=1048576 -Wl,--stack-first -Wl,--strip-all "${objs[@]}" -lm -o "$qjs/quickjs-raw.wasm"
"${wasm_opt[@]}" "$qjs/quickjs-raw.wasm" --strip-debug --strip-producers -O2 -o "$work/quickjs.wasm"

zstd -q -f -19 "$work/quickjs.wasm" -o "$here/quickjs.wasm.zst"
(cd "$work" && sha256sum quickjs.wasm) >"$here/SHA256"
cat "$qjs/VERSION" >"$here/VERSION"
cp "$qjs/LICENSE" "$here/LICENSE"
echo "refreshed quickjs $qjs_version: $(cut -d' ' -f1 "$here/SHA256")"
