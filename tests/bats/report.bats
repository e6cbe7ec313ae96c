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

# without chromium each test skips in setup(): a skip in setup_file is a
# failure to bats 1.8 ("setup_file failed", seen in the oracle guests)
setup() {
	command -v chromium >/dev/null || skip "chromium not installed (sudo make deps)"
}

setup_file() {
	command -v chromium >/dev/null || return 0
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
		# a duration shows in human units (3 significant digits: within 0.5%)
		| ($t | capture("^(?<x>-?[0-9.]+)(?<u>ns|us|ms|s)$")? // null) as $h
		| (if $h then ($h.x | tonumber) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[$h.u]
		   else null end) as $ht
		| select($j != $dv
			 or ($v == "null" and $t != "-" and $t != "n/a")
			 or ($h != null and ($p | endswith("_ns") | not))
			 or ($v != "null" and $t != $v and
			     (if $h then (($ht - $dv) | fabs) > 0.005 * ($dv | fabs) + 0.5
			      else (($t | endswith("%") | not) or
			      ((($t | rtrimstr("%") | tonumber) - 100 * $dv) | fabs) > 0.0050001) end)))
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
	# durations in human units, the exact nanoseconds in the tooltip
	local ns_cells
	ns_cells=$(grep -oE '<td class="n"[^>]* data-p="[^"]*_ns" data-v="[0-9-]+">[^<]*<' "$dom")
	[ -n "$ns_cells" ]
	run ! grep -vE '^<td class="n" title="(-?[0-9]+) ns" data-f="[0-9]+" data-p="[^"]*" data-v="\1">-?[0-9.]+(ns|us|ms|s)<$' <<<"$ns_cells"
	# the check itself fails on a duration shown wrong
	sed -E '0,/(data-p="totals.busy_ns" data-v="[0-9]+")>[^<]*</s//\1>1.00ns</' \
		"$dom" >"$BATS_TEST_TMPDIR/wrong.html"
	bad=$(bad_cells "$BATS_TEST_TMPDIR/wrong.html" 0 "$EX/pack-2cpu.json" false)
	[[ "$bad" == "totals.busy_ns: page "*" shown as 1.00ns"* ]]
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
		got=$(echo "$row" | grep -oE 'class="n (v|d)" title="[^"]*" data-i="[01]" data-v="[^"]*"' | head -3 |
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

@test "report: names from the JSON are escaped, no external URL, one script by its hash" {
	local h=$BATS_FILE_TMPDIR/report.html dom=$BATS_FILE_TMPDIR/dom.html
	# the hand-edited names arrive as text, not as elements (in the
	# embedded JSON as \u003c)
	grep -qF '&lt;img src=x onerror=alert(1)&gt;&amp;' "$dom"
	grep -qF 'virtio&lt;b&gt;0&lt;/b&gt;-in&amp;out' "$dom"
	grep -qF 'a&lt;b&gt;&amp;c' "$dom"
	grep -qF '\u003cimg src=x onerror=alert(1)>&' "$h"
	run ! grep -qiE '<img|<b>' "$dom"
	# nothing to fetch: no src/href/url() to another origin, no link/import
	run ! grep -qiE '(src|href)=["'"'"']?[a-z]*:?//|url\(|@import|<link|<iframe|<object|<script src' "$h"
	[ -z "$(grep -oE 'https?://[^"'"'"' )<>]*' "$h" | grep -vxF 'http://www.w3.org/2000/svg')" ]
	grep -q "Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-" "$h"
	# one script, the one the CSP names by its SHA-256 (openssl's), and the
	# inputs as a data block (not run)
	[ "$(grep -o '<script' "$h" | wc -l)" -eq 2 ]
	[ "$(grep -c '^<script>' "$h")" -eq 1 ]
	grep -q '<script type="application/json" id="inputs-json">' "$h"
	local want
	want=$(awk '/^<script>/ { on = 1; sub(/^<script>/, "") } on { if (sub(/<\/script>$/, "")) { printf "%s", $0; exit } print }' "$h" |
		openssl dgst -sha256 -binary | base64)
	grep -qF "script-src 'sha256-$want'" "$h"
	# the inputs embedded as read
	sed -n 's/^<script type="application\/json" id="inputs-json">\(.*\)<\/script>$/\1/p' "$h" |
		jq -e --slurpfile a "$EX/pack-2cpu.json" '.[0].json == $a[0] and length == 6' >/dev/null
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
	[[ "$output" == *"-o OUT.html is required"* ]]
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

# The comparison view's cells (data-i data-e data-s data-c data-v, text) of
# table $2 in DOM $1, tab-separated, names unescaped.
view_cells() { # dom table-id
	sed -n "/id=\"$2\"/,/<\/table>/p" "$1" |
		grep -oE 'data-i="[0-9]+" data-e="[^"]*" data-s="[^"]*" data-c="[^"]*" data-v="[^"]*">[^<]*<' |
		sed -E 's/^data-i="([0-9]+)" data-e="([^"]*)" data-s="([^"]*)" data-c="([^"]*)" data-v="([^"]*)">([^<]*)<$/\1\t\2\t\3\t\4\t\5\t\6/' |
		sed -e 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&#39;/'"'"'/g; s/&amp;/\&/g'
}

@test "report: the comparison table, every cell the JSON's value or difference, in units" {
	local dom=$BATS_FILE_TMPDIR/dom.html a=$EX/pack-2cpu.json b=$FIX/other.json c=$EX/record-wakeups-cyclictest.json
	view_cells "$dom" cv-states >"$BATS_TEST_TMPDIR/cells"
	compare_expected_rows "$a" >"$BATS_TEST_TMPDIR/e0"
	compare_expected_rows "$b" >"$BATS_TEST_TMPDIR/e1"
	compare_expected_rows "$c" >"$BATS_TEST_TMPDIR/e2"
	# data-v: the base's number, the others' difference from it; n.a. (null)
	# exactly where that input has no entries; the text in units
	awk -F'\t' '
	function unit_ok(col, t) {
		if (col == "time") return t ~ /^[+-]?[0-9.]+(ns|us|ms|s)$/ || t == "0"
		if (col == "share") return t ~ /^[+-]?[0-9.]+%$/
		return t ~ /^[+-]?[0-9]+(\.[0-9])?$/
	}
	FILENAME ~ /e[0-9]$/ { f = substr(FILENAME, length(FILENAME)); e[f, $1 FS $2] = $0; next }
	{
		i = $1; key = $2 FS $3; col = $4
		k = col == "time" ? 3 : col == "share" ? 4 : col == "entries" ? 5 : col == "too deep" ? 6 : 7
		if (!((i, key) in e)) { if ($5 != "null" || $6 != "-") { print "not in input", i, key, $6; bad++ }; next }
		split(e[i, key], o, FS); split(e[0, key], z, FS)
		if (o[5] == 0) { if ($5 != "null" || $6 != "n.a.") { print key, i, col, $6, "want n.a."; bad++ }; next }
		want = i == 0 ? o[k] : o[k] - ((0, key) in e ? z[k] : 0)
		d = $5 - want; if (d < 0) d = -d; w = want < 0 ? -want : want
		if (d > 1e-9 * w + 1e-12) { print key, i, col, "page", $5, "want", want; bad++ }
		if (!unit_ok(col, $6)) { print key, i, col, "shown", $6; bad++ }
		n++
	}
	END { print n, "cells"; exit bad > 0 || n < 20 }' \
		"$BATS_TEST_TMPDIR/e0" "$BATS_TEST_TMPDIR/e1" "$BATS_TEST_TMPDIR/e2" "$BATS_TEST_TMPDIR/cells"
	# single runs: said so, nothing marked
	grep -q 'No repetitions: an input of one run' "$dom"
	run ! grep -q 'class="n cv sig"' "$dom"
	# the largest differences, sorted when written (the CSP allows no script):
	# the time column's data-v in descending size
	view_cells "$dom" cv-largest | awk -F'\t' '$4 == "time" { print ($5 < 0 ? -$5 : $5) }' >"$BATS_TEST_TMPDIR/sizes"
	[ -s "$BATS_TEST_TMPDIR/sizes" ]
	sort -g -r -c "$BATS_TEST_TMPDIR/sizes"
	# Chromium's DOM has them too, with their units
	view_cells "$dom" cv-states | awk -F'\t' '$4 == "time" && $6 ~ /(us|ms|s)$/' | grep -q .
}

@test "report: runs per variant (--): means with intervals, a significant difference marked" {
	local o=$BATS_TEST_TMPDIR/runs.html a=$EX/pack-pinned.json b=$EX/pack-2cpu.json
	run "$IDLESCOPE" report "$a" "$a" -- "$b" "$b" -o "$o"
	[ "$status" -eq 0 ]
	grep -qF '1: pack-pinned.json (2 runs)' "$o"
	# identical runs: no spread, so the different means are significant
	grep -qE 'class="n cv sig" title="[^"]*significant" data-i="1" data-e="all CPUs" data-s="haltpoll idle" data-c="time" data-v="1484307683">\+1.48s ±0\*<' "$o"
	[ "$(jq '[.totals.states[] | select(.name == "haltpoll idle") | .time_ns] | .[0]' "$b")" -eq \
		$(( $(jq '[.totals.states[] | select(.name == "haltpoll idle") | .time_ns] | .[0]' "$a") + 1484307683 )) ]
	# --html is -o's alias; -- with no file on a side is a usage error
	run "$IDLESCOPE" report "$a" --html "$BATS_TEST_TMPDIR/alias.html"
	[ "$status" -eq 0 ]
	[ -s "$BATS_TEST_TMPDIR/alias.html" ]
	run "$IDLESCOPE" report "$a" -- -o "$o"
	[ "$status" -eq 2 ]
}
