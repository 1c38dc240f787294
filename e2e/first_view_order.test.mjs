// The first view's order, its drawing first: each page's first frame with its first drawing
// (the explorer's and the practice page's heatmap, drawn; the training page's loss chart, empty
// until its first evaluation arrives from the worker) comes before the rest of the first view is
// built: what sits under the heatmap, the inputs, the inspector, the head grid arrive in the
// tasks after it, and nothing already on screen moves when they do (no layout shift, the drawing
// keeps its box).
// Checked on a desktop, a narrow window (the heatmap above the inputs) and a phone, with the CPU
// slowed four times, so the order is not a matter of speed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, twoFrames, REST_OF_FIRST_VIEW } from './harness.mjs';

const app = useApp();

const PAGES = [
  // `rest`: an element of each part of the first view built after the first drawing.
  { name: 'explorer', file: '', drawing: 'canvas.heatmap[data-ready]', rest: REST_OF_FIRST_VIEW.heatmap.rest },
  { name: 'practice page', file: 'practice.html', drawing: 'canvas.heatmap[data-ready]', rest: REST_OF_FIRST_VIEW.heatmap.rest },
  // `afterEvaluation`: parts that wait for the run's first evaluation (`evaluated`: the loss chart
  // marked drawn with it), so that the task receiving it updates only the loss chart and what sits
  // under it.
  {
    name: 'training page',
    file: 'train.html',
    drawing: 'canvas[data-testid=loss-chart]',
    rest: REST_OF_FIRST_VIEW.training.rest,
    evaluated: 'canvas[data-testid=loss-chart][data-ready]',
    afterEvaluation: ['.watch-heads .train-layers', '.watch-heads .detectors'],
  },
];
const VIEWS = [
  { width: 1280, height: 800 },
  { width: 1000, height: 1200 },
  { width: 360, height: 740 },
];

