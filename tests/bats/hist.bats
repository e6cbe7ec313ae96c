#!/usr/bin/env bats
# `idlescope hist`: bad input, and each metric against what the workload or
# the kernel says independently (sysfs usage, perf's own timing,
# cyclictest's own latency).

bats_require_minimum_version 1.5.0
load helpers

setup() {
	OUT="$BATS_TEST_TMPDIR/hist.json"
}

@test "hist: bad input is a usage error (exit 2)" {
	run "$IDLESCOPE" hist
	[ "$status" -eq 2 ]
	[[ "$output" == *"missing METRIC"* ]]
	run "$IDLESCOPE" hist bogus
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown METRIC 'bogus'"* ]]
	run "$IDLESCOPE" hist residency -1
	[ "$status" -eq 2 ]
	run "$IDLESCOPE" hist residency 0
	[ "$status" -eq 2 ]
	[[ "$output" == *"invalid INTERVAL"* ]]
	run "$IDLESCOPE" hist residency --linear 0
	[ "$status" -eq 2 ]
	[[ "$output" == *"--linear needs a bucket width"* ]]
	run "$IDLESCOPE" hist wakeup-latency -p 999999999
	[ "$status" -eq 2 ]
	run "$IDLESCOPE" hist wakeup-latency -p 4194303
	[ "$status" -eq 2 ]
	[[ "$output" == *"no process with PID 4194303"* ]]
	run "$IDLESCOPE" hist residency -p 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"-p and -c apply to"* ]]
	run "$IDLESCOPE" hist wakeup-latency --per-state
	[ "$status" -eq 2 ]
	run "$IDLESCOPE" hist residency --unit s
	[ "$status" -eq 2 ]
	run -127 "$IDLESCOPE" hist residency 1 x
	[ "$status" -eq 127 ] # "x" starts a COMMAND, which does not exist
}

# bats test_tags=oracle
@test "hist residency: count matches the kernel's usage delta on that CPU" {
	require_cpuidle_driver
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	local before after usage1 d=$BATS_TEST_TMPDIR
	usage1='echo $(( $(cat /sys/devices/system/cpu/cpu1/cpuidle/state*/usage | paste -sd+) ))'
	before=$(eval "$usage1")
	# the command reads the counters again inside the window, around its load
	run "$IDLESCOPE" hist residency -C 1 --format json -o "$OUT" -- bash -c \
		"$usage1 >$d/in0; cyclictest --laptop -q -t 1 -a 1 -i 1000 -D 2; $usage1 >$d/in1"
	after=$(eval "$usage1")
	[ "$status" -eq 0 ]
	# the outer sysfs reads bracket the whole idlescope run: our count is
	# inside it; the inner ones bracket the workload alone: our count holds
	# those, but for a period in flight at each inner read. (This lower
	# bound was "at most 5% short of the outer delta", assuming load and
	# attach take ~30 ms; under QEMU TCG they take seconds.)
	echo "count $(jq .histograms[0].count "$OUT"), sysfs outer $((after - before)), inner $(($(cat "$d/in1") - $(cat "$d/in0")))"
	jq -e --argjson k $((after - before)) --argjson i $(($(cat "$d/in1") - $(cat "$d/in0"))) \
		'.histograms[0].count <= $k and .histograms[0].count >= $i - 2' "$OUT"
	jq -e '.histograms[0] | ([.buckets[].count] | add) == .count and
		.min_ns <= .p50_ns and .p50_ns <= .p90_ns and .p90_ns <= .p99_ns and .p99_ns <= .max_ns' "$OUT"
}

@test "hist exit-latency --per-state: bounded by cyclictest's latency" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	"$IDLESCOPE" hist exit-latency -C 1 --per-state --format json -o "$OUT" -- \
		cyclictest --laptop -q -t 1 -a 1 -i 1000 -D 3 -h 5000 \
		--histfile="$BATS_TEST_TMPDIR/cyc.hist" > "$BATS_TEST_TMPDIR/cyc.txt"
	local cmed cavg
	cmed=$(cyclictest_median_us "$BATS_TEST_TMPDIR/cyc.hist")
	cavg=$(cyclictest_hist_field "$BATS_TEST_TMPDIR/cyc.hist" "Avg Latencies")
	[ -n "$cmed" ]
	[ -n "$cavg" ]
	# cyclictest's latency (expiry -> thread running) contains ours (expiry
	# -> hrtimer handler): see wakeups_live.bats for the bounds (our
	# minimum against its median, not its minimum)
	jq -e --argjson cmed "$cmed" --argjson cavg "$cavg" '
		[.histograms[]] as $h | ([$h[].count] | add) as $n |
		$n > 2000 and ([$h[].min_ns] | min) <= $cmed * 1000 and
		([$h[].sum_ns] | add) / $n <= $cavg * 1000 * 1.1 + 2000 and
		(.histograms | all(.state.name != null))' "$OUT"
}

@test "hist wakeup-latency -c: up to 2 samples per pipe round trip, median under perf's round trip" {
	run "$IDLESCOPE" hist wakeup-latency -c sched-pipe --format json -o "$OUT" -- \
		perf bench sched pipe -l 20000
	[ "$status" -eq 0 ]
	local usecs
	usecs=$(echo "$output" | sed -n 's/^ *\([0-9.]*\) usecs\/op.*/\1/p')
	[ -n "$usecs" ]
	# each round trip wakes each side once, and a wakeup is part of a trip.
	# A side woken before it actually slept (both on one CPU) is not
	# switched in again, so that wakeup gives no sample: between half and
	# all of the 2 per trip.
	jq -e --argjson us "$usecs" '.histograms[0] | .part == "waking -> running" and
		.count >= 2 * 20000 * 0.5 and .count <= 2 * 20000 * 1.02 and
		.p50_ns <= $us * 1000' "$OUT"
	# the split: every sample is waking -> wakeup plus wakeup -> running
	jq -e '.histograms as [$t, $w, $r] | $w.count == $t.count and $r.count == $t.count and
		$w.sum_ns + $r.sum_ns == $t.sum_ns' "$OUT"
}

@test "hist runq-latency, idle-entry, idle-exit produce consistent histograms" {
	for m in runq-latency idle-entry idle-exit; do
		run "$IDLESCOPE" hist "$m" --format json -o "$OUT" -- perf bench sched pipe -l 5000
		[ "$status" -eq 0 ]
		jq -e '.histograms[0] | .count > 0 and ([.buckets[].count] | add) == .count and
			.min_ns <= .p50_ns and .p99_ns <= .max_ns' "$OUT"
	done
}

@test "hist INTERVAL COUNT: COUNT reports, then it ends by itself" {
	run "$IDLESCOPE" hist residency 0.3 3 --format json -o "$OUT"
	[ "$status" -eq 0 ]
	[ "$(wc -l < "$OUT")" -eq 3 ]
	jq -e -s '[.[].interval] == [1,2,3]' "$OUT"
}

@test "hist --per-cpu and --linear" {
	run "$IDLESCOPE" hist residency --per-cpu --linear 250 -d 1 --format json -o "$OUT"
	[ "$status" -eq 0 ]
	[ "$(jq '.histograms | length' "$OUT")" -eq "$(nproc --all)" ]
	jq -e '.linear_ns == 250000 and ([.histograms[].buckets[] | select(.hi_ns != null) |
		.hi_ns - .lo_ns] | unique) == [250000]' "$OUT"
	run "$IDLESCOPE" hist residency -d 0.5
	[ "$status" -eq 0 ]
	[[ "$output" == *"count    distribution"* ]]
	[[ "$output" == *"p50="* ]]
}
