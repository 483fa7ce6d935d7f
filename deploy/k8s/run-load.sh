#!/usr/bin/env bash
# Runs the gust load agents of deploy/k8s/load on the current cluster with one
# command: sets START_AT a little ahead so that every agent begins together,
# applies the ConfigMap and the Indexed Job, waits for the Job, and merges the
# agents' results (their pods' logs) with gust merge.
#
#   deploy/k8s/run-load.sh [-n NAMESPACE] [-k DIR] [-a SECONDS] [-t SECONDS] [-o FORMAT]
#                          [--threshold EXPR]... [--fail-status STATUSES] [--print] [-- MERGE_ARGS...]
#
#   -n NAMESPACE  where to run (default: kubectl's current namespace)
#   -k DIR        the load kustomization (default: deploy/k8s/load; an overlay of it works)
#   -a SECONDS    begin this long from now (default 30: time to schedule pods and pull the image)
#   -t SECONDS    give up this long after the begin time if the Job has not
#                 finished (default 600)
#   -o FORMAT     gust merge's report: text (default), json, csv or html
#   --threshold EXPR  judge the merged result (gust merge --threshold; repeatable),
#                 e.g. 'p99<200ms' or 'error_rate<0.1%'
#   --fail-status STATUSES  statuses error_rate counts as failed (gust merge --fail-status), e.g. 5xx
#   --print       print the manifests it would apply, and stop
#   -- ARGS       the rest goes to gust merge as it is (e.g. -- --max-skew 200ms)
#
# Environment: KUBECTL (default kubectl), KUSTOMIZE (default "kubectl kustomize"),
# GUST (default gust: a local gust binary, for gust merge).
# The report goes to standard output; progress to standard error. Exits 99 when a
# threshold failed (as gust merge does), and non-zero if the Job failed or an
# agent's result is missing (the agents that succeeded are still merged: gust
# merge lists the missing shards). An agent that is not running shortly after
# the begin time (not scheduled, or its image not found) fails the run at once,
# with the reason on one line, and the Job is deleted: the agents could no
# longer begin together.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
dir="$here/load" ns=() ahead=30 limit=600 format=text print= judge=() merge_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -t) limit="$2"; shift 2 ;;
    --) shift; merge_args=("$@"); break ;;
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

name="${job#*/}"
# late_agent prints, for the first agent of the Job not yet running, its
# name and why: the scheduler's message, or its container's waiting reason.
# (sed reads every line: head would leave at the first, and kubectl, still
# writing the others, would die of SIGPIPE, failing the pipe: exit 141.)
late_agent() {
  k get pods -l "job-name=$name" -o jsonpath='{range .items[?(@.status.phase=="Pending")]}{.metadata.name}: {.status.conditions[?(@.type=="PodScheduled")].reason} {.status.conditions[?(@.type=="PodScheduled")].message} {.status.containerStatuses[0].state.waiting.reason} {.status.containerStatuses[0].state.waiting.message}{"\n"}{end}' |
    sed -n '1{s/  */ /g;s/ $//;p}'
}
# Every agent must be running soon after the begin time (a grace of 15 s for
# pods scheduled at the last moment), and the Job done within the limit.
start_epoch="$(date -u -d "$start_at" +%s 2>/dev/null || date -u -j -f %Y-%m-%dT%H:%M:%SZ "$start_at" +%s)"
failed=
while :; do
  conds="$(k get "$job" -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type} {end}')"
  case " $conds " in
    *" Complete "*) break ;;
    *" Failed "*) failed=1; break ;;
  esac
  now="$(date -u +%s)"
  if ((now > start_epoch + 15)); then
    late="$(late_agent)"
    pods="$(k get pods -l "job-name=$name" -o name | wc -l)"
    if [[ -n "$late" || "$pods" -eq 0 ]]; then
      k delete "$job" --wait=false >&2 || true
      echo "run-load.sh: $job deleted: not all agents running 15s after the begin time: ${late:-no pod was created (kubectl describe $job)}" >&2
      exit 1
    fi
  fi
  if ((now > start_epoch + limit)); then
    echo "run-load.sh: $job not finished ${limit}s after the begin time (-t); it is left running: kubectl describe $job" >&2
    exit 1
  fi
  sleep 2
done
[[ -z "$failed" ]] || echo "run-load.sh: $job failed; merging the agents that succeeded" >&2

pods="$(k get pods -l "job-name=$name" --field-selector=status.phase=Succeeded -o name)"
for pod in $pods; do
  k logs "$pod"
done | "${gust[@]}" merge -o "$format" "${judge[@]}" "${merge_args[@]}" - || merged=$?
# A deleted agent's pod may have ended its run early and exited 0 (gust load
# reports what it measured when stopped), so that the Job counts it
# succeeded; its pod, and its result, are gone all the same.
want="$(k get "$job" -o jsonpath='{.spec.completions}')"
got="$(wc -w <<< "$pods")"
if ((got < want)); then
  echo "run-load.sh: $job: $got of $want agents' results merged; the rest failed or their pods were deleted" >&2
  failed=1
fi
[[ -z "$failed" ]] || exit 1
exit "${merged:-0}" # 99: a threshold failed
