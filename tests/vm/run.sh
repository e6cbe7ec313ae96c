#!/usr/bin/env bash
# Boots Debian x86_64 and arm64 kernels under QEMU (TCG) with a busybox
# initramfs holding the static idlescope of the guest's architecture and
# guest-test.sh, and checks what the guest reports.
#
# Environment:
#   IDLESCOPE           binary for x86_64 guests (default build/static/idlescope,
#                       `make static`)
#   IDLESCOPE_ARM64     binary for arm64 guests (default build/arm64/idlescope,
#                       from make ARCH=arm64)
#   IDLESCOPE_VM_CACHE  kernel cache (default $XDG_CACHE_HOME/idlescope/vm)
#   VMTEST_KERNELS      what to boot, space-separated: 5.10 (Debian 11, x86_64
#                       only, through a private apt state), 6.1, 6.12, a package
#                       name linux-image-..., or a vmlinuz path; any of them
#                       followed by @SMP is a many-CPU guest (x86_64): booted
#                       with -smp SMP and vmtest_many=SMP (guest-test.sh's
#                       many-CPU section), log tag -smpN, run in a lane of its
#                       own beside the others; @SMP:top runs only that
#                       section's top check (vmtest_only=top, log tag
#                       -smpN-top). Default "5.10 6.1 6.12
#                       6.12@32,sockets=2,cores=8,threads=2
#                       6.12@64,sockets=2,cores=16,threads=2:top"
#   VMTEST_ACCEL        QEMU accelerator (default for x86_64 tcg,thread=single:
#                       MTTCG can oops x86 guests during BPF text patching; for
#                       arm64 tcg, multi-threaded; the CI host's /dev/kvm is PVM
#                       and cannot boot stock kernels)
#   VMTEST_ARCH         guest architectures, space-separated (default "x86_64 arm64")
#   VMTEST_TIMEOUT      seconds per VM (default 360)
#   VMTEST_BIAS_US      time allowed per idle period in the guest's cross-check
#                       (default 50 under TCG, else 2)
#   VMTEST_LOGDIR       serial logs (default build/vmtest)
#   VMTEST_GUEST_TEST   guest script to run instead of guest-test.sh
#   VMTEST_INITRD_HOOK  command run as HOOK ROOTDIR ARCH before the initramfs
#                       is packed, to add files (tests/vm/oracle.sh uses it),
#                       with VMTEST_RELEASES set to the kernel releases that
#                       will boot it (for modules built against them)
#   VMTEST_CST          0: x86_64 guests without the _CST tables (no
#                       acpi_idle; the haltpoll oracle guest binds its own
#                       driver), default 1
#   VMTEST_APPEND       more kernel parameters (e.g. cpuidle.off=1)
#   VMTEST_FIRST_APPEND more kernel parameters for each guest's first boot
#                       only (the harness's own test makes that boot die
#                       before init with it)
#   VMTEST_BOOT_RETRY   0: a guest whose kernel died before init (no
#                       VMTEST-INIT line) fails; default 1: it boots once more
#   VMTEST_SMP          x86_64 vCPUs (default 4)
#   VMTEST_LOG_TAG      suffix of each serial log's name; set, the run leaves
#                       build/vmtest/compat alone (it is make compat's)
#   VMTEST_FETCH_ONLY   1: fetch the kernels, list the guests ("GUEST ARCH
#                       WORD" lines), boot none (tests/vm/all.sh)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${IDLESCOPE:-$root/build/static/idlescope}
cache=${IDLESCOPE_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/idlescope/vm}
kernels=${VMTEST_KERNELS:-5.10 6.1 6.12 6.12@32,sockets=2,cores=8,threads=2 6.12@64,sockets=2,cores=16,threads=2:top}
vm_timeout=${VMTEST_TIMEOUT:-360}
logdir=${VMTEST_LOGDIR:-$root/build/vmtest}
archs=${VMTEST_ARCH:-x86_64 arm64}
# Time allowed per idle period in the guest's cross-check (the guest defaults
# to 50 us under TCG, 2 us otherwise). Unknown name=value kernel parameters
# without a dot reach /init, and so the guest test, as environment variables.
bias_arg=${VMTEST_BIAS_US:+vmtest_bias_us=$VMTEST_BIAS_US}

