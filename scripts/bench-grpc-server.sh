#!/usr/bin/env bash
# grpc-go's service on grpc-go's own server against the same service on
# gust/server through the net/http adapter (peers/grpcgo -engine grpc|gust),
# one sitting: the server on CPU 0 (GOMAXPROCS=1), ghz (v0.93.0, go install)
# on CPU 1, unary EmptyCall over h2c with CONNS connections (default 50) for
# DUR (default 10s), ROUNDS rounds (default 3) alternating. Prints RPC/s, server CPU per
# RPC (us) and p99; then each server's RSS per idle connection at IDLE
# (default 10,000) idle h2c connections (peers/idleconns -h2c) and its
# goroutines then. Loopback only. With PROFILE=DIR, each round also saves
# the server's CPU profile (pprof, over DUR less 2 s, from its -debug-addr)
# as DIR/ENGINE-ROUND.pprof: where the CPU goes, in proportions (the
# profiler's own cost makes those rounds' figures no measurement).
# usage: [CONNS=50] [DUR=10s] [ROUNDS=3] [IDLE=10000] [PROFILE=DIR] scripts/bench-grpc-server.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n 20000
(cd peers && go build -o ../bin/grpcgo ./grpcgo && go build -o ../bin/idleconns ./idleconns)
ghz="$(go env GOPATH)/bin/ghz"
[[ -x "$ghz" ]] || GOFLAGS= go install github.com/bojand/ghz/cmd/ghz@v0.93.0
hz=$(getconf CLK_TCK) port=19500 conns=${CONNS:-50}
start() { # engine port: starts the server, sets srv
  GOMAXPROCS=1 taskset -c 0 bin/grpcgo -engine "$1" -addr "127.0.0.1:$2" -debug-addr "127.0.0.1:$(($2 + 1000))" 2>/dev/null & srv=$!
  # timeout: ghz v0.93.0 now and then panics or spins on its one call
  for _ in $(seq 100); do timeout 5 "$ghz" --insecure --call grpc.testing.TestService.EmptyCall -n 1 "127.0.0.1:$2" >/dev/null 2>&1 && return; sleep 0.1; done
  echo "the $1 server did not start" >&2; exit 1
}
echo "| engine | round | RPC/s | us/RPC (server CPU) | p99 ms |"
for round in $(seq "${ROUNDS:-3}"); do for engine in grpc gust; do
  port=$((port + 2)); start "$engine" "$port"
  out=$(mktemp)
  read -r ub sb < <(awk '{print $14, $15}' /proc/$srv/stat)
  prof=
  if [[ -n "${PROFILE:-}" ]]; then
    mkdir -p "$PROFILE"; secs=${DUR:-10s}; secs=$((${secs%s} - 2))
    curl -s -o "$PROFILE/$engine-$round.pprof" "http://127.0.0.1:$((port + 1000))/debug/pprof/profile?seconds=$((secs > 0 ? secs : 1))" & prof=$!
  fi
  taskset -c 1 "$ghz" --insecure --call grpc.testing.TestService.EmptyCall --connections "$conns" -c "$conns" -z "${DUR:-10s}" -O json "127.0.0.1:$port" > "$out"
  read -r ua sa < <(awk '{print $14, $15}' /proc/$srv/stat)
  [[ -z "$prof" ]] || wait $prof || true
  kill $srv; wait $srv 2>/dev/null || true
  python3 - "$out" "$engine" "$round" $((ua + sa - ub - sb)) "$hz" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ticks, hz = int(sys.argv[4]), int(sys.argv[5])
ok = r["statusCodeDistribution"].get("OK", 0)
p99 = next((d["latency"] for d in r["latencyDistribution"] if d["percentage"] == 99), 0) / 1e6
print("| %s | %s | %.0f | %.2f | %.2f |" % (sys.argv[2], sys.argv[3], r["rps"], ticks * 1e6 / hz / max(ok, 1), p99))
PY
  rm -f "$out"
done; done
echo
echo "| engine | idle connections | RSS per connection | goroutines |"
for engine in grpc gust; do
  port=$((port + 2)); start "$engine" "$port"
  idle=$(mktemp)
  taskset -c 1 bin/idleconns -h2c -hold 5s -pid $srv -n "${IDLE:-10000}" "http://127.0.0.1:$port/" > "$idle" 2>&1 & ic=$!
  for _ in $(seq 600); do grep -q bytes_per_conn "$idle" && break; sleep 0.1; done
  g=$(curl -s "http://127.0.0.1:$((port + 1000))/debug/vars" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("goroutines"))')
  wait $ic || true
  line=$(grep bytes_per_conn "$idle" || tail -1 "$idle"); rm -f "$idle"
  kill $srv; wait $srv 2>/dev/null || true
  echo "| $engine | ${IDLE:-10000} | $line | $g |"
done
