#!/usr/bin/env bats
# Under load and side by side: an event storm under record -i 1 --packing
# (tests/robust/load.sh: summary, every interval line, drop counters, RSS
# and map memory flat), and two instances at once, each agreeing with the
# kernel's sysfs counters. `make soak` runs the storm for 10 minutes.

bats_require_minimum_version 1.5.0
load helpers

@test "30 s event storm (stress-ng timers + switches): complete output, drops reported, memory flat" {
	# the oracle guests have tests/bats and tests/lib only (and no stress-ng)
	[ -x "$BATS_TEST_DIRNAME/../robust/load.sh" ] || skip "no tests/robust/load.sh (not a source tree)"
	run "$BATS_TEST_DIRNAME/../robust/load.sh" "${IDLESCOPE_LOAD_SECONDS:-30}" "$BATS_TEST_TMPDIR/load.csv" 5
	echo "$output"
	cat "$BATS_TEST_TMPDIR/load.csv"
	[ "$status" -eq 0 ]
	[[ "$output" == *"load: ok" ]]
}

# one-driver: two sessions side by side, whatever the driver
# bats test_tags=oracle,one-driver
@test "two instances at once: each agrees with sysfs, neither disturbs the other" {
	require_cpuidle_driver
	local a="$BATS_TEST_TMPDIR/a.json" b="$BATS_TEST_TMPDIR/b.json" pa pb ra=0 rb=0
	local sa=$BATS_TEST_TMPDIR/sa sb=$BATS_TEST_TMPDIR/sb
	# the load outlasts both windows however slowly two instances start (a
	# TCG guest: with 5 s it ended before the windows, which then held too
	# few periods to compare), and is stopped after
	steady_load 60 &
	local load=$!
	# each window is its command's 3 s, with the test's inner snapshots in
	# it (sa.i0/i1, sb.i0/i1); the outer ones enclose both processes
	"$CPUIDLE_SNAP" >"$sa.o0"
	cp "$sa.o0" "$sb.o0"
	snapped_cmd "$sa" 'sleep 3'
	"$IDLESCOPE" record --format json -o "$a" -- "${SNAPPED[@]}" &
	pa=$!
	snapped_cmd "$sb" 'sleep 3'
	"$IDLESCOPE" record --packing --format json -o "$b" -- "${SNAPPED[@]}" &
	pb=$!
	wait "$pa" || ra=$?
	wait "$pb" || rb=$?
	"$CPUIDLE_SNAP" >"$sa.o1"
	cp "$sa.o1" "$sb.o1"
	kill -INT "$load" 2>/dev/null || true
	wait "$load" || true
	[ "$ra" -eq 0 ]
	[ "$rb" -eq 0 ]
	# the kernel saw idle periods on every CPU inside each window (else the
	# machine is saturated by other work and there is nothing to compare):
	# every CPU idle for >= 1% of the 3 s, in >= 100 periods, by the test's
	# inner snapshots
	for s in "$sa" "$sb"; do
		snap_deltas "$s" | jq -e '[.[]] | group_by(.cpu) |
			all((map(.in.time_ns) | add) >= 0.01 * 3e9 and (map(.in.entries) | add) >= 100)' >/dev/null ||
			skip "machine saturated by other work: too little idle time to compare"
	done
	assert_within_snapshots "$a" "$sa"
	assert_within_snapshots "$b" "$sb"
	assert_verdict_ok "$a"
	assert_verdict_ok "$b"
}
