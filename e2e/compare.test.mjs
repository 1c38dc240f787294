// "Compare": for each kind of change, the difference the page shows (its table, its CSV
// and its heatmap's colours) must be A − B from two JSON downloads: A's from the view itself and
// B's from the "Open setting B on its own" link, a page of its own. The scale is symmetric
// (±max |Δ|), sentences of unequal length are refused with a message, and the controls are
// labelled and reachable by keyboard.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, clickDownload, downloadJson, downloadText, eventually, revealAnswer } from './harness.mjs';
import { heatmapLayout } from './heatmap_geometry.mjs';

const app = useApp();

/** The weights the main view shows, from a JSON download (head from the link, 1-based). */
async function shownWeights(page, head) {
  const json = await downloadJson(page);
  return json.heads[head - 1].weights;
}

/** ColorBrewer PuOr, as src/charts/colors.rs diverging(): −1 orange … 0 grey … +1 purple. */
const PUOR = [
  [0x7f, 0x3b, 0x08], [0xb3, 0x58, 0x06], [0xe0, 0x82, 0x14], [0xfd, 0xb8, 0x63], [0xfe, 0xe0, 0xb6],
  [0xf7, 0xf7, 0xf7], [0xd8, 0xda, 0xeb], [0xb2, 0xab, 0xd2], [0x80, 0x73, 0xac], [0x54, 0x27, 0x88],
  [0x2d, 0x00, 0x4b],
];
function diverging(x) {
  const pos = (Math.min(Math.max(x, -1), 1) + 1) * 5;
  const i = Math.min(Math.floor(pos), 9);
  const f = pos - i;
  return [0, 1, 2].map((c) => Math.round(PUOR[i][c] + (PUOR[i + 1][c] - PUOR[i][c]) * f));
}

const A_QUERY = 'heads=2&head=2&tau=0.8&seed=5';
for (const cmp of ['tau:2', 'seed:7', 'pos', 's:the mat sat on the cat .', 'broken:mask-zero']) {
  test(`compare cmp=${cmp}: the difference is A − B of the two JSON downloads`, { timeout: 120_000 }, async () => {
    const { context, page, consoleLog } = await app.newPage();
    try {
      const query = cmp.startsWith('s:')
        ? `cmp=${encodeURIComponent(cmp)}`
        : `${A_QUERY}&cmp=${encodeURIComponent(cmp)}`;
      const head = cmp.startsWith('s:') ? 1 : 2;
      await app.open(page, query, { file: 'practice.html' });
      const section = page.getByTestId('compare');
      // While a question is open, setting A's numbers (its heatmap, A − B) wait for the answer.
      await section.getByTestId('compare-hidden').waitFor();
      assert.equal(await section.locator('canvas').count(), 0, 'no heatmap while a question is open');
      assert.doesNotMatch(await section.textContent(), /\d%/);
      await revealAnswer(page);
      await section.locator('canvas.diff-heatmap[data-ready="true"]').waitFor();
      assert.equal(await section.getByTestId('compare-hidden').count(), 0);
      const a = await shownWeights(page, head);
      const n = a.length;
      const shown = await section.locator('[data-testid="diff-table"] td').evaluateAll((tds) =>
        tds.map((td) => (td.dataset.masked ? null : Number(td.dataset.d))),
      );
      const csv = (await downloadText((await clickDownload(page, 'Download compare CSV')).download)).trim().split('\n').slice(1);
      const bHref = await section.getByTestId('open-b').getAttribute('href');
      const { rows, scaleLabel, pixels } = await readDiffCanvas(page, n);

      // B on its own page, as a learner would open it.
      await app.open(page, bHref.replace(/^\?/, ''), { file: 'practice.html' });
      assert.equal(await page.getByTestId('compare').locator('canvas.diff-heatmap').count(), 0, 'B has no compare');
      await revealAnswer(page);
      const b = await shownWeights(page, head);
      assert.equal(b.length, n);

      let maxAbs = 0;
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) maxAbs = Math.max(maxAbs, Math.abs(a[i][j] - b[i][j]));
      assert.ok(maxAbs > 0, 'the change changes something');
      assert.equal(shown.length, n * n);
      assert.equal(csv.length, n * n);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          const d = a[i][j] - b[i][j];
          const k = i * n + j;
          if (shown[k] === null) {
            assert.ok(j > i && a[i][j] === 0 && b[i][j] === 0, `masked (${i + 1}, ${j + 1})`);
          } else {
            assert.ok(Math.abs(shown[k] - d) <= 1e-12, `table (${i + 1}, ${j + 1}): ${shown[k]} vs ${d}`);
          }
          const fields = csv[k].split(',');
          const [csvA, csvB, csvD] = fields.slice(-3).map(Number);
          assert.ok(Math.abs(csvA - a[i][j]) <= 1e-12 && Math.abs(csvB - b[i][j]) <= 1e-12, `csv A, B (${i}, ${j})`);
          assert.ok(Math.abs(csvD - d) <= 1e-12, `csv A − B (${i + 1}, ${j + 1})`);
          // The heatmap: diverging(Δ / max|Δ|), the same scale on both sides of 0.
          if (shown[k] !== null) {
            assert.deepEqual(pixels[k], diverging(d / maxAbs), `colour (${i + 1}, ${j + 1})`);
          }
        }
      }
      // The legend's two ends are ±max|Δ|, written the same.
      const m = maxAbs.toFixed(3);
      assert.ok(scaleLabel.includes(`from −${m} to +${m}`), scaleLabel);
      // Rows that changed most: the first is the row of largest Σ|Δ| (computed here).
      const l1 = a.map((row, i) => row.reduce((s, x, j) => s + Math.abs(x - b[i][j]), 0));
      const top = l1.indexOf(Math.max(...l1));
      assert.match(rows[0], new RegExp(`^Row ${top + 1} `));
      assert.ok(rows[0].includes(`Σ|Δ| = ${l1[top].toFixed(3)}`), rows[0]);
      consoleLog.assertClean();
    } finally {
      await context.close();
    }
  });
}

