#!/usr/bin/env bats
# The arithmetic of the wakeups bench (tests/bench/wakeups.sh, wakeups.py)
# on hand-made counter files: no root, no timing.

bats_require_minimum_version 1.5.0

setup() {
	F=$BATS_TEST_DIRNAME/../fixtures/wakeups
	B=$BATS_TEST_DIRNAME/../bench
}

@test "wakeups.sh --counts: cpuidle usage summed over each CPU's states" {
	run "$B/wakeups.sh" --counts "$F/usage.before"
	[ "$status" -eq 0 ]
	[ "$output" = "0:1010 1:2000" ]
	run "$B/wakeups.sh" --counts "$F/usage.after"
	[ "$output" = "0:1220 1:2200" ]
}

@test "wakeups.sh --counts: /proc/interrupts columns, ERR and MIS left out" {
	# cpu0: 40 + 1 + 0 + 0 + 1000 + 500; cpu1: 0 + 0 + 300 + 0 + 2000 + 100
	run "$B/wakeups.sh" --counts "$F/interrupts.before"
	[ "$status" -eq 0 ]
	[ "$output" = "0:1541 1:2400" ]
	# ERR: 3 has one column: not a CPU's
	run "$B/wakeups.sh" --counts "$F/interrupts.after"
	[ "$output" = "0:1751 1:2562" ]
	# the same with mawk, the guests' awk
	if command -v mawk >/dev/null; then
		AWK=mawk run "$B/wakeups.sh" --counts "$F/interrupts.after"
		[ "$output" = "0:1751 1:2562" ]
	fi
}

@test "wakeups.sh --counts: anything else is an error" {
	printf 'hello\n' >"$BATS_TEST_TMPDIR/x"
	run "$B/wakeups.sh" --counts "$BATS_TEST_TMPDIR/x"
	[ "$status" -ne 0 ]
}

@test "wakeups.py table: paired differences, t interval, ticks subtracted" {
	command -v python3 >/dev/null || skip "no python3"
	run python3 "$B/wakeups.py" table "$F/results.tsv"
	echo "$output"
	[ "$status" -eq 0 ]
	# record-d: rep 1 observed (21.0 + 21.4) / 2 = 21.2 vs none 20.0: +1.2;
	# rep 2 (20.0 + 20.2) / 2 = 20.1 vs 20.0: +0.1. Mean 0.65, sd 0.7778,
	# t(1) 12.706: half-width 12.706 * 0.7778 / sqrt(2) = 6.988
	[[ "$output" == *'| `idlescope record -d N -o /dev/null` | 20.00 | 20.65 | +0.65 [-6.34, +7.64] | 0.00 | +0.65 | not resolved |'* ]]
	# record-i1: rep 1 20.5 vs 20.0: +0.5; rep 2 20.5 vs 20.0: +0.5; sd 0;
	# its 1 tick/s is 0.5 per CPU: +0.00 beyond, the interval's top 0.0
	[[ "$output" == *'| `idlescope record -d N -i 1 -o /dev/null` | 20.00 | 20.50 | +0.50 [+0.50, +0.50] | 0.50 | +0.00 | met |'* ]]
}

@test "wakeups.py table: a ticking command less the reference ticker of the same repetition" {
	command -v python3 >/dev/null || skip "no python3"
	run python3 "$B/wakeups.py" table "$F/results-ref.tsv"
	echo "$output"
	[ "$status" -eq 0 ]
	# tick-ref added +1.0, +0.6, +1.4 in reps 1-3 (every none run 20/s/CPU):
	# mean 1.0, sd 0.4, t(2) 4.303: half-width 4.303 * 0.4 / sqrt(3) = 0.994
	[[ "$output" == *'| +1.00 [+0.01, +1.99] | 1.00 | - | the reference |'* ]]
	# top-d added +1.1, +0.6, +1.45: beyond the same rep's ticker +0.1, 0.0,
	# +0.05: mean 0.05, sd 0.05, half-width 4.303 * 0.05 / sqrt(3) = 0.124,
	# met; 1/CPUs per tick instead would leave +0.55 [-0.51, +1.61]
	[[ "$output" == *'| `idlescope top -d N` | 20.00 | 21.10 | +1.05 [-0.01, +2.11] | 1.00 (ref) | +0.05 [-0.07, +0.17] | met |'* ]]
	# a command without ticks is judged on what it added, as before
	[[ "$output" == *'| `idlescope record -d N -o /dev/null` | 20.00 | 20.20 | +0.20 [-1.07, +1.47] | 0.00 | +0.20 | not resolved |'* ]]
	[[ "$output" == *"a tick costs what the ticker added in the same repetition"* ]]
	# without the ticker's rows, 1/CPUs per tick
	grep -v $'\ttick-ref\t' "$F/results-ref.tsv" >"$BATS_TEST_TMPDIR/r.tsv"
	run python3 "$B/wakeups.py" table "$BATS_TEST_TMPDIR/r.tsv"
	[[ "$output" == *'| +1.05 [-0.01, +2.11] | 0.50 | +0.55 | not resolved |'* ]]
	[[ "$output" != *"a tick costs what the ticker added"* ]]
}

