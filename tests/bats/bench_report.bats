#!/usr/bin/env bats
# make bench's estimators and targets (tests/bench/estimate.py, report.py) on
# synthetic rows with a known answer (tests/bench/test_report.py): pairs
# cancel a drift that the unpaired ratio carries, alternating sides cancel an
# order effect, one hit run moves the median little, the verdicts and the
# width a verdict would need, and report.py's targets from a paired and from
# an unpaired (older) TSV. No machine, no root; a few seconds.

bats_require_minimum_version 1.5.0

TESTS=$BATS_TEST_DIRNAME/../bench/test_report.py

@test "bench estimators: pairs cancel drift and order, known answers" {
	command -v python3 >/dev/null || skip "no python3"
	run python3 "$TESTS" Paired
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "bench estimators: verdicts and the width a verdict would need" {
	command -v python3 >/dev/null || skip "no python3"
	run python3 "$TESTS" Verdicts
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "bench report: targets from paired and from unpaired rows" {
	command -v python3 >/dev/null || skip "no python3"
	run python3 "$TESTS" Report
	echo "$output"
	[ "$status" -eq 0 ]
}
