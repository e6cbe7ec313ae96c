# shellcheck shell=bash
# A tracefs control file's value as it can be written back: buffer_size_kb
# reads "7 (expanded: 1408)" before the ring buffer is first used, and only
# the size in effect (1408) is a valid write. Sourced by tests/bench/run.sh
# and tests/bats/replay.bats, which restore what they change.
tracefs_value() { # file
	sed -E 's/.*expanded: ([0-9]+).*/\1/; s/ .*//; q' "$1"
}

# Writes value to file unless it holds it already (a write of the same
# buffer size would still reallocate the ring buffer).
tracefs_restore() { # file value
	[ "$(tracefs_value "$1")" = "$2" ] || echo "$2" >"$1"
}
