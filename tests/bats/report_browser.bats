#!/usr/bin/env bats
# The comparison page read in Debian's chromium, with clicks: playwright-core
# (tests/browser, installed by `make deps`) opens it headless and checks that
# the comparison table's cells carry units, that a click on a header sorts the
# rows by their data-v and a second click reverses them, and that no console
# message (a CSP violation is one) appeared; a screenshot goes to the test
# artifacts. The same check fails on a page whose script hash is wrong, or
# without the script. Needs no root: the inputs are checked-in JSON.

bats_require_minimum_version 1.5.0
load helpers

EX=$BATS_TEST_DIRNAME/../../examples
BROWSER=$BATS_TEST_DIRNAME/../browser
ART=${IDLESCOPE_ARTIFACTS:-$BATS_TEST_DIRNAME/../../build/test-artifacts}

# What the check needs, or why it cannot run (bats 1.8 cannot skip from
# setup_file: each test skips in setup).
missing() {
	command -v chromium >/dev/null || { echo "chromium not installed (sudo make deps)"; return; }
	command -v node >/dev/null || { echo "node not installed (sudo make deps)"; return; }
	[ -f "$BROWSER/node_modules/playwright-core/package.json" ] ||
		echo "playwright-core not installed in tests/browser (sudo make deps)"
}

setup() {
	local why
	why=$(missing)
	[ -z "$why" ] || skip "$why"
}

setup_file() {
	[ -z "$(missing)" ] || return 0
	# two variants of two runs each: means, intervals, marks
	"$IDLESCOPE" report "$EX/pack-pinned.json" "$EX/pack-pinned.json" -- \
		"$EX/pack-2cpu.json" "$EX/pack-2cpu.json" -o "$BATS_FILE_TMPDIR/page.html"
}

# node sort_check.js PAGE TABLE SCREENSHOT, with a deadline
check() {
	timeout 120 node "$BROWSER/sort_check.js" "$@"
}

@test "report page in chromium: units, a click sorts by data-v, again reverses, no console message" {
	mkdir -p "$ART"
	rm -f "$ART/report-compare-sorted.png"
	run check "$BATS_FILE_TMPDIR/page.html" cv-states "$ART/report-compare-sorted.png"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ok units: "*" time and share cells"* ]]
	[[ "$output" == *"ok click on column "*" ascending"* ]]
	[[ "$output" == *"ok second click on column "*" descending"* ]]
	[[ "$output" == *"ok no console message"* ]]
	[ "$(head -c 8 "$ART/report-compare-sorted.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
	[ "$(stat -c %s "$ART/report-compare-sorted.png")" -gt 50000 ]
	# the largest differences sort alike
	run check "$BATS_FILE_TMPDIR/page.html" cv-largest "$BATS_TEST_TMPDIR/w.png"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "report page in chromium: the check fails when the script's hash is wrong or it is gone" {
	local p=$BATS_FILE_TMPDIR/page.html
	# the hash of the script with its tags, not of the script: CSP refuses it
	sed -E "s|script-src 'sha256-[^']*'|script-src 'sha256-$(sed -n '/^<script>/,/<\/script>/p' "$p" |
		openssl dgst -sha256 -binary | base64)'|" "$p" >"$BATS_TEST_TMPDIR/bad-hash.html"
	run ! cmp -s "$p" "$BATS_TEST_TMPDIR/bad-hash.html"
	run check "$BATS_TEST_TMPDIR/bad-hash.html" cv-states "$BATS_TEST_TMPDIR/x.png"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == "FAIL "*"Content Security Policy"* ]] || [[ "$output" == *"FAIL "*"Content Security Policy"* ]]
	# no script at all: the click does nothing
	awk '/^<script>/ { skip = 1 } !skip { print } /<\/script>$/ { skip = 0 }' "$p" >"$BATS_TEST_TMPDIR/none.html"
	run ! grep -q '^<script>' "$BATS_TEST_TMPDIR/none.html"
	run check "$BATS_TEST_TMPDIR/none.html" cv-states "$BATS_TEST_TMPDIR/x.png"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAIL click on column"* ]]
}
