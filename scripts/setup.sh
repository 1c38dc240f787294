#!/usr/bin/env bash
# Install everything needed to build, serve and test Attention Explorer.
# Idempotent: anything already present at the right version is skipped, so a
# second run takes a few seconds.  Needs: Debian (apt), rustup, Node >= 20, python3.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$AE_ROOT"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

apt_install() {
  # apt-get update only when the package lists are empty or the install fails.
  if ! ls /var/lib/apt/lists/*_Packages >/dev/null 2>&1; then
    ae_log "apt-get update"
    $SUDO apt-get update -qq
  fi
  ae_log "apt-get install $*"
  if ! $SUDO apt-get install -y -qq "$@" >/dev/null; then
    ae_log "apt-get install failed; running apt-get update and retrying"
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq "$@" >/dev/null
  fi
}

# --- system packages -----------------------------------------------------------
pkgs=()
command -v chromium >/dev/null 2>&1 || pkgs+=(chromium)
command -v chromedriver >/dev/null 2>&1 || pkgs+=(chromium-driver)
command -v cc >/dev/null 2>&1 || pkgs+=(build-essential)
command -v python3 >/dev/null 2>&1 || pkgs+=(python3 python3-pip)
if [ "${#pkgs[@]}" -gt 0 ]; then
  apt_install "${pkgs[@]}"
else
  ae_log "apt: chromium, chromedriver, cc, python3 present"
fi

# --- node ------------------------------------------------------------------------
command -v node >/dev/null 2>&1 || ae_die "node (>= 20) not found"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 20 ] || ae_die "node >= 20 required, found $(node --version)"

# --- rust toolchain -------------------------------------------------------------
command -v rustup >/dev/null 2>&1 || ae_die "rustup not found (install it from rustup.rs)"
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  ae_log "rustup: wasm32-unknown-unknown present"
else
  ae_log "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
for comp in rustfmt clippy; do
  if rustup component list --installed | grep -q "^${comp}"; then
    ae_log "rustup: $comp present"
  else
    ae_log "rustup component add $comp"
    rustup component add "$comp"
  fi
done

# --- crates (also creates Cargo.lock if missing) ----------------------------------
if [ -f Cargo.toml ]; then
  ae_log "cargo fetch"
  cargo fetch --quiet
fi

# --- trunk 0.21 (0.22 needs a newer rustc) --------------------------------------
if trunk --version 2>/dev/null | grep -q '^trunk 0\.21\.'; then
  ae_log "$(trunk --version) present"
else
  ae_log "cargo install --locked trunk --version ~0.21 (takes ~15 min on 2 cores)"
  cargo install --locked trunk --version '~0.21'
fi

# --- wasm-bindgen-cli at exactly the Cargo.lock version ---------------------------
wb_version="$(ae_wasm_bindgen_version)"
if [ -z "$wb_version" ]; then
  ae_log "WARNING: no wasm-bindgen in Cargo.lock; skipping wasm-bindgen-cli"
else
  have_wb="$(wasm-bindgen --version 2>/dev/null || true)"
  have_runner="$(wasm-bindgen-test-runner --version 2>/dev/null || true)"
  if [ "$have_wb" = "wasm-bindgen $wb_version" ] && [ -n "$have_runner" ]; then
    ae_log "wasm-bindgen-cli $wb_version present"
  else
    ae_log "cargo install wasm-bindgen-cli --version $wb_version (was: ${have_wb:-none})"
    cargo install --force wasm-bindgen-cli --version "=$wb_version"
  fi
  # Keep Trunk.toml's [tools] wasm_bindgen in sync with Cargo.lock.
  if [ -f Trunk.toml ] && ! grep -q "^wasm_bindgen = \"$wb_version\"" Trunk.toml; then
    ae_log "updating Trunk.toml [tools] wasm_bindgen = \"$wb_version\" (commit this change)"
    sed -i "s/^wasm_bindgen = \".*\"/wasm_bindgen = \"$wb_version\"/" Trunk.toml
  fi
fi

# --- npm (root package.json): binaryen (wasm-opt) and terser for trunk builds; playwright-core for e2e ---
if [ -f node_modules/.package-lock.json ] && [ node_modules/.package-lock.json -nt package-lock.json ] \
   && [ node_modules/.package-lock.json -nt package.json ] \
   && [ -x node_modules/.bin/wasm-opt ] && [ -d node_modules/playwright-core ] && [ -d node_modules/axe-core ] \
   && [ -d node_modules/terser ]; then
  ae_log "npm: node_modules up to date"
elif [ -f package-lock.json ]; then
  ae_log "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
else
  ae_log "npm install"
  npm install --no-audit --no-fund --loglevel=error
fi
wasm-opt --version | grep -q 'version 132' || ae_die "wasm-opt on PATH is not version 132: $(command -v wasm-opt)"

# --- python numpy (for e2e/check_json.py) ----------------------------------------
if python3 -c 'import numpy' >/dev/null 2>&1; then
  ae_log "python3: numpy present"
else
  ae_log "pip install numpy"
  python3 -m pip install --quiet numpy 2>/dev/null || apt_install python3-numpy
fi

ae_log "setup complete"
