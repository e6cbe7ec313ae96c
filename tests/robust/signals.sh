#!/usr/bin/env bash
# Signals at random moments: runs idlescope RUNS times, each sent SIGINT,
# SIGTERM or SIGHUP 1-1400 ms after it exec'd (start-up, BPF load and attach,
# mid-run, output), and checks every run ended one of the two documented ways
# (docs/idlescope.1, SIGNALS):
#   summary: complete output (JSON parses, interval lines numbered 1..n, the
#            summary last), exit 0 (or the command's status with -- COMMAND);
#   error:   nothing on stdout, exactly one line "idlescope: interrupted by
#            SIGx before the measurement started", exit 1;
# and that every BPF program, link and map it held is gone afterwards.
# Prints a table of outcomes per mode; exits 1 on any bad run.
#
# Usage: IDLESCOPE=build/idlescope tests/robust/signals.sh [RUNS] [SEED]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../bats/helpers.bash
. "$here/../bats/helpers.bash"

runs=${1:-40}
seed=${2:-$RANDOM}
RANDOM=$seed
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sigs=(INT TERM HUP)
# Under nohup (SIGHUP ignored, inherited) idlescope keeps running on a
# hangup by design (signals.bats tests that on its own): send only the others.
if (( 0x$(awk '/^SigIgn:/ { print $2 }' /proc/self/status) & 1 )); then
	sigs=(INT TERM)
fi
modes=(record_json record_interval hist_json record_command)
declare -A outcome
bad=0

run_mode() { # mode
	case $1 in
	record_json) exec "$IDLESCOPE" record -d 1 --format json ;;
	record_interval) exec "$IDLESCOPE" record -d 1 -i 0.1 --format json ;;
	hist_json) exec "$IDLESCOPE" hist residency -d 1 --format json ;;
	record_command) exec "$IDLESCOPE" record --format json -- sleep 5 ;;
	esac
}

# Checks one run; prints "summary", "error" or "BAD: why".
classify() { # mode sig rc out err
	local mode=$1 sig=$2 rc=$3 out=$4 err=$5 want_rc=0 n schema
	if [ ! -s "$out" ]; then
		if [ "$rc" -eq 1 ] && [ "$(wc -l <"$err")" -eq 1 ] &&
			grep -qx "idlescope: interrupted by SIG$sig before the measurement started" "$err"; then
			echo error
		else
			echo "BAD: no output, exit $rc, stderr: $(head -c 300 "$err" | tr '\n' '|')"
		fi
		return
	fi
	[ "$mode" = record_command ] && want_rc=$((128 + 15)) # sleep got SIGTERM
	if [ "$rc" -ne "$want_rc" ]; then
		echo "BAD: exit $rc (want $want_rc)"
		return
	fi
	if ! n=$(jq -s 'length' "$out" 2>/dev/null); then
		echo "BAD: output is not JSON"
		return
	fi
	schema=$(jq -rs '.[-1].schema // "none"' "$out")
	case $mode in
	hist_json) [ "$schema" = idlescope-hist/1 ] || { echo "BAD: last object is $schema"; return; } ;;
	*) [ "$schema" = idlescope/1 ] || { echo "BAD: last object is $schema"; return; }
	   jq -se '.[-1] | (.cpus | length) > 0 and .totals != null and .kernel_check != null' "$out" >/dev/null ||
		{ echo "BAD: summary incomplete"; return; } ;;
	esac
	# interval lines: 1..n-1 in order, nothing else before the summary
	if ! jq -se '.[:-1] | [.[].interval] == [range(1; length + 1)]' "$out" >/dev/null; then
		echo "BAD: interval lines out of sequence"
		return
	fi
	if grep -v '^idlescope: not on this kernel (skipped): ' "$err" | grep -q .; then
		echo "BAD: stderr: $(head -c 300 "$err" | tr '\n' '|')"
		return
	fi
	echo summary
}

for i in $(seq "$runs"); do
	mode=${modes[RANDOM % ${#modes[@]}]}
	sig=${sigs[RANDOM % ${#sigs[@]}]}
	# half in 1-400 ms (start-up, load, attach on an idle machine), half
	# in 400-1400 ms (mid-run and output even when start-up is slow)
	if ((RANDOM % 2)); then delay_ms=$((1 + RANDOM % 400)); else delay_ms=$((400 + RANDOM % 1000)); fi
	( run_mode "$mode" ) >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	wait_exec_idlescope "$pid"
	sleep "$(printf '0.%03d' "$delay_ms")"
	bpf_ids_of_pid "$pid" >"$tmp/ids"
	kill -s "$sig" "$pid" 2>/dev/null
	rc=0
	wait "$pid" || rc=$?
	res=$(classify "$mode" "$sig" "$rc" "$tmp/out" "$tmp/err")
	left=$(bpf_ids_still_loaded <"$tmp/ids")
	[ -n "$left" ] && res="BAD: still loaded after exit: $left"
	case $res in
	BAD*) bad=$((bad + 1))
	      echo "run $i (seed $seed): $mode SIG$sig at ${delay_ms} ms: $res" ;;
	esac
	key="$mode ${res%%:*}"
	outcome[$key]=$((${outcome[$key]:-0} + 1))
done

printf '%-18s %8s %8s %8s\n' mode summary error bad
for mode in "${modes[@]}"; do
	printf '%-18s %8d %8d %8d\n' "$mode" "${outcome[$mode summary]:-0}" \
		"${outcome[$mode error]:-0}" "${outcome[$mode BAD]:-0}"
done
echo "signals: $runs runs (seed $seed), $bad bad"
[ "$bad" -eq 0 ]
