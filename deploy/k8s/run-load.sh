#!/usr/bin/env bash
# Runs the gust load agents of deploy/k8s/load on the current cluster with one
# command: sets START_AT a little ahead so that every agent begins together,
# applies the ConfigMap and the Indexed Job, waits for the Job, and merges the
# agents' results (their pods' logs) with gust merge.
#
#   deploy/k8s/run-load.sh [-n NAMESPACE] [-k DIR] [-a SECONDS] [-o FORMAT]
#                          [--threshold EXPR]... [--fail-status STATUSES] [--print]
#
#   -n NAMESPACE  where to run (default: kubectl's current namespace)
#   -k DIR        the load kustomization (default: deploy/k8s/load; an overlay of it works)
#   -a SECONDS    begin this long from now (default 30: time to schedule pods and pull the image)
#   -o FORMAT     gust merge's report: text (default), json, csv or html
#   --threshold EXPR  judge the merged result (gust merge --threshold; repeatable),
#                 e.g. 'p99<200ms' or 'error_rate<0.1%'
#   --fail-status STATUSES  statuses error_rate counts as failed (gust merge --fail-status), e.g. 5xx
#   --print       print the manifests it would apply, and stop
#
# Environment: KUBECTL (default kubectl), KUSTOMIZE (default "kubectl kustomize"),
# GUST (default gust: a local gust binary, for gust merge).
# The report goes to standard output; progress to standard error. Exits 99 when a
# threshold failed (as gust merge does), and non-zero if the Job failed (the
# agents that succeeded are still merged: gust merge lists the missing shards).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
dir="$here/load" ns=() ahead=30 format=text print= judge=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -n) ns=(-n "$2"); shift 2 ;;
    -k) dir="$(cd "$2" && pwd)"; shift 2 ;;
    -a) ahead="$2"; shift 2 ;;
    -o) format="$2"; shift 2 ;;
    --threshold|--fail-status) judge+=("$1" "$2"); shift 2 ;;
    --print) print=1; shift ;;
    *) echo "run-load.sh: unknown argument $1 (see the comment at the top of $0)" >&2; exit 2 ;;
  esac
done
read -r -a kubectl <<< "${KUBECTL:-kubectl}"
read -r -a kustomize <<< "${KUSTOMIZE:-kubectl kustomize}"
read -r -a gust <<< "${GUST:-gust}"

# RFC 3339 in UTC, $ahead seconds from now (GNU date, then BSD date).
start_at="$(date -u -d "+${ahead} seconds" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null ||
  date -u -v "+${ahead}S" +%Y-%m-%dT%H:%M:%SZ)"

# The manifests, with START_AT set: kustomize writes the ConfigMap's empty
# START_AT as the line 'START_AT: ""'.
manifests="$("${kustomize[@]}" "$dir" | sed "s/^\( *\)START_AT: \"\"\$/\1START_AT: \"$start_at\"/")"
if ! grep -q "START_AT: \"$start_at\"" <<< "$manifests"; then
  echo "run-load.sh: $dir has no ConfigMap with an empty START_AT to set" >&2
  exit 1
fi
if [[ -n "$print" ]]; then
  printf '%s\n' "$manifests"
  exit 0
fi

k() { "${kubectl[@]}" "${ns[@]}" "$@"; }
# A Job cannot be changed: the previous run's goes first.
k delete job -l app.kubernetes.io/component=load,app.kubernetes.io/name=gust --ignore-not-found --wait >&2
job="$(printf '%s\n' "$manifests" | k apply -o name -f - | grep '^job')"
echo "run-load.sh: $job applied; the agents begin at $start_at" >&2

failed=
while :; do
  conds="$(k get "$job" -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type} {end}')"
  case " $conds " in
    *" Complete "*) break ;;
    *" Failed "*) failed=1; break ;;
  esac
  sleep 5
done
[[ -z "$failed" ]] || echo "run-load.sh: $job failed; merging the agents that succeeded" >&2

name="${job#*/}"
pods="$(k get pods -l "job-name=$name" --field-selector=status.phase=Succeeded -o name)"
for pod in $pods; do
  k logs "$pod"
done | "${gust[@]}" merge -o "$format" "${judge[@]}" -
[[ -z "$failed" ]]
