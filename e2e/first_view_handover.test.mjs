// The first view's hand-over: the first view written into index.html and practice.html
// (src/first_view/), the default view's heading and heatmap, paints before the WebAssembly has
// loaded, and the app takes over without anything moving or changing; train.html's controls
// likewise (they cannot be used until then). With the wasm blocked, the first view is what the
// page shows; loaded, the app's elements sit in exactly the same boxes, read the same words, and
// the canvas has the first view's colours in every cell, on a phone, a narrow and a wide window,
// in light and dark and at two pixel ratios. The first view's picture lies over the canvas until
// the canvas is drawn, then goes; and a link with a query never shows it (it would be another
// view's picture).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, recordLayoutShifts, layoutShift } from './harness.mjs';

const app = useApp();

const VIEWS = [
  { width: 360, height: 740, deviceScaleFactor: 2, colorScheme: 'light' },
  { width: 640, height: 900, deviceScaleFactor: 1, colorScheme: 'dark' },
  { width: 1280, height: 800, deviceScaleFactor: 1, colorScheme: 'light' },
  { width: 1280, height: 800, deviceScaleFactor: 1.5, colorScheme: 'dark' },
];

// The elements above the heatmap on each page, in the first view and in the app's first task.
const PAGES = [
  { name: 'explorer', file: '', parts: ['.main-view h2', '.main-view > .note', 'details.glossary', '.main-view > .hint'] },
  { name: 'practice page', file: 'practice.html', parts: ['nav.page-nav a', '.main-view h2', '.main-view > .note', 'details.glossary'] },
];

/** What `read(page)` finds on `view` (one of VIEWS) opened at `file` with the wasm blocked: the
 * first view alone. The page is closed afterwards. */
async function readFirstView({ width, height, deviceScaleFactor, colorScheme }, file, read) {
  const { page, context } = await app.newPage({ viewport: { width, height }, deviceScaleFactor, colorScheme });
  try {
    await page.route('**/*.wasm', (route) => route.abort());
    await page.goto(`${app.url}/${file}`, { waitUntil: 'load' });
    return await read(page);
  } finally {
    await context.close();
  }
}

/** A page of `view` for the app, its layout shifts summed from its start (`recordLayoutShifts`). */
async function appPage({ width, height, deviceScaleFactor, colorScheme }) {
  const opened = await app.newPage({ viewport: { width, height }, deviceScaleFactor, colorScheme });
  await recordLayoutShifts(opened.page);
  return opened;
}

/** The boxes and words of `parts`, and the heatmap's box. */
function readView([partSels, heatmapSel]) {
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return [r.x, r.y, r.width, r.height].map((v) => Math.round(v * 100) / 100);
  };
  const parts = partSels.map((s) => {
    const el = document.querySelector(s);
    return { s, box: box(el), text: el.textContent };
  });
  return { parts, heatmap: box(document.querySelector(heatmapSel)) };
}

for (const { name, file, parts } of PAGES) test(`${name}: the first view written into the page is the app's first view, in the same place and colours`, { timeout: 120_000 }, async () => {
  for (const view of VIEWS) {
    const { width, height, deviceScaleFactor, colorScheme } = view;
    const where = `${name}, ${width} px, ${colorScheme}, ×${deviceScaleFactor}`;
    // The first view alone: the wasm never arrives.
    const firstView = await readFirstView(view, file, async (page) => ({
      ...(await page.evaluate(readView, [parts, '.static-heatmap'])),
      // Each cell's colour as CSS paints it, and the row labels.
      cells: await page.evaluate(() =>
        [...document.querySelectorAll('.static-heatmap .cells i')].map((c) => getComputedStyle(c).backgroundColor)),
      labels: await page.locator('.static-heatmap .rows').textContent(),
    }));
    // The app, drawn.
    const { page, context, consoleLog } = await appPage(view);
    try {
      await page.addInitScript(() => {
        // When the app's canvas first exists, the first view has gone and its picture lies over
        // the canvas; when the canvas is drawn, the picture has gone.
        new MutationObserver((_, observer) => {
          const canvas = document.querySelector('canvas.heatmap');
          if (!canvas) return;
          if (!window.__atMount) {
            window.__atMount = {
              firstViewGone: document.getElementById('first-view') === null,
              overCanvas: canvas.parentElement.querySelector(':scope > .static-heatmap') !== null,
            };
          }
          if (canvas.hasAttribute('data-ready')) {
            window.__atDrawn = { pictures: document.querySelectorAll('.static-heatmap').length };
            observer.disconnect();
          }
        }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-ready'] });
      });
      await app.open(page, '', { file });
      const drawn = await page.evaluate(readView, [parts, 'canvas.heatmap']);
      for (let k = 0; k < firstView.parts.length; k++) {
        const [a, b] = [firstView.parts[k], drawn.parts[k]];
        assert.equal(b.text, a.text, `${where}: ${a.s} reads the same`);
        assert.deepEqual(b.box, a.box, `${where}: ${a.s} keeps its box`);
      }
      assert.deepEqual(drawn.heatmap, firstView.heatmap, `${where}: the canvas has the picture's box`);
      assert.deepEqual(await page.evaluate(() => window.__atMount), { firstViewGone: true, overCanvas: true }, `${where}: hand-over`);
      assert.deepEqual(await page.evaluate(() => window.__atDrawn), { pictures: 0 }, `${where}: the picture gives way to the drawn canvas`);
      assert.equal(await layoutShift(page), 0, `${where}: no layout shift`);
      // The canvas's pixel near each cell's top-left corner (clear of the number in its centre)
      // has the picture's colour.
      const canvasCells = await page.evaluate((dpr) => {
        const canvas = document.querySelector('canvas.heatmap');
        const ctx = canvas.getContext('2d');
        const style = getComputedStyle(document.querySelector('.heatmap-box'));
        const pct = (v) => parseFloat(style.getPropertyValue(v)) / 100;
        const w = canvas.width, h = canvas.height;
        const [left, top, cw, ch] = [pct('--grid-left') * w, pct('--grid-top') * h, pct('--cell-w') * w, pct('--cell-h') * h];
        // One read of the whole canvas (many small reads make Chromium warn).
        const pixels = ctx.getImageData(0, 0, w, h).data;
        const out = [];
        for (let i = 0; i < 7; i++) for (let j = 0; j < 7; j++) {
          const at = 4 * (Math.floor(top + i * ch + 3 * dpr) * w + Math.floor(left + j * cw + 3 * dpr));
          out.push(`rgb(${pixels[at]}, ${pixels[at + 1]}, ${pixels[at + 2]})`);
        }
        return out;
      }, deviceScaleFactor);
      assert.equal(firstView.cells.length, 49, `${where}: 7 × 7 cells written`);
      assert.deepEqual(canvasCells, firstView.cells, `${where}: every cell has the canvas's colour`);
      assert.equal(firstView.labels, 'Thecatsatonthemat.', `${where}: the row labels`);
      consoleLog.assertClean();
    } finally {
      await context.close();
    }
  }
});

test('a link with a query never shows the first view', { timeout: 60_000 }, async () => {
  for (const query of ['?tau=2', '?embed=1', '?s=A+dog+ran', 'practice.html?seed=2', 'train.html?tseed=2']) {
    const { page, context } = await app.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await page.route('**/*.wasm', (route) => route.abort());
      await page.goto(`${app.url}/${query}`, { waitUntil: 'load' });
      const shown = await page.evaluate(() => document.getElementById('first-view').getClientRects().length);
      assert.equal(shown, 0, `${query}: the first view is not rendered`);
    } finally {
      await context.close();
    }
  }
  // Loaded, such a link's page has no first-view picture left anywhere.
  const { page, context } = await app.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await app.open(page, 'tau=2');
    assert.equal(await page.locator('#first-view, .static-heatmap').count(), 0);
  } finally {
    await context.close();
  }
});

