#!/bin/sh
# check-architecture.sh fails if the package docs have drifted from the
# tree, or docs/ARCHITECTURE.md has outgrown its one-read size.
#
# Every directory holding a non-test .go file (tracked by git, or new and
# not ignored; peers/ is its own module) must have a doc.go whose package
# comment ends with a file list in exactly this form:
#
#	//
#	// # Files
#	//
#	//   - loop_linux.go: one line saying the file's concern
#
# naming every other non-test .go file of that directory once, sorted
# (doc.go itself may be listed, and need not be), and no file that does
# not exist. `go doc` then shows each package's rooms.
# docs/ARCHITECTURE.md holds the map, the flows and the seams only: at
# most 400 lines.
# Run from anywhere in the repository: scripts/check-architecture.sh
set -eu
cd "$(dirname "$0")/.."

doc=docs/ARCHITECTURE.md
maxlines=400
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() {
	echo "check-architecture: $*" >&2
	status=1
}

# The .go files that must be listed; a path still in the index but deleted
# from the work tree (a move in progress) needs no entry.
git ls-files --cached --others --exclude-standard -- '*.go' |
	grep -v -e '^peers/' -e '_test\.go$' |
	while IFS= read -r f; do [ -e "$f" ] && printf '%s\n' "$f"; done |
	LC_ALL=C sort -u >"$tmp/files"

dirs=$(sed 's#/[^/]*$##' "$tmp/files" | LC_ALL=C sort -u)
for d in $dirs; do
	if [ ! -e "$d/doc.go" ]; then
		fail "$d has no doc.go (its package comment, ending with a \"# Files\" list)"
		continue
	fi
	# The list: the "//   - name: concern" lines after "// # Files" and
	# before the package clause. Any other line there is a malformed entry.
	if ! awk '/^\/\/ # Files$/ { found = 1 } END { exit !found }' "$d/doc.go"; then
		fail "$d/doc.go has no \"// # Files\" list in its package comment"
		continue
	fi
	awk -v d="$d" -v bad="$tmp/bad" -v out="$tmp/listed" '
		/^package / { exit }
		/^\/\/ # Files$/ { files = 1; next }
		!files { next }
		/^\/\/$/ { next }
		/^\/\/   - [^ :]+\.go: [^ ].*$/ {
			name = $3
			sub(/:$/, "", name)
			print name > out
			if (length($0) > 120) print d "/doc.go: the entry for " name " is over 120 characters; say its concern in one short line" > bad
			next
		}
		{ print d "/doc.go: \"" $0 "\" is not a \"//   - name.go: concern\" entry" > bad }
	' "$d/doc.go"
	touch "$tmp/listed" "$tmp/bad"
	while IFS= read -r line; do fail "$line"; done <"$tmp/bad"
	if ! LC_ALL=C sort -c "$tmp/listed" 2>/dev/null || [ -n "$(uniq -d "$tmp/listed")" ]; then
		fail "$d/doc.go: the file list is not sorted, or names a file twice"
	fi
	grep "^$d/[^/]*\$" "$tmp/files" | sed 's#.*/##' | grep -vx doc.go | LC_ALL=C sort >"$tmp/have"
	grep -vx doc.go "$tmp/listed" | LC_ALL=C sort -u >"$tmp/named"
	for f in $(LC_ALL=C comm -23 "$tmp/have" "$tmp/named"); do
		fail "$d/$f is not in $d/doc.go's file list"
	done
	for f in $(LC_ALL=C comm -13 "$tmp/have" "$tmp/named"); do
		fail "$d/doc.go lists $f, which does not exist (a stale entry)"
	done
	rm -f "$tmp/listed" "$tmp/bad"
done

lines=$(wc -l <"$doc")
if [ "$lines" -gt "$maxlines" ]; then
	fail "$doc is $lines lines, over $maxlines: per-file detail belongs in the packages' doc.go"
fi

[ $status -eq 0 ] && echo "check-architecture: every package's doc.go lists its non-test .go files, every listed file exists; $doc is $lines lines"
exit $status
