#!/usr/bin/env bash
# HTTP/2 (h2c, prior knowledge) on gust/server against net/http's h2c server, the
# table: server on CPU 0 with GOMAXPROCS=1, h2load (Debian's nghttp2-client) on CPU 1,
# -c 100 -m 10 and -c 1000 -m 100. Prints req/s, server CPU per request (total, user,
# kernel) over h2load's measured window, h2load's mean time for a request (where the
# turn order of Auto's streams would show), and the server's goroutines mid-run; then the
# RSS per idle HTTP/2 connection with 10000 idle connections (peers/idleconns -h2c).
# Every server is `gust serve --http2` (same hello handler); loopback only.
# usage: scripts/bench-h2-server.sh            (DURATION=30s WARMUP=5s IDLE=10000 to change)
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/gust ./cmd/gust
(cd peers && go build -o ../bin/idleconns ./idleconns)
ulimit -n "$(ulimit -Hn)"  # 1000 h2load connections and 10000 idle ones need it high
hz=$(getconf CLK_TCK); port=19400
dur=${DURATION:-30s}; warm=${WARMUP:-5s}; secs=${dur%s}; wsecs=${warm%s}
servers=("gust auto native:--engine gust --mode auto --api native"
         "gust auto adapter:--engine gust --mode auto --api nethttp"
         "gust inline native:--engine gust --mode inline --api native"
         "gust pooled native:--engine gust --mode pooled --api native"
         "gust pooled adapter:--engine gust --mode pooled --api nethttp"
         "net/http h2c:--engine nethttp")
start_server() { # $1: flags; sets srv, url, dbg
  port=$((port+2)); url=http://127.0.0.1:$port/; dbg=http://127.0.0.1:$((port+1))/debug/vars
  GOMAXPROCS=1 taskset -c 0 bin/gust serve --http2 $1 --addr 127.0.0.1:$port --debug-addr 127.0.0.1:$((port+1)) 2>/dev/null & srv=$!
  for _ in $(seq 50); do curl -s -o /dev/null --http2-prior-knowledge $url && break; sleep 0.1; done
}
echo "| server | load | req/s | us/req | user | kernel | request mean | goroutines |"
echo "|---|---|---|---|---|---|---|---|"
for load in "-c 100 -m 10" "-c 1000 -m 100"; do
  for entry in "${servers[@]}"; do
    name=${entry%%:*}; flags=${entry#*:}
    start_server "$flags"
    out=$(mktemp)
    taskset -c 1 h2load $load -t 1 --warm-up-time $warm -D $dur $url > $out 2>&1 & lp=$!
    sleep $((wsecs + 1)); read -r ub sb < <(awk '{print $14, $15}' /proc/$srv/stat)
    sleep $((secs / 2)); gor=$(curl -s $dbg | python3 -c 'import json,sys; print(json.load(sys.stdin).get("goroutines","?"))')
    wait $lp; read -r ua sa < <(awk '{print $14, $15}' /proc/$srv/stat)
    kill $srv; wait $srv 2>/dev/null || true
    rps=$(awk '/^finished in/ {gsub(",", "", $4); print $4}' $out)
    ok=$(awk '/^requests:/ {print $8}' $out)
    req=$(awk '/^time for request:/ {print $6}' $out); rm -f $out
    # CPU between warm-up's end (+1s) and h2load's end, over the requests of that window.
    win=$((secs - 1))
    f() { awk -v t=$1 -v r=$rps -v hz=$hz -v w=$win 'BEGIN{printf "%.2f", t*1e6/hz/(r*w)}'; }
    echo "| $name | $load | $rps | $(f $((ua+sa-ub-sb))) | $(f $((ua-ub))) | $(f $((sa-sb))) | $req | $gor |"
  done
done
echo
echo "| server | idle HTTP/2 connections | RSS before KiB | RSS after KiB | bytes per connection |"
echo "|---|---|---|---|---|"
for entry in "gust auto native:--engine gust --mode auto" "net/http h2c:--engine nethttp"; do
  name=${entry%%:*}; flags=${entry#*:}
  start_server "$flags"
  taskset -c 1 bin/idleconns -h2c -pid $srv -n ${IDLE:-10000} $url > /tmp/idle.$$ || true
  kill $srv; wait $srv 2>/dev/null || true
  awk -v n="$name" '/^connections/{c=$2} /^rss_before_kb/{b=$2} /^rss_after_kb/{a=$2} /^bytes_per_conn/{p=$2}
    END{printf "| %s | %s | %s | %s | %s |\n", n, c, b, a, p}' /tmp/idle.$$
  rm -f /tmp/idle.$$
done
