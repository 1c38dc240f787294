// The lesson steps (averaging, trace, scaling lab), the positions toggle and
// multi-head attention. Every number is checked against the page's own JSON download or against
// the values the notebook prints, never against constants copied from the app's output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, downloadJson, eventually } from './harness.mjs';
import { clickHeatmapRow } from './heatmap_geometry.mjs';

const app = useApp();

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/** The inspector caption's row number (1-based) and token. */
async function inspectorRow(page) {
  const caption = await page.locator('[data-testid=inspector-table] caption').textContent();
  const m = caption.match(/Attention weights of “(.*)” \(row (\d+)\)/);
  assert.ok(m, `unexpected caption: ${caption}`);
  return { token: m[1], row: Number(m[2]) };
}

/** Inspector lines: [{ index (1-based), token, weight (fraction) | null when masked, text }]. */
async function inspectorLines(page) {
  return page.locator('[data-testid=inspector-table] tbody tr').evaluateAll((rows) =>
    rows.map((tr) => {
      const cells = tr.querySelectorAll('td, th');
      const text = cells[2].textContent.trim();
      return {
        index: Number(cells[0].textContent),
        token: cells[1].textContent,
        text,
        weight: text === 'masked' ? null : Number(text.replace('%', '')) / 100,
      };
    }),
  );
}

/** Assert the inspector shows `row` (0-based) of `weights` (a JSON matrix) as one-decimal percents. */
function assertInspectorMatches(lines, weights, row, what) {
  assert.equal(lines.length, weights.length, `${what}: one line per key`);
  for (const [j, line] of lines.entries()) {
    if (j > row) {
      assert.equal(line.weight, null, `${what}: key ${j + 1} is masked`);
    } else {
      assert.ok(
        Math.abs(line.weight * 100 - weights[row][j] * 100) <= 0.05 + 1e-9,
        `${what}: key ${j + 1} shows ${line.text}, JSON has ${weights[row][j]}`,
      );
    }
  }
}

/** Parse "unscaled 0.75 (10–90 %: 0.46–0.99), scaled 0.35 (10–90 %: 0.23–0.52)". */
function parseReadout(text) {
  const num = '(\\d+(?:\\.\\d+)?)';
  const m = text.match(
    new RegExp(`At d = (\\d+): unscaled ${num} \\(10–90 %: ${num}–${num}\\), scaled ${num} \\(10–90 %: ${num}–${num}\\) over (\\d+) draws`),
  );
  assert.ok(m, `unexpected lab readout: ${text}`);
  const [d, um, u10, u90, sm, s10, s90, draws] = m.slice(1).map(Number);
  return { d, draws, unscaled: { mean: um, p10: u10, p90: u90 }, scaled: { mean: sm, p10: s10, p90: s90 } };
}

/** Rows of the lab table: { d, unscaled: {mean,p10,p90}, scaled: {...} }. */
async function labTable(page) {
  const rows = await page.locator('[data-testid=lab-table] tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('th, td')].map((c) => c.textContent.trim())),
  );
  const cell = (s) => {
    const m = s.match(/^(\d+\.\d+) \((\d+\.\d+)–(\d+\.\d+)\)$/);
    assert.ok(m, `unexpected lab cell: ${s}`);
    return { mean: Number(m[1]), p10: Number(m[2]), p90: Number(m[3]) };
  };
  return rows.map(([d, u, s]) => ({ d: Number(d), unscaled: cell(u), scaled: cell(s) }));
}

// ---------------------------------------------------------------------------
// Steps
// ---------------------------------------------------------------------------

