#!/usr/bin/env bats
# `idlescope replay` on damaged and partial traces: a real capture
# (tests/fixtures/traces/real-2cpu.report: `trace-cmd record -B` of
# power:cpu_idle, sched_switch and sched_wakeup on a 2-CPU host without a
# cpuidle driver, `trace-cmd report -t`), cut or garbled here, checked against
# tests/lib/idle_oracle.awk, which pairs the events on its own.

bats_require_minimum_version 1.5.0
load helpers

TR="$BATS_TEST_DIRNAME/../fixtures/traces"
REAL="$TR/real-2cpu.report"
ORACLE="$BATS_TEST_DIRNAME/../lib/idle_oracle.awk"

setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (BPF_PROG_TEST_RUN)"
	D=$BATS_TEST_TMPDIR
}

# Per CPU from the replay: cpu idle_ns edge_idle_ns busy_ns periods orphan_exits lost_exits
replayed() { # json
	jq -r '.cpus[] | "\(.cpu) \(.idle_ns) \(.edge_idle_ns) \(.busy_ns) \(.entries) \(.orphan_exits) \(.lost_exits)"' "$1"
}
oracle() { # trace
	awk -f "$ORACLE" "$1" | cut -d' ' -f1-6,9
}

@test "replay damage: an exit whose enter was garbled mid-trace adds no idle (orphan exit)" {
	# CPU 1's first idle event is an enter, so no exit of it can start at the
	# window's edge; garble its enter at 11275.158596641 (exit 11275.159988593)
	grep -q '11275.158596641: cpu_idle: *state=1 cpu_id=1' "$REAL"
	sed 's/\(11275.158596641: cpu_idle: *\)state=1 cpu_id=1/\1sta/' "$REAL" >"$D/g.txt"
	run -0 "$IDLESCOPE" replay --format json -o "$D/g.json" "$D/g.txt"
	diff <(replayed "$D/g.json") <(oracle "$D/g.txt")
	# by hand: the lost period was 159988593 - 158596641 = 1391952 ns, now busy
	[ "$(jq '.cpus[1].edge_idle_ns' "$D/g.json")" -eq 0 ]
	[ "$(jq '.cpus[1].orphan_exits' "$D/g.json")" -eq 1 ]
	[ "$(jq '.cpus[1].unmatched_exits' "$D/g.json")" -eq 1 ]
	[ "$(jq '.cpus[1].busy_ns - 1391952' "$D/g.json")" -eq \
		"$(awk -f "$ORACLE" "$REAL" | awk '$1 == 1 { print $4 }')" ]
	jq -e '.warnings | any(test("CPU 1: 1 idle exits without their enter"))' "$D/g.json"
	# CPU 0's first event is an exit: its edge idle from the start stays
	[ "$(jq '.cpus[0].edge_idle_ns' "$D/g.json")" -eq 27421 ]
	[ "$(jq '.cpus[0].orphan_exits' "$D/g.json")" -eq 0 ]
	run -0 "$IDLESCOPE" replay "$D/g.txt"
	[[ "$output" == *"CPU 1: 1 idle exits without their enter"* ]]
}

@test "replay damage: a missing enter or exit line, and a lost-events gap, each count as documented" {
	# missing line: the same enter removed
	grep -v '11275.158596641: cpu_idle' "$REAL" >"$D/m.txt"
	run -0 "$IDLESCOPE" replay --format json -o "$D/m.json" "$D/m.txt"
	diff <(replayed "$D/m.json") <(oracle "$D/m.txt")
	# a missing exit: CPU 1's at 11275.158596220; the period entered at
	# 11275.157785677 then has no end: not counted (810543 ns more busy),
	# counted in lost_exits and warned
	grep -v '11275.158596220: cpu_idle' "$REAL" >"$D/x.txt"
	run -0 "$IDLESCOPE" replay --format json -o "$D/x.json" "$D/x.txt"
	diff <(replayed "$D/x.json") <(oracle "$D/x.txt")
	[ "$(jq '.cpus[1].lost_exits' "$D/x.json")" -eq 1 ]
	[ "$(jq '.cpus[1].busy_ns - 810543' "$D/x.json")" -eq \
		"$(awk -f "$ORACLE" "$REAL" | awk '$1 == 1 { print $4 }')" ]
	jq -e '.warnings | any(test("CPU 1: 1 idle entries while a period was open"))' "$D/x.json"
	# a gap: CPU 1's exit 11275.158596220 and enter 11275.158596641 lost,
	# trace-cmd's marker in their place; the period entered at
	# 11275.157785677 is open across it: dropped, its exit an orphan
	awk '/11275.158596220: cpu_idle/ { print "CPU:1 [2 EVENTS DROPPED]"; next }
	     /11275.158596641: cpu_idle/ { next } { print }' "$REAL" >"$D/l.txt"
	run -0 "$IDLESCOPE" replay --format json -o "$D/l.json" "$D/l.txt"
	diff <(replayed "$D/l.json") <(oracle "$D/l.txt")
	[ "$(jq '.replay.gap_periods' "$D/l.json")" -eq 1 ]
	[ "$(jq '.replay.lost_events' "$D/l.json")" -eq 2 ]
	[ "$(jq '.cpus[1].orphan_exits' "$D/l.json")" -eq 1 ]
	[ "$(awk -f "$ORACLE" "$D/l.txt" | awk '$1 == 1 { print $7 }')" -eq 1 ]
	jq -e '.warnings | any(test("1 idle period open across lost events dropped"))' "$D/l.json"
	# the same in ftrace's spelling, the marker before the next line of CPU 1
	sed 's/^CPU:1 \[2 EVENTS DROPPED\]/CPU:1 [LOST 2 EVENTS]/' "$D/l.txt" >"$D/f.txt"
	run -0 "$IDLESCOPE" replay --format json -o "$D/f.json" "$D/f.txt"
	diff <(replayed "$D/f.json") <(replayed "$D/l.json")
	[ "$(jq '.replay.gap_periods' "$D/f.json")" -eq 1 ]
}

