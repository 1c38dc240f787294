// Step 3's x, q, k, v against the JSON download (x·W_q recomputed here),
// the "Symbols used here" glossary by keyboard, "scores" (never "logits") in the page text, and
// step 4's variance, Jacobian and ×8 read-outs against the lab table and independent arithmetic.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, downloadText, eventually } from './harness.mjs';

const app = useApp();

/** The page's JSON download, parsed. */
async function json(page) {
  const [dl] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download JSON' }).click(),
  ]);
  assert.equal(await dl.failure(), null);
  return JSON.parse(await downloadText(dl));
}

/** Numbers shown with 3 decimals agree with `expected` at that precision. */
function assertShown(shown, expected, what) {
  assert.equal(shown.length, expected.length, `${what}: length`);
  shown.forEach((s, i) => {
    assert.match(s, /^-?\d+\.\d{3}$/, `${what}[${i}] format: ${s}`);
    assert.ok(Math.abs(Number(s) - expected[i]) <= 0.0005 + 1e-9, `${what}[${i}]: shown ${s}, computed ${expected[i]}`);
  });
}

const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
/** Row vector `x` times the matrix `w` (rows × cols, as the JSON stores it). */
const times = (x, w) => w[0].map((_, c) => x.reduce((s, xi, i) => s + xi * w[i][c], 0));
const softmax = (s) => {
  const m = Math.max(...s);
  const e = s.map((v) => Math.exp(v - m));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
};
/** Frobenius norm of diag(p) − p pᵀ, entry by entry. */

