#!/usr/bin/env bats
# `serve`: the Prometheus exporter on a loopback port, checked with promtool,
# against the sysfs cpuidle counters over the same span, and scraped by a
# real Prometheus server whose HTTP API must answer a rate query.

bats_require_minimum_version 1.5.0
load helpers
load serve_helpers

# Per CPU and state "cpu:name|usage+rejected" from sysfs (the oracle).
sysfs_usage() {
	local d c s r
	for d in /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*; do
		c=${d#/sys/devices/system/cpu/cpu}
		c=${c%%/*}
		r=$(cat "$d/rejected" 2>/dev/null || echo 0)
		s=$(cat "$d/usage")
		echo "$c:$(cat "$d/name")|$((s + r))"
	done | LC_ALL=C sort -t'|' -k1,1
}

# "cpu:state|value" of the entries counter in a scrape, sorted for join.
scrape_entries() {
	sed -n 's/^idlescope_idle_state_entries_total{cpu="\([0-9]*\)",state="\(.*\)"} \([0-9]*\)$/\1:\2|\3/p' "$1" |
		LC_ALL=C sort -t'|' -k1,1
}

@test "bad --listen: usage error, one line, nothing loaded" {
	local v
	for v in foo 127.0.0.1 :9464 127.0.0.1:65536 127.0.0.1:x example.org:9464 '[::1]9464'; do
		run -2 "$IDLESCOPE" serve --listen "$v"
		[ "${#lines[@]}" -eq 1 ]
		[[ "${lines[0]}" == "idlescope: bad --listen '$v'"* ]]
	done
	run -2 "$IDLESCOPE" serve -o /dev/null
	run -2 "$IDLESCOPE" serve -- true
}

@test "default bind is 127.0.0.1:9464 (loopback only)" {
	[ -z "$(ss -Htln 'sport = :9464')" ] || skip "port 9464 is in use"
	start_serve
	[ "$URL" = http://127.0.0.1:9464/metrics ]
	run ss -Htlnp 'sport = :9464'
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *" 127.0.0.1:9464 "* ]]
	[[ "$output" == *"pid=$SERVE_PID,"* ]]
}

@test "busy port: runtime error (exit 1) naming the address, nothing loaded" {
	local mark port
	start_serve --listen 127.0.0.1:0
	port=${URL#http://127.0.0.1:}
	port=${port%/metrics}
	mark=$(bpf_prog_id_mark)
	run -1 "$IDLESCOPE" serve --listen "127.0.0.1:$port"
	[ "$output" = "idlescope: cannot listen on 127.0.0.1:$port: Address already in use" ]
	[ "$(our_bpf_progs_since "$mark")" -eq 0 ]
}

@test "serve: the object without atomic fetch ops (kernels before 5.12) serves without group families, as record degrades" {
	local m=$BATS_TEST_TMPDIR/m.txt
	# the default object has the package group
	start_serve --listen 127.0.0.1:0 --topology package
	curl -sS -o "$m" "$URL"
	grep -q '^idlescope_group_info{' "$m"
	kill "$SERVE_PID"
	wait "$SERVE_PID" || true
	IDLESCOPE_NO_ATOMIC_FETCH=1 start_serve --listen 127.0.0.1:0 --topology package
	curl -sS -o "$m" "$URL"
	grep -q '^idlescope_idle_state_entries_total{' "$m"
	run grep -c '^idlescope_group' "$m"
	[ "$output" -eq 0 ]
	[ "$(cat "$BATS_TEST_TMPDIR/serve.out.err")" = \
	  "idlescope: no group rows: they need BPF atomic fetch ops (kernel 5.12+)" ]
}

@test "/metrics passes promtool; / links it; other paths 404; POST refused" {
	start_serve --listen 127.0.0.1:0
	local m=$BATS_TEST_TMPDIR/m.txt base=${URL%/metrics}
	run curl -sS -o "$m" -w '%{http_code} %{content_type}' "$URL"
	[ "$output" = "200 text/plain; version=0.0.4; charset=utf-8" ]
	run promtool check metrics <"$m"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ] # no lint findings either
	# every family has HELP and TYPE; histograms have +Inf, _sum and _count
	[ "$(grep -c '^# HELP ' "$m")" -eq "$(grep -c '^# TYPE ' "$m")" ]
	grep -q '^# TYPE idlescope_idle_duration_seconds histogram$' "$m"
	grep -q '^idlescope_idle_duration_seconds_bucket{state=".*",le="+Inf"} ' "$m"
	grep -q '^idlescope_build_info{version="' "$m"
	# bounded labels only: no pid or comm anywhere
	run grep -Ec '(pid|comm)=' "$m"
	[ "$output" -eq 0 ]
	run curl -sS "$base/"
	[[ "$output" == *'<a href="/metrics">'* ]]
	run curl -sS -o /dev/null -w '%{http_code}' "$base/nope"
	[ "$output" = 404 ]
	run curl -sS -o /dev/null -w '%{http_code}' -X POST "$URL"
	[ "$output" = 405 ]
}

# "state|value" of the histogram's _count per state, and of the entries
# summed over the CPUs per state, in one scrape.
hist_counts() {
	sed -n 's/^idlescope_idle_duration_seconds_count{state="\(.*\)"} \([0-9]*\)$/\1|\2/p' "$1" |
		LC_ALL=C sort
}
entries_by_state() {
	sed -n 's/^idlescope_idle_state_entries_total{cpu="[0-9]*",state="\(.*\)"} \([0-9]*\)$/\1|\2/p' "$1" |
		awk -F'|' '{ n[$1] += $2 } END { for (s in n) print s "|" n[s] }' | LC_ALL=C sort
}

@test "default: per CPU only the state counters and busy seconds (at most 25 series); histograms and wakeups over all CPUs" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	start_serve --listen 127.0.0.1:0
	local m=$BATS_TEST_TMPDIR/m.txt s n
	curl -sS -o "$m" "$URL"
	s=$(grep -c '^idlescope_idle_state_entries_total{cpu="1",' "$m")
	[ "$s" -ge 1 ]
	# CPU 1's series: entries, residency, above, below per state, busy
	n=$(grep -c 'cpu="1"' "$m")
	echo "CPU 1: $n series, $s states"
	[ "$n" -eq $((4 * s + 1)) ]
	[ "$n" -le 25 ]
	run grep -Ec '^idlescope_(idle_duration_seconds|timer_lateness_seconds|wakeups_total|wakeups_early_total|idle_state_target_residency_seconds|idle_state_exit_latency_seconds|idle_state_disabled)[_a-z]*\{cpu=' "$m"
	[ "$output" -eq 0 ]
	grep -q '^idlescope_wakeups_total{cause="timer"} ' "$m"
	grep -q '^idlescope_timer_lateness_seconds_count{state="' "$m"
	# groups: info, seconds, periods; their histograms only on demand
	grep -q '^idlescope_group_all_idle_seconds_total{group="' "$m"
	run grep -c '^idlescope_group_all_idle_duration_seconds' "$m"
	[ "$output" -eq 0 ]
	# the histogram over all CPUs counts the periods of every CPU (one snapshot)
	diff <(hist_counts "$m") <(entries_by_state "$m")
	run promtool check metrics <"$m"
	echo "$output"
	[ "$status" -eq 0 ] && [ -z "$output" ]
}

@test "--per-cpu-histograms, --per-cpu-detail, --group-histograms: each adds its series, promtool-clean" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	local m=$BATS_TEST_TMPDIR/m.txt s n
	start_serve --listen 127.0.0.1:0 --per-cpu-histograms --per-cpu-detail
	curl -sS -o "$m" "$URL"
	s=$(grep -c '^idlescope_idle_state_entries_total{cpu="1",' "$m")
	n=$(grep -c 'cpu="1"' "$m")
	echo "CPU 1: $n series, $s states"
	# + 3 state parameters and 2 histograms of 16 per state, 2 x 11 causes,
	# early and early seconds per state, and the declared exit cost of each
	# state a table declares (none without a cpuidle driver)
	local x=$s h
	[ "$(cpuidle_driver)" != none ] || x=0
	[ "$(grep -c '^idlescope_idle_state_exit_cost_seconds_total{cpu="1",' "$m")" -eq "$x" ]
	# a haltpoll host adds CPU 1's halt-polling series (polls by outcome,
	# limit moves, the limit once it moved): none elsewhere
	h=$(grep -c '^idlescope_haltpoll_[a-z_]*{cpu="1"' "$m" || true)
	[ "$(cpuidle_driver)" = haltpoll ] || [ "$h" -eq 0 ]
	grep 'cpu="1"' "$m" | sed 's/{.*//' | sort | uniq -c
	[ "$n" -eq $((4 * s + 1 + 3 * s + 32 * s + 22 + 2 * s + x + h)) ]
	grep -q '^idlescope_idle_duration_seconds_bucket{cpu="1",state=".*",le="+Inf"} ' "$m"
	grep -q '^idlescope_timer_lateness_seconds_count{cpu="1",state="' "$m"
	grep -q '^idlescope_wakeups_total{cpu="1",cause="timer"} ' "$m"
	grep -q '^idlescope_idle_state_disabled{cpu="1",state="' "$m"
	run grep -Ec '^idlescope_[a-z_]*\{(state|cause)=' "$m"
	[ "$output" -eq 0 ]
	run promtool check metrics <"$m"
	echo "$output"
	[ "$status" -eq 0 ] && [ -z "$output" ]
	kill "$SERVE_PID"
	wait "$SERVE_PID" || true
	# one flag alone adds only its own series
	start_serve --listen 127.0.0.1:0 --per-cpu-histograms
	curl -sS -o "$m" "$URL"
	[ "$(grep -c 'cpu="1"' "$m")" -eq $((4 * s + 1 + 32 * s)) ]
	kill "$SERVE_PID"
	wait "$SERVE_PID" || true
	start_serve --listen 127.0.0.1:0 --per-cpu-detail --no-wakeups
	curl -sS -o "$m" "$URL"
	h=$(grep -c '^idlescope_haltpoll_[a-z_]*{cpu="1"' "$m" || true) # haltpoll only, as above
	[ "$(grep -c 'cpu="1"' "$m")" -eq $((4 * s + 1 + 3 * s + 2 * s + x + h)) ]
	kill "$SERVE_PID"
	wait "$SERVE_PID" || true
	# --group-histograms: 16 series per group, nothing per CPU
	start_serve --listen 127.0.0.1:0 --group-histograms
	curl -sS -o "$m" "$URL"
	[ "$(grep -c 'cpu="1"' "$m")" -eq $((4 * s + 1)) ]
	[ "$(grep -c '^idlescope_group_all_idle_duration_seconds_' "$m")" -eq \
		$((16 * $(grep -c '^idlescope_group_info{' "$m"))) ]
	run promtool check metrics <"$m"
	[ "$status" -eq 0 ] && [ -z "$output" ]
	kill "$SERVE_PID"
	wait "$SERVE_PID" || true
	# --without timers: the lateness family is gone, the wakeup causes stay
	start_serve --listen 127.0.0.1:0 --without timers
	curl -sS -o "$m" "$URL"
	[ "$(grep -c '^idlescope_timer_lateness_seconds' "$m")" -eq 0 ]
	grep -q '^idlescope_wakeups_total{cause="timer"}' "$m"
}

# bats test_tags=oracle
@test "counters never go back; entries delta agrees with sysfs usage over the same span" {
	require_cpuidle_driver
	start_serve --listen 127.0.0.1:0
	local d=$BATS_TEST_TMPDIR n
	cyclictest --laptop -q -t "$(nproc)" -a -i 500 -D 5 >/dev/null 2>&1 3>&- &
	LOAD_PID=$!
	sleep 0.5
	# each scrape bracketed by two sysfs reads
	sysfs_usage >"$d/u1a"
	curl -sS "$URL" >"$d/m1"
	sysfs_usage >"$d/u1b"
	sleep 2.5
	sysfs_usage >"$d/u2a"
	curl -sS "$URL" >"$d/m2"
	sysfs_usage >"$d/u2b"
	# every counter, bucket, _sum and _count sample: second >= first
	run awk 'NR == FNR { if ($1 !~ /^#/) v[$1] = $2; next }
		 $1 ~ /(_total|_bucket|_sum|_count)(\{|$)/ && ($1 in v) && $2 + 0 < v[$1] + 0 { print "went back: " $0 " < " v[$1] }
		 $1 !~ /^#/ && !($1 in v) { print "new series: " $1 }' "$d/m1" "$d/m2"
	[ -z "$output" ]
	[ "$(grep -c '_total' "$d/m1")" -gt 10 ]
	# BPF's delta within what sysfs saw between the inner and the outer
	# reads, plus 2 for a period whose exit event and usage++ straddle a read
	export LC_ALL=C
	join -t'|' -j1 <(scrape_entries "$d/m1") <(scrape_entries "$d/m2") >"$d/bpf"
	join -t'|' -j1 "$d/u1a" "$d/u1b" >"$d/k1"
	join -t'|' -j1 "$d/u2a" "$d/u2b" >"$d/k2"
	join -t'|' -j1 "$d/k1" "$d/k2" | join -t'|' -j1 - "$d/bpf" >"$d/all"
	cat "$d/all"
	[ "$(wc -l <"$d/all")" -eq "$(wc -l <"$d/u1a")" ] # every sysfs state has a series
	run awk -F'|' '{ lo = $4 - $3; hi = $5 - $2; b = $7 - $6
		if (b < lo - 2 || b > hi + 2) print $1 ": bpf " b " not in [" lo ", " hi "]" }' "$d/all"
	echo "$output"
	[ -z "$output" ]
	# with the CPUs saturated by other work there is little to compare
	n=$(awk -F'|' '{ n += $4 - $3 } END { print n }' "$d/all")
	[ "$n" -ge 20 ] || skip "only $n idle periods in 2.5 s (CPUs busy with other work)"
}

# Each scrape's counted window ends when its CPU and group counters had been
# read (the read is stamped after them), and begins before the attach: no
# period it counts lies outside it. So in every scrape, from the first one
# on, no CPU's idle time (completed periods, any state) and no group's
# all-idle time exceeds idlescope_counted_seconds_total (at 64 CPUs the
# stamp taken before a 0.85 s read once let a group's 1.871 s exceed 1.579 s).
@test "no CPU's idle time and no group's all-idle time exceeds the counted window, in any scrape" {
	start_serve --listen 127.0.0.1:0 --topology custom:0-1
	local d=$BATS_TEST_TMPDIR i
	cyclictest --laptop -q -t "$(nproc)" -a -i 2000 -D 3 >/dev/null 2>&1 3>&- &
	LOAD_PID=$!
	for i in $(seq 0 9); do
		curl -sS "$URL" >"$d/m$i"
		sleep 0.2
	done
	for i in $(seq 0 9); do
		awk '$1 == "idlescope_counted_seconds_total" { w = $2 }
		     $1 ~ /^idlescope_idle_state_residency_seconds_total\{/ {
			c = $1; sub(/.*cpu="/, "", c); sub(/".*/, "", c); idle[c] += $2 }
		     $1 ~ /^idlescope_group_all_idle_seconds_total\{/ { g[$1] = $2 }
		     END {
			if (w == "") { print "no counted seconds"; exit 1 }
			for (c in idle) if (idle[c] > w) print "cpu " c " idle " idle[c] " > window " w
			for (k in g) if (g[k] > w) print k " " g[k] " > window " w
			n = 0; for (k in g) n++
			if (n != 1) print n " group series"
		     }' "$d/m$i" >"$d/bad$i"
		cat "$d/bad$i"
		[ ! -s "$d/bad$i" ]
	done
}

@test "a Prometheus server scrapes it: rate() over idlescope counters returns data" {
	command -v prometheus >/dev/null || skip "prometheus not installed (make deps)"
	start_serve --listen 127.0.0.1:0
	local d=$BATS_TEST_TMPDIR n=0 q
	start_prometheus
	q='sum(rate(idlescope_idle_state_entries_total[10s]))'
	for _ in $(seq 60); do
		run prom_query "$q"
		if [ "$status" -eq 0 ] && [ "$(jq -r '.data.result | length' <<<"$output")" -gt 0 ]; then
			n=1
			break
		fi
		kill -0 "$PROM_PID" || { cat "$d/prom.log"; false; }
		sleep 0.5
	done
	echo "$output"
	[ "$n" -eq 1 ]
	[ "$(jq -r .status <<<"$output")" = success ]
	jq -e '.data.result[0].value[1] | tonumber >= 0' <<<"$output"
	# Prometheus reads the counters as counters: the counted time grows by
	# about one second per second between two scrapes, whatever the load
	# (irate: the last two samples; rate() over so short a series
	# extrapolates)
	run prom_query 'irate(idlescope_counted_seconds_total[5s])'
	echo "$output"
	jq -e '.data.result[0].value[1] | tonumber | . > 0.7 and . < 1.3' <<<"$output"
	run prom_query 'up{job="idlescope"}'
	[ "$(jq -r '.data.result[0].value[1]' <<<"$output")" = 1 ]
	run prom_query 'histogram_quantile(0.5, sum by (le) (rate(idlescope_idle_duration_seconds_bucket[10s])))'
	[ "$(jq -r '.data.result | length' <<<"$output")" -eq 1 ]
	# the example queries of examples/prometheus.yml answer from the default series
	n=0
	while read -r q; do
		run prom_query "$q"
		echo "$q: $output"
		[ "$(jq -r .status <<<"$output")" = success ]
		[ "$(jq -r '.data.result | length' <<<"$output")" -gt 0 ]
		n=$((n + 1))
	done < <(sed -n 's/^#   \(.*idlescope_.*\)$/\1/p' "$BATS_TEST_DIRNAME/../../examples/prometheus.yml")
	[ "$n" -eq 4 ]
}

@test "-i: scrapes get the snapshot of the last interval" {
	start_serve --listen 127.0.0.1:0 -i 1.5
	local a b c
	a=$(curl -sS "$URL" | sed -n 's/^idlescope_counted_seconds_total //p')
	b=$(curl -sS "$URL" | sed -n 's/^idlescope_counted_seconds_total //p')
	[ -n "$a" ] && [ "$a" = "$b" ]
	sleep 1.6
	c=$(curl -sS "$URL" | sed -n 's/^idlescope_counted_seconds_total //p')
	awk -v a="$a" -v c="$c" 'BEGIN { exit !(c >= a + 1.4 && c <= a + 3.2) }'
}

@test "-C 1: only CPU 1's series" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	start_serve --listen 127.0.0.1:0 -C 1
	run curl -sS "$URL"
	[[ "$output" == *'cpu="1"'* ]]
	[[ "$output" != *'cpu="0"'* ]]
}

# IDs of the BPF programs process $1 holds (its fdinfo; other sessions on
# the machine do not count).
progs_of() {
	grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u
}

# How many of the programs $@ are still loaded, after up to 3 s (RCU).
still_loaded() {
	local id n
	for _ in $(seq 30); do
		n=0
		for id in "$@"; do
			bpftool prog show id "$id" >/dev/null 2>&1 && n=$((n + 1))
		done
		[ "$n" -eq 0 ] && break
		sleep 0.1
	done
	echo "$n"
}

@test "SIGINT and SIGTERM: exit 0, the BPF programs detached" {
	local sig ids
	for sig in INT TERM; do
		start_serve --listen 127.0.0.1:0
		curl -sSf -o /dev/null "$URL"
		ids=$(progs_of "$SERVE_PID")
		[ -n "$ids" ]
		kill -"$sig" "$SERVE_PID"
		status=0
		wait "$SERVE_PID" || status=$?
		SERVE_PID=
		[ "$status" -eq 0 ]
		# shellcheck disable=SC2086 # one ID per word
		[ "$(still_loaded $ids)" -eq 0 ]
		[ ! -s "$BATS_TEST_TMPDIR/serve.out.err" ]
	done
}

@test "serve exports its own cost: program runs within bpftool's reads around the scrape, map memory equal to bpftool's, process figures from /proc" {
	command -v bpftool >/dev/null || skip "no bpftool"
	STATS_OLD=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -qw kernel.bpf_stats_enabled=1
	start_serve --listen 127.0.0.1:0
	sleep 1
	local m=$BATS_TEST_TMPDIR/m.txt id before after got prog=tp_btf_local_timer_entry
	# a program that runs on a busy host too, as textfile.bats takes (cpu_idle
	# ran 0 times in 1 s while other builds kept both CPUs busy); x86 only
	id=$(bpf_prog_of_pid "$SERVE_PID" "$prog") || {
		prog=tp_btf_cpu_idle
		id=$(bpf_prog_of_pid "$SERVE_PID" "$prog")
	}
	before=$(bpf_prog_runs "$id")
	curl -sS -o "$m" "$URL"
	after=$(bpf_prog_runs "$id")
	got=$(sed -n "s/^idlescope_bpf_program_runs_total{program=\"$prog\"} \\([0-9]*\\)\$/\\1/p" "$m")
	echo "bpftool $before, scrape $got, bpftool $after"
	[ "$after" -gt 0 ]
	[ "$before" -le "$got" ] && [ "$got" -le "$after" ]
	grep -qx 'idlescope_bpf_stats_enabled 1' "$m"
	grep -qx 'idlescope_dropped_total{reason="cpu_out_of_range"} 0' "$m"
	[ "$(grep -c '^idlescope_dropped_total{' "$m")" -eq 3 ]
	grep -q "^idlescope_bpf_program_run_seconds_total{program=\"$prog\"} 0\\.[0-9]" "$m"
	# the maps: bpftool's memlock of the maps the process holds, summed
	[ "$(sed -n 's/^idlescope_bpf_map_memory_bytes //p' "$m")" -eq "$(bpftool_map_memlock_of_pid "$SERVE_PID")" ]
	# the process: RSS within 1 MB of VmRSS read now, CPU time under the wall time
	local rss vm
	rss=$(sed -n 's/^process_resident_memory_bytes //p' "$m")
	vm=$(awk '$1 == "VmRSS:" { print $2 * 1024 }' /proc/"$SERVE_PID"/status)
	[ $(( rss > vm ? rss - vm : vm - rss )) -lt 1048576 ]
	awk '/^process_cpu_seconds_total / { exit !($2 > 0 && $2 < 30) }' "$m"
	run promtool check metrics <"$m"
	[ "$status" -eq 0 ] && [ -z "$output" ]
}

# Exit cost without a table (no cpuidle driver: docs/metrics.md#exit-cost):
# the family is declared but has no sample, and nothing is early.
# bats test_tags=oracle,nodriver
@test "exit cost families without a cpuidle driver: no declared cost, no early period" {
	require_no_cpuidle_driver
	local d=$BATS_TEST_TMPDIR f
	start_serve --listen 127.0.0.1:0 --per-cpu-detail
	cyclictest --laptop -q -t "$(nproc)" -a -i 700 -D 3 >/dev/null 2>&1 3>&- &
	LOAD_PID=$!
	sleep 2
	curl -sS "$URL" >"$d/m"
	grep -q '^# TYPE idlescope_idle_state_exit_cost_seconds_total counter' "$d/m"
	# idle periods were counted, so the families had something to declare
	run awk '/^idlescope_idle_state_entries_total\{/ { n += $NF } END { print n + 0 }' "$d/m"
	[ "$output" -gt 0 ]
	run grep -c '^idlescope_idle_state_exit_cost_seconds_total{' "$d/m"
	[ "$output" -eq 0 ]
	run awk '/^idlescope_idle_state_early(_seconds)?_total\{/ && $NF != 0' "$d/m"
	[ -z "$output" ]
}

# Exit cost (docs/metrics.md#exit-cost): the declared cost per CPU and state
# is its entries times the exit latency sysfs declares (read here), and no
# sample where there is no table; early periods at most the entries and,
# being shorter than the target residency each, their time below early x
# target. State names may hold spaces ("haltpoll idle"): the sysfs table is
# tab-separated and a sample's value is its last field.
# bats test_tags=oracle
@test "exit cost families: declared = entries x sysfs latency per CPU and state; early within entries and targets" {
	require_cpuidle_driver
	start_serve --listen 127.0.0.1:0 --per-cpu-detail
	local d=$BATS_TEST_TMPDIR c url2 f
	# and one in the default mode, where these families are per state over the CPUs
	"$IDLESCOPE" serve --listen 127.0.0.1:0 >"$d/serve2.out" 2>"$d/serve2.err" 3>&- &
	SERVE2_PID=$!
	url2=$(serve_url "$d/serve2.out" "$SERVE2_PID")
	cyclictest --laptop -q -t "$(nproc)" -a -i 700 -D 3 >/dev/null 2>&1 3>&- &
	LOAD_PID=$!
	sleep 2
	curl -sS "$URL" >"$d/m"
	curl -sS "$url2" >"$d/m2"
	# (the oracle guests have no promtool)
	if command -v promtool >/dev/null; then
		promtool check metrics <"$d/m"
		promtool check metrics <"$d/m2"
	fi
	for f in "$d/m" "$d/m2"; do
		grep -q '^# TYPE idlescope_idle_state_exit_cost_seconds_total counter' "$f"
	done
	# Per CPU and state (--per-cpu-detail), and per state over the CPUs (the
	# default), each against the same scrape's entries per CPU and state and
	# the sysfs latency and target of that CPU's state: the declared cost
	# exactly (serve prints whole nanoseconds), early at most the entries,
	# its time at most early periods as long as the (longest) target.
	for f in /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state*; do
		c=${f#/sys/devices/system/cpu/cpu}
		printf '%s\t%s\t%s\t%s\n' "${c%%/*}" "$(cat "$f/name")" "$(cat "$f/latency")" "$(cat "$f/residency")"
	done >"$d/table"
	for f in "$d/m" "$d/m2"; do
		run awk -v per_cpu="$([ "$f" = "$d/m" ] && echo 1 || echo 0)" '
			function label(l, name,  v) { v = l; if (v !~ name "=\"") return ""
				sub(".*" name "=\"", "", v); sub(/".*/, "", v); return v }
			FILENAME ~ /table$/ { split($0, t, "\t"); lat[t[1] " " t[2]] = t[3]; res[t[1] " " t[2]] = t[4]; rows++; next }
			/^idlescope_idle_state_entries_total\{/ {
				c = label($0, "cpu"); s = label($0, "state"); k = per_cpu ? c " " s : s
				if (!((c " " s) in lat)) { print "no sysfs state " c " " s; bad = 1 }
				want[k] += $NF * lat[c " " s] * 1e-6; ent[k] += $NF; total += $NF
				if (res[c " " s] > tgt[k]) tgt[k] = res[c " " s]
			}
			/^idlescope_idle_state_(exit_cost_seconds|early|early_seconds)_total\{/ {
				c = label($0, "cpu"); s = label($0, "state")
				if ((c != "") != per_cpu) { print "cpu label " (per_cpu ? "missing" : "in the default mode") ": " $0; bad = 1 }
				n = $1; sub(/\{.*/, "", n); k = per_cpu ? c " " s : s; v[n, k] = $NF; seen[k] = 1
			}
			END {
				if (!rows || !total) { print "nothing to compare: " rows " sysfs states, " total " entries"; bad = 1 }
				for (k in ent) {
					if (!(k in seen)) { print "no exit cost or early samples for " k; bad = 1; continue }
					cost = v["idlescope_idle_state_exit_cost_seconds_total", k]
					early = v["idlescope_idle_state_early_total", k]
					et = v["idlescope_idle_state_early_seconds_total", k]
					dd = cost - want[k]; if (dd < 0) dd = -dd
					if (dd > 1e-9 + want[k] * 1e-9 || early > ent[k] || et > early * tgt[k] * 1e-6 + 1e-9) {
						printf "%s: entries %d cost %s want %.9f early %s/%s s (target %s us)\n", k, ent[k], cost, want[k], early, et, tgt[k]
						bad = 1
					}
				}
				exit bad
			}' "$d/table" "$f"
		echo "$output"
		[ "$status" -eq 0 ]
	done
}

# Slow clients (docs/metrics.md#limits): 256 connections at once, a new one
# cutting the one that has waited longest for its request; each request read
# and answered within 10 s. Before, 64 unfinished requests locked every
# scraper out until MHD's idle timeout, which each trickled byte restarts.
@test "slow clients: 300 unfinished requests from one address lock no scraper out; the oldest waiting are cut" {
	command -v python3 >/dev/null || skip "no python3 (the raw HTTP clients are Python)"
	start_serve --listen 127.0.0.1:0
	hold_connections 300 127.0.0.1 0
	# a scraper on another address, and one on the attacker's own
	[ "$(curl -s -o /dev/null -m 5 --interface 127.0.0.2 -w '%{http_code}' "$URL")" = 200 ]
	[ "$(curl -s -o /dev/null -m 5 -w '%{http_code}' "$URL")" = 200 ]
	[ "$(hold_field opened)" -eq 300 ]
	# the 44 past 256 (and the scrapers) made room by cutting the first ones held
	hold_wait_closed 44 5
	[ "$(hold_field first_closed)" -eq 0 ]
	kill -0 "$SERVE_PID"
}

@test "slow clients: a request trickling a byte a second is cut at the 10 s deadline" {
	command -v python3 >/dev/null || skip "no python3 (the raw HTTP clients are Python)"
	start_serve --listen 127.0.0.1:0
	hold_connections 1 127.0.0.1 1
	sleep 3
	[ "$(hold_field closed)" -eq 0 ] # the trickle keeps it from being idle
	hold_wait_closed 1 17
	[ "$(curl -s -o /dev/null -m 5 -w '%{http_code}' "$URL")" = 200 ]
}

# A raw request on a new connection; prints what came back.
raw_request() { # bytes (printf format)
	python3 -c '
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
s.sendall(sys.argv[3].encode("latin-1").decode("unicode_escape").encode("latin-1"))
out = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    out += b
sys.stdout.write(out.decode("latin-1"))' "${1%:*}" "${1##*:}" "$2"
}

@test "malformed requests: a NUL in the path (raw or %00) or two Content-Lengths get no metrics, one answer each" {
	command -v python3 >/dev/null || skip "no python3 (the raw HTTP clients are Python)"
	start_serve --listen 127.0.0.1:0
	local t base=${URL%/metrics} out
	t=$(serve_target "$URL")
	[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/metrics%00.txt")" = 404 ]
	[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/%6detrics")" = 200 ] # other escapes still decode
	out=$(raw_request "$t" 'GET /metrics\x00/../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n')
	[[ $out == "HTTP/1.1 400 "* ]]
	[[ $out != *idlescope_* ]]
	out=$(raw_request "$t" 'GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 5\r\n\r\n')
	[[ $out == "HTTP/1.1 400 "* ]]
	[[ $out != *idlescope_* ]]
	[ "$(grep -c '^HTTP/1.1 ' <<<"$out")" -eq 1 ]
	out=$(raw_request "$t" 'GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n')
	[[ $out == "HTTP/1.1 400 "* ]]
}

@test "-v: libmicrohttpd takes the options in order (no complaint about the logger)" {
	start_serve --listen 127.0.0.1:0 -v
	curl -sSf -o /dev/null "$URL"
	run grep -c 'is not the first option' "$BATS_TEST_TMPDIR/serve.out.err"
	[ "$output" -eq 0 ]
}
