#!/usr/bin/env bash
# The dispatch, TLS and HTTP/2 targets measured in one sitting, server
# on CPU 0 and generator on CPU 1, medians of ROUNDS (default 3): each
# step writes its output into OUT (default out/targets) and prints it.
# Needs the machine to itself (about 30 minutes), wrk, h2load
# (nghttp2-client) and nginx; loopback only, every run bounded in time.
#
# usage: scripts/bench-targets.sh [step...]
#   steps: auto compute mixed flood tls handshakes load-tls h2-load h2-server
#   (default: all of them, in that order)   ROUNDS=3 OUT=out/targets
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${ROUNDS:-3}
out=${OUT:-out/targets}
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(auto compute mixed flood tls handshakes load-tls h2-load h2-server)
mkdir -p "$out" bin
go build -o bin/gust ./cmd/gust
ulimit -n "$(ulimit -Hn)"
pin=(--server-cpus 0 --client-cpus 1 --quiet --repeat "$rounds")

# pick NAMES FILE: the scenarios of FILE whose names are in NAMES, as a new file.
pick() {
	python3 - "$1" "$2" "$out/$3" <<'EOF'
import json, sys
names, src, dst = sys.argv[1].split(","), sys.argv[2], sys.argv[3]
sc = [s for s in json.load(open(src))["scenarios"] if s["name"] in names]
json.dump({"scenarios": sc}, open(dst, "w"), indent=1)
EOF
	echo "$out/$3"
}

# mixed_run MODE [EXCLUDE]: gust replay's report of the mixed log against gust serve in MODE.
mixed_run() {
	local mode=$1 port=18480
	GOMAXPROCS=1 taskset -c 0 bin/gust serve --addr 127.0.0.1:$port --mode "$mode" --slow-path /slow --delay 50ms >/dev/null 2>&1 &
	local pid=$!
	for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:$port/ && break; sleep 0.1; done
	taskset -c 1 bin/gust replay --target http://127.0.0.1:$port --max --loop 0 -c 2000 -z 10s "${@:2}" lab/scenarios/auto-mixed.log
	kill "$pid"; wait "$pid" 2>/dev/null || true
}

for step in "${steps[@]}"; do
	echo "== $step ($(date -u +%FT%TZ))"
	case $step in
	auto) # keep-alive hello world, Auto beside Inline and fasthttp, native and adapter
		cfg=$(pick keepalive-200,keepalive-2000,keepalive-8000,keepalive-16000 lab/scenarios/auto.json auto-keepalive.json)
		bin/gust bench --config "$cfg" "${pin[@]}" --out "$out/auto" \
			--servers gust-auto,gust-inline,fasthttp,gust-auto-adapter
		cat "$out/auto/report.md" ;;
	compute) # a handler that computes for 200 us
		G="$PWD/bin/gust serve --addr {addr} --debug-addr {debug} --compute 200us"
		bin/gust bench --config lab/scenarios/auto-compute.json "${pin[@]}" --out "$out/compute" \
			--server "compute-auto=$G --mode auto" --server "compute-pooled=$G --mode pooled" \
			--server "compute-inline=$G --mode inline" --servers compute-auto,compute-pooled,compute-inline
		cat "$out/compute/report.md" ;;
	mixed) # 95% fast, 5% waiting 50 ms, 2000 connections; fast p99 with and without the waiting ones
		for r in $(seq "$rounds"); do
			for mode in auto pooled; do
				echo "-- round $r, $mode, mixed"; mixed_run "$mode"
				echo "-- round $r, $mode, fast only"; mixed_run "$mode" --exclude '^/slow'
			done
		done 2>&1 | tee "$out/mixed.txt" ;;
	flood) # 50 endless native uploads beside keep-alive load, and the same load alone
		cfg=$(pick keepalive-200,big-bodies-50 lab/scenarios/auto.json flood.json)
		bin/gust bench --config "$cfg" "${pin[@]}" --out "$out/flood" --servers gust-auto,gust-auto-adapter
		cat "$out/flood/report.md" ;;
	tls) # gust/server over TLS beside fasthttp and net/http, wrk -t1
		cfg=$(pick tls-keepalive-200,tls-keepalive-2000 lab/scenarios/tls.json tls-keepalive.json)
		bin/gust bench --config "$cfg" --loader wrk "${pin[@]}" --out "$out/tls" --servers gust-native,fasthttp,nethttp
		cat "$out/tls/report.md" ;;
	handshakes) # full and resumed handshakes per second, TLS 1.3 and 1.2
		scripts/bench-tls-handshakes.sh 5 "$rounds" | tee "$out/handshakes.md" ;;
	load-tls) # gust load against wrk -t1 over TLS, fasthttp as the target
		SERVER_CPUS=0 CLIENT_CPU=1 SERVERS=fasthttp scripts/bench-load-tls.sh 10 "$rounds" | tee "$out/load-tls.md" ;;
	h2-load) # gust load --http2 against h2load -t1, nginx h2c
		scripts/bench-h2-load.sh 5 "$rounds" | tee "$out/h2-load.md" ;;
	h2-server) # gust/server HTTP/2 against net/http's
		DURATION=10s WARMUP=2s IDLE=10000 scripts/bench-h2-server.sh | tee "$out/h2-server.md" ;;
	*) echo "unknown step $step" >&2; exit 2 ;;
	esac
done
