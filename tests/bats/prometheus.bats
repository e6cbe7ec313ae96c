#!/usr/bin/env bats
# examples/prometheus/rules.yml and examples/grafana/idlescope.json, proven:
# promtool checks the rules and runs their unit tests (and fails them when a
# rule is broken); the dashboard is well-formed; no panel or rule names a
# metric serve does not export; and a real Prometheus scraping two real
# serves (default series, and per-CPU ones), with the rules loaded, answers
# every panel's query and every recording rule for each with a non-empty,
# finite result.

bats_require_minimum_version 1.5.0
load helpers
load serve_helpers

EXAMPLES=$BATS_TEST_DIRNAME/../../examples
RULES=$EXAMPLES/prometheus/rules.yml
RULES_TEST=$EXAMPLES/prometheus/rules_test.yml
DASHBOARD=$EXAMPLES/grafana/idlescope.json
JQ_LIB=$BATS_TEST_DIRNAME/../lib

# "title|refId|expr" of every panel target, with Grafana's interval
# variables replaced by concrete values (10 scrapes for $__rate_interval) and
# the dashboard's template variables, all in regex matchers, by $1 (.+).
panel_queries() { # [value]
	jq -r --arg val "${1:-.+}" '([.templating.list[] | select(.type != "datasource") | .name]) as $vars |
		.panels[] | .title as $t | .targets[] |
		"\($t)|\(.refId)|\(.expr |
			gsub("\\$__rate_interval"; "10s") | gsub("\\$__range"; "30s") | gsub("\\$__interval"; "1s") |
			reduce $vars[] as $v (.; gsub("\\$(\($v)\\b|\\{\($v)\\})"; $val)))"' "$DASHBOARD"
}

# "name|expr" of every rule, the expression on one line.
rule_exprs() {
	yq -r '.groups[].rules[] | "\(.record // .alert)|\(.expr | gsub("\\s+"; " "))"' "$RULES"
}

# The metric names PromQL read on stdin (one expression a line) uses.
names_in() {
	jq -R -r -L "$JQ_LIB" 'include "promql_names"; promql_names[]' | sort -u
}

# The family names of a scrape, with a histogram's _bucket, _sum and _count.
served_names() { # metrics file
	awk '$1 == "#" && $2 == "TYPE" { print $3
		if ($4 == "histogram") print $3 "_bucket\n" $3 "_sum\n" $3 "_count" }' "$1" | sort -u
}

# The query's answer ($1, JSON) is a success with at least one sample, every
# one finite.
nonempty_finite() {
	jq -e '.status == "success" and (.data.result | length > 0) and
		all(.data.result[]; .value[1] | test("^[-+]?(Inf|NaN)$") | not)' <<<"$1" >/dev/null
}

