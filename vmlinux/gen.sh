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

# Print one-line apt sources for $SUITE, $SUITE-updates and $SUITE-security,
# taken from the host's configuration (one-line *.list and deb822 *.sources
# files), restricted to arm64 and the main component.
host_sources() {
	local files=() f
	[[ -f /etc/apt/sources.list ]] && files+=(/etc/apt/sources.list)
	for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[[ -f $f ]] && files+=("$f")
	done
	((${#files[@]})) || return 0
	awk -v suite="$SUITE" '
	function want(s) {
		return s == suite || s == suite "-updates" || s == suite "-security"
	}
	function emit(uri, s, sb,   opt) {
		opt = "arch=arm64"
		if (sb != "") opt = opt " signed-by=" sb
		print "deb [" opt "] " uri " " s " main"
	}
	function flush(   n, i, j, u, s) {
		if (deb822 && enabled && types ~ /(^|[ \t])deb([ \t]|$)/) {
			n = split(uris, u, /[ \t]+/)
			split(suites, s, /[ \t]+/)
			for (i = 1; i <= n; i++)
				for (j in s)
					if (u[i] != "" && want(s[j])) emit(u[i], s[j], signedby)
		}
		types = ""; uris = ""; suites = ""; signedby = ""; enabled = 1
	}
	FNR == 1 { flush(); deb822 = (FILENAME ~ /\.sources$/) }
	deb822 {
		if ($0 ~ /^[ \t]*$/) { flush(); next }
		if ($0 ~ /^#/) next
		key = tolower($1); sub(/:$/, "", key)
		val = $0; sub(/^[^:]*:[ \t]*/, "", val)
		if (key == "types") types = val
		else if (key == "uris") uris = val
		else if (key == "suites") suites = val
		else if (key == "signed-by" && val !~ /^-----/) signedby = val
		else if (key == "enabled" && tolower(val) == "no") enabled = 0
		next
	}
	$1 == "deb" {
		i = 2; sb = ""
		if ($2 ~ /^\[/) {
			for (; i <= NF; i++) {
				if ($i ~ /^\[?signed-by=/) {
					sb = $i; sub(/^\[?signed-by=/, "", sb); sub(/\]$/, "", sb)
				}
				if ($i ~ /\]$/) break
			}
			i++
		}
		if (want($(i + 1))) emit($i, $(i + 1), sb)
	}
	END { flush() }
	' "${files[@]}" | sort -u
}

# Private apt: own lists, cache, sources and an empty dpkg status; the
# architecture is set on the command line only.
apt_private() {
	local cmd=$1
	shift
	"$cmd" \
		-o Dir::State::Lists="$APTDIR/lists" \
		-o Dir::State::status=/dev/null \
		-o Dir::Cache="$APTDIR/cache" \
		-o Dir::Etc::SourceList="$APTDIR/sources.list" \
		-o Dir::Etc::SourceParts="$APTDIR/empty.d" \
		-o Dir::Etc::Preferences="$APTDIR/preferences" \
		-o Dir::Etc::PreferencesParts="$APTDIR/empty.d" \
		-o APT::Architecture=arm64 \
		-o APT::Architectures::=arm64 \
		-o APT::Sandbox::User="$(id -un)" \
		-q "$@"
}

# First linux-image-* dependency of a meta-package (empty if none).
meta_dep() {
	apt_private apt-cache show --no-all-versions "$1" 2>/dev/null |
		sed -n 's/^Depends: //p' | tr ',' '\n' |
		sed -n 's/^ *\(linux-image-[^ ]*\).*/\1/p' | head -n1
}

gen_arm64() {
	APTDIR=$CACHE/apt
	local debs=$CACHE/debs pkg=${PKG:-} deb="" ver work f kimg
	mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" \
		"$APTDIR/empty.d" "$debs"

	# A pinned package that is already cached needs no network at all.
	if [[ -n $pkg ]]; then
		for f in "$debs/${pkg}"_*_arm64.deb; do
			[[ -f $f ]] && deb=$f
		done
	fi

	if [[ -z $deb ]]; then
		host_sources >"$APTDIR/sources.list.new"
		if [[ ! -s $APTDIR/sources.list.new ]]; then
			log "no $SUITE sources found on the host, using $MIRROR"
			{
				echo "deb [arch=arm64] $MIRROR $SUITE main"
				echo "deb [arch=arm64] $MIRROR $SUITE-updates main"
				echo "deb [arch=arm64] ${MIRROR%/debian}/debian-security $SUITE-security main"
			} >"$APTDIR/sources.list.new"
		fi
		mv -f "$APTDIR/sources.list.new" "$APTDIR/sources.list"
		log "arm64: private apt sources:"
		sed 's/^/    /' "$APTDIR/sources.list" >&2
		apt_private apt-get update >&2

		if [[ -z $pkg ]]; then
			pkg=$(meta_dep linux-image-6.12-arm64)
			if [[ -z $pkg ]]; then
				pkg=$(apt_private apt-cache pkgnames linux-image-6.12. |
					grep -E '^linux-image-6\.12\.[0-9]+\+deb[0-9]+-arm64$' |
					sort -V | tail -n1 || true)
			fi
			[[ -n $pkg ]] || pkg=$(meta_dep linux-image-arm64)
			[[ -n $pkg ]] || die "no arm64 kernel image package found in $SUITE"
		fi
		ver=$(apt_private apt-cache show --no-all-versions "$pkg" |
			sed -n 's/^Version: //p' | head -n1)
		[[ -n $ver ]] || die "package $pkg not found"
		for f in "$debs/${pkg}"_*_arm64.deb; do
			if [[ -f $f && $(dpkg-deb -f "$f" Version) == "$ver" ]]; then
				deb=$f
			fi
		done
		if [[ -z $deb ]]; then
			log "arm64: downloading $pkg $ver"
			(cd "$debs" && apt_private apt-get download "$pkg=$ver" >&2)
			for f in "$debs/${pkg}"_*_arm64.deb; do
				if [[ -f $f && $(dpkg-deb -f "$f" Version) == "$ver" ]]; then
					deb=$f
				fi
			done
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
