#!/usr/bin/env bash
# `make bench-wakeups` (and `make bench`): does the observer wake what it
# watches? On an idle machine, the idle periods per second per CPU with no
# observer and with each live command running, in interleaved repetitions
# (each observed window right after an un-observed one of the same length),
# from the kernel's own counters: the cpuidle driver's usage summed over the
# states of each CPU, or without a driver the per-CPU counts of
# /proc/interrupts (tests/bench/wakeups.py says what that over-counts).
# Writes $OUT/wakeups-results.tsv and the "Added wakeups" section of
# docs/performance.md (WAKE_DOC= leaves the doc alone).
# WAKE_REPS (5), WAKE_WINDOW (10 s), WAKE_SETTLE (3 s: start-up, not counted),
# WAKE_COMMANDS (a subset of: record-d record-i1 hist-d top-d serve tick-ref,
# and record-d-poll: record -d with IDLESCOPE_NO_QOS_EVENTS=1, PM QoS polled
# every 200 ms as before the events; record-d-nowake: record -d --without
# wakeups, the interrupt-path programs left out; tick-ref is no idlescope:
# the reference 1 Hz ticker that the ticking commands' verdicts subtract,
# tests/bench/wakeups.py), WAKE_ORACLE (usage or interrupts;
# default usage where a cpuidle driver is loaded), WAKE_ROWS=1 (the
# /proc/interrupts rows that grew), WAKE_TRACE=1 (the IPIs, timers and work
# items of each window, from tracefs: what the added wakeups are). Under the haltpoll
# governor a POLL that times out is followed by a second idle period in the
# same wait, so usage counts idle periods, interrupts count wakeups.
set -euo pipefail

# A snapshot's per-CPU counts, "0:N 1:M": cpuidle usage lines
# (FILE:COUNT, summed per CPU over its states) or /proc/interrupts (each
# CPU's column summed over the rows that have one count per CPU).
counts() {
	# shellcheck disable=SC2016 # awk's own $
	${AWK:-awk} '
	FNR == 1 && $1 ~ /^CPU[0-9]+$/ { irq = 1; n = NF; for (i = 1; i <= NF; i++) col[i] = substr($i, 4) + 0; next }
	irq {
		if ($1 !~ /:$/ || NF < n + 1) next
		for (i = 2; i <= n + 1; i++) if ($i !~ /^[0-9]+$/) next
		for (i = 2; i <= n + 1; i++) { c = col[i - 1]; tot[c] += $i; seen[c] = 1; if (c > max) max = c }
		next
	}
	match($0, /\/cpu[0-9]+\/cpuidle\/state[0-9]+\/usage:[0-9]+$/) {
		s = substr($0, RSTART + 4); c = s + 0
		tot[c] += substr(s, index(s, ":") + 1) + 0; seen[c] = 1; if (c > max) max = c
	}
	END {
		out = ""
		for (c = 0; c <= max; c++) if (c in seen) out = out (out == "" ? "" : " ") c ":" sprintf("%.0f", tot[c])
		if (out == "") exit 1
		print out
	}' "$1"
}

# A tracefs trace (FILE) counted per source, the WAKE-TRACE lines
trace_summary() {
	# shellcheck disable=SC2016 # awk's own $
	# "comm-pid [cpu] flags ts: event: fields": the key is the event and
	# what names its source (IPI: sender, callsite, callback; timer,
	# hrtimer, work: the function)
	${AWK:-awk} '/^#/ { next }
		{ ev = ""; cpu = ""
		  for (i = 1; i <= NF; i++) {
			if (cpu == "" && $i ~ /^\[[0-9]+\]$/) cpu = "cpu" (substr($i, 2) + 0)
			if ($i ~ /^[a-z_]+:$/ && $(i - 1) ~ /:$/) { ev = $i; k = i; break }
		  }
		  if (ev == "") next
		  key = ev " " cpu
		  if (ev ~ /^ipi_send/) { s = $0; sub(/.*ipi_send_[a-z]+: /, "", s); key = key " " $1 " " s }
		  else if (ev ~ /^workqueue/) key = key " " $NF
		  else for (i = k + 1; i <= NF; i++) if ($i ~ /^(function|func)=/) key = key " " $i
		  gsub(/\+0x[0-9a-f]+\/0x[0-9a-f]+/, "", key); gsub(/-[0-9]+ /, " ", key)
		  n[key]++ }
		END { for (x in n) printf "WAKE-TRACE: %6d %s\n", n[x], x }' "$1" | sort -k2,2nr | ${AWK:-awk} 'NR <= 25'
}
# the observer's (OBS_PID's) time on a CPU so far in ns, its live threads'
# summed (schedstat, ns where /proc/PID/stat has clock ticks; a thread that
# ended in the window takes its time with it), or nothing
oncpu() {
	[ -n "${OBS_PID:-}" ] || return 0
	# shellcheck disable=SC2016 # awk's own $
	cat "/proc/$OBS_PID/task/"*/schedstat 2>/dev/null | ${AWK:-awk} '{ t += $1 } END { if (NR) printf "%.0f\n", t }'
}