say() { printf 'vmtest: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

bin_arm64=${IDLESCOPE_ARM64:-$root/build/arm64/idlescope}

# Per guest architecture: the static binary, its ELF machine, the accelerator.
bin_of() { if [ "$1" = arm64 ]; then echo "$bin_arm64"; else echo "$bin"; fi; }
accel_of() {
	if [ -n "${VMTEST_ACCEL:-}" ]; then echo "$VMTEST_ACCEL"
	elif [ "$1" = arm64 ]; then echo tcg
	else echo tcg,thread=single; fi
}
for a in $archs; do
	case $a in
	x86_64) machine='X86-64' make_hint='make' ;;
	arm64) machine='AArch64' make_hint='make ARCH=arm64' ;;
	*) die "VMTEST_ARCH: unknown guest architecture '$a' (x86_64, arm64)" ;;
	esac
	b=$(bin_of "$a")
	[ -x "$b" ] || die "$b not found: run $make_hint first"
	if command -v readelf >/dev/null; then
		[[ $(readelf -h "$b") == *"Machine:"*"$machine"* ]] || die "$b is not an $a binary"
		[[ $(readelf -l "$b") != *INTERP* ]] ||
			die "$b is dynamically linked; the guest has no libraries (make static)"
	fi
done
has_arch() { [[ " $archs " == *" $1 "* ]]; }

# --- host tools -------------------------------------------------------------

need_pkgs=()
if has_arch x86_64; then
	command -v qemu-system-x86_64 >/dev/null || need_pkgs+=(qemu-system-x86)
	command -v iasl >/dev/null || need_pkgs+=(acpica-tools)
fi
if has_arch arm64; then
	command -v qemu-system-aarch64 >/dev/null || need_pkgs+=(qemu-system-arm)
	command -v dtc >/dev/null || need_pkgs+=(device-tree-compiler)
fi
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

# --- arm64: packages through a private apt state ------------------------------

# arm64 kernels and busybox come from the host's bookworm sources read with
# APT::Architecture=arm64 in $cache/apt-arm64; the host's dpkg is not touched.
if has_arch arm64; then
	log() { say "$*"; } # for debian-apt.sh
	# shellcheck source-path=SCRIPTDIR source=../../scripts/debian-apt.sh disable=SC1091
	. "$here/../../scripts/debian-apt.sh"
	private_apt_init "$cache/apt-arm64" arm64
	private_apt_sources "${VMTEST_SUITE:-bookworm}" http://deb.debian.org/debian
fi

# The static busybox of arm64 guests, from busybox-static:arm64 (extracted,
# cached); set busybox_arm64. The applet list is read from the host's busybox
# of the same Debian release.
fetch_busybox_arm64() {
	local dir=$cache/busybox-static-arm64 tmp
	busybox_arm64=$dir/busybox
	[ -x "$busybox_arm64" ] && return 0
	compgen -G "$PRIVATE_APT_DIR/lists/*_Packages*" >/dev/null ||
		private_apt apt-get update >&2 || return 1
	tmp=$(mktemp -d "$cache/dl.XXXXXX") || return 1
	if (cd "$tmp" && private_apt apt-get download busybox-static >&2) &&
		dpkg-deb --fsys-tarfile "$tmp"/busybox-static_*_arm64.deb | tar -x -C "$tmp" ./bin/busybox &&
		mkdir -p "$dir" && mv "$tmp/bin/busybox" "$busybox_arm64"; then
		rm -rf "$tmp"
		return 0
	fi
	rm -rf "$tmp"
	return 1
}


# --- kernels ----------------------------------------------------------------

# apt for the guest's architecture: the host's own for x86_64, the private
# state for arm64 (no root needed there).
apt_of() { # arch command args...
	local a=$1
	shift
	if [ "$a" = arm64 ]; then private_apt "$@"; else "$@"; fi
}
debarch_of() { if [ "$1" = arm64 ]; then echo arm64; else echo amd64; fi; }

