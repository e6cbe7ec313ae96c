#!/usr/bin/env bash
# Build the arm64 sysroot that `make ARCH=arm64` links against: the Debian
# arm64 -dev packages of idlescope's libraries (headers and static .a files),
# downloaded with a private apt state and unpacked with `dpkg-deb -x`. The
# host's dpkg (architecture list, status, sources) is never changed, so no
# root is needed. libc comes from the cross toolchain (make deps ARCH=arm64).
#
# Usage: scripts/arm64-sysroot.sh [--force]
#
# Idempotent: when $SYSROOT already holds every package and file it needs,
# it says so and exits without network access. --force (or FORCE=1) rebuilds
# it from the current archive. A new sysroot is unpacked next to the old one
# and only replaces it once complete.
#
# Environment:
#   CACHE=dir     private apt state and downloaded .debs
#                 (default ${XDG_CACHE_HOME:-$HOME/.cache}/idlescope/arm64-sysroot)
#   SYSROOT=dir   the sysroot (default $CACHE/root)
#   SUITE=name    Debian suite (default bookworm)
#   MIRROR=url    Debian mirror when none can be taken from the host's apt
#                 sources (default http://deb.debian.org/debian)
#
# Layout of the result: $SYSROOT/usr/include/... and
# $SYSROOT/usr/lib/aarch64-linux-gnu/lib{bpf,elf,z,jansson,ncurses,tinfo,yaml,crypt}.a (and
# lib{traceevent,zstd}.a for replay's trace.dat reader), plus
# $SYSROOT/.idlescope-sysroot listing the suite and "package version" lines.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=debian-apt.sh disable=SC1091 # followed with -x
. "$(dirname "${BASH_SOURCE[0]}")/debian-apt.sh"

CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/idlescope/arm64-sysroot}
SYSROOT=${SYSROOT:-$CACHE/root}
SUITE=${SUITE:-bookworm}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
FORCE=${FORCE:-0}
DEBS=$CACHE/debs
STAMP=$SYSROOT/.idlescope-sysroot
LIBDIR=usr/lib/aarch64-linux-gnu

# -dev packages unpacked into the sysroot (their runtime packages are not
# needed for a static link). libzstd-dev is added when libelf.a calls zstd
# (not the case for bookworm's elfutils 0.188; checked below).
PKGS=(libbpf-dev libelf-dev zlib1g-dev libjansson-dev libncurses-dev
      libyaml-dev libcrypt-dev) # the last two: serve --web-config (YAML, bcrypt)
FILES=(usr/include/bpf/libbpf.h usr/include/bpf/bpf.h usr/include/libelf.h
       usr/include/gelf.h usr/include/zlib.h usr/include/jansson.h usr/include/curses.h
       "$LIBDIR/libbpf.a" "$LIBDIR/libelf.a" "$LIBDIR/libz.a" "$LIBDIR/libjansson.a"
       "$LIBDIR/libncurses.a" "$LIBDIR/libtinfo.a"
       usr/include/yaml.h usr/include/crypt.h "$LIBDIR/libyaml.a" "$LIBDIR/libcrypt.a")
# replay's trace.dat reader (user/replay/dat_file.c): event formats and
# ring-buffer pages by libtraceevent, compressed files by zstd (and zlib)
PKGS+=(libtraceevent-dev libzstd-dev)
FILES+=(usr/include/traceevent/event-parse.h usr/include/zstd.h
	"$LIBDIR/libtraceevent.a" "$LIBDIR/libzstd.a")

die() { echo "arm64-sysroot: $*" >&2; exit 1; }
log() { echo "arm64-sysroot: $*"; }

case ${1:-} in
--force) FORCE=1 ;;
"") ;;
-h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
*) die "unknown argument '$1' (--force or --help)" ;;
esac

# libelf.a with compressed-section support needs libzstd.a too.
needs_zstd() { # sysroot
	grep -q 'ZSTD_' "$1/$LIBDIR/libelf.a"
}

# complete SYSROOT: the stamp is for $SUITE and lists every package, and the
# files the build uses are there. Otherwise $MISSING says what is not.
complete() {
	local root=$1 p f
	MISSING=
	[[ -f $root/.idlescope-sysroot ]] || { MISSING=".idlescope-sysroot"; return 1; }
	grep -qx "suite $SUITE" "$root/.idlescope-sysroot" || { MISSING="suite $SUITE"; return 1; }
	for p in "${PKGS[@]}"; do
		grep -q "^$p " "$root/.idlescope-sysroot" || { MISSING="package $p"; return 1; }
	done
	for f in "${FILES[@]}"; do
		[[ -e $root/$f ]] || { MISSING=$f; return 1; }
	done
	if needs_zstd "$root" && [[ ! -f $root/$LIBDIR/libzstd.a ]]; then
		MISSING="$LIBDIR/libzstd.a"
		return 1
	fi
	return 0
}

