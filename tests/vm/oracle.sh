#!/usr/bin/env bash
# The oracle guests: the host's BATS oracle tests (tests/bats, tag "oracle")
# run inside QEMU guests, against the guests' own sysfs counters, for the
# checks this host cannot run (tests/vm/README.md). Three kinds, each through
# tests/vm/run.sh with its initramfs extended by oracle-initrd.sh:
#   oracle    x86_64 guests with ACPI _CST states (driver acpi_idle): every
#             test tagged "oracle" but not "one-driver" (any driver's counters
#             serve those: the haltpoll guest or a host with a driver runs
#             them) (ORACLE_KERNELS, default 6.12)
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
# NAME-nodriver.log, whose "ORACLE-TAP: " lines tests/lib/coverage.sh reads.
# ORACLE_KINDS selects (default "oracle haltpoll nodriver", without haltpoll
# on a haltpoll host); the VMTEST_* variables of run.sh apply.
# The guests run as jobs (one per kind; the no-driver ones one per kernel) in
# ORACLE_LANES lanes (tests/vm/lanes.sh; default 2 on a host with two CPUs or
# more: under thread=single TCG a guest keeps one host CPU busy), each lane
# taking the next job when its last ends; the output comes in job order at
# the end. The first lines printed name the kinds and the number of runs,
# each of which ends in one "vmtest summary". --jobs prints the jobs as
# lanes.sh lines instead (tests/vm/all.sh: make test's guests in one set of
# lanes), --job KIND [KERNEL] runs one.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

run_kind() { # kind [kernels]
	local kernels append timeout cst=1 haltpoll=0
	case $1 in
	oracle)
		kernels=${ORACLE_KERNELS:-6.12}
		# one-driver: a check any driver's counters serve, left to the
		# haltpoll guest or the host (tests/vm/README.md)
		append="vmtest_tags=oracle,!one-driver"
		# a test's timeouts are the host's; this bounds the whole run (its
		# 48 tests took 757-890+ s beside the haltpoll guest under TCG)
		timeout=${ORACLE_TIMEOUT:-1500}
		;;
	haltpoll)
		kernels=${HALTPOLL_KERNELS:-6.12}
		append="vmtest_tags=oracle vmtest_haltpoll=1"
		timeout=${ORACLE_TIMEOUT:-1500}
		cst=0 haltpoll=1
		;;
	nodriver)
		kernels=${NODRIVER_KERNELS:-5.10 6.1 6.12}
		append="cpuidle.off=1 vmtest_tags=nodriver"
		timeout=${ORACLE_TIMEOUT:-300}
		;;
	esac
	kernels=${2:-$kernels}
	# 2 vCPUs: the tests' loads are sized for this 2-CPU host, and each
	# vCPU costs a host CPU under TCG
	VMTEST_ARCH=x86_64 VMTEST_KERNELS=$kernels VMTEST_SMP=2 VMTEST_TIMEOUT=$timeout \
		VMTEST_CST=$cst ORACLE_HALTPOLL=$haltpoll \
		VMTEST_APPEND="$append ${VMTEST_APPEND:-}" VMTEST_LOG_TAG=-$1 \
		VMTEST_GUEST_TEST=$here/oracle-guest.sh VMTEST_INITRD_HOOK=$here/oracle-initrd.sh \
		"$here/run.sh"
}

# One job (oracle.sh --job KIND [KERNEL]): what a lane runs.
if [ "${1:-}" = --job ]; then
	shift
	run_kind "$@"
	exit
fi
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
# Jobs: one per kind, the no-driver guests one per kernel (short ones,
# which fill the lane that ends first), as lines of commands for lanes.sh.
jobs=$(mktemp)
trap 'rm -f "$jobs"' EXIT
for kind in "${kinds[@]}"; do
	if [ "$kind" = nodriver ]; then
		for k in ${NODRIVER_KERNELS:-5.10 6.1 6.12}; do
			printf '%q --job nodriver %q\n' "$here/oracle.sh" "$k"
		done
	else
		printf '%q --job %q\n' "$here/oracle.sh" "$kind"
	fi
done >"$jobs"
# --jobs: the lines alone (tests/vm/all.sh puts them in its own lanes)
if [ "${1:-}" = --jobs ]; then
	cat "$jobs"
	exit
fi
echo "oracle.sh: kinds ${kinds[*]}"
echo "oracle.sh: runs $(wc -l <"$jobs")"
"$here/lanes.sh" "${ORACLE_LANES:-}" "$jobs"
