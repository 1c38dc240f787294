# shellcheck shell=bash
# Sourced by the other scripts: common paths and environment.
# Usage: source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

AE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export AE_ROOT

# Project-local tools first (npm binaryen's wasm-opt must shadow any system wasm-opt),
# then cargo-installed tools (trunk, wasm-bindgen, wasm-bindgen-test-runner).
export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
case ":$PATH:" in
  *":$CARGO_HOME/bin:"*) ;;
  *) PATH="$CARGO_HOME/bin:$PATH" ;;
esac
PATH="$AE_ROOT/node_modules/.bin:$PATH"
export PATH

# Browser used by wasm-bindgen-test (via chromedriver) and by the Playwright e2e suite.
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-120}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-auto}"

# Print a short progress line.
ae_log() { printf '==> %s\n' "$*"; }
ae_die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# The wasm-bindgen version pinned in Cargo.lock (empty if none).
ae_wasm_bindgen_version() {
  [ -f "$AE_ROOT/Cargo.lock" ] || return 0
  awk '
    /^\[\[package\]\]/ { in_wb = 0 }
    /^name = "wasm-bindgen"$/ { in_wb = 1; next }
    in_wb && /^version = / { gsub(/"/, "", $3); print $3; exit }
  ' "$AE_ROOT/Cargo.lock"
}
