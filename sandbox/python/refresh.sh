#!/usr/bin/env bash
# refresh.sh builds the CPython that package sandbox embeds, from the
# pinned Debian source package and wasi-libc (sandbox/wasi/SOURCES), with
# clang-19 at -O3 (CPython's own optimised build for WASI, Tools/wasm);
# instruments it with Binaryen's Asyncify for the snapshot every sandbox
# instance starts from (sandbox/snapshot.go) and optimises it with
# wasm-opt -O2 in the same pass; builds
# the standard library zip (stdlib.py); and rewrites python.wasm.zst,
# stdlib.zip, SHA256 (of python.wasm and stdlib.zip, which the sandbox
# checks at load), ASYNCIFY (what was instrumented), VERSION and LICENSE
# next to this script.
#
# Usage: sandbox/python/refresh.sh
#   REFRESH_SOURCES=DIR  take the source archives from DIR, not apt-get source
#   REFRESH_WORK=DIR     build in DIR and keep it (default: a temporary dir)
#   JOBS=N               make -jN (default 2)
#
# Needs the toolchain SOURCES pins (clang-19, lld-19, llvm-19,
# libclang-rt-19-dev-wasm32 from bookworm; python3.11), npm and node (for
# binaryen), go and zstd. Asyncify instruments only the functions on the
# wasm stack at the interpreter's first read of stdin (asyncify/main.go
# finds them by running the build), so rerun this script when bootstrap.py
# or its arguments (sandbox/bootstrap.go) change how the job is read; New
# checks a restored instance with a probe job and falls back to full
# start-ups if the instrumentation does not fit. That read is the
# interactive loop's (-i), after the bootstrap has run, so no Python frame
# is on the stack and the bytecode loop is not instrumented: instrumented,
# it made CPU-bound Python ~1.3x slower in CPU time (README, Performance).
#
# The output is reproducible: the same pinned sources, toolchain and
# bootstrap give the same bytes (SOURCE_DATE_EPOCH, -ffile-prefix-map, no
# debug info, a zip with sorted names and fixed times; .ci/sandbox-builds
# rebuilds when these inputs change and compares with the committed
# files). The wasm is compressed with
# `zstd -19 --long=27`; the Go decoder reads windows up to 128 MiB, so
# keep --long at 27 or below.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=../wasi/common.sh
source "$here/../wasi/common.sh"
work="${REFRESH_WORK:-$(mktemp -d)}"
[[ -n "${REFRESH_WORK:-}" ]] || trap 'rm -rf "$work"' EXIT

check_toolchain
[[ -d "$work/sysroot/lib/wasm32-wasi" ]] || build_sysroot
wasm_opt_install

read -r py_pkg_version _ < <(pinned src python3.11)
# Named as upstream names it: the -ffile-prefix-map'd __FILE__ strings in
# the build read Python-X.Y.Z/..., whatever $work is.
src="$work/Python-${py_pkg_version%%-*}"
if [[ ! -f "$src/builddir/wasi/python.wasm" ]]; then
	rm -rf "$src"
	unpack "$(fetch_source python3.11)" "$src"
	mkdir -p "$src/builddir/wasi/Modules"
	# Modules the guest cannot use or that only cost build time and size:
	# the CJK codecs' tables, _decimal (decimal falls back to _pydecimal),
	# ctypes and the test modules.
	printf '%s\n' '*disabled*' _decimal _codecs_cn _codecs_hk _codecs_iso2022 _codecs_jp \
		_codecs_kr _codecs_tw _multibytecodec _ctypes _ctypes_test _testcapi _testinternalcapi \
		_testbuffer _testimportmultiple _testmultiphase _xxtestfuzz xxsubtype xxlimited xxlimited_35 \
		>"$src/builddir/wasi/Modules/Setup.local"
	(
		cd "$src/builddir/wasi"
		export WASI_SDK_PATH="$work/sdk"
		# pymalloc: CPython turns it off for WASI by default, but it needs
		# nothing WASI lacks (arenas come from malloc without mmap) and is
		# much faster than dlmalloc for small objects.
		# -Wno-error=int-conversion: clang 16+ makes it an error, and 3.11's
		# timemodule.c passes wasi-libc's clockid_t constants (pointers) as
		# long, which clang 14 (WASI SDK 16) only warned about.
		CONFIG_SITE=../../Tools/wasm/config.site-wasm32-wasi \
			OPT="-DNDEBUG -fwrapv -O3 -Wall" CFLAGS="-ffile-prefix-map=$work/= -Wno-error=int-conversion" \
			../../Tools/wasm/wasi-env ../../configure -C --host=wasm32-unknown-wasi \
			--build="$(../../config.guess)" --with-build-python=python3.11 \
			--with-pymalloc --disable-test-modules --without-ensurepip >configure.out 2>&1 ||
			{ tail -20 configure.out >&2; die "configure failed"; }
		../../Tools/wasm/wasi-env make -j"${JOBS:-2}" >make.out 2>&1 || { tail -30 make.out >&2; die "make failed"; }
	)
fi
version="$(sed -n 's/^#define PY_VERSION[[:space:]]*"\(.*\)"/\1/p' "$src/Include/patchlevel.h")"
minor="${version%.*}"

python3.11 "$here/stdlib.py" "$src/Lib" \
	"$(ls "$src"/builddir/wasi/build/lib.wasi-wasm32-"$minor"/_sysconfigdata_*.py)" "$work/stdlib.zip" "$work" >&2
rm -rf "$work/home" && mkdir -p "$work/home/lib/python$minor"
(cd "$work/home/lib/python$minor" && unzip -q "$work/stdlib.zip")

# One wasm-opt run does both: Asyncify on the stack of the first read
# (about 25 functions: main, the interactive loop, the parser's, the
# tokenizer's and stdio's), then -O2 over the whole module (the clang
# build's function names go first, so the helper can name every function
# f<index>).
"${wasm_opt[@]}" "$src/builddir/wasi/python.wasm" --strip-debug --strip-producers -o "$work/stripped.wasm"
helper=(go run "$root/sandbox/python/asyncify")
stack="$("${helper[@]}" stack "$work/stripped.wasm" "$root/sandbox/bootstrap.py" "$work/home")"
"${helper[@]}" names "$work/stripped.wasm" "$work/named.wasm"
"${wasm_opt[@]}" "$work/named.wasm" --strip-debug --strip-producers \
	--asyncify \
	--pass-arg=asyncify-imports@wasi_snapshot_preview1.fd_read \
	--pass-arg="asyncify-onlylist@$stack" \
	-O2 -o "$work/python.wasm"

zstd -q -f -19 --long=27 "$work/python.wasm" -o "$here/python.wasm.zst"
cp "$work/stdlib.zip" "$here/stdlib.zip"
(cd "$work" && sha256sum python.wasm stdlib.zip) >"$here/SHA256"
cat >"$here/ASYNCIFY" <<EOT
binaryen@$(pinned npm binaryen) wasm-opt --strip-debug --strip-producers --asyncify --pass-arg=asyncify-imports@wasi_snapshot_preview1.fd_read --pass-arg=asyncify-onlylist@<functions> -O2
functions (f<index> in the clang build; the stack of the interactive loop's first read):
$stack
EOT
cp "$src/LICENSE" "$here/LICENSE"
printf '%s\n' "$version" >"$here/VERSION"
echo "refreshed CPython $version (Debian python3.11 $py_pkg_version): $(cut -d' ' -f1 "$here/SHA256" | head -1)"
