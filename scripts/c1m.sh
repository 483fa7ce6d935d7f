#!/usr/bin/env bash
# c1m.sh: hold N concurrent connections (default 1,000,000) to one server on
# this machine, HTTP keep-alive or WebSocket, and measure what they cost.
#
#   scripts/c1m.sh [--conns N] [--kind http|ws] [--server gust|nbio|nethttp|fasthttp|gorillaws]
#                  [--per-proc N] [--connect-rate R] [--hold D] [--rate R] [--port P]
#                  [--sources FIRST-LAST] [--ws-ping D] [--own-threads] [--out DIR]
#
# One process may hold at most 20,000 open files here, and one source
# address has about 28,000 ephemeral ports to a target, so the server runs
# as ceil(N / per-proc) processes sharing one port (SO_REUSEPORT: each
# process's -reuseport; gust's is cmd/gustd, gust/server alone, as
# each peer is a program of its own), and the generator as as many
# `gust load --shard I/S` processes, each binding its connections to the
# source addresses in turn (--source-addrs). The shards ramp up at
# --connect-rate connections/s in total, then hold every connection for
# --hold while a trickle of --rate requests (HTTP) or echoed messages (ws)
# per second in total flows, latency measured (open model). At the end of
# the hold it samples:
#   held             connections established (half the growth in the
#                    machine's established sockets: both ends are here)
#   server_rss_mb    VmRSS summed over every server process (each counts
#                    the binary's shared pages again); server_pss_mb is
#                    the same memory counted once (PSS)
#   server_b_per_conn (server PSS - its PSS before the ramp) / conns
#   slab_b_per_conn  the kernel's slab growth (both sockets) / conns
#   gen_rss_mb       VmRSS summed over the generator's shards
# then merges the shards' JSON results (gust merge) for failed connects
# and upgrades and the trickle's p50/p99, and prints one line:
#   c1m: conns=N held=N failed=N ramp_s=S server_rss_mb=M server_pss_mb=M
#        server_b_per_conn=B slab_b_per_conn=B gen_rss_mb=M p50_ms=X p99_ms=X
# It exits 1 if any connection failed or was not held at the end, refuses
# (one line, exit 2) a run that would not fit in the free memory, and stops
# every process it started on exit, also on Ctrl-C.
# Traffic goes to 127.0.0.1 only. Outputs (per-shard JSON, the merged
# report, server logs) go to --out (default out/c1m).
set -euo pipefail
cd "$(dirname "$0")/.."

conns=1000000 kind=http server=gust per_proc=18000 connect_rate=
hold=60s rate=1000 port=9190 sources=127.0.0.1-127.0.0.250 out=out/c1m
# gustd pings a WebSocket silent for --ws-ping (its own default is 30 s).
# Here the default is 10 minutes, so that no ping falls in a run: the peers
# send none, and a million connections pinged every 30 s, 33,333
# exchanges a second, need more than this machine's 2 cores (the kernel's
# part alone 46-53 us an exchange, the whole machine 65 us at 100,000
# connections and more at a million: docs/BENCHMARKS.md, "The ping
# limit"). --ws-ping 30s measures that case.
ws_ping=10m
own_threads= # --own-threads: gustd's loops wait on their own threads (server.Config.LoopsOwnThreads)

usage() { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//' >&2; }
die() { echo "c1m: $*" >&2; exit 2; }
while [[ $# -gt 0 ]]; do
	case "$1" in
	--conns) conns=${2:?}; shift ;;
	--kind) kind=${2:?}; shift ;;
	--server) server=${2:?}; shift ;;
	--per-proc) per_proc=${2:?}; shift ;;
	--connect-rate) connect_rate=${2:?}; shift ;;
	--hold) hold=${2:?}; shift ;;
	--rate) rate=${2:?}; shift ;;
	--port) port=${2:?}; shift ;;
	--sources) sources=${2:?}; shift ;;
	--out) out=${2:?}; shift ;;
	--ws-ping) ws_ping=${2:?}; shift ;; # gustd's WebSocket ping interval (default 10m, above)
	--own-threads) own_threads=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage; die "unknown argument $1" ;;
	esac
	shift
