#!/usr/bin/env bash
# Compares gust load with wrk and hey on this machine: each server pinned to
# CPU 0, each generator pinned to CPU 1, runs alternating in one sitting.
# Prints a markdown table of req/s, generator CPU per request and server CPU
# per request. Loopback only.
#
# usage: scripts/bench-load.sh [seconds-per-run] [rounds]
#   SERVERS="fasthttp gust-serve gust-inline" (gust-serve is gust serve on
#   net/http, as when the first figures were taken; gust-inline is gust/server
#   in Inline mode, the fastest target here), CONNS="200 10000",
#   GENS="gust,wrk,hey,gust --pipeline 16" (the generators, comma-separated,
#   each with its flags: GENS="gust,wrk,gust --metrics-addr 127.0.0.1:9464"
#   compares gust watched by Prometheus with gust unwatched and wrk).
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-10}
rounds=${2:-2}
server_cpu=${SERVER_CPU:-0}
client_cpu=${CLIENT_CPU:-1}
conns_list=${CONNS:-"200 10000"}
servers=${SERVERS:-"fasthttp gust-serve"}
IFS=, read -r -a gens <<< "${GENS:-gust,wrk,hey,gust --pipeline 16}"

ulimit -n "$(ulimit -Hn)"
mkdir -p bin
go build -o bin/gust ./cmd/gust
(cd peers && go build -o ../bin/ ./fasthttp)
command -v wrk >/dev/null && command -v hey >/dev/null || scripts/install-bench-tools.sh >/dev/null

# cpu_ticks PID: utime+stime of a process in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

start_server() { # name -> sets srv_pid, url
  case $1 in
  fasthttp) taskset -c "$server_cpu" bin/fasthttp -addr 127.0.0.1:18081 & srv_pid=$!; url=http://127.0.0.1:18081/ ;;
  gust-serve) taskset -c "$server_cpu" bin/gust serve --engine nethttp --addr 127.0.0.1:18080 2>/dev/null & srv_pid=$!; url=http://127.0.0.1:18080/ ;;
  gust-inline) taskset -c "$server_cpu" bin/gust serve --mode inline --addr 127.0.0.1:18082 2>/dev/null & srv_pid=$!; url=http://127.0.0.1:18082/ ;;
  esac
  for _ in $(seq 50); do
    kill -0 "$srv_pid" 2>/dev/null || { echo "server $1 exited (port taken?)" >&2; exit 1; }
    curl -s -o /dev/null "$url" && return
    sleep 0.1
  done
  echo "server $1 did not start" >&2; exit 1
}

# run_gen NAME CONNS URL EXTRA... : prints "rps gen_us_per_req requests"
run_gen() {
  local gen=$1 c=$2 u=$3; shift 3
  local out; out=$(mktemp)
  local t0; t0=$(date +%s.%N)
  case $gen in
  gust) TIMEFORMAT='%U %S'; { time taskset -c "$client_cpu" bin/gust load --quiet -o json -c "$c" -z "${secs}s" "$@" "$u" >"$out"; } 2>"$out.time" ;;
  wrk) TIMEFORMAT='%U %S'; { time taskset -c "$client_cpu" wrk -t1 -c "$c" -d "${secs}s" "$u" >"$out"; } 2>"$out.time" ;;
  hey) TIMEFORMAT='%U %S'; { time taskset -c "$client_cpu" hey -c "$c" -z "${secs}s" "$u" >"$out"; } 2>"$out.time" ;;
  esac
  local rps reqs
  case $gen in
  gust) rps=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["rps"], d["requests"])' "$out") ;;
  wrk) rps="$(awk '/Requests\/sec/ {r=$2} /requests in/ {n=$1} END {print r, n}' "$out")" ;;
  hey) rps="$(awk '/Requests\/sec/ {r=$2} /\[200\]/ {n=$2} END {print r, n}' "$out")" ;;
  esac
  reqs=${rps#* }; rps=${rps% *}
  local cpu; cpu=$(tail -n1 "$out.time" | awk '{print $1 + $2}')
  awk -v r="$rps" -v n="$reqs" -v c="$cpu" 'BEGIN {printf "%.0f %.2f %d\n", r, (n > 0 ? c * 1e6 / n : 0), n}'
  rm -f "$out" "$out.time"
}

echo "| server | conns | generator | round | req/s | generator CPU us/req | server CPU us/req |"
echo "|---|---|---|---|---|---|---|"
for round in $(seq "$rounds"); do
  for server in $servers; do
    for c in $conns_list; do
      for gen in "${gens[@]}"; do
        start_server "$server"
        before=$(cpu_ticks "$srv_pid")
        set -- $gen
        name=$1; shift
        read -r rps genus reqs < <(run_gen "$name" "$c" "$url" "$@")
        after=$(cpu_ticks "$srv_pid")
        kill "$srv_pid"; wait "$srv_pid" 2>/dev/null || true
        srvus=$(awk -v a="$after" -v b="$before" -v n="$reqs" -v hz="$hz" 'BEGIN {printf "%.2f", (n > 0 ? (a - b) * 1e6 / hz / n : 0)}')
        echo "| $server | $c | $gen | $round | $rps | $genus | $srvus |"
      done
    done
  done
done
