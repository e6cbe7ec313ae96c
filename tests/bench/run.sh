#!/usr/bin/env bash
# `make bench`: what observing costs, measured side by side in one run.
# Workloads run interleaved under each observer (none, X, none, Y, ...),
# BENCH_REPS times; the table reports the median ratio to "none" and its
# spread, BPF ns per event (kernel.bpf_stats_enabled, restored afterwards),
# BPF CPU share, loader CPU time, RSS, BPF map memory, trace bytes per second
# of the file-based tools and start-up time, and the exporter's size per
# scrape. Writes docs/performance.md.
# BENCH_OBSERVERS / BENCH_WORKLOADS (space-separated names) pick a subset.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build}
IS=$OUT/idlescope
FLOOR=$OUT/tests/floor
SHIM=$(realpath "$OUT/tests/trace_cmd_shim.so")
REPS=${BENCH_REPS:-3}
TRACEFS=/sys/kernel/tracing
INSTANCE=idlescope-bench
TMP=$(mktemp -d)
RESULTS=$TMP/results.tsv
NCPU=$(nproc)

[ "$(id -u)" = 0 ] || { echo "bench: run as root" >&2; exit 1; }
for t in perf cyclictest rt-app trace-cmd idlestat bpftool jq python3; do
	command -v "$t" >/dev/null || { echo "bench: needs $t (make deps)" >&2; exit 1; }
done

# Everything the observers change is put back on exit: bpf_stats, and the
# top-level ftrace buffer that idlestat uses (it leaves its events on).
STATS_OLD=$(sysctl -n kernel.bpf_stats_enabled)
mounted_tracefs=
if [ ! -e $TRACEFS/tracing_on ]; then
	mount -t tracefs nodev $TRACEFS && mounted_tracefs=1
fi
TRACING_ON_OLD=$(cat $TRACEFS/tracing_on)
BUFFER_KB_OLD=$(cat $TRACEFS/buffer_size_kb)
EVENTS_ON_OLD=$(cd $TRACEFS/events && grep -l '^1' ./*/*/enable 2>/dev/null || true)
restore_ftrace() {
	local f
	for f in $TRACEFS/events/*/*/enable; do
		[ "$(cat "$f")" = 0 ] || echo 0 > "$f"
	done
	for f in $EVENTS_ON_OLD; do echo 1 > "$TRACEFS/events/$f"; done
	echo "$BUFFER_KB_OLD" > $TRACEFS/buffer_size_kb
	echo "$TRACING_ON_OLD" > $TRACEFS/tracing_on
	[ -d $TRACEFS/instances/$INSTANCE ] && rmdir $TRACEFS/instances/$INSTANCE 2>/dev/null
	return 0
}
cleanup() {
	sysctl -qw kernel.bpf_stats_enabled="$STATS_OLD"
	pkill -INT -f "$TMP/marker" 2>/dev/null || true
	pkill -f "trace-cmd record -B $INSTANCE" 2>/dev/null || true
	sleep 0.2
	restore_ftrace
	[ -n "$mounted_tracefs" ] && umount $TRACEFS
	rm -rf "$TMP"
}
trap cleanup EXIT
sysctl -qw kernel.bpf_stats_enabled=1

# rt-app's mp3 example (the EAS "mp3" case), 4 s, calibrated once here so
# every run does the same work.
PLOAD=$(cd "$TMP" && rt-app /usr/share/doc/rt-app/examples/mp3-short.json 2>&1 |
	sed -n 's/.*pLoad = \([0-9]*\)ns.*/\1/p' | head -1)
jq --argjson p "${PLOAD:-100}" --arg d "$TMP" \
	'.global.calibration = $p | .global.duration = 4 | .global.logdir = $d' \
	/usr/share/doc/rt-app/examples/mp3-short.json > "$TMP/mp3.json"
rm -f "$TMP"/mp3-*.log

