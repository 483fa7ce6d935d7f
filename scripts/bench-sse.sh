#!/usr/bin/env bash
# gust load --sse against the truth: gust serve's /events?stamp=1 on
# SERVER_CPUS (default 0), gust load on GEN_CPUS (default 1; taskset lists,
# used when there are two CPUs or more; one CPU of gust serve sent about
# 40,000 events a second in a smoke run, short of 10,000 streams' 1,000,000), STREAMS
# streams (default 10000) of an event every INTERVAL (default 10ms),
# EVENTS events each (default 100, then the connection asks for the next
# stream), the connections opened over RAMP (default 5s), measured for DUR
# (default 30s) after WARMUP (default 5s; make it RAMP or more). Prints
# gust's first-event and gap percentiles beside the server's own send times
# (GET /events/truth, reset when every connection has begun a stream), and
# gust load's peak RSS (from /usr/bin/time) per stream. Loopback only.
# The first event is timed by gust from its request's write and by the
# server from its handler's start: gust's holds the request's trip and the
# server's queue too, so it is the gaps that measure gust's accuracy.
# usage: [STREAMS=10000] [INTERVAL=10ms] [EVENTS=100] [RAMP=5s] [WARMUP=5s] [DUR=30s] [PORT=19750]
#        [SERVER_CPUS=0] [GEN_CPUS=1] scripts/bench-sse.sh
set -euo pipefail
cd "$(dirname "$0")/.."
streams=${STREAMS:-10000} interval=${INTERVAL:-10ms} events=${EVENTS:-100}
ramp=${RAMP:-5s} warmup=${WARMUP:-5s} dur=${DUR:-30s} port=${PORT:-19750}
go build -o bin/gust ./cmd/gust
# A file descriptor a stream on each side, and some to spare.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if (( $(ulimit -n) < streams + 1000 )); then
  echo "bench-sse: ulimit -n is $(ulimit -n), too few for $streams streams: raise the hard limit" >&2
  exit 1
fi
srvcpu=() gencpu=()
if (( $(nproc) >= 2 )); then srvcpu=(taskset -c "${SERVER_CPUS:-0}") gencpu=(taskset -c "${GEN_CPUS:-1}"); fi
"${srvcpu[@]}" bin/gust serve --addr "127.0.0.1:$port" 2>/dev/null & srv=$!
out=$(mktemp) tm=$(mktemp) truth=$(mktemp)
trap 'kill $srv 2>/dev/null; rm -f "$out" "$tm" "$truth"' EXIT
for _ in $(seq 50); do
  curl -fsS -o /dev/null "http://127.0.0.1:$port/events/truth" 2>/dev/null && break
  sleep 0.1
done
/usr/bin/time -f '%M' -o "$tm" "${gencpu[@]}" bin/gust load --quiet --sse -c "$streams" --ramp-up "$ramp" --warmup "$warmup" \
  -z "$dur" --timeout 30s -o json "http://127.0.0.1:$port/events?n=$events&interval=$interval&stamp=1" > "$out" & gen=$!
# gust measures once every connection is up (and its warm-up is over):
# the truth starts afresh when every connection has begun a stream.
begun() { curl -fsS "http://127.0.0.1:$port/events/truth" | sed -E 's/^\{"streams":([0-9]+).*/\1/'; }
while (( $(begun) < streams )); do
  kill -0 $gen 2>/dev/null || { echo "bench-sse: gust load ended before its $streams streams had begun" >&2; exit 1; }
  sleep 0.2
done
curl -fsS -o /dev/null "http://127.0.0.1:$port/events/truth?reset=1"
wait $gen
curl -fsS "http://127.0.0.1:$port/events/truth" > "$truth"
python3 - "$out" "$truth" "$(tail -1 "$tm")" "$streams" <<'EOF'
import json, sys
gust = json.load(open(sys.argv[1]))["sse"]
truth = json.load(open(sys.argv[2]))
rss_kb, streams = int(sys.argv[3]), int(sys.argv[4])
print(f"streams {streams}: gust timed {gust['events']} events, the server sent {truth['events']} once all were up")
print("| measure | gust us | server sent us | gust - sent us |")
print("|---|---|---|---|")
for name, g, t in (("first event", gust["first_event"], truth["first_event"]), ("gap", gust["gap"], truth["gap"])):
    for q in ("p50", "p90", "p99"):
        print(f"| {name} {q} | {g[q]} | {t[q]} | {g[q] - t[q]:+d} |")
print(f"| gust first byte p50 / p99 | {gust['first_byte']['p50']} / {gust['first_byte']['p99']} | | |")
print(f"gust load peak RSS {rss_kb / 1024:.1f} MiB, {rss_kb * 1024 / streams / 1024:.1f} KiB per stream")
EOF
