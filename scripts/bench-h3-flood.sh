#!/usr/bin/env bash
# What an HTTP/3 flood costs gust/server's other clients: gust serve --http3
# (one loop, GOMAXPROCS=1, MODE, default inline) on CPU 0; on CPU 1, gust load
# --http3 with CONNS working connections (default 1000) at RATE req/s (default
# 10000), measured for DUR less 2 s (default 10s) after a warm-up of 4 s
# (the working connections' handshakes, about 1 s at once, and the
# requests they held up), alone, then beside peers/quicflood sending
# each attack of KIND in turn (default "initial garbage"):
#   initial, garbage: FLOOD datagrams a second (default 20000) from 1000
#     source ports: real clients' first datagrams never followed up, or
#     Initial-shaped garbage;
#   streams, flowcontrol, qpack, noack: ACONNS misbehaving QUIC connections
#     at a time (default 100), replaced as the server ends them, at most
#     ARATE new ones a second (default 200): request streams past
#     MAX_STREAMS, data past the flow control windows, QPACK blow-ups and
#     encoder-stream inserts, or nothing acknowledged; sparse: within the
#     windows, but only each stream window's last byte sent, the
#     connections held (what the server keeps for them: its RSS).
# ROUNDS rounds (default 3). Prints the working load's p50, p99 and errors,
# the server's CPU and its RSS at the end, and what the server did with the
# attack (Retries sent, datagrams dropped, QUIC connections open at the
# end); under the table, what quicflood saw of each connection attack (the
# server's close codes, stream resets, bytes sent unacknowledged).
# quicflood runs at nice NICE (default 19) on the generator's CPU, so that
# it takes what gust load leaves and the working load's latency measures the
# server, not the two tools' contest for one core (NICE=0 for an even
# contest); the server's counts say how much of the attack arrived.
# SERVE names the gust binary that serves (default: bin/gust, built now), for
# comparing builds. Loopback only.
# usage: [SERVE=path] [KIND="initial garbage"] [NICE=19] [CONNS=1000] [RATE=10000] [FLOOD=20000] [ACONNS=100] [ARATE=200]
#        [DUR=10s] [ROUNDS=3] scripts/bench-h3-flood.sh
# e.g.   KIND="streams flowcontrol qpack noack sparse" scripts/bench-h3-flood.sh
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/gust ./cmd/gust
(cd peers && go build -o ../bin/quicflood ./quicflood)
ulimit -n "$(ulimit -Hn)"
hz=$(getconf CLK_TCK) port=19850
conns=${CONNS:-1000} rate=${RATE:-10000} flood=${FLOOD:-20000} dur=${DUR:-10s}; secs=${dur%s}
aconns=${ACONNS:-100} arate=${ARATE:-200} seen=$(mktemp)
trap 'rm -f "$seen"' EXIT
echo "| attack | round | req/s | p50 ms | p99 ms | errors | server CPU % | server RSS MB | Retries | dropped | QUIC conns after |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for round in $(seq "${ROUNDS:-3}"); do
  for kind in none ${KIND:-initial garbage}; do
    port=$((port+2)); url=https://127.0.0.1:$port/; dbg=http://127.0.0.1:$((port+1))/debug/vars
    GOMAXPROCS=1 taskset -c 0 "${SERVE:-bin/gust}" serve --tls-self-signed --http3 --loops 1 --mode "${MODE:-inline}" \
      --addr 127.0.0.1:$port --debug-addr 127.0.0.1:$((port+1)) >/dev/null 2>&1 & srv=$!
    for _ in $(seq 50); do curl -s -o /dev/null $dbg && break; sleep 0.1; done
    out=$(mktemp)
    taskset -c 1 bin/gust load --quiet -o json --loops 1 --http3 --insecure -c "$conns" --rate "$rate" --warmup 4s -z $((secs - 2))s "$url" > "$out" & lp=$!
    sleep 4 # the working connections' handshakes first, and what they held up
    read -r ub sb < <(awk '{print $14, $15}' /proc/$srv/stat)
    case $kind in
      none) sleep $((secs - 3)) ;;
      initial|garbage)
        nice -n "${NICE:-19}" taskset -c 1 bin/quicflood -addr 127.0.0.1:$port -kind "$kind" -rate "$flood" -ports 1000 -duration $((secs - 3))s >/dev/null ;;
      *)
        { echo "round $round, $(nice -n "${NICE:-19}" taskset -c 1 bin/quicflood -addr 127.0.0.1:$port -kind "$kind" -conns "$aconns" -rate "$arate" \
          -duration $((secs - 3))s)"; } >> "$seen" ;;
    esac
    read -r ua sa < <(awk '{print $14, $15}' /proc/$srv/stat)
    rss=$(awk '/^VmRSS/{printf "%.0f", $2/1024}' /proc/$srv/status)
    wait $lp
    stats=$(curl -s $dbg | python3 -c 'import json,sys; g=json.load(sys.stdin)["gust"]; print(g["quic_retries"], g["quic_dropped"], g["quic_conns"])')
    kill $srv; wait $srv 2>/dev/null || true
    read -r rps p50 p99 errs < <(python3 -c '
import json,sys
r=json.load(open(sys.argv[1])); l=r["latency_us"]
print(round(r["rps"]), l["p50"]/1000, l["p99"]/1000, r.get("error_total", 0))' "$out")
    rm -f "$out"
    cpu=$(awk -v t=$((ua+sa-ub-sb)) -v hz="$hz" -v w=$((secs - 3)) 'BEGIN{printf "%.0f", t*100/hz/w}')
    read -r retries dropped qconns <<< "$stats"
    echo "| $kind | $round | $rps | $p50 | $p99 | $errs | $cpu | $rss | $retries | $dropped | $qconns |"
  done
done
if [[ -s $seen ]]; then
  echo
  echo "What the attacking connections saw (server's close codes, stream resets, bytes it sent unacknowledged):"
  cat "$seen"
fi
