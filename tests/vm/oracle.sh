#!/usr/bin/env bash
# The oracle guests: the host's BATS oracle tests (tests/bats, tag "oracle")
# run inside QEMU guests, against the guests' own sysfs counters, for the
# checks this host cannot run (tests/vm/README.md). Three kinds, each through
# tests/vm/run.sh with its initramfs extended by oracle-initrd.sh:
#   oracle    x86_64 guests with ACPI _CST states (driver acpi_idle): every
#             test tagged "oracle" (ORACLE_KERNELS, default 6.12)
#   haltpoll  x86_64 guests without _CST where a test module
#             (haltpoll/haltpoll_bind.c) binds the kernel's own haltpoll
#             driver and governor: POLL and "haltpoll idle" (a state name
#             with a space), HLT exits inside which the waking interrupt
#             runs; every test tagged "oracle" (HALTPOLL_KERNELS, default
#             6.12). Run by default only where the host's own driver is not
#             haltpoll: a haltpoll host runs those tests itself
#   nodriver  x86_64 guests booted with cpuidle.off=1: the tests tagged
#             "nodriver", the default-idle path on every kernel
#             (NODRIVER_KERNELS, default "5.10 6.1 6.12")
# Serial logs: build/vmtest/NAME-oracle.log, NAME-haltpoll.log and
# NAME-nodriver.log, whose "ORACLE-TAP: " lines tests/coverage.sh reads.
# ORACLE_KINDS selects (default "oracle haltpoll nodriver", without haltpoll
# on a haltpoll host); the VMTEST_* variables of run.sh apply. The first line
# printed is "oracle.sh: kinds ..." (tests/run.sh counts their summaries).
# ORACLE_LANES=1 runs the kinds one after another; by default, on a host with
# two CPUs or more, the first kind runs while the others run one after another
# beside it (under thread=single TCG a guest keeps one host CPU busy), and their
# output follows the first's when they end, so no line is interleaved.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

run_kind() { # kind
	local kernels append timeout cst=1 haltpoll=0
	case $1 in
	oracle)
		kernels=${ORACLE_KERNELS:-6.12}
		append="vmtest_tags=oracle"
		# a test's timeouts are the host's; this bounds the whole run
		timeout=${ORACLE_TIMEOUT:-900}
		;;
	haltpoll)
		kernels=${HALTPOLL_KERNELS:-6.12}
		append="vmtest_tags=oracle vmtest_haltpoll=1"
		timeout=${ORACLE_TIMEOUT:-900}
		cst=0 haltpoll=1
		;;
	nodriver)
		kernels=${NODRIVER_KERNELS:-5.10 6.1 6.12}
		append="cpuidle.off=1 vmtest_tags=nodriver"
		timeout=${ORACLE_TIMEOUT:-300}
		;;
	esac
	# 2 vCPUs: the tests' loads are sized for this 2-CPU host, and each
	# vCPU costs a host CPU under TCG
	VMTEST_ARCH=x86_64 VMTEST_KERNELS=$kernels VMTEST_SMP=2 VMTEST_TIMEOUT=$timeout \
		VMTEST_CST=$cst ORACLE_HALTPOLL=$haltpoll \
		VMTEST_APPEND="$append ${VMTEST_APPEND:-}" VMTEST_LOG_TAG=-$1 \
		VMTEST_GUEST_TEST=$here/oracle-guest.sh VMTEST_INITRD_HOOK=$here/oracle-initrd.sh \
		"$here/run.sh"
}

default_kinds="oracle haltpoll nodriver"
[ "$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null)" != haltpoll ] ||
	default_kinds="oracle nodriver"
read -ra kinds <<<"${ORACLE_KINDS:-$default_kinds}"
for kind in "${kinds[@]}"; do
	case $kind in
	oracle | haltpoll | nodriver) ;;
	*) echo "oracle.sh: unknown kind '$kind' (oracle, haltpoll, nodriver)" >&2; exit 2 ;;
	esac
done
echo "oracle.sh: kinds ${kinds[*]}"
lanes=${ORACLE_LANES:-$(($(nproc) >= 2 ? 2 : 1))}
rc=0
if [ "$lanes" -gt 1 ] && [ "${#kinds[@]}" -gt 1 ]; then
	side=$(mktemp)
	trap 'rm -f "$side"' EXIT
	(
		r=0
		for kind in "${kinds[@]:1}"; do run_kind "$kind" || r=1; done
		exit "$r"
	) >"$side" 2>&1 &
	lane=$!
	run_kind "${kinds[0]}" || rc=1
	wait "$lane" || rc=1
	cat "$side"
else
	for kind in "${kinds[@]}"; do run_kind "$kind" || rc=1; done
fi
exit "$rc"
