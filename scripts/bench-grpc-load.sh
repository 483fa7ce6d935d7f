#!/usr/bin/env bash
# gust load --grpc-call against ghz (v0.93.0, go install) and raw h2load
# (nghttp2-client), one sitting: grpc-go's own server (peers/grpcgo) on
# CPU 0 (GOMAXPROCS=1), each generator on CPU 1, unary EmptyCall over h2c,
# CONNS connections (default 50, one call in flight each) for DUR (default
# 8s, whole seconds), ROUNDS rounds (default 3) alternating. h2load knows
# nothing of gRPC: it POSTs a gRPC message built once (an empty
# grpc.testing.Empty: a zero flag byte and a zero length) with
# content-type: application/grpc and te: trailers, and counts 2xx answers,
# not grpc-status: the floor of what sending the calls costs. Prints calls
# per second and the generator's CPU per call (user + system, from
# /usr/bin/time). Loopback only.
# usage: [CONNS=50] [DUR=8s] [ROUNDS=3] scripts/bench-grpc-load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/gust ./cmd/gust
(cd peers && go build -o ../bin/grpcgo ./grpcgo)
ghz="$(go env GOPATH)/bin/ghz"
[[ -x "$ghz" ]] || GOFLAGS= go install github.com/bojand/ghz/cmd/ghz@v0.93.0
command -v h2load >/dev/null || { echo "bench-grpc-load.sh: h2load is not installed (apt-get install nghttp2-client)" >&2; exit 1; }
proto=peers/grpcgo/testdata/interop.proto conns=${CONNS:-50} dur=${DUR:-8s}
frame=$(mktemp)
printf '\0\0\0\0\0' > "$frame" # one uncompressed gRPC message of 0 bytes: grpc.testing.Empty
GOMAXPROCS=1 taskset -c 0 bin/grpcgo -addr 127.0.0.1:19700 2>/dev/null & srv=$!
trap 'kill $srv; rm -f "$frame"' EXIT
sleep 1
echo "| generator | round | calls/s | generator CPU us/call |"
for round in $(seq "${ROUNDS:-3}"); do for gen in ghz gust h2load; do
  out=$(mktemp) tm=$(mktemp)
  if [[ $gen == ghz ]]; then
    /usr/bin/time -f '%U %S' -o "$tm" taskset -c 1 "$ghz" --insecure --proto "$proto" --call grpc.testing.TestService.EmptyCall \
      --connections "$conns" -c "$conns" -z "$dur" -O json 127.0.0.1:19700 > "$out"
    calls=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["statusCodeDistribution"].get("OK",0), r["rps"])' "$out")
  elif [[ $gen == h2load ]]; then
    /usr/bin/time -f '%U %S' -o "$tm" taskset -c 1 h2load -t 1 -c "$conns" -m 1 -D "${dur%s}" -d "$frame" \
      -H 'content-type: application/grpc' -H 'te: trailers' http://127.0.0.1:19700/grpc.testing.TestService/EmptyCall > "$out"
    # "requests: N total, N started, N done, N succeeded, ..."; "finished in Ts, R req/s, ..."
    calls=$(awk '/^requests:/ {ok=$8} /^finished in/ {rps=$4} END {print ok+0, rps+0}' "$out")
  else
    /usr/bin/time -f '%U %S' -o "$tm" taskset -c 1 bin/gust load --quiet -o json --loops 1 --grpc-call grpc.testing.TestService/EmptyCall \
      --grpc-proto "$proto" -c "$conns" -z "$dur" http://127.0.0.1:19700 > "$out"
    calls=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["grpc"]["status"].get("OK",0), r["rps"])' "$out")
  fi
  read -r ok rps <<< "$calls"
  read -r u s < <(tail -1 "$tm")
  echo "| $gen | $round | $(printf '%.0f' "$rps") | $(python3 -c "print('%.2f' % (($u + $s) * 1e6 / max($ok, 1)))") |"
  rm -f "$out" "$tm"
done; done
