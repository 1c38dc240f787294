// Work per input, counted (window.__aeWork, src/web/work.rs): one slider step recomputes each
// head's attention once, redraws only the canvases on screen that show it, and rebuilds no lesson
// readout while the lesson is scrolled away; the lesson catches up, once, when it comes into
// view. A count is the same on every machine, so this guards the speed of an update in CI, where
// timings could not (the timings themselves are in BENCHMARKS.md, from scripts/bench.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from './harness.mjs';

const app = useApp();

/** Empties the counters. */
const reset = (page) => page.evaluate(() => Object.keys(window.__aeWork).forEach((k) => delete window.__aeWork[k]));

/** The counters after the current update has settled (two animation frames). */
const counts = (page) =>
  page.evaluate(
    () =>
      new Promise((resolve) =>
        requestAnimationFrame(() => requestAnimationFrame(() => resolve({ ...window.__aeWork }))),
      ),
  );

/** One keyboard step of the temperature slider, and the work it did. */
async function sliderStep(page, key = 'ArrowRight') {
  await page.locator('#temperature').focus();
  await counts(page);
  await reset(page);
  await page.keyboard.press(key);
  return counts(page);
}

test('one slider step: attention once per head, the visible canvases, no hidden lesson work', { timeout: 90_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await app.open(page, 'step=softmax');
    await page.locator('[data-testid=softmax-gap]').waitFor({ state: 'attached' });
    // The lesson is below the first screen: the step only updates the views at the top.
    const top = await sliderStep(page);
    assert.deepEqual(top, {
      attention: 2,
      'canvas:heatmap': 1,
      'canvas:thumbnail': 2,
      'canvas:bar chart': 1,
      'text:temperature': 1,
      inspector: 1,
    });
    // Scrolled into view, the lesson catches up once (its two readouts), then follows every step.
    await reset(page);
    await page.locator('#lesson-panel').evaluate((el) => el.scrollIntoView());
    await page.waitForFunction(() => window.__aeWork['lesson:softmax'] === 2);
    const caughtUp = await counts(page);
    assert.equal(caughtUp.attention, undefined, `catching up computes no attention: ${JSON.stringify(caughtUp)}`);
    const step = await sliderStep(page, 'ArrowLeft');
    assert.equal(step.attention, 2, JSON.stringify(step));
    assert.equal(step['lesson:softmax'], 2, `the gap and the mask note: ${JSON.stringify(step)}`);
    // Scrolled away again: no lesson work at all.
    await page.evaluate(() => window.scrollTo(0, 0));
    const away = await sliderStep(page);
    assert.equal(away['lesson:softmax'], undefined, JSON.stringify(away));
    assert.equal(away.attention, 2);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('with Break it on and 8 heads: broken attention once per head, nothing twice', { timeout: 90_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await app.open(page, 'heads=8&broken=triu');
    const step = await sliderStep(page);
    assert.equal(step.attention, 8, JSON.stringify(step));
    assert.equal(step['attention:broken'], 8, JSON.stringify(step));
    assert.equal(step['canvas:heatmap'], 1, JSON.stringify(step));
    assert.equal(step['canvas:thumbnail'], 8, JSON.stringify(step));
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('deferred work, not deferred words: the open step and Break it are in the page before any scroll', { timeout: 90_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await app.open(page, 'step=attention&row=4');
    // Nothing scrolled: the lesson and Break it are below the first screen, yet their words and
    // live numbers are in the document for find in page and printing.
    await page.locator('[data-testid=qkv-check]').waitFor({ state: 'attached' });
    const text = await page.evaluate(() => document.body.textContent);
    assert.ok(text.includes('What queries, keys and values are for'), 'step 3 heading');
    assert.match(await page.getByTestId('qkv-check').textContent(), /\d/);
    assert.match(await page.getByTestId('qkv-intro').textContent(), /d_model = 32/);
    assert.ok(text.includes('Break it: the classic attention mistakes'), 'Break it heading');
    assert.equal(await page.evaluate(() => window.scrollY), 0);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
