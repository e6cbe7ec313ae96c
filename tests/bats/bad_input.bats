#!/usr/bin/env bats
# Bad input quoted back in an error stays on one line: a control character
# from a file or an argument cannot forge extra lines on stderr.

bats_require_minimum_version 1.5.0
load helpers

@test "control characters in quoted input: one error line" {
	local f="$BATS_TEST_TMPDIR/evil.json"
	printf '{"schema":"evil\\nidlescope: forged","cpus":[],"totals":{}}' >"$f"
	run --separate-stderr "$IDLESCOPE" compare "$f" "$f"
	[ "$status" -eq 1 ]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
	[[ "$stderr" == "idlescope: $f: schema 'evil?idlescope: forged' is not idlescope/1"* ]]
	run --separate-stderr "$IDLESCOPE" record -d 1 -C $'0\n1' --format json
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
	[[ "$stderr" == "idlescope: bad CPU list '0?1': "* ]]
	run --separate-stderr "$IDLESCOPE" record -d 1 --topology $'custom:0\r,1\x1b[2J' --format json
	[ "$status" -eq 2 ]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
	[[ "$stderr" != *$'\r'* && "$stderr" != *$'\x1b'* ]]
}
