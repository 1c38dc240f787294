// After the window changes size (a desktop window narrowed to 360 px, a phone
// rotating), nothing is wider than the viewport and the heatmap's selection outlines follow the
// canvas. The outlines are checked against the grid recomputed in JS from the canvas's own width
// (heatmap_geometry.mjs ports layout.rs), not against the CSS variables the app writes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, eventually } from './harness.mjs';
import { clickHeatmapRow, heatmapLayout } from './heatmap_geometry.mjs';

const app = useApp();
const MAIN = '.main-view canvas.heatmap';

/**
 * Everything on the page, measured in the browser: the document's scroll width, every element
 * whose box crosses the viewport's left or right edge (descendants of a horizontal scroll
 * container are skipped: they scroll inside it, not the page), and the main heatmap's canvas,
 * outlines and tooltip.
 */
function measure(page) {
  return page.evaluate((selector) => {
    const vw = document.documentElement.clientWidth;
    const clipped = (el) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        if (getComputedStyle(p).overflowX !== 'visible') return true;
      }
      return false;
    };
    const outside = [];
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if ((r.right > vw + 0.5 || r.left < -0.5) && !clipped(el)) {
        outside.push(`${el.tagName.toLowerCase()}.${el.className} [${r.left.toFixed(1)}, ${r.right.toFixed(1)}]`);
      }
    }
    const canvas = document.querySelector(selector);
    const c = canvas.getBoundingClientRect();
    const box = (el) => {
      if (!el || getComputedStyle(el).display === 'none') return null;
      const r = el.getBoundingClientRect();
      return { left: r.left - c.left, top: r.top - c.top, width: r.width, height: r.height };
    };
    const [row, cell] = canvas.parentElement.querySelectorAll('.selection');
    const tip = canvas.parentElement.querySelector('[role=tooltip]');
    const tokens = [...document.querySelectorAll('.chips .chip')].map((e) => e.textContent);
    return {
      innerWidth,
      viewportWidth: vw,
      scrollWidth: document.documentElement.scrollWidth,
      outside,
      canvas: { width: c.width, height: c.height, clientWidth: canvas.clientWidth, wrap: canvas.closest('.heatmap-wrap').clientWidth },
      tokens,
      row: box(row),
      cell: box(cell),
      tip: tip && tip.getBoundingClientRect().toJSON(),
      caption: document.querySelector('[data-testid=inspector-table] caption').textContent,
    };
  }, MAIN);
}

/** The page fits the viewport and the outlines sit on row `i` (and cell (i, j)) of the grid. */
function assertFitsAndOutlined(m, i, j, what) {
  assert.ok(m.scrollWidth <= m.innerWidth, `${what}: page ${m.scrollWidth} px wide in a ${m.innerWidth} px viewport`);
  assert.deepEqual(m.outside, [], `${what}: boxes past the viewport's edges`);
  if (m.tip) {
    assert.ok(m.tip.left >= 0 && m.tip.right <= m.viewportWidth, `${what}: tooltip [${m.tip.left}, ${m.tip.right}]`);
  }
  // The canvas fills its wrapper (up to the 720 px cap) and has the height of the layout for
  // its width: it is drawn for the size it is shown at, not squeezed from an older one.
  assert.equal(m.canvas.width, Math.min(Math.max(m.canvas.wrap, 200), 720), `${what}: canvas width`);
  const n = m.tokens.length;
  const l = heatmapLayout(m.canvas.width, n, Math.max(...m.tokens.map((t) => [...t].length)), 13, true);
  assert.ok(Math.abs(m.canvas.height - l.height) < 0.6, `${what}: canvas height ${m.canvas.height} vs ${l.height}`);
  assert.match(m.caption, new RegExp(`\\(row ${i + 1}\\)$`), `${what}: inspector row`);
  const near = (got, want, name) => assert.ok(Math.abs(got - want) < 0.6, `${what}: ${name} ${got} vs ${want}`);
  // The 2 px outline is centred on the cells' edges: 1 px beyond them on every side.
  near(m.row.left, l.gridLeft - 1, 'row outline left');
  near(m.row.top, l.rowY(i) - 1, 'row outline top');
  near(m.row.width, l.cell * n + 2, 'row outline width');
  near(m.row.height, l.cell + 2, 'row outline height');
  assert.ok(m.cell, `${what}: cell outline shown`);
  near(m.cell.left, l.colX(j) - 1, 'cell outline left');
  near(m.cell.top, l.rowY(i) - 1, 'cell outline top');
  near(m.cell.width, l.cell + 2, 'cell outline width');
}

test('1280 → 360 → 1280 after keyboard and mouse use: nothing wider than the viewport, outlines on their row', { timeout: 60_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await app.open(page);
    // A slow device (6× slower CPU): the redraw after a resize comes late, and the outlines must
    // sit on their cells even before it (they are placed in percent of the canvas's box).
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 6 });
    const canvas = page.locator(MAIN);
    // Mouse: pick row 3 (index 2); keyboard: two rows down, into cell mode, two cells right.
    await clickHeatmapRow(page, canvas, 2);
    await canvas.focus();
    for (const key of ['ArrowDown', 'ArrowDown', 'ArrowRight', 'ArrowRight']) await page.keyboard.press(key);
    let [i, j] = [4, 1];
    // Leave the mouse over the last column, so a tooltip is showing when the window shrinks.
    const box = await canvas.boundingBox();
    await page.mouse.move(box.x + box.width - 12, box.y + 20);
    await page.locator(`${MAIN} ~ [role=tooltip]`).waitFor();
    await eventually(async () => assertFitsAndOutlined(await measure(page), i, j, '1280 before'));

    for (const [width, height] of [[360, 740], [1280, 800], [390, 844], [844, 390], [360, 740]]) {
      await page.setViewportSize({ width, height });
      // At once, redrawn or not: the outlines lie inside the canvas's box, and so inside the page.
      const now = await measure(page);
      for (const outline of [now.row, now.cell]) {
        assert.ok(outline.left >= -1.5 && outline.left + outline.width <= now.canvas.width + 1.5, `${width}×${height} at once: outline [${outline.left}, ${outline.left + outline.width}] in a ${now.canvas.width} px canvas`);
      }
      assert.ok(now.scrollWidth <= now.innerWidth, `${width}×${height} at once: page ${now.scrollWidth} px wide`);
      await eventually(async () => assertFitsAndOutlined(await measure(page), i, j, `${width}×${height}`));
      // Keep using keyboard and mouse at the new size.
      await canvas.focus();
      await page.keyboard.press(i < 6 ? 'ArrowDown' : 'ArrowUp');
      i = i < 6 ? i + 1 : i - 1;
      await page.keyboard.press('ArrowLeft');
      j = Math.max(j - 1, 0);
      const b = await canvas.boundingBox();
      await page.mouse.move(b.x + b.width - 8, b.y + b.height / 3);
      await eventually(async () => assertFitsAndOutlined(await measure(page), i, j, `${width}×${height} after keys`));
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await eventually(async () => assertFitsAndOutlined(await measure(page), i, j, '1280 after'));
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
