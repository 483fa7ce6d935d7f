#!/usr/bin/env bash
# The one command: builds and starts the single-node cluster (up.sh), then
# runs gust on it as a user would and checks what it shows:
#
#   1. kubectl apply -k deploy/k8s/server: the Deployment's pods Ready;
#   2. the Service answers through its DNS name from a pod (gust load in a
#      pod of its own, to http://gust-server:8080/);
#   3. deploy/k8s/run-load.sh with runs/short (4 agents, 4 s at a fixed
#      rate): the Job completes, and its report and the agents' results
#      (their pods' logs) merged as JSON are their exact sum (exact.py);
#   4. runs/long with one agent's pod deleted mid-run: run-load.sh fails,
#      and its report merges the other three, the missing shard flagged;
#   5. runs/unschedulable: run-load.sh gives up with the scheduler's reason
#      on one line, soon after the begin time;
#   6. a rolling update of the server's Deployment (kubectl rollout
#      restart) during runs/long: the merged report has no failed request.
#
# Then it prints kubectl get pods, the memory of the cluster and the times
# taken. The cluster stays up (deploy/cluster/down.sh stops it) unless
# --down is given: then down.sh runs at the end, also after a failure, and
# the run fails if a process, mount, network interface, namespace or
# iptables rule is left that was not there before. Needs root.
#
#   deploy/cluster/test.sh [--install] [--down]
set -euo pipefail
source "$(dirname "$0")/env.sh"

up_args=() down=
for arg in "$@"; do
  case "$arg" in
    --install) up_args+=(--install) ;;
    --down) down=1 ;;
    *) echo "test.sh: unknown argument $arg (see the comment at the top of $0)" >&2; exit 2 ;;
  esac
done
[[ "$(id -u)" -eq 0 ]] || die "needs root"

# snapshot lists what the cluster could leave behind on the machine.
snapshot() {
  echo "== processes"; ps -eo args= | grep -F -e "$state" -e "$bin" | grep -v -e grep -e "test.sh" || true
  echo "== mounts"; awk '{print $2}' /proc/self/mounts | sort
  echo "== links"; ip -o link | awk -F': ' '{print $2}' | sed 's/@.*//' | sort
  echo "== netns"; ip netns list | awk '{print $1}' | sort
  echo "== iptables"; iptables_added_by_anyone
}
# iptables_added_by_anyone lists, per table, the rules and chains that are
# not the kernel's own: a table's header, COMMIT and its built-in chains
# at their default policy (ACCEPT) say only that the table is loaded, and
# the kernel loads one (mangle, on a fresh machine) the first time
# kube-proxy looks at it. A built-in chain with another policy is listed.
iptables_added_by_anyone() {
  iptables-save | awk '
    /^\*/ { table = substr($0, 2); next }
    /^:/ { if ($2 != "ACCEPT") print table, $1, $2; next }
    /^-A / { print table, $0 }' | sed 's/\[[0-9]*:[0-9]*\]//' | sort
}
total=$SECONDS
if [[ -n "$down" ]]; then
  before="$(snapshot)"
  teardown() {
    local status=$? after t0=$SECONDS
    "$cluster_dir/down.sh" || status=1
    after="$(snapshot)"
    if [[ "$after" != "$before" ]]; then
      log "left behind by the cluster (- before, + after):"
      diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") >&2 || true
      status=1
    else
      log "teardown took $((SECONDS - t0))s; nothing left behind (processes, mounts, links, netns, iptables)"
    fi
    log "test.sh took $((SECONDS - total))s in all, exit $status"
    exit "$status"
  }
  trap teardown EXIT
fi

"$cluster_dir/up.sh" "${up_args[@]}"
export KUBECONFIG="$kubeconfig" PATH="$bin:$PATH"
export GUST="$state/gust"
(cd "$repo_root" && go build -o "$GUST" ./cmd/gust)
checks=$SECONDS
out="$state/test"
mkdir -p "$out"

log "1. kubectl apply -k deploy/k8s/server"
kubectl apply -k "$repo_root/deploy/k8s/server" >&2
kubectl rollout status deployment/gust-server --timeout=120s >&2

