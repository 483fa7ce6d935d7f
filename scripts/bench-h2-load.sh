#!/usr/bin/env bash
# bench-h2-load.sh compares gust load --http2 with h2load -t1 (nghttp2-client)
# against nginx speaking h2c (scripts/nginx-h2.sh): nginx pinned to one CPU,
# the generator to the other, runs alternating in one sitting, at -c 100
# with -m 1, 10 and 100. Prints a markdown table of req/s and generator
# CPU per request (utime+stime from /proc via bash's time, in microseconds),
# and nginx's CPU over the run (100% is its whole core: the target, not the
# generator, is then the limit and both tools get the same req/s).
# Loopback only.
#
# usage: scripts/bench-h2-load.sh [seconds-per-run] [rounds]
#   SERVER_CPU=0 CLIENT_CPU=1 CONNS=100 STREAMS="1 10 100" ADDR=127.0.0.1:18090
#   QUOTA=50: each generator capped at 50% of its core (scripts/cpu-quota.sh),
#   so that nginx on its whole core is faster than the generator
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-10}
rounds=${2:-3}
server_cpu=${SERVER_CPU:-0}
client_cpu=${CLIENT_CPU:-1}
conns=${CONNS:-100}
streams_list=${STREAMS:-"1 10 100"}
addr=${ADDR:-127.0.0.1:18090}
quota=()
[ -z "${QUOTA:-}" ] || quota=(scripts/cpu-quota.sh "$QUOTA")
url="http://$addr/"

command -v h2load >/dev/null || { echo "bench-h2-load.sh: h2load is not installed (apt-get install nghttp2-client)" >&2; exit 1; }
ulimit -n "$(ulimit -Hn)"
mkdir -p bin
go build -o bin/gust ./cmd/gust

scripts/nginx-h2.sh --cpu "$server_cpu" h2c "$addr" 2>/dev/null &
srv_pid=$!
trap 'kill "$srv_pid" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
	curl -s --http2-prior-knowledge -o /dev/null "$url" && break
	sleep 0.1
done

# run_gen NAME STREAMS: prints "rps us_per_req requests"
run_gen() {
	local gen=$1 m=$2 out; out=$(mktemp)
	TIMEFORMAT='%U %S'
	case $gen in
	gust) { time "${quota[@]}" taskset -c "$client_cpu" bin/gust load --http2 -m "$m" --loops 1 --quiet -o json -c "$conns" -z "${secs}s" "$url" >"$out"; } 2>"$out.time" ;;
	h2load) { time "${quota[@]}" taskset -c "$client_cpu" h2load -t1 -c "$conns" -m "$m" -D "$secs" "$url" >"$out"; } 2>"$out.time" ;;
	esac
	local rps reqs
	case $gen in
	gust) read -r rps reqs < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["rps"], d["requests"])' "$out") ;;
	h2load) read -r rps reqs < <(awk '/^finished in/ {r=$4} /^requests:/ {n=$8} END {print r, n}' "$out") ;;
	esac
	read -r u s <"$out.time"
	python3 -c 'import sys; rps,reqs,u,s=map(float,sys.argv[1:]); print(f"{rps:.0f} {(u+s)*1e6/max(reqs,1):.2f} {reqs:.0f}")' "$rps" "$reqs" "$u" "$s"
	rm -f "$out" "$out.time"
}

hz=$(getconf CLK_TCK)
nginx_ticks() { awk '{print $14 + $15}' "/proc/$srv_pid/stat"; }

echo "| round | -m | generator | req/s | generator CPU us/req | requests | nginx CPU % |"
echo "|---|---|---|---|---|---|---|"
for r in $(seq "$rounds"); do
	for m in $streams_list; do
		order="gust h2load"
		if ((r % 2 == 0)); then order="h2load gust"; fi
		for gen in $order; do
			before=$(nginx_ticks)
			read -r rps us reqs < <(run_gen "$gen" "$m")
			after=$(nginx_ticks)
			pct=$(awk -v a="$after" -v b="$before" -v hz="$hz" -v s="$secs" 'BEGIN {printf "%.0f", (a - b) * 100 / hz / s}')
			echo "| $r | $m | $gen | $rps | $us | $reqs | $pct |"
		done
	done
done