test('steps 1–2: averaging heatmap, live check, clickable rows', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page);
    await page.locator('#tab-average').click();
    assert.equal(await page.getAttribute('#lesson-panel', 'data-step'), 'average');
    assert.equal(await page.getAttribute('#tab-average', 'aria-selected'), 'true');
    const avg = page.locator('#lesson-panel canvas.heatmap');
    await avg.waitFor();
    assert.equal(await page.locator('canvas.heatmap').count(), 2, 'main + averaging heatmap');
    assert.match(await avg.getAttribute('aria-label'), /^Averaging matrix.*7 query tokens by 7 key tokens/);
    // The averaging canvas really has pixels (not a blank canvas).
    const drawn = await avg.evaluate((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let nonWhite = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] < 250 || d[i + 1] < 250 || d[i + 2] < 250) nonWhite++;
      return nonWhite;
    });
    assert.ok(drawn > 1000, `averaging heatmap drew ${drawn} non-white pixels`);

    const check = await page.locator('[data-testid=averaging-check]').textContent();
    assert.ok(check.startsWith('✓'), check);
    const diff = Number(check.match(/largest difference (\d+(?:\.\d+)?e[+-]?\d+)/)[1]);
    assert.ok(diff < 1e-12, `max abs diff ${diff}`);

    assert.deepEqual(await inspectorRow(page), { token: 'mat', row: 6 });
    await clickHeatmapRow(page, avg, 2);
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=inspector-table] caption').textContent.includes('(row 3)'),
    );
    assert.deepEqual(await inspectorRow(page), { token: 'sat', row: 3 });
    // The step text follows the selected row: row 3 takes a third from each visible token.
    assert.match(await page.locator('#lesson-panel').textContent(), /row 3 \(“sat”\) takes 33\.3% from each of its 3 visible tokens/);
    // Beside it, the same row of the attention heatmap, with the inspector's numbers.
    const lines = await inspectorLines(page);
    const beside = lines.slice(0, 3).map((l) => `“${l.token}” ${l.text}`).join(', ');
    assert.equal(await page.getByTestId('attention-row-beside').textContent(), `The same row of the attention heatmap at the top: ${beside}.`);
    await clickHeatmapRow(page, avg, 0);
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=inspector-table] caption').textContent.includes('(row 1)'),
    );
    assert.deepEqual(await inspectorRow(page), { token: 'The', row: 1 });
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('step 3: trace table agrees with the inspector and the JSON, masks the future', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page, 'row=4&step=attention');
    assert.equal(await page.getAttribute('#lesson-panel', 'data-step'), 'attention');
    const json = await downloadJson(page);
    const row = 3; // 0-based: "on"
    assert.deepEqual(await inspectorRow(page), { token: 'on', row: 4 });
    assert.match(await page.locator('[data-testid=trace-table] caption').textContent(), /“on” \(row 4\), head 1, d = 16, τ = 1\.000/);

    const trace = await page.locator('[data-testid=trace-table] tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll('th, td')].map((c) => c.textContent.trim())),
    );
    const lines = await inspectorLines(page);
    assert.equal(trace.length, json.tokens.length);
    const scores = json.heads[0].scores;
    const weights = json.heads[0].weights;
    for (const [j, [key, qk, bySqrt, byTau, masked, softmax]] of trace.entries()) {
      assert.equal(key, json.tokens[j]);
      assert.ok(Math.abs(Number(qk) - scores[row][j]) <= 5e-4 + 1e-12, `q·k of key ${j}: ${qk} vs ${scores[row][j]}`);
      assert.ok(Math.abs(Number(bySqrt) - scores[row][j] / 4) <= 5e-4 + 1e-12, `÷√d of key ${j}`);
      assert.equal(byTau, bySqrt, 'τ = 1 leaves the scaled scores unchanged');
      if (j > row) {
        assert.equal(masked, '−∞', `key ${j} masked`);
        assert.equal(softmax, '0 (masked)');
        assert.equal(lines[j].weight, null);
      } else {
        assert.equal(masked, byTau);
        const w = Number(softmax);
        assert.ok(Math.abs(w - weights[row][j]) <= 5e-5 + 1e-12, `softmax of key ${j}: ${w} vs ${weights[row][j]}`);
        // Same number as the inspector's percentage (each rounded on its own).
        assert.ok(Math.abs(w * 100 - lines[j].weight * 100) <= 0.05 + 0.005 + 1e-9, `key ${j}: trace ${softmax} vs inspector ${lines[j].text}`);
      }
    }
    const sum = Number(await page.locator('[data-testid=trace-sum]').textContent());
    assert.ok(Math.abs(sum - 1) < 1e-9, `sum of weights ${sum}`);
    const check = await page.locator('[data-testid=trace-check]').textContent();
    assert.ok(check.startsWith('✓'), check);
    assert.match(check, /row 4 of A·V/);

    // Another row from the main heatmap: the trace follows.
    await clickHeatmapRow(page, page.locator('canvas.heatmap').first(), 1);
    // The trace skips work while scrolled away and catches up when it is seen again: look at it.
    await page.getByTestId('trace-strips').scrollIntoViewIfNeeded();
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=trace-table] caption').textContent.includes('(row 2)'),
    );
    const masks = await page.locator('[data-testid=trace-table] tbody tr td:nth-child(6)').allTextContents();
    assert.deepEqual(masks.map((t) => t === '0 (masked)'), [false, false, true, true, true, true, true]);
    assert.ok(Math.abs(Number(await page.locator('[data-testid=trace-sum]').textContent()) - 1) < 1e-9);
    assert.ok((await page.locator('[data-testid=trace-check]').textContent()).startsWith('✓'));
    // The strips have a visible legend; at τ = 1 there is no τ note.
    assert.match(await page.getByTestId('strip-legend').textContent(), /orange for positive, blue for negative/);
    assert.equal(await page.getByTestId('trace-tau-note').count(), 0);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('step 3 after step 2\'s τ = 100: the trace says so, and one click resets τ', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page, 'step=attention&tau=100');
    const note = page.getByTestId('trace-tau-note');
    await note.waitFor();
    assert.match(await note.textContent(), /^τ = 100\.0 on the slider, not 1: this trace divides every score by it too/);
    const button = note.getByRole('button', { name: 'Reset τ to 1' });
    await button.scrollIntoViewIfNeeded();
    const before = await page.evaluate(() => window.scrollY);
    const noteHeight = (await note.boundingBox()).height;
    await button.click();
    await note.waitFor({ state: 'detached' });
    // The page stays at the step, not at the slider far above it (the trace follows the view
    // while it is on screen): it moves by at most the note's own height, which scroll anchoring
    // takes out as the note goes.
    const moved = Math.abs((await page.evaluate(() => window.scrollY)) - before);
    assert.ok(moved <= noteHeight + 1, `the page moved ${moved} px (the note was ${noteHeight} px high)`);
    // The keyboard stays on the slider the button reset, not on the page's body.
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'temperature');
    await page.waitForFunction(() => document.querySelector('[data-testid=trace-table] caption').textContent.includes('τ = 1.000'));
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('step 4: scaling lab readout, table and notebook draws', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page, 'step=scaling');
    assert.equal(await page.getAttribute('#lesson-panel', 'data-step'), 'scaling');
    assert.equal(await page.inputValue('#lab-d'), '16');
    const readout = page.locator('[data-testid=lab-readout]');
    // The lab's chart is built when the lesson first comes near the screen.
    assert.equal(await page.locator('#lesson-panel canvas').count(), 0, 'no lab chart before the lesson nears the screen');
    await page.locator('#lesson-panel').evaluate((el) => el.scrollIntoView());
    const labCanvas = page.locator('#lesson-panel canvas[data-ready]');
    const before = await labCanvas.evaluate((c) => c.toDataURL());
    const at16 = parseReadout(await readout.textContent());
    assert.equal(at16.d, 16);
    assert.ok(at16.draws >= 100, `draws shown: ${at16.draws}`);

    await page.selectOption('#lab-d', '256');
    await page.waitForFunction(() => document.querySelector('[data-testid=lab-readout]').textContent.includes('d = 256'));
    const at256 = parseReadout(await readout.textContent());
    assert.notDeepEqual(at256, at16);
    // The chart redraws with the current head size marked.
    await page.waitForFunction((b) => document.querySelector('#lesson-panel canvas').toDataURL() !== b, before);
    assert.equal(await page.locator('[data-testid=lab-table] tbody tr.selected th').textContent(), '256');

    const near = (x, target, tol, what) => assert.ok(Math.abs(x - target) <= tol, `${what}: ${x} not within ${tol} of ${target}`);
    near(at16.unscaled.mean, 0.75, 0.05, 'unscaled mean, d=16');
    near(at256.unscaled.mean, 0.94, 0.05, 'unscaled mean, d=256');
    near(at16.scaled.mean, 0.36, 0.05, 'scaled mean, d=16');
    near(at256.scaled.mean, 0.36, 0.05, 'scaled mean, d=256');

    // The notebook's single draws (003: 0.87/0.32 at d=16, 0.94/0.24 at d=256) lie in the bands.
    const text = await page.locator('#lesson-panel').textContent();
    // The plain version and the two-key example come first; the measurement is under a disclosure.
    assert.match(await page.getByTestId('two-key-example').textContent(), /from 26\.89% to 37\.75% .* about [0-9,]+ times less/);
    assert.equal(await page.locator('details.precise [data-testid=lab-gradient]').count(), 1);
    assert.match(text, /Quoted from the notebook, not computed here \(one random draw each\): at d = 16, 0\.87 unscaled and 0\.32 scaled; at d = 256, 0\.94 unscaled and 0\.24 scaled\./);
    const inside = (x, band, what) => assert.ok(band.p10 <= x && x <= band.p90, `${what}: ${x} outside ${band.p10}–${band.p90}`);
    inside(0.87, at16.unscaled, 'notebook unscaled d=16');
    inside(0.32, at16.scaled, 'notebook scaled d=16');
    inside(0.94, at256.unscaled, 'notebook unscaled d=256');
    inside(0.24, at256.scaled, 'notebook scaled d=256');

    // The table agrees with the readout and shows the trend at every head size.
    const table = await labTable(page);
    assert.deepEqual(table.map((r) => r.d), [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]);
    for (const [d, r] of [[16, at16], [256, at256]]) {
      const t = table.find((x) => x.d === d);
      near(t.unscaled.mean, r.unscaled.mean, 0.005 + 1e-9, `table vs readout unscaled d=${d}`);
      near(t.scaled.mean, r.scaled.mean, 0.005 + 1e-9, `table vs readout scaled d=${d}`);
      near(t.unscaled.mean, d === 16 ? 0.75 : 0.94, 0.05, `table unscaled d=${d}`);
    }
    for (const r of table) {
      near(r.scaled.mean, 0.36, 0.06, `scaled mean stays flat, d=${r.d}`);
      assert.ok(r.unscaled.p10 <= r.unscaled.mean && r.unscaled.mean <= r.unscaled.p90, `unscaled band d=${r.d}`);
      assert.ok(r.scaled.p10 <= r.scaled.mean && r.scaled.mean <= r.scaled.p90, `scaled band d=${r.d}`);
    }
    for (let i = 1; i < table.length; i++) {
      assert.ok(table[i].unscaled.mean >= table[i - 1].unscaled.mean, `unscaled grows with d at ${table[i].d}`);
    }
    assert.equal(table[0].unscaled.mean, table[0].scaled.mean, 'd = 1: scaling by 1/√1 changes nothing');
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('lesson tabs: click and ArrowLeft/ArrowRight keyboard navigation', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page, 'step=attention');
    const selected = () =>
      page.locator('[role=tab]').evaluateAll((tabs) => tabs.filter((t) => t.getAttribute('aria-selected') === 'true').map((t) => t.id));
    assert.deepEqual(await selected(), ['tab-attention']);
    // Roving tabindex: only the selected tab is in the tab order.
    assert.deepEqual(
      await page.locator('[role=tab]').evaluateAll((tabs) => tabs.map((t) => t.tabIndex)),
      [-1, -1, 0, -1, -1, -1],
    );
    await page.focus('#tab-attention');
    const expectStep = async (id, step) => {
      await page.waitForFunction((s) => document.querySelector('#lesson-panel').dataset.step === s, step);
      assert.deepEqual(await selected(), [id]);
      assert.equal(await page.evaluate(() => document.activeElement.id), id, 'focus moves with the selection');
      assert.equal(await page.getAttribute('#lesson-panel', 'aria-labelledby'), id);
    };
    await page.keyboard.press('ArrowRight');
    await expectStep('tab-scaling', 'scaling');
    await page.locator('[data-testid=lab-readout]').waitFor();
    await page.keyboard.press('End');
    await expectStep('tab-positions', 'positions');
    await page.keyboard.press('ArrowRight'); // wraps around
    await expectStep('tab-average', 'average');
    // Its check is folded under "How we know": in the page, not shown.
    await page.locator('[data-testid=averaging-check]').waitFor({ state: 'attached' });
    await page.keyboard.press('ArrowLeft'); // wraps back
    await expectStep('tab-positions', 'positions');
    await page.keyboard.press('Home');
    await expectStep('tab-average', 'average');
    await page.keyboard.press('ArrowRight');
    await expectStep('tab-softmax', 'softmax');
    await page.keyboard.press('ArrowRight');
    await expectStep('tab-attention', 'attention');
    await page.locator('[data-testid=trace-table]').waitFor();
    // The URL records the step.
    await page.keyboard.press('ArrowRight');
    await expectStep('tab-scaling', 'scaling');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('step') === 'scaling');
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

