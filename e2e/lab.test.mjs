// The training page's lab: knock out heads (predict first, then the result beside the intact
// model). Seed 1 retrained from a link to step 1,200, where its copying circuit has formed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, eventually, openRetrained, saveDownload, checkTrainJson, grouped } from './harness.mjs';

const app = useApp();
const STEPS = 1200;

const retrain = (page, query) => openRetrained(page, `${app.url}/train.html?${query}`, STEPS);

/** Layer 1's head with the highest previous-token score in the detector table (from 1). */
async function previousTokenHead(page) {
  const rows = await page.locator('[data-testid=detector-table] tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [tr.querySelector('th').textContent, Number(tr.querySelectorAll('td')[0].textContent)]));
  const layer1 = rows.filter(([name]) => name.startsWith('Layer 1,'));
  const [name] = layer1.reduce((best, r) => (r[1] > best[1] ? r : best));
  return Number(name.match(/head (\d+)/)[1]);
}

/** The knock-out losses table: { name: [intact, knocked] } from the exact data-value cells. */
const knockoutLosses = (page) =>
  page.locator('[data-testid=knockout-losses] tbody tr').evaluateAll((trs) =>
    Object.fromEntries(trs.map((tr) => {
      const tds = tr.querySelectorAll('td');
      return [tr.querySelector('th').textContent, [Number(tds[0].dataset.value), Number(tds[1].dataset.value)]];
    })));

test('knock out layer 1\'s previous-token head: predict first, then the repeated part\'s loss rises', { timeout: 240_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage();
  try {
    await retrain(page, `tseed=1&tsteps=${STEPS}`);
    const head = await previousTokenHead(page);
    // A labelled checkbox per head; keyboard: focus and Space.
    const box = page.getByRole('checkbox', { name: `Layer 1, head ${head}` });
    await box.focus();
    await page.keyboard.press('Space');
    assert.ok(await box.isChecked());
    await eventually(async () => assert.ok(page.url().includes(`ko=1.${head}`), page.url()), 3_000);
    // Predict first: the question, no numbers yet.
    const results = page.getByTestId('knockout-results');
    assert.match(await results.locator('h3').textContent(), new RegExp(`Knocked out: layer 1 head ${head} \\(zero-ablated\\)`));
    assert.match(await page.getByTestId('ko-predict').locator('legend').textContent(), /^Predict first: with these heads knocked out, what will the repeated part's loss do\?$/);
    assert.equal(await page.getByTestId('knockout-losses').count(), 0, 'no numbers before the prediction');
    assert.equal(await page.getByTestId('ko-grade').count(), 0);
    // The knocked-out grid takes no room until then.
    assert.equal(await results.locator('.train-layers').isVisible(), false);
    await page.getByRole('radio', { name: 'Rise (by more than 10%)' }).check();
    const grade = page.getByTestId('ko-grade');
    await grade.waitFor();
    const losses = await knockoutLosses(page);
    const [intact, knocked] = losses['repeated part'];
    assert.ok(knocked > 1.1 * intact, `repeated part ${intact} → ${knocked}`);
    assert.equal(await grade.getAttribute('data-correct'), 'true');
    assert.match(await grade.textContent(), /^You said it would rise\. It rose: the repeated part's loss went from [\d.]+ to [\d.]+ nats \(\+[\d.]+%\)\. Right\.$/);
    // The intact column is the loss table's latest row, exactly.
    await page.getByText('Loss table', { exact: false }).click();
    const latest = await page.locator('[data-testid=loss-table] tbody tr').first().locator('td').evaluateAll((tds) => tds.map((td) => td.dataset.value));
    assert.equal(losses['repeated part'][0], Number(latest[3]));
    assert.equal(losses['all predicted tokens'][0], Number(latest[1]));
    // The scores intact and knocked out: layer 2's induction falls.
    const scores = await page.locator('[data-testid=knockout-scores] tbody tr').count();
    assert.equal(scores, 4);
    // Layer 1 reads the same input as before, so its heads' scores, the knocked-out one's too, do
    // not move (both differences 0.000); the note says so and names them.
    const diffs = await page.locator('[data-testid=knockout-scores] tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [tr.querySelector('th').textContent, tr.querySelectorAll('td')[2].textContent, tr.querySelectorAll('td')[5].textContent]));
    for (const [name, prev, ind] of diffs.filter(([n]) => n.startsWith('Layer 1,'))) {
      assert.deepEqual([prev, ind], ['0.000', '0.000'], name);
    }
    assert.match(await page.getByTestId('ko-unchanged').textContent(),
      /^Knocking a head out removes what it writes, not where it looks.* Unchanged here, bit for bit: layer 1 head 1 and layer 1 head 2 \(2 of 4 heads\)\.$/);
    // Layer 1's head knocked out: layer 2 comes after it, so its patterns can change.
    assert.equal(await page.getByTestId('ko-grid-hint').textContent(),
      'Every head with them knocked out: the heads in layer 2 read what the knocked-out heads write, so their patterns can change; the others attend as before.');
    // The knocked-out heads are marked on the grid; the knocked-out grid is drawn.
    assert.equal(await page.locator('.ko-mark').count(), 1);
    assert.equal(await results.locator('.train-thumbs canvas').count(), 4);
    assert.equal(await results.locator('.train-layers').isVisible(), true);
    // The download records the knock-out shown; NumPy recomputes the knocked-out losses and scores
    // from the file's matrices to 1e-9 (e2e/check_train_json.py), and they are the page's numbers.
    const saved = await saveDownload(page, () => page.getByTestId('download-model').click());
    const doc = JSON.parse(saved.text);
    assert.deepEqual(doc.ablation.heads, [{ layer: 1, head, kind: 'zero', mean: null }]);
    assert.equal(doc.ablation.eval.repeated_loss, knocked);
    assert.equal(doc.ablation.eval.loss, losses['all predicted tokens'][1]);
    assert.equal(doc.eval.repeated_loss, intact);
    const out = await checkTrainJson(saved.path);
    assert.match(out, new RegExp(`^OK .*knocked out: L1H${head} \\(zero\\)`, "m"), out);
    // Mean-ablation is another question: asked again.
    await page.getByRole('radio', { name: 'Mean (writes its average)' }).check();
    await eventually(async () => assert.equal(await page.getByTestId('knockout-losses').count(), 0));
    await page.getByRole('radio', { name: 'Stay within 10%' }).check();
    await grade.waitFor();
    assert.match(await grade.textContent(), /^You said it would stay within 10%\./);
    // Mean-ablation does not remove what the head writes: the note says what it writes instead.
    assert.match(await page.getByTestId('ko-unchanged').textContent(),
      /^Knocking a head out by its mean replaces what it writes \(with its average output row on the held-out set, the same at every position\), not where it looks/);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('the composition test says composition holds for seed 1 at step 1,200', { timeout: 240_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage();
  try {
    await retrain(page, `tseed=1&tsteps=${STEPS}`);
    const button = page.getByTestId('composition-test');
    assert.equal(await button.textContent(), `Test composition at step ${grouped(STEPS)}`);
    assert.equal(await page.getByTestId('composition-result').count(), 0, 'run only when asked');
    await button.click();
    const result = page.getByTestId('composition-result');
    await result.waitFor();
    assert.equal(await result.getAttribute('data-met'), 'true');
    // The numbers tests/training_lab.rs pins natively, as the page words them.
    const text = await result.textContent();
    assert.match(text, /^Met — layer 2 reads layer 1 \(tested at step 1,200\): intact, layer 2 head 2's induction score 0\.78, repeated part 24\.8% of the first copy's\. Knocking out layer 1 head 1 \(the previous-token head, 0\.83\): layer 2 head 2's induction score 0\.15, repeated part 79\.6% of the first copy's, broken;/);
    assert.match(text, /Composition holds\. With mean-ablation it holds too\./);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
