// Issue 13, point 3: the "Train a model" panel. Trains the repeat task in the browser for a short
// run with a fixed seed, checks the live views (steps, loss table, detector table, thumbnails),
// that the page keeps responding while it trains, and that the link retrains to the same loss.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, eventually } from './harness.mjs';

const app = useApp();
const STEPS = 60;

const panel = (page) => page.locator('[data-testid=training]');
const steps = async (page) => Number(await page.locator('[data-testid=train-steps] output').textContent());

/** The loss table as { step, all, first, repeated } rows (exact values from data-value). */
async function lossRows(page) {
  return page.locator('[data-testid=loss-table] tbody tr').evaluateAll((rows) =>
    rows.map((tr) => {
      const cells = [...tr.querySelectorAll('td')];
      return {
        step: Number(cells[0].textContent),
        all: cells[1].dataset.value,
        first: cells[2].dataset.value,
        repeated: cells[3].dataset.value,
        shown: cells.map((c) => c.textContent),
      };
    }),
  );
}

async function detectorRows(page) {
  return page.locator('[data-testid=detector-table] tbody tr').evaluateAll((rows) =>
    rows.map((tr) => [tr.querySelector('th').textContent, ...[...tr.querySelectorAll('td')].map((c) => c.textContent)]),
  );
}

/** Distinct colours on a canvas (a drawn heatmap has many; a blank one has one). */
const distinctColours = (canvas) =>
  canvas.evaluate((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    for (let i = 0; i < d.length; i += 4) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
    return seen.size;
  });

