// "Done when": the training page's views come from the same weights as its JSON download.
// A link retrains the repeat task in the browser to step 75 (fixed seed); the download must hold every
// trained matrix, and NumPy (e2e/check_train_json.py) recomputes from those matrices alone the head
// grid's weights, the detector scores and the held-out losses to 1e-9. The page's own views are then
// compared with the file: the head tables exactly, every thumbnail cell's colour (viridis of the
// file's weight), the detector table's rounded scores and the loss table's row. A replayed checkpoint
// downloads as its own step and passes the same check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { useApp, eventually, saveDownload, E2E_DIR, openRetrained, checkTrainJson, waitForReady } from './harness.mjs';
import { heatmapLayout, cellCentrePixel, viridis, thumbnailPixels } from './heatmap_geometry.mjs';

const app = useApp();
const run = promisify(execFile);
const STEPS = 75;

const numpyCheck = checkTrainJson;

async function download(page) {
  const saved = await saveDownload(page, () => page.getByTestId('download-model').click());
  return { ...saved, doc: JSON.parse(saved.text) };
}

/** The detector table's cells, per row. */
const detectorCells = (page) =>
  page.locator('[data-testid=detector-table] tbody tr').evaluateAll((rows) =>
    rows.map((tr) => [...tr.querySelectorAll('td')].map((c) => c.textContent)));

/** Every head table: { layer, head, values[i][j] } from the exact data-value of each cell. */
const headTables = (page) =>
  page.locator('[data-testid=head-table]').evaluateAll((tables) =>
    tables.map((t) => ({
      layer: Number(t.dataset.layer),
      head: Number(t.dataset.head),
      values: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value))),
      columns: t.querySelectorAll('thead th').length,
    })));

/** The page's views against the file: tables exactly, thumbnails by colour, detector table rounded. */
async function compareViews(page, doc) {
  const { layers, heads } = doc.model;
  // Head tables (opened by the caller): every weight, exactly.
  const tables = await headTables(page);
  assert.equal(tables.length, layers * heads);
  for (const t of tables) {
    const theirs = doc.attention[t.layer - 1][t.head - 1];
    assert.equal(t.columns, theirs.length + 1);
    assert.deepEqual(t.values, theirs, `layer ${t.layer} head ${t.head}`);
  }
  // Thumbnails: the colour of every visible cell is viridis of the file's weight.
  const canvases = page.locator('.train-thumbs canvas');
  assert.equal(await canvases.count(), layers * heads);
  for (let k = 0; k < layers * heads; k++) {
    const weights = doc.attention[Math.floor(k / heads)][k % heads];
    const n = weights.length;
    const { width, dpr, data } = await thumbnailPixels(canvases.nth(k));
    const rowBytes = Math.round(width * dpr) * 4;
    const layout = heatmapLayout(width, n, 1, 0, false);
    let checked = 0;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j <= i; j++) {
        const { x, y } = cellCentrePixel(layout, dpr, i, j);
        const at = y * rowBytes + x * 4;
        assert.deepEqual(data.slice(at, at + 3), viridis(weights[i][j]), `thumbnail ${k + 1}, cell (${i + 1}, ${j + 1})`);
        checked++;
      }
    }
    assert.equal(checked, (n * (n + 1)) / 2);
  }
  // The detector table: the file's scores as the page rounds them (2 decimals).
  const cells = await detectorCells(page);
  const scores = doc.eval.heads.flat();
  assert.equal(cells.length, scores.length);
  cells.forEach((row, k) => {
    const s = scores[k];
    const expected = [s.previous_token, s.induction, s.first_token, s.self, s.entropy_bits];
    row.slice(0, 5).forEach((text, c) => assert.ok(Math.abs(Number(text) - expected[c]) <= 0.005 + 1e-12, `row ${k + 1}: ${row} vs ${expected}`));
    // The last two columns are the tiny grammar's agreement weights (not in the file).
    if (doc.task === 'repeat') assert.deepEqual(row.slice(5), ['–', '–']);
  });
}

