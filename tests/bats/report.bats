#!/usr/bin/env bats
# `idlescope report`: the page rendered by headless Chromium without console
# messages, its charts holding as many series and marks as the JSON has
# states, causes and buckets, every number shown looked up in the JSON with
# jq, nothing external referenced, a screenshot, and the usage errors.
# Needs no root: the inputs are checked-in JSON (examples/, tests/fixtures/report/).

bats_require_minimum_version 1.5.0
load helpers

FIX=$BATS_TEST_DIRNAME/../fixtures/report
EX=$BATS_TEST_DIRNAME/../../examples
ART=${IDLESCOPE_ARTIFACTS:-$BATS_TEST_DIRNAME/../../build/test-artifacts}

# The page's inputs, in order: data-f="N" and the ids f<N>-... follow it.
inputs() {
	echo "$EX/pack-2cpu.json" "$FIX/other.json" "$EX/record-wakeups-cyclictest.json" \
		"$FIX/hist-residency-per-state.json" "$FIX/hist-runq-linear-per-cpu.json" \
		"$FIX/hist-wakeup-latency-intervals.json"
}

# chromium ARGS... : headless, its own profile (other users of the machine
# may run Chromium too), console messages on stderr ($BATS_FILE_TMPDIR/chromium.log).
chromium_run() {
	timeout 180 chromium --headless=new --no-sandbox --disable-gpu --no-first-run \
		--no-default-browser-check --disable-extensions --hide-scrollbars \
		--user-data-dir="$BATS_FILE_TMPDIR/profile" --enable-logging=stderr --v=0 "$@" \
		2>"$BATS_FILE_TMPDIR/chromium.log"
}

# Console messages (errors, warnings, CSP violations) in the last run.
console_lines() {
	grep -E '(INFO|WARNING|ERROR|VERBOSE[0-9]*):CONSOLE' "$BATS_FILE_TMPDIR/chromium.log" || true
}

setup_file() {
	command -v chromium >/dev/null || skip "chromium not installed (sudo make deps)"
	local d=$BATS_FILE_TMPDIR
	# shellcheck disable=SC2046
	"$IDLESCOPE" report $(inputs) --html "$d/report.html"
	chromium_run --dump-dom "file://$d/report.html" >"$d/dom.html"
	console_lines >"$d/console.txt"
	"$IDLESCOPE" report "$EX/record-haltpoll-idle.json" --html "$d/idle.html"
	chromium_run --dump-dom "file://$d/idle.html" >"$d/idle-dom.html"
	console_lines >"$d/idle-console.txt"
	"$IDLESCOPE" report "$FIX/older-record.json" --html "$d/old.html"
	chromium_run --dump-dom "file://$d/old.html" >"$d/old-dom.html"
	console_lines >"$d/old-console.txt"
}

# Series groups of chart $2 in DOM $1.
series_count() {
	grep -cF "<g class=\"series\" data-chart=\"$2\"" "$1" || true
}

# Marks (rect) inside the series groups of chart $2 in DOM $1.
marks_count() {
	awk -v tag="<g class=\"series\" data-chart=\"$2\"" '
		index($0, tag) { inside = 1; next }
		inside && /<\/g>/ { inside = 0 }
		inside && /<rect / { n++ }
		END { print n + 0 }' "$1"
}

# "path<TAB>value<TAB>shown" for every number cell of input $2 in DOM $1.
cells_of() {
	grep -oE "data-f=\"$2\" data-p=\"[^\"]*\" data-v=\"[^\"]*\">[^<]*<" "$1" |
		sed -E 's/^data-f="[0-9]+" data-p="([^"]*)" data-v="([^"]*)">([^<]*)<$/\1\t\2\t\3/'
}

