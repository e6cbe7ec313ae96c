#!/usr/bin/env bats
# Signals at random moments (tests/robust/signals.sh; `make soak` runs more):
# every run prints a complete summary or one error line, exits with a
# documented status, and leaves none of its BPF objects behind.

bats_require_minimum_version 1.5.0
load helpers

@test "40 runs, SIGINT/SIGTERM/SIGHUP at 1-1400 ms: summary or one error line, nothing left loaded" {
	# the oracle guests have tests/bats and tests/lib only
	[ -x "$BATS_TEST_DIRNAME/../robust/signals.sh" ] || skip "no tests/robust/signals.sh (not a source tree)"
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

# with_pending SIG [ignore] -- CMD...: runs CMD with SIG already pending
# (blocked, then sent to itself, before the exec), so that it lands while
# CMD loads every time, not at a random moment; with ignore, SIG is ignored
# as well (nohup). SIGINT is left at its default action, as a terminal's
# Ctrl-C finds it (a background job of bash would ignore it).
with_pending() {
	local sig=$1 ign=
	shift
	[ "$1" = ignore ] && { ign=1; shift; }
	[ "$1" = -- ] && shift
	perl -MPOSIX=:signal_h -e '
		my ($sig, $ign) = (shift, shift);
		my $n = eval "POSIX::SIG$sig";
		$SIG{INT} = "DEFAULT";
		$SIG{$sig} = "IGNORE" if $ign;
		sigprocmask(SIG_BLOCK, POSIX::SigSet->new($n)) or die;
		kill $sig, $$;
		exec @ARGV or die "exec: $!";' "$sig" "$ign" "$@"
}

# A signal that arrives while the command loads: nothing on stdout, the one
# error line, exit 1 (never death by the signal, never a summary).
pending_is_one_line() { # SIG CMD-NAME
	local out="$BATS_TEST_TMPDIR/out" err="$BATS_TEST_TMPDIR/err" rc=0
	# shellcheck disable=SC2046 # the argv, split on purpose
	with_pending "$1" -- "$IDLESCOPE" $(live_cmd "$2") >"$out" 2>"$err" || rc=$?
	echo "$2 with SIG$1 pending: exit $rc, stderr: $(tr '\n' '|' <"$err")"
	[ "$rc" -eq 1 ]
	[ ! -s "$out" ]
	[ "$(wc -l <"$err")" -eq 1 ]
	grep -qx "idlescope: interrupted by SIG$1 before the measurement started" "$err"
}

# Under nohup a hangup, even one pending from the start, ends nothing: the
# command runs its -d 1.5 and exits 0.
hangup_ignored() { # CMD-NAME
	local t0 t1 rc=0
	t0=$(date +%s%N)
	# shellcheck disable=SC2046
	with_pending HUP ignore -- "$IDLESCOPE" $(live_cmd "$1") >/dev/null 2>"$BATS_TEST_TMPDIR/err" || rc=$?
	t1=$(date +%s%N)
	echo "$1 under nohup with SIGHUP pending: exit $rc in $(((t1 - t0) / 1000000)) ms"
	cat "$BATS_TEST_TMPDIR/err"
	[ "$rc" -eq 0 ]
	[ $((t1 - t0)) -ge 1400000000 ]
}

# Ctrl-C (SIGINT at its default action, to the process only) in the window:
# a normal end, exit 0.
sigint_in_window_ends_normally() { # CMD-NAME
	local pid rc=0
	# -d 30: its own end is far off, the signal ends it
	# shellcheck disable=SC2046
	env --default-signal=INT "$IDLESCOPE" $(live_cmd "$1" | sed 's/-d 1\.5/-d 30/') \
		>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	pid=$!
	bpf_attached "$pid"
	sleep 1
	kill -INT "$pid"
	wait "$pid" || rc=$?
	echo "$1: SIGINT 1 s after it attached: exit $rc"
	cat "$BATS_TEST_TMPDIR/err"
	[ "$rc" -eq 0 ]
}

@test "record: Ctrl-C or SIGTERM while loading is one line, exit 1; SIGINT later a normal end" {
	pending_is_one_line INT record
	pending_is_one_line TERM record
	pending_is_one_line HUP record
	sigint_in_window_ends_normally record
	jq -e '.schema == "idlescope/1"' <("$IDLESCOPE" record -d 0.1 --format json)
}

@test "hist: Ctrl-C or SIGTERM while loading is one line, exit 1; SIGINT later a normal end" {
	pending_is_one_line INT hist
	pending_is_one_line TERM hist
	pending_is_one_line HUP hist
	sigint_in_window_ends_normally hist
	grep -q 'p50=' "$BATS_TEST_TMPDIR/out"
}

@test "top: Ctrl-C or SIGTERM while loading is one line, exit 1; SIGINT later a normal end" {
	pending_is_one_line INT top
	pending_is_one_line TERM top
	pending_is_one_line HUP top
	sigint_in_window_ends_normally top
}

@test "serve: Ctrl-C or SIGTERM while loading is one line, exit 1; SIGINT later a normal end" {
	pending_is_one_line INT serve
	pending_is_one_line TERM serve
	pending_is_one_line HUP serve
	sigint_in_window_ends_normally serve
	grep -q '^idlescope serve: http://127.0.0.1:' "$BATS_TEST_TMPDIR/out"
}

@test "record under nohup: a hangup pending from the start ends nothing" {
	hangup_ignored record
}

@test "hist under nohup: a hangup pending from the start ends nothing" {
	hangup_ignored hist
}

@test "top under nohup: a hangup pending from the start ends nothing" {
	hangup_ignored top
}

@test "serve under nohup: a hangup pending from the start ends nothing" {
	hangup_ignored serve
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
		env --default-signal=INT "$IDLESCOPE" advise -d 8 --format json \
			>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
		pid=$!
		bpf_attached "$pid" # its record attached
		sleep 1
		t0=$(date +%s%N)
		kill -"$sig" "$pid" # advise only: not its process group
		rc=0
		wait "$pid" || rc=$?
		t1=$(date +%s%N)
		echo "SIG$sig: exit $rc $(((t1 - t0) / 1000000)) ms after it: $(tr '\n' '|' <"$BATS_TEST_TMPDIR/err")"
		[ $((t1 - t0)) -lt 4000000000 ] # record's -d 8 cut short (7 s left)
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
