#!/usr/bin/env bash
# Build the app into dist/ (or the directory given): four Trunk release builds, because each page
# has its own wasm (each within its code budget, docs/performance.md):
#   1. index.html    → the explorer (bin attention-explorer),
#   2. practice.html → the practice page (bin practice), built aside and copied in,
#   3. train.html    → the training page (bin train), likewise,
#   4. generate.html → the generate page (bin generate), likewise,
# then one sw.js that precaches every page's files. Files both builds write (the CSS, icons,
# manifest) must come out byte-identical; the script fails if they do not.
# Usage: bash scripts/build.sh [dist-dir]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$AE_ROOT"
DIST="${1:-dist}"

ae_log "trunk build --release --offline (explorer) -> $DIST"
trunk build --release --offline --dist "$DIST"
for page in practice train generate; do
  PAGE_DIST="$AE_ROOT/target/$page-dist"
  ae_log "trunk build --release --offline $page.html -> $PAGE_DIST"
  trunk build --release --offline --dist "$PAGE_DIST" "$page.html"
  # Trunk names its output page index.html whatever the source page is called.
  mv "$PAGE_DIST/index.html" "$PAGE_DIST/$page.html"
  for file in "$PAGE_DIST"/*; do
    name="$(basename "$file")"
    [ "$name" = sw.js ] && continue
    if [ -e "$DIST/$name" ]; then
      cmp -s "$file" "$DIST/$name" || ae_die "two builds wrote $name, with different contents"
    else
      cp "$file" "$DIST/$name"
    fi
  done
done
node scripts/service-worker.mjs "$DIST"
for page in index practice train generate; do
  [ -f "$DIST/$page.html" ] || ae_die "$page.html is missing from $DIST"
done
