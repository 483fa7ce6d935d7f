#!/usr/bin/env bash
# Upgrades under load, one sitting: gust serve (CPU 0, GOMAXPROCS=1) under
# gust load --rate RATE (default 20000; CPU 1) for 12 s over HTTP/1.1, h2c
# and TLS, once steady and once with UPGRADES (default 10) SIGUSR2 upgrades
# spread over it, ROUNDS rounds (default 3) alternating. Prints, per run,
# responses, failed requests, non-2xx, retried, p50 and p99 (ms); the steady
# and upgraded p99s are what docs/BENCHMARKS.md compares. GUST names a gust
# binary to serve with (default: bin/gust, built now), for comparing builds.
# STARTS=1 adds a third run a round: instead of each upgrade, a second gust
# serve (the same flags, another port, the same CPU) is started and stopped
# once it serves, which hands nothing over: what a process's start costs
# the loaded server's p99 by itself. PROTOS picks protocols (default "h1
# h2c tls").
# Loopback only.
# usage: [RATE=20000] [UPGRADES=10] [ROUNDS=3] [GUST=path] [STARTS=1] [PROTOS=h1] scripts/bench-upgrade.sh
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/gust ./cmd/gust
srvbin=${GUST:-bin/gust}
ulimit -n 20000
port=19400 dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
rate=${RATE:-20000} upgrades=${UPGRADES:-10}
echo "| proto | round | upgrades | responses | failed | non-2xx | retried | p50 ms | p99 ms |"
runs=(0 "$upgrades"); [[ -z ${STARTS:-} ]] || runs+=("${upgrades}s")
for round in $(seq "${ROUNDS:-3}"); do for proto in ${PROTOS:-h1 h2c tls}; do for run in "${runs[@]}"; do
  n=${run%s}
  port=$((port+1)); pid="$dir/gust.pid"; rm -f "$pid"
  flags=() scheme=http lflags=()
  case $proto in
    h2c) flags=(--http2); lflags=(--http2) ;;
    tls) flags=(--tls-self-signed); scheme=https; lflags=(--insecure) ;;
  esac
  GOMAXPROCS=1 taskset -c 0 "$srvbin" serve --addr 127.0.0.1:$port --pid-file "$pid" "${flags[@]}" 2>/dev/null &
  for _ in $(seq 100); do [[ -s "$pid" ]] && break; sleep 0.05; done
  out="$dir/out.json"
  taskset -c 1 bin/gust load --quiet -o json -c 50 --loops 1 --rate "$rate" -z 12s "${lflags[@]}" "$scheme://127.0.0.1:$port/" > "$out" & lp=$!
  if ((n > 0)); then
    sleep 1
    for i in $(seq "$n"); do
      if [[ $run == *s ]]; then
        spid="$dir/start.pid"; rm -f "$spid"
        GOMAXPROCS=1 taskset -c 0 "$srvbin" serve --addr 127.0.0.1:$((port + 500 + i)) --pid-file "$spid" "${flags[@]}" 2>/dev/null & sp=$!
        for _ in $(seq 400); do [[ -s "$spid" ]] && break; sleep 0.005; done
        kill $sp; wait $sp 2>/dev/null || true
      else
        old=$(cat "$pid"); kill -USR2 "$old"
        for _ in $(seq 200); do [[ "$(cat "$pid" 2>/dev/null)" != "$old" ]] && break; sleep 0.02; done
      fi
      sleep "$(awk -v n="$n" 'BEGIN{printf "%.2f", 10/n}')"
    done
  fi
  wait $lp || true
  kill "$(cat "$pid")"; for _ in $(seq 100); do [[ -e "$pid" ]] || break; sleep 0.05; done
  python3 - "$out" "$proto" "$round" "$run" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
non2xx = sum(v for k, v in r["status"].items() if not k.startswith("2"))
lat = r["latency_us"]
print("| %s | %s | %s | %d | %d | %d | %d | %.2f | %.2f |" % (sys.argv[2], sys.argv[3], sys.argv[4], r["requests"], r.get("error_total", 0), non2xx, r.get("retried", 0) + r.get("http2", {}).get("retried", 0), lat["p50"] / 1000, lat["p99"] / 1000))
PY
done; done; done
