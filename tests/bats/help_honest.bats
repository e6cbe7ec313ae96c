#!/usr/bin/env bats
# Every command's --help lists only what it honours: each shared option
# (-d, -i, -C, -o, --format, -v, --fail-if) its --help lists is parsed, each
# it does not list is refused; each --format value the help names is taken,
# csv and prom where it does not name them are refused. Parse-only: a bogus
# option after the one under test ends every run with a usage error, so no
# command records anything.

bats_require_minimum_version 1.5.0
load helpers

COMMANDS=(record ab compare report replay info top hist serve advise)
# each shared option with a value that parses
declare -gA VALUE=([--duration]=1 [--interval]=1 [--cpus]=0 [--output]=/dev/null
	[--format]=json [--verbose]= [--fail-if]='total.entries > 0')

# run_opt CMD OPT [VALUE]: the command's verdict on OPT followed by a bogus option
run_opt() {
	local cmd=$1 opt=$2
	shift 2
	run "$IDLESCOPE" "$cmd" "$opt" "$@" --zz-bogus-option
}

@test "help: every shared option a command lists is parsed, every other one refused" {
	local cmd opt help listed checked=0
	for cmd in "${COMMANDS[@]}"; do
		help=$("$IDLESCOPE" "$cmd" --help)
		for opt in "${!VALUE[@]}"; do
			listed=0
			# an option line of the help, not a mention in its prose
			grep -Eq -- "^ +(-[a-zA-Z], )?$opt(=| |\$)" <<<"$help" && listed=1
			if [ -n "${VALUE[$opt]}" ]; then
				run_opt "$cmd" "$opt" "${VALUE[$opt]}"
			else
				run_opt "$cmd" "$opt"
			fi
			echo "$cmd $opt listed=$listed: $status ${lines[0]}"
			[ "$status" -eq 2 ] # the bogus option, or the refusal
			if [ "$listed" = 1 ]; then
				[[ ${lines[0]} == *"unrecognized option '--zz-bogus-option'"* ]]
			else
				[[ ${lines[0]} == *"does not apply to $cmd"* ||
					${lines[0]} == *"unrecognized option '$opt"* ]]
			fi
			checked=$((checked + 1))
		done
	done
	echo "# $checked command-option pairs" >&3
}

@test "help: the --format values a command names are taken, the others refused" {
	local cmd help doc fmt
	for cmd in "${COMMANDS[@]}"; do
		help=$("$IDLESCOPE" "$cmd" --help)
		# the option line and its continuation (argp wraps long docs)
		doc=$(grep -E -A1 -- '^ +--format=' <<<"$help" | tr '\n' ' ' || true)
		[ -n "$doc" ] || continue
		for fmt in table json csv prom; do
			run_opt "$cmd" --format "$fmt"
			echo "$cmd --format $fmt: $status ${lines[0]}"
			[ "$status" -eq 2 ]
			if [[ $doc == *"$fmt"* ]]; then
				[[ ${lines[0]} == *"unrecognized option '--zz-bogus-option'"* ]]
			else
				[[ ${lines[0]} == *"unknown format '$fmt'"* ]]
			fi
		done
	done
}

# hist, ab and advise print no CSV: their help once offered it and refused it
# after parsing (hist at start-up, ab and advise at the end of the options)
@test "help: hist, ab and advise neither offer nor take csv" {
	local cmd
	for cmd in hist ab advise; do
		run -0 "$IDLESCOPE" "$cmd" --help
		[[ $output == *"--format=FMT           table (default) or json"* ]]
		run_opt "$cmd" --format csv
		[[ ${lines[0]} == "idlescope $cmd: unknown format 'csv' (table or json)" ]]
	done
}

@test "help: -i says what it does for serve and hist" {
	run -0 "$IDLESCOPE" serve --help
	[[ $output == *"-i, --interval=SECONDS     Serve a snapshot taken every SECONDS"* ]]
	[[ $output != *"Also print a line every SECONDS"* ]]
	run -0 "$IDLESCOPE" hist --help
	[[ $output == *"-i, --interval=SECONDS     Print a histogram every SECONDS"* ]]
}
