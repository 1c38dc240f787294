// The code budget: each page of the built app loads at most 300,000 bytes of code by default,
// gzip -9 (its wasm, its JavaScript, its CSS and the service worker sw.js), and at most 350,000
// where readability, a clear error message or a feature needs it, provided that page keeps a
// Lighthouse mobile performance score of at least 98 (measured by scripts/bench.sh, not here: a
// score depends on the machine). A page over 300,000 is named with the reason it may be.
// Data fetched on demand (the trained checkpoints) does not count. A page's files are read from
// the page itself: every .js and .css it names (Trunk's preload link, the bootstrap script), the
// wasm the bootstrap fetches, plus sw.js, which every page registers; and the code written into the
// page (its <style> and <script> elements: the style sheet, and every page's first-view script).
//
// Usage: node scripts/budget.mjs [dist]   (exits 1 when a page is over budget)
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

export const DEFAULT_BUDGET = 300_000;
export const BUDGET = 350_000;
/** Why a page may go past the default budget (up to BUDGET). */
export const ALLOWANCE = {
  'index.html': 'plain state contexts instead of a Deref chain (readable code), the lesson\'s computed notes, and the next-token readout under the inspector',
  'practice.html': 'predict-then-reveal that hides and reveals the numbers, and questions about broken heatmaps',
  'train.html': 'the lab: knocking heads out with predict-first, the composition test, run B beside run A, Web Workers',
};

/** The code files `page` (an .html file in `dist`, whose text is `html`) loads: those it names,
 * and those its start-up script names (the wasm, which it fetches after the first paint). */
export function pageFiles(dist, page, html = readFileSync(path.join(dist, page), 'utf8')) {
  const named = [...html.matchAll(/\b(?:src|href)="(?:\.\/)?([^"/?#]+\.(?:js|wasm|css))"/g)].map((m) => m[1]);
  const started = named
    .filter((f) => f.startsWith('bootstrap-') && existsSync(path.join(dist, f)))
    .flatMap((f) => [...readFileSync(path.join(dist, f), 'utf8').matchAll(/'\.\/([^'/]+\.(?:js|wasm))'/g)].map((m) => m[1]));
  return [...new Set([...named, ...started, 'sw.js'])].sort();
}

/** The code `page` loads, as `{ name, bytes }`: the files of [`pageFiles`] (each must exist), then
 * the text of its <style> and <script> elements, if any, as one entry. */
export function pageCode(dist, page) {
  const html = readFileSync(path.join(dist, page), 'utf8');
  const code = pageFiles(dist, page, html).map((name) => ({ name, bytes: readFileSync(path.join(dist, name)) }));
  const written = [...html.matchAll(/<(script|style)\b[^>]*>([\s\S]*?)<\/\1>/gi)].map((m) => m[2]).join('\n');
  if (written.trim()) code.push({ name: `(written into ${page})`, bytes: Buffer.from(written) });
  return code;
}

/** gzip -9 size of some bytes. */
export const gzipSize = (bytes) => gzipSync(bytes, { level: 9 }).length;

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
      console.error(`budget: ${page} names no wasm (did Trunk's bootstrap change?)`);
      process.exit(1);
    }
    let total = 0;
    for (const { name, bytes } of pageCode(dist, page)) {
      const size = gzipSize(bytes);
      total += size;
      console.log(`  ${page}: ${name.padEnd(48)} ${String(size).padStart(8)} B gzip`);
    }
    const allowed = total <= DEFAULT_BUDGET || (total <= BUDGET && ALLOWANCE[page]);
    const verdict = total <= DEFAULT_BUDGET
      ? `ok, within the default ${DEFAULT_BUDGET}`
      : allowed
        ? `ok, over the default ${DEFAULT_BUDGET} for ${ALLOWANCE[page]}; up to ${BUDGET} while Lighthouse mobile stays >= 98`
        : 'OVER BUDGET';
    console.log(`${page}: ${total} B gzip (${verdict})`);
    over ||= !allowed;
  }
  process.exit(over ? 1 : 0);
}
