#!/usr/bin/env bash
# Installs the load tools the benchmarks compare gust against: wrk and ab
# (apache2-utils) from Debian's packages, and hey with go install.
# For benchmark machines only; CI and the tests need none of them.
set -euo pipefail

sudo=""
if [[ "$(id -u)" -ne 0 ]]; then
  sudo="sudo"
fi

missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v ab >/dev/null 2>&1 || missing+=(apache2-utils)
if ((${#missing[@]} > 0)); then
  echo "installing ${missing[*]} with apt-get"
  $sudo apt-get update
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
fi

gobin="$(go env GOBIN)"
if [[ -z "$gobin" ]]; then
  gobin="$(go env GOPATH)/bin"
fi
if [[ ! -x "$gobin/hey" ]] && ! command -v hey >/dev/null 2>&1; then
  echo "installing hey with go install"
  go install github.com/rakyll/hey@latest
fi

echo "wrk: $(command -v wrk)"
echo "ab:  $(command -v ab)"
hey_path="$(command -v hey 2>/dev/null || echo "$gobin/hey")"
echo "hey: $hey_path"
case ":$PATH:" in
  *":$gobin:"*) ;;
  *) echo "note: $gobin is not on PATH; add it to run hey by name" ;;
esac
