# shellcheck shell=bash
# Download Debian packages of another architecture (arm64 on an amd64 host)
# through a private apt state: own package lists, cache, sources list and an
# empty dpkg status, with the architecture given on apt's command line only.
# The host's dpkg (architecture list, status, sources) is never changed.
# Sourced by vmlinux/gen.sh, scripts/arm64-sysroot.sh, scripts/mhd-static.sh
# and tests/vm/run.sh, which run under
# `set -euo pipefail` and define log() (used for the mirror fallback note).
#
#   private_apt_init DIR ARCH      create the state in DIR; set PRIVATE_APT_DIR,
#                                  PRIVATE_APT_ARCH and the PRIVATE_APT_OPTS array
#   private_apt_sources SUITE MIRROR
#                                  write DIR/sources.list: the host's SUITE,
#                                  SUITE-updates and SUITE-security entries
#                                  (main only), or MIRROR's when it has none
#   private_apt CMD ARG...         run CMD (apt-get, apt-cache) on the state
#   private_apt_unpack_source DIR SRCPKG DEVPKG SUITE MIRROR
#                                  `apt-get source` SRCPKG (the version of the
#                                  installed DEVPKG if the archive has it) into
#                                  DIR/src, the state in DIR/apt; prints the
#                                  source package's name_version
#   private_apt_deb DEBDIR PKG [VERSION]
#                                  print the DEBDIR/PKG_*_ARCH.deb (of VERSION
#                                  if given), or nothing if there is none

private_apt_init() {
	PRIVATE_APT_DIR=$1
	PRIVATE_APT_ARCH=$2
	mkdir -p "$PRIVATE_APT_DIR/lists/partial" \
		"$PRIVATE_APT_DIR/cache/archives/partial" "$PRIVATE_APT_DIR/empty.d"
	PRIVATE_APT_OPTS=(
		-o Dir::State::Lists="$PRIVATE_APT_DIR/lists"
		-o Dir::State::status=/dev/null
		-o Dir::Cache="$PRIVATE_APT_DIR/cache"
		-o Dir::Etc::SourceList="$PRIVATE_APT_DIR/sources.list"
		-o Dir::Etc::SourceParts="$PRIVATE_APT_DIR/empty.d"
		-o Dir::Etc::Preferences="$PRIVATE_APT_DIR/preferences"
		-o Dir::Etc::PreferencesParts="$PRIVATE_APT_DIR/empty.d"
		-o APT::Architecture="$PRIVATE_APT_ARCH"
		-o APT::Architectures::="$PRIVATE_APT_ARCH"
		-o APT::Sandbox::User="$(id -un)"
	)
}

private_apt() {
	local cmd=$1
	shift
	"$cmd" "${PRIVATE_APT_OPTS[@]}" -q "$@"
}

# private_apt_host_sources SUITE: the host's one-line *.list and deb822
# *.sources entries for SUITE, SUITE-updates and SUITE-security as one-line
# entries restricted to $PRIVATE_APT_ARCH and the main component.
private_apt_host_sources() {
	local files=() f
	[[ -f /etc/apt/sources.list ]] && files+=(/etc/apt/sources.list)
	for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[[ -f $f ]] && files+=("$f")
	done
	((${#files[@]})) || return 0
	awk -v suite="$1" -v arch="$PRIVATE_APT_ARCH" '
	function want(s) {
		return s == suite || s == suite "-updates" || s == suite "-security"
	}
	function emit(uri, s, sb,   opt) {
		opt = "arch=" arch
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

private_apt_sources() {
	local suite=$1 mirror=$2 list=$PRIVATE_APT_DIR/sources.list
	private_apt_host_sources "$suite" >"$list.new"
	if [[ ! -s $list.new ]]; then
		log "no $suite sources found on the host, using $mirror"
		{
			echo "deb [arch=$PRIVATE_APT_ARCH] $mirror $suite main"
			echo "deb [arch=$PRIVATE_APT_ARCH] $mirror $suite-updates main"
			echo "deb [arch=$PRIVATE_APT_ARCH] ${mirror%/debian}/debian-security $suite-security main"
		} >"$list.new"
	fi
	mv -f "$list.new" "$list"
}

private_apt_deb() {
	local dir=$1 pkg=$2 ver=${3:-} f found=
	for f in "$dir/${pkg}_"*"_$PRIVATE_APT_ARCH.deb"; do
		[[ -f $f ]] || continue
		if [[ -z $ver || $(dpkg-deb -f "$f" Version) == "$ver" ]]; then
			found=$f
		fi
	done
	printf '%s\n' "$found"
}

private_apt_unpack_source() {
	local dir=$1 src=$2 dev=$3 ver f dsc=
	command -v dpkg-source >/dev/null || die "dpkg-source not found (run 'sudo make deps')"
	private_apt_init "$dir/apt" "$(dpkg --print-architecture)"
	private_apt_sources "$4" "$5" >&2
	# the same archive entries, as source entries
	sed -e 's/^deb \[arch=[^] ]*\]/deb-src/; s/^deb \[arch=[^] ]* /deb-src [/' \
		"$PRIVATE_APT_DIR/sources.list" >"$dir/src.list"
	mv "$dir/src.list" "$PRIVATE_APT_DIR/sources.list"
	log "fetching the $src source ($4)" >&2
	private_apt apt-get update >/dev/null || die "apt-get update failed (see above)"
	ver=$(dpkg-query -W -f='${Version}' "$dev" 2>/dev/null || true)
	(cd "$dir" && private_apt apt-get source --download-only "$src${ver:+=$ver}" >/dev/null) ||
		(cd "$dir" && private_apt apt-get source --download-only "$src" >/dev/null) ||
		die "apt-get source $src failed"
	for f in "$dir/${src}_"*.dsc; do [[ -f $f ]] && dsc=$f; done
	[[ -n $dsc ]] || die "no $src .dsc downloaded"
	# apt-get source checked the files against the signed Sources index; the
	# uploader's key in the .dsc is not in the archive keyring
	dpkg-source --no-check -x "$dsc" "$dir/src" >/dev/null || die "cannot unpack $dsc"
	basename "$dsc" .dsc
}
