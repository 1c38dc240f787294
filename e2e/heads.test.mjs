// Step 5 ("Several heads, combined"). The strips of the selected row (one per
// head, the concatenated row, the layer's output row) are read from their accessible names and
// checked against the page's JSON download, whose layer output NumPy recomputes
// (e2e/check_json.py: concat(heads) · W_o to 1e-9), and against a product computed here in JS from
// the download's own `w_o` and per-head outputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { useApp, saveDownload, eventually, ARTIFACTS_DIR, E2E_DIR } from './harness.mjs';

const run = promisify(execFile);
const app = useApp();

/** Click "Download JSON", save it under e2e/artifacts/<name>, check it with NumPy, parse it. */
async function checkedJson(page, name) {
  const saved = await saveDownload(page, () => page.getByRole('button', { name: 'Download JSON' }).click(), {
    saveAs: path.join(ARTIFACTS_DIR, name),
  });
  try {
    const { stdout } = await run('python3', [path.join(E2E_DIR, 'check_json.py'), saved.path], { timeout: 30_000 });
    assert.match(stdout, /layer output max \|diff\|/);
    assert.match(stdout, /OK: NumPy reproduces the download/);
  } catch (err) {
    throw new Error(`check_json.py failed on ${saved.path}:\n${err.stdout ?? ''}${err.stderr ?? ''}${err.message}`);
  }
  return JSON.parse(saved.text);
}

/** The step's strips as { name, numbers } from each canvas' accessible name "name: a, b, …". */
async function strips(page) {
  const labels = await page
    .locator('[data-testid=heads-strips] .strip:not([hidden]) canvas[role=img]')
    .evaluateAll((canvases) => canvases.map((c) => c.getAttribute('aria-label')));
  return labels.map((label) => {
    const cut = label.lastIndexOf(': ');
    assert.ok(cut > 0, `strip without numbers: ${label}`);
    return { name: label.slice(0, cut), numbers: label.slice(cut + 2).split(', ').map(Number) };
  });
}

/** Asserts `shown` (4 decimals) equals `exact` to the shown precision. */
function assertShown(shown, exact, what) {
  assert.equal(shown.length, exact.length, `${what}: length`);
  for (const [i, x] of exact.entries()) {
    assert.ok(Number.isFinite(shown[i]), `${what}[${i}] is a number`);
    assert.ok(Math.abs(shown[i] - x) <= 0.5e-4 + 1e-12, `${what}[${i}]: shown ${shown[i]}, exact ${x}`);
  }
}

/** Checks the strips of row `row` (0-based) with `heads` heads against the download `doc`. */
function assertStripsMatch(shown, doc, heads, row) {
  const dModel = doc.d_model;
  const d = dModel / heads;
  assert.equal(doc.n_heads, heads);
  assert.equal(doc.head_size, d);
  assert.equal(shown.length, heads + 2, 'one strip per head, then concat and output');
  const headStrips = shown.filter((s) => s.name.startsWith('head '));
  assert.equal(headStrips.length, heads, 'one strip per head');
  // Head h's strip is row `row` of that head's own output (A·V), as the download has it.
  const concat = [];
  for (const [h, strip] of headStrips.entries()) {
    assert.equal(strip.name, `head ${h + 1} output, row ${row + 1}`);
    assertShown(strip.numbers, doc.heads[h].output[row], `head ${h + 1}`);
    concat.push(...doc.heads[h].output[row]);
  }
  const [concatStrip, outputStrip] = shown.slice(heads);
  assert.equal(concatStrip.name, `concat, row ${row + 1}`);
  assert.equal(concatStrip.numbers.length, 32);
  assertShown(concatStrip.numbers, concat, 'concat');
  assertShown(concatStrip.numbers, doc.concat[row], 'concat (JSON)');
  // The output row: concat · W_o computed here from the download's per-head outputs and w_o.
  assert.equal(outputStrip.name, `layer output (concat · W_o), row ${row + 1}`);
  assert.equal(doc.w_o.length, dModel);
  const byHand = Array.from({ length: dModel }, (_, k) => concat.reduce((sum, x, c) => sum + x * doc.w_o[c][k], 0));
  for (const [k, x] of byHand.entries()) assert.ok(Math.abs(x - doc.output[row][k]) < 1e-9, `output[${k}]`);
  assertShown(outputStrip.numbers, doc.output[row], 'output');
}

test('step 5: per-head strips → concat → · W_o → the layer output, matching NumPy', { timeout: 90_000 }, async () => {
  const { page, context } = await app.newPage();
  try {
    await app.open(page, 'step=heads&heads=4&row=3');
    await page.locator('[data-testid=heads-step]').scrollIntoViewIfNeeded();
    await eventually(async () => assert.equal((await strips(page)).length, 6), 10_000);
    assert.match(
      await page.locator('[data-testid=heads-split]').textContent(),
      /h = 4 heads of d = d_model \/ h = 32 \/ 4 = 8/,
    );
    assert.match(await page.locator('[data-testid=heads-row-heading]').textContent(), /^Row 3 \(“sat”\)/);
    let doc = await checkedJson(page, 'heads-4.json');
    assertStripsMatch(await strips(page), doc, 4, 2);
    const check = await page.locator('[data-testid=heads-check]').textContent();
    assert.match(check, /^✓ concat · W_o equals the layer output: largest difference \d\.\de-?\d+ /);
    assert.ok(Number(check.match(/difference (\S+) /)[1]) < 1e-12, check);
    assert.match(await page.locator('[data-testid=heads-sum-check]').textContent(), /^✓ /);
    assert.match(await page.locator('[data-testid=heads-article-note]').textContent(), /^About the NumPy article \(its code, not computed here\)/);

    // Changing the head count updates the split, the strips and the output row.
    const before = (await strips(page)).at(-1).numbers;
    await page.selectOption('#heads', '8');
    // The step follows the view while the lesson is on screen: look at it again.
    await page.locator('[data-testid=heads-step]').scrollIntoViewIfNeeded();
    await eventually(async () => assert.equal((await strips(page)).length, 10), 10_000);
    doc = await checkedJson(page, 'heads-8.json');
    assertStripsMatch(await strips(page), doc, 8, 2);
    assert.notDeepEqual((await strips(page)).at(-1).numbers, before, 'a different split gives a different output');
    assert.match(await page.locator('[data-testid=heads-split]').textContent(), /32 \/ 8 = 4/);

    // One head: the concatenation is that head's output itself.
    await page.selectOption('#heads', '1');
    await page.locator('[data-testid=heads-step]').scrollIntoViewIfNeeded();
    await eventually(async () => assert.equal((await strips(page)).length, 3), 10_000);
    doc = await checkedJson(page, 'heads-1.json');
    const one = await strips(page);
    assertStripsMatch(one, doc, 1, 2);
    assert.deepEqual(one[1].numbers, one[0].numbers);
  } finally {
    await context.close();
  }
});
