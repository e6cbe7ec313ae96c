#!/usr/bin/env bats
# tests/lib/coverage.sh, the coverage table at the end of make test, on
# hand-made inputs: host TAPs, oracle guest logs (ORACLE-TAP/ORACLE-RETRY
# lines, the INFO cpuidle line, VMTEST-RESULT), tests/vm/run.sh logs, run.sh's
# cmocka outputs and a fake host sysfs. The checks are those of the fake suite
# tests/fixtures/coverage/suite: "drv check" (needs a driver), "nodrv
# check" (needs none, tagged nodriver), "plain check". No root, no guest.

bats_require_minimum_version 1.5.0

COV=$BATS_TEST_DIRNAME/../lib/coverage.sh
FIX=$BATS_TEST_DIRNAME/../fixtures/coverage

setup() {
	D=$BATS_TEST_TMPDIR
	# this run started 10 s ago: what is written now is this run's
	touch -d '-10 sec' "$D/stamp"
	mkdir -p "$D/sys/cpuidle"
	host_sysfs none
	# the host without a driver: drv check skips, the other two pass
	printf '%s\n' '1..3' 'ok 1 drv check # skip no cpuidle driver here' 'ok 2 nodrv check' \
		'ok 3 plain check' >"$D/host.tap"
}

# host_sysfs DRIVER [GOVERNOR [NSTATES [ONLINE]]]: the fake host's
# /sys/devices/system/cpu ("none": no driver, as without cpuidle)
host_sysfs() {
	rm -rf "$D/sys"
	mkdir -p "$D/sys/cpuidle"
	echo "${4:-0-1}" >"$D/sys/online"
	[ "$1" != none ] || return 0
	echo "$1" >"$D/sys/cpuidle/current_driver"
	echo "${2:-menu}" >"$D/sys/cpuidle/current_governor_ro"
	local i
	for ((i = 0; i < ${3:-2}; i++)); do mkdir -p "$D/sys/cpu0/cpuidle/state$i"; done
}

# guest NAME DRIVER RESULT [TAP-LINE...]: an oracle guest's serial log with
# its INFO line (oracle-guest.sh's format), the given TAP lines and
# VMTEST-RESULT RESULT ("" for none); GOVS and CMDLINE may be set
guest() {
	local f=$D/$1.log res=$3
	{
		echo "VMTEST-INIT: uptime 3.1s"
		printf 'INFO cpuidle driver %s, governors %s, cmdline %s\r\n' "$2" "${GOVS-menu teo ladder}" \
			"${CMDLINE-console=ttyS0 panic=-1 quiet vmtest_tags=oracle}"
		shift 3
		local l
		for l in "$@"; do printf '%s\r\n' "$l"; done
	} >"$f"
	[ -z "$res" ] || printf 'VMTEST-RESULT: %s\r\n' "$res" >>"$f"
	echo "$f"
}

# vmlog NAME ARCH DRIVER RESULT [MANY]: a tests/vm/run.sh (guest-test.sh) log
vmlog() {
	local f=$D/$1.log
	{
		echo "INFO kernel 6.12.118+deb12-$2, idlescope 0.1"
		echo "INFO arch $2"
		echo "INFO cpuidle driver $3, governor menu, cpus online 0-$((${5:-4} - 1))"
		echo "INFO idle states WFI 1/1us, cpu-retention 60/100us (name latency/residency)"
		[ -z "${5:-}" ] || echo "INFO many CPUs: -smp $5,sockets=2,cores=8,threads=2, $5 CPUs online 0-$(($5 - 1))"
		echo "CHECK ok cpuidle driver $3 with states"
		[ "$4" = 0 ] || echo "CHECK FAIL something"
		echo "VMTEST-RESULT: $4"
	} >"$f"
	echo "$f"
}

units_ok() {
	printf '%s\n' '== test_parse exit 0' '[  PASSED  ] 4 test(s).' '== replay_freq exit 0' \
		'[==========] Running 1 test(s).' '[ RUN      ] test_freq_residency' '[       OK ] test_freq_residency' \
		'[==========] 1 test(s) run.' '[  PASSED  ] 1 test(s).' >"$D/units"
}

cov() { run "$COV" --bats "$FIX/suite" --host-sysfs "$D/sys" --since "$D/stamp" "$@"; }

# row TEXT: the table row (check or condition) whose name starts with TEXT
row() { printf '%s\n' "${lines[@]}" | grep -F -- "$1" | head -1; }
total() { printf '%s\n' "${lines[@]}" | sed -n 's/^coverage total: \([0-9]*\) to count.*/\1/p'; }