# Cells whose value is not at their path in the JSON, or shown otherwise;
# $3 = true for hist JSON Lines (paths start at the report's index).
bad_cells() { # dom index json is_hist
	cells_of "$1" "$2" >"$BATS_TEST_TMPDIR/cells.tsv"
	[ -s "$BATS_TEST_TMPDIR/cells.tsv" ] || { echo "no cells for input $2"; return; }
	jq -rn --slurpfile doc "$3" --rawfile cells "$BATS_TEST_TMPDIR/cells.tsv" --argjson hist "$4" '
		(if $hist then $doc else $doc[0] end) as $root
		| $cells | split("\n")[] | select(length > 0) | split("\t") | . as [$p, $v, $t]
		| ($root | getpath($p | split(".") | map(tonumber? // .))) as $j
		| (if $v == "null" then null else ($v | tonumber) end) as $dv
		| select($j != $dv
			 or ($v == "null" and $t != "-" and $t != "n/a")
			 or ($v != "null" and $t != $v and
			     (($t | endswith("%") | not) or
			      ((($t | rtrimstr("%") | tonumber) - 100 * $dv) | fabs) > 0.0050001)))
		| "\($p): page \($v) shown as \($t), JSON \($j)"'
}

# Paths of the JSON $1 whose numbers the page must show, by regex $2.
expected_paths() {
	jq -r --arg re "$2" '[paths(type == "number")][] | map(tostring) | join(".") | select(test($re))' "$1" | sort -u
}

missing_cells() { # dom index json regex
	expected_paths "$3" "$4" >"$BATS_TEST_TMPDIR/want"
	[ -s "$BATS_TEST_TMPDIR/want" ] || { echo "nothing expected: bad regex"; return; }
	cells_of "$1" "$2" | cut -f1 | sort -u >"$BATS_TEST_TMPDIR/have"
	comm -23 "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/have"
}

SUMMARY_RE='^duration_ns$|^(cpus\.[0-9]+|totals)\.(entries|idle_ns|edge_idle_ns|busy_ns)$|^(cpus\.[0-9]+|totals)\.states\.[0-9]+\.(entries|time_ns|share|min_ns|avg_ns|max_ns|p50_ns|p90_ns|p99_ns|above|below|ideal\.[0-9]+|hist\.[0-9]+\.(lo_ns|hi_ns|count))$|\.wakeups\.(total|causes\.[a-z-]+\.(count|early))$|\.timer_lateness\.[0-9]+\.(count|min_ns|p50_ns|p99_ns|max_ns|sum_ns|hist\.[0-9]+\.count)$|^groups\.groups\.[0-9]+\.(periods|time_ns|share|states\.[0-9]+\.(periods|time_ns)|hist\.[0-9]+\.count)$|^packing\.(busy_groups_ns\.[0-9]+|cross_group_wakeups|top_tasks\.[0-9]+\.(runtime_ns|group_runtime_ns\.[0-9]+))$|^eas\.cpu_capacity\.[0-9]+$|^kernel_check\.rows\.[0-9]+\.(bpf\.(entries|time_ns)|kernel\.(usage|time_ns)|entries_diff|time_diff_ns|bias_ns_per_period)$'
HIST_RE='^[0-9]+\.histograms\.[0-9]+\.(count|sum_ns|min_ns|max_ns|p50_ns|p90_ns|p99_ns|buckets\.[0-9]+\.(lo_ns|hi_ns|count))$'

@test "report: the page renders in headless Chromium without console messages" {
	local d=$BATS_FILE_TMPDIR
	grep -q '<h1>idlescope report: ' "$d/dom.html"
	grep -q '</html>' "$d/dom.html"
	# every input has its section
	for i in 0 1 2 3 4 5; do grep -q "<section class=\"input\" id=\"f$i\">" "$d/dom.html"; done
	grep -q '<section id="compare">' "$d/dom.html"
	echo "console: $(cat "$d/console.txt")"
	[ ! -s "$d/console.txt" ]
	grep -q '<section class="input" id="f0">' "$d/idle-dom.html"
	grep -q 'data-chart="f0-wakeups"' "$d/idle-dom.html"
	[ ! -s "$d/idle-console.txt" ]
	# a summary without wakeups, groups or packing (an older record) renders too
	jq -e 'has("groups") or has("packing") or any(.cpus[], .totals; has("wakeups")) | not' \
		"$FIX/older-record.json"
	grep -q '<section class="input" id="f0">' "$d/old-dom.html"
	run ! grep -q 'data-chart="f0-wakeups"' "$d/old-dom.html"
	[ ! -s "$d/old-console.txt" ]
}

@test "report: the console check sees errors and the page's CSP blocks what is external" {
	# the same Content-Security-Policy as the report, and a remote image and
	# an inline script it must refuse: both must show up as console messages
	local p=$BATS_TEST_TMPDIR/control.html
	{
		echo '<!DOCTYPE html><html><head>'
		grep -m1 'Content-Security-Policy' "$BATS_FILE_TMPDIR/report.html"
		echo '</head><body><img src="https://example.invalid/x.png"><script>console.error("x")</script></body></html>'
	} >"$p"
	chromium_run --dump-dom "file://$p" >/dev/null
	console_lines | grep -q "example.invalid"
	console_lines | grep -qi "inline script"
}

@test "report: charts hold one series per state, cause and input, one mark per bucket" {
	local dom=$BATS_FILE_TMPDIR/dom.html a=$EX/pack-2cpu.json n
	# per-CPU residency: the states of every CPU, edge idle and busy; one bar per CPU and all
	n=$(jq '[.cpus[], .totals | .states[].name] | unique | length + 2' "$a")
	[ "$(series_count "$dom" f0-residency-cpu)" -eq "$n" ]
	[ "$(marks_count "$dom" f0-residency-cpu)" -eq $((n * $(jq '.cpus | length + 1' "$a"))) ]
	# groups: the group states, edge and not-all-idle; one bar per group
	n=$(jq '[.groups.groups[].states[].name] | unique | length + 2' "$a")
	[ "$(series_count "$dom" f0-residency-group)" -eq "$n" ]
	[ "$(marks_count "$dom" f0-residency-group)" -eq $((n * $(jq '.groups.groups | length' "$a"))) ]
	n=$(jq '[.groups.groups[].states[].name] | unique | length + 2' "$FIX/other.json")
	[ "$(marks_count "$dom" f1-residency-group)" -eq $((n * 1)) ]
	# wakeup causes: all ten kinds
	[ "$(series_count "$dom" f0-wakeups)" -eq "$(jq '.totals.wakeups.causes | length' "$a")" ]
	[ "$(series_count "$dom" f2-wakeups)" -eq 10 ]
	# packing: 0..G groups busy
	[ "$(series_count "$dom" f0-packing)" -eq "$(jq '.packing.busy_groups_ns | length' "$a")" ]
	# residency histograms: one chart per CPU/total state and group with buckets, one bar per bucket
	for f in 0:"$a" 1:"$FIX/other.json" 2:"$EX/record-wakeups-cyclictest.json"; do
		local i=${f%%:*} j=${f#*:}
		n=$(jq '[(.cpus[], .totals | .states[]), (.groups.groups // [] | .[]) | select(.hist | length > 0)] | length' "$j")
		[ "$(grep -c "<figure class=\"chart\" data-chart=\"f$i-hist-" "$dom")" -eq "$n" ]
		n=$(jq '[(.cpus[], .totals | .states[]), (.groups.groups // [] | .[]) | .hist[]] | length' "$j")
		[ "$(grep -c "<rect class=\"bar\"" <(awk -v t="data-chart=\"f$i-hist-" 'index($0, t) && /class="series"/ { on = 1; next } on && /<\/g>/ { on = 0 } on' "$dom"))" -eq "$n" ]
		# timer lateness histograms likewise
		n=$(jq '[.cpus[], .totals | .wakeups.timer_lateness[]? | .hist[]] | length' "$j")
		[ "$(grep -c "<rect class=\"bar\"" <(awk -v t="data-chart=\"f$i-lateness-" 'index($0, t) && /class="series"/ { on = 1; next } on && /<\/g>/ { on = 0 } on' "$dom"))" -eq "$n" ]
	done
	[ "$(marks_count "$dom" f0-hist-cpus.1-s1)" -eq "$(jq '.cpus[1].states[1].hist | length' "$a")" ]
	# hist JSON: one chart per view with buckets, per report
	n=$(jq -s '[.[].histograms[] | select(.buckets | length > 0)] | length' "$FIX/hist-wakeup-latency-intervals.json")
	[ "$n" -eq 6 ]
	[ "$(grep -c '<figure class="chart" data-chart="f5-r' "$dom")" -eq "$n" ]
	[ "$(marks_count "$dom" f4-r0-h1)" -eq "$(jq '.histograms[1].buckets | length' "$FIX/hist-runq-linear-per-cpu.json")" ]
	# comparison: the states of every summary's totals, edge and busy; one bar per summary
	n=$(jq -s '[.[].totals.states[].name] | unique | length + 2' "$a" "$FIX/other.json" "$EX/record-wakeups-cyclictest.json")
	[ "$(series_count "$dom" compare-residency)" -eq "$n" ]
	[ "$(marks_count "$dom" compare-residency)" -eq $((n * 3)) ]
	[ "$(series_count "$dom" compare-wakeups)" -eq 10 ]
}

@test "report: every number in the tables is the JSON's value at the cell's path" {
	local dom=$BATS_FILE_TMPDIR/dom.html bad i=0 f
	for f in "$EX/pack-2cpu.json" "$FIX/other.json" "$EX/record-wakeups-cyclictest.json"; do
		bad=$(bad_cells "$dom" $i "$f" false)
		echo "input $i: $bad"
		[ -z "$bad" ]
		bad=$(missing_cells "$dom" $i "$f" "$SUMMARY_RE")
		echo "input $i not shown: $bad"
		[ -z "$bad" ]
		i=$((i + 1))
	done
	for f in "$FIX/hist-residency-per-state.json" "$FIX/hist-runq-linear-per-cpu.json" \
		"$FIX/hist-wakeup-latency-intervals.json"; do
		bad=$(bad_cells "$dom" $i "$f" true)
		echo "input $i: $bad"
		[ -z "$bad" ]
		jq -s . "$f" >"$BATS_TEST_TMPDIR/slurped.json"
		bad=$(missing_cells "$dom" $i "$BATS_TEST_TMPDIR/slurped.json" "$HIST_RE")
		echo "input $i not shown: $bad"
		[ -z "$bad" ]
		i=$((i + 1))
	done
	bad=$(bad_cells "$BATS_FILE_TMPDIR/idle-dom.html" 0 "$EX/record-haltpoll-idle.json" false)
	[ -z "$bad" ]
	bad=$(bad_cells "$BATS_FILE_TMPDIR/old-dom.html" 0 "$FIX/older-record.json" false)
	[ -z "$bad" ]
	# the check itself fails on a wrong number: shift one cell's value
	sed -E '0,/data-p="totals.entries" data-v="[0-9]+">[0-9]+</s//data-p="totals.entries" data-v="1">1</' \
		"$dom" >"$BATS_TEST_TMPDIR/wrong.html"
	bad=$(bad_cells "$BATS_TEST_TMPDIR/wrong.html" 0 "$EX/pack-2cpu.json" false)
	[[ "$bad" == "totals.entries: page 1"* ]]
}

@test "report: the comparison shows both files' values and OTHER - BASE" {
	local dom=$BATS_FILE_TMPDIR/dom.html a=$EX/pack-2cpu.json b=$FIX/other.json m row want
	for m in duration_ns total.entries 'cpu[1].state[haltpoll idle].time_ns' \
		'cpu[1].state[haltpoll idle].entries' total.idle_share; do
		row=$(grep -F "<tr data-metric=\"$m\">" "$dom" | head -1)
		[ -n "$row" ]
		# the independent numbers, from the files
		want=$(jq -rn --slurpfile a "$a" --slurpfile b "$b" --arg m "$m" '
			def v($d): if $m == "duration_ns" then $d.duration_ns
				elif $m == "total.entries" then $d.totals.entries
				elif $m == "total.idle_share" then $d.totals.idle_ns / ($d.duration_ns * ($d.cpus | length))
				elif ($m | endswith(".time_ns")) then $d.cpus[1].states[1].time_ns
				else $d.cpus[1].states[1].entries end;
			[v($a[0]), v($b[0]), v($b[0]) - v($a[0])] | map(tostring) | join(" ")')
		got=$(echo "$row" | grep -oE 'class="n (v|d)" data-i="[01]" data-v="[^"]*"' | head -3 |
			sed -E 's/.*data-v="([^"]*)"/\1/' | tr '\n' ' ' | sed 's/ $//')
		echo "$m: page $got, files $want"
		# compare as numbers (jq's and the page's shortest forms may differ in spelling)
		jq -en --arg g "$got" --arg w "$want" '($g | split(" ") | map(tonumber)) == ($w | split(" ") | map(tonumber))'
	done
	# group custom1 is only in the base
	awk '/Unmatched: only in .*pack-2cpu.json, not in .*other.json/ { getline; print }' "$dom" | grep -qF '<li>group[custom1]</li>'
	# as many rows as compare lists
	[ "$(grep -c '<tr data-metric=' <(sed -n '/table class="data compare all"/,/<\/table>/p' "$dom"))" -eq \
		"$("$IDLESCOPE" compare "$a" "$b" "$EX/record-wakeups-cyclictest.json" --format json | jq '.rows | length')" ]
}

@test "report: names from the JSON are escaped, no external URL, no script" {
	local h=$BATS_FILE_TMPDIR/report.html dom=$BATS_FILE_TMPDIR/dom.html
	# the hand-edited names arrive as text, not as elements
	grep -qF '&lt;img src=x onerror=alert(1)&gt;&amp;' "$dom"
	grep -qF 'virtio&lt;b&gt;0&lt;/b&gt;-in&amp;out' "$dom"
	grep -qF 'a&lt;b&gt;&amp;c' "$dom"
	run ! grep -qiE '<img|<b>|<script' "$dom"
	# nothing to fetch: no src/href/url() to another origin, no link/import
	run ! grep -qiE '(src|href)=["'"'"']?[a-z]*:?//|url\(|@import|<link|<script|<iframe|<object' "$h"
	[ -z "$(grep -oE 'https?://[^"'"'"' )<>]*' "$h" | grep -vxF 'http://www.w3.org/2000/svg')" ]
	grep -q "Content-Security-Policy\" content=\"default-src 'none'" "$h"
	# the same inputs give the same bytes
	# shellcheck disable=SC2046
	"$IDLESCOPE" report $(inputs) --html "$BATS_TEST_TMPDIR/again.html"
	cmp "$h" "$BATS_TEST_TMPDIR/again.html"
}

@test "report: a screenshot of the page is written to the test artifacts" {
	mkdir -p "$ART"
	rm -f "$ART/report.png"
	chromium_run --window-size=1280,2400 --screenshot="$ART/report.png" "file://$BATS_FILE_TMPDIR/report.html"
	[ -s "$ART/report.png" ]
	[ "$(head -c 8 "$ART/report.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
	# a blank page compresses to a few kB; this one has charts and tables
	[ "$(stat -c %s "$ART/report.png")" -gt 50000 ]
}

@test "report: missing file, wrong schema, truncated JSON, no --html: one-line errors" {
	local t=$BATS_TEST_TMPDIR o=$BATS_TEST_TMPDIR/out.html
	run "$IDLESCOPE" report /nonexistent.json --html "$o"
	[ "$status" -eq 1 ]
	[ "$output" = "idlescope: cannot read '/nonexistent.json': No such file or directory" ]
	jq '.schema = "idlescope/2"' "$EX/pack-2cpu.json" >"$t/v2.json"
	run "$IDLESCOPE" report "$t/v2.json" --html "$o"
	[ "$status" -eq 1 ]
	[ "$output" = "idlescope: $t/v2.json: schema 'idlescope/2' is neither idlescope/1 (record) nor idlescope-hist/1 (hist)" ]
	run "$IDLESCOPE" report "$EX/ab-governor-cyclictest.json" --html "$o"
	[ "$status" -eq 1 ]
	[[ "$output" == *"schema 'idlescope-ab/1' is neither"* ]]
	jq 'del(.schema)' "$EX/pack-2cpu.json" >"$t/noschema.json"
	run "$IDLESCOPE" report "$t/noschema.json" --html "$o"
	[ "$status" -eq 1 ]
	[ "$output" = "idlescope: $t/noschema.json: not an idlescope summary (no \"schema\")" ]
	head -c 300 "$EX/pack-2cpu.json" >"$t/trunc.json"
	run "$IDLESCOPE" report "$EX/pack-2cpu.json" "$t/trunc.json" --html "$o"
	[ "$status" -eq 1 ]
	[[ "$output" == "idlescope: $t/trunc.json: invalid JSON"* ]]
	[ "${#lines[@]}" -eq 1 ]
	# a hist file with a cut last line
	{ cat "$FIX/hist-wakeup-latency-intervals.json"; head -c 100 "$FIX/hist-residency-per-state.json"; echo; } >"$t/hist-cut.json"
	run "$IDLESCOPE" report "$t/hist-cut.json" --html "$o"
	[ "$status" -eq 1 ]
	[ "$output" = "idlescope: $t/hist-cut.json: invalid JSON at line 3: end of file expected near end of file" ] ||
		[[ "$output" == "idlescope: $t/hist-cut.json: invalid JSON at line 3:"* ]]
	# none of these left a page behind
	[ ! -e "$o" ]
	run "$IDLESCOPE" report "$EX/pack-2cpu.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--html OUT.html is required"* ]]
	run "$IDLESCOPE" report --html "$o"
	[ "$status" -eq 2 ]
	[[ "$output" == *"need at least one FILE.json"* ]]
	run "$IDLESCOPE" report "$EX/pack-2cpu.json" --html /nonexistent/dir/out.html
	[ "$status" -eq 1 ]
	[[ "$output" == "idlescope: cannot write '/nonexistent/dir/out.html': No such file or directory" ]]
	[ ! -e "$o" ]
}

@test "report: reads the summary line of record -i JSON Lines" {
	local l=$BATS_TEST_TMPDIR/lines.json o=$BATS_TEST_TMPDIR/lines.html
	# an interval line (no schema) before the summary, as record -i writes them
	{
		echo '{"interval":1,"offset_ns":500000000,"duration_ns":500000000,"states":[],"above":0,"below":0}'
		jq -c . "$EX/record-wakeups-cyclictest.json"
	} >"$l"
	run "$IDLESCOPE" report "$l" --html "$o"
	[ "$status" -eq 0 ]
	grep -qF "data-f=\"0\" data-p=\"duration_ns\" data-v=\"$(jq .duration_ns "$EX/record-wakeups-cyclictest.json")\"" "$o"
	grep -qF "data-p=\"totals.entries\" data-v=\"$(jq .totals.entries "$EX/record-wakeups-cyclictest.json")\"" "$o"
}
