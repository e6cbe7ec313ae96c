#!/usr/bin/env bats
# Group-level idle (--topology) on this kernel: single-CPU groups must
# reproduce their CPU's own idle periods (which record checks against
# sysfs), and a group is never all-idle for longer than any of its members,
# nor for less than the members' idle times in /proc/stat force.

bats_require_minimum_version 1.5.0
load helpers

# The kernel's idle time of CPUs 0 and 1 (/proc/stat idle + iowait, in
# USER_HZ ticks) and the clock just before and after reading it:
# "ns_before ns_after idle0 idle1".
procstat_idle_01() {
	local a b i
	a=$(date +%s%N)
	i=$(awk '$1 == "cpu0" || $1 == "cpu1" { printf " %d", $5 + $6 }' /proc/stat)
	b=$(date +%s%N)
	echo "$a $b$i"
}

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

# bats test_tags=oracle
@test "--topology custom:0-1: group all-idle time never exceeds a member's idle time" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	# the load reads the kernel's idle times at its start and end: a window
	# O inside record's (which is the command's lifetime)
	local ps=$BATS_TEST_TMPDIR/procstat
	{
		echo "#!$BASH"
		declare -f procstat_idle_01
		echo "procstat_idle_01 >'$ps'"
		echo 'cyclictest --laptop -q -t 2 -a -i 900 -D 2 || exit'
		echo "procstat_idle_01 >>'$ps'"
	} >"$BATS_TEST_TMPDIR/load.sh"
	chmod +x "$BATS_TEST_TMPDIR/load.sh"
	run "$IDLESCOPE" record --topology custom:0-1 --format json -o "$OUT" -- "$BATS_TEST_TMPDIR/load.sh"
	[ "$status" -eq 0 ]
	[ "$(wc -l <"$ps")" -eq 2 ]
	run jq -r '.cpus as $c | .groups.groups[0] as $g |
		$c[] | select($g.time_ns > .idle_ns + .edge_idle_ns) |
		"cpu \(.cpu) idle \(.idle_ns) < group \($g.time_ns)"' "$OUT"
	[ -z "$output" ]
	# The lower bound, from the kernel's idle accounting, not ours: within O
	# both CPUs are idle at once for at least idle0 + idle1 - |O|
	# (inclusion-exclusion), and O lies inside the window. Allowances: each
	# /proc/stat delta is truncated to a tick (< 1 tick per CPU); |O| is
	# taken from the clock read before the first and after the last read;
	# /proc/stat counts the idle loop around each cpuidle period (governor,
	# tick stop) that cpuidle's own periods leave out, and the observer
	# shifts each period's edges: per period of either CPU twice the
	# observer bias + 2 us, as nodriver.bats allows between record's and
	# /proc/stat's idle time of one CPU (4 us on a host). (Where the waking
	# interrupt runs inside the period, as in HLT, the difference goes the
	# other way: on a 2-vCPU KVM host without a driver record's idle was
	# 46 ms above /proc/stat's over 20266 periods of a 10 kHz load, ~2 us
	# each; where it runs after the exit, as under WFI, only the loop is
	# left.) Seen on that host, quiet, in 5 runs: 2007-2020 ms all-idle
	# against 1976-1998 ms idle0 + idle1 - |O| (bounds 1926-1958 ms); in
	# the acpi_idle TCG guest 1799 against 1452.
	local lb
	lb=$(awk -v hz="$(getconf CLK_TCK)" -v e="$(jq '[.cpus[] | select(.cpu <= 1) | .entries] | add' "$OUT")" \
		-v bias="$IDLESCOPE_TEST_BIAS_NS" '
		NR == 1 { o0 = $1; i0 = $3; i1 = $4 }
		NR == 2 { o = $2 - o0; d0 = ($3 - i0) * 1e9 / hz; d1 = ($4 - i1) * 1e9 / hz
			printf "%.0f", d0 + d1 - o - 2 * 1e9 / hz - e * (2 * bias + 2000)
			printf " (idle %.0f + %.0f ms in O %.1f ms, %d periods)\n", d0 / 1e6, d1 / 1e6, o / 1e6, e > "/dev/stderr" }' "$ps")
	echo "group all-idle $(jq '.groups.groups[0].time_ns' "$OUT") ns, lower bound $lb ns"
	[ "$(jq '.groups.groups[0].time_ns' "$OUT")" -ge "$lb" ]
	# both CPUs idle at once needs a machine not kept busy by other work:
	# only when their idle times add up to more than the window must they
	# overlap (by at least the excess), so only then do 0 periods fail (seen
	# with a compiler and a QEMU guest running: 0 periods, old and new
	# binaries alike; and one CPU idle 60% beside a busy one)
	if jq -e '.groups.groups[0].periods == 0 and
		([.cpus[] | .idle_ns + .edge_idle_ns] | add) < 1.05 * $d' --argjson d "$(jq .duration_ns "$OUT")" "$OUT" >/dev/null; then
		skip "machine busy with other work: the CPUs' idle times do not add up to the window"
	fi
	jq -e '.groups.groups[0] | .periods > 0 and ([.states[].time_ns] | add) == .time_ns and
		([.states[].periods] | add) == .periods' "$OUT"
}