# name|command printing one number on stdout (higher is better, except the
# *-latency-us rows)
WORKLOADS=(
	"pipe-pinned|taskset -c 1 perf bench sched pipe -l 60000 | sed -n 's/^ *\([0-9]*\) ops\/sec.*/\1/p'"
	"pipe-free|perf bench sched pipe -l 20000 | sed -n 's/^ *\([0-9]*\) ops\/sec.*/\1/p'"
	"timer-latency-us|cyclictest --laptop -q -t 2 -a -i 500 -l 3000 | sed -n 's/.*Avg: *\([0-9]*\).*/\1/p' | awk '{s+=\$1} END {print s/NR}'"
	"mp3-wakeup-latency-us|cd $TMP && rm -f mp3-*.log && rt-app mp3.json >/dev/null 2>&1 && awk '!/^#/ {s+=\$NF; n++} END {print s/n}' mp3-AudioTick-0.log"
)
# name|kind|command. kind: bpf (runs until SIGINT; its programs show in
# bpftool), instance (until SIGINT; its own tracefs instance), or timed
# (the top-level buffer, for {} seconds: idlestat ignores SIGINT until its
# -t ends, and with a workload command (`-- CMD`) it kept under a millisecond
# of trace here, so it traces for twice the un-observed run and the bench
# waits for it).
OBSERVERS=(
	"floor|bpf|$FLOOR"
	"idlescope-idle|bpf|$IS record --no-wakeups --topology none -o /dev/null"
	"idlescope-default|bpf|$IS record -o /dev/null"
	"idlescope-packing|bpf|$IS record --packing -o /dev/null"
	"trace-cmd|instance|env LD_PRELOAD=$SHIM trace-cmd record -B $INSTANCE -e power:cpu_idle -e power:cpu_idle_miss -e sched:sched_wakeup -e sched:sched_switch -e irq:irq_handler_entry -e timer:hrtimer_expire_entry -o $TMP/trace.dat"
	"idlestat|timed|idlestat --trace -f $TMP/idlestat.trace -t {} -c -w -o $TMP/idlestat.report"
)
want() { # name list -> is name in the space-separated list (or the list empty)
	[ -z "$2" ] || [[ " $2 " == *" $1 "* ]]
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

prog_stats() { # -> "name run_cnt run_time_ns" of the observer's programs
	bpftool -j prog show 2>/dev/null |
		jq -r --argjson ids "$(fd_ids "$OBS_PID" prog_id)" \
			'.[] | select(.id as $i | $ids | index($i)) |
			"\(.name) \(.run_cnt // 0) \(.run_time_ns // 0)"'
}

map_bytes() { # -> bytes_memlock of the observer's maps
	bpftool -j map show 2>/dev/null |
		jq --argjson ids "$(fd_ids "$OBS_PID" map_id)" \
			'[.[] | select(.id as $i | $ids | index($i)) | .bytes_memlock] | add // 0'
}

observer_ready() { # kind -> attached/recording yet?
	case $1 in
	bpf) [ "$(fd_ids "$OBS_PID" link_id)" != "[]" ] ;; # attached: holds a link
	instance) [ "$(cat $TRACEFS/instances/$INSTANCE/events/power/cpu_idle/enable 2>/dev/null)" = 1 ] &&
		[ "$(cat $TRACEFS/instances/$INSTANCE/tracing_on 2>/dev/null)" = 1 ] ;;
	timed) [ "$(cat $TRACEFS/events/power/cpu_idle/enable)" = 1 ] &&
		[ "$(cat $TRACEFS/tracing_on)" = 1 ] ;;
	esac
}

session_rss_kb() { # session id [field] -> summed VmRSS (or RssAnon) of its processes
	local p t=0 f=${2:-VmRSS}
	for p in $(pgrep -s "$1"); do
		t=$(( t + $(awk -v f="$f:" '$1 == f { print $2 }' "/proc/$p/status" 2>/dev/null || echo 0) ))
	done
	echo "$t"
}

