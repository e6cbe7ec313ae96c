#!/usr/bin/env bats
# Guest halt-polling (docs/metrics.md#halt-polling): `ab --set
# guest_halt_poll_ns=...` and its refusals anywhere; on a haltpoll host (the
# haltpoll oracle guest, tests/vm/oracle.sh) record's polls against the POLL
# state's sysfs usage/time, the limit's moves against trace-cmd beside it, and
# ab's runs under each value. The hand-worked replay is in replay.bats and
# tests/replay/haltpoll_test.c.

bats_require_minimum_version 1.5.0
load helpers

HP=/sys/module/haltpoll/parameters

setup() {
	SAVED_POLL_NS=$(cat "$HP/guest_halt_poll_ns" 2>/dev/null || true)
}

teardown() {
	# the test's own raise, put back whatever happened
	if [ -n "$SAVED_POLL_NS" ] && [ "$(cat "$HP/guest_halt_poll_ns")" != "$SAVED_POLL_NS" ]; then
		echo "$SAVED_POLL_NS" >"$HP/guest_halt_poll_ns"
	fi
	[ -z "${TC_INST:-}" ] || rmdir "$TC_INST" 2>/dev/null || true
}

require_haltpoll() {
	require_cpuidle_driver
	[ "$(cpuidle_driver)" = haltpoll ] && [ "$(cat "$CPUIDLE/current_governor_ro")" = haltpoll ] ||
		skip "driver $(cpuidle_driver), not haltpoll with its governor: runs in the haltpoll oracle guest (tests/vm/oracle.sh)"
}

@test "haltpoll: --set guest_halt_poll_ns with a bad value is a usage error naming it" {
	local v
	for v in abc -1 4294967296 1e5 0x10 010 1.5; do
		run "$IDLESCOPE" ab --set "guest_halt_poll_ns=$v" -d 1
		[ "$status" -eq 2 ]
		[[ "${lines[0]}" == "idlescope ab: guest_halt_poll_ns takes a whole number from 0 to 4294967295, not '$v'" ]]
	done
	run "$IDLESCOPE" ab --set "guest_halt_poll_ns=1000,x" -d 1
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == *"not 'x'" ]]
	run "$IDLESCOPE" ab --set "guest_halt_poll_ns=" -d 1
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == *"--set needs KEY=V1,V2 (got 'guest_halt_poll_ns=')" ]]
	run "$IDLESCOPE" ab --set "guest_halt_poll_allow_shrink=yes" -d 1
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == *"guest_halt_poll_allow_shrink takes Y, N, 1 or 0, not 'yes'" ]]
}

@test "haltpoll: without the haltpoll driver, --set guest_halt_poll_ns is refused in one line and record has no section" {
	[ "$(cpuidle_driver)" != haltpoll ] || skip "the driver is haltpoll here"
	local before
	before=$(cat "$HP/guest_halt_poll_ns" 2>/dev/null || echo absent)
	run "$IDLESCOPE" ab --set guest_halt_poll_ns=1000,2000 -d 1
	[ "$status" -eq 2 ]
	if [ "$before" = absent ]; then
		[[ "${lines[0]}" == "idlescope ab: guest_halt_poll_ns: no haltpoll governor on this machine (no /sys/module/haltpoll/parameters/guest_halt_poll_ns)" ]]
	else
		[[ "${lines[0]}" == "idlescope ab: guest_halt_poll_ns: the cpuidle driver is '$(cpuidle_driver)', not haltpoll: the value would change nothing here" ]]
	fi
	[ "$(cat "$HP/guest_halt_poll_ns" 2>/dev/null || echo absent)" = "$before" ]
	run "$IDLESCOPE" record -d 0.3 --format json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.haltpoll == null and .totals.haltpoll == null'
	run "$IDLESCOPE" record -d 0.3
	[[ "$output" != *"Halt-polling"* ]]
}

