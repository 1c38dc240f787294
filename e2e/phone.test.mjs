// Drag and see on a phone. At 390 × 844 with touch, the compact temperature
// slider and the heatmap are on screen together while the slider moves; a tapped row's key numbers
// (top key, its weight, entropy) show right under the heatmap and agree with the JSON download; the
// heatmap's tooltip stays inside the viewport for every cell; the help speaks of tapping.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, saveDownload, eventually } from './harness.mjs';
import { clickHeatmapRow, heatmapLayout } from './heatmap_geometry.mjs';

const app = useApp();
const MAIN = '.main-view canvas.heatmap';
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

/** The viewport-relative box of `selector`, and whether it lies wholly inside the viewport. */
async function inView(page, selector) {
  return page.locator(selector).evaluate((el) => {
    const r = el.getBoundingClientRect();
    const [vw, vh] = [document.documentElement.clientWidth, document.documentElement.clientHeight];
    // Half a pixel of slack for sub-pixel scroll positions.
    return { box: r.toJSON(), inside: r.left >= -0.5 && r.top >= -0.5 && r.right <= vw + 0.5 && r.bottom <= vh + 0.5 };
  });
}

async function assertBothInView(page, what) {
  for (const selector of [MAIN, '#temperature-dock']) {
    const { box, inside } = await inView(page, selector);
    assert.ok(inside, `${what}: ${selector} at ${JSON.stringify(box)} is not inside the 390 × 844 viewport`);
  }
}

/** Head 1's weights from the JSON download. */
async function downloadWeights(page) {
  const saved = await saveDownload(page, () => page.getByRole('button', { name: 'Download JSON' }).click());
  const doc = JSON.parse(saved.text);
  return { weights: doc.heads[0].weights, tokens: doc.tokens, temperature: doc.temperature };
}

/** The summary line for row `i`, checked against the download: top key, its weight, entropy. */
function assertGlance(glance, weights, tokens, i) {
  const m = glance.match(/^Row (\d+) “(.+)” attends most to “(.+)” \(([\d.]+)%\)\. Entropy ([\d.]+) bits\.$/);
  assert.ok(m, `summary line: ${glance}`);
  assert.equal(Number(m[1]), i + 1);
  assert.equal(m[2], tokens[i]);
  const row = weights[i].slice(0, i + 1);
  const max = Math.max(...row);
  assert.equal(m[3], tokens[row.indexOf(max)], 'top key');
  assert.ok(Math.abs(Number(m[4]) - max * 100) <= 0.05 + 1e-9, `top weight ${m[4]}% vs JSON ${max * 100}%`);
  const bits = -row.filter((w) => w > 0).reduce((s, w) => s + w * Math.log2(w), 0);
  assert.ok(Math.abs(Number(m[5]) - bits) <= 0.0005 + 1e-9, `entropy ${m[5]} vs JSON ${bits}`);
}

