// Work per input, counted (window.__aeWork, src/web/work.rs): one slider step computes the
// attention the screen shows (the selected head's softmax; every head's only while the thumbnails
// are on screen), redraws only the canvases on screen that show it, and rebuilds no lesson readout
// while the lesson is scrolled away (nor the phone dock's summary where the dock is hidden); what
// was off screen catches up, once, when it comes into view. A count is the same on every machine, so this guards the speed of an update in CI, where
// timings could not (the timings themselves are in BENCHMARKS.md, from scripts/bench.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, eventually, twoFrames } from './harness.mjs';

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

/** One keyboard step of the temperature slider, and the work it did. The slider takes the focus
 *  without scrolling, so the step happens wherever the page is scrolled to. */
async function sliderStep(page, key = 'ArrowRight') {
  await page.locator('#temperature').evaluate((el) => el.focus({ preventScroll: true }));
  await counts(page);
  await reset(page);
  await page.keyboard.press(key);
  return counts(page);
}

/** Scrolls the head thumbnails to the middle of the screen and waits until all `heads` have
 *  caught up (drawn once); returns the work that took. */
async function showThumbnails(page, heads) {
  await counts(page);
  await reset(page);
  await page.locator('ul.thumbs').evaluate((el) => el.scrollIntoView({ block: 'center' }));
  await page.waitForFunction((n) => window.__aeWork['canvas:thumbnail'] === n, heads);
  return counts(page);
}

