#!/usr/bin/env bash
# gust/server over TLS 1.3 with its own records after the handshake (the
# default), with crypto/tls's records (GUST_TLS_RECORDS=crypto/tls), and
# fasthttp, under wrk -t1: server on CPU 0 (GOMAXPROCS=1), wrk on CPU 1,
# servers alternating in each round. Prints one line a run: req/s and the
# server's CPU per request (user, kernel, total), from /proc/PID/stat over
# the run. Loopback only; every run is bounded by its duration.
#
# usage: scripts/bench-tls-records.sh [seconds] [rounds] [conns...]
#   (default 10 s, 3 rounds, 200 and 2000 connections)
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-10}
rounds=${2:-3}
shift $(( $# < 2 ? $# : 2 ))
conns=("$@")
[ ${#conns[@]} -gt 0 ] || conns=(200 2000)
port=${PORT:-18543}

ulimit -n "$(ulimit -Hn)"
mkdir -p bin
go build -o bin/gust ./cmd/gust
(cd peers && go build -o ../bin/ ./fasthttp)
hz=$(getconf CLK_TCK)

start() { # name
	case $1 in
	gust) GOMAXPROCS=1 taskset -c 0 bin/gust serve --addr 127.0.0.1:$port --tls-self-signed >/dev/null 2>&1 & ;;
	gust-cryptotls) GUST_TLS_RECORDS=crypto/tls GOMAXPROCS=1 taskset -c 0 bin/gust serve --addr 127.0.0.1:$port --tls-self-signed >/dev/null 2>&1 & ;;
	fasthttp) GOMAXPROCS=1 taskset -c 0 bin/fasthttp -addr 127.0.0.1:$port -tls-self-signed >/dev/null 2>&1 & ;;
	esac
	pid=$!
	for _ in $(seq 100); do
		curl -sk -o /dev/null https://127.0.0.1:$port/ && return
		sleep 0.05
	done
	echo "$1 did not start" >&2
	exit 1
}

echo "| round | conns | server | req/s | user us/req | kernel us/req | CPU us/req |"
echo "|---|---|---|---|---|---|---|"
for r in $(seq "$rounds"); do
	for c in "${conns[@]}"; do
		for s in gust gust-cryptotls fasthttp; do
			start "$s"
			# warm-up: the handshakes, then the measured run
			taskset -c 1 wrk -t1 -c"$c" -d2s https://127.0.0.1:$port/ >/dev/null 2>&1 || true
			read -r u0 k0 < <(awk '{print $14, $15}' /proc/$pid/stat)
			out=$(taskset -c 1 wrk -t1 -c"$c" -d"${secs}s" https://127.0.0.1:$port/ 2>&1)
			read -r u1 k1 < <(awk '{print $14, $15}' /proc/$pid/stat)
			kill "$pid"; wait "$pid" 2>/dev/null || true
			reqs=$(awk '/requests in/ {print $1}' <<<"$out")
			rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
			awk -v r="$r" -v c="$c" -v s="$s" -v n="$reqs" -v rps="$rps" -v u=$((u1 - u0)) -v k=$((k1 - k0)) -v hz="$hz" \
				'BEGIN { printf "| %s | %s | %s | %.0f | %.2f | %.2f | %.2f |\n", r, c, s, rps, u/hz*1e6/n, k/hz*1e6/n, (u+k)/hz*1e6/n }'
		done
	done
done
