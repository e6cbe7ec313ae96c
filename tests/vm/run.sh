#!/usr/bin/env bash
# Boots Debian x86_64 kernels under QEMU (TCG) with a busybox initramfs holding
# build/idlescope and guest-test.sh, and checks what the guest reports.
#
# Environment:
#   IDLESCOPE           binary to test (default build/idlescope, static)
#   IDLESCOPE_VM_CACHE  kernel cache (default $XDG_CACHE_HOME/idlescope/vm)
#   VMTEST_KERNELS      what to boot, space-separated: 5.10 (Debian 11, through
#                       a private apt state), 6.1, 6.12, a package name
#                       linux-image-..., or a vmlinuz path (default "5.10 6.1 6.12")
#   VMTEST_ACCEL        QEMU accelerator (default tcg,thread=single: MTTCG can
#                       oops x86 guests during BPF text patching; the CI host's
#                       /dev/kvm is PVM and cannot boot stock kernels)
#   VMTEST_ARCH         guest architecture (x86_64; arm64 is not done yet)
#   VMTEST_TIMEOUT      seconds per VM (default 240)
#   VMTEST_BIAS_US      time allowed per idle period in the guest's cross-check
#                       (default 50 under TCG, else 2)
#   VMTEST_LOGDIR       serial logs (default build/vmtest)
#   VMTEST_GUEST_TEST   guest script to run instead of guest-test.sh
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${IDLESCOPE:-$root/build/idlescope}
cache=${IDLESCOPE_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/idlescope/vm}
kernels=${VMTEST_KERNELS:-5.10 6.1 6.12}
accel=${VMTEST_ACCEL:-tcg,thread=single}
vm_timeout=${VMTEST_TIMEOUT:-240}
logdir=${VMTEST_LOGDIR:-$root/build/vmtest}
arch=${VMTEST_ARCH:-x86_64}
# Time allowed per idle period in the guest's cross-check (the guest defaults
# to 50 us under TCG, 2 us otherwise). Unknown name=value kernel parameters
# without a dot reach /init, and so the guest test, as environment variables.
bias_arg=${VMTEST_BIAS_US:+vmtest_bias_us=$VMTEST_BIAS_US}

say() { printf 'vmtest: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

[ "$arch" = x86_64 ] || die "ARCH=$arch: only x86_64 guests are supported so far"
[ -x "$bin" ] || die "$bin not found: run make first"
if command -v readelf >/dev/null && [[ $(readelf -l "$bin") == *INTERP* ]]; then
	die "$bin is dynamically linked; the guest has no libraries (build with STATIC=1)"
fi

# --- host tools -------------------------------------------------------------

need_pkgs=()
command -v qemu-system-x86_64 >/dev/null || need_pkgs+=(qemu-system-x86)
command -v iasl >/dev/null || need_pkgs+=(acpica-tools)
command -v cpio >/dev/null || need_pkgs+=(cpio)
# The dynamic busybox package also installs /bin/busybox; only -static works here.
[[ $(dpkg-query -W -f='${Status}' busybox-static 2>/dev/null) == *' ok installed' ]] ||
	need_pkgs+=(busybox-static)
if [ ${#need_pkgs[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "missing packages ${need_pkgs[*]}: install them or run as root"
	say "installing ${need_pkgs[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need_pkgs[@]}" >&2 ||
		{ apt-get update >&2 && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y --no-install-recommends "${need_pkgs[@]}" >&2; }
fi
# (No grep -m1/-q, head or awk exit on pipes: with pipefail, an early exit of the
# reader can fail the pipe.)
busybox=$(dpkg -L busybox-static | awk '/\/bin\/busybox$/ && !n++')
[ -x "$busybox" ] || die "busybox-static has no /bin/busybox"


# --- kernels ----------------------------------------------------------------

# Package name for a series, from the local apt lists; empty if unknown.
resolve_pkg() {
	local p
	case $1 in
	6.1)
		apt-cache depends linux-image-amd64 2>/dev/null |
			awk '$1 == "Depends:" && $2 ~ /^linux-image-6\.1\.[0-9]+-[0-9]+-amd64$/ && !n++ { print $2 }'
		;;
	6.12)
		for p in $(apt-cache pkgnames linux-image-6.12. 2>/dev/null |
			grep -E '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' | sort -rV); do
			if [[ $(apt-cache policy "$p") == *'Candidate: '[0-9]* ]]; then
				echo "$p"
				return
			fi
		done
		;;
	linux-image-*) echo "$1" ;;
	esac
}

