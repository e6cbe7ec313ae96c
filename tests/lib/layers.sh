#!/usr/bin/env bash
# Checks user/'s include graph against the layers of docs/architecture.md:
# a file includes only its own folder and lower layers (never a sibling
# layer of the same rank), and no two units include each other, directly or
# around a circle; that user/model/ opens no file (no I/O there); and
# that no file in user/cmd/ builds or prints JSON (a command fills a
# model, a renderer in render/ writes it). `make layers` runs it; -v also
# prints, per folder, the folders it includes, as a picture of the structure.
# Exits 0 when the graph holds, 1 with one line per violation.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

# rank per folder: low to high; folders of equal rank must not include each other
declare -A rank=([util]=0 [sys]=1 [web]=1 [session]=2 [model]=3
	[report]=4 [replay]=4 [advise]=4 [render]=5 [cmd]=6 [.]=7)
verbose=${1:-}
bad=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT

for f in user/*.c user/*/*.[ch]; do
	dir=$(dirname "${f#user/}")
	[ -n "${rank[$dir]+x}" ] || { echo "layers: $f: folder '$dir' has no layer (add it here and to docs/architecture.md)"; bad=1; continue; }
	unit=${f#user/}
	unit=${unit%.[ch]}
	while IFS= read -r inc; do
		idir=$(dirname "$inc")
		if [ "$idir" = . ]; then
			# a bare name: must be a header outside user/ (include/, generated)
			if [ -e "user/$dir/$inc" ] || [ -e "user/$inc" ]; then
				echo "layers: $f includes \"$inc\": write it as \"$dir/$inc\""
				bad=1
			fi
			continue
		fi
		[ -n "${rank[$idir]+x}" ] || { echo "layers: $f includes \"$inc\" from no layer"; bad=1; continue; }
		[ -e "user/$inc" ] || { echo "layers: $f includes \"$inc\", which does not exist"; bad=1; continue; }
		if [ "$idir" != "$dir" ] && [ "${rank[$idir]}" -ge "${rank[$dir]}" ]; then
			echo "layers: $f ($dir, layer ${rank[$dir]}) includes $inc ($idir, layer ${rank[$idir]}): upward or sideways"
			bad=1
		fi
		iunit=${inc%.h}
		[ "$iunit" = "$unit" ] || echo "$unit $iunit" >>"$edges"
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done

# model/ computes on what it is given (docs/architecture.md): no file, directory
# or pipe opened there, and no sysfs reader; the reading is sys/'s or the caller's.
for f in user/model/*.[ch]; do
	# comments and string literals blanked (lines kept), so prose may name the calls
	while IFS=: read -r line call; do
		echo "layers: $f:$line calls $call(): user/model/ does no I/O; read it in sys/ (or the caller's layer) and pass the data in"
		bad=1
	done < <(perl -0777 -pe 's{(/\*.*?\*/)|//[^\n]*|"(?:\\.|[^"\\\n])*"|'"'"'(?:\\.|[^'"'"'\\\n])*'"'"'}{defined $1 ? $1 =~ tr/\n//cdr : "\"\""}gse' "$f" |
		grep -noE '\b(fopen|freopen|fdopen|open|openat|opendir|readlink|popen)[[:space:]]*\(' |
		sed 's/[[:space:]]*($//')
	if grep -qE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"sys/sysfs\.h"' "$f"; then
		echo "layers: $f includes \"sys/sysfs.h\": user/model/ reads no sysfs; read it in sys/ and pass the value in"
		bad=1
	fi
done

# cmd/ builds no JSON: jansson's constructors, setters and dumpers (and
# json_num's helpers) belong in a renderer; reading a document is allowed
json_builders='\<json_(object|array|string|stringn|integer|real|true|false|null|boolean|pack|vpack|sprintf|vsprintf|u64|real_or_null|(object_set|object_update|array_append|array_insert|array_extend|array_set|dump)[a-z_]*)[[:space:]]*\('
while IFS=: read -r file line text; do
	call=$(grep -oE "$json_builders" <<<"$text" | head -1)
	echo "layers: $file:$line calls ${call%%[[:space:](]*}(): user/cmd/ builds no JSON; fill a model and write it in a renderer (render/render_<command>.c)"
	bad=1
done < <(grep -nE "$json_builders" user/cmd/*.[ch] /dev/null || true)

# a circle between units (a.c/a.h -> b.h and b.c/b.h -> a.h): tsort names it
if ! out=$(sort -u "$edges" | tsort 2>&1 >/dev/null) || [ -n "$out" ]; then
	echo "layers: include circle: $(echo "$out" | grep -v 'input contains a loop' | sed 's/^tsort: //' | tr '\n' ' ')"
	bad=1
fi

if [ "$verbose" = -v ]; then
	awk '{ split($1, a, "/"); split($2, b, "/"); if (a[1] != b[1]) print a[1] " -> " b[1] }' "$edges" |
		sed 's/^main /user\/main.c /' | sort | uniq -c | sort -k2,2 -k4,4 |
		awk '{ printf "  %-8s -> %-8s (%d includes)\n", $2, $4, $1 }'
fi
if [ "$bad" = 0 ]; then
	echo "layers: ok ($(sort -u "$edges" | wc -l) unit includes, no upward include, no circle, no JSON built in cmd/)"
fi
exit "$bad"
