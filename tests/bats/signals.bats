#!/usr/bin/env bats
# Signals at random moments (tests/robust/signals.sh; `make soak` runs more):
# every run prints a complete summary or one error line, exits with a
# documented status, and leaves none of its BPF objects behind.

bats_require_minimum_version 1.5.0
load helpers

@test "40 runs, SIGINT/SIGTERM/SIGHUP at 1-1400 ms: summary or one error line, nothing left loaded" {
	run "$BATS_TEST_DIRNAME/../robust/signals.sh" "${IDLESCOPE_SIGNAL_RUNS:-40}"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 bad" ]]
}

@test "under nohup (SIGHUP ignored) a hangup does not end the run" {
	local out="$BATS_TEST_TMPDIR/out" pid
	nohup "$IDLESCOPE" record -d 1.5 --format json >"$out" 2>/dev/null &
	pid=$!
	wait_exec_idlescope "$pid"
	sleep 0.5
	kill -HUP "$pid"
	wait "$pid"
	jq -e '.duration_ns >= 1400000000' "$out"
}

@test "a signal while the summary is written does not change the exit status" {
	local out="$BATS_TEST_TMPDIR/out" pid i rc
	# interval lines every 10 ms keep it writing; the signals land mid-output
	for i in 1 2 3 4 5; do
		"$IDLESCOPE" record -d 0.5 -i 0.01 --format json >"$out" 2>/dev/null &
		pid=$!
		wait_exec_idlescope "$pid"
		sleep 0.3
		kill -TERM "$pid"
		kill -INT "$pid" 2>/dev/null || true
		rc=0
		wait "$pid" || rc=$?
		[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]
		if [ "$rc" -eq 0 ]; then jq -se '.[-1].schema == "idlescope/1"' "$out"; fi
	done
}

# live_cmd NAME: the argv of a live command that runs ~1.5 s and prints to
# stdout (top in plain lines, serve on a free loopback port)
live_cmd() {
	case $1 in
	record) echo record -d 1.5 ;;
	hist) echo hist residency -d 1.5 ;;
	top) echo top -i 0.5 -d 1.5 ;;
	serve) echo serve -d 1.5 --listen 127.0.0.1:0 ;;
	esac
}

# Every live command blocks the ending signals from its first instruction:
# a signal while it loads is the one error line (exit 1), a later one a
# normal end; none dies by the signal (top and serve once did: status 143).
@test "record, hist, top, serve: a signal during start-up is one error line, never death by it" {
	local cmd pid rc ms err="$BATS_TEST_TMPDIR/err" early=0
	for cmd in record hist top serve; do
		for ms in 0 20 40 80 120 200; do
			# shellcheck disable=SC2046 # the argv, split on purpose
			"$IDLESCOPE" $(live_cmd "$cmd") >/dev/null 2>"$err" &
			pid=$!
			wait_exec_idlescope "$pid"
			sleep "0.$(printf '%03d' "$ms")"
			kill -TERM "$pid" # (a background job ignores SIGINT)
			rc=0
			wait "$pid" || rc=$?
			echo "$cmd SIGTERM at +${ms} ms: exit $rc $(head -c 200 "$err" | tr '\n' '|')"
			[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]
			if [ "$rc" -eq 1 ]; then
				[ "$(wc -l <"$err")" -eq 1 ]
				grep -qx "idlescope: interrupted by SIGTERM before the measurement started" "$err"
				early=$((early + 1))
			fi
		done
	done
	echo "# $early of 24 signals landed before the measurement started" >&3
}

@test "top and serve under nohup (SIGHUP ignored): a hangup does not end them, as record" {
	local cmd pid t0 t1
	for cmd in top serve; do
		t0=$(date +%s%N)
		# shellcheck disable=SC2046
		nohup "$IDLESCOPE" $(live_cmd "$cmd") >"$BATS_TEST_TMPDIR/out" 2>/dev/null &
		pid=$!
		wait_exec_idlescope "$pid"
		sleep 0.5
		kill -HUP "$pid"
		wait "$pid"
		t1=$(date +%s%N)
		echo "$cmd ran $(((t1 - t0) / 1000000)) ms"
		[ $((t1 - t0)) -ge 1400000000 ]
	done
}

# ab and advise run `record` as a child (util/child_run.c): an ending
# signal to them alone is passed on, the same signal, and ends the child's
# window with its summary; a child killed by a signal is one line, exit 1.
@test "advise: a record child killed by a signal is one line naming it, exit 1" {
	run --separate-stderr "$IDLESCOPE" advise -- sh -c 'kill -KILL $PPID'
	echo "exit $status, stderr: $stderr"
	[ "$status" -eq 1 ]
	[ "$stderr" = "idlescope: record was killed by SIGKILL" ]
}

