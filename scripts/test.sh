#!/usr/bin/env bash
# THE one command that runs every check and test of Attention Explorer:
#   setup, rustfmt, the layers' imports and src/model's import circles, file lengths,
#   clippy (native + wasm32), native cargo test, the trainer against an independent
#   NumPy implementation (gradients and Adam updates to 1e-9), wasm-bindgen-test
#   in headless Chromium, the release build of every page (scripts/build.sh), the code budget of
#   each page (scripts/budget.mjs), Playwright e2e suite (node --test).
# Exits non-zero on the first failure.
# Env: AE_SKIP_SETUP=1 skips scripts/setup.sh (tools already installed).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$AE_ROOT"

start_all=$SECONDS
current=""
done_steps=()
on_exit() {
  local rc=$?
  if [ $rc -ne 0 ]; then
    printf '\nFAILED: step "%s" (exit %d) after %ds; passed before it: %s\n' \
      "$current" "$rc" "$((SECONDS - start_all))" "${done_steps[*]:-none}" >&2
  fi
}
trap on_exit EXIT

step() {
  local name="$1"; shift
  current="$name"
  local t0=$SECONDS
  printf '\n==> [%s] %s\n' "$name" "$*"
  "$@"
  printf '==> [%s] ok (%ds)\n' "$name" "$((SECONDS - t0))"
  done_steps+=("$name")
}

if [ "${AE_SKIP_SETUP:-0}" != "1" ]; then
  step setup bash scripts/setup.sh
fi
step fmt cargo fmt --all -- --check
step imports python3 scripts/layer_imports.py --self-test
step lengths python3 scripts/file_lengths.py --self-test
step clippy-native cargo clippy --workspace --all-targets -- -D warnings
step clippy-wasm cargo clippy --workspace --target wasm32-unknown-unknown --all-targets -- -D warnings
step test-native cargo test
# The first 5 training steps of each default (repeat/rotary, grammar/sinusoidal, learned positions),
# dumped by the Rust trainer (the debug build `cargo test` just made) and redone in NumPy: loss,
# every gradient and every updated parameter must agree to 1e-9 relative (benches/numpy_train.py).
numpy_train_check() {
  local dir="$AE_ROOT/target/numpy-train-check"
  cargo run --quiet --example train_dump -- "$dir" --steps 5
  python3 benches/numpy_train.py --check-only "$dir"
}
step numpy-train numpy_train_check
step test-wasm cargo test --target wasm32-unknown-unknown
step build bash scripts/build.sh
step budget node scripts/budget.mjs dist
e2e_log="$(mktemp)"
run_e2e() { node --test e2e/*.test.mjs 2>&1 | tee "$e2e_log"; }
step e2e run_e2e

trap - EXIT
printf '\nALL CHECKS OK: %s (%ds)\n' "${done_steps[*]}" "$((SECONDS - start_all))"
count() { awk -v k="# $1" '$0 ~ "^"k" " { n = $3 } END { print n + 0 }' "$e2e_log"; }
printf 'e2e: %d passed, %d failed, %d skipped\n' "$(count pass)" "$(count fail)" "$(count skipped)"
rm -f "$e2e_log"
