// The core walk shared by the deployment tests (e2e/deploy.test.mjs: under a sub-path;
// e2e/offline.test.mjs: from the service worker's cache with the network off): the heatmap is
// drawn, the temperature slider changes the weights, a click on a row updates the inspector, and
// Next walks the lesson's six steps. Expected values are worked out here, never read back from
// the app: at τ = 100 the weights of a row are within 1 percentage point of uniform over its
// visible keys (the scores are divided by √16 · 100 = 400), and every row's weights sum to 100 %.
import assert from 'node:assert/strict';
import { eventually, sliderGeometry, waitForReady } from './harness.mjs';
import { clickHeatmapRow } from './heatmap_geometry.mjs';

export const TOKENS = ['The', 'cat', 'sat', 'on', 'the', 'mat', '.'];
const STEPS = ['average', 'softmax', 'attention', 'scaling', 'heads', 'positions'];

/** "31.4%" → 31.4; "masked" → null. */
function pct(s) {
  if (s === 'masked') return null;
  const m = /^\s*(-?\d+(?:\.\d+)?)%\s*$/.exec(s);
  assert.ok(m, `not a percentage: ${JSON.stringify(s)}`);
  return Number(m[1]);
}

/** The inspector's caption and its weights in percent (null where masked). */
export async function inspector(page) {
  return page.evaluate(() => {
    const table = document.querySelector('[data-testid=inspector-table]');
    return {
      caption: table.querySelector('caption').textContent.trim(),
      weights: [...table.querySelectorAll('tbody tr')].map((tr) => tr.querySelectorAll('td, th')[2].textContent.trim()),
    };
  }).then(({ caption, weights }) => ({ caption, weights: weights.map(pct) }));
}

/** Asserts that the inspector shows row `row` (0-based) at τ = 100: uniform over its visible keys. */
function assertUniformRow({ caption, weights }, row) {
  assert.equal(caption, `Attention weights of “${TOKENS[row]}” (row ${row + 1})`);
  assert.equal(weights.length, TOKENS.length);
  weights.forEach((w, j) => {
    if (j > row) return assert.equal(w, null, `key ${j + 1} of row ${row + 1} is masked`);
    assert.ok(Math.abs(w - 100 / (row + 1)) <= 1, `row ${row + 1}, key ${j + 1}: ${w}% vs ${100 / (row + 1)}%`);
  });
  const sum = weights.filter((w) => w !== null).reduce((a, w) => a + w, 0);
  assert.ok(Math.abs(sum - 100) <= 0.5, `row ${row + 1} sums to ${sum}%`);
}

/** Runs the core walk on a page that has just loaded the default view. */
export async function coreWalk(page) {
  await waitForReady(page);
  const canvas = page.locator('canvas.heatmap').first();
  assert.equal(await canvas.getAttribute('role'), 'img');
  assert.match(await canvas.getAttribute('aria-label'), /7 query tokens by 7 key tokens/);

  // The default row 6 at τ = 1 is far from uniform (its largest weight is above 1/6 by > 1 pp).
  const before = await inspector(page);
  assert.equal(before.caption, `Attention weights of “mat” (row 6)`);
  assert.ok(Math.max(...before.weights.filter((w) => w !== null)) > 100 / 6 + 1, JSON.stringify(before));

  // Slider to its right end with the mouse: τ = 100, row 6 becomes uniform.
  const { slider, fraction, xAt, y } = await sliderGeometry(page);
  await page.mouse.move(xAt(fraction), y);
  await page.mouse.down();
  await page.mouse.move(xAt(1.3), y, { steps: 10 });
  await page.mouse.up();
  assert.equal(Number(await slider.inputValue()), 2, 'log10 τ at the right end');
  await eventually(async () => assert.equal(await page.getByTestId('tau').first().textContent(), '100.0'));
  await eventually(async () => assertUniformRow(await inspector(page), 5));

  // A click on row 2 of the heatmap selects it in the inspector.
  await clickHeatmapRow(page, canvas, 1);
  await eventually(async () => assertUniformRow(await inspector(page), 1));

  // Next through the lesson: steps 1 → 6.
  for (let n = 1; n <= STEPS.length; n++) {
    if (n > 1) await page.locator('.step-next').click();
    await page.waitForFunction((k) => document.querySelector('#lesson-panel')?.dataset.step === k, STEPS[n - 1]).catch(async (e) => {
      // Say where the walk stood, so a failure names the step that did not come.
      const at = await page.evaluate(() => ({
        step: document.querySelector('#lesson-panel')?.dataset.step,
        focus: document.activeElement?.id || document.activeElement?.tagName,
        scrollY: window.scrollY,
        url: location.search,
      }));
      throw new Error(`step ${n} (${STEPS[n - 1]}) did not open: ${JSON.stringify(at)}; ${e.message}`);
    });
    assert.equal(await page.getByTestId('step-count').textContent(), `Step ${n} of ${STEPS.length}`);
  }
  assert.equal(await page.locator('.step-next').count(), 0, 'no Next on the last step');
}