// ---------------------------------------------------------------------------
// Positions
// ---------------------------------------------------------------------------

test('positions toggle: "The" and "the" share keys until positions are added', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page);
    assert.equal(await page.isChecked('#positions'), false);
    const help = page.getByTestId('positions-help');
    const helpOff = await help.textContent();
    assert.match(helpOff, /identical/);

    const off = await downloadJson(page);
    assert.equal(off.positions, false);
    assert.equal(off.tokens[0], 'The');
    assert.equal(off.tokens[4], 'the');
    const col = (m, j) => m.map((r) => r[j]);
    for (const [h, head] of off.heads.entries()) {
      assert.deepEqual(col(head.scores, 0), col(head.scores, 4), `head ${h + 1}: key columns of “The” and “the” are identical`);
      assert.deepEqual(head.scores[0], head.scores[4], `head ${h + 1}: their queries too`);
    }
    assert.deepEqual(off.embeddings[0], off.embeddings[4], 'same embedding without positions');
    // The inspector of "mat" shows the same weight for both.
    const linesOff = await inspectorLines(page);
    assert.equal(linesOff[0].text, linesOff[4].text);

    await page.check('#positions');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('pos') === '1');
    const helpOn = await help.textContent();
    assert.notEqual(helpOn, helpOff);
    assert.match(helpOn, /different keys/);
    const on = await downloadJson(page);
    assert.equal(on.positions, true);
    for (const [h, head] of on.heads.entries()) {
      assert.notDeepEqual(col(head.scores, 0), col(head.scores, 4), `head ${h + 1}: positions separate “The” and “the”`);
    }
    assert.notDeepEqual(on.embeddings[0], on.embeddings[4]);
    // Same seed: the projections do not change, only the inputs.
    assert.deepEqual(on.heads[0].w_q, off.heads[0].w_q);
    await eventually(async () => assertInspectorMatches(await inspectorLines(page), on.heads[0].weights, 5, 'with positions'));

    await page.uncheck('#positions');
    await eventually(async () => assert.equal(await help.textContent(), helpOff));
    const again = await downloadJson(page);
    assert.deepEqual(again.heads[0].scores, off.heads[0].scores, 'toggling back restores the scores');
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('step 6: the swap exercise names the head where the swap shows', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page, 'step=positions&heads=4');
    const said = page.getByTestId('swap-head');
    await page.waitForFunction(() => /look at head [1-4]:/.test(document.querySelector('[data-testid=swap-head]')?.textContent ?? ''));
    assert.match(await said.textContent(), /^With 4 heads, look at head [1-4]: with position codes on, the swap changes its row of “man” the most/);
    await app.open(page, 'step=positions&heads=1');
    await said.waitFor({ state: 'attached' });
    assert.equal(await said.textContent(), '');
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

