#!/usr/bin/env bash
# Performance numbers for Attention Explorer, in one command:
#
#   scripts/bench.sh            # full run (~25 min on 2 cores, most of it the release builds)
#   scripts/bench.sh --quick    # shorter timings (kernel 0.4 s per size, 100 updates, 5 loads)
#   scripts/bench.sh --no-build # reuse the dist dirs of the previous run
#   scripts/bench.sh --training-only  # only section 4; prints it (markdown) instead of rewriting
#                                     # BENCHMARKS.md, and leaves it in $BENCH_DIR/training.md
#   scripts/bench.sh --compare OLD_DIST NEW_DIST  # before/after of two built dists (below)
#
# It builds what it needs and prints tables, then writes BENCHMARKS.md (repo root):
#   1. kernel: native Rust `causal_attention` (benches/kernel.rs, opt-level 3) for T = 7, 64, 256,
#      512 (d_model 64, one head of 64) next to NumPy running the course formula on the same inputs
#      (benches/numpy_attention.py), with OpenBLAS's default threads and with one thread;
#   2. browser: headless Chromium on every page as scripts/build.sh builds them ($BENCH_DIR/dist-pages),
#      real mouse input (benches/browser.mjs): per slider step and row click, input → end of the
#      frame's layout and paint, and the app's compute+draw time (window.__aeTiming); navigation →
#      first heatmap pixel (explorer, practice) and first view (training page); the same slider
#      measurement on benches/frame_floor.html (the default view's canvases and text changes in
#      plain JavaScript: the frame floor of this machine, not the app); then a V8 CPU profile
#      and a trace of the same interactions on a copy of the "z" build whose wasm keeps function names;
#   3. bundle: trunk release builds of the explorer with opt-level "z" and "s": raw and gzip bytes of
#      .wasm/.js/.css, plus where the wasm bytes go (benches/wasm_size_profile.py on a copy that keeps
#      names); code per page (gzip, as scripts/budget.mjs counts it) and Lighthouse mobile (performance
#      category, simulated throttling; benches/lighthouse.mjs) on every page, when Lighthouse is
#      available: $LIGHTHOUSE, or target/bench/lighthouse (installed there with
#      `npm install --prefix target/bench/lighthouse lighthouse@12.8.2`); skipped otherwise;
#   4. training: the trainer's step (forward + backward + Adam) natively, at the release
#      profile's opt-level "z" and at opt-level 3, next to the NumPy reference (benches/numpy_train.py,
#      one thread) fed the same weights and batches, which first checks loss, gradients and updates
#      agree to 1e-9; then the repeat task's default, seeds 1–5 (step and seconds of the phase
#      change), and the grammar's, seeds 1–3 (seconds to within 10 % of the exact minimum loss);
#      then the training page in Chromium (every page built into $BENCH_DIR/dist-pages, or
#      BENCH_DIST_PAGES): three runs of benches/train_page.mjs (steps/s, slices, frames, long tasks),
#      trained in a Web Worker, three on the main thread (workers=0), and two of two runs at once,
#      and the tiny grammar there, seeds 1–3 (seconds to within 10 % of the minimum the page prints);
#      two bounds for the speed target: the native step compiled for this CPU (target-cpu=native, own
#      target dir) and the training page with all its code at opt-level 3 (over the size budget; three
#      runs; its own build of every page in target/bench-train-o3, ~8 min from cold);
#   and the generate page: one generated token with its redraw, timed per press
#      (benches/generate_page.mjs, goal ≤ 16 ms at the 95th percentile).
# Not part of scripts/test.sh: timings depend on the machine and on what else it is running
# (the load average before and after is recorded).
#
# --compare OLD_DIST NEW_DIST: no builds and no cargo; two built dists (each every page, as
# scripts/build.sh makes them) measured alternately, OLD, NEW, OLD, NEW (a shared machine drifts;
# taking turns spreads that over both): each round the explorer's slider (default view, 64 × 8,
# 256 × 8, and the frame floor page, the same in both builds: the drift between rounds),
# navigation to the first view of every page, and Lighthouse on every page
# (BENCH_LH_RUNS runs per page and round, default 2). Then one CPU profile and trace of 50 slider
# steps on NEW's default view, and code per page of both. BENCHMARKS.md: the targets, sections 2
# and 3 (NEW's figures, both rounds pooled), the before/after table and the CPU profile are
# rewritten; sections 1 and 4 are kept as they are. Files in $BENCH_DIR/compare.
#
# Env: BENCH_DIR (work files, default target/bench), BENCH_DIST_Z / BENCH_DIST_S (dist dirs,
# default /tmp/dist-bench-z, /tmp/dist-bench-s), BENCH_TARGET_S (cargo target dir of the "s" build,
# default target/bench-opt-s so it does not evict the normal release build), BENCH_MD (report path),
# BENCH_PORT (first of the local ports the bench's servers use, default 0 = any free port),
# BENCH_LH_RUNS (Lighthouse runs per page, default 3; 2 per round with --compare), LIGHTHOUSE.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$AE_ROOT"

