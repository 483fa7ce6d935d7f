#!/usr/bin/env bash
# Screenshots a gust bench report.html with headless Chromium.
# usage: lab/screenshot.sh REPORT.html OUT.png [WIDTH,HEIGHT]
set -euo pipefail
in=$(realpath "$1"); out=$(realpath -m "$2"); size=${3:-1400,2400}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "no Chromium: apt-get install -y chromium" >&2; exit 1; }
timeout 60 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --window-size="$size" --screenshot="$out" "file://$in" >/dev/null 2>&1
echo "$out"