test('390 × 844 touch: drag the slider with the heatmap in view; a tapped row shows its numbers', { timeout: 90_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage(PHONE);
  try {
    await app.open(page);
    const canvas = page.locator(MAIN);
    // The help speaks of tapping; the hover and keyboard help is hidden.
    assert.ok(await page.getByTestId('touch-help').isVisible(), 'touch help visible');
    assert.match(await page.getByTestId('touch-help').textContent(), /^Tap a row to inspect it/);
    assert.equal(await page.locator('#heatmap-keys .for-pointer').isVisible(), false, 'desktop help hidden');

    // Bring the heatmap to the top of the screen, as a student scrolling to it would.
    await canvas.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await assertBothInView(page, 'scrolled to the heatmap');

    // Tap row 3: the inspector and the summary under the heatmap follow.
    await clickHeatmapRow(page, canvas, 2, { tap: true });
    await eventually(async () =>
      assert.match(await page.locator('[data-testid=inspector-table] caption').textContent(), /\(row 3\)$/),
    );
    // The tapped cell's weight pops up, inside the screen.
    const tip = page.locator(`${MAIN} ~ [role=tooltip]`);
    await eventually(async () => assert.match(await tip.textContent(), /^sat → The: [\d.]+%$/));
    assert.ok((await inView(page, `${MAIN} ~ [role=tooltip]`)).inside, 'tooltip after a tap inside the viewport');
    await assertBothInView(page, 'after the tap');
    // The download button sits under the heatmap's notes: pressing it scrolls the page there, so
    // the heatmap is brought back to the top afterwards, as a student would.
    let json = await downloadWeights(page);
    assertGlance(await page.getByTestId('row-glance').textContent(), json.weights, json.tokens, 2);
    await canvas.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await assertBothInView(page, 'scrolled back to the heatmap');
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), 'no sideways scroll after a tap');

    // A tap on the track moves the compact slider; the full slider (the same state) follows.
    const dock = page.locator('#temperature-dock');
    const track = await dock.boundingBox();
    const before = await dock.inputValue();
    await page.touchscreen.tap(track.x + track.width * 0.25, track.y + track.height / 2);
    await eventually(async () => assert.notEqual(await dock.inputValue(), before, 'a tap on the track moves τ'));
    await assertBothInView(page, 'after a tap on the slider');

    // Drag the thumb across the track, checking at every step that both stay on screen and that
    // the two sliders and the τ read-outs agree.
    const thumbAt = (f) => track.x + 8 + f * (track.width - 16);
    const y = track.y + track.height / 2;
    const value = Number(await dock.inputValue());
    const f0 = (value - Number(await dock.getAttribute('min'))) / (Number(await dock.getAttribute('max')) - Number(await dock.getAttribute('min')));
    await page.mouse.move(thumbAt(f0), y);
    await page.mouse.down();
    const seen = new Set();
    for (const f of [0.3, 0.45, 0.6, 0.75, 0.9]) {
      await page.mouse.move(thumbAt(f), y, { steps: 3 });
      await assertBothInView(page, `dragging at ${f}`);
      const [dockValue, fullValue] = [await dock.inputValue(), await page.locator('#temperature').inputValue()];
      assert.equal(dockValue, fullValue, 'one τ for both sliders');
      assert.equal(await page.getByTestId('tau-dock').textContent(), await page.getByTestId('tau').textContent());
      seen.add(dockValue);
    }
    await page.mouse.up();
    assert.ok(seen.size >= 4, `the drag moved τ through ${seen.size} values`);
    // The keyboard moves it too.
    await dock.focus();
    const beforeKey = await dock.inputValue();
    await page.keyboard.press('ArrowLeft');
    assert.ok(Number(await dock.inputValue()) < Number(beforeKey), 'ArrowLeft lowers τ');
    await assertBothInView(page, 'after the keyboard');

    // The summary follows τ: checked against a download at the new temperature.
    json = await downloadWeights(page);
    assert.ok(Math.abs(Math.log10(json.temperature) - Number(await dock.inputValue())) < 1e-9, 'JSON at the slider τ');
    assertGlance(await page.getByTestId('row-glance').textContent(), json.weights, json.tokens, 2);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Hover every cell in `cols` (every row) with the mouse; each tooltip's box is inside the viewport. */
async function hoverCells(page, cols) {
  const canvas = page.locator(MAIN);
  const tokens = await page.locator('.chips .chip').allTextContents();
  const n = tokens.length;
  const tip = page.locator(`${MAIN} ~ [role=tooltip]`);
  let checked = 0;
  for (let i = 0; i < n; i++) {
    await canvas.evaluate((el, top) => el.scrollIntoView({ block: top ? 'start' : 'end' }), i < n / 2);
    const box = await canvas.boundingBox();
    const l = heatmapLayout(box.width, n, Math.max(...tokens.map((t) => [...t].length)), 13, true);
    for (const j of cols(n)) {
      const at = l.at(i, j);
      await page.mouse.move(box.x + at.x, box.y + at.y);
      const want = j > i ? `${tokens[i]} → ${tokens[j]}: masked (future)` : new RegExp(`^${esc(tokens[i])} → ${esc(tokens[j])}: [\\d.]+%$`);
      await eventually(async () => {
        const text = await tip.textContent();
        if (typeof want === 'string') assert.equal(text, want);
        else assert.match(text, want);
      });
      const r = await tip.evaluate((el) => ({ ...el.getBoundingClientRect().toJSON(), vw: document.documentElement.clientWidth, vh: document.documentElement.clientHeight }));
      assert.ok(r.left >= 0 && r.top >= 0 && r.right <= r.vw && r.bottom <= r.vh, `cell (${i + 1}, ${j + 1}): tooltip ${JSON.stringify(r)}`);
      checked++;
    }
  }
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true, 'no sideways scroll');
  return checked;
}