ARGS="$*"
QUICK=0
BUILD=1
TRAIN_ONLY=0
COMPARE_OLD=""
COMPARE_NEW=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --no-build) BUILD=0 ;;
    --training-only) TRAIN_ONLY=1 ;;
    --compare)
      [ $# -ge 3 ] || ae_die "--compare needs two dist dirs: --compare OLD_DIST NEW_DIST"
      COMPARE_OLD="$(cd "$2" && pwd)"; COMPARE_NEW="$(cd "$3" && pwd)"; shift 2 ;;
    -h|--help) sed -n '2,53p' "$0"; exit 0 ;;
    *) ae_die "unknown option: $1 (see --help)" ;;
  esac
  shift
done

BENCH_DIR="${BENCH_DIR:-$AE_ROOT/target/bench}"
DIST_Z="${BENCH_DIST_Z:-/tmp/dist-bench-z}"
DIST_S="${BENCH_DIST_S:-/tmp/dist-bench-s}"
TARGET_S="${BENCH_TARGET_S:-$AE_ROOT/target/bench-opt-s}"
BENCH_MD="${BENCH_MD:-$AE_ROOT/BENCHMARKS.md}"
COMMAND="$(env | { grep -E '^(BENCH_[A-Z_]+|LIGHTHOUSE)=' || true; } | sort | tr '\n' ' ')scripts/bench.sh${ARGS:+ $ARGS}"
mkdir -p "$BENCH_DIR/kernel"

if [ "$QUICK" = 1 ]; then
  KERNEL_ARGS=(--quick); NUMPY_ARGS=(--quick); UPDATES=100; LOADS=5; TRAIN_STEPS=100; TRAIN_SECONDS=1; BROWSER_TRAIN_STEPS=300
else
  KERNEL_ARGS=(); NUMPY_ARGS=(); UPDATES=150; LOADS=9; TRAIN_STEPS=400; TRAIN_SECONDS=4; BROWSER_TRAIN_STEPS=1500
fi
PORT="${BENCH_PORT:-0}"
# A port for each server the bench starts in turn (0: each picks a free one).
port() { if [ "$PORT" = 0 ]; then echo 0; else echo $((PORT + $1)); fi; }

# Lighthouse, if available (never installed by this script; see the header).
LIGHTHOUSE="${LIGHTHOUSE:-$AE_ROOT/target/bench/lighthouse/node_modules/.bin/lighthouse}"
if [ -x "$LIGHTHOUSE" ]; then export LIGHTHOUSE; else LIGHTHOUSE=""; fi

