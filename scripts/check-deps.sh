#!/bin/sh
# check-deps.sh fails if the results data (result/) or the reports
# (report/, with its chart and table packages) depend on the generator's
# engine: package load, the poller internal/poll, or golang.org/x/sys.
# Results are data; reading, merging and reporting them must not pull in
# sockets and pollers.
# It also fails if the server engine (package server itself, not
# server/compress) depends on brotli: compression is a package of its
# own, so that a server without it does not carry the codec.
# Run from anywhere in the repository: scripts/check-deps.sh
set -eu
cd "$(dirname "$0")/.."

module=$(go list -m)
forbidden="$module/load $module/internal/poll golang.org/x/sys/unix golang.org/x/sys"
status=0
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
[ $status -eq 0 ] && echo "check-deps: result and report import no engine; server imports no brotli"
exit $status
