#!/usr/bin/env bash
# Builds the static libtracecmd that a static `idlescope` (STATIC=1, the
# default) links to read trace-cmd's binary trace.dat in `replay`. Debian
# ships libtraceevent.a and libtracefs.a in their -dev packages but no
# libtracecmd.a: this builds it from Debian's own trace-cmd source (the
# version of the installed libtracecmd-dev, fetched with `apt-get source`
# through a private apt state: the host's apt configuration is not touched),
# with zlib and zstd so that compressed files read, and puts it with the two
# Debian archives, libzstd.a and the headers into $DEST.
#
# Usage: tests/tracecmd-static.sh     (`make` runs it when $DEST is missing;
#        when it fails, make builds idlescope without the trace.dat reader)
#
# Environment:
#   DEST=dir      install prefix: $DEST/include/{trace-cmd,event-parse,tracefs,...}.h,
#                 $DEST/lib/lib{tracecmd,tracefs,traceevent,zstd}.a
#                 (default ${XDG_CACHE_HOME:-$HOME/.cache}/idlescope/tracecmd-ARCH)
#   CC=gcc        compiler (aarch64-linux-gnu-gcc for a cross build)
#   SYSROOT=dir   a cross build's -dev libraries (tests/arm64-sysroot.sh's root,
#                 with libtraceevent-dev, libtracefs-dev and libzstd-dev unpacked)
#   TRACECMD_SRC=dir  an unpacked trace-cmd source tree of the same version, where
#                 Debian's source archive cannot be reached (upstream's
#                 "trace-cmd: Version 3.1.6" commit is the same code)
#   SUITE, MIRROR as for tests/arm64-sysroot.sh
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/debian-apt.sh disable=SC1091
. "$(dirname "${BASH_SOURCE[0]}")/lib/debian-apt.sh"

DEST=${DEST:-${XDG_CACHE_HOME:-$HOME/.cache}/idlescope/tracecmd-$(uname -m)}
CC=${CC:-gcc}
SYSROOT=${SYSROOT:-}
SUITE=${SUITE:-$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
STAMP=$DEST/.idlescope-tracecmd

die() { echo "tracecmd-static: $*" >&2; exit 1; }
log() { echo "tracecmd-static: $*"; }

[[ -f $STAMP && -f $DEST/lib/libtracecmd.a && -f $DEST/include/trace-cmd.h ]] && exit 0

# the -dev side: the host's, or the cross build's sysroot
triplet=$($CC -dumpmachine)
root=${SYSROOT:-}
libdir=$root/usr/lib/$triplet
for f in "$libdir/libtraceevent.a" "$libdir/libtracefs.a" "$root/usr/include/traceevent/event-parse.h" \
	"$root/usr/include/tracefs/tracefs.h"; do
	[[ -f $f ]] || die "$f missing (install libtraceevent-dev and libtracefs-dev: 'sudo make deps')"
done
zstd_a=$libdir/libzstd.a
[[ -f $zstd_a ]] || die "$zstd_a missing (libzstd-dev: compressed trace.dat files need it)"

work=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
if [[ -n ${TRACECMD_SRC:-} ]]; then
	[[ -f $TRACECMD_SRC/lib/trace-cmd/trace-input.c ]] || die "$TRACECMD_SRC is not a trace-cmd source tree"
	cp -r "$TRACECMD_SRC" "$work/src"
	origin="$(basename "$TRACECMD_SRC") (TRACECMD_SRC)"
else
	origin=$(private_apt_unpack_source "$work" trace-cmd libtracecmd-dev "$SUITE" "$MIRROR") ||
		die "no trace-cmd source (give TRACECMD_SRC=dir of the same version)"
fi

log "building libtracecmd.a from $origin${SYSROOT:+ for $triplet}"
# trace-cmd's Makefile finds libtraceevent, libtracefs and libzstd with
# pkg-config and tests zlib with $CC: point both at the -dev side
mkdir -p "$work/pc"
for pc in libtraceevent libtracefs libzstd; do
	src=$libdir/pkgconfig/$pc.pc
	[[ -f $src ]] || src=$root/usr/share/pkgconfig/$pc.pc
	[[ -f $src ]] || die "$pc.pc missing"
	sed -e "s|^prefix=.*|prefix=$root/usr|" -e "s|/usr/lib/[a-z0-9_-]*linux-gnu[a-z]*|$libdir|g" \
		"$src" >"$work/pc/$pc.pc"
done
cc="$CC${root:+ -isystem $root/usr/include -L$libdir}"
(
	cd "$work/src"
	PKG_CONFIG_LIBDIR="$work/pc" PKG_CONFIG_PATH="" \
		make -j"$(nproc)" CC="$cc" AR="${CC%gcc}ar" libtracecmd.a >"$work/make.log" 2>&1 ||
		{ tail -20 "$work/make.log" >&2; exit 1; }
) || die "build failed"
lib=$(find "$work/src" -name libtracecmd.a | head -1)
[[ -n $lib ]] || die "the build made no libtracecmd.a"
nm "$lib" >"$work/nm" 2>/dev/null || die "nm $lib failed"
for sym in uncompress ZSTD_decompressDCtx; do # zlib, zstd
	grep -q " U $sym\$" "$work/nm" || die "libtracecmd.a cannot call $sym (compression)"
done
rm -rf "$DEST.new"
mkdir -p "$DEST.new/lib" "$DEST.new/include"
cp "$lib" "$libdir/libtraceevent.a" "$libdir/libtracefs.a" "$zstd_a" "$DEST.new/lib/"
cp "$work/src/include/trace-cmd/trace-cmd.h" "$root"/usr/include/traceevent/*.h \
	"$root/usr/include/tracefs/tracefs.h" "$DEST.new/include/"
echo "$origin" >"$DEST.new/.idlescope-tracecmd"
rm -rf "$DEST"
mv "$DEST.new" "$DEST"
log "installed into $DEST"
