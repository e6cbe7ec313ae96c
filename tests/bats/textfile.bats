#!/usr/bin/env bats
# `record --format prom -o DIR/idlescope.prom`: the file for node_exporter's
# textfile collector. The real prometheus-node-exporter (Debian's, run here
# on a loopback port as nobody, never its packaged service) reads it; the
# scrape must carry the file's samples unchanged, with no scrape error and
# clean under promtool; the values are checked against /proc/stat's idle
# time and the sysfs cpuidle counters, the -i rewrites for completeness.

bats_require_minimum_version 1.5.0
load helpers

PROM_SAMPLES=$BATS_TEST_DIRNAME/../lib/prom_samples.py

setup() {
	REC_PID=
	NE_PID=
	SERVE_PID=
	STATS_OLD=
	# node_exporter runs as nobody: the directory must be open to it
	TF_DIR=$(mktemp -d /tmp/idlescope-textfile.XXXXXX)
	chmod 755 "$TF_DIR"
	TF=$TF_DIR/idlescope.prom
}

teardown() {
	local p
	# ours only, by pid: record, node_exporter, serve
	for p in $REC_PID $NE_PID $SERVE_PID; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	[ -z "$STATS_OLD" ] || sysctl -qw kernel.bpf_stats_enabled="$STATS_OLD"
	rm -rf "$TF_DIR"
}

# record -i ... --format prom -o TF in the background (REC_PID), until its
# first file is there (written at the start).
start_record_i() {
	local _
	rm -f "$TF"
	"$IDLESCOPE" record "$@" --format prom -o "$TF" 3>&- &
	REC_PID=$!
	for _ in $(seq 50); do
		[ -e "$TF" ] && return 0
		sleep 0.1
	done
	return 1
}

require_node_exporter() {
	command -v prometheus-node-exporter >/dev/null ||
		skip "prometheus-node-exporter not installed (make deps)"
	command -v promtool >/dev/null || skip "promtool not installed (make deps)"
	/usr/bin/python3 -c 'import prometheus_client' 2>/dev/null ||
		skip "python3-prometheus-client not installed (make deps)"
}

