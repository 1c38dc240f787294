// "Offline after the first visit": the service worker (sw.js, written by
// scripts/service-worker.mjs) is registered only after the first heatmap is drawn, serves the
// whole app from its cache with the network gone, and a newly deployed build shows the update
// notice, whose Reload hands the page to the new worker.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DIST_DIR, startServer, launchBrowser, newPage, openApp, waitForReady, eventually, trainedSteps, twoFrames } from './harness.mjs';
import { coreWalk } from './core_walk.mjs';
import { writeServiceWorker } from '../scripts/service-worker.mjs';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** Records, at each service worker registration, whether the heatmap had been drawn by then. */
const RECORD_REGISTRATIONS = () => {
  window.__swRegistrations = [];
  const register = ServiceWorkerContainer.prototype.register;
  ServiceWorkerContainer.prototype.register = function (url, options) {
    window.__swRegistrations.push({ url: String(url), heatmapDrawn: !!document.querySelector('canvas[data-ready="true"]') });
    return register.call(this, url, options);
  };
};

/** Waits until a service worker controls the page (sw.js claims the page once activated). */
async function waitForController(page) {
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
  return page.evaluate(() => navigator.serviceWorker.controller.scriptURL);
}

/** This deployment's caches (named attention-explorer:<scope>:<version> by sw.js). */
const cacheNames = (page) => page.evaluate(() => caches.keys());

async function tempCopyOfDist() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ae-offline-'));
  await cp(DIST_DIR, dir, { recursive: true });
  return dir;
}

