#!/usr/bin/env bats
# tests/vm/compat.sh (docs/compat.md): one column per guest document whatever
# the architecture, sorted by architecture and kernel version, one row per
# feature the documents carry; documents that are not idlescope info are left out.

bats_require_minimum_version 1.5.0
load helpers

COMPAT=$BATS_TEST_DIRNAME/../vm/compat.sh

setup() {
	D=$BATS_TEST_TMPDIR/compat
	mkdir -p "$D"
	"$IDLESCOPE" info --format json >"$BATS_TEST_TMPDIR/host.json"
	# guests as other helpers' VMs would print them: arm64 6.1 without fentry
	jq '.kernel.arch = "aarch64" | .kernel.release = "6.1.0-57-arm64" |
	    .features.fentry.available = false | .features.fentry.detail = "ENOTSUPP on vfs_read"' \
		"$BATS_TEST_TMPDIR/host.json" >"$D/a.json"
	jq '.kernel.arch = "x86_64" | .kernel.release = "6.12.117+deb12-amd64"' \
		"$BATS_TEST_TMPDIR/host.json" >"$D/b.json"
	jq '.kernel.arch = "x86_64" | .kernel.release = "5.10.0-46-amd64" |
	    .features.atomic_fetch.available = false | .features.atomic_fetch.detail = "EINVAL"' \
		"$BATS_TEST_TMPDIR/host.json" >"$D/c.json"
	echo '{"schema": "idlescope/1"}' >"$D/not-info.json"
}

@test "compat.sh: a column per guest, arm64 included, sorted; feature rows from the documents" {
	run --separate-stderr "$COMPAT" "$D"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"skipping $D/not-info.json"* ]]
	header=$(printf '%s\n' "${lines[@]}" | grep '^| feature |' | head -1)
	[ "$header" = "| feature | aarch64 6.1.0-57 | x86_64 5.10.0-46 | x86_64 6.12.117+deb12 |" ]
	row=$(printf '%s\n' "${lines[@]}" | grep '^| fentry/fexit |' | head -1)
	[ "$row" = "| fentry/fexit | no (ENOTSUPP on vfs_read) | $(jq -r 'if .features.fentry.available then "yes" else "no (" + .features.fentry.detail + ")" end' "$BATS_TEST_TMPDIR/host.json") | $(jq -r 'if .features.fentry.available then "yes" else "no (" + .features.fentry.detail + ")" end' "$BATS_TEST_TMPDIR/host.json") |" ]
	[[ "$(printf '%s\n' "${lines[@]}" | grep '^| BPF atomic fetch ops' | head -1)" == *"| yes | no (EINVAL) | yes |" ]]
	# one matrix row per feature key, and the cost table lists them all
	n=$(jq '.features | length' "$BATS_TEST_TMPDIR/host.json")
	[ "$(printf '%s\n' "${lines[@]}" | grep -c '^| .* | .* | .* | .* |$')" -ge "$n" ]
	[ "$(printf '%s\n' "${lines[@]}" | sed -n '/^## Without a feature/,$p' | grep -c '^| ')" -eq $((n + 1)) ]
}

@test "compat.sh: no documents is an error" {
	run "$COMPAT" "$BATS_TEST_TMPDIR/empty-dir-that-does-not-exist"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no guest info"* ]]
}
