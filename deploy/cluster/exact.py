#!/usr/bin/env python3
"""Checks that a merged gust load report (gust merge -o json) is the exact
sum of the agents' results it was made from (gust load -o json each).

    exact.py [--text REPORT] MERGED.json AGENT.json...

Counts must add up exactly (requests, bytes, connections, status codes,
errors, late requests, the rate), the latency's extremes must be the
agents' extremes, and every agent must be listed. With --text, REPORT (a
text report of the same run, as run-load.sh prints it) must give the same
number of responses and of each status. Prints one line, and exits 1 on
the first difference."""
import json
import sys


def main():
    args = sys.argv[1:]
    text = None
    if args[:1] == ["--text"] and len(args) > 1:
        with open(args[1]) as f:
            text = f.read()
        args = args[2:]
    if len(args) < 2:
        sys.exit("usage: exact.py [--text REPORT] MERGED.json AGENT.json...")
    with open(args[0]) as f:
        merged = json.load(f)
    agents = []
    for path in args[1:]:
        with open(path) as f:
            agents.append(json.load(f))
    bad = []

    def same(what, got, want):
        if got != want:
            bad.append(f"{what}: merged {got}, agents {want}")

    for key in ("requests", "bytes_read", "bytes_written", "connects",
                "reconnects", "error_total", "connections"):
        same(key, merged[key], sum(a[key] for a in agents))
    same("rate", round(merged["rate"], 6), round(sum(a["rate"] for a in agents), 6))
    same("late.count", merged["late"]["count"], sum(a["late"]["count"] for a in agents))
    for field in ("status", "errors"):
        want = {}
        for a in agents:
            for k, v in a[field].items():
                want[k] = want.get(k, 0) + v
        got = {k: v for k, v in merged[field].items() if v}
        same(field, got, {k: v for k, v in want.items() if v})
    same("latency min", merged["latency_us"]["min"], min(a["latency_us"]["min"] for a in agents))
    same("latency max", merged["latency_us"]["max"], max(a["latency_us"]["max"] for a in agents))
    same("agents", len(merged["agents"]), len(agents))
    same("shards", sorted(a["shard"] for a in agents),
         sorted(f"{i}/{len(agents)}" for i in range(len(agents))))
    if text is not None:
        lines = text.splitlines()
        want = f"{merged['requests']:,} responses"
        if not any(l.startswith("Requests") and want in l for l in lines):
            bad.append(f"the text report does not say {want}")
        status = ", ".join(f"{k}: {v:,}" for k, v in sorted(merged["status"].items()))
        if not any(l.startswith("Status") and l.split(None, 1)[1] == status for l in lines):
            bad.append(f"the text report's status line is not {status}")
    if bad:
        sys.exit("exact.py: the merged report is not the sum of the agents' (or the text report says otherwise): " + "; ".join(bad))
    if merged["requests"] == 0:
        sys.exit("exact.py: the agents sent no request")
    print(f"exact.py: {len(agents)} agents, {merged['requests']} requests, "
          f"status {merged['status']}, {merged['error_total']} errors: the merged report is their exact sum")


if __name__ == "__main__":
    main()
