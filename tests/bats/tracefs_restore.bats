#!/usr/bin/env bats
# tests/lib/tracefs.sh: what make bench and replay.bats use to put tracefs
# settings back. buffer_size_kb reads "7 (expanded: 1408)" until the ring
# buffer is first used; writing that text back fails ("Invalid argument"),
# so the size was never restored. Checked on a private tracefs instance.

bats_require_minimum_version 1.5.0
load helpers
. "$BATS_TEST_DIRNAME/../lib/tracefs.sh"

INST=
teardown() {
	[ -z "$INST" ] || rmdir "$INST" 2>/dev/null || true
}

@test "tracefs_value: the size in effect of an unexpanded buffer, the value of others" {
	printf '7 (expanded: 1408)\n' >"$BATS_TEST_TMPDIR/b"
	[ "$(tracefs_value "$BATS_TEST_TMPDIR/b")" = 1408 ]
	printf '2048\n' >"$BATS_TEST_TMPDIR/b"
	[ "$(tracefs_value "$BATS_TEST_TMPDIR/b")" = 2048 ]
	printf 'local [global] counter\n' >"$BATS_TEST_TMPDIR/c"
	[ "$(tracefs_value "$BATS_TEST_TMPDIR/c")" = local ]
}

@test "tracefs_restore: a changed buffer_size_kb gets its size back" {
	[ "$(id -u)" -eq 0 ] || skip "needs root (tracefs instances)"
	[ -d /sys/kernel/tracing/instances ] || skip "no tracefs instances"
	INST=/sys/kernel/tracing/instances/idlescope_restore_$$
	mkdir "$INST"
	local before
	before=$(tracefs_value "$INST/buffer_size_kb")
	echo 64 >"$INST/buffer_size_kb" # rounded to whole pages: about 64
	[ "$(tracefs_value "$INST/buffer_size_kb")" -lt 128 ]
	[ "$(tracefs_value "$INST/buffer_size_kb")" != "$before" ]
	tracefs_restore "$INST/buffer_size_kb" "$before"
	[ "$(tracefs_value "$INST/buffer_size_kb")" = "$before" ]
	# the read-back text of an unexpanded buffer is refused by the kernel:
	# what the old restore wrote
	run ! sh -c "echo '7 (expanded: $before)' >'$INST/buffer_size_kb'"
}
