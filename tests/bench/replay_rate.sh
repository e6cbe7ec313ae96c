#!/usr/bin/env bash
# Replay speed: generates an ftrace text trace of N events (default 3
# million: cpu_idle enter/exit pairs and IRQs on 8 CPUs in 2 clusters) and
# prints idlescope replay's events/s, through the BPF handlers alone and
# with reading and parsing the file (the JSON's replay.events_per_s and
# replay.total_events_per_s). Usage: replay_rate.sh [IDLESCOPE] [N]
set -euo pipefail
bin=${1:-build/idlescope}
n=${2:-3000000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/profile.json" <<'JSON'
{ "schema": "idlescope-profile/1", "cpus": 8,
  "states": [ { "name": "WFI", "exit_latency_us": 1, "target_residency_us": 1 },
              { "name": "CPU_PD", "exit_latency_us": 100, "target_residency_us": 1000 },
              { "name": "CLS_PD", "exit_latency_us": 1000, "target_residency_us": 10000 } ],
  "groups": [ "0-3", "4-7" ] }
JSON
awk -v n="$n" 'BEGIN {
	t = 1000000
	for (i = 0; i * 3 < n; i++) {
		c = i % 8; s = i % 3; t += 37
		printf "          <idle>-0     [%03d] d..2. %d.%06d: cpu_idle: state=%d cpu_id=%d\n", c, t / 1000000, t % 1000000, s, c
		t += 211
		printf "          <idle>-0     [%03d] d.h2. %d.%06d: irq_handler_entry: irq=24 name=virtio0\n", c, t / 1000000, t % 1000000
		printf "          <idle>-0     [%03d] d..2. %d.%06d: cpu_idle: state=4294967295 cpu_id=%d\n", c, t / 1000000, t % 1000000, c
	}
}' > "$dir/trace.txt"
"$bin" replay --profile "$dir/profile.json" "$dir/trace.txt" --format json -o "$dir/out.json"
jq -r '.replay | "replay: \(.events) events, \(.events_per_s | floor) events/s through the BPF handlers, \(.total_events_per_s | floor) events/s with reading and parsing"' "$dir/out.json"
