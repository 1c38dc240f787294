// The compact view (?embed=1) at iframe and phone sizes, its link back to the
// full app, and the "Copy embed code" snippet loaded as an iframe in another page, whose weights
// must equal the full app's (JSON, every weight to 1e-12).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { useApp, startServer, downloadJson, eventually, waitForReady } from './harness.mjs';
import { heatmapLayout } from './heatmap_geometry.mjs';

const app = useApp();

// A view other than the defaults in every parameter the compact view shows.
const VIEW = { s: 'The cat sat on the mat .', seed: '7', heads: '2', head: '2', tau: '0.5', row: '4' };
const TOKENS = ['The', 'cat', 'sat', 'on', 'the', 'mat', '.'];

/** The view's parameters in a URL (the ones VIEW sets) and whether it has `embed`. */
function paramsOf(url) {
  const q = new URL(url).searchParams;
  return { view: Object.fromEntries(Object.keys(VIEW).map((k) => [k, q.get(k)])), embed: q.get('embed') };
}

async function noSidewaysScroll(where, label) {
  const o = await where.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
  assert.ok(o.scroll <= o.inner, `${label}: scrollWidth ${o.scroll} > innerWidth ${o.inner}`);
}

const caption = (where) => where.locator('[data-testid=inspector-table] caption').textContent();

/** Clicks row `i` (0-based) of the heatmap, at the centre of its first cell. */
async function clickRow(where, i) {
  const canvas = where.locator('canvas.heatmap');
  const width = await canvas.evaluate((c) => c.clientWidth);
  const longest = Math.max(...TOKENS.map((t) => [...t].length));
  await canvas.click({ position: heatmapLayout(width, TOKENS.length, longest, 13.0, true).at(i, 0) });
}

for (const viewport of [{ width: 640, height: 400 }, { width: 360, height: 640 }]) {
  test(`compact view at ${viewport.width}×${viewport.height}: heatmap, slider, inspector, open link`, async () => {
    const { page, context, consoleLog } = await app.newPage({ viewport });
    try {
      await app.open(page, new URLSearchParams({ ...VIEW, embed: '1' }).toString());
      // No lesson, no explanation, no big header (the page's static header is hidden before its
      // first paint); the truth note for this seed.
      assert.equal(await page.locator('.lesson, .explanation').count(), 0);
      assert.equal(await page.locator('.site-header, h1').first().isVisible(), false);
      assert.equal(await page.getByRole('button', { name: 'Copy embed code' }).count(), 0);
      assert.match(await page.getByTestId('weights-note').textContent(), /random weights \(seed 7\)/);
      assert.match(await page.locator('#heatmap-title').textContent(), /head 2 of 2/);
      assert.match(await caption(page), /“on” \(row 4\)/);
      await noSidewaysScroll(page, 'on load');

      // The slider: keyboard steps change τ (0.5 → larger).
      const tau = page.getByTestId('tau');
      const before = Number(await tau.textContent());
      assert.equal(before, 0.5);
      await page.locator('#temperature').focus();
      for (let k = 0; k < 5; k++) await page.keyboard.press('ArrowRight');
      await eventually(async () => assert.ok(Number(await tau.textContent()) > before));
      const tauNow = await tau.textContent();

      // The inspector follows a click on the heatmap and the keyboard.
      await clickRow(page, 1);
      await eventually(async () => assert.match(await caption(page), /“cat” \(row 2\)/));
      await page.locator('canvas.heatmap').focus();
      await page.keyboard.press('ArrowDown');
      await eventually(async () => assert.match(await caption(page), /“sat” \(row 3\)/));
      await noSidewaysScroll(page, 'after use');

      // The address keeps embed=1 while the learner works; the open link has the same view
      // without it, on the same path.
      await eventually(async () => {
        const p = paramsOf(page.url());
        assert.equal(p.embed, '1');
        assert.equal(p.view.row, '3');
      });
      const expected = { ...VIEW, row: '3', tau: paramsOf(page.url()).view.tau };
      // The display rounds τ < 1 to three decimals.
      assert.ok(Math.abs(Number(expected.tau) - Number(tauNow)) <= 0.0005, `${expected.tau} vs ${tauNow}`);
      const link = page.getByRole('link', { name: 'Open in Attention Explorer' });
      assert.equal(await link.getAttribute('target'), '_blank');
      assert.equal(await link.getAttribute('rel'), 'noopener');
      const href = await link.evaluate((a) => a.href);
      assert.deepEqual(paramsOf(href), { view: expected, embed: null });
      assert.equal(new URL(href).pathname, new URL(page.url()).pathname);

      // It opens the full app with that view.
      const [full] = await Promise.all([context.waitForEvent('page'), link.click()]);
      await waitForReady(full);
      assert.equal(await full.locator('.lesson').count(), 1);
      assert.equal(await full.getByTestId('tau').textContent(), tauNow);
      assert.match(await caption(full), /“sat” \(row 3\)/);
      consoleLog.assertClean();
    } finally {
      await context.close();
    }
  });
}

