#!/usr/bin/env bats
# --without PARTS (what each leaves out, checked with bpftool's view of the
# programs the run holds) and `info --costs` (what the ping-pong load is
# known to do per round trip).

bats_require_minimum_version 1.5.0
load helpers

setup() {
	OUT="$BATS_TEST_TMPDIR/out.json"
}

# The names of the BPF programs a running idlescope holds, one per line,
# as bpftool lists them (its view, not idlescope's).
# (one bpftool call per listing: under TCG one per program took seconds)
held_programs() { # pid
	local ids
	ids=$(grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | jq -sc .)
	bpftool -j prog show | jq -r --argjson ids "${ids:-[]}" '.[] | select(.id as $i | $ids | index($i)) | .name' | sort
}

# Starts record with the given options for a while, prints its programs:
# once cpu_idle's is held and the set stopped growing (the programs load one
# by one, for seconds in a TCG guest: a fixed wait there saw none).
programs_of() {
	local pid names prev=
	"$IDLESCOPE" record -d 3 -o /dev/null "$@" &
	pid=$!
	for _ in $(seq 300); do
		names=$(held_programs "$pid")
		[[ "$names" == *cpu_idle* && "$names" == "$prev" ]] && break
		prev=$names
		sleep 0.2
	done
	printf '%s\n' "$names"
	wait "$pid"
}

@test "--without details, timers, miss: their programs are not loaded, the rest are" {
	command -v bpftool >/dev/null || skip "no bpftool"
	run programs_of
	[ "$status" -eq 0 ]
	local all=$output
	[[ "$all" == *_cpu_idle* ]]
	[[ "$all" == *_local_timer_entry* || "$all" == *_irq_handler_entry* ]]
	[[ "$all" == *_hrtimer_expire_entry* ]]
	[[ "$all" == *_sched_wakeup* ]]
	run programs_of --without details,timers,miss
	[ "$status" -eq 0 ]
	[[ "$output" == *_cpu_idle* ]]
	[[ "$output" == *_softirq_entry* ]] # the causes stay
	[[ "$output" != *hrtimer_expire_entry* ]]
	[[ "$output" != *sched_wakeup* ]]
	[[ "$output" != *ipi_send_cpu* ]]
	[[ "$output" != *cpu_idle_miss* ]]
}

@test "--without timers,details: causes counted, no lateness and no detail rows, and the report says so" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	run "$IDLESCOPE" record -C 1 --without timers,details --format json -o "$OUT" -- \
		cyclictest --laptop -q -t 1 -a 1 -i 1000 -D 2
	[ "$status" -eq 0 ]
	[ "$(jq -r .without "$OUT")" = timers,details ]
	# cyclictest wakes CPU 1 by its hrtimer: the cause is still there
	[ "$(jq '.cpus[0].wakeups.causes.timer.count / .cpus[0].entries > 0.8' "$OUT")" = true ]
	[ "$(jq '[.totals.wakeups.timer_lateness[].count] | add // 0' "$OUT")" -eq 0 ]
	[ "$(jq '[.wakeup_details[] | length] | add' "$OUT")" -eq 0 ]
	[ "$(jq '[.warnings[] | select(test("left out \\(--without\\), not measured: timers,details"))] | length' "$OUT")" -eq 1 ]
	# and the default measures them on the same load
	run "$IDLESCOPE" record -C 1 --format json -o "$OUT" -- cyclictest --laptop -q -t 1 -a 1 -i 1000 -D 2
	[ "$status" -eq 0 ]
	[ "$(jq -r .without "$OUT")" = "" ]
	[ "$(jq '[.totals.wakeups.timer_lateness[].count] | add // 0' "$OUT")" -gt 0 ]
	[ "$(jq '.wakeup_details.timers | length' "$OUT")" -gt 0 ]
}

@test "--without groups is --topology none; with another --topology or --packing it is refused" {
	run "$IDLESCOPE" record -d 0.3 --without groups --format json -o "$OUT"
	[ "$status" -eq 0 ]
	[ "$(jq .groups "$OUT")" = null ]
	run "$IDLESCOPE" record -d 0.3 --without groups --topology package -o /dev/null
	[ "$status" -eq 2 ]
	[[ "$output" == *"--without groups contradicts --topology package"* ]]
	run "$IDLESCOPE" record -d 0.3 --without groups --packing -o /dev/null
	[ "$status" -eq 2 ]
	[[ "$output" == *"--packing needs topology groups"* ]]
	run "$IDLESCOPE" record -d 0.3 --without wakeups --format json -o "$OUT"
	[ "$status" -eq 0 ]
	[ "$(jq .wakeup_details "$OUT")" = null ]
}

@test "--without: an unknown or empty part is a usage error naming it" {
	run "$IDLESCOPE" record -d 0.3 --without timers,bogus
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown part 'bogus'"* ]]
	run "$IDLESCOPE" serve --without ""
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown part ''"* ]]
}