# Package name for a series, from the local apt lists; empty if unknown.
resolve_pkg() { # series arch
	local p d
	d=$(debarch_of "$2")
	case $1 in
	6.1)
		apt_of "$2" apt-cache depends "linux-image-$d" 2>/dev/null |
			awk -v d="$d" '$1 == "Depends:" && $2 ~ "^linux-image-6\\.1\\.[0-9]+-[0-9]+-" d "$" && !n++ { print $2 }'
		;;
	6.12)
		for p in $(apt_of "$2" apt-cache pkgnames linux-image-6.12. 2>/dev/null |
			grep -E "^linux-image-6\.12\.[0-9]+\+deb12-$d\$" | sort -rV); do
			if [[ $(apt_of "$2" apt-cache policy "$p") == *'Candidate: '[0-9]* ]]; then
				echo "$p"
				return
			fi
		done
		;;
	linux-image-*) echo "$1" ;;
	esac
}

# Newest vmlinuz already in the cache for a series (offline fallback).
cached_series() { # series arch
	local pat d
	d=$(debarch_of "$2")
	case $1 in
	6.1) pat="linux-image-6.1.*-$d" ;;
	6.12) pat="linux-image-6.12.*+deb12-$d" ;;
	*) pat=$1 ;;
	esac
	# shellcheck disable=SC2086 # $pat is a glob on purpose
	(cd "$cache" 2>/dev/null && printf '%s\n' $pat/vmlinuz-*) | grep -v '\*' | sort -V | tail -1 |
		sed "s|^|$cache/|"
}

