// Accessibility: axe-core (the npm package in node_modules, never fetched) audits every page in
// each state a learner reaches: the explorer as it opens, each lesson step, "Break it" with a
// mistake on, the symbols list open, phone width, the compact view (?embed=1), and every lesson
// step with its closed disclosures opened ("How we know", "Going further", the symbols); the
// practice page with a question open and revealed, and the compare view with its table open; the
// training page after a short run with every section shown,
// with Replay moved to a kept checkpoint and every disclosure open, with heads knocked out (the
// question, then the prediction made and the result shown), and with the composition test's
// result.
// Each at 1280 px in light mode and on a 360 px phone in dark mode (the compact view at 640 and 360 px).
// Every violation axe reports (all impacts, its default WCAG A/AA and best-practice rules) fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { useApp, eventually, REPO_ROOT } from './harness.mjs';

const app = useApp();
const AXE = readFile(path.join(REPO_ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');

/** Runs axe on the page as it is and returns its violations in a readable form. */
async function audit(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) {
    // DevTools-protocol evaluation: not an inline script, so the pages' CSP does not apply.
    await page.evaluate(await AXE);
  }
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary.split('\n').slice(1).join(' ').trim()}`),
    }));
  });
  return violations;
}

/** Fails with every violation of every state, named. */
async function assertClean(page, state) {
  const violations = await audit(page);
  assert.deepEqual(
    violations.map((v) => `${state}: [${v.impact}] ${v.id} (${v.help})\n    ${v.nodes.join('\n    ')}`),
    [],
  );
}

/** Opens every closed `<details>` in the page by clicking its summary, as a learner would. */
async function openDisclosures(page) {
  const closed = page.locator('details:not([open]) > summary');
  for (let n = await closed.count(), tries = 0; n > 0; n = await closed.count(), tries++) {
    assert.ok(tries < 50, `${n} disclosures still closed`);
    await closed.first().click();
  }
}

/** A 1280 px window in light mode and a 360 px phone in dark mode: the views most audits cover. */
const DESKTOP_AND_PHONE = [
  { viewport: { width: 1280, height: 800 }, colorScheme: 'light' },
  { viewport: { width: 360, height: 740 }, colorScheme: 'dark' },
];

/** Runs `body(page, where)` in a fresh page for each view (`where` names the page, its width and
 * colour scheme, for the audits' messages); the console must stay clean. */
async function inEachView(views, name, body) {
  for (const { viewport, colorScheme } of views) {
    const { page, context, consoleLog } = await app.newPage({ viewport, colorScheme });
    try {
      await body(page, `${name} ${viewport.width}px ${colorScheme}`);
      consoleLog.assertClean();
    } finally {
      await context.close();
    }
  }
}

test('explorer: every lesson step, Break it, symbols, phone and dark mode', { timeout: 240_000 }, async () => {
  await inEachView(DESKTOP_AND_PHONE, 'explorer', async (page, where) => {
    for (const step of ['average', 'softmax', 'attention', 'scaling', 'heads', 'positions']) {
      await app.open(page, `step=${step}`);
      await page.locator('[data-testid=step-adds]').waitFor();
      await assertClean(page, `${where}, step ${step}`);
    }
    await app.open(page, 'broken=triu,dropout');
    await assertClean(page, `${where}, Break it: triu and dropout`);
    await app.open(page, '');
    await page.locator('[data-testid=glossary] summary').click();
    await assertClean(page, `${where}, symbols open`);
    await app.open(page, 'w=grammar');
    await eventually(async () => assert.match(await page.locator('[data-testid=weights-note]').textContent(), /Trained/), 20_000);
    await assertClean(page, `${where}, trained weights`);
    // A long sentence: its chips scroll in a box that the keyboard reaches.
    await app.open(page, `heads=8&s=${encodeURIComponent(Array.from({ length: 64 }, (_, i) => `w${i}`).join(' '))}`);
    await assertClean(page, `${where}, 64 tokens`);
  });
});

for (const view of DESKTOP_AND_PHONE) {
  test(`practice page at ${view.viewport.width} px: a question open, one revealed, and the compare view`, { timeout: 120_000 }, async () => {
    await inEachView([view], 'practice', async (page, where) => {
      await app.open(page, 'cmp=tau%3A2', { file: 'practice.html' });
      await page.locator('#quiz fieldset').waitFor();
      await assertClean(page, `${where}, question open`);
      const radio = page.locator('#quiz input[type=radio]').first();
      if (await radio.count()) await radio.check();
      else await page.getByLabel('Your answer', { exact: true }).fill('0.5');
      await page.getByRole('button', { name: 'Check' }).click();
      await page.locator('[data-testid=quiz-number]').waitFor();
      await assertClean(page, `${where}, answer revealed`);
      await openDisclosures(page);
      await assertClean(page, `${where}, compare view with its disclosures open`);
      await app.open(page, 'broken=mask-zero', { file: 'practice.html' });
      await page.locator('#quiz fieldset').waitFor();
      await assertClean(page, `${where}, broken heatmap`);
    });
  });
}

test('explorer: the compact view (?embed=1) at iframe and phone sizes', { timeout: 120_000 }, async () => {
  await inEachView([
    { viewport: { width: 640, height: 400 }, colorScheme: 'light' },
    { viewport: { width: 360, height: 640 }, colorScheme: 'dark' },
  ], 'explorer embed', async (page, where) => {
    await app.open(page, 'embed=1&seed=7&head=2&row=3');
    await page.locator('canvas.heatmap').waitFor();
    await page.getByTestId('weights-note').waitFor();
    await assertClean(page, `${where}, as it opens`);
    await app.open(page, 'embed=1&broken=triu,dropout');
    await page.locator('canvas.heatmap').waitFor();
    await assertClean(page, `${where}, Break it: triu and dropout`);
  });
});

test('explorer: every lesson step with its disclosures open ("How we know", "Going further", symbols)', { timeout: 240_000 }, async () => {
  await inEachView(DESKTOP_AND_PHONE, 'explorer', async (page, where) => {
    const opened = new Set();
    for (const step of ['average', 'softmax', 'attention', 'scaling', 'heads', 'positions']) {
      await app.open(page, `step=${step}`);
      await page.locator('[data-testid=step-adds]').waitFor();
      await openDisclosures(page);
      for (const s of await page.locator('details[open] > summary').allTextContents()) opened.add(s.trim());
      await assertClean(page, `${where}, step ${step} with every disclosure open`);
    }
    // The lesson's named disclosures were all opened in some step.
    for (const name of ['How we know', 'Symbols used here']) assert.ok(opened.has(name), `"${name}" opened: ${[...opened]}`);
    assert.ok([...opened].some((s) => s.startsWith('Going further')), `"Going further" opened: ${[...opened]}`);
  });
});

test('training page: after a short run, at 1280 px and on a phone', { timeout: 240_000 }, async () => {
  await inEachView(DESKTOP_AND_PHONE, 'training', async (page, where) => {
    await app.open(page, 'tsteps=50', { file: 'train.html' });
    await eventually(async () => assert.match(await page.getByTestId('training-status').textContent(), /Trained for 50 steps/), 60_000);
    await assertClean(page, `${where}, repeat task at step 50`);
    await app.open(page, 'train=grammar&tsteps=25', { file: 'train.html' });
    await eventually(async () => assert.match(await page.getByTestId('training-status').textContent(), /Trained for 25 steps/), 60_000);
    await assertClean(page, `${where}, tiny grammar at step 25`);
    // Run B beside run A, with its table open (both runs paused at step 25).
    await app.open(page, 'tsteps=25&b=mistake%3Ano-mask', { file: 'train.html' });
    await eventually(async () => {
      assert.equal(await page.locator('[data-testid=run-b-steps] output').textContent(), '25');
      assert.equal(await page.getByTestId('train-toggle').textContent(), 'Train');
    }, 60_000);
    await page.getByTestId('run-b').locator('summary').first().click();
    await assertClean(page, `${where}, run B without the causal mask at step 25`);
  });
});

test('training page: Replay at a kept checkpoint, knock-outs predicted and shown, the composition test', { timeout: 240_000 }, async () => {
  await inEachView(DESKTOP_AND_PHONE, 'training', async (page, where) => {
    const at150 = `${where}, seed 1 at step 150`;
    const replayStep = () => page.getByTestId('replay-step').textContent();
    await app.open(page, 'tseed=1&tsteps=150', { file: 'train.html' });
    await eventually(async () => {
      assert.match(await page.getByTestId('training-status').textContent(), /Trained for 150 steps/);
      assert.equal(await page.getByTestId('train-toggle').textContent(), 'Train');
    }, 90_000);

    // Replay moved back to a kept checkpoint (step 25), every disclosure open.
    const slider = page.locator('#train-replay');
    await slider.focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await eventually(async () => assert.equal(await replayStep(), 'step 25 (checkpoint)'), 5_000);
    await openDisclosures(page);
    await assertClean(page, `${at150}, Replay at the checkpoint of step 25, every disclosure open`);

    // Back to the latest step; knock out layer 1's head 1: the question first, no numbers.
    await slider.focus();
    await page.keyboard.press('End');
    await eventually(async () => assert.match(await replayStep(), /^step 150 /), 5_000);
    const box = page.getByRole('checkbox', { name: 'Layer 1, head 1' });
    await box.check();
    await page.getByTestId('ko-predict').waitFor();
    assert.equal(await page.getByTestId('knockout-losses').count(), 0);
    await assertClean(page, `${at150}, layer 1 head 1 knocked out, prediction asked`);
    // The prediction made: the grade and the losses and scores beside the intact model.
    await page.getByRole('radio', { name: 'Rise (by more than 10%)' }).check();
    await page.getByTestId('ko-grade').waitFor();
    await page.getByTestId('knockout-losses').waitFor();
    await openDisclosures(page);
    await assertClean(page, `${at150}, knock-out predicted and its result shown`);
    // Mean-ablation of two heads, predicted and shown.
    await page.getByRole('checkbox', { name: 'Layer 2, head 2' }).check();
    await page.getByRole('radio', { name: 'Mean (writes its average)' }).check();
    await eventually(async () => assert.equal(await page.getByTestId('knockout-losses').count(), 0));
    await page.getByRole('radio', { name: 'Stay within 10%' }).check();
    await page.getByTestId('ko-grade').waitFor();
    await assertClean(page, `${at150}, two heads mean-ablated, predicted and shown`);

    // The composition test's result (forward passes only; met or not, the same markup).
    await page.getByTestId('composition-test').click();
    await page.getByTestId('composition-result').waitFor();
    await assertClean(page, `${at150}, the composition test's result`);
  });
});

test('generate page: a generated text, the question answered, the curves measured, every disclosure open', { timeout: 240_000 }, async () => {
  await inEachView(DESKTOP_AND_PHONE, 'generate', async (page, where) => {
    await page.goto(`${app.url}/generate.html?p=the+cat&n=6&seed=3`);
    await page.waitForSelector('[data-testid=gen-heatmap]');
    await page.waitForFunction(() => !document.documentElement.hasAttribute('data-building'));
    await page.getByLabel('The attention temperature τ').check();
    await page.getByTestId('two-t-check').click();
    await page.getByTestId('measure-curves').click();
    await eventually(async () => assert.match(await page.getByTestId('curves-progress').textContent(), /all 16 temperatures/), 120_000);
    await openDisclosures(page);
    await assertClean(page, `${where}, six tokens generated`);
  });
});
