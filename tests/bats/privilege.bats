#!/usr/bin/env bats
# Privilege and exposure: without CAP_BPF/CAP_PERFMON one line naming them
# (exit 1, no libbpf log, nothing on stdout); and no command writes a file
# the user did not name (strace of every write-mode open, create, rename,
# link and unlink).

bats_require_minimum_version 1.5.0
load helpers

ONE_LINE='idlescope: need CAP_BPF and CAP_PERFMON to load BPF programs (run as root)'

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	chmod 0777 "$BATS_TEST_TMPDIR"
}

# Runs idlescope as nobody with no capabilities; $status, stdout in out, stderr in err.
as_nobody() {
	status=0
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$IDLESCOPE" "$@" >out 2>err || status=$?
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
