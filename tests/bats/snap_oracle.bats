#!/usr/bin/env bats
# The sysfs oracle of the live tests (helpers.bash: tests/lib/cpuidle-snap,
# record_snapped, assert_within_snapshots) on canned input, so that it is
# shown to fail on any host: a report whose entries, time or misses are off by
# 5% from the kernel's counters, or that lacks a CPU or state, must be
# refused; the right one must pass. tests/fixtures/snapshots: 2 CPUs, states POLL
# and "haltpoll idle" (a name with a space); s.o0 s.i0 s.i1 s.o1 the four
# snapshots (CPU INDEX usage time_us above below rejected), record.json a
# report that lies between them (CPU 1's state 1 with rejected entries).

bats_require_minimum_version 1.5.0
load helpers

setup() {
	FX=$BATS_TEST_DIRNAME/../fixtures/snapshots
	# the host's settings, whatever the environment says (read by helpers.bash)
	# shellcheck disable=SC2034
	IDLESCOPE_TEST_BIAS_NS=1000 IDLESCOPE_TEST_STALL_PERIODS=0
}

# record.json with jq filter $1 applied, in the test's directory
edited() {
	jq "$1" "$FX/record.json" >"$BATS_TEST_TMPDIR/r.json"
	echo "$BATS_TEST_TMPDIR/r.json"
}

