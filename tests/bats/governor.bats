#!/usr/bin/env bats
# Why the governor missed (issue 26): the governor's inputs (fexit on
# tick_nohz_get_sleep_length, fentry on the tick decision) split each too
# deep and too shallow period. Live: the acpi_idle guest (menu asks for the
# sleep length) and the haltpoll guest (its governor asks nothing: no
# period known); this host refuses fentry, which must be said, not
# guessed. The branches themselves are checked by hand-worked replay
# (tests/replay/gov_test.c). Oracles: the kernel's own above/below
# counters (sysfs) bound the split; cyclictest's timer against IPIs from
# a ping-pong across CPUs.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	OUT=$BATS_TEST_TMPDIR/rec.json
}

governor_now() {
	cat /sys/devices/system/cpu/cpuidle/current_governor 2>/dev/null ||
		cat /sys/devices/system/cpu/cpuidle/current_governor_ro
}

@test "governor inputs: where fentry is refused, record says why and splits nothing" {
	run "$IDLESCOPE" record -d 1 --format json -o "$OUT"
	[ "$status" -eq 0 ]
	jq .governor_inputs "$OUT"
	if jq -e '.governor_inputs.watched' "$OUT" >/dev/null; then
		skip "fentry works here: the guests' tests below cover it"
	fi
	jq -e '.governor_inputs.reason | length > 0' "$OUT"
	jq -e '[.cpus[].states[].governor] | all(. == null)' "$OUT"
	run "$IDLESCOPE" record -d 1 --without fexit --format json -o "$OUT"
	jq -e '.governor_inputs == {"watched": false, "reason": "left out (--without fexit)"}' "$OUT"
}

# Tagged oracle: needs a driver, and fentry (the guests allow it).
# bats test_tags=oracle
@test "governor inputs: each split within the kernel's above/below, known only where the governor asks" {
	require_cpuidle_driver
	p=$BATS_TEST_TMPDIR/snap
	record_snapped "$p" "cyclictest -q -t 2 -i 2000 -D 3 >/dev/null 2>&1" --format json -o "$OUT"
	jq -c .governor_inputs "$OUT"
	jq -e '.governor_inputs.watched' "$OUT"
	jq -c '.totals.states[] | {name, entries, above, below, below_qos, governor}' "$OUT" |
		sed 's/^/# /' >&3
	# the split never exceeds what it splits, per CPU and state
	bad=$(jq -r '.cpus[] | .cpu as $c | .states[] | select(.governor != null) |
		select(.governor.known_periods > .entries or
		       .governor.above_timer_near + .governor.above_woken_before_timer > .above or
		       .governor.below_tick_kept + .governor.below_predicted_short +
		       .governor.below_timer_moved + .below_qos > .below) |
		"cpu \($c) \(.name): \(.governor)"' "$OUT")
	[ -z "$bad" ]
	known=$(jq '[.cpus[].states[].governor.known_periods] | add' "$OUT")
	entries=$(jq '[.cpus[].states[].entries] | add' "$OUT")
	gov=$(governor_now)
	echo "# governor $gov: $known of $entries periods known" >&3
	case $gov in
	menu | teo)
		# they ask for the sleep length before every selection: all but
		# the periods in flight at the window's edges
		[ "$known" -ge $((entries * 9 / 10)) ]
		;;
	*)
		[ "$known" -eq 0 ]
		;;
	esac
	# the kernel's counters bound the tool's above/below (assert_within_snapshots
	# covers those); the split adds up inside them
	assert_within_snapshots "$OUT" "$p"
}
