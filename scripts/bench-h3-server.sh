#!/usr/bin/env bash
# HTTP/3 servers side by side, one sitting: gust serve --http3 (native hello,
# one loop, GOMAXPROCS=1; Inline and Auto) and quic-go's http3.Server
# (peers/quicgo, GOMAXPROCS=1) on CPU 0, with gust serve's HTTP/2 over TLS as
# the reference; gust load on CPU 1 (one loop) with CONNS connections (default
# 200) and STREAMS streams each (default 10) for DUR (default 10s), ROUNDS
# rounds (default 3), the servers alternating. Prints req/s, the server's CPU
# per request (user + system from /proc/PID/stat, over the run) and its
# goroutines mid-run (from /debug/vars). Then the RSS per idle QUIC
# connection with IDLE (default 10000) idle connections, each after one
# request (peers/idleconns -h3: quic-go's client, spread over 16 UDP
# sockets), and the server's goroutines while they are open. Loopback only.
# usage: [CONNS=200] [STREAMS=10] [DUR=10s] [ROUNDS=3] [IDLE=10000] scripts/bench-h3-server.sh
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/gust ./cmd/gust
(cd peers && go build -o ../bin/quicgo ./quicgo && go build -o ../bin/idleconns ./idleconns)
ulimit -n "$(ulimit -Hn)"
hz=$(getconf CLK_TCK) port=19800
conns=${CONNS:-200} streams=${STREAMS:-10} dur=${DUR:-10s} secs=${DUR:-10s}; secs=${secs%s}
servers=("gust-h3-inline:h3:bin/gust serve --tls-self-signed --http3 --loops 1 --mode inline"
         "gust-h3-auto:h3:bin/gust serve --tls-self-signed --http3 --loops 1 --mode auto"
         "quic-go:h3:bin/quicgo -tls-self-signed"
         "gust-h2-tls-inline:h2:bin/gust serve --tls-self-signed --http2 --loops 1 --mode inline")
start_server() { # $1: command; sets srv, url, dbg
  port=$((port+2)); url=https://127.0.0.1:$port/; dbg=http://127.0.0.1:$((port+1))/debug/vars
  local addr="--addr" dflag="--debug-addr"
  [[ $1 == bin/quicgo* ]] && addr="-addr" dflag="-debug-addr"
  GOMAXPROCS=1 taskset -c 0 $1 $addr 127.0.0.1:$port $dflag 127.0.0.1:$((port+1)) >/dev/null 2>&1 & srv=$!
  for _ in $(seq 50); do curl -s -o /dev/null $dbg && break; sleep 0.1; done
}
goroutines() { curl -s $dbg | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("goroutines", d.get("server", {}).get("goroutines", "?")))' 2>/dev/null || echo "?"; }
echo "| server | round | req/s | server CPU us/req | goroutines mid-run | errors |"
echo "|---|---|---|---|---|---|"
for round in $(seq "${ROUNDS:-3}"); do
  for entry in "${servers[@]}"; do
    name=${entry%%:*} rest=${entry#*:}; proto=${rest%%:*} cmd=${rest#*:}
    start_server "$cmd"
    out=$(mktemp)
    taskset -c 1 bin/gust load --quiet -o json --loops 1 --$([[ $proto == h3 ]] && echo http3 || echo http2) --insecure \
      -c "$conns" -m "$streams" -z "$dur" "$url" > "$out" & lp=$!
    sleep 1; read -r ub sb < <(awk '{print $14, $15}' /proc/$srv/stat)
    sleep $((secs / 2 - 1)); gor=$(goroutines)
    wait $lp; read -r ua sa < <(awk '{print $14, $15}' /proc/$srv/stat)
    kill $srv; wait $srv 2>/dev/null || true
    read -r ok rps errs < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["status"].get("200",0), r["rps"], r.get("error_total", 0))' "$out")
    rm -f "$out"
    # CPU from 1 s into the run to its end, over the requests of that span.
    us=$(awk -v t=$((ua+sa-ub-sb)) -v r="$rps" -v hz="$hz" -v w=$((secs - 1)) 'BEGIN{printf "%.2f", t*1e6/hz/(r*w)}')
    echo "| $name | $round | $(printf '%.0f' "$rps") | $us | $gor | $errs |"
  done
done
echo
echo "| server | idle QUIC connections | RSS before KiB | RSS after KiB | bytes per connection | goroutines while open |"
echo "|---|---|---|---|---|---|"
for entry in "gust-h3-auto:bin/gust serve --tls-self-signed --http3 --loops 1 --mode auto" "quic-go:bin/quicgo -tls-self-signed"; do
  name=${entry%%:*} cmd=${entry#*:}
  start_server "$cmd"
  taskset -c 1 bin/idleconns -h3 -hold 3s -pid $srv -n "${IDLE:-10000}" "$url" > /tmp/idle.$$ & ip=$!
  # Sample the goroutines while the connections are held (after the report, before -hold ends).
  for _ in $(seq 600); do grep -q bytes_per_conn /tmp/idle.$$ 2>/dev/null && break; sleep 0.2; done
  gor=$(goroutines)
  wait $ip || true
  kill $srv; wait $srv 2>/dev/null || true
  awk -v n="$name" -v g="$gor" '/^connections/{c=$2} /^rss_before_kb/{b=$2} /^rss_after_kb/{a=$2} /^bytes_per_conn/{p=$2}
    END{printf "| %s | %s | %s | %s | %s | %s |\n", n, c, b, a, p, g}' /tmp/idle.$$
  rm -f /tmp/idle.$$
done
