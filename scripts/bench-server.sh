#!/usr/bin/env bash
# Compares gust/server with fasthttp and net/http: each server pinned to
# CPU 0 with GOMAXPROCS=1, gust load pinned to CPU 1, runs alternating in
# one sitting. Prints a markdown table of req/s, server CPU per request,
# peak RSS and goroutines. Loopback only.
#
# usage: scripts/bench-server.sh [seconds-per-run] [rounds]
#   CONNS="200 2000" PIPELINE="1 16" SERVERS="fasthttp gust-native ..." to narrow it;
#   DELAY=2s makes every server's handler wait (the slow-handler study);
#   WARMUP=16s gives thousands of connections time to be accepted (somaxconn).
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-10}
rounds=${2:-1}
server_cpu=${SERVER_CPU:-0}
client_cpu=${CLIENT_CPU:-1}
conns_list=${CONNS:-"200 2000 8000 16000"}
pipelines=${PIPELINE:-"1"}
servers=${SERVERS:-"fasthttp nethttp nbio gust-native gust-inline gust-adapter"}
delay=${DELAY:-0s}
warmup=${WARMUP:-3s}
port=18100

ulimit -n "$(ulimit -Hn)"
mkdir -p bin
go build -o bin/gust ./cmd/gust
(cd peers && go build -o ../bin/ ./fasthttp ./nethttp ./nbio)

cpu_ticks() { awk '{print $14, $15}' "/proc/$1/stat"; } # utime stime
rss_kb() { awk '/VmHWM/ {print $2}' "/proc/$1/status"; }
hz=$(getconf CLK_TCK)

start_server() { # name -> srv_pid, url, debug
  port=$((port + 2))
  local addr=127.0.0.1:$port dbg=127.0.0.1:$((port + 1))
  url=http://$addr/; debug=http://$dbg/debug/vars
  case $1 in
  fasthttp) GOMAXPROCS=1 taskset -c "$server_cpu" bin/fasthttp -addr "$addr" -delay "$delay" -debug-addr "$dbg" 2>/dev/null & ;;
  nethttp) GOMAXPROCS=1 taskset -c "$server_cpu" bin/nethttp -addr "$addr" -delay "$delay" -debug-addr "$dbg" 2>/dev/null & ;;
  nbio) GOMAXPROCS=1 taskset -c "$server_cpu" bin/nbio -addr "$addr" -delay "$delay" -debug-addr "$dbg" >/dev/null 2>&1 & ;;
  gust-native) GOMAXPROCS=1 taskset -c "$server_cpu" bin/gust serve --addr "$addr" --delay "$delay" --debug-addr "$dbg" 2>/dev/null & ;;
  gust-inline) GOMAXPROCS=1 taskset -c "$server_cpu" bin/gust serve --mode inline --addr "$addr" --debug-addr "$dbg" 2>/dev/null & ;;
  gust-adapter) GOMAXPROCS=1 taskset -c "$server_cpu" bin/gust serve --api nethttp --addr "$addr" --delay "$delay" --debug-addr "$dbg" 2>/dev/null & ;;
  *) echo "unknown server $1" >&2; exit 1 ;;
  esac
  srv_pid=$!
  for _ in $(seq 50); do
    kill -0 "$srv_pid" 2>/dev/null || { echo "server $1 exited" >&2; exit 1; }
    curl -s -o /dev/null "$url" && return
    sleep 0.1
  done
  echo "server $1 did not start" >&2; exit 1
}

# goroutines_max PID-URL: samples the expvar goroutines every 0.5 s into a file.
sample_goroutines() {
  local out=$1
  while kill -0 "$srv_pid" 2>/dev/null; do
    curl -s "$debug" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("goroutines", 0))' >>"$out" 2>/dev/null || true
    sleep 0.5
  done
}

echo "| server | conns | pipeline | round | req/s | server CPU us/req | user us/req | kernel us/req | peak RSS MB | goroutines max | errors |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for round in $(seq "$rounds"); do
  for c in $conns_list; do
    for p in $pipelines; do
      for server in $servers; do
        start_server "$server"
        gfile=$(mktemp)
        sample_goroutines "$gfile" &
        sampler=$!
        outf=$(mktemp)
        taskset -c "$client_cpu" bin/gust load --quiet -o json -c "$c" --pipeline "$p" --timeout 30s --warmup "$warmup" -z "${secs}s" "$url" >"$outf" &
        lp=$!
        sleep "${warmup%s}" # server CPU is sampled over the measured part only
        read -r ub sb < <(cpu_ticks "$srv_pid")
        wait "$lp"
        read -r ua sa < <(cpu_ticks "$srv_pid")
        out=$(cat "$outf"); rm -f "$outf"
        rss=$(rss_kb "$srv_pid")
        kill "$srv_pid"; wait "$srv_pid" 2>/dev/null || true
        kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null || true
        gmax=$(sort -n "$gfile" | tail -n1); rm -f "$gfile"
        read -r rps reqs errs < <(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(d["rps"], d["requests"], d["error_total"])' "$out")
        perreq() { awk -v t="$1" -v r="$rps" -v s="$secs" -v hz="$hz" 'BEGIN {printf "%.2f", (r > 0 ? t * 1e6 / hz / (r * s) : 0)}'; }
        srvus=$(perreq $((ua + sa - ub - sb))); userus=$(perreq $((ua - ub))); sysus=$(perreq $((sa - sb)))
        echo "| $server | $c | $p | $round | $rps | $srvus | $userus | $sysus | $((rss / 1024)) | ${gmax:-?} | $errs |"
      done
    done
  done
done
