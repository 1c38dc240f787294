// The practice page (practice.html, its own wasm): reached from the explorer's "Practice" panel
// with the view on screen, it shows the same heatmap (same numbers), Predict, then reveal and
// Compare A and B, and links back to the explorer with the view it has then.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, downloadJson, revealAnswer, waitForReady } from './harness.mjs';

const app = useApp();

const VIEW = 'tau=0.5&seed=42&heads=4&head=3&row=5&pos=1';

test('the explorer links to the practice page with its view, and back', { timeout: 90_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage();
  try {
    await app.open(page, VIEW);
    // The explorer has the lesson and Break it, not the practice panels.
    assert.equal(await page.locator('#quiz').count(), 0);
    assert.equal(await page.getByTestId('compare').count(), 0);
    const explorerJson = await downloadJson(page);

    const link = page.getByTestId('to-practice').getByRole('link');
    assert.match(await link.getAttribute('href'), /^practice\.html\?/);
    await link.click();
    await page.waitForURL(/practice\.html/);
    await waitForReady(page);
    assert.equal(await page.title(), 'Attention Explorer: practice');
    const url = new URL(page.url());
    for (const [key, value] of new URLSearchParams(VIEW)) assert.equal(url.searchParams.get(key), value, key);
    // Both practice panels, and no lesson.
    assert.ok(await page.locator('#quiz').isVisible());
    assert.ok(await page.getByTestId('compare').isVisible());
    assert.equal(await page.locator('#lesson-title, .lesson').count(), 0);
    // The symbols the practice panels use are defined here too.
    const symbols = await page.getByTestId('glossary').locator('dt').allTextContents();
    for (const symbol of ['τ', 'A', 'entropy']) assert.ok(symbols.some((s) => s.includes(symbol)), `${symbol} in ${symbols}`);
    // While a question is open the downloads wait (each file holds the numbers it asks about).
    const button = page.getByRole('button', { name: 'Download JSON', exact: true });
    assert.equal(await button.isDisabled(), true);
    assert.ok(await page.getByTestId('downloads-hidden').isVisible());
    await revealAnswer(page);
    assert.equal(await button.isDisabled(), false);
    assert.equal(await page.getByTestId('downloads-hidden').isVisible(), false);
    // The same model: every head's weights equal the explorer's, exactly.
    const practiceJson = await downloadJson(page);
    assert.equal(practiceJson.heads.length, 4);
    assert.deepEqual(practiceJson.heads.map((h) => h.weights), explorerJson.heads.map((h) => h.weights));
    assert.equal(practiceJson.temperature, 0.5);
    assert.equal(explorerJson.temperature, 0.5);

    // A change made on the practice page goes back with the learner.
    await page.getByRole('textbox', { name: /sentence/i }).first().fill('the dog sat on the log .');
    await page.getByRole('textbox', { name: /sentence/i }).first().press('Enter');
    await waitForReady(page);
    const back = page.getByTestId('to-explorer');
    await page.waitForFunction(() => document.querySelector('[data-testid="to-explorer"]').getAttribute('href').includes('dog'));
    assert.match(await back.getAttribute('href'), /^\.\/\?/);
    await back.click();
    await page.waitForURL((u) => !u.pathname.endsWith('practice.html'));
    await waitForReady(page);
    assert.equal(new URL(page.url()).searchParams.get('s'), 'the dog sat on the log .');
    assert.equal(new URL(page.url()).searchParams.get('seed'), '42');
    assert.ok(await page.getByTestId('to-practice').isVisible());
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
