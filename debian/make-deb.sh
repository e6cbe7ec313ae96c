#!/usr/bin/env bash
# `make deb`: builds build/idlescope_VERSION_ARCH.deb with debhelper in a
# staging copy of the tree (build/deb/), so the source tree stays clean. The
# version comes from git: 0.1~gitN.HASH (N commits, HASH the tip), with
# +dirty when the tree has uncommitted changes; debian/changelog's entry is
# written into the staging copy only.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build}

for t in dpkg-buildpackage dh; do
	command -v "$t" >/dev/null ||
		{ echo "idlescope: make deb needs $t (run 'sudo make deps')" >&2; exit 1; }
done

if git rev-parse --git-dir >/dev/null 2>&1; then
	version="0.1~git$(git rev-list --count HEAD).$(git rev-parse --short HEAD)"
	git diff --quiet HEAD -- 2>/dev/null || version+="+dirty"
	files() { git ls-files -z --cached --others --exclude-standard; }
else
	echo "idlescope: make deb needs the git tree (its version and file list come from git)" >&2
	exit 1
fi

stage=$out/deb
src=$stage/idlescope-$version
rm -rf "$stage"
mkdir -p "$src"
# tracked and new files as they are in the work tree (a deleted one is skipped)
files | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$src"

maint=$(sed -n 's/^Maintainer: //p' debian/control)
{
	printf 'idlescope (%s) unstable; urgency=medium\n\n' "$version"
	printf '  * Built by make deb from git commit %s.\n\n' "$(git rev-parse HEAD)"
	printf ' -- %s  %s\n' "$maint" "$(date -R -d "@$(git log -1 --format=%ct)")"
} >"$src/debian/changelog"

(cd "$src" && dpkg-buildpackage -b -us -uc -j"$(nproc)") >"$stage/build.log" 2>&1 || {
	tail -40 "$stage/build.log" >&2
	echo "idlescope: dpkg-buildpackage failed (log: $stage/build.log)" >&2
	exit 1
}
deb=idlescope_${version}_$(dpkg --print-architecture).deb
cp "$stage/$deb" "$out/$deb"
echo "$out/$deb"
