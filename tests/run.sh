#!/usr/bin/env bash
# Runs every test layer (unit, replay, live BATS, kernel VMs), keeps going after a
# failure, and ends with one "N passed, N failed" line; exits non-zero when
# anything failed. `make test` calls it with the built binaries' paths.
set -uo pipefail
out=${OUT:-build}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
pass=0
fail=0
# Only what this run writes counts in the coverage table (tests/lib/coverage.sh
# --since): guest logs of an earlier run, kept in build/vmtest, never do.
stamp=$out/coverage-stamp
units=$out/coverage-units.log # the cmocka outputs, for the cpufreq row
touch "$stamp"
: >"$units"

count_cmocka() { # output file
	local p f
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -1)
	pass=$((pass + ${p:-0}))
	fail=$((fail + ${f:-0}))
}

# The source layout: user/ includes only downward (tests/lib/layers.sh).
if ./tests/lib/layers.sh; then
	echo "PASS layers"
	pass=$((pass + 1))
else
	echo "FAIL layers"
	fail=$((fail + 1))
fi
# Every unit of user/ has a test, or a reason (tests/lib/test_map.sh).
if ./tests/lib/test_map.sh -q; then
	echo "PASS test-map"
	pass=$((pass + 1))
else
	echo "FAIL test-map"
	fail=$((fail + 1))
fi

for t in "$out"/tests/test_* "$out"/tests/replay_*; do
	[ -x "$t" ] || continue
	"$t" >"$log" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ]; then
		grep -q '^\[  FAILED  \]' "$log" || fail=$((fail + 1)) # crashed
	fi
	cat "$log"
	{ echo "== $(basename "$t") exit $rc"; cat "$log"; } >>"$units"
	count_cmocka "$log"
done

# the static build (make static) for the test VMs and web_config.bats's refusal
IDLESCOPE=$(realpath "$out/idlescope") IDLESCOPE_STATIC=$(realpath "$out/static/idlescope") \
	bats --tap tests/bats | tee "$log"
host_tap=$out/coverage-host.tap # for the oracle coverage table at the end
cp "$log" "$host_tap"
pass=$((pass + $(grep -c '^ok ' "$log")))
fail=$((fail + $(grep -c '^not ok ' "$log")))
total=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$log" | head -1)
ran=$(grep -cE '^(not )?ok ' "$log")
if [ -n "$total" ] && [ "$ran" -lt "$total" ]; then
	fail=$((fail + total - ran)) # bats stopped early
fi

# Fuzz targets: checked-in inputs, then a few seconds each (tests/fuzz/run.sh).
if [ "${IDLESCOPE_FUZZ:-1}" != 0 ]; then
	OUT=$out ./tests/fuzz/run.sh short 2>&1 | tee "$log" || true
	pass=$((pass + $(grep -c '^PASS ' "$log")))
	fail=$((fail + $(grep -c '^FAIL ' "$log")))
fi

# Kernel test VMs (other kernels under QEMU TCG) and the oracle guests
# (tests/vm/oracle.sh: the BATS oracle tests in guests with a cpuidle driver
# and with cpuidle.off=1), side by side in one set of lanes
# (tests/vm/all.sh); IDLESCOPE_VMTEST=0 skips. Their serial logs (this
# run's: an earlier run's are deleted first) feed the coverage table: the
# kernel VMs' for psci and many CPUs, the oracle guests' (tagged -oracle,
# -haltpoll, -nodriver) for the checks and the other conditions.
vmlogs=${VMTEST_LOGDIR:-build/vmtest}
vm_logs=() guest_logs=()
shopt -s nullglob
if [ "${IDLESCOPE_VMTEST:-1}" != 0 ]; then
	rm -f "$vmlogs"/*.log
	IDLESCOPE=$(realpath "$out/static/idlescope") ./tests/vm/all.sh 2>&1 | tee "$log" || true
	pass=$((pass + $(grep -cE '^PASS ' "$log")))
	vfail=$(grep -cE '^FAIL ' "$log")
	# one summary per run, as its first line counts them; none at all (it
	# could not run) counts as a failure too
	runs=$(sed -n 's/^all.sh: runs //p' "$log")
	[ "${runs:-0}" -gt 0 ] && [ "$(grep -c '^vmtest summary' "$log")" -eq "$runs" ] || vfail=$((vfail + 1))
	fail=$((fail + vfail))
	for l in "$vmlogs"/*.log; do
		case $l in
		*-oracle.log | *-haltpoll.log | *-nodriver.log) guest_logs+=("$l") ;;
		*) vm_logs+=("$l") ;;
		esac
	done
fi
shopt -u nullglob

# Oracle coverage: each check tagged "oracle" and each host condition, where
# it ran. "coverage total: N" is what no step above counted: checks and
# conditions that ran nowhere, untagged checks, and FAIL rows that neither
# the host TAP nor a failed guest's FAIL line counted (tests/lib/coverage.sh).
cov=(--since "$stamp" --units "$units")
for l in ${vm_logs[@]+"${vm_logs[@]}"}; do cov+=(--vm "$l"); done
./tests/lib/coverage.sh "${cov[@]}" "$host_tap" ${guest_logs[@]+"${guest_logs[@]}"} | tee "$log" || true
more=$(sed -n 's/^coverage total: \([0-9]*\) to count.*/\1/p' "$log")
fail=$((fail + ${more:-1})) # no total line: coverage.sh itself failed

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
