#!/usr/bin/env bash
# Builds haltpoll/haltpoll_bind.ko (the haltpoll oracle guest's test module,
# tests/vm/oracle.sh) for one Debian x86_64 kernel release, against Debian's
# linux-headers and linux-kbuild packages of that release, downloaded with
# apt-get download and unpacked into the cache (never installed: the host's
# dpkg is untouched). Prints the module's path; cached by release and source.
# Usage: haltpoll-module.sh RELEASE     (e.g. 6.12.118+deb12-amd64)
# Debian builds these kernels with gcc-12 (bookworm's gcc): the module too.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rel=${1:?usage: haltpoll-module.sh RELEASE}
cache=${IDLESCOPE_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/idlescope/vm}
say() { printf 'haltpoll-module: %s\n' "$*" >&2; }

[[ $rel == *-amd64 ]] || { say "$rel: x86_64 Debian releases only (…-amd64)"; exit 1; }
src=$(cat "$here/haltpoll/haltpoll_bind.c" "$here/haltpoll/Kbuild" | sha256sum | cut -c1-12)
out=$cache/haltpoll-module/$rel-$src
if [ -s "$out/haltpoll_bind.ko" ]; then
	echo "$out/haltpoll_bind.ko"
	exit 0
fi

ver=${rel%-amd64}                       # 6.12.118+deb12
hdr=$cache/headers/$rel
if [ ! -f "$hdr/.unpacked" ]; then
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/dl.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	pkgs=("linux-headers-$rel" "linux-headers-$ver-common" "linux-kbuild-$ver")
	# the _apt sandbox user cannot write under $HOME: download as ourselves
	(cd "$tmp" && apt-get -o APT::Sandbox::User="$(id -un)" download "${pkgs[@]}" >&2) || {
		say "apt-get download ${pkgs[*]} failed (apt-get update, or the release is gone from the archive)"
		exit 1
	}
	rm -rf "$hdr" && mkdir -p "$hdr"
	for d in "$tmp"/*.deb; do dpkg-deb -x "$d" "$hdr"; done
	# the headers' Makefile includes the common tree by its installed path
	sed -i "s|^include /usr/src/|include $hdr/usr/src/|" "$hdr/usr/src/linux-headers-$rel/Makefile"
	touch "$hdr/.unpacked"
	say "$rel: headers unpacked in $hdr"
fi

command -v x86_64-linux-gnu-gcc-12 >/dev/null || { say "x86_64-linux-gnu-gcc-12 not found (apt-get install gcc-12)"; exit 1; }
build=$(mktemp -d)
trap 'rm -rf "$build" "${tmp:-}"' EXIT
cp "$here/haltpoll/haltpoll_bind.c" "$here/haltpoll/Kbuild" "$build/"
# no BTF for the module: that needs pahole, and nothing here reads it
make -s -C "$hdr/usr/src/linux-headers-$rel" M="$build" CONFIG_DEBUG_INFO_BTF_MODULES= modules >&2
mkdir -p "$out"
cp "$build/haltpoll_bind.ko" "$out/"
say "$rel: built $out/haltpoll_bind.ko"
echo "$out/haltpoll_bind.ko"
