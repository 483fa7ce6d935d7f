#!/usr/bin/env bash
# Stops the cluster of up.sh and removes what it made: the pods (deleted
# through the API while it answers, then their processes killed by their
# cgroups), every process up.sh started (by the pids it recorded: SIGTERM,
# then SIGKILL after 10 s: Debian's containerd sometimes ignores SIGTERM),
# the mounts under the state directory, the pods' network namespaces, the
# bridge, the iptables rules of kube-proxy and the kubelet (KUBE-* chains),
# the kubepods cgroups, the kernel settings they changed, and the state
# directory. Safe to run again, and after a failed up.sh. Needs root.
#
#   deploy/cluster/down.sh
set -uo pipefail
source "$(dirname "$0")/env.sh"

[[ "$(id -u)" -eq 0 ]] || die "needs root"
if [[ ! -d "$state" ]]; then
  log "$state does not exist: nothing to tear down"
  exit 0
fi
began=$SECONDS
pids="$state/pids"

# stop NAME: SIGTERM to the pid up.sh recorded, SIGKILL after 10 s.
stop() {
  local pid i
  [[ -f "$pids/$1" ]] || return 0
  pid="$(cat "$pids/$1")"
  kill -TERM "$pid" 2>/dev/null || { rm -f "$pids/$1"; return 0; }
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "$1 ($pid) ignored SIGTERM for 10s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  fi
  rm -f "$pids/$1"
}
running() { [[ -f "$pids/$1" ]] && kill -0 "$(cat "$pids/$1")" 2>/dev/null; }

# The pods first, while the API server and the kubelet can still stop them
# (with the controllers stopped, nothing makes them again).
stop kube-controller-manager
stop kube-scheduler
if running kube-apiserver && running kubelet; then
  "$bin/kubectl" --kubeconfig "$kubeconfig" delete pods --all --all-namespaces \
    --grace-period=2 --timeout=45s >/dev/null 2>&1 ||
    log "pods not all deleted through the API in 45s: killing what is left"
fi
stop coredns
stop kube-proxy
stop kubelet

# What is left of the pods: every process in a kubepods cgroup, then the
# containerd shims serving this containerd (their command line names its
# socket).
for dir in /sys/fs/cgroup/*/kubepods; do
  [[ -d "$dir" ]] || continue
  find "$dir" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -KILL 2>/dev/null
done
for proc in /proc/[0-9]*; do
  if { tr '\0' ' ' < "$proc/cmdline"; } 2>/dev/null | grep -q -- "containerd-shim.* -address $containerd_sock"; then
    kill -KILL "${proc#/proc/}" 2>/dev/null
  fi
done
stop containerd
stop kube-apiserver
stop etcd
# Anything else up.sh started (its order file lists them all).
if [[ -f "$pids/order" ]]; then
  for name in $(tac "$pids/order"); do stop "$name"; done
fi

# kube-proxy's rules, then any KUBE-* chain left (the kubelet's): the rules
# jumping to it, then the chain.
[[ -x "$bin/kube-proxy" ]] && "$bin/kube-proxy" --cleanup >/dev/null 2>&1
for table in filter nat mangle raw; do
  chains="$(iptables-save -t "$table" 2>/dev/null | sed -n 's/^:\(KUBE-[^ ]*\) .*/\1/p')"
  [[ -n "$chains" ]] || continue
  for chain in $chains; do
    iptables-save -t "$table" | grep -E -- "^-A [^ ]+ .*-j $chain( |\$)" | sed 's/^-A /-D /' |
      while read -r rule; do eval "iptables -t $table $rule"; done
  done
  for chain in $chains; do iptables -t "$table" -F "$chain" 2>/dev/null; done
  for chain in $chains; do iptables -t "$table" -X "$chain" 2>/dev/null; done
done

# Mounts under $state (overlay root filesystems, shm, the kubelet's volumes),
# deepest first, until none is left.
for ((i = 0; i < 5; i++)); do
  mounts="$(awk -v s="$state/" 'index($2, s) == 1 {print $2}' /proc/self/mounts | sort -r | uniq)"
  [[ -n "$mounts" ]] || break
  while read -r m; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done <<< "$mounts"
done

# The pods' network namespaces (new since up.sh, holding a pod address or
# nothing but lo), then the bridge.
if [[ -f "$state/netns.before" ]]; then
  for ns in $(comm -13 "$state/netns.before" <(ip netns list | awk '{print $1}' | sort)); do
    links="$(ip -n "$ns" -o link 2>/dev/null | grep -vc ': lo:')"
    if ip -n "$ns" -4 -o addr 2>/dev/null | grep -q " ${bridge_ip%.*}\." || [[ "$links" == 0 ]]; then
      ip netns delete "$ns"
    fi
  done
fi
ip link show "$bridge" >/dev/null 2>&1 && ip link delete "$bridge"

# The kubepods cgroups, deepest first.
for dir in /sys/fs/cgroup/*/kubepods; do
  [[ -d "$dir" ]] && find "$dir" -depth -type d -exec rmdir {} + 2>/dev/null
done

# Kernel settings back as they were, and the paths made outside $state.
if [[ -f "$state/sysctl.before" ]]; then
  while IFS='=' read -r key value; do
    [[ "$(sysctl -n "$key")" == "$value" ]] || sysctl -q -w "$key=$value"
  done < "$state/sysctl.before"
fi
if [[ -f "$state/paths.made" ]]; then
  while read -r path; do rm -rf "$path"; done < "$state/paths.made"
fi
find /var/log/containers -maxdepth 1 -lname "$state/*" -delete 2>/dev/null
left="$(awk -v s="$state/" 'index($2, s) == 1 {print $2}' /proc/self/mounts)"
if [[ -n "$left" ]]; then
  log "mounts left under $state, which stays: $left"
  exit 1
fi
rm -rf "$state"
log "torn down in $((SECONDS - began))s"
