// Core behaviour of the explorer, driven with real mouse input against the release build:
// the heatmap, the temperature slider, row selection, tooltips, canvas pixels (1× and 2×) and the
// JSON download, which NumPy (e2e/check_json.py) must reproduce.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { useApp, saveDownload, sliderGeometry, ARTIFACTS_DIR, E2E_DIR } from './harness.mjs';
import { heatmapLayout } from './heatmap_geometry.mjs';

const app = useApp();
const run = promisify(execFile);

const TOKENS = ['The', 'cat', 'sat', 'on', 'the', 'mat', '.'];
const DEFAULT_ROW = 5; // 0-based: "mat", row 6 in the UI
const MASKED_GREY = [200, 200, 200, 255]; // Theme::LIGHT.masked, opaque

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/** Poll `read()` until `ok(value)` holds; return the value or throw with the last one seen. */
async function waitFor(read, ok, { timeout = 5000, what = 'condition' } = {}) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    last = await read();
    if (ok(last)) return last;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const text = (page, sel) => page.locator(sel).first().textContent();

/** "31.4%" → 31.4 */
function pct(s) {
  const m = /^\s*(-?\d+(?:\.\d+)?)%\s*$/.exec(s);
  assert.ok(m, `not a percentage: ${JSON.stringify(s)}`);
  return Number(m[1]);
}

/** Main heatmap: scrolled into view, with its box and layout for the given tokens. */
async function heatmap(page, tokens = TOKENS) {
  const canvas = page.locator('canvas.heatmap').first();
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  const longest = Math.max(...tokens.map((t) => [...t].length));
  const layout = heatmapLayout(box.width, tokens.length, longest, 13.0, true);
  // Page (viewport) coordinates of a point inside cell (i, j).
  const page_at = (i, j, fx, fy) => {
    const p = layout.at(i, j, fx, fy);
    return { x: box.x + p.x, y: box.y + p.y };
  };
  return { canvas, box, layout, page_at };
}

/** The inspector table: caption and one {index, token, weight (percent number or null)} per row. */
async function inspector(page) {
  return page.evaluate(() => {
    const table = document.querySelector('[data-testid=inspector-table]');
    const rows = [...table.querySelectorAll('tbody tr')].map((tr) => {
      const cells = tr.querySelectorAll('td, th');
      return {
        index: Number(cells[0].textContent.trim()),
        token: cells[1].textContent.trim(),
        weight: cells[2].textContent.trim(),
        maskedClass: tr.parentElement.classList.contains('masked'),
      };
    });
    return { caption: table.querySelector('caption').textContent.trim(), rows };
  });
}

/**
 * Drag the temperature slider's thumb with the mouse from where it is to `fraction` of the track
 * (values below 0 or above 1 overshoot the ends).  Returns the input's final value (log10 τ).
 */
async function dragSlider(page, fraction) {
  const { slider, fraction: from, xAt, y } = await sliderGeometry(page);
  await page.mouse.move(xAt(from), y);
  await page.mouse.down();
  await page.mouse.move(xAt(fraction), y, { steps: 12 });
  await page.mouse.up();
  return Number(await slider.inputValue());
}

/** Click "Download JSON", save to e2e/artifacts/<name>, parse. */
async function downloadJson(page, name) {
  const saved = await saveDownload(page, () => page.getByRole('button', { name: 'Download JSON' }).click(), {
    saveAs: path.join(ARTIFACTS_DIR, name),
  });
  assert.equal(saved.suggestedFilename, 'attention.json');
  return { file: saved.path, doc: JSON.parse(saved.text) };
}

/** Run the NumPy recomputation on a saved download; returns its stdout. */
async function numpyCheck(file) {
  try {
    const { stdout } = await run('python3', [path.join(E2E_DIR, 'check_json.py'), file], { timeout: 30_000 });
    assert.match(stdout, /OK: NumPy reproduces the download/);
    return stdout;
  } catch (err) {
    throw new Error(`check_json.py failed on ${file} (exit ${err.code}):\n${err.stdout ?? ''}${err.stderr ?? ''}`);
  }
}

