#!/bin/sh
# check-deps.sh fails if a package of the main module depends on what it
# must not:
#
#   - the layering: no package imports one of its own layer or above (the
#     layers below, bottom first). So internal/... imports no engine,
#     report, consumer or command; result imports no engine; server and
#     load, siblings, import nothing of each other, of lab, replay, report
#     or cmd. A package in no layer fails too: place it before it lands.
#     Test files are left out: tests run the engines against each other.
#   - the results data (result/) and the reports (report/, with chart and
#     table) must not depend, even indirectly, on the generator's engine:
#     package load, the poller internal/poll, or golang.org/x/sys. Results
#     are data; reading, merging and reporting them pulls in no sockets.
#   - the server engine (package server itself, not server/compress) must
#     not depend on brotli: a server without compression does not carry
#     the codec.
#
# Run from anywhere in the repository: scripts/check-deps.sh
set -eu
cd "$(dirname "$0")/.."

# The layers, bottom first, each "name: patterns". A pattern is a package
# path inside the module; "dir/..." takes dir and everything under it, and
# the longest matching pattern places a package.
layers='
leaves: internal/ascii internal/mailbox internal/sys internal/poll internal/hello
request head: internal/head
packets: internal/quic
wire: internal/http1 internal/http2 internal/http3 internal/sse internal/websocket internal/transport internal/datagram
internal services: internal/fileserve internal/...
data: result report/chart report/table
flows: load/flow
engines and reports: server load load/capacity report
built on them: server/compress load/metrics load/grpcmsg replay reqdata lab cmd/internal/...
programs: cmd/... deploy/...
'

module=$(go list -m)
status=0
for goos in linux darwin; do
	GOOS=$goos go list -f '{{.ImportPath}} {{join .Imports " "}}' ./... |
		awk -v module="$module" -v goos="$goos" -v layers="$layers" '
		BEGIN {
			n = split(layers, line, "\n")
			for (i = 1; i <= n; i++) {
				if (line[i] !~ /:/) continue
				nl++
				name[nl] = line[i]
				sub(/:.*/, "", name[nl])
				rest = line[i]
				sub(/^[^:]*:/, "", rest)
				k = split(rest, pat, " ")
				for (j = 1; j <= k; j++) layerOf[pat[j]] = nl
			}
			bad = 0
		}
		# place returns the layer of p (relative to the module), 0 if none.
		function place(p,    q, best, bestLen, pat) {
			best = 0; bestLen = -1
			for (pat in layerOf) {
				if (pat ~ /\/\.\.\.$/) {
					q = substr(pat, 1, length(pat) - 4)
					if ((p == q || index(p, q "/") == 1) && length(q) > bestLen) {
						best = layerOf[pat]; bestLen = length(q)
					}
				} else if (p == pat && length(pat) > bestLen) {
					best = layerOf[pat]; bestLen = length(pat)
				}
			}
			return best
		}
		function rel(p) { return p == module ? "." : substr(p, length(module) + 2) }
		function inModule(p) { return p == module || index(p, module "/") == 1 }
		{
			pkg = rel($1)
			lp = place(pkg)
			if (lp == 0) {
				printf "check-deps: %s is in no layer of scripts/check-deps.sh; add it to the layer it belongs to\n", pkg > "/dev/stderr"
				bad = 1
				next
			}
			for (i = 2; i <= NF; i++) {
				if (!inModule($i)) continue
				imp = rel($i)
				li = place(imp)
				if (li >= lp) {
					printf "check-deps: %s (%s) imports %s (%s): a package imports only from layers below its own (GOOS=%s)\n", pkg, name[lp], imp, li ? name[li] : "no layer", goos > "/dev/stderr"
					bad = 1
				}
			}
		}
		END { exit bad }
	' || status=1
done

forbidden="$module/load $module/internal/poll golang.org/x/sys/unix golang.org/x/sys"
for goos in linux darwin; do
	for pkg in ./result/... ./report/...; do
		deps=$(GOOS=$goos go list -deps "$pkg")
		for bad in $forbidden; do
			if printf '%s\n' "$deps" | grep -qx "$bad"; then
				echo "check-deps: $pkg depends on $bad (GOOS=$goos); it must not import an engine" >&2
				status=1
			fi
		done
	done
done
for goos in linux darwin; do
	if GOOS=$goos go list -deps ./server | grep -q '^github.com/andybalholm/brotli'; then
		echo "check-deps: ./server depends on brotli (GOOS=$goos); compression belongs in server/compress" >&2
		status=1
	fi
done
[ $status -eq 0 ] && echo "check-deps: every package imports only from layers below its own; result and report import no engine; server imports no brotli"
exit $status
