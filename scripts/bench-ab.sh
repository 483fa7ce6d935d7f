#!/usr/bin/env bash
# A/B of two gust binaries (OLD, NEW; default /tmp/gust-old and bin/gust), one sitting:
# server on CPU 0 with GOMAXPROCS=1, gust load on CPU 1, each of MODES (default Inline
# and Pooled; "inline pooled auto" adds the default mode) at 200 and 8000 connections,
# ROUNDS rounds (default 2) alternating. Prints req/s and server CPU per request
# (total, user, kernel). Loopback only.
# usage: OLD=/tmp/gust-old NEW=bin/gust [MODES="inline pooled auto"] [ROUNDS=3] scripts/bench-ab.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n 20000
hz=$(getconf CLK_TCK); port=19300
echo "| bin | mode | conns | round | req/s | us/req | user | kernel |"
for round in $(seq "${ROUNDS:-2}"); do for conns in 200 8000; do for mode in ${MODES:-inline pooled}; do for bin in "${OLD:-/tmp/gust-old}" "${NEW:-bin/gust}"; do
  port=$((port+1)); url=http://127.0.0.1:$port/
  GOMAXPROCS=1 taskset -c 0 $bin serve --mode $mode --addr 127.0.0.1:$port 2>/dev/null & srv=$!
  for _ in $(seq 50); do curl -s -o /dev/null $url && break; sleep 0.1; done
  out=$(mktemp)
  taskset -c 1 bin/gust load --quiet -o json -c $conns --warmup 3s -z 6s --loops 1 $url > $out & lp=$!
  sleep 3; read -r ub sb < <(awk '{print $14, $15}' /proc/$srv/stat)
  wait $lp; read -r ua sa < <(awk '{print $14, $15}' /proc/$srv/stat)
  kill $srv; wait $srv 2>/dev/null || true
  rps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rps"])' $out); rm -f $out
  f() { awk -v t=$1 -v r=$rps -v hz=$hz 'BEGIN{printf "%.2f", t*1e6/hz/(r*6)}'; }
  echo "| $(basename $bin) | $mode | $conns | $round | $rps | $(f $((ua+sa-ub-sb))) | $(f $((ua-ub))) | $(f $((sa-sb))) |"
done; done; done; done