/** The difference canvas's colour at each cell centre, its label and the "rows changed" list. */
async function readDiffCanvas(page, n) {
  const section = page.getByTestId('compare');
  const canvas = section.locator('canvas.diff-heatmap');
  const tokens = await page.locator('.chips .chip').allTextContents();
  const width = await canvas.evaluate((c) => c.clientWidth);
  const layout = heatmapLayout(width, n, Math.max(...tokens.map((t) => [...t].length)), 13.0, true);
  const points = [];
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) points.push(layout.at(i, j));
  const pixels = await canvas.evaluate((c, pts) => {
    const dpr = c.width / c.clientWidth;
    // One read of the whole canvas (many small reads make Chromium warn on the console).
    const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
    return pts.map(({ x, y }) => {
      const k = 4 * (Math.floor(y * dpr) * c.width + Math.floor(x * dpr));
      return [data[k], data[k + 1], data[k + 2]];
    });
  }, points);
  assert.equal(await canvas.getAttribute('role'), 'img');
  const scaleLabel = await canvas.getAttribute('aria-label');
  const rows = await section.getByTestId('rows-changed').locator('li').allTextContents();
  return { rows, scaleLabel, pixels };
}

test('compare: identical settings give exactly 0, and the controls work by label and keyboard', { timeout: 90_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page, '', { file: 'practice.html' });
    await revealAnswer(page);
    const section = page.getByTestId('compare');
    assert.equal(await section.locator('canvas').count(), 0, 'off until a change is chosen');
    const kind = section.getByLabel('Choose what B changes');
    await kind.focus();
    await kind.selectOption('tau');
    await eventually(async () => assert.match(page.url(), /cmp=tau%3A2/));
    await section.locator('canvas.diff-heatmap[data-ready="true"]').waitFor();
    assert.match(await section.getByTestId('change-sentence').textContent(), /B uses τ = 2\.00 instead of A's 1\.00\./);
    // Typing A's own τ as B's value: every cell of the difference is exactly 0.
    const value = section.getByLabel("B's value");
    await value.fill('1');
    await value.press('Enter');
    await value.blur();
    await eventually(async () => assert.match(page.url(), /cmp=tau%3A1(&|$)/));
    await eventually(async () => {
      const ds = await section.locator('[data-testid="diff-table"] td[data-d]').evaluateAll((tds) => tds.map((td) => td.dataset.d));
      assert.equal(ds.length, 28);
      assert.ok(ds.every((d) => d === '0'), ds.join(' '));
    });
    assert.match(await section.locator('canvas.diff-heatmap').getAttribute('aria-label'), /from −0\.000 to \+0\.000/);
    // The difference canvas is in the tab order; a bad value is refused with a message.
    await section.locator('canvas.diff-heatmap').focus();
    assert.equal(await page.evaluate(() => document.activeElement.className), 'diff-heatmap');
    await value.fill('hot');
    await value.press('Enter');
    await value.blur();
    await eventually(async () => assert.match(await section.getByRole('alert').first().textContent(), /not a value for setting B/));
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('compare: a sentence of another length is refused with a message, no panic', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page, `cmp=${encodeURIComponent('s:the cat sat .')}`, { file: 'practice.html' });
    const section = page.getByTestId('compare');
    await eventually(async () =>
      assert.match(
        await section.getByRole('alert').first().textContent(),
        /Setting B's sentence has 4 tokens and A's has 7: a cell-by-cell difference needs sentences of equal length\./,
      ),
    );
    assert.equal(await section.locator('canvas').count(), 0);
    assert.equal(await page.locator('.panic-banner, [data-testid="panic-banner"]').count(), 0);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
