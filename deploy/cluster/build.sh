#!/usr/bin/env bash
# Builds what the cluster of up.sh runs, into $GUST_CLUSTER_BIN (see env.sh):
# kube-apiserver, kube-controller-manager, kube-scheduler, kubelet,
# kube-proxy and kubectl from k8s.io/kubernetes (this directory's go.mod),
# CoreDNS (coredns/go.mod) and the pods' sandbox, pause (pause/). Go's build
# cache makes a second build take seconds; the first takes minutes (about
# 7 on 2 cores for Kubernetes, 2 more for CoreDNS).
#
#   deploy/cluster/build.sh
set -euo pipefail
source "$(dirname "$0")/env.sh"

mkdir -p "$bin"
began=$SECONDS
v=k8s.io/component-base/version
# Static binaries, stripped; the version the release's own build stamps.
export CGO_ENABLED=0
ldflags="-s -w -X $v.gitVersion=$k8s_version -X $v.gitMajor=1 -X $v.gitMinor=37 -X $v.gitTreeState=clean"
(cd "$cluster_dir" && go build -o "$bin/" -ldflags "$ldflags" \
  k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler \
  k8s.io/kubernetes/cmd/kubelet \
  k8s.io/kubernetes/cmd/kube-proxy \
  k8s.io/kubernetes/cmd/kubectl \
  ./pause)
log "Kubernetes $k8s_version and pause built in $((SECONDS - began))s"
began=$SECONDS
(cd "$cluster_dir/coredns" && go build -o "$bin/" -ldflags "-s -w" github.com/coredns/coredns)
log "CoreDNS built in $((SECONDS - began))s"
