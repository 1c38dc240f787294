// Smoke test: the release build loads, draws its heatmap and logs nothing bad.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, screenshot } from './harness.mjs';

const app = useApp();

test('app loads with title and no console errors', { timeout: 90_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page);
    assert.match(await page.title(), /Attention/);
    await screenshot(page, 'smoke');
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
