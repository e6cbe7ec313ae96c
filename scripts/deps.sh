#!/usr/bin/env bash
# Installs idlescope's build and test dependencies from Debian's archive.
# Idempotent and quiet when everything is present (`make deps` runs it).
#
# Usage: scripts/deps.sh [ARCH]   (`make deps ARCH=...` passes it)
#   no ARCH, or the host's own arch: build and test packages for a native build.
#   arm64 on a non-arm64 host: what `make ARCH=arm64` needs for a cross build
#   (clang/bpftool for the BPF side, Debian's aarch64 cross gcc and libc); the
#   arm64 -dev libraries come from scripts/arm64-sysroot.sh, not from dpkg.
set -euo pipefail

arch=${1:-}
case $arch in aarch64) arch=arm64 ;; esac
host=$(uname -m | sed -e 's/aarch64/arm64/')

hint=
if [ -n "$arch" ] && [ "$arch" != "$host" ]; then
	hint=" ARCH=$arch"
	case $arch in
	arm64) pkgs=(make clang llvm bpftool gcc-aarch64-linux-gnu libc6-dev-arm64-cross dpkg-dev) ;;
	*) echo "idlescope: no cross-build dependencies known for ARCH=$arch" >&2; exit 1 ;;
	esac
else
	pkgs=(make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev libjansson-dev
	      pkg-config bats rt-tests stress-ng libcmocka-dev jq yq util-linux linux-perf
	      libmicrohttpd-dev dpkg-dev curl iproute2 prometheus chromium fonts-dejavu-core
	      idlestat trace-cmd rt-app python3 libncurses-dev tmux bash-completion
	      libtraceevent-dev libzstd-dev sysbench)
	# record --format prom: textfile.bats runs the real node_exporter on it
	pkgs+=(prometheus-node-exporter python3-prometheus-client)
	# make bench's anchor observers (what a user would run instead): only where
	# Debian has them, as the bench skips an anchor it cannot run
	optional=(bpftrace libbpf-tools)
	# robustness tests: libFuzzer runtime, strace (files written), capsh
	pkgs+=(libclang-rt-14-dev strace libcap2-bin)
	# serve --web-config: YAML, bcrypt, GnuTLS (the dynamic build); its tests'
	# certificates and hashes (openssl, htpasswd)
	pkgs+=(libyaml-dev libcrypt-dev libgnutls28-dev file openssl apache2-utils)
	# make deb / deb-test: debhelper, lintian, man -w, systemd in a container
	pkgs+=(debhelper lintian man-db systemd-container)
	# the PM QoS ledger's tests: tuned's latency-performance force_latency
	pkgs+=(tuned)
	# the browser test's clicks (tests/browser): Node.js and npm, which
	# install playwright-core below; a Node.js from elsewhere (with its own
	# npm) is kept
	command -v node >/dev/null || pkgs+=(nodejs)
	command -v npm >/dev/null || pkgs+=(npm)
	# make vmtest / make test: x86_64 and arm64 guests (tests/vm/run.sh)
	[ "${IDLESCOPE_VMTEST:-1}" = 0 ] ||
		pkgs+=(qemu-system-x86 qemu-system-arm busybox-static acpica-tools cpio device-tree-compiler)
fi

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
missing=()
for p in "${pkgs[@]}"; do
	installed "$p" || missing+=("$p")
done
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "idlescope: missing packages: ${missing[*]} (run 'sudo make deps$hint')" >&2
		exit 1
	fi
	echo "installing: ${missing[*]}"
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	# textfile.bats runs its own node_exporter on a loopback port: the
	# service the package's postinst started (where systemd runs) goes
	if [[ " ${missing[*]} " == *" prometheus-node-exporter "* ]] && [ -d /run/systemd/system ]; then
		systemctl disable --now prometheus-node-exporter.service >/dev/null 2>&1 || true
	fi
fi

# optional ones: those the package lists have (no update just for them)
for p in ${optional[@]+"${optional[@]}"}; do
	installed "$p" || ! apt-cache show "$p" >/dev/null 2>&1 || [ "$(id -u)" != 0 ] || {
		echo "installing: $p"
		apt-get install -y -qq --no-install-recommends "$p" >/dev/null ||
			echo "idlescope: could not install $p (make bench skips it)" >&2
	}
done
# playwright-core, the version tests/browser/package-lock.json pins, into
# tests/browser/node_modules (nothing system-wide; it drives Debian's chromium,
# so it downloads no browser)
browser=$(cd "$(dirname "$0")/../tests/browser" && pwd)
if [ -z "$hint" ] && command -v npm >/dev/null; then
	want=$(sed -n 's/.*"playwright-core": "\(.*\)".*/\1/p' "$browser/package.json")
	have=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$browser/node_modules/playwright-core/package.json" 2>/dev/null || true)
	if [ "$want" != "$have" ]; then
		echo "installing: playwright-core $want (npm, into tests/browser/node_modules)"
		npm ci --prefix "$browser" --no-audit --no-fund --loglevel=error >/dev/null
	fi
fi
exit 0