# --- The machine ------------------------------------------------------------------------------
ae_log "machine"
{
  echo "nproc=$(nproc)"
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "cpu_flags=$(grep -m1 '^flags' /proc/cpuinfo | grep -o -w -E 'avx2|avx512f|fma' | sort -u | tr '\n' ' ')"
  echo "memory=$(free -h | awk '/^Mem:/ {print $2}')"
  echo "os=$(. /etc/os-release && echo "$PRETTY_NAME") ($(uname -r))"
  echo "rustc=$(rustc --version)"
  echo "chromium=$("${CHROMIUM_PATH}" --version 2>/dev/null | head -1)"
  echo "node=$(node --version)"
  echo "python=$(python3 --version 2>&1)"
  echo "numpy=$(python3 -c 'import numpy; print(numpy.__version__)')"
  echo "trunk=$(trunk --version)"
  echo "wasm_opt=$(wasm-opt --version)"
  echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
  echo "git=$(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "command=$COMMAND"
  echo "lighthouse=${LIGHTHOUSE:+$("$LIGHTHOUSE" --version 2>/dev/null)}"
} > "$BENCH_DIR/machine.txt"
cat "$BENCH_DIR/machine.txt"

# --- Compare two built dists ------------------------------------------------------------------
if [ -n "$COMPARE_OLD" ]; then
  CMP="$BENCH_DIR/compare"
  rm -rf "$CMP"; mkdir -p "$CMP"
  cp "$BENCH_DIR/machine.txt" "$CMP/machine.txt"
  echo "old=$COMPARE_OLD" >> "$CMP/machine.txt"
  echo "new=$COMPARE_NEW" >> "$CMP/machine.txt"
  LH_RUNS="${BENCH_LH_RUNS:-2}"
  for round in 1 2; do
    for build in old new; do
      dist="$COMPARE_OLD"; [ "$build" = new ] && dist="$COMPARE_NEW"
      ae_log "compare, round $round of 2, $build ($dist): slider and navigation (load $(cut -d' ' -f1 /proc/loadavg))"
      node benches/browser.mjs --dist "$dist" --only default,64t-8h,256t-8h,floor --slider-only \
        --nav explorer,explorer-canvas,practice,training,training-chart --updates "$UPDATES" --loads "$LOADS" --port "$(port 1)" \
        --out "$CMP/browser-$build-$round.json"
      if [ -n "$LIGHTHOUSE" ]; then
        ae_log "compare, round $round of 2, $build: Lighthouse, $LH_RUNS runs per page"
        node benches/lighthouse.mjs --dist "$dist" --runs "$LH_RUNS" --no-install --port "$(port 2)" \
          --out "$CMP/lighthouse-$build-$round.json"
      fi
    done
  done
  [ -n "$LIGHTHOUSE" ] || ae_log "no Lighthouse (set LIGHTHOUSE=/path/to/lighthouse): its rows stay empty"
  ae_log "compare: CPU profile and trace of 50 slider steps, NEW's default view"
  node benches/browser.mjs --dist "$COMPARE_NEW" --only default --slider-only --nav none --updates 50 \
    --profile --profile-top 15 --port "$(port 3)" --out "$CMP/profile-new.json" | tee "$CMP/profile-new.txt"
  node benches/page_sizes.mjs "$COMPARE_OLD" > "$CMP/sizes-old.json"
  node benches/page_sizes.mjs "$COMPARE_NEW" > "$CMP/sizes-new.json"
  echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$CMP/machine.txt"
  python3 benches/report.py "$BENCH_DIR" --compare "$BENCH_MD"
  ae_log "rewrote the targets, sections 2 and 3, the before/after table and the CPU profile in $BENCH_MD"
  python3 benches/report.py "$BENCH_DIR" --compare-summary
  exit 0
fi

if [ "$TRAIN_ONLY" = 0 ]; then
# --- 1. Kernel --------------------------------------------------------------------------------
ae_log "kernel: Rust (cargo bench, opt-level 3)"
# The release profile is opt-level "z" (small wasm); the native kernel is measured at opt-level 3,
# what a native user of the crate would build with. The bench profile inherits lto/codegen-units.
CARGO_PROFILE_BENCH_OPT_LEVEL=3 cargo bench --quiet --bench kernel -- --out "$BENCH_DIR/kernel" "${KERNEL_ARGS[@]}"
ae_log "kernel: NumPy, same inputs (OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset for NumPy only)"
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \
  python3 benches/numpy_attention.py "$BENCH_DIR/kernel" --tag default "${NUMPY_ARGS[@]}"
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=1 \
  python3 benches/numpy_attention.py "$BENCH_DIR/kernel" --tag 1thread "${NUMPY_ARGS[@]}"

