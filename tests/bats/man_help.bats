#!/usr/bin/env bats
# The man page and --help cannot drift: tests/lib/man-vs-help.sh checks every
# command `idlescope --help` lists, both ways; here on the real page, and on
# pages broken on purpose (so the check is seen to fail). --version too.

bats_require_minimum_version 1.5.0
load helpers

# The one place the tests take the man page from (`make` passes its
# $(MANPAGE)); whatever its section.
MANPAGE=${IDLESCOPE_MAN:-$(ls "$BATS_TEST_DIRNAME"/../../docs/idlescope.[1-8] 2>/dev/null | head -1)}
CHECK=$BATS_TEST_DIRNAME/../lib/man-vs-help.sh

setup() {
	TMP_DIR=$(mktemp -d)
}

teardown() {
	rm -rf "$TMP_DIR"
}

commands() {
	"$IDLESCOPE" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p'
}

@test "man page: every command and option of --help is documented, and nothing more" {
	[ -r "$MANPAGE" ]
	run "$CHECK" "$IDLESCOPE" "$MANPAGE"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

# One page broken in every command's section at once, checked once (the
# check reports every mismatch; a run per command took 10 minutes in a
# TCG guest): each command must be named.
@test "man page check fails on an option the binary does not have" {
	local cmd
	awk -v secs="$(commands | tr a-z A-Z)" 'BEGIN { n = split(secs, c, "\n"); for (i = 1; i <= n; i++) sec[".SH " c[i]] = 1 }
		{ print } $0 in sec { print ".TP"; print ".B \\-\\-no\\-such\\-option" }' "$MANPAGE" > "$TMP_DIR/page"
	run "$CHECK" "$IDLESCOPE" "$TMP_DIR/page"
	[ "$status" -eq 1 ]
	for cmd in $(commands); do
		[[ "$output" == *"$cmd: the man page documents --no-such-option"* ]]
	done
}

@test "man page check fails on an undocumented option and a missing section" {
	local cmd opt
	declare -A last
	# each command's last own option (not argp's --help, --usage, --version),
	# all renamed everywhere in one page
	sed 's/\\-/-/g' "$MANPAGE" > "$TMP_DIR/page"
	for cmd in $(commands); do
		opt=$("$IDLESCOPE" "$cmd" --help | grep -oE '^ {2,6}(-., )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+$' |
			grep -vxE -- '--(help|usage|version)' | tail -1)
		[ -n "$opt" ]
		last[$cmd]=$opt
		sed -i -E "s/$opt([^a-z0-9-]|\$)/--gone\1/g" "$TMP_DIR/page"
	done
	run "$CHECK" "$IDLESCOPE" "$TMP_DIR/page"
	[ "$status" -eq 1 ]
	for cmd in "${!last[@]}"; do
		opt=${last[$cmd]}
		[[ "$output" == *"$cmd: $opt is in '$cmd --help' but not in the man page"* ]]
	done
	cmd=$(commands | tail -1)
	sed "s/^\.SH ${cmd^^}\$/.SH RENAMED/" "$MANPAGE" > "$TMP_DIR/page"
	run "$CHECK" "$IDLESCOPE" "$TMP_DIR/page"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$cmd: no section"* ]]
}

@test "man page check follows --help: a command the binary adds needs a section" {
	local fake=$TMP_DIR/idlescope
	cat > "$fake" <<-FAKE
	#!/bin/sh
	if [ "\$1" = --help ]; then
		"$IDLESCOPE" --help | sed 's/^Commands:/&\n  frobnicate  made up/'
	else
		exec "$IDLESCOPE" "\$@"
	fi
	FAKE
	chmod +x "$fake"
	run "$CHECK" "$fake" "$MANPAGE"
	[ "$status" -eq 1 ]
	[[ "$output" == *"frobnicate: no section '.SH FROBNICATE'"* ]]
}

@test "each command's --help lists only the shared options it takes; the others are usage errors" {
	local cmd o
	# what each command does not take (the man page's COMMON OPTIONS says why)
	declare -A refuses=([compare]="--duration --interval --cpus --verbose"
		[serve]="--output --format --fail-if" [ab]="--interval --cpus --verbose --fail-if"
		[replay]="--duration --interval" [advise]="--interval --fail-if")
	for cmd in "${!refuses[@]}"; do
		for o in ${refuses[$cmd]}; do
			run "$IDLESCOPE" "$cmd" --help
			[[ "$output" != *"$o"* ]]
			if [ "$o" = --verbose ]; then run "$IDLESCOPE" "$cmd" "$o"; else run "$IDLESCOPE" "$cmd" "$o=1"; fi
			[ "$status" -eq 2 ]
			[[ "$output" == *"$o does not apply to $cmd"* ]]
		done
	done
	run "$IDLESCOPE" record --help
	for o in --duration --interval --cpus --output --format --verbose --fail-if; do
		[[ "$output" == *"$o"* ]]
	done
}

@test "man page check fails when --help lists a shared option the command refuses" {
	local fake=$TMP_DIR/idlescope
	cat > "$fake" <<-FAKE
	#!/bin/sh
	if [ "\$1" = compare ] && [ "\$2" = --help ]; then
		"$IDLESCOPE" compare --help | sed 's/^  *-o, --output/  -d, --duration=SECONDS   Measure\n&/'
	else
		exec "$IDLESCOPE" "\$@"
	fi
	FAKE
	chmod +x "$fake"
	run "$CHECK" "$fake" "$MANPAGE"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"compare: '"*"compare --help' lists --duration, but 'compare --duration=1' is refused"* ]]
}

@test "--version: idlescope and every command print the same version line" {
	local v cmd
	v=$("$IDLESCOPE" --version)
	[[ "$v" == "idlescope "?* ]]
	[ "$("$IDLESCOPE" -V)" = "$v" ]
	for cmd in $(commands); do
		run "$IDLESCOPE" "$cmd" --version
		[ "$status" -eq 0 ]
		[ "$output" = "$v" ]
	done
}
