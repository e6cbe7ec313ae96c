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
