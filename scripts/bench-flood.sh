#!/usr/bin/env bash
# The native upload flood of issue 12, round by round: keep-alive load
# alone, then beside 50 endless uploads (big-bodies-50), for each server,
# with `gust bench --repeat 1` per round (server on CPU 0, generator and
# attack on CPU 1). Prints each round's req/s and the share kept beside
# the flood, then the median of those per-round shares: on a noisy host a
# ratio taken within one round is steadier than a ratio of medians.
#
# usage: scripts/bench-flood.sh [rounds] [servers]
#   (default 5 rounds; servers as gust bench --servers, default
#   gust-auto,gust-auto-adapter; or NAME=COMMAND pairs in SERVER_FLAGS)
#   OUT=out/flood-rounds
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${1:-5}
servers=${2:-gust-auto,gust-auto-adapter}
out=${OUT:-out/flood-rounds}
mkdir -p "$out" bin
go build -o bin/gust ./cmd/gust
ulimit -n "$(ulimit -Hn)"
python3 - lab/scenarios/auto.json "$out/flood.json" <<'PY'
import json, sys
sc = [s for s in json.load(open(sys.argv[1]))["scenarios"] if s["name"] in ("keepalive-200", "big-bodies-50")]
json.dump({"scenarios": sc}, open(sys.argv[2], "w"), indent=1)
PY
extra=()
if [ -n "${SERVER_FLAGS:-}" ]; then
	while IFS= read -r line; do [ -n "$line" ] && extra+=(--server "$line"); done <<<"$SERVER_FLAGS"
fi
for r in $(seq "$rounds"); do
	echo "== round $r ($(date -u +%FT%TZ))"
	bin/gust bench --config "$out/flood.json" --server-cpus 0 --client-cpus 1 --quiet --repeat 1 \
		--out "$out/round$r" --servers "$servers" "${extra[@]}" >/dev/null
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
kept = {}
for r in range(1, rounds + 1):
    cells = json.load(open(f"{out}/round{r}/results.json"))["cells"]
    rps = {(c["server"], c["scenario"]): c["rps"] for c in cells}
    for (srv, sc), v in sorted(rps.items()):
        if sc != "keepalive-200":
            continue
        beside = rps.get((srv, "big-bodies-50"), 0)
        kept.setdefault(srv, []).append(beside / v)
        print(f"round {r}  {srv:22s} alone {v:9.0f}  beside the flood {beside:9.0f}  kept {beside / v:6.1%}")
for srv, k in kept.items():
    print(f"{srv:22s} kept, median of {len(k)} rounds: {statistics.median(k):.1%}  (range {min(k):.0%}-{max(k):.0%})")
PY
