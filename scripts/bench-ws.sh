#!/usr/bin/env bash
# bench-ws.sh: WebSocket servers side by side, the server pinned to CPU 0
# (GOMAXPROCS=1) and gust load to CPU 1, one server at a time, in rounds.
#
#   scripts/bench-ws.sh [--rounds N] [--servers "gust nbio gorillaws coderws gobwasws"]
#                       [--cases "echo idle broadcast tls-idle"] [--tls-idle-at S]
#
# Per server and round it prints one line for each of:
#   echo-200, echo-10000  64-byte binary echo, one message in flight per
#                         connection, 2 s warmup and 5 s measured: msg/s,
#                         p99, and the server's CPU per message (utime+stime
#                         from /proc over 4 s inside the measured window)
#   idle-15000            15,000 connections upgraded and held (pings every
#                         30 s): the server's RSS growth per connection and
#                         its goroutines (from /debug/vars)
#   broadcast-10000       10,000 held receivers on /ws/broadcast and one
#                         sender of a 64-byte message every 10 ms for 4 s:
#                         deliveries/s (the receivers' messages over the 4 s),
#                         how many of the expected arrived, and the server's
#                         CPU per delivery (over a window that takes in the
#                         backlog); the sender's p99 is its own copy coming
#                         back, one of the 10,001
#   tls-idle-15000        as idle-15000 over TLS 1.3 (wss://, the server's
#                         self-signed certificate), RSS read S seconds
#                         (--tls-idle-at, default 130) after the load starts:
#                         past the Go runtime's forced GC at 120 s, so the
#                         15,000 handshakes' garbage is collected whatever
#                         the server's allocation rate
# Traffic stays on 127.0.0.1. Every process it starts is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=3 servers="gust nbio gorillaws coderws gobwasws" cases="echo idle broadcast tls-idle" tls_idle_at=130
while [[ $# -gt 0 ]]; do
	case "$1" in
	--rounds) rounds=${2:?}; shift ;;
	--servers) servers=${2:?}; shift ;;
	--cases) cases=${2:?}; shift ;;
	--tls-idle-at) tls_idle_at=${2:?}; shift ;;
	*) echo "bench-ws: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
[[ $rounds =~ ^[0-9]+$ && $rounds -ge 1 ]] || { echo "bench-ws: --rounds must be a positive integer" >&2; exit 2; }
[[ $tls_idle_at =~ ^[0-9]+$ && $tls_idle_at -ge 5 ]] || { echo "bench-ws: --tls-idle-at must be a whole number of seconds, 5 or more" >&2; exit 2; }

go build -o bin/gust ./cmd/gust
bin_dir="${XDG_CACHE_HOME:-$HOME/.cache}/gust/bench-ws"
mkdir -p "$bin_dir"
for s in $servers; do
	[[ $s == gust ]] || (cd peers && go build -o "$bin_dir/$s" "./$s")
done

port=9300 dport=9301 spid=
stop_server() {
	if [[ -n $spid ]]; then
		kill "$spid" 2>/dev/null || true
		wait "$spid" 2>/dev/null || true
		spid=
	fi
}
trap stop_server EXIT

start_server() { # name [tls]
	local scheme=http gflags= pflags=
	if [[ ${2:-} == tls ]]; then
		scheme=https gflags=--tls-self-signed pflags=-tls-self-signed
	fi
	case "$1" in
	gust) GOMAXPROCS=1 taskset -c 0 bin/gust serve --addr 127.0.0.1:$port --loops 1 --debug-addr 127.0.0.1:$dport $gflags >/dev/null 2>&1 & ;;
	*) GOMAXPROCS=1 taskset -c 0 "$bin_dir/$1" -addr 127.0.0.1:$port -debug-addr 127.0.0.1:$dport $pflags >/dev/null 2>&1 & ;;
	esac
	spid=$!
	for _ in $(seq 100); do
		curl -kfsS -o /dev/null "$scheme://127.0.0.1:$port/" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "bench-ws: $1 did not start" >&2
	return 1
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$spid/stat"; }
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$spid/status"; }
goroutines() {
	curl -fsS "http://127.0.0.1:$dport/debug/vars" | python3 -c '
import json, sys
v = json.load(sys.stdin)
g = v.get("goroutines")
if g is None and isinstance(v.get("gust"), dict):
    g = v["gust"].get("goroutines")
print(g if g is not None else "NA")'
}
hz=$(getconf CLK_TCK)

