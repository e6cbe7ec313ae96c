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

@test "governor inputs: where they are not watched, record says why and splits nothing" {
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
	gov=$(governor_now)
	case $gov in
	menu | teo) ;;
	*)
		# asks nothing: not watched, said (no program on every idle entry)
		jq -e --arg g "$gov" '.governor_inputs == {"watched": false,
			"reason": "the \($g) governor does not ask for the sleep length"}' "$OUT"
		jq -e '[.cpus[].states[].governor] | all(. == null)' "$OUT"
		echo "# governor $gov: not watched" >&3
		return
		;;
	esac
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
	echo "# governor $gov: $known of $entries periods known" >&3
	# menu and teo ask for the sleep length before every selection: all
	# but the periods in flight at the window's edges
	[ "$known" -ge $((entries * 9 / 10)) ]
	# the kernel's counters bound the tool's above/below (assert_within_snapshots
	# covers those); the split adds up inside them
	assert_within_snapshots "$OUT" "$p"
}

# What woke a too-deep period. CPU 1 sleeps on a pipe with cyclictest's
# 3 ms timer beside it; in the first run nothing else wakes it, so few of
# its too-deep periods are woken before the timer the governor was told
# of. In the second a writer on CPU 0 wakes it after random gaps of 0.1 to
# 0.9 ms (bash's read -t: no fork per gap), wakeups the governor is not
# told of: that share grows, and such periods are those ended by something
# other than a timer (the wakeup causes: the early periods of the non-timer
# causes, within 5%).
# bats test_tags=oracle
@test "governor inputs: a timer alone is announced, wakeups from another CPU are not" {
	require_cpuidle_driver
	case $(governor_now) in menu | teo) ;; *) skip "governor $(governor_now) asks nothing" ;; esac
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	fifo=$BATS_TEST_TMPDIR/fifo
	mkfifo "$fifo" "$fifo.t"
	cat >"$BATS_TEST_TMPDIR/wl.sh" <<SH
taskset -c 1 sh -c 'while read -r x; do :; done' <"$fifo" &
cyclictest -q -t 1 -a 1 -i 3000 -D 4 >/dev/null 2>&1 &
if [ "\$1" = ipi ]; then
	taskset -c 0 bash -c 'exec 4<>"$fifo.t"; for i in \$(seq 4000); do
		read -r -t 0.000\$((RANDOM % 9 + 1)) -u 4; echo; done' >"$fifo"
else
	exec 5>"$fifo"; sleep 4; exec 5>&-