# --- 2. Bundle --------------------------------------------------------------------------------
if [ "$BUILD" = 1 ]; then
  ae_log "trunk release build, opt-level z -> $DIST_Z"
  trunk build --release --offline --dist "$DIST_Z"
  ae_log "trunk release build, opt-level s -> $DIST_S (cargo target $TARGET_S)"
  CARGO_TARGET_DIR="$TARGET_S" CARGO_PROFILE_RELEASE_OPT_LEVEL=s \
    trunk build --release --offline --dist "$DIST_S"
  # A copy of the z build whose wasm keeps its name section, for the size and CPU profiles:
  # wasm-bindgen + `wasm-opt -Oz -g` on the same cargo output Trunk used.
  ae_log "named (profiling) copy of the z build"
  raw="$AE_ROOT/target/wasm32-unknown-unknown/release/attention-explorer.wasm"
  rm -rf "$BENCH_DIR/named" "$BENCH_DIR/dist-prof"
  wasm-bindgen --target web --no-typescript --out-dir "$BENCH_DIR/named" --out-name app "$raw"
  wasm-opt -Oz -g "$BENCH_DIR/named/app_bg.wasm" -o "$BENCH_DIR/named/app_named.wasm"
  cp -r "$DIST_Z" "$BENCH_DIR/dist-prof"
  js=$(ls "$BENCH_DIR"/dist-prof/attention-explorer-*.js | grep -v '_bg' | head -1)
  cp "$BENCH_DIR/named/app.js" "$js"
  cp "$BENCH_DIR/named/app_named.wasm" "${js%.js}_bg.wasm"
fi
ae_log "bundle sizes"
python3 - "$DIST_Z" "$DIST_S" > "$BENCH_DIR/bundle.json" <<'PY'
import gzip, json, os, sys
out = {}
for label, d in zip(("z", "s"), sys.argv[1:]):
    files = []
    for name in sorted(os.listdir(d)):
        ext = os.path.splitext(name)[1]
        if ext in (".wasm", ".js", ".css"):
            data = open(os.path.join(d, name), "rb").read()
            files.append({"file": name, "ext": ext, "raw": len(data), "gzip": len(gzip.compress(data, 9, mtime=0)),
                          "gzip6": len(gzip.compress(data, 6, mtime=0))})
    out[label] = {"dist": d, "files": files}
print(json.dumps(out, indent=1))
PY
python3 - "$BENCH_DIR/bundle.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
for label, v in b.items():
    print(f"opt-level {label} ({v['dist']}):")
    for f in v["files"]:
        print(f"  {f['file']:<48} {f['raw']:>9} B raw {f['gzip']:>9} B gzip")
    print(f"  {'total':<48} {sum(f['raw'] for f in v['files']):>9} B raw {sum(f['gzip'] for f in v['files']):>9} B gzip")
PY
if [ -f "$BENCH_DIR/named/app_named.wasm" ]; then
  python3 benches/wasm_size_profile.py "$BENCH_DIR/named/app_named.wasm" --top 25 | tee "$BENCH_DIR/wasm-size-profile.txt"
fi

# --- 2. Browser and 3. code per page, Lighthouse ---------------------------------------------
# Every page, as scripts/build.sh builds them (the shipped build; section 4 uses it too).
PAGES="${BENCH_DIST_PAGES:-$BENCH_DIR/dist-pages}"
if [ "$BUILD" = 1 ] || [ ! -f "$PAGES/train.html" ]; then
  ae_log "build every page -> $PAGES"
  bash scripts/build.sh "$PAGES"
