// "Works under any path": the release build served under a sub-path, as a course site
// or a project page would host it, runs the core walk with every request under that path and a
// clean console; and dist/index.html names no `/`-rooted URL (which would leave the page blank
// anywhere but the root of a host).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { inflateSync } from 'node:zlib';
import path from 'node:path';
import { DIST_DIR, REPO_ROOT, startServer, launchBrowser, newPage, openApp } from './harness.mjs';
import { coreWalk } from './core_walk.mjs';

const PREFIX = '/course/attention-explorer/';
let server;
let browser;
before(async () => {
  server = await startServer({ prefix: PREFIX });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('dist/index.html names only relative URLs', async () => {
  const html = await readFile(path.join(DIST_DIR, 'index.html'), 'utf8');
  const urls = [...html.matchAll(/\b(?:src|href)\s*=\s*["']([^"']*)["']/gi)].map((m) => m[1]);
  assert.ok(urls.length >= 4, `bootstrap, manifest, icons: ${urls}`);
  for (const url of urls) {
    assert.ok(!url.startsWith('/') && !/^[a-z]+:/i.test(url), `not relative to the page: ${url}`);
  }
  // The bootstrap imports the glue and fetches the wasm relative to itself.
  const bootstrap = /src="\.\/(bootstrap-[0-9a-f]+\.js)"/.exec(html);
  assert.ok(bootstrap, 'index.html loads the bootstrap by a relative URL');
  const code = await readFile(path.join(DIST_DIR, bootstrap[1]), 'utf8');
  assert.match(code, /from '\.\/attention-explorer-[0-9a-f]+\.js'/);
  assert.match(code, /fetch\(new URL\('\.\/attention-explorer-[0-9a-f]+_bg\.wasm', import\.meta\.url\)\)/);
  // The download starts after the wait for the header's reported paint (so it cannot end before the
  // page's largest paint, which Lighthouse's simulation would then count in it); init is handed it.
  assert.ok(code.indexOf('first-contentful-paint') < code.indexOf('fetch('), 'the header\'s paint comes first');
  assert.match(code, /module_or_path: wasmDownload/);
});

test(`the core walk under ${PREFIX}`, { timeout: 90_000 }, async () => {
  const { context, page, consoleLog } = await newPage(browser);
  const requests = [];
  const failed = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('response', (r) => r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`));
  try {
    // The sub-path without its slash redirects, as static hosts do; relative URLs then resolve.
    await page.goto(server.url);
    assert.equal(new URL(page.url()).pathname, PREFIX);
    requests.length = 0; // that first request was the redirected one, without the slash
    await openApp(page, '', { baseUrl: server.url });
    await coreWalk(page);
    const origin = new URL(server.url).origin;
    const outside = requests.filter((u) => u.startsWith(origin) && !new URL(u).pathname.startsWith(PREFIX));
    assert.deepEqual(outside, [], 'every request stays under the sub-path');
    for (const kind of ['.wasm', 'bootstrap-', 'icon.svg']) {
      assert.ok(requests.some((u) => u.includes(kind)), `loaded ${kind} (${requests.join(', ')})`);
    }
    assert.deepEqual(failed, []);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('the web app manifest and its icons, under the sub-path', { timeout: 30_000 }, async () => {
  const { context, page, consoleLog } = await newPage(browser);
  try {
    await openApp(page, '', { baseUrl: server.url });
    const href = await page.locator('link[rel=manifest]').getAttribute('href');
    const manifestUrl = new URL(href, page.url()).href;
    assert.equal(manifestUrl, `${server.url}/manifest.webmanifest`);
    const manifest = await page.evaluate((u) => fetch(u).then((r) => r.json()), manifestUrl);
    assert.equal(manifest.name, 'Attention Explorer');
    assert.equal(manifest.start_url, './');
    assert.equal(manifest.scope, './');
    assert.equal(manifest.display, 'standalone');
    // The light theme colour is the page's light background; the dark one is in index.html.
    assert.equal(manifest.theme_color, '#f6f8fa');
    const themes = await page.locator('meta[name=theme-color]').evaluateAll((ms) => ms.map((m) => [m.media, m.content]));
    assert.deepEqual(themes, [
      ['(prefers-color-scheme: light)', '#f6f8fa'],
      ['(prefers-color-scheme: dark)', '#0d1117'],
    ]);
    // Every icon loads (relative to the manifest) with the size it declares.
    for (const icon of manifest.icons) {
      const size = await page.evaluate(
        (u) =>
          new Promise((resolve, reject) => {
            const img = new Image();
            img.onload = () => resolve([img.naturalWidth, img.naturalHeight]);
            img.onerror = () => reject(new Error(`icon ${u} did not load`));
            img.src = u;
          }),
        new URL(icon.src, manifestUrl).href,
      );
      if (icon.sizes !== 'any') assert.equal(`${size[0]}x${size[1]}`, icon.sizes, icon.src);
      else assert.ok(size[0] > 0, icon.src);
    }
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('the PNG icons are assets/icon.svg: every cell centre has its rect\'s colour', async () => {
  const svg = await readFile(path.join(REPO_ROOT, 'assets', 'icon.svg'), 'utf8');
  const rects = [...svg.replace(/<!--[\s\S]*?-->/g, '').matchAll(/<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="#(\w{6})"/g)]
    .map((m) => ({ x: +m[1], y: +m[2], w: +m[3], h: +m[4], rgb: [0, 2, 4].map((i) => parseInt(m[5].slice(i, i + 2), 16)) }));
  assert.equal(rects.length, 17, 'background and a 4 × 4 grid');
  for (const size of [192, 512]) {
    // Decode the PNG here (8-bit RGB, filter 0 on every row, as scripts/icons.mjs writes it).
    const png = await readFile(path.join(DIST_DIR, `icon-${size}.png`));
    assert.equal(png.readUInt32BE(16), size);
    assert.equal(png.readUInt32BE(20), size);
    const idat = [];
    for (let at = 8; at < png.length; ) {
      const len = png.readUInt32BE(at);
      if (png.toString('latin1', at + 4, at + 8) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + len));
      at += 12 + len;
    }
    const raw = inflateSync(Buffer.concat(idat));
    const pixel = (x, y) => [...raw.subarray(y * (size * 3 + 1) + 1 + x * 3, y * (size * 3 + 1) + 4 + x * 3)];
    const scale = size / 24;
    for (const r of rects.slice(1)) {
      const [cx, cy] = [Math.floor((r.x + r.w / 2) * scale), Math.floor((r.y + r.h / 2) * scale)];
      assert.deepEqual(pixel(cx, cy), r.rgb, `${size} px, rect at ${r.x},${r.y}`);
    }
    assert.deepEqual(pixel(1, 1), rects[0].rgb, 'background');
    assert.deepEqual(pixel(size - 2, size - 2), rects[0].rgb, 'background');
  }
});