download_pkg() { # package arch -> path of its vmlinuz in the cache
	# Called in a condition, where set -e is off: every step is checked.
	local pkg=$1 dir=$cache/$1 tmp t0
	if ! compgen -G "$dir/vmlinuz-*" >/dev/null; then
		t0=$(now)
		mkdir -p "$cache" && tmp=$(mktemp -d "$cache/dl.XXXXXX") || return 1
		# apt-get download writes to the current directory, which the _apt
		# sandbox user cannot reach under $HOME.
		if ! (cd "$tmp" && apt_of "$2" apt-get -o APT::Sandbox::User="$(id -un)" download "$pkg" >&2) ||
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
# apt state for bullseye (scripts/debian-apt.sh): the host's dpkg and apt
# lists are not touched. Prints the vmlinuz path, or returns 1. Run in a
# subshell: debian-apt.sh keeps its state in globals, which arm64's
# bookworm state must keep.
bullseye_kernel_path() {
	local d=$cache/bullseye-apt pkg dir tmp
	# shellcheck disable=SC2317 # called by debian-apt.sh
	log() { say "$@"; }
	# shellcheck source=scripts/debian-apt.sh disable=SC1091
	. "$root/scripts/debian-apt.sh"
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
	compgen -G "$dir/vmlinuz-*" | head -1
}

kernel_path() { # series, package or path; arch -> $vmlinuz (no subshell: apt_updated sticks)
	local k=$1 a=$2 pkg
	vmlinuz=
	if [ -f "$k" ]; then
		vmlinuz=$k
		return
	fi
	if [ "$k" = 5.10 ]; then
		vmlinuz=$(bullseye_kernel_path) && [ -n "$vmlinuz" ] && return
		vmlinuz=$(cached_series 'linux-image-5.10.*-amd64' "$a")
		[ -n "$vmlinuz" ] && say "5.10: using cached $vmlinuz"
		[ -n "$vmlinuz" ]
		return
	fi
	pkg=$(resolve_pkg "$k" "$a")
	if [ -n "$pkg" ] && vmlinuz=$(download_pkg "$pkg" "$a"); then
		return
	fi
	# Debian drops superseded ABI packages: refresh the lists once and retry
	# (the host's lists need root; arm64's private ones do not).
	if { [ "$a" = arm64 ] || [ "$(id -u)" = 0 ]; } && [[ " ${apt_updated:-} " != *" $a "* ]]; then
		apt_updated="${apt_updated:-} $a"
		say "$k: ${pkg:+$pkg not downloadable}${pkg:-no package in the apt lists}, running apt-get update"
		apt_of "$a" apt-get update >&2 || true
		pkg=$(resolve_pkg "$k" "$a")
		if [ -n "$pkg" ] && vmlinuz=$(download_pkg "$pkg" "$a"); then
			return
		fi
	fi
	vmlinuz=$(cached_series "$k" "$a")
	if [ -n "$vmlinuz" ]; then
		say "$k: using cached $vmlinuz"
		return
	fi
	return 1
}

# --- initramfs --------------------------------------------------------------

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

build_initrd() { # arch -> $work/initrd-ARCH.img (x86_64: without the ACPI tables, initrd_x86_64)
	local arch=$1 r=$work/root-$1 a bb=$busybox
	[ "$arch" = arm64 ] && bb=$busybox_arm64
	mkdir -p "$r"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,mnt}
	cp "$bb" "$r/bin/busybox"
	for a in $("$busybox" --list); do
		[ -e "$r/bin/$a" ] || ln -s busybox "$r/bin/$a"
	done
	cp "$(bin_of "$arch")" "$r/bin/idlescope"
	cp "${VMTEST_GUEST_TEST:-$here/guest-test.sh}" "$r/test.sh"
	[ -z "${VMTEST_INITRD_HOOK:-}" ] || VMTEST_RELEASES=$VMTEST_RELEASES $VMTEST_INITRD_HOOK "$r" "$arch" ||
		die "$VMTEST_INITRD_HOOK failed"
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
	(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd-$arch.img"
}

# x86_64 idle states: the kernel (ACPI_TABLE_UPGRADE) reads tables only from an
# uncompressed cpio at the start of the initrd; the rest may be compressed.
# ssdt-cst.asl holds the states; a second table, written here, gives each of
# the guest's processor objects (QEMU's \_SB.CPUS.C000, C001, ...: C%03X) a
# _CST returning them.
initrd_ssdt_x86_64() { # ncpus -> cpio on stdout
	local n=$1 d=$work/acpi-$1 i
	mkdir -p "$d/kernel/firmware/acpi"
	{
		printf 'DefinitionBlock ("", "SSDT", 2, "VMTEST", "CSTCPUS", 1) {\n'
		printf '  External (\\_SB.VCST, PkgObj)\n'
		for ((i = 0; i < n; i++)); do
			printf '  External (\\_SB.CPUS.C%03X, DeviceObj)\n' "$i"
			printf '  Scope (\\_SB.CPUS.C%03X) { Method (_CST) { Return (\\_SB.VCST) } }\n' "$i"
		done
		printf '}\n'
	} >"$d/cpus.asl"
	{ iasl -p "$d/kernel/firmware/acpi/cst" "$here/ssdt-cst.asl" &&
		iasl -p "$d/kernel/firmware/acpi/cpus" "$d/cpus.asl"; } >"$d/iasl.log" 2>&1 ||
		{ cat "$d/iasl.log" >&2; die "iasl failed"; }
	(cd "$d" && printf '%s\n' kernel/firmware/acpi/cst.aml kernel/firmware/acpi/cpus.aml |
		cpio -o -H newc --quiet)
}

# The number of processor objects QEMU makes for a -smp spec: maxcpus, else
# the count (first field or cpus=), else sockets x dies x cores x threads.
smp_cpus() { # smp
	local f n='' max='' prod=1 IFS=,
	for f in $1; do
		case $f in
		[0-9]*) n=$f ;;
		cpus=*) n=${f#*=} ;;
		maxcpus=*) max=${f#*=} ;;
		sockets=* | dies=* | clusters=* | cores=* | threads=*) prod=$((prod * ${f#*=})) ;;
		*) die "-smp '$1': unknown field '$f'" ;;
		esac
	done
	echo "${max:-${n:-$prod}}"
}

# The x86_64 initrd for a -smp spec: the ACPI tables for its CPUs, then the
# body that build_initrd packed; one per CPU count -> $initrd.
initrd_x86_64() { # smp
	local n
	n=$(smp_cpus "$1")
	initrd=$work/initrd-x86_64-$n.img
	[ -s "$initrd" ] && return
	if [ "${VMTEST_CST:-1}" = 0 ]; then
		cp "$work/initrd-x86_64.img" "$initrd"
	else
		initrd_ssdt_x86_64 "$n" >"$initrd"
		cat "$work/initrd-x86_64.img" >>"$initrd"
	fi
}

# arm64 idle states and clusters: QEMU's own device tree for this machine with
# arm64-idle-states.dtsi and a cpu-idle-states list per CPU added (dtc path
# references, no text surgery), recompiled -> $work/virt-arm64.dtb.
# The guest checks its topology against vmtest_clusters.
arm64_clusters=2
arm64_machine=(-M virt -cpu cortex-a57 -smp "4,clusters=$arm64_clusters,cores=2" -m 1G)
build_dtb_arm64() {
	local d=$work/dtb c
	mkdir -p "$d"
	qemu-system-aarch64 -accel "$(accel_of arm64)" "${arm64_machine[@]}" -nographic \
		-machine dumpdtb="$d/virt.dtb" >"$d/dump.log" 2>&1 ||
		{ cat "$d/dump.log" >&2; die "qemu-system-aarch64 -machine dumpdtb failed"; }
	dtc -q -I dtb -O dts -o "$d/virt.dts" "$d/virt.dtb"
	{
		cat "$d/virt.dts" "$here/arm64-idle-states.dtsi"
		sed -n 's/^\t\tcpu@\([0-9a-f]*\) {$/\1/p' "$d/virt.dts" | while read -r c; do
			printf '&{/cpus/cpu@%s} {\n\tcpu-idle-states = <&cpu_ret &cluster_ret>;\n};\n' "$c"
		done
	} >"$d/virt-idle.dts"
	dtc -q -I dts -O dtb -o "$work/virt-arm64.dtb" "$d/virt-idle.dts" ||
		die "dtc failed on $d/virt-idle.dts"
	grep -q 'cpu-idle-states' <(dtc -q -I dtb -O dts "$work/virt-arm64.dtb") ||
		die "the arm64 device tree has no cpu-idle-states"
}

# --- boot and check ---------------------------------------------------------

# One boot of either architecture; boot_append: more kernel parameters for
# this boot alone (VMTEST_FIRST_APPEND on a guest's first).
boot_append=''
boot_guest() { # arch vmlinuz log smp only
	case $1 in
	x86_64) boot_x86_64 "$2" "$3" "$4" "$5" ;;
	arm64) boot_arm64 "$2" "$3" ;;
	esac
}

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

