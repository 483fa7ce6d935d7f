#!/usr/bin/env bash
# HTTP/3 generators side by side, one sitting: quic-go's HTTP/3 server
# (peers/quicgo, GOMAXPROCS=1) on CPU 0 answering BODY bytes, and on CPU 1
# gust load --http3 (one loop) and quic-go's http3.Transport client
# (peers/quicgoload, GOMAXPROCS=1), alternating; then, as the HTTP/2
# reference, gust load --http2 over TLS against gust serve --http2 (one
# loop, GOMAXPROCS=1) answering as many bytes. CONNS
# connections (default 10) with STREAMS requests in flight each (default
# 10), DUR each (default 8s), ROUNDS rounds (default 3). Then the two gust
# generators again at the same open-model rate, RATE req/s (default 15000,
# below quic-go's server's capacity on one core), so that each batches as
# much as the other: the generators' own cost at equal load. Prints requests
# per second and the generator's CPU per request (user + system, from
# /usr/bin/time). Loopback only.
# With OHA=path/to/oha (oha built with its HTTP/3 feature: cargo install
# oha --locked --features http3), oha --http-version 3 runs too, -n N
# requests (default 20000) over CONNS connections: its run ends about
# 30 s after its last answer, so its own req/s understates it; the table
# gives its CPU per request, and req/s over its answers' span.
# usage: [OHA=...] [BODY=64] [CONNS=10] [STREAMS=10] [DUR=8s] [ROUNDS=3] scripts/bench-h3.sh
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/gust ./cmd/gust
(cd peers && go build -o ../bin/quicgo ./quicgo && go build -o ../bin/quicgoload ./quicgoload)
body=${BODY:-64} conns=${CONNS:-10} streams=${STREAMS:-10} dur=${DUR:-8s}
GOMAXPROCS=1 taskset -c 0 bin/quicgo -tls-self-signed -body "$body" -addr 127.0.0.1:19743 2>/dev/null & h3=$!
GOMAXPROCS=1 taskset -c 0 bin/gust serve --tls-self-signed --http2 --loops 1 --body-size "$body" --addr 127.0.0.1:19744 >/dev/null 2>&1 & h2=$!
trap 'kill $h3 $h2' EXIT
sleep 1
echo "| generator | body | round | req/s | generator CPU us/req |"
secs=${dur%s}
rate=${RATE:-15000}
gens="gust-h3 quic-go gust-h2 gust-h3@rate gust-h2@rate"
[[ -n "${OHA:-}" ]] && gens="$gens oha"
for round in $(seq "${ROUNDS:-3}"); do for gen in $gens; do
  out=$(mktemp) tm=$(mktemp)
  case $gen in
  gust-h3)
    /usr/bin/time -f '%U %S' -o "$tm" taskset -c 1 bin/gust load --quiet -o json --loops 1 --http3 --insecure \
      -c "$conns" -m "$streams" -z "$dur" https://127.0.0.1:19743/ > "$out"
    read -r ok rps < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["status"].get("200",0), r["rps"])' "$out") ;;
  gust-h3@rate|gust-h2@rate)
    url=https://127.0.0.1:19743/ proto=--http3
    [[ $gen == gust-h2@rate ]] && url=https://127.0.0.1:19744/ proto=--http2
    /usr/bin/time -f '%U %S' -o "$tm" taskset -c 1 bin/gust load --quiet -o json --loops 1 $proto --insecure \
      -c "$conns" -m "$streams" --rate "$rate" -z "$dur" "$url" > "$out"
    read -r ok rps < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["status"].get("200",0), r["rps"])' "$out") ;;
  gust-h2)
    /usr/bin/time -f '%U %S' -o "$tm" taskset -c 1 bin/gust load --quiet -o json --loops 1 --http2 --insecure \
      -c "$conns" -m "$streams" -z "$dur" https://127.0.0.1:19744/ > "$out"
    read -r ok rps < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["status"].get("200",0), r["rps"])' "$out") ;;
  oha)
    /usr/bin/time -f '%U %S' -o "$tm" taskset -c 1 "$OHA" --http-version 3 --insecure -c "$conns" -n "${OHA_N:-20000}" \
      --no-tui --output-format json https://127.0.0.1:19743/ > "$out"
    # Its answers' span: requests over their mean latency times the
    # connections is the time they took; the idle tail is left out.
    read -r ok rps < <(python3 -c '
import json,sys
d=json.load(open(sys.argv[1])); s=d["summary"]; n=d["statusCodeDistribution"].get("200",0)
print(n, n/max(n*s["average"]/int(sys.argv[2]), 1e-9))' "$out" "$conns") ;;
  quic-go)
    GOMAXPROCS=1 /usr/bin/time -f '%U %S' -o "$tm" taskset -c 1 bin/quicgoload -c "$conns" -m "$streams" -z "$dur" \
      https://127.0.0.1:19743/ > "$out"
    read -r _ ok _ _ _ _ _ rps _ _ < "$out" ;;
  esac
  read -r u s < <(tail -1 "$tm")
  echo "| $gen | $body | $round | $(printf '%.0f' "$rps") | $(python3 -c "print('%.2f' % (($u + $s) * 1e6 / max($ok, 1)))") |"
  rm -f "$out" "$tm"
done; done
