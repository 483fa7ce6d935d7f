#!/usr/bin/env bash
# Builds and starts a single-node Kubernetes cluster on this machine, as
# plain processes (no systemd), and waits for the node to be Ready:
# etcd (Debian's etcd-server), kube-apiserver, kube-controller-manager,
# kube-scheduler, containerd (Debian's) with a CNI bridge
# (containernetworking-plugins), the kubelet, kube-proxy and CoreDNS, with
# the images of images.sh imported. Needs root. If anything fails on the
# way, down.sh removes what was made.
#
#   deploy/cluster/up.sh [--install]
#
#   --install  apt-get install what is missing (etcd-server containerd runc
#              containernetworking-plugins iptables conntrack podman openssl curl)
#
# Then: export KUBECONFIG=$GUST_CLUSTER_STATE/pki/admin.kubeconfig and
# PATH=$GUST_CLUSTER_BIN:$PATH (up.sh prints both); deploy/cluster/down.sh
# stops it all.
set -euo pipefail
source "$(dirname "$0")/env.sh"

install=
[[ "${1:-}" != --install ]] || install=1
[[ "$(id -u)" -eq 0 ]] || die "needs root (containers, a bridge, iptables)"
packages=(etcd-server containerd runc containernetworking-plugins iptables conntrack podman openssl curl)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  [[ -n "$install" ]] || die "missing Debian packages ${missing[*]}: apt-get install them, or up.sh --install"
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >&2
  apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi
[[ ! -e "$state" ]] || die "$state exists: a cluster is up (or was not torn down): deploy/cluster/down.sh first"

began=$SECONDS
"$cluster_dir/build.sh"
build_time=$((SECONDS - began))

ip="$(node_ip)"
[[ -n "$ip" ]] || die "no address for the node: no interface with a global IPv4 address"
mkdir -p "$state"/{pids,logs}
# From here on a failure tears down what was made.
trap 'status=$?; if [[ $status -ne 0 ]]; then log "failed (exit $status): tearing down; logs were in $state/logs"; tail -n 20 "$state"/logs/*.log >&2 || true; "$cluster_dir/down.sh"; fi' EXIT
started=$SECONDS

# The kernel settings the kubelet and kube-proxy may change, and what
# existed before outside $state: down.sh puts them back.
for key in vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops \
  kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.ipv4.ip_forward \
  net.ipv4.conf.all.route_localnet net.bridge.bridge-nf-call-iptables; do
  echo "$key=$(sysctl -n "$key")"
done > "$state/sysctl.before"
for path in /run/containerd /var/log/containers /var/log/pods /var/lib/cni/results; do
  [[ -e "$path" ]] || echo "$path"
done > "$state/paths.made"
ip netns list | awk '{print $1}' | sort > "$state/netns.before"

"$cluster_dir/pki.sh" "$ip"
pki="$state/pki"

# start NAME COMMAND...: NAME runs in a session of its own, logging to
# logs/NAME.log; its pid goes to pids/NAME (down.sh stops it by that pid).
start() {
  local name="$1"
  shift
  setsid "$@" > "$state/logs/$name.log" 2>&1 < /dev/null &
  echo $! > "$state/pids/$name"
  echo "$name" >> "$state/pids/order"
}
# wait_for WHAT SECONDS COMMAND...: until COMMAND succeeds, or fail; at
# once if the process started as WHAT has exited.
wait_for() {
  local what="$1" limit="$2" t0=$SECONDS
  shift 2
  until "$@" >/dev/null 2>&1; do
    ((SECONDS - t0 < limit)) || die "$what: not ready after ${limit}s"
    # (An exited child stays a zombie until waited for: kill -0 would pass.)
    if [[ -f "$state/pids/$what" ]] && [[ "$(awk '{print $3}' "/proc/$(cat "$state/pids/$what")/stat" 2>/dev/null)" =~ ^(Z|)$ ]]; then
      die "$what exited"
    fi
    sleep 1
  done
  log "$what ready after $((SECONDS - t0))s"
}
kubectl() { "$bin/kubectl" --kubeconfig "$kubeconfig" "$@"; }

start etcd etcd --name gust-cluster --data-dir "$state/etcd" \
  --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
  --listen-peer-urls "http://127.0.0.1:$etcd_peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer_port" \
  --initial-cluster "gust-cluster=http://127.0.0.1:$etcd_peer_port" --listen-metrics-urls ""
wait_for etcd 30 curl -fsS "http://127.0.0.1:$etcd_port/health"

start kube-apiserver "$bin/kube-apiserver" \
  --bind-address="$ip" --advertise-address="$ip" --secure-port=6443 \
  --etcd-servers="http://127.0.0.1:$etcd_port" \
  --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
  --client-ca-file="$pki/ca.crt" \
  --kubelet-client-certificate="$pki/apiserver-kubelet-client.crt" \
  --kubelet-client-key="$pki/apiserver-kubelet-client.key" \
  --kubelet-certificate-authority="$pki/ca.crt" \
  --kubelet-preferred-address-types=InternalIP \
  --service-account-key-file="$pki/sa.pub" --service-account-signing-key-file="$pki/sa.key" \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-cluster-ip-range="$service_cidr" \
  --authorization-mode=Node,RBAC --anonymous-auth=false --allow-privileged=false
wait_for kube-apiserver 120 kubectl get --raw /readyz

