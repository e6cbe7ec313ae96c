#!/usr/bin/env bash
# `make bench`: what observing costs, measured side by side in one run.
# Each repetition runs every workload under each observer in turn (the
# observers' order rotated by one each repetition), BENCH_REPS times. Each run
# of an observer that has a target (BENCH_PAIRED: the default, --packing and
# idlestat) gets its own un-observed run of the same workload right before it
# (odd repetitions) or right after it (even ones), and report.py forms the
# ratio per pair, so that drift over the minutes of a run cancels, and the
# difference of two such observers per repetition; the other observers are compared with all the un-observed runs of
# the workload (a workload none of whose observers is paired gets a "none" run
# before every BENCH_NONE_EVERY observer runs instead). report.py gives
# ratios with bootstrap 95% intervals and a verdict per target, BPF ns per
# event (kernel.bpf_stats_enabled, restored afterwards), BPF CPU share, loader
# CPU time, RSS, BPF map memory, trace bytes per second of the file-based
# tools, start-up time, the marginal cost of each part of idlescope, and the
# exporter's size per scrape. Writes docs/performance.md and, for re-reporting
# (`tests/bench/report.py build/bench-results.tsv`), $OUT/bench-results.tsv.
# BENCH_OBSERVERS / BENCH_WORKLOADS (space-separated names) pick a subset;
# BENCH_ESTIMATE_ONLY=1 stops after printing how long the run would take.
# BENCH_BASELINE=PATH adds another idlescope build (an earlier commit's) as
# the observer idlescope-baseline on every workload: report.py sets each
# program of the default beside the same program of that build, measured in
# the same repetitions (a handler change proven side by side in one run).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build}
IS=$OUT/idlescope
FLOOR=$OUT/tests/floor
SHIM=$(realpath "$OUT/tests/trace_cmd_shim.so")
REPS=${BENCH_REPS:-7}
# Throughput and latency are measured with kernel.bpf_stats_enabled off (its
# two clock reads per program run would be a cost of the BPF observers that
# the ftrace ones do not pay); BPF ns/event, BPF share and map memory come
# from BENCH_NS_REPS more repetitions of the BPF observers with it on, whose
# workload values are not used.
NS_REPS=${BENCH_NS_REPS:-3}
STATS=1 # bpf_stats on: observe() reads the programs' and maps' figures
NONE_EVERY=${BENCH_NONE_EVERY:-4}
# the observers whose every run is paired with an adjacent un-observed one:
# those the targets compare (issue 23)
PAIRED=${BENCH_PAIRED-idlescope-default idlescope-packing idlestat}
# the marginal-cost observers (idlescope-no-PART) run on these only, to keep
# a full run under 20 minutes
MARGINAL_WORKLOADS="pipe-pinned pingpong-cross"
TRACEFS=/sys/kernel/tracing
INSTANCE=idlescope-bench
TMP=$(mktemp -d)
RESULTS=$TMP/results.tsv
NCPU=$(nproc)
T_START=$(date +%s%N)

[ "$(id -u)" = 0 ] || { echo "bench: run as root" >&2; exit 1; }
for t in perf cyclictest rt-app trace-cmd idlestat bpftool jq python3; do
	command -v "$t" >/dev/null || { echo "bench: needs $t (make deps)" >&2; exit 1; }
done

# Everything the observers change is put back on exit, whichever way the
# bench ends: bpf_stats, and the top-level ftrace buffer that idlestat uses
# (it leaves its events on).
STATS_OLD=$(sysctl -n kernel.bpf_stats_enabled)
mounted_tracefs=
if [ ! -e $TRACEFS/tracing_on ]; then
	mount -t tracefs nodev $TRACEFS && mounted_tracefs=1
fi
# idlestat reads /sys/kernel/debug/tracing only
mounted_debugfs=
if [ ! -e /sys/kernel/debug/tracing/tracing_on ]; then
	mount -t debugfs nodev /sys/kernel/debug && mounted_debugfs=1
