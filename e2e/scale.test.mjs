// Correctness at scale (the speed guard's view): a 256-token × 8-head view must render the weights the
// Rust core computed. Not a speed test. Checks, against the JSON download:
//   - sampled main-heatmap pixels are the viridis colour of the selected head's weight (masked
//     cells grey), including each sampled row's largest weight, so the check is not "all purple";
//   - every one of the 8 thumbnails is drawn and its pixels match its own head's weights;
//   - after clicking a row, the inspector table lists that row's weights;
//   - the JSON itself is consistent (check_json.py with NumPy; plus a JS softmax recomputation).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { useApp, saveDownload, ARTIFACTS_DIR, E2E_DIR } from './harness.mjs';
import {
  LIGHT,
  cellAtPixel,
  cellCentrePixel,
  expectedCellColour,
  heatmapLayout,
  shortWordSentence,
} from './heatmap_geometry.mjs';

const app = useApp();
const run = promisify(execFile);

const T = 256;
const HEADS = 8;
const HEAD = 3; // 1-based head shown in the main heatmap (not the first, so heads cannot be mixed up)
const TAU = 0.5;
const THUMB = 96; // src/components/thumbnails.rs THUMB
const SENTENCE = shortWordSentence(T);
const QUERY = `max_tokens=${T}&heads=${HEADS}&head=${HEAD}&tau=${TAU}&s=${encodeURIComponent(SENTENCE)}`;

/** A deterministic pseudo-random generator for picking sample cells. */
function lcg(seed) {
  let s = seed >>> 0;
  return (m) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % m;
  };
}

const close = (a, b, tol = 1) => a.every((v, k) => Math.abs(v - b[k]) <= tol);

/** RGBA of every pixel of a canvas (device pixels), with its size. */
async function canvasPixels(locator) {
  return locator.evaluate((c) => {
    const img = c.getContext('2d').getImageData(0, 0, c.width, c.height);
    return { w: c.width, h: c.height, cssW: c.getBoundingClientRect().width, cssH: c.getBoundingClientRect().height, data: Array.from(img.data) };
  });
}
const rgbAt = (px, x, y) => {
  const k = (y * px.w + x) * 4;
  return [px.data[k], px.data[k + 1], px.data[k + 2]];
};

