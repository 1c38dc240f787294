// The training page (train.html) on a phone, in dark and in light mode, at device pixel ratio 2:
// the quality bar's "phone, dark mode and HiDPI for every view". After a short run retrained from a
// link it checks that nothing is wider than the screen except tables inside their own scroll box
// (whose captions wrap within the box and stay put while the table scrolls);
// that every canvas is labelled, has a backing store of its CSS size times the pixel ratio (crisp)
// and is painted on the panel's own background colour (the charts follow the theme); that the loss
// legend keeps each swatch beside its label; that the controls are at least 24 × 24 CSS px
// (WCAG 2.5.8); and that a tap on Train trains and a second tap pauses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, eventually, linkSteps, trainedSteps as steps } from './harness.mjs';

const app = useApp();
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

/** Everything the checks read, from the page as laid out. */
function layout(page) {
  return page.evaluate(() => {
    const viewport = window.innerWidth;
    const panel = document.querySelector('[data-testid=training]');
    const [r, g, b] = getComputedStyle(panel).backgroundColor.match(/\d+/g).map(Number);
    const tooWide = [];
    for (const el of document.querySelectorAll('body *')) {
      const box = el.getBoundingClientRect();
      if (box.width > 0 && box.right > viewport + 0.5 && !el.closest('.table-scroll')) {
        tooWide.push(`${el.tagName}.${el.className} ends at ${Math.round(box.right)}`);
      }
    }
    const scrollBoxes = [...document.querySelectorAll('.table-scroll')].map((box) => {
      const caption = box.querySelector('caption');
      const edges = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.right]; };
      // The caption as shown: where it is with the table scrolled fully left and fully right.
      const captionAt = (scrollLeft) => { box.scrollLeft = scrollLeft; return caption && caption.getClientRects().length ? edges(caption) : null; };
      const seen = { overflowX: getComputedStyle(box).overflowX, right: edges(box)[1], box: edges(box), caption: captionAt(0), captionScrolled: captionAt(box.scrollWidth) };
      box.scrollLeft = 0;
      return seen;
    });
    const canvases = [...document.querySelectorAll('canvas')].map((c) => {
      const box = c.getBoundingClientRect();
      const pixels = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const colours = new Set();
      for (let i = 0; i < pixels.length; i += 4) colours.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]);
      return {
        label: c.getAttribute('aria-label') ?? '',
        role: c.getAttribute('role'),
        backing: [c.width, c.height],
        css: [box.width, box.height],
        corner: [...pixels.slice(0, 3)],
        colours: colours.size,
      };
    });
    const legend = [...document.querySelectorAll('.legend-line .legend-item')].map((item) => {
      const swatch = item.querySelector('.swatch').getBoundingClientRect();
      const box = item.getBoundingClientRect();
      return { text: item.textContent.trim(), swatchMiddle: swatch.top + swatch.height / 2, top: box.top, bottom: box.bottom, height: box.height };
    });
    const controls = [...panel.querySelectorAll('button, select, input')]
      .filter((el) => el.getBoundingClientRect().width > 0)
      .map((el) => {
        const box = el.getBoundingClientRect();
        return { name: el.getAttribute('aria-label') || el.textContent.trim() || el.id || el.type, width: box.width, height: box.height };
      });
    return {
      viewport,
      scrollWidth: document.documentElement.scrollWidth,
      panel: [r, g, b],
      tooWide,
      scrollBoxes,
      canvases,
      legend,
      controls,
    };
  });
}

for (const colorScheme of ['dark', 'light']) {
  test(`phone, ${colorScheme} mode, pixel ratio 2: fits the screen, crisp themed canvases, tap to train`, { timeout: 120_000 }, async () => {
    const { page, context, consoleLog } = await app.newPage({ ...PHONE, colorScheme });
    try {
      await app.open(page, 'tseed=3&tsteps=50', { file: 'train.html' });
      await eventually(async () => assert.equal(await steps(page), 50), 60_000);
      await eventually(async () => assert.equal(await page.locator('[data-testid=train-toggle]').textContent(), 'Train'), 5_000);
      // Look closer builds its heatmap when it first comes near the screen.
      await page.getByTestId('closer-heatmap').scrollIntoViewIfNeeded();
      await page.locator('[data-testid=closer-heatmap] canvas').waitFor({ state: 'attached' });
      const seen = await layout(page);

      assert.equal(seen.scrollWidth, seen.viewport, 'the page does not scroll sideways');
      assert.deepEqual(seen.tooWide, [], 'only tables in their scroll box may be wider than the screen');
      for (const box of seen.scrollBoxes) {
        assert.equal(box.overflowX, 'auto');
        assert.ok(box.right <= seen.viewport + 0.5, `a table's scroll box ends at ${box.right}`);
        // A wide table's caption wraps within the box and stays in view while the table scrolls.
        for (const caption of [box.caption, box.captionScrolled].filter(Boolean)) {
          assert.ok(caption[0] >= box.box[0] - 0.5 && caption[1] <= box.box[1] + 0.5, `caption at ${caption} in a box at ${box.box}`);
        }
      }
      assert.ok(seen.scrollBoxes.filter((b) => b.caption).length >= 2, 'the detector table and the trace have captions');

      const dark = seen.panel.reduce((a, b) => a + b, 0) < 3 * 128;
      assert.equal(dark, colorScheme === 'dark', `panel colour ${seen.panel} in ${colorScheme} mode`);
      // The loss chart, four head thumbnails and the closer look's heatmap.
      assert.equal(seen.canvases.length, 6);
      for (const c of seen.canvases) {
        assert.equal(c.role, 'img');
        assert.ok(c.label.length > 20, `canvas label "${c.label}"`);
        assert.deepEqual(c.backing, c.css.map((v) => Math.round(v * 2)), `${c.label}: backing store ${c.backing} for CSS size ${c.css}`);
        assert.deepEqual(c.corner, seen.panel, `${c.label}: painted on the panel colour`);
        assert.ok(c.colours > 4, `${c.label} is drawn`);
      }

      assert.deepEqual(seen.legend.map((l) => l.text), ['all predicted tokens', 'first copy', 'repeated part']);
      for (const l of seen.legend) {
        assert.ok(l.swatchMiddle > l.top && l.swatchMiddle < l.bottom && l.height < 32, `legend "${l.text}" on one line with its swatch`);
      }

      assert.ok(seen.controls.length >= 10, `${seen.controls.length} controls`);
      const small = seen.controls.filter((c) => c.width < 24 || c.height < 24).map((c) => `${c.name}: ${c.width} × ${c.height} CSS px`);
      assert.deepEqual(small, [], 'controls smaller than 24 × 24 CSS px');

      const toggle = page.locator('[data-testid=train-toggle]');
      await toggle.tap();
      await eventually(async () => assert.ok((await steps(page)) > 50, 'a tap trains'), 20_000);
      await toggle.tap();
      await eventually(async () => assert.equal(await toggle.textContent(), 'Train'), 5_000);
      const paused = await steps(page);
      // Paused, the run settles: the link is written with its step count, and the counter still
      // shows that count then.
      await eventually(async () => assert.equal(linkSteps(page), paused), 10_000);
      assert.equal(await steps(page), paused, 'a second tap pauses');
      consoleLog.assertClean();
    } finally {
      await context.close();
    }
  });
}
