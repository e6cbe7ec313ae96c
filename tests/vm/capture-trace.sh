#!/usr/bin/env bash
# Records a real trace for replay's fixtures in the arm64 guest (tests/vm/run.sh:
# 4 CPUs in 2 clusters, WFI and the two PSCI states of arm64-idle-states.dtsi):
# the guest's own ftrace text of cpu_idle and the wakeup events for
# CAPTURE_SECONDS (default 3) under a light load (guest-test.sh,
# vmtest_capture), and the replay profile from the guest's sysfs (its state
# table and clusters).
#
#   tests/vm/capture-trace.sh [OUT]    writes OUT.ftrace.gz and OUT.json
#                                      (default tests/fixtures/traces/arm64-guest)
#
# VMTEST_KERNELS picks the guest's kernel (default 6.12); needs the arm64
# build (make ARCH=arm64 OUT=build/arm64 deps all), as make vmtest does.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/tests/fixtures/traces/arm64-guest}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

VMTEST_ARCH=arm64 VMTEST_KERNELS=${VMTEST_KERNELS:-6.12} VMTEST_LOGDIR=$logs \
	VMTEST_APPEND="vmtest_capture=${CAPTURE_SECONDS:-3}" "$root/tests/vm/run.sh" >&2 || true
log=$(ls "$logs"/*.log | head -1)
grep -q CAPTURE-END "$log" || { echo "capture-trace: no trace in $log" >&2; exit 1; }
tr -d '\r' <"$log" | sed -n '/^CAPTURE-BEGIN$/,/^CAPTURE-END$/p' | sed '1d;$d' |
	base64 -d >"$out.ftrace.gz"
# the profile: CPU 0's states (sysfs latency and residency, us) and the
# clusters of 2+ CPUs
tr -d '\r' <"$log" | awk '
	/^CAPTURE-CPUIDLE: / { drv = $2; gov = $3 }
	/^CAPTURE-STATE: / { s[ns++] = sprintf("    { \"name\": \"%s\", \"exit_latency_us\": %d, \"target_residency_us\": %d }", $2, $3, $4) }
	/^CAPTURE-CLUSTER: / { n++; if (!($3 in seen) && $3 ~ /[-,]/) { seen[$3] = 1; g[ng++] = "\"" $3 "\"" } }
	END {
		print "{"
		print "  \"schema\": \"idlescope-profile/1\","
		printf "  \"cpus\": %d,\n  \"driver\": \"%s\",\n  \"governor\": \"%s\",\n", n, drv, gov
		print "  \"states\": ["
		for (i = 0; i < ns; i++) print s[i] (i < ns - 1 ? "," : "")
		print "  ],"
		printf "  \"groups\": [ "
		for (i = 0; i < ng; i++) printf "%s%s", g[i], (i < ng - 1 ? ", " : "")
		print " ]"
		print "}"
	}' >"$out.json"
echo "capture-trace: $(zcat "$out.ftrace.gz" | grep -c 'cpu_idle:') cpu_idle events in $out.ftrace.gz, profile $out.json" >&2
