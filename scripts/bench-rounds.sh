#!/usr/bin/env bash
# Side-by-side ratios on a noisy host: runs `gust bench --repeat 1` on
# CONFIG for ROUNDS rounds (each round runs every server once per cell,
# server on CPU 0, generator on CPU 1), then prints, per scenario and
# server, the median over rounds of its CPU per request and req/s and of
# their ratios to the first server's in the same round. A ratio taken
# within one round is steadier than a ratio of medians when the host's
# speed drifts by tens of percent between minutes.
#
# usage: scripts/bench-rounds.sh CONFIG SERVERS [rounds]
#   SERVERS as gust bench --servers (the first is the reference); extra
#   servers as NAME=COMMAND lines in SERVER_FLAGS; OUT=out/rounds
set -euo pipefail
cd "$(dirname "$0")/.."

config=$1
servers=$2
rounds=${3:-5}
out=${OUT:-out/rounds}
mkdir -p "$out" bin
go build -o bin/gust ./cmd/gust
ulimit -n "$(ulimit -Hn)"
extra=()
if [ -n "${SERVER_FLAGS:-}" ]; then
	while IFS= read -r line; do [ -n "$line" ] && extra+=(--server "$line"); done <<<"$SERVER_FLAGS"
fi
for r in $(seq "$rounds"); do
	echo "== round $r ($(date -u +%FT%TZ))"
	bin/gust bench --config "$config" --server-cpus 0 --client-cpus 1 --quiet --repeat 1 \
		--out "$out/round$r" --servers "$servers" "${extra[@]}" >/dev/null
done
python3 - "$out" "$rounds" "$servers" <<'PY'
import json, statistics, sys
out, rounds, servers = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
ref = servers[0]
rows = {}  # (scenario, server) -> lists
for r in range(1, rounds + 1):
    cells = json.load(open(f"{out}/round{r}/results.json"))["cells"]
    by = {(c["scenario"], c["server"]): c for c in cells}
    for (sc, srv), c in by.items():
        base = by.get((sc, ref))
        row = rows.setdefault((sc, srv), {"cpu": [], "kernel": [], "rps": [], "cpu_ratio": [], "rps_ratio": [], "goroutines": []})
        row["cpu"].append(c["cpu_us_per_req"])
        row["kernel"].append(c["cpu_kernel_us_per_req"])
        row["rps"].append(c["rps"])
        row["goroutines"].append(c["goroutines_max"])
        if base and base["cpu_us_per_req"] and base["rps"]:
            row["cpu_ratio"].append(c["cpu_us_per_req"] / base["cpu_us_per_req"])
            row["rps_ratio"].append(c["rps"] / base["rps"])
med = statistics.median
print(f"medians of {rounds} rounds; ratios are to {ref} in the same round")
print("| scenario | server | CPU us/req | kernel us/req | req/s | CPU / ref | req/s / ref | goroutines max |")
print("|---|---|---|---|---|---|---|---|")
order = {s: i for i, s in enumerate(servers)}
for (sc, srv), v in sorted(rows.items(), key=lambda kv: (kv[0][0], order.get(kv[0][1], 99))):
    ratio = lambda k: f"{med(v[k]):.2f}x ({min(v[k]):.2f}-{max(v[k]):.2f})" if v[k] else "-"
    print(f"| {sc} | {srv} | {med(v['cpu']):.2f} | {med(v['kernel']):.2f} | {med(v['rps']):.0f} | {ratio('cpu_ratio')} | {ratio('rps_ratio')} | {max(v['goroutines'])} |")
PY
