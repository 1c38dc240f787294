// The training page's A/B: run B is run A with one change, trained beside it. A link with
// `b=mistake:no-mask` retrains both to step 200 (seed 1): run B's loss as it trains and with correct
// attention are both on the page, its download records the mistake and passes the NumPy check, and
// the page shows two head grids, two detector tables and when each run formed its circuit. The menu
// adds and removes run B through the link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, eventually, openRetrained, saveDownload, checkTrainJson, readCount, trainedSteps, grouped } from './harness.mjs';
import { heatmapLayout, cellCentrePixel, viridis, thumbnailPixels, LIGHT } from './heatmap_geometry.mjs';

const app = useApp();
const STEPS = 200;

test('a link with run B "no causal mask" retrains both runs and shows both loss measures', { timeout: 300_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage();
  try {
    await openRetrained(page, `${app.url}/train.html?tseed=1&tsteps=${STEPS}&b=mistake%3Ano-mask`, STEPS);
    const b = page.getByTestId('run-b');
    assert.equal(await b.locator('h3').first().textContent(), 'Run B: No causal mask (a training mistake)');
    assert.equal(await readCount(b.getByTestId('run-b-steps').locator('output')), STEPS);
    // Each run trains in a worker of its own, and the menu shows the link's choice.
    assert.equal(await page.getByTestId('training').getAttribute('data-engine'), 'worker');
    assert.equal(await page.getByTestId('train-b').inputValue(), 'mistake:no-mask');
    // Both measures, from run B's table (exact values) and in words.
    await b.getByText("Run B's loss table", { exact: false }).click();
    const row = await b.locator('[data-testid=run-b-loss-table] tbody tr').first().locator('td')
      .evaluateAll((tds) => tds.map((td) => td.dataset.value ?? td.textContent));
    assert.deepEqual(await b.locator('[data-testid=run-b-loss-table] thead th').allTextContents(),
      ['step', 'all, as it trains', 'all, with correct attention', 'first copy, as it trains', 'repeated part, as it trains']);
    const [step, asTrained, asUsed] = [Number(row[0]), Number(row[1]), Number(row[2])];
    assert.equal(step, STEPS);
    // tests/training_lab.rs pins these natively: 0.0007 as it trains, 18.69 with correct attention.
    assert.ok(asTrained < 0.01, `as trained ${asTrained}`);
    assert.ok(asUsed > 10, `as used ${asUsed}`);
    assert.equal(await b.getByTestId('as-used').textContent(),
      `At its latest evaluation, step ${STEPS}, run B's held-out loss is ${asTrained.toFixed(3)} nats as it trains (no causal mask) and ${asUsed.toFixed(3)} nats once the causal mask is back, as when the model is used to generate text; an even guess over the 32 tokens scores 3.466. Without the mask each position can see the very token it must predict and copy it, even in the random first copy: that is reading the answer, not learning. A model generating text has no later tokens to read.`);
    // The chart's legend and name speak of both runs.
    assert.match(await page.getByTestId('legend-runs').textContent(), /run A.*run B/);
    assert.match(await page.getByTestId('loss-chart').getAttribute('aria-label'), /Run B's losses are drawn dashed .* with correct attention dotted/);
    // Two grids, two detector tables, and when each formed its circuit (or that it has not).
    assert.match(await page.locator('.watch-heads h3').first().textContent(), /^Every head of run A, on held-out sequence 1, at step 200$/);
    assert.equal(await page.locator('.watch .train-thumbs canvas').count(), 4);
    assert.equal(await b.locator('.train-thumbs canvas').count(), 4);
    await b.getByTestId('detectors-past').waitFor();
    assert.equal(await page.locator('[data-testid=detector-table]').count(), 2);
    const summary = await b.getByTestId('ab-summary').locator('li').allTextContents();
    assert.equal(summary.length, 2);
    assert.match(summary[0], /^Run A (formed its copying circuit at step \d+|has not formed its copying circuit by step 200 \(its latest evaluation\))\.$/);
    assert.equal(summary[1], 'Run B reads later tokens, so the copying circuit\'s checks do not apply to it.');
    // Its checklist and composition test are not offered; the note says why.
    assert.equal(await b.getByTestId('circuit').count(), 0);
    assert.equal(await b.getByTestId('composition').count(), 0);
    // Run B's download: the mistake, both measures, and NumPy agrees (e2e/check_train_json.py).
    const saved = await saveDownload(page, () => b.getByTestId('download-model').click());
    assert.equal(saved.suggestedFilename, `trained-model-run-b-step${STEPS}.json`);
    const doc = JSON.parse(saved.text);
    assert.equal(doc.mistake, 'no-mask');
    assert.equal(doc.step, STEPS);
    assert.equal(doc.eval.loss, asTrained);
    assert.equal(doc.eval.as_used.loss, asUsed);
    assert.match(await checkTrainJson(saved.path), /^OK .*mistake no-mask/m);
    // Without the mask, run B's grid draws the weight on later tokens: the top-right cell of its
    // first head is viridis of the file's weight there (> 0), where run A's is the masked grey.
    const corner = async (canvas, n) => {
      const { width, dpr, data } = await thumbnailPixels(canvas);
      const { x, y } = cellCentrePixel(heatmapLayout(width, n, 1, 0, false), dpr, 0, n - 1);
      const at = (y * Math.round(width * dpr) + x) * 4;
      return data.slice(at, at + 3);
    };
    const first = doc.attention[0][0];
    const n = first.length;
    assert.ok(first[0][n - 1] > 0, 'no mask: row 1 weighs the last token');
    assert.deepEqual(await corner(b.locator('.train-thumbs canvas').first(), n), viridis(first[0][n - 1]));
    assert.deepEqual(await corner(page.locator('.watch .train-thumbs canvas').first(), n), LIGHT.masked);
    // Run A's download is a plain run: no mistake.
    const savedA = await saveDownload(page, () => page.getByRole('button', { name: 'Download this model of run A (JSON)' }).click());
    assert.equal(JSON.parse(savedA.text).mistake, undefined);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('the run B menu adds a run B to the link, trains it to run A\'s step, and removes it', { timeout: 240_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage();
  try {
    await openRetrained(page, `${app.url}/train.html?tseed=1&tsteps=50`, 50);
    assert.equal(await page.getByTestId('run-b').count(), 0);
    await page.getByLabel('Compare with run B').selectOption({ label: '1 layer' });
    await eventually(async () => assert.ok(page.url().includes('b=layers%3A1'), page.url()), 3_000);
    const b = page.getByTestId('run-b');
    await b.waitFor();
    assert.equal(await b.locator('h3').first().textContent(), 'Run B: 1 layer');
    // Run B catches up with run A's step, then both are paused.
    await eventually(async () => {
      assert.equal(await readCount(b.getByTestId('run-b-steps').locator('output')), 50);
      assert.equal(await page.getByTestId('train-toggle').textContent(), 'Train');
    }, 60_000);
    assert.equal(await b.locator('.train-thumbs canvas').count(), 2, 'one layer of two heads');
    // No mistake: no second measure, in words or as a column; one layer: no checklist.
    assert.equal(await b.getByTestId('as-used').count(), 0);
    await b.getByText("Run B's loss table", { exact: false }).click();
    assert.deepEqual(await b.locator('[data-testid=run-b-loss-table] thead th').allTextContents(),
      ['step', 'all, as it trains', 'first copy, as it trains', 'repeated part, as it trains']);
    assert.equal((await b.getByTestId('ab-summary').locator('li').allTextContents())[1],
      'Run B has one layer, so it cannot form the copying circuit, which takes two.');
    assert.equal(await b.getByTestId('circuit').count(), 0);
    // Step once steps both runs.
    await page.getByTestId('train-step').click();
    await eventually(async () => {
      assert.equal(await readCount(b.getByTestId('run-b-steps').locator('output')), 51);
      assert.equal(await trainedSteps(page), 51);
    }, 30_000);
    await page.getByLabel('Compare with run B').selectOption({ label: 'No run B' });
    await eventually(async () => assert.ok(!page.url().includes('b='), page.url()), 3_000);
    assert.equal(await b.count(), 0);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

/**
 * The note under run B's counter for step counts `a` and `b` (src/text/training_ab.rs,
 * `run_gap_note`, with no step target): `null` while they are equal.
 */
function gapNote(a, b) {
  if (a === b) return null;
  const why = a > b
    ? `${grouped(a - b)} more. Run B starts from step 0 whenever it is chosen, and each run trains at its own speed`
    : `${grouped(b - a)} fewer. Each run trains at its own speed`;
  return `Run A has trained for ${grouped(a)} ${a === 1 ? 'step' : 'steps'}, ${why}; the loss chart compares the two at the same step.`;
}

/** The run-gap note's text, or `null` where the page shows none. */
async function shownGapNote(b) {
  const note = b.getByTestId('run-gap');
  return (await note.count()) ? note.textContent() : null;
}

// Which run is ahead when both pause depends on how the two workers were scheduled, so the test
// reads the two counters once both are paused and checks the note against them, whichever way they
// differ. Run B is run A with another seed: the same work per step, so run A's head start from
// before run B was chosen normally leaves it ahead.
test('run B chosen while run A trains: the page says why their step counts differ', { timeout: 240_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage();
  try {
    await openRetrained(page, `${app.url}/train.html?tseed=1&tsteps=30`, 30);
    const toggle = page.getByTestId('train-toggle');
    await toggle.click();
    await eventually(async () => assert.equal(await toggle.textContent(), 'Pause'), 5_000);
    // Let run A get ahead, then add run B: it starts from step 0 and trains along.
    await eventually(async () => assert.ok(await trainedSteps(page) > 60), 30_000);
    await page.getByLabel('Compare with run B').selectOption({ label: 'Seed 2' });
    const b = page.getByTestId('run-b');
    const bCounter = b.getByTestId('run-b-steps').locator('output');
    await b.waitFor();
    await eventually(async () => assert.ok(await readCount(bCounter) > 0), 30_000);
    await toggle.click();
    await eventually(async () => assert.equal(await toggle.textContent(), 'Train'), 10_000);
    // Both are paused: the counters stand, and the note gives run A's count and the gap.
    const aSteps = await trainedSteps(page);
    const bSteps = await readCount(bCounter);
    assert.equal(await shownGapNote(b), gapNote(aSteps, bSteps), `A ${aSteps}, B ${bSteps}`);
    // Step once steps both: the gap stays, and the note follows the counters.
    await page.getByTestId('train-step').click();
    await eventually(async () => {
      assert.equal(await readCount(bCounter), bSteps + 1);
      assert.equal(await trainedSteps(page), aSteps + 1);
      assert.equal(await shownGapNote(b), gapNote(aSteps + 1, bSteps + 1));
    }, 30_000);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
