// "One path": a learner opens a fresh link and walks the lesson from step 1 to step 6
// with Next only, checking each step's key claim against the page's own numbers or its JSON
// download (recomputed here, never copied from the app's output), then walks back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, downloadText, eventually } from './harness.mjs';

const app = useApp();
const STEPS = ['average', 'softmax', 'attention', 'scaling', 'heads', 'positions'];

async function downloadJson(page) {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download JSON' }).click(),
  ]);
  return JSON.parse(await downloadText(download));
}

/** The page is on step `n` (1-based): panel, tab, "Step n of 6", its opening sentence, Back/Next. */
async function assertOnStep(page, n) {
  const key = STEPS[n - 1];
  await page.waitForFunction((k) => document.querySelector('#lesson-panel')?.dataset.step === k, key);
  assert.equal(await page.getAttribute(`#tab-${key}`, 'aria-selected'), 'true');
  assert.equal(await page.getByTestId('step-count').textContent(), `Step ${n} of 6`);
  const adds = await page.getByTestId('step-adds').textContent();
  assert.ok(adds.startsWith(`Step ${n} `), adds);
  assert.equal(await page.locator('.step-back').count(), n === 1 ? 0 : 1, `Back on step ${n}`);
  assert.equal(await page.locator('.step-next').count(), n === 6 ? 0 : 1, `Next on step ${n}`);
}

/** Press Next (a native button) and land on step `n`, with the focus on its heading. */
async function next(page, n) {
  await page.locator('.step-next').click();
  await assertOnStep(page, n);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'lesson-step-heading');
}

/** The rows of the shuffle table: [key, position after, weight before, weight after]. */
async function shuffleRows(page) {
  return page.locator('[data-testid=shuffle-table] tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('th, td')].map((c) => c.textContent.trim())),
  );
}