if [[ $FORCE != 1 ]] && complete "$SYSROOT"; then
	log "$SYSROOT is complete ($(grep -v '^suite ' "$STAMP" | tr '\n' ' ' | sed 's/ $//')), nothing to do"
	exit 0
fi

command -v apt-get >/dev/null || die "apt-get not found (a Debian host is needed)"
command -v dpkg-deb >/dev/null || die "dpkg-deb not found"

# fetch PKG...: set DEB[PKG] to the cached arm64 .deb of each package's
# candidate version, downloading the missing ones (one apt-cache and one
# apt-get call, as each reads the whole package lists).
declare -A DEB
fetch() {
	local pkg ver f get=() names=()
	declare -A want
	while read -r pkg ver; do
		want[$pkg]=$ver
	done < <(private_apt apt-cache show --no-all-versions "$@" 2>/dev/null |
		awk '/^Package: /{p=$2} /^Version: /{print p, $2}')
	for pkg in "$@"; do
		ver=${want[$pkg]:-}
		[[ -n $ver ]] || die "package $pkg not found for arm64 in $SUITE"
		DEB[$pkg]=$(private_apt_deb "$DEBS" "$pkg" "$ver")
		if [[ -n ${DEB[$pkg]} ]]; then
			log "cached $pkg $ver"
		else
			get+=("$pkg=$ver")
			names+=("$pkg $ver")
		fi
	done
	if ((${#get[@]})); then
		log "downloading ${names[*]/%/,}" | sed 's/,$//'
		(cd "$DEBS" && private_apt apt-get download "${get[@]}")
	fi
	for pkg in "$@"; do
		[[ -n ${DEB[$pkg]} ]] && continue
		DEB[$pkg]=$(private_apt_deb "$DEBS" "$pkg" "${want[$pkg]}")
		[[ -n ${DEB[$pkg]} ]] || die "download of $pkg ${want[$pkg]} failed"
	done
	return 0
}

# unpack DEB into the new sysroot and record it
unpack() {
	local deb=$1
	[[ $(dpkg-deb -f "$deb" Architecture) == arm64 ]] || die "$deb is not an arm64 package"
	log "unpacking $(basename "$deb")"
	dpkg-deb -x "$deb" "$NEW"
	echo "$(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version)" >>"$NEW/.idlescope-sysroot.tmp"
	USED+=("$deb")
}

if [[ $FORCE == 1 && -e $SYSROOT ]]; then
	log "--force: rebuilding $SYSROOT"
elif [[ -e $SYSROOT ]]; then
	log "$SYSROOT lacks $MISSING: rebuilding it"
else
	log "creating $SYSROOT"
fi
private_apt_init "$CACHE/apt" arm64
mkdir -p "$DEBS" "$(dirname "$SYSROOT")"

private_apt_sources "$SUITE" "$MIRROR"
log "private apt state in $PRIVATE_APT_DIR (APT::Architecture=arm64), sources:"
sed 's/^/    /' "$PRIVATE_APT_DIR/sources.list"
private_apt apt-get update

NEW=$SYSROOT.new.$$
rm -rf "$NEW"
mkdir -p "$NEW"
# shellcheck disable=SC2064 # expand $NEW now
trap "rm -rf '$NEW'" EXIT
USED=()
fetch "${PKGS[@]}"
for p in "${PKGS[@]}"; do
	unpack "${DEB[$p]}"
done
if needs_zstd "$NEW" && [[ ! -f $NEW/$LIBDIR/libzstd.a ]]; then
	log "libelf.a references zstd: adding libzstd-dev (the Makefile then links -lzstd)"
	fetch libzstd-dev
	unpack "${DEB[libzstd-dev]}"
else
	log "libelf.a does not reference zstd: libzstd-dev not needed"
fi
{ echo "suite $SUITE"; cat "$NEW/.idlescope-sysroot.tmp"; } >"$NEW/.idlescope-sysroot"
rm -f "$NEW/.idlescope-sysroot.tmp"
complete "$NEW" || die "the unpacked packages lack $MISSING"

rm -rf "$SYSROOT"
mv "$NEW" "$SYSROOT"
trap - EXIT

# keep only the .debs that went into this sysroot
for f in "$DEBS"/*.deb; do
	[[ -f $f ]] || continue
	keep=0
	for u in "${USED[@]}"; do [[ $f == "$u" ]] && keep=1; done
	((keep)) || { log "removing stale $(basename "$f")"; rm -f "$f"; }
done
log "done: $SYSROOT ($(du -sh "$SYSROOT" | cut -f1); $(grep -v '^suite ' "$STAMP" | tr '\n' ' ' | sed 's/ $//'))"