# Tagged oracle: with a driver its wakeup counter is cpuidle usage (the
# guests: POLL and 'haltpoll idle'). one-driver: any driver's usage
# counters serve, so the acpi_idle guest leaves it to the haltpoll one
# (or to a host with a driver): it takes 2-3 minutes under TCG.
# bats test_tags=oracle,one-driver
@test "info --costs: every part measured over the ping-pong load, each command's wakeups" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	run "$IDLESCOPE" info --costs --format json -o "$OUT"
	[ "$status" -eq 0 ]
	[ "$(jq -c '.costs.cpus' "$OUT")" = "[0,1]" ]
	[ "$(jq -r '[.costs.configurations[].name] | .[0:5] | join(",")' "$OUT")" = \
		"none,default,without wakeups,without timers,without details" ]
	# each round trip can idle each of the two CPUs once, two cpu_idle events
	# (entry, exit) each; on a loaded machine a CPU may run another task
	# instead, but at least one side waits idle for the other
	run jq -r '.costs.configurations[] | select(.name != "none") |
		select(.cpu_idle_events_per_round_trip < 1 or .cpu_idle_events_per_round_trip > 6) |
		"\(.name): \(.cpu_idle_events_per_round_trip) idle events per round trip"' "$OUT"
	[ -z "$output" ]
	# the wakeup programs (several per round trip) cost more than nothing
	[ "$(jq '.costs.parts[] | select(.part == "wakeups") | .bpf_ns_per_round_trip > 0' "$OUT")" = true ]
	[ "$(jq '[.costs.parts[].part] | index("groups") != null' "$OUT")" = true ]
	# the wakeups each live command adds: counted by the kernel's own
	# counters (cpuidle usage, or /proc/interrupts without a driver); its own
	# wakeups exact: none for record, hist and serve (nothing polled,
	# record_wakeups.bats), top's one per -i 1 tick, and the reference
	# ticker's (a child that wakes once a second, no BPF) one per second
	if [ "$(cpuidle_driver)" = none ]; then o=/proc/interrupts; else o="cpuidle usage"; fi
	[ "$(jq -r '.wakeups.oracle' "$OUT")" = "$o" ]
	[ "$(jq -r '[.wakeups.commands[].command] | join(",")' "$OUT")" = \
		"record -d N,hist residency -d N,serve (no scrape),top -i 1,1 Hz ticker (reference)" ]
	jq '.wakeups' "$OUT"
	jq -e '.wakeups.unobserved_per_s_per_cpu > 0' "$OUT"
	# the un-observed rate against the same counters read here by
	# wakeups.sh's awk (another implementation), over 3 s: the machine's
	# own drift between the two windows allows a factor of 4 either way
	snap() {
		if [ "$(cpuidle_driver)" = none ]; then cat /proc/interrupts
		else grep -H . /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*/usage; fi
	}
	snap >"$BATS_TEST_TMPDIR/c0"
	sleep 3
	snap >"$BATS_TEST_TMPDIR/c1"
	mine=$(paste -d' ' <("$BATS_TEST_DIRNAME"/../bench/wakeups.sh --counts "$BATS_TEST_TMPDIR/c0" | tr ' ' '\n') \
		<("$BATS_TEST_DIRNAME"/../bench/wakeups.sh --counts "$BATS_TEST_TMPDIR/c1" | tr ' ' '\n') |
		awk '{ split($1, a, ":"); split($2, b, ":"); s += b[2] - a[2]; n++ } END { printf "%.2f", s / 3 / n }')
	echo "un-observed here: $mine/s/CPU; info --costs: $(jq .wakeups.unobserved_per_s_per_cpu "$OUT")"
	jq -e --argjson m "$mine" '.wakeups.unobserved_per_s_per_cpu as $u | $u <= 4 * $m + 2 and $u >= $m / 4 - 2' "$OUT"
	jq -e '[.wakeups.commands[0:3][].own_wakeups_per_s | select(. > 0.4)] | length == 0' "$OUT"
	jq -e '.wakeups.commands[3].own_wakeups_per_s | . >= 0.6 and . <= 1.7' "$OUT"
	jq -e '.wakeups.commands[4] | .reference and .own_wakeups_per_s >= 0.6 and .own_wakeups_per_s <= 1.7' "$OUT"
	# a tick costs what the ticker added (per repetition; with 2 the median
	# is the mean): top's beyond is its added less that, the others' all of it
	jq -e '.wakeups.commands as $c | ($c[4].added_per_s_per_cpu - $c[4].tick_cost_per_s_per_cpu | fabs) < 1e-9 and
		($c[3].added_per_s_per_cpu - $c[3].tick_cost_per_s_per_cpu - $c[3].added_beyond_ticks_per_s_per_cpu | fabs) < 1e-9 and
		([$c[0:3][] | select(.tick_cost_per_s_per_cpu != 0 or .added_beyond_ticks_per_s_per_cpu != .added_per_s_per_cpu)] | length == 0) and
		$c[4].added_beyond_ticks_per_s_per_cpu == null' "$OUT"
}