# One boot per architecture: kernel, serial log; returns qemu's (timeout's) status.
# x86_64: tsc=reliable, because the kernel's idle time comes from local_clock()
# and BPF's from ktime: TCG's "max" CPU has no invariant TSC, so 5.10 and 6.1
# mark the TSC unsynchronized, sched_clock goes unstable and local_clock()
# parts from ktime by up to a tick per period (measured, 6.1 guest: BPF below
# the kernel's inner time in 3 of 8 C1 rows without it, 0 of 8 with it). The
# guests' vCPUs all read one host clock under TCG, so it is reliable.
# A many-CPU guest (SERIES@SMP) boots with its own -smp and vmtest_many=SMP
# (and vmtest_only=ONLY for SERIES@SMP:ONLY).
boot_x86_64() { # vmlinuz log [smp [only]]
	local accel smp=${3:-${VMTEST_SMP:-4}} initrd
	accel=$(accel_of x86_64)
	initrd=$work/initrd-x86_64-$(smp_cpus "$smp").img
	timeout "$vm_timeout" qemu-system-x86_64 -accel "$accel" -cpu max -smp "$smp" -m 1G \
		-nographic -no-reboot -kernel "$1" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 quiet tsc=reliable vmtest_accel=${accel%%,*} ${3:+vmtest_many=$3} ${4:+vmtest_only=$4} $bias_arg ${VMTEST_APPEND:-} $boot_append" \
		</dev/null >"$2" 2>&1
}
boot_arm64() { # vmlinuz log
	local accel
	accel=$(accel_of arm64)
	timeout "$vm_timeout" qemu-system-aarch64 -accel "$accel" "${arm64_machine[@]}" \
		-dtb "$work/virt-arm64.dtb" -nographic -no-reboot -kernel "$1" -initrd "$work/initrd-arm64.img" \
		-append "console=ttyAMA0 panic=-1 quiet vmtest_accel=${accel%%,*} vmtest_clusters=$arm64_clusters $bias_arg ${VMTEST_APPEND:-} $boot_append" \
		</dev/null >"$2" 2>&1
}

