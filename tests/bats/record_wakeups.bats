#!/usr/bin/env bats
# The observer does not wake what it watches (issue 23): a live command's
# refresh tick is not a fixed short poll, and a PM QoS change reaches the
# BPF classification as an event, not at the next poll. Counts, not times:
# a process's voluntary context switches are its wakeups, whatever the load.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	PID=
	HOLD=
}

teardown() {
	local p
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

# The wakeups of a running command over 5 s, after 1.5 s of start-up.
wakeups_over_5s() { # pid
	local a b
	sleep 1.5
	kill -0 "$1"
	a=$(switches "$1")
	sleep 5
	kill -0 "$1"
	b=$(switches "$1")
	echo $((b - a))
}

@test "record -d with no -i: a handful of wakeups in 5 s, not a 200 ms poll" {
	"$IDLESCOPE" record -d 10 -o "$BATS_TEST_TMPDIR/out.txt" &
	PID=$!
	n=$(wakeups_over_5s "$PID")
	echo "record -d: $n voluntary switches in 5 s (a 200 ms poll: 25 or more)"
	# the state files every 0.5-1 s (timer slack), PM QoS only on a change
	# (another process's request counts, hence the margin)
	[ "$n" -le 16 ]
}

@test "serve with no scrape: its threads wake no more than record does" {
	port=$(free_port)
	"$IDLESCOPE" serve -d 10 --listen "127.0.0.1:$port" >/dev/null 2>&1 &
	PID=$!
	n=$(wakeups_over_5s "$PID")
	echo "serve: $n voluntary switches in 5 s over $(ls /proc/"$PID"/task | wc -l) threads"
	# the connection reaper sleeps while there is no connection
	[ "$n" -le 16 ]
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
	sleep 1.5
	bash "$BATS_TEST_TMPDIR/hold.sh"
	wait "$PID"
	PID=
	cat "$BATS_TEST_TMPDIR/err"
	[ "$(od -An -td4 /dev/cpu_dma_latency | tr -d ' ')" = "$before" ]
	grep -q 'PM QoS changed (.*): cpu_dma_latency 17000 ns$' "$BATS_TEST_TMPDIR/err"
	grep -q 'PM QoS changed (.*): cpu_dma_latency none$' "$BATS_TEST_TMPDIR/err"
}

@test "without the PM QoS event the limits are polled as before" {
	IDLESCOPE_NO_QOS_EVENTS=1 "$IDLESCOPE" record -d 10 -o "$BATS_TEST_TMPDIR/out.txt" &
	PID=$!
	n=$(wakeups_over_5s "$PID")
	echo "record -d, QoS polled: $n voluntary switches in 5 s"
	# the 200 ms poll: 25 in 5 s (the first test's bound is 16)
	[ "$n" -ge 18 ]
}
