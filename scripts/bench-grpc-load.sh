#!/usr/bin/env bash
# gust load --grpc-call against ghz (v0.93.0, go install), one sitting:
# grpc-go's own server (peers/grpcgo) on CPU 0 (GOMAXPROCS=1), each
# generator on CPU 1, unary EmptyCall over h2c, CONNS connections (default
# 50, one call in flight each) for DUR (default 8s), ROUNDS rounds (default
# 3) alternating. Prints calls per second and the generator's CPU per call
# (user + system, from /usr/bin/time). Loopback only.
# usage: [CONNS=50] [DUR=8s] [ROUNDS=3] scripts/bench-grpc-load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/gust ./cmd/gust
(cd peers && go build -o ../bin/grpcgo ./grpcgo)
ghz="$(go env GOPATH)/bin/ghz"
[[ -x "$ghz" ]] || GOFLAGS= go install github.com/bojand/ghz/cmd/ghz@v0.93.0
proto=peers/grpcgo/testdata/interop.proto conns=${CONNS:-50} dur=${DUR:-8s}
GOMAXPROCS=1 taskset -c 0 bin/grpcgo -addr 127.0.0.1:19700 2>/dev/null & srv=$!
trap 'kill $srv' EXIT
sleep 1
echo "| generator | round | calls/s | generator CPU us/call |"
for round in $(seq "${ROUNDS:-3}"); do for gen in ghz gust; do
  out=$(mktemp) tm=$(mktemp)
  if [[ $gen == ghz ]]; then
    /usr/bin/time -f '%U %S' -o "$tm" taskset -c 1 "$ghz" --insecure --proto "$proto" --call grpc.testing.TestService.EmptyCall \
      --connections "$conns" -c "$conns" -z "$dur" -O json 127.0.0.1:19700 > "$out"
    calls=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["statusCodeDistribution"].get("OK",0), r["rps"])' "$out")
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