@test "replay damage: a text file of header and comment lines only is a one-line error, exit 1" {
	# an empty ftrace buffer, exactly as /sys/kernel/tracing/trace prints it
	sed -n '1,2p' "$TR/two-cluster.ftrace" >"$D/h.txt"
	echo '# entries-in-buffer/entries-written: 0/0   #P:8' >>"$D/h.txt"
	sed -n '5,13p' "$TR/two-cluster.ftrace" >>"$D/h.txt"
	run -1 --separate-stderr "$IDLESCOPE" replay "$D/h.txt"
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "idlescope: $D/h.txt: no event lines (only header or comment lines)"* ]]
	# trace-cmd report of an empty recording: its header only
	head -1 "$REAL" >"$D/r.txt"
	run -1 --separate-stderr "$IDLESCOPE" replay "$D/r.txt"
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "replay damage: ftrace's #P:N is the CPU count; entries overwritten are said" {
	# two-cluster.ftrace has events on CPUs 0-3; its header now says 8
	awk 'NR == 2 { print; print "# entries-in-buffer/entries-written: 24/24   #P:8"; next } { print }' \
		"$TR/two-cluster.ftrace" >"$D/p.txt"
	run -0 "$IDLESCOPE" replay --format json -o "$D/p.json" "$D/p.txt"
	[ "$(jq '.cpus | length' "$D/p.json")" -eq 8 ]
	[ "$(jq -c '[.cpus[4:][] | .entries]' "$D/p.json")" = '[0,0,0,0]' ]
	[ "$(jq '.replay.overwritten_events' "$D/p.json")" -eq 0 ]
	run -0 "$IDLESCOPE" replay --format json -o "$D/q.json" "$TR/two-cluster.ftrace"
	[ "$(jq '.cpus | length' "$D/q.json")" -eq 4 ]
	# a ring buffer that overwrote its oldest events (31 written, 24 kept):
	# where each CPU's events begin is not the window's start, said so
	sed 's|entries-written: 24/24|entries-written: 24/31|' "$D/p.txt" >"$D/o.txt"
	run -0 "$IDLESCOPE" replay --format json -o "$D/o.json" "$D/o.txt"
	[ "$(jq '.replay.overwritten_events' "$D/o.json")" -eq 7 ]
	jq -e '.warnings | any(test("overwrote its oldest 7 events"))' "$D/o.json"
}

@test "replay: the same input gives the same bytes, ties in every detail table ordered by name" {
	# real-2cpu.report has wakees of equal count (5: kworker/0:1 and
	# rcu_tasks_trace; 3: sh, tokio-rt-worker, vsock-console): the BPF hash
	# map's order (a random seed per map) changed their order between runs.
	# Only the replay's own timings may differ: masked.
	mask_table() { sed 's/events replayed in .* with parsing)/events replayed in T/' "$1"; }
	mask_json() { jq -S 'del(.replay.replay_ns, .replay.events_per_s, .replay.parse_ns, .replay.total_events_per_s)' "$1"; }
	for i in 1 2 3 4 5 6; do
		"$IDLESCOPE" replay -o "$D/t$i.txt" "$REAL"
		"$IDLESCOPE" replay --format json -o "$D/j$i.json" "$REAL"
		"$IDLESCOPE" replay --format csv -o "$D/c$i.csv" "$REAL"
		mask_table "$D/t$i.txt" >"$D/t$i"
		mask_json "$D/j$i.json" >"$D/j$i"
	done
	for i in 2 3 4 5 6; do
		cmp "$D/t1" "$D/t$i"
		cmp "$D/j1" "$D/j$i"
		cmp "$D/c1.csv" "$D/c$i.csv"
	done
	# the order itself: count descending, then comm, then pid
	sed -n '/^Top wakees/,/^$/p' "$D/t1.txt" | awk 'NF >= 5 && $3 == "pid" { print $1, $5, $4 }' >"$D/w"
	[ "$(wc -l <"$D/w")" -ge 5 ]
	sort -k1,1nr -k2,2 -k3,3n "$D/w" | diff - "$D/w"
	grep -q '^ *5 .*kworker/0:1' "$D/t1.txt"
	[ "$(grep -n 'kworker/0:1 (woken' "$D/t1.txt" | cut -d: -f1)" -lt \
		"$(grep -n 'rcu_tasks_trace (woken' "$D/t1.txt" | cut -d: -f1)" ]
	# JSON wakees: count descending, ties by cpu, then name, then pid
	jq -c '.wakeup_details.wakees | map([-.count, .cpu, .name, .pid])' "$D/j1.json" >"$D/a"
	jq -c '.wakeup_details.wakees | map([-.count, .cpu, .name, .pid]) | sort' "$D/j1.json" | diff - "$D/a"
}

