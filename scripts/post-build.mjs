// Trunk's one post_build hook (see Trunk.toml). Trunk runs the hooks of a stage concurrently, and
// each step here needs the previous one's output, so they run in order from this file:
//   1. csp-bootstrap.mjs: Trunk's inline bootstrap script → bootstrap-<hash>.js (strict CSP), and
//      the style sheet (and the first-view script) written into the page, named by hash;
//   2. minify-assets.mjs: terser on the wasm-bindgen glue;
//   3. icons.mjs: assets/icon.svg → icon-192.png, icon-512.png (the manifest's icons);
//   4. service-worker.mjs: sw.js, precaching every file written by the steps before it
//      (scripts/build.sh writes it again once the practice page's files are beside the explorer's).
// Each step exits the process with status 1 on failure, which fails the build.
// Run by Trunk with cwd = the project root; env: TRUNK_STAGING_DIR, TRUNK_PUBLIC_URL.
const staging = process.env.TRUNK_STAGING_DIR;
if (!staging) {
  console.error('post-build: TRUNK_STAGING_DIR is not set (run me as a Trunk post_build hook)');
  process.exit(1);
}
await import('./csp-bootstrap.mjs');
await import('./minify-assets.mjs');
const { writeIcons } = await import('./icons.mjs');
console.log(`post-build: wrote ${writeIcons(staging).join(', ')}`);
const { writeServiceWorker, SW_FILE } = await import('./service-worker.mjs');
console.log(`post-build: ${SW_FILE} precaches ${writeServiceWorker(staging)} files`);
