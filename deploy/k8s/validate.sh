#!/usr/bin/env bash
# Validates every Kubernetes manifest under deploy/k8s, strictly (an unknown
# field is an error), against the schemas vendored in deploy/k8s/schemas:
# the files as written, what kustomize builds from each kustomization, and
# what run-load.sh would apply. The tools come from the Go module proxy and
# run with `go run`, so they stay out of go.mod; nothing else is fetched.
# CI runs this (.ci/run); so can you.
set -euo pipefail
cd "$(dirname "$0")/../.."

k8s_version=1.30.0
kubeconform=(go run github.com/yannh/kubeconform/cmd/kubeconform@v0.7.0)
kustomize=(go run sigs.k8s.io/kustomize/kustomize/v5@v5.8.2)
schemas='deploy/k8s/schemas/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json'

# check WHAT ARGS...: kubeconform, failing also when it found no resource.
check() {
  local what="$1" out
  shift
  if ! out="$("${kubeconform[@]}" -strict -summary -kubernetes-version "$k8s_version" -schema-location "$schemas" "$@")"; then
    printf '%s\n' "$out" >&2
    echo "validate.sh: $what: invalid" >&2
    return 1
  fi
  if grep -q "Valid: 0," <<< "$out"; then
    printf '%s\n' "$out" >&2
    echo "validate.sh: $what: no resource was validated" >&2
    return 1
  fi
  echo "$what: ${out##*Summary: }"
}

# Kustomization files are kustomize's own; they are checked by building them.
check "manifests as written" -skip Kustomization deploy/k8s/load deploy/k8s/server
for dir in deploy/k8s/load deploy/k8s/server deploy/cluster/runs/*/; do
  dir="${dir%/}"
  "${kustomize[@]}" build "$dir" | check "kustomize build $dir" -
done
KUSTOMIZE="${kustomize[*]} build" deploy/k8s/run-load.sh --print | check "run-load.sh --print" -
