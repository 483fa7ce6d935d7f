#!/bin/sh
# check-comments.sh fails if a Go comment repeats a word ("the the",
# "every every"): in the // and /* */ comments of every tracked .go file
# of both modules (the main one and peers/), case-insensitive, also
# across the break between two comment lines ("every" ending one line,
# "every" starting the next). Strings and raw strings are skipped, and a
# word separated from its twin by punctuation ("that, that") is not a
# repeat. Each offence is printed as file:line: text.
# Run from anywhere in the repository: scripts/check-comments.sh
set -eu
cd "$(dirname "$0")/.."

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# Tracked .go files still in the work tree (a rename in progress leaves
# the old path in the index).
git ls-files -- '*.go' |
	while IFS= read -r f; do [ -e "$f" ] && printf '%s\n' "$f"; done |
	xargs awk '
# Repeats that are English, not slips: pairs of the same word that a
# sentence may need (lower case, "word word").
BEGIN {
	allowed["that that"] = 1 # "the code that that loop runs": a conjunction, then a determiner
	allowed["had had"] = 1   # past perfect of "have": "the connection had had its turn"
}

FNR == 1 { state = 0; carry = ""; output = 0 } # per file: 0 code, 1 block comment, 2 raw string

# An example'"'"'s output (the comment lines after "// Output:") is what the
# example prints, not prose.
output && /^[ \t]*\/\// { carry = ""; next }
{ output = 0 }
/^[ \t]*\/\/[ \t]*(Unordered output|Output):/ { output = 1; carry = ""; next }

# check reports a repeated word in the comment text seg; prev is the word
# that ends the comment text just before seg ("" if none). It returns the
# word that ends seg, if seg ends with one.
function check(seg, prev,    n, toks, k, t, w) {
	n = split(seg, toks)
	for (k = 1; k <= n; k++) {
		t = toks[k]
		if (prev != "" && t ~ /^[A-Za-z]+[.,;:!?)"'"'"'`*_]*$/) {
			w = t
			sub(/[^A-Za-z].*$/, "", w)
			if (tolower(w) == prev && !(prev " " prev in allowed)) {
				line = $0
				sub(/^[ \t]+/, "", line)
				printf "%s:%d: %s\n", FILENAME, FNR, line
			}
		}
		if (t ~ /^[("'"'"'`*_]*[A-Za-z]+$/) {
			prev = t
			sub(/^[^A-Za-z]+/, "", prev)
			prev = tolower(prev)
		} else {
			prev = ""
		}
	}
	return prev
}

{
	s = $0
	# A line that is all comment goes on from the one before, if that one
	# was all comment too (not a comment after code).
	whole = state == 1 || s ~ /^[ \t]*\/[\/*]/
	if (!whole)
		carry = ""
	prev = carry
	carry = ""
	while (s != "") {
		if (state == 1) { # in a block comment
			k = index(s, "*/")
			if (k == 0) {
				carry = check(s, prev)
				s = ""
			} else {
				check(substr(s, 1, k - 1), prev)
				prev = ""
				s = substr(s, k + 2)
				state = 0
			}
		} else if (state == 2) { # in a raw string
			k = index(s, "`")
			if (k == 0)
				s = ""
			else {
				s = substr(s, k + 1)
				state = 0
			}
		} else {
			if (!match(s, /\/\/|\/\*|["'"'"'`]/)) {
				s = ""
				break
			}
			c = substr(s, RSTART, RLENGTH)
			s = substr(s, RSTART + RLENGTH)
			if (c == "//") {
				carry = check(s, prev)
				s = ""
			} else if (c == "/*") {
				state = 1
			} else if (c == "`") {
				state = 2
			} else { # a string or a rune: skip to its unescaped end
				while (s != "") {
					ch = substr(s, 1, 1)
					if (ch == "\\")
						s = substr(s, 3)
					else {
						s = substr(s, 2)
						if (ch == c)
							break
					}
				}
			}
			prev = ""
		}
	}
	if (!whole)
		carry = ""
}
' >"$tmp"

if [ -s "$tmp" ]; then
	cat "$tmp"
	echo "check-comments: a word repeated in a Go comment (above); drop one, or add the pair to the allow-list in $0 if the sentence needs both" >&2
	exit 1
fi
echo "check-comments: no Go comment repeats a word"