if [ "${1:-}" = --counts ]; then
	counts "$2"
	exit
fi
if [ "${1:-}" = --trace-summary ]; then
	trace_summary "$2"
	exit
fi
if [ "${1:-}" = --oncpu ]; then
	OBS_PID=$2 oncpu
	exit
fi
cd "$(dirname "$0")/../.."
OUT=${OUT:-build}
IS=${IDLESCOPE:-$OUT/idlescope}
REPS=${WAKE_REPS:-5}
WIN=${WAKE_WINDOW:-10}
SETTLE=${WAKE_SETTLE:-3}
CMDS=${WAKE_COMMANDS:-record-d record-i1 hist-d top-d serve tick-ref}
RESULTS=${WAKE_RESULTS:-$OUT/wakeups-results.tsv}
DOC=${WAKE_DOC-docs/performance.md}
PY=${PYTHON:-python3}
PORT=${WAKE_PORT:-19464}
[ "$(id -u)" = 0 ] || { echo "bench-wakeups: run as root" >&2; exit 1; }
[ -x "$IS" ] || { echo "bench-wakeups: no $IS (make)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
DUR=$((SETTLE + WIN + 3))

# The reference for a command that ticks (-i 1): what waking once a second
# and writing a line to its output costs on this machine whoever does it
# (the kernel keeps the tick on after the wake, writeback of the output
# file, vmstat work): one bash, no fork, a 1 s pselect on a pipe no one
# writes (opened read-write, so never at EOF) and one line after it.
TICKER='echo "ticker ready"; exec 3<> <(:); while :; do read -t 1 -u 3 || :; printf "%s\n" "$EPOCHREALTIME"; done'

# what each command is, and its own wakeups per second (its -i ticks)
cmdline() {
	case $1 in
	record-d) echo "record -v -d $DUR -o /dev/null" ;;
	record-d-poll) echo "record -v -d $DUR -o /dev/null" ;;
	record-d-nowake) echo "record -v -d $DUR --without wakeups -o /dev/null" ;;
	record-i1) echo "record -v -d $DUR -i 1 -o /dev/null" ;;
	hist-d) echo "hist residency -v -d $DUR" ;;
	top-d) echo "top -v -d $DUR" ;; # not a tty: one block of lines per 1 s interval
	serve) echo "serve -v -d $DUR --listen 127.0.0.1:$PORT" ;;
	tick-ref) echo "(reference) bash: a 1 s read -t on a pipe, a line written after each" ;;
	*) echo "bench-wakeups: unknown command $1" >&2; exit 2 ;;
	esac
}
ticks() { case $1 in record-i1 | top-d | tick-ref) echo 1 ;; *) echo 0 ;; esac; }
# the line a command prints once its start-up is over
ready_mark() { case $1 in tick-ref) echo "ticker ready" ;; *) echo "CPUs of unknown state" ;; esac; }

if [ "${WAKE_ORACLE:-usage}" = usage ] && ls /sys/devices/system/cpu/cpu0/cpuidle/state0/usage >/dev/null 2>&1 &&
	[ "$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null)" != none ]; then
	ORACLE="cpuidle usage summed over the states of each CPU (driver $(cat /sys/devices/system/cpu/cpuidle/current_driver))"
	snap() { grep -H . /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*/usage >"$1"; }