done
# New connections a second: an upgrade costs both ends more than a
# connect, and a million WebSockets ramp at 10,000 a second here (20,000
# for HTTP).
if [[ -z $connect_rate ]]; then
	connect_rate=20000
	[[ $kind == ws ]] && connect_rate=10000
fi
[[ $conns =~ ^[0-9]+$ && $conns -ge 1 ]] || die "--conns must be a positive integer, got $conns"
[[ $per_proc =~ ^[0-9]+$ && $per_proc -ge 100 && $per_proc -le 19500 ]] ||
	die "--per-proc must be 100 to 19500 (one process may open 20,000 files), got $per_proc"
[[ $connect_rate =~ ^[0-9]+$ && $connect_rate -ge 1 ]] || die "--connect-rate must be a positive integer, got $connect_rate"
[[ $rate =~ ^[0-9]+$ && $rate -ge 1 ]] || die "--rate must be a positive integer, got $rate"
[[ $port =~ ^[0-9]+$ && $port -ge 1024 && $port -le 65535 ]] || die "--port must be 1024 to 65535, got $port"
[[ $hold =~ ^[0-9]+s$ ]] || die "--hold must be whole seconds such as 60s, got $hold"
case "$kind" in http | ws) ;; *) die "--kind must be http or ws, got $kind" ;; esac
case "$server" in gust | nbio | nethttp | fasthttp | gorillaws) ;; *) die "--server must be gust, nbio, nethttp, fasthttp or gorillaws, got $server" ;; esac
[[ $server == fasthttp && $kind == ws ]] && die "fasthttp has no WebSocket server among the peers: use --kind http"
[[ $server == nethttp && $kind == ws ]] && die "net/http's WebSocket peer is gorilla/websocket on it: use --server gorillaws"
[[ $server == gorillaws && $kind == http ]] && die "gorillaws is a WebSocket peer: use --kind ws"
[[ -n $own_threads && $server != gust ]] && die "--own-threads is gustd's (the peers run their own loops)"

procs=$(((conns + per_proc - 1) / per_proc))
hold_s=${hold%s}
ramp_s=$(((conns + connect_rate - 1) / connect_rate))

# Memory: about 5 KB of kernel memory a loopback socket (two a connection),
# and (measured at 15,000 connections, docs/BENCHMARKS.md) under 1.5 KB a
# connection in the server and as much in the generator, plus 12 MB a
# process; with 25% to spare.
need_kb=$(((conns * (10240 + 3072) / 1024 + 2 * procs * 12 * 1024) * 5 / 4))
avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
if ((need_kb > avail_kb)); then
	die "$conns connections need about $((need_kb / 1024)) MB and $((avail_kb / 1024)) MB are available: try --conns $((conns * avail_kb / need_kb))"