test('one slider step: the attention on screen once, the visible canvases, no hidden lesson work', { timeout: 90_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await app.open(page, 'step=softmax');
    await page.locator('[data-testid=softmax-gap]').waitFor({ state: 'attached' });
    // The thumbnails and the lesson are below the first screen: the step computes the selected
    // head's softmax only and updates the views at the top.
    const top = await sliderStep(page);
    assert.deepEqual(top, {
      attention: 1,
      'canvas:heatmap': 1,
      'canvas:bar chart': 1,
      'text:temperature': 1,
      inspector: 1,
    });
    // Scrolled into view, the thumbnails catch up once: every head's softmax, each drawn once.
    const caughtUp = await showThumbnails(page, 2);
    assert.equal(caughtUp.attention, 2, `every head once: ${JSON.stringify(caughtUp)}`);
    assert.equal(caughtUp['canvas:thumbnail'], 2, JSON.stringify(caughtUp));
    // While they are on screen a step computes every head once (the selected head's is one of
    // them, not computed again) and draws both.
    const withThumbs = await sliderStep(page);
    assert.equal(withThumbs.attention, 2, JSON.stringify(withThumbs));
    assert.equal(withThumbs['canvas:thumbnail'], 2, JSON.stringify(withThumbs));
    // A head click then computes nothing: the head is picked from the heads computed.
    await reset(page);
    await page.locator('button.thumb').nth(1).click();
    const click = await counts(page);
    assert.equal(click.attention, undefined, `a head click computes no attention: ${JSON.stringify(click)}`);
    await page.locator('button.thumb').nth(0).click();
    // Scrolled into view, the lesson catches up once (its two readouts), then follows every step.
    await reset(page);
    await page.locator('#lesson-panel').evaluate((el) => el.scrollIntoView());
    await page.waitForFunction(() => window.__aeWork['lesson:softmax'] === 2);
    const lessonCaughtUp = await counts(page);
    // The thumbnails went off screen: the selected head is computed alone again, to the same bits,
    // so nothing redraws.
    assert.equal(lessonCaughtUp.attention, 1, `the selected head alone: ${JSON.stringify(lessonCaughtUp)}`);
    assert.equal(lessonCaughtUp['canvas:heatmap'], undefined, `same bits, no redraw: ${JSON.stringify(lessonCaughtUp)}`);
    assert.equal(lessonCaughtUp.inspector, undefined, JSON.stringify(lessonCaughtUp));
    const step = await sliderStep(page, 'ArrowLeft');
    assert.equal(step.attention, 1, `the thumbnails are off screen again: ${JSON.stringify(step)}`);
    assert.equal(step['canvas:thumbnail'], undefined, JSON.stringify(step));
    assert.equal(step['lesson:softmax'], 2, `the gap and the mask note: ${JSON.stringify(step)}`);
    // Scrolled back to the top: no lesson work at all.
    await page.evaluate(() => window.scrollTo(0, 0));
    const away = await sliderStep(page);
    assert.equal(away['lesson:softmax'], undefined, JSON.stringify(away));
    assert.equal(away.attention, 1);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('the phone dock follows a step only where it is shown', { timeout: 90_000 }, async () => {
  // From 1024 px wide the dock is hidden (the inputs and the inspector sit beside the heatmap):
  // the first test's exact list of work per step has no "text:phone dock". On a phone it is pinned
  // to the bottom of the screen, and its summary follows every step.
  const { page, context, consoleLog } = await app.newPage({ viewport: { width: 390, height: 844 } });
  try {
    await app.open(page, '');
    const glance = page.getByTestId('row-glance');
    await glance.waitFor();
    const before = await glance.textContent();
    const step = await sliderStep(page);
    assert.equal(step['text:phone dock'], 1, JSON.stringify(step));
    await eventually(async () => assert.notEqual(await glance.textContent(), before));
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('with Break it on and 8 heads: broken attention for what is on screen, nothing twice', { timeout: 90_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await app.open(page, 'heads=8&broken=triu');
    // At the top: the selected head, broken (the map) and correct (the readout's words).
    const top = await sliderStep(page);
    assert.equal(top.attention, 1, JSON.stringify(top));
    assert.equal(top['attention:broken'], 1, JSON.stringify(top));
    assert.equal(top['canvas:heatmap'], 1, JSON.stringify(top));
    assert.equal(top['canvas:thumbnail'], undefined, JSON.stringify(top));
    // With the thumbnails on screen: every head once, broken and correct, eight thumbnails.
    await showThumbnails(page, 8);
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

test('below the first screen nothing is rendered until it comes near, the lesson\'s chart is built then, every word stays, tooltips are whole', { timeout: 90_000 }, async () => {
  // A phone: the explanation, the lesson and Break it all start below the first screen.
  const { page, context, consoleLog } = await app.newPage({ viewport: { width: 390, height: 844 } });
  try {
    await app.open(page, 'step=average');
    await page.locator('footer.site-footer').waitFor({ state: 'attached' });
    await twoFrames(page);
    // `content-visibility: auto` skips their style, layout and paint: a heading inside is not
    // rendered, yet the words are in the document.
    const rendered = (selector) =>
      page.locator(`${selector} h2`).first().evaluate((h) => h.checkVisibility({ contentVisibilityAuto: true }));
    const text = await page.evaluate(() => document.body.textContent);
    for (const [selector, heading] of [
      ['.explanation', await page.locator('.explanation h2').first().textContent()],
      ['.lesson', await page.locator('.lesson h2').first().textContent()],
      ['.break-it', 'Break it: the classic attention mistakes'],
    ]) {
      assert.equal(await rendered(selector), false, `${selector} is skipped while far below the screen`);
      assert.ok(text.includes(heading), `${selector}: "${heading}" is in the document`);
    }
    assert.equal(await page.evaluate(() => window.scrollY), 0);

    // Step 1's heatmap is not built until the lesson first comes near the screen; its words are.
    assert.equal(await page.locator('.lesson canvas').count(), 0, 'no lesson chart before the lesson nears the screen');
    assert.ok(text.includes('The same numbers come from one matrix product'), 'step 1 words are in the document');
    // Scrolled to, a section is rendered; its heatmap's tooltip is a popover in the top layer, placed
    // in the viewport's coordinates (were the contained section its frame, the section's offset
    // would be added) and open, so the section's paint containment cannot clip it.
    await page.locator('#lesson-panel').evaluate((el) => el.scrollIntoView());
    const averaging = page.locator('.lesson canvas.heatmap').first();
    await averaging.waitFor();
    await averaging.scrollIntoViewIfNeeded();
    await eventually(async () => assert.equal(await rendered('.lesson'), true));
    // The last row's last cell (the default sentence has 7 tokens), from the grid's geometry that
    // the heatmap gives its box in percent.
    const cell = await averaging.evaluate((canvas) => {
      const v = (name) => parseFloat(canvas.parentElement.style.getPropertyValue(name)) / 100;
      const r = canvas.getBoundingClientRect();
      return {
        x: r.left + r.width * (v('--grid-left') + v('--cell-w') * 6.5),
        y: r.top + r.height * (v('--grid-top') + v('--cell-h') * 6.5),
      };
    });
    await page.mouse.move(cell.x, cell.y);
    const tip = page.locator('.lesson [role=tooltip]');
    await tip.waitFor();
    const placed = await tip.evaluate((el) => {
      const r = el.getBoundingClientRect();
      const section = el.closest('.lesson').getBoundingClientRect();
      return { open: el.matches(':popover-open'), left: r.left, top: r.top, styleLeft: parseFloat(el.style.left), styleTop: parseFloat(el.style.top), sectionTop: section.top };
    });
    assert.equal(placed.open, true, 'the tooltip is an open popover');
    assert.ok(Math.abs(placed.sectionTop) > 20, `the section is away from the viewport's top (${placed.sectionTop}), so a wrong frame would show`);
    assert.ok(Math.abs(placed.left - placed.styleLeft) < 0.5 && Math.abs(placed.top - placed.styleTop) < 0.5, JSON.stringify(placed));
    assert.ok(placed.left >= 0 && placed.left < 390, JSON.stringify(placed));
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('loading the practice page draws each chart once', { timeout: 90_000 }, async () => {
  // The numbers are hidden from the start (the quiz opens with a question); the quiz, built after
  // the first paint, hides them again only if they were shown, so the heatmap is not drawn a
  // second time for the same picture.
  const { page, context, consoleLog } = await app.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await app.open(page, '', { file: 'practice.html' });
    await page.getByTestId('inspector-hidden').waitFor();
    const loaded = await counts(page);
    for (const [kind, selector] of [['canvas:heatmap', 'canvas.heatmap'], ['canvas:thumbnail', '.thumbs canvas']]) {
      const canvases = await page.locator(selector).count();
      assert.ok(canvases > 0, selector);
      assert.equal(loaded[kind], canvases, `${kind} (${canvases} on the page): ${JSON.stringify(loaded)}`);
    }
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('choosing a row at 256 tokens × 8 heads: no attention, no heatmap redrawn, no list rebuilt', { timeout: 120_000 }, async () => {
  // A row is a selection, not a new computation: the heatmaps keep their pixels (the outline is
  // CSS), the sentence's 256 chips stay (two change their class), and the inspector's table keeps
  // its rows (one moves from the masked keys to the seen ones; the weights' text changes).
  const { page, context, consoleLog } = await app.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    const words = Array.from({ length: 256 }, (_, i) => `w${i % 50}`).join(' ');
    await app.open(page, `max_tokens=256&heads=8&row=100&s=${encodeURIComponent(words)}`);
    await page.locator('canvas.heatmap').first().evaluate((el) => el.focus({ preventScroll: true }));
    await page.evaluate(() => {
      window.__dom = { added: 0, removed: 0, attributes: 0 };
      new MutationObserver((records) => {
        for (const r of records) {
          if (r.type === 'attributes') window.__dom.attributes += 1;
          window.__dom.added += [...r.addedNodes].filter((n) => n.nodeType === 1).length;
          window.__dom.removed += [...r.removedNodes].filter((n) => n.nodeType === 1).length;
        }
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    for (const key of ['ArrowDown', 'ArrowDown', 'ArrowUp']) {
      await counts(page);
      await reset(page);
      await page.evaluate(() => Object.keys(window.__dom).forEach((k) => { window.__dom[k] = 0; }));
      await page.keyboard.press(key);
      const work = await counts(page);
      const dom = await page.evaluate(() => ({ ...window.__dom }));
      assert.deepEqual(work, { 'canvas:bar chart': 1, inspector: 1 }, `${key}: ${JSON.stringify(work)}`);
      assert.ok(dom.added <= 2 && dom.removed <= 2, `${key}: elements added ${dom.added}, removed ${dom.removed}`);
      assert.ok(dom.attributes <= 12, `${key}: ${dom.attributes} attribute changes`);
    }
    assert.equal(await page.locator('.chips .chip.selected').count(), 1, 'one chip is selected');
    assert.equal(await page.locator('.chips .chip').nth(100).getAttribute('class'), 'chip selected', 'the chip of row 101');
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
