#!/usr/bin/env bash
# Builds the static libmicrohttpd that a static `idlescope` (STATIC=1, the
# default) links for `serve`. Debian's libmicrohttpd.a is built with HTTPS
# and needs gnutls, whose static link in turn needs p11-kit, which Debian
# ships only as a shared library: the static link cannot succeed with the
# packaged archives. `serve` speaks plain HTTP, so this builds Debian's own
# libmicrohttpd source (the version of the installed libmicrohttpd-dev,
# fetched with `apt-get source` through a private apt state: the host's apt
# configuration is not touched) with --disable-https into $DEST.
#
# Usage: scripts/mhd-static.sh     (`make` runs it when $DEST is missing)
#
# Environment:
#   DEST=dir    install prefix: $DEST/include/microhttpd.h, $DEST/lib/libmicrohttpd.a
#               (default ${XDG_CACHE_HOME:-$HOME/.cache}/idlescope/mhd-ARCH)
#   CC=gcc      compiler (aarch64-linux-gnu-gcc for a cross build)
#   HOST=triplet  configure --host for a cross build (e.g. aarch64-linux-gnu)
#   SUITE, MIRROR as for scripts/arm64-sysroot.sh
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=debian-apt.sh disable=SC1091
. "$(dirname "${BASH_SOURCE[0]}")/debian-apt.sh"

DEST=${DEST:-${XDG_CACHE_HOME:-$HOME/.cache}/idlescope/mhd-$(uname -m)}
CC=${CC:-gcc}
HOST=${HOST:-}
SUITE=${SUITE:-$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
STAMP=$DEST/.idlescope-mhd

die() { echo "mhd-static: $*" >&2; exit 1; }
log() { echo "mhd-static: $*"; }

[[ -f $STAMP && -f $DEST/lib/libmicrohttpd.a && -f $DEST/include/microhttpd.h ]] && exit 0

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
origin=$(private_apt_unpack_source "$work" libmicrohttpd libmicrohttpd-dev "$SUITE" "$MIRROR")
log "building $origin without HTTPS${HOST:+ for $HOST}"
(
	cd "$work/src"
	./configure -q --disable-https --without-gnutls --disable-shared --enable-static \
		--disable-doc --disable-examples --disable-curl ${HOST:+--host=$HOST} \
		--prefix="$work/inst" CC="$CC" CFLAGS="-O2 -g" >"$work/configure.log" 2>&1 ||
		{ tail -20 "$work/configure.log" >&2; exit 1; }
	make -s -j"$(nproc)" -C src/microhttpd >"$work/make.log" 2>&1 ||
		{ tail -20 "$work/make.log" >&2; exit 1; }
	make -s -C src/microhttpd install >/dev/null
	make -s -C src/include install >/dev/null
) || die "build failed"
nm "$work/inst/lib/libmicrohttpd.a" 2>/dev/null | grep -q ' U gnutls_' && die "the build still calls gnutls"
rm -rf "$DEST.new"
mkdir -p "$DEST.new/lib" "$DEST.new/include"
cp "$work/inst/lib/libmicrohttpd.a" "$DEST.new/lib/"
cp "$work/inst/include/microhttpd.h" "$DEST.new/include/"
echo "$origin" >"$DEST.new/.idlescope-mhd"
rm -rf "$DEST"
mv "$DEST.new" "$DEST"
log "installed into $DEST"
