// Issue 14, "Works under any path": the release build served under a sub-path, as a course site
// or a project page would host it, runs the core walk with every request under that path and a
// clean console; and dist/index.html names no `/`-rooted URL (which would leave the page blank
// anywhere but the root of a host).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DIST_DIR, startServer, launchBrowser, newPage, openApp } from './harness.mjs';
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
  assert.ok(urls.length >= 5, `stylesheet, bootstrap, glue, wasm, manifest, icons: ${urls}`);
  for (const url of urls) {
    assert.ok(!url.startsWith('/') && !/^[a-z]+:/i.test(url), `not relative to the page: ${url}`);
  }
  // The bootstrap imports the glue and fetches the wasm relative to itself.
  const bootstrap = /src="\.\/(bootstrap-[0-9a-f]+\.js)"/.exec(html);
  assert.ok(bootstrap, 'index.html loads the bootstrap by a relative URL');
  const code = await readFile(path.join(DIST_DIR, bootstrap[1]), 'utf8');
  assert.match(code, /from '\.\/attention-explorer-[0-9a-f]+\.js'/);
  assert.match(code, /module_or_path: new URL\('\.\/attention-explorer-[0-9a-f]+_bg\.wasm', import\.meta\.url\)/);
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
    for (const kind of ['.wasm', '.css', 'bootstrap-', 'icon.svg']) {
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
