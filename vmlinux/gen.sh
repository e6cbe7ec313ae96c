#!/usr/bin/env bash
# Regenerate vmlinux/<arch>/vmlinux.h from kernel BTF.
#
# Usage: vmlinux/gen.sh [x86_64|arm64|all]...     (no argument = all)
#
#   x86_64  bpftool btf dump of $BTF (default /sys/kernel/btf/vmlinux, only
#           used when the host itself is x86_64).
#   arm64   downloads a Debian 12 (bookworm) arm64 kernel package with a
#           private apt state (the host's dpkg architecture list is never
#           touched), extracts /boot/vmlinuz-*, pulls the raw BTF blob out
#           with extract-btf.py and dumps it with bpftool.
#
# Environment:
#   BTF=path      BTF file for x86_64 (required when the host is not x86_64)
#   CACHE=dir     download cache for arm64
#                 (default ${XDG_CACHE_HOME:-$HOME/.cache}/idlescope/vmlinux)
#   PKG=name      arm64 kernel package to use instead of the newest
#                 linux-image-6.12.*+deb12-arm64 (fallback: the dependency of
#                 linux-image-arm64, i.e. the 6.1 series)
#   SUITE=name    Debian suite (default bookworm)
#   MIRROR=url    Debian mirror when none can be taken from the host's apt
#                 sources (default http://deb.debian.org/debian)
#   BPFTOOL=path  bpftool binary (default: bpftool from PATH or /usr/sbin)
#
# Output files are replaced atomically and only when their content changes,
# so running the script twice is harmless.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=../scripts/debian-apt.sh disable=SC1091 # followed with -x
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/debian-apt.sh"

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/idlescope/vmlinux}
SUITE=${SUITE:-bookworm}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
PYTHON=${PYTHON:-python3}

die() { echo "gen.sh: $*" >&2; exit 1; }
log() { echo "gen.sh: $*" >&2; }

find_bpftool() {
	if [[ -n ${BPFTOOL:-} ]]; then
		return
	fi
	if command -v bpftool >/dev/null 2>&1; then
		BPFTOOL=$(command -v bpftool)
	elif [[ -x /usr/sbin/bpftool ]]; then
		BPFTOOL=/usr/sbin/bpftool
	else
		die "bpftool not found (apt-get install bpftool, or set BPFTOOL=)"
	fi
}

# dump_btf BTF_FILE OUT_HEADER [required-type...]
dump_btf() {
	local btf=$1 out=$2 tmp t
	shift 2
	find_bpftool
	mkdir -p "$(dirname "$out")"
	tmp=$(mktemp "$out.XXXXXX")
	if ! "$BPFTOOL" btf dump file "$btf" format c >"$tmp"; then
		rm -f "$tmp"
		die "bpftool btf dump failed for $btf"
	fi
	for t in "$@"; do
		if ! grep -q "^struct $t {" "$tmp"; then
			rm -f "$tmp"
			die "$btf: generated header lacks 'struct $t' (wrong arch?)"
		fi
	done
	if [[ -f $out ]] && cmp -s "$tmp" "$out"; then
		rm -f "$tmp"
		log "$out unchanged"
	else
		chmod 644 "$tmp"
		mv -f "$tmp" "$out"
		log "wrote $out ($(wc -c <"$out") bytes)"
	fi
}

gen_x86_64() {
	local btf=${BTF:-}
	if [[ -z $btf ]]; then
		[[ $(uname -m) == x86_64 ]] ||
			die "host is $(uname -m): give an x86_64 kernel BTF file as BTF=path"
		btf=/sys/kernel/btf/vmlinux
	fi
	[[ -r $btf ]] || die "cannot read BTF file $btf"
	log "x86_64: BTF from $btf"
	dump_btf "$btf" "$HERE/x86_64/vmlinux.h" pt_regs desc_struct cpuidle_driver
}

