#!/usr/bin/env bash
# Build the app into dist/ (or the directory given): two Trunk release builds, because each page
# has its own wasm (each within the 300 kB gzip code budget, README "Practice page"):
#   1. index.html    → the explorer (bin attention-explorer),
#   2. practice.html → the practice page (bin practice), built aside and copied in,
# then one sw.js that precaches both pages' files. Files both builds write (the CSS, icons,
# manifest) must come out byte-identical; the script fails if they do not.
# Usage: bash scripts/build.sh [dist-dir]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$AE_ROOT"
DIST="${1:-dist}"
PRACTICE_DIST="$AE_ROOT/target/practice-dist"

ae_log "trunk build --release --offline (explorer) -> $DIST"
trunk build --release --offline --dist "$DIST"
ae_log "trunk build --release --offline practice.html -> $PRACTICE_DIST"
trunk build --release --offline --dist "$PRACTICE_DIST" practice.html

# Trunk names its output page index.html whatever the source page is called.
mv "$PRACTICE_DIST/index.html" "$PRACTICE_DIST/practice.html"
for file in "$PRACTICE_DIST"/*; do
  name="$(basename "$file")"
  [ "$name" = sw.js ] && continue
  if [ -e "$DIST/$name" ]; then
    cmp -s "$file" "$DIST/$name" || ae_die "both builds wrote $name, with different contents"
  else
    cp "$file" "$DIST/$name"
  fi
done
node scripts/service-worker.mjs "$DIST"
[ -f "$DIST/index.html" ] && [ -f "$DIST/practice.html" ] || ae_die "a page is missing from $DIST"