fi
lo=${sources%-*} hi=${sources#*-}
naddr=$((${hi##*.} - ${lo##*.} + 1))
((naddr >= 1)) || die "--sources must be a range FIRST-LAST within one /24, got $sources"
((conns <= naddr * 28000)) || die "$conns connections need $(((conns + 27999) / 28000)) source addresses; --sources $sources has $naddr"

mkdir -p "$out"
rm -f "$out"/shard-*.json "$out"/shard-*.log "$out"/server*.log
go build -o bin/gust ./cmd/gust
go build -o bin/gustd ./cmd/gustd
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	sleep 1
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	pkill -KILL -f "gustd -addr 127.0.0.1:$port" 2>/dev/null || true
}
# A 2-core machine running a hundred processes lets a server process wait
# long enough for its accept queue (somaxconn, 4096 here) to overflow; the
# client then holds sockets the server never accepted. As root, raise the
# queue for the run (put back on exit); gust/server asks for 65535.
somaxconn0=$(sysctl -n net.core.somaxconn)
synbacklog0=$(sysctl -n net.ipv4.tcp_max_syn_backlog)
if [[ $(id -u) -eq 0 ]] && ((somaxconn0 < 65535)); then
	sysctl -q -w net.core.somaxconn=65535 net.ipv4.tcp_max_syn_backlog=65535
	echo "c1m: net.core.somaxconn and net.ipv4.tcp_max_syn_backlog raised to 65535 for the run (from $somaxconn0 and $synbacklog0)" >&2
	restore_sysctl() { sysctl -q -w net.core.somaxconn="$somaxconn0" net.ipv4.tcp_max_syn_backlog="$synbacklog0"; }
else
	restore_sysctl() { :; }
fi
# Two million sockets that each receive now and then (a WebSocket's pings)
# keep more TCP memory charged than tcp_mem's limit, sized from RAM for an
# ordinary machine, allows (measured: 684,302 pages at the peak against a
# limit of 575,796, and the kernel then drops and resets). As root, raise
# it for the run to 8 GiB (pressure at 6), put back on exit.
tcpmem0=$(sysctl -n net.ipv4.tcp_mem | tr -s '[:space:]' ' ')
read -r _ _ tcpmax0 <<<"$tcpmem0"
if [[ $(id -u) -eq 0 ]] && ((tcpmax0 < 2097152)); then
	read -r tcplow0 _ _ <<<"$tcpmem0"
	sysctl -q -w net.ipv4.tcp_mem="$tcplow0 1572864 2097152"
	echo "c1m: net.ipv4.tcp_mem raised to \"$tcplow0 1572864 2097152\" pages for the run (from \"$tcpmem0\")" >&2
	restore_tcpmem() { sysctl -q -w net.ipv4.tcp_mem="$tcpmem0"; }
else
	restore_tcpmem() { :; }
fi
trap 'cleanup; restore_sysctl; restore_tcpmem' EXIT
trap 'exit 130' INT TERM

# The server: procs processes on one port, one loop (GOMAXPROCS=1) each, so
# that a process's fixed cost stays small.
case "$server" in
gust)
	path=/
	[[ $kind == ws ]] && path=/ws
	# A held connection may wait minutes for its first request of the
	# trickle: neither the first head's timeout (10 s by default) nor the
	# idle timeout (120 s) may close it; the peers get an hour too.
	for ((i = 0; i < procs; i++)); do
		GOMAXPROCS=1 bin/gustd -addr 127.0.0.1:$port -reuseport -loops 1 -mode inline \
			-read-header-timeout 1h -idle-timeout 1h ${ws_ping:+-ws-ping $ws_ping} ${own_threads:+-own-threads} >"$out/server-$i.log" 2>&1 &
		pids+=($!)
	done
	server_pids() { pgrep -f "gustd -addr 127.0.0.1:$port" || true; }
	;;
*)
	bin_dir="${XDG_CACHE_HOME:-$HOME/.cache}/gust/c1m"
	mkdir -p "$bin_dir"
	(cd peers && go build -o "$bin_dir/$server" "./$server")
	path=/
	[[ $kind == ws ]] && path=/ws
	for ((i = 0; i < procs; i++)); do
		# As gustd gets timeouts of an hour: a held
		# connection may wait minutes for its first request of the trickle.
		GOMAXPROCS=1 "$bin_dir/$server" -addr 127.0.0.1:$port -reuseport -idle-timeout 1h >"$out/server-$i.log" 2>&1 &
		pids+=($!)
	done
	server_pids() { pgrep -f "$bin_dir/$server -addr 127.0.0.1:$port" || true; }
	;;
esac
# Up once every process listens (gustd logs its start) and
# answers; a listener joining the port's group meanwhile may reset a probe.
up=0
for _ in $(seq 300); do
	if [[ $server != gust ]] || (($(cat "$out"/server*.log | grep -c 'listening on') >= procs)); then
		if curl -fsS -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null; then
			up=$((up + 1))
			((up == 3)) && break
		fi
	fi
	sleep 0.1
done
((up == 3)) || die "the $server server did not answer on 127.0.0.1:$port within 30 s (see $out/server*.log)"
sleep 1

sum_status() { # field pids...: a /proc/PID/status field summed, in kB
	local f=$1 p s=0 v
	shift
	for p in "$@"; do
		v=$(awk -v f="$f:" '$1 == f {print $2}' "/proc/$p/status" 2>/dev/null || echo 0)
		s=$((s + ${v:-0}))
	done
	echo $s
}
sum_pss() {
	local p s=0 v
	for p in "$@"; do
		v=$(awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup" 2>/dev/null || echo 0)
		s=$((s + ${v:-0}))
	done
	echo $s
}
slab_kb() { awk '/^Slab:/ {print $2}' /proc/meminfo; }

mapfile -t spids < <(server_pids)
pss0=$(sum_pss "${spids[@]}")
slab0=$(slab_kb)

# The generator: procs shards, each ramping its share, then holding. A
# shard measures for --hold once its warmup is over and all its
# connections are up (--timeout bounds the wait past the warmup). The
# warmup outlasts the nominal ramp by half and 10 s, so that no shard
# measures its trickle while others still ramp. The shards' loops wait
# on their own threads (--own-threads): a loop that sleeps and wakes for
# each ping costs the generator 11 us a ping so, 17 parked (measured).
warm_s=$((ramp_s * 3 / 2 + 10))
scheme=http
[[ $kind == ws ]] && scheme=ws
url="$scheme://127.0.0.1:$port$path"
echo "c1m: $conns $kind connections to $server ($procs server processes, $procs shards), ramp at $connect_rate/s (${ramp_s}s nominal), hold $hold at $rate/s" >&2
estab() { ss -s | awk '/^TCP:/ {gsub(/,/, ""); for (i = 1; i <= NF; i++) if ($i == "(estab") print $(i + 1)}'; }
estab0=$(estab)
# The kernel's TCP memory (pages, /proc/net/sockstat) sampled every second:
# past tcp_mem's middle value the kernel is under pressure, past its last
# it drops and resets ("TCP: out of memory" in the kernel log).
(
	peak=0
	while :; do
		m=$(awk '/^TCP:/ {for (i = 1; i <= NF; i++) if ($i == "mem") print $(i + 1)}' /proc/net/sockstat)
		((m > peak)) && peak=$m && echo "$peak" >"$out/tcp-mem-peak"
		sleep 1
	done
) &
pids+=($!)
oom0=$(dmesg 2>/dev/null | grep -c "TCP: out of memory" || true)
t0=$(date +%s)
for ((i = 0; i < procs; i++)); do
	bin/gust load --shard "$i/$procs" -c "$conns" --connect-rate "$connect_rate" --source-addrs "$sources" --own-threads \
		--rate "$rate" --warmup "${warm_s}s" -z "$hold" --timeout 120s --quiet -o json \
		"$url" >"$out/shard-$i.json" 2>"$out/shard-$i.log" &
	pids+=($!)
	gen_pids+=($!)
done

# Memory running short ends the run before the machine's OOM killer
# would: a server that keeps a goroutine and buffers per connection
# (net/http) runs out long before a million. Below a floor of available
# memory the watcher notes how many connections were up, stops the
# generator and the server, and the run ends there with that figure.
mem_floor_kb=$((${C1M_MEM_FLOOR_MB:-1536} * 1024)) # C1M_MEM_FLOOR_MB: for tests of the stop
memstop="$out/memstop"
rm -f "$memstop"
(
	while :; do
		a=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
		if ((a < mem_floor_kb)); then
			echo "$((($(estab) - estab0) / 2)) $((a / 1024))" >"$memstop"
			for p in "${gen_pids[@]}" "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
			pkill -KILL -f "gustd -addr 127.0.0.1:$port" 2>/dev/null || true
			exit 0
		fi
		sleep 1
	done
) &
watch_pid=$!
pids+=($watch_pid)
memstopped() {
	[[ -s $memstop ]] || return 1
	local n mb
	read -r n mb <"$memstop"
	echo "c1m: stopped at $n connections up (of $conns) after $(($(date +%s) - t0))s: available memory fell to $mb MB (floor $((mem_floor_kb / 1024)) MB), so the $server server and the generator were stopped before the machine ran out" >&2
	echo "c1m: conns=$conns held=0 failed=NA stopped_at=$n server=$server kind=$kind"
	exit 1
}

# The ramp is over when both ends of every connection are established (ss
# counts every socket of the machine: the baseline is taken off).
deadline=$((t0 + 3 * ramp_s + 60))
gave_up=0
while (($(estab) - estab0 < 2 * conns)); do
	memstopped || true
	if (($(date +%s) >= deadline)); then
		echo "c1m: the ramp did not finish by $((deadline - t0))s: $((($(estab) - estab0) / 2)) of $conns connections up" >&2
		break
	fi
	# Shards that gave up (their warmup and --timeout past) leave nothing
	# to wait for.
	alive=0
	for p in "${gen_pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
	if ((alive == 0)); then
		echo "c1m: every shard exited before the ramp finished: $((($(estab) - estab0) / 2)) of $conns connections up after $(($(date +%s) - t0))s (see $out/shard-*.log)" >&2
		gave_up=1
		break
	fi
	sleep 1 &
	wait $!
done
nominal_s=$ramp_s
ramp_s=$(($(date +%s) - t0))
((gave_up == 1)) || echo "c1m: ramp done in ${ramp_s}s; holding" >&2

# Sample near the end of the hold: every shard measures for --hold from
# when its warmup is over, or later if its connections came up later.
# held is counted from ss's summary (both ends of every connection are
# established sockets), which is quick even at a million.
hold_from=$((t0 + (ramp_s > warm_s ? ramp_s : warm_s)))
left=$((hold_from + hold_s - 10 - $(date +%s)))
((gave_up == 0)) || left=0
sleep $((left > 0 ? left : 0)) &
wait $! # not sleep alone: a trapped signal waits for a foreground sleep
memstopped || true
held=$((($(estab) - estab0) / 2))
mapfile -t spids < <(server_pids)
server_rss=$(sum_status VmRSS "${spids[@]}")
server_pss=$(sum_pss "${spids[@]}")
slab1=$(slab_kb)
gen_rss=$(sum_status VmRSS "${gen_pids[@]}")
status=0
for p in "${gen_pids[@]}"; do wait "$p" || status=1; done
((status == 0)) || echo "c1m: a shard failed (see $out/shard-*.log)" >&2

bin/gust merge -o json "$out"/shard-*.json >"$out/merged.json"
read -r failed p50 p99 < <(python3 - "$out/merged.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
errs = r.get("errors") or {}
failed = sum(v for k, v in errs.items() if k.startswith(("connect", "upgrade")))
lat = r.get("latency_us") or {}
pct = lat.get("percentiles") or {}
def ms(key):
    v = pct.get(key, lat.get(key))
    return "%.2f" % (v / 1000) if v is not None else "NA"
print(failed, ms("p50"), ms("p99"))
EOF
)
read -r _ tcp_press tcp_max </proc/sys/net/ipv4/tcp_mem
oom1=$(dmesg 2>/dev/null | grep -c "TCP: out of memory" || true)
echo "c1m: TCP memory peaked at $(cat "$out/tcp-mem-peak" 2>/dev/null || echo NA) pages (tcp_mem: pressure at $tcp_press, limit $tcp_max); \"TCP: out of memory\" in the kernel log $((oom1 - oom0)) times during the run" >&2
echo "c1m: conns=$conns held=$held failed=$failed ramp_s=$ramp_s server_rss_mb=$((server_rss / 1024)) server_pss_mb=$((server_pss / 1024)) server_b_per_conn=$(((server_pss - pss0) * 1024 / conns)) slab_b_per_conn=$(((slab1 - slab0) * 1024 / conns)) gen_rss_mb=$((gen_rss / 1024)) p50_ms=$p50 p99_ms=$p99"
if ((held < conns || failed > 0 || status != 0)); then
	echo "c1m: not every connection was held: $held of $conns held, $failed failed" >&2
	exit 1
fi