# First linux-image-* dependency of a meta-package (empty if none).
meta_dep() {
	private_apt apt-cache show --no-all-versions "$1" 2>/dev/null |
		sed -n 's/^Depends: //p' | tr ',' '\n' |
		sed -n 's/^ *\(linux-image-[^ ]*\).*/\1/p' | head -n1
}

gen_arm64() {
	local debs=$CACHE/debs pkg=${PKG:-} deb="" ver work f kimg
	private_apt_init "$CACHE/apt" arm64
	mkdir -p "$debs"

	# A pinned package that is already cached needs no network at all.
	[[ -z $pkg ]] || deb=$(private_apt_deb "$debs" "$pkg")

	if [[ -z $deb ]]; then
		private_apt_sources "$SUITE" "$MIRROR"
		log "arm64: private apt sources:"
		sed 's/^/    /' "$PRIVATE_APT_DIR/sources.list" >&2
		private_apt apt-get update >&2

		if [[ -z $pkg ]]; then
			pkg=$(meta_dep linux-image-6.12-arm64)
			if [[ -z $pkg ]]; then
				pkg=$(private_apt apt-cache pkgnames linux-image-6.12. |
					grep -E '^linux-image-6\.12\.[0-9]+\+deb[0-9]+-arm64$' |
					sort -V | tail -n1 || true)
			fi
			[[ -n $pkg ]] || pkg=$(meta_dep linux-image-arm64)
			[[ -n $pkg ]] || die "no arm64 kernel image package found in $SUITE"
		fi
		ver=$(private_apt apt-cache show --no-all-versions "$pkg" |
			sed -n 's/^Version: //p' | head -n1)
		[[ -n $ver ]] || die "package $pkg not found"
		deb=$(private_apt_deb "$debs" "$pkg" "$ver")
		if [[ -z $deb ]]; then
			log "arm64: downloading $pkg $ver"
			(cd "$debs" && private_apt apt-get download "$pkg=$ver" >&2)
			deb=$(private_apt_deb "$debs" "$pkg" "$ver")
			[[ -n $deb ]] || die "download of $pkg $ver failed"
		fi
	fi

	pkg=$(dpkg-deb -f "$deb" Package)
	ver=$(dpkg-deb -f "$deb" Version)
	[[ $(dpkg-deb -f "$deb" Architecture) == arm64 ]] ||
		die "$deb is not an arm64 package"
	log "arm64: using $pkg $ver ($deb)"

	work=$(mktemp -d "${TMPDIR:-/tmp}/idlescope-vmlinux.XXXXXX")
	# shellcheck disable=SC2064 # expand $work now
	trap "rm -rf '$work'" EXIT
	dpkg-deb --fsys-tarfile "$deb" |
		tar -x -C "$work" --wildcards './boot/vmlinuz-*'
	kimg=$(find "$work/boot" -name 'vmlinuz-*' -type f | head -n1)
	[[ -n $kimg ]] || die "$deb contains no /boot/vmlinuz-*"
	log "arm64: kernel image $(basename "$kimg")"
	"$PYTHON" "$HERE/extract-btf.py" "$kimg" "$work/vmlinux.btf"
	dump_btf "$work/vmlinux.btf" "$HERE/arm64/vmlinux.h" \
		user_pt_regs cpuidle_driver
	rm -rf "$work"
	trap - EXIT

	# keep only the package that was just used
	for f in "$debs"/*.deb; do
		[[ -f $f && $f != "$deb" ]] && rm -f "$f"
	done
	return 0
}

main() {
	local targets=("$@") t
	((${#targets[@]})) || targets=(all)
	for t in "${targets[@]}"; do
		case $t in
		x86_64 | x86 | amd64) gen_x86_64 ;;
		arm64 | aarch64) gen_arm64 ;;
		all)
			gen_x86_64
			gen_arm64
			;;
		-h | --help)
			sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
			;;
		*) die "unknown target '$t' (x86_64, arm64 or all)" ;;
		esac
	done
}

main "$@"
