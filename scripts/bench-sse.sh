#!/usr/bin/env bash
# gust load --sse against the truth: gust serve's /events?stamp=1 on
# SERVER_CPUS (default 0), gust load on GEN_CPUS (default 1; taskset lists,
# used when there are two CPUs or more), STREAMS streams (default 10000)
# of an event every INTERVAL (default 10ms), EVENTS events each (default
# 100, then the connection asks for the next stream), the connections
# opened over RAMP (default 5s), measured for DUR (default 30s) after
# WARMUP (default 5s; make it RAMP or more).
#
# PROTO picks the protocol: http1.1 (default: a connection a stream, so
# 10,000 streams are 1,000,000 writes a second at 10 ms, far past what one
# server CPU writes: it sent about 40,000 events a second in a smoke run),
# h2c (HTTP/2 with prior knowledge) or h2 (HTTP/2 over TLS, gust serve's
# self-signed certificate): STREAMS_PER_CONN streams (default 100, at most
# the server's 100) share a connection, whose events gust serve writes
# together at each tick of the connection's clock: 10,000 streams on 100
# connections are about 10,000 writes a second.
#
# Prints gust's first-event and gap percentiles beside the server's own
# send times (GET /events/truth, reset when every stream has begun), the
# server's write system calls a second over the measured window (from
# /proc/PID/io) and events per write, and gust load's peak RSS (from
# /usr/bin/time) per stream: the whole process's, and over a baseline run
# of one connection's streams (BASE=0 skips it) the bytes each further
# stream adds. Loopback only.
# The first event is timed by gust from its request's write and by the
# server from its handler's start: gust's holds the request's trip and the
# server's queue too, so it is the gaps that measure gust's accuracy.
#
# WIRE=1 (h2c only) also captures the loopback while gust measures
# (tcpdump on the server's CPU, from 1.5 s before the warm-up's end; every
# event is in it, some 60 bytes each: keep DUR short) and prints the wire's
# truth over gust's measured window (its report's start and duration)
# beside gust's (scripts/sse-wire.py): the time from each request's
# write to its first event's write and between events, which holds the
# request's trip and the server's queue that the server's clock misses.
#
# GUST names the gust binary that loads (default: bin/gust, built now), for
# comparing builds.
#
# SERVER=sseemit (with PROTO=h2c) serves the events from peers/sseemit
# instead of gust serve: an h2c event source that frames a connection's
# events of a tick into one write and does nothing else, for rates past
# what one core of gust serve sends (about 445,000 events a second).
# usage: [SERVER=gust|sseemit] [PROTO=http1.1|h2c|h2] [STREAMS_PER_CONN=100] [STREAMS=10000] [INTERVAL=10ms] [EVENTS=100]
#        [RAMP=5s] [WARMUP=5s] [DUR=30s] [PORT=19750] [SERVER_CPUS=0] [GEN_CPUS=1] [BASE=1] [WIRE=1] [GUST=path]
#        scripts/bench-sse.sh
set -euo pipefail
cd "$(dirname "$0")/.."
proto=${PROTO:-http1.1} per=${STREAMS_PER_CONN:-100}
streams=${STREAMS:-10000} interval=${INTERVAL:-10ms} events=${EVENTS:-100}
ramp=${RAMP:-5s} warmup=${WARMUP:-5s} dur=${DUR:-30s} port=${PORT:-19750}
scheme=http srvflags=() genflags=() conns=$streams
case $proto in
  http1.1) per=1 ;;
  h2c) srvflags=(--http2) ;;
  h2) srvflags=(--http2 --tls-self-signed) genflags=(--insecure) scheme=https ;;
  *) echo "bench-sse: PROTO=$proto: give http1.1, h2c or h2" >&2; exit 1 ;;
esac
if [[ $proto != http1.1 ]]; then
  if (( streams % per )); then
    echo "bench-sse: STREAMS=$streams is not a multiple of STREAMS_PER_CONN=$per" >&2; exit 1
  fi
  conns=$(( streams / per )) genflags+=(--http2 -m "$per")
fi
wire=${WIRE:-}
if [[ -n $wire ]]; then
  [[ $proto == h2c ]] || { echo "bench-sse: WIRE needs PROTO=h2c (a capture of TLS shows no frames)" >&2; exit 1; }
  command -v tcpdump >/dev/null || { echo "bench-sse: WIRE needs tcpdump (apt-get install tcpdump)" >&2; exit 1; }
