// "Break it": every switch, operated by keyboard, must make the page show the damage it
// does, and the page's numbers must agree with the JSON download, whose weights are recomputed
// here from its own X, W_q and W_k with each mistake written out independently in JavaScript.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, downloadJson, eventually } from './harness.mjs';
import { heatmapLayout } from './heatmap_geometry.mjs';
import { headWeights, maxDiff, sum, transpose } from './model_port.mjs';

const app = useApp();
const KEYS = ['d-model', 'multiply', 'triu', 'mask-zero', 'columns', 'mask-after', 'dropout'];

/** Head h's weights at the download's temperature with the mistakes in `on` (a Set of keys). */
const expectedWeights = (json, h, on) => headWeights(json, h, json.temperature, on);

const entropy = (row) => {
  const s = sum(row);
  return -sum(row.filter((w) => w > 0).map((w) => (w / s) * Math.log2(w / s)));
};

/** The page's damage sentences and table, the banner and the main heatmap's accessible name. */
async function pageReport(page) {
  return page.evaluate(() => ({
    sentences: [...document.querySelectorAll('[data-testid=damage] li')].map((li) => li.textContent),
    sums: [...document.querySelectorAll('[data-testid=damage-table] tbody tr')].map((tr) =>
      Number(tr.querySelectorAll('td')[0].textContent),
    ),
    columns: [...document.querySelectorAll('[data-testid=column-sums] td')].map((td) => Number(td.textContent)),
    banner: document.querySelector('[data-testid=broken-banner]')?.textContent ?? null,
    bannerRole: document.querySelector('[data-testid=broken-banner]')?.getAttribute('role') ?? null,
    label: document.querySelector('canvas.heatmap').getAttribute('aria-label'),
    inspector: [...document.querySelectorAll('[data-testid=inspector-table] tbody td:last-child')].map((td) => td.textContent),
  }));
}

/** Distinct colours inside cell (i, j) of the first (main) heatmap canvas, its 1 px border left out. */
async function cellColours(page, i, j) {
  const canvas = page.locator('canvas.heatmap').first();
  const tokens = await page.locator('.chips .chip').allTextContents();
  const longest = Math.max(...tokens.map((t) => [...t].length));
  const width = await canvas.evaluate((c) => c.clientWidth);
  const l = heatmapLayout(width, tokens.length, longest, 13.0, true);
  const box = { x: Math.ceil(l.colX(j)) + 2, y: Math.ceil(l.rowY(i)) + 2, size: Math.floor(l.cell) - 5 };
  return canvas.evaluate((c, b) => {
    // Read through a copy made for reading, so the page's own canvas is left as it is.
    const copy = document.createElement('canvas');
    copy.width = b.size;
    copy.height = b.size;
    const ctx = copy.getContext('2d', { willReadFrequently: true });
    ctx.drawImage(c, b.x, b.y, b.size, b.size, 0, 0, b.size, b.size);
    const data = ctx.getImageData(0, 0, b.size, b.size).data;
    const seen = new Set();
    for (let k = 0; k < data.length; k += 4) seen.add(`${data[k]},${data[k + 1]},${data[k + 2]}`);
    return [...seen];
  }, box);
}

/** Presses Space on a mistake's checkbox (keyboard only) and waits for the view to follow. */
async function toggle(page, key) {
  const box = page.locator(`#mistake-${key}`);
  await box.focus();
  await page.keyboard.press('Space');
}