# The poke (docs/architecture.md): right after attaching, each CPU that has
# had no idle event yet gets a BPF program run on it (BPF_PROG_TEST_RUN on that
# CPU), so the window opens with every CPU's state known. Oracle: the BPF
# slot's known flag, counted over the online CPUs at the start
# (start_state.unknown_cpus); a CPU kept busy by a pinned loop has no idle
# event after the attach, so without the poke (IDLESCOPE_NO_POKE=1, for
# tests) it is still unknown at the start, and with it found busy. A CPU
# known at the start can have no unmatched exit in the window.
@test "poke: every CPU's state is known when the window opens; IDLESCOPE_NO_POKE leaves a busy CPU unknown" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	taskset -c 1 sh -c 'while :; do :; done' &
	local spin=$!
	sleep 0.2
	run "$IDLESCOPE" record -d 0.5 --topology custom:0-1 --format json -o "$OUT"
	local st=$status
	run env IDLESCOPE_NO_POKE=1 "$IDLESCOPE" record -d 0.5 --topology custom:0-1 --format json \
		-o "$BATS_TEST_TMPDIR/nopoke.json"
	kill "$spin"
	[ "$st" -eq 0 ]
	[ "$status" -eq 0 ]
	jq -c .start_state "$OUT" "$BATS_TEST_TMPDIR/nopoke.json"
	jq -e '.start_state | .unknown_cpus == 0 and .poke_reason == "" and .poked_busy >= 1 and
		.poked_cpus >= .poked_busy' "$OUT"
	jq -e '[.cpus[].unmatched_exits] | add == 0' "$OUT"
	jq -e '.start_state | .unknown_cpus >= 1 and .poked_cpus == 0 and
		.poke_reason == "IDLESCOPE_NO_POKE set"' "$BATS_TEST_TMPDIR/nopoke.json"
	jq -e '[.warnings[] | select(test("of unknown state at the start"))] | length == 1' \
		"$BATS_TEST_TMPDIR/nopoke.json"
	jq -e '[.warnings[] | select(test("of unknown state"))] | length == 0' "$OUT"
}

