// Training in Web Workers (docs/training.md, "Training in Web Workers"): a run trained in a worker
// gives the same JSON download, bit for bit, as the same link trained on the page's main thread
// (`workers=0`, the fallback where workers are unavailable); while it trains, the page has a worker
// and its main thread trains nothing (the "train:main-thread" work count, which the fallback engine
// counts, stays 0: a count, not a timing, so it holds on a busy machine; the main thread's longest
// task is a speed goal, measured by benches/train_page.mjs and only logged here); the workers are
// given the page's compiled wasm module, so it is downloaded once; a worker that fails to load
// leaves the run to the main thread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, twoFrames, eventually, saveDownload, openRetrained, readCount, trainedSteps as steps } from './harness.mjs';

const app = useApp();
const STEPS = 600;

/** Long tasks (≥ 50 ms) on the main thread, from the page's start. */
async function observeLongTasks(page) {
  await page.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
}

/** How many steps past STEPS the runs train while the main thread is watched. */
const WATCHED_STEPS = 150;

/**
 * The longest main-thread task (logged, not asserted) and the main thread's own training work
 * (the "train:main-thread" count) while the page's runs train on from a paused STEPS: the window
 * opens once the page has built every part (the footer, its last) and Train's own re-render has
 * painted (two frames after the button reads Pause), and it closes once every counter in
 * `counters` has passed STEPS + WATCHED_STEPS, before Pause. The window holds training alone,
 * whatever the machine's speed.
 */
async function longestTaskWhileTraining(page, counters) {
  await page.locator('.site-footer').waitFor({ state: 'attached', timeout: 60_000 });
  await twoFrames(page);
  const toggle = page.getByTestId('train-toggle');
  await toggle.click();
  await eventually(async () => assert.equal(await toggle.textContent(), 'Pause'), 30_000);
  await twoFrames(page);
  const from = await page.evaluate(() => {
    if (window.__aeWork) delete window.__aeWork['train:main-thread'];
    return performance.now();
  });
  await eventually(async () => {
    for (const counter of counters) assert.ok((await readCount(counter)) >= STEPS + WATCHED_STEPS);
  }, 120_000);
  const [to, mainThreadWork] = await page.evaluate(() => [performance.now(), window.__aeWork?.['train:main-thread'] ?? 0]);
  await toggle.click();
  await eventually(async () => assert.equal(await toggle.textContent(), 'Train'), 30_000);
  const longest = await page.evaluate(
    ([from, to]) => window.__longTasks.filter((t) => t.start >= from && t.start < to).reduce((m, t) => Math.max(m, t.duration), 0),
    [from, to],
  );
  return { longest, mainThreadWork };
}

/** Opens `query` on the training page, waits until it has retrained to STEPS and paused. */
async function retrain(page, query) {
  await openRetrained(page, `${app.url}/train.html?${query}`, STEPS);
  return (await saveDownload(page, () => page.getByTestId('download-model').click())).text;
}

test('a run trained in a Web Worker downloads the same JSON, bit for bit, as one trained on the main thread', { timeout: 420_000 }, async () => {
  const query = `tseed=2&tsteps=${STEPS}`;
  const inWorker = await app.newPage();
  let workerJson;
  try {
    await observeLongTasks(inWorker.page);
    const started = Date.now();
    const json = retrain(inWorker.page, query);
    // While it trains, the page has a worker.
    await eventually(async () => {
      assert.ok(inWorker.page.workers().length >= 1, 'a training worker');
      assert.equal(await inWorker.page.getByTestId('training').getAttribute('data-engine'), 'worker');
      assert.ok((await steps(inWorker.page)) > 0);
    }, 60_000);
    workerJson = await json;
    const seconds = (Date.now() - started) / 1000;
    const longest = await inWorker.page.evaluate(() => window.__longTasks.reduce((m, t) => Math.max(m, t.duration), 0));
    // The page's own start (loading the wasm, building the page) is not training: the window
    // opens on the paused, built page, and Train starts the run inside it.
    const whileTraining = await longestTaskWhileTraining(inWorker.page, [inWorker.page.locator('[data-testid=train-steps] output')]);
    console.log(`worker: ${STEPS} steps in ${seconds.toFixed(1)} s; longest main-thread task ${longest.toFixed(0)} ms, ${whileTraining.longest.toFixed(0)} ms while training`);
    assert.equal(whileTraining.mainThreadWork, 0, 'the main thread trained while the worker did');
    inWorker.consoleLog.assertClean();
  } finally {
    await inWorker.context.close();
  }
  const onPage = await app.newPage();
  try {
    const started = Date.now();
    const json = await retrain(onPage.page, `${query}&workers=0`);
    console.log(`main thread: ${STEPS} steps in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    assert.equal(onPage.page.workers().length, 0, 'workers=0 trains without a worker');
    assert.equal(await onPage.page.getByTestId('training').getAttribute('data-engine'), 'page');
    const a = JSON.parse(workerJson);
    const b = JSON.parse(json);
    assert.equal(a.step, STEPS);
    assert.equal(json, workerJson, 'the same download, bit for bit');
    onPage.consoleLog.assertClean();
  } finally {
    await onPage.context.close();
  }
});

test('run A and run B train at once, each in its own worker, and the main thread trains neither', { timeout: 300_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage();
  // The page and its workers' requests (Playwright reports a dedicated worker's on its page).
  const wasmRequests = [];
  page.on('request', (r) => new URL(r.url()).pathname.endsWith('.wasm') && wasmRequests.push(r.url()));
  try {
    await observeLongTasks(page);
    const done = openRetrained(page, `${app.url}/train.html?tseed=2&tsteps=${STEPS}&b=mistake%3Ano-mask`, STEPS);
    const bCounter = page.locator('[data-testid=run-b-steps] output');
    await eventually(async () => assert.ok(page.workers().length >= 2, `${page.workers().length} worker(s)`), 60_000);
    await done;
    assert.equal(await readCount(bCounter), STEPS);
    const whileTraining = await longestTaskWhileTraining(page, [page.locator('[data-testid=train-steps] output'), bCounter]);
    console.log(`A and B: longest main-thread task while both trained ${whileTraining.longest.toFixed(0)} ms`);
    // The workers run the page's compiled module: the wasm is downloaded (and compiled) once.
    assert.equal(wasmRequests.length, 1, `wasm requests: ${wasmRequests}`);
    assert.equal(whileTraining.mainThreadWork, 0, 'the main thread trained while the workers did');
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

const LOSS_CHART_DRAWN = 'canvas[data-testid=loss-chart][data-ready]';

test('where the worker fails to load, the page trains the run on its main thread', { timeout: 120_000 }, async () => {
  const { page, context } = await app.newPage();
  try {
    // The worker script throws: its error event leaves the run to the page's main thread.
    await page.route('**/train-worker.js*', (route) =>
      route.fulfill({ contentType: 'text/javascript', body: 'throw new Error("no worker here");' }));
    await page.goto(`${app.url}/train.html`);
    await page.locator(LOSS_CHART_DRAWN).waitFor({ timeout: 60_000 });
    await eventually(async () => assert.equal(await page.getByTestId('training').getAttribute('data-engine'), 'page'), 30_000);
    await page.getByTestId('train-step').click();
    await eventually(async () => assert.equal(await steps(page), 1), 30_000);
  } finally {
    await context.close();
  }
});
