// HiDPI: every chart canvas follows a live change of the device pixel ratio (a window dragged to
// a denser screen, or browser zoom) and is redrawn with a backing store of its CSS size × the new
// ratio, without a reload: on the explorer and on the training page. The ratio is changed through
// CDP, as Chromium's device emulation does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, eventually } from './harness.mjs';

const app = useApp();
const VIEWPORT = { width: 1280, height: 800 };

/** The explorer's four kinds of chart canvas: the main heatmap, the inspector's bars, the head
 *  thumbnails and step 4's lab chart. */
const CANVASES = {
  heatmap: 'canvas.heatmap',
  bars: 'canvas.bars',
  thumbnails: '.thumbs canvas',
  lab: '.lab-wrap canvas',
};

/** The training page's: the loss chart, the layer × head thumbnails and the closer look's heatmap. */
const TRAINING_CANVASES = {
  loss: '[data-testid=loss-chart]',
  thumbnails: '.train-thumbs canvas',
  closer: '.training canvas.heatmap',
};

/** Every chart canvas: its name, CSS box size, backing-store size and top-left pixel's alpha
 *  (0 on a canvas that was resized but not redrawn: resizing clears it; every chart paints an
 *  opaque background). */
function readCanvases(page, selectors) {
  return page.evaluate((selectors) => {
    const out = [];
    for (const [name, selector] of Object.entries(selectors)) {
      document.querySelectorAll(selector).forEach((c, k) => {
        const rect = c.getBoundingClientRect();
        // Read through a copy: reading the chart's own canvas again and again makes Chromium
        // warn (willReadFrequently) on the console.
        const copy = document.createElement('canvas');
        copy.width = copy.height = 1;
        const ctx = copy.getContext('2d');
        ctx.drawImage(c, 0, 0, 1, 1, 0, 0, 1, 1);
        const alpha = ctx.getImageData(0, 0, 1, 1).data[3];
        out.push({ name: `${name} ${k}`, cssW: rect.width, cssH: rect.height, w: c.width, h: c.height, alpha });
      });
    }
    return out;
  }, selectors);
}

/** Every canvas has a backing store of its CSS size × `ratio` (to the pixel) and is painted. */
async function assertBacking(page, ratio, selectors = CANVASES) {
  await eventually(async () => {
    const canvases = await readCanvases(page, selectors);
    for (const kind of Object.keys(selectors)) {
      assert.ok(canvases.some((c) => c.name.startsWith(kind)), `a ${kind} canvas is on the page`);
    }
    for (const c of canvases) {
      assert.ok(c.cssW > 0 && c.cssH > 0, `${c.name} is laid out: ${JSON.stringify(c)}`);
      assert.ok(Math.abs(c.w - c.cssW * ratio) <= 1, `${c.name} width at ×${ratio}: ${JSON.stringify(c)}`);
      assert.ok(Math.abs(c.h - c.cssH * ratio) <= 1, `${c.name} height at ×${ratio}: ${JSON.stringify(c)}`);
      assert.equal(c.alpha, 255, `${c.name} is painted after resizing at ×${ratio}`);
    }
  });
}

/** A function that changes the page's device pixel ratio as a move to another screen would. */
async function ratioSetter(context, page) {
  const cdp = await context.newCDPSession(page);
  return async (deviceScaleFactor) => {
    const metrics = (viewport) => cdp.send('Emulation.setDeviceMetricsOverride', { ...viewport, deviceScaleFactor, mobile: false });
    await metrics(VIEWPORT);
    // Under device emulation Chromium re-evaluates media queries (and so fires the
    // `(resolution: …dppx)` query's `change` that a real screen change fires) only when the
    // viewport's size changes: one pixel taller and back. The height moves no canvas (their
    // sizes follow the page's width).
    await metrics({ ...VIEWPORT, height: VIEWPORT.height + 1 });
    await metrics(VIEWPORT);
  };
}

test('every chart canvas is redrawn at the new device pixel ratio, without a reload', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage({ viewport: VIEWPORT, deviceScaleFactor: 1 });
  try {
    await app.open(page, 'heads=2');
    await page.locator('#tab-scaling').click();
    await page.locator(CANVASES.lab).waitFor({ state: 'attached' });
    const heatmap = await page.locator(CANVASES.heatmap).evaluate((c) => ({
      backing: c.width,
      css: c.getBoundingClientRect().width,
    }));
    assert.ok(Math.abs(heatmap.backing - heatmap.css) <= 1, `heatmap at ×1: ${JSON.stringify(heatmap)}`);
    await assertBacking(page, 1);
    // Marks this document: a reload would lose it.
    await page.evaluate(() => {
      window.__sameDocument = true;
    });

    const setRatio = await ratioSetter(context, page);
    await setRatio(2);
    assert.equal(await page.evaluate(() => window.devicePixelRatio), 2);
    await assertBacking(page, 2);
    await setRatio(1);
    assert.equal(await page.evaluate(() => window.devicePixelRatio), 1);
    await assertBacking(page, 1);

    assert.equal(await page.evaluate(() => window.__sameDocument), true, 'the page was not reloaded');
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test("the training page's canvases follow the device pixel ratio too, without a reload", { timeout: 90_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage({ viewport: VIEWPORT, deviceScaleFactor: 1 });
  try {
    await app.open(page, 'tseed=3&tsteps=25', { file: 'train.html' });
    await eventually(async () => assert.equal(await page.locator('[data-testid=train-steps] output').textContent(), '25'), 60_000);
    // Look closer builds its heatmap when it first comes near the screen.
    await page.getByTestId('closer-heatmap').scrollIntoViewIfNeeded();
    await assertBacking(page, 1, TRAINING_CANVASES);
    await page.evaluate(() => {
      window.__sameDocument = true;
    });
    const setRatio = await ratioSetter(context, page);
    await setRatio(3);
    assert.equal(await page.evaluate(() => window.devicePixelRatio), 3);
    await assertBacking(page, 3, TRAINING_CANVASES);
    await setRatio(1);
    await assertBacking(page, 1, TRAINING_CANVASES);
    assert.equal(await page.evaluate(() => window.__sameDocument), true, 'the page was not reloaded');
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
