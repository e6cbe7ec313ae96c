#!/usr/bin/env bats
# --fail-if: exit 3 when an assertion holds (summary still printed), 2 for a
# malformed expression or an unknown metric, on record, hist and compare.

bats_require_minimum_version 1.5.0
load helpers

@test "record --fail-if: exit 3 with the summary, naming the assertion" {
	run "$IDLESCOPE" record -d 0.5 --fail-if 'total.idle_share >= 0%'
	[ "$status" -eq 3 ]
	[[ "$output" == *"Kernel cross-check"* ]]
	[[ "$output" == *"FAILED --fail-if 'total.idle_share >= 0%'"* ]]
	run "$IDLESCOPE" record -d 0.5 --fail-if 'total.idle_share > 101%' --fail-if 'duration_ns < 1ms'
	[ "$status" -eq 0 ]
}

@test "record --fail-if: the value it compares is the JSON's" {
	local out="$BATS_TEST_TMPDIR/r.json"
	run "$IDLESCOPE" record -d 0.5 --format json -o "$out" --fail-if 'total.entries > 0'
	if [ "$(jq .totals.entries "$out")" -gt 0 ]; then
		[ "$status" -eq 3 ]
		[[ "$output" == *"value $(jq .totals.entries "$out")"* ]]
	else
		[ "$status" -eq 0 ]
	fi
}

@test "--fail-if errors: malformed or unknown metric is a usage error" {
	run "$IDLESCOPE" record -d 0.5 --fail-if 'total.idle_share'
	[ "$status" -eq 2 ]
	run "$IDLESCOPE" record -d 0.5 --fail-if 'no.such.metric > 1'
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown metric 'no.such.metric'"* ]]
	run "$IDLESCOPE" record -d 0.5 --fail-if 'delta(total.below) > 1'
	[ "$status" -eq 2 ]
	[[ "$output" == *"delta() needs compare"* ]]
}

@test "command status passes through unless an assertion fails" {
	run "$IDLESCOPE" record --fail-if 'duration_ns < 1ns' -- sh -c 'exit 5'
	[ "$status" -eq 5 ]
	run "$IDLESCOPE" record --fail-if 'duration_ns > 1ns' -- sh -c 'exit 5'
	[ "$status" -eq 3 ]
}

@test "hist and compare --fail-if" {
	run "$IDLESCOPE" hist residency -d 0.5 --fail-if 'count >= 0'
	[ "$status" -eq 3 ]
	run "$IDLESCOPE" hist residency -d 0.5 --fail-if 'count < 0'
	[ "$status" -eq 0 ]
	local a="$BATS_TEST_TMPDIR/a.json" b="$BATS_TEST_TMPDIR/b.json"
	"$IDLESCOPE" record -d 0.3 --format json -o "$a"
	jq '.totals.states[0].below += 100 | .totals.states[0].entries += 1000' "$a" > "$b"
	run "$IDLESCOPE" compare "$a" "$b" --fail-if 'delta(total.below) > 50'
	[ "$status" -eq 3 ]
	[[ "$output" == *"FAILED --fail-if 'delta(total.below) > 50' for $b: value 100"* ]]
	run "$IDLESCOPE" compare "$a" "$a" --fail-if 'delta(total.below) != 0'
	[ "$status" -eq 0 ]
}