test('train the repeat task in the browser, pause, and reopen the link to the same state', { timeout: 180_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage();
  try {
    await app.open(page, 'tseed=3');
    const p = panel(page);
    await p.scrollIntoViewIfNeeded();
    await assert.doesNotReject(p.getByText('Not trained yet', { exact: false }).waitFor());
    assert.equal(await steps(page), 0);
    // Before training: 2 layers × 2 heads, one evaluation (step 0).
    assert.equal((await detectorRows(page)).length, 4);
    assert.equal((await lossRows(page)).length, 1);

    // Keyboard: focus Train and press Enter.
    const toggle = page.locator('[data-testid=train-toggle]');
    await toggle.focus();
    await page.keyboard.press('Enter');
    await eventually(async () => assert.equal(await toggle.textContent(), 'Pause'), 5_000);

    // While it trains, the temperature slider still updates the readout and the main heatmap.
    await eventually(async () => assert.ok((await steps(page)) >= 5), 60_000);
    const tauBefore = await page.locator('[data-testid=tau]').textContent();
    const inspectorBefore = await page.locator('[data-testid=inspector-table]').textContent();
    const stepsBefore = await steps(page);
    const t0 = Date.now();
    await page.locator('#temperature').focus();
    await page.keyboard.press('PageUp');
    await eventually(async () => {
      assert.notEqual(await page.locator('[data-testid=tau]').textContent(), tauBefore);
      assert.notEqual(await page.locator('[data-testid=inspector-table]').textContent(), inspectorBefore);
    }, 2_000);
    const responded = Date.now() - t0;
    assert.ok(responded < 2_000, `the slider took ${responded} ms to update the view while training`);

    await eventually(async () => assert.ok((await steps(page)) >= STEPS), 120_000);
    assert.ok((await steps(page)) > stepsBefore, 'training went on while the slider moved');
    await toggle.focus();
    await page.keyboard.press('Enter');
    await eventually(async () => assert.equal(await toggle.textContent(), 'Train'));
    const n = await steps(page);
    await page.waitForTimeout(300);
    assert.equal(await steps(page), n, 'paused: the step counter stands still');

    // The speed readout.
    assert.match(await page.locator('[data-testid=train-steps]').textContent(), /[\d.]+ steps\/s, \d+ tokens\/s/);
    // The sentence says what is shown.
    assert.equal(
      await page.locator('[data-testid=training-status]').textContent(),
      `Trained for ${n} steps on the repeat task; these weights were learned in your browser.`,
    );

    // The loss table: an evaluation every 25 steps, newest first; the loss fell.
    await page.getByText('Loss table', { exact: false }).click();
    const rows = await lossRows(page);
    const evals = Math.floor(n / 25) + 1;
    assert.equal(rows.length, evals);
    assert.deepEqual(rows.map((r) => r.step), [...Array(evals).keys()].map((i) => (evals - 1 - i) * 25));
    for (const r of rows) {
      for (const v of [r.all, r.first, r.repeated]) assert.ok(Number.isFinite(Number(v)) && Number(v) > 0, JSON.stringify(r));
      assert.equal(r.shown[1], Number(r.all).toFixed(3));
    }
    assert.ok(Number(rows[0].all) < Number(rows.at(-1).all), 'the held-out loss fell');

    // The detector table: every score in [0, 1], entropy within [0, log2 16].
    const detectors = await detectorRows(page);
    assert.deepEqual(detectors.map((r) => r[0]), ['Layer 1, head 1', 'Layer 1, head 2', 'Layer 2, head 1', 'Layer 2, head 2']);
    for (const r of detectors) {
      for (const v of r.slice(1, 5)) assert.ok(Number(v) >= 0 && Number(v) <= 1, `${r}`);
      assert.ok(Number(r[5]) >= 0 && Number(r[5]) <= 4, `${r}`);
    }
    assert.match(await page.locator('[data-testid=detector-table] caption').textContent(), new RegExp(`at step ${Math.floor(n / 25) * 25},`));

    // Thumbnails: 4 drawn canvases, the loss chart drawn.
    const thumbs = p.locator('.train-thumbs canvas');
    assert.equal(await thumbs.count(), 4);
    for (let i = 0; i < 4; i++) assert.ok((await distinctColours(thumbs.nth(i))) > 8, `thumbnail ${i + 1} is drawn`);
    assert.ok((await distinctColours(p.locator('[data-testid=loss-chart]'))) > 4);

    // Step once.
    await page.locator('[data-testid=train-step]').click();
    await eventually(async () => assert.equal(await steps(page), n + 1));
    // (Step n + 1 may be an evaluation step: read the tables again.)
    const rowsNow = await lossRows(page);
    const detectorsNow = await detectorRows(page);

    // The link carries the settings and the steps.
    await eventually(async () => assert.ok(page.url().includes(`tsteps=${n + 1}`), page.url()), 3_000);
    const link = new URL(page.url());
    assert.equal(link.searchParams.get('tseed'), '3');
    consoleLog.assertClean();

    // Reopening the link retrains to the same step and the same losses, exactly.
    const again = await app.newPage();
    try {
      await again.page.goto(link.href);
      await again.page.locator('[data-testid=training]').scrollIntoViewIfNeeded();
      await eventually(async () => {
        assert.equal(await steps(again.page), n + 1);
        assert.equal(await again.page.locator('[data-testid=train-toggle]').textContent(), 'Train');
      }, 120_000);
      await again.page.getByText('Loss table', { exact: false }).click();
      assert.deepEqual(await lossRows(again.page), rowsNow);
      assert.deepEqual(await detectorRows(again.page), detectorsNow);
      again.consoleLog.assertClean();
    } finally {
      await again.context.close();
    }

    // Reset goes back to step 0; a new seed starts a new run.
    await page.locator('[data-testid=train-reset]').click();
    await eventually(async () => assert.equal(await steps(page), 0));
    assert.equal((await lossRows(page)).length, 1);
    assert.equal((await lossRows(page))[0].all, rows.at(-1).all, 'the same seed starts from the same weights');
    await page.locator('#train-seed').fill('4');
    await page.locator('#train-seed').press('Tab');
    await eventually(async () => assert.notEqual((await lossRows(page))[0].all, rows.at(-1).all));
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
