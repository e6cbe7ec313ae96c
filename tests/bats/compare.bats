#!/usr/bin/env bats
# `idlescope compare`: deltas computed from the files' own numbers, matching
# by name, and bad inputs (truncated, other schema, mismatched topology).

bats_require_minimum_version 1.5.0
load helpers

setup() {
	A="$BATS_TEST_TMPDIR/a.json"
	B="$BATS_TEST_TMPDIR/b.json"
	"$IDLESCOPE" record -d 0.5 --format json -o "$A"
	"$IDLESCOPE" record -d 0.5 --format json -o "$B"
}

@test "compare: deltas are OTHER - BASE of the files' values, in every format" {
	run "$IDLESCOPE" compare "$A" "$B" --format json
	[ "$status" -eq 0 ]
	local a b
	a=$(jq .totals.entries "$A")
	b=$(jq .totals.entries "$B")
	echo "$output" | jq -e --argjson a "$a" --argjson b "$b" '
		.rows[] | select(.metric == "total.entries") |
		.values == [$a, $b] and .delta[1] == ($b - $a) and .delta[0] == 0'
	run "$IDLESCOPE" compare "$A" "$B" --format csv
	[ "$status" -eq 0 ]
	echo "$output" | grep -q "^total.entries,$a,$b,$((b - a)),"
	run "$IDLESCOPE" compare "$A" "$B"
	[ "$status" -eq 0 ]
	[[ "$output" == *"total.idle_share"* ]]
	# each of this machine's states has its row, with the base file's value:
	# the names from sysfs (without a driver, the one state record reports);
	# a row's name may hold spaces (haltpoll idle), so it is matched whole
	local names name want got
	if [ -d /sys/devices/system/cpu/cpu0/cpuidle ]; then
		names=$(cat /sys/devices/system/cpu/cpu0/cpuidle/state[0-9]*/name)
	else
		names=$(jq -r '.totals.states[].name' "$A")
	fi
	[ -n "$names" ]
	while IFS= read -r name; do
		want=$(jq --arg n "$name" '.totals.states[] | select(.name == $n) | .p99_ns' "$A")
		got=$(awk -v m="total.state[$name].p99_ns" 'substr($0, 1, length(m) + 1) == m " " {
			$0 = substr($0, length(m) + 1); print $1 }' <<<"$output")
		echo "$name: p99 $got, file $want"
		[ -n "$want" ]
		[ "$got" = "$want" ]
	done <<<"$names"
}

@test "compare: three files, base first" {
	run "$IDLESCOPE" compare "$A" "$B" "$A" --format json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.files | length == 3'
	echo "$output" | jq -e '[.rows[] | .delta[2]] | all(. == 0)'
}

@test "compare: mismatched topology lists what could not be matched" {
	local c="$BATS_TEST_TMPDIR/c.json"
	"$IDLESCOPE" record -d 0.5 --topology custom:0-1 --format json -o "$c"
	run "$IDLESCOPE" compare "$A" "$c"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Unmatched: only in $c"*"group[custom0]"* ]]
	# fewer CPUs in one file: its missing CPUs are unmatched, not a crash
	jq '.cpus |= .[:1]' "$A" > "$BATS_TEST_TMPDIR/one.json"
	run "$IDLESCOPE" compare "$A" "$BATS_TEST_TMPDIR/one.json" --format json
	[ "$status" -eq 0 ]
	if [ "$(nproc --all)" -ge 2 ]; then
		echo "$output" | jq -e '[.unmatched[] | .entities[]] | index("cpu[1]") != null'
	fi
}

@test "compare: truncated JSON, other schema, missing file: one-line error, exit 1" {
	head -c 300 "$A" > "$BATS_TEST_TMPDIR/trunc.json"
	run "$IDLESCOPE" compare "$A" "$BATS_TEST_TMPDIR/trunc.json"
	[ "$status" -eq 1 ]
	[[ "$output" == "idlescope: $BATS_TEST_TMPDIR/trunc.json: invalid JSON"* ]]
	jq '.schema = "idlescope/2"' "$A" > "$BATS_TEST_TMPDIR/v2.json"
	run "$IDLESCOPE" compare "$A" "$BATS_TEST_TMPDIR/v2.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *"schema 'idlescope/2' is not idlescope/1"* ]]
	run "$IDLESCOPE" compare "$A" /nonexistent.json
	[ "$status" -eq 1 ]
	run "$IDLESCOPE" compare "$A"
	[ "$status" -eq 2 ]
}

@test "compare: reads the summary line of record -i JSON Lines" {
	local l="$BATS_TEST_TMPDIR/lines.json"
	"$IDLESCOPE" record -d 0.6 -i 0.2 --format json -o "$l"
	run "$IDLESCOPE" compare "$A" "$l" --format json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e --argjson d "$(tail -1 "$l" | jq .duration_ns)" \
		'.rows[] | select(.metric == "duration_ns") | .values[1] == $d'
}
