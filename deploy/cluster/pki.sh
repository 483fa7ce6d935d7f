#!/usr/bin/env bash
# Makes the cluster's PKI with openssl, in $state/pki (see env.sh): a CA, a
# serving certificate for the API server and the kubelet, a client
# certificate and kubeconfig for each component and for the admin, and the
# service accounts' signing key. Good for 30 days: the cluster is made for
# a run, not to last.
#
#   deploy/cluster/pki.sh NODE_IP
set -euo pipefail
source "$(dirname "$0")/env.sh"

ip="${1:?usage: pki.sh NODE_IP}"
pki="$state/pki"
mkdir -p "$pki"
cd "$pki"
umask 077

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
  -keyout ca.key -out ca.crt -days 30 -subj "/CN=gust-cluster-ca" 2>/dev/null

# cert NAME SUBJECT [SUBJECT_ALT_NAMES]: a key and a certificate signed by
# the CA, for clients, or for servers when names are given.
cert() {
  local name="$1" subject="$2" san="${3:-}" ext
  ext="basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=${san:+serverAuth,}clientAuth"
  [[ -z "$san" ]] || ext+=$'\n'"subjectAltName=$san"
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$name.key" -subj "$subject" 2>/dev/null |
    openssl x509 -req -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 \
      -extfile <(printf '%s\n' "$ext") -out "$name.crt" 2>/dev/null
}

# kubeconfig NAME: NAME.kubeconfig, NAME's certificate against the API server.
kubeconfig() {
  cat > "$1.kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
  - name: gust
    cluster:
      server: https://$ip:6443
      certificate-authority: $pki/ca.crt
users:
  - name: $1
    user:
      client-certificate: $pki/$1.crt
      client-key: $pki/$1.key
contexts:
  - name: gust
    context: {cluster: gust, user: $1}
current-context: gust
KUBECONFIG
}

cert apiserver "/CN=kube-apiserver" \
  "DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost,IP:$service_ip,IP:$ip,IP:127.0.0.1"
cert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client"
cert kubelet-serving "/CN=$node_name" "DNS:$node_name,IP:$ip"
cert admin "/O=system:masters/CN=admin"
cert controller-manager "/CN=system:kube-controller-manager"
cert scheduler "/CN=system:kube-scheduler"
cert kubelet "/O=system:nodes/CN=system:node:$node_name"
cert kube-proxy "/CN=system:kube-proxy"
# CoreDNS reads Services and EndpointSlices (up.sh binds it to a ClusterRole).
cert coredns "/CN=gust-cluster:coredns"
for name in admin controller-manager scheduler kubelet kube-proxy coredns; do
  kubeconfig "$name"
done
openssl genrsa -out sa.key 2048 2>/dev/null
openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
