# common.sh is sourced by sandbox/python/refresh.sh and
# sandbox/javascript/refresh.sh: it checks the pinned toolchain
# (SOURCES), fetches and checks the pinned source archives, and builds
# wasi-libc into a sysroot, all under $work. Everything is built with
# SOURCE_DATE_EPOCH and -ffile-prefix-map so that the output does not
# depend on the time or on $work.

wasi_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export SOURCE_DATE_EPOCH=1700000000 LC_ALL=C TZ=UTC
umask 022

die() { echo "refresh: $*" >&2; exit 1; }

# pinned KIND NAME prints the rest of NAME's SOURCES line.
pinned() { awk -v k="$1" -v n="$2" '$1 == k && $2 == n { $1 = ""; $2 = ""; sub(/^  /, ""); print }' "$wasi_dir/SOURCES"; }

check_toolchain() {
	local name want got
	while read -r name want; do
		got="$(dpkg-query -W -f='${Version}' "$name" 2>/dev/null || true)"
		[[ "$got" == "$want" ]] || die "$name is ${got:-not installed}, SOURCES pins $want (apt-get install $name=$want)"
	done < <(awk '$1 == "deb" { print $2, $3 }' "$wasi_dir/SOURCES")
	want="$(pinned tool python3.11)"
	got="$(python3.11 -c 'import platform; print(platform.python_version())' 2>/dev/null || true)"
	[[ "$got" == "$want" ]] || die "python3.11 is ${got:-missing}, SOURCES pins $want"
	command -v zstd >/dev/null || die "zstd is missing"
}

# ensure_deb_src makes sure apt knows Debian's source packages: with no
# deb-src entry in its sources, it writes one (bookworm and trixie, the
# URIs and key of Debian's own entry) and runs apt-get update.
ensure_deb_src() {
	local list=/etc/apt/sources.list.d/swarmwage-deb-src.sources
	if grep -rqsE '^[[:space:]]*(Types:.*deb-src|deb-src[[:space:]])' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		return
	fi
	[[ -w /etc/apt/sources.list.d ]] ||
		die "apt has no deb-src entry and /etc/apt/sources.list.d is not writable: add one (Types: deb-src, Suites: bookworm trixie, URIs: http://deb.debian.org/debian) or set REFRESH_SOURCES"
	printf '%s\n' 'Types: deb-src' 'URIs: http://deb.debian.org/debian' 'Suites: bookworm trixie' \
		'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' >"$list"
	echo "refresh: wrote $list; apt-get update" >&2
	apt-get update >/dev/null || die "apt-get update failed after adding $list"
}

# fetch_source NAME puts NAME's pinned archive in $work/src and prints its path.
fetch_source() {
	local version archive sum
	read -r version archive sum < <(pinned src "$1")
	[[ -n "$sum" ]] || die "no src line for $1 in SOURCES"
	mkdir -p "$work/src"
	if [[ ! -f "$work/src/$archive" ]]; then
		if [[ -n "${REFRESH_SOURCES:-}" && -f "$REFRESH_SOURCES/$archive" ]]; then
			cp "$REFRESH_SOURCES/$archive" "$work/src/"
		else
			ensure_deb_src
			(cd "$work/src" && apt-get source --download-only "$1=$version" >/dev/null 2>&1) ||
				die "apt-get source $1=$version failed (add a deb-src entry for bookworm and trixie, then apt-get update)"
		fi
	fi
	echo "$sum  $work/src/$archive" | sha256sum -c --quiet - >&2 || die "$archive does not have the sha256 SOURCES pins"
	echo "$work/src/$archive"
}

# unpack ARCHIVE DIR extracts a source archive into DIR (its top directory stripped).
unpack() { mkdir -p "$2" && tar -xf "$1" -C "$2" --strip-components=1; }

# build_sysroot builds wasi-libc with clang-19 into $work/sysroot and
# makes $work/sdk, the layout of a WASI SDK that CPython's wasi-env and
# the QuickJS build use.
build_sysroot() {
	unpack "$(fetch_source wasi-libc)" "$work/wasi-libc"
	# check-symbols compares the headers' predefined macros with those
	# of the clang wasi-libc was released with (clang 14); clang 19
	# defines a few more, so only the libraries are made.
	make -s -C "$work/wasi-libc" -j"${JOBS:-2}" CC=clang-19 AR=llvm-ar-19 NM=llvm-nm-19 \
		EXTRA_CFLAGS="-O2 -DNDEBUG -ffile-prefix-map=$work/=" SYSROOT="$work/sysroot" \
		startup_files libc >/dev/null
	local lib="$work/sysroot/lib/wasm32-wasi" name
	for name in m rt pthread crypt util xnet resolv dl; do llvm-ar-19 crsD "$lib/lib$name.a"; done
	mkdir -p "$work/sdk/bin" "$work/sdk/share"
	ln -sfn "$work/sysroot" "$work/sdk/share/wasi-sysroot"
	for name in clang clang++ clang-cpp; do
		printf '#!/bin/sh\nexec %s-19 --target=wasm32-wasi "$@"\n' "$name" >"$work/sdk/bin/$name"
		chmod +x "$work/sdk/bin/$name"
	done
	ln -sf "$(command -v wasm-ld-19)" "$work/sdk/bin/wasm-ld"
	ln -sf "$(command -v llvm-ar-19)" "$work/sdk/bin/llvm-ar"
	ln -sf "$(command -v llvm-ranlib-19)" "$work/sdk/bin/ranlib"
	ln -sf "$(command -v llvm-nm-19)" "$work/sdk/bin/llvm-nm"
}

# wasm_opt_install installs the pinned binaryen from npm and sets wasm_opt.
wasm_opt_install() {
	npm install --silent --no-save --prefix "$work/binaryen" "binaryen@$(pinned npm binaryen)" >/dev/null
	wasm_opt=(node --max-old-space-size=8192 "$work/binaryen/node_modules/binaryen/bin/wasm-opt")
}
