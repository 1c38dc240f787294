#!/usr/bin/env bash
# Build the release app and serve it at http://127.0.0.1:$PORT/ (default 8080).
# Env: PORT, AE_SKIP_SETUP=1 (skip scripts/setup.sh), AE_SKIP_BUILD=1 (serve existing dist/).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$AE_ROOT"
PORT="${PORT:-8080}"

if [ "${AE_SKIP_SETUP:-0}" != "1" ]; then bash scripts/setup.sh; fi
if [ "${AE_SKIP_BUILD:-0}" != "1" ]; then
  bash scripts/build.sh
fi
[ -f dist/index.html ] || ae_die "dist/index.html missing; build failed?"
ae_log "serving dist/ at http://127.0.0.1:${PORT}/"
exec node e2e/serve.mjs --port "$PORT"