# node_exporter with only the textfile collector on TF_DIR, as nobody, on
# a free loopback port; sets NE_URL and NE_PID. (With its default
# collectors too the file's samples come through the same, but promtool
# lints their own names, node_memory_MemFree_bytes's camelCase and more.)
start_node_exporter() {
	local log=$BATS_TEST_TMPDIR/ne.log port
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		prometheus-node-exporter --web.listen-address=127.0.0.1:0 \
		--collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$TF_DIR" >"$log" 2>&1 3>&- &
	NE_PID=$!
	for _ in $(seq 100); do
		port=$(sed -n 's/.*msg="Listening on" address=127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log")
		[ -n "$port" ] && { NE_URL=http://127.0.0.1:$port/metrics; return 0; }
		kill -0 "$NE_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "node_exporter did not start: $(cat "$log")" >&2
	return 1
}

# "cpuN idle" per CPU from /proc/stat: idle + iowait, in USER_HZ ticks.
proc_idle() {
	awk '/^cpu[0-9]/ { print $1, $5 + $6 }' /proc/stat
}

@test "--format prom: -i without -o is a usage error, an unwritable -o fails before BPF loads, other commands refuse prom" {
	local mark
	run -2 "$IDLESCOPE" record --format prom -i 1 -d 1
	[ "$output" = "idlescope: --format prom -i rewrites a file: give it with -o FILE" ]
	mark=$(bpf_prog_id_mark)
	run -1 "$IDLESCOPE" record --format prom -d 1 -o "$TF_DIR/no/such/idlescope.prom"
	[ "$output" = "idlescope: cannot write '$TF_DIR/no/such/idlescope.prom': No such file or directory" ]
	run -1 "$IDLESCOPE" record --format prom -d 1 -o "$TF_DIR"
	[ "$output" = "idlescope: cannot write '$TF_DIR': Is a directory" ]
	[ "$(our_bpf_progs_since "$mark")" -eq 0 ]
	[ -z "$(ls -A "$TF_DIR")" ] # no temporary file left by the checks
	run -2 "$IDLESCOPE" hist --format prom -d 1
	[[ "${lines[0]}" == "idlescope hist: unknown format 'prom' (table or json)" ]]
	run -2 "$IDLESCOPE" replay --format prom /dev/null
	run -2 "$IDLESCOPE" info --format prom
	run -2 "$IDLESCOPE" record --format bogus -d 1
	[[ "${lines[0]}" == "idlescope record: unknown format 'bogus' (table, json, csv or prom)" ]]
}

@test "node_exporter's textfile collector serves the file's samples unchanged: no scrape error, promtool clean, read as nobody" {
	require_node_exporter
	local m=$BATS_TEST_TMPDIR/scrape n
	# a new file is readable by the collector's user whatever the umask
	(umask 077 && "$IDLESCOPE" record -d 1 --format prom -o "$TF")
	[ "$(stat -c %a "$TF")" = 644 ]
	[ "$(ls -A "$TF_DIR")" = idlescope.prom ] # no temporary file beside it
	run promtool check metrics <"$TF"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	start_node_exporter
	curl -sSf -o "$m" "$NE_URL"
	grep -qx 'node_textfile_scrape_error 0' "$m"
	# node_exporter stamps the file it read with its mtime
	n=$(sed -n "s|^node_textfile_mtime_seconds{file=\"$TF\"} ||p" "$m")
	[ "$(awk -v n="$n" 'BEGIN { printf "%d", n }')" -eq "$(stat -c %Y "$TF")" ]
	# every idlescope sample, same labels, same value, same type, both ways
	"$PROM_SAMPLES" "$TF" >"$BATS_TEST_TMPDIR/file.s"
	"$PROM_SAMPLES" "$m" idlescope_ >"$BATS_TEST_TMPDIR/scrape.s"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/file.s")" -gt 50 ]
	diff "$BATS_TEST_TMPDIR/file.s" "$BATS_TEST_TMPDIR/scrape.s"
	# node_exporter's own process families are its own; idlescope's are
	# named apart, so nothing collided (a collision is logged as an error)
	grep -qx '# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.' "$m"
	grep -q '^idlescope_process_cpu_seconds_total ' "$m"
	grep -q '^idlescope_process_resident_memory_bytes ' "$m"
	run grep 'level=error' "$BATS_TEST_TMPDIR/ne.log"
	[ "$status" -eq 1 ]
	run promtool check metrics <"$m"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

# Why the process families are named idlescope_process_* in the file: under
# their standard names node_exporter keeps its own and drops the file's.
@test "node_exporter drops a file's process_cpu_seconds_total (why the textfile names it idlescope_process_cpu_seconds_total)" {
	require_node_exporter
	local m=$BATS_TEST_TMPDIR/scrape
	"$IDLESCOPE" record -d 0.5 --format prom -o "$TF_DIR/x"
	sed 's/idlescope_process_/process_/g' "$TF_DIR/x" >"$TF"
	rm "$TF_DIR/x"
	start_node_exporter
	curl -sS -o "$m" "$NE_URL"
	for _ in $(seq 50); do # logged as the scrape ends
		grep -q 'level=error msg="error gathering metrics: .*gathered metric family process_cpu_seconds_total has help' "$BATS_TEST_TMPDIR/ne.log" && break
		sleep 0.1
	done
	grep -q 'level=error msg="error gathering metrics: .*gathered metric family process_cpu_seconds_total has help' "$BATS_TEST_TMPDIR/ne.log"
	grep -qx '# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.' "$m"
}

# Each CPU's idle time in the file (counted time minus busy: completed and
# in-flight periods) lies between the kernel's idle time (/proc/stat idle +
# iowait, USER_HZ ticks) over a span inside the window (the command's reads)
# and over one outside it (before record starts, after it exits); the
# allowances are those of nodriver.bats's finer check of record itself.
# Runs with and without a cpuidle driver.
# bats test_tags=oracle,nodriver
@test "each CPU's idle seconds in the file within /proc/stat's idle time inside and outside the window" {
	local d=$BATS_TEST_TMPDIR
	proc_idle >"$d/o1"
	"$IDLESCOPE" record --format prom -o "$TF" -- sh -c \
		"awk '/^cpu[0-9]/ { print \$1, \$5 + \$6 }' /proc/stat >$d/i1; sleep 3; awk '/^cpu[0-9]/ { print \$1, \$5 + \$6 }' /proc/stat >$d/i2"
	proc_idle >"$d/o2"
	run awk -v hz="$(getconf CLK_TCK)" '
		FILENAME ~ /o1$/ { o1[$1] = $2 } FILENAME ~ /i1$/ { i1[$1] = $2 }
		FILENAME ~ /i2$/ { i2[$1] = $2 } FILENAME ~ /o2$/ { o2[$1] = $2 }
		$1 == "idlescope_counted_seconds_total" { w = $2 }
		$1 ~ /^idlescope_cpu_busy_seconds_total\{/ { c = $1; gsub(/[^0-9]/, "", c); busy["cpu" c] = $2 }
		END {
			if (w < 3) print "counted " w " s, the command slept 3 s"
			for (c in o1) {
				n++
				idle = w - busy[c]; lo = (i2[c] - i1[c]) / hz; hi = (o2[c] - o1[c]) / hz
				printf "%s: idle %.3f s, /proc/stat inside %.2f, outside %.2f\n", c, idle, lo, hi
				# 2 ticks of rounding each side; the idle loop around
				# cpu_idle is not in a period (more per period under
				# TCG: 10% allowed), interrupts handled in idle are not
				# in /proc/stat (up to 5%, nodriver.bats)
				if (!(c in busy) || idle < lo * 0.9 - 2 / hz || idle > hi * 1.05 + 2 / hz) bad = bad " " c
			}
			if (n < 1 || bad != "") { print "out of bounds:" bad; exit 1 }
		}' "$d/o1" "$d/i1" "$d/i2" "$d/o2" "$TF"
	echo "$output"
	[ "$status" -eq 0 ]
}

# The per-CPU entries of the file against sysfs usage (+ rejected): at least
# what sysfs counted inside the window, at most what it counted outside it,
# 2 periods of slack for an exit straddling a read.
# bats test_tags=oracle
@test "each CPU and state's entries in the file within the sysfs usage deltas inside and outside the window" {
	require_cpuidle_driver
	local d=$BATS_TEST_TMPDIR usage
	# "CPU:NAME<tab>COUNT": a state's name may hold spaces ("haltpoll idle")
	# shellcheck disable=SC2016 # expanded by the sh that runs it
	usage='for s in /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*; do c=${s#/sys/devices/system/cpu/cpu}; printf "%s:%s\t%s\n" "${c%%/*}" "$(cat $s/name)" "$(( $(cat $s/usage) + $(cat $s/rejected 2>/dev/null || echo 0) ))"; done'
	sh -c "$usage" >"$d/o1"
	"$IDLESCOPE" record --format prom -o "$TF" -- sh -c "$usage >$d/i1; sleep 2; $usage >$d/i2"
	sh -c "$usage" >"$d/o2"
	sed -n 's/^idlescope_idle_state_entries_total{cpu="\([0-9]*\)",state="\(.*\)"} \([0-9]*\)$/\1:\2\t\3/p' "$TF" >"$d/bpf"
	run awk -F '\t' '
		FILENAME ~ /o1$/ { o1[$1] = $2 } FILENAME ~ /i1$/ { i1[$1] = $2 }
		FILENAME ~ /i2$/ { i2[$1] = $2 } FILENAME ~ /o2$/ { o2[$1] = $2 }
		FILENAME ~ /bpf$/ { b[$1] = $2 }
		END {
			for (k in o1) {
				n++
				lo = i2[k] - i1[k]; hi = o2[k] - o1[k]
				printf "%s: file %s, sysfs inside %d, outside %d\n", k, b[k], lo, hi
				if (!(k in b) || b[k] < lo - 2 || b[k] > hi + 2) bad = bad " " k
			}
			if (n < 1 || bad != "") { print "out of bounds:" bad; exit 1 }
		}' "$d/o1" "$d/i1" "$d/i2" "$d/o2" "$d/bpf"
	echo "$output"
	[ "$status" -eq 0 ]
}

# A snapshot is complete when its last family, the process's memory, is there.
complete() { # file
	[ "$(tail -n 1 "$1" | cut -d' ' -f1)" = idlescope_process_resident_memory_bytes ]
}

@test "-i: the file rewritten every interval, cumulative, never partial; node_exporter scrapes it meanwhile; SIGINT and SIGTERM leave it complete and no temporary file" {
	local d=$BATS_TEST_TMPDIR sig i n prev c last types
	for sig in INT TERM; do
		rm -f "$d"/copy.*
		start_record_i -i 0.2
		# a reader opening it at any moment gets one whole snapshot
		n=0
		prev=
		for i in $(seq 100); do
			cat "$TF" >"$d/copy.$i" # cp refuses a file renamed over mid-copy
			c=$(sed -n 's/^idlescope_counted_seconds_total //p' "$d/copy.$i")
			[ "$c" != "$prev" ] && n=$((n + 1))
			prev=$c
			sleep 0.02
		done
		types=$(grep -c '^# TYPE ' "$d/copy.1")
		for i in $(seq 100); do
			complete "$d/copy.$i" || { echo "copy $i incomplete"; tail -n 3 "$d/copy.$i"; false; }
			[ "$(grep -c '^# TYPE ' "$d/copy.$i")" -eq "$types" ]
		done
		echo "SIG$sig: $n distinct snapshots in 100 reads over ~3 s"
		[ "$n" -ge 5 ]
		# cumulative: every counter, bucket, _sum and _count of the last
		# read at least the first's
		run awk 'NR == FNR { if ($1 !~ /^#/) v[$1] = $2; next }
			 $1 ~ /(_total|_bucket|_sum|_count)(\{|$)/ && ($1 in v) && $2 + 0 < v[$1] + 0 { print "went back: " $0 " < " v[$1] }' \
			"$d/copy.1" "$d/copy.100"
		[ -z "$output" ]
		last=$(sed -n 's/^idlescope_counted_seconds_total //p' "$d/copy.100")
		kill -"$sig" "$REC_PID"
		status=0
		wait "$REC_PID" || status=$?
		REC_PID=
		[ "$status" -eq 0 ]
		[ "$(ls -A "$TF_DIR")" = idlescope.prom ]
		complete "$TF"
		awk -v a="$last" '$1 == "idlescope_counted_seconds_total" { ok = $2 >= a } END { exit !ok }' "$TF"
	done
	command -v promtool >/dev/null && promtool check metrics <"$d/copy.50"
}

@test "-i: node_exporter's scrapes during the rewrites: no scrape error, the families there each time" {
	require_node_exporter
	local m=$BATS_TEST_TMPDIR/scrape i a b
	start_record_i -i 0.1
	start_node_exporter
	for i in $(seq 30); do
		curl -sSf -o "$m" "$NE_URL"
		grep -qx 'node_textfile_scrape_error 0' "$m"
		grep -q '^idlescope_process_resident_memory_bytes ' "$m"
		b=$(sed -n 's/^idlescope_counted_seconds_total //p' "$m")
		[ -n "$b" ]
		[ -z "$a" ] || awk -v a="$a" -v b="$b" 'BEGIN { exit !(b + 0 >= a + 0) }'
		a=$b
		sleep 0.05
	done
	run grep 'level=error' "$BATS_TEST_TMPDIR/ne.log"
	[ "$status" -eq 1 ]
}

@test "the file has serve's families and series (process_* named idlescope_process_*)" {
	require_node_exporter # for prom_samples.py's parser
	local out=$BATS_TEST_TMPDIR/serve.out url
	"$IDLESCOPE" serve --listen 127.0.0.1:0 >"$out" 2>&1 3>&- &
	SERVE_PID=$!
	for _ in $(seq 100); do
		url=$(sed -n 's/^idlescope serve: \(http:.*\)$/\1/p' "$out")
		[ -n "$url" ] && break
		sleep 0.1
	done
	curl -sSf -o "$BATS_TEST_TMPDIR/serve" "$url"
	"$IDLESCOPE" record -d 0.5 --format prom -o "$TF"
	"$PROM_SAMPLES" --series "$BATS_TEST_TMPDIR/serve" | sed 's/^process_/idlescope_process_/' | LC_ALL=C sort >"$BATS_TEST_TMPDIR/serve.s"
	# both attach cpuhp_exit's program (record follows hotplug, every live
	# command watches the disable flags of a CPU that came back)
	"$PROM_SAMPLES" --series "$TF" | LC_ALL=C sort >"$BATS_TEST_TMPDIR/file.s"
	grep -q 'program="\(tp_btf\|raw_tp\)_cpuhp_exit"' "$BATS_TEST_TMPDIR/serve.s"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/file.s")" -gt 50 ]
	diff "$BATS_TEST_TMPDIR/serve.s" "$BATS_TEST_TMPDIR/file.s"
}

# The counted seconds of the file now.
counted() {
	sed -n 's/^idlescope_counted_seconds_total //p' "$TF"
}

# Waits for n rewrites of the file after this call (up to 10 s).
rewrites() { # n
	local c k=0 prev
	prev=$(counted)
	for _ in $(seq 200); do
		c=$(counted)
		if [ -n "$c" ] && [ "$c" != "$prev" ]; then
			k=$((k + 1))
			prev=$c
			[ "$k" -ge "$1" ] && return 0
		fi
		sleep 0.05
	done
	return 1
}

# Part 5 in the textfile: the observer's cost, against bpftool and /proc.
@test "the file carries record's own cost: program runs between bpftool's reads around a rewrite, map memory equal to bpftool's, RSS from /proc" {
	command -v bpftool >/dev/null || skip "no bpftool"
	local f=$BATS_TEST_TMPDIR/f id before after got rss vm
	STATS_OLD=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -qw kernel.bpf_stats_enabled=1
	start_record_i -i 0.2
	# a program that runs on a busy host too (cpu_idle may not)
	id=$(bpf_prog_of_pid "$REC_PID" tp_btf_local_timer_entry)
	before=$(bpf_prog_runs "$id")
	# the second rewrite from now read the maps after bpftool did; the copy
	# (that one or a later one) was written before bpftool reads again
	rewrites 2
	cp "$TF" "$f"
	after=$(bpf_prog_runs "$id")
	got=$(sed -n 's/^idlescope_bpf_program_runs_total{program="tp_btf_local_timer_entry"} \([0-9]*\)$/\1/p' "$f")
	echo "bpftool $before, file $got, bpftool $after"
	[ "$after" -gt 0 ]
	[ "$before" -le "$got" ]
	[ "$got" -le "$after" ]
	grep -qx 'idlescope_bpf_stats_enabled 1' "$f"
	[ "$(grep -c '^idlescope_dropped_total{' "$f")" -eq 3 ]
	[ "$(sed -n 's/^idlescope_bpf_map_memory_bytes //p' "$f")" -eq "$(bpftool_map_memlock_of_pid "$REC_PID")" ]
	rss=$(sed -n 's/^idlescope_process_resident_memory_bytes //p' "$f")
	vm=$(($(rss_kb_of_pid "$REC_PID") * 1024))
	echo "RSS file $rss, /proc $vm"
	[ $((rss > vm ? rss - vm : vm - rss)) -lt 1048576 ]
	awk '/^idlescope_process_cpu_seconds_total / { exit !($2 > 0 && $2 < 30) }' "$f"
}