fi
TRACING_ON_OLD=$(cat $TRACEFS/tracing_on)
# shellcheck source=../lib/tracefs.sh
. "$(dirname "$0")/../lib/tracefs.sh"
BUFFER_KB_OLD=$(tracefs_value $TRACEFS/buffer_size_kb) # "7 (expanded: 1408)": 1408
EVENTS_ON_OLD=$(cd $TRACEFS/events && grep -l '^1' ./*/*/enable 2>/dev/null || true)
restore_ftrace() {
	local f
	# one grep over the ~2300 event files: a cat of each took 30 s per run
	for f in $(grep -l '^1' $TRACEFS/events/*/*/enable 2>/dev/null); do echo 0 > "$f"; done
	for f in $EVENTS_ON_OLD; do echo 1 > "$TRACEFS/events/$f"; done
	tracefs_restore $TRACEFS/buffer_size_kb "$BUFFER_KB_OLD"
	echo "$TRACING_ON_OLD" > $TRACEFS/tracing_on
	[ -d $TRACEFS/instances/$INSTANCE ] && rmdir $TRACEFS/instances/$INSTANCE 2>/dev/null
	return 0
}
OBS_PID=
cleanup() {
	set +e # every step, whatever failed before
	sysctl -qw kernel.bpf_stats_enabled="$STATS_OLD"
	if [ -n "$OBS_PID" ]; then # an observer still running: its whole session
		pkill -INT -s "$OBS_PID" 2>/dev/null || true
		sleep 0.5
		pkill -KILL -s "$OBS_PID" 2>/dev/null || true
	fi
	restore_ftrace
	[ -z "$mounted_debugfs" ] || umount -R /sys/kernel/debug
	[ -z "$mounted_tracefs" ] || umount $TRACEFS
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
stats() { # 0/1 -> bpf_stats off/on, and observe() reads them when on
	STATS=$1
	sysctl -qw kernel.bpf_stats_enabled="$1"
}
stats 1

# rt-app's mp3 example (the EAS "mp3" case), 3 s, calibrated once here so
# every run does the same work.
PLOAD=$(cd "$TMP" && rt-app /usr/share/doc/rt-app/examples/mp3-short.json 2>&1 |
	sed -n 's/.*pLoad = \([0-9]*\)ns.*/\1/p' | head -1)
jq --argjson p "${PLOAD:-100}" --arg d "$TMP" \
	'.global.calibration = $p | .global.duration = 3 | .global.logdir = $d' \
	/usr/share/doc/rt-app/examples/mp3-short.json > "$TMP/mp3.json"
rm -f "$TMP"/mp3-*.log

# name|command printing one number on stdout (higher is better, except the
# *-latency-us rows)
WORKLOADS=(
	"pipe-pinned|taskset -c 1 perf bench sched pipe -l 50000 | sed -n 's/^ *\([0-9]*\) ops\/sec.*/\1/p'"
	"pipe-free|perf bench sched pipe -l 20000 | sed -n 's/^ *\([0-9]*\) ops\/sec.*/\1/p'"
	"pingpong-cross|$OUT/tests/pingpong 15000 0 1"
	"timer-latency-us|cyclictest --laptop -q -t 2 -a -i 500 -l 2000 | sed -n 's/.*Avg: *\([0-9]*\).*/\1/p' | awk '{s+=\$1} END {print s/NR}'"
	"mp3-wakeup-latency-us|cd $TMP && rm -f mp3-*.log && rt-app mp3.json >/dev/null 2>&1 && awk '!/^#/ {s+=\$NF; n++} END {print s/n}' mp3-AudioTick-0.log"
)

# name|kind|workloads|command. kind: bpf (runs until SIGINT; attached when it
# holds a BPF link; bpf:N when N of its processes must), bpftrace (bpf, but
# attached when its BEGIN probe has printed), instance (until SIGINT; its own
# tracefs instance), or timed (the top-level buffer, for {} seconds: idlestat
# ignores SIGINT until its -t ends, and with a workload command (`-- CMD`) it
# kept under a millisecond of trace here, so it traces for twice the
# un-observed run and the bench waits for it). workloads: all, marginal
# ($MARGINAL_WORKLOADS), or extra (marginal, and only when BENCH_OBSERVERS
# names it). Observers that are not installed or do not attach
# here are skipped, with the reason in the TSV and the doc.
OBSERVERS=(
	"floor|bpf|all|$FLOOR"
	"idlescope-default|bpf|all|$IS record -o /dev/null"
	"idlescope-packing|bpf|all|$IS record --packing -o /dev/null"
	"trace-cmd|instance|all|env LD_PRELOAD=$SHIM trace-cmd record -B $INSTANCE -e power:cpu_idle -e power:cpu_idle_miss -e sched:sched_wakeup -e sched:sched_switch -e irq:irq_handler_entry -e timer:hrtimer_expire_entry -o $TMP/trace.dat"
	"idlestat|timed|all|idlestat --trace -f $TMP/idlestat.trace -t {} -c -w -o $TMP/idlestat.report"
	"bpftrace|bpftrace|all|bpftrace tests/bench/idle-runq.bt"
	"libbpf-tools|bpf:2|all|set -m; runqlat & cpudist & wait -n; kill -INT \$(jobs -p) 2>/dev/null; wait"
	"idlescope-idle|bpf|extra|$IS record --no-wakeups --topology none -o /dev/null"
)
if [ -n "${BENCH_BASELINE:-}" ]; then
	[ -x "$BENCH_BASELINE" ] || { echo "bench: BENCH_BASELINE: no executable $BENCH_BASELINE" >&2; exit 2; }
	OBSERVERS+=("idlescope-baseline|bpf|all|$BENCH_BASELINE record -o /dev/null")
fi
# One observer per part that `record --without=PART` leaves out; freq, fexit
# and miss only where this kernel and machine have them (`idlescope info`).
INFO=$("$IS" info 2>&1 || true)
PARTS="wakeups timers details groups"
grep -q '^ *power:cpu_idle_miss.* yes ' <<<"$INFO" && PARTS+=" miss"
grep -q '^cpufreq: absent' <<<"$INFO" || PARTS+=" freq"
grep -q '^ *fentry/fexit *yes ' <<<"$INFO" && PARTS+=" fexit"
for part in $PARTS; do
	OBSERVERS+=("idlescope-no-$part|bpf|marginal|$IS record --without=$part -o /dev/null")
done
# what must be installed for an observer to run (Debian package in make deps)
needs() { # observer -> commands it runs
	case $1 in
	bpftrace) echo bpftrace ;;
	libbpf-tools) echo runqlat cpudist ;;
	esac
}