# Every condition and check proven: a no-driver host, a haltpoll guest, an
# acpi_idle guest, an arm64 and a 32-vCPU kernel VM, replay_freq passed.
all_good() {
	HP=$(GOVS='menu teo ladder haltpoll' guest 6.12.118+deb12-amd64-haltpoll haltpoll 0 \
		'ORACLE-TAP: 1..3' 'ORACLE-TAP: ok 1 drv check' \
		'ORACLE-TAP: ok 2 nodrv check # skip cpuidle driver haltpoll here' 'ORACLE-TAP: ok 3 plain check')
	AC=$(guest 6.12.118+deb12-amd64-oracle acpi_idle 0 \
		'ORACLE-TAP: 1..3' 'ORACLE-TAP: ok 1 drv check' \
		'ORACLE-TAP: ok 2 nodrv check # skip cpuidle driver acpi_idle here' 'ORACLE-TAP: ok 3 plain check')
	ARM=$(vmlog 6.12.118+deb12-arm64 aarch64 psci_idle 0)
	SMP=$(vmlog 6.12.118+deb12-amd64-smp32 x86_64 acpi_idle 0 32)
	units_ok
}

@test "coverage: every check and condition proven: exit 0, nothing to count" {
	all_good
	cov --units "$D/units" --vm "$ARM" --vm "$SMP" "$D/host.tap" "$HP" "$AC"
	printf '%s\n' "${lines[@]}"
	[ "$status" -eq 0 ]
	[ "$(total)" = 0 ]
	[[ "$(row 'a: drv check')" == "ok "*"ok "*"ok "*"skip: no cpuidle driver here" ]]
	[[ "$(row 'no driver (default-idle')" == "ok "*"host (driver none: 1 checks ok, 0 failed)"* ]]
	[[ "$(row 'haltpoll driver')" == "ok "*"6.12.118+deb12-amd64-haltpoll.log (driver haltpoll, governor haltpoll"* ]]
	[[ "$(row 'haltpoll governor')" == "ok "*"6.12.118+deb12-amd64-haltpoll.log"* ]]
	[[ "$(row 'acpi_idle (menu/teo')" == "ok "*"6.12.118+deb12-amd64-oracle.log (driver acpi_idle, governor menu"* ]]
	[[ "$(row 'psci (arm64)')" == "ok "*"6.12.118+deb12-arm64.log (driver psci_idle, aarch64: VM passed)" ]]
	[[ "$(row 'many CPUs (32')" == "ok "*"6.12.118+deb12-amd64-smp32.log (32 CPUs online: VM passed)" ]]
	# never a live pass: "replay", and the row says so
	[[ "$(row 'cpufreq (frequency')" == "replay "*"replay only: build/tests/replay_freq"*"no live check" ]]
	[[ "$output" == *"coverage: 3 checks, 3 ran, 0 ran nowhere, 0 failed"* ]]
	[[ "$output" == *"coverage: 7 conditions, 6 ran, 1 replay only, 0 ran nowhere, 0 failed"* ]]
}

@test "coverage: a check that failed and skipped on its retry is FAIL, counted when its VM passed" {
	all_good
	AC=$(guest 6.12.118+deb12-amd64-oracle acpi_idle 0 \
		'ORACLE-TAP: 1..3' 'ORACLE-TAP: not ok 1 drv check' \
		'ORACLE-TAP: ok 2 nodrv check # skip cpuidle driver acpi_idle here' 'ORACLE-TAP: ok 3 plain check' \
		'ORACLE-RETRY: 1..1' 'ORACLE-RETRY: ok 1 drv check # skip CPU 1 busy')
	cov --units "$D/units" --vm "$ARM" --vm "$SMP" "$D/host.tap" "$HP" "$AC"
	printf '%s\n' "${lines[@]}"
	[ "$status" -eq 1 ]
	[[ "$(row 'a: drv check')" == "FAIL "*"ok "*"FAIL "* ]]
	# the guest's VM passed (VMTEST-RESULT: 0), so no other step counted it
	[ "$(total)" = 1 ]
	[[ "$output" == *"(0 ran nowhere, 1 FAIL rows no other step counted, 0 conditions ran nowhere, 0 untagged)"* ]]
}

