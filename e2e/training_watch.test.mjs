// A view made for watching (the training page): at 1280 × 800 the loss chart, every head (each at
// least 160 px), the detector scores and the knock-out switches fit on one screen; on a 390 × 844 phone within two screens
// and without horizontal scrolling. The repeat task's tokens are short syllables, and the repeated
// segment is marked on the token strip and on every head's heatmap. Replay's Play animates the
// formation over the kept checkpoints; with prefers-reduced-motion each press shows the next one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, eventually, openRetrained } from './harness.mjs';

const app = useApp();
const STEPS = 300;
const replayStep = (page) => page.locator('[data-testid=replay-step]').textContent();

const retrained = (page) => openRetrained(page, `${app.url}/train.html?tseed=1&tsteps=${STEPS}`, STEPS, 120_000);

/** The boxes of what one watches: the loss chart, every head, the detector table. */
const watched = (page) =>
  page.evaluate(() => {
    const box = (e) => {
      const r = e.getBoundingClientRect();
      return { top: r.top + scrollY, bottom: r.bottom + scrollY, width: r.width };
    };
    return {
      chart: box(document.querySelector('[data-testid=loss-chart]')),
      heads: [...document.querySelectorAll('.train-thumbs canvas')].map(box),
      detectors: box(document.querySelector('[data-testid=detector-table]')),
      knockout: box(document.querySelector('[data-testid=knockout]')),
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
    };
  });

const span = (w) => {
  const all = [w.chart, ...w.heads, w.detectors, w.knockout];
  return Math.max(...all.map((b) => b.bottom)) - Math.min(...all.map((b) => b.top));
};

test('at 1280 × 800 the loss chart, every head, the detectors and the knock-out switches fit on one screen; syllables and the segment marked', { timeout: 180_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await retrained(page);
    const w = await watched(page);
    assert.equal(w.heads.length, 4);
    for (const h of w.heads) assert.ok(h.width >= 160, `a head ${h.width} px wide`);
    assert.ok(span(w) <= 800, `the watched views span ${span(w)} px`);
    assert.equal(w.scrollWidth, w.clientWidth, 'no horizontal scroll');
    // Look closer, far below and never scrolled to, still shows the trained run's numbers (its
    // row's weights add up to 1), not a placeholder from before the first evaluation.
    const closer = (await page.locator('[data-testid=closer-row] td[data-value]').evaluateAll((tds) =>
      tds.map((td) => Number(td.dataset.value))));
    assert.ok(closer.length > 1, `Look closer shows ${closer.length} key(s)`);
    assert.ok(Math.abs(closer.reduce((a, b) => a + b, 0) - 1) < 1e-9, `Look closer's row sums to ${closer}`);
    // Tokens: two-letter syllables; the two copies marked, equally long, and said in words.
    const strip = await page.locator('[data-testid=train-sequence] li').evaluateAll((lis) => lis.map((li) => [li.textContent, li.className]));
    assert.equal(strip.length, 16);
    for (const [t] of strip) assert.match(t, /^[a-z]{2}$/);
    const first = strip.filter(([, c]) => c === 'seg-first').map(([t]) => t);
    const second = strip.filter(([, c]) => c === 'seg-second').map(([t]) => t);
    assert.ok(first.length >= 4);
    assert.deepEqual(second, first, 'the second copy repeats the first');
    assert.match(await page.getByTestId('segment-note').textContent(), new RegExp(`^First copy: tokens \\d+–\\d+ \\(orange box\\); second copy: tokens \\d+–\\d+, the same ${first.length} tokens again`));
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('on a 390 × 844 phone the watched views fit within two screens, without horizontal scrolling', { timeout: 180_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  try {
    await retrained(page);
    const w = await watched(page);
    assert.ok(span(w) <= 2 * 844, `the watched views span ${span(w)} px: ${JSON.stringify(w)}`);
    assert.equal(w.scrollWidth, w.clientWidth, 'no horizontal scroll');
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('Replay: Play animates the kept checkpoints from the first; with reduced motion each press shows the next', { timeout: 180_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage();
  try {
    await retrained(page);
    assert.equal(await replayStep(page), `step ${STEPS} (latest evaluation)`);
    const play = page.getByTestId('replay-play');
    await play.click();
    assert.equal(await play.getAttribute('aria-pressed'), 'true');
    const seen = new Set();
    await eventually(async () => {
      seen.add(await replayStep(page));
      assert.ok(seen.size >= 4, [...seen].join(' | '));
    }, 10_000);
    assert.ok(seen.has('step 0 (checkpoint)') || [...seen].some((s) => /^step (25|50) \(checkpoint\)$/.test(s)), [...seen].join(' | '));
    // It ends on the latest evaluation and stops by itself.
    await eventually(async () => {
      assert.equal(await replayStep(page), `step ${STEPS} (latest evaluation)`);
      assert.equal(await play.textContent(), 'Play');
    }, 15_000);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
  const reduced = await app.newPage({ reducedMotion: 'reduce' });
  try {
    await retrained(reduced.page);
    const play = reduced.page.getByTestId('replay-play');
    await play.click();
    assert.equal(await replayStep(reduced.page), 'step 0 (checkpoint)');
    // No animation started: the press leaves Play unpressed (an animation sets aria-pressed and
    // the label Pause as it starts, in the same handler), so the next press steps, not pauses.
    assert.equal(await play.getAttribute('aria-pressed'), 'false', 'no animation');
    assert.equal(await play.textContent(), 'Play');
    assert.equal(await replayStep(reduced.page), 'step 0 (checkpoint)', 'no animation');
    await play.click();
    assert.equal(await replayStep(reduced.page), 'step 25 (checkpoint)');
    reduced.consoleLog.assertClean();
  } finally {
    await reduced.context.close();
  }
});

test('Look closer draws nothing before the first evaluation: no placeholder heatmap', { timeout: 120_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage();
  try {
    // Watch the document from its start: a canvas in Look closer before the loss chart has drawn a
    // run's first evaluation would be a placeholder (such as a 1 × 1 grid of zeros).
    await page.addInitScript(() => {
      window.__closerEarly = 0;
      new MutationObserver(() => {
        const canvas = document.querySelector('[data-testid=closer-heatmap] canvas');
        const ready = document.querySelector('[data-testid=loss-chart][data-ready=true]');
        if (canvas && !ready) window.__closerEarly++;
      }).observe(document, { childList: true, subtree: true, attributes: true });
    });
    await page.goto(`${app.url}/train.html?tseed=1`, { waitUntil: 'load' });
    await page.locator('[data-testid=loss-chart][data-ready=true]').waitFor({ timeout: 60_000 });
    await page.getByTestId('closer-heatmap').scrollIntoViewIfNeeded();
    await page.locator('[data-testid=closer-heatmap] canvas').waitFor({ timeout: 30_000 });
    assert.equal(await page.evaluate(() => window.__closerEarly), 0);
    // And it shows a real row of the run's model: more than one key.
    await eventually(async () => assert.ok(await page.locator('[data-testid=closer-row] tbody tr').count() > 1));
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
