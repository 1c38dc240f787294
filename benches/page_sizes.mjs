// Code per page of a built dist, as scripts/budget.mjs counts it (every .js, .wasm and .css the
// page names, plus sw.js, plus the code written into the page; gzip -9), as JSON on stdout. Run by
// scripts/bench.sh:
//   node benches/page_sizes.mjs DIST
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pageCode, gzipSize, DEFAULT_BUDGET, BUDGET, ALLOWANCE } from '../scripts/budget.mjs';

const dist = process.argv[2];
if (!dist) throw new Error('usage: node benches/page_sizes.mjs DIST');
const pages = {};
for (const page of readdirSync(dist).filter((name) => name.endsWith('.html')).sort()) {
  const files = pageCode(dist, page).map(({ name, bytes }) => ({ file: name, raw: bytes.length, gzip: gzipSize(bytes) }));
  const gzip = files.reduce((sum, f) => sum + f.gzip, 0);
  pages[page] = { files, raw: files.reduce((sum, f) => sum + f.raw, 0), gzip, allowance: ALLOWANCE[page] ?? null };
}
console.log(JSON.stringify({ dist: path.resolve(dist), defaultBudget: DEFAULT_BUDGET, budget: BUDGET, pages }, null, 1));