fi
go build -o bin/gust ./cmd/gust
genbin=${GUST:-bin/gust}
server=${SERVER:-gust}
case $server in
  gust) ;;
  sseemit)
    [[ $proto == h2c ]] || { echo "bench-sse: SERVER=sseemit speaks h2c only: give PROTO=h2c" >&2; exit 1; }
    (cd peers && go build -o ../bin/sseemit ./sseemit) ;;
  *) echo "bench-sse: SERVER=$server: give gust or sseemit" >&2; exit 1 ;;
esac
# A file descriptor a connection on each side, and some to spare.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if (( $(ulimit -n) < conns + 1000 )); then
  echo "bench-sse: ulimit -n is $(ulimit -n), too few for $conns connections: raise the hard limit" >&2
  exit 1
fi
srvcpu=() gencpu=()
if (( $(nproc) >= 2 )); then srvcpu=(taskset -c "${SERVER_CPUS:-0}") gencpu=(taskset -c "${GEN_CPUS:-1}"); fi
truthbase="$scheme://127.0.0.1:$port"
if [[ $server == sseemit ]]; then
  "${srvcpu[@]}" bin/sseemit -addr "127.0.0.1:$port" -truth-addr "127.0.0.1:$((port + 1))" 2>/dev/null & srv=$!
  truthbase="http://127.0.0.1:$((port + 1))"
else
  "${srvcpu[@]}" bin/gust serve --addr "127.0.0.1:$port" "${srvflags[@]}" 2>/dev/null & srv=$!
fi
out=$(mktemp) tm=$(mktemp) truth=$(mktemp) basetm=$(mktemp) pcap=$(mktemp) wiretruth=$(mktemp)
dump=
trap 'kill $srv 2>/dev/null; [[ -z $dump ]] || kill -INT $dump 2>/dev/null; rm -f "$out" "$tm" "$truth" "$basetm" "$pcap" "$wiretruth"' EXIT
base="$scheme://127.0.0.1:$port"
get() { curl -fsSk "$@"; }
for _ in $(seq 50); do
  get -o /dev/null "$truthbase/events/truth" 2>/dev/null && break
  sleep 0.1
done
target="$base/events?n=$events&interval=$interval&stamp=1"
# The baseline: one connection's streams (100 connections' for HTTP/1.1),
# the same run otherwise, briefly.
basestreams=0 basekb=0
if [[ ${BASE:-1} != 0 ]]; then
  basestreams=$per
  [[ $proto != http1.1 ]] || basestreams=100
  basestreams=$(( basestreams < streams ? basestreams : streams ))
  /usr/bin/time -f '%M' -o "$basetm" "${gencpu[@]}" "$genbin" load --quiet --sse "${genflags[@]}" -c $(( basestreams / per )) \
    -z 3s --timeout 30s -o json "$target" > /dev/null
  basekb=$(tail -1 "$basetm")
fi
/usr/bin/time -f '%M' -o "$tm" "${gencpu[@]}" "$genbin" load --quiet --sse "${genflags[@]}" -c "$conns" --ramp-up "$ramp" \
  --warmup "$warmup" -z "$dur" --timeout 30s -o json "$target" > "$out" & gen=$!
# gust measures once every connection is up and its warm-up is over: the
# truth starts afresh then (when as many streams as asked have begun, and
# WARMUP has passed).
warm_ms=$(python3 -c 'import re,sys; m=re.fullmatch(r"([0-9.]+)(ms|s|m)", sys.argv[1]); print(int(float(m[1])*{"ms":1,"s":1000,"m":60000}[m[2]]))' "$warmup")
warm_end=$(( $(date +%s%3N) + warm_ms ))
begun() { get "$truthbase/events/truth" | sed -E 's/^\{"streams":([0-9]+).*/\1/'; }
get -o /dev/null "$truthbase/events/truth?reset=1"
# The capture starts 1.5 s before the warm-up's end, and the wire's truth
# is taken over gust's window only (a capture begun inside the window, on
# the server's CPU, had p99s up to 1.3 ms off both gust's and the server's
# clocks).
dumped=
while (( $(begun) < streams || $(date +%s%3N) < warm_end )); do
  kill -0 $gen 2>/dev/null || { echo "bench-sse: gust load ended before its $streams streams had begun" >&2; exit 1; }
  if [[ -n $wire && -z $dumped ]] && (( $(date +%s%3N) >= warm_end - 1500 )); then
    "${srvcpu[@]}" tcpdump -i lo -s 0 -B 262144 --time-stamp-precision=nano -w "$pcap" "tcp port $port" 2> "$pcap.log" & dump=$!
    dumped=1
  fi
  sleep 0.2
