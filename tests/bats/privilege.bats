#!/usr/bin/env bats
# Privilege and exposure: without CAP_BPF/CAP_PERFMON one line naming them
# (exit 1, no libbpf log, nothing on stdout); with them as file capabilities
# (setcap on a copy of the binary) record, hist, top and serve work for an
# unprivileged user, ab says in one line that it needs root; and no command
# writes a file the user did not name (strace of every write-mode open,
# create, rename, link and unlink).

bats_require_minimum_version 1.5.0
load helpers

ONE_LINE='idlescope: need CAP_BPF and CAP_PERFMON to load BPF programs (run as root)'

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	chmod 0777 "$BATS_TEST_TMPDIR"
	BIN=
	SERVE_PID=
}

teardown() {
	[ -z "$SERVE_PID" ] || { kill "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; } || true
}

# Runs idlescope (or $BIN) as nobody with no inherited capabilities (a
# setcap'd $BIN still gets its file capabilities); $status, stdout in out,
# stderr in err.
as_nobody() {
	status=0
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"${BIN:-$IDLESCOPE}" "$@" >out 2>err || status=$?
}

# BIN: a copy of the binary in the test's directory with file capabilities
# CAPS (the shared binary is never setcap'd).
capped_copy() { # caps
	mkdir -m 0755 bin
	cp "$IDLESCOPE" bin/idlescope
	chmod 0755 bin/idlescope
	setcap "$1+ep" bin/idlescope
	BIN=$PWD/bin/idlescope
	[ "$(getcap "$BIN" | sed 's/.* //; s/=ep$//' | tr , '\n' | sort)" = "$(tr , '\n' <<<"$1" | sort)" ]
}

@test "as nobody: record, hist print one line naming CAP_BPF/CAP_PERFMON, exit 1" {
	for args in "record -d 1" "record -d 1 --format json -i 0.5" "hist residency -d 1" \
		"record -v -d 1" "record --packing -d 1 -- true"; do
		# shellcheck disable=SC2086
		as_nobody $args
		echo "$args: $status: $(cat err)"
		[ "$status" -eq 1 ]
		[ ! -s out ]
		if [[ $args == *-v* ]]; then
			grep -qx "$ONE_LINE" err # -v adds libbpf's log on purpose
		else
			[ "$(cat err)" = "$ONE_LINE" ]
		fi
	done
}

@test "root without CAP_BPF or CAP_PERFMON: the same line" {
	for drop in cap_bpf,cap_perfmon,cap_sys_admin cap_perfmon,cap_sys_admin cap_bpf,cap_sys_admin; do
		status=0
		capsh --drop="$drop" -- -c "exec '$IDLESCOPE' record -d 1 --format json" >out 2>err || status=$?
		echo "drop $drop: $status: $(cat err)"
		[ "$status" -eq 1 ]
		[ ! -s out ]
		[ "$(cat err)" = "$ONE_LINE" ]
	done
}

@test "as nobody: compare still works (it needs no privileges)" {
	"$IDLESCOPE" record -d 0.5 --format json -o a.json
	cp a.json b.json
	chmod 0644 a.json b.json
	as_nobody compare a.json b.json
	[ "$status" -eq 0 ]
	[ -s out ]
}

@test "setcap cap_bpf,cap_perfmon: record and hist as nobody" {
	capped_copy cap_bpf,cap_perfmon
	as_nobody record -d 1 --format json
	echo "record: $status: $(cat err)"
	[ "$status" -eq 0 ]
	# idle periods counted by the BPF programs the unprivileged run loaded
	[ "$(jq '[.cpus[].states[].entries] | add' out)" -gt 0 ]
	as_nobody hist residency -d 0.5 --format json
	[ "$status" -eq 0 ]
	[ "$(jq -r .schema out)" = idlescope-hist/1 ]
}

# The hrtimer functions in record's JSON: "address name" per line.
timer_names() { # json
	jq -r '.wakeup_details.timers[] | "\(.function) \(.name)"' "$1" | sort -u
}

@test "setcap: timer function names need cap_syslog too (kallsyms), else addresses" {
	[ "$(cat /proc/sys/kernel/kptr_restrict)" != 2 ] || skip "kptr_restrict=2: no names for anyone"
	capped_copy cap_bpf,cap_perfmon,cap_syslog
	# short sleeps: idle periods that a timer (hrtimer_wakeup) ends
	as_nobody record --format json -- sh -c 'for i in $(seq 50); do sleep 0.01; done'
	[ "$status" -eq 0 ]
	timer_names out >named
	[ -s named ]
	# the oracle: root's /proc/kallsyms at each address
	local addr name n=0
	while read -r addr name; do
		awk -v a="$(printf '%016x' "$addr")" '$1 == a { print $3 }' /proc/kallsyms | grep -qx -- "$name"
		n=$((n + 1))
	done <named
	echo "$n timer functions named as kallsyms names them"
	if setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all head -1 /proc/kallsyms |
		grep -q '^0000000000000000 '; then
		rm -rf bin
		capped_copy cap_bpf,cap_perfmon
		as_nobody record --format json -- sh -c 'for i in $(seq 50); do sleep 0.01; done'
		[ "$status" -eq 0 ]
		timer_names out >unnamed
		[ -s unnamed ]
		[ -z "$(awk '$1 != $2' unnamed)" ] # the name is the address
	fi
}

@test "setcap cap_bpf,cap_perfmon: top as nobody prints its intervals" {
	capped_copy cap_bpf,cap_perfmon
	as_nobody top -i 0.3 -d 1 </dev/null
	echo "top: $status: $(cat err)"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^idlescope top: ' out)" -ge 2 ]
	grep -q '^all ' out
}

@test "setcap cap_bpf,cap_perfmon: serve as nobody holds only those two and serves counts" {
	capped_copy cap_bpf,cap_perfmon
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$BIN" serve --listen 127.0.0.1:0 >out 2>err 3>&- &
	SERVE_PID=$!
	local url
	url=$(serve_url out "$SERVE_PID")
	# the kernel's view of the process: uid nobody, effective caps bpf (39)
	# and perfmon (38) only, and the BPF programs it holds
	[ "$(awk '/^Uid:/ { print $3 }' /proc/$SERVE_PID/status)" = "$(id -u nobody)" ]
	[ "$(awk '/^CapEff:/ { print $2 }' /proc/$SERVE_PID/status)" = 000000c000000000 ]
	local a b
	a=$(curl -sf "$url" | awk '/^idlescope_idle_state_entries_total/ { s += $2 } END { print s + 0 }')
	bpf_ids_of_pid "$SERVE_PID" | grep -q '^prog_id'
	sleep 0.5
	b=$(curl -sf "$url" | awk '/^idlescope_idle_state_entries_total/ { s += $2 } END { print s + 0 }')
	echo "entries $a then $b"
	[ "$b" -gt 0 ]
	[ "$b" -ge "$a" ]
	kill "$SERVE_PID"
	wait "$SERVE_PID"
}

@test "ab as nobody, even with file capabilities: one line saying it needs root, exit 1" {
	capped_copy cap_bpf,cap_perfmon
	for args in "--set governor=menu --repeat 1 -d 0.2" "--set kernel.timer_migration=1,0 --repeat 1 -d 0.2"; do
		# shellcheck disable=SC2086
		as_nobody ab $args
		echo "ab $args: $status: $(cat err)"
		[ "$status" -eq 1 ]
		[ ! -s out ]
		[ "$(cat err)" = 'idlescope: ab writes the settings it compares (sysfs, /proc/sys): run it as root' ]
	done
}

# Paths a traced run opened for writing or changed, one per line.
written_paths() { # strace log
	grep -E 'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|mkdir|rename|link\(|linkat|unlink|truncate' "$1" |
		grep -v '= -1 ' | sed -n 's/^[0-9]* *[a-z0-9_]*(\(AT_FDCWD, \)\{0,1\}"\([^"]*\)".*/\2/p' | sort -u
}

traced() { # log args...
	local log=$1
	shift
	strace -f -qq -o "$log" -e trace=open,openat,creat,mkdir,mkdirat,rename,renameat,renameat2,link,linkat,symlink,symlinkat,unlink,unlinkat,truncate \
		"$IDLESCOPE" "$@"
}

@test "record, hist, compare write only -o FILE (nothing in cwd, HOME or /tmp)" {
	command -v strace >/dev/null || skip "strace not installed"
	mkdir -p dest home
	local w
	HOME=$PWD/home traced rec.log record -d 0.5 --packing --format json -o "$PWD/dest/r.json" -- true
	w=$(written_paths rec.log)
	echo "record wrote: $w"
	[ "$w" = "$PWD/dest/r.json" ]
	HOME=$PWD/home traced hist.log hist residency -d 0.3 --format json -o "$PWD/dest/h.json"
	w=$(written_paths hist.log)
	echo "hist wrote: $w"
	[ "$w" = "$PWD/dest/h.json" ]
	HOME=$PWD/home traced cmp.log compare dest/r.json dest/r.json -o "$PWD/dest/c.txt"
	w=$(written_paths cmp.log)
	echo "compare wrote: $w"
	[ "$w" = "$PWD/dest/c.txt" ]
	# stdout only: nothing at all
	HOME=$PWD/home traced rec2.log record -d 0.3 >/dev/null
	w=$(written_paths rec2.log)
	echo "record to stdout wrote: $w"
	[ -z "$w" ]
	[ -z "$(ls -A home)" ]
	[ "$(ls dest | sort | paste -sd ' ')" = "c.txt h.json r.json" ]
}

# bats test_tags=oracle
@test "ab writes only the settings it varies and -o FILE (its run summaries stay in memory)" {
	command -v strace >/dev/null || skip "strace not installed"
	require_cpuidle_driver
	[ -w /proc/sys/kernel/timer_migration ] || skip "no kernel.timer_migration"
	local w
	traced ab.log ab --set kernel.timer_migration=1,0 --repeat 1 -d 0.3 -o "$PWD/ab.txt"
	w=$(written_paths ab.log | grep -v '^/proc/self/fd/[0-9]*$' || true)
	echo "ab wrote: $w"
	[ "$(echo "$w" | sort | paste -sd ' ')" = \
	  "$(printf '%s\n' "$PWD/ab.txt" /proc/sys/kernel/timer_migration | sort | paste -sd ' ')" ]
}