start kube-controller-manager "$bin/kube-controller-manager" \
  --kubeconfig="$pki/controller-manager.kubeconfig" \
  --authentication-kubeconfig="$pki/controller-manager.kubeconfig" \
  --authorization-kubeconfig="$pki/controller-manager.kubeconfig" \
  --bind-address=127.0.0.1 --leader-elect=false --use-service-account-credentials=true \
  --service-account-private-key-file="$pki/sa.key" --root-ca-file="$pki/ca.crt" \
  --service-cluster-ip-range="$service_cidr"
start kube-scheduler "$bin/kube-scheduler" \
  --kubeconfig="$pki/scheduler.kubeconfig" \
  --authentication-kubeconfig="$pki/scheduler.kubeconfig" \
  --authorization-kubeconfig="$pki/scheduler.kubeconfig" \
  --bind-address=127.0.0.1 --leader-elect=false

# The pods' network: a bridge made here (so that CoreDNS can bind its
# address before the first pod), which the CNI bridge plugin then uses.
ip link add "$bridge" type bridge
ip addr add "$bridge_ip/${pod_cidr#*/}" dev "$bridge"
ip link set "$bridge" up
mkdir -p "$state/cni/net.d"
cat > "$state/cni/net.d/10-gust-cluster.conflist" <<CNI
{
  "cniVersion": "1.0.0",
  "name": "gust-cluster",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$bridge",
      "isGateway": true,
      "hairpinMode": true,
      "ipMasq": false,
      "ipam": {
        "type": "host-local",
        "dataDir": "$state/cni/ipam",
        "ranges": [[{"subnet": "$pod_cidr", "gateway": "$bridge_ip"}]],
        "routes": [{"dst": "0.0.0.0/0"}]
      }
    }
  ]
}
CNI

# containerd: state under $state only, the sandbox image imported by
# images.sh, restrict_oom_score_adj (this VM lacks CAP_SYS_RESOURCE, and
# runc then fails to start a sandbox), cgroupfs like the kubelet.
mkdir -p "$state/containerd"
cat > "$state/containerd/config.toml" <<TOML
version = 2
root = "$state/containerd/root"
state = "$state/containerd/state"
[grpc]
  address = "$containerd_sock"
[plugins."io.containerd.internal.v1.opt"]
  path = "$state/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "localhost/gust-cluster/pause:1"
  restrict_oom_score_adj = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$state/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "$state/runc"
TOML
start containerd containerd --config "$state/containerd/config.toml"
wait_for containerd 30 ctr --address "$containerd_sock" version

"$cluster_dir/images.sh"

# The kubelet: cgroup v1 (hybrid) needs cgroupfs and failCgroupV1: false.
mkdir -p "$state/kubelet" "$state/pod-logs"
: > "$state/resolv.conf"
cat > "$state/kubelet/config.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $ip
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $pki/ca.crt}
authorization: {mode: Webhook}
tlsCertFile: $pki/kubelet-serving.crt
tlsPrivateKeyFile: $pki/kubelet-serving.key
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix://$containerd_sock
clusterDomain: cluster.local
clusterDNS: [$dns_ip]
# Pods get the cluster's name server and search path only: no name server
# of the machine's.
resolvConf: $state/resolv.conf
podLogsDir: $state/pod-logs
staticPodPath: ""
serializeImagePulls: false
YAML
start kubelet "$bin/kubelet" --config="$state/kubelet/config.yaml" \
  --kubeconfig="$pki/kubelet.kubeconfig" --root-dir="$state/kubelet" \
  --hostname-override="$node_name" --node-ip="$ip"

mkdir -p "$state/kube-proxy"
cat > "$state/kube-proxy/config.yaml" <<YAML
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $pki/kube-proxy.kubeconfig}
hostnameOverride: $node_name
mode: iptables
clusterCIDR: $pod_cidr
bindAddress: $ip
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
# Leave the machine's conntrack settings and route_localnet alone.
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
iptables: {localhostNodePorts: false}
YAML
start kube-proxy "$bin/kube-proxy" --config="$state/kube-proxy/config.yaml"

# CoreDNS on the node, bound to the bridge's address, reading the API with
# a certificate of its own; no forwarding: names outside cluster.local get
# no answer, so no query leaves the machine.
kubectl apply -f - >/dev/null <<YAML
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "gust-cluster:coredns"}
rules:
  - apiGroups: [""]
    resources: [services, namespaces, pods, endpoints]
    verbs: [list, watch]
  - apiGroups: [discovery.k8s.io]
    resources: [endpointslices]
    verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "gust-cluster:coredns"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "gust-cluster:coredns"}
subjects:
  - {apiGroup: rbac.authorization.k8s.io, kind: User, name: "gust-cluster:coredns"}
YAML
cat > "$state/Corefile" <<COREFILE
.:53 {
    bind $dns_ip
    errors
    health 127.0.0.1:18080
    ready 127.0.0.1:18181
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig $pki/coredns.kubeconfig gust
        pods insecure
    }
    cache 30
}
COREFILE
start coredns "$bin/coredns" -conf "$state/Corefile"
wait_for coredns 60 curl -fsS http://127.0.0.1:18181/ready

wait_for "node $node_name" 120 kubectl wait --for=condition=Ready "node/$node_name" --timeout=1s
start_time=$((SECONDS - started))
echo "$start_time" > "$state/start-seconds"
log "cluster up in ${start_time}s (build ${build_time}s before): node $node_name at $ip"
log "export KUBECONFIG=$kubeconfig PATH=$bin:\$PATH; deploy/cluster/down.sh stops it"
