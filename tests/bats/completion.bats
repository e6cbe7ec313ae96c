#!/usr/bin/env bats
# Bash completion (completion/idlescope.bash) with Debian's bash-completion:
# the candidates come from the binary's own --help, so they are checked
# against it, against sysfs (CPU lists), against what the binary accepts
# (--format values), and against a fake binary with a command and option
# the real one does not have (nothing is hard-coded in the completion).

bats_require_minimum_version 1.5.0
load helpers

COMPLETION=$BATS_TEST_DIRNAME/../../completion/idlescope.bash
EXAMPLES=$BATS_TEST_DIRNAME/../../examples

setup() {
	[ -r /usr/share/bash-completion/bash_completion ] || skip "bash-completion not installed"
	TMP_DIR=$(mktemp -d)
}

teardown() {
	rm -rf "$TMP_DIR"
}

# Candidates, one per line, for the words given (the last is completed).
complete_words() {
	bash -c '
		source /usr/share/bash-completion/bash_completion
		source "$1"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE="${COMP_WORDS[*]}"
		COMP_POINT=${#COMP_LINE}
		COMPREPLY=()
		_idlescope 2>/dev/null
		printf "%s\n" "${COMPREPLY[@]}"
	' _ "$COMPLETION" "$@" | sort -u
}

help_commands() { # binary
	"$1" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p' | sort -u
}

help_long_options() { # binary cmd
	"$1" "$2" --help | grep -oE '^ {2,6}(-[^-], )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+$' | sort -u
}

@test "completion: the commands are those idlescope --help lists, plus --help and --version" {
	diff <(complete_words "$IDLESCOPE" "" | grep -v '^--') <(help_commands "$IDLESCOPE")
	complete_words "$IDLESCOPE" "" | grep -qx -- --version
	[ "$(complete_words "$IDLESCOPE" rec)" = record ]
	[ "$(complete_words "$IDLESCOPE" re | sort | tr '\n' ' ')" = "record replay report " ]
}

@test "completion: every long option of every command's --help is offered, and nothing else" {
	local cmd
	for cmd in $(help_commands "$IDLESCOPE"); do
		diff <(complete_words "$IDLESCOPE" "$cmd" -- | grep -- '^--.' | sed 's/=$//' | sort -u) \
			<(help_long_options "$IDLESCOPE" "$cmd")
	done
	[ "$(complete_words "$IDLESCOPE" record --no-w)" = --no-wakeups ]
}

@test "completion: --format values are the ones the binary accepts" {
	local v
	run complete_words "$IDLESCOPE" compare --format ""
	[ "${#lines[@]}" -ge 2 ]
	for v in "${lines[@]}"; do
		"$IDLESCOPE" compare --format "$v" "$EXAMPLES/pack-pinned.json" "$EXAMPLES/pack-2cpu.json" >/dev/null
	done
	[ "$(complete_words "$IDLESCOPE" record --format=j)" = json ]
	run ! "$IDLESCOPE" compare --format bogus "$EXAMPLES/pack-pinned.json" "$EXAMPLES/pack-2cpu.json"
}

@test "completion: --topology values, hist metrics and --unit from the help text" {
	run complete_words "$IDLESCOPE" record --topology ""
	for v in sysfs cluster package none custom:; do
		[[ " ${lines[*]} " == *" $v "* ]]
	done
	run complete_words "$IDLESCOPE" hist ""
	[ "${#lines[@]}" -eq 7 ]
	for v in residency exit-latency wakeup-latency runq-latency idle-entry idle-exit path-latency; do
		[[ " ${lines[*]} " == *" $v "* ]]
	done
	# only the first positional is a metric
	run complete_words "$IDLESCOPE" hist -c foo residency ""
	[[ " ${lines[*]} " != *" idle-exit "* ]]
	[ "$(complete_words "$IDLESCOPE" hist --unit "" | tr '\n' ' ')" = "ms ns us " ]
}

@test "completion: -C offers the online CPU list and every possible CPU from sysfs" {
	local n want
	n=$(sed 's/.*[-,]//' /sys/devices/system/cpu/possible)
	want=$( (cat /sys/devices/system/cpu/online; seq 0 "$n") | sort -u)
	diff <(complete_words "$IDLESCOPE" top -C "") <(echo "$want")
	diff <(complete_words "$IDLESCOPE" record --cpus 0,) <(seq 0 "$n" | sed 's/^/0,/' | sort -u)
}

@test "completion: after -- the command line of another program" {
	complete_words "$IDLESCOPE" record -- ba | grep -qx bash
}

@test "completion: a binary with another command and option is completed from its own help" {
	local fake=$TMP_DIR/idlescope
	cat > "$fake" <<-FAKE
	#!/bin/sh
	if [ "\$1" = --help ]; then
		"$IDLESCOPE" --help | sed 's/^Commands:/&\n  frobnicate  made up/'
	elif [ "\$1" = frobnicate ]; then
		printf 'Usage: idlescope frobnicate [OPTION...]\n\n      --wibble=MODE          fast, slow or medium\n  -?, --help                 Give this help list\n'
	else
		exec "$IDLESCOPE" "\$@"
	fi
	FAKE
	chmod +x "$fake"
	complete_words "$fake" "" | grep -qx frobnicate
	local words
	words=$(complete_words "$IDLESCOPE" "")
	grep -qx record <<<"$words"
	run ! grep -qx frobnicate <<<"$words"
	[ "$(complete_words "$fake" frobnicate --w)" = --wibble= ]
	[ "$(complete_words "$fake" frobnicate --wibble "" | tr '\n' ' ')" = "fast medium slow " ]
}

@test "make install puts the completion where bash-completion looks, and the man page" {
	local dest=$TMP_DIR/root
	make -C "$BATS_TEST_DIRNAME/../.." --no-print-directory install DESTDIR="$dest" PREFIX=/opt/is >/dev/null
	[ -f "$dest/opt/is/share/bash-completion/completions/idlescope" ]
	cmp "$COMPLETION" "$dest/opt/is/share/bash-completion/completions/idlescope"
	ls "$dest"/opt/is/share/man/man[1-8]/idlescope.[1-8]
	make -C "$BATS_TEST_DIRNAME/../.." --no-print-directory uninstall DESTDIR="$dest" PREFIX=/opt/is >/dev/null
	[ ! -e "$dest/opt/is/share/bash-completion/completions/idlescope" ]
}
