#!/usr/bin/env bash
# The oracle guests: the host's BATS oracle tests (tests/bats, tag "oracle")
# run inside QEMU guests, against the guests' own sysfs counters, for the
# checks this host cannot run (tests/vm/README.md). Two kinds, each through
# tests/vm/run.sh with its initramfs extended by oracle-initrd.sh:
#   oracle    x86_64 guests with ACPI _CST states (driver acpi_idle): every
#             test tagged "oracle" (ORACLE_KERNELS, default 6.12)
#   nodriver  x86_64 guests booted with cpuidle.off=1: the tests tagged
#             "nodriver", the default-idle path on every kernel
#             (NODRIVER_KERNELS, default "5.10 6.1 6.12")
# Serial logs: build/vmtest/NAME-oracle.log and NAME-nodriver.log, whose
# "ORACLE-TAP: " lines tests/coverage.sh reads. ORACLE_KINDS selects
# (default "oracle nodriver"); the VMTEST_* variables of run.sh apply.
# ORACLE_LANES=1 runs the kinds one after another; by default, on a host with
# two CPUs or more, the first kind runs while the others run one after another
# beside it (under thread=single TCG a guest keeps one host CPU busy), and their
# output follows the first's when they end, so no line is interleaved.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

run_kind() { # kind
	local kernels append timeout
	case $1 in
	oracle)
		kernels=${ORACLE_KERNELS:-6.12}
		append="vmtest_tags=oracle"
		# a test's timeouts are the host's; this bounds the whole run
		timeout=${ORACLE_TIMEOUT:-900}
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
		VMTEST_APPEND="$append ${VMTEST_APPEND:-}" VMTEST_LOG_TAG=-$1 \
		VMTEST_GUEST_TEST=$here/oracle-guest.sh VMTEST_INITRD_HOOK=$here/oracle-initrd.sh \
		"$here/run.sh"
}

read -ra kinds <<<"${ORACLE_KINDS:-oracle nodriver}"
for kind in "${kinds[@]}"; do
	case $kind in
	oracle | nodriver) ;;
	*) echo "oracle.sh: unknown kind '$kind' (oracle, nodriver)" >&2; exit 2 ;;
	esac
done
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