else
	ORACLE="/proc/interrupts per CPU (every idle exit from a halt is an interrupt, but interrupts taken while busy count too)"
	[ "${WAKE_ORACLE:-usage}" != usage ] || ORACLE="$ORACLE; no cpuidle driver"
	snap() { cat /proc/interrupts >"$1"; }
fi

now() { date +%s%N; }
# one window: snapshots around WIN seconds; prints its seconds, the counts
# before and after, the observer's (OBS_PID's) time on a CPU in it in ns or
# "-" (tab-separated)
window() {
	local t0 t1 c0 c1
	# the observer's CPU time is read outside the counted span: reading it
	# (a subshell, cat and awk) wakes CPUs too, and only observed windows do
	c0=$(oncpu)
	[ "${WAKE_TRACE:-}" != 1 ] || trace_on
	snap "$TMP/a"
	t0=$(now)
	sleep "$WIN"
	snap "$TMP/b"
	t1=$(now)
	c1=$(oncpu)
	[ "${WAKE_TRACE:-}" != 1 ] || trace_off >&2
	printf '%s\t%s\t%s\t%s\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", (b - a) / 1e9 }')" \
		"$(counts "$TMP/a")" "$(counts "$TMP/b")" \
		"$(if [ -n "$c0" ] && [ -n "$c1" ]; then echo $((c1 - c0)); else echo -; fi)"
	[ -z "${WAKE_ROWS:-}" ] || rows "$TMP/a" "$TMP/b" >&2
}

# WAKE_TRACE=1: what woke the CPUs in a window, on stderr as WAKE-TRACE
# lines: the IPIs sent (sender, call site, callback), the timers and
# hrtimers that expired, the work items run, counted over the window
# (tracefs events; the trace's own cost is in the window too). The trace
# buffer is cleared; tracing_on and the events are put back as they were.
TRACEFS=/sys/kernel/tracing
TRACE_EVENTS="ipi/ipi_send_cpu ipi/ipi_send_cpumask timer/timer_expire_entry timer/hrtimer_expire_entry workqueue/workqueue_execute_start"
TRACE_WAS=""
trace_save() {
	[ -d "$TRACEFS/events" ] || mount -t tracefs nodev "$TRACEFS"
	TRACE_WAS="on=$(cat "$TRACEFS/tracing_on")"
	for e in $TRACE_EVENTS; do TRACE_WAS="$TRACE_WAS $e=$(cat "$TRACEFS/events/$e/enable")"; done
}
trace_on() {
	echo 0 >"$TRACEFS/tracing_on"
	echo >"$TRACEFS/trace"
	for e in $TRACE_EVENTS; do echo 1 >"$TRACEFS/events/$e/enable"; done
	echo 1 >"$TRACEFS/tracing_on"
}
# tracing_on and each event's enable as trace_save found them
trace_restore() {
	local kv
	for kv in $TRACE_WAS; do
		case $kv in
		on=*) echo "${kv#on=}" >"$TRACEFS/tracing_on" ;;
		*) echo "${kv#*=}" >"$TRACEFS/events/${kv%%=*}/enable" ;;
		esac
	done
}
trace_off() {
	echo 0 >"$TRACEFS/tracing_on"
	for e in $TRACE_EVENTS; do echo 0 >"$TRACEFS/events/$e/enable"; done
	trace_summary "$TRACEFS/trace"
	trace_restore
}
if [ "${WAKE_TRACE:-}" = 1 ]; then
	trace_save
	# also when the bench stops inside a window
	trap 'trace_restore; rm -rf "$TMP"' EXIT
fi

# WAKE_ROWS=1 (with WAKE_ORACLE=interrupts): which interrupts grew in a
# window, both CPUs summed per /proc/interrupts row, on stderr
rows() { # before after
	awk 'FNR == 1 { f++; next } { s = 0; for (i = 2; i <= 3; i++) if ($i ~ /^[0-9]+$/) s += $i; v[f, $1] = s; k[$1] = 1 }
		END { out = ""; for (r in k) if (v[2, r] - v[1, r] > 0) out = out " " r (v[2, r] - v[1, r]); print "WAKE-ROWS:" out }' "$1" "$2"
}

