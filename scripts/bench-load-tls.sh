#!/usr/bin/env bash
# Compares gust load with wrk -t1 over TLS: each TLS server
# pinned to SERVER_CPUS (give it more cores than the generator, so that the
# target is faster than one generator core), each generator pinned to
# CLIENT_CPU with one loop or thread, runs alternating in one sitting.
# Prints a markdown table of req/s, generator CPU per request and server
# CPU per request. Loopback only; the servers' certificates are self-signed
# (gust load --insecure; wrk does not verify).
#
# usage: scripts/bench-load-tls.sh [seconds-per-run] [rounds]
#   SERVER_CPUS=1-3 CLIENT_CPU=0 SERVERS="fasthttp nbio nethttp" CONNS="200" PORT=18443
#   QUOTA=50 caps each generator at 50% of its core (scripts/cpu-quota.sh), so
#   that a target on one core is faster than the generator; SERVERS may name
#   gust (gust serve --tls-self-signed)
#   MODES="keepalive close" (close: a new connection per request, resumed
#   handshakes: gust --disable-keepalive, wrk -H 'Connection: close')
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-10}
rounds=${2:-2}
server_cpus=${SERVER_CPUS:-1-3}
client_cpu=${CLIENT_CPU:-0}
conns_list=${CONNS:-"200"}
servers=${SERVERS:-"fasthttp nbio"}
modes=${MODES:-"keepalive"}
port=${PORT:-18443}
quota=()
[ -z "${QUOTA:-}" ] || quota=(scripts/cpu-quota.sh "$QUOTA")

ulimit -n "$(ulimit -Hn)"
mkdir -p bin
go build -o bin/gust ./cmd/gust
(cd peers && go build -o ../bin/ ./fasthttp ./nbio ./nethttp)
command -v wrk >/dev/null || scripts/install-bench-tools.sh >/dev/null

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
ncpus=$(taskset -c "$server_cpus" nproc)

start_server() { # name -> sets srv_pid, url
  url=https://127.0.0.1:$port/
  if [ "$1" = gust ]; then
    GOMAXPROCS=$ncpus taskset -c "$server_cpus" bin/gust serve --addr 127.0.0.1:$port --tls-self-signed >/dev/null 2>&1 & srv_pid=$!
  else
    GOMAXPROCS=$ncpus taskset -c "$server_cpus" "bin/$1" -addr 127.0.0.1:$port -tls-self-signed 2>/dev/null & srv_pid=$!
  fi
  for _ in $(seq 50); do
    kill -0 "$srv_pid" 2>/dev/null || { echo "server $1 exited (port taken?)" >&2; exit 1; }
    curl -sk -o /dev/null "$url" && return
    sleep 0.1
  done
  echo "server $1 did not start" >&2; exit 1
}

# run_gen NAME MODE CONNS URL : prints "rps gen_us_per_req requests"
run_gen() {
  local gen=$1 mode=$2 c=$3 u=$4
  local out; out=$(mktemp)
  local gust_extra=() wrk_extra=()
  if [ "$mode" = close ]; then gust_extra=(--disable-keepalive); wrk_extra=(-H 'Connection: close'); fi
  TIMEFORMAT='%U %S'
  case $gen in
  gust) { time "${quota[@]}" taskset -c "$client_cpu" bin/gust load --quiet --insecure --loops 1 -o json -c "$c" -z "${secs}s" "${gust_extra[@]}" "$u" >"$out"; } 2>"$out.time" ;;
  wrk) { time "${quota[@]}" taskset -c "$client_cpu" wrk -t1 -c "$c" -d "${secs}s" "${wrk_extra[@]}" "$u" >"$out"; } 2>"$out.time" ;;
  esac
  local rps reqs
  case $gen in
  gust) rps=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["rps"], d["requests"])' "$out") ;;
  wrk) rps="$(awk '/Requests\/sec/ {r=$2} /requests in/ {n=$1} END {print r, n}' "$out")" ;;
  esac
  reqs=${rps#* }; rps=${rps% *}
  local cpu; cpu=$(tail -n1 "$out.time" | awk '{print $1 + $2}')
  awk -v r="$rps" -v n="$reqs" -v c="$cpu" 'BEGIN {printf "%.0f %.2f %d\n", r, (n > 0 ? c * 1e6 / n : 0), n}'
  rm -f "$out" "$out.time"
}

echo "| server | mode | conns | generator | round | req/s | generator CPU us/req | server CPU us/req |"
echo "|---|---|---|---|---|---|---|---|"
for round in $(seq "$rounds"); do
  for server in $servers; do
    for mode in $modes; do
      for c in $conns_list; do
        for gen in gust wrk; do
          start_server "$server"
          before=$(cpu_ticks "$srv_pid")
          read -r rps genus reqs < <(run_gen "$gen" "$mode" "$c" "$url")
          after=$(cpu_ticks "$srv_pid")
          kill "$srv_pid"; wait "$srv_pid" 2>/dev/null || true
          srvus=$(awk -v a="$after" -v b="$before" -v n="$reqs" -v hz="$hz" 'BEGIN {printf "%.2f", (n > 0 ? (a - b) * 1e6 / hz / n : 0)}')
          echo "| $server | $mode | $c | $gen | $round | $rps | $genus | $srvus |"
        done
      done
    done
  done
done
