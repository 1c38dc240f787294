// Bounded however long it runs: retraining a link to 20,000 steps (800 evaluations) leaves the
// training page with about as many DOM nodes as at step 0. The loss table lists the kept
// checkpoints (at most 64, as Replay keeps them) and the latest evaluation, not every evaluation;
// the loss curve keeps at most 1,024 evaluations (model::train::run_record).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, openRetrained } from './harness.mjs';

const app = useApp();
const STEPS = 20_000;
/** Kept checkpoints (MAX_CHECKPOINTS) plus the latest evaluation. */
const MAX_ROWS = 65;
/** DOM nodes a long run may add to the page at step 0 (loss table rows, five elements each). */
const MAX_GROWTH = MAX_ROWS * 5 + 100;

const nodes = (page) => page.evaluate(() => document.getElementsByTagName('*').length);

test('a run of 20,000 steps keeps the page bounded: DOM nodes, loss table rows', { timeout: 300_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage();
  try {
    await app.open(page, 'tseed=1', { file: 'train.html' });
    await page.getByText('Loss table', { exact: false }).click();
    const atStart = await nodes(page);
    const started = Date.now();
    await openRetrained(page, `${app.url}/train.html?tseed=1&tsteps=${STEPS}`, STEPS, 280_000);
    await page.getByText('Loss table', { exact: false }).click();
    const rows = await page.locator('[data-testid=loss-table] tbody tr').count();
    const atEnd = await nodes(page);
    console.log(`${STEPS} steps in ${((Date.now() - started) / 1000).toFixed(0)} s; DOM nodes ${atStart} at step 0, ${atEnd} after; loss table ${rows} rows`);
    assert.ok(rows <= MAX_ROWS, `${rows} loss table rows`);
    const first = await page.locator('[data-testid=loss-table] tbody tr td:first-child').allTextContents();
    assert.equal(Number(first[0]), STEPS, 'the latest evaluation first');
    assert.equal(Number(first.at(-1)), 0, 'step 0 last');
    assert.ok(atEnd - atStart <= MAX_GROWTH, `DOM nodes grew from ${atStart} to ${atEnd}`);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
