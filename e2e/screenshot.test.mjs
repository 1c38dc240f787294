// Regenerates the README screenshot (docs/screenshot.png) — only when asked:
//   UPDATE_SCREENSHOT=1 node --test e2e/screenshot.test.mjs
// A normal test run skips this file's test, so it never rewrites a committed file as a side effect.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { statSync } from 'node:fs';
import { useApp, REPO_ROOT } from './harness.mjs';

const update = process.env.UPDATE_SCREENSHOT === '1';
const app = useApp();

test('README screenshot', { skip: !update && 'set UPDATE_SCREENSHOT=1 to regenerate', timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    await app.open(page);
    const out = path.join(REPO_ROOT, 'docs', 'screenshot.png');
    await page.screenshot({ path: out, fullPage: false });
    consoleLog.assertClean();
    assert.ok(statSync(out).size > 20_000, 'screenshot is not blank');
  } finally {
    await context.close();
  }
});
