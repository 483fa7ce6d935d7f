#!/usr/bin/env bash
# Regenerates the vendored Kubernetes JSON schemas in this folder (not run by
# CI, which uses the files as committed). Their source is the PyPI package
# kubernetes-validate, which ships the schemas of every Kubernetes release
# from the OpenAPI spec (openapi2jsonschema); its "local-strict" schemas
# refer to a shared definitions file, so standalone/ inlines what each kind
# uses. Needs pip, unzip and go.
#   deploy/k8s/schemas/update.sh [K8S_VERSION] [PACKAGE_VERSION]
set -euo pipefail
cd "$(dirname "$0")"

k8s="${1:-v1.30.0}"
pkg="${2:-1.37.0}"
kinds=(job-batch-v1 configmap-v1 deployment-apps-v1 service-v1)

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
pip download --no-deps --quiet -d "$tmp" "kubernetes-validate==$pkg"
unzip -q -d "$tmp/x" "$tmp"/kubernetes_validate-*.whl "kubernetes_validate/kubernetes-json-schema/$k8s-local-strict/*"
rm -rf ./*-standalone-strict
(cd ../../.. && go run ./deploy/k8s/schemas/standalone \
  "$tmp/x/kubernetes_validate/kubernetes-json-schema/$k8s-local-strict" \
  "deploy/k8s/schemas/$k8s-standalone-strict" "${kinds[@]}")
echo "kubernetes-validate $pkg, Kubernetes $k8s: ${kinds[*]}" > "$k8s-standalone-strict/SOURCE"