# Per CPU, the grow and shrink events of trace-cmd's report: between the
# markers written inside record's window (inner) and in the whole trace,
# which began before record and ended after it (outer):
# "CPU inner_grow inner_shrink outer_grow outer_shrink last_new_inner_or_after"
tc_moves() { # report
	awk '
	/tracing_mark_write: idlescope-hp-start/ { in_ = 1; next }
	/tracing_mark_write: idlescope-hp-end/ { in_ = 0; next }
	/guest_halt_poll_ns:/ {
		c = $0; sub(/^[^[]*\[/, "", c); sub(/\].*/, "", c); c += 0
		g = ($0 ~ /\(grow /) ? 1 : 0
		n = $0; sub(/.*halt_poll_ns /, "", n); sub(/ .*/, "", n)
		seen[c] = 1; og[c] += g; os[c] += 1 - g
		if (in_) { ig[c] += g; is[c] += 1 - g }
		news[c] = news[c] " " n
	}
	END { for (c in seen) print c, ig[c] + 0, is[c] + 0, og[c] + 0, os[c] + 0, news[c] }' "$1"
}

# bats test_tags=oracle
@test "haltpoll live: polls against the POLL state's sysfs usage and time, limit moves against trace-cmd" {
	require_haltpoll
	command -v trace-cmd >/dev/null || skip "trace-cmd not installed"
	command -v cyclictest >/dev/null || skip "cyclictest not installed"
	local d="$BATS_TEST_TMPDIR" name="idlescope_hp_$$"
	if [ -n "${IDLESCOPE_TC_SHIM:-}" ]; then # the oracle guests have no gcc: built on the host
		cp "$IDLESCOPE_TC_SHIM" "$d/shim.so"
	else
		command -v gcc >/dev/null || skip "no gcc for the trace-cmd shim"
		gcc -shared -fPIC -O2 -o "$d/shim.so" "$BATS_TEST_DIRNAME/../lib/trace_cmd_shim.c" -ldl
	fi
	TC_INST=/sys/kernel/tracing/instances/$name
	# a ceiling that 1 ms timers fit under: the limit grows toward it
	echo 2000000 >"$HP/guest_halt_poll_ns"
	local m="$TC_INST/trace_marker"
	snapped_cmd "$d/s" "echo idlescope-hp-start >$m; cyclictest --laptop -q -t 2 -a -i 1000 -D 3 >/dev/null; echo idlescope-hp-end >$m"
	# trace-cmd copies /proc/kallsyms into its file when the command ends;
	# the symbols of record's programs and fexit trampoline leave it as they
	# are freed, after grace periods that take seconds under TCG: a copy
	# made meanwhile fails ("error in size of file '/proc/kallsyms'", twice
	# in a row in the haltpoll guest's full run), so the command ends once
	# kallsyms has stayed the same for a second (30 s at most)
	cat >"$d/run.sh" <<'EOS'
#!/bin/sh
unset LD_PRELOAD
"$@"
rc=$?
a=$(cksum </proc/kallsyms) n=0
while [ "$n" -lt 30 ]; do
	sleep 1
	b=$(cksum </proc/kallsyms)
	[ "$a" = "$b" ] && break
	a=$b n=$((n + 1))
done
exit $rc
EOS
	chmod +x "$d/run.sh"
	"$CPUIDLE_SNAP" >"$d/s.o0"
	LD_PRELOAD="$d/shim.so" trace-cmd record -q -B "$name" -e power:guest_halt_poll_ns -o "$d/tc.dat" \
		"$d/run.sh" "$IDLESCOPE" record --format json -o "$d/r.json" -- "${SNAPPED[@]}" >"$d/tc.log" 2>&1 ||
		{ cat "$d/tc.log"; false; }
	"$CPUIDLE_SNAP" >"$d/s.o1"
	[ -s "$d/r.json" ] || { cat "$d/tc.log"; false; }
	# raised during the run, as the report says
	jq -e '.haltpoll.guest_halt_poll_ns == 2000000' "$d/r.json"
	# every state (POLL and the halt) within the test's own snapshots
	assert_within_snapshots "$d/r.json" "$d/s"
	# polls: the POLL state's usage and time deltas (state0)
	local c i0 i1 o0 o1 polls poll_ns t_in t_out
	for c in $(jq '.haltpoll.cpus[].cpu' "$d/r.json"); do
		read -r i0 <<<"$(awk -v c="$c" '$1 == c && $2 == 0 { print $3 }' "$d/s.i0")"
		read -r i1 <<<"$(awk -v c="$c" '$1 == c && $2 == 0 { print $3 }' "$d/s.i1")"
		read -r o0 <<<"$(awk -v c="$c" '$1 == c && $2 == 0 { print $3 }' "$d/s.o0")"
		read -r o1 <<<"$(awk -v c="$c" '$1 == c && $2 == 0 { print $3 }' "$d/s.o1")"
		polls=$(jq --argjson c "$c" '.haltpoll.cpus[] | select(.cpu == $c) | .polls' "$d/r.json")
		poll_ns=$(jq --argjson c "$c" '.haltpoll.cpus[] | select(.cpu == $c) | .poll_ns' "$d/r.json")
		t_in=$(( ($(awk -v c="$c" '$1 == c && $2 == 0 { print $4 }' "$d/s.i1") - $(awk -v c="$c" '$1 == c && $2 == 0 { print $4 }' "$d/s.i0")) * 1000 ))
		t_out=$(( ($(awk -v c="$c" '$1 == c && $2 == 0 { print $4 }' "$d/s.o1") - $(awk -v c="$c" '$1 == c && $2 == 0 { print $4 }' "$d/s.o0")) * 1000 ))
		echo "# cpu $c: polls $polls, sysfs POLL usage inner $((i1 - i0)) outer $((o1 - o0)); poll_ns $poll_ns, sysfs time inner $t_in outer $t_out" >&3
		[ "$polls" -ge $((i1 - i0 - 1)) ]
		[ "$polls" -le $((o1 - o0 + 1)) ]
		[ "$polls" -gt 0 ]
		# every counted poll ended woken or timed out, but the last one's end may fall after the window
		jq -e --argjson c "$c" '.haltpoll.cpus[] | select(.cpu == $c) |
			.woken + .timed_out + .unresolved == .polls and .unresolved <= 1' "$d/r.json"
		# a poll-timeout cause is a timed-out poll (the same next-entry rule,
		# less those with an interrupt inside or just after)
		jq -e --argjson c "$c" '(.haltpoll.cpus[] | select(.cpu == $c) | .timed_out) as $t |
			.cpus[] | select(.cpu == $c) | .wakeups.causes["poll-timeout"].count <= $t' "$d/r.json"
	done
	# the limit's moves: per CPU between the markers (inside record's window)
	# and the whole trace (around it)
	trace-cmd report -i "$d/tc.dat" >"$d/tc.txt" 2>/dev/null
	tc_moves "$d/tc.txt" >"$d/moves"
	cat "$d/moves"
	[ "$(awk '{ n += $4 + $5 } END { print n + 0 }' "$d/moves")" -gt 0 ]
	local ig is og os news grow shrink limit
	for c in $(jq '.haltpoll.cpus[].cpu' "$d/r.json"); do
		read -r _ ig is og os news <<<"$(awk -v c="$c" '$1 == c' "$d/moves")"
		grow=$(jq --argjson c "$c" '.haltpoll.cpus[] | select(.cpu == $c) | .grow' "$d/r.json")
		shrink=$(jq --argjson c "$c" '.haltpoll.cpus[] | select(.cpu == $c) | .shrink' "$d/r.json")
		limit=$(jq --argjson c "$c" '.haltpoll.cpus[] | select(.cpu == $c) | .limit_ns' "$d/r.json")
		echo "# cpu $c: grow $grow (trace ${ig:-0}..${og:-0}), shrink $shrink (trace ${is:-0}..${os:-0}), limit $limit" >&3
		[ "$grow" -ge "${ig:-0}" ] && [ "$grow" -le "${og:-0}" ]
		[ "$shrink" -ge "${is:-0}" ] && [ "$shrink" -le "${os:-0}" ]
		# the limit after record's last move is one the trace shows on that CPU
		if [ $((grow + shrink)) -gt 0 ]; then
			[[ " $news " == *" $limit "* ]]
		else
			[ "$limit" = null ]
		fi
	done
	jq -r '.haltpoll.cpus[] | "# cpu \(.cpu): woken \(.woken) timed out \(.timed_out) unresolved \(.unresolved), limit \(.limit_first_ns) -> \(.limit_ns) (\(.limit_min_ns)..\(.limit_max_ns)), saved \(.saved_ns) ns \(.saved_basis)"' "$d/r.json" >&3
	[ "$(cat "$HP/guest_halt_poll_ns")" = 2000000 ]
	# the exposition's families (serve's text), one record window: every
	# woken or timed-out poll is one of the POLL state's periods, all but
	# at most one per CPU told
	run "$IDLESCOPE" record -d 1 --format prom -- cyclictest --laptop -q -t 2 -a -i 1000 -D 1
	[ "$status" -eq 0 ]
	local ends polls ncpu
	ends=$(awk '/^idlescope_haltpoll_polls_total\{outcome=/ { n += $2 } END { print n + 0 }' <<<"$output")
	polls=$(awk '/^idlescope_idle_state_entries_total\{.*state="POLL"\}/ { n += $2 } END { print n + 0 }' <<<"$output")
	ncpu=$(grep -c '^idlescope_cpu_busy_seconds_total{' <<<"$output")
	echo "# prom: polls $polls, told $ends, CPUs $ncpu" >&3
	[[ "$output" == *'idlescope_haltpoll_ceiling_seconds 0.002'* ]]
	grep -q '^idlescope_haltpoll_limit_moves_total{direction="grow"} [0-9]' <<<"$output"
	[ "$polls" -gt 0 ] && [ "$ends" -le "$polls" ] && [ "$ends" -ge $((polls - ncpu)) ]
}

# bats test_tags=oracle
@test "haltpoll live: ab --set guest_halt_poll_ns=A,B runs each value and restores the original" {
	require_haltpoll
	command -v cyclictest >/dev/null || skip "cyclictest not installed"
	local d="$BATS_TEST_TMPDIR" log="$BATS_TEST_TMPDIR/values"
	cat >"$d/w.sh" <<EOS
#!/bin/sh
cat $HP/guest_halt_poll_ns >>"$log"
cyclictest --laptop -q -t 1 -i 1000 -l 300 >/dev/null
EOS
	chmod +x "$d/w.sh"
	run "$IDLESCOPE" ab --set guest_halt_poll_ns=0,2000000 --repeat 2 --format json -o "$d/ab.json" -- "$d/w.sh"
	[ "$status" -eq 0 ]
	# the workload saw each value in turn; the original is back
	diff "$log" <(printf '%s\n' 0 2000000 0 2000000)
	jq -r '.metrics[] | select(.metric | startswith("total.haltpoll")) | "# ab \(.metric): \([.variants[].median])"' "$d/ab.json" >&3
	[ "$(cat "$HP/guest_halt_poll_ns")" = "$SAVED_POLL_NS" ]
	# the halt-polling figures were compared without --metric
	jq -e '[.metrics[].metric] | index("total.haltpoll.poll_ns") != null and index("total.haltpoll.woken") != null' "$d/ab.json"
}

# haltpoll.ftrace (its header): waits = the 4 POLL periods not timed out
# (10, 30, 20, 10 us) + the 5 halts (100, 300, 1000, 50, 69 us) = 9, 1589 us
# in all; a halt's wake cost as record took it: 22 us saved / 3 woken.
@test "haltpoll advise: --poll-budget and --poll-latency on the hand-worked trace; refused without halt-polling" {
	local TR="$BATS_TEST_DIRNAME/../fixtures/traces" d="$BATS_TEST_TMPDIR"
	run "$IDLESCOPE" replay --profile "$TR/haltpoll.json" "$TR/haltpoll.ftrace" --format json -o "$d/h.json"
	[ "$status" -eq 0 ]
	# everything fits a 100% budget: every wait caught, the poll time their sum
	# (to the histogram's buckets, each at most 25% wide)
	run "$IDLESCOPE" advise "$d/h.json" --poll-budget 100% --format json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.tables[0].halt_polling | .waits == 9 and .halt_exit_ns == 7333 and
		.measured.timed_out == 3 and .current == null and
		(.proposed.caught - 9 | fabs) < 1e-6 and
		.proposed.poll_ns > 0.75 * 1589000 and .proposed.poll_ns < 1.25 * 1589000'
	# a target a halt meets (7.3 us <= 40 us): no polling
	run "$IDLESCOPE" advise "$d/h.json" --poll-latency 40us --format json
	echo "$output" | jq -e '.tables[0].halt_polling | .halt_meets_target and .proposed_guest_halt_poll_ns == 0 and .proposed.poll_ns == 0'
	# a tighter one: 4 of the 9 waits are under 31 us, so p40 needs a ceiling of at most ~31 us
	run "$IDLESCOPE" advise "$d/h.json" --poll-latency 5us --latency-percentile 40 --format json
	echo "$output" | jq -e '.tables[0].halt_polling | .proposed_guest_halt_poll_ns > 0 and
		.proposed_guest_halt_poll_ns <= 31250 and .proposed.caught >= 3.6 - 1e-6 and
		.limit_moves == {"grow": 3, "shrink": 2} and .hold_limit == false'
	run "$IDLESCOPE" advise "$d/h.json" --poll-budget 5%
	[ "$status" -eq 0 ]
	[[ "$output" == *"halt-polling, for a poll-time budget of 140us over the window and 2 CPUs"* ]]
	# usage errors
	run "$IDLESCOPE" advise "$d/h.json" --poll-budget 0
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == *"--poll-budget: '0' is not a share in (0, 1]"* ]]
	run "$IDLESCOPE" advise "$d/h.json" --poll-budget 5% --poll-latency 10us
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == *"one of --poll-budget and --poll-latency"* ]]
	# a recording of another driver: one line, exit 1
	run "$IDLESCOPE" replay --profile "$TR/arm-2x2.json" "$TR/two-cluster.ftrace" --format json -o "$d/t.json"
	run "$IDLESCOPE" advise "$d/t.json" --poll-budget 5%
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "idlescope: $d/t.json: no halt-polling to advise on (--poll-*): the cpuidle driver and governor were not haltpoll"* ]]
}
