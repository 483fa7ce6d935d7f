#!/usr/bin/env bash
# Compares gust load's request data (--targets, --data-csv) with its one
# request and with wrk -t1 (plain, and with Lua scripts doing the same:
# three pre-formatted requests in turn; a request formatted per row), on
# this machine: the server pinned to CPU 0, each generator to CPU 1 (gust's
# feeder goroutine included), runs alternating in one sitting. Prints a
# markdown table of req/s and generator CPU per request. Loopback only.
#
# usage: scripts/bench-data.sh [seconds-per-run] [rounds]
#   SERVERS="gust-inline fasthttp", CONNS="200".
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-10}
rounds=${2:-2}
server_cpu=${SERVER_CPU:-0}
client_cpu=${CLIENT_CPU:-1}
conns_list=${CONNS:-"200"}
servers=${SERVERS:-"gust-inline fasthttp"}

ulimit -n "$(ulimit -Hn)"
mkdir -p bin
go build -o bin/gust ./cmd/gust
(cd peers && go build -o ../bin/ ./fasthttp)
command -v wrk >/dev/null || scripts/install-bench-tools.sh >/dev/null

# The data: three requests (two reads for a write), 10,000 rows.
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
printf 'GET /a weight=2\nGET /b?x=1\nPOST /c {"a":1}\nContent-Type: application/json\n' >"$data/targets.txt"
printf 'GET /users/{{id}}?name={{name}} weight=2\nX-User: {{name}}\nPOST /orders {"user":{{id}}}\nContent-Type: application/json\n' >"$data/targets-csv.txt"
{ echo id,name; for i in $(seq 10000); do echo "$i,user$i"; done; } >"$data/users.csv"
cat >"$data/targets.lua" <<'LUA'
local reqs = {}
init = function(args)
  reqs = { wrk.format("GET", "/a"), wrk.format("GET", "/a"), wrk.format("GET", "/b?x=1"),
           wrk.format("POST", "/c", {["Content-Type"] = "application/json"}, '{"a":1}') }
end
local i = 0
request = function() i = i % #reqs + 1; return reqs[i] end
LUA
cat >"$data/data.lua" <<'LUA'
local i = 0
request = function()
  i = i % 10000 + 1
  return wrk.format("GET", "/users/" .. i .. "?name=user" .. i, {["X-User"] = "user" .. i})
end
LUA

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

start_server() { # name -> sets srv_pid, url
  case $1 in
  fasthttp) taskset -c "$server_cpu" bin/fasthttp -addr 127.0.0.1:18081 & srv_pid=$!; url=http://127.0.0.1:18081 ;;
  gust-inline) taskset -c "$server_cpu" bin/gust serve --mode inline --addr 127.0.0.1:18082 2>/dev/null & srv_pid=$!; url=http://127.0.0.1:18082 ;;
  esac
  for _ in $(seq 50); do
    kill -0 "$srv_pid" 2>/dev/null || { echo "server $1 exited (port taken?)" >&2; exit 1; }
    curl -s -o /dev/null "$url/" && return
    sleep 0.1
  done
  echo "server $1 did not start" >&2; exit 1
}

# run_gen VARIANT CONNS URL : prints "rps gen_us_per_req requests"
run_gen() {
  local v=$1 c=$2 u=$3
  local out; out=$(mktemp)
  local gl=(taskset -c "$client_cpu" bin/gust load --quiet -o json -c "$c" -z "${secs}s")
  local wk=(taskset -c "$client_cpu" wrk -t1 -c "$c" -d "${secs}s")
  TIMEFORMAT='%U %S'
  case $v in
  gust) { time "${gl[@]}" "$u/" >"$out"; } 2>"$out.time" ;;
  gust-targets) { time "${gl[@]}" --targets "$data/targets.txt" "$u/" >"$out"; } 2>"$out.time" ;;
  gust-data-csv) { time "${gl[@]}" --data-csv "$data/users.csv" --data-loop -H 'X-User: {{name}}' "$u/users/{{id}}?name={{name}}" >"$out"; } 2>"$out.time" ;;
  gust-targets-csv) { time "${gl[@]}" --targets "$data/targets-csv.txt" --data-csv "$data/users.csv" --data-loop "$u/" >"$out"; } 2>"$out.time" ;;
  wrk) { time "${wk[@]}" "$u/" >"$out"; } 2>"$out.time" ;;
  wrk-targets-lua) { time "${wk[@]}" -s "$data/targets.lua" "$u/" >"$out"; } 2>"$out.time" ;;
  wrk-data-lua) { time "${wk[@]}" -s "$data/data.lua" "$u/" >"$out"; } 2>"$out.time" ;;
  esac
  local rps
  case $v in
  gust*) rps=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["rps"], d["requests"])' "$out") ;;
  wrk*) rps="$(awk '/Requests\/sec/ {r=$2} /requests in/ {n=$1} END {print r, n}' "$out")" ;;
  esac
  local reqs=${rps#* }; rps=${rps% *}
  local cpu; cpu=$(tail -n1 "$out.time" | awk '{print $1 + $2}')
  awk -v r="$rps" -v n="$reqs" -v c="$cpu" 'BEGIN {printf "%.0f %.2f %d\n", r, (n > 0 ? c * 1e6 / n : 0), n}'
  rm -f "$out" "$out.time"
}

echo "| server | conns | generator | round | req/s | generator CPU us/req | server CPU us/req |"
echo "|---|---|---|---|---|---|---|"
for round in $(seq "$rounds"); do
  for server in $servers; do
    for c in $conns_list; do
      for v in ${VARIANTS:-gust gust-targets gust-data-csv gust-targets-csv wrk wrk-targets-lua wrk-data-lua}; do
        start_server "$server"
        before=$(cpu_ticks "$srv_pid")
        read -r rps genus reqs < <(run_gen "$v" "$c" "$url")
        after=$(cpu_ticks "$srv_pid")
        kill "$srv_pid"; wait "$srv_pid" 2>/dev/null || true
        srvus=$(awk -v a="$after" -v b="$before" -v n="$reqs" -v hz="$hz" 'BEGIN {printf "%.2f", (n > 0 ? (a - b) * 1e6 / hz / n : 0)}')
        echo "| $server | $c | $v | $round | $rps | $genus | $srvus |"
      done
    done
  done
done
