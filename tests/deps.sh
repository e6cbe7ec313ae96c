#!/usr/bin/env bash
# Installs idlescope's build and test dependencies from Debian's archive.
# Idempotent and quiet when everything is present (`make deps` runs it).
set -euo pipefail

pkgs=(make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev libjansson-dev
      pkg-config bats rt-tests stress-ng libcmocka-dev jq util-linux)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "idlescope: missing packages: ${missing[*]} (run 'sudo make deps')" >&2
	exit 1
fi
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
