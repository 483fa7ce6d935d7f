#!/usr/bin/env bash
# The two-step journey (log in, capture the token, send it with the next
# request; scripts/flow-peers/) run by gust load --flow, Locust
# (FastHttpUser, headless) and Artillery, one sitting: gust serve --root
# (one loop, GOMAXPROCS=1) on CPU 0, each generator on CPU 1, USERS users
# (default 50), no think time, about DUR seconds each (default 8), ROUNDS
# rounds (default 3) alternating. Prints requests per second: each
# generator has one core, so it is requests per second per core.
# Locust and Artillery come from PyPI and npm: pip install locust;
# npm install --prefix "$ARTILLERY_DIR" artillery@2 (with
# PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1). Loopback only.
# usage: [USERS=50] [DUR=8] [ROUNDS=3] [ARTILLERY_DIR=/tmp/artillery] scripts/bench-flow-peers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/gust ./cmd/gust
users=${USERS:-50} dur=${DUR:-8} art=${ARTILLERY_DIR:-/tmp/artillery}/node_modules/.bin/artillery
site=$(mktemp -d)
echo '{"user": "demo", "token": "tok-42"}' > "$site/login.json"
echo '{"items": [{"name": "widget", "price": 3}]}' > "$site/items.json"
GOMAXPROCS=1 taskset -c 0 bin/gust serve --loops 1 --addr 127.0.0.1:19620 --root "$site" >/dev/null 2>&1 & srv=$!
trap 'kill $srv; rm -rf "$site"' EXIT
sleep 1
echo "| generator | round | requests | req/s per core |"
for round in $(seq "${ROUNDS:-3}"); do for gen in gust locust artillery; do
  out=$(mktemp -d)
  case $gen in
  gust)
    taskset -c 1 bin/gust load --quiet -o json --loops 1 --flow scripts/flow-peers/flow.yaml --vus "$users" \
      -z "${dur}s" http://127.0.0.1:19620 > "$out/r.json"
    read -r n rps < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["requests"], r["rps"])' "$out/r.json") ;;
  locust)
    taskset -c 1 locust -f scripts/flow-peers/locustfile.py --headless -u "$users" -r "$users" -t "${dur}s" \
      --host http://127.0.0.1:19620 --csv "$out/l" --only-summary >/dev/null 2>&1 || true
    read -r n rps < <(python3 -c '
import csv,sys
for row in csv.DictReader(open(sys.argv[1])):
    if row["Name"] == "Aggregated": print(row["Request Count"], row["Requests/s"])' "$out/l_stats.csv") ;;
  artillery)
    # Enough loops to run about as long as the others at Artillery's pace.
    loops=$(( dur * 300 / users + 1 ))
    sed "s/USERS/$users/; s/LOOPS/$loops/" scripts/flow-peers/artillery.yaml > "$out/a.yaml"
    taskset -c 1 "$art" run --quiet --output "$out/a.json" "$out/a.yaml" >/dev/null 2>&1 || true
    read -r n rps < <(python3 -c '
import json,sys
a=json.load(open(sys.argv[1]))["aggregate"]
n=a["counters"]["http.requests"]
secs=(int(a["lastCounterAt"])-int(a["firstCounterAt"]))/1000
print(n, n/max(secs,0.001))' "$out/a.json") ;;
  esac
  echo "| $gen | $round | $n | $(printf '%.0f' "$rps") |"
  rm -rf "$out"
done; done