echo "date $(date -u +%FT%TZ) rounds $rounds"
for ((r = 1; r <= rounds; r++)); do
	for s in $servers; do
		has() { [[ " $cases " == *" $1 "* ]]; }
		for c in 200 10000; do
			has echo || continue
			start_server "$s"
			taskset -c 1 bin/gust load -c $c --warmup 2s -z 5s --timeout 30s --quiet -o json \
				"ws://127.0.0.1:$port/ws" >/tmp/bench-ws.json &
			lpid=$!
			sleep 2.5
			t0=$(cpu_ticks)
			sleep 4
			t1=$(cpu_ticks)
			wait $lpid
			stop_server
			python3 - "$s" "$c" "$r" "$((t1 - t0))" "$hz" /tmp/bench-ws.json <<'EOF'
import json, sys
name, conns, rnd, ticks, hz, path = sys.argv[1:]
res = json.load(open(path))
rps = res["rps"]
cpu_us = int(ticks) / int(hz) * 1e6 / (rps * 4) if rps else float("nan")
errs = res.get("error_total", 0)
print(f"round {rnd} {name:9s} echo-{conns:<6s} {rps:10.0f} msg/s  p99 {res['latency_us']['p99']/1000:7.2f} ms  server CPU {cpu_us:6.2f} us/msg  errors {errs}")
EOF
		done
		if has idle; then
		start_server "$s"
		rss0=$(rss_kb)
		taskset -c 1 bin/gust load -c 15000 --ws-hold --ws-ping 30s --warmup 1s -z 8s --timeout 30s --quiet -o json \
			"ws://127.0.0.1:$port/ws" >/tmp/bench-ws-idle.json &
		lpid=$!
		sleep 7
		rss1=$(rss_kb)
		g=$(goroutines)
		wait $lpid
		stop_server
		held=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["websocket"]["held"])' /tmp/bench-ws-idle.json)
		echo "round $r $(printf '%-9s' "$s") idle-15000  held $held  RSS +$(((rss1 - rss0) * 1024 / 15000)) B/conn (${rss1} kB)  goroutines $g"
		fi

		if has broadcast; then
		start_server "$s"
		taskset -c 1 bin/gust load -c 10000 --ws-hold --ws-ping 30s --warmup 2s -z 9s --timeout 30s --quiet -o json \
			"ws://127.0.0.1:$port/ws/broadcast" >/tmp/bench-ws-recv.json &
		rpid=$!
		sleep 3
		t0=$(cpu_ticks)
		taskset -c 1 bin/gust load -c 1 --rate 100 --ws-inflight 1024 -z 4s --timeout 30s --quiet -o json \
			"ws://127.0.0.1:$port/ws/broadcast" >/tmp/bench-ws-send.json
		sleep 3 # the backlog drains inside the receivers' window
		t1=$(cpu_ticks)
		wait $rpid
		stop_server
		python3 - "$s" "$r" "$((t1 - t0))" "$hz" /tmp/bench-ws-recv.json /tmp/bench-ws-send.json <<'EOF'
import json, sys
name, rnd, ticks, hz, rpath, spath = sys.argv[1:]
recv, send = json.load(open(rpath)), json.load(open(spath))
got = recv["websocket"]["messages_received"]
sent = send["websocket"]["messages_sent"]
want = sent * recv["websocket"]["held"]
cpu_us = int(ticks) / int(hz) * 1e6 / got if got else float("nan")
p99 = send["latency_us"]["p99"] / 1000 if send.get("requests") else float("nan")
print(f"round {rnd} {name:9s} broadcast-10000 {got / 4:10.0f} deliveries/s  delivered {got}/{want}  sender p99 {p99:7.2f} ms  server CPU {cpu_us:6.3f} us/delivery")
EOF
		fi

		if has tls-idle; then
		start_server "$s" tls
		rss0=$(rss_kb)
		taskset -c 1 bin/gust load -c 15000 --ws-hold --ws-ping 30s --insecure --warmup 1s -z "$((tls_idle_at + 1))s" --timeout 30s --quiet -o json \
			"wss://127.0.0.1:$port/ws" >/tmp/bench-ws-tls.json &
		lpid=$!
		sleep "$tls_idle_at"
		rss1=$(rss_kb)
		wait $lpid
		stop_server
		held=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["websocket"]["held"])' /tmp/bench-ws-tls.json)
		echo "round $r $(printf '%-9s' "$s") tls-idle-15000  held $held  RSS +$(((rss1 - rss0) * 1024 / 15000)) B/conn (${rss1} kB)"
		fi
	done
done
