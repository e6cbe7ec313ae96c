#!/usr/bin/env bash
# An event storm under `record -i 1 --packing --format json`: stress-ng timers at
# 100 kHz and context switches on every CPU for SECONDS, then SIGINT.
# Samples the recorder's VmRSS and BPF map memory (memlock of the maps it
# holds, from fdinfo) every STEP seconds into CSV, and checks:
#   - the summary is complete and last, every interval line 1..n is there,
#     each ~1 s, and the storm reached the maps (idle entries, wakeups);
#   - drop counters are reported (dropped_events, per-CPU detail_drops, and a
#     warning for each CPU that dropped details);
#   - map memory is identical from the first sample to the last, and RSS
#     grows by at most RSS_SLACK_KB (default 256) after the first sample.
# Prints both figures at start and end; exits 1 on any failure.
#
# Usage: IDLESCOPE=build/idlescope tests/robust/load.sh SECONDS [CSV] [STEP]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../bats/helpers.bash
. "$here/../bats/helpers.bash"

secs=${1:-30}
csv=${2:-}
step=${3:-5}
slack=${RSS_SLACK_KB:-256}
tmp=$(mktemp -d)
pid= load=
cleanup() {
	[ -n "$load" ] && kill "$load" 2>/dev/null && wait "$load" 2>/dev/null
	[ -n "$pid" ] && kill -INT "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "load: FAIL: $*"; exit 1; }

command -v stress-ng >/dev/null || fail "stress-ng not installed"
# every feature on: idle, wakeup attribution, packing (scheduler handlers)
"$IDLESCOPE" record -i 1 --packing --format json >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_exec_idlescope "$pid" || fail "idlescope did not start"
# attached: it holds its links
for _ in $(seq 100); do
	grep -q '^link_id' <(bpf_ids_of_pid "$pid") && break
	sleep 0.05
done
sleep 1
n=$(nproc)
stress-ng --timer "$n" --timer-freq 100000 --switch "$n" -t "${secs}s" --quiet >/dev/null 2>&1 &
load=$!

[ -n "$csv" ] && echo "elapsed_s,rss_kb,map_memlock_bytes" >"$csv"
t0=$SECONDS
rss0= map0=
sample() {
	local rss map
	rss=$(rss_kb_of_pid "$pid") || fail "idlescope died"
	map=$(bpf_map_memlock_of_pid "$pid")
	[ -n "$rss" ] || fail "idlescope died"
	[ -z "$rss0" ] && { rss0=$rss; map0=$map; }
	rss1=$rss map1=$map
	[ -n "$csv" ] && echo "$((SECONDS - t0)),$rss,$map" >>"$csv"
}
sleep 2
sample
while kill -0 "$load" 2>/dev/null; do
	sleep "$step"
	kill -0 "$load" 2>/dev/null || break
	sample
done
wait "$load"
load=
sample
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
pid=
elapsed=$((SECONDS - t0))

echo "load: ${secs}s storm on $n CPUs; RSS ${rss0} kB -> ${rss1} kB; BPF map memory ${map0} -> ${map1} bytes"
[ "$rc" -eq 0 ] || fail "exit $rc: $(cat "$tmp/err")"
grep -v '^idlescope: not on this kernel' "$tmp/err" | grep -q . && fail "stderr: $(cat "$tmp/err")"
jq -s . "$tmp/out" >"$tmp/all.json" 2>/dev/null || fail "output is not JSON"
jq -e '.[-1].schema == "idlescope/1" and (.[-1].cpus | length) > 0 and .[-1].kernel_check != null' \
	"$tmp/all.json" >/dev/null || fail "no complete summary last"
lines=$(jq '.[:-1] | length' "$tmp/all.json")
jq -e '.[:-1] | [.[].interval] == [range(1; length + 1)]' "$tmp/all.json" >/dev/null ||
	fail "interval lines missing or out of order"
# one line per second of the run (the last partial second has none)
[ "$lines" -ge $((elapsed - 1)) ] || fail "$lines interval lines for ${elapsed}s"
# ticks stay on the 1 s grid: line k ends at or after k s (a late tick is
# made up by a shorter next interval), and the durations add up to the offsets
jq -e '.[:-1] | . as $l | all(range(length); $l[.].offset_ns >= (. + 1) * 1e9 and
	$l[.].duration_ns > 0 and $l[.].offset_ns == ([$l[0:. + 1][].duration_ns] | add))' \
	"$tmp/all.json" >/dev/null || fail "interval lines off the 1 s grid or not adding up"
late_ms=$(jq '[.[:-1] | to_entries[] | .value.offset_ns - (.key + 1) * 1e9] | max / 1e6 | floor' "$tmp/all.json")
# the storm reached the maps: the scheduler handlers charged the stressors
# at least half the machine's time (they keep the CPUs busy: few idle periods)
entries=$(jq '.[-1].totals.entries' "$tmp/all.json")
storm_s=$(jq '[.[-1].packing.top_tasks[] | select(.comm | startswith("stress-ng")) | .runtime_ns] | add / 1e9 | floor' "$tmp/all.json")
# (a quarter: other work may share the machine)
[ "$storm_s" -ge $((secs * n / 4)) ] || fail "stress-ng ran only ${storm_s}s of CPU time in the packing table"
jq -e '.[-1].packing | has("lost_updates")' "$tmp/all.json" >/dev/null || fail "no packing lost_updates counter"
jq -e '.[-1].dropped_events | has("cpu_out_of_range") and has("bad_state")' "$tmp/all.json" >/dev/null ||
	fail "no dropped_events counters"
drops=$(jq '[.[-1].cpus[].wakeups.detail_drops] | add' "$tmp/all.json")
[ "$drops" != null ] || fail "no detail_drops counters"
jq -e '.[-1] | [.cpus[] | select(.wakeups.detail_drops > 0) | .cpu] as $d |
	all($d[]; . as $c | any(.warnings[]; test("CPU \($c): [0-9]+ wakeup details dropped")))' \
	"$tmp/all.json" >/dev/null || fail "detail drops without a warning"
echo "load: $lines interval lines (latest tick ${late_ms} ms late), $entries idle entries, ${storm_s}s of stress-ng CPU time, $drops wakeup details dropped," \
	"dropped_events $(jq -c '.[-1].dropped_events' "$tmp/all.json")"
[ "$map1" -eq "$map0" ] || fail "BPF map memory grew: $map0 -> $map1 bytes"
[ $((rss1 - rss0)) -le "$slack" ] || fail "RSS grew: $rss0 -> $rss1 kB (slack $slack kB)"
echo "load: ok"
