// Shared helpers for the Playwright e2e suite (run with `node --test e2e/`).
//
// Typical test file:
//
//   import { test, before, after } from 'node:test';
//   import assert from 'node:assert/strict';
//   import { startServer, launchBrowser, newPage, openApp } from './harness.mjs';
//
//   let server, browser;
//   before(async () => { server = await startServer(); browser = await launchBrowser(); });
//   after(async () => { await browser?.close(); await server?.close(); });
//
//   test('loads', async () => {
//     const { page, context, consoleLog } = await newPage(browser, { viewport: { width: 1280, height: 800 } });
//     try {
//       await openApp(page, 'seq=8&head=2');
//       consoleLog.assertClean();
//     } finally { await context.close(); }
//   });
//
// Or let `useApp()` register the before/after hooks for you (see below).
//
// Environment overrides: E2E_DIST (directory to serve, default <repo>/dist),
// CHROMIUM_PATH (default /usr/bin/chromium), E2E_HEADFUL=1 (show the browser).

import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { gzipSync } from 'node:zlib';

export const E2E_DIR = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(E2E_DIR, '..');
export const DIST_DIR = path.resolve(process.env.E2E_DIST || path.join(REPO_ROOT, 'dist'));
/** Screenshots and saved downloads go here (git-ignored). */
export const ARTIFACTS_DIR = path.join(E2E_DIR, 'artifacts');
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Chromium flags: headless, no sandbox (root), no network chatter beyond 127.0.0.1. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export const MIME_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

// ---------------------------------------------------------------------------
// Static file server
// ---------------------------------------------------------------------------

let lastServerUrl = null;

/**
 * Serve `dir` (default: <repo>/dist) on 127.0.0.1.  port 0 (default) = ephemeral.
 * `prefix` (default '/') serves `dir` under that path, as a static host serves a project page:
 * with prefix '/course/attention-explorer/', dist/index.html is /course/attention-explorer/,
 * '/course/attention-explorer' redirects there, and every other path is a 404.
 * Resolves to { url, port, dir, server, close() }.  `url` (origin + prefix) has no trailing slash.
 * The most recently started server becomes the default base URL for openApp().
 * With `gzip`, text and wasm go out gzip-compressed (level 9) to clients that accept it, as a
 * real static host serves them (the benchmarks' page loads and Lighthouse need that).
 */
