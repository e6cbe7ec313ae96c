#!/usr/bin/env bash
# Checks the man page against the binary's --help, both ways, for every
# command that `idlescope --help` lists (nothing here names a command):
#  - the command has a section (.SH NAME, the command in capitals);
#  - each long option of `idlescope CMD --help` appears in that section, or
#    is an item of COMMON OPTIONS;
#  - each option the man page documents for CMD (the items, after .TP, of
#    its section, and its SYNOPSIS block, short options too) exists in
#    `idlescope CMD --help`; each COMMON OPTIONS item in some command's.
# Prints one line per mismatch; exit status 1 when there is any.
#
# Usage: tests/lib/man-vs-help.sh IDLESCOPE MANPAGE
set -uo pipefail
bin=$1
man=$2
bad=0

problem() {
	echo "$*"
	bad=1
}

# roff to plain text: \- to -, fonts and escapes dropped, quotes kept.
plain() {
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' -e 's/\\(aq/'"'"'/g' \
	    -e 's/\\&//g' -e 's/\\c$//' "$@"
}

# Lines of section $1 (the text after .SH, quotes removed, any case).
section() {
	plain "$man" | awk -v want="$1" '
		/^\.SH/ { name = substr($0, 5); gsub(/"/, "", name); on = (toupper(name) == toupper(want)); next }
		on'
}

# The option items of a section: the line after each .TP.
items() {
	awk '/^\.TP/ { tag = 1; next } tag { print; tag = 0 }'
}

# The SYNOPSIS block of "idlescope CMD" (.SY ... .YS).
synopsis() {
	plain "$man" | awk -v want="idlescope $1" '
		/^\.SY/ { name = substr($0, 5); gsub(/"/, "", name); on = (name == want); next }
		/^\.YS/ { on = 0 }
		on'
}

long_opts() {
	grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

short_opts() {
	grep -oE -- '(^|[^-a-zA-Z0-9])-[a-zA-Z?]([^a-zA-Z0-9-]|$)' | grep -oE -- '-[a-zA-Z?]' | sort -u
}

help_long() { # cmd
	"$bin" "$1" --help 2>/dev/null | grep -E '^ {1,8}-' | sed -E 's/^ +//; s/  .*//' | long_opts
}

help_short() { # cmd
	"$bin" "$1" --help 2>/dev/null | grep -E '^ {1,8}-' | sed -E 's/^ +//; s/  .*//' | grep -oE -- '(^| )-[a-zA-Z?](,|$)' |
		grep -oE -- '-[a-zA-Z?]' | sort -u
}

[ -r "$man" ] || { echo "cannot read the man page '$man'"; exit 1; }
commands=$("$bin" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p')
[ -n "$commands" ] || { echo "'$bin --help' lists no commands"; exit 1; }
common=$(section "COMMON OPTIONS" | items | long_opts)
every_help=

for cmd in $commands; do
	text=$(section "$cmd")
	if [ -z "$text" ]; then
		problem "$cmd: no section '.SH ${cmd^^}' in the man page"
		continue
	fi
	helps=$(help_long "$cmd")
	every_help+=" $helps"
	for o in $helps; do
		grep -qE -- "(^|[^a-z0-9-])$o([^a-z0-9-]|$)" <<<"$text" && continue
		grep -qx -- "$o" <<<"$common" && continue
		problem "$cmd: $o is in '$cmd --help' but not in the man page (section ${cmd^^} or COMMON OPTIONS)"
	done
	for o in $( (items <<<"$text"; synopsis "$cmd") | long_opts); do
		grep -qx -- "$o" <<<"$helps" ||
			problem "$cmd: the man page documents $o, which '$cmd --help' does not have"
	done
	shorts=$(help_short "$cmd")
	for o in $(synopsis "$cmd" | grep -E '^\.(OP|B|BR|RB)' | short_opts); do
		grep -qx -- "$o" <<<"$shorts" ||
			problem "$cmd: the synopsis shows $o, which '$cmd --help' does not have"
	done
	[ -n "$(synopsis "$cmd")" ] || problem "$cmd: no '.SY \"idlescope $cmd\"' in the SYNOPSIS"
done
# A command's --help lists exactly the shared options it takes: each one it
# lists parses (then --help exits 0), each one it does not is a usage error.
sample() { # long option -> a valid value ('' for a flag)
	case $1 in
	--duration | --interval) echo 1 ;;
	--cpus) echo 0 ;;
	--output) echo /dev/null ;;
	--format) echo json ;;
	--fail-if) echo 'total.entries > 0' ;;
	*) echo ;;
	esac
}
for cmd in $commands; do
	helps=$(help_long "$cmd")
	for o in $common; do
		v=$(sample "$o")
		args=("$o")
		[ -n "$v" ] && args=("$o=$v")
		if grep -qx -- "$o" <<<"$helps"; then
			"$bin" "$cmd" "${args[@]}" --help >/dev/null 2>&1 ||
				problem "$cmd: '$cmd --help' lists $o, but '$cmd ${args[*]}' is refused"
		else
			"$bin" "$cmd" "${args[@]}" --help >/dev/null 2>&1
			[ $? -eq 2 ] ||
				problem "$cmd: $o is not in '$cmd --help', but '$cmd ${args[*]}' is not a usage error"
		fi
	done
done
for o in $common; do
	grep -qw -- "$o" <<<"$every_help" ||
		problem "COMMON OPTIONS documents $o, which no command's --help has"
done
exit $bad
