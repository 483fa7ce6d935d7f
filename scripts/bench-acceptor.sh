#!/usr/bin/env bash
# Compares gust/server's two acceptors with two loops: a listener per loop
# (SO_REUSEPORT, the kernel spreads connections) and one acceptor that
# hands connections to the loops in turn. On a 2-core machine the server
# (GOMAXPROCS=2, --loops 2) and gust load share both cores, so read the
# ratio of the two rows of a round, not absolute numbers. Loopback only.
#
# usage: scripts/bench-acceptor.sh [seconds-per-run] [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-8}
rounds=${2:-3}
port=18300
ulimit -n "$(ulimit -Hn)"
mkdir -p bin
go build -o bin/gust ./cmd/gust
hz=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

echo "| round | load | acceptor | req/s | server CPU us/req | errors |"
echo "|---|---|---|---|---|---|"
for round in $(seq "$rounds"); do
  for shape in "short-200" "keepalive-2000"; do
    for acceptor in reuseport one; do
      port=$((port + 1))
      url=http://127.0.0.1:$port/
      GOMAXPROCS=2 bin/gust serve --loops 2 --acceptor "$acceptor" --addr "127.0.0.1:$port" 2>/dev/null &
      srv=$!
      for _ in $(seq 50); do curl -s -o /dev/null "$url" && break; sleep 0.1; done
      case $shape in
      short-200) args=(-c 200 --disable-keepalive) ;;
      keepalive-2000) args=(-c 2000) ;;
      esac
      outf=$(mktemp)
      bin/gust load --quiet -o json --loops 2 "${args[@]}" --warmup 2s -z "${secs}s" "$url" >"$outf" &
      lp=$!
      sleep 2
      before=$(cpu_ticks "$srv")
      wait "$lp"
      after=$(cpu_ticks "$srv")
      kill "$srv"; wait "$srv" 2>/dev/null || true
      read -r rps errs < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["rps"], d["error_total"])' "$outf")
      rm -f "$outf"
      us=$(awk -v a="$after" -v b="$before" -v r="$rps" -v s="$secs" -v hz="$hz" 'BEGIN {printf "%.2f", (r > 0 ? (a - b) * 1e6 / hz / (r * s) : 0)}')
      echo "| $round | $shape | $acceptor | $rps | $us | $errs |"
    done
  done
done
