#!/usr/bin/env bats
# `record` on this kernel, checked against independent oracles: the sysfs
# cpuidle counters of the same window, the PM QoS request cyclictest makes,
# and a CPU kept busy by a spinning process.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	save_governor
	OUT="$BATS_TEST_TMPDIR/out.json"
	S="$BATS_TEST_TMPDIR/snap" # the test's own sysfs snapshots (helpers.bash)
}

teardown() {
	restore_governor
	[ -z "${SPIN:-}" ] || kill "$SPIN" 2>/dev/null || true
}

# bats test_tags=oracle
@test "steady load: entries, time and misses agree with sysfs" {
	require_cpuidle_driver
	run record_snapped "$S" 'cyclictest --laptop -q -t 2 -a -i 500 -D 3' --format json -o "$OUT"
	[ "$status" -eq 0 ]
	[ "$(jq -r .schema "$OUT")" = idlescope/1 ]
	# the load produced idle periods on every CPU
	[ "$(jq '[.cpus[] | select(.entries < 1000)] | length' "$OUT")" -eq 0 ]
	assert_within_snapshots "$OUT" "$S"
	assert_verdict_ok "$OUT"
}

# bats test_tags=oracle
@test "menu governor (switched and restored): still agrees with sysfs" {
	require_cpuidle_driver
	grep -qw menu "$CPUIDLE/available_governors" || skip "no menu governor"
	echo menu > "$CPUIDLE/current_governor"
	run record_snapped "$S" 'cyclictest --laptop -q -t 2 -a -i 300 -D 3' --format json -o "$OUT"
	[ "$status" -eq 0 ]
	[ "$(jq -r .cpuidle.governor "$OUT")" = menu ]
	assert_within_snapshots "$OUT" "$S"
	# BPF's own classification follows the kernel's rule: within a few
	# percent of the kernel's counters (timestamps differ by ~0.4 us). Not
	# so under TCG: BPF's interval holds the emulated handlers' time, tens
	# of us longer than the kernel's, so periods just short of a target
	# count as too deep for the kernel and not for BPF (seen: C2 above
	# 35 and 34 against the kernel's 48 and 57 in full runs of the suite, while
	# the test alone agreed). There BPF's above may only fall short of the
	# kernel's, and below keeps a 30% margin; cpu_idle_miss, the exact
	# count, is held to the kernel's above by assert_within_snapshots.
	# The kernel's counts are the test's snapshots: within the margin of
	# the inner delta from below and of the outer one from above.
	local tcg=false
	[ "$IDLESCOPE_TEST_STALL_PERIODS" -eq 0 ] || tcg=true
	run jq -r --argjson tcg "$tcg" --argjson snap "$(snap_deltas "$S")" '.cpus[] | .cpu as $c | .states[] |
		$snap["\($c) \(.index)"] as $k | select($k.in.above != null) |
		(if $tcg then 0.3 else 0.1 end) as $m |
		select((if $tcg then false else .above < $k.in.above * 0.9 - 5 end) or .above > $k.out.above * 1.1 + 5 or
		       .below < $k.in.below * (1 - $m) - 5 or .below > $k.out.below * (1 + $m) + 5) |
		"\($c) \(.name) bpf \(.above)/\(.below) kernel inner \($k.in.above)/\($k.in.below) outer \($k.out.above)/\($k.out.below)"' "$OUT"
	[ "$status" -eq 0 ]
	echo "$output"
	[ -z "$output" ]
	restore_governor
	[ "$(cat "$CPUIDLE/current_governor")" = "$SAVED_GOVERNOR" ]
}

# bats test_tags=oracle
@test "PM QoS 0 (cyclictest default): every below is QoS-forced" {
	require_cpuidle_driver
	# cyclictest outlasts the window however slowly record starts (a TCG
	# guest: with -D 5 it once ended inside the window, QoS and all)
	cyclictest -q -t 2 -a -i 200 -D 30 >/dev/null 2>&1 &
	local load=$!
	sleep 0.7
	run record_snapped "$S" 'sleep 3' --format json -o "$OUT"
	kill -INT "$load" 2>/dev/null || true
	wait "$load" || true
	[ "$status" -eq 0 ]
	assert_within_snapshots "$OUT" "$S"
	# cyclictest holds /dev/cpu_dma_latency at 0: no deeper state allowed
	run jq '[.cpus[].states[] | select(.below > 0)] | length' "$OUT"
	[ "$output" -gt 0 ]
	run jq -r '.cpus[] | .cpu as $c | .states[] | select(.below != .below_qos) |
		"\($c) \(.name): below \(.below), below_qos \(.below_qos), entries \(.entries)"' "$OUT"
	echo "$output"
	jq -c '{qos: .cpuidle, states: [.cpus[0].states[] | {name, exit_latency_ns, entries, below, below_qos}]}' "$OUT"
	[ -z "$output" ]
}

