#!/usr/bin/env bash
# Handshakes per second: wrk -t1 with a new connection per
# request (-H 'Connection: close'; wrk resumes sessions when the server
# allows it) against gust serve on each engine, TLS 1.3 and 1.2
# (--tls-max), full (--tls-no-resume) and resumed, runs alternating in one
# sitting. The server is pinned to SERVER_CPU with GOMAXPROCS=1, wrk to
# CLIENT_CPU. Prints one markdown row per run and then the medians.
# Loopback only; every run stops by itself after its seconds.
#
# usage: scripts/bench-tls-handshakes.sh [seconds-per-run] [rounds]
#   SERVER_CPU=0 CLIENT_CPU=1 CONNS=200 ENGINES="gust nethttp" PORT=18446
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-5}
rounds=${2:-3}
server_cpu=${SERVER_CPU:-0}
client_cpu=${CLIENT_CPU:-1}
conns=${CONNS:-200}
engines=${ENGINES:-"gust nethttp"}
port=${PORT:-18446}

ulimit -n "$(ulimit -Hn)"
mkdir -p bin
go build -o bin/gust ./cmd/gust
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
url=https://127.0.0.1:$port/
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT

echo "| engine | TLS | handshake | round | handshakes/s | server CPU us/handshake |"
echo "|---|---|---|---|---|---|"
for round in $(seq "$rounds"); do
  for engine in $engines; do
    for ver in 1.3 1.2; do
      for hs in full resumed; do
        extra=(--tls-max "$ver")
        [ "$hs" = full ] && extra+=(--tls-no-resume)
        GOMAXPROCS=1 taskset -c "$server_cpu" bin/gust serve --engine "$engine" --addr 127.0.0.1:$port \
          --tls-self-signed "${extra[@]}" >/dev/null 2>&1 & pid=$!
        for _ in $(seq 50); do curl -sk -o /dev/null "$url" && break; sleep 0.1; done
        before=$(cpu_ticks "$pid")
        out=$(taskset -c "$client_cpu" wrk -t1 -c "$conns" -d "${secs}s" -H 'Connection: close' "$url")
        after=$(cpu_ticks "$pid")
        kill "$pid"; wait "$pid" 2>/dev/null || true
        read -r rps n < <(awk '/Requests\/sec/ {r=$2} /requests in/ {n=$1} END {print r, n}' <<<"$out")
        us=$(awk -v a="$after" -v b="$before" -v n="$n" -v hz="$hz" 'BEGIN {printf "%.1f", (n > 0 ? (a - b) * 1e6 / hz / n : 0)}')
        echo "| $engine | $ver | $hs | $round | $(printf '%.0f' "$rps") | $us |"
        echo "$engine $ver $hs $rps $us" >>"$rows"
      done
    done
  done
done

echo
echo "Medians of $rounds:"
echo
echo "| engine | TLS | handshake | handshakes/s | server CPU us/handshake | resumed/full handshakes/s |"
echo "|---|---|---|---|---|---|"
python3 - "$rows" <<'EOF'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    e, v, h, rps, us = line.split()
    runs.setdefault((e, v, h), []).append((float(rps), float(us)))
med = {k: (statistics.median(r for r, _ in v), statistics.median(u for _, u in v)) for k, v in runs.items()}
for (e, v, h), (rps, us) in med.items():
    ratio = ""
    if h == "resumed" and (e, v, "full") in med:
        ratio = "%.2fx" % (rps / med[(e, v, "full")][0])
    print("| %s | %s | %s | %.0f | %.1f | %s |" % (e, v, h, rps, us, ratio))
EOF
