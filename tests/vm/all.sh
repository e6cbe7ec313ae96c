#!/usr/bin/env bash
# Every guest of make test (make vmtest): the kernel VMs (run.sh) and the
# oracle guests (oracle.sh) in one set of lanes, so that the short kernel
# VMs fill the time beside the two long oracle guests instead of running
# before them.
#   1. the host tools and every kernel fetched, one at a time (run.sh
#      VMTEST_FETCH_ONLY=1: no two apt runs side by side);
#   2. the arm64 kernel VMs, one after another, alone: multi-threaded TCG
#      keeps both host CPUs busy;
#   3. in ALL_LANES lanes (default 2 on a host with two CPUs or more:
#      thread=single TCG keeps one host CPU busy per guest), the longest
#      first: the oracle guests (oracle.sh --jobs), then each x86_64 kernel
#      VM on its own.
# Every run ends in one "vmtest summary"; the first line printed says how
# many there are ("all.sh: runs N", for tests/run.sh). The serial logs are
# run.sh's and oracle.sh's, in VMTEST_LOGDIR (build/vmtest). VMTEST_ARCH
# and VMTEST_KERNELS choose the kernel VMs as for run.sh; the oracle guests
# (x86_64) run where VMTEST_ARCH has x86_64, ORACLE_KINDS choosing them.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
archs=${VMTEST_ARCH:-x86_64 arm64}

list=$(mktemp)
jobs=$(mktemp)
trap 'rm -f "$list" "$jobs"' EXIT
# a kernel that could not be fetched fails its own run below, as in run.sh;
# a run.sh that could not list the guests (a binary missing) is a failure
if ! VMTEST_FETCH_ONLY=1 "$here/run.sh" >"$list"; then
	echo "all.sh: runs 0"
	echo "FAIL  run.sh could not list the guests (above)"
	exit 1
fi
arm64=() x86=()
while read -r tag a w; do
	[ "$tag" = GUEST ] || continue
	if [ "$a" = arm64 ]; then arm64+=("$w"); else x86+=("$w"); fi
done <"$list"

{
	[[ " $archs " != *" x86_64 "* ]] || "$here/oracle.sh" --jobs
	for w in ${x86[@]+"${x86[@]}"}; do
		printf 'VMTEST_ARCH=x86_64 VMTEST_KERNELS=%q %q\n' "$w" "$here/run.sh"
	done
} >"$jobs"
runs=$(wc -l <"$jobs")
[ ${#arm64[@]} -eq 0 ] || runs=$((runs + 1))
echo "all.sh: runs $runs"
rc=0
if [ ${#arm64[@]} -gt 0 ]; then
	VMTEST_ARCH=arm64 VMTEST_KERNELS="${arm64[*]}" "$here/run.sh" 2>&1 || rc=1
fi
if [ -s "$jobs" ]; then
	"$here/lanes.sh" "${ALL_LANES:-}" "$jobs" || rc=1
fi
exit "$rc"