@test "coverage: a failed check whose retry passed is ok/retry; one whose retry failed again is FAIL" {
	all_good
	AC=$(guest 6.12.118+deb12-amd64-oracle acpi_idle 0 \
		'ORACLE-TAP: 1..3' 'ORACLE-TAP: not ok 1 drv check' \
		'ORACLE-TAP: ok 2 nodrv check # skip cpuidle driver acpi_idle here' 'ORACLE-TAP: not ok 3 plain check' \
		'ORACLE-RETRY: 1..1' 'ORACLE-RETRY: ok 1 drv check' 'ORACLE-RETRY: 1..1' 'ORACLE-RETRY: not ok 1 plain check')
	cov --units "$D/units" --vm "$ARM" --vm "$SMP" "$D/host.tap" "$HP" "$AC"
	printf '%s\n' "${lines[@]}"
	[[ "$(row 'a: drv check')" == "ok "*"ok "*"ok/retry "* ]]
	[[ "$(row 'a: plain check')" == "FAIL "*"ok "*"FAIL "* ]]
	[ "$status" -eq 1 ]
}

@test "coverage: a FAIL the host TAP or a failed guest VM already counts is not counted again" {
	all_good
	# oracle-guest.sh exited 1: run.sh's verdict fails this VM
	AC=$(guest 6.12.118+deb12-amd64-oracle acpi_idle 1 \
		'ORACLE-TAP: 1..3' 'ORACLE-TAP: not ok 1 drv check' \
		'ORACLE-TAP: ok 2 nodrv check # skip cpuidle driver acpi_idle here' 'ORACLE-TAP: ok 3 plain check' \
		'ORACLE-RETRY: 1..1' 'ORACLE-RETRY: not ok 1 drv check' 'CHECK FAIL drv check')
	printf '%s\n' '1..3' 'ok 1 drv check # skip no cpuidle driver here' 'ok 2 nodrv check' \
		'not ok 3 plain check' >"$D/host.tap"
	cov --units "$D/units" --vm "$ARM" --vm "$SMP" "$D/host.tap" "$HP" "$AC"
	printf '%s\n' "${lines[@]}"
	[ "$status" -eq 1 ]
	[[ "$(row 'a: drv check')" == "FAIL "* ]]
	[[ "$(row 'a: plain check')" == "FAIL "* ]]
	[[ "$output" == *"coverage: 3 checks, 1 ran, 0 ran nowhere, 2 failed"* ]]
	[ "$(total)" = 0 ]
	# the acpi_idle guest only failed its driver checks: the condition is
	# FAIL there, counted by oracle.sh's FAIL line, not again
	[[ "$(row 'acpi_idle (menu/teo')" == "FAIL "*"FAIL in: 6.12.118+deb12-amd64-oracle.log"* ]]
}

@test "coverage: a guest log of an earlier run is ignored, not counted as ran" {
	all_good
	touch -d '-1 hour' "$AC" "$ARM"
	cov --units "$D/units" --vm "$ARM" --vm "$SMP" "$D/host.tap" "$HP" "$AC"
	printf '%s\n' "${lines[@]}"
	[ "$status" -eq 1 ]
	[[ "$output" == *"coverage: ignored $AC: not written by this run"* ]]
	[[ "$output" == *"coverage: ignored $ARM: not written by this run"* ]]
	[[ "$(row 'acpi_idle (menu/teo')" == "NOWHERE "* ]]
	[[ "$(row 'psci (arm64)')" == "NOWHERE "* ]]
	# its column is gone; the checks still ran in the haltpoll guest
	[[ "$(row 'result  oracle check')" != *"/oracle"* ]]
	[[ "$(row 'a: drv check')" == "ok "* ]]
	[ "$(total)" = 2 ]
	# without the stamp (no --since) the same log counts: the check is the stamp's
	run "$COV" --bats "$FIX/suite" --host-sysfs "$D/sys" --units "$D/units" --vm "$ARM" --vm "$SMP" \
		"$D/host.tap" "$HP" "$AC"
	[ "$status" -eq 0 ]
}

@test "coverage: a condition with no evidence is NOWHERE, counted, and exits 1" {
	all_good
	cov --units "$D/units" --vm "$SMP" "$D/host.tap" "$HP" "$AC"
	printf '%s\n' "${lines[@]}"
	[ "$status" -eq 1 ]
	[[ "$(row 'psci (arm64)')" == "NOWHERE "*" -" ]]
	[ "$(total)" = 1 ]
	[[ "$output" == *"(0 ran nowhere, 0 FAIL rows no other step counted, 1 conditions ran nowhere, 0 untagged)"* ]]
	[[ "$output" == *"coverage: 7 conditions, 5 ran, 1 replay only, 1 ran nowhere, 0 failed"* ]]
}