test('the training page downloads the model it shows, and NumPy recomputes its views from the matrices to 1e-9', { timeout: 240_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage();
  try {
    // The link retrains to step 75, then pauses there.
    await openRetrained(page, `${app.url}/train.html?tseed=3&tsteps=${STEPS}`, STEPS, 120_000);
    await page.getByText("Every head's weights as a table").click();
    await page.locator('[data-testid=head-table]').first().waitFor();

    const latest = await download(page);
    assert.equal(latest.suggestedFilename, `trained-model-step${STEPS}.json`);
    const { doc } = latest;
    assert.equal(doc.task, 'repeat');
    assert.equal(doc.seed, 3);
    assert.equal(doc.step, STEPS);
    assert.deepEqual(doc.model, { vocab: 32, d_model: 32, layers: 2, heads: 2, head_size: 16, max_len: 16, positions: 'rotary' });
    // Every trained matrix: embedding, 2 × (W_q, W_k, W_v, W_o), unembedding; 10,240 numbers.
    assert.deepEqual(doc.groups.map((g) => g.name), [
      'token embedding', 'layer 1 W_q', 'layer 1 W_k', 'layer 1 W_v', 'layer 1 W_o',
      'layer 2 W_q', 'layer 2 W_k', 'layer 2 W_v', 'layer 2 W_o', 'unembedding',
    ]);
    assert.equal(doc.groups.reduce((n, g) => n + g.values.flat().length, 0), 10_240);
    assert.equal(doc.held_out.length, 64);
    const out = await numpyCheck(latest.path);
    assert.match(out, /^OK \(step 75, 64 held-out sequences/m);
    console.log(out.trim());
    await compareViews(page, doc);
    // The loss table's newest row is the file's evaluation.
    await page.getByText('Loss table', { exact: false }).click();
    const first = await page.locator('[data-testid=loss-table] tbody tr').first().locator('td').evaluateAll((tds) => tds.map((td) => td.dataset.value ?? td.textContent));
    assert.equal(Number(first[0]), STEPS);
    assert.deepEqual(first.slice(1, 4).map(Number), [doc.eval.loss, doc.eval.first_copy_loss, doc.eval.repeated_loss]);

    // Look closer: layer 2, head 1; row 10 by keyboard; its weights are the file's, exactly, at τ = 1.
    await page.locator('#closer-head').selectOption({ label: 'Layer 2, head 1' });
    const closer = page.locator('[data-testid=closer-heatmap] canvas');
    await closer.focus();
    await page.keyboard.press('Home');
    for (let k = 0; k < 9; k++) await page.keyboard.press('ArrowDown');
    const closerRow = () => page.locator('[data-testid=closer-row] td').evaluateAll((tds) => tds.map((td) => Number(td.dataset.value)));
    await eventually(async () => assert.deepEqual(await closerRow(), doc.attention[1][0][9].slice(0, 10)));
    // It names the step of the model it shows, the file's.
    assert.equal(await page.getByTestId('closer-step').textContent(), `, the model at step ${STEPS}`);
    assert.match(await page.getByTestId('closer-summary').textContent(), /^Largest weight [\d.]+% on key \d+ “[a-z]{2}”; entropy [\d.]+ bits \(0 = one key, 3\.32 = evenly over all 10\)\.$/);
    // τ = 2 by keyboard (log₂ τ in steps of 0.25): every layer's scores halved; NumPy agrees to 1e-9.
    await page.locator('#closer-tau').focus();
    for (let k = 0; k < 4; k++) await page.keyboard.press('ArrowRight');
    await eventually(async () => assert.equal(await page.getByTestId('closer-tau').textContent(), 'τ = 2.00'));
    const { stdout: rowAt2 } = await run('python3', [path.join(E2E_DIR, 'check_train_json.py'), latest.path, '--row', '2', '1', '10', '2'], { timeout: 60_000 });
    const expectedAt2 = JSON.parse(rowAt2);
    let hot;
    await eventually(async () => {
      hot = await closerRow();
      assert.notDeepEqual(hot, doc.attention[1][0][9].slice(0, 10));
    });
    hot.forEach((w, j) => assert.ok(Math.abs(w - expectedAt2[j]) <= 1e-9, `key ${j + 1}: ${w} vs ${expectedAt2[j]}`));
    // The same row traced (the lesson's step-3 table): q·k for every key as NumPy computes it from the file's
    // matrices (rotated q and k), the softmax column the row table's weights exactly (0 for the future), the
    // weights summing to 1 and Σ w·v checked against A·V.
    const { stdout: traceOut } = await run('python3', [path.join(E2E_DIR, 'check_train_json.py'), latest.path, '--trace', '2', '1', '10', '2'], { timeout: 60_000 });
    const expectedTrace = JSON.parse(traceOut);
    const traceTable = page.locator('[data-testid=closer-trace] [data-testid=trace-table]');
    const traceColumn = (n) => traceTable.locator(`tbody tr td:nth-of-type(${n})`).evaluateAll((tds) => tds.map((td) => Number(td.dataset.value)));
    const raw = await traceColumn(1);
    assert.equal(raw.length, doc.held_out[0].tokens.length);
    raw.forEach((r, j) => assert.ok(Math.abs(r - expectedTrace.raw[j]) <= 1e-9 * Math.max(1, Math.abs(r)), `q·k, key ${j + 1}: ${r} vs ${expectedTrace.raw[j]}`));
    const softmax = await traceColumn(5);
    assert.deepEqual(softmax.slice(0, 10), hot);
    assert.ok(softmax.slice(10).every((w) => w === 0));
    assert.match(await traceTable.locator('caption').textContent(), /^Trace of “[a-z]{2}” \(row 10\), layer \d, head 1, d = 16, τ = 2\.000$/);
    assert.ok(Math.abs(Number(await page.locator('[data-testid=closer-trace] [data-testid=trace-sum]').textContent()) - 1) < 1e-9);
    assert.ok((await page.locator('[data-testid=closer-trace] [data-testid=trace-check]').textContent()).startsWith('✓'));
    // The chosen head as CSV: row 10 is the table's row, exactly.
    const csv = await saveDownload(page, () => page.getByRole('button', { name: 'Download this head (CSV)' }).click());
    assert.equal(csv.suggestedFilename, 'trained-layer2-head1.csv');
    const csvRow = csv.text.trim().split('\n')[10].split(',').slice(1, 11).map(Number);
    assert.deepEqual(csvRow, hot);
    const png = await saveDownload(page, () => page.getByRole('button', { name: 'Download this head (PNG)' }).click());
    assert.equal(png.suggestedFilename, 'trained-layer2-head1.png');

    // A replayed checkpoint (step 25) downloads as itself and passes the same check.
    const slider = page.locator('#train-replay');
    await slider.focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await eventually(async () => assert.equal(await page.getByTestId('replay-step').textContent(), 'step 25 (checkpoint)'));
    const replayed = await download(page);
    assert.equal(replayed.suggestedFilename, 'trained-model-step25.json');
    assert.equal(replayed.doc.step, 25);
    assert.notDeepEqual(replayed.doc.groups[1].values, doc.groups[1].values, 'another step, other weights');
    assert.deepEqual(replayed.doc.held_out, doc.held_out, 'the same held-out set');
    assert.match(await numpyCheck(replayed.path), /^OK \(step 25,/m);
    await compareViews(page, replayed.doc);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('a tiny-grammar model trained on the training page opens in the explorer, whose views and JSON are that model', { timeout: 240_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage();
  try {
    // The repeat task's default (2 rotary layers) cannot be shown there, and the page says why.
    await page.goto(`${app.url}/train.html?tseed=3`, { waitUntil: 'load' });
    await waitForReady(page);
    assert.match(await page.getByTestId('explorer-unavailable').textContent(), /a tiny-grammar model of 1 layer with 2 or 4 heads and sinusoidal positions \(any seed and learning rate\)/);
    assert.equal(await page.getByTestId('open-in-explorer').count(), 0);

    await openRetrained(page, `${app.url}/train.html?train=grammar&tlayers=1&theads=4&tpos=sinusoidal&tseed=2&tlr=0.03&tsteps=50`, 50, 120_000);
    const trained = await download(page);
    assert.equal(trained.doc.task, 'grammar');
    assert.match(await numpyCheck(trained.path), /^OK \(step 50,/m);

    const link = page.getByTestId('open-in-explorer');
    assert.match(await link.getAttribute('href'), /w=yours/);
    await Promise.all([page.waitForURL(/w=yours/), link.click()]);
    await waitForReady(page);
    assert.equal(await page.locator('#weights').inputValue(), 'yours');
    assert.match(await page.getByTestId('weights-note').textContent(), /^Trained weights: .* 1-layer, 4-head attention model that this app's own code trained for 50 steps \(seed 2\)/);
    assert.match(await page.getByTestId('yours-note').textContent(), /You trained this model on the training page/);
    // The explorer's head count follows the model's (the Heads menu is fixed while trained weights are shown).
    assert.equal(await page.locator('#heads').inputValue(), '4');
    assert.ok(await page.locator('#heads').isDisabled());

    // The explorer's download: NumPy recomputes it (1e-9), and it is the trained model's layer 1 (f32).
    const json = await saveDownload(page, () => page.getByRole('button', { name: 'Download JSON', exact: true }).click());
    const doc = JSON.parse(json.text);
    assert.equal(doc.weights_source, 'trained');
    const { stdout: own } = await run('python3', [path.join(E2E_DIR, 'check_json.py'), json.path], { timeout: 60_000 });
    assert.match(own, /head 1 weights/);
    const { stdout: same } = await run('python3', [path.join(E2E_DIR, 'check_train_json.py'), trained.path, '--explorer', json.path], { timeout: 60_000 });
    assert.match(same, /^OK \(explorer, 7 tokens, 4 heads/m);
    console.log(same.trim());
    consoleLog.assertClean();
  } finally {
    await context.close();
  }

  // Another browser profile has no model of the learner's: the explorer says so and shows random weights.
  const fresh = await app.newPage();
  try {
    await fresh.page.goto(`${app.url}/index.html?w=yours`, { waitUntil: 'load' });
    await waitForReady(fresh.page);
    await eventually(async () =>
      assert.match(await fresh.page.getByTestId('weights-status').textContent(), /^No model of yours is saved in this browser: .* Showing the random weights\.$/));
    assert.match(await fresh.page.getByTestId('weights-note').textContent(), /^Not trained:/);
    assert.equal(await fresh.page.getByTestId('yours-note').count(), 0);
  } finally {
    await fresh.context.close();
  }
});
