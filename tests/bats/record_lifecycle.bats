#!/usr/bin/env bats
# How a `record` window ends (duration, command exit, SIGINT, SIGTERM), what
# it leaves behind (nothing attached), and each output format.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	OUT="$BATS_TEST_TMPDIR/out"
}

# Starts record in the background, signals it $2 s after it attached, waits;
# sets $status and $output like `run`.
record_then_signal() { # signal seconds args...
	local sig=$1 after=$2
	shift 2
	local t0
	t0=$(date +%s%N)
	"$IDLESCOPE" record "$@" >"$OUT" 2>"$OUT.err" 3>&- &
	local pid=$!
	# with -- COMMAND: the command is exec'd only once the measurement
	# started; before that a signal is a start-up error (exit 1), and a slow
	# start (a TCG guest: 1-3 s) can take longer than $after
	local cmd=" $* "
	if [[ $cmd == *" -- "* ]]; then
		cmd=${cmd##* -- }
		local i
		for i in $(seq 300); do
			pgrep -P "$pid" -x -f "${cmd% }" >/dev/null && break
			sleep 0.1
		done
	elif ! bpf_attached "$pid"; then
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" || true
		echo "record never attached (or its link count never settled) in 60 s"
		return 1
	fi
	sleep "$after"
	kill -"$sig" "$pid"
	# the process's life up to the signal: no window can be longer
	lived_ns=$(($(date +%s%N) - t0))
	status=0
	wait "$pid" || status=$?
	output=$(cat "$OUT")
}

@test "SIGINT mid-run: complete summary, exit 0, nothing left attached" {
	local mark
	mark=$(bpf_prog_id_mark)
	record_then_signal INT 1.5
	[ "$status" -eq 0 ]
	[[ "$output" == *"All "*" CPUs: idle"* || "$(nproc)" -eq 1 ]]
	assert_cross_check_complete "$output"
	[ "$(our_bpf_progs_since "$mark")" -eq 0 ]
	[ ! -s "$OUT.err" ]
}

@test "SIGTERM mid-run with JSON: valid document covering the run" {
	local mark
	mark=$(bpf_prog_id_mark)
	record_then_signal TERM 2 --format json
	[ "$status" -eq 0 ]
	# the window ends at the signal: shorter than the process lived, and
	# longer than what start-up (load, attach, poke, snapshot: 0.3-0.8 s on
	# a loaded 2-CPU host) can leave of 2 s
	echo "window $(jq .duration_ns "$OUT") ns, process lived $lived_ns ns"
	jq -e --argjson lived "$lived_ns" '.schema == "idlescope/1" and .duration_ns > 500000000 and .duration_ns < $lived' "$OUT"
	[ "$(our_bpf_progs_since "$mark")" -eq 0 ]
}

@test "-- COMMAND: its exit status passes through, window = its lifetime" {
	run "$IDLESCOPE" record --format json -o "$OUT" -- sh -c 'sleep 0.5; exit 7'
	[ "$status" -eq 7 ]
	jq -e '.duration_ns >= 500000000 and .duration_ns < 1500000000' "$OUT"
	run "$IDLESCOPE" record -o "$OUT" -- true
	[ "$status" -eq 0 ]
}

@test "-- COMMAND killed by a signal: 128 + signal" {
	run "$IDLESCOPE" record -o "$OUT" -- sh -c 'kill -USR1 $$'
	[ "$status" -eq $((128 + 10)) ]
}

@test "SIGINT with a command: summary printed, command stopped" {
	record_then_signal INT 1 -- sleep 30
	echo "status $status, stderr: $(cat "$OUT.err")"
	[ "$status" -eq $((128 + 15)) ]
	assert_cross_check_complete "$output"
	run ! pgrep -x -f 'sleep 30'
}

@test "-C selects CPUs in every format" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	run "$IDLESCOPE" record -d 1 -C 1 --format json -o "$OUT"
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.cpus[].cpu]' "$OUT")" = "[1]" ]
	run "$IDLESCOPE" record -d 1 -C 1 --format csv
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | cut -d, -f1 | grep -vE '^[a-z-]+[0-9]+$' | LC_ALL=C sort -u | paste -sd " ")" = "1 all cpu" ]
	run "$IDLESCOPE" record -d 1 -C 1
	[ "$status" -eq 0 ]
	[[ "$output" == *"CPU 1:"* ]]
	[[ "$output" != *"CPU 0:"* ]]
}

@test "CSV: header, one row per CPU and state plus totals, then group rows" {
	run "$IDLESCOPE" record -d 1 --format csv -o "$OUT"
	[ "$status" -eq 0 ]
	head -1 "$OUT" | grep -q '^cpu,state,name,exit_latency_ns,target_residency_ns,entries,time_ns'
	local states cpus rows
	states=$(ls -d /sys/devices/system/cpu/cpu0/cpuidle/state* 2>/dev/null | wc -l)
	[ "$states" -gt 0 ] || states=1
	cpus=$(nproc --all)
	rows=$(grep -cE '^([0-9]+|all),' "$OUT")
	[ "$rows" -eq $((states * cpus + states)) ]
	# then one row per group and group state (cpu column = the group's name)
	[ "$(($(wc -l < "$OUT") - 1 - rows))" -eq "$(grep -cE '^[a-z-]+[0-9]+,' "$OUT")" ]
	[ "$(grep -cE '^[a-z-]+[0-9]+,' "$OUT")" -ge "$states" ]
}

@test "-i with JSON: one object per interval line, then the summary line" {
	run "$IDLESCOPE" record -d 2 -i 0.5 --format json -o "$OUT"
	[ "$status" -eq 0 ]
	local n
	n=$(wc -l < "$OUT")
	[ "$n" -ge 4 ]
	[ "$n" -le 6 ]
	head -n -1 "$OUT" | jq -e -s 'all(.interval > 0 and .duration_ns > 0 and (.states | length) > 0)'
	tail -1 "$OUT" | jq -e '.schema == "idlescope/1"'
}

@test "-i with the table: interval lines before the summary" {
	run "$IDLESCOPE" record -d 1.2 -i 0.4
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | grep -cE '^ +[0-9.]+s .*above/s')" -ge 2 ]
	[[ "$output" == *"Kernel cross-check"* ]]
}
