#!/usr/bin/env bash
# `make bench`: what observing costs, measured side by side in one run.
# Workloads run interleaved under each observer (none, X, none, Y, ...),
# BENCH_REPS times; the table reports the median ratio to "none" and its
# spread, BPF ns per event (kernel.bpf_stats_enabled, restored afterwards),
# RSS, BPF map memory and start-up time. Writes docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build}
IS=$OUT/idlescope
FLOOR=$OUT/tests/floor
REPS=${BENCH_REPS:-3}
TMP=$(mktemp -d)
RESULTS=$TMP/results.tsv
STATS_OLD=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -qw kernel.bpf_stats_enabled="$STATS_OLD"; pkill -INT -f "$TMP/marker" 2>/dev/null || true; rm -rf "$TMP"' EXIT

[ "$(id -u)" = 0 ] || { echo "bench: run as root" >&2; exit 1; }
for t in perf cyclictest bpftool jq python3; do
	command -v "$t" >/dev/null || { echo "bench: needs $t (make deps)" >&2; exit 1; }
done
sysctl -qw kernel.bpf_stats_enabled=1

# name|command printing one number on stdout (higher is better unless noted)
WORKLOADS=(
	"pipe-pinned|taskset -c 1 perf bench sched pipe -l 60000 | sed -n 's/^ *\([0-9]*\) ops\/sec.*/\1/p'"
	"pipe-free|perf bench sched pipe -l 20000 | sed -n 's/^ *\([0-9]*\) ops\/sec.*/\1/p'"
	"timer-latency-us|cyclictest --laptop -q -t 2 -a -i 500 -l 3000 | sed -n 's/.*Avg: *\([0-9]*\).*/\1/p' | awk '{s+=\$1} END {print s/NR}'"
)
# name|command that runs until SIGINT
OBSERVERS=(
	"none|"
	"floor|$FLOOR"
	"idlescope-idle|$IS record --no-wakeups --topology none -o /dev/null"
	"idlescope-default|$IS record -o /dev/null"
	"idlescope-packing|$IS record --packing -o /dev/null"
)

# One observer runs at a time: its programs are the tracing programs with
# its names (bpftool cannot always tell the owning pid here).
PROG_RE='^(floor_|tp_btf_|raw_tp_)'

prog_stats() { # -> "name run_cnt run_time_ns" of the observer's programs
	bpftool -j prog show 2>/dev/null |
		jq -r --arg re "$PROG_RE" '.[] | select(.name // "" | test($re)) |
			"\(.name) \(.run_cnt // 0) \(.run_time_ns // 0)"'
}

map_bytes() { # -> bytes_memlock of the maps those programs use
	local ids
	ids=$(bpftool -j prog show 2>/dev/null |
		jq -c --arg re "$PROG_RE" '[.[] | select(.name // "" | test($re)) | .map_ids[]?] | unique')
	bpftool -j map show 2>/dev/null |
		jq --argjson ids "$ids" '[.[] | select(.id as $i | $ids | index($i)) | .bytes_memlock] | add // 0'
}

start_observer() { # command -> pid (waits until its programs are attached)
	local cmd=$1 t0 t1
	t0=$(date +%s%N)
	# shellcheck disable=SC2086
	bash -c "exec -a $TMP/marker $cmd" 2>"$TMP/obs.err" &
	OBS_PID=$!
	for _ in $(seq 500); do
		[ -n "$(prog_stats)" ] && break
		sleep 0.005
	done
	t1=$(date +%s%N)
	STARTUP_MS=$(( (t1 - t0) / 1000000 ))
	sleep 0.2
}

stop_observer() {
	kill -INT "$OBS_PID" 2>/dev/null || true
	wait "$OBS_PID" 2>/dev/null || true
}

echo -e "workload\tobserver\trep\tvalue\trss_kb\tmap_bytes\tstartup_ms\tprog\tns_per_event" > "$RESULTS"
for rep in $(seq "$REPS"); do
	for w in "${WORKLOADS[@]}"; do
		wname=${w%%|*}
		wcmd=${w#*|}
		for o in "${OBSERVERS[@]}"; do
			oname=${o%%|*}
			ocmd=${o#*|}
			[ "$oname" = none ] && continue
			for which in none "$oname"; do
				rss=0 mem=0 st=0
				if [ "$which" != none ]; then
					start_observer "$ocmd"
					st=$STARTUP_MS
					prog_stats > "$TMP/before"
				fi
				val=$(bash -c "$wcmd" 2>/dev/null | tail -1)
				if [ "$which" != none ]; then
					rss=$(awk '/VmRSS/ {print $2}' "/proc/$OBS_PID/status" 2>/dev/null || echo 0)
					mem=$(map_bytes)
					prog_stats > "$TMP/after"
					stop_observer
					join <(sort "$TMP/before") <(sort "$TMP/after") |
						awk -v w="$wname" -v o="$which" -v r="$rep" -v v="$val" -v rs="$rss" -v m="$mem" -v s="$st" \
						'{ c = $4 - $2; t = $5 - $3; if (c > 0) printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f\n", w, o, r, v, rs, m, s, $1, t / c }' >> "$RESULTS"
					echo -e "$wname\t$which\t$rep\t$val\t$rss\t$mem\t$st\t-\t-" >> "$RESULTS"
				else
					echo -e "$wname\tnone\t$rep\t$val\t0\t0\t0\t-\t-" >> "$RESULTS"
				fi
				echo "bench: rep $rep $wname under $which: $val" >&2
			done
		done
	done
done

python3 tests/bench/report.py "$RESULTS" "$REPS" | tee "$TMP/report.md"
cp "$TMP/report.md" docs/performance.md
cp "$RESULTS" "$OUT/bench-results.tsv" # raw rows, for re-reporting
echo "bench: wrote docs/performance.md" >&2