# Which guest architecture a VMTEST_KERNELS word is for: a series is for every
# one, SERIES@SMP for x86_64, a package by its name, a vmlinuz file by its
# image header (arm64 Image magic "ARM\x64" at offset 56); "" when unknown.
kernel_arch() {
	case $1 in
	*@*) echo x86_64 ;; # a many-CPU guest
	6.1 | 6.12) echo any ;;
	5.10) echo x86_64 ;; # bullseye's amd64 kernel (bullseye_kernel_path)
	linux-image-*arm64*) echo arm64 ;;
	linux-image-*) echo x86_64 ;;
	*)
		if [ "$(od -An -c -j56 -N4 "$1" 2>/dev/null | tr -d ' ')" = 'ARMd' ]; then
			echo arm64
		elif [ -f "$1" ]; then
			echo x86_64
		fi
		;;
	esac
}

t_all=$(now)
mkdir -p "$logdir"
failed=0
tag=${VMTEST_LOG_TAG:-}
[ -n "$tag" ] || rm -rf "$logdir/compat" # the guests' idlescope info, this run's only

# The guests, in the order of VMTEST_ARCH and VMTEST_KERNELS: architecture,
# VMTEST_KERNELS word, vmlinuz, and how long finding the kernel took.
g_arch=() g_word=() g_vmlinuz=() g_find=() g_listed=()

