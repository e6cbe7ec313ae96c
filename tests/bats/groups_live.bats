#!/usr/bin/env bats
# Group-level idle (--topology) on this kernel: single-CPU groups must
# reproduce their CPU's own idle periods (which record checks against
# sysfs), and a group is never all-idle for longer than any of its members.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	OUT="$BATS_TEST_TMPDIR/out.json"
}

@test "--topology custom:0,1: each one-CPU group matches its CPU" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	run "$IDLESCOPE" record --topology custom:0,1 --format json -o "$OUT" -- \
		cyclictest --laptop -q -t 2 -a -i 700 -D 2
	[ "$status" -eq 0 ]
	[ "$(jq -r .groups.level "$OUT")" = custom ]
	# a CPU period that began before the window counts for the CPU (at its
	# exit) but not for the group (its start is outside): at most 1 apart
	run jq -r '.cpus as $c | .groups.groups[] | . as $g |
		($c[] | select(.cpu == ($g.cpus | tonumber))) as $cpu |
		select(($g.periods - $cpu.entries | fabs) > 1 or $g.time_ns > $cpu.idle_ns + $cpu.edge_idle_ns) |
		"\($g.name): \($g.periods) periods, \($g.time_ns) ns vs cpu \($cpu.entries), \($cpu.idle_ns)"' "$OUT"
	[ -z "$output" ]
	[ "$(jq '[.groups.groups[].races] | add' "$OUT")" -eq 0 ]
}

@test "--topology custom:0-1: group all-idle time never exceeds a member's idle time" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	run "$IDLESCOPE" record --topology custom:0-1 --format json -o "$OUT" -- \
		cyclictest --laptop -q -t 2 -a -i 900 -D 2
	[ "$status" -eq 0 ]
	run jq -r '.cpus as $c | .groups.groups[0] as $g |
		$c[] | select($g.time_ns > .idle_ns + .edge_idle_ns) |
		"cpu \(.cpu) idle \(.idle_ns) < group \($g.time_ns)"' "$OUT"
	[ -z "$output" ]
	jq -e '.groups.groups[0] | .periods > 0 and ([.states[].time_ns] | add) == .time_ns and
		([.states[].periods] | add) == .periods' "$OUT"
}

@test "--topology: bad specs are usage errors, none turns groups off" {
	run "$IDLESCOPE" record -d 1 --topology bogus
	[ "$status" -eq 2 ]
	[[ "$output" == "idlescope: --topology: unknown topology 'bogus'"* ]]
	run "$IDLESCOPE" record -d 1 --topology custom:0,0
	[ "$status" -eq 2 ]
	[[ "$output" == *"overlap at CPU 0"* ]]
	run "$IDLESCOPE" record -d 1 --topology custom:4000
	[ "$status" -eq 2 ]
	if [ ! -d /sys/devices/system/cpu/cpufreq ] || ! ls /sys/devices/system/cpu/cpufreq/policy* >/dev/null 2>&1; then
		run "$IDLESCOPE" record -d 1 --topology freq-domain
		[ "$status" -eq 2 ]
		[[ "$output" == *"no cpufreq policies"* ]]
	fi
	run "$IDLESCOPE" record -d 0.5 --topology none --format json -o "$OUT"
	[ "$status" -eq 0 ]
	[ "$(jq .groups "$OUT")" = null ]
}