// The training page's first view, its controls: what `app::TrainApp`'s first task builds above the loss chart.
const TRAINING_PARTS = [
  'nav.page-nav a', '.training > h2', 'fieldset.model legend', 'fieldset.model .row', 'fieldset.model select',
  'fieldset.model input', 'fieldset.model .hint', 'fieldset.model button', 'fieldset.model > p', 'details.how-it-works',
  '.training > p:nth-of-type(1)', '.training > p:nth-of-type(2)',
];

/** Every element of each of `sels`: its box and words; and each menu's chosen option and the seed. */
function readControls(sels) {
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return [r.x, r.y, r.width, r.height].map((v) => Math.round(v * 100) / 100);
  };
  return {
    parts: sels.flatMap((s) => [...document.querySelectorAll(s)].map((el, i) => ({ s: `${s} #${i + 1}`, box: box(el), text: el.textContent }))),
    counts: sels.map((s) => document.querySelectorAll(s).length),
    chosen: [...document.querySelectorAll('fieldset.model select')].map((m) => m.selectedOptions[0].textContent),
    seed: document.querySelector('fieldset.model input').value,
  };
}

test("training page: the first view's controls are the app's first controls, in the same place, and inert until then", { timeout: 120_000 }, async () => {
  for (const view of VIEWS) {
    const { width, height, deviceScaleFactor, colorScheme } = view;
    const where = `training page, ${width} px, ${colorScheme}, ×${deviceScaleFactor}`;
    const firstView = await readFirstView(view, 'train.html', async (page) => {
      const controls = await page.evaluate(readControls, TRAINING_PARTS);
      // A picture of the controls: the keyboard does not reach them, a click does nothing.
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement.closest('#first-view')), null, `${where}: nothing in the first view takes focus`);
      await page.locator('#first-view button').first().click({ force: true });
      assert.equal(await page.evaluate(() => document.activeElement.closest('#first-view')), null, `${where}: a click does nothing`);
      return controls;
    });
    const { page, context, consoleLog } = await appPage(view);
    try {
      await page.addInitScript(() => {
        new MutationObserver((_, observer) => {
          if (!document.querySelector('[data-testid=training]')) return;
          window.__atMount = { firstViewGone: document.getElementById('first-view') === null };
          observer.disconnect();
        }).observe(document, { subtree: true, childList: true });
      });
      await page.goto(`${app.url}/train.html`);
      await page.locator('canvas[data-testid=loss-chart][data-ready]').waitFor({ timeout: 60_000 });
      const built = await page.evaluate(readControls, TRAINING_PARTS);
      assert.deepEqual(built.counts, firstView.counts, `${where}: as many of each part`);
      for (let k = 0; k < firstView.parts.length; k++) {
        const [a, b] = [firstView.parts[k], built.parts[k]];
        assert.equal(b.text, a.text, `${where}: ${a.s} reads the same`);
        assert.deepEqual(b.box, a.box, `${where}: ${a.s} keeps its box`);
      }
      assert.deepEqual(built.chosen, firstView.chosen, `${where}: the same choices`);
      assert.equal(built.seed, firstView.seed, `${where}: the same seed`);
      assert.deepEqual(await page.evaluate(() => window.__atMount), { firstViewGone: true }, `${where}: hand-over`);
      assert.equal(await layoutShift(page), 0, `${where}: no layout shift`);
      consoleLog.assertClean();
    } finally {
      await context.close();
    }
  }
});
