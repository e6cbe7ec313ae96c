#!/usr/bin/env bats
# examples/prometheus/rules.yml, proven: promtool checks the rules and runs
# their unit tests (and fails them when a rule is broken).

bats_require_minimum_version 1.5.0
load helpers

EXAMPLES=$BATS_TEST_DIRNAME/../../examples
RULES=$EXAMPLES/prometheus/rules.yml
RULES_TEST=$EXAMPLES/prometheus/rules_test.yml

@test "promtool: the rules are valid; their unit tests give the hand-worked values and fire each alert where it should, and only there" {
	local n
	n=$(yq '[.groups[].rules[]] | length' "$RULES")
	[ "$n" -ge 15 ]
	run promtool check rules "$RULES"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"SUCCESS: $n rules found"* ]]
	# examples/prometheus.yml loads them
	run promtool check config "$EXAMPLES/prometheus.yml"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"SUCCESS: 1 rule files found"* ]]
	run promtool test rules "$RULES_TEST"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *SUCCESS* ]]
	# every alert is tested firing and not firing
	local a
	for a in $(yq -r '.groups[].rules[] | .alert // empty' "$RULES"); do
		yq -e --arg a "$a" '[.tests[].alert_rule_test[]? | select(.alertname == $a and (.exp_alerts // [] | length > 0))] | length > 0' "$RULES_TEST" >/dev/null
		yq -e --arg a "$a" '[.tests[].alert_rule_test[]? | select(.alertname == $a and (.exp_alerts // [] | length == 0))] | length > 0' "$RULES_TEST" >/dev/null
	done
}

@test "promtool test rules fails when a rule is broken: threshold moved, NaN guards dropped, drops window or filter changed" {
	local d=$BATS_TEST_TMPDIR pattern replacement
	cp "$RULES_TEST" "$d/rules_test.yml"
	while IFS='|' read -r pattern replacement; do
		sed "s/$pattern/$replacement/" "$RULES" >"$d/rules.yml"
		# the mutation took
		! cmp -s "$RULES" "$d/rules.yml"
		promtool check rules "$d/rules.yml" >/dev/null
		run promtool test rules "$d/rules_test.yml"
		echo "$pattern -> $replacement: $output"
		[ "$status" -ne 0 ]
		[[ "$output" == *FAILED* ]]
	done <<-'EOF'
		ratio_rate5m > 0\.2$|ratio_rate5m > 0.35
		(cpu_state:idlescope_idle_state_entries:rate5m > 0)|cpu_state:idlescope_idle_state_entries:rate5m
		))) >= 0$|)))
		up{job="idlescope"} == 0|up{job="idlescope"} == 2
		idlescope_dropped_total{reason!="detail_table_full"}\[10m\]|idlescope_dropped_total[10m]
		idlescope_dropped_total{reason!="detail_table_full"}\[10m\]|idlescope_dropped_total{reason!="detail_table_full"}[1m]
	EOF
}
