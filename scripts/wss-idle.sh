#!/usr/bin/env bash
# wss-idle.sh: what an idle WebSocket costs gust serve over TLS 1.3 (or
# plain ws), held long enough for the Go runtime's forced GC (every 2
# minutes) to have run: 15,000 connections upgraded and held with a ping
# every 30 s for 170 s, the server's RSS growth per connection (and its
# heap, from /debug/vars) printed at 25, 60, 130 and 165 s. The server
# runs one loop on CPU 0, the generator on CPU 1; loopback only.
#
# usage: scripts/wss-idle.sh [LABEL] [wss|ws]
set -euo pipefail
cd "$(dirname "$0")/.."
label=${1:-gust} scheme=${2:-wss}
case "$scheme" in ws | wss) ;; *) echo "wss-idle: the scheme must be ws or wss, got $scheme" >&2; exit 2 ;; esac
port=9310 dport=9311 conns=15000
go build -o bin/gust ./cmd/gust
gflags=
[[ $scheme == wss ]] && gflags=--tls-self-signed
GOMAXPROCS=1 taskset -c 0 bin/gust serve --addr 127.0.0.1:$port --loops 1 --debug-addr 127.0.0.1:$dport $gflags >/dev/null 2>&1 &
spid=$!
lpid=
trap 'kill $spid $lpid 2>/dev/null || true' EXIT
for _ in $(seq 100); do
	curl -kfsS -o /dev/null "http://127.0.0.1:$dport/debug/vars" 2>/dev/null && break
	sleep 0.1
done
rss() { awk '/^VmRSS:/ {print $2}' /proc/$spid/status; }
vars() { curl -fsS http://127.0.0.1:$dport/debug/vars; }
heap() { # HeapAlloc HeapInuse, of the memstats in $1
	python3 -c 'import json,sys; m=json.loads(sys.argv[1])["memstats"]; print(m["HeapAlloc"], m["HeapInuse"])' "$1"
}
# Where the RSS is: the runtime's own accounts in $1, in KiB.
runtime_mem() {
	python3 -c 'import json,sys; m=json.loads(sys.argv[1])["memstats"]; k=lambda n: m[n]>>10
print("  runtime KiB: heap alloc %d in use %d idle-not-released %d released %d, stacks %d, spans %d, gc meta %d, other %d, next gc %d, gcs %d" % (k("HeapAlloc"), k("HeapInuse"), k("HeapIdle")-k("HeapReleased"), k("HeapReleased"), k("StackInuse"), k("MSpanInuse"), k("GCSys"), k("OtherSys"), k("NextGC"), m["NumGC"]))' "$1"
}
rss0=$(rss)
read -r alloc0 inuse0 < <(heap "$(vars)")
taskset -c 1 bin/gust load -c $conns ${WSS_IDLE_CONNECT_RATE:+--connect-rate $WSS_IDLE_CONNECT_RATE} --ws-hold --ws-ping 30s --insecure --warmup 1s -z 170s --timeout 30s --quiet -o json \
	"$scheme://127.0.0.1:$port/ws" >"/tmp/wss-idle-$label.json" &
lpid=$!
prev=0
for t in 25 60 130 165; do
	sleep $((t - prev))
	prev=$t
	r=$(rss)
	v=$(vars)
	read -r alloc inuse < <(heap "$v")
	echo "$label $scheme t=${t}s RSS +$(((r - rss0) * 1024 / conns)) B/conn  heap allocated +$(((alloc - alloc0) / conns)) B/conn  heap spans in use +$(((inuse - inuse0) / conns)) B/conn"
	runtime_mem "$v"
done
wait $lpid
lpid=
python3 -c 'import json,sys; print("held", json.load(open(sys.argv[1]))["websocket"]["held"])' "/tmp/wss-idle-$label.json"
