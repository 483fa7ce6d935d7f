#!/bin/sh
# check-architecture.sh fails if docs/ARCHITECTURE.md has drifted from the
# tree: every non-test .go file of the main module (tracked by git, or new
# and not ignored; peers/ is its own module) must be named by a row of one
# of its `| file | concern |` tables, by its path from the repository root
# in backquotes in the row's first cell; and every .go name in a row's
# first cell must be such a path to a file that exists (no stale rows).
# Run from anywhere in the repository: scripts/check-architecture.sh
set -eu
cd "$(dirname "$0")/.."

doc=docs/ARCHITECTURE.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The .go files that need a row; a path still in the index but deleted from
# the work tree (a rename in progress) needs none.
git ls-files --cached --others --exclude-standard -- '*.go' |
	grep -v -e '^peers/' -e '_test\.go$' |
	while IFS= read -r f; do [ -e "$f" ] && printf '%s\n' "$f"; done |
	sort -u >"$tmp/files"

# The .go names in the first cell of every table row (lines starting "|").
awk -F'|' '/^\|/ {
	cell = $2
	while (match(cell, /`[^`]*`/)) {
		name = substr(cell, RSTART + 1, RLENGTH - 2)
		cell = substr(cell, RSTART + RLENGTH)
		if (name ~ /\.go$/) print name
	}
}' "$doc" | sort -u >"$tmp/named"

status=0
for f in $(comm -23 "$tmp/files" "$tmp/named"); do
	echo "check-architecture: $f has no row in $doc" >&2
	status=1
done
for f in $(comm -13 "$tmp/files" "$tmp/named"); do
	if [ ! -e "$f" ]; then
		echo "check-architecture: $doc has a row for $f, which does not exist (a stale row, or not a path from the repository root)" >&2
		status=1
	fi
done
[ $status -eq 0 ] && echo "check-architecture: every non-test .go file has a row in $doc, and every row's file exists"
exit $status
