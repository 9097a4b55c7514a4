#!/bin/sh
# Writes third_party/fyne/PATCH.diff: every difference of the vendored Fyne
# from the module proxy's copy of the same version, changed files against the
# module cache and added files against /dev/null, as `patch -p1` reads them.
# PATCH.md and PATCH.diff themselves are the only files left out.
set -eu
cd "$(dirname "$0")/../third_party/fyne"
v=$(sed -n 's/^.*fyne\.io\/fyne\/v2 \(v[0-9.]*\)$/\1/p' ../../go.mod | head -n 1)
orig=$(cd ../.. && go mod download -json "fyne.io/fyne/v2@$v" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$orig" ] || { echo "fyne-patch-diff: no module copy of fyne $v" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
find . -type f ! -name PATCH.md ! -name PATCH.diff | sed 's|^\./||' | LC_ALL=C sort | while read -r f; do
	if [ -f "$orig/$f" ]; then
		cmp -s "$orig/$f" "$f" && continue
		diff -u --label "a/$f" --label "b/$f" "$orig/$f" "$f" >>"$out" || [ $? -eq 1 ]
	else
		diff -u --label /dev/null --label "b/$f" /dev/null "$f" >>"$out" || [ $? -eq 1 ]
	fi
done
mv "$out" PATCH.diff
trap - EXIT
chmod 644 PATCH.diff
echo "fyne-patch-diff: PATCH.diff against fyne $v ($(grep -c '^+++ ' PATCH.diff) files)"