@test "promtool: the rules are valid; their unit tests give the hand-worked values and fire each alert where it should, and only there" {
	command -v yq >/dev/null || skip "yq not installed (make deps)"
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
		run ! cmp -s "$RULES" "$d/rules.yml"
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

@test "the dashboard is Grafana JSON: unique ids, a 24-column grid, every target a query of the Prometheus datasource variable" {
	jq -e '.schemaVersion >= 36 and .uid == "idlescope" and (.title | length > 0)' "$DASHBOARD"
	# the datasource is a variable of type prometheus, and every panel and target uses it
	jq -e '[.templating.list[] | select(.type == "datasource" and .query == "prometheus" and .name == "datasource")] | length == 1' "$DASHBOARD"
	jq -e '[.panels[] | ., .targets[] | .datasource | select(.type != "prometheus" or .uid != "${datasource}")] | length == 0' "$DASHBOARD"
	jq -e '(.panels | length >= 10) and ([.panels[].id] | unique | length) == (.panels | length)' "$DASHBOARD"
	jq -e 'all(.panels[]; .gridPos.x >= 0 and .gridPos.w > 0 and .gridPos.x + .gridPos.w <= 24 and .gridPos.h > 0)' "$DASHBOARD"
	# no two panels overlap
	jq -e '[.panels[].gridPos] as $g | [range($g | length) as $i | range($i + 1; $g | length) as $j |
		select($g[$i].x < $g[$j].x + $g[$j].w and $g[$j].x < $g[$i].x + $g[$i].w and
		       $g[$i].y < $g[$j].y + $g[$j].h and $g[$j].y < $g[$i].y + $g[$i].h)] | length == 0' "$DASHBOARD"
	jq -e 'all(.panels[]; (.type | IN("timeseries", "heatmap", "stat", "table")) and (.targets | length > 0) and
		([.targets[].refId] | unique | length) == (.targets | length) and
		all(.targets[]; .expr | length > 0))' "$DASHBOARD"
	# heatmaps read Prometheus buckets as they are
	jq -e 'all(.panels[] | select(.type == "heatmap"); .options.calculate == false and
		all(.targets[]; .format == "heatmap" and (.expr | test("_bucket\\{"))))' "$DASHBOARD"
	# what the issue asks for
	local t
	for t in "Idle state share per CPU" "Misses: too deep and too shallow per idle period" \
		"Wakeups by cause" "Timer lateness" "Group all-idle share"; do
		jq -e --arg t "$t" '[.panels[] | select(.title == $t)] | length == 1' "$DASHBOARD"
	done
}

@test "the PromQL name reader finds the metric names and nothing else" {
	run names_in <<-'EOF'
		sum by (instance, cpu) (rate(a_total{job="x",l=~"b(c)"}[5m] offset 1h30m)) / on (instance) group_left (cpu) r:b:rate5m > 0.2
		histogram_quantile(0.9, sum(rate(h_bucket[$__rate_interval])) by (le)) * 1e-9 + up and bool absent(z)
	EOF
	[ "$output" = "$(printf '%s\n' a_total h_bucket r:b:rate5m up z)" ]
}

@test "every metric a panel or a rule names is one serve exports or a rule records" {
	command -v yq >/dev/null || skip "yq not installed (make deps)"
	local d=$BATS_TEST_TMPDIR
	start_serve --listen 127.0.0.1:0
	curl -sS -o "$d/m" "$URL"
	served_names "$d/m" >"$d/served"
	[ "$(wc -l <"$d/served")" -ge 20 ]
	yq -r '.groups[].rules[] | .record // empty' "$RULES" | sort -u >"$d/recorded"
	[ "$(wc -l <"$d/recorded")" -ge 10 ]
	panel_queries | cut -d'|' -f3- | names_in >"$d/panel_names"
	rule_exprs | cut -d'|' -f2- | names_in >"$d/rule_names"
	# plus the instance variable's query
	jq -r '.templating.list[] | select(.type == "query") | .query.query' "$DASHBOARD" |
		sed -n 's/^label_values(\([a-z_:]*\),.*/\1/p' >>"$d/panel_names"
	echo "panels: $(tr '\n' ' ' <"$d/panel_names")"
	echo "rules: $(tr '\n' ' ' <"$d/rule_names")"
	[ "$(wc -l <"$d/panel_names")" -ge 10 ]
	# panels: served or recorded; rules: also up, Prometheus' own
	run comm -23 <(sort -u "$d/panel_names") <(sort -u "$d/served" "$d/recorded")
	[ -z "$output" ]
	run comm -23 <(sort -u "$d/rule_names") <(echo up | sort -u - "$d/served" "$d/recorded")
	[ -z "$output" ]
	# the check bites: a name serve does not export is found
	run comm -23 <(echo 'rate(idlescope_idle_state_usage_total[1m])' | names_in) "$d/served"
	[ "$output" = idlescope_idle_state_usage_total ]
}