// ---------------------------------------------------------------------------
// Heads
// ---------------------------------------------------------------------------

test('heads: 1/2/4/8 thumbnails, JSON split, clicking a thumbnail switches head', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page, 'step=attention');
    const heading = page.locator('#heatmap-title');
    for (const n of [1, 2, 4, 8]) {
      await page.selectOption('#heads', String(n));
      await page.waitForFunction((k) => new URL(location.href).searchParams.get('heads') === String(k), n);
      const json = await downloadJson(page);
      assert.equal(json.n_heads, n);
      assert.equal(json.heads.length, n);
      assert.equal(json.d_model, 32);
      assert.equal(json.head_size, 32 / n);
      for (const head of json.heads) {
        assert.equal(head.w_q.length, 32, 'w_q has d_model rows');
        assert.equal(head.w_q[0].length, 32 / n, 'w_q has head_size columns');
        assert.equal(head.weights.length, 7);
      }
      assert.equal(await page.locator('[data-testid=divisor]').textContent(), Math.sqrt(32 / n).toFixed(3));
      if (n === 1) {
        assert.equal(await page.locator('.thumbs').count(), 0, 'no thumbnail list for one head');
        assert.match(await heading.textContent(), /one head$/);
        await eventually(async () => assertInspectorMatches(await inspectorLines(page), json.heads[0].weights, 5, '1 head'));
        continue;
      }
      await page.locator('.thumbs .thumb').nth(n - 1).waitFor();
      assert.equal(await page.locator('.thumbs .thumb').count(), n);
      assert.equal(await page.locator('.thumbs canvas').count(), n);

      await page.locator('.thumbs .thumb').nth(0).click();
      const first = await eventually(async () => {
        assert.equal(await heading.textContent(), `Who attends to whom — head 1 of ${n}`);
        assert.equal(await page.locator('.thumbs .thumb').nth(0).getAttribute('aria-pressed'), 'true');
        const lines = await inspectorLines(page);
        assertInspectorMatches(lines, json.heads[0].weights, 5, `${n} heads, head 1`);
        return lines;
      });

      await page.locator('.thumbs .thumb').nth(1).click();
      await page.waitForFunction(
        (k) => document.querySelector('#heatmap-title').textContent.endsWith(`head 2 of ${k}`),
        n,
      );
      assert.equal(await page.locator('.thumbs .thumb').nth(1).getAttribute('aria-pressed'), 'true');
      assert.equal(await page.locator('.thumbs .thumb[aria-pressed=true]').count(), 1);
      const second = await eventually(async () => {
        const lines = await inspectorLines(page);
        assertInspectorMatches(lines, json.heads[1].weights, 5, `${n} heads, head 2`);
        return lines;
      });
      assert.notDeepEqual(json.heads[1].weights[5], json.heads[0].weights[5], 'heads differ');
      assert.notDeepEqual(second.map((l) => l.text), first.map((l) => l.text), 'inspector changed with the head');
      // The trace skips work while scrolled away and catches up when it is seen again: look at it.
      await page.getByTestId('trace-strips').scrollIntoViewIfNeeded();
      await eventually(async () =>
        assert.match(await page.locator('[data-testid=trace-table] caption').textContent(), /head 2, d = /),
      );
    }
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
