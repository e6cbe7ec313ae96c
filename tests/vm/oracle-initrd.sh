#!/usr/bin/env bash
# VMTEST_INITRD_HOOK of the oracle guests (tests/vm/oracle.sh): adds to the
# busybox initramfs what the live BATS tests run with on the host: bash, bats,
# jq, cyclictest, GNU coreutils and friends (busybox's applets differ: date
# %N, sort, join, seq), each with the shared libraries ldd lists and the ELF
# interpreter, plus tests/bats, tests/fixtures and tests/lib.
# Usage: oracle-initrd.sh ROOTDIR ARCH (x86_64 only: these are host binaries).
set -euo pipefail
r=$1
[ "$2" = x86_64 ] || { echo "oracle-initrd.sh: host binaries fit x86_64 guests only, not $2" >&2; exit 1; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

mkdir -p "$r/usr/bin" "$r/usr/sbin" "$r/etc" "$r/root" "$r/src/tests" "$r/src/build"

# Whole packages' programs (GNU userland), then single tools.
pkgs=(coreutils grep sed findutils mawk procps util-linux)
# tmux (top.bats's terminal), setcap/getcap/capsh (privilege.bats), promtool
# (serve.bats, textfile.bats), perl (signals.bats's pending signals),
# bpftool (helpers.bash: what a run left attached), dash (tests/lib/pingpong.sh)
tools=(bash bats jq cyclictest curl ss strace env trace-cmd getconf perf
	tmux setcap getcap capsh promtool perl bpftool dash)

# A program goes to /usr/bin or /usr/sbin (before busybox's /bin in the
# guest's PATH: bookworm has coreutils in /bin, where busybox's links are);
# its libraries keep the paths ldd gives.
copy_with_libs() { # path
	local f=$1 lib d=usr/bin
	[[ $f == */sbin/* ]] && d=usr/sbin
	[ -e "$r/$d/${f##*/}" ] && return 0
	cp -L "$f" "$r/$d/"
	# ldd prints "name => /path (addr)" and the interpreter as "/path (addr)"
	for lib in $(ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		[ -e "$r$lib" ] || cp -L --parents "$lib" "$r"
	done
}

for p in "${pkgs[@]}"; do
	dpkg-query -W "$p" >/dev/null 2>&1 || { echo "oracle-initrd.sh: package $p not installed" >&2; exit 1; }
	while read -r f; do
		[ -f "$f" ] && [ -x "$f" ] && [ ! -L "$f" ] && copy_with_libs "$f"
	done < <(dpkg -L "$p" | grep -E '^/(usr/)?s?bin/')
done
# Debian's awk is an alternatives link; the tests call awk.
ln -sf mawk "$r/usr/bin/awk"
# capsh runs /bin/bash by that path (privilege.bats); busybox's /bin has none
mkdir -p "$r/bin"
ln -sf /usr/bin/bash "$r/bin/bash"
for t in "${tools[@]}"; do
	p=$(command -v "$t") || { echo "oracle-initrd.sh: $t not installed (make deps)" >&2; exit 1; }
	copy_with_libs "$p"
done
# bats is a script: its libexec helpers and libraries
for d in /usr/lib/bats-core /usr/libexec/bats-core; do cp -r --parents "$d" "$r"; done
# perl's own modules (signals.bats uses POSIX), and the terminfo entries
# of top.bats's tmux-256color (tmux and the static idlescope read them)
perl_lib=$(perl -MPOSIX -e 'print $INC{"POSIX.pm"}')
cp -r --parents "${perl_lib%/POSIX.pm}" "$r"
cp -r --parents /lib/terminfo "$r"
# tmux refuses to start without a UTF-8 locale: glibc's C.UTF-8
cp -r --parents /usr/lib/locale/C.utf8 "$r"

# Users the tests name, and the tests themselves
printf 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$r/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$r/etc/group"
cp -a "$root/tests/bats" "$root/tests/fixtures" "$root/tests/lib" "$r/src/tests/"
# compat.bats runs tests/vm/compat.sh; man_help.bats reads the man page,
# prometheus.bats the examples
mkdir -p "$r/src/tests/vm" "$r/src/docs"
cp "$root/tests/vm/compat.sh" "$r/src/tests/vm/"
cp "$root"/docs/idlescope.[1-8] "$r/src/docs/"
cp -r "$root/examples" "$r/src/"
# the wakeups bench (vmtest_wakeups=1 in oracle-guest.sh)
mkdir -p "$r/src/tests/bench"
cp "$root/tests/bench/wakeups.sh" "$r/src/tests/bench/"
ln -sf /bin/idlescope "$r/src/build/idlescope"
# wakeups_live.bats's pinned ping-pong (make builds it with make test)
if [ -x "$root/build/tests/pingpong" ]; then
	mkdir -p "$r/src/build/tests"
	cp "$root/build/tests/pingpong" "$r/src/build/tests/"
fi
# replay.bats's trace-cmd shim (the guest has no gcc; the test takes IDLESCOPE_TC_SHIM)
gcc -shared -fPIC -O2 -o "$r/src/build/trace_cmd_shim.so" "$root/tests/lib/trace_cmd_shim.c" -ldl
# The haltpoll guest (oracle.sh, vmtest_haltpoll=1): the test module that
# binds the kernel's haltpoll driver, built for each release booting this
# initramfs; oracle-guest.sh loads the one of its kernel.
if [ "${ORACLE_HALTPOLL:-0}" = 1 ]; then
	for rel in ${VMTEST_RELEASES:-}; do
		ko=$("$root/tests/vm/haltpoll-module.sh" "$rel")
		mkdir -p "$r/lib/modules/$rel"
		cp "$ko" "$r/lib/modules/$rel/"
	done
fi