for (const { name, file, drawing, rest, evaluated: evaluatedSel, afterEvaluation = [] } of PAGES) {
  test(`${name}: the first drawing paints before the rest of the first view, which moves nothing`, { timeout: 120_000 }, async () => {
    for (const viewport of VIEWS) {
      const where = `${name}, ${viewport.width} px`;
      const { page, context, consoleLog } = await app.newPage({ viewport });
      try {
        const cdp = await context.newCDPSession(page);
        await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
        await page.addInitScript(([drawingSel, restSel, evaluatedSel]) => {
          window.__shifts = [];
          new PerformanceObserver((list) => {
            for (const e of list.getEntries()) window.__shifts.push({ value: e.value, nodes: e.sources.map((s) => `${s.node?.nodeName}.${s.node?.className || ''}`) });
          }).observe({ type: 'layout-shift', buffered: true });
          // Which frame each part of the rest arrived in: one part per frame, in page order.
          window.__frame = 0;
          const tick = () => { window.__frame += 1; requestAnimationFrame(tick); };
          requestAnimationFrame(tick);
          window.__restFrames = {};
          new MutationObserver(() => {
            for (const s of restSel) if (!(s in window.__restFrames) && document.querySelector(s)) window.__restFrames[s] = window.__frame;
            if (evaluatedSel && window.__evaluatedFrame === undefined && document.querySelector(evaluatedSel)) window.__evaluatedFrame = window.__frame;
          }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-ready'] });
          // The first frame after the drawing is there: its animation-frame callbacks run before
          // it paints, in the order they were asked for (the page's own first, which only set a
          // timeout for the rest).
          new MutationObserver((_, observer) => {
            const canvas = document.querySelector(drawingSel);
            if (!canvas) return;
            observer.disconnect();
            requestAnimationFrame(() => {
              window.__atFirstDrawing = {
                restBuilt: restSel.filter((s) => document.querySelector(s) !== null),
                box: canvas.getBoundingClientRect().toJSON(),
              };
            });
          }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-ready'] });
        }, [drawing, rest, evaluatedSel]);
        await page.goto(`${app.url}/${file}`, { waitUntil: 'load' });
        await page.locator('.site-footer').waitFor({ state: 'attached', timeout: 60_000 });
        for (const part of rest) await page.locator(part).first().waitFor({ state: 'attached' });
        const first = await page.evaluate(() => window.__atFirstDrawing);
        assert.ok(first, `${where}: the first drawing was seen`);
        assert.deepEqual(first.restBuilt, [], `${where}: the frame with the first drawing came before the rest of the first view was built`);
        const frames = await page.evaluate((sels) => sels.map((s) => window.__restFrames[s]), rest);
        for (let i = 1; i < rest.length; i++) {
          assert.ok(frames[i] > frames[i - 1], `${where}: ${rest[i]} arrived in a frame after ${rest[i - 1]}'s (frames ${frames})`);
        }
        if (afterEvaluation.length) {
          const evaluated = await page.evaluate(() => window.__evaluatedFrame);
          assert.ok(evaluated !== undefined, `${where}: the loss chart was marked drawn with the first evaluation`);
          for (const part of afterEvaluation) {
            const at = frames[rest.indexOf(part)];
            assert.ok(at > evaluated, `${where}: ${part} arrived in frame ${at}, after the first evaluation's (frame ${evaluated})`);
          }
        }
        // Two frames on, the drawing is where it was first painted, and nothing has shifted.
        await twoFrames(page);
        const now = await page.locator(drawing).first().evaluate((c) => c.getBoundingClientRect().toJSON());
        assert.deepEqual(now, first.box, `${where}: the first drawing kept its box`);
        const shifts = await page.evaluate(() => window.__shifts);
        const total = shifts.reduce((s, e) => s + e.value, 0);
        assert.equal(total, 0, `${where}: layout shift ${total}: ${JSON.stringify(shifts)}`);
        consoleLog.assertClean();
      } finally {
        await context.close();
      }
    }
  });
}

// The header is the largest paint of every page's load, and it comes first: each page requests its
// wasm only once the browser has reported that paint (scripts/csp-bootstrap.mjs), so the download
// can never end before it (Lighthouse's simulation would count it in the largest paint if it did).
// The embed view hides the header and paints nothing before the app: it starts after the first
// frame, not after a timeout. The bootstrap's 1 s fallback timer is disabled in this test, so each
// page can only start by the path it should (the paint's report, or the frame): a page that waited
// for the fallback never requests its wasm, and a busy machine cannot let the fallback win.
test('every page requests its wasm after the header has painted; the embed view after a frame', { timeout: 120_000 }, async () => {
  for (const { name, file, query, drawing } of [...PAGES, { ...PAGES[0], name: 'embed view', query: '?embed=1' }]) {
    const { page, context, consoleLog } = await app.newPage();
    try {
      await page.addInitScript(() => {
        const setTimeoutAsIs = window.setTimeout;
        window.setTimeout = (f, ms, ...args) => (ms === 1000 ? 0 : setTimeoutAsIs(f, ms, ...args));
      });
      await page.goto(`${app.url}/${file}${query ?? ''}`, { waitUntil: 'load' });
      await page.locator(drawing).first().waitFor({ state: 'attached', timeout: 60_000 });
      const t = await page.evaluate(() => ({
        wasm: performance.getEntriesByType('resource').find((r) => r.name.endsWith('.wasm'))?.startTime,
        fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
        embed: document.documentElement.classList.contains('embed-view'),
      }));
      assert.equal(typeof t.wasm, 'number', `${name}: the wasm was requested`);
      if (query) {
        // Requested at all: with the fallback disabled, only the frame can have started it.
        assert.ok(t.embed, `${name}: the page is in the embed view`);
      } else {
        assert.equal(typeof t.fcp, 'number', `${name}: the header painted`);
        assert.ok(t.wasm > t.fcp, `${name}: the wasm was requested at ${t.wasm} ms, after the header's paint at ${t.fcp} ms`);
      }
      consoleLog.assertClean();
    } finally {
      await context.close();
    }
  }
});
