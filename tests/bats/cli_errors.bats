#!/usr/bin/env bats
# Error paths: usage errors exit 2, runtime errors exit 1, one line on stderr
# starting with "idlescope:" (argp's own messages for unknown options).

bats_require_minimum_version 1.5.0
load helpers

@test "no arguments: usage on stderr, exit 2" {
	run "$IDLESCOPE"
	[ "$status" -eq 2 ]
	[[ "$output" == *"Usage: idlescope COMMAND"* ]]
}

@test "--help and --version exit 0" {
	run "$IDLESCOPE" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *record* ]]
	run "$IDLESCOPE" --version
	[ "$status" -eq 0 ]
	[[ "$output" == idlescope* ]]
	run "$IDLESCOPE" record --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"--duration"* ]]
}

@test "unknown command: exit 2" {
	run "$IDLESCOPE" frobnicate
	[ "$status" -eq 2 ]
	[[ "$output" == "idlescope: unknown command 'frobnicate'"* ]]
}

@test "unknown option: exit 2" {
	run "$IDLESCOPE" record --bogus
	[ "$status" -eq 2 ]
	[[ "$output" == *"unrecognized option"* ]]
}

@test "bad CPU lists: exit 2 with the reason" {
	run "$IDLESCOPE" record -d 1 -C 0-
	[ "$status" -eq 2 ]
	[[ "$output" == "idlescope: bad CPU list '0-'"* ]]
	run "$IDLESCOPE" record -d 1 -C 3-1
	[ "$status" -eq 2 ]
	[[ "$output" == *backwards* ]]
	run "$IDLESCOPE" record -d 1 -C 4000
	[ "$status" -eq 2 ]
	[[ "$output" == "idlescope: CPU 4000 does not exist"* ]]
	run "$IDLESCOPE" record -d 1 -C x
	[ "$status" -eq 2 ]
}

@test "bad duration, interval and format: exit 2" {
	run "$IDLESCOPE" record -d abc
	[ "$status" -eq 2 ]
	[[ "$output" == *"invalid duration 'abc'"* ]]
	run "$IDLESCOPE" record -d 0
	[ "$status" -eq 2 ]
	run "$IDLESCOPE" record -d 1 -i 1ms
	[ "$status" -eq 2 ]
	[[ "$output" == *"invalid interval"* ]]
	run "$IDLESCOPE" record -d 1 --format xml
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown format 'xml'"* ]]
}

@test "nonexistent command: clear error, exit 127, nothing loaded" {
	local mark
	mark=$(bpf_prog_id_mark)
	run -127 "$IDLESCOPE" record -- /nonexistent/cmd
	[ "$status" -eq 127 ]
	[ "$output" = "idlescope: cannot run '/nonexistent/cmd': command not found" ]
	run -127 "$IDLESCOPE" record -- no-such-command-idlescope
	[ "$status" -eq 127 ]
	[[ "$output" == *"command not found"* ]]
	[ "$(our_bpf_progs_since "$mark")" -eq 0 ]
}

@test "unwritable output file: exit 1" {
	run "$IDLESCOPE" record -d 1 -o /nonexistent/dir/out.json
	[ "$status" -eq 1 ]
	[[ "$output" == "idlescope: cannot write '/nonexistent/dir/out.json'"* ]]
}

@test "not root: one-line error, exit 1" {
	local bin="$BATS_TEST_TMPDIR/idlescope"
	cp "$IDLESCOPE" "$bin"
	chmod 0755 "$BATS_TEST_TMPDIR" "$bin"
	run setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$bin" record -d 1
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "idlescope: need CAP_BPF and CAP_PERFMON"* ]]
}

@test "make install honours PREFIX and DESTDIR" {
	# the source tree and make: the host's (the oracle guests have only tests/)
	[ -f "$BATS_TEST_DIRNAME/../../Makefile" ] && command -v make >/dev/null ||
		skip "no Makefile or make (not a source tree)"
	local dest="$BATS_TEST_TMPDIR/root"
	run make -C "$BATS_TEST_DIRNAME/../.." --no-print-directory install DESTDIR="$dest" PREFIX=/opt/is
	[ "$status" -eq 0 ]
	[ -x "$dest/opt/is/bin/idlescope" ]
	[ -f "$dest/opt/is/share/man/man1/idlescope.1" ]
	run "$dest/opt/is/bin/idlescope" --version
	[ "$status" -eq 0 ]
}
