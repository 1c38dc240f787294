// The code budget: each page of the built app loads at most 300,000 bytes of code, gzip -9
// (its wasm, its JavaScript, its CSS and the service worker sw.js). Data fetched on demand does
// not count; no page fetches any yet. A page's files are read from the page itself: every
// .js, .wasm and .css it names (Trunk's preload links, the bootstrap script, the stylesheet),
// plus sw.js, which every page registers.
//
// Usage: node scripts/budget.mjs [dist]   (exits 1 when a page is over budget)
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

export const BUDGET = 300_000;

/** The code files `page` (an .html file in `dist`) loads. */
export function pageFiles(dist, page) {
  const html = readFileSync(path.join(dist, page), 'utf8');
  const named = [...html.matchAll(/\b(?:src|href)="(?:\.\/)?([^"/?#]+\.(?:js|wasm|css))"/g)].map((m) => m[1]);
  return [...new Set([...named, 'sw.js'])].sort();
}

/** gzip -9 size of a file. */
const gzipSize = (file) => gzipSync(readFileSync(file), { level: 9 }).length;

if (import.meta.url === `file://${process.argv[1]}`) {
  const dist = process.argv[2] || 'dist';
  const pages = readdirSync(dist).filter((name) => name.endsWith('.html'));
  let over = false;
  for (const page of pages) {
    const files = pageFiles(dist, page);
    const missing = files.filter((f) => !existsSync(path.join(dist, f)));
    if (missing.length) {
      console.error(`budget: ${page} names missing files: ${missing.join(', ')}`);
      process.exit(1);
    }
    if (!files.some((f) => f.endsWith('.wasm'))) {
      console.error(`budget: ${page} names no wasm (did Trunk's preload link change?)`);
      process.exit(1);
    }
    let total = 0;
    for (const f of files) {
      const size = gzipSize(path.join(dist, f));
      total += size;
      console.log(`  ${page}: ${f.padEnd(48)} ${String(size).padStart(8)} B gzip`);
    }
    const verdict = total <= BUDGET ? 'ok' : 'OVER BUDGET';
    console.log(`${page}: ${total} B gzip of ${BUDGET} (${verdict})`);
    over ||= total > BUDGET;
  }
  process.exit(over ? 1 : 0);
}