# Boots guest I and writes its summary line to $work/summary.I.
run_guest() { # index
	local i=$1 a=${g_arch[$1]} k=${g_word[$1]} vmlinuz=${g_vmlinuz[$1]} smp='' only='' gtag=$tag name log tb rc=0 v line retried=
	if [[ $k == *@* ]]; then
		smp=${k#*@}
		[[ $smp != *:* ]] || only=${smp#*:} smp=${smp%%:*}
		gtag="$tag-smp$(smp_cpus "$smp")${only:+-$only}"
	fi
	name=$(basename "$vmlinuz")
	name=${name#vmlinuz-}
	log=$logdir/$name$gtag.log
	say "$name$gtag: booting ($(basename "$(dirname "$vmlinuz")")${smp:+, -smp $smp})"
	tb=$(now)
	rm -f "$log.noinit"
	boot_append=${VMTEST_FIRST_APPEND:-}
	boot_guest "$a" "$vmlinuz" "$log" "$smp" "$only" || rc=$?
	v=$(verdict "$log" "$rc")
	# A kernel that died before init (no VMTEST-INIT line) never ran the
	# test: under TCG that has been the emulator's doing (a double fault
	# in start_kernel, once in tens of boots, the same kernel booting the
	# next time), so such a guest boots once more, and the summary says so;
	# a fault of the kernel or the initramfs fails both boots.
	if [ "$v" != PASS ] && ! grep -aq '^VMTEST-INIT: ' "$log" && [ "${VMTEST_BOOT_RETRY:-1}" != 0 ]; then
		mv "$log" "$log.noinit"
		retried="second boot: the first died before init (${v#FAIL: }, log $log.noinit)"
		say "$name$gtag: the kernel never reached init (${v#FAIL: }): booting it again"
		boot_append='' rc=0
		boot_guest "$a" "$vmlinuz" "$log" "$smp" "$only" || rc=$?
		v=$(verdict "$log" "$rc")
	fi
	line=$(printf '%-4s  %-6s %-26s boot+test %5ss, total %5ss  %s' "${v%%:*}" "$a" "$name$gtag" \
		"$(since "$tb")" "$(since "$tb" | awk -v f="${g_find[$i]}" '{ printf "%.1f", $1 + f }')" "$(tr -d '\r' <"$log" |
			sed -n 's/^INFO \(idle states [^(]*\) (.*/\1;/p; s/^INFO \(missing_events .*\)/\1/p' | paste -sd' ' -)")
	[ -z "$retried" ] || line="$line
      $retried"
	if [ "$v" != PASS ]; then
		# (|| true: under set -e and pipefail a log without such rows, a
		# grep that matched nothing, ended this script before its summary)
		line="$line
      ${v#FAIL: } (log: $log)$(tr -d '\r' <"$log" | grep -a -E '^ *\| (FX)?BAD ' | head -n 4 |
			sed 's/^ *| */\n      bad row: /' || true)"
		# the rows a cross-check judged out of bounds, which the last lines
		# seldom hold (CI keeps only the tail of the whole run's output)
		say "$name$gtag: $v; its failed checks and judged-bad rows:"
		tr -d '\r' <"$log" | grep -a -E '^CHECK FAIL |^ *\| (FX)?BAD ' | head -n 20 | sed 's/^/    /' >&2 || true
		say "$name$gtag: last lines of $log:"
		tail -n 30 "$log" | tr -d '\r' | sed 's/^/    /' >&2
	fi
	echo "$line" >"$work/summary.$i"
	[ -z "$gtag" ] || return 0
	# idlescope info of this guest, for docs/compat.md (make compat)
	mkdir -p "$logdir/compat"
	tr -d '\r' <"$log" | sed -n 's/^VMTEST-INFO: //p' | tail -1 >"$logdir/compat/$name.json"
	[ -s "$logdir/compat/$name.json" ] || rm -f "$logdir/compat/$name.json"
}

# Kernels and initrds first, one guest at a time (apt runs in this shell only).
i=0
for a in $archs; do
	for k in $kernels; do
		ka=$(kernel_arch "$k")
		[ "$ka" = any ] || [ "$ka" = "$a" ] || continue
		i=$((i + 1))
		t0=$(now)
		g_listed[i]="$a $k"
		if ! kernel_path "${k%%@*}" "$a"; then
			echo "FAIL  $a $k: no kernel (apt-cache/apt-get download failed and nothing cached)" >"$work/summary.$i"
			continue
		fi
		g_arch[i]=$a g_word[i]=$k g_vmlinuz[i]=$vmlinuz g_find[i]=$(since "$t0")
	done
done
# VMTEST_FETCH_ONLY=1 (tests/vm/all.sh, before its guests run side by side):
# the host tools and every kernel fetched, one at a time, and every guest
# listed, "GUEST ARCH WORD" a line, fetched or not (one whose kernel is
# missing fails in its own run, as here); none booted.
if [ "${VMTEST_FETCH_ONLY:-0}" = 1 ]; then
	for ((j = 1; j <= i; j++)); do
		echo "GUEST ${g_listed[j]}"
	done
	exit 0
fi
# Then the initramfs of each architecture, whose hook learns the releases
# that boot it (the release is the vmlinuz name's tail)
releases_of() { # arch
	local j
	for j in "${!g_arch[@]}"; do
		[ "${g_arch[j]}" = "$1" ] && basename "${g_vmlinuz[j]}" | sed 's/^vmlinuz-//'
	done | sort -u | paste -sd' ' -
}
if has_arch x86_64; then
	VMTEST_RELEASES=$(releases_of x86_64) build_initrd x86_64
	say "x86_64 initrd $(du -k "$work/initrd-x86_64.img" | cut -f1) KiB, accel $(accel_of x86_64)"
	for j in "${!g_arch[@]}"; do
		[ "${g_arch[j]}" = x86_64 ] || continue
		s=${VMTEST_SMP:-4}
		[[ ${g_word[j]} != *@* ]] || s=${g_word[j]#*@}
		initrd_x86_64 "${s%%:*}"
	done
fi
if has_arch arm64; then
	fetch_busybox_arm64 || die "no arm64 busybox (apt-get download busybox-static:arm64 failed and nothing cached)"
	VMTEST_RELEASES=$(releases_of arm64) build_initrd arm64
	build_dtb_arm64
	say "arm64 initrd $(du -k "$work/initrd-arm64.img" | cut -f1) KiB, accel $(accel_of arm64), ${arm64_machine[*]}"
fi
# Then two lanes: the many-CPU guests (SERIES@SMP) one after another in the
# background, the others one after another meanwhile. Under thread=single TCG
# a guest keeps one host CPU busy, so the many-CPU guest adds little wall
# time on a 2-CPU host. The summary keeps the list's order.
(
	for j in "${!g_word[@]}"; do
		[[ ${g_word[j]} != *@* ]] || run_guest "$j"
	done
) &
lane=$!
for j in "${!g_word[@]}"; do
	[[ ${g_word[j]} == *@* ]] || run_guest "$j"
done
wait "$lane" || true

echo "vmtest summary ($(since "$t_all")s, logs in $logdir):"
for ((j = 1; j <= i; j++)); do
	[ -f "$work/summary.$j" ] || continue
	cat "$work/summary.$j"
	[[ $(head -c4 "$work/summary.$j") != FAIL ]] || failed=1
done
exit "$failed"