test('after one visit the app works offline: heatmap, slider, inspector, lesson', { timeout: 120_000 }, async () => {
  const dir = await tempCopyOfDist();
  let server = await startServer({ dir, prefix: '/offline/' });
  const { context, page, consoleLog } = await newPage(browser);
  try {
    await context.addInitScript(RECORD_REGISTRATIONS);
    await openApp(page, '', { baseUrl: server.url });
    const scriptUrl = await waitForController(page);
    assert.equal(scriptUrl, `${server.url}/sw.js`);
    // One registration, of ./sw.js, made after the first heatmap was drawn.
    assert.deepEqual(await page.evaluate(() => window.__swRegistrations), [{ url: './sw.js', heatmapDrawn: true }]);
    // Everything the build holds is precached.
    const [cache] = await cacheNames(page);
    const cached = await page.evaluate((name) => caches.open(name).then((c) => c.keys()).then((rs) => rs.map((r) => r.url)), cache);
    for (const kind of ['index.html', '_bg.wasm', 'bootstrap-', 'manifest.webmanifest', 'icon-192.png']) {
      assert.ok(cached.some((u) => u.includes(kind)), `${kind} is cached: ${cached}`);
    }

    // The network goes: the browser is offline and the server is gone.
    await context.setOffline(true);
    await server.close();
    server = null;
    const response = await page.reload({ waitUntil: 'load' });
    assert.ok(response.fromServiceWorker(), 'the page came from the service worker');
    await waitForReady(page);
    await coreWalk(page);
    // The same view by a link with parameters, offline (the navigation falls back to index.html).
    await page.goto(`${scriptUrl.replace(/sw\.js$/, '')}?tau=100&row=2`);
    await waitForReady(page);
    assert.equal(await page.getByTestId('tau').first().textContent(), '100.0');
    // The practice page (its own wasm) was precached with the explorer and opens offline too.
    const practice = await page.goto(`${scriptUrl.replace(/sw\.js$/, '')}practice.html?tau=100`);
    assert.ok(practice.fromServiceWorker(), 'the practice page came from the service worker');
    await waitForReady(page);
    assert.equal(await page.getByTestId('tau').first().textContent(), '100.0');
    assert.ok(await page.locator('#quiz').isVisible(), 'the quiz is on the practice page');
    // So was the training page.
    const train = await page.goto(`${scriptUrl.replace(/sw\.js$/, '')}train.html?tseed=2`);
    assert.ok(train.fromServiceWorker(), 'the training page came from the service worker');
    await waitForReady(page);
    assert.equal(await page.locator('#train-seed').inputValue(), '2');
    // It trains offline in its Web Worker, not on the main thread: the cached worker script
    // still reads the glue and wasm its URL names (a cached response's own URL would drop that
    // query, the worker would fail to load, and the page would train the run itself).
    await page.getByTestId('train-toggle').click();
    await eventually(async () => assert.ok((await trainedSteps(page)) >= 50), 60_000);
    assert.equal(await page.getByTestId('training').getAttribute('data-engine'), 'worker');
    assert.equal(page.workers().length, 1, "the run's worker");
    await page.getByTestId('train-toggle').click();
    consoleLog.assertClean();
  } finally {
    await context.close();
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a new deployment shows the update notice; Reload gives the page to the new worker', { timeout: 120_000 }, async () => {
  const dir = await tempCopyOfDist();
  const server = await startServer({ dir });
  const { context, page, consoleLog } = await newPage(browser);
  try {
    await openApp(page, '', { baseUrl: server.url });
    await waitForController(page);
    const oldCaches = await cacheNames(page);
    assert.equal(oldCaches.length, 1);
    const notice = page.getByRole('status').filter({ hasText: 'new version' });
    assert.equal(await notice.count(), 0, 'no notice while nothing new is deployed');

    // Deploy a changed build into the served directory: a changed index.html and its sw.js.
    const indexPath = path.join(dir, 'index.html');
    const html = await readFile(indexPath, 'utf8');
    await writeFile(indexPath, html.replace('<title>', '<meta name="build" content="second" />\n    <title>'));
    writeServiceWorker(dir);
    await page.evaluate(() => navigator.serviceWorker.getRegistration().then((r) => r.update()));

    await notice.waitFor({ timeout: 30_000 });
    assert.equal((await notice.locator('p').textContent()).trim(), 'A new version of Attention Explorer is available.');
    // The old build still runs until the reader chooses to reload, even across a plain reload
    // (the old worker serves its own index.html), and the notice comes back.
    assert.equal(await page.locator('meta[name=build]').count(), 0);
    await page.reload();
    await waitForReady(page);
    assert.equal(await page.locator('meta[name=build]').count(), 0, 'a plain reload keeps the old build');
    await notice.waitFor({ timeout: 30_000 });
    await Promise.all([page.waitForEvent('load', { timeout: 30_000 }), notice.getByRole('button', { name: 'Reload' }).click()]);
    await waitForReady(page);
    await waitForController(page);
    assert.equal(await page.locator('meta[name=build]').getAttribute('content'), 'second');
    assert.equal(await page.getByRole('status').filter({ hasText: 'new version' }).count(), 0);
    // The new worker controls the page and the old cache is gone.
    const state = await page.evaluate(async () => {
      const r = await navigator.serviceWorker.getRegistration();
      return { active: r.active === null ? null : r.active.state, waiting: r.waiting, controlled: !!navigator.serviceWorker.controller };
    });
    assert.deepEqual(state, { active: 'activated', waiting: null, controlled: true });
    const newCaches = await cacheNames(page);
    assert.equal(newCaches.length, 1, `one cache left: ${newCaches}`);
    assert.notEqual(newCaches[0], oldCaches[0]);
    const sw = await readFile(path.join(dir, 'sw.js'), 'utf8');
    assert.ok(sw.includes(`'${newCaches[0].split(':').pop()}'`), 'the cache is the new sw.js version');
    consoleLog.assertClean();
  } finally {
    await context.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('without service workers the app runs as before and registers nothing', { timeout: 60_000 }, async () => {
  const server = await startServer();
  const { context, page, consoleLog } = await newPage(browser);
  try {
    await context.addInitScript(() => {
      delete Navigator.prototype.serviceWorker;
    });
    await openApp(page, '', { baseUrl: server.url });
    assert.equal(await page.evaluate(() => 'serviceWorker' in navigator), false);
    // Registration is tried in the first frame after the heatmap is drawn: two frames on, it has been.
    await twoFrames(page);
    await coreWalk(page);
    consoleLog.assertClean();
  } finally {
    await context.close();
    await server.close();
  }
});