fi
ae_log "browser: headless Chromium, every page ($PAGES)"
node benches/browser.mjs --dist "$PAGES" --out "$BENCH_DIR/browser.json" --updates "$UPDATES" --loads "$LOADS" --port "$(port 1)"
if [ -d "$BENCH_DIR/dist-prof" ]; then
  ae_log "browser: CPU profile and trace of the same interactions (named wasm)"
  node benches/browser.mjs --dist "$BENCH_DIR/dist-prof" --out "$BENCH_DIR/browser-profile.json" --port "$(port 3)" \
    --updates 60 --loads 1 --only 'default,256t-8h' --nav none --profile --profile-top 20 | tee "$BENCH_DIR/browser-profile.txt"
fi
ae_log "browser: the generate page, one token per press (benches/generate_page.mjs)"
node benches/generate_page.mjs --dist "$PAGES" --json "$BENCH_DIR/generate.json"
node benches/page_sizes.mjs "$PAGES" > "$BENCH_DIR/page-sizes.json"
if [ -n "$LIGHTHOUSE" ]; then
  ae_log "Lighthouse mobile, every page, ${BENCH_LH_RUNS:-3} runs each"
  node benches/lighthouse.mjs --dist "$PAGES" --runs "${BENCH_LH_RUNS:-3}" --no-install --port "$(port 2)" \
    --out "$BENCH_DIR/lighthouse.json"
else
  rm -f "$BENCH_DIR/lighthouse.json"
  ae_log "no Lighthouse (set LIGHTHOUSE=/path/to/lighthouse, or see the header): skipped"
fi

fi # TRAIN_ONLY

# --- 4. Training ---------------------------------------------------------------------
TRAIN_DIR="$BENCH_DIR/train"
rm -rf "$TRAIN_DIR"
# opt-level 3 first: the kernel bench above built the library with the same settings.
ae_log "training: native step at opt-level 3 (bench profile)"
CARGO_PROFILE_BENCH_OPT_LEVEL=3 cargo run --quiet --profile bench --example train_dump -- \
  "$TRAIN_DIR/o3" --steps 5 --bench-steps "$TRAIN_STEPS" --build "opt-level 3"
# The same step compiled for this very CPU (AVX2/AVX-512 where it has them; still no fused
# multiply-add, which Rust never emits on its own): the fastest this Rust code runs anywhere here,
# and an upper bound for the WebAssembly build, whose SIMD is 128 bits wide. Own target dir, so the
# normal builds keep their artefacts.
ae_log "training: native step at opt-level 3 for this CPU (-C target-cpu=native)"
RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR="$AE_ROOT/target/bench-native-cpu" \
  CARGO_PROFILE_BENCH_OPT_LEVEL=3 cargo run --quiet --profile bench --example train_dump -- \
  "$TRAIN_DIR/native-cpu" --steps 5 --bench-steps "$TRAIN_STEPS" --build "opt-level 3, target-cpu=native"
ae_log "training: native step with the release profile (opt-level z, as the wasm build), and the dump for NumPy"
cargo run --quiet --release --example train_dump -- \
  "$TRAIN_DIR" --steps 5 --bench-steps "$TRAIN_STEPS" --build "release profile, opt-level z"
ae_log "training: NumPy reference, one thread (agreement, then steps/s)"
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=1 \
  python3 benches/numpy_train.py "$TRAIN_DIR" --seconds "$TRAIN_SECONDS"
ae_log "training: repeat task default, seeds 1-5 (release profile)"
cargo run --quiet --release --example train -- --seeds 1,2,3,4,5 --bench-steps 0 \
  --json "$TRAIN_DIR/repeat-runs.jsonl"
ae_log "training: tiny grammar default, seeds 1-3 (release profile)"
cargo run --quiet --release --example train -- --grammar --seeds 1,2,3 --max-steps 300 --bench-steps 0 \
  --json "$TRAIN_DIR/grammar-runs.jsonl"

# The trainer in Chromium: the training page (every page's build, as served), default settings, seed 1.
PAGES="${BENCH_DIST_PAGES:-$BENCH_DIR/dist-pages}"
if { [ "$BUILD" = 1 ] && [ "$TRAIN_ONLY" = 1 ]; } || [ ! -f "$PAGES/train.html" ]; then
  ae_log "training: build every page -> $PAGES"
  bash scripts/build.sh "$PAGES"