# bats test_tags=oracle
@test "histogram and percentiles are consistent with entries, min and max" {
	require_cpuidle_driver
	run "$IDLESCOPE" record --format json -o "$OUT" -- cyclictest --laptop -q -t 2 -a -i 700 -D 2
	[ "$status" -eq 0 ]
	run jq -r '.cpus[].states[] | select(.entries > 0) |
		select(([.hist[].count] | add) != .entries or
		       .min_ns > .p50_ns or .p50_ns > .p90_ns or .p90_ns > .p99_ns or .p99_ns > .max_ns or
		       (.time_ns / .entries | floor) != .avg_ns) | .name' "$OUT"
	[ -z "$output" ]
}

@test "a CPU kept busy shows busy time and few or no idle periods" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	taskset -c 1 bash -c 'while :; do :; done' &
	SPIN=$!
	sleep 0.3
	run record_snapped "$S" 'sleep 2' -C 1 --format json -o "$OUT"
	kill "$SPIN"
	[ "$status" -eq 0 ]
	[ "$(jq '.cpus | length' "$OUT")" -eq 1 ]
	[ "$(jq '.cpus[0].cpu' "$OUT")" -eq 1 ]
	# busy share from BPF, and, where there are sysfs counters, the test's
	# own snapshots inside the window agree the CPU barely idled (under 10%
	# of the 2 s); without a driver there is nothing to read (the states are
	# default-idle, checked against /proc/stat in nodriver.bats)
	[ "$(jq '.cpus[0].busy_ns / .duration_ns > 0.9' "$OUT")" = true ]
	if [ -s "$S.i0" ]; then
		[ "$(snap_deltas "$S" | jq '[.[] | select(.cpu == 1) | .in.time_ns] | add < 200000000')" = true ]
	else
		[ "$(cpuidle_driver)" = none ]
	fi
}

@test "idle + busy covers the window on every CPU" {
	run "$IDLESCOPE" record -d 2 --format json -o "$OUT"
	[ "$status" -eq 0 ]
	run jq -r '.duration_ns as $d | .cpus[] |
		select((.idle_ns + .edge_idle_ns + .busy_ns - $d | fabs) > 1000000 and .idle_ns + .edge_idle_ns < $d) | .cpu' "$OUT"
	[ -z "$output" ]
}

# bats test_tags=oracle
@test "raw_tp fallback gives the same agreement" {
	require_cpuidle_driver
	IDLESCOPE_NO_TP_BTF=1 run record_snapped "$S" 'cyclictest --laptop -q -t 2 -a -i 500 -D 2' --format json -o "$OUT"
	[ "$status" -eq 0 ]
	[ "$(jq -r .events.cpu_idle "$OUT")" = raw_tp ]
	assert_within_snapshots "$OUT" "$S"
}

# bats test_tags=oracle
@test "without cpu_idle_miss: misses are null and a warning says so" {
	require_cpuidle_driver
	IDLESCOPE_NO_IDLE_MISS=1 run "$IDLESCOPE" record -d 1 --format json -o "$OUT"
	[ "$status" -eq 0 ]
	[ "$(jq -r .events.cpu_idle_miss "$OUT")" = null ]
	[ "$(jq '[.cpus[].states[] | select(.miss_above != null)] | length' "$OUT")" -eq 0 ]
	[ "$(jq '[.warnings[] | select(test("cpu_idle_miss is not available"))] | length' "$OUT")" -eq 1 ]
}

@test "frequency residency: covers the window per CPU, or says there is no cpufreq" {
	run "$IDLESCOPE" record -d 1 --format json -o "$OUT"
	[ "$status" -eq 0 ]
	if ls /sys/devices/system/cpu/cpufreq/policy* >/dev/null 2>&1; then
		[ "$(jq -r .frequency.status "$OUT")" = ok ]
		# the residencies of a CPU add up to the window (1% for the snapshot)
		run jq -r '.duration_ns as $d | .frequency.cpus[] |
			select((([.residency[].time_ns] | add) - $d | fabs) > $d * 0.01) | .cpu' "$OUT"
		[ -z "$output" ]
	else
		[ "$(jq -r .frequency.status "$OUT")" = "no cpufreq on this machine" ]
		run "$IDLESCOPE" record -d 0.3
		[[ "$output" == *"Frequency residency: no cpufreq on this machine"* ]]
	fi
}
