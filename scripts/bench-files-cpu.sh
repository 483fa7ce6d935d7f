#!/usr/bin/env bash
# bench-files-cpu.sh: server CPU per byte serving one file at 200 keep-alive
# connections, each server pinned to CPU 0 and gust load to CPU 1, rounds
# alternating the servers; for each run it prints the server's and the
# generator's CPU, the server's context switches and its write and
# sendfile calls per response, so that a difference in server CPU can be
# told from work moved between the two sides of the loopback.
#
#   scripts/bench-files-cpu.sh [--rounds N] [--size BYTES] SERVER...
#     SERVER: gust (gust serve --root, auto mode, loops parked in the Go
#             runtime's poller), gust-inline, gust-own (--mode inline
#             --own-threads: loops wait in epoll_wait on their own
#             threads), nginx (scripts/nginx-h2.sh files: sendfile on,
#             tcp_nopush on)
#   defaults: --rounds 3 --size 10485760 (10 MiB)
#
# Each run: 2 s of warm-up, then gust load -c 200 -z 10s; the server's CPU
# (utime + stime, /proc) over the run, per response and per GB read.
# Traffic goes to 127.0.0.1:9320 only.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=3 size=10485760
die() { echo "bench-files-cpu: $*" >&2; exit 2; }
while [[ $# -gt 0 ]]; do
	case "$1" in
	--rounds) rounds=${2:?}; shift 2 ;;
	--size) size=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown flag $1" ;;
	*) break ;;
	esac
done
[[ $# -ge 1 ]] || die "name at least one server: gust, gust-inline, gust-own or nginx"
[[ $rounds =~ ^[0-9]+$ && $rounds -ge 1 ]] || die "--rounds must be a positive integer, got $rounds"
[[ $size =~ ^[0-9]+$ && $size -ge 1 ]] || die "--size must be a positive integer, got $size"
for s in "$@"; do
	case "$s" in gust | gust-inline | gust-own | nginx) ;; *) die "unknown server $s: want gust, gust-inline, gust-own or nginx" ;; esac
done
go build -o bin/gust ./cmd/gust
root=$(mktemp -d)
spid=
trap 'if [[ -n $spid ]]; then kill "$spid" 2>/dev/null || true; fi; rm -rf "$root"' EXIT
head -c "$size" /dev/urandom >"$root/file.bin"
url=http://127.0.0.1:9320/file.bin
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
switches() { cat /proc/"$1"/task/*/status | awk '/ctxt_switches/ {s += $2} END {print s}'; }
writes() { awk '/^syscw/ {print $2}' "/proc/$1/io"; }
for r in $(seq "$rounds"); do
	for s in "$@"; do
		case "$s" in
		gust) taskset -c 0 bin/gust serve --root "$root" --addr 127.0.0.1:9320 >/dev/null 2>&1 & ;;
		gust-inline) taskset -c 0 bin/gust serve --mode inline --root "$root" --addr 127.0.0.1:9320 >/dev/null 2>&1 & ;;
		gust-own) taskset -c 0 bin/gust serve --mode inline --own-threads --root "$root" --addr 127.0.0.1:9320 >/dev/null 2>&1 & ;;
		nginx) taskset -c 0 scripts/nginx-h2.sh files 127.0.0.1:9320 "$root" >/dev/null 2>&1 & ;;
		esac
		spid=$!
		for _ in $(seq 100); do curl -fso /dev/null "$url" && break; sleep 0.1; done
		taskset -c 1 bin/gust load -c 200 -z 2s --quiet "$url" >/dev/null
		c0=$(ticks $spid) x0=$(switches $spid) w0=$(writes $spid)
		/usr/bin/time -f "%U %S" -o "$root/time" taskset -c 1 bin/gust load -c 200 -z 10s -o json "$url" >"$root/load.json"
		c1=$(ticks $spid) x1=$(switches $spid) w1=$(writes $spid)
		kill $spid
		wait $spid 2>/dev/null || true
		spid=
		python3 - "$root/load.json" "$root/time" "$s" "$r" "$c0" "$c1" "$x0" "$x1" "$w0" "$w1" <<'PY'
import json, sys
load, tfile, name, rnd = sys.argv[1:5]
c0, c1, x0, x1, w0, w1 = map(int, sys.argv[5:11])
d = json.load(open(load))
n, b = d["requests"], d["bytes_read"]
u, k = map(float, open(tfile).read().split()[-2:])
server_us = (c1 - c0) * 1e4  # clock ticks of 10 ms
print(f"round {rnd} {name}: {n} responses, {b / d['duration_s'] / 1e9:.2f} GB/s, "
      f"server {server_us / n:.0f} us/response {server_us / (b / 1e9) / 1e3:.1f} ms/GB, "
      f"gust load {(u + k) * 1e6 / n:.0f} us/response, "
      f"server context switches {(x1 - x0) / n:.1f} and write+sendfile calls {(w1 - w0) / n:.1f} per response")
PY
		sleep 0.5
	done
done