@test "coverage: an oracle guest with the driver but every check of its kind skipped proves nothing" {
	all_good
	AC=$(guest 6.12.118+deb12-amd64-oracle acpi_idle 0 \
		'ORACLE-TAP: 1..3' 'ORACLE-TAP: ok 1 drv check # skip busy' \
		'ORACLE-TAP: ok 2 nodrv check # skip cpuidle driver acpi_idle here' 'ORACLE-TAP: ok 3 plain check')
	cov --units "$D/units" --vm "$ARM" --vm "$SMP" "$D/host.tap" "$HP" "$AC"
	[ "$status" -eq 1 ]
	[[ "$(row 'acpi_idle (menu/teo')" == "NOWHERE "*" -" ]]
	[ "$(total)" = 1 ]
}

@test "coverage: the haltpoll governor row needs the haltpoll governor, the driver row only the driver" {
	all_good
	# the governor chosen on the command line, not the driver's own
	HP=$(GOVS='menu teo ladder haltpoll' CMDLINE='console=ttyS0 cpuidle.governor=menu' \
		guest 6.12.118+deb12-amd64-haltpoll haltpoll 0 'ORACLE-TAP: 1..1' 'ORACLE-TAP: ok 1 drv check')
	cov --units "$D/units" --vm "$ARM" --vm "$SMP" "$D/host.tap" "$HP" "$AC"
	[[ "$(row 'haltpoll driver')" == "ok "*"governor menu"* ]]
	[[ "$(row 'haltpoll governor')" == "NOWHERE "*" -" ]]
	[ "$status" -eq 1 ]
	# without the haltpoll governor registered at all
	HP=$(GOVS='menu teo ladder' guest 6.12.118+deb12-amd64-haltpoll haltpoll 0 \
		'ORACLE-TAP: 1..1' 'ORACLE-TAP: ok 1 drv check')
	cov --units "$D/units" --vm "$ARM" --vm "$SMP" "$D/host.tap" "$HP" "$AC"
	[[ "$(row 'haltpoll governor')" == "NOWHERE "*" -" ]]
	# a line that names the governor ran (guest-test.sh's format) is taken as is
	HP=$(GOVS='' guest 6.12.118+deb12-amd64-haltpoll haltpoll 0 'ORACLE-TAP: 1..1' 'ORACLE-TAP: ok 1 drv check')
	sed -i 's/, governors , cmdline/, governor haltpoll, cmdline/' "$HP"
	cov --units "$D/units" --vm "$ARM" --vm "$SMP" "$D/host.tap" "$HP" "$AC"
	[[ "$(row 'haltpoll governor')" == "ok "* ]]
	[ "$status" -eq 0 ]
}

@test "coverage: the host's own driver and governor count for their rows when its checks passed" {
	all_good
	host_sysfs haltpoll haltpoll 2
	printf '%s\n' '1..3' 'ok 1 drv check' 'ok 2 nodrv check # skip a cpuidle driver here' \
		'ok 3 plain check' >"$D/host.tap"
	cov --units "$D/units" --vm "$ARM" --vm "$SMP" "$D/host.tap" "$AC"
	printf '%s\n' "${lines[@]}"
	[[ "$(row 'haltpoll driver')" == "ok "*"host (driver haltpoll, governor haltpoll: 1 checks ok, 0 failed)" ]]
	[[ "$(row 'haltpoll governor')" == "ok "*"host (driver haltpoll"* ]]
	# no host, no guest without a driver here
	[[ "$(row 'no driver (default-idle')" == "NOWHERE "*" -" ]]
	[ "$status" -eq 1 ]
	# acpi_idle with one state is not "several states"; with ladder not menu/teo
	host_sysfs acpi_idle menu 1
	cov --units "$D/units" --vm "$ARM" --vm "$SMP" "$D/host.tap" "$HP"
	[[ "$(row 'acpi_idle (menu/teo')" == "NOWHERE "*" -" ]]
	host_sysfs acpi_idle ladder 4
	cov --units "$D/units" --vm "$ARM" --vm "$SMP" "$D/host.tap" "$HP"
	[[ "$(row 'acpi_idle (menu/teo')" == "NOWHERE "*" -" ]]
	host_sysfs acpi_idle teo 4 0-63
	cov --units "$D/units" --vm "$ARM" "$D/host.tap" "$HP"
	[[ "$(row 'acpi_idle (menu/teo')" == "ok "*"host (driver acpi_idle, governor teo"* ]]
	[[ "$(row 'many CPUs (32')" == "ok "*"host (64 CPUs online: 2 checks ok)" ]]
}