/** Structural checks on the download that hold at every temperature. */
function checkJsonShape(doc, tau) {
  assert.equal(doc.sentence, 'The cat sat on the mat .');
  assert.deepEqual(doc.tokens, TOKENS);
  assert.equal(doc.seed, 1337);
  assert.equal(doc.d_model, 32);
  assert.equal(doc.head_size, 16);
  assert.equal(doc.n_heads, 2);
  assert.ok(Math.abs(doc.temperature / tau - 1) < 1e-12, `temperature ${doc.temperature} vs slider τ ${tau}`);
  const T = TOKENS.length;
  const isMatrix = (m, r, c, name) => {
    assert.equal(m.length, r, `${name}: ${m.length} rows, want ${r}`);
    m.forEach((row, i) => {
      assert.equal(row.length, c, `${name} row ${i}: ${row.length} columns, want ${c}`);
      row.forEach((x) => assert.ok(Number.isFinite(x), `${name}: non-finite ${x}`));
    });
  };
  isMatrix(doc.embeddings, T, 32, 'embeddings');
  assert.equal(doc.heads.length, 2);
  doc.heads.forEach((h, k) => {
    for (const w of ['w_q', 'w_k', 'w_v']) isMatrix(h[w], 32, 16, `head ${k + 1} ${w}`);
    isMatrix(h.scores, T, T, `head ${k + 1} scores`);
    isMatrix(h.weights, T, T, `head ${k + 1} weights`);
    isMatrix(h.output, T, 16, `head ${k + 1} output`);
    h.weights.forEach((row, i) => {
      row.forEach((x, j) => {
        if (j > i) assert.equal(x, 0, `head ${k + 1} weights[${i}][${j}] (masked) = ${x}`);
        else assert.ok(x >= 0 && x <= 1, `head ${k + 1} weights[${i}][${j}] = ${x}`);
      });
      const sum = row.reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(sum - 1) <= 1e-12, `head ${k + 1} row ${i} sums to ${sum}`);
    });
  });
}

/** The inspector's percentages for the selected row agree with head 1 of the download to 0.05 pp. */
async function assertInspectorMatches(page, doc, row) {
  const { caption, rows } = await inspector(page);
  assert.equal(caption, `Attention weights of “${TOKENS[row]}” (row ${row + 1})`);
  rows.forEach((r, j) => {
    if (j > row) return assert.equal(r.weight, 'masked');
    const exact = doc.heads[0].weights[row][j] * 100;
    assert.ok(Math.abs(pct(r.weight) - exact) <= 0.05 + 1e-9, `key ${j + 1}: shown ${r.weight}, JSON ${exact}`);
  });
  const max = pct(await text(page, '[data-testid=max-weight]'));
  const exactMax = Math.max(...doc.heads[0].weights[row].slice(0, row + 1)) * 100;
  assert.ok(Math.abs(max - exactMax) <= 0.05 + 1e-9, `max weight shown ${max}%, JSON ${exactMax}%`);
  return max;
}

