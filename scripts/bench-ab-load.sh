#!/usr/bin/env bash
# A/B of two gust load binaries (OLD, NEW; default /tmp/gust-old and bin/gust), one
# sitting: the same target (NEW's gust serve, Inline, on CPU 0 with GOMAXPROCS=1, faster
# than one generator core) for both, each generator on CPU 1 with one loop, at 200 and 8000
# connections, rounds alternating. Prints req/s and generator CPU per response (total, user,
# kernel). Loopback only.
# usage: OLD=/tmp/gust-old NEW=bin/gust ROUNDS=3 scripts/bench-ab-load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n 20000
hz=$(getconf CLK_TCK); port=19500
new=${NEW:-bin/gust}
echo "| bin | conns | round | req/s | gen us/resp | user | kernel |"
echo "|---|---|---|---|---|---|---|"
for round in $(seq "${ROUNDS:-3}"); do for conns in 200 8000; do for bin in "${OLD:-/tmp/gust-old}" "$new"; do
  port=$((port+1)); url=http://127.0.0.1:$port/
  GOMAXPROCS=1 taskset -c 0 "$new" serve --mode inline --addr 127.0.0.1:$port 2>/dev/null & srv=$!
  for _ in $(seq 50); do curl -s -o /dev/null "$url" && break; sleep 0.1; done
  out=$(mktemp)
  taskset -c 1 "$bin" load --quiet -o json -c "$conns" --warmup 3s -z 6s --loops 1 "$url" > "$out" & lp=$!
  sleep 3.5; read -r ub sb < <(awk '{print $14, $15}' /proc/$lp/stat)
  sleep 5; read -r ua sa < <(awk '{print $14, $15}' /proc/$lp/stat)
  wait $lp; kill $srv; wait $srv 2>/dev/null || true
  rps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rps"])' "$out"); rm -f "$out"
  # CPU over 5 s of the measured 6 s window, divided by 5 s of responses at the run's rate.
  f() { awk -v t="$1" -v r="$rps" -v hz="$hz" 'BEGIN{printf "%.2f", t*1e6/hz/(r*5)}'; }
  echo "| $(basename "$bin") | $conns | $round | $rps | $(f $((ua+sa-ub-sb))) | $(f $((ua-ub))) | $(f $((sa-sb))) |"
done; done; done
