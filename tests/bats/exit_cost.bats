#!/usr/bin/env bats
# Exit cost (docs/metrics.md#exit-cost) on this kernel: the declared cost
# against the exit latencies in sysfs and the kernel's usage counters, the
# early periods against the kernel's `above` counter, and the measured cost
# against the timer-lateness distribution it comes from. The hand-computed
# arithmetic is in replay.bats (exit-cost.ftrace).

bats_require_minimum_version 1.5.0
load helpers

setup() {
	OUT="$BATS_TEST_TMPDIR/out.json"
}

# bats test_tags=oracle
@test "exit cost: declared = entries x sysfs exit latency, early within the kernel's above" {
	require_cpuidle_driver
	local S=$BATS_TEST_TMPDIR/snap # the test's own sysfs snapshots (helpers.bash)
	run record_snapped "$S" 'cyclictest --laptop -q -t 2 -a -i 700 -D 3' --format json -o "$OUT"
	[ "$status" -eq 0 ]
	assert_within_snapshots "$OUT" "$S"
	local c i n cost early early_ns lat target bad=
	# per CPU and state, the latency and target as sysfs declares them (us)
	while read -r c i n cost early early_ns; do
		lat=$(cat "/sys/devices/system/cpu/cpu$c/cpuidle/state$i/latency")
		target=$(cat "/sys/devices/system/cpu/cpu$c/cpuidle/state$i/residency")
		[ "$cost" -eq $((n * lat * 1000)) ] || bad+="cpu $c state $i: cost $cost for $n x $lat us; "
		# every early period is shorter than the target, and longer than 0
		[ "$early_ns" -le $((early * target * 1000)) ] || bad+="cpu $c state $i: early $early_ns ns in $early periods, target $target us; "
		[ $((early == 0)) -eq $((early_ns == 0)) ] || bad+="cpu $c state $i: early $early_ns ns in $early periods; "
		# a target of 0 (POLL): no period is shorter, none is early
		[ "$target" -gt 0 ] || [ "$early" -eq 0 ] || bad+="cpu $c state $i: $early early periods, target 0; "
	done < <(jq -r '.cpus[] | .cpu as $c | .states[] |
		"\($c) \(.index) \(.entries) \(.exit_cost_ns) \(.early) \(.early_ns)"' "$OUT")
	[ -z "$bad" ] || { echo "$bad" >&2; false; }
	# the kernel's own count (usage + rejected, the test's snapshots) times
	# the declared latency: between the inner and the outer delta's, within
	# the one period per edge assert_within_snapshots allows
	run jq -r --argjson snap "$(snap_deltas "$S")" '.cpus[] | .cpu as $c | .states[] | . as $s |
		$snap["\($c) \(.index)"] as $k |
		select($s.exit_cost_ns < ($k.in.entries - 1) * $s.exit_latency_ns or
		       $s.exit_cost_ns > ($k.out.entries + 1) * $s.exit_latency_ns) |
		"cpu \($c) \($s.name): \($s.exit_cost_ns) vs usage + rejected inner \($k.in.entries) outer \($k.out.entries)"' "$OUT"
	[ -z "$output" ]
	# early = the kernel's above where a shallower state is enabled (all are
	# here): BPF's interval is a little longer than the kernel's, so a few
	# periods at the target may differ (the allowance of the menu test),
	# from the inner delta's below and the outer's above (+1 per edge)
	run jq -r --argjson snap "$(snap_deltas "$S")" '.cpus[] | .cpu as $c | ([.states[] | select(.disabled | not) | .index] | min) as $low |
		.states[] | . as $s | select($s.index > $low) | $snap["\($c) \(.index)"] as $k | select($k.in.above != null) |
		select($s.early < $k.in.above * 0.9 - 5 - 1 or $s.early > $k.out.above * 1.1 + 5 + 1) |
		"cpu \($c) \($s.name): early \($s.early) vs kernel above inner \($k.in.above) outer \($k.out.above)"' "$OUT"
	[ -z "$output" ]
	# CPU and total: the sums over the states, the shares over the window
	jq -e '.duration_ns as $w | all(.cpus[]; .exit_cost_ns == ([.states[].exit_cost_ns] | add) and
		.early_ns == ([.states[].early_ns] | add) and
		((.exit_cost_share - .exit_cost_ns / $w) | fabs) < 1e-9)' "$OUT"
	jq -e '.totals.exit_cost_ns == ([.cpus[].exit_cost_ns] | add)' "$OUT"
}

# bats test_tags=oracle,nodriver
@test "exit cost without a cpuidle driver: no declared cost, the measured one from timer lateness" {
	require_no_cpuidle_driver
	run "$IDLESCOPE" record --format json -o "$OUT" -- cyclictest --laptop -q -t 2 -a -i 1000 -D 2
	[ "$status" -eq 0 ]
	# nothing declared: no latency, no target residency (a CPU that never
	# idled, kept busy by something else, costs a known nothing)
	jq -e '[.cpus[], .totals | select(.entries > 0) | .exit_cost_ns, .exit_cost_share, .early, .early_ns] | all(. == null)' "$OUT"
	# and every target residency is 0: no period is shorter than its
	# target, so no cause, IRQ, timer or wakee has an early period
	jq -e '[.cpus[].wakeups.causes[].early, .wakeup_details[][]?.early] | length > 0 and all(. == 0)' "$OUT"
	# the timers ended periods: each CPU's measured cost is its states'
	# entries x their mean lateness, between entries x min and entries x max
	jq -e 'any(.cpus[]; .exit_cost_lateness_samples > 0 and .exit_cost_measured_ns > 0)' "$OUT"
	run jq -r '.cpus[] | .cpu as $c | .states as $st | .wakeups.timer_lateness[] | . as $l |
		($st[] | select(.index == $l.state)) as $s |
		select(($s.exit_cost_measured_ns - $s.entries * $l.sum_ns / $l.count | fabs) > 1 or
		       $s.exit_cost_measured_ns < $s.entries * $l.min_ns or
		       $s.exit_cost_measured_ns > $s.entries * $l.max_ns or
		       $s.exit_cost_lateness_samples != $l.count) |
		"cpu \($c) state \($l.state): \($s.exit_cost_measured_ns) for \($s.entries) x \($l.sum_ns)/\($l.count)"' "$OUT"
	[ -z "$output" ]
	# the table shows the section, with "-" for what is not known
	run "$IDLESCOPE" record -d 0.5 -- cyclictest --laptop -q -t 1 -i 1000 -D 1
	[ "$status" -eq 0 ]
	[[ "$output" == *"Exit cost: time spent leaving idle"* ]]
	# --fail-if on the declared share: not measured here, a usage error
	run --separate-stderr "$IDLESCOPE" record -d 0.3 --fail-if 'total.exit_cost_share > 1%'
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"total.exit_cost_share"* ]]
}

@test "exit cost: --fail-if on the measured share, and nothing measured without timers" {
	run --separate-stderr "$IDLESCOPE" record --format json -o "$OUT" --fail-if 'total.exit_cost_measured_share >= 0' -- cyclictest --laptop -q -t 1 -i 1000 -D 1
	[ "$status" -eq 3 ]
	run "$IDLESCOPE" record -d 0.5 --format json --without timers
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.totals | .exit_cost_measured_ns == null and .exit_cost_lateness_samples == 0'
}
