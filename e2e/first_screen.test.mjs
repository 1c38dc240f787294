// The first screen of the explorer on a laptop: at every width from 1024 px and every height from
// 700 px, the whole default heatmap (its grid, labels and legend), the temperature slider and the
// top of the row inspector (the selected row's bars) are on screen without scrolling, in light and
// dark, both in the first view written into the page (the wasm blocked) and once the app has taken
// over, with no layout shift between the two. On a phone the slider is docked to the bottom of the
// screen instead (the heatmap fills the width and cannot also fit the height).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, recordLayoutShifts, layoutShift } from './harness.mjs';

const app = useApp();

const SCREENS = [
  [1280, 800],
  [1366, 768],
  [1440, 900],
  [1024, 700],
];

/** The viewport box of the first element matching each selector (null where none). */
function boxes(selectors) {
  return Object.fromEntries(
    Object.entries(selectors).map(([name, s]) => {
      const el = document.querySelector(s);
      if (!el) return [name, null];
      const r = el.getBoundingClientRect();
      return [name, { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width }];
    }),
  );
}

/** Asserts `box` lies inside the `width` × `height` screen. */
function onScreen(box, name, [width, height]) {
  assert.ok(box, `${name} is on the page`);
  assert.ok(box.width > 0, `${name} has a size`);
  assert.ok(box.top >= 0 && box.bottom <= height, `${name} spans y ${box.top}–${box.bottom} on a screen ${height} px high`);
  assert.ok(box.left >= 0 && box.right <= width, `${name} spans x ${box.left}–${box.right} on a screen ${width} px wide`);
}

for (const colorScheme of ['light', 'dark']) {
  for (const screen of SCREENS) {
    const [width, height] = screen;
    test(`${width} × ${height}, ${colorScheme}: the whole heatmap, the slider and the row's bars fit the first screen`, { timeout: 60_000 }, async () => {
      // The first view alone, as it paints before the wasm has loaded.
      {
        const { page, context } = await app.newPage({ viewport: { width, height }, colorScheme });
        try {
          await page.route('**/*.wasm', (route) => route.abort());
          await page.goto(`${app.url}/`, { waitUntil: 'load' });
          const b = await page.evaluate(boxes, { heatmap: '#first-view .static-heatmap' });
          onScreen(b.heatmap, 'the first view\'s heatmap', screen);
        } finally {
          await context.close();
        }
      }
      const { page, context, consoleLog } = await app.newPage({ viewport: { width, height }, colorScheme });
      try {
        await recordLayoutShifts(page);
        await app.open(page, '');
        const b = await page.evaluate(boxes, {
          heatmap: '.main-view canvas.heatmap',
          slider: '#temperature',
          bars: '.inspector canvas.bars',
        });
        onScreen(b.heatmap, 'the heatmap (grid, labels and legend)', screen);
        onScreen(b.slider, 'the temperature slider', screen);
        onScreen(b.bars, 'the selected row\'s bars', screen);
        assert.equal(await page.evaluate(() => window.scrollY), 0, 'nothing scrolled');
        assert.equal(await layoutShift(page), 0, 'no layout shift');
        consoleLog.assertClean();
      } finally {
        await context.close();
      }
    });
  }
}

test('on a phone the heatmap fills the width and the slider is docked to the bottom', { timeout: 60_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage({ viewport: { width: 390, height: 844 } });
  try {
    await app.open(page, '');
    const b = await page.evaluate(boxes, {
      heatmap: '.main-view canvas.heatmap',
      main: '.main-view',
      dock: '.phone-dock input[type=range]',
    });
    assert.ok(b.heatmap.width > b.main.width * 0.8, `the heatmap is ${b.heatmap.width} px of the panel's ${b.main.width}`);
    onScreen(b.dock, 'the docked slider', [390, 844]);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