want() { # name list -> is name in the space-separated list (or the list empty)
	[ -z "$2" ] || [[ " $2 " == *" $1 "* ]]
}

is_paired() { # observer spec -> is it one of $PAIRED (none when that is empty)?
	[ -n "$PAIRED" ] && want "${1%%|*}" "$PAIRED"
}

# The observer's programs and maps: the BPF objects its processes hold file
# descriptors of (/proc/PID/fdinfo), so other tracers on the machine are
# never counted.
fd_ids() { # session id, "prog_id" or "map_id" -> JSON array of ids
	local p
	for p in $(pgrep -s "$1"); do
		grep -h "^$2:" /proc/"$p"/fdinfo/* 2>/dev/null
	done | awk '{ print $2 }' | sort -un | jq -sc .
}

holds_link() { # pid -> does it hold a BPF link? (bash builtins only: no fork)
	local f k v
	for f in /proc/"$1"/fdinfo/*; do
		while read -r k v; do
			[ "$k" != link_id: ] || return 0
		done 2>/dev/null <"$f"
	done
	return 1
}

# A sleep without a fork: a timed read on a FIFO nobody writes.
mkfifo "$TMP/nap"
exec {NAP_FD}<>"$TMP/nap"
nap() { read -r -t "$1" -u "$NAP_FD" _ || true; }

link_holders() { # session id -> how many of its processes hold a BPF link
	local p n=0
	for p in $(pgrep -s "$1"); do
		if grep -qs '^link_id:' /proc/"$p"/fdinfo/*; then n=$((n + 1)); fi
	done
	echo "$n"
}

prog_owners() { # session id -> JSON {prog id: comm of the process holding it}
	local p
	for p in $(pgrep -s "$1"); do
		grep -h '^prog_id:' /proc/"$p"/fdinfo/* 2>/dev/null |
			awk -v c="$(cat /proc/"$p"/comm 2>/dev/null)" '{ print $2, c }'
	done | jq -Rn '[inputs | split(" ") | {key: .[0], value: .[1]}] | from_entries'
}

prog_stats() { # -> "id name run_cnt run_time_ns" of the observer's programs
	# named comm:name when several processes hold them (runqlat and cpudist
	# both have a sched_switch)
	bpftool -j prog show 2>/dev/null |
		jq -r --argjson o "$(prog_owners "$OBS_PID")" \
			'([$o[]] | unique | length > 1) as $many | .[] | select($o[.id | tostring]) |
			"\(.id) \(if $many then $o[.id | tostring] + ":" else "" end)\(.name) \(.run_cnt // 0) \(.run_time_ns // 0)"'
}

map_bytes() { # -> bytes_memlock of the observer's maps
	bpftool -j map show 2>/dev/null |
		jq --argjson ids "$(fd_ids "$OBS_PID" map_id)" \
			'[.[] | select(.id as $i | $ids | index($i)) | .bytes_memlock] | add // 0'
}

observer_ready() { # kind -> attached/recording yet?
	case $1 in
	# one process (bash -c execs a lone command): its own fds, read with
	# builtins (holds_link), as a fork per poll slows the start it times
	bpf) holds_link "$OBS_PID" ;;
	bpf:*) [ "$(link_holders "$OBS_PID")" -ge "${1#bpf:}" ] ;;
	bpftrace) grep -q '^idlescope-bench: attached' "$TMP/obs.out" ;;
	instance) [ "$(cat $TRACEFS/instances/$INSTANCE/events/power/cpu_idle/enable 2>/dev/null)" = 1 ] &&
		[ "$(cat $TRACEFS/instances/$INSTANCE/tracing_on 2>/dev/null)" = 1 ] ;;
	timed) [ "$(cat $TRACEFS/events/power/cpu_idle/enable)" = 1 ] &&
		[ "$(cat $TRACEFS/tracing_on)" = 1 ] ;;
	esac
}

session_usage() { # session id -> "VmRSS RssAnon ticks Pss Private" summed over its processes
	# (KB, KB, utime + stime of them and their reaped children, KB, KB: Pss and
	# Private_Clean + Private_Dirty from smaps_rollup, smaps before 4.14); one
	# awk, as forks cost 10-30 ms each on a loaded guest
	local p files=()
	for p in $(pgrep -s "$1"); do
		files+=("/proc/$p/status" "/proc/$p/stat")
		if [ -r "/proc/$p/smaps_rollup" ]; then files+=("/proc/$p/smaps_rollup")
		else files+=("/proc/$p/smaps"); fi
	done
	[ ${#files[@]} -gt 0 ] || { echo 0 0 0 0 0; return 0; }
	awk '$1 == "VmRSS:" { r += $2 } $1 == "RssAnon:" { a += $2 }
		$1 == "Pss:" { s += $2 } $1 == "Private_Clean:" || $1 == "Private_Dirty:" { q += $2 }
		FNR == 1 && FILENAME ~ /stat$/ { t += $14 + $15 + $16 + $17 }
		END { print r + 0, a + 0, t + 0, s + 0, q + 0 }' "${files[@]}" 2>/dev/null || echo 0 0 0 0 0
}

start_observer() { # kind command -> OBS_PID, STARTUP_MS; fails if it never attached
	local kind=$1 cmd=$2 t0 t1 ok=1
	rm -f "$TMP"/trace.dat* "$TMP"/idlestat.trace
	t0=$(date +%s%N)
	# own session: trace-cmd forks one recorder per CPU, libbpf-tools is two tools
	setsid bash -c "$cmd" >"$TMP/obs.out" 2>"$TMP/obs.err" &
	OBS_PID=$!
	local until_us=$(( ${EPOCHREALTIME/./} + 10000000 )) # 10 s, however slow forks are
	while [ "${EPOCHREALTIME/./}" -lt "$until_us" ]; do
		observer_ready "$kind" && { ok=0; break; }
		kill -0 "$OBS_PID" 2>/dev/null || break # it died
		nap 0.005
	done
	t1=$(date +%s%N)
	STARTUP_MS=$(( (t1 - t0) / 1000000 ))
	OBS_T0=$t1
	[ "$ok" = 0 ] && sleep 0.1
	return "$ok"
}

stop_observer() { # kind -> OBS_SECONDS, TRACE_BYTES
	local t1
	# SIGINT to the whole session, as a terminal's Ctrl-C: background jobs
	# (libbpf-tools) would not get it from their shell
	[ "$1" = timed ] || pkill -INT -s "$OBS_PID" 2>/dev/null || true
	for _ in $(seq 1200); do pgrep -s "$OBS_PID" >/dev/null || break; sleep 0.05; done
	t1=$(date +%s%N)
	OBS_SECONDS=$(awk -v a="$OBS_T0" -v b="$t1" 'BEGIN { print (b - a) / 1e9 }')
	[ "$1" = timed ] && OBS_SECONDS=$w_s # it traced that long, then post-processed
	pkill -KILL -s "$OBS_PID" 2>/dev/null || true # stragglers of the session
	wait "$OBS_PID" 2>/dev/null || true
	OBS_PID=
	TRACE_BYTES=$( (cat "$TMP"/trace.dat* "$TMP"/idlestat.trace 2>/dev/null || true) | wc -c)
	restore_ftrace
}

# The TSV opens with what report.py needs to describe the run without this
# machine: '#'-lines of key, tab, value.
meta() { printf '# %s\t%s\n' "$1" "$2" >> "$RESULTS"; }
: > "$RESULTS"
meta date "$(date +%F)"
meta host "$(uname -n)"
meta kernel "$(uname -r)"
meta arch "$(uname -m)"
meta cpus "$NCPU"
meta cpuidle "$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo absent)"
meta clocksource "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
meta reps "$REPS"
meta ns_reps "$NS_REPS"
meta none_every "$NONE_EVERY"
[ -z "${BENCH_BASELINE:-}" ] || meta baseline "$("$BENCH_BASELINE" --version 2>&1 | head -1)"
meta paired "$PAIRED"
meta marginal_workloads "$MARGINAL_WORKLOADS"
meta parts "$PARTS"

secs_since() { # date +%s%N stamp -> seconds since, 0.1 s
	awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'
}

run_workload() { # command -> VAL, W_NS (its wall time)
	local w0 w1
	w0=$(date +%s%N)
	VAL=$(bash -c "$1" 2>/dev/null | tail -1)
	w1=$(date +%s%N)
	W_NS=$((w1 - w0))
}

ROWS=$RESULTS # where row() and observe() write (the trial starts: /dev/null)
# PAIR: the pair a run belongs to ("-": none), NONE_AT: where its un-observed
# run is (before, after)
PAIR=-
NONE_AT=-
row() { echo -e "$1\t$2\t$3\t$4\t$5\t$6\t$7\t$8\t$9\t${10}\t${11}\t${12}\t${13:--}\t${14:--}\t${15:--}\t$PAIR\t$NONE_AT" >> "$ROWS"; }

observe() { # workload name, command, observer spec, rep -> its rows; fails if it did not attach
	local wname=$1 wcmd=$2 oname kind set ocmd rss anon ticks pss priv mem loader_s bytes_s bpf_ns share
	local t0
	t0=$(date +%s%N)
	IFS='|' read -r oname kind set ocmd <<<"$3"
	if [ "$kind" = timed ]; then
		# twice the un-observed run, and 2 s for start-up
		w_s=$(awk -v n="$LAST_NONE_NS" 'BEGIN { printf "%d", 2 * n / 1e9 + 2 }')
		ocmd=${ocmd//\{\}/$w_s}
	fi
	if ! start_observer "$kind" "$ocmd"; then
		stop_observer "$kind"
		[ "$4" = 0 ] || echo "bench: rep $4 $wname: $oname did not attach, run left out" >&2
		return 1
	fi
	: > "$TMP/before"
	[ "$STATS" = 0 ] || prog_stats > "$TMP/before"
	run_workload "$wcmd"
	read -r rss anon ticks pss priv <<<"$(session_usage "$OBS_PID")"
	mem=0
	[[ $kind != bpf* || $STATS = 0 ]] || mem=$(map_bytes)
	: > "$TMP/after"
	[ "$STATS" = 0 ] || prog_stats > "$TMP/after"
	stop_observer "$kind"
	loader_s=$(awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN { print t / hz }')
	bytes_s=-
	[[ $kind == bpf* ]] || bytes_s=$(awk -v b="$TRACE_BYTES" -v s="$OBS_SECONDS" 'BEGIN { print b / s }')
	# BPF CPU share of the machine over the workload
	join <(sort "$TMP/before") <(sort "$TMP/after") > "$TMP/delta" # id name cnt ns name cnt ns
	bpf_ns=$(awk '{ t += $7 - $4 } END { print t + 0 }' "$TMP/delta")
	share=-
	[[ $kind != bpf* || $STATS = 0 ]] ||
		share=$(awk -v b="$bpf_ns" -v t="$W_NS" -v n="$NCPU" 'BEGIN { print b / (t * n) }')
	awk -v w="$wname" -v o="$oname" -v r="$4" -v v="$VAL" \
		'{ c = $6 - $3; t = $7 - $4; if (c > 0) printf "%s\t%s\t%s\t%s\t0\t0\t0\t%s\t%.0f\t-\t-\t-\t-\t-\t-\n", w, o, r, v, $2, t / c }' \
		"$TMP/delta" >> "$ROWS"
	row "$wname" "$oname" "$4" "$VAL" "${rss:-0}" "$mem" "$STARTUP_MS" - - "$share" "$loader_s" "$bytes_s" "${anon:-0}" "${pss:-0}" "${priv:-0}"
	OBS_RUN_S=$(secs_since "$t0")
	[ "$4" = 0 ] || echo "bench: rep $4 $wname under $oname: $VAL ($OBS_RUN_S s with start and stop)" >&2
}

why_failed() { # -> the observer's error line (bpftrace's RLIMIT warning is none)
	local l
	l=$(grep -v -e RLIMIT_MEMLOCK -e '^[[:space:]~^]*$' "$TMP/obs.err" || true)
	{ grep -iE 'error|fail|unknown|unrecognized|invalid|not found|denied|usage' <<<"$l" || echo "$l"; } |
		head -1 | cut -c1-200 | sed 's/^$/no error printed/'
}

stats 0 # the throughput repetitions, and their trial runs below
# Which observers run: the wanted ones that are installed and attach here
# (one trial run each, of no workload, to time an observer's start, stop and
# readings; the bpf kinds only, trace-cmd and idlestat are required tools).
RUN_OBS=()
ovh_s=0
ovh_n=0
for o in "${OBSERVERS[@]}"; do
	IFS='|' read -r oname kind set ocmd <<<"$o"
	want "$oname" "${BENCH_OBSERVERS:-}" || continue
	[ "$set" != extra ] || [ -n "${BENCH_OBSERVERS:-}" ] || continue
	why=
	for c in $(needs "$oname"); do
		command -v "$c" >/dev/null || why="$c is not installed (make deps: Debian package $oname)"
	done
	if [ -z "$why" ] && [[ $kind == bpf* ]]; then
		if ROWS=/dev/null observe trial true "$o" 0; then
			ovh_s=$(awk -v a="$ovh_s" -v b="$OBS_RUN_S" 'BEGIN { print a + b }')
			ovh_n=$((ovh_n + 1))
		else
			why="did not attach: $(why_failed)"
		fi
	fi
	if [ -n "$why" ]; then
		printf '# skip\t%s: %s\n' "$oname" "$(tr '\t' ' ' <<<"$why")" >> "$RESULTS"
		echo "bench: skipping $oname: $why" >&2
		continue
	fi
	RUN_OBS+=("$o")
done
[ ${#RUN_OBS[@]} -gt 0 ] || { echo "bench: no observer to run" >&2; exit 1; }


workload_observers() { # workload -> WOBS: the observers that run on it
	local o set
	WOBS=()
	for o in "${RUN_OBS[@]}"; do
		IFS='|' read -r _ _ set _ <<<"$o"
		[ "$set" = all ] || want "$1" "$MARGINAL_WORKLOADS" || continue
		WOBS+=("$o")
	done
}

# The time a full run takes: one un-observed warm-up run per workload, times
# the runs to come, plus per observer run its start, stop and readings (the
# trial runs' mean) and idlestat's longer trace.
OBS_OVERHEAD_S=$(awk -v s="$ovh_s" -v n="$ovh_n" 'BEGIN { print n ? s / n : 1.7 }')
est_s=0
nruns=0
declare -A WARM_S
for w in "${WORKLOADS[@]}"; do
	wname=${w%%|*}
	want "$wname" "${BENCH_WORKLOADS:-}" || continue
	run_workload "${w#*|}"
	WARM_S[$wname]=$(awk -v n="$W_NS" 'BEGIN { print n / 1e9 }')
	workload_observers "$wname"
	n_obs=${#WOBS[@]}
	n_timed=0
	for o in "${WOBS[@]}"; do
		[[ $o != *"|timed|"* ]] || n_timed=$((n_timed + 1))
	done
	n_paired=0
	for o in "${WOBS[@]}"; do
		! is_paired "$o" || n_paired=$((n_paired + 1))
	done
	# a pair's un-observed run, or (no paired observer) one per NONE_EVERY
	n_none=$n_paired
	[ "$n_paired" -gt 0 ] || n_none=$(( (n_obs + NONE_EVERY - 1) / NONE_EVERY ))
	n_bpf=0
	for o in "${WOBS[@]}"; do
		[[ $o != *"|bpf"* ]] || n_bpf=$((n_bpf + 1))
	done
	nruns=$((nruns + REPS * (n_obs + n_none) + NS_REPS * n_bpf))
	est_s=$(awk -v e="$est_s" -v r="$REPS" -v w="${WARM_S[$wname]}" -v o="$n_obs" -v n="$n_none" \
		-v t="$n_timed" -v ov="$OBS_OVERHEAD_S" -v s="$NS_REPS" -v b="$n_bpf" \
		'BEGIN { print e + r * ((o + n) * w + o * ov + t * (w + 2)) + s * b * (w + ov) }')
done
# so far (calibration, trial starts, warm-ups), and replay_rate.sh's ~8 s a repetition
est_s=$(awk -v e="$est_s" -v r="$REPS" -v s="$(secs_since "$T_START")" 'BEGIN { print e + s + r * 8 }')
echo "bench: $nruns workload runs in $REPS repetitions, about $(awk -v e="$est_s" 'BEGIN { printf "%.1f", e / 60 }') min ($OBS_OVERHEAD_S s per observer run besides the workload)" >&2
[ -z "${BENCH_ESTIMATE_ONLY:-}" ] || exit 0

echo -e "workload\tobserver\trep\tvalue\trss_kb\tmap_bytes\tstartup_ms\tprog\tns_per_event\tbpf_share\tloader_cpu_s\ttrace_bytes_s\trss_anon_kb\tpss_kb\tprivate_kb\tpair\tnone_at" >> "$RESULTS"
run_none() { # workload name, command, rep -> an un-observed run's row
	run_workload "$2"
	LAST_NONE_NS=$W_NS
	row "$1" none "$3" "$VAL" 0 0 0 - - - - -
	echo "bench: rep $3 $1 under none: $VAL ($(awk -v n="$W_NS" 'BEGIN { printf "%.1f", n / 1e9 }') s)$([ "$PAIR" = - ] || echo ", pair $PAIR")" >&2
}
for rep in $(seq "$REPS"); do
	for w in "${WORKLOADS[@]}"; do
		wname=${w%%|*}
		wcmd=${w#*|}
		want "$wname" "${BENCH_WORKLOADS:-}" || continue
		workload_observers "$wname"
		n=${#WOBS[@]}
		[ "$n" -gt 0 ] || continue
		paired_here=0
		for o in "${WOBS[@]}"; do
			! is_paired "$o" || paired_here=1
		done
		# idlestat traces for twice the last un-observed run: at first the warm-up's
		LAST_NONE_NS=$(awk -v s="${WARM_S[$wname]}" 'BEGIN { printf "%d", s * 1e9 }')
		# rotated by one each repetition, so that no observer always runs
		# right after (or long after) an un-observed run
		for i in $(seq 0 $((n - 1))); do
			k=$(( (i + rep - 1) % n ))
			o=${WOBS[$k]}
			if is_paired "$o"; then
				# its own un-observed run, before it in odd repetitions and
				# after it in even ones, the same for every paired observer
				# of a repetition: an effect of running first or second
				# cancels over the pairs (report.py), and from a difference
				# of two observers of one repetition altogether
				PAIR="$rep.$k"
				if [ $((rep % 2)) = 1 ]; then
					NONE_AT=before
					run_none "$wname" "$wcmd" "$rep"
					observe "$wname" "$wcmd" "$o" "$rep" || true
				else
					NONE_AT=after
					observe "$wname" "$wcmd" "$o" "$rep" && run_none "$wname" "$wcmd" "$rep"
				fi
				PAIR=-
				NONE_AT=-
				continue
			fi
			if [ "$paired_here" = 0 ] && [ $((i % NONE_EVERY)) = 0 ]; then
				run_none "$wname" "$wcmd" "$rep"
			fi
			observe "$wname" "$wcmd" "$o" "$rep" || true
		done
	done
done

# The BPF observers again, with bpf_stats on: their programs' ns/event, BPF
# share and map memory (rep "sN": report.py leaves their values out of the
# ratios).
stats 1
for srep in $(seq "$NS_REPS"); do
	for w in "${WORKLOADS[@]}"; do
		wname=${w%%|*}
		want "$wname" "${BENCH_WORKLOADS:-}" || continue
		workload_observers "$wname"
		for o in "${WOBS[@]}"; do
			[[ $o == *"|bpf"* ]] || continue
			observe "$wname" "${w#*|}" "$o" "s$srep" || true
		done
	done
done

# Replay speed: a generated trace through `idlescope replay`, REPS times.
for rep in $(seq "$REPS"); do
	tests/bench/replay_rate.sh "$IS" 3000000 |
		sed -n 's/^replay: \([0-9]*\) events, \([0-9]*\) events\/s through the BPF handlers, \([0-9]*\) events\/s with.*/\1 \2 \3/p' |
		while read -r n handlers total; do
			row replay-handlers idlescope "$rep" "$handlers" 0 0 0 - - - - -
			row replay-end-to-end idlescope "$rep" "$total" 0 0 0 - - - - -
			echo "bench: rep $rep replay of $n events: $handlers events/s in the handlers, $total end to end" >&2
		done
done

# The exporter's size (tests/unit/test_prom.c's synthetic machines, no timing)
IDLESCOPE_PROM_SIZES=1 "$OUT/tests/test_prom" >"$TMP/prom-sizes.md"

cp "$RESULTS" "$OUT/bench-results.tsv" # raw rows, for re-reporting
python3 tests/bench/report.py "$RESULTS" "$TMP/prom-sizes.md" > "$TMP/report.md"
if [ -t 1 ]; then # missed targets in red on a terminal
	sed -e $'s/\*\*MISSED\*\*/\e[1;31mMISSED\e[0m/' "$TMP/report.md"
else
	cat "$TMP/report.md"
fi
# The "Many CPUs" section is measured in the many-CPU VM guests
# (tests/vm/README.md), and "Memory per command" by hand, not here: from
# "Many CPUs" on, the file stays.
sed -n '/^## Many CPUs$/,$p' docs/performance.md >"$TMP/many-cpus.md" 2>/dev/null || true
cp "$TMP/report.md" docs/performance.md
[ ! -s "$TMP/many-cpus.md" ] || { echo && cat "$TMP/many-cpus.md"; } >>docs/performance.md
echo "bench: wrote docs/performance.md and $OUT/bench-results.tsv; $nruns runs took $(awk -v s="$(secs_since "$T_START")" 'BEGIN { printf "%.1f", s / 60 }') min (estimated $(awk -v e="$est_s" 'BEGIN { printf "%.1f", e / 60 }'))" >&2