done
get -o /dev/null "$truthbase/events/truth?reset=1"
syscw() { sed -n 's/^syscw: //p' "/proc/$srv/io"; }
w0=$(syscw) t0=$(date +%s.%N)
if [[ -n $wire && -z $dumped ]]; then # the streams took longer to begin than the warm-up
  "${srvcpu[@]}" tcpdump -i lo -s 0 -B 262144 --time-stamp-precision=nano -w "$pcap" "tcp port $port" 2> "$pcap.log" & dump=$!
fi
wait $gen
if [[ -n $wire ]]; then
  kill -INT $dump; wait $dump || true
  grep -E 'dropped by kernel' "$pcap.log" >&2; rm -f "$pcap.log"
fi
w1=$(syscw) t1=$(date +%s.%N)
get "$truthbase/events/truth" > "$truth"
if [[ -n $wire ]]; then
  # The wire's truth over gust's own window (its report's start and
  # duration, to the millisecond): the first and last moments of a run
  # weigh on a p99 of first events.
  read -r wfrom wto < <(python3 -c 'import datetime, json, sys
r = json.load(open(sys.argv[1]))
s = datetime.datetime.strptime(r["start"], "%Y-%m-%dT%H:%M:%S.%f%z").timestamp()
print(s, s + r["duration_s"])' "$out")
  python3 scripts/sse-wire.py --from "$wfrom" --to "$wto" "$pcap" "$port" > "$wiretruth"
fi
python3 - "$out" "$truth" "$(tail -1 "$tm")" "$streams" "$basekb" "$basestreams" "$w0" "$w1" "$t0" "$t1" "$proto" "$conns" "$wiretruth" <<'PY'
import json, os, sys
gust = json.load(open(sys.argv[1]))["sse"]
truth = json.load(open(sys.argv[2]))
rss_kb, streams, base_kb, base_streams = (int(a) for a in sys.argv[3:7])
w0, w1, t0, t1 = int(sys.argv[7]), int(sys.argv[8]), float(sys.argv[9]), float(sys.argv[10])
proto, conns = sys.argv[11], int(sys.argv[12])
wire = json.load(open(sys.argv[13])) if os.path.getsize(sys.argv[13]) else None
secs = t1 - t0
print(f"{proto}: {streams} streams on {conns} connections: gust timed {gust['events']} events, the server sent {truth['events']} once all were up")
if wire:
    print(f"the wire: {wire['streams']} streams begun and {wire['events']} events in the window, "
          f"{wire['connections']} connections ({wire['never_in_step']} never in step, {wire['lost_bytes']} sides with bytes lost)")
print("| measure | gust us | server sent us | gust - sent us |" + (" wire us | gust - wire us |" if wire else ""))
print("|---|---|---|---|" + ("---|---|" if wire else ""))
for name, key in (("first event", "first_event"), ("gap", "gap")):
    g, t = gust[key], truth[key]
    for q in ("p50", "p90", "p99"):
        row = f"| {name} {q} | {g[q]} | {t[q]} | {g[q] - t[q]:+d} |"
        if wire:
            w = wire[key].get(q, 0)
            row += f" {w} | {g[q] - w:+d} |"
        print(row)
print(f"| gust first byte p50 / p99 | {gust['first_byte']['p50']} / {gust['first_byte']['p99']} | | |")
writes = (w1 - w0) / secs
print(f"server: {writes:,.0f} write calls/s over {secs:.1f} s, {truth['events'] / secs:,.0f} events/s"
      + (f", {truth['events'] / (w1 - w0):.1f} events a write" if w1 > w0 else ""))
line = f"gust load peak RSS {rss_kb / 1024:.1f} MiB, {rss_kb * 1024 / streams:,.0f} B per stream"
if base_kb and streams > base_streams:
    line += (f"; baseline ({base_streams} streams) {base_kb / 1024:.1f} MiB, "
             f"{(rss_kb - base_kb) * 1024 / (streams - base_streams):,.0f} B per further stream")
print(line)
PY
