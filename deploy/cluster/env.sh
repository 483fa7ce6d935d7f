# Sourced by up.sh, down.sh and test.sh: where the single-node cluster keeps
# its state, and the addresses it uses. Every address is on this machine:
# the node is the VM's own interface address, pods live on a bridge and in
# network namespaces the cluster makes, Services on a range no route leaves.

# shellcheck disable=SC2034 # the sourcing scripts use these
cluster_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$cluster_dir/../.." && pwd)"

# Everything the running cluster makes (PKI, etcd's data, containerd's and
# the kubelet's state, logs, pids) lives here; down.sh removes it.
state="${GUST_CLUSTER_STATE:-/tmp/gust-cluster}"
# The built binaries: a cache like Go's, kept between runs so that go build
# finds them up to date and does not link again (about 620 MB).
bin="${GUST_CLUSTER_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/gust-cluster/bin}"

k8s_version=v1.37.2
node_name=gust-node
pod_cidr=10.244.0.0/24
bridge=gustk8s0
bridge_ip=10.244.0.1
service_cidr=10.96.0.0/24
service_ip=10.96.0.1
# CoreDNS runs on the node, bound to the bridge's address, which is what the
# kubelet hands pods as their name server.
dns_ip="$bridge_ip"
etcd_port=23790
etcd_peer_port=23800
containerd_sock="$state/containerd/containerd.sock"
kubeconfig="$state/pki/admin.kubeconfig"

# node_ip is the address of the interface of the default route: the kubelet
# refuses a loopback address.
node_ip() {
  local dev
  dev="$(ip -4 route show default | awk '{for (i = 1; i < NF; i++) if ($i == "dev") {print $(i + 1); exit}}')"
  [[ -n "$dev" ]] || dev="$(ip -4 -o addr show scope global | awk '{print $2; exit}')"
  ip -4 -o addr show dev "$dev" scope global | awk '{split($4, a, "/"); print a[1]; exit}'
}

log() { echo "$(basename "$0"): $*" >&2; }
die() { log "$*"; exit 1; }