@test "coverage: psci and many CPUs from kernel VM logs only when the VM passed" {
	all_good
	ARM=$(vmlog 6.12.118+deb12-arm64 aarch64 psci_idle 1)
	SMP=$(vmlog 6.12.118+deb12-amd64-smp32 x86_64 acpi_idle 0 4) # a 4-CPU "many" guest
	cov --units "$D/units" --vm "$ARM" --vm "$SMP" "$D/host.tap" "$HP" "$AC"
	printf '%s\n' "${lines[@]}"
	[[ "$(row 'psci (arm64)')" == "FAIL "*"FAIL in: 6.12.118+deb12-arm64.log (driver psci_idle, aarch64: VM failed)" ]]
	[[ "$(row 'many CPUs (32')" == "NOWHERE "*" -" ]]
	# the arm64 VM's failure is vmtest's FAIL line; the missing 32 CPUs are counted here
	[ "$(total)" = 1 ]
	[ "$status" -eq 1 ]
	# a kernel VM log has no oracle checks: its x86 acpi_idle does not count
	# for the acpi_idle row, which is the oracle checks'
	cov --units "$D/units" --vm "$ARM" --vm "$SMP" "$D/host.tap" "$HP"
	[[ "$(row 'acpi_idle (menu/teo')" == "NOWHERE "*" -" ]]
}

@test "coverage: cpufreq is replay only when replay_freq passed, never ok; NOWHERE or FAIL otherwise" {
	all_good
	cov --vm "$ARM" --vm "$SMP" "$D/host.tap" "$HP" "$AC"
	[[ "$(row 'cpufreq (frequency')" == "NOWHERE "* ]]
	[ "$(total)" = 1 ]
	sed -i 's/^== replay_freq exit 0/== replay_freq exit 1/; s/^\[  PASSED  \] 1 test/[  FAILED  ] 1 test/' "$D/units"
	cov --units "$D/units" --vm "$ARM" --vm "$SMP" "$D/host.tap" "$HP" "$AC"
	[[ "$(row 'cpufreq (frequency')" == "FAIL "*"replay_freq failed"* ]]
	[ "$(total)" = 0 ] # the unit step counted it
	[ "$status" -eq 1 ]
	# a cpufreq driver on the host changes nothing: there is no live check
	units_ok
	mkdir -p "$D/sys/cpufreq/policy0"
	cov --units "$D/units" --vm "$ARM" --vm "$SMP" "$D/host.tap" "$HP" "$AC"
	[[ "$(row 'cpufreq (frequency')" == "replay "* ]]
	[[ "$(row 'cpufreq (frequency')" != *host* ]]
}

@test "coverage: a test that needs a driver, or none, without the tags that run it in a guest fails" {
	run "$COV" --bats "$FIX/untagged" --host-sysfs "$D/sys" "$D/host.tap"
	printf '%s\n' "${lines[@]}"
	[ "$status" -eq 1 ]
	local u
	u=$(printf '%s\n' "${lines[@]}" | sed -n 's/^coverage: untagged: b.bats: \([^:]*\): .*/\1/p' | sort | paste -sd'|')
	[ "$u" = "nodriver without its tag|untagged counter read|untagged direct|untagged through a helper|untagged through a one-line function of the file" ]
	[[ "$output" == *"untagged through a helper: needs a cpuidle driver (usage_twice -> usage_sum (reads sysfs cpuidle counters)) but is not tagged oracle"* ]]
	[[ "$output" == *", 5 untagged)"* ]]
}

@test "coverage: every test of tests/bats that needs a cpuidle driver (or none) has the tags that run it in a guest" {
	run "$COV" --host-sysfs "$D/sys" "$D/host.tap"
	[[ "$output" == *"coverage total: "*", 0 untagged)"* ]] || {
		printf '%s\n' "${lines[@]}" | grep 'untagged'
		false
	}
	# and the table lists the real oracle checks (at least these two, tagged for issue 21)
	[[ "$output" == *"top: top: timer wakeups/s of a 1 ms cyclictest"* ]]
	[[ "$output" == *"groups_live: --topology custom:0-1: group all-idle time"* ]]
}

@test "coverage: usage errors and a missing --since stamp exit 2" {
	run "$COV"
	[ "$status" -eq 2 ]
	run "$COV" --vm
	[ "$status" -eq 2 ]
	run "$COV" --since "$D/no-such-stamp" "$D/host.tap"
	[ "$status" -eq 2 ]
}
