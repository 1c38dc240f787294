// Trunk post_build hook (see Trunk.toml): minify wasm-bindgen's JavaScript glue with terser. (The
// style sheet is written into each page, without its layout whitespace, by csp-bootstrap.mjs.)
//
// Trunk 0.21's own JS minifier fails on the glue (it leaves it as is), and the glue is readable
// code: minifying it shrinks the gzipped bundle (docs/performance.md). Only
// local names are mangled; exports, and the `imports.wbg.*` names the wasm links against, stay.
// Run by Trunk with cwd = the project root; env: TRUNK_STAGING_DIR.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const staging = process.env.TRUNK_STAGING_DIR;
if (!staging) {
  console.error('minify-assets: TRUNK_STAGING_DIR is not set (run me as a Trunk post_build hook)');
  process.exit(1);
}
let minify;
try {
  ({ minify } = createRequire(path.resolve('package.json'))('terser'));
} catch {
  console.error('minify-assets: terser is missing from node_modules; run scripts/setup.sh');
  process.exit(1);
}

// The glue is `<crate>-<hash>.js`; the CSP bootstrap (bootstrap-<hash>.js) and the training
// page's worker script (train-worker.js, assets/) are a few lines already.
const glue = readdirSync(staging).filter(
  (f) => f.endsWith('.js') && !f.startsWith('bootstrap-') && !f.endsWith('-worker.js'),
);
if (glue.length !== 1) {
  console.error(`minify-assets: expected one wasm-bindgen glue file, found ${glue.length}`);
  process.exit(1);
}
const file = path.join(staging, glue[0]);
const source = readFileSync(file, 'utf8');
const result = await minify(source, {
  module: true,
  compress: { passes: 2 },
  mangle: true,
  format: { comments: false },
});
writeFileSync(file, result.code);
console.log(`minify-assets: ${glue[0]} ${source.length} → ${result.code.length} bytes`);