test('the tooltip stays inside the viewport for every cell at 390 px, and for the last columns at 1280 px', { timeout: 90_000 }, async () => {
  for (const [opts, cols, label] of [
    [PHONE, (n) => [...Array(n).keys()], '390'],
    [{ viewport: { width: 1280, height: 800 } }, (n) => [n - 2, n - 1], '1280'],
  ]) {
    const { page, context, consoleLog } = await app.newPage(opts);
    try {
      await app.open(page, 's=The+cat+sat+on+the+extraordinarily+long+mat+.');
      const checked = await hoverCells(page, cols);
      assert.ok(checked > 0, `${label}: cells hovered`);
      consoleLog.assertClean();
    } finally {
      await context.close();
    }
  }
});

test('in dark mode the pinned slider and summary use the dark panel colours', { timeout: 30_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage({ ...PHONE, colorScheme: 'dark' });
  try {
    await app.open(page);
    const colours = await page.evaluate(() => {
      const style = (s) => getComputedStyle(document.querySelector(s));
      return {
        dock: style('[data-testid=phone-dock]').backgroundColor,
        panel: style('.main-view').backgroundColor,
        text: style('[data-testid=row-glance]').color,
        bodyText: style('.main-view').color,
      };
    });
    assert.equal(colours.dock, colours.panel);
    assert.equal(colours.text, colours.bodyText);
    assert.notEqual(colours.dock, 'rgb(255, 255, 255)', 'not the light panel');
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('at 1280 px the pinned slider is hidden and the help speaks of hovering and keys', { timeout: 30_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await app.open(page);
    assert.equal(await page.getByTestId('phone-dock').isVisible(), false);
    assert.equal(await page.getByTestId('touch-help').isVisible(), false);
    assert.match(await page.locator('#heatmap-keys .for-pointer').textContent(), /^Hover for exact weights/);
    assert.ok(await page.locator('#heatmap-keys .for-pointer').isVisible());
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('on a phone every practice question, wrapped over lines, sits inside its box', { timeout: 60_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage(PHONE);
  try {
    await app.open(page, '', { file: 'practice.html' });
    // The first three questions of the default set: a typed number, a choice of keys, another number.
    for (let question = 1; question <= 3; question++) {
      const legend = page.locator('.quiz fieldset > legend');
      await eventually(async () => assert.match(await legend.textContent(), new RegExp(`^Question ${question} of`)));
      const [fieldBox, legendBox] = await Promise.all([
        page.locator('.quiz fieldset').boundingBox(),
        legend.boundingBox(),
      ]);
      assert.ok(legendBox.height > 40, `question ${question} wraps at 390 px (legend ${legendBox.height} px high)`);
      // A legend straddles its fieldset's top border (the box then starts at the legend's top and
      // the border runs through its lines) unless it is laid out inside the box, below the border.
      assert.ok(legendBox.y >= fieldBox.y + 1, `question ${question}: legend top ${legendBox.y}, box top ${fieldBox.y}: on the border`);
      assert.ok(
        legendBox.x >= fieldBox.x && legendBox.x + legendBox.width <= fieldBox.x + fieldBox.width,
        `question ${question}: legend outside the box sideways`,
      );
      await page.locator('.quiz-next').click();
    }
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