fi
for run in 1 2 3; do
  ae_log "training: the training page in Chromium, run $run of 3 ($BROWSER_TRAIN_STEPS steps)"
  node benches/train_page.mjs --dist "$PAGES" --steps "$BROWSER_TRAIN_STEPS" --json "$TRAIN_DIR/browser-$run.json"
done
# The fallback where Web Workers are unavailable (workers=0: the main thread in ≤ 8 ms slices), and
# two runs at once (two pages, each run in its own worker).
for run in 1 2 3; do
  ae_log "training: the training page on the main thread (workers=0), run $run of 3 ($BROWSER_TRAIN_STEPS steps)"
  node benches/train_page.mjs --dist "$PAGES" --steps "$BROWSER_TRAIN_STEPS" --query 'tseed=1&workers=0' \
    --json "$TRAIN_DIR/browser-main-thread-$run.json"
done
for run in 1 2; do
  ae_log "training: two runs at once, each in its own worker, run $run of 2 ($BROWSER_TRAIN_STEPS steps)"
  node benches/train_page.mjs --dist "$PAGES" --steps "$BROWSER_TRAIN_STEPS" --parallel 2 \
    --json "$TRAIN_DIR/browser-two-$run.json"
done
# A bound, not a shipped build: the training page with all of its code at opt-level 3 (the shipped
# one builds everything but the products for size, "s"), to see what the code budget costs in
# speed. Every page, built as scripts/build.sh builds them, in a target dir of its own so that the
# normal builds keep their artefacts; only the training page's profile differs.
PAGES_O3="$BENCH_DIR/dist-train-o3"
if [ "$BUILD" = 1 ] || [ ! -f "$PAGES_O3/train.html" ]; then
  ae_log "training: every page, the training page's code all at opt-level 3 -> $PAGES_O3"
  rm -rf "$PAGES_O3"
  CARGO_PROFILE_TRAIN_RELEASE_OPT_LEVEL=3 CARGO_TARGET_DIR="$AE_ROOT/target/bench-train-o3" \
    bash scripts/build.sh "$PAGES_O3"
fi
for run in 1 2 3; do
  ae_log "training: the training page at opt-level 3 (not shipped), run $run of 3 ($BROWSER_TRAIN_STEPS steps)"
  node benches/train_page.mjs --dist "$PAGES_O3" --steps "$BROWSER_TRAIN_STEPS" --json "$TRAIN_DIR/browser-o3-$run.json"
done
gzip -9 -c "$PAGES_O3"/train-*_bg.wasm | wc -c > "$TRAIN_DIR/train-o3-wasm-gzip.txt"
gzip -9 -c "$PAGES"/train-*_bg.wasm | wc -c > "$TRAIN_DIR/train-wasm-gzip.txt"
# The tiny grammar's default shape (as the task menu sets it), seeds 1-3: seconds to within 10 % of
# the achievable minimum (target: at most 5 s).
for seed in 1 2 3; do
  ae_log "training: the tiny grammar in Chromium, seed $seed (300 steps)"
  node benches/train_page.mjs --dist "$PAGES" --steps 300 \
    --query "train=grammar&tlayers=1&tpos=sinusoidal&tseed=$seed" --json "$TRAIN_DIR/browser-grammar-$seed.json"
done

echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$BENCH_DIR/machine.txt"

if [ "$TRAIN_ONLY" = 1 ]; then
  python3 benches/report.py "$BENCH_DIR" --training-section | tee "$BENCH_DIR/training.md"
  ae_log "wrote $BENCH_DIR/training.md (BENCHMARKS.md left as it is)"
  exit 0
fi

# --- Report -----------------------------------------------------------------------------------
python3 benches/report.py "$BENCH_DIR" > "$BENCH_MD"
ae_log "wrote $BENCH_MD"
python3 benches/report.py "$BENCH_DIR" --summary
