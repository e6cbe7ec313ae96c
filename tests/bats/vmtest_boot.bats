#!/usr/bin/env bats
# tests/vm/run.sh's second boot: a guest whose kernel dies before init (no
# VMTEST-INIT line, so no test of ours ran) boots once more, and says so;
# one that dies at every boot fails after two. Real boots of the 6.12
# kernel under TCG (one vCPU, a guest test that only prints), made to die
# by an initramfs init that does not exist and no root to fall back to.

bats_require_minimum_version 1.5.0
load helpers

RUN_SH=$BATS_TEST_DIRNAME/../vm/run.sh
NO_INIT="rdinit=/no-such-init root=/dev/no-such-disk"

setup() {
	command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64 (make deps)"
	[ -x "${IDLESCOPE_STATIC:-}" ] || skip "no static build (make static)"
	G=$BATS_TEST_TMPDIR/guest.sh
	printf '%s\n' 'echo "GUEST-RAN: yes"' 'exit 0' >"$G"
	L=$BATS_TEST_TMPDIR/logs
}

boot() { # more environment...
	run --separate-stderr env IDLESCOPE="$IDLESCOPE_STATIC" VMTEST_KERNELS=6.12 VMTEST_ARCH=x86_64 \
		VMTEST_SMP=1 VMTEST_TIMEOUT=180 VMTEST_GUEST_TEST="$G" VMTEST_LOGDIR="$L" \
		VMTEST_LOG_TAG=-boot "$@" "$RUN_SH"
	echo "$output"
	echo "$stderr"
}

@test "vmtest: a kernel that died before init boots once more, and the summary says so" {
	boot VMTEST_FIRST_APPEND="$NO_INIT"
	[ "$status" -eq 0 ]
	log=$(echo "$L"/*-boot.log)
	# the first boot died in the kernel, its log kept apart
	grep -aq 'Kernel panic' "$log.noinit"
	! grep -aq '^VMTEST-INIT: ' "$log.noinit"
	# the second ran the guest's test
	tr -d '\r' <"$log" | grep -qx 'GUEST-RAN: yes'
	tr -d '\r' <"$log" | grep -qx 'VMTEST-RESULT: 0'
	[ "$(grep -c '^PASS ' <<<"$output")" -eq 1 ]
	[[ "$output" == *"second boot: the first died before init ("*"Kernel panic"* ]]
	[ "$(grep -c 'booting it again' <<<"$stderr")" -eq 1 ]
}

@test "vmtest: a kernel that dies at every boot fails after two boots; without retry after one" {
	boot VMTEST_APPEND="$NO_INIT"
	[ "$status" -ne 0 ]
	[ "$(grep -c '^FAIL ' <<<"$output")" -eq 1 ]
	[[ "$output" == *"second boot: the first died before init"* ]]
	[ "$(grep -c 'booting it again' <<<"$stderr")" -eq 1 ]
	log=$(echo "$L"/*-boot.log)
	grep -aq 'Kernel panic' "$log"
	grep -aq 'Kernel panic' "$log.noinit"

	rm -rf "$L"
	boot VMTEST_APPEND="$NO_INIT" VMTEST_BOOT_RETRY=0
	[ "$status" -ne 0 ]
	[ "$(grep -c '^FAIL ' <<<"$output")" -eq 1 ]
	[[ "$output" != *"second boot"* ]]
	[ "$(grep -c 'booting it again' <<<"$stderr")" -eq 0 ]
	[ ! -e "$(echo "$L"/*-boot.log).noinit" ]
}