test('256 tokens × 8 heads render the weights of the Rust core', { timeout: 180_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage({ colorScheme: 'light', deviceScaleFactor: 1 });
  try {
    await app.open(page, QUERY, { timeout: 60_000 });
    const heatmap = page.locator('canvas.heatmap[data-ready="true"]').first();
    assert.match(await heatmap.getAttribute('aria-label'), new RegExp(`: ${T} query tokens by ${T} key tokens`));
    assert.equal(await page.locator('.thumbs .thumb').count(), HEADS);

    // --- The JSON download: what the Rust core computed for this view. -----------------------
    const file = path.join(ARTIFACTS_DIR, 'scale-256x8-attention.json');
    const dl = await saveDownload(page, () => page.getByRole('button', { name: 'Download JSON' }).click(), {
      saveAs: file,
      timeout: 60_000,
    });
    const doc = JSON.parse(dl.text);
    assert.equal(doc.tokens.length, T);
    assert.deepEqual(doc.tokens, SENTENCE.split(' '));
    assert.equal(doc.heads.length, HEADS);
    assert.equal(doc.head_size * HEADS, doc.d_model);
    assert.equal(doc.temperature, TAU);

    // The JSON is self-consistent: NumPy recomputes scores, weights and outputs from the embeddings
    // and projections (check_json.py), and independently here the softmax of every head's scores.
    if (existsSync(path.join(E2E_DIR, 'check_json.py'))) {
      try {
        await run('python3', [path.join(E2E_DIR, 'check_json.py'), file], { timeout: 120_000, maxBuffer: 1 << 24 });
      } catch (err) {
        throw new Error(`check_json.py failed on ${file} (exit ${err.code}):\n${err.stdout ?? ''}${err.stderr ?? ''}`);
      }
    }
    const scale = 1 / (Math.sqrt(doc.head_size) * TAU);
    let worst = 0;
    for (const head of doc.heads) {
      for (let i = 0; i < T; i++) {
        const logits = head.scores[i].slice(0, i + 1).map((s) => s * scale);
        const max = Math.max(...logits);
        const e = logits.map((l) => Math.exp(l - max));
        const sum = e.reduce((a, b) => a + b, 0);
        for (let j = 0; j < T; j++) {
          const expected = j <= i ? e[j] / sum : 0;
          worst = Math.max(worst, Math.abs(head.weights[i][j] - expected));
        }
      }
    }
    assert.ok(worst <= 1e-9, `JS softmax recomputation differs from the download by ${worst}`);
    const W = doc.heads[HEAD - 1].weights;

    // --- Main heatmap pixels. -----------------------------------------------------------------
    const main = await canvasPixels(heatmap);
    const dpr = main.w / main.cssW;
    assert.equal(dpr, 1);
    const longest = Math.max(...doc.tokens.map((t) => [...t].length));
    const layout = heatmapLayout(main.cssW, T, longest, 13.0, true);
    // The JS port of the layout must give the canvas size the app chose (guards against drift).
    assert.ok(Math.abs(layout.height - main.cssH) < 0.5, `layout height ${layout.height} vs canvas ${main.cssH}`);

    const selectedRow = Number((await page.locator('[data-testid=inspector-table] caption').textContent()).match(/\(row (\d+)\)/)[1]) - 1;
    const pick = lcg(42);
    const cells = [[0, 0], [1, 0], [1, 1], [T - 1, T - 1], [T - 1, 0], [0, T - 1], [2, 200], [100, 101]];
    while (cells.length < 60) {
      const i = pick(T);
      const j = pick(i + 1);
      const argmax = W[i].slice(0, i + 1).reduce((best, w, k, row) => (w > row[best] ? k : best), 0);
      cells.push([i, j], [i, argmax], [pick(T - 1), T - 1]);
    }
    const distinct = new Set();
    let masked = 0;
    for (const [i, j] of cells) {
      if (Math.abs(i - selectedRow) <= 1) continue; // the selection outline covers this row
      const { x, y } = cellCentrePixel(layout, dpr, i, j);
      const want = expectedCellColour(W, i, j, LIGHT);
      const got = rgbAt(main, x, y);
      assert.ok(close(got, want), `main heatmap cell (${i},${j}) weight ${W[i][j]}: pixel ${got} at (${x},${y}), expected ${want}`);
      distinct.add(want.join());
      if (j > i) masked++;
    }
    assert.ok(masked >= 10, 'masked cells were sampled');
    assert.ok(distinct.size >= 8, `sampled cells cover ${distinct.size} distinct colours (need variety, not all one colour)`);

    // --- Thumbnails: all 8 drawn, each with its own head's weights. ---------------------------
    const thumbs = page.locator('.thumbs .thumb canvas');
    assert.equal(await thumbs.count(), HEADS);
    const tl = heatmapLayout(THUMB, T, 1, 0.0, false);
    for (let h = 0; h < HEADS; h++) {
      const px = await canvasPixels(thumbs.nth(h));
      assert.equal(px.w, Math.round(tl.width * dpr), `thumbnail ${h + 1} width`);
      assert.equal(px.h, Math.round(tl.height * dpr), `thumbnail ${h + 1} height`);
      const Wh = doc.heads[h].weights;
      let nonBackground = 0;
      let checked = 0;
      for (let y = 0; y < px.h; y++) {
        for (let x = 0; x < px.w; x++) {
          const got = rgbAt(px, x, y);
          if (!close(got, LIGHT.background, 0)) nonBackground++;
          // Every 3rd pixel on every 3rd line: compare with the cell blit_cells paints there.
          if (x % 3 || y % 3) continue;
          const cell = cellAtPixel(tl, dpr, x, y);
          const want = cell ? expectedCellColour(Wh, cell.i, cell.j, LIGHT) : LIGHT.background;
          assert.ok(close(got, want), `thumbnail ${h + 1} pixel (${x},${y}) = ${got}, expected ${want} (cell ${JSON.stringify(cell)})`);
          checked++;
        }
      }
      assert.ok(checked > 500, `thumbnail ${h + 1}: ${checked} pixels compared`);
      assert.ok(nonBackground > 0.5 * (tl.cell * T * dpr) ** 2, `thumbnail ${h + 1} is (nearly) blank: ${nonBackground} drawn pixels`);
    }

    // --- Click a row: the inspector lists that row's weights. ---------------------------------
    const target = 200;
    await heatmap.scrollIntoViewIfNeeded();
    const box = await heatmap.boundingBox();
    await page.mouse.click(box.x + layout.gridLeft + layout.cell / 2, box.y + layout.rowY(target) + layout.cell / 2);
    const caption = page.locator('[data-testid=inspector-table] caption');
    await page.waitForFunction(
      (row) => document.querySelector('[data-testid=inspector-table] caption')?.textContent.includes(`(row ${row})`),
      target + 1,
    );
    assert.match(await caption.textContent(), new RegExp(`“${doc.tokens[target]}” \\(row ${target + 1}\\)`));
    const rows = await page.locator('[data-testid=inspector-table] tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [...tr.children].map((c) => c.textContent.trim())),
    );
    assert.equal(rows.length, T);
    for (let j = 0; j < T; j++) {
      const [index, token, weight] = rows[j];
      assert.equal(Number(index), j + 1);
      assert.equal(token, doc.tokens[j]);
      if (j > target) {
        assert.equal(weight, 'masked', `row ${target + 1} key ${j + 1}`);
      } else {
        const shown = Number(weight.replace('%', ''));
        assert.ok(weight.endsWith('%') && Math.abs(shown - W[target][j] * 100) <= 0.05 + 1e-9, `key ${j + 1}: table ${weight}, JSON ${W[target][j]}`);
      }
    }
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('a long sentence keeps the slider in sight of the heatmap: its chips scroll in a box', { timeout: 90_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await app.open(page, QUERY);
    const chips = page.locator('ol.chips');
    assert.equal(await chips.locator('li').count(), T, 'every token has its chip');
    const box = await chips.evaluate((el) => ({
      tabIndex: el.tabIndex,
      scrolls: el.scrollHeight > el.clientHeight,
      height: el.clientHeight,
    }));
    assert.equal(box.tabIndex, 0, 'the scrolling box is a tab stop');
    assert.ok(box.scrolls && box.height < 220, `a box of about six lines: ${JSON.stringify(box)}`);
    // The slider and the top of the heatmap are both on the first screen.
    const slider = await page.locator('#temperature').boundingBox();
    const map = await page.locator('canvas.heatmap').first().boundingBox();
    assert.ok(slider.y + slider.height < 800, `slider at ${slider.y}`);
    assert.ok(map.y < 800, `heatmap at ${map.y}`);
    // The last chip is reachable: scrolled into its box and clicked, it selects the last row.
    await chips.locator('li').last().click();
    await page.waitForFunction((t) => new URL(location.href).searchParams.get('row') === String(t), T);
    // A short sentence has no box and no tab stop.
    await app.open(page, '');
    assert.deepEqual(await page.locator('ol.chips').evaluate((el) => [el.tabIndex, el.classList.contains('long')]), [-1, false]);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('a long table scrolls in its box with its header in view, and prints whole', { timeout: 90_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    // 64 tokens, row 6 selected: the inspector's table has a line for each of the 64 keys.
    await app.open(page, `heads=2&row=6&s=${encodeURIComponent(shortWordSentence(64))}`);
    const table = page.locator('[data-testid=inspector-table]');
    const scroller = table.locator('xpath=..');
    assert.equal(await table.locator('tbody tr').count(), 64);
    const box = () => scroller.evaluate((el) => ({ client: el.clientHeight, scroll: el.scrollHeight, rem: parseFloat(getComputedStyle(document.documentElement).fontSize) }));
    const bounded = await box();
    assert.ok(bounded.scroll > bounded.client && bounded.client <= 28 * bounded.rem + 1, `a box of at most 28rem: ${JSON.stringify(bounded)}`);
    // The inspector ends near the heatmap's panel instead of 64 lines further down.
    const heights = await page.evaluate(() => ['main-view', 'inspector'].map((c) => document.querySelector(`section.${c}`).getBoundingClientRect().height));
    assert.ok(heights[1] < heights[0] * 1.5, `inspector ${heights[1]} px tall beside a heatmap panel of ${heights[0]} px`);
    // Scrolled to its end, the box shows the last key, and the column headings stay at its top.
    await scroller.evaluate((el) => { el.scrollTop = el.scrollHeight; });
    const seen = await scroller.evaluate((el) => {
      const top = el.getBoundingClientRect().top;
      const bottom = el.getBoundingClientRect().bottom;
      const th = el.querySelector('thead th').getBoundingClientRect();
      const last = el.querySelector('tbody:last-of-type tr:last-child').getBoundingClientRect();
      const hit = document.elementFromPoint(th.left + th.width / 2, th.top + th.height / 2);
      return { headAtTop: Math.abs(th.top - top) <= 1, headOnTop: hit?.closest('th')?.textContent, lastInBox: last.bottom <= bottom + 1 && last.top >= top };
    });
    assert.deepEqual(seen, { headAtTop: true, headOnTop: '#', lastInBox: true });
    // Printed, the table is whole.
    await page.emulateMedia({ media: 'print' });
    const printed = await box();
    assert.equal(printed.client, printed.scroll, `printed box ${JSON.stringify(printed)}`);
    await page.emulateMedia({ media: 'screen' });
    // The default sentence's table is short: no scrolling.
    await app.open(page, '');
    const short = await page.locator('[data-testid=inspector-table]').locator('xpath=..').evaluate((el) => el.scrollHeight <= el.clientHeight);
    assert.ok(short, 'the 7-key table fits its box');
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
