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

for t in "$out"/tests/test_* "$out"/tests/replay_*; do
	[ -x "$t" ] || continue
	if ! "$t" >"$log" 2>&1; then
		grep -q '^\[  FAILED  \]' "$log" || fail=$((fail + 1)) # crashed
	fi
	cat "$log"
	count_cmocka "$log"
done

# the dynamic build (make dynamic) for the TLS tests of web_config.bats
IDLESCOPE=$(realpath "$out/idlescope") IDLESCOPE_DYNAMIC=$(realpath "$out/dynamic/idlescope") \
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

# Kernel test VMs (other kernels under QEMU TCG); IDLESCOPE_VMTEST=0 skips.
if [ "${IDLESCOPE_VMTEST:-1}" != 0 ]; then
	IDLESCOPE=$(realpath "$out/idlescope") ./tests/vm/run.sh 2>&1 | tee "$log" || true
	pass=$((pass + $(grep -cE '^PASS ' "$log")))
	vfail=$(grep -cE '^FAIL ' "$log")
	# no summary line at all (it could not run) counts as a failure too
	grep -q '^vmtest summary' "$log" || vfail=$((vfail + 1))
	fail=$((fail + vfail))

	# The oracle guests (tests/vm/oracle.sh): the BATS oracle tests in guests
	# with a cpuidle driver and with cpuidle.off=1; their logs feed the table.
	rm -f build/vmtest/*-oracle.log build/vmtest/*-haltpoll.log build/vmtest/*-nodriver.log
	IDLESCOPE=$(realpath "$out/idlescope") ./tests/vm/oracle.sh 2>&1 | tee "$log" || true
	pass=$((pass + $(grep -cE '^PASS ' "$log")))
	vfail=$(grep -cE '^FAIL ' "$log")
	# one summary per kind, as its first line names them
	read -ra kinds <<<"$(sed -n 's/^oracle.sh: kinds //p' "$log")"
	[ "${#kinds[@]}" -gt 0 ] && [ "$(grep -c '^vmtest summary' "$log")" -eq "${#kinds[@]}" ] || vfail=$((vfail + 1))
	fail=$((fail + vfail))
fi

# Oracle coverage: each check tagged "oracle", where it ran. Failures are
# counted above already; a check that ran nowhere is one more failure.
shopt -s nullglob
./tests/coverage.sh "$host_tap" build/vmtest/*-oracle.log build/vmtest/*-haltpoll.log build/vmtest/*-nodriver.log | tee "$log" || true
shopt -u nullglob
nowhere=$(sed -n 's/^coverage: .*, \([0-9]*\) ran nowhere,.*/\1/p' "$log")
fail=$((fail + ${nowhere:-1}))

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