# The poke's other half: a CPU poked on its idle task leaves idle (an exit)
# and enters it again (an entry), seen by the handlers: its slot's sequence
# count moves by 4 (start_state.poked_woken). Where attaching already gave
# every CPU an idle event nothing is poked, so IDLESCOPE_POKE_ALL pokes every
# online CPU to test that path. A busy host may have no idle CPU to poke; the
# oracle guests (idle, acpi_idle and cpuidle.off=1, 5.10 to 6.12) have.
# bats test_tags=oracle,nodriver
@test "poke: every CPU poked on its idle task leaves idle and enters it again (IDLESCOPE_POKE_ALL)" {
	local i n=0 idle=0
	for i in 1 2 3; do
		run env IDLESCOPE_POKE_ALL=1 "$IDLESCOPE" record -d 0.2 --format json -o "$OUT"
		[ "$status" -eq 0 ]
		jq -c .start_state "$OUT"
		jq -e --argjson cpus "$(getconf _NPROCESSORS_ONLN)" '.start_state |
			.poked_cpus == $cpus and .unknown_cpus == 0 and .poke_reason == "" and
			.poked_woken == .poked_cpus - .poked_busy' "$OUT"
		idle=$((idle + $(jq '.start_state | .poked_cpus - .poked_busy' "$OUT")))
		n=$((n + 1))
	done
	[ "$idle" -gt 0 ] || skip "no CPU was idle when poked in $n runs (machine busy with other work)"
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

@test "--packing: ping-pong pinned to one CPU vs on two CPUs gives opposite packing" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	local one="$BATS_TEST_TMPDIR/one.json" two="$BATS_TEST_TMPDIR/two.json" n=10000
	local pp="$BATS_TEST_DIRNAME/../lib/pingpong.sh"
	# the placement is made, never hoped for: both sides on CPU 0, then
	# one side on each CPU (perf's pipe pair left free was seen to stay
	# on one CPU for whole runs)
	run "$IDLESCOPE" record --packing --topology custom:0,1 --format json -o "$one" -- "$pp" 0 0 "$n"
	[ "$status" -eq 0 ]
	run "$IDLESCOPE" record --packing --topology custom:0,1 --format json -o "$two" -- "$pp" 0 1 "$n"
	[ "$status" -eq 0 ]
	# pinned together: the pair never wakes across groups and runs in group 0 only
	jq -e --argjson n "$n" '.packing.cross_group_wakeups < $n * 0.05 and
		([.packing.top_tasks[] | select(.comm == "pp-side") | .group_runtime_ns[1]] | add) <
		([.packing.top_tasks[] | select(.comm == "pp-side") | .runtime_ns] | add) * 0.1' "$one"
	# one on each CPU: each of the 2n messages wakes the other side, in the
	# other group, unless that side has not gone to sleep yet (at least
	# half do); the side on CPU 1 gives group 1 a good part of the runtime
	jq -e --argjson n "$n" --argjson one "$(jq .packing.cross_group_wakeups "$one")" \
		'.packing.cross_group_wakeups > 2 * $n * 0.5 and
		 .packing.cross_group_wakeups > 20 * ([$one, 50] | max) and
		 ([.packing.top_tasks[] | select(.comm == "pp-side") | .group_runtime_ns[1]] | add) >
		 ([.packing.top_tasks[] | select(.comm == "pp-side") | .runtime_ns] | add) * 0.2' "$two"
	# the timeline covers the window
	for f in "$one" "$two"; do
		jq -e '(([.packing.busy_groups_ns[]] | add) - .duration_ns | fabs) < .duration_ns * 0.01 and
			.packing.lost_updates == 0' "$f"
	done
}

@test "--packing needs groups" {
	run "$IDLESCOPE" record -d 1 --packing --topology none
	[ "$status" -eq 2 ]
	[[ "$output" == *"--packing needs topology groups"* ]]
}

@test "--packing EAS context: a CPU kept busy shows high utilization, capacity from sysfs" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	taskset -c 1 bash -c 'while :; do :; done' &
	local spin=$!
	sleep 0.5 # PELT needs ~100 ms to ramp up
	run "$IDLESCOPE" record -d 1.5 --packing --topology custom:0,1 --format json -o "$OUT"
	kill "$spin"
	[ "$status" -eq 0 ]
	jq -e '.eas | has("sched_energy_aware") and has("energy_model")' "$OUT"
	if [ -e /sys/devices/system/cpu/cpu1/cpu_capacity ]; then
		[ "$(jq '.eas.cpu_capacity[1]' "$OUT")" -eq "$(cat /sys/devices/system/cpu/cpu1/cpu_capacity)" ]
	fi
	if [ "$(jq '.eas.util' "$OUT")" != null ]; then
		# a spinning task's PELT utilization tends to 1024
		jq -e '.eas.util[] | select(.cpu == 1) | .avg > 700 and .max >= .avg' "$OUT"
	fi
}