# The two serves of the live test see the same CPUs and events, so a query
# that sums over cpu or keeps it answers both with the same label sets;
# except where a "> 0" or ">= 0" filter drops a series: a state with a
# period in one instance's window and none in the other's may differ.
@test "a real Prometheus scraping two real serves (default, and per-CPU histograms and detail), rules loaded: every panel's query and every recording rule answer each, non-empty and finite, with the same label sets; no alert fires" {
	command -v prometheus >/dev/null || skip "prometheus not installed (make deps)"
	local d=$BATS_TEST_TMPDIR ok title ref q n try inst t1 t2 name
	start_serve --listen 127.0.0.1:0
	t1=$(serve_target "$URL")
	SERVE2_PID=$SERVE_PID
	start_serve --listen 127.0.0.1:0 --per-cpu-histograms --per-cpu-detail
	t2=$(serve_target "$URL")
	# timers and wakeups for the lateness and cause panels
	cyclictest --laptop -q -t "$(nproc)" -a -i 1000 -D 90 >/dev/null 2>&1 3>&- &
	LOAD_PID=$!
	PROM_TARGETS="$t1 $t2" start_prometheus "$(realpath "$RULES")"
	# 10 scrapes of each serve, and the rules evaluated on them
	for _ in $(seq 60); do
		n=$(prom_query 'min(count_over_time(up{job="idlescope"}[1m])) and count(up{job="idlescope"} == 1) == 2' |
			jq -r '.data.result[0].value[1] // 0')
		[ "$n" -ge 10 ] && break
		kill -0 "$PROM_PID"
		sleep 1
	done
	[ "$n" -ge 10 ]
	for inst in "$t1" "$t2"; do
		panel_queries "$inst"
		yq -r '.groups[].rules[] | .record // empty' "$RULES" | sort -u |
			sed "s/^\(.*\)$/recording rule|-|\1{instance=\"$inst\"}/"
	done >"$d/queries"
	echo "$(wc -l <"$d/queries") queries"
	[ "$(wc -l <"$d/queries")" -ge 60 ]
	# the recording rules with such a filter
	yq -r '.groups[].rules[] | select(.record and (.expr | test(">=? 0\\b"))) | .record' "$RULES" | sort -u >"$d/filtered"
	[ "$(wc -l <"$d/filtered")" -ge 3 ]
	# each query: retried for up to 10 s (a scrape can be late on a busy host);
	# the label sets without instance go to labels.t1 and labels.t2
	while IFS='|' read -r title ref q; do
		ok=0
		for try in $(seq 10); do
			run prom_query "$q"
			nonempty_finite "$output" && { ok=1; break; }
			sleep 1
		done
		echo "$title $ref: $(jq -c '.data.result | length' <<<"$output") series, try $try: $q"
		[ "$ok" -eq 1 ] || { echo "FAILED: $output" >&2; false; }
		[[ "$q" == *"$t1"* ]] && inst=t1 || inst=t2
		case $q in
		*'> 0'* | *'>= 0'*) continue ;;
		esac
		name=${q%%\{*}
		[ "$title" = "recording rule" ] && grep -qxF "$name" "$d/filtered" && continue
		echo "$title $ref ${name:0:40}: $(jq -c '[.data.result[].metric | del(.instance)] | sort' <<<"$output")" >>"$d/labels.$inst"
	done <"$d/queries"
	wc -l "$d/labels.t1" "$d/labels.t2"
	[ "$(wc -l <"$d/labels.t1")" -ge 20 ]
	diff "$d/labels.t1" "$d/labels.t2"
	# every rule evaluates without error
	run curl -sS "$PROM/api/v1/rules"
	[ "$(jq '[.data.groups[].rules[]] | length' <<<"$output")" -eq "$(yq '[.groups[].rules[]] | length' "$RULES")" ]
	jq -e 'all(.data.groups[].rules[]; .health == "ok" and (.lastError // "") == "")' <<<"$output"
	# nothing to alert on: exporters up, nothing dropped
	run prom_query 'ALERTS{alertstate="firing"}'
	echo "$output"
	[ "$(jq '.data.result | length' <<<"$output")" -eq 0 ]
}