export async function startServer({ dir = DIST_DIR, port = 0, host = '127.0.0.1', quiet = true, prefix = '/', gzip = false } = {}) {
  const compressed = new Map();
  const root = path.resolve(dir);
  const base = `/${prefix.replace(/^\/+|\/+$/g, '')}/`.replace(/^\/\/$/, '/');
  if (!existsSync(path.join(root, 'index.html'))) {
    throw new Error(`${root}/index.html not found: build first (trunk build --release --offline)`);
  }
  const server = createServer(async (req, res) => {
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET, HEAD' }).end();
        return;
      }
      const { pathname, search } = new URL(req.url, 'http://localhost');
      if (base !== '/' && `${pathname}/` === base) {
        res.writeHead(301, { Location: `${base}${search}` }).end();
        return;
      }
      if (!pathname.startsWith(base)) {
        if (!quiet) console.error(`404 ${req.url} (outside ${base})`);
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found');
        return;
      }
      let rel = decodeURIComponent(pathname.slice(base.length - 1));
      if (rel.endsWith('/')) rel += 'index.html';
      const file = path.resolve(root, '.' + rel);
      if (file !== root && !file.startsWith(root + path.sep)) {
        res.writeHead(403).end('forbidden');
        return;
      }
      let st = await stat(file).catch(() => null);
      let target = file;
      if (st?.isDirectory()) {
        target = path.join(file, 'index.html');
        st = await stat(target).catch(() => null);
      }
      if (!st || !st.isFile()) {
        // Chromium always asks for /favicon.ico; a 404 there would show up as a
        // console error in every test, so answer "no content" instead.
        if (rel === '/favicon.ico') {
          res.writeHead(204).end();
          return;
        }
        if (!quiet) console.error(`404 ${req.url}`);
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found');
        return;
      }
      const type = MIME_TYPES[path.extname(target).toLowerCase()] || 'application/octet-stream';
      let body = await readFile(target);
      const headers = { 'Content-Type': type, 'Cache-Control': 'no-store' };
      const compressible = /^(text\/|application\/(wasm|json|manifest)|image\/svg)/.test(type);
      if (gzip && compressible && /\bgzip\b/.test(req.headers['accept-encoding'] || '')) {
        const key = `${target}:${st.mtimeMs}`;
        if (!compressed.has(key)) compressed.set(key, gzipSync(body, { level: 9 }));
        body = compressed.get(key);
        headers['Content-Encoding'] = 'gzip';
        headers.Vary = 'Accept-Encoding';
      }
      headers['Content-Length'] = body.length;
      res.writeHead(200, headers);
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (err) {
      res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end(String(err));
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const actualPort = server.address().port;
  const url = `http://${host}:${actualPort}${base.replace(/\/$/, '')}`;
  lastServerUrl = url;
  return {
    url,
    port: actualPort,
    dir: root,
    server,
    close: () =>
      new Promise((resolve) => {
        if (lastServerUrl === url) lastServerUrl = null;
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------
// Browser
// ---------------------------------------------------------------------------

/**
 * Launch Debian's Chromium through playwright-core.  Playwright gives every
 * launch a fresh temporary user-data-dir and removes it on close().
 * Returns a Playwright Browser; create pages with newPage(browser, opts).
 */
export async function launchBrowser({ args = [], headless = process.env.E2E_HEADFUL !== '1' } = {}) {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}; run scripts/setup.sh`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless,
    chromiumSandbox: false,
    args: [...CHROMIUM_ARGS.filter((a) => headless || a !== '--headless'), ...args],
    timeout: 60_000,
  });
}

/**
 * New isolated context + page.  Options: viewport {width,height} (default 1280x800),
 * deviceScaleFactor (default 1), plus any Playwright context option.
 * Downloads are always accepted.  A console collector is attached to the page.
 * Resolves to { context, page, consoleLog }; close with `await context.close()`.
 */
export async function newPage(browser, { viewport = { width: 1280, height: 800 }, deviceScaleFactor = 1, ...rest } = {}) {
  const context = await browser.newContext({
    viewport,
    deviceScaleFactor,
    acceptDownloads: true,
    ...rest,
  });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  const consoleLog = collectConsole(page);
  return { context, page, consoleLog };
}

// ---------------------------------------------------------------------------
// App navigation
// ---------------------------------------------------------------------------

export const READY_SELECTOR = 'canvas[data-ready="true"]';

/**
 * The pages paint their first drawing (the heatmap, the loss chart) alone and build the rest of
 * the first view in the tasks after it. Per kind of page: `page`, an element only that page has,
 * and `rest`, an element of each part of its first view built after the first drawing, in the
 * order they arrive (on the heatmap pages: under the heatmap, the inputs, the inspector; on the
 * training page: under the loss chart, the heads).
 */
export const REST_OF_FIRST_VIEW = {
  heatmap: { page: 'main.layout', rest: ['main.layout .downloads', 'main.layout #temperature', 'main.layout .field.model', 'main.layout #inspector-title'] },
  training: { page: '.watch-heads', rest: ['[data-testid=knockout]', '.watch-heads .train-layers', '.watch-heads .detectors'] },
};

/**
 * Build the app URL.  `query` may be 'a=1&b=2', '?a=1', or an object/URLSearchParams; `file` is
 * the page ('' for the explorer, 'practice.html' for the practice page).
 */
export function appUrl(query = '', baseUrl = lastServerUrl, file = '') {
  if (!baseUrl) throw new Error('no server running: call startServer() first or pass baseUrl');
  let qs;
  if (typeof query === 'string') qs = query.replace(/^\?/, '');
  else qs = new URLSearchParams(query).toString();
  return `${baseUrl}/${file}${qs ? `?${qs}` : ''}`;
}

/**
 * Navigate to the app (on the last started server unless opts.baseUrl) and wait
 * until the main heatmap canvas reports data-ready="true" (set after first draw).
 */
export async function openApp(page, query = '', { baseUrl = lastServerUrl, timeout = 30_000, file = '' } = {}) {
  const url = appUrl(query, baseUrl, file);
  const response = await page.goto(url, { waitUntil: 'load', timeout });
  if (!response || !response.ok()) {
    throw new Error(`GET ${url} -> ${response ? response.status() : 'no response'}`);
  }
  await waitForReady(page, { timeout });
  return response;
}

/** The link's `tsteps` (the training page writes its step count there once a run settles). */
export const linkSteps = (page) => Number(new URL(page.url()).searchParams.get('tsteps') ?? 0);

/** From the next page load on, sums the page's layout shifts into `window.__shifts`; read the sum
 *  with `layoutShift(page)`. */
export const recordLayoutShifts = (page) =>
  page.addInitScript(() => {
    window.__shifts = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__shifts += e.value;
    }).observe({ type: 'layout-shift', buffered: true });
  });

/** The layout shifts summed since the page loaded (`recordLayoutShifts`). */
export const layoutShift = (page) => page.evaluate(() => window.__shifts);

/** Resolves two frames on: whatever the page did in the current task has been laid out and painted. */
export const twoFrames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/**
 * Wait for the heatmap canvas to be (re)drawn and marked ready, and the whole page built: the rest
 * of the first view (REST_OF_FIRST_VIEW) and every part below it, which arrive one per frame after
 * the first paint (`<html data-building>` until the last has).
 */
export async function waitForReady(page, { timeout = 30_000 } = {}) {
  await page.waitForSelector(READY_SELECTOR, { state: 'attached', timeout });
  await page.waitForFunction(
    (kinds) =>
      !document.documentElement.hasAttribute('data-building') &&
      kinds.every(({ page, rest }) => !document.querySelector(page) || rest.every((r) => document.querySelector(r))),
    Object.values(REST_OF_FIRST_VIEW),
    { timeout },
  );
}

// ---------------------------------------------------------------------------
// Console / page error collection
// ---------------------------------------------------------------------------

/**
 * Record console errors and warnings, uncaught page errors and crashes.
 * Returns { errors, warnings, pageErrors, all(), clear(), assertClean({ allowWarnings, ignore }) }.
 * `ignore` is a list of RegExp/strings matched against message text.
 */
export function collectConsole(page) {
  const log = {
    errors: [],
    warnings: [],
    pageErrors: [],
    all() {
      return [
        ...this.pageErrors.map((t) => `pageerror: ${t}`),
        ...this.errors.map((t) => `console.error: ${t}`),
        ...this.warnings.map((t) => `console.warning: ${t}`),
      ];
    },
    clear() {
      this.errors.length = 0;
      this.warnings.length = 0;
      this.pageErrors.length = 0;
    },
    assertClean({ allowWarnings = false, ignore = [] } = {}) {
      const ignored = (t) => ignore.some((p) => (p instanceof RegExp ? p.test(t) : t.includes(p)));
      const bad = [
        ...this.pageErrors.map((t) => `pageerror: ${t}`),
        ...this.errors.map((t) => `console.error: ${t}`),
        ...(allowWarnings ? [] : this.warnings.map((t) => `console.warning: ${t}`)),
      ].filter((t) => !ignored(t));
      if (bad.length) {
        throw new Error(`unexpected browser console output:\n  ${bad.join('\n  ')}`);
      }
    },
  };
  page.on('console', (msg) => {
    const type = msg.type();
    if (type !== 'error' && type !== 'warning') return;
    const loc = msg.location();
    const where = loc?.url ? ` (${loc.url}:${loc.lineNumber})` : '';
    (type === 'error' ? log.errors : log.warnings).push(`${msg.text()}${where}`);
  });
  page.on('pageerror', (err) => log.pageErrors.push(err?.stack || String(err)));
  page.on('crash', () => log.pageErrors.push('page crashed'));
  return log;
}

// ---------------------------------------------------------------------------
// Downloads, screenshots
// ---------------------------------------------------------------------------

/**
 * Run `trigger()` (e.g. () => page.click('#export-json')) and capture the download
 * it starts.  The file is saved to e2e/artifacts/<suggestedFilename> (or saveAs).
 * Resolves to { download, suggestedFilename, path, text }.
 */
/**
 * The temperature slider, scrolled into view: its box, value range, the thumb's current fraction
 * of the track, and `xAt(f)`, the page x of the thumb centre at fraction `f` (Chromium's range
 * thumb is ≈ 16 px wide, so its centre travels 8 px in from each end).
 */
export async function sliderGeometry(page) {
  const slider = page.locator('#temperature');
  await slider.scrollIntoViewIfNeeded();
  const box = await slider.boundingBox();
  const { value, min, max } = await slider.evaluate((el) => ({
    value: Number(el.value),
    min: Number(el.min),
    max: Number(el.max),
  }));
  const THUMB = 16;
  return {
    slider,
    box,
    value,
    min,
    max,
    fraction: (value - min) / (max - min),
    xAt: (f) => box.x + THUMB / 2 + f * (box.width - THUMB),
    y: box.y + box.height / 2,
  };
}

/** Dismisses every dialog (alert/confirm/prompt) the page opens and records its message: a test
 *  asserts the list stays empty (hostile input must never reach an `alert`). */
export function collectDialogs(page) {
  const dialogs = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss().catch(() => {});
  });
  return dialogs;
}

/** Runs `trigger` and waits for the download it starts to complete; a failed download throws,
 *  named by `what`. */
async function completedDownload(page, trigger, { timeout = 30_000, what = 'download' } = {}) {
  const [download] = await Promise.all([page.waitForEvent('download', { timeout }), trigger()]);
  const failure = await download.failure();
  if (failure) throw new Error(`${what} failed: ${failure}`);
  return download;
}

export async function saveDownload(page, trigger, { saveAs, timeout = 30_000 } = {}) {
  const download = await completedDownload(page, trigger, { timeout });
  const suggestedFilename = download.suggestedFilename();
  const dest = saveAs || path.join(ARTIFACTS_DIR, suggestedFilename);
  await mkdir(path.dirname(dest), { recursive: true });
  await download.saveAs(dest);
  const text = await readFile(dest, 'utf8');
  return { download, suggestedFilename, path: dest, text };
}

/** Read a completed download's text without saving it anywhere permanent. */
export async function downloadText(download) {
  const p = await download.path();
  return readFile(p, 'utf8');
}

/**
 * Clicks the button named exactly `name` and returns the completed download and its suggested
 * file name; a failed download throws. `within`: the frame or element that holds the button (an
 * embed's iframe); the download event is the page's.
 */
export async function clickDownload(page, name, { within = page } = {}) {
  const click = () => within.getByRole('button', { name, exact: true }).click();
  const download = await completedDownload(page, click, { what: `download "${name}"` });
  return { download, name: download.suggestedFilename() };
}

/** The view's JSON download ("Download JSON" of the explorer, the practice page or the compact
 *  view) as text, checked to be `attention.json`: for byte-exact comparisons. */
export async function downloadJsonText(page, options) {
  const { download, name } = await clickDownload(page, 'Download JSON', options);
  if (name !== 'attention.json') throw new Error(`the JSON download is named ${name}, not attention.json`);
  return downloadText(download);
}

/** The view's JSON download, parsed (see `downloadJsonText`). */
export async function downloadJson(page, options) {
  return JSON.parse(await downloadJsonText(page, options));
}

/**
 * On the practice page, answer the open question (any answer) and press Check, so that the
 * numbers it hides (the heatmap's, the row table's, Compare A and B) are shown.
 */
export async function revealAnswer(page) {
  await page.locator('#quiz fieldset').waitFor();
  const radio = page.locator('#quiz input[type=radio]').first();
  if (await radio.count()) await radio.check();
  else await page.getByLabel('Your answer', { exact: true }).fill('0.5');
  await page.getByRole('button', { name: 'Check' }).click();
  await page.locator('[data-testid=quiz-number]:not(:empty)').waitFor();
}

/** Save a full-page screenshot to e2e/artifacts/<name>.png and return its path. */
export async function screenshot(page, name, opts = {}) {
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name.replace(/[^\w.-]+/g, '_')}.png`);
  await page.screenshot({ path: file, fullPage: true, ...opts });
  return file;
}

/** Write any text artifact (e.g. a JSON dump) to e2e/artifacts/<name>. */
export async function writeArtifact(name, text) {
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, name);
  await writeFile(file, text);
  return file;
}

// ---------------------------------------------------------------------------
// One-call suite setup
// ---------------------------------------------------------------------------

/**
 * Register before/after hooks that start one server and one browser for the
 * current test file.  Returns a handle whose fields are filled in by `before`:
 *   const app = useApp();
 *   test('x', async () => {
 *     const { page, context, consoleLog } = await app.newPage({ deviceScaleFactor: 2 });
 *     try { await app.open(page, 'seq=4'); ... } finally { await context.close(); }
 *   });
 */
export function useApp(serverOpts = {}, browserOpts = {}) {
  const handle = {
    server: null,
    browser: null,
    get url() {
      return handle.server?.url;
    },
    newPage: (opts) => newPage(handle.browser, opts),
    open: (page, query = '', opts = {}) => openApp(page, query, { baseUrl: handle.server.url, ...opts }),
  };
  before(async () => {
    handle.server = await startServer(serverOpts);
    handle.browser = await launchBrowser(browserOpts);
  });
  after(async () => {
    await handle.browser?.close().catch(() => {});
    await handle.server?.close();
  });
  return handle;
}

/** A whole number as the page writes it, thousands grouped ("1,500"). */
export const grouped = (n) => n.toLocaleString('en-US');

/** A count as the page writes it ("1,500"), as a number. */
export const readCount = async (locator) => Number((await locator.textContent()).replaceAll(',', ''));

/** The training page's step counter. */
export const trainedSteps = async (page) => readCount(page.locator('[data-testid=train-steps] output'));

/** Opens the training page at `url` (a link with `tsteps=steps`) and waits until it has retrained to
 * `steps` and paused. */
export async function openRetrained(page, url, steps, timeout = 180_000) {
  await page.goto(url, { waitUntil: 'load' });
  await eventually(async () => {
    assert.equal(await trainedSteps(page), steps);
    assert.equal(await page.getByTestId('train-toggle').textContent(), 'Train');
  }, timeout);
}

/** Retry `check` (which throws on failure) until it passes or `timeout` ms pass. */
export async function eventually(check, timeout = 5_000) {
  const end = Date.now() + timeout;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/** Runs e2e/check_train_json.py on a training page's download (NumPy recomputes it to 1e-9);
 *  its output, or an error with what it printed. */
export async function checkTrainJson(file) {
  try {
    const { stdout } = await promisify(execFile)('python3', [path.join(E2E_DIR, 'check_train_json.py'), file], { timeout: 60_000 });
    return stdout;
  } catch (err) {
    throw new Error(`check_train_json.py failed on ${file} (exit ${err.code}):\n${err.stdout ?? ''}${err.stderr ?? ''}`);
  }
}
