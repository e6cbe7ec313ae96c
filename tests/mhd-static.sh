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
# Usage: tests/mhd-static.sh     (`make` runs it when $DEST is missing)
#
# Environment:
#   DEST=dir    install prefix: $DEST/include/microhttpd.h, $DEST/lib/libmicrohttpd.a
#               (default ${XDG_CACHE_HOME:-$HOME/.cache}/idlescope/mhd-ARCH)
#   CC=gcc      compiler (aarch64-linux-gnu-gcc for a cross build)
#   HOST=triplet  configure --host for a cross build (e.g. aarch64-linux-gnu)
#   SUITE, MIRROR as for tests/arm64-sysroot.sh
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/debian-apt.sh disable=SC1091
. "$(dirname "${BASH_SOURCE[0]}")/lib/debian-apt.sh"

host_arch=$(dpkg --print-architecture)
DEST=${DEST:-${XDG_CACHE_HOME:-$HOME/.cache}/idlescope/mhd-$(uname -m)}
CC=${CC:-gcc}
HOST=${HOST:-}
SUITE=${SUITE:-$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
STAMP=$DEST/.idlescope-mhd

die() { echo "mhd-static: $*" >&2; exit 1; }
log() { echo "mhd-static: $*"; }

[[ -f $STAMP && -f $DEST/lib/libmicrohttpd.a && -f $DEST/include/microhttpd.h ]] && exit 0
command -v dpkg-source >/dev/null || die "dpkg-source not found (run 'sudo make deps')"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
private_apt_init "$work/apt" "$host_arch"
private_apt_sources "$SUITE" "$MIRROR"
# the same archive entries, as source entries
sed -e 's/^deb \[arch=[^] ]*\]/deb-src/; s/^deb \[arch=[^] ]* /deb-src [/' \
	"$PRIVATE_APT_DIR/sources.list" >"$work/src.list"
mv "$work/src.list" "$PRIVATE_APT_DIR/sources.list"
log "fetching the libmicrohttpd source ($SUITE)"
private_apt apt-get update >/dev/null || die "apt-get update failed (see above)"
ver=$(dpkg-query -W -f='${Version}' libmicrohttpd-dev 2>/dev/null || true)
(cd "$work" && private_apt apt-get source --download-only "libmicrohttpd${ver:+=$ver}" >/dev/null) ||
	(cd "$work" && private_apt apt-get source --download-only libmicrohttpd >/dev/null) ||
	die "apt-get source libmicrohttpd failed"
dsc=
for f in "$work"/libmicrohttpd_*.dsc; do [[ -f $f ]] && dsc=$f; done
[[ -n $dsc ]] || die "no libmicrohttpd .dsc downloaded"
# apt-get source checked the files against the signed Sources index; the
# uploader's key in the .dsc is not in the archive keyring
dpkg-source --no-check -x "$dsc" "$work/src" >/dev/null || die "cannot unpack $dsc"
log "building $(basename "$dsc" .dsc) without HTTPS${HOST:+ for $HOST}"
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
basename "$dsc" .dsc >"$DEST.new/.idlescope-mhd"
rm -rf "$DEST"
mv "$DEST.new" "$DEST"
log "installed into $DEST"
