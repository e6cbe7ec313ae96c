#!/bin/sh
# A ping-pong of N one-line messages through two FIFOs between two
# processes pinned by taskset, one on CPU_A and one on CPU_B (the same CPU
# or two): a placement made, not left to the scheduler, which may keep a
# free pair on one CPU for a whole run. Both sides are a copy of dash named
# pp-side, so their runtime is found by comm.
# usage: pingpong.sh CPU_A CPU_B N
# shellcheck disable=SC2016 # the sides' scripts expand their own $1 $2 $3
set -eu
a=$1 b=$2 n=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$(command -v dash)" "$dir/pp-side"
mkfifo "$dir/ping" "$dir/pong"
# each side opens ping first, so neither open waits for the other forever
taskset -c "$b" "$dir/pp-side" -c \
	'exec 3<"$1" 4>"$2"; while read -r x <&3; do echo "$x" >&4; done' \
	pong "$dir/ping" "$dir/pong" &
taskset -c "$a" "$dir/pp-side" -c \
	'exec 4>"$1" 3<"$2"; i=0; while [ "$i" -lt "$3" ]; do echo "$i" >&4; read -r x <&3; i=$((i + 1)); done' \
	ping "$dir/ping" "$dir/pong" "$n"
# the pong side ends at EOF on ping
wait