/** Port of colors::viridis (for checking cell colours). */
const VIRIDIS = [
  [0x44, 0x01, 0x54], [0x48, 0x24, 0x75], [0x41, 0x44, 0x87], [0x35, 0x5f, 0x8d],
  [0x2a, 0x78, 0x8e], [0x21, 0x91, 0x8c], [0x22, 0xa8, 0x84], [0x44, 0xbf, 0x70],
  [0x7a, 0xd1, 0x51], [0xbd, 0xdf, 0x26], [0xfd, 0xe7, 0x25],
];
function viridis(w) {
  const pos = Math.min(Math.max(w, 0), 1) * 10;
  const i = Math.min(Math.floor(pos), 9);
  const f = pos - i;
  return VIRIDIS[i].map((a, k) => Math.round(a + (VIRIDIS[i + 1][k] - a) * f));
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

test('page loads: accessible heatmap, seven token chips, clean console', { timeout: 30_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page);
    const canvas = page.locator('canvas.heatmap').first();
    assert.equal(await canvas.getAttribute('role'), 'img');
    const label = await canvas.getAttribute('aria-label');
    assert.match(label, /attention/i);
    assert.match(label, /7 query tokens by 7 key tokens/);
    assert.match(label, /Row 6 “mat” attends most to/);
    const chips = await page.locator('.chips .chip').allTextContents();
    assert.deepEqual(chips.map((c) => c.trim()), TOKENS);
    const { caption } = await inspector(page);
    assert.equal(caption, 'Attention weights of “mat” (row 6)');
    assert.equal(await text(page, '[data-testid=tau]'), '1.00');
    assert.equal(await text(page, '[data-testid=divisor]'), '4.000');
    // The printed product is the arithmetic: 4 × 1.00 is 4.000, so "=".
    assert.match(await text(page, '#temperature-readout'), /√d·τ = √16 × 1\.00 = 4\.000$/);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('dragging the temperature slider to its ends: one-hot when cold, uniform when hot', { timeout: 40_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page);
    const at1 = pct(await text(page, '[data-testid=max-weight]'));

    // Far left: τ = 0.01, logits divided by √16 · 0.01 = 0.04.
    assert.equal(await dragSlider(page, -0.3), -2);
    await waitFor(() => text(page, '[data-testid=tau]'), (t) => t === '0.010', { what: 'τ readout 0.010' });
    assert.equal(await text(page, '[data-testid=divisor]'), '0.040');
    const cold = await downloadJson(page, 'core-slider-cold.json');
    checkJsonShape(cold.doc, 0.01);
    const coldMax = await assertInspectorMatches(page, cold.doc, DEFAULT_ROW);
    assert.ok(coldMax > 95, `cold max weight ${coldMax}% should approach 100%`);
    assert.ok(coldMax > at1, `cold max ${coldMax}% should exceed the τ=1 max ${at1}%`);
    await numpyCheck(cold.file);

    // Far right: τ = 100, logits divided by 400: row 6 tends to 1/6 per visible key.
    assert.equal(await dragSlider(page, 1.3), 2);
    await waitFor(() => text(page, '[data-testid=tau]'), (t) => t === '100.0', { what: 'τ readout 100.0' });
    assert.equal(await text(page, '[data-testid=divisor]'), '400.000');
    const hot = await downloadJson(page, 'core-slider-hot.json');
    checkJsonShape(hot.doc, 100);
    const hotMax = await assertInspectorMatches(page, hot.doc, DEFAULT_ROW);
    assert.ok(Math.abs(hotMax - 100 / 6) <= 1, `hot max weight ${hotMax}% should be within 1 pp of 16.7%`);
    const { rows } = await inspector(page);
    for (const r of rows.slice(0, DEFAULT_ROW + 1)) {
      assert.ok(Math.abs(pct(r.weight) - 100 / 6) <= 1, `hot weight of ${r.token}: ${r.weight}`);
    }
    await numpyCheck(hot.file);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('clicking each row selects it in the inspector', { timeout: 30_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page);
    const { box, layout, page_at } = await heatmap(page);
    // Visit rows in an order that always changes the selection (default is row 6).
    for (const i of [0, 1, 2, 3, 4, 6, 5]) {
      // Even rows: click a lower-triangle cell; odd rows: click the row label left of the grid.
      const p = i % 2 === 0 ? page_at(i, 0) : { x: box.x + layout.gridLeft / 2, y: page_at(i, 0).y };
      await page.mouse.click(p.x, p.y);
      const want = `Attention weights of “${TOKENS[i]}” (row ${i + 1})`;
      const { caption, rows } = await waitFor(() => inspector(page), (v) => v.caption === want, {
        what: `caption ${want}`,
      });
      assert.equal(caption, want);
      assert.equal(rows.length, TOKENS.length);
      assert.deepEqual(rows.map((r) => r.token), TOKENS);
      const masked = rows.filter((r) => r.weight === 'masked');
      assert.equal(masked.length, 6 - i, `row ${i + 1}: masked count`);
      rows.forEach((r, j) => {
        assert.equal(r.weight === 'masked', j > i, `row ${i + 1}, key ${j + 1}: ${r.weight}`);
        assert.equal(r.maskedClass, j > i);
      });
      const sum = rows.filter((r) => r.weight !== 'masked').reduce((a, r) => a + pct(r.weight), 0);
      assert.ok(Math.abs(sum - 100) <= 0.5, `row ${i + 1}: visible weights sum to ${sum}%`);
      const max = Math.max(...rows.filter((r) => r.weight !== 'masked').map((r) => pct(r.weight)));
      assert.equal(pct(await text(page, '[data-testid=max-weight]')), max);
      const label = await page.locator('canvas.heatmap').first().getAttribute('aria-label');
      assert.match(label, new RegExp(`Row ${i + 1} “${TOKENS[i].replace('.', '\\.')}” attends most to`));
      // The selection outline (an element over the canvas) frames the row, reaching 1 px beyond
      // the grid on every side.
      const frame = await page.evaluate(() => {
        const c = document.querySelector('canvas.heatmap').getBoundingClientRect();
        const o = document.querySelector('.heatmap-wrap .selection').getBoundingClientRect();
        return { left: o.left - c.left, top: o.top - c.top, width: o.width, height: o.height };
      });
      const outline = { left: layout.gridLeft - 1, top: layout.rowY(i) - 1, width: layout.colX(layout.n) - layout.gridLeft + 2, height: layout.cell + 2 };
      for (const k of Object.keys(outline)) {
        assert.ok(Math.abs(frame[k] - outline[k]) < 0.5, `row ${i + 1} outline ${k}: ${frame[k]} vs ${outline[k]}`);
      }
    }
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('hover tooltips agree with the inspector; future cells say masked', { timeout: 30_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page);
    const { page_at } = await heatmap(page);
    const tooltip = page.locator('[role=tooltip]');
    for (const row of [DEFAULT_ROW, 2]) {
      if (row !== DEFAULT_ROW) {
        const p = page_at(row, 0);
        await page.mouse.click(p.x, p.y);
        await waitFor(() => inspector(page), (v) => v.caption.includes(`(row ${row + 1})`), { what: 'row change' });
      }
      const { rows } = await inspector(page);
      for (let j = 0; j <= row; j++) {
        const p = page_at(row, j, 0.3, 0.7);
        await page.mouse.move(p.x, p.y);
        const want = `${TOKENS[row]} → ${TOKENS[j]}: ${rows[j].weight}`;
        assert.match(rows[j].weight, /^\d+\.\d%$/);
        await waitFor(() => tooltip.first().textContent().catch(() => null), (t) => t?.trim() === want, {
          what: `tooltip "${want}"`,
        });
      }
    }
    // Upper triangle: the future.
    for (const [i, j] of [[2, 5], [0, 6], [5, 6]]) {
      const p = page_at(i, j);
      await page.mouse.move(p.x, p.y);
      const want = `${TOKENS[i]} → ${TOKENS[j]}: masked (future)`;
      await waitFor(() => tooltip.first().textContent().catch(() => null), (t) => t?.trim() === want, {
        what: `tooltip "${want}"`,
      });
    }
    // Leaving the canvas hides the tooltip.
    await page.mouse.move(5, 5);
    await waitFor(() => tooltip.count(), (c) => c === 0, { what: 'tooltip to disappear' });
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

for (const dpr of [1, 2]) {
  test(`canvas pixels at devicePixelRatio ${dpr}: masked cells grey, visible cells viridis`, { timeout: 30_000 }, async () => {
    const { context, page, consoleLog } = await app.newPage({ deviceScaleFactor: dpr });
    try {
      await app.open(page);
      assert.equal(await page.evaluate(() => window.devicePixelRatio), dpr);
      const { box, layout } = await heatmap(page);
      const { rows } = await inspector(page); // row 6 is selected: its weights, for colour checks
      const n = TOKENS.length;
      const points = [];
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          // Centres for masked cells; for visible cells a point clear of the centred percent label
          // and of the selected-row outline.
          const p = j > i ? layout.at(i, j) : layout.at(i, j, 0.25, 0.25);
          points.push({ i, j, x: p.x, y: p.y });
        }
      }
      const result = await page.evaluate(
        ({ points, dpr }) => {
          const c = document.querySelector('canvas.heatmap');
          const r = c.getBoundingClientRect();
          // One readback of the whole backing store (many small reads make Chromium warn).
          const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          const at = (x, y) => {
            const k = (Math.floor(y * dpr) * c.width + Math.floor(x * dpr)) * 4;
            return [data[k], data[k + 1], data[k + 2], data[k + 3]];
          };
          return {
            width: c.width,
            height: c.height,
            cssWidth: r.width,
            cssHeight: r.height,
            pixels: points.map((p) => at(p.x, p.y)),
          };
        },
        { points, dpr },
      );
      assert.ok(Math.abs(result.cssWidth - box.width) < 0.01);
      assert.equal(result.width, Math.round(result.cssWidth * dpr), 'backing store width = CSS width × dpr');
      assert.ok(Math.abs(result.height - result.cssHeight * dpr) <= 1, `backing height ${result.height} vs ${result.cssHeight}×${dpr}`);
      points.forEach(({ i, j }, k) => {
        const px = result.pixels[k];
        if (j > i) {
          assert.deepEqual(px, MASKED_GREY, `masked cell (${i + 1}, ${j + 1}) centre is ${px}`);
        } else {
          assert.notDeepEqual(px.slice(0, 3), MASKED_GREY.slice(0, 3), `visible cell (${i + 1}, ${j + 1}) is grey`);
          assert.notDeepEqual(px.slice(0, 3), [255, 255, 255], `visible cell (${i + 1}, ${j + 1}) is background`);
          if (i === DEFAULT_ROW) {
            // Table weights are rounded to 0.1 pp, so allow a couple of levels per channel.
            const want = viridis(pct(rows[j].weight) / 100);
            px.slice(0, 3).forEach((v, ch) =>
              assert.ok(Math.abs(v - want[ch]) <= 2, `cell (${i + 1}, ${j + 1}) is ${px}, viridis(${rows[j].weight}) = ${want}`),
            );
          }
        }
      });
      consoleLog.assertClean();
    } finally {
      await context.close();
    }
  });
}

test('Download JSON: complete, consistent with the inspector, reproduced by NumPy (τ = 1 and after a drag)', { timeout: 40_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page);
    const first = await downloadJson(page, 'core-download-tau1.json');
    checkJsonShape(first.doc, 1);
    await assertInspectorMatches(page, first.doc, DEFAULT_ROW);
    const out = await numpyCheck(first.file);
    assert.match(out, /tau = 1\.0, d = 16, T = 7, heads = 2/);

    // A partial drag to a quarter of the track: a temperature that is neither 1 nor an end point.
    const v = await dragSlider(page, 0.25);
    assert.ok(v > -2 && v < -0.2, `slider value ${v} after dragging to a quarter of the track`);
    const tau = 10 ** v;
    const shown = await waitFor(() => text(page, '[data-testid=tau]'), (t) => t !== '1.00', { what: 'τ to change' });
    assert.ok(Math.abs(Number(shown) - tau) <= 0.0005 + 1e-12, `τ readout ${shown} vs 10^${v}`);
    assert.equal(await text(page, '[data-testid=divisor]'), (4 * tau).toFixed(3));
    // "=" only where the printed factors multiply to the printed product (as at τ = 0.1, 4 ×
    // 0.100 = 0.400), "≈" where they do not (τ printed rounded); compared in thousandths.
    const exact = Math.round(4 * Number(shown) * 1000) === Math.round(Number((4 * tau).toFixed(3)) * 1000);
    const readout = await text(page, '#temperature-readout');
    assert.ok(readout.endsWith(`√16 × ${shown} ${exact ? '=' : '≈'} ${(4 * tau).toFixed(3)}`), readout);

    const second = await downloadJson(page, 'core-download-dragged.json');
    checkJsonShape(second.doc, tau);
    await assertInspectorMatches(page, second.doc, DEFAULT_ROW);
    // The temperature changes weights and outputs, not scores or parameters.
    assert.deepEqual(second.doc.embeddings, first.doc.embeddings);
    assert.deepEqual(second.doc.heads[0].scores, first.doc.heads[0].scores);
    assert.deepEqual(second.doc.heads[1].w_v, first.doc.heads[1].w_v);
    assert.notDeepEqual(second.doc.heads[0].weights, first.doc.heads[0].weights);
    await numpyCheck(second.file);

    // The saved file on disk is what was parsed.
    assert.deepEqual(JSON.parse(await readFile(second.file, 'utf8')), second.doc);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