{
	printf '#date\t%s\n' "$(date -u +%Y-%m-%d)"
	printf '#host\t%s, kernel %s, %s CPUs, cpuidle driver %s\n' "$(hostname)" "$(uname -r)" "$(nproc)" \
		"$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)"
	printf '#oracle\t%s\n' "$ORACLE"
	printf '#window\t%s\n#settle\t%s\n#results\t%s\n' "$WIN" "$SETTLE" "$RESULTS"
	[ -z "${WAKE_NOTE:-}" ] || printf '#note\t%s\n' "$WAKE_NOTE"
	for c in $CMDS; do
		if [ "$c" = tick-ref ]; then
			printf '#cmd:%s\t%s\n' "$c" "$(cmdline "$c")"
			continue
		fi
		printf '#cmd:%s\t%sidlescope %s\n' "$c" "$([ "$c" = record-d-poll ] && echo 'IDLESCOPE_NO_QOS_EVENTS=1 ')" \
			"$(cmdline "$c" | sed "s/-d $DUR/-d N/; s/ -v / /")"
	done
	printf 'rep\tobserver\tticks\tseconds\tbefore\tafter\tcpu_ns\n'
} >"$TMP/results.tsv"

# shellcheck disable=SC2086 # a list of names
set -- $CMDS
echo "bench-wakeups: $REPS repetitions of $# commands, about $((REPS * $# * 2 * (WIN + SETTLE) / 60 + 1)) min" >&2
for rep in $(seq 1 "$REPS"); do
	# the commands' order rotated by one each repetition
	# shellcheck disable=SC2086
	order=$(printf '%s\n' $CMDS | awk -v k="$rep" '{ a[NR] = $0 } END { for (i = 0; i < NR; i++) print a[(i + k) % NR + 1] }')
	for c in $order; do
		sleep "$SETTLE"
		printf '%s\tnone\t0\t%s\n' "$rep" "$(window)" >>"$TMP/results.tsv"
		# shellcheck disable=SC2046
		if [ "$c" = record-d-poll ]; then
			IDLESCOPE_NO_QOS_EVENTS=1 "$IS" $(cmdline "$c") >"$TMP/out" 2>&1 &
		elif [ "$c" = tick-ref ]; then
			bash -c "$TICKER" >"$TMP/out" 2>&1 &
		else
			"$IS" $(cmdline "$c") >"$TMP/out" 2>&1 &
		fi
		pid=$!
		# start-up done (its -v line once the window is open and the poke
		# is over, as info --costs waits for): under TCG attaching takes
		# seconds, and its text-poking IPIs must not fall in the window
		mark=$(ready_mark "$c")
		for _ in $(seq 1 1200); do
			grep -q "$mark" "$TMP/out" 2>/dev/null && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		grep -q "$mark" "$TMP/out" 2>/dev/null ||
			{ cat "$TMP/out" >&2; echo "bench-wakeups: $c did not start in 120 s" >&2; exit 1; }
		sleep "$SETTLE"
		kill -0 "$pid" 2>/dev/null || { cat "$TMP/out" >&2; echo "bench-wakeups: $c ended early" >&2; exit 1; }
		r=$(OBS_PID=$pid window)
		# (an asynchronous bash ignores SIGINT: the ticker ends on SIGTERM)
		if [ "$c" = tick-ref ]; then kill -TERM "$pid" 2>/dev/null || true; else kill -INT "$pid" 2>/dev/null || true; fi
		wait "$pid" || true
		printf '%s\t%s\t%s\t%s\n' "$rep" "$c" "$(ticks "$c")" "$r" >>"$TMP/results.tsv"
		[ -z "${WAKE_PRINT:-}" ] || tail -n 2 "$TMP/results.tsv" | sed "s/^/$WAKE_PRINT/"
		echo "bench-wakeups: rep $rep $c: $r" >&2
	done
done
[ -z "${WAKE_PRINT:-}" ] || grep '^#' "$TMP/results.tsv" | sed "s/^/$WAKE_PRINT/"
cp "$TMP/results.tsv" "$RESULTS"
# a guest without python leaves the table to the host
command -v "$PY" >/dev/null || exit 0
"$PY" tests/bench/wakeups.py table "$RESULTS"
if [ -n "$DOC" ]; then
	"$PY" tests/bench/wakeups.py doc "$DOC" "$RESULTS"
	echo "bench-wakeups: wrote $RESULTS and the Added wakeups section of $DOC" >&2
fi