log "2. the Service by its DNS name, from a pod"
# A rollout's end does not wait for the node's Service rules: a pod run at
# once may find the ClusterIP refusing (no endpoints programmed yet). Up to
# three tries, each a pod of its own; the third's failure fails the test.
for try in 1 2 3; do
  kubectl run gust-dns-check --image=gust --image-pull-policy=IfNotPresent --restart=Never \
    -- load -n 50 -c 2 -o json --quiet http://gust-server:8080/ >&2
  if kubectl wait --for=jsonpath='{.status.phase}'=Succeeded pod/gust-dns-check --timeout=60s >&2; then
    break
  fi
  kubectl logs gust-dns-check >&2 || true
  if ((try == 3)); then
    kubectl describe pod gust-dns-check >&2; die "gust-dns-check did not succeed in 3 tries"
  fi
  kubectl delete pod gust-dns-check --wait=true >&2
  log "gust-dns-check failed (try $try); again"
  sleep 3 # the node's rules are written within a few seconds of the rollout
done
kubectl logs gust-dns-check > "$out/dns.json"
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(0 if r["status"].get("200") == 50 else "gust-dns-check: %s" % r["status"])' "$out/dns.json"
kubectl delete pod gust-dns-check --wait=false >&2
log "http://gust-server:8080/ answered 50 of 50 requests with 200 from a pod"

log "3. deploy/k8s/run-load.sh -k deploy/cluster/runs/short (4 agents)"
t0=$SECONDS
"$repo_root/deploy/k8s/run-load.sh" -k "$cluster_dir/runs/short" -a 20 > "$out/run-load.txt"
run_time=$((SECONDS - t0))
cat "$out/run-load.txt"
# The agents' own results (their pods' logs), their merge as JSON, and
# run-load.sh's report: all must agree, exactly.
for pod in $(kubectl get pods -l job-name=gust-load -o name); do
  kubectl logs "$pod" > "$out/${pod#pod/}.json"
done
"$GUST" merge -o json "$out"/gust-load-*.json > "$out/merged.json"
python3 "$cluster_dir/exact.py" --text "$out/run-load.txt" "$out/merged.json" "$out"/gust-load-*.json
kubectl get pods -o wide > "$out/pods.txt"
cat "$out/pods.txt"

log "4. runs/long, the pod of agent 2 deleted mid-run"
"$repo_root/deploy/k8s/run-load.sh" -k "$cluster_dir/runs/long" -a 15 > "$out/killed.txt" 2> "$out/killed.err" &
run=$!
victim=
for ((i = 0; i < 60; i++)); do
  victim="$(kubectl get pods -l job-name=gust-load,batch.kubernetes.io/job-completion-index=2 \
    --field-selector=status.phase=Running -o name 2>/dev/null || true)"
  [[ -z "$victim" ]] || break
  sleep 1
done
[[ -n "$victim" ]] || die "agent 2 never ran"
# Five seconds into the 20 s run.
begin="$(date -u -d "$(kubectl get configmap gust-load -o jsonpath='{.data.START_AT}')" +%s)"
wait_s=$((begin + 5 - $(date -u +%s)))
((wait_s <= 0)) || sleep "$wait_s"
kubectl delete "$victim" --wait=false >&2
status=0
wait "$run" || status=$?
cat "$out/killed.err" >&2
cat "$out/killed.txt"
[[ "$status" -ne 0 ]] || die "run-load.sh exited 0 with an agent deleted"
grep -q "3 agents; missing 1 shard: 2/4" "$out/killed.txt" || die "the report of the killed run does not flag shard 2/4 as missing"
grep -q "3 of 4 agents' results merged" "$out/killed.err" || die "run-load.sh did not say that an agent's result is missing"
log "the killed run exited $status and merged 3 agents, shard 2/4 flagged missing"

