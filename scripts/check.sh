#!/usr/bin/env bash
# Quick static checks only: rustfmt, every import within docs/architecture.md's table of layers and
# no import circle inside src/model, no file over 700 lines,
# clippy (native and wasm32).
# No setup, no tests. scripts/test.sh runs the same checks as its first steps.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$AE_ROOT"
ae_log "cargo fmt --check"
cargo fmt --all -- --check
ae_log "layers and src/model import circles"
python3 scripts/layer_imports.py --self-test
ae_log "file lengths"
python3 scripts/file_lengths.py --self-test
ae_log "cargo clippy (native)"
cargo clippy --workspace --all-targets -- -D warnings
ae_log "cargo clippy (wasm32)"
cargo clippy --workspace --target wasm32-unknown-unknown --all-targets -- -D warnings
ae_log "check OK"