cpu_ticks() { # session id -> utime + stime of its processes and their reaped children, in ticks
	local p t=0
	for p in $(pgrep -s "$1"); do
		t=$(( t + $(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$p/stat" 2>/dev/null || echo 0) ))
	done
	echo "$t"
}

start_observer() { # kind command -> OBS_PID, STARTUP_MS
	local kind=$1 cmd=$2 t0 t1
	rm -f "$TMP"/trace.dat* "$TMP"/idlestat.trace
	t0=$(date +%s%N)
	# own process group: trace-cmd forks one recorder per CPU
	setsid bash -c "exec -a $TMP/marker $cmd" >"$TMP/obs.out" 2>"$TMP/obs.err" &
	OBS_PID=$!
	for _ in $(seq 2000); do
		observer_ready "$kind" && break
		sleep 0.005
	done
	t1=$(date +%s%N)
	STARTUP_MS=$(( (t1 - t0) / 1000000 ))
	OBS_T0=$t1
	sleep 0.2
}

stop_observer() { # kind -> OBS_SECONDS, TRACE_BYTES
	local t1
	[ "$1" = timed ] || kill -INT "$OBS_PID" 2>/dev/null || true
	for _ in $(seq 1200); do kill -0 "$OBS_PID" 2>/dev/null || break; sleep 0.05; done
	t1=$(date +%s%N)
	OBS_SECONDS=$(awk -v a="$OBS_T0" -v b="$t1" 'BEGIN { print (b - a) / 1e9 }')
	[ "$1" = timed ] && OBS_SECONDS=$w_s # it traced that long, then post-processed
	kill -KILL -- "-$OBS_PID" 2>/dev/null || true # stragglers of the group
	wait "$OBS_PID" 2>/dev/null || true
	TRACE_BYTES=$( (cat "$TMP"/trace.dat* "$TMP"/idlestat.trace 2>/dev/null || true) | wc -c)
	restore_ftrace
}

echo -e "workload\tobserver\trep\tvalue\trss_kb\tmap_bytes\tstartup_ms\tprog\tns_per_event\tbpf_share\tloader_cpu_s\ttrace_bytes_s\trss_anon_kb" > "$RESULTS"
row() { echo -e "$1\t$2\t$3\t$4\t$5\t$6\t$7\t$8\t$9\t${10}\t${11}\t${12}\t${13:--}" >> "$RESULTS"; }
for rep in $(seq "$REPS"); do
	for w in "${WORKLOADS[@]}"; do
		wname=${w%%|*}
		wcmd=${w#*|}
		want "$wname" "${BENCH_WORKLOADS:-}" || continue
		for o in "${OBSERVERS[@]}"; do
			oname=${o%%|*}
			rest=${o#*|}
			kind=${rest%%|*}
			ocmd=${rest#*|}
			want "$oname" "${BENCH_OBSERVERS:-}" || continue
			w0=$(date +%s%N)
			val=$(bash -c "$wcmd" 2>/dev/null | tail -1)
			w1=$(date +%s%N)
			row "$wname" none "$rep" "$val" 0 0 0 - - - - -
			echo "bench: rep $rep $wname under none: $val" >&2

			if [ "$kind" = timed ]; then
				# twice the un-observed run, and 2 s for start-up
				w_s=$(awk -v a="$w0" -v z="$w1" 'BEGIN { printf "%d", 2 * (z - a) / 1e9 + 2 }')
				ocmd=${ocmd//\{\}/$w_s}
			fi
			start_observer "$kind" "$ocmd"
			prog_stats > "$TMP/before"
			w0=$(date +%s%N)
			val=$(bash -c "$wcmd" 2>/dev/null | tail -1)
			w1=$(date +%s%N)
			rss=$(session_rss_kb "$OBS_PID")
			anon=$(session_rss_kb "$OBS_PID" RssAnon)
			ticks=$(cpu_ticks "$OBS_PID")
			mem=0
			[ "$kind" = bpf ] && mem=$(map_bytes)
			prog_stats > "$TMP/after"
			stop_observer "$kind"
			loader_s=$(awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN { print t / hz }')
			bytes_s=-
			[ "$kind" != bpf ] && bytes_s=$(awk -v b="$TRACE_BYTES" -v s="$OBS_SECONDS" 'BEGIN { print b / s }')
			# BPF CPU share of the machine over the workload
			bpf_ns=$(join <(sort "$TMP/before") <(sort "$TMP/after") | awk '{ t += $5 - $3 } END { print t + 0 }')
			share=$(awk -v b="$bpf_ns" -v a="$w0" -v z="$w1" -v n="$NCPU" 'BEGIN { print b / ((z - a) * n) }')
			join <(sort "$TMP/before") <(sort "$TMP/after") |
				awk -v w="$wname" -v o="$oname" -v r="$rep" -v v="$val" \
				'{ c = $4 - $2; t = $5 - $3; if (c > 0) printf "%s\t%s\t%s\t%s\t0\t0\t0\t%s\t%.0f\t-\t-\t-\t-\n", w, o, r, v, $1, t / c }' >> "$RESULTS"
			row "$wname" "$oname" "$rep" "$val" "${rss:-0}" "$mem" "$STARTUP_MS" - - "$share" "$loader_s" "$bytes_s" "${anon:-0}"
			echo "bench: rep $rep $wname under $oname: $val" >&2
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

python3 tests/bench/report.py "$RESULTS" "$REPS" "$TMP/prom-sizes.md" > "$TMP/report.md"
if [ -t 1 ]; then # missed targets in red on a terminal
	sed -e $'s/\*\*MISSED\*\*/\e[1;31mMISSED\e[0m/' "$TMP/report.md"
else
	cat "$TMP/report.md"
fi
# The "Many CPUs" section is measured in the many-CPU VM guests
# (tests/vm/README.md), not here: it stays.
sed -n '/^## Many CPUs$/,$p' docs/performance.md >"$TMP/many-cpus.md" 2>/dev/null || true
cp "$TMP/report.md" docs/performance.md
[ ! -s "$TMP/many-cpus.md" ] || { echo && cat "$TMP/many-cpus.md"; } >>docs/performance.md
cp "$RESULTS" "$OUT/bench-results.tsv" # raw rows, for re-reporting
echo "bench: wrote docs/performance.md" >&2