log "5. runs/unschedulable"
t0=$SECONDS
status=0
timeout 120 "$repo_root/deploy/k8s/run-load.sh" -k "$cluster_dir/runs/unschedulable" -a 5 > /dev/null 2> "$out/unschedulable.err" || status=$?
cat "$out/unschedulable.err" >&2
[[ "$status" -eq 1 ]] || die "run-load.sh exited $status for an unschedulable Job, not 1"
tail -n 1 "$out/unschedulable.err" | grep -q "Insufficient cpu" || die "run-load.sh's last line does not give the scheduler's reason"
log "the unschedulable Job ended in $((SECONDS - t0))s with the scheduler's reason"

log "6. a rolling update of gust-server during runs/long"
"$repo_root/deploy/k8s/run-load.sh" -k "$cluster_dir/runs/long" -a 15 --threshold 'error_rate<=0' \
  > "$out/rolling.txt" 2> "$out/rolling.err" &
run=$!
# Three seconds into the 20 s run, once its agents run (the ConfigMap's
# START_AT is this run's then).
agents=
for ((i = 0; i < 60; i++)); do
  agents="$(kubectl get pods -l job-name=gust-load --field-selector=status.phase=Running -o name 2>/dev/null || true)"
  [[ -z "$agents" ]] || break
  sleep 1
done
[[ -n "$agents" ]] || die "the agents of the rolling update's run never ran"
start_at="$(kubectl get configmap gust-load -o jsonpath='{.data.START_AT}')"
wait_s=$(($(date -u -d "$start_at" +%s) + 3 - $(date -u +%s)))
((wait_s <= 0)) || sleep "$wait_s"
t0=$SECONDS
kubectl rollout restart deployment/gust-server >&2
kubectl rollout status deployment/gust-server --timeout=120s >&2
rolled=$((SECONDS - t0))
status=0
wait "$run" || status=$?
cat "$out/rolling.err" >&2
cat "$out/rolling.txt"
[[ "$status" -eq 0 ]] || die "run-load.sh exited $status across the rolling update (error_rate<=0 failed: requests were lost)"
grep -q "^Errors *none" "$out/rolling.txt" || die "the merged report of the rolling update shows errors"
log "the rolling update (${rolled}s) lost no request: $(grep '^Connections' "$out/rolling.txt")"
checks=$((SECONDS - checks))

# The memory of the running cluster: the control plane's processes, the
# node's (containerd and its shims, the kubelet, kube-proxy, CoreDNS), and
# what the pods' cgroup holds.
rss() { local kb=0 pid; for pid in "$@"; do kb=$((kb + $(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0))); done; echo $((kb / 1024)); }
pid() { cat "$state/pids/$1"; }
shims=$(for p in /proc/[0-9]*; do { tr '\0' ' ' < "$p/cmdline"; } 2>/dev/null | grep -q -- "containerd-shim.* -address $containerd_sock" && echo "${p#/proc/}"; done || true)
control=$(rss "$(pid etcd)" "$(pid kube-apiserver)" "$(pid kube-controller-manager)" "$(pid kube-scheduler)")
node=$(rss "$(pid containerd)" "$(pid kubelet)" "$(pid kube-proxy)" "$(pid coredns)" $shims)
pods=$(($(cat /sys/fs/cgroup/memory/kubepods/memory.usage_in_bytes 2>/dev/null || echo 0) / 1048576))
{
  echo "memory (RSS, MiB): control plane $control (etcd $(rss "$(pid etcd)"), kube-apiserver $(rss "$(pid kube-apiserver)"), controller-manager $(rss "$(pid kube-controller-manager)"), scheduler $(rss "$(pid kube-scheduler)"))"
  echo "memory (RSS, MiB): node $node (containerd $(rss "$(pid containerd)") + $(wc -w <<< "$shims") shims $(rss $shims), kubelet $(rss "$(pid kubelet)"), kube-proxy $(rss "$(pid kube-proxy)"), CoreDNS $(rss "$(pid coredns)")); pods' cgroup $pods"
  echo "times: cluster start $(cat "$state/start-seconds")s (after the build), checks ${checks}s (run-load.sh of runs/short ${run_time}s)"
} | tee "$out/summary.txt" >&2
[[ -n "$down" ]] || log "the cluster stays up: export KUBECONFIG=$kubeconfig PATH=$bin:\$PATH; deploy/cluster/down.sh stops it"