test('step 3 shows x, q, k, v of the selected row, equal to x·W from the JSON', { timeout: 90_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    for (const [query, head] of [
      ['step=attention&row=4', 0],
      ['step=attention&row=6&heads=4&head=3', 2],
    ]) {
      await app.open(page, query);
      await page.getByTestId('trace-strips').scrollIntoViewIfNeeded();
      await page.locator('[data-testid=qkv-q]').waitFor();
      const data = await json(page);
      const row = Number(query.match(/row=(\d+)/)[1]) - 1;
      const labels = await page.locator('[data-testid=qkv-vectors] dt').allTextContents();
      assert.deepEqual(labels, [
        `x, row ${row + 1} of X (${data.d_model} numbers)`,
        `q = x·W_q (${data.head_size} numbers)`,
        `k = x·W_k (${data.head_size} numbers)`,
        `v = x·W_v (${data.head_size} numbers)`,
      ]);
      const shown = async (id) => page.locator(`[data-testid=${id}] span`).allTextContents();
      const x = data.embeddings[row];
      const h = data.heads[head];
      assertShown(await shown('qkv-x'), x, 'x');
      assertShown(await shown('qkv-q'), times(x, h.w_q), 'q');
      assertShown(await shown('qkv-k'), times(x, h.w_k), 'k');
      assertShown(await shown('qkv-v'), times(x, h.w_v), 'v');
      // The recomputed q·k of this row is the trace's first column (JSON scores), to 1e-9.
      const q = times(x, h.w_q);
      for (let j = 0; j <= row; j++) {
        assert.ok(Math.abs(dot(q, times(data.embeddings[j], h.w_k)) - h.scores[row][j]) < 1e-9);
      }
      const check = await page.locator('[data-testid=qkv-check]').textContent();
      assert.match(check, new RegExp(`^✓ .* each of the head's ${data.head_size} columns\\) equal row ${row + 1} of the Q, K and V`));
      const diff = Number(check.match(/largest difference (\S+)\.$/)[1]);
      assert.ok(diff < 1e-12, check);
      const intro = await page.locator('[data-testid=qkv-intro]').textContent();
      assert.ok(intro.includes(`d_model × d = ${data.d_model} × ${data.head_size}`), intro);
      // The roles are defined where q, k and v first appear.
      const dfns = await page.locator('#lesson-panel .qkv-roles dfn').allTextContents();
      assert.deepEqual(dfns, ['query', 'key', 'value']);
    }
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('the glossary opens by keyboard and defines every symbol; "logits" appears nowhere', { timeout: 90_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page, 'step=attention&row=4');
    const details = page.locator('[data-testid=glossary]');
    assert.equal(await details.evaluate((d) => d.open), false);
    await details.locator('summary').focus();
    await page.keyboard.press('Enter');
    await eventually(async () => assert.equal(await details.evaluate((d) => d.open), true));
    const entries = await details.locator('dt').evaluateAll((dts) =>
      dts.map((dt) => ({ symbol: dt.textContent.trim(), dfn: !!dt.querySelector('dfn'), text: dt.nextElementSibling?.textContent.trim() ?? '' })),
    );
    const symbols = entries.map((e) => e.symbol);
    for (const s of ['T', 'X', 'd_model', 'h', 'd', 'W_q, W_k, W_v', 'Q, K, V', 'scores', 'mask', 'A', 'concat', 'W_o', 'entropy (bits)', 'effective tokens']) {
      assert.ok(symbols.includes(s), `${s} missing from ${symbols}`);
    }
    for (const e of entries) {
      assert.ok(e.dfn, `${e.symbol} is not a <dfn>`);
      assert.ok(e.text.length > 10, `${e.symbol} has no definition`);
      assert.ok(await details.getByText(e.text).isVisible(), `${e.symbol}'s definition is not visible`);
    }
    // The live sizes in the definitions are the model's (JSON).
    const data = await json(page);
    const def = (s) => entries.find((e) => e.symbol === s).text;
    assert.ok(def('T').includes(`here ${data.tokens.length}`), def('T'));
    assert.ok(def('d_model').includes(`here ${data.d_model}`), def('d_model'));
    assert.ok(def('d').includes(`${data.d_model} ÷ ${data.n_heads} = ${data.head_size}`), def('d'));
    assert.ok(def('h').includes(`here ${data.n_heads}`), def('h'));
    assert.ok(def('concat').includes(`${data.n_heads} × ${data.head_size} = ${data.d_model}`), def('concat'));
    assert.ok(def('W_o').includes(`${data.w_o.length} × ${data.w_o[0].length}`), def('W_o'));
    // Enter again closes it (the download moved the focus).
    await details.locator('summary').focus();
    await page.keyboard.press('Enter');
    await eventually(async () => assert.equal(await details.evaluate((d) => d.open), false));
    await page.keyboard.press('Enter');

    // Entropy and effective tokens are defined in the inspector.
    const defs = await page.locator('[data-testid=stats-definitions]').textContent();
    assert.ok(defs.includes('−Σ w·log₂ w') && defs.includes('2^entropy'), defs);

    // "scores", never "logits", in the visible text of every step (glossary open).
    for (const step of ['average', 'attention', 'scaling']) {
      await page.locator(`#tab-${step}`).click();
      await eventually(async () => assert.equal(await page.getAttribute('#lesson-panel', 'data-step'), step));
      const text = (await page.evaluate(() => document.body.innerText)).toLowerCase();
      assert.ok(!text.includes('logit'), `"logit" on step ${step}`);
      const labels = await page.evaluate(() => [...document.querySelectorAll('[aria-label]')].map((e) => e.getAttribute('aria-label')).join(' '));
      assert.ok(!labels.toLowerCase().includes('logit'), `"logit" in an aria-label on step ${step}`);
    }
    assert.ok((await page.locator('#temperature-readout').textContent()).includes('scores (q·k) divided by √d·τ'));
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

/** The lab table as rows of cell texts. */
async function labRows(page) {
  return page.locator('[data-testid=lab-table] tbody tr').evaluateAll((trs) =>
    trs.map((tr) => ({ selected: tr.classList.contains('selected'), cells: [...tr.querySelectorAll('th, td')].map((c) => c.textContent.trim()) })),
  );
}

test('step 4: variance of q·k, the gradient reaching q and the ×8 example', { timeout: 90_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page, 'step=scaling&row=4');
    await page.locator('[data-testid=lab-variance]').waitFor();
    const rows = await labRows(page);
    assert.equal(rows.length, 10);
    for (const { cells } of rows) {
      const [d, , , vu, vs, gu, gs] = cells;
      const n = Number(d);
      // Scaling divides the variance by d (exactly; here at the shown precision).
      assert.ok(Math.abs(Number(vu) / n - Number(vs)) <= 0.005 / n + 0.0005 + 1e-9, `d=${d}: ${vu} / ${d} vs ${vs}`);
      // ≈ d and ≈ 1 within 5 standard errors of a variance over 1000 independent draws
      // (q·k has variance d and fourth moment 3d² + 6d).
      const tol = 5 * Math.sqrt((2 + 6 / n) / 1000);
      assert.ok(Math.abs(Number(vu) / n - 1) < tol, `unscaled variance at d=${d}: ${vu}`);
      assert.ok(Math.abs(Number(vs) - 1) < tol, `scaled variance at d=${d}: ${vs}`);
      // The median gradient reaching q: the same at d = 1, starved without scaling at large d.
      for (const g of [gu, gs]) assert.ok(Number(g) >= 0, `gradient ${g}`);
      if (n === 1) assert.equal(gu, gs);
      if (n >= 128) assert.ok(Number(gu) < Number(gs) / 2, `d=${d}: ${gu} vs ${gs}`);
    }

    for (const d of ['16', '256']) {
      await page.selectOption('#lab-d', d);
      await page.waitForFunction((d) => document.querySelector('[data-testid=lab-variance]').textContent.includes(`at d = ${d}:`), d);
      const sel = (await labRows(page)).find((r) => r.selected).cells;
      assert.equal(sel[0], d);
      const variance = await page.locator('[data-testid=lab-variance]').textContent();
      const m = variance.match(/^Variance of q·k over the (\d+) scores at d = (\d+): (\S+) unscaled \(expected: d = (\d+)\), (\S+) scaled \(expected: 1\)\. Dividing every score by √d = (\S+) divides the variance by d\.$/);
      assert.ok(m, variance);
      assert.equal(Number(m[1]), 8000);
      assert.deepEqual([m[2], m[3], m[4], m[5]], [d, sel[3], d, sel[4]]);
      assert.equal(Number(m[6]), Math.round(Math.sqrt(Number(d)) * 100) / 100);
      const gradient = await page.locator('[data-testid=lab-gradient]').textContent();
      const g = gradient.match(/At d = (\d+) the gradient reaching q has median (\S+) and mean (\S+) unscaled, median (\S+) and mean (\S+) scaled\./);
      assert.ok(g, gradient);
      assert.deepEqual([g[1], g[2], g[4]], [d, sel[5], sel[6]]);
      if (d === '256') {
        const m = gradient.match(/yet the median is (\S+)× smaller/);
        assert.ok(m, gradient);
        assert.ok(Math.abs(Number(m[1]) - Number(sel[6]) / Number(sel[5])) <= 0.05 * Number(m[1]) + 0.1, gradient);
      }
    }

    // The main view's row 4, head 1, recomputed from the JSON's raw scores.
    const data = await json(page);
    const t = 3;
    const raw = data.heads[0].scores[t].slice(0, t + 1);
    const scaled = Math.max(...softmax(raw.map((s) => s / Math.sqrt(data.head_size))));
    const unscaled = Math.max(...softmax(raw));
    const rowText = await page.locator('[data-testid=lab-row-gradient]').textContent();
    const r = rowText.match(/^The main view's row 4 \(“(.*)”\) of head 1 puts (\S+)% on its top key at τ = 1 and (\S+)% unscaled \(τ = 1\/√d\)\./);
    assert.ok(r, rowText);
    assert.equal(r[1], data.tokens[t]);
    assert.ok(Math.abs(Number(r[2]) / 100 - scaled) <= 0.0005 + 1e-9, `${r[2]} vs ${scaled}`);
    assert.ok(Math.abs(Number(r[3]) / 100 - unscaled) <= 0.0005 + 1e-9, `${r[3]} vs ${unscaled}`);
    assert.equal(rowText.includes('saturated'), unscaled > 0.99, rowText);

    // ×8: the ×8 row is 8 × the scaled row, and each softmax row is the softmax of its scores.
    const x8 = await page.locator('[data-testid=times-eight] tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((c) => Number(c.textContent))),
    );
    assert.equal(x8.length, 4);
    const [s, w, s8, w8] = x8;
    s8.forEach((v, j) => assert.ok(Math.abs(v - 8 * s[j]) <= 8 * 0.0005 + 0.0005 + 1e-9, `×8 key ${j + 1}`));
    softmax(s).forEach((v, j) => assert.ok(Math.abs(v - w[j]) < 0.002, `softmax key ${j + 1}`));
    softmax(s8).forEach((v, j) => assert.ok(Math.abs(v - w8[j]) < 0.005, `softmax ×8 key ${j + 1}`));
    const check = await page.locator('[data-testid=times-eight-check]').textContent();
    const c = check.match(/raises the largest weight from (\S+) to (\S+): /);
    assert.ok(c, check);
    assert.equal(Number(c[1]), Math.max(...w));
    assert.equal(Number(c[2]), Math.max(...w8));
    assert.ok(Number(c[2]) > Number(c[1]));
    assert.equal(check.includes('nearly one-hot'), Math.max(...w8) > 0.95);
    assert.ok(check.includes('✓ At d = 64, leaving out ÷√d is exactly this ×8'), check);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
