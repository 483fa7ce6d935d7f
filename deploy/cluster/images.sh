#!/usr/bin/env bash
# Builds the cluster's two images with podman and imports them into
# containerd's k8s.io namespace, where the kubelet finds them without a
# registry: the pods' sandbox (pause, from build.sh) and gust from
# deploy/Dockerfile, built as deploy/test builds it (stand-ins for its base
# images, deploy/test/standins.sh). podman keeps none of them afterwards.
#
#   deploy/cluster/images.sh    (containerd of up.sh running)
set -euo pipefail
source "$(dirname "$0")/env.sh"

export CONTAINERS_CONF="${CONTAINERS_CONF:-$repo_root/deploy/test/containers.conf}"
pause=localhost/gust-cluster/pause:1
gust=docker.io/library/gust:latest
builder=localhost/gust-cluster/builder:1
base=localhost/gust-cluster/base:1
out="$state/images"
mkdir -p "$out"

cleanup() { podman rmi --force "$gust" "$pause" "$builder" "$base" >/dev/null 2>&1 || true; }
trap cleanup EXIT
ctr() { command ctr --address "$containerd_sock" --namespace k8s.io "$@"; }

began=$SECONDS
mkdir -p "$out/pause-root"
cp "$bin/pause" "$out/pause-root/pause"
tar -c --owner=0 --group=0 --numeric-owner -C "$out/pause-root" pause |
  podman import --change 'ENTRYPOINT ["/pause"]' --change 'USER 65535:65535' --quiet - "$pause" >/dev/null
podman save --quiet --format docker-archive -o "$out/pause.tar" "$pause"
ctr images import "$out/pause.tar" >/dev/null
log "$pause imported in $((SECONDS - began))s"

began=$SECONDS
"$repo_root/deploy/test/standins.sh" "$builder" "$base"
podman build --quiet --pull=never --layers=false \
  --build-arg "GO_IMAGE=$builder" --build-arg "BASE_IMAGE=$base" \
  -f "$repo_root/deploy/Dockerfile" -t "$gust" "$repo_root" >/dev/null
podman save --quiet --format docker-archive -o "$out/gust.tar" "$gust"
ctr images import "$out/gust.tar" >/dev/null
log "$gust (deploy/Dockerfile) built and imported in $((SECONDS - began))s"
rm -rf "$out"
# The list is read whole first: grep -q leaves at its first match, and
# ctr, still writing, would die of SIGPIPE and fail the pipe (pipefail).
images=$(ctr images ls -q)
grep -qx "$gust" <<<"$images" || die "$gust is not in containerd's k8s.io namespace"
grep -qx "$pause" <<<"$images" || die "$pause is not in containerd's k8s.io namespace"