fi
wait
SH
	run "$IDLESCOPE" record -C 1 --format json -o "$OUT.timer" -- bash "$BATS_TEST_TMPDIR/wl.sh" timer
	[ "$status" -eq 0 ]
	# --fail-if takes the split's names (an unknown name exits 2): here a
	# bound that holds nowhere, so the run passes
	run "$IDLESCOPE" record -C 1 --format json -o "$OUT.ipi" \
		--fail-if 'total.state[C1].governor.woken_early.ipi-call-single > 1000000000' \
		--fail-if 'total.state[C1].governor.timer_ended.as_told > 1000000000' \
		-- bash "$BATS_TEST_TMPDIR/wl.sh" ipi
	[ "$status" -eq 0 ]
	split='[.cpus[0].states[].governor | select(. != null)] |
		{near: (map(.above_timer_near) | add), woken: (map(.above_woken_before_timer) | add)}'
	early_other='[.cpus[0].wakeups.causes | to_entries[] | select(.key != "timer") | .value.early] | add'
	for f in timer ipi; do
		echo "# $f: $(jq -c "$split" "$OUT.$f"), non-timer early $(jq "$early_other" "$OUT.$f"), entries $(jq .cpus[0].entries "$OUT.$f")" >&3
	done
	share() { jq "$split | if .near + .woken == 0 then 0 else .woken / (.near + .woken) end" "$1"; }
	a=$(share "$OUT.timer")
	b=$(share "$OUT.ipi")
	# the writer's wakeups are the unannounced ones, where they came soon
	# enough to make a period too deep (under a loaded TCG host the gaps
	# can all outgrow the deepest target residency: then nothing to split)
	deep=$(jq "$split | .near + .woken" "$OUT.ipi")
	[ "$deep" -eq 0 ] || jq -n --argjson a "$a" --argjson b "$b" '$b > $a' | grep -q true
	# 5% + 2 over: the next timer is placed a little late (from the fexit,
	# not the idle loop's entry time), so a timer-ended period near a
	# state's target residency can count as woken before it (seen in the
	# acpi_idle guest: 329 woken before the timer, 321 non-timer early)
	for f in timer ipi; do
		w=$(jq "$split | .woken" "$OUT.$f")
		o=$(jq "$early_other" "$OUT.$f")
		[ "$w" -le $((o + o / 20 + 2)) ]
	done
	# What woke them, per cause: every woken-early period's cause is
	# counted once (the one in flight at the end may not be), and no cause
	# has more of them than early periods (each is one: too deep means
	# shorter than the state's target residency).
	for f in timer ipi; do
		jq -e '.cpus[0] as $c |
			[$c.states[].governor | select(. != null)] as $g |
			($g | map(.above_woken_before_timer) | add) as $w |
			($g | map(.woken_before_timer_by_cause | to_entries[]) | group_by(.key) |
				map({key: .[0].key, value: (map(.value) | add)}) | from_entries) as $by |
			($by | add) as $sum |
			($sum <= $w and $sum >= $w - 1) and
			([$by | to_entries[] | .value <= $c.wakeups.causes[.key].early] | all)' "$OUT.$f"
	done
	# The timers that ended periods, against the next event the governor
	# was told of (its sleep length from the kernel's own idle entry time):
	# with cyclictest's timer alone they came as told, or were the tick,
	# kept on, before it (the sleep length leaves the tick out: seen in the
	# acpi_idle guest, 678 of 1868 where the tick stayed on); the rest
	# (another CPU's timer armed here meanwhile, a cancelled one) are
	# counted as later or earlier, never lost
	te='[.cpus[0].states[].governor | select(. != null) | .timer_ended] |
		{periods: (map(.periods) | add), as_told: (map(.as_told) | add),
		 tick_first: (map(.tick_first) | add), later: (map(.later_than_told) | add),
		 earlier: (map(.earlier_than_told) | add)}'
	echo "# timer run, timer-ended periods: $(jq -c "$te" "$OUT.timer"), timer wakeups $(jq .cpus[0].wakeups.causes.timer.count "$OUT.timer")" >&3
	jq -e "$te | .periods == .as_told + .tick_first + .later + .earlier and .periods > 0" "$OUT.timer"
	# cyclictest ran 4 s at 3 ms on this CPU (1333 timers; 1190 came as
	# told in the guest): at least 600 as told, and 95% as told or the tick
	jq -e "$te | .as_told >= 600 and .as_told + .tick_first >= 0.95 * .periods" "$OUT.timer"
}

# ab over two governors: the sweep's table has the split beside each
# other (compare's misses table): teo's where the kernel has it, else
# ladder's, which asks nothing (its cells "-"); the governor comes back.
# one-driver: the table's shape, the same on any driver; the split's
# numbers against each driver's counters are the tests above.
# bats test_tags=oracle,one-driver
@test "governor inputs: ab --set governor=menu,OTHER prints the split side by side" {
	require_cpuidle_driver
	avail=/sys/devices/system/cpu/cpuidle/available_governors
	grep -qw menu "$avail" || skip "no menu governor here"
	other=teo
	grep -qw teo "$avail" || other=ladder
	grep -qw "$other" "$avail" || skip "neither teo nor ladder here"
	before=$(governor_now)
	run --separate-stderr "$IDLESCOPE" ab --set "governor=menu,$other" --repeat 2 \
		--workload "cyc=cyclictest -q -t 2 -i 2000 -D 2"
	[ "$(governor_now)" = "$before" ]
	[ "$status" -eq 0 ]
	echo "$output"
	sed -n "/^Why the governor missed/,/^\$/p" <<<"$output" | sed 's/^/# /' >&3
	sed -n "/^Why the governor missed/,/^\$/p" <<<"$output" >"$BATS_TEST_TMPDIR/misses"
	# a row per state of all CPUs menu's runs split, each with both governors' lines
	grep -q '^all CPUs: ' "$BATS_TEST_TMPDIR/misses"
	[ "$(grep -c '^  governor=menu ' "$BATS_TEST_TMPDIR/misses")" -ge 1 ]
	[ "$(grep -c '^  governor=menu ' "$BATS_TEST_TMPDIR/misses")" = \
		"$(grep -c "^  governor=$other " "$BATS_TEST_TMPDIR/misses")" ]
}
