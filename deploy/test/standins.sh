#!/usr/bin/env bash
# Builds, with podman and without any registry, the two stand-ins for the
# base images of deploy/Dockerfile, for machines that cannot pull them:
#
#   BUILDER  for golang:1.26: this machine's Go toolchain (go env GOROOT),
#            the modules the Dockerfile's `go mod download` needs, copied
#            from the local module cache (GOPROXY=off inside), and
#            /bin/sh with the libraries it needs, for the Dockerfile's RUN.
#   BASE     for gcr.io/distroless/static-debian12:nonroot: an image from
#            scratch with /etc/passwd and /etc/group naming root and nonroot
#            (65532), /home/nonroot, /tmp, and the machine's CA certificates.
#
#   deploy/test/standins.sh BUILDER BASE
#
# Then: podman build --pull=never --build-arg GO_IMAGE=BUILDER
#         --build-arg BASE_IMAGE=BASE -f deploy/Dockerfile .
# Both images carry the label gust.deploy-test=1, like everything
# deploy/test makes, so that a cleanup finds them.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 BUILDER_IMAGE BASE_IMAGE" >&2
  exit 2
fi
builder="$1" base="$2"
root="$(cd "$(dirname "$0")/../.." && pwd)"
goroot="$(go env GOROOT)"
hostcache="$(go env GOMODCACHE)"
work="$(mktemp -d)"
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT

# The modules that the Dockerfile's `go mod download` (go.mod and go.sum
# alone) fetches: first into this machine's module cache, by the same
# command (from the Go module proxy only if they are not there yet), then
# from it into a cache of their own for the image.
mkdir -p "$work/src" "$work/rootfs/go/pkg/mod"
cp "$root/go.mod" "$root/go.sum" "$work/src/"
(cd "$work/src" && GOTOOLCHAIN=local go mod download)
(cd "$work/src" && GOFLAGS=-modcacherw GOMODCACHE="$work/rootfs/go/pkg/mod" \
  GOPROXY="file://$hostcache/cache/download" GOSUMDB=off GOTOOLCHAIN=local go mod download)

# /bin/sh and the shared libraries it is linked with.
mkdir -p "$work/rootfs/bin" "$work/rootfs/tmp" "$work/rootfs/src"
chmod 1777 "$work/rootfs/tmp"
sh="$(readlink -f /bin/sh)"
cp "$sh" "$work/rootfs/bin/sh"
for lib in $(ldd "$sh" | grep -o '/[^ ]*'); do
  mkdir -p "$work/rootfs$(dirname "$lib")"
  cp -L "$lib" "$work/rootfs$lib"
done

# The toolchain without its tests and documentation; the module cache.
tar -c --owner=0 --group=0 --numeric-owner \
  --exclude=go/test --exclude=go/doc --exclude=go/api --exclude=go/misc \
  --exclude='go/src/*/testdata' --exclude='*_test.go' \
  --transform 's,^go,usr/local/go,' -C "$(dirname "$goroot")" "$(basename "$goroot")" \
  -C "$work/rootfs" . |
  podman import \
    --change 'ENV PATH=/usr/local/go/bin:/bin' \
    --change 'ENV GOPATH=/go' \
    --change 'ENV GOMODCACHE=/go/pkg/mod' \
    --change 'ENV GOPROXY=off' \
    --change 'ENV GOTOOLCHAIN=local' \
    --change 'ENV GOFLAGS=-modcacherw' \
    --change 'ENV HOME=/tmp' \
    --change 'LABEL gust.deploy-test=1' \
    --change 'WORKDIR /src' \
    --quiet - "$builder" >/dev/null
echo "standins.sh: $builder: Go $(go env GOVERSION) from $goroot, modules of go.sum from $hostcache" >&2

# The runtime base: what distroless/static:nonroot holds that gust uses.
rm -rf "$work/base"
mkdir -p "$work/base/etc/ssl/certs" "$work/base/home/nonroot" "$work/base/tmp"
chmod 1777 "$work/base/tmp"
cat > "$work/base/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin
EOF
cat > "$work/base/etc/group" <<'EOF'
root:x:0:
nobody:x:65534:
nonroot:x:65532:
EOF
cp /etc/ssl/certs/ca-certificates.crt "$work/base/etc/ssl/certs/"
chmod 0644 "$work/base/etc/passwd" "$work/base/etc/group" "$work/base/etc/ssl/certs/ca-certificates.crt"
chown -R 0:0 "$work/base"
chown 65532:65532 "$work/base/home/nonroot"
tar -c --numeric-owner -C "$work/base" . |
  podman import \
    --change 'USER 65532:65532' \
    --change 'WORKDIR /home/nonroot' \
    --change 'LABEL gust.deploy-test=1' \
    --quiet - "$base" >/dev/null
echo "standins.sh: $base: scratch with nonroot (65532) and the CA certificates of /etc/ssl/certs" >&2