test('a fresh link walks the lesson from step 1 to step 6 with Next, then back', { timeout: 120_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page);
    assert.equal(new URL(page.url()).searchParams.get('step') ?? 'average', 'average');
    await assertOnStep(page, 1);

    // Step 1: wei · X equals the loop's running mean.
    const avgCheck = await page.getByTestId('averaging-check').textContent();
    assert.ok(avgCheck.startsWith('✓'), avgCheck);
    const avgDiff = Number(avgCheck.match(/largest difference (\d+(?:\.\d+)?e[+-]?\d+)/)[1]);
    assert.ok(avgDiff < 1e-12, avgCheck);
    // The same claim recomputed from the JSON's word vectors: the loop against wei · X.
    const json1 = await downloadJson(page);
    const x = json1.embeddings;
    for (let t = 0; t < x.length; t++) {
      for (let c = 0; c < x[0].length; c++) {
        let loop = 0;
        for (let s = 0; s <= t; s++) loop += x[s][c];
        loop /= t + 1;
        let product = 0;
        for (let s = 0; s <= t; s++) product += (1 / (t + 1)) * x[s][c];
        assert.ok(Math.abs(loop - product) < 1e-12, `row ${t + 1}, column ${c + 1}`);
      }
    }

    // Step 2, keyboard: Enter on the focused Next button.
    await page.locator('.step-next').focus();
    await page.keyboard.press('Enter');
    await assertOnStep(page, 2);
    assert.match(await page.getByTestId('zero-scores-check').textContent(), /^✓ .*equals wei bit for bit/);
    await page.getByRole('button', { name: 'Set τ = 100' }).click();
    const gapText = page.getByTestId('softmax-gap');
    await eventually(async () => assert.match(await gapText.textContent(), /at τ = 100\.0:/));
    const json2 = await downloadJson(page);
    assert.equal(json2.temperature, 100);
    // Largest |A(100) − wei| of head 1, with wei's 1/t worked out here (t counted from 1).
    const w = json2.heads[0].weights;
    let gap = 0;
    for (let i = 0; i < w.length; i++) {
      for (let j = 0; j < w.length; j++) gap = Math.max(gap, Math.abs(w[i][j] - (j <= i ? 1 / (i + 1) : 0)));
    }
    const shown = Number((await gapText.textContent()).match(/= (\d\.\d\de-?\d+)\.$/)[1]);
    assert.ok(Math.abs(shown - gap) <= 0.005 * gap + 1e-300, `page ${shown} vs JSON ${gap}`);
    // At the slider's top the live weights are within 1 % of step 1's matrix, and the future is 0.
    assert.ok(gap < 0.01, `A(100) is close to wei: ${gap}`);
    for (let i = 0; i < w.length; i++) for (let j = i + 1; j < w.length; j++) assert.equal(w[i][j], 0);

    // Step 3: the trace's sum and its check against A·V.
    await next(page, 3);
    await page.getByTestId('trace-strips').scrollIntoViewIfNeeded();
    await eventually(async () => {
      const sum = Number(await page.getByTestId('trace-sum').textContent());
      assert.ok(Math.abs(sum - 1) < 1e-9, `sum of weights ${sum}`);
      assert.ok((await page.getByTestId('trace-check').textContent()).startsWith('✓'));
    });

    // Step 4: the lab's readout agrees with its own table at d = 16, and scaling flattens.
    await next(page, 4);
    const readout = await page.getByTestId('lab-readout').textContent();
    const m = readout.match(/At d = 16: unscaled (\d\.\d{3}) .*scaled (\d\.\d{3}) /);
    assert.ok(m, readout);
    const row16 = await page.locator('[data-testid=lab-table] tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll('th, td')].map((c) => c.textContent.trim())).find((r) => r[0] === '16'),
    );
    // The same means, at the table's precision.
    assert.equal(row16[1].split(' ')[0], m[1], `${row16} vs ${readout}`);
    assert.equal(row16[2].split(' ')[0], m[2], `${row16} vs ${readout}`);
    assert.ok(Number(m[2]) < Number(m[1]), 'scaled rows are flatter than unscaled');

    // Step 5: the panel shows step 5 (its own checks come with the heads step).
    await next(page, 5);

    // Step 6: shuffling the past, positions off then on.
    await next(page, 6);
    await page.getByRole('button', { name: 'Shuffle the past' }).click();
    const check = page.getByTestId('shuffle-check');
    await check.waitFor();
    assert.match(await check.textContent(), /^✓ Every key kept its score/);
    const json6 = await downloadJson(page);
    assert.equal(json6.positions, false);
    const rowWeights = json6.heads[0].weights[5]; // row 6, "mat"
    const off = await shuffleRows(page);
    assert.equal(off.length, 6, 'one line per visible key of row 6');
    for (const [j, [key, , before, after]] of off.entries()) {
      assert.equal(key, `${j + 1} ${json6.tokens[j]}`);
      assert.ok(Math.abs(Number(before) - rowWeights[j]) <= 5e-7, `key ${j + 1}: ${before} vs ${rowWeights[j]}`);
      assert.equal(after, before, `key ${j + 1} keeps its weight without positions`);
    }
    // Row 6 keeps its own token last; the five before it were reordered.
    const order = (await page.getByTestId('shuffled-order').textContent()).replace('Shuffled order: ', '');
    assert.notEqual(order, json6.tokens.map((t) => `“${t}”`).join(' '));
    assert.ok(order.endsWith('“mat” “.”'), order);
    // The "The"/"the" tie, against the JSON: exactly equal without positions.
    assert.equal(rowWeights[0], rowWeights[4]);
    assert.match(await page.getByTestId('pair-in-row').textContent(), /exactly the same weight/);

    await page.check('#step-positions');
    await eventually(async () => assert.match(await check.textContent(), /^The row changed/));
    const on = await shuffleRows(page);
    assert.ok(on.some(([, , before, after]) => before !== after), `positions change the row: ${JSON.stringify(on)}`);
    const jsonOn = await downloadJson(page);
    assert.equal(jsonOn.positions, true);
    assert.notEqual(jsonOn.heads[0].weights[5][0], jsonOn.heads[0].weights[5][4]);
    assert.match(await page.getByTestId('pair-in-row').textContent(), /different weights/);
    for (const [j, [, , before]] of on.entries()) {
      assert.ok(Math.abs(Number(before) - jsonOn.heads[0].weights[5][j]) <= 5e-7, `key ${j + 1} with positions`);
    }

    // Back walks the same path in reverse, down to step 1, which has no Back.
    for (let n = 5; n >= 1; n--) {
      await page.locator('.step-back').click();
      await assertOnStep(page, n);
    }
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('step 6 presets apply "dog bites man" and "man bites dog"', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page, 'step=positions');
    await assertOnStep(page, 6);
    for (const sentence of ['dog bites man', 'man bites dog']) {
      await page.getByRole('button', { name: `“${sentence}”` }).click();
      await eventually(async () =>
        assert.deepEqual(await page.locator('.chips .chip').allTextContents(), sentence.split(' ')),
      );
      assert.equal(await page.inputValue('#sentence'), sentence, 'the sentence box shows it too');
      await page.waitForFunction((s) => new URL(location.href).searchParams.get('s') === s, sentence);
      // The last row's past, shuffled: without positions its weights stay put.
      await page.getByRole('button', { name: 'Shuffle the past' }).click();
      assert.match(await page.getByTestId('shuffle-check').textContent(), /^✓ Every key kept its score/);
    }
    // The swap the words describe: "man" (row 3) keeps each key's weight when its past is
    // reordered, until positions are on.
    const manRow = async (sentence) => {
      await page.getByRole('button', { name: `“${sentence}”` }).click();
      await page.waitForFunction((s) => new URL(location.href).searchParams.get('s') === s, sentence);
      await page.locator('.chips .chip').nth(2).click();
      const table = page.locator('[data-testid=inspector-table]');
      await eventually(async () => assert.match(await table.textContent(), /man/));
      const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent.trim())));
      return Object.fromEntries(rows.map((r) => [r[1], r[2]]));
    };
    assert.deepEqual(await manRow('dog bites man'), await manRow('bites dog man'));
    await page.locator('#positions').check();
    const before = await manRow('dog bites man');
    assert.notDeepEqual(before, await manRow('bites dog man'));
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