@test "wakeups.py table: MISSED only when the whole interval is above 0.2" {
	command -v python3 >/dev/null || skip "no python3"
	# record-d added 1.2 and 1.0 per CPU: mean 1.1, sd 0.1414, half-width
	# 12.706 * 0.1414 / sqrt(2) = 1.271: [-0.17, +2.37] is not resolved;
	# 1.2 and 1.2: [+1.2, +1.2] is above
	sed 's/0:6400 1:6402$/0:6410 1:6410/' "$F/results.tsv" >"$BATS_TEST_TMPDIR/r.tsv"
	run python3 "$B/wakeups.py" table "$BATS_TEST_TMPDIR/r.tsv"
	[[ "$output" == *'| +1.10 [-0.17, +2.37] | 0.00 | +1.10 | not resolved |'* ]]
	sed 's/0:6400 1:6402$/0:6412 1:6412/' "$F/results.tsv" >"$BATS_TEST_TMPDIR/r.tsv"
	run python3 "$B/wakeups.py" table "$BATS_TEST_TMPDIR/r.tsv"
	[[ "$output" == *'| +1.20 [+1.20, +1.20] | 0.00 | +1.20 | MISSED |'* ]]
}

@test "wakeups.py table: an observed run without its none run is refused" {
	command -v python3 >/dev/null || skip "no python3"
	grep -v $'^2\tnone\t0\t10\t' "$F/results.tsv" >"$BATS_TEST_TMPDIR/r.tsv"
	run python3 "$B/wakeups.py" table "$BATS_TEST_TMPDIR/r.tsv"
	[ "$status" -ne 0 ]
	[[ "$output" == *"has no paired none run"* ]]
}

@test "wakeups.py table: a counter that went back is refused" {
	command -v python3 >/dev/null || skip "no python3"
	sed 's/0:1410 1:2414\t0:1610/0:1410 1:2414\t0:1400/' "$F/results.tsv" >"$BATS_TEST_TMPDIR/r.tsv"
	run python3 "$B/wakeups.py" table "$BATS_TEST_TMPDIR/r.tsv"
	[ "$status" -ne 0 ]
	[[ "$output" == *"went back"* ]]
}

@test "wakeups.py doc: the section replaced in place, the rest kept" {
	command -v python3 >/dev/null || skip "no python3"
	d=$BATS_TEST_TMPDIR/perf.md
	printf '# perf\n\n## Before\n\nkeep 1\n\n## Added wakeups\n\nold\n\n## After\n\nkeep 2\n' >"$d"
	run python3 "$B/wakeups.py" doc "$d" "$F/results.tsv"
	[ "$status" -eq 0 ]
	run cat "$d"
	[[ "$output" == *"keep 1"* && "$output" == *"keep 2"* && "$output" != *old* ]]
	[ "$(grep -c '^## Added wakeups$' "$d")" -eq 1 ]
	grep -q '^## After$' "$d"
	# appended where there is none
	printf '# perf\n' >"$d"
	python3 "$B/wakeups.py" doc "$d" "$F/results.tsv"
	[ "$(grep -c '^## Added wakeups$' "$d")" -eq 1 ]
}

@test "wakeups.sh --trace-summary: each source counted once per event, most first" {
	# by hand from the fixture: 3 ticks on CPU 0; the sched tick's two
	# kicks from CPU 1 and one from CPU 0 (pids and offsets dropped); one
	# of each other line
	for awk in awk mawk; do
		command -v "$awk" >/dev/null || continue
		AWK=$awk run "$B/wakeups.sh" --trace-summary "$F/trace"
		[ "$status" -eq 0 ]
		[ "${#lines[@]}" -eq 6 ]
		[ "${lines[0]}" = "WAKE-TRACE:      3 hrtimer_expire_entry: cpu0 function=tick_nohz_handler" ]
		[ "${lines[1]}" = "WAKE-TRACE:      2 ipi_send_cpu: cpu1 idlescope cpu=0 callsite=generic_exec_single callback=generic_smp_call_function_single_interrupt" ]
		printf '%s\n' "${lines[@]:2}" | grep -qxF "WAKE-TRACE:      1 ipi_send_cpu: cpu0 idlescope cpu=1 callsite=generic_exec_single callback=generic_smp_call_function_single_interrupt"
		printf '%s\n' "${lines[@]:2}" | grep -qxF "WAKE-TRACE:      1 ipi_send_cpu: cpu1 <idle> cpu=0 callsite=ttwu_queue_wakelist callback=generic_smp_call_function_single_interrupt"
		printf '%s\n' "${lines[@]:2}" | grep -qxF "WAKE-TRACE:      1 workqueue_execute_start: cpu1 vmstat_update"
		printf '%s\n' "${lines[@]:2}" | grep -qxF "WAKE-TRACE:      1 timer_expire_entry: cpu1 function=process_timeout"
	done
}

