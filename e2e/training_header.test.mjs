// The training page's header (title, what the page teaches) is static HTML in train.html: it
// paints before the WebAssembly has loaded (here: with JavaScript off), nothing above it moves
// when the app adds the rest, and the page's text has no doubled symbol.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, eventually, trainedSteps as steps } from './harness.mjs';

const app = useApp();

test('the header is in the HTML: title and what the page teaches, without JavaScript', { timeout: 60_000 }, async () => {
  const { page, context } = await app.newPage({ javaScriptEnabled: false });
  try {
    await page.goto(`${app.url}/train.html`, { waitUntil: 'load' });
    assert.equal(await page.locator('h1').textContent(), 'Attention Explorer: train a model');
    const start = page.getByTestId('start-here');
    assert.ok(await start.isVisible());
    assert.match(await start.textContent(), /^What this page teaches: how attention heads form while a model learns, and how to test what a head is for\./);
  } finally {
    await context.close();
  }
});

test('the app adds everything below the header: one header, no shift, no "ττ"', { timeout: 120_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    // Every layout shift from the first paint on (the header's box is also read at once).
    await page.addInitScript(() => {
      window.__shifts = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          if (!e.hadRecentInput) window.__shifts.push({ value: e.value, nodes: e.sources.map((s) => s.node?.nodeName + '.' + (s.node?.className || '')) });
        }
      }).observe({ type: 'layout-shift', buffered: true });
      document.addEventListener('DOMContentLoaded', () => {
        window.__headerTop = document.querySelector('.site-header').getBoundingClientRect().toJSON();
      });
    });
    await page.goto(`${app.url}/train.html?tsteps=50`, { waitUntil: 'load' });
    await eventually(async () => assert.equal(await steps(page), 50), 60_000);
    await page.locator('.site-footer').waitFor();
    assert.equal(await page.locator('h1').count(), 1);
    assert.equal(await page.locator('.site-header').count(), 1);
    const [before, after] = await page.evaluate(() => [window.__headerTop, document.querySelector('.site-header').getBoundingClientRect().toJSON()]);
    assert.deepEqual(after, before, 'the header did not move');
    // The way back to the explorer sits under the header, in the app's navigation.
    assert.equal(await page.locator('nav.page-nav a').count(), 1);
    const shifts = await page.evaluate(() => window.__shifts);
    const total = shifts.reduce((s, e) => s + e.value, 0);
    assert.ok(total < 0.01, `layout shift ${total}: ${JSON.stringify(shifts)}`);
    // No symbol doubled where a label meets its value (once "Temperature ττ = 1.00").
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
    const text = await page.evaluate(() => document.body.innerText);
    assert.ok(text.includes('Temperature\nτ = ') || /Temperature\s*τ = /.test(text), text.slice(text.indexOf('Temperature') - 20, text.indexOf('Temperature') + 40));
    assert.doesNotMatch(text, /ττ/);
    assert.equal(await page.getByLabel('Temperature', { exact: true }).count(), 1);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
