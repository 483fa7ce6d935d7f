#!/usr/bin/env bash
# Runs deploy/test for real, as root: builds deploy/Dockerfile with podman
# (locally built stand-ins for its base images), runs gust serve and the
# Job's load agents in containers, then a server and four agents on hosts
# made of network namespaces (see doc.go). What the tests make is removed
# when they end, and again here, by name and label, even when they fail
# or are killed; the run fails if anything of podman's or any network
# namespace is left that was not there before.
#
#   deploy/test/run.sh [--install] [go test flags, e.g. -run Namespaces]
#
#   --install  install podman, runc and iproute2 with apt-get when missing
#
# CONTAINERS_CONF defaults to deploy/test/containers.conf (runc, and limits
# this kind of machine allows), never the machine's own.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$here/containers.conf}"
label=gust.deploy-test=1
prefix=gustdt

install=
if [[ "${1:-}" == --install ]]; then
  install=1
  shift
fi

if [[ "$(id -u)" -ne 0 ]]; then
  echo "run.sh: needs root (network namespaces, rootful podman)" >&2
  exit 2
fi
missing=()
for cmd in podman runc ip; do
  command -v "$cmd" >/dev/null || missing+=("$cmd")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  if [[ -z "$install" ]]; then
    echo "run.sh: missing ${missing[*]}: apt-get install podman runc iproute2, or run.sh --install" >&2
    exit 2
  fi
  echo "run.sh: installing podman runc iproute2 (missing: ${missing[*]})" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends podman runc iproute2 >&2
fi

# state lists what the tests could leave behind: podman's containers,
# images and networks, and network namespaces.
state() {
  podman ps -a --format '{{.ID}} {{.Names}}'
  podman images -a --format '{{.ID}} {{.Repository}}:{{.Tag}}'
  podman network ls --format '{{.Name}}'
  ip netns list | awk '{print $1}' | grep -v '^netns-' || true
}

# cleanup removes whatever the tests made, by label and by name; the
# processes left in a namespace of theirs are the tests' own.
cleanup() {
  local ids ns pids
  mapfile -t ids < <(podman ps -aq --filter "label=$label")
  [[ ${#ids[@]} -eq 0 ]] || podman rm --force --time 2 "${ids[@]}" >/dev/null
  mapfile -t ids < <(podman network ls -q --filter "label=$label")
  [[ ${#ids[@]} -eq 0 ]] || podman network rm --force "${ids[@]}" >/dev/null
  mapfile -t ids < <(podman images -q --filter "label=$label")
  [[ ${#ids[@]} -eq 0 ]] || podman rmi --force "${ids[@]}" >/dev/null
  for ns in $(ip netns list | awk '{print $1}' | grep "^$prefix-" || true); do
    mapfile -t pids < <(ip netns pids "$ns")
    [[ ${#pids[@]} -eq 0 ]] || kill -9 "${pids[@]}" 2>/dev/null || true
    ip netns delete "$ns"
  done
}

before="$(state)"
trap cleanup EXIT
started=$SECONDS
cd "$root"
status=0
GUST_DEPLOY_TEST=1 go test -count=1 -v -timeout 20m "$@" ./deploy/test/ || status=$?
trap - EXIT
cleanup
after="$(state)"
if [[ "$after" != "$before" ]]; then
  echo "run.sh: left behind (before, then after):" >&2
  diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") >&2 || true
  status=1
fi
echo "run.sh: deploy/test took $((SECONDS - started))s, exit $status" >&2
exit "$status"