test('Copy embed code: the snippet in another page shows the same weights as the full app', async () => {
  // The host page is on another origin, as on a course site.
  const hostDir = await mkdtemp(path.join(os.tmpdir(), 'embed-host-'));
  await writeFile(path.join(hostDir, 'index.html'), '<!DOCTYPE html><title>placeholder</title>');
  const host = await startServer({ dir: hostDir });
  const { page, context, consoleLog } = await app.newPage({
    viewport: { width: 1280, height: 800 },
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  try {
    const query = 's=A+dog+ran+to+the+park+.&seed=9&heads=4&head=3&tau=0.7&row=5&pos=1';
    await app.open(page, query);
    await page.getByRole('button', { name: 'Copy embed code' }).click();
    await eventually(async () =>
      assert.match(await page.getByTestId('embed-status').textContent(), /^Embed code copied/),
    );
    assert.equal(await page.getByTestId('embed-status').getAttribute('role'), 'status');
    const snippet = await page.evaluate(() => navigator.clipboard.readText());
    const m = snippet.match(
      /^<iframe src="([^"<>']*)" width="640" height="400" title="Attention Explorer: causal attention heatmap" loading="lazy" style="border:0"><\/iframe>$/,
    );
    assert.ok(m, `unexpected snippet: ${snippet}`);
    // Every & in the attribute is written as &amp;.
    assert.equal(m[1].replace(/&amp;/g, '').includes('&'), false, m[1]);
    const src = new URL(m[1].replace(/&amp;/g, '&'));
    assert.equal(src.origin + src.pathname, `${app.url}/`);
    assert.equal(src.searchParams.get('embed'), '1');
    for (const [k, v] of new URLSearchParams(query)) assert.equal(src.searchParams.get(k), v, k);

    const expected = await downloadJson(page);

    await writeFile(
      path.join(hostDir, 'lesson.html'),
      `<!DOCTYPE html><html lang="en"><meta charset="utf-8"><title>Course page</title><h1>Week 3</h1>${snippet}`,
    );
    await page.goto(`${host.url}/lesson.html`);
    const frameElement = page.locator('iframe');
    assert.equal(await frameElement.getAttribute('title'), 'Attention Explorer: causal attention heatmap');
    const frame = await (await frameElement.elementHandle()).contentFrame();
    await waitForReady(frame);
    assert.equal(new URL(frame.url()).searchParams.get('embed'), '1');
    await noSidewaysScroll(frame, 'in the iframe');
    assert.equal(await frame.locator('.lesson').count(), 0);

    const shown = await downloadJson(page, { within: frame });
    assert.deepEqual(shown.tokens, expected.tokens);
    for (const k of ['seed', 'n_heads', 'positions', 'temperature']) assert.equal(shown[k], expected[k], k);
    assert.equal(shown.heads.length, 4);
    let compared = 0;
    shown.heads.forEach((head, h) =>
      head.weights.forEach((row, i) =>
        row.forEach((w, j) => {
          const e = expected.heads[h].weights[i][j];
          assert.ok(Math.abs(w - e) <= 1e-12, `head ${h + 1} (${i + 1}, ${j + 1}): ${w} vs ${e}`);
          compared++;
        }),
      ),
    );
    assert.equal(compared, 4 * 7 * 7);
    consoleLog.assertClean();
  } finally {
    await context.close();
    await host.close();
    await rm(hostDir, { recursive: true, force: true });
  }
});

test('Copy embed code without a clipboard: the code is shown selected', async () => {
  const { page, context, consoleLog } = await app.newPage({ viewport: { width: 360, height: 640 } });
  try {
    // As on a page served over plain http from another host: no navigator.clipboard.
    await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined }));
    await app.open(page, 'seed=5&row=3');
    await page.getByRole('button', { name: 'Copy embed code' }).click();
    const box = page.getByRole('textbox', { name: 'Embed code' });
    await box.waitFor();
    assert.match(await page.getByTestId('embed-status').textContent(), /did not allow copying/);
    assert.equal(await box.getAttribute('readonly'), '');
    const value = await box.inputValue();
    assert.match(value, /^<iframe src="[^"]*seed=5&amp;[^"]*row=3&amp;[^"]*embed=1" width="640"/);
    await eventually(async () =>
      assert.deepEqual(
        await box.evaluate((t) => [document.activeElement === t, t.selectionStart, t.selectionEnd]),
        [true, 0, value.length],
      ),
    );
    await noSidewaysScroll(page, 'with the code box');
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