@test "replay without cpu_idle events: idle states not recorded, the idle task's time, busy unknown" {
	# no-cpuidle.ftrace: sched events only, worked out by hand in its header
	run -0 "$IDLESCOPE" replay --format json -o "$D/n.json" "$TR/no-cpuidle.ftrace"
	[ "$(jq -c '[.duration_ns, (.cpus[] | [.idle_task_ns, .busy_ns, .idle_ns, .status])]' "$D/n.json")" = \
		'[10000000,[9500000,null,0,"idle states not recorded"],[8000000,null,0,"idle states not recorded"]]' ]
	[ "$(jq -c '[.totals.idle_task_ns, .totals.busy_ns, .replay.idle_states_recorded, .events.cpu_idle]' "$D/n.json")" = \
		'[17500000,null,false,"not in the trace"]' ]
	jq -e '.warnings | any(test("no power:cpu_idle events: idle states were not recorded"))' "$D/n.json"
	run -0 "$IDLESCOPE" replay "$TR/no-cpuidle.ftrace"
	[[ "$output" == *"CPU 0: idle states not recorded (no cpu_idle events); idle task ran 95.0% (sched_switch), busy n/a"* ]]
	[[ "$output" == *"CPU 1: idle states not recorded (no cpu_idle events); idle task ran 80.0% (sched_switch), busy n/a"* ]]
	[[ "$output" == *"All 2 CPUs: idle states not recorded (no cpu_idle events); idle task ran 87.5%"* ]]
	[[ "$output" != *"busy 100.0%"* ]]

	# the real capture without its cpu_idle lines (trace-cmd's sched plugin
	# format): per CPU as the oracle pairs sched_switch; its lost switches
	# (a task switched in, then cpu_idle from <idle> with no switch back)
	# counted, not guessed
	grep -v 'cpu_idle:' "$REAL" >"$D/r.txt"
	run -0 "$IDLESCOPE" replay --format json -o "$D/r.json" "$D/r.txt"
	diff <(jq -r '.cpus[] | "\(.cpu) \(.idle_task_ns)"' "$D/r.json") \
		<(awk -f "$ORACLE" "$D/r.txt" | cut -d' ' -f1,8)
	[ "$(jq '.replay.idle_task_dropped' "$D/r.json")" -eq "$(ORACLE_IDLE_TASK_DROPPED=1 awk -f "$ORACLE" "$D/r.txt")" ]
	# lost events on CPU 1 while its idle task runs (switched to by
	# memfd:sealed-91, a comm with colons, at 11275.140786434; away at
	# 11275.154701984): that run is dropped, 13915550 ns fewer
	L=$(grep -n '\[001\] 11275.154701984: sched_switch' "$D/r.txt" | cut -d: -f1)
	[ -n "$L" ]
	sed "${L}i CPU:1 [3 EVENTS DROPPED]" "$D/r.txt" >"$D/rg.txt"
	run -0 "$IDLESCOPE" replay --format json -o "$D/rg.json" "$D/rg.txt"
	diff <(jq -r '.cpus[] | "\(.cpu) \(.idle_task_ns)"' "$D/rg.json") \
		<(awk -f "$ORACLE" "$D/rg.txt" | cut -d' ' -f1,8)
	[ $(($(jq '.cpus[1].idle_task_ns' "$D/r.json") - $(jq '.cpus[1].idle_task_ns' "$D/rg.json"))) -eq 13915550 ]
	[ "$(jq '.replay.idle_task_dropped' "$D/rg.json")" -eq \
		$(($(jq '.replay.idle_task_dropped' "$D/r.json") + 1)) ]
	[ "$(jq '.replay.idle_task_dropped' "$D/rg.json")" -eq \
		"$(ORACLE_IDLE_TASK_DROPPED=1 awk -f "$ORACLE" "$D/rg.txt")" ]
	[ "$(jq -c '[.cpus[].busy_ns]' "$D/r.json")" = '[null,null]' ]
	# with cpu_idle events the idle task's time is still there, busy known
	run -0 "$IDLESCOPE" replay --format json -o "$D/a.json" "$REAL"
	diff <(jq -r '.cpus[] | "\(.cpu) \(.idle_task_ns)"' "$D/a.json") \
		<(awk -f "$ORACLE" "$REAL" | cut -d' ' -f1,8)
	[ "$(jq '.replay.idle_states_recorded' "$D/a.json")" = true ]
	[ "$(jq -c '[.cpus[].busy_ns | type]' "$D/a.json")" = '["number","number"]' ]
}