# Newest vmlinuz already in the cache for a series (offline fallback).
cached_series() {
	local pat
	case $1 in
	6.1) pat='linux-image-6.1.*-amd64' ;;
	6.12) pat='linux-image-6.12.*+deb12-amd64' ;;
	*) pat=$1 ;;
	esac
	# shellcheck disable=SC2086 # $pat is a glob on purpose
	(cd "$cache" 2>/dev/null && printf '%s\n' $pat/vmlinuz-*) | grep -v '\*' | sort -V | tail -1 |
		sed "s|^|$cache/|"
}

download_pkg() { # package -> path of its vmlinuz in the cache
	# Called in a condition, where set -e is off: every step is checked.
	local pkg=$1 dir=$cache/$1 tmp t0
	if ! compgen -G "$dir/vmlinuz-*" >/dev/null; then
		t0=$(now)
		mkdir -p "$cache" && tmp=$(mktemp -d "$cache/dl.XXXXXX") || return 1
		# apt-get download writes to the current directory, which the _apt
		# sandbox user cannot reach under $HOME.
		if ! (cd "$tmp" && apt-get -o APT::Sandbox::User=root download "$pkg" >&2) ||
			! dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -x -C "$tmp" --wildcards './boot/vmlinuz-*' ||
			! mkdir -p "$dir" || ! mv "$tmp"/boot/vmlinuz-* "$dir"/; then
			rm -rf "$tmp"
			return 1
		fi
		rm -rf "$tmp"
		say "$pkg: downloaded and extracted vmlinuz in $(since "$t0")s"
	fi
	compgen -G "$dir/vmlinuz-*" | head -1
}

# Debian 11's 5.10 (the oldest kernel idlescope supports) through a private
# apt state for bullseye (tests/lib/debian-apt.sh): the host's dpkg and apt
# lists are not touched. -> $vmlinuz, or returns 1.
bullseye_kernel() {
	local d=$cache/bullseye-apt pkg dir tmp
	# shellcheck disable=SC2317 # called by debian-apt.sh
	log() { say "$@"; }
	# shellcheck source=tests/lib/debian-apt.sh disable=SC1091
	. "$root/tests/lib/debian-apt.sh"
	mkdir -p "$cache" || return 1
	private_apt_init "$d" amd64
	[ -s "$d/sources.list" ] || private_apt_sources bullseye http://deb.debian.org/debian
	if ! compgen -G "$d/lists/*bullseye*Packages*" >/dev/null; then
		private_apt apt-get update >&2 || return 1
	fi
	pkg=$(private_apt apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-5\.10\.[0-9]+-[0-9]+-amd64$/ && !n++ { print $2 }')
	[ -n "$pkg" ] || return 1
	dir=$cache/$pkg
	if ! compgen -G "$dir/vmlinuz-*" >/dev/null; then
		tmp=$(mktemp -d "$cache/dl.XXXXXX") || return 1
		if ! (cd "$tmp" && private_apt apt-get download "$pkg" >&2) ||
			! dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -x -C "$tmp" --wildcards './boot/vmlinuz-*' ||
			! mkdir -p "$dir" || ! mv "$tmp"/boot/vmlinuz-* "$dir"/; then
			rm -rf "$tmp"
			return 1
		fi
		rm -rf "$tmp"
		say "$pkg: downloaded from bullseye"
	fi
	vmlinuz=$(compgen -G "$dir/vmlinuz-*" | head -1)
}

kernel_path() { # series, package or path -> $vmlinuz (no subshell: apt_updated sticks)
	local k=$1 pkg
	vmlinuz=
	if [ -f "$k" ]; then
		vmlinuz=$k
		return
	fi
	if [ "$k" = 5.10 ]; then
		bullseye_kernel && return
		vmlinuz=$(cached_series 'linux-image-5.10.*-amd64')
		[ -n "$vmlinuz" ] && say "5.10: using cached $vmlinuz"
		[ -n "$vmlinuz" ]
		return
	fi
	pkg=$(resolve_pkg "$k")
	if [ -n "$pkg" ] && vmlinuz=$(download_pkg "$pkg"); then
		return
	fi
	# Debian drops superseded ABI packages: refresh the lists once and retry.
	if [ "$(id -u)" = 0 ] && [ -z "${apt_updated:-}" ]; then
		apt_updated=1
		say "$k: ${pkg:+$pkg not downloadable}${pkg:-no package in the apt lists}, running apt-get update"
		apt-get update >&2 || true
		pkg=$(resolve_pkg "$k")
		if [ -n "$pkg" ] && vmlinuz=$(download_pkg "$pkg"); then
			return
		fi
	fi
	vmlinuz=$(cached_series "$k")
	if [ -n "$vmlinuz" ]; then
		say "$k: using cached $vmlinuz"
		return
	fi
	return 1
}

# --- initramfs --------------------------------------------------------------

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

build_initrd() { # -> $work/initrd.img
	local r=$work/root a
	mkdir -p "$r"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,mnt}
	cp "$busybox" "$r/bin/busybox"
	for a in $("$busybox" --list); do
		[ -e "$r/bin/$a" ] || ln -s busybox "$r/bin/$a"
	done
	cp "$bin" "$r/bin/idlescope"
	cp "${VMTEST_GUEST_TEST:-$here/guest-test.sh}" "$r/test.sh"
	cat >"$r/init" <<'EOF'
#!/bin/sh
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mount -t bpf bpf /sys/fs/bpf
echo "VMTEST-INIT: uptime $(cut -d' ' -f1 /proc/uptime)s"
sh /test.sh
echo "VMTEST-RESULT: $?"
poweroff -f
EOF
	chmod 0755 "$r/init" "$r/test.sh"

	# The kernel (ACPI_TABLE_UPGRADE) reads tables only from an uncompressed
	# cpio at the start of the initrd; the rest may be compressed.
	mkdir -p "$work/acpi/kernel/firmware/acpi"
	iasl -p "$work/acpi/kernel/firmware/acpi/ssdt" "$here/ssdt-cst.asl" >"$work/iasl.log" 2>&1 ||
		{ cat "$work/iasl.log" >&2; die "iasl failed"; }
	(cd "$work/acpi" && echo kernel/firmware/acpi/ssdt.aml |
		cpio -o -H newc --quiet) >"$work/initrd.img"
	(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1) >>"$work/initrd.img"
}