@test "wakeups.py table: the observer's time on a CPU, a column when the rows have it" {
	command -v python3 >/dev/null || skip "no python3"
	# cpu_ns added: "-" for the none runs; top-d 40, 80, 60 ms in its 10 s
	# windows (median 6.00 ms/s), tick-ref 11 ms in each (1.10), record-d
	# 25 and 35 ms (median 3.00)
	awk -F'\t' -v OFS='\t' '
		/^rep\t/ { print $0, "cpu_ns"; next }
		/^#/ { print; next }
		$2 == "none" { print $0, "-"; next }
		$2 == "top-d" { print $0, ($1 == 1 ? 40000000 : $1 == 2 ? 80000000 : 60000000); next }
		$2 == "tick-ref" { print $0, 11000000; next }
		$2 == "record-d" { print $0, ($1 == 1 ? 25000000 : 35000000) }' \
		"$F/results-ref.tsv" >"$BATS_TEST_TMPDIR/r.tsv"
	run python3 "$B/wakeups.py" table "$BATS_TEST_TMPDIR/r.tsv"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *'| verdict (≤ 0.2) | on a CPU, ms/s |'* ]]
	[[ "$output" == *'| +0.05 [-0.07, +0.17] | met | 6.00 |'* ]]
	[[ "$output" == *'| the reference | 1.10 |'* ]]
	[[ "$output" == *'| not resolved | 3.00 |'* ]]
	# in the paragraph that says how it was measured
	printf '%s\n' "${lines[@]}" | grep '^Measured by ' | grep -q "the observer's own time on a CPU per second"
	# the figures as before (the test above)
	[[ "$output" == *'| `idlescope top -d N` | 20.00 | 21.10 | +1.05 [-0.01, +2.11] | 1.00 (ref) |'* ]]
	# a row of neither 6 nor 7 fields, or a cpu_ns that is no count, is refused
	sed 's/\t-$/\tx/' "$BATS_TEST_TMPDIR/r.tsv" >"$BATS_TEST_TMPDIR/bad.tsv"
	run python3 "$B/wakeups.py" table "$BATS_TEST_TMPDIR/bad.tsv"
	[ "$status" -ne 0 ]
	sed 's/\t-$/\t-\t1/' "$BATS_TEST_TMPDIR/r.tsv" >"$BATS_TEST_TMPDIR/bad.tsv"
	run python3 "$B/wakeups.py" table "$BATS_TEST_TMPDIR/bad.tsv"
	[ "$status" -ne 0 ]
}

@test "wakeups.py table: rows without cpu_ns (older files) have no such column" {
	command -v python3 >/dev/null || skip "no python3"
	run python3 "$B/wakeups.py" table "$F/results-ref.tsv"
	[ "$status" -eq 0 ]
	[[ "$output" != *"on a CPU, ms/s"* ]]
}

@test "wakeups.sh --oncpu: a process's threads' CPU time, as the kernel's utime + stime says" {
	# the oracle: /proc/PID/stat's utime + stime (fields 14-15, clock
	# ticks, the whole process) against schedstat summed over its threads;
	# the observer here is a process whose two threads (bash and a
	# subshell's child are processes, so: python3 with a second thread)
	# spin about 0.3 s each, then sleep (both alive: schedstat has no
	# entry for a thread that ended, utime keeps its time)
	command -v python3 >/dev/null || skip "no python3"
	python3 -c '
import threading, time
def spin():
    t = time.thread_time()
    while time.thread_time() - t < 0.3: pass
def spin_stay():
    spin(); time.sleep(30)
th = threading.Thread(target=spin_stay, daemon=True); th.start(); spin()
time.sleep(0.5)
print("spun", flush=True)
time.sleep(30)' >"$BATS_TEST_TMPDIR/spin" &
	pid=$!
	for _ in $(seq 1 100); do grep -q spun "$BATS_TEST_TMPDIR/spin" && break; sleep 0.1; done
	run "$B/wakeups.sh" --oncpu "$pid"
	hz=$(getconf CLK_TCK)
	ticks=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	kill "$pid"
	[ "$status" -eq 0 ]
	echo "schedstat $output ns, utime+stime $ticks ticks of 1/$hz s"
	# both threads counted: at least 0.6 s, and within 0.1 s + 20% of the
	# kernel's tick-sampled figure (which the interpreter's start adds to)
	awk -v ns="$output" -v t="$ticks" -v hz="$hz" 'BEGIN {
		s = ns / 1e9; k = t / hz; d = s - k; if (d < 0) d = -d
		exit !(s >= 0.6 && d <= 0.1 + 0.2 * k) }'
	# no such process: nothing printed
	run "$B/wakeups.sh" --oncpu 999999999
	[ -z "$output" ]
}
