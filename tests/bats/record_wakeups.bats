#!/usr/bin/env bats
# The observer does not wake what it watches (issue 23): a live command
# sets no timer of its own beyond its -i ticks; a PM QoS change, a CPU going
# on or offline and a state's disable flag written reach the BPF
# classification as events. Counts, not times: a process's voluntary context
# switches are its wakeups, whatever the load.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	PID=
	HOLD=
	FLAG=
}

teardown() {
	local p
	[ -z "$FLAG" ] || echo "$FLAG_BEFORE" >"$FLAG" # a disable flag put back
	for p in "$HOLD" "$PID"; do
		[ -n "$p" ] || continue
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
}

# voluntary context switches of every thread of a process
switches() { # pid
	cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt_switches/ { n += $2 } END { print n + 0 }'
}

# The wakeups of a running command over 5 s, from 0.5 s after its start-up.
wakeups_over_5s() { # pid errfile
	local a b
	window_open "$2" "$1"
	sleep 0.2
	kill -0 "$1"
	a=$(switches "$1")
	sleep 5
	kill -0 "$1"
	b=$(switches "$1")
	echo $((b - a))
}

@test "record, hist and serve with no -i or scrape: no wakeups of their own" {
	port=$(free_port)
	for cmd in "record -v -d 10 -o /dev/null" "hist residency -v -d 10" \
		"serve -v -d 10 --listen 127.0.0.1:$port"; do
		# shellcheck disable=SC2086 # the command's words
		"$IDLESCOPE" $cmd >/dev/null 2>"$BATS_TEST_TMPDIR/err" &
		PID=$!
		n=$(wakeups_over_5s "$PID" "$BATS_TEST_TMPDIR/err")
		echo "$cmd: $n voluntary switches in 5 s over $(ls /proc/"$PID"/task | wc -l) threads"
		kill "$PID"
		wait "$PID" || true
		PID=
		# nothing polled (a 0.5 s poll: 10; another process's PM QoS
		# request or a hotplug would add one each, hence the margin)
		[ "$n" -le 2 ]
	done
}

# Readers of /dev/cpu_dma_latency (each open adds a request at the
# default, each close removes it) change no limit: their ledger records
# wait in the ring instead of waking the session (bpf/qos.bpf.h).
@test "record: readers of /dev/cpu_dma_latency do not wake it" {
	"$IDLESCOPE" record -v -d 10 -o /dev/null 2>"$BATS_TEST_TMPDIR/err" &
	PID=$!
	window_open "$BATS_TEST_TMPDIR/err" "$PID"
	# a reader every 0.2 s over the whole 5.5 s
	( for _ in $(seq 30); do od -An -td4 /dev/cpu_dma_latency >/dev/null; sleep 0.2; done ) &
	HOLD=$!
	n=$(wakeups_over_5s "$PID" "$BATS_TEST_TMPDIR/err")
	echo "record -d with a reader every 0.2 s: $n voluntary switches in 5 s"
	[ "$n" -le 2 ]
}

@test "top wakes once per -i tick, its cut set a tick ahead" {
	"$IDLESCOPE" top -v -d 10 -i 1 >/dev/null 2>"$BATS_TEST_TMPDIR/err" &
	PID=$!
	n=$(wakeups_over_5s "$PID" "$BATS_TEST_TMPDIR/err")
	echo "top -i 1: $n voluntary switches in 5 s (5 ticks; a cut waited for: 10)"
	[ "$n" -ge 4 ] && [ "$n" -le 7 ]
}

@test "IDLESCOPE_POLL_STATE_FILES=1: the state files polled every 0.5-1 s" {
	IDLESCOPE_POLL_STATE_FILES=1 "$IDLESCOPE" record -v -d 10 -o /dev/null 2>"$BATS_TEST_TMPDIR/err" &
	PID=$!
	n=$(wakeups_over_5s "$PID" "$BATS_TEST_TMPDIR/err")
	echo "record -d, state files polled: $n voluntary switches in 5 s"
	[ "$n" -ge 4 ] && [ "$n" -le 16 ]
}

# The deepest state's disable flag of CPU 0 written 1 and back in
# mid-window: each write wakes the session (inotify), which reads the flags
# again (the -v line) at once, not at a poll.
# bats test_tags=oracle
@test "a state's disable flag written mid-window is seen as it happens" {
	require_cpuidle_driver
	d=/sys/devices/system/cpu/cpu0/cpuidle
	s=$(($(ls -d "$d"/state[0-9]* | wc -l) - 1))
	[ "$s" -ge 1 ] || skip "one state only"
	before=$(cat "$d/state$s/disable")
	FLAG=$d/state$s/disable FLAG_BEFORE=$before
	"$IDLESCOPE" record -v -d 4 -o /dev/null 2>"$BATS_TEST_TMPDIR/err" &
	PID=$!
	window_open "$BATS_TEST_TMPDIR/err"
	echo 1 >"$d/state$s/disable"
	sleep 0.5
	n1=$(grep -c 'disable flag was written' "$BATS_TEST_TMPDIR/err" || true)
	echo "$before" >"$d/state$s/disable"
	wait "$PID"
	PID=
	cat "$BATS_TEST_TMPDIR/err"
	[ "$(cat "$d/state$s/disable")" = "$before" ]
	[ "$n1" -ge 1 ]
	[ "$(grep -c 'disable flag was written' "$BATS_TEST_TMPDIR/err")" -ge 2 ]
}

# A process holds /dev/cpu_dma_latency at 17 us for 0.6 s in mid-window:
# the pm_qos_update_target event wakes the session, which reads the new
# limit (the -v line) while the request is held, and again when it goes.
# Tagged oracle to run in the guests too (their kernels and drivers).
# bats test_tags=oracle
@test "a PM QoS change mid-window is seen as it happens" {
	before=$(od -An -td4 /dev/cpu_dma_latency | tr -d ' ')
	# another request (cyclictest holds 0) would hide ours: nothing to see
	[ "$before" -gt 17 ] || skip "another PM QoS request holds $before us"
	cat >"$BATS_TEST_TMPDIR/hold.sh" <<'SH'
exec 3>/dev/cpu_dma_latency
printf '\x11\x00\x00\x00' >&3
sleep 0.6
exec 3>&-
SH
	"$IDLESCOPE" record -v -d 4 -o /dev/null 2>"$BATS_TEST_TMPDIR/err" &
	PID=$!
	window_open "$BATS_TEST_TMPDIR/err"
	bash "$BATS_TEST_TMPDIR/hold.sh"
	wait "$PID"
	PID=
	cat "$BATS_TEST_TMPDIR/err"
	[ "$(od -An -td4 /dev/cpu_dma_latency | tr -d ' ')" = "$before" ]
	grep -q 'PM QoS changed (.*): cpu_dma_latency 17000 ns$' "$BATS_TEST_TMPDIR/err"
	grep -q 'PM QoS changed (.*): cpu_dma_latency none$' "$BATS_TEST_TMPDIR/err"
}

@test "without the PM QoS event the limits are polled as before" {
	IDLESCOPE_NO_QOS_EVENTS=1 "$IDLESCOPE" record -v -d 10 -o "$BATS_TEST_TMPDIR/out.txt" 2>"$BATS_TEST_TMPDIR/err" &
	PID=$!
	n=$(wakeups_over_5s "$PID" "$BATS_TEST_TMPDIR/err")
	echo "record -d, QoS polled: $n voluntary switches in 5 s"
	# the 200 ms poll: 25 in 5 s (the first test's bound is 16)
	[ "$n" -ge 18 ]
}