@test "snapshot oracle: cpuidle-snap reads a sysfs tree by directory index, names with spaces and missing counters" {
	local r=$BATS_TEST_TMPDIR/sys s
	for s in cpu0/cpuidle/state0 cpu0/cpuidle/state1 cpu12/cpuidle/state1; do mkdir -p "$r/$s"; done
	mkdir -p "$r/cpufreq" "$r/cpu3" # no cpuidle directory: no lines
	printf 'POLL\n' >"$r/cpu0/cpuidle/state0/name"
	printf 'haltpoll idle\n' >"$r/cpu0/cpuidle/state1/name"
	printf '12\n' >"$r/cpu0/cpuidle/state0/usage"
	printf '34\n' >"$r/cpu0/cpuidle/state0/time"
	printf '0\n' >"$r/cpu0/cpuidle/state0/above"
	printf '5\n' >"$r/cpu0/cpuidle/state0/below"
	printf '1\n' >"$r/cpu0/cpuidle/state0/rejected"
	printf '987654321\n' >"$r/cpu0/cpuidle/state1/usage"
	printf '123456789012345\n' >"$r/cpu0/cpuidle/state1/time" # large: printed as read
	printf '7\n' >"$r/cpu12/cpuidle/state1/usage"
	printf '8\n' >"$r/cpu12/cpuidle/state1/time"
	run "$CPUIDLE_SNAP" "$r"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output"
	[ "$output" = "$(printf '%s\n' '0 0 12 34 0 5 1' '0 1 987654321 123456789012345 - - -' '12 1 7 8 - - -')" ]
	# no cpuidle driver: nothing
	run "$CPUIDLE_SNAP" "$BATS_TEST_TMPDIR/nothing"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "snapshot oracle: the report between the inner and outer snapshots passes" {
	assert_within_snapshots "$FX/record.json" "$FX/s"
	# the deltas: entries are usage + rejected, time in ns
	run snap_deltas "$FX/s"
	[ "$(jq -c '.["1 1"]' <<<"$output")" = \
		'{"cpu":1,"state":1,"in":{"entries":1503,"time_ns":2800000000,"above":50,"below":2},"out":{"entries":1523,"time_ns":3290000000,"above":52,"below":2}}' ]
}

@test "snapshot oracle: entries 5% high or low fail" {
	run assert_within_snapshots "$(edited '.cpus[0].states[1].entries |= (. * 1.05 | floor)')" "$FX/s"
	[ "$status" -eq 1 ]
	[[ "$output" == *"cpu 0 state 1 haltpoll idle: entries 2104, sysfs inner 2000 outer 2030: outside"* ]]
	run assert_within_snapshots "$(edited '.cpus[1].states[0].entries |= (. * 0.95 | floor)')" "$FX/s"
	[ "$status" -eq 1 ]
	[[ "$output" == *"cpu 1 state 0 POLL: entries 95, sysfs inner 100 outer 105: outside"* ]]
	# 2 past either bound (the allowance is 1)
	run assert_within_snapshots "$(edited '.cpus[0].states[1].entries = 1998')" "$FX/s"
	[ "$status" -eq 1 ]
	run assert_within_snapshots "$(edited '.cpus[0].states[1].entries = 2032')" "$FX/s"
	[ "$status" -eq 1 ]
	# and 1 past either is the allowance
	assert_within_snapshots "$(edited '.cpus[0].states[1].entries = 2001')" "$FX/s"
}

@test "snapshot oracle: time 5% high or low fails" {
	run assert_within_snapshots "$(edited '.cpus[0].states[1].time_ns |= . * 1.05')" "$FX/s"
	[ "$status" -eq 1 ]
	[[ "$output" == *"cpu 0 state 1 haltpoll idle: time 2943150000 ns outside"* ]]
	run assert_within_snapshots "$(edited '.cpus[1].states[1].time_ns |= . * 0.95')" "$FX/s"
	[ "$status" -eq 1 ]
	[[ "$output" == *"cpu 1 state 1 haltpoll idle: time 2661900000 ns outside"* ]]
	run assert_within_snapshots "$(edited '.cpus[0].states[0].time_ns |= . * 1.05')" "$FX/s"
	[ "$status" -eq 1 ]
}

@test "snapshot oracle: cpu_idle_miss counts outside the sysfs above/below deltas fail" {
	run assert_within_snapshots "$(edited '.cpus[0].states[1].miss_above = 57')" "$FX/s"
	[ "$status" -eq 1 ]
	[[ "$output" == *"cpu 0 state 1 haltpoll idle: cpu_idle_miss above 57 outside sysfs above inner 50 - 1, outer 55 + 1"* ]]
	run assert_within_snapshots "$(edited '.cpus[0].states[0].miss_below = 26')" "$FX/s"
	[ "$status" -eq 1 ]
	# null (no cpu_idle_miss) is not judged
	assert_within_snapshots "$(edited '.cpus[].states[] |= (.miss_above = null | .miss_below = null)')" "$FX/s"
}

@test "snapshot oracle: a CPU or state missing from the report, or an extra one, fails" {
	run assert_within_snapshots "$(edited 'del(.cpus[1])')" "$FX/s"
	[ "$status" -eq 1 ]
	[[ "$output" == *"CPUs: sysfs [0,1], report [0]"* ]]
	run assert_within_snapshots "$(edited 'del(.cpus[0].states[0])')" "$FX/s"
	[ "$status" -eq 1 ]
	[[ "$output" == *"cpu 0 state 0: not in the report"* ]]
	run assert_within_snapshots "$(edited '.cpus[0].states += [{index: 2, name: "C2", entries: 3, time_ns: 1, max_ns: 1}]')" "$FX/s"
	[ "$status" -eq 1 ]
	[[ "$output" == *"cpu 0 state 2 C2: 3 entries, no such sysfs state"* ]]
}

@test "snapshot oracle: snapshots out of order, or a row missing from one, fail" {
	local d=$BATS_TEST_TMPDIR/s
	cp "$FX/s.o0" "$d.i1"; cp "$FX/s.i0" "$d.i0"; cp "$FX/s.o0" "$d.o0"; cp "$FX/s.o1" "$d.o1"
	run assert_within_snapshots "$FX/record.json" "$d"
	[ "$status" -eq 1 ]
	[[ "$output" == *"inner deltas"*"not inside outer"* ]]
	cp "$FX/s.i1" "$d.i1"
	sed -i '/^1 1 /d' "$d.o1"
	run assert_within_snapshots "$FX/record.json" "$d"
	[ "$status" -eq 1 ]
	[[ "$output" == *"cpu 1 state 1: missing from a snapshot"* ]]
}