for (const key of KEYS) {
  test(`switch "${key}": the page shows its damage, and the JSON holds exactly that mistake`, { timeout: 90_000 }, async () => {
    const { context, page, consoleLog } = await app.newPage();
    try {
      await app.open(page, '');
      assert.equal(await page.locator('[data-testid=broken-banner]').count(), 0, 'no banner while correct');
      assert.match(await page.getByTestId('weights-note').textContent(), /The mechanism is real/);
      const correctJson = await downloadJson(page);
      assert.deepEqual(correctJson.broken, []);
      assert.ok(maxDiff(correctJson.heads[0].weights, expectedWeights(correctJson, 0, new Set())) < 1e-12);
      // The future is plain masked grey before anything breaks.
      assert.deepEqual(await cellColours(page, 0, 6), ['200,200,200']);

      await toggle(page, key);
      assert.equal(await page.locator(`#mistake-${key}`).isChecked(), true);
      await eventually(async () => assert.match(page.url(), new RegExp(`[?&]broken=${key}(&|$)`)), 3_000);
      const json = await downloadJson(page);
      assert.deepEqual(json.broken, [key]);
      const on = new Set([key]);
      for (let h = 0; h < json.n_heads; h++) {
        const expected = expectedWeights(json, h, on);
        const diff = maxDiff(json.heads[h].weights, expected);
        assert.ok(diff < 1e-12, `${key}, head ${h + 1}: JSON vs JS differ by ${diff}`);
        assert.ok(maxDiff(expected, correctJson.heads[h].weights) > 1e-6, `${key} changes head ${h + 1}`);
      }

      const W = json.heads[0].weights;
      const T = W.length;
      const correct = correctJson.heads[0].weights;
      const rowSums = W.map(sum);
      const off = rowSums.filter((s) => Math.abs(s - 1) > 1e-12).length;
      const future = [];
      W.forEach((row, i) => row.forEach((w, j) => j > i && w > 0 && future.push([i, j])));
      // The report follows the view while the panel is on screen: it catches up once seen.
      await page.locator('[data-testid=break-it-report]').evaluate((el) => el.scrollIntoView());
      await eventually(async () => assert.equal((await pageReport(page)).sums.length, T));
      const r = await pageReport(page);
      const said = r.sentences.join(' | ');

      // The banner: unmistakable, a live status, naming the mistake.
      assert.equal(r.bannerRole, 'status');
      assert.ok(r.banner.includes('BROKEN: this is not correct attention'), r.banner);
      // It counts the shown heatmap's cells that see the future, or says that none does.
      if (future.length === 0) assert.ok(r.banner.includes('no cell of this heatmap sees the future'), r.banner);
      else if (future.length === 1) assert.ok(r.banner.includes('1 hatched cell sees the future'), r.banner);
      else assert.ok(r.banner.includes(`${future.length} hatched cells see the future`), r.banner);
      assert.match(await page.locator('#heatmap-title').textContent(), /\(BROKEN\)/);
      // The note on the weights no longer calls the mechanism real attention.
      const note = await page.getByTestId('weights-note').textContent();
      assert.ok(note.includes('not correct attention') && !note.includes('The mechanism is real'), note);
      // Row sums: the table's, and the sentence's count, against the JSON.
      r.sums.forEach((s, i) => assert.equal(s.toFixed(3), rowSums[i].toFixed(3), `row ${i + 1} sum`));
      if (off === 0) assert.ok(said.includes('Every row still sums to 1.'), said);
      else assert.ok(said.includes(`${off} row${off === 1 ? '' : 's'} of ${T} no longer sum to 1`), said);
      // Cells that see the future: counted in the sentence and the heatmap's name, and hatched.
      if (future.length === 0) {
        assert.ok(said.includes('No cell sees the future'), said);
      } else {
        const n = future.length;
        assert.ok(said.includes(`${n} cell${n === 1 ? '' : 's'} above the diagonal see`), said);
        assert.ok(r.label.includes(`${n} cell${n === 1 ? '' : 's'} above the diagonal see`), r.label);
        const [i, j] = future[0];
        const colours = await cellColours(page, i, j);
        assert.ok(colours.length >= 2 && !colours.includes('200,200,200'), `hatched (${i + 1}, ${j + 1}): ${colours}`);
      }
      // Peakier or flatter, by the mean largest weight and the mean entropy of each row divided by
      // its sum, as the JSON's rows say; where the two measures disagree, the sentence says so.
      const peak = (row) => Math.max(...row) / (sum(row) || 1);
      const mean = (m, f) => sum(m.map(f)) / m.length;
      const [bm, cm] = [mean(W, peak), mean(correct, peak)];
      const [be, ce] = [mean(W, entropy), mean(correct, entropy)];
      const words = (k) => (k > 0 ? 'peakier' : k < 0 ? 'flatter' : 'as peaked as correct ones');
      // Means that print alike are the same to the reader; otherwise the sign decides.
      const byMax = (100 * bm).toFixed(1) === (100 * cm).toFixed(1) ? 0 : bm > cm ? 1 : -1;
      const byEntropy = be.toFixed(3) === ce.toFixed(3) ? 0 : be < ce ? 1 : -1;
      assert.ok(said.includes(`the largest weight is ${(100 * bm).toFixed(1)}%`), `${said} vs ${bm}`);
      assert.ok(said.includes(`the entropy ${be.toFixed(3)} bits`), `${said} vs ${be}`);
      if (byMax === byEntropy) assert.ok(said.includes(`: the rows are ${words(byMax)}.`), said);
      else assert.ok(said.includes(`by entropy, the rows are ${words(byEntropy)}; by the largest weight, the rows are ${words(byMax)}`), said);
      // The inspector lists every key with a weight (none "masked") while broken.
      assert.equal(r.inspector.length, T);
      assert.ok(r.inspector.every((t) => t.endsWith('%')), r.inspector.join());

      // What each switch is known for, checked on the JSON's numbers.
      if (key === 'mask-zero') {
        assert.equal(off, 0, 'rows still sum to 1');
        assert.equal(future.length, (T * (T - 1)) / 2, 'every future cell has weight');
      }
      if (key === 'columns') {
        const colSums = transpose(W).map(sum);
        assert.ok(colSums.every((s) => Math.abs(s - 1) < 1e-12), `columns sum to 1: ${colSums}`);
        assert.ok(off > 0, 'rows do not');
        assert.deepEqual(r.columns.map((s) => s.toFixed(3)), colSums.map((s) => s.toFixed(3)));
        assert.ok(said.includes(`${T} of ${T} columns sum to 1`), said);
      }
      if (key === 'triu') {
        assert.equal(W[T - 1][T - 1], 1, 'the last token sees only itself');
        assert.ok(W[T - 1].slice(0, T - 1).every((w) => w === 0), 'the past is hidden');
      }
      if (key === 'mask-after') {
        assert.ok(rowSums.slice(0, T - 1).every((s) => s < 1), `rows short of 1: ${rowSums}`);
        assert.equal(future.length, 0);
      }
      if (key === 'dropout') assert.ok(off > 0, 'dropout breaks the row sums');
      // Both measures agree on these two: every row is at least as peaked (×√d) or as flat (√d_model).
      if (key === 'multiply') assert.deepEqual([byMax, byEntropy], [1, 1]);
      if (key === 'd-model') assert.deepEqual([byMax, byEntropy], [-1, -1]);

      // Off again, by keyboard: correct attention, bit for bit, and nothing marked broken.
      await toggle(page, key);
      await page.locator('[data-testid=broken-banner]').waitFor({ state: 'detached' });
      await eventually(async () => assert.ok(!page.url().includes('broken='), page.url()), 3_000);
      const again = await downloadJson(page);
      assert.deepEqual(again.broken, []);
      assert.deepEqual(again.heads[0].weights, correctJson.heads[0].weights);
      consoleLog.assertClean();
    } finally {
      await context.close();
    }
  });
}