@test "advise: SIGINT or SIGHUP to advise alone reaches its record, which ends early" {
	local sig pid t0 t1 rc
	for sig in INT HUP TERM; do
		t0=$(date +%s%N)
		env --default-signal=INT "$IDLESCOPE" advise -d 5 --format json \
			>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
		pid=$!
		wait_exec_idlescope "$pid"
		sleep 1
		kill -"$sig" "$pid" # advise only: not its process group
		rc=0
		wait "$pid" || rc=$?
		t1=$(date +%s%N)
		echo "SIG$sig: exit $rc in $(((t1 - t0) / 1000000)) ms: $(tr '\n' '|' <"$BATS_TEST_TMPDIR/err")"
		[ $((t1 - t0)) -lt 4000000000 ] # record's -d 5 cut short
		! grep -q 'killed by' "$BATS_TEST_TMPDIR/err"
		if [ "$rc" -eq 0 ]; then
			jq -e '.schema == "idlescope-advise/1"' "$BATS_TEST_TMPDIR/out"
		else # a summary to advise on, but this host has no cpuidle driver
			[ "$rc" -eq 1 ]
			grep -qx 'idlescope: this machine: no CPU with a cpuidle driver: no thresholds to advise on' \
				"$BATS_TEST_TMPDIR/err"
		fi
	done
}

@test "ab: a record child killed by a signal is one line naming it, exit 1, settings restored" {
	local key=kernel.sched_autogroup_enabled f=/proc/sys/kernel/sched_autogroup_enabled before
	[ -w "$f" ] || skip "no $key"
	before=$(cat "$f")
	run --separate-stderr "$IDLESCOPE" ab --set "$key=$((1 - before))" --repeat 1 -- sh -c 'kill -KILL $PPID'
	echo "exit $status, stderr: $stderr"
	[ "$status" -eq 1 ]
	[ "$(grep -c '^idlescope: ' <<<"$stderr")" -eq 1 ]
	grep -qx 'idlescope: record was killed by SIGKILL' <<<"$stderr"
	[ "$(cat "$f")" = "$before" ]
}

@test "ab: SIGINT or SIGHUP to ab alone reaches its record; ab restores and exits 1" {
	local key=kernel.sched_autogroup_enabled f=/proc/sys/kernel/sched_autogroup_enabled
	local sig pid t0 t1 rc before
	[ -w "$f" ] || skip "no $key"
	before=$(cat "$f")
	for sig in INT HUP TERM; do
		t0=$(date +%s%N)
		env --default-signal=INT "$IDLESCOPE" ab --set "$key=$((1 - before))" --repeat 2 -d 5 \
			>/dev/null 2>"$BATS_TEST_TMPDIR/err" &
		pid=$!
		wait_exec_idlescope "$pid"
		sleep 1
		kill -"$sig" "$pid"
		rc=0
		wait "$pid" || rc=$?
		t1=$(date +%s%N)
		echo "SIG$sig: exit $rc in $(((t1 - t0) / 1000000)) ms: $(tr '\n' '|' <"$BATS_TEST_TMPDIR/err")"
		[ "$rc" -eq 1 ]
		[ $((t1 - t0)) -lt 4000000000 ] # the running record was cut short
		grep -qx "idlescope: interrupted by SIG$sig" "$BATS_TEST_TMPDIR/err"
		[ "$(cat "$f")" = "$before" ]
	done
}

@test "ab under nohup: a hangup ends neither ab nor its record" {
	local key=kernel.sched_autogroup_enabled f=/proc/sys/kernel/sched_autogroup_enabled
	local before pid rc=0
	[ -w "$f" ] || skip "no $key"
	before=$(cat "$f")
	nohup "$IDLESCOPE" ab --set "$key=$before" --repeat 2 -d 1 --format json \
		>"$BATS_TEST_TMPDIR/out" 2>/dev/null &
	pid=$!
	wait_exec_idlescope "$pid"
	sleep 0.5
	kill -HUP "$pid"
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ]
	jq -e '.schema == "idlescope-ab/1" and .repeat == 2' "$BATS_TEST_TMPDIR/out"
	jq -e '.metrics[] | select(.metric == "duration_ns") | .variants[0].n == 2' "$BATS_TEST_TMPDIR/out"
}