# --- boot and check ---------------------------------------------------------

# Prints "PASS" or "FAIL: reason" for one serial log and qemu exit status.
verdict() { # log rc
	local log=$1 rc=$2 res bad
	bad=$(grep -m1 -a -E 'Kernel panic|Oops|BUG:|general protection fault' "$log" | tr -d '\r' || true)
	res=$(tr -d '\r' <"$log" | sed -n 's/^VMTEST-RESULT: \([0-9]*\)$/\1/p' | tail -1)
	if [ -n "$bad" ]; then
		echo "FAIL: $bad"
	elif [ "$rc" = 124 ]; then
		echo "FAIL: timeout after ${vm_timeout}s${res:+ (after VMTEST-RESULT $res)}"
	elif [ -z "$res" ]; then
		echo "FAIL: no VMTEST-RESULT line (qemu exit $rc)"
	elif [ "$res" != 0 ]; then
		echo "FAIL: guest test exit $res: $(tr -d '\r' <"$log" | sed -n 's/^CHECK FAIL //p' | paste -sd';' -)"
	else
		echo PASS
	fi
}

t_all=$(now)
build_initrd
say "initrd $(du -k "$work/initrd.img" | cut -f1) KiB, accel $accel"
mkdir -p "$logdir"
summary=()
failed=0
rm -rf "$logdir/compat" # the guests' idlescope info, this run's only
for k in $kernels; do
	t0=$(now)
	if ! kernel_path "$k"; then
		summary+=("FAIL  $k: no kernel (apt-cache/apt-get download failed and nothing cached)")
		failed=1
		continue
	fi
	name=$(basename "$vmlinuz")
	name=${name#vmlinuz-}
	log=$logdir/$name.log
	say "$name: booting ($(basename "$(dirname "$vmlinuz")"))"
	tb=$(now)
	rc=0
	timeout "$vm_timeout" qemu-system-x86_64 -accel "$accel" -cpu max -smp 4 -m 1G \
		-nographic -no-reboot -kernel "$vmlinuz" -initrd "$work/initrd.img" \
		-append "console=ttyS0 panic=-1 quiet vmtest_accel=${accel%%,*} $bias_arg" </dev/null >"$log" 2>&1 || rc=$?
	v=$(verdict "$log" "$rc")
	line=$(printf '%-4s  %-22s boot+test %5ss, total %5ss  %s' "${v%%:*}" "$name" \
		"$(since "$tb")" "$(since "$t0")" "$(tr -d '\r' <"$log" |
			sed -n 's/^INFO \(idle states [^(]*\) (.*/\1;/p; s/^INFO \(missing_events .*\)/\1/p' | paste -sd' ' -)")
	if [ "$v" != PASS ]; then
		failed=1
		line="$line
      ${v#FAIL: } (log: $log)"
		say "$name: $v; last lines of $log:"
		tail -n 30 "$log" | tr -d '\r' | sed 's/^/    /' >&2
	fi
	summary+=("$line")
	# idlescope info of this guest, for docs/compat.md (make compat)
	mkdir -p "$logdir/compat"
	tr -d '\r' <"$log" | sed -n 's/^VMTEST-INFO: //p' | tail -1 >"$logdir/compat/$name.json"
	[ -s "$logdir/compat/$name.json" ] || rm -f "$logdir/compat/$name.json"
done

echo "vmtest summary ($(since "$t_all")s, logs in $logdir):"
printf '%s\n' "${summary[@]}"
exit "$failed"
