#!/usr/bin/env bash
# The native upload flood, round by round: keep-alive load
# alone, then beside 50 endless uploads (big-bodies-50), for each server,
# through scripts/bench-rounds.sh (server on CPU 0, generator and attack on
# CPU 1). Prints bench-rounds' table, then each round's req/s and the share
# each server kept beside the flood, and the median of those shares: on a
# noisy host a ratio taken within one round is steadier than a ratio of
# medians.
#
# usage: scripts/bench-flood.sh [rounds] [servers]
#   (default 5 rounds; servers as gust bench --servers, default
#   gust-auto,gust-auto-adapter; more as NAME=COMMAND lines in
#   SERVER_FLAGS); OUT=out/flood-rounds
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${1:-5}
servers=${2:-gust-auto,gust-auto-adapter}
export OUT=${OUT:-out/flood-rounds}
mkdir -p "$OUT"
python3 - lab/scenarios/auto.json "$OUT/flood.json" <<'PY'
import json, sys
sc = [s for s in json.load(open(sys.argv[1]))["scenarios"] if s["name"] in ("keepalive-200", "big-bodies-50")]
json.dump({"scenarios": sc}, open(sys.argv[2], "w"), indent=1)
PY
scripts/bench-rounds.sh "$OUT/flood.json" "$servers" "$rounds"
python3 - "$OUT" "$rounds" <<'PY'
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
