#!/usr/bin/env bash
# make soak: SOAK_SECONDS (600) of record -i 1 --packing under the stress-ng
# storm, RSS and BPF map memory sampled every 10 s into $OUT/soak.csv (fails
# if either grows: RSS_SLACK_KB=0 by default), then SOAK_SIGNAL_RUNS (200)
# random-moment signal runs. Prints both memory figures.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-build}
csv=$out/soak.csv
rc=0
RSS_SLACK_KB=${RSS_SLACK_KB:-0} "$here/load.sh" "${SOAK_SECONDS:-600}" "$csv" 10 || rc=1
echo "soak: samples in $csv"
column -s, -t "$csv" 2>/dev/null | sed -n '1,3p;$p'
"$here/signals.sh" "${SOAK_SIGNAL_RUNS:-200}" || rc=1
[ "$rc" -eq 0 ] && echo "soak: ok" || echo "soak: FAILED"
exit "$rc"