test('a link with several mistakes opens them checked, composes them as documented, and reports unknown names', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page, 'broken=mask-zero,triu,dropout&heads=4&tau=0.5&seed=7');
    for (const key of KEYS) {
      const on = ['mask-zero', 'triu', 'dropout'].includes(key);
      assert.equal(await page.locator(`#mistake-${key}`).isChecked(), on, key);
    }
    const json = await downloadJson(page);
    assert.deepEqual(json.broken, ['triu', 'mask-zero', 'dropout']);
    for (let h = 0; h < 4; h++) {
      const diff = maxDiff(json.heads[h].weights, expectedWeights(json, h, new Set(json.broken)));
      assert.ok(diff < 1e-12, `head ${h + 1}: ${diff}`);
    }
    // The comparison map beside the report is correct attention (its name says so).
    assert.equal(await page.locator('#break-it canvas.heatmap').count(), 1);
    const compare = await page.locator('#break-it canvas.heatmap').getAttribute('aria-label');
    assert.ok(compare.startsWith('Correct causal attention, for comparison: '), compare);

    await app.open(page, 'broken=nope,columns');
    assert.ok((await page.locator('.notices').textContent()).includes('Ignored broken=“nope”'));
    assert.equal(await page.locator('#mistake-columns').isChecked(), true);
    // Lesson steps with live attention numbers say the heatmap is broken and they are not.
    for (const step of ['softmax', 'attention', 'heads', 'positions']) {
      await app.open(page, `broken=columns&step=${step}`);
      await page.locator('[data-testid=broken-lesson-note]').waitFor();
      await app.open(page, `step=${step}`);
      assert.equal(await page.locator('[data-testid=broken-lesson-note]').count(), 0, step);
    }
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('the lesson links to the panel, and the panel works at 360 px', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage({ viewport: { width: 360, height: 740 } });
  try {
    await app.open(page, 'step=scaling');
    await page.getByRole('button', { name: /^Break it: see what the classic mistakes do/ }).click();
    await eventually(async () =>
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'break-it-title'),
    );
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'mistake-d-model');
    await page.keyboard.press('Space');
    await page.locator('[data-testid=broken-banner]').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no sideways scroll at 360 px (${overflow})`);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
